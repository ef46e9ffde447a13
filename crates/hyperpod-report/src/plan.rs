//! `terraform show -json <planfile>` (or `tofu show -json`) read into what the report needs: every resource
//! change with its action and values, where each value is known, null, or known only after apply.

use std::collections::BTreeMap;

use hyperpod_declarations::tenant::TenantModel;
use serde::Deserialize;
use serde_json::Value;

use crate::terraform_json::{
    ActionWord, ChangeJson, ConfigModule, ConfigResource, Configuration, Document, Expression, ModuleCall, REFERENCES,
    ResourceChangeJson, is_managed, read,
};

/// The plan, as far as the report reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub terraform_version: Option<String>,
    /// `"errored": true`: the plan stopped; the resources whose plan failed are absent (their diagnostics are in
    /// the `plan -json` log).
    pub errored: bool,
    pub changes: Vec<ResourceChange>,
    /// The configuration's resources by address without instance keys (`module.a.hyperpod_tenant.x`): what a
    /// resource whose plan failed can still be told by.
    pub configuration: BTreeMap<String, ConfiguredResource>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfiguredResource {
    /// Every `references` entry of its expressions, e.g. `hyperpod_connection_contract.research.governance`.
    pub references: Vec<String>,
    /// A literal `team` argument, if the configuration has one.
    pub team: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceChange {
    pub address: String,
    /// `module.production` (with instance keys) or empty for the root module.
    pub module_address: String,
    pub resource_type: String,
    pub managed: bool,
    pub action: Action,
    pub action_reason: Option<String>,
    /// Attribute paths that force a replacement, as `a.b[0]`.
    pub replace_paths: Vec<String>,
    pub before: Values,
    pub after: Values,
}

impl ResourceChange {
    /// One of this provider's resources.
    pub fn is_governed(&self) -> bool {
        self.managed && self.resource_type.starts_with("hyperpod_")
    }
}

/// `change.actions`, as Terraform's renderer names them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    NoOp,
    Read,
    Create,
    Update,
    Delete,
    /// Delete then create, or create then delete (`create_before_destroy`).
    Replace,
    /// Removed from state without destroying (a `removed` block with `destroy = false`).
    Forget,
    Other(String),
}

impl Action {
    /// `change.actions` as Terraform writes it; a list of other words is `Other`, comma-separated.
    fn parse(actions: &[Value]) -> Action {
        use ActionWord::{Create, Delete, Forget, NoOp, Read, Update};
        let words: Result<Vec<ActionWord>, _> = actions.iter().map(ActionWord::deserialize).collect();
        match words.as_deref() {
            Ok([NoOp]) => Action::NoOp,
            Ok([Read]) => Action::Read,
            Ok([Create]) => Action::Create,
            Ok([Update]) => Action::Update,
            Ok([Delete]) => Action::Delete,
            Ok([Delete, Create] | [Create, Delete]) => Action::Replace,
            Ok([Forget]) => Action::Forget,
            _ => Action::Other(
                actions
                    .iter()
                    .map(|a| a.as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        }
    }

    pub fn destroys(&self) -> bool {
        matches!(self, Action::Delete | Action::Replace)
    }
}

/// A value as the plan holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanField<'a> {
    Known(&'a Value),
    Null,
    /// Known only after apply.
    Unknown,
}

impl PlanField<'_> {
    /// The value as text, if known and scalar.
    pub fn as_text(&self) -> Option<String> {
        match self {
            PlanField::Known(Value::String(text)) => Some(text.clone()),
            PlanField::Known(Value::Number(number)) => Some(number.to_string()),
            PlanField::Known(Value::Bool(flag)) => Some(flag.to_string()),
            _ => None,
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, PlanField::Unknown)
    }
}

/// One side of a change (`before`, or `after` with `after_unknown`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values {
    value: Value,
    unknown: Value,
}

impl Values {
    pub fn new(value: Value, unknown: Value) -> Self {
        Self { value, unknown }
    }

    pub fn is_present(&self) -> bool {
        !self.value.is_null()
    }

    /// The value at `path`. A name step into a list descends into its only element, so `cluster.name` reads both
    /// a nested block (`cluster[0].name`) and an object attribute; a numeric step indexes a list.
    pub fn get(&self, path: &[&str]) -> PlanField<'_> {
        let mut value = &self.value;
        let mut unknown = &self.unknown;
        for step in path {
            if unknown == &Value::Bool(true) {
                return PlanField::Unknown;
            }
            (value, unknown) = match (value, step.parse::<usize>()) {
                (Value::Array(items), Ok(index)) => (
                    items.get(index).unwrap_or(&Value::Null),
                    unknown.get(index).unwrap_or(&Value::Null),
                ),
                (Value::Array(items), Err(_)) if items.len() == 1 => (
                    items[0].get(step).unwrap_or(&Value::Null),
                    unknown.get(0).and_then(|u| u.get(step)).unwrap_or(&Value::Null),
                ),
                (Value::Object(fields), _) => (
                    fields.get(*step).unwrap_or(&Value::Null),
                    unknown.get(step).unwrap_or(&Value::Null),
                ),
                _ => (&Value::Null, unknown.get(step).unwrap_or(&Value::Null)),
            };
        }
        if unknown == &Value::Bool(true) {
            PlanField::Unknown
        } else if value.is_null() {
            PlanField::Null
        } else {
            PlanField::Known(value)
        }
    }
}

/// Why the input is not a plan the report can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads the text of `terraform show -json <planfile>`.
pub fn parse(text: &str) -> Result<Plan, PlanError> {
    let json: Value = serde_json::from_str(text).map_err(|err| PlanError(format!("not JSON: {err}")))?;
    if !json.is_object() {
        return Err(PlanError("not a JSON object".into()));
    }
    let root: Document = read(&json);
    if root.format_version.is_none() {
        return Err(PlanError(
            "no format_version: not the output of `terraform show -json <planfile>`".into(),
        ));
    }
    if root.values.is_some() && root.resource_changes.is_none() && root.planned_values.is_none() {
        return Err(PlanError(
            "this is a state (`terraform show -json` without a plan file), not a plan: `report evidence` reads states"
                .into(),
        ));
    }
    let changes = match &root.resource_changes {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| change(item).map_err(|what| PlanError(format!("resource_changes[{i}]: {what}"))))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(PlanError("resource_changes is not a list".into())),
    };
    let mut configuration = BTreeMap::new();
    let root_module = (root.configuration.as_ref()).and_then(|c| read::<Configuration>(c).root_module);
    if let Some(module) = &root_module {
        configured(module, "", &mut configuration);
    }
    Ok(Plan {
        terraform_version: (root.terraform_version.as_ref())
            .and_then(Value::as_str)
            .map(str::to_string),
        errored: root.errored.as_ref().and_then(Value::as_bool).unwrap_or(false),
        changes,
        configuration,
    })
}

fn change(item: &Value) -> Result<ResourceChange, String> {
    let item: ResourceChangeJson = read(item);
    let text = |value: &Option<Value>| value.as_ref().and_then(Value::as_str).map(str::to_string);
    let address = text(&item.address).ok_or("no address")?;
    let change: ChangeJson = read(item.change.as_ref().ok_or_else(|| format!("{address}: no change"))?);
    let actions = (change.actions.as_ref())
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{address}: change.actions is not a list"))?;
    let action = Action::parse(actions);
    let field = |value: Option<Value>| value.unwrap_or(Value::Null);
    Ok(ResourceChange {
        module_address: text(&item.module_address).unwrap_or_default(),
        resource_type: text(&item.resource_type).unwrap_or_default(),
        managed: is_managed(item.mode.as_ref()),
        action,
        action_reason: text(&item.action_reason),
        replace_paths: (change.replace_paths.as_ref())
            .and_then(Value::as_array)
            .map(|paths| paths.iter().map(path_text).collect())
            .unwrap_or_default(),
        before: Values::new(field(change.before), Value::Null),
        after: Values::new(field(change.after), field(change.after_unknown)),
        address,
    })
}

/// `["quota", 0, "count"]` as `quota[0].count`.
fn path_text(path: &Value) -> String {
    let mut text = String::new();
    for step in path.as_array().into_iter().flatten() {
        match step {
            Value::Number(index) => text.push_str(&format!("[{index}]")),
            Value::String(name) if text.is_empty() => text.push_str(name),
            Value::String(name) => text.push_str(&format!(".{name}")),
            other => text.push_str(&format!("[{other}]")),
        }
    }
    text
}

fn configured(module: &Value, prefix: &str, out: &mut BTreeMap<String, ConfiguredResource>) {
    let module: ConfigModule = read(module);
    for resource in module
        .resources
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let resource: ConfigResource = read(resource);
        let Some(address) = resource.address.as_ref().and_then(Value::as_str) else {
            continue;
        };
        let expressions = resource.expressions.unwrap_or(Value::Null);
        let mut references = Vec::new();
        collect_references(&expressions, &mut references);
        // A tenant's `team` written as a constant: what a tenant whose plan failed is still told by.
        let team = (expressions.get(TenantModel::TEAM.name()))
            .and_then(|team| read::<Expression>(team).constant_value)
            .and_then(|team| team.as_str().map(str::to_string));
        out.insert(format!("{prefix}{address}"), ConfiguredResource { references, team });
    }
    for (name, call) in module
        .module_calls
        .as_ref()
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(child) = read::<ModuleCall>(call).module {
            configured(&child, &format!("{prefix}module.{name}."), out);
        }
    }
}

/// Every reference an expression (and each expression nested in it: a block's arguments) makes, in the order
/// the configuration lists them.
fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                match (key.as_str(), field) {
                    (REFERENCES, Value::Array(items)) => {
                        out.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                    _ => collect_references(field, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, out)),
        _ => {}
    }
}

/// An instance address without its instance keys: `module.a["x"].hyperpod_tenant.t["k"]` →
/// `module.a.hyperpod_tenant.t`, the address the configuration knows it by.
pub fn without_keys(address: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for c in address.chars() {
        if depth > 0 {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                ']' if !quoted => depth -= 1,
                _ => {}
            }
        } else if c == '[' {
            depth = 1;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_tell_known_null_and_unknown_apart() {
        let after = Values::new(
            json!({"cluster": [{"name": "ml"}], "unified_studio": {"project_id": "p1"}, "id": null,
                   "tags_all": {"a": "b"}, "quota": [{"count": 2}, {"count": 3}]}),
            json!({"id": true, "tags_all": true, "quota": [{}, {"count": true}]}),
        );
        assert_eq!(after.get(&["cluster", "name"]).as_text().as_deref(), Some("ml"));
        assert_eq!(
            after.get(&["unified_studio", "project_id"]).as_text().as_deref(),
            Some("p1")
        );
        assert_eq!(after.get(&["id"]), PlanField::Unknown);
        assert_eq!(
            after.get(&["tags_all", "a"]),
            PlanField::Unknown,
            "inside an unknown value"
        );
        assert_eq!(after.get(&["absent"]), PlanField::Null);
        assert_eq!(after.get(&["quota", "0", "count"]).as_text().as_deref(), Some("2"));
        assert_eq!(after.get(&["quota", "1", "count"]), PlanField::Unknown);
        // A name step into a list of two does not guess which element.
        assert_eq!(after.get(&["quota", "count"]), PlanField::Null);
    }

    #[test]
    fn a_plan_is_read_and_other_json_is_refused_with_what_is_wrong() {
        let plan = parse(
            r#"{"format_version":"1.2","terraform_version":"1.15.5","errored":true,"resource_changes":[
                {"address":"module.m[\"a\"].hyperpod_tenant.t[\"x\"]","module_address":"module.m[\"a\"]",
                 "mode":"managed","type":"hyperpod_tenant",
                 "change":{"actions":["delete","create"],"before":{},"after":{},"after_unknown":{},
                           "replace_paths":[["quota",0,"count"]]},
                 "action_reason":"replace_because_cannot_update"}]}"#,
        )
        .expect("a plan");
        assert!(plan.errored);
        assert_eq!(plan.terraform_version.as_deref(), Some("1.15.5"));
        assert_eq!(plan.changes[0].action, Action::Replace);
        assert_eq!(plan.changes[0].replace_paths, ["quota[0].count"]);
        assert!(plan.changes[0].is_governed());
        assert_eq!(without_keys(&plan.changes[0].address), "module.m.hyperpod_tenant.t");
        assert_eq!(without_keys(r#"a.b["x]\"y"].c"#), "a.b.c");

        for (text, says) in [
            ("", "not JSON"),
            ("[1]", "not a JSON object"),
            ("{}", "format_version"),
            (r#"{"format_version":"1.0","values":{}}"#, "state"),
            (r#"{"format_version":"1.2","resource_changes":{}}"#, "not a list"),
            (
                r#"{"format_version":"1.2","resource_changes":[{"address":"a","change":{}}]}"#,
                "actions",
            ),
        ] {
            let err = parse(text).expect_err(text);
            assert!(err.0.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn configuration_references_are_collected_per_module() {
        let plan = parse(
            r#"{"format_version":"1.2","configuration":{"root_module":{
                "resources":[{"address":"hyperpod_tenant.r","expressions":{
                    "team":{"constant_value":"research"},
                    "contract":{"references":["hyperpod_connection_contract.r.governance"]}}}],
                "module_calls":{"m":{"module":{"resources":[{"address":"hyperpod_tenant.this","expressions":{}}]}}}}}}"#,
        )
        .expect("a plan");
        let tenant = &plan.configuration["hyperpod_tenant.r"];
        assert_eq!(tenant.references, ["hyperpod_connection_contract.r.governance"]);
        assert_eq!(tenant.team.as_deref(), Some("research"));
        assert!(plan.configuration.contains_key("module.m.hyperpod_tenant.this"));
    }
}
