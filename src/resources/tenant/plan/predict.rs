//! The tenant's planned state, from its plan inputs and verdict: its id and cluster, its tags, the checklist, and
//! every object apply will compose — names and ARNs known now, a digest of each Kubernetes object's content, IDs AWS
//! assigns unknown — so the reviewer sees them before anything exists. No I/O.

use std::collections::BTreeMap;

use super::super::model::components::{desired_entries, entry_value, quota_id, role_policies};
use super::super::model::{self, TenantConfig, manifests, slurm};
use super::super::schema::{SlurmArtefactsValue, TenantModel as M};
use super::gather::TenantPlanInputs;
use super::judge::TenantVerdict;
use crate::component::Component;
use crate::governance::{Contract, Orchestrator, Setting};
use crate::protocol::model::{Field, Model};
use crate::protocol::object::{text, text_map};
use crate::protocol::value::Value;
use crate::resources::checklist;

/// The planned value of each derived attribute.
pub type Prediction = BTreeMap<&'static str, Value>;

pub fn predict(inputs: &TenantPlanInputs, verdict: &TenantVerdict) -> Prediction {
    let cluster = &inputs.cluster.cluster;
    let tags_all = model::composed_tags(&inputs.context.default_tags, &inputs.config, &inputs.contract);
    let mut attributes: Prediction = BTreeMap::new();
    attributes.insert(M::ID.name(), text(format!("{}/{}", cluster.name, inputs.config.team)));
    attributes.insert(M::GOVERNANCE.name(), inputs.handoff.clone());
    attributes.insert(M::CLUSTER_NAME.name(), text(&cluster.name));
    attributes.insert(M::CLUSTER_ARN.name(), text(&cluster.arn));
    attributes.insert(M::TAGS_ALL.name(), text_map(&tags_all));
    attributes.extend(checklist::of(&verdict.report));
    match verdict.orchestrator {
        Orchestrator::Eks => attributes.extend(eks_objects(inputs)),
        Orchestrator::Slurm => attributes.extend(slurm_objects(&inputs.config, &inputs.contract)),
    }
    attributes
}

/// An EKS tenant: its namespace, workload role, quota, Pod Identity association, KMS grants and every component.
fn eks_objects(inputs: &TenantPlanInputs) -> Prediction {
    let context = &inputs.context;
    let components = predicted_components(
        &inputs.config,
        &inputs.role_name,
        &context.partition,
        &context.prior_components,
    );
    let recorded = |component: &Component| components.get(&component.key()).cloned().unwrap_or(Value::Null);
    let quota_recorded = context.prior_components.contains_key(&Component::ComputeQuota.key());
    let quota_arn = match (quota_recorded, &context.prior_quota_arn) {
        (true, Some(arn @ Value::String(_))) => arn.clone(),
        _ => Value::Unknown,
    };
    let grants = inputs
        .config
        .data
        .kms_keys
        .iter()
        .map(|key| (key.clone(), recorded(&Component::KmsGrant(key.clone()))))
        .collect();
    // The target policy is a component only once the target role is known: until then the set of components is not
    // known either (a known map would gain a key at apply).
    let target_unknown = matches!(
        inputs.config.workload.as_ref().map(|w| &w.target_role_arn),
        Some(Setting::Unknown)
    );
    let mut attributes = BTreeMap::from([
        (M::NAMESPACE.name(), text(inputs.config.namespace())),
        (M::COMPUTE_QUOTA_ID.name(), recorded(&Component::ComputeQuota)),
        (M::COMPUTE_QUOTA_ARN.name(), quota_arn),
        (
            M::POD_IDENTITY_ASSOCIATION_ID.name(),
            recorded(&Component::PodIdentityAssociation),
        ),
        (M::KMS_GRANTS.name(), Value::Map(grants)),
        (
            M::COMPONENTS.name(),
            if target_unknown {
                Value::Unknown
            } else {
                Value::Map(components)
            },
        ),
        (M::SLURM_ARTEFACTS.name(), Value::Null),
    ]);
    attributes.extend(names(inputs));
    attributes
}

/// What the tenant names: its compute quota (as written, or by default) and its workload role, whose ARN is known
/// now with a workload block and null without one (the name is kept, so adding a block later creates the role
/// without a replacement).
fn names(inputs: &TenantPlanInputs) -> Prediction {
    let role_arn = model::role_arn(
        &inputs.context.partition,
        &inputs.contract.cluster.account_id,
        &inputs.role_name,
    );
    BTreeMap::from([
        (M::COMPUTE_QUOTA_NAME.name(), text(inputs.config.compute_quota_name())),
        (
            M::COMPUTE_QUOTA_DESCRIPTION.name(),
            text(inputs.config.compute_quota_description()),
        ),
        (M::WORKLOAD_ROLE_NAME.name(), text(&inputs.role_name)),
        (
            M::WORKLOAD_ROLE_ARN.name(),
            if inputs.config.workload.is_some() {
                text(role_arn)
            } else {
                Value::Null
            },
        ),
    ])
}

/// A Slurm tenant: the rendered accounting artefacts, and none of the EKS objects.
fn slurm_objects(config: &TenantConfig, contract: &Contract) -> Prediction {
    let artefacts = slurm::render(config, &contract.name);
    let mut attributes: Prediction = [
        M::NAMESPACE.name(),
        M::WORKLOAD_ROLE_NAME.name(),
        M::WORKLOAD_ROLE_ARN.name(),
        M::COMPUTE_QUOTA_ID.name(),
        M::COMPUTE_QUOTA_ARN.name(),
        M::POD_IDENTITY_ASSOCIATION_ID.name(),
    ]
    .into_iter()
    .map(|name| (name, Value::Null))
    .collect();
    attributes.insert(M::KMS_GRANTS.name(), Value::Map(BTreeMap::new()));
    attributes.insert(M::COMPONENTS.name(), Value::Map(BTreeMap::new()));
    let artefacts = SlurmArtefactsValue {
        account: Field::Known(artefacts.account),
        sacctmgr_commands: Field::Known(artefacts.sacctmgr_commands),
        slurm_conf: Field::Known(artefacts.slurm_conf),
    };
    attributes.insert(M::SLURM_ARTEFACTS.name(), artefacts.encode());
    attributes
}

/// The components the tenant will have: recorded values where the prior state has them, else predictions (names
/// and ARNs known now) or unknown (IDs AWS assigns).
pub fn predicted_components(
    config: &TenantConfig,
    role_name: &str,
    partition: &str,
    prior: &BTreeMap<String, String>,
) -> BTreeMap<String, Value> {
    let namespace = config.namespace();
    let mut out: BTreeMap<String, Value> = BTreeMap::new();
    let mut add = |component: Component, predicted: Option<String>| {
        let key = component.key();
        let value = match (prior.get(&key), predicted) {
            (_, Some(predicted)) => text(predicted),
            (Some(recorded), None) => text(recorded),
            (None, None) => Value::Unknown,
        };
        out.insert(key, value);
    };
    // The role by name, and each inline policy by the role it is on (its key names the policy): only a tenant with a
    // workload identity has them.
    if config.workload.is_some() {
        add(Component::IamRole, Some(role_name.to_string()));
        for name in role_policies(config, partition).keys() {
            add(Component::IamPolicy(name.clone()), Some(role_name.to_string()));
        }
    }
    // Its id once recorded (a recorded failed write, `<id> (UpdateFailed)`, is planned back to the bare id).
    let quota = prior.get(&Component::ComputeQuota.key()).map(|value| quota_id(value));
    add(Component::ComputeQuota, quota);
    for manifest in manifests::render(config) {
        add(
            manifest.component(),
            Some(manifests::rendered_value(&namespace, &manifest)),
        );
    }
    if config.workload.is_some() {
        add(Component::PodIdentityAssociation, None);
    }
    for entry in desired_entries(config) {
        add(
            Component::AccessEntry(entry.principal_arn.clone()),
            Some(entry_value(&entry)),
        );
    }
    for key in &config.data.kms_keys {
        add(Component::KmsGrant(key.clone()), None);
    }
    out
}
