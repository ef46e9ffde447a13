//! `terraform show -json` (or `tofu show -json`) without a plan file — the state — read into what the evidence
//! needs: every managed resource instance of the root module and its child modules, with its values. Each instance
//! is handed to the plan report's helpers as a no-op change whose `after` is its state, so contracts are found and
//! rules read exactly as the plan report does it.

use serde_json::Value;

use crate::plan::{Action, Plan, PlanError, ResourceChange, Values};
use crate::terraform_json::{Document, StateModule, StateResource, StateValues, is_managed, read};

/// The state, as far as the evidence reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub terraform_version: Option<String>,
    /// Every resource instance, root module first, then child modules in the order the state lists them.
    pub resources: Vec<ResourceChange>,
}

impl State {
    /// The state as a plan that changes nothing, for the plan report's association and checklist readers.
    pub fn as_plan(&self) -> Plan {
        Plan {
            terraform_version: self.terraform_version.clone(),
            errored: false,
            changes: self.resources.clone(),
            configuration: std::collections::BTreeMap::default(),
        }
    }
}

/// Reads the text of `terraform show -json` of a state.
pub fn parse(text: &str) -> Result<State, PlanError> {
    let json: Value = serde_json::from_str(text).map_err(|err| PlanError(format!("not JSON: {err}")))?;
    if !json.is_object() {
        return Err(PlanError("not a JSON object".into()));
    }
    let root: Document = read(&json);
    if root.format_version.is_none() {
        return Err(PlanError(
            "no format_version: not the output of `terraform show -json`".into(),
        ));
    }
    if root.resource_changes.is_some() || root.planned_values.is_some() {
        return Err(PlanError(
            "this is a plan (`terraform show -json <planfile>`), not a state: `report` without `evidence` reads \
             plans; `report evidence` reads `terraform show -json` run without a plan file"
                .into(),
        ));
    }
    let mut resources = Vec::new();
    match &root.values {
        // An empty state (nothing applied yet) has no values.
        None | Some(Value::Null) => {}
        Some(values) => match read::<StateValues>(values).root_module {
            None | Some(Value::Null) => {}
            Some(module) => read_module(&module, "values.root_module", &mut resources)?,
        },
    }
    Ok(State {
        terraform_version: (root.terraform_version.as_ref())
            .and_then(Value::as_str)
            .map(str::to_string),
        resources,
    })
}

fn read_module(module: &Value, at: &str, out: &mut Vec<ResourceChange>) -> Result<(), PlanError> {
    let module: StateModule = read(module);
    let module_address = module.address.as_ref().and_then(Value::as_str).unwrap_or_default();
    match &module.resources {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                out.push(
                    resource(item, module_address).map_err(|what| PlanError(format!("{at}.resources[{i}]: {what}")))?,
                );
            }
        }
        Some(_) => return Err(PlanError(format!("{at}.resources is not a list"))),
    }
    match &module.child_modules {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(children)) => children
            .iter()
            .enumerate()
            .try_for_each(|(i, child)| read_module(child, &format!("{at}.child_modules[{i}]"), out)),
        Some(_) => Err(PlanError(format!("{at}.child_modules is not a list"))),
    }
}

fn resource(item: &Value, module_address: &str) -> Result<ResourceChange, String> {
    let item: StateResource = read(item);
    let text = |value: &Option<Value>| value.as_ref().and_then(Value::as_str).map(str::to_string);
    let address = text(&item.address).ok_or("no address")?;
    let values = match item.values {
        Some(values @ Value::Object(_)) => values,
        None | Some(Value::Null) => Value::Object(serde_json::Map::default()),
        Some(_) => return Err(format!("{address}: values is not an object")),
    };
    Ok(ResourceChange {
        module_address: module_address.to_string(),
        resource_type: text(&item.resource_type).unwrap_or_default(),
        managed: is_managed(item.mode.as_ref()),
        action: Action::NoOp,
        action_reason: None,
        replace_paths: Vec::new(),
        before: Values::new(values.clone(), Value::Null),
        after: Values::new(values, Value::Null),
        address,
    })
}
