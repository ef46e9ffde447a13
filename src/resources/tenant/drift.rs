//! The drift warning: a Kubernetes object or access entry whose live content (its digest, recorded at refresh) is
//! not what the tenant wrote under its prior arguments was edited outside Terraform, or this provider version writes
//! it differently — governed RBAC, NetworkPolicy or cluster access worth a reviewer's attention. One warning per
//! object, naming it and what differs; the plan shows it as a changed `components` value and apply rewrites it.

use super::model::TenantSpec;
use super::{compose, desired, manifests};
use crate::client::HyperpodClient;
use crate::kubernetes::KubeClient;
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::object::{string, string_map};
use crate::protocol::plan::PlannedChange;

pub(super) async fn warn(client: &HyperpodClient, change: &mut PlannedChange) {
    let Some(prior) = &change.prior else { return };
    let Some(written) = TenantSpec::from_value(prior) else {
        return;
    };
    let recorded = string_map(prior, "components");
    let namespace = written.namespace();
    let moved = |key: &str, value: &str| recorded.get(key).is_some_and(|live| live != value);
    let drifted: Vec<manifests::Manifest> = manifests::render(&written)
        .into_iter()
        .filter(|m| moved(&m.component(), &manifests::rendered_value(&namespace, m)))
        .collect();
    for entry in desired::desired_entries(&written) {
        if moved(
            &desired::access_entry_component(&entry.principal_arn),
            &desired::entry_value(&entry),
        ) {
            change.diagnostics.push(Diagnostic::warning(
                AttributePath::attr("components"),
                format!(
                    "The EKS access entry of {} changed outside Terraform",
                    entry.principal_arn
                ),
                format!(
                    "Its Kubernetes groups or access policies are not what this tenant wrote (groups {:?}, policy {} \
                     on {}). Apply writes them back as planned; find out who changed them.",
                    entry.kubernetes_groups,
                    entry.policy_arn,
                    entry.namespaces.join(", ")
                ),
            ));
        }
    }
    if drifted.is_empty() {
        return;
    }
    let eks_cluster = match string(prior, "cluster_arn") {
        Some(arn) => match client.cluster(&arn).await {
            Ok(cluster) => cluster.eks_cluster_name().unwrap_or_default(),
            Err(_) => String::new(),
        },
        None => String::new(),
    };
    let kube = compose::kube_client(client, &eks_cluster).await.ok();
    for manifest in drifted {
        let how = differences(client, kube.as_ref(), &eks_cluster, &manifest).await;
        change.diagnostics.push(Diagnostic::warning(
            AttributePath::attr("components"),
            format!("{} changed outside Terraform", manifest.describe()),
            format!(
                "{how}. Someone edited this governed object, or this provider version writes it differently; apply \
                 writes it back as planned."
            ),
        ));
    }
}

/// How the live object differs from what the tenant wrote, or why that cannot be said.
async fn differences(
    client: &HyperpodClient,
    kube: Option<&KubeClient>,
    eks_cluster: &str,
    manifest: &manifests::Manifest,
) -> String {
    let Some(kube) = kube else {
        return "the cluster's Kubernetes API could not be reached to say how".to_string();
    };
    match crate::resources::kubernetes_reads::kubernetes_object(client, kube, eks_cluster, &manifest.path()).await {
        Ok(Some(live)) => manifests::differences(&live, &manifest.body),
        _ => "it could not be read again to say how".to_string(),
    }
}
