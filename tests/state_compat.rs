//! State written by earlier releases must keep working: `tests/fixtures/state-<version>/` holds the Terraform state
//! the released provider wrote for `examples/quickstart` against the local sandbox (every resource type, recorded
//! with that release's binary). Each instance must upgrade to this provider's schema (`UpgradeResourceState`), and
//! its identity must still decode (`UpgradeResourceIdentity`). A schema change that would strand existing state
//! fails here until it gets a schema version and an upgrader (`src/protocol/state_upgrade.rs`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value as Json;
use terraform_provider_hyperpod::protocol::object::string;
use terraform_provider_hyperpod::protocol::plugin::PluginProvider;
use terraform_provider_hyperpod::protocol::value::Value;
use terraform_provider_hyperpod::provider::HyperpodProvider;

struct Instance {
    address: String,
    type_name: String,
    schema_version: i64,
    attributes: Json,
    identity: Option<Json>,
}

fn recorded(release: &str) -> Vec<Instance> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("state-{release}"))
        .join("quickstart.tfstate");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let state: Json = serde_json::from_str(&text).expect("a Terraform state document");
    let mut instances = Vec::new();
    for resource in state["resources"].as_array().expect("resources") {
        if resource["mode"] != "managed" {
            continue;
        }
        let type_name = resource["type"].as_str().expect("type").to_string();
        for instance in resource["instances"].as_array().expect("instances") {
            let key = match &instance["index_key"] {
                Json::Null => String::new(),
                key => format!("[{key}]"),
            };
            instances.push(Instance {
                address: format!("{type_name}.{}{key}", resource["name"].as_str().expect("name")),
                type_name: type_name.clone(),
                schema_version: instance["schema_version"].as_i64().expect("schema_version"),
                attributes: instance["attributes"].clone(),
                identity: instance.get("identity").cloned(),
            });
        }
    }
    instances
}

/// The resource types of release 0.1.0: each must keep reading its state.
const SHIPPED_IN_0_1_0: [&str; 6] = [
    "hyperpod_connection_contract",
    "hyperpod_domain_unit_policy_grant",
    "hyperpod_scheduling_policy",
    "hyperpod_task_view_restriction",
    "hyperpod_tenant",
    "hyperpod_unified_studio_project_binding",
];

#[test]
fn state_written_by_0_1_0_upgrades_for_every_resource() {
    let provider = HyperpodProvider::default();
    let instances = recorded("0.1.0");
    let recorded_types: BTreeSet<_> = instances.iter().map(|i| i.type_name.as_str()).collect();
    assert_eq!(
        recorded_types,
        SHIPPED_IN_0_1_0.into_iter().collect(),
        "the fixture records every resource type 0.1.0 shipped"
    );
    assert_every_instance_upgrades(&provider, &instances);
}

/// Each instance upgrades to this provider's schema, fits it, and still names the object its identity names.
fn assert_every_instance_upgrades(provider: &HyperpodProvider, instances: &[Instance]) {
    let resources = provider.resources();
    for instance in instances {
        let resource = resources
            .iter()
            .find(|r| r.type_name() == instance.type_name)
            .unwrap_or_else(|| {
                panic!(
                    "{}: 0.1.0 state of a resource this provider no longer has",
                    instance.address
                )
            });
        let schema = resource.schema();
        let json = instance.attributes.to_string();
        let upgraded = resource
            .upgrade_state(instance.schema_version, json.as_bytes())
            .unwrap_or_else(|d| panic!("{}: {:?}", instance.address, d.0));
        upgraded
            .encode_msgpack(&schema.value_type())
            .unwrap_or_else(|err| panic!("{}: upgraded state does not fit the schema: {err}", instance.address));
        assert!(
            instance.schema_version <= schema.version,
            "{}: recorded version {} is newer than the schema",
            instance.address,
            instance.schema_version
        );
        if let (Some(identity), Some(identity_schema)) = (&instance.identity, resource.identity_schema()) {
            let decoded = Value::decode_json(identity.to_string().as_bytes(), &identity_schema.value_type())
                .unwrap_or_else(|err| panic!("{}: identity: {err}", instance.address));
            assert_eq!(
                resource.identity(&upgraded).as_ref(),
                Some(&decoded),
                "{}: the upgraded state names the same object as the recorded identity",
                instance.address
            );
        }
    }
}

/// 0.3.0-dev (the state `make demo` wrote before handoffs became write-only): every instance upgrades, and no
/// handoff copy survives.
#[test]
fn state_written_by_0_3_0_dev_upgrades_and_drops_the_handoff_copies() {
    let provider = HyperpodProvider::default();
    let instances = recorded("0.3.0-dev");
    assert_every_instance_upgrades(&provider, &instances);
    let handoffs = [
        (
            "hyperpod_tenant",
            &["contract", "scheduling_policy", "borrows_from"][..],
        ),
        ("hyperpod_task_view_restriction", &["contract"][..]),
        (
            "hyperpod_unified_studio_project_binding",
            &["contract", "task_view_restriction", "tenants"][..],
        ),
        ("hyperpod_connection_contract", &["organization"][..]),
    ];
    let resources = provider.resources();
    for (type_name, names) in handoffs {
        let resource = resources.iter().find(|r| r.type_name() == type_name).expect(type_name);
        for instance in instances.iter().filter(|i| i.type_name == type_name) {
            assert_eq!(instance.schema_version, 0, "{}", instance.address);
            let upgraded = resource
                .upgrade_state(0, instance.attributes.to_string().as_bytes())
                .unwrap_or_else(|d| panic!("{}: {:?}", instance.address, d.0));
            for name in names {
                assert_eq!(
                    upgraded.get_attr(name),
                    Some(&Value::Null),
                    "{}.{name}",
                    instance.address
                );
            }
        }
    }
}

#[test]
fn scheduling_policy_0_1_0_state_moves_the_config_id_and_takes_the_cluster_name_as_id() {
    let provider = HyperpodProvider::default();
    let resources = provider.resources();
    let policy = resources
        .iter()
        .find(|r| r.type_name() == "hyperpod_scheduling_policy")
        .expect("the scheduling policy");
    let recorded = recorded("0.1.0")
        .into_iter()
        .find(|i| i.type_name == "hyperpod_scheduling_policy")
        .expect("recorded");
    assert_eq!(recorded.schema_version, 0);
    let config_id = recorded.attributes["id"].as_str().expect("0.1.0 id").to_string();
    let upgraded = policy
        .upgrade_state(0, recorded.attributes.to_string().as_bytes())
        .expect("upgrades");
    assert_eq!(string(&upgraded, "id").as_deref(), Some("ml-capacity"));
    assert_eq!(string(&upgraded, "scheduler_config_id"), Some(config_id));
    for unchanged in ["arn", "name", "cluster_arn", "status"] {
        assert_eq!(
            string(&upgraded, unchanged).as_deref(),
            recorded.attributes[unchanged].as_str(),
            "{unchanged}"
        );
    }
}
