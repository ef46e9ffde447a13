//! What a restriction records in `components`: what it added, keyed so that refresh, apply and destroy find each
//! addition again; the tags it writes; and Slurm's `PrivateData` lines.

use super::config::{RestrictionConfig, RestrictionMode};
use super::manifests::{object_component, object_value};
use crate::component::{Component, Components};

/// The tag on an access entry the restriction creates, valued with its `id` (`<cluster>/<role name>`): an entry
/// carrying it is this restriction's even when an interrupted apply never recorded it.
pub const OWNER_TAG: &str = crate::tags::TASK_VIEW_RESTRICTION;
/// The governance mark on an access entry: the name of the contract that governs it. An entry the restriction
/// creates carries it from the start; one it adopts (Studio's "Manage access", an import) gets it as the component
/// [`contract_mark`], removed again on destroy, so the inventory reads adopted entries as governed too.
pub const CONTRACT_TAG: &str = crate::tags::CONTRACT;
pub const RUN_AS_TAG: &str = "SSMSessionRunAs";

/// `entry_tag/<CONTRACT_TAG>`: the contract's mark on an access entry the restriction adopted.
pub fn contract_mark() -> Component {
    Component::EntryTag(CONTRACT_TAG.to_string())
}

/// `role_tag/<RUN_AS_TAG>`: Slurm's Run As tag on the project role.
pub fn run_as_tag() -> Component {
    Component::RoleTag(RUN_AS_TAG.to_string())
}

/// Slurm: the lines that keep jobs, usage and users private (Studio then lists only the session user's jobs).
pub fn private_data_conf() -> String {
    "# hyperpod_task_view_restriction: users see only their own jobs, usage and user records\n\
     PrivateData=jobs,usage,users\n"
        .to_string()
}

/// What the restriction will have added, keyed as `components` records it. `adopted`: the access entry existed
/// before (Studio's "Manage access"), so it is not ours to delete; it gets the `contract`'s mark instead.
pub fn components(spec: &RestrictionConfig, partition: &str, eks: bool, adopted: bool, contract: &str) -> Components {
    let mut out = Components::new();
    if !eks {
        if let Some(user) = &spec.slurm_os_user {
            out.insert(&run_as_tag(), user.clone());
        }
        return out;
    }
    if adopted {
        out.insert(&contract_mark(), contract.to_string());
    } else {
        out.insert(&Component::ProjectAccessEntry, spec.project_role_arn.clone());
    }
    if spec.mode == RestrictionMode::Rbac {
        let group = Component::AccessEntryGroup(spec.kubernetes_group.clone());
        out.insert(&group, spec.kubernetes_group.clone());
    }
    for association in spec.associations(partition) {
        out.insert(&association.component(), association.scope());
    }
    for object in spec.manifests() {
        out.insert(&object_component(&object), object_value(&object.body));
    }
    out
}
