//! What AWS and Kubernetes accept of what the restriction sends, checked at validate so apply never fails on input
//! the plan accepted: the project role's ARN (EKS `principalArn`, an IAM role: a session ARN is refused), namespace
//! names (Kubernetes DNS-1123 labels, the scope of every access policy and where the Roles go), the Kubernetes group
//! (a DNS subdomain short enough for the `hyperpod-studio-probes-<group>` ClusterRole name) and lists without
//! duplicates (a duplicate would be a diff on every plan).

use std::collections::BTreeMap;

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::schema::Validator;
use crate::protocol::validators::Matches;
use crate::protocol::value::Value;

/// IAM: role names are 1 to 64 of `[\w+=,.@-]`, paths `/`-delimited printable ASCII up to 512 characters
/// (iam service model, `roleNameType` and `pathType`); `arn:<partition>:iam::<account>:role/<path><name>`.
pub const ROLE_ARN: &str = r"arn:aws[a-z-]*:iam::[0-9]{12}:role/(?:[\x21-\x7E]{0,510}/)?[\w+=,.@-]{1,64}";
/// A DNS-1123 label: a namespace name.
pub const DNS_LABEL: &str = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
/// A DNS-1123 subdomain (dot-separated labels), for names Kubernetes validates as object names.
pub const DNS_SUBDOMAIN: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/// The probe ClusterRole is named `hyperpod-studio-probes-<group>`, and Kubernetes names are at most 253
/// characters: the group may take what the prefix leaves.
pub const PROBES_PREFIX: &str = "hyperpod-studio-probes-";
pub const GROUP_MAX: usize = 253 - PROBES_PREFIX.len();

pub fn role_arn() -> Matches {
    Matches::new(
        ROLE_ARN,
        "an IAM role ARN such as \"arn:aws:iam::123456789012:role/datazone_usr_role_research\" (EKS access entries \
         take roles and users, not assumed-role sessions; a role name is 1 to 64 letters, digits and `+=,.@_-`)",
    )
}

pub fn kubernetes_group() -> Matches {
    Matches::new(
        DNS_SUBDOMAIN,
        "a lowercase Kubernetes name: letters, digits, `-` and `.`, starting and ending with a letter or digit",
    )
}

/// Every element of a list is a Kubernetes namespace name, reported at the element.
pub struct EachNamespace;

impl Validator for EachNamespace {
    fn description(&self) -> String {
        "Each a Kubernetes namespace name (DNS-1123 label: 1 to 63 lowercase letters, digits and `-`).".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let label = Matches::new(DNS_LABEL, "");
        for (index, item) in elements(value) {
            if let Value::String(text) = item
                && !label.is_match(text)
            {
                diagnostics.push(Diagnostic::invalid_value(
                    path.index(index),
                    format!("{text:?}"),
                    "Kubernetes refuses this namespace name",
                    "use 1 to 63 lowercase letters, digits and `-`, starting and ending with a letter or digit, \
                     e.g. \"hyperpod-ns-research\"",
                ));
            }
        }
    }
}

/// No element of a list twice: each duplicate is reported at its own index, naming the first.
pub struct Distinct;

impl Validator for Distinct {
    fn description(&self) -> String {
        "No duplicates.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let mut first: BTreeMap<&str, usize> = BTreeMap::new();
        for (index, item) in elements(value) {
            let Value::String(text) = item else { continue };
            if let Some(earlier) = first.get(text.as_str()) {
                diagnostics.push(Diagnostic::invalid_value(
                    path.index(index),
                    format!("{text:?}"),
                    &format!("the value is listed twice (also at index {earlier})"),
                    "list each value once",
                ));
            } else {
                first.insert(text, index);
            }
        }
    }
}

fn elements(value: &Value) -> impl Iterator<Item = (usize, &Value)> {
    match value {
        Value::List(items) => items.iter().enumerate().collect::<Vec<_>>().into_iter(),
        _ => Vec::new().into_iter(),
    }
}

/// The group the access entry maps the role to must fit the probe ClusterRole's name; the default one (from the
/// role's name) is checked here too, at the role, since it is derived from it.
pub fn group_problem(group: &str) -> Option<String> {
    if group.len() > GROUP_MAX {
        return Some(format!(
            "{} characters: the ClusterRole `{PROBES_PREFIX}<group>` would exceed Kubernetes' 253",
            group.len()
        ));
    }
    (!kubernetes_group().is_match(group)).then(|| format!("{group:?} is not a valid Kubernetes name"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::text_list;

    fn run(validator: &dyn Validator, value: &Value) -> Vec<String> {
        let mut diagnostics = Diagnostics::new();
        validator.validate(&AttributePath::attr("x"), value, &mut diagnostics);
        diagnostics.0.iter().map(|d| format!("{:?}", d.path)).collect()
    }

    fn list(items: &[&str]) -> Value {
        text_list(&items.iter().map(std::string::ToString::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn a_duplicate_is_reported_at_its_own_index() {
        let paths = run(&Distinct, &list(&["a", "b", "a", "a"]));
        assert_eq!(paths.len(), 2);
        assert!(
            paths[0].contains("Index(2)") && paths[1].contains("Index(3)"),
            "{paths:?}"
        );
        assert!(run(&Distinct, &list(&["a", "b"])).is_empty());
    }

    #[test]
    fn namespaces_are_dns_labels() {
        assert!(run(&EachNamespace, &list(&["hyperpod-ns-research", "default"])).is_empty());
        let long = "a".repeat(64);
        let paths = run(&EachNamespace, &list(&["ok", "Bad", "-x", &long, "a.b", ""]));
        assert_eq!(paths.len(), 5, "{paths:?}");
    }

    #[test]
    fn role_arns_are_iam_roles() {
        let arn = role_arn();
        for good in [
            "arn:aws:iam::123456789012:role/datazone_usr_role_research",
            "arn:aws:iam::123456789012:role/service-role/a+b=c,d.e@f-g",
            "arn:aws-cn:iam::123456789012:role/x",
        ] {
            assert!(arn.is_match(good), "{good}");
        }
        for bad in [
            "arn:aws:sts::123456789012:assumed-role/r/session",
            "arn:aws:iam::123456789012:user/alice",
            "arn:aws:iam::12345678901:role/x",
            "arn:aws:iam::123456789012:role/",
            "arn:aws:iam::123456789012:role/has space",
        ] {
            assert!(!arn.is_match(bad), "{bad}");
        }
        assert!(!arn.is_match(&format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65))));
    }

    #[test]
    fn groups_fit_the_probe_cluster_role_name() {
        assert!(group_problem("hyperpod-studio-research").is_none());
        assert!(group_problem(&"g".repeat(GROUP_MAX)).is_none());
        assert!(group_problem(&"g".repeat(GROUP_MAX + 1)).is_some());
        assert!(group_problem("a..b").is_some() && group_problem("-a").is_some());
    }
}
