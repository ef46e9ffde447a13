//! Configuration values the grant's tests build from.

use crate::protocol::object::{object, text};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

/// A principal block with the given fields set and the others null.
pub fn principal(pairs: &[(&str, &str)]) -> Value {
    let mut value = object(
        ["group_id", "user_id", "domain_unit_id", "designation"]
            .into_iter()
            .map(|name| (name, Value::Null)),
    );
    for (name, v) in pairs {
        set_attr(&mut value, name, text(*v));
    }
    value
}

/// A grant's configuration of `principal_value` and the given profiles.
pub fn config(principal_value: Value, profiles: &[&str]) -> Value {
    object([
        ("domain_id", text("dzd_capacity01")),
        ("domain_unit_id", text("mlplatform0001")),
        (
            "project_profile_ids",
            Value::List(profiles.iter().map(|p| text(*p)).collect()),
        ),
        ("include_child_domain_units", Value::Null),
        ("principal", principal_value),
    ])
}
