//! What `terraform validate` checks beyond the declaration's validators: a member's name as DataZone reads it, a
//! member listed twice, and a capacity handoff written by hand.

use super::{kind_of, members_in, same_member};
use crate::governance::MemberKind;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::Model;
use crate::protocol::value::Value;
use crate::resources::project_binding::schema::{BindingModel, CAPACITY_HANDOFFS, MemberBlock};

/// DataZone's `UserIdentifier` without its `.*` wrapping (read whole, as the service does): an Identity Center user
/// ID (a UUID, optionally behind a 10-hex-digit store prefix), a user name, or an IAM ARN.
const USER_IDENTIFIER: &str = r"^(([0-9a-f]{10}-)?[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12}|[a-zA-Z_0-9+=,.@-]+|arn:aws:iam::\d{12}:.+)$";

fn member_diagnostics(index: usize, member: &MemberBlock, diagnostics: &mut Diagnostics) {
    let at = || {
        AttributePath::attr(BindingModel::MEMBER.name())
            .index(index)
            .push_attr(MemberBlock::NAME.name())
    };
    // A null name or designation is reported by the schema walk ("Missing required argument"), once.
    let Some(name) = member.name.as_known() else {
        return;
    };
    let user = member
        .kind
        .as_known()
        .is_some_and(|kind| kind_of(kind) == MemberKind::User);
    if name.trim().is_empty() {
        diagnostics.push(Diagnostic::invalid_value(
            at(),
            format!("{name:?}"),
            "a member's name cannot be blank",
            "use the group's or user's identifier",
        ));
    } else if crate::protocol::validators::has_control_character(name) {
        // The schema walk reports it (every string), once.
    } else if user && !regex::Regex::new(USER_IDENTIFIER).map_or(true, |pattern| pattern.is_match(name)) {
        diagnostics.push(Diagnostic::invalid_value(
            at(),
            format!("{name:?}"),
            "DataZone accepts a user as an Identity Center user ID, a user name of letters, digits and `_+=,.@-`, \
             or an IAM ARN",
            "use the user's Identity Center ID, user profile name or IAM ARN",
        ));
    }
}

/// What `terraform validate` rejects beyond the schema's validators and the schema walk (which reports nulls and
/// control characters everywhere): the limits DataZone enforces on what the binding sends (botocore `datazone` model:
/// `CreateConnection`, `CreateProjectMembership`), so apply never fails on input the plan accepted; and a member
/// listed twice; a capacity handoff written by hand (`allocation`, `tenants`) held to the rules of the resource it
/// stands for (`handoff::unreadable_capacity`). Every problem at its attribute path.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    diagnostics.extend(crate::resources::handoff::unreadable_capacity(
        config,
        &CAPACITY_HANDOFFS,
    ));
    let Ok(binding) = BindingModel::decode(config) else {
        return; // of another type than the schema's: Terraform's own type check reports it
    };
    for (index, member) in binding.member.as_known().into_iter().flatten().enumerate() {
        member_diagnostics(index, member, diagnostics);
    }
    // Control characters in the name or the description: the schema walk (protocol/validators.rs) reports them.
    let Some(members) = members_in(&binding) else { return };
    for (index, member) in members.iter().enumerate() {
        if members[..index].iter().any(|earlier| same_member(earlier, member)) {
            diagnostics.push(Diagnostic::invalid_value(
                crate::governance::paths::binding::member(index),
                format!("{:?} again", member.name),
                "a member can be listed once (a project membership has one designation)",
                "remove the repeated member block, keeping the designation you want",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text};

    /// A configuration as Terraform sends it: every attribute, null where unset.
    fn with_every_attribute(config: &Value) -> Value {
        let mut full = BindingModel::block().null_value();
        if let (Value::Object(full), Value::Object(set)) = (&mut full, config) {
            full.extend(set.clone());
        }
        full
    }

    fn paths_of(config: &Value) -> Vec<String> {
        let config = with_every_attribute(config);
        let mut diagnostics = Diagnostics::new();
        validate(&config, &mut diagnostics);
        diagnostics.0.iter().map(|d| d.path.to_string()).collect()
    }

    fn member(kind: &str, name: Value) -> Value {
        object([
            ("kind", text(kind)),
            ("name", name),
            ("designation", text("PROJECT_OWNER")),
        ])
    }

    #[test]
    fn blank_and_malformed_names_are_named_at_their_path_once() {
        let config = object([
            ("description", text("ok\tfine")),
            (
                "member",
                Value::List(vec![
                    member("group", text("  ")),
                    // A control character is the schema walk's finding, not reported here a second time.
                    member("user", text("bell\u{7}")),
                    member("user", text("alice smith")),
                    member("user", text("arn:aws:iam::123456789012:user/alice")),
                    member("group", text("Research Leads")),
                ]),
            ),
        ]);
        assert_eq!(paths_of(&config), ["member[0].name", "member[2].name"]);
    }

    #[test]
    fn a_member_listed_twice_fails_validation() {
        let config = object([(
            "member",
            Value::List(vec![member_of("PROJECT_OWNER"), member_of("PROJECT_CONTRIBUTOR")]),
        )]);
        let mut diagnostics = Diagnostics::new();
        validate(&with_every_attribute(&config), &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path.to_string(), "member[1].name");
    }

    fn member_of(designation: &str) -> Value {
        object([
            ("kind", text("group")),
            ("name", text("research-leads")),
            ("designation", text(designation)),
        ])
    }
}
