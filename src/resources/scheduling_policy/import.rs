//! Import by the HyperPod cluster's name or ARN (or by identity, in the provider's account and region): the
//! cluster's one scheduler config. Refresh fills in the rest.

use super::schema::{PolicyIdentity, SchedulingPolicyModel, TYPE_NAME, identity as identity_value};
use crate::aws::ids::Arn;
use crate::aws::sagemaker::{HyperPodCluster, find_scheduler_config_for_cluster};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub async fn import(client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
    let cluster_ref = cluster_reference(client, &target)?;
    if cluster_ref.is_empty() {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Missing import ID",
            format!("Import {TYPE_NAME} by the HyperPod cluster's name or ARN, e.g. `ml-capacity`."),
        ));
    }
    let cluster = imported_cluster(client, &cluster_ref).await?;
    let id = find_scheduler_config_for_cluster(&client.sagemaker, &cluster.arn)
        .await
        .map_err(|err| err.diagnostics(AttributePath::root(), "Cannot list the cluster's scheduler configs"))?
        .ok_or_else(|| {
            Diagnostics::error(
                AttributePath::root(),
                "Nothing to import",
                format!(
                    "HyperPod cluster {:?} has no scheduling policy (cluster scheduler config).",
                    cluster.name
                ),
            )
        })?;
    // Read fills in the rest.
    let state = SchedulingPolicyModel {
        priority_class: Field::Known(Vec::new()),
        id: Field::Known(cluster.name.clone()),
        scheduler_config_id: Field::Known(id),
        cluster_name: Field::Known(cluster.name),
        cluster_arn: Field::Known(cluster.arn),
        ..SchedulingPolicyModel::default()
    };
    Ok(state.encode())
}

/// The cluster an import names: the ID, or the identity's `cluster_name` once its account and region are the
/// provider's.
fn cluster_reference(client: &HyperpodClient, target: &ImportTarget) -> Result<String, Diagnostics> {
    let identity = match target {
        ImportTarget::Id(id) => return Ok(id.trim().to_string()),
        ImportTarget::Identity(identity) => PolicyIdentity::decode(identity)?,
    };
    for (attribute, given, expected) in [
        (
            PolicyIdentity::ACCOUNT_ID.name(),
            identity.account_id,
            client.account_id.as_str(),
        ),
        (PolicyIdentity::REGION.name(), identity.region, client.region.as_str()),
    ] {
        if let Field::Known(given) = given
            && given != expected
        {
            return Err(Diagnostic::invalid_value(
                AttributePath::attr(attribute),
                format!("{given:?}"),
                &format!("the provider is configured for {attribute} {expected:?}"),
                "import with a provider configuration for that account and region",
            )
            .into());
        }
    }
    Ok(identity.cluster_name.known().unwrap_or_default())
}

async fn imported_cluster(client: &HyperpodClient, cluster_ref: &str) -> Result<HyperPodCluster, Diagnostics> {
    client.cluster(cluster_ref).await.map_err(|err| {
        let detail = if err.is_not_found() {
            format!(
                "No HyperPod cluster {cluster_ref:?} exists in account {} region {}.",
                client.account_id,
                client.region.as_str()
            )
        } else {
            err.to_string()
        };
        Diagnostics::error(AttributePath::root(), "Cannot import the scheduling policy", detail)
    })
}

/// The identity of a recorded policy: its cluster, and the account and region of the cluster's ARN.
pub fn identity(state: &Value) -> Option<Value> {
    let state = SchedulingPolicyModel::decode(state).ok()?;
    let cluster_name = state.cluster_name.known()?;
    let cluster_arn = Arn::parse(&state.cluster_arn.known()?).ok()?;
    Some(identity_value(&cluster_name, &cluster_arn.account, &cluster_arn.region))
}
