//! What `terraform validate` rejects beyond the schema's validators and the schema walk (which reports nulls and
//! control characters everywhere): the limits DataZone enforces on what the binding sends (botocore `datazone` model:
//! `CreateConnection`, `CreateProjectMembership`), so apply never fails on input the plan accepted.

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::elements;
use crate::protocol::value::Value;

/// DataZone's `UserIdentifier` without its `.*` wrapping (read whole, as the service does): an Identity Center user
/// ID (a UUID, optionally behind a 10-hex-digit store prefix), a user name, or an IAM ARN.
const USER_IDENTIFIER: &str = r"^(([0-9a-f]{10}-)?[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12}|[a-zA-Z_0-9+=,.@-]+|arn:aws:iam::\d{12}:.+)$";

fn member_diagnostics(index: usize, member: &Value, diagnostics: &mut Diagnostics) {
    let at = |field: &str| AttributePath::attr("member").index(index).push_attr(field);
    // A null name or designation is reported by the schema walk ("Missing required argument"), once.
    let Some(Value::String(name)) = member.get_attr("name") else {
        return;
    };
    let user = matches!(member.get_attr("kind"), Some(Value::String(kind)) if kind == "user");
    if name.trim().is_empty() {
        diagnostics.push(Diagnostic::invalid_value(
            at("name"),
            format!("{name:?}"),
            "a member's name cannot be blank",
            "use the group's or user's identifier",
        ));
    } else if crate::protocol::validators::has_control_character(name) {
        // The schema walk reports it (every string), once.
    } else if user && !regex::Regex::new(USER_IDENTIFIER).map_or(true, |pattern| pattern.is_match(name)) {
        diagnostics.push(Diagnostic::invalid_value(
            at("name"),
            format!("{name:?}"),
            "DataZone accepts a user as an Identity Center user ID, a user name of letters, digits and `_+=,.@-`, \
             or an IAM ARN",
            "use the user's Identity Center ID, user profile name or IAM ARN",
        ));
    }
}

/// Validation of the binding's configuration, every problem at its attribute path.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    for (index, member) in elements(config, "member").iter().enumerate() {
        member_diagnostics(index, member, diagnostics);
    }
    // Control characters in the name or the description: the schema walk (protocol/validators.rs) reports them.
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text};

    fn paths_of(config: &Value) -> Vec<String> {
        let mut diagnostics = Diagnostics::new();
        validate(config, &mut diagnostics);
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
}
