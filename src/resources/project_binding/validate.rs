//! What `terraform validate` rejects beyond the schema's validators: nested nulls the schema cannot catch (a member
//! block's `name = null`), and the limits DataZone enforces on what the binding sends (botocore `datazone` model:
//! `CreateConnection`, `CreateProjectMembership`), so apply never fails on input the plan accepted.

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::elements;
use crate::protocol::value::Value;

/// DataZone's `UserIdentifier` without its `.*` wrapping (read whole, as the service does): an Identity Center user
/// ID (a UUID, optionally behind a 10-hex-digit store prefix), a user name, or an IAM ARN.
const USER_IDENTIFIER: &str = r"^(([0-9a-f]{10}-)?[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12}|[a-zA-Z_0-9+=,.@-]+|arn:aws:iam::\d{12}:.+)$";

/// A control character other than tab, line feed and carriage return. The DataZone model gives descriptions and
/// group identifiers no pattern; AWS's text patterns elsewhere (IAM descriptions, DataZone's own `GroupIdentifier`)
/// admit only those three, so the stricter reading is taken.
pub fn control_character(text: &str) -> Option<char> {
    text.chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

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
    } else if let Some(c) = control_character(name) {
        diagnostics.push(Diagnostic::invalid_value(
            at("name"),
            format!("{name:?}"),
            &format!("the name contains the control character {c:?}, which DataZone rejects"),
            "remove the control character",
        ));
    } else if user
        && !regex::Regex::new(USER_IDENTIFIER)
            .map(|pattern| pattern.is_match(name))
            .unwrap_or(true)
    {
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
    if let Some(Value::String(description)) = config.get_attr("description")
        && let Some(c) = control_character(description)
    {
        diagnostics.push(Diagnostic::invalid_value(
            AttributePath::attr("description"),
            format!("{description:?}"),
            &format!("the description contains the control character {c:?}, which DataZone rejects"),
            "remove the control character (tabs and line breaks are fine)",
        ));
    }
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
    fn blank_names_and_control_characters_are_named_at_their_path() {
        let config = object([
            ("description", text("ok\tfine")),
            (
                "member",
                Value::List(vec![
                    member("group", text("  ")),
                    member("group", text("bell\u{7}")),
                    member("user", text("alice smith")),
                    member("user", text("arn:aws:iam::123456789012:user/alice")),
                    member("group", text("Research Leads")),
                ]),
            ),
        ]);
        assert_eq!(
            paths_of(&config),
            ["member[0].name", "member[1].name", "member[2].name"]
        );
        let bad_description = object([("description", text("line\u{0}")), ("member", Value::List(vec![]))]);
        assert_eq!(paths_of(&bad_description), ["description"]);
    }
}
