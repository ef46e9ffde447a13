//! Every delete and replace of the plan, of any resource type, with Terraform's reason in words.

use super::model::Destroyed;
use super::plan::{Action, Plan, ResourceChange};

pub fn destroyed(plan: &Plan) -> Vec<Destroyed> {
    let mut destroyed: Vec<Destroyed> = plan
        .changes
        .iter()
        .filter(|c| c.action.destroys())
        .map(|c| Destroyed {
            address: c.address.clone(),
            action: if c.action == Action::Replace {
                "replace"
            } else {
                "destroy"
            },
            reason: reason(c),
        })
        .collect();
    destroyed.sort_by(|a, b| a.address.cmp(&b.address));
    destroyed
}

/// Terraform's `action_reason`, in words.
fn reason(change: &ResourceChange) -> String {
    match change.action_reason.as_deref() {
        Some("replace_because_cannot_update") if !change.replace_paths.is_empty() => {
            format!("{} cannot change in place", change.replace_paths.join(", "))
        }
        Some("replace_because_cannot_update") => "an argument cannot change in place".to_string(),
        Some("replace_because_tainted") => "tainted".to_string(),
        Some("replace_by_request") => "replacement requested (-replace)".to_string(),
        Some("replace_by_triggers") => "replace_triggered_by".to_string(),
        Some("delete_because_no_resource_config") => "removed from the configuration".to_string(),
        Some("delete_because_no_module") => "its module was removed".to_string(),
        Some("delete_because_wrong_repetition") => "count/for_each was added or removed".to_string(),
        Some("delete_because_count_index") => "its count index is out of range".to_string(),
        Some("delete_because_each_key") => "its for_each key is gone".to_string(),
        Some("delete_because_no_move_target") => "moved to an address that does not exist".to_string(),
        Some(other) => other.replace('_', " "),
        None if change.action == Action::Replace => "replacement planned".to_string(),
        None => "destroy planned".to_string(),
    }
}
