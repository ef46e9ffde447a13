//! The memberships each binding declares, kept where every binding of the project can read them: one Parameter Store
//! parameter per binding, `/hyperpod-governance/project-members/<domain>/<project>/<cluster>`. Project memberships
//! are project-wide, while a project has one binding per cluster, so two bindings of one project can declare the
//! same member; DataZone keeps no owner on a membership. A binding removes a membership only when no other binding of
//! the project declares it, so a member stays while either declares it. The parameter goes with the binding.
//!
//! Within one provider process, removals of one project are taken one at a time (`lock`): two bindings of a project
//! destroyed in one apply must not each keep a member because the other still declares it. Two processes
//! removing bindings of one project at the same moment can still both keep a member; the next apply of any binding of
//! the project does not see it as its own, so it stays until removed by hand (stated in the binding's docs).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value as Json;

use super::super::schema::BindingModel;
use crate::aws::datazone_connections::{Membership, MembershipType};
use crate::aws::ssm;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};

/// The parameters of one project's bindings.
fn project_path(domain_id: &str, project_id: &str) -> String {
    format!("/hyperpod-governance/project-members/{domain_id}/{project_id}")
}

/// The parameter of the binding of `project_id` on `cluster_name`.
pub fn parameter_name(domain_id: &str, project_id: &str, cluster_name: &str) -> String {
    format!("{}/{cluster_name}", project_path(domain_id, project_id))
}

/// Where one binding's declaration lives.
pub struct Declarer<'a> {
    pub domain_id: &'a str,
    pub project_id: &'a str,
    pub cluster_name: &'a str,
}

impl Declarer<'_> {
    fn name(&self) -> String {
        parameter_name(self.domain_id, self.project_id, self.cluster_name)
    }

    /// Records `memberships` as this binding's (replacing what it declared before).
    pub async fn declare(
        &self,
        client: &HyperpodClient,
        memberships: &[Membership],
        tags: &BTreeMap<String, String>,
    ) -> Result<(), Diagnostics> {
        ssm::put_parameter(&client.ssm, &self.name(), &encode(memberships), tags)
            .await
            .map_err(|err| err.diagnostics(BindingModel::MEMBER.path(), "Cannot record the binding's members"))
    }

    /// What the project's other bindings declare.
    pub async fn declared_by_others(&self, client: &HyperpodClient) -> Result<Vec<Membership>, Diagnostics> {
        let own = self.name();
        let found = ssm::parameters_by_path(&client.ssm, &project_path(self.domain_id, self.project_id))
            .await
            .map_err(|err| {
                err.diagnostics(
                    BindingModel::MEMBER.path(),
                    "Cannot read what the project's other bindings declare",
                )
            })?;
        Ok(found
            .iter()
            .filter(|parameter| parameter.name != own)
            .flat_map(|parameter| decode(&parameter.value))
            .collect())
    }

    /// Removes this binding's declaration (one already gone counts as removed).
    pub async fn withdraw(&self, client: &HyperpodClient) -> Result<(), Diagnostics> {
        ssm::delete_parameter(&client.ssm, &self.name())
            .await
            .map_err(|err| err.diagnostics(AttributePath::root(), "Cannot remove the binding's member record"))
    }
}

/// Whether another binding declares the membership of the same profile (whatever its designation: a project has
/// one membership per profile).
pub fn declared(others: &[Membership], membership: &Membership) -> bool {
    others
        .iter()
        .any(|other| other.kind == membership.kind && other.id == membership.id)
}

/// The lock under which this process decides removals of one project's memberships, one binding at a time.
pub fn lock(client: &HyperpodClient, domain_id: &str, project_id: &str) -> Arc<tokio::sync::Mutex<()>> {
    client.locks.of(&project_path(domain_id, project_id))
}

/// One membership as a declaration stores it: a stored format, read as it was written (its names are not the
/// schema's to rename). In name order, as the parameters already written have them.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredMembership {
    designation: String,
    id: String,
    r#type: String,
}

const USER: &str = "USER";
const GROUP: &str = "GROUP";

fn encode(memberships: &[Membership]) -> String {
    let rows: Vec<StoredMembership> = memberships
        .iter()
        .map(|m| StoredMembership {
            designation: m.designation.clone(),
            id: m.id.clone(),
            r#type: match m.kind {
                MembershipType::User => USER,
                MembershipType::Group => GROUP,
            }
            .to_string(),
        })
        .collect();
    serde_json::to_string(&rows).unwrap_or_default()
}

/// A declaration's memberships; what does not read as one (written by hand) declares nothing.
fn decode(text: &str) -> Vec<Membership> {
    let Ok(Json::Array(rows)) = serde_json::from_str::<Json>(text) else {
        return Vec::new();
    };
    rows.into_iter()
        .filter_map(|row| {
            let row = serde_json::from_value::<StoredMembership>(row).ok()?;
            Some(Membership {
                kind: match row.r#type.as_str() {
                    USER => MembershipType::User,
                    GROUP => MembershipType::Group,
                    _ => return None,
                },
                id: row.id,
                designation: row.designation,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(id: &str, designation: &str) -> Membership {
        Membership {
            kind: MembershipType::Group,
            id: id.into(),
            designation: designation.into(),
        }
    }

    #[test]
    fn a_declaration_reads_back_and_a_profile_is_declared_whatever_its_designation() {
        let written = vec![
            group("leads", "PROJECT_OWNER"),
            group("scientists", "PROJECT_CONTRIBUTOR"),
        ];
        assert_eq!(decode(&encode(&written)), written);
        assert!(declared(&written, &group("leads", "PROJECT_CONTRIBUTOR")));
        assert!(!declared(&written, &group("analysts", "PROJECT_OWNER")));
        assert!(decode("not json").is_empty() && decode(r#"[{"type":"ROBOT","id":"x","designation":"y"}]"#).is_empty());
        assert_eq!(
            parameter_name("dzd_1", "prj1", "ml-capacity"),
            "/hyperpod-governance/project-members/dzd_1/prj1/ml-capacity"
        );
    }

    /// The parameters earlier releases wrote read back, and what this one writes is byte for byte what they wrote
    /// (`serde_json::json!` rows, keys in name order), so an unchanged binding does not rewrite its parameter.
    #[test]
    fn a_declaration_is_written_as_earlier_releases_wrote_it() {
        let earlier = r#"[{"designation":"PROJECT_OWNER","id":"leads","type":"GROUP"},{"designation":"PROJECT_CONTRIBUTOR","id":"u1","type":"USER"}]"#;
        let read = decode(earlier);
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].kind, MembershipType::User);
        assert_eq!(encode(&read), earlier);
    }
}
