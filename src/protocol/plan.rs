//! Schema-driven planning, shared by every resource: defaults, "(known after apply)" for computed values,
//! use-state-for-unknown and requires-replace. Resources refine the result in `Resource::modify_plan`.

use super::diagnostics::{AttributePath, Diagnostics};
use super::schema::{AttributeKind, Block};
use super::value::Value;

/// A resource change being planned: what the user wrote, what exists, and what will be.
#[derive(Debug)]
pub struct PlannedChange {
    pub config: Value,
    /// `None` when the object is being created.
    pub prior: Option<Value>,
    pub planned: Value,
    pub requires_replace: Vec<AttributePath>,
    /// Warnings for the reviewer (errors are returned as `Err`).
    pub diagnostics: Diagnostics,
}

impl PlannedChange {
    pub fn is_create(&self) -> bool {
        self.prior.is_none()
    }
    pub fn config_attr(&self, name: &str) -> &Value {
        self.config.get_attr(name).unwrap_or(&Value::Null)
    }
    pub fn planned_attr(&self, name: &str) -> &Value {
        self.planned.get_attr(name).unwrap_or(&Value::Null)
    }
    pub fn prior_attr(&self, name: &str) -> Option<&Value> {
        self.prior.as_ref().and_then(|prior| prior.get_attr(name))
    }
    pub fn set(&mut self, name: &str, value: Value) {
        set_attr(&mut self.planned, name, value);
    }
    /// True when the planned object differs from the prior one (always true on create).
    pub fn has_changes(&self) -> bool {
        self.prior.as_ref() != Some(&self.planned)
    }
}

/// Sets an attribute of an object value; no-op on anything else.
pub fn set_attr(object: &mut Value, name: &str, value: Value) {
    if let Value::Object(attributes) = object {
        attributes.insert(name.to_string(), value);
    }
}

/// Plans a create or update from Terraform's proposed new state (config merged with prior computed values).
pub fn plan_with_schema(block: &Block, config: Value, prior: Option<Value>, proposed: Value) -> PlannedChange {
    let mut planned = proposed;
    apply_defaults(block, &config, &mut planned);
    match &prior {
        None => mark_computed_unknown(block, &config, &mut planned, false),
        Some(prior_value) if *prior_value != planned => {
            mark_computed_unknown(block, &config, &mut planned, true);
        }
        Some(_) => {}
    }
    let requires_replace = match &prior {
        Some(prior_value) => replacements(block, prior_value, &planned),
        None => Vec::new(),
    };
    PlannedChange {
        config,
        prior,
        planned,
        requires_replace,
        diagnostics: Diagnostics::new(),
    }
}

fn apply_defaults(block: &Block, config: &Value, planned: &mut Value) {
    for attribute in &block.attributes {
        if let Some(default) = &attribute.default
            && config.get_attr(attribute.name).is_none_or(Value::is_null)
        {
            set_attr(planned, attribute.name, default.clone());
        }
    }
    for nested in &block.blocks {
        let (Some(config_items), Some(Value::List(planned_items))) =
            (config.get_attr(nested.name), planned_mut_attr(planned, nested.name))
        else {
            continue;
        };
        if let Value::List(config_items) = config_items {
            for (config_item, planned_item) in config_items.iter().zip(planned_items.iter_mut()) {
                apply_defaults(&nested.block, config_item, planned_item);
            }
        }
    }
}

fn planned_mut_attr<'a>(object: &'a mut Value, name: &str) -> Option<&'a mut Value> {
    match object {
        Value::Object(attributes) => attributes.get_mut(name),
        _ => None,
    }
}

/// Computed values the user did not set become unknown: on create always, on update unless the attribute keeps its
/// prior value (use-state-for-unknown) or has a default.
fn mark_computed_unknown(block: &Block, config: &Value, planned: &mut Value, updating: bool) {
    for attribute in &block.attributes {
        let set_by_user = config.get_attr(attribute.name).is_some_and(|v| !v.is_null());
        let keeps_prior = updating && attribute.use_state_for_unknown;
        if attribute.presence.is_computed() && !set_by_user && attribute.default.is_none() && !keeps_prior {
            set_attr(planned, attribute.name, Value::Unknown);
        }
    }
    // Nested blocks of our schemas hold no computed attributes, except where a resource says so in modify_plan.
}

fn replacements(block: &Block, prior: &Value, planned: &Value) -> Vec<AttributePath> {
    block
        .attributes
        .iter()
        .filter(|attribute| attribute.requires_replace)
        .filter(|attribute| {
            matches!(
                attribute.kind,
                AttributeKind::Primitive(_) | AttributeKind::Nested { .. }
            )
        })
        .filter(|attribute| prior.get_attr(attribute.name) != planned.get_attr(attribute.name))
        .map(|attribute| AttributePath::attr(attribute.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::schema::Attribute;
    use std::collections::BTreeMap;

    fn block() -> Block {
        Block::new("test")
            .attribute(Attribute::string("id").computed().use_state_for_unknown())
            .attribute(Attribute::string("name").required().requires_replace())
            .attribute(Attribute::bool("flag").default_value(Value::Bool(true)))
            .attribute(Attribute::number("version").computed())
            .attribute(Attribute::string("note").optional())
    }

    fn object(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
        )
    }

    fn s(text: &str) -> Value {
        Value::String(text.to_string())
    }

    #[test]
    fn create_marks_computed_unknown_and_applies_defaults() {
        let config = object(&[
            ("id", Value::Null),
            ("name", s("a")),
            ("flag", Value::Null),
            ("version", Value::Null),
            ("note", Value::Null),
        ]);
        let change = plan_with_schema(&block(), config.clone(), None, config);
        assert_eq!(change.planned_attr("id"), &Value::Unknown);
        assert_eq!(change.planned_attr("version"), &Value::Unknown);
        assert_eq!(change.planned_attr("flag"), &Value::Bool(true));
        assert!(change.requires_replace.is_empty());
    }

    #[test]
    fn unchanged_update_is_a_no_op() {
        let prior = object(&[
            ("id", s("x")),
            ("name", s("a")),
            ("flag", Value::Bool(true)),
            ("version", s("1")),
            ("note", Value::Null),
        ]);
        let config = object(&[
            ("id", Value::Null),
            ("name", s("a")),
            ("flag", Value::Null),
            ("version", Value::Null),
            ("note", Value::Null),
        ]);
        let change = plan_with_schema(&block(), config, Some(prior.clone()), prior.clone());
        assert_eq!(change.planned, prior);
        assert!(!change.has_changes());
    }

    #[test]
    fn update_keeps_stable_ids_and_replaces_on_forcing_change() {
        let prior = object(&[
            ("id", s("x")),
            ("name", s("a")),
            ("flag", Value::Bool(true)),
            ("version", s("1")),
            ("note", Value::Null),
        ]);
        let config = object(&[
            ("id", Value::Null),
            ("name", s("b")),
            ("flag", Value::Null),
            ("version", Value::Null),
            ("note", s("n")),
        ]);
        let proposed = object(&[
            ("id", s("x")),
            ("name", s("b")),
            ("flag", Value::Bool(true)),
            ("version", s("1")),
            ("note", s("n")),
        ]);
        let change = plan_with_schema(&block(), config, Some(prior), proposed);
        assert_eq!(change.planned_attr("id"), &s("x"));
        assert_eq!(change.planned_attr("version"), &Value::Unknown);
        assert_eq!(change.requires_replace, vec![AttributePath::attr("name")]);
    }
}
