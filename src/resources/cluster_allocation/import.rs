//! Import by the cluster's name (or identity). Only configuration and state hold an allocation: import records the
//! cluster, and the next apply the teams.

use std::collections::BTreeMap;

use super::schema::TYPE_NAME;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{object, string, text};
use crate::protocol::plan::set_attr;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub fn import(null_state: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
    let name = match target {
        ImportTarget::Id(id) => id,
        ImportTarget::Identity(identity) => string(&identity, "cluster_name").unwrap_or_default(),
    };
    if name.trim().is_empty() {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Missing import ID",
            format!("Import {TYPE_NAME} by the cluster's name."),
        ));
    }
    let mut state = null_state;
    set_attr(&mut state, "id", text(&name));
    set_attr(&mut state, "cluster_name", text(&name));
    set_attr(&mut state, "teams", Value::Map(BTreeMap::new()));
    set_attr(
        &mut state,
        "governance",
        object([("cluster_name", text(&name)), ("teams", Value::Map(BTreeMap::new()))]),
    );
    Ok(state)
}

/// The identity of a recorded allocation: its cluster's name.
pub fn identity(state: &Value) -> Option<Value> {
    Some(object([("cluster_name", text(string(state, "cluster_name")?))]))
}
