//! The drift warning: a Kubernetes object or access entry whose live content (its digest, recorded at refresh) is
//! not what the tenant wrote under its prior arguments was edited outside Terraform, or this provider version writes
//! it differently — governed RBAC, NetworkPolicy or cluster access worth a reviewer's attention. One warning per
//! object, naming it and what differs; the plan shows it as a changed `components` value and apply rewrites it.
//! Which objects drifted is pure (`drifted`); reading the live ones to say how is gather's (`drifted_objects`).

use super::super::model::TenantConfig;
use super::super::model::components::{DesiredEntry, desired_entries, entry_value};
use super::super::model::manifests::{self, Manifest};
use super::super::schema::TenantModel as M;
use crate::component::Component;
use crate::protocol::diagnostics::Diagnostic;
use crate::protocol::value::Value;

/// An object that drifted, with its live content read again to say how.
#[derive(Clone, Debug, PartialEq)]
pub enum DriftedObject {
    Entry(DesiredEntry),
    Manifest { manifest: Manifest, live: LiveContent },
}

/// A drifted Kubernetes object as read again.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveContent {
    Read(serde_json::Value),
    /// The cluster's Kubernetes API could not be reached.
    Unreachable,
    /// The object could not be read.
    Unreadable,
}

/// The objects of `prior` whose recorded value is not what the tenant writes.
pub struct Drifted {
    pub entries: Vec<DesiredEntry>,
    pub manifests: Vec<Manifest>,
}

/// What drifted in `prior`; `None` when its arguments cannot be read back.
pub fn drifted(prior: &Value) -> Option<Drifted> {
    let written = TenantConfig::from_value(prior)?;
    let recorded = M::COMPONENTS.known(prior).unwrap_or_default();
    let namespace = written.namespace();
    let moved = |component: &Component, value: &str| recorded.get(&component.key()).is_some_and(|live| live != value);
    Some(Drifted {
        entries: desired_entries(&written)
            .into_iter()
            .filter(|entry| {
                moved(
                    &Component::AccessEntry(entry.principal_arn.clone()),
                    &entry_value(entry),
                )
            })
            .collect(),
        manifests: manifests::render(&written)
            .into_iter()
            .filter(|m| moved(&m.component(), &manifests::rendered_value(&namespace, m)))
            .collect(),
    })
}

/// One warning per drifted object: access entries first, then the Kubernetes objects.
pub fn warnings(objects: &[DriftedObject]) -> Vec<Diagnostic> {
    objects.iter().map(warning).collect()
}

fn warning(object: &DriftedObject) -> Diagnostic {
    match object {
        DriftedObject::Entry(entry) => Diagnostic::warning(
            M::COMPONENTS.path(),
            format!(
                "The EKS access entry of {} changed outside Terraform",
                entry.principal_arn
            ),
            format!(
                "Its Kubernetes groups or access policies are not what this tenant wrote (groups {:?}, policy {} on \
                 {}). Apply writes them back as planned; find out who changed them.",
                entry.kubernetes_groups,
                entry.policy_arn,
                entry.namespaces.join(", ")
            ),
        ),
        DriftedObject::Manifest { manifest, live } => Diagnostic::warning(
            M::COMPONENTS.path(),
            format!("{} changed outside Terraform", manifest.describe()),
            format!(
                "{}. Someone edited this governed object, or this provider version writes it differently; apply \
                 writes it back as planned.",
                how(manifest, live)
            ),
        ),
    }
}

/// How the live object differs from what the tenant wrote, or why that cannot be said.
fn how(manifest: &Manifest, live: &LiveContent) -> String {
    match live {
        LiveContent::Unreachable => "the cluster's Kubernetes API could not be reached to say how".to_string(),
        LiveContent::Read(live) => manifests::differences(live, &manifest.body),
        LiveContent::Unreadable => "it could not be read again to say how".to_string(),
    }
}
