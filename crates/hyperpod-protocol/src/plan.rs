//! Schema-driven planning, shared by every resource: defaults, "(known after apply)" for computed values,
//! use-state-for-unknown and requires-replace. Resources refine the result in `Resource::modify_plan`.

use super::diagnostics::{AttributePath, Diagnostics, Severity};
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
    /// Warnings for the reviewer (errors are returned as `Err`: only for a configuration that cannot be read).
    pub diagnostics: Diagnostics,
    /// What apply must refuse before writing anything, decided by what the plan controls (the configuration, the
    /// values it references, the objects the resource owns): shown as warnings, enforced at apply (`refusal`). A
    /// change that would replace the object and is refused is planned in place instead, so nothing is destroyed
    /// for a create apply refuses.
    pub refusals: Diagnostics,
    /// Refusals that rest on live state others change (another team's quota, another project's connection): shown
    /// and enforced like `refusals`, and judged again when Terraform plans the change once more at apply.
    pub live_refusals: Diagnostics,
    /// Checks the plan could not make (by name: the IDs of rules whose facts are not all visible at plan), which
    /// apply makes before the resource's first write: recorded in the planned private data (`deferred`) and handed
    /// to apply as `OperationContext::deferred_checks`.
    pub deferred_checks: Vec<String>,
    /// The schema's write-only attributes: read from `config`, null in `planned` (and `prior`).
    pub write_only: Vec<&'static str>,
    /// The schema's derived attributes (`Block::derived_names`): what a plan that waits for apply marks unknown.
    pub derived: Vec<&'static str>,
    /// Whether the write-only arguments differ from those the object was last applied with (or are unknown until
    /// apply). Neither state nor plan holds them, so this is the one trace of their change: a resource whose
    /// planned value equals its prior one is still judged as changed when they moved.
    pub write_only_changed: bool,
    /// On the create half of a replacement, the object it replaces. Terraform plans a replacement twice: with the
    /// prior state (which says that the object must be replaced), then as a create with no prior state, handing it
    /// the private data the first plan returned, where the protocol layer keeps the replaced object for it
    /// (`replaced_private`). So the create is judged as the state it leads to: the replaced object is gone then.
    pub replaced: Option<Value>,
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
    /// Every refusal, those decided by what the plan controls first.
    pub fn all_refusals(&self) -> Diagnostics {
        let mut all = self.refusals.clone();
        all.extend(self.live_refusals.clone());
        all
    }

    /// What the protocol layer does once the resource planned: write-only arguments out of the plan; an error the
    /// resource set beside its plan refused (a plan never fails for what it judged: `refusal`); the replacement an
    /// identity the resource derived forces (a tenant's cluster, from its contract), unless the change is refused
    /// (then it is planned in place: nothing is destroyed for a create apply refuses). Returns the diagnostics to show
    /// (each refusal as a warning first) and the refusals apply enforces.
    pub fn settle(&mut self, block: &Block) -> (Diagnostics, Diagnostics) {
        self.planned = without_write_only(std::mem::replace(&mut self.planned, Value::Null), &self.write_only);
        let (errors, warnings): (Vec<_>, Vec<_>) = std::mem::take(&mut self.diagnostics)
            .into_iter()
            .partition(|diagnostic| diagnostic.severity == Severity::Error);
        self.refusals.extend(Diagnostics(errors));
        replacements_after(block, self);
        let refusals = self.all_refusals();
        if !refusals.is_empty() {
            self.requires_replace.clear();
        }
        // Terraform applies nothing to an object whose planned value is its prior one: its refusals wait for its next
        // change.
        let unchanged = self.prior.is_some() && !self.has_changes();
        let mut shown: Diagnostics = Diagnostics(
            refusals
                .iter()
                .map(|refused| crate::refusal::plan_warning(refused, unchanged))
                .collect(),
        );
        shown.extend(Diagnostics(warnings));
        (shown, refusals)
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
        refusals: Diagnostics::new(),
        live_refusals: Diagnostics::new(),
        deferred_checks: Vec::new(),
        write_only,
        derived: block.derived_names(),
        write_only_changed: false,
        replaced: None,
    }
}

/// Where the first plan of a replacement keeps the object it replaces, for the create's plan (`PlannedChange::
/// replaced`).
const PRIVATE_REPLACED: &str = "replaces";

/// `private` with `replaced` (the prior object, as JSON of the resource's type) kept for the create's plan.
pub fn private_with_replaced(private: &[u8], replaced: &serde_json::Value) -> Vec<u8> {
    crate::private_data::with(private, PRIVATE_REPLACED, replaced.clone())
}

/// The object the first plan of a replacement kept in `private`, and `private` without it.
pub fn take_replaced(private: &[u8]) -> (Option<serde_json::Value>, Vec<u8>) {
    crate::private_data::take(private, PRIVATE_REPLACED)
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
    crate::private_data::with(private, PRIVATE_DIGEST, serde_json::Value::from(digest))
}

/// The digest `private` records, if any (objects applied before handoffs were write-only have none).
pub fn recorded_digest(private: &[u8]) -> Option<String> {
    match crate::private_data::get(private, PRIVATE_DIGEST) {
        Some(serde_json::Value::String(digest)) => Some(digest),
        _ => None,
    }
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

/// The attributes that force a replacement and differ between `prior` and `planned`. A planned value not known yet
/// is no replacement (a computed one the resource derives is judged again once it did, `replacements_after`).
pub fn replacements(block: &Block, prior: &Value, planned: &Value) -> Vec<AttributePath> {
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
        .filter(|attribute| planned.get_attr(attribute.name).is_none_or(Value::is_wholly_known))
        .filter(|attribute| prior.get_attr(attribute.name) != planned.get_attr(attribute.name))
        .map(|attribute| AttributePath::attr(attribute.name))
        .collect()
}

/// `change.requires_replace` with what forces a replacement among the values the resource derived in its plan (an
/// identity it computes, such as the cluster a tenant's contract names), each path once.
pub fn replacements_after(block: &Block, change: &mut PlannedChange) {
    let Some(prior) = &change.prior else {
        return;
    };
    for path in replacements(block, prior, &change.planned) {
        if !change.requires_replace.contains(&path) {
            change.requires_replace.push(path);
        }
    }
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

    #[test]
    fn settling_a_plan_refuses_its_errors_plans_a_refused_replacement_in_place_and_says_when_apply_refuses() {
        let block = Block::new("test")
            .attribute(Attribute::string("team").required().requires_replace())
            .attribute(Attribute::string("note").optional());
        let prior = object(&[("team", s("research")), ("note", Value::Null)]);
        let renamed = object(&[("team", s("vision")), ("note", Value::Null)]);
        let mut change = plan_with_schema(&block, renamed.clone(), Some(prior.clone()), renamed);
        assert_eq!(change.requires_replace, vec![AttributePath::attr("team")]);
        change.diagnostics.push(crate::diagnostics::Diagnostic::error(
            AttributePath::attr("team"),
            "[WKL-1] x",
            "d",
        ));
        change
            .diagnostics
            .push(crate::diagnostics::Diagnostic::warning(AttributePath::root(), "w", "d"));
        let (shown, refusals) = change.settle(&block);
        assert!(
            change.requires_replace.is_empty(),
            "a refused replacement is planned in place"
        );
        assert_eq!(refusals.0.len(), 1);
        assert_eq!(shown.0.len(), 2);
        assert!(!shown.has_errors(), "a plan never fails for what it judged");
        assert_eq!(crate::refusal::refusal_of_summary(&shown.0[0].summary), Some(true));
        // Planned as it was: Terraform applies nothing, so the refusal waits for the next change.
        let mut unchanged = plan_with_schema(&block, prior.clone(), Some(prior.clone()), prior);
        unchanged.refusals.push(crate::diagnostics::Diagnostic::error(
            AttributePath::root(),
            "[LIF-3] y",
            "d",
        ));
        let (shown, _) = unchanged.settle(&block);
        assert_eq!(crate::refusal::refusal_of_summary(&shown.0[0].summary), Some(false));
    }

    #[test]
    fn a_derived_identity_replaces_once_known_and_the_create_learns_what_it_replaces() {
        let block = Block::new("test")
            .attribute(Attribute::string("team").required())
            .attribute(Attribute::string("cluster").computed().requires_replace());
        let prior = object(&[("team", s("research")), ("cluster", s("ml"))]);
        let config = object(&[("team", s("research")), ("cluster", Value::Null)]);
        // Until the resource derives it, the computed identity is unknown: no replacement yet.
        let mut change = plan_with_schema(&block, config.clone(), Some(prior.clone()), prior.clone());
        assert!(change.requires_replace.is_empty());
        set_attr(&mut change.planned, "cluster", Value::Unknown);
        replacements_after(&block, &mut change);
        assert!(change.requires_replace.is_empty(), "unknown is no replacement");
        set_attr(&mut change.planned, "cluster", s("legacy"));
        replacements_after(&block, &mut change);
        replacements_after(&block, &mut change);
        assert_eq!(change.requires_replace, vec![AttributePath::attr("cluster")]);
        // The first plan keeps the replaced object in private data; the create's plan takes it out again.
        let json = serde_json::json!({"team": "research", "cluster": "ml"});
        let private = private_with_replaced(br#"{"write_only_sha256":"d"}"#, &json);
        let (replaced, rest) = take_replaced(&private);
        assert_eq!(replaced, Some(json));
        assert_eq!(rest, br#"{"write_only_sha256":"d"}"#.to_vec());
        assert_eq!(take_replaced(b""), (None, Vec::new()));
    }
}
