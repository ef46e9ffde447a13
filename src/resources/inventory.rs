//! What the list resources (`terraform query`) share: the label that says whether a contract governs a found
//! object, and the `config` block schemas' building blocks.
//!
//! "Governed" is read from the marks this provider writes, never guessed from names: a compute quota a tenant
//! composed carries `hyperpod:tenant` and `hyperpod:cluster` (and `hyperpod:contract`), an access entry a task view
//! restriction created carries `hyperpod:task-view-restriction`, and a HyperPod connection is governed when its
//! project is onboarded on its cluster by a tenant (a quota there whose `hyperpod:project` tag names the project;
//! DataZone connections carry no tags of their own). A domain unit's policy grant is governed when the creation of a
//! governed project rests on it: the project was made from one of the grant's profiles in the grant's unit (or a
//! child unit, when the grant includes them), which is what a contract's `organization` and ORG-1 state.

use std::collections::BTreeMap;

use crate::aws::AwsError;
use crate::aws::datazone_connections as connections;
use crate::client::HyperpodClient;
use crate::tags::PROJECT as PROJECT_TAG;

use crate::protocol::model::{Field, Model};
use crate::protocol::schema::{Attribute, Block, Schema};

/// Whether a contract governs a found object, and which when the object names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Governance {
    Governed {
        contract: Option<String>,
    },
    NotGoverned,
    /// What would tell could not be read (named here); never reported as either.
    Unknown(String),
}

/// The result's display name: `<name> (governed by contract <c>)`, `<name> (governed)`, `<name> (not governed)` or
/// `<name> (governance unknown: <why>)`.
pub fn display_name(name: &str, governance: &Governance) -> String {
    match governance {
        Governance::Governed {
            contract: Some(contract),
        } => format!("{name} (governed by contract {contract})"),
        Governance::Governed { contract: None } => format!("{name} (governed)"),
        Governance::NotGoverned => format!("{name} (not governed)"),
        Governance::Unknown(why) => format!("{name} (governance unknown: {why})"),
    }
}

/// A compute quota's governance from its tags: a tenant composed it when `hyperpod:tenant` names its team and
/// `hyperpod:cluster` its cluster (the marks a tenant checks before it takes a quota over).
pub fn quota_governance(tags: &BTreeMap<String, String>, team: &str, cluster_name: &str) -> Governance {
    if crate::tags::is_tenants_own(tags, cluster_name, team) {
        Governance::Governed {
            contract: tags.get(crate::tags::CONTRACT).cloned(),
        }
    } else {
        Governance::NotGoverned
    }
}

/// The tags of every compute quota on one cluster, by team.
pub type QuotaTags = Vec<(String, BTreeMap<String, String>)>;

/// The cluster's name and its quotas' tags (a quota deleted while listing is skipped).
pub async fn cluster_quota_tags(client: &HyperpodClient, cluster_ref: &str) -> Result<(String, QuotaTags), AwsError> {
    let cluster = client.cluster(cluster_ref).await?;
    let mut out = Vec::new();
    for quota in client.compute_quotas(&cluster.arn).await? {
        match client.quota_tags(&quota.arn).await {
            Ok(tags) => out.push((quota.team_name.clone(), tags)),
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(err),
        }
    }
    Ok((cluster.name, out))
}

/// The projects of a domain that a tenant onboarded on a cluster one of the domain's HyperPod connections names:
/// project ID -> the contract its tenant's quota names. `Err` says what could not be read.
pub async fn governed_projects(
    client: &HyperpodClient,
    domain_id: &str,
) -> Result<BTreeMap<String, Option<String>>, String> {
    let found = connections::list_hyperpod_connections(&client.datazone, domain_id, None)
        .await
        .map_err(|err| format!("the domain's HyperPod connections could not be read: {err}"))?;
    let clusters: std::collections::BTreeSet<String> = found
        .iter()
        .filter_map(|c| c.cluster_arn.clone().or_else(|| c.cluster_name.clone()))
        .collect();
    let mut projects = BTreeMap::new();
    for cluster_ref in clusters {
        let (cluster_name, quotas) = cluster_quota_tags(client, &cluster_ref)
            .await
            .map_err(|err| format!("cluster {cluster_ref:?} or its quotas could not be read: {err}"))?;
        for (team, tags) in &quotas {
            let Some(project) = tags.get(PROJECT_TAG) else { continue };
            if let Governance::Governed { contract } = quota_governance(tags, team, &cluster_name) {
                projects.entry(project.clone()).or_insert(contract);
            }
        }
    }
    Ok(projects)
}

/// The HyperPod cluster a list's `cluster_name` names (tenant and restriction lists).
pub async fn listed_cluster(
    client: &HyperpodClient,
    request: &crate::protocol::list::ListRequest,
) -> Result<crate::aws::sagemaker::HyperPodCluster, crate::protocol::diagnostics::Diagnostics> {
    let name = ClusterListConfig::CLUSTER_NAME
        .known(&request.config)
        .unwrap_or_default();
    client
        .cluster(&name)
        .await
        .map_err(|err| crate::resources::failed("Cannot read the HyperPod cluster", err))
}

/// A list resource's `config` block schema.
pub fn schema(description: &str, attributes: Vec<Attribute>) -> Schema {
    Schema {
        version: 0,
        block: Block::new(description).attributes(attributes),
    }
}

/// The `config` of the lists that search one HyperPod cluster (tenants, restrictions).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ClusterListConfig {
    /// The HyperPod cluster to search (its name or ARN).
    #[tf(required)]
    pub cluster_name: Field<String>,
}

/// The `cluster_name` argument of the lists that search one HyperPod cluster.
pub fn cluster_name() -> Vec<Attribute> {
    ClusterListConfig::block().attributes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_name_says_whether_a_contract_governs_the_object() {
        assert_eq!(display_name("oob", &Governance::NotGoverned), "oob (not governed)");
        assert_eq!(
            display_name(
                "research",
                &Governance::Governed {
                    contract: Some("research-capacity".into())
                }
            ),
            "research (governed by contract research-capacity)"
        );
        assert_eq!(
            display_name("x", &Governance::Governed { contract: None }),
            "x (governed)"
        );
    }

    #[test]
    fn a_quota_is_governed_only_with_both_marks_naming_it() {
        let tags = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let ours = tags(&[
            ("hyperpod:tenant", "research"),
            ("hyperpod:cluster", "ml"),
            ("hyperpod:contract", "c1"),
        ]);
        assert_eq!(
            quota_governance(&ours, "research", "ml"),
            Governance::Governed {
                contract: Some("c1".into())
            }
        );
        assert_eq!(quota_governance(&ours, "research", "other"), Governance::NotGoverned);
        assert_eq!(quota_governance(&ours, "vision", "ml"), Governance::NotGoverned);
        assert_eq!(
            quota_governance(&tags(&[("hyperpod:tenant", "research")]), "research", "ml"),
            Governance::NotGoverned
        );
    }
}
