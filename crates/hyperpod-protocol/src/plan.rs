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
    /// The schema's write-only attributes: read from `config`, null in `planned` (and `prior`).
    pub write_only: Vec<&'static str>,
    /// Whether the write-only arguments differ from those the object was last applied with (or are unknown until
    /// apply). Neither state nor plan holds them, so this is the one trace of their change: a resource whose
    /// planned value equals its prior one is still judged as changed when they moved.
    pub write_only_changed: bool,
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
    /// The planned value with the write-only arguments as configured: what the resource judges and derives from.
    /// Never planned as it is (`set_planned` drops them again).
    pub fn arguments(&self) -> Value {
        with_write_only(&self.planned, &self.config, &self.write_only)
    }
    /// Plans `value`, with its write-only attributes null (Terraform rejects a plan that holds one).
    pub fn set_planned(&mut self, value: Value) {
        self.planned = without_write_only(value, &self.write_only);
    }
    /// True when the planned object differs from the prior one (always true on create).
    pub fn has_changes(&self) -> bool {
        self.prior.as_ref() != Some(&self.planned)
    }
    /// True when Terraform would leave the object as it is, and its write-only arguments did not move either.
    pub fn is_unchanged(&self) -> bool {
        !self.has_changes() && !self.write_only_changed
    }
}

/// Sets an attribute of an object value; no-op on anything else.
pub fn set_attr(object: &mut Value, name: &str, value: Value) {
    if let Value::Object(attributes) = object {
        attributes.insert(name.to_string(), value);
    }
}

/// `value` with the write-only attributes `names` taken from `config`: what a resource reads its write-only
/// arguments from at plan and at apply (state and plans never hold them).
pub fn with_write_only(value: &Value, config: &Value, names: &[&str]) -> Value {
    let mut out = value.clone();
    for name in names {
        set_attr(&mut out, name, config.get_attr(name).cloned().unwrap_or(Value::Null));
    }
    out
}

/// `value` with the write-only attributes `names` null: planned and new state, Read and import results.
pub fn without_write_only(mut value: Value, names: &[&str]) -> Value {
    if value.is_null() {
        return value;
    }
    for name in names {
        set_attr(&mut value, name, Value::Null);
    }
    value
}

/// Plans a create or update from Terraform's proposed new state (config merged with prior computed values).
/// Write-only attributes are null in the plan whatever the proposal holds: a change to one alone is no change.
pub fn plan_with_schema(block: &Block, config: Value, prior: Option<Value>, proposed: Value) -> PlannedChange {
    let write_only = block.write_only_names();
    let mut planned = without_write_only(proposed, &write_only);
    let prior = prior.map(|prior| without_write_only(prior, &write_only));
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
        write_only,
        write_only_changed: false,
    }
}

/// The provider's private data of an object: a digest of the write-only arguments it was applied with (Terraform
/// keeps it with the state, never shows it, and hands it back at the next plan).
const PRIVATE_DIGEST: &str = "write_only_sha256";

/// A digest of the write-only arguments in `config`, `None` while one is not wholly known.
pub fn write_only_digest(block: &Block, config: &Value) -> Option<String> {
    let mut fields = serde_json::Map::new();
    for attribute in block.attributes.iter().filter(|a| a.write_only) {
        let value = config.get_attr(attribute.name).cloned().unwrap_or(Value::Null);
        if !value.is_wholly_known() {
            return None;
        }
        fields.insert(attribute.name.to_string(), value.to_json(&attribute.value_type()).ok()?);
    }
    let bytes = serde_json::Value::Object(fields).to_string();
    Some(crate::digest::sha256_hex(bytes.as_bytes()))
}

/// Private data recording `digest` (merged into what `private` holds already).
pub fn private_with_digest(private: &[u8], digest: &str) -> Vec<u8> {
    let mut fields = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(private).unwrap_or_default();
    fields.insert(
        PRIVATE_DIGEST.to_string(),
        serde_json::Value::String(digest.to_string()),
    );
    serde_json::Value::Object(fields).to_string().into_bytes()
}

/// The digest `private` records, if any (objects applied before handoffs were write-only have none).
pub fn recorded_digest(private: &[u8]) -> Option<String> {
    let fields = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(private).ok()?;
    fields.get(PRIVATE_DIGEST)?.as_str().map(str::to_string)
}

/// Whether write-only arguments now (`digest`, `None` while unknown) differ from those recorded in `private`. An
/// unknown argument moves (its source changes in this apply); with no record (state from before write-only
/// arguments, or an import) nothing is known to have moved.
pub fn write_only_moved(digest: Option<&str>, private: &[u8]) -> bool {
    match (digest, recorded_digest(private)) {
        (None, _) => true,
        (Some(now), Some(before)) => now != before,
        (Some(_), None) => false,
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
    use crate::schema::Attribute;
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

    fn with_handoff() -> Block {
        block().attribute(Attribute::new("contract", crate::value::Type::String).write_only())
    }

    #[test]
    fn write_only_arguments_are_read_from_config_and_never_planned() {
        let config = object(&[("name", s("a")), ("contract", s("facts"))]);
        let proposed = object(&[("name", s("a")), ("contract", s("facts")), ("id", Value::Null)]);
        let mut change = plan_with_schema(&with_handoff(), config, None, proposed);
        assert_eq!(change.planned_attr("contract"), &Value::Null);
        assert_eq!(change.arguments().get_attr("contract"), Some(&s("facts")));
        let arguments = change.arguments();
        change.set_planned(arguments);
        assert_eq!(
            change.planned_attr("contract"),
            &Value::Null,
            "set_planned drops it again"
        );
    }

    #[test]
    fn the_private_digest_tells_a_moved_handoff_from_an_unchanged_one() {
        let block = with_handoff();
        let digest = |facts: Value| write_only_digest(&block, &object(&[("contract", facts)]));
        let applied = private_with_digest(b"", &digest(s("facts")).expect("known"));
        assert!(!write_only_moved(digest(s("facts")).as_deref(), &applied));
        assert!(write_only_moved(digest(s("other")).as_deref(), &applied));
        assert_eq!(digest(Value::Unknown), None);
        assert!(write_only_moved(None, &applied), "unknown until apply: it moves");
        assert!(
            !write_only_moved(digest(s("other")).as_deref(), b""),
            "no record: not known to have moved"
        );
        assert_eq!(recorded_digest(&applied), digest(s("facts")));
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
