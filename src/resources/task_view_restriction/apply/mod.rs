//! Apply and destroy: bring the project role's access (EKS) or its Run As tag (Slurm) to what the restriction wants,
//! recording each addition in `components` as it is made (`applier.rs`, in steps: the access entry `entry.rs`, its
//! policy associations `policies.rs`, the RBAC objects `objects.rs`, the Slurm tag `slurm.rs`); destroy removes
//! exactly those and nothing of an adopted access entry beyond them (`remove.rs`). A restriction whose rules the plan
//! could not judge (an input known only at apply) is gathered and judged first, before anything is written.

mod applier;
mod entry;
mod objects;
mod policies;
mod remove;
mod slurm;

use crate::resources::governance_objects::ContractArgument;
use crate::resources::{record_components, recorded_components};
use std::collections::BTreeMap;

use super::model::{CONTRACT_TAG, OWNER_TAG, RestrictionConfig, unknown_inputs, with_contract};
use super::read::cluster_of;
use super::schema::RestrictionModel;
use crate::client::HyperpodClient;
use crate::component::Components;
use crate::governance::Contract;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::Model;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;
use crate::resources::checklist;
use applier::RestrictionApplier;

/// Create (`prior` is `None`) or update.
pub async fn write(client: &HyperpodClient, planned: &Value, prior: Option<&Value>) -> Applied {
    let mut value = planned.clone();
    if !checklist::known(planned) {
        // Judged now: a dependency was unknown at plan.
        if let Err(diagnostics) = super::plan::resolve(client, &mut value, prior).await {
            return Applied::failed(prior.cloned(), diagnostics);
        }
    }
    let restriction = match RestrictionModel::decode(&value) {
        Ok(restriction) => restriction,
        Err(diagnostics) => return Applied::failed(prior.cloned(), diagnostics),
    };
    let Some((contract, config)) = with_contract(&restriction) else {
        return still_unknown(&restriction).into();
    };
    let eks_cluster = match cluster_of(client, &restriction).await {
        Ok(Some(eks)) => eks,
        Ok(None) => {
            let at = ContractArgument::CONTRACT.path();
            return Diagnostics::error(at, "The HyperPod cluster is gone", "").into();
        }
        Err(diagnostics) => return diagnostics.into(),
    };
    // Derived from the restriction's identity: an entry carrying it was made by this restriction.
    let owner = restriction.id.as_known().cloned().unwrap_or_default();
    let mut applier = RestrictionApplier {
        client,
        config: &config,
        eks_cluster,
        partition: client.region.partition().to_string(),
        tags: tags(client, &contract, &owner),
        owner: prior.is_none().then_some(owner),
        components: prior
            .map(|prior| recorded_components(RestrictionModel::COMPONENTS, prior))
            .unwrap_or_default(),
    };
    let result = applier.apply().await;
    settle(result, &applier.components, value, prior)
}

/// The tags an access entry the restriction creates carries: the provider's defaults, the contract's mark and the
/// restriction's own.
fn tags(client: &HyperpodClient, contract: &Contract, owner: &str) -> BTreeMap<String, String> {
    let mut tags = client.default_tags.clone();
    tags.insert(CONTRACT_TAG.to_string(), contract.name.clone());
    tags.insert(OWNER_TAG.to_string(), owner.to_string());
    tags
}

/// Inputs Terraform should have passed known at apply.
fn still_unknown(restriction: &RestrictionModel) -> Diagnostics {
    let unknown = unknown_inputs(restriction);
    Diagnostics::error(
        ContractArgument::CONTRACT.path(),
        "The restriction's inputs are still unknown at apply",
        format!(
            "Still unknown: {}. Terraform passes every input known at apply; if this persists, report it with the \
             configuration.",
            if unknown.is_empty() {
                "an input".to_string()
            } else {
                unknown.join(", ")
            }
        ),
    )
}

/// The state an apply leaves: what it reached, recorded in `components`, even when a step failed (the prior state
/// when it failed before adding anything).
fn settle(result: Result<(), Diagnostics>, components: &Components, value: Value, prior: Option<&Value>) -> Applied {
    let mut state = match (&result, prior) {
        (Err(_), Some(prior)) => prior.clone(),
        _ => value,
    };
    record_components(RestrictionModel::COMPONENTS, &mut state, components);
    let state = unknowns_to_null(state);
    match result {
        Ok(()) => Applied::ok(state),
        Err(diagnostics) if components.is_empty() => Applied::failed(prior.cloned(), diagnostics),
        Err(diagnostics) => Applied::failed(Some(state), diagnostics),
    }
}

/// Destroy: what `components` names, nothing else.
pub async fn delete(client: &HyperpodClient, prior: &Value) -> Result<(), Diagnostics> {
    let components = recorded_components(RestrictionModel::COMPONENTS, prior);
    if components.is_empty() {
        return Ok(());
    }
    // From what the restriction recorded: `contract` is write-only, never in state.
    let recorded = RestrictionModel::decode(prior)?;
    let Some(config) = RestrictionConfig::of(&recorded, None, &[]) else {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Cannot read the restriction's state",
            "The recorded restriction is incomplete; refresh and try again.",
        ));
    };
    let Some(eks_cluster) = cluster_of(client, &recorded).await? else {
        return Ok(()); // the cluster is gone, and its access entries with it
    };
    let mut applier = RestrictionApplier {
        client,
        config: &config,
        eks_cluster,
        partition: client.region.partition().to_string(),
        tags: BTreeMap::new(),
        owner: None,
        components,
    };
    applier.remove().await
}
