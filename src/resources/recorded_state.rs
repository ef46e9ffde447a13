//! State provider 0.3.0-dev wrote for examples/quickstart (the provider at 0f3c547 applied against the sandbox's
//! local seed, `make demo`), read by the state upgraders' tests: real state, not hand-written.

use crate::protocol::state_upgrade::RawState;

const RECORDED: &str = include_str!("../../tests/fixtures/state-0.3.0-dev/quickstart.tfstate");

/// The recorded attributes of every instance of `type_name`, each with its resource's name.
pub fn instances(type_name: &str) -> Vec<(String, RawState)> {
    let state: serde_json::Value = serde_json::from_str(RECORDED).expect("a Terraform state document");
    let resources = state["resources"].as_array().cloned().unwrap_or_default();
    let out: Vec<(String, RawState)> = resources
        .iter()
        .filter(|resource| resource["type"] == type_name)
        .flat_map(|resource| {
            let name = resource["name"].as_str().unwrap_or_default().to_string();
            let instances = resource["instances"].as_array().cloned().unwrap_or_default();
            instances
                .into_iter()
                .filter_map(move |instance| Some((name.clone(), instance["attributes"].as_object()?.clone())))
        })
        .collect();
    assert!(!out.is_empty(), "no {type_name} in the recording");
    out
}

/// The recorded attributes of the first instance of resource `type_name.name`.
pub fn instance(type_name: &str, name: &str) -> RawState {
    instances(type_name)
        .into_iter()
        .find_map(|(found, attributes)| (found == name).then_some(attributes))
        .unwrap_or_else(|| panic!("no {type_name}.{name} in the recording"))
}
