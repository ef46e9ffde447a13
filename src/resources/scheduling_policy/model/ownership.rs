//! Which scheduler configs are this resource's own. The ownership tag: how a scheduler config whose create was
//! interrupted (the provider killed after SageMaker accepted `CreateClusterSchedulerConfig`, before Terraform recorded
//! it) is recognised on the next apply as this resource's own. `CreateClusterSchedulerConfig` takes no client token,
//! so the proof is a tag written in the same call, derived from the resource's identity (the cluster; account and
//! region are those of the cluster's ARN). And the configs seen in state (`SeenSchedulerConfigs`): how the plan of a
//! replacement tells the config being replaced from a foreign one.

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;

use super::super::schema::TYPE_NAME;

/// Key of the ownership tag. Kept out of `tags`/`tags_all`, and refused there, so users neither see nor fight it.
pub const OWNER_TAG: &str = crate::tags::POLICY_OWNER;

/// The ownership tag's value for the policy of `cluster_name`.
pub fn owner_value(cluster_name: &str) -> String {
    format!("{TYPE_NAME}/{cluster_name}")
}

/// True when live tags prove that the scheduler config was created by this resource for `cluster_name`.
pub fn is_ours(live_tags: &BTreeMap<String, String>, cluster_name: &str) -> bool {
    live_tags.get(OWNER_TAG) == Some(&owner_value(cluster_name))
}

/// Live tags without the ownership tag: what `tags_all` shows.
pub fn without_owner(mut live_tags: BTreeMap<String, String>) -> BTreeMap<String, String> {
    live_tags.remove(OWNER_TAG);
    live_tags
}

/// The tags to write: the resource's `tags_all` plus its ownership tag.
pub fn with_owner(tags_all: &BTreeMap<String, String>, cluster_name: &str) -> BTreeMap<String, String> {
    let mut tags = tags_all.clone();
    tags.insert(OWNER_TAG.to_string(), owner_value(cluster_name));
    tags
}

/// Scheduler configs this provider process has seen in Terraform's state (refreshed or planned). A replacement
/// (tainted object, forced new name) is planned as a create with no prior state; this is how its plan tells the
/// config being replaced from a foreign one that would block the create.
#[derive(Default)]
pub struct SeenSchedulerConfigs {
    ids: Mutex<HashSet<String>>,
}

impl SeenSchedulerConfigs {
    pub fn remember(&self, id: &str) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.insert(id.to_string());
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.lock().is_ok_and(|ids| ids.contains(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tag_for_this_cluster_proves_ownership() {
        let mine = with_owner(&BTreeMap::new(), "ml-capacity");
        assert!(is_ours(&mine, "ml-capacity"));
        assert!(!is_ours(&mine, "other-cluster"));
        assert!(!is_ours(&BTreeMap::new(), "ml-capacity"));
        assert!(without_owner(mine).is_empty());
    }
}
