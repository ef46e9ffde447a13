//! Terraform's machine-readable outputs, as far as the report reads them: `terraform show -json` of a plan and of a
//! state (its JSON output format, <https://developer.hashicorp.com/terraform/internals/json-format>) and the lines of
//! `terraform plan -json` (its machine-readable UI). Their keys are these structs' fields, read by serde; the
//! readers (`plan`, `evidence::state`, `log`) check each value's shape themselves, so an unexpected one is reported
//! where it is, with the same message as before these types.
//!
//! A field is the JSON value as written, `None` when absent or `null`; where the readers tell the two apart (a
//! document's keys, a change's `change`) a present `null` is `Some(Value::Null)`.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A key that is present, whatever its value (`null` included).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Reads `value` as `T`; a value of another shape reads as `T::default()`: every key absent. Only an object is
/// read (serde would also read a struct from a list, by position).
pub fn read<T: for<'de> Deserialize<'de> + Default>(value: &Value) -> T {
    match value {
        Value::Object(_) => T::deserialize(value).unwrap_or_default(),
        _ => T::default(),
    }
}

/// The root of `terraform show -json`: a plan (`resource_changes`, `planned_values`, `configuration`) or a state
/// (`values`).
#[derive(Debug, Default, Deserialize)]
pub struct Document {
    #[serde(default, deserialize_with = "present")]
    pub format_version: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub terraform_version: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub errored: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub values: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub planned_values: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub resource_changes: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub configuration: Option<Value>,
}

/// One entry of a plan's `resource_changes`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ResourceChangeJson {
    pub address: Option<Value>,
    pub module_address: Option<Value>,
    #[serde(rename = "type")]
    pub resource_type: Option<Value>,
    pub mode: Option<Value>,
    pub action_reason: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub change: Option<Value>,
}

/// A resource change's `change`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ChangeJson {
    pub actions: Option<Value>,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub after_unknown: Option<Value>,
    pub replace_paths: Option<Value>,
}

/// A change's action, as `change.actions` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionWord {
    NoOp,
    Read,
    Create,
    Update,
    Delete,
    Forget,
}

/// A module of a state's `values` (`root_module`, each of `child_modules`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StateModule {
    pub address: Option<Value>,
    pub resources: Option<Value>,
    pub child_modules: Option<Value>,
}

/// A state's `values`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StateValues {
    pub root_module: Option<Value>,
}

/// One resource instance of a state module.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StateResource {
    pub address: Option<Value>,
    #[serde(rename = "type")]
    pub resource_type: Option<Value>,
    pub mode: Option<Value>,
    pub values: Option<Value>,
}

/// A resource's `mode`: only `managed` resources are governed (a `data` source is read, never changed); a mode
/// that is absent or not text is taken as managed.
pub fn is_managed(mode: Option<&Value>) -> bool {
    /// The one mode the report governs; any other fails to read.
    #[derive(Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Managed,
    }
    match mode {
        Some(text @ Value::String(_)) => Mode::deserialize(text).is_ok(),
        _ => true,
    }
}

/// A module of a plan's `configuration` (`root_module`, each `module_calls.<name>.module`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ConfigModule {
    pub resources: Option<Value>,
    pub module_calls: Option<Value>,
}

/// A plan's `configuration`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Configuration {
    pub root_module: Option<Value>,
}

/// A resource of a configuration module.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ConfigResource {
    pub address: Option<Value>,
    pub expressions: Option<Value>,
}

/// A module call of a configuration module.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModuleCall {
    pub module: Option<Value>,
}

/// One expression of a configuration (`expressions.<argument>`): a constant, and the references it makes.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Expression {
    pub constant_value: Option<Value>,
}

/// The key of an expression's references. A block's expressions nest inside its argument's, so the references are
/// collected by walking the whole tree for this key rather than through [`Expression`].
pub const REFERENCES: &str = "references";

/// One line of `terraform plan -json`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct LogLine {
    #[serde(rename = "type")]
    pub line_type: Option<Value>,
    #[serde(deserialize_with = "present")]
    pub diagnostic: Option<Value>,
}

/// A log line's `type` that carries a diagnostic.
pub fn is_diagnostic(line_type: Option<&Value>) -> bool {
    #[derive(Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum LineType {
        Diagnostic,
    }
    line_type.is_some_and(|value| LineType::deserialize(value).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_present_null_is_told_from_an_absent_key() {
        let document: Document = read(&json!({"format_version": null}));
        assert_eq!(document.format_version, Some(Value::Null));
        assert_eq!(document.values, None);
        let not_an_object: Document = read(&json!([1]));
        assert_eq!(not_an_object.format_version, None);
    }

    #[test]
    fn a_mode_other_than_data_is_managed_as_before() {
        assert!(is_managed(None));
        assert!(is_managed(Some(&json!("managed"))));
        assert!(!is_managed(Some(&json!("data"))));
        assert!(!is_managed(Some(&json!("other"))));
        assert!(is_managed(Some(&json!(3))));
    }
}
