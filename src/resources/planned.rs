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
    /// By team.
    pub tenants: PlannedInventory<TenantOnCluster>,
    /// Projects bound to the cluster, by project ID.
    pub projects: PlannedInventory<ProjectOnCluster>,
    /// Task view restrictions, by project role ARN.
    pub restrictions: PlannedInventory<TaskViewRestriction>,
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
