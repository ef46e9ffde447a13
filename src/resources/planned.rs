//! What this provider process has planned so far in this run, per cluster: the horizontal rules (WKL-3, WKL-5,
//! CLU-2) combine it with live reads. Terraform plans resources concurrently and in no promised order; each plan
//! records itself and takes a snapshot under one lock, so whichever of two tenants is planned last sees both and
//! carries the diagnostic. Limit: resources planned through another provider configuration (an alias, another
//! process) are not seen.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::governance::{ProjectOnCluster, TaskViewRestriction, TenantCapacity};

/// A tenant as the horizontal rules see it, with the project behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct TenantOnCluster {
    pub capacity: TenantCapacity,
    pub project: Option<ProjectOnCluster>,
}

/// Everything the workload resources planned in this provider process, per cluster ARN; one per provider, shared by
/// the tenant, project binding and task view restriction resources.
#[derive(Default)]
pub struct ClusterPlans {
    /// Bumped by every record, so a check that failed on an absence can tell that something new was planned.
    generation: std::sync::atomic::AtomicU64,
    /// By team.
    pub tenants: PlannedInventory<TenantOnCluster>,
    /// Projects bound to the cluster, by project ID.
    pub projects: PlannedInventory<ProjectOnCluster>,
    /// Task view restrictions, by project role ARN.
    pub restrictions: PlannedInventory<TaskViewRestriction>,
}

/// How long a check that fails on the *absence* of something (a lender for WKL-5, a task view restriction for CLU-2,
/// a tenant for a binding's WKL-1) waits for it to be planned alongside. Terraform plans independent resources
/// concurrently (default parallelism 10), so what the same configuration declares is normally recorded within
/// milliseconds; planned one at a time it cannot be, and the diagnostic says to order the plans with depends_on.
pub const ABSENCE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

impl ClusterPlans {
    pub fn tenant(&self, cluster: &str, team: &str, entry: TenantOnCluster) {
        self.tenants.record(cluster, team, entry);
        self.bump();
    }
    pub fn project(&self, cluster: &str, entry: ProjectOnCluster) {
        self.projects.record(cluster, &entry.project_id.clone(), entry);
        self.bump();
    }
    pub fn restriction(&self, cluster: &str, entry: TaskViewRestriction) {
        let key = entry.project_role_arn.clone().unwrap_or_default();
        self.restrictions.record(cluster, &key, entry);
        self.bump();
    }
    fn bump(&self) {
        self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    /// Changes whenever anything is recorded.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Re-runs `judge` while `failed_on_absence` says its last report failed on something missing, each time
    /// something new is planned, for at most `ABSENCE_GRACE`.
    pub async fn judge_with_grace<R>(&self, mut judge: impl FnMut() -> R, failed_on_absence: impl Fn(&R) -> bool) -> R {
        let deadline = tokio::time::Instant::now() + ABSENCE_GRACE;
        let mut seen = self.generation();
        let mut report = judge();
        while failed_on_absence(&report) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let now = self.generation();
            if now != seen {
                seen = now;
                report = judge();
            }
        }
        report
    }
}

pub struct PlannedInventory<T: Clone> {
    by_cluster: Mutex<BTreeMap<String, BTreeMap<String, T>>>,
}

impl<T: Clone> Default for PlannedInventory<T> {
    fn default() -> Self {
        Self {
            by_cluster: Mutex::new(BTreeMap::new()),
        }
    }
}

impl<T: Clone> PlannedInventory<T> {
    /// Records `entry` under `key` on `cluster` (replacing an earlier plan of the same key) and returns every entry
    /// planned on that cluster so far, this one included.
    pub fn record(&self, cluster: &str, key: &str, entry: T) -> Vec<T> {
        let mut map = self.by_cluster.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let entries = map.entry(cluster.to_string()).or_default();
        entries.insert(key.to_string(), entry);
        entries.values().cloned().collect()
    }

    /// Everything planned on `cluster` so far.
    pub fn snapshot(&self, cluster: &str) -> Vec<T> {
        let map = self.by_cluster.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        map.get(cluster)
            .map(|entries| entries.values().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_recorder_sees_everyone_and_replans_replace() {
        let planned = PlannedInventory::default();
        assert_eq!(planned.record("a", "research", 1), [1]);
        assert_eq!(planned.record("b", "other", 9), [9]);
        assert_eq!(planned.record("a", "production", 2), [2, 1]);
        assert_eq!(planned.record("a", "research", 3), [2, 3]);
    }

    #[test]
    fn concurrent_recorders_never_both_miss_each_other() {
        for _ in 0..50 {
            let planned = std::sync::Arc::new(PlannedInventory::default());
            let handles: Vec<_> = ["x", "y"]
                .into_iter()
                .map(|key| {
                    let planned = planned.clone();
                    std::thread::spawn(move || planned.record("c", key, key.to_string()).len())
                })
                .collect();
            let seen: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap_or(0)).collect();
            assert!(seen.contains(&2), "one of the two saw both: {seen:?}");
        }
    }
}
