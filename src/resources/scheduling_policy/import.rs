//! Import by the HyperPod cluster's name or ARN (or by identity, in the provider's account and region): the
//! cluster's one scheduler config. Refresh fills in the rest.

use super::schema::{TYPE_NAME, identity as identity_value};
use crate::aws::ids::Arn;
use crate::aws::sagemaker::{HyperPodCluster, find_scheduler_config_for_cluster};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{string, text};
use crate::protocol::plan::set_attr;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub async fn import(client: &HyperpodClient, null_state: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
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
    // Read fills in the rest; every attribute must be present, so start from nulls.
    let mut state = null_state;
    set_attr(&mut state, "priority_class", Value::List(Vec::new()));
    set_attr(&mut state, "id", text(&cluster.name));
    set_attr(&mut state, "scheduler_config_id", text(id));
    set_attr(&mut state, "cluster_name", text(&cluster.name));
    set_attr(&mut state, "cluster_arn", text(&cluster.arn));
    Ok(state)
}

/// The cluster an import names: the ID, or the identity's `cluster_name` once its account and region are the
/// provider's.
fn cluster_reference(client: &HyperpodClient, target: &ImportTarget) -> Result<String, Diagnostics> {
    let identity = match target {
        ImportTarget::Id(id) => return Ok(id.trim().to_string()),
        ImportTarget::Identity(identity) => identity,
    };
    for (attribute, expected) in [
        ("account_id", client.account_id.as_str()),
        ("region", client.region.as_str()),
    ] {
        if let Some(given) = string(identity, attribute)
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
    Ok(string(identity, "cluster_name").unwrap_or_default())
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
    let cluster_name = string(state, "cluster_name")?;
    let cluster_arn = Arn::parse(&string(state, "cluster_arn")?).ok()?;
    Some(identity_value(&cluster_name, &cluster_arn.account, &cluster_arn.region))
}
