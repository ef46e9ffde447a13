//! Schema versions and state upgraders. A resource whose stored shape changes (an attribute renamed, moved or
//! given a new meaning) bumps `Schema::version` and adds one [`StateUpgrader`] per step, so state written by any
//! earlier release is read by this one when Terraform calls `UpgradeResourceState`. Additive changes need no
//! version: absent attributes decode as null.
//!
//! Steps chain (0 → 1 → 2 …) rather than each jumping to the current version, so an upgrader, once released, is
//! never edited again: the next schema change adds a step instead.

use super::diagnostics::{AttributePath, Diagnostics};
use super::schema::Schema;
use super::value::Value;

/// The attributes of one resource instance as Terraform stored them (go-cty JSON).
pub type RawState = serde_json::Map<String, serde_json::Value>;

/// Rewrites state of schema version `from` into version `from + 1`.
pub struct StateUpgrader {
    pub from: i64,
    /// What changed at this step, in words; named in the error when the step fails.
    pub change: &'static str,
    pub upgrade: fn(&mut RawState) -> Result<(), String>,
}

/// Reads state of schema `version` as a value of the current schema, applying every step from `version` on.
pub fn upgrade(
    type_name: &str,
    schema: &Schema,
    upgraders: &[StateUpgrader],
    version: i64,
    json: &[u8],
) -> Result<Value, Diagnostics> {
    let unreadable = |detail: String| Diagnostics::error(AttributePath::root(), "Unreadable state", detail);
    if version > schema.version {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "State written by a newer provider",
            format!(
                "{type_name} state has schema version {version}, but this provider writes version {}. Upgrade the \
                 provider to the version that wrote this state (see `.terraform.lock.hcl` and the CHANGELOG).",
                schema.version
            ),
        ));
    }
    let bytes = if version == schema.version {
        json.to_vec()
    } else {
        let mut state: RawState = serde_json::from_slice(json).map_err(|err| {
            unreadable(format!(
                "{type_name} state (schema version {version}) is not an object: {err}"
            ))
        })?;
        for from in version..schema.version {
            let step = upgraders.iter().find(|step| step.from == from).ok_or_else(|| {
                Diagnostics::error(
                    AttributePath::root(),
                    "Unsupported state version",
                    format!(
                        "{type_name} state has schema version {version}; this provider writes version {} and has no \
                         upgrader from version {from}. Use the provider version that wrote this state, or remove the \
                         object from state and import it.",
                        schema.version
                    ),
                )
            })?;
            (step.upgrade)(&mut state).map_err(|err| {
                unreadable(format!(
                    "{type_name} state: upgrading from schema version {from} ({}) failed: {err}",
                    step.change
                ))
            })?;
        }
        serde_json::Value::Object(state).to_string().into_bytes()
    };
    Value::decode_json(&bytes, &schema.value_type()).map_err(|err| unreadable(format!("{type_name}: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::string;
    use crate::schema::{Attribute, Block};

    fn schema(version: i64) -> Schema {
        Schema {
            version,
            block: Block::new("test")
                .attribute(Attribute::string("id").computed().describe("id"))
                .attribute(Attribute::string("name").required().describe("name"))
                .attribute(Attribute::string("old_id").computed().describe("where step 0 moved id")),
        }
    }

    fn move_id(state: &mut RawState) -> Result<(), String> {
        let id = state.remove("id").ok_or("no id")?;
        state.insert("old_id".into(), id);
        Ok(())
    }

    fn name_as_id(state: &mut RawState) -> Result<(), String> {
        let name = state.get("name").cloned().ok_or("no name")?;
        state.insert("id".into(), name);
        Ok(())
    }

    const STEPS: [StateUpgrader; 2] = [
        StateUpgrader {
            from: 1,
            change: "id is the name",
            upgrade: name_as_id,
        },
        StateUpgrader {
            from: 0,
            change: "id moved to old_id",
            upgrade: move_id,
        },
    ];

    #[test]
    fn steps_apply_in_version_order_from_the_stored_version() {
        let json = br#"{"id":"abc","name":"n"}"#;
        let from_zero = upgrade("t", &schema(2), &STEPS, 0, json).expect("0 -> 2");
        assert_eq!(string(&from_zero, "old_id").as_deref(), Some("abc"));
        assert_eq!(string(&from_zero, "id").as_deref(), Some("n"));
        let from_one = upgrade("t", &schema(2), &STEPS, 1, json).expect("1 -> 2");
        assert_eq!(
            string(&from_one, "old_id"),
            None,
            "step 0 does not run on version 1 state"
        );
        assert_eq!(string(&from_one, "id").as_deref(), Some("n"));
    }

    #[test]
    fn current_state_is_decoded_as_it_is() {
        let value = upgrade("t", &schema(2), &STEPS, 2, br#"{"id":"abc","name":"n"}"#).expect("current");
        assert_eq!(string(&value, "id").as_deref(), Some("abc"));
    }

    #[test]
    fn newer_missing_and_failing_steps_are_errors_that_say_what_to_do() {
        let json = br#"{"name":"n"}"#;
        let newer = upgrade("t", &schema(1), &STEPS, 2, json).expect_err("newer");
        assert!(newer.0[0].summary.contains("newer provider"), "{:?}", newer.0[0]);
        let missing = upgrade("t", &schema(2), &STEPS[..1], 0, json).expect_err("no step from 0");
        assert!(
            missing.0[0].detail.contains("no upgrader from version 0"),
            "{}",
            missing.0[0].detail
        );
        let failing = upgrade("t", &schema(2), &STEPS, 0, json).expect_err("step 0 needs an id");
        assert!(
            failing.0[0].detail.contains("(id moved to old_id) failed: no id"),
            "{}",
            failing.0[0].detail
        );
        assert!(
            upgrade("t", &schema(2), &STEPS, 0, b"[1]").is_err(),
            "state must be an object"
        );
    }
}
