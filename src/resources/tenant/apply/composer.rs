//! The reconciler's state, shared by apply's steps: what it writes towards (`TenantApplyTarget`, resolved from the
//! planned value), and what exists (`Recorded`, the components, written by steps that run at once). Each step
//! records its object the moment it exists, so a failure at any step leaves state that names exactly what was made:
//! the next apply resumes from it (update) or removes it (a tainted create is replaced), and destroy removes what
//! `components` names and nothing else.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::super::model::TenantConfig;
use crate::client::HyperpodClient;
use crate::component::{Component, ComponentKind, Components};
use crate::kubernetes::{KubeClient, KubeError};
use crate::protocol::diagnostics::Diagnostics;
use crate::protocol::resource::OperationContext;
pub use crate::resources::failed;
use crate::resources::kubernetes_reads::kube_client;

/// How long a just-created IAM role may take to be usable by EKS and KMS.
pub const PROPAGATION: Duration = Duration::from_mins(2);

/// Everything apply needs, resolved from the planned value.
pub struct TenantApplyTarget {
    pub config: TenantConfig,
    pub cluster_name: String,
    pub cluster_arn: String,
    pub eks_cluster_name: String,
    pub role_name: String,
    pub role_arn: String,
    pub tags: BTreeMap<String, String>,
    pub partition: String,
}

/// The reconciler: `components` starts as what exists (empty on create) and grows as steps succeed.
pub struct Composer<'a> {
    pub client: &'a HyperpodClient,
    pub context: &'a OperationContext,
    pub target: &'a TenantApplyTarget,
    pub components: Recorded,
    pub quota_arn: Option<String>,
}

/// The components that exist, written by steps that run at once: each records its object the moment it exists.
#[derive(Default)]
pub struct Recorded(Mutex<Components>);

impl Recorded {
    pub fn new(components: Components) -> Self {
        Self(Mutex::new(components))
    }

    fn locked(&self) -> MutexGuard<'_, Components> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn get(&self, component: &Component) -> Option<String> {
        self.locked().get(component).cloned()
    }

    pub fn contains_key(&self, component: &Component) -> bool {
        self.locked().contains(component)
    }

    pub fn is_empty(&self) -> bool {
        self.locked().is_empty()
    }

    pub fn insert(&self, component: &Component, id: String) {
        self.locked().insert(component, id);
    }

    pub fn remove(&self, component: &Component) {
        self.locked().remove(component);
    }

    /// Keeps the components `keep` holds to; a key this version does not read is kept.
    pub fn retain(&self, keep: impl Fn(&Component) -> bool) {
        self.locked().retain(|component, _| keep(component));
    }

    /// The components of `kind`, with their ids.
    pub fn of_kind(&self, kind: ComponentKind) -> Vec<(Component, String)> {
        (self.locked().of_kind(kind))
            .map(|(component, id)| (component, id.clone()))
            .collect()
    }

    pub fn snapshot(&self) -> Components {
        self.locked().clone()
    }
}

/// The first failure of steps that ran at once (each has recorded what it made).
pub fn first_failure(results: impl IntoIterator<Item = Result<(), Diagnostics>>) -> Result<(), Diagnostics> {
    let mut failures = Diagnostics::new();
    for result in results {
        if let Err(diagnostics) = result {
            failures.extend(diagnostics);
        }
    }
    if failures.has_errors() { Err(failures) } else { Ok(()) }
}

pub fn kube_failed(summary: &str, err: KubeError) -> Diagnostics {
    failed(summary, err)
}

impl Composer<'_> {
    pub fn tagged_as_ours(&self, tags: &BTreeMap<String, String>) -> bool {
        crate::tags::is_tenants_own(tags, &self.target.cluster_name, &self.target.config.team)
    }

    pub async fn kube(&self) -> Result<KubeClient, Diagnostics> {
        kube_client(self.client, &self.target.eks_cluster_name)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))
    }
}
