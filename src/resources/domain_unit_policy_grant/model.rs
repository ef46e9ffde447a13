//! Reading the grant's configuration, flattening DataZone's grant into state, the import ID, and the
//! configuration-only checks (one principal, at least one distinct, well-formed profile).

use std::collections::BTreeSet;

use crate::aws::datazone_grants::{GrantPrincipal, ProfileGrant};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{boolean, nested, object, string, strings, text, text_list};
use crate::protocol::plan::set_attr;
use crate::protocol::validators::Matches;
use crate::protocol::value::Value;

use super::schema::{DESIGNATIONS, PROJECT_PROFILE_ID};

/// Prefix of the `clientToken`s this resource sends with `AddPolicyGrant`.
const TOKEN_PREFIX: &str = "hyperpod-grant-";

/// The principal's attributes that each name a kind of principal; exactly one is set.
pub const PRINCIPAL_KINDS: [&str; 3] = ["group_id", "user_id", "domain_unit_id"];

/// What the configuration asks DataZone to grant, once every value is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantSpec {
    pub domain_id: String,
    pub domain_unit_id: String,
    pub project_profile_ids: Vec<String>,
    pub include_child_domain_units: bool,
    pub principal: GrantPrincipal,
}

impl GrantSpec {
    /// `None` while any part is unknown (it comes from a resource not created yet).
    pub fn from_value(value: &Value) -> Option<Self> {
        let profiles = value.get_attr("project_profile_ids")?;
        if !profiles.is_wholly_known() {
            return None;
        }
        Some(Self {
            domain_id: string(value, "domain_id")?,
            domain_unit_id: string(value, "domain_unit_id")?,
            project_profile_ids: strings(value, "project_profile_ids"),
            include_child_domain_units: boolean(value, "include_child_domain_units").unwrap_or(false),
            principal: principal_from_value(value)?,
        })
    }
}

impl GrantSpec {
    /// The `AddPolicyGrant` idempotency token of this grant: derived from its terms (domain, unit, principal, the
    /// set of profiles, child-unit scope), so an apply that was killed after DataZone accepted the grant sends the
    /// same token on the next apply, and DataZone answers with that grant instead of a conflict. A grant added by
    /// anyone else carries another token, so it is still refused.
    pub fn client_token(&self) -> String {
        let principal = match &self.principal {
            GrantPrincipal::Group(id) => format!("group:{id}"),
            GrantPrincipal::User(id) => format!("user:{id}"),
            GrantPrincipal::DomainUnitOwners(id) => format!("domain-unit-owners:{id}"),
            GrantPrincipal::Other(description) => format!("other:{description}"),
        };
        let profiles: BTreeSet<&str> = self.project_profile_ids.iter().map(String::as_str).collect();
        let terms = format!(
            "hyperpod_domain_unit_policy_grant\n{}\n{}\n{principal}\n{}\n{}",
            self.domain_id,
            self.domain_unit_id,
            profiles.into_iter().collect::<Vec<_>>().join(","),
            self.include_child_domain_units
        );
        token_of(&terms)
    }
}

/// The token to use after `token` was answered with `stale_grant_id`, a grant that no longer exists: DataZone
/// replays a token's first answer, so a grant removed since (destroyed, or out of band) needs a new token, and
/// deriving it from the stale ID keeps it the same on every apply.
pub fn next_client_token(token: &str, stale_grant_id: &str) -> String {
    token_of(&format!("{token}\n{stale_grant_id}"))
}

/// `hyperpod-grant-` and 32 hex digits of the text's SHA-256 (ClientToken: 1..128 printable ASCII characters).
fn token_of(text: &str) -> String {
    format!("{TOKEN_PREFIX}{}", &crate::digest::sha256_hex(text.as_bytes())[..32])
}

/// The configured principal; `None` when it is unknown or not exactly one kind.
pub fn principal_from_value(value: &Value) -> Option<GrantPrincipal> {
    let principal = nested(value, "principal")?;
    if !principal.is_wholly_known() {
        return None;
    }
    match (
        string(principal, "group_id"),
        string(principal, "user_id"),
        string(principal, "domain_unit_id"),
    ) {
        (Some(group), None, None) => Some(GrantPrincipal::Group(group)),
        (None, Some(user), None) => Some(GrantPrincipal::User(user)),
        (None, None, Some(unit)) => Some(GrantPrincipal::DomainUnitOwners(unit)),
        _ => None,
    }
}

/// The `principal` block for a principal DataZone reports. A kind this resource cannot express (a project, all
/// users) leaves every attribute null, which differs from any configuration: the plan shows it and replaces it.
pub fn principal_value(principal: &GrantPrincipal) -> Value {
    let (group, user, unit, designation) = match principal {
        GrantPrincipal::Group(id) => (text(id), Value::Null, Value::Null, Value::Null),
        GrantPrincipal::User(id) => (Value::Null, text(id), Value::Null, Value::Null),
        GrantPrincipal::DomainUnitOwners(id) => (Value::Null, Value::Null, text(id), text(DESIGNATIONS[0])),
        GrantPrincipal::Other(_) => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    object([
        ("group_id", group),
        ("user_id", user),
        ("domain_unit_id", unit),
        ("designation", designation),
    ])
}

/// `<domain>/<domain unit>/<grant>`.
pub fn grant_resource_id(domain_id: &str, domain_unit_id: &str, grant_id: &str) -> String {
    format!("{domain_id}/{domain_unit_id}/{grant_id}")
}

/// Splits an import ID. Grant IDs may contain `/` (`[A-Za-z0-9+/]{10}`); domain and domain unit IDs never do, so
/// only the first two slashes separate.
pub fn parse_resource_id(id: &str) -> Option<(String, String, String)> {
    let mut parts = id.trim().splitn(3, '/');
    let (domain, unit, grant) = (parts.next()?, parts.next()?, parts.next()?);
    if domain.is_empty() || unit.is_empty() || grant.is_empty() {
        return None;
    }
    Some((domain.to_string(), unit.to_string(), grant.to_string()))
}

/// State from what DataZone reports. Profiles keep the prior order when they are the same set, so a reordered
/// response is no change.
pub fn flatten(grant: &ProfileGrant, domain_id: &str, domain_unit_id: &str, prior: &Value) -> Value {
    let prior_profiles = strings(prior, "project_profile_ids");
    let same_set = prior_profiles.iter().collect::<BTreeSet<_>>() == grant.project_profile_ids.iter().collect()
        && prior_profiles.len() == grant.project_profile_ids.len();
    let profiles = if same_set {
        prior_profiles
    } else {
        grant.project_profile_ids.clone()
    };
    let mut state = object([
        (
            "id",
            text(grant_resource_id(domain_id, domain_unit_id, &grant.grant_id)),
        ),
        ("grant_id", text(&grant.grant_id)),
        ("domain_id", text(domain_id)),
        ("domain_unit_id", text(domain_unit_id)),
        ("project_profile_ids", text_list(&profiles)),
        (
            "include_child_domain_units",
            Value::Bool(grant.include_child_domain_units),
        ),
        ("principal", principal_value(&grant.principal)),
    ]);
    let facts = governance_value(&state);
    set_attr(&mut state, "governance", facts);
    state
}

/// The `governance` attribute, derived from the grant's own arguments so it is known at plan time (an unknown
/// argument stays unknown in it).
pub fn governance_value(grant: &Value) -> Value {
    let attr = |name: &str| grant.get_attr(name).cloned().unwrap_or(Value::Null);
    let include_children = match grant.get_attr("include_child_domain_units") {
        Some(Value::Null) | None => Value::Bool(false),
        Some(other) => other.clone(),
    };
    object([
        ("domain_id", attr("domain_id")),
        ("domain_unit_id", attr("domain_unit_id")),
        ("project_profile_ids", attr("project_profile_ids")),
        ("include_child_domain_units", include_children),
    ])
}

fn principal_path(name: &str) -> AttributePath {
    AttributePath::attr("principal").push_attr(name)
}

/// Configuration-only checks (no I/O, unknown values skipped): exactly one principal, `designation` exactly with
/// `domain_unit_id`, and at least one distinct, well-formed project profile ID.
pub fn validate_config(config: &Value, diagnostics: &mut Diagnostics) {
    if let Some(principal) = nested(config, "principal") {
        validate_principal(principal, diagnostics);
    }
    validate_profiles(config, diagnostics);
}

fn validate_principal(principal: &Value, diagnostics: &mut Diagnostics) {
    // An unknown value will be set (or not) at apply; counting it as set is the conservative reading.
    let is_set = |name: &str| principal.get_attr(name).is_some_and(|v| !v.is_null());
    let set: Vec<&str> = PRINCIPAL_KINDS.iter().copied().filter(|name| is_set(name)).collect();
    match set.as_slice() {
        [] => diagnostics.push(Diagnostic::error(
            AttributePath::attr("principal"),
            "Missing principal",
            "principal: no principal is set. Fix: set exactly one of `group_id`, `user_id`, or `domain_unit_id` \
             with `designation = \"OWNER\"`.",
        )),
        [_] => {}
        [first, rest @ ..] => {
            for name in rest {
                diagnostics.push(Diagnostic::error(
                    principal_path(name),
                    "Conflicting principals",
                    format!(
                        "principal.{name}: a grant has exactly one principal, and `{first}` is set as well. Observed: \
                         {}. Fix: keep one of them; grant another principal with a second \
                         hyperpod_domain_unit_policy_grant.",
                        set.join(", ")
                    ),
                ));
            }
        }
    }
    // The pairing of unit and designation is judged only on known values: an unknown one is judged at plan.
    let known_set = |name: &str| principal.get_attr(name).is_some_and(|v| v.is_known() && !v.is_null());
    let known_null = |name: &str| principal.get_attr(name).is_none_or(Value::is_null);
    let unit_set = known_set("domain_unit_id");
    let designation_set = known_set("designation");
    if unit_set && known_null("designation") {
        diagnostics.push(Diagnostic::error(
            principal_path("designation"),
            "Missing designation",
            "principal.designation: a domain-unit principal names which of the unit's users are granted. Fix: add \
             `designation = \"OWNER\"`.",
        ));
    }
    if designation_set && known_null("domain_unit_id") {
        diagnostics.push(Diagnostic::error(
            principal_path("designation"),
            "Designation without a domain unit",
            "principal.designation: only a domain-unit principal has a designation. Fix: remove it, or set \
             `principal.domain_unit_id`.",
        ));
    }
}

fn validate_profiles(config: &Value, diagnostics: &mut Diagnostics) {
    let path = AttributePath::attr("project_profile_ids");
    let Some(Value::List(items)) = config.get_attr("project_profile_ids") else {
        return; // null is Terraform's to refuse (required); unknown is checked at apply
    };
    if items.is_empty() {
        diagnostics.push(Diagnostic::invalid_value(
            path,
            "[]",
            "a grant needs at least one project profile",
            "list the approved project profiles' IDs, e.g. [\"hyperpodprof01\"]",
        ));
        return;
    }
    let pattern = Matches::new(PROJECT_PROFILE_ID, "");
    let mut seen = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        let Value::String(id) = item else { continue };
        let item_path = path.index(index);
        if !pattern.is_match(id) {
            diagnostics.push(Diagnostic::invalid_value(
                item_path,
                format!("{id:?}"),
                "the value is not a project profile ID",
                "use the profile's ID (1 to 36 letters, digits, `_` and `-`), not its name",
            ));
        } else if !seen.insert(id.as_str()) {
            diagnostics.push(Diagnostic::invalid_value(
                item_path,
                format!("{id:?}"),
                "the profile is listed twice",
                "list each project profile once",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(pairs: &[(&str, &str)]) -> Value {
        let mut value = object(
            ["group_id", "user_id", "domain_unit_id", "designation"]
                .into_iter()
                .map(|name| (name, Value::Null)),
        );
        for (name, v) in pairs {
            set_attr(&mut value, name, text(*v));
        }
        value
    }

    fn config(principal_value: Value, profiles: &[&str]) -> Value {
        object([
            ("domain_id", text("dzd_capacity01")),
            ("domain_unit_id", text("mlplatform0001")),
            (
                "project_profile_ids",
                Value::List(profiles.iter().map(|p| text(*p)).collect()),
            ),
            ("include_child_domain_units", Value::Null),
            ("principal", principal_value),
        ])
    }

    fn errors(config: &Value) -> Vec<(String, String)> {
        let mut diagnostics = Diagnostics::new();
        validate_config(config, &mut diagnostics);
        diagnostics
            .0
            .into_iter()
            .map(|d| (d.path.to_string(), d.summary))
            .collect()
    }

    #[test]
    fn exactly_one_principal_is_accepted() {
        for p in [
            principal(&[("group_id", "ml-admins")]),
            principal(&[("user_id", "u-1")]),
            principal(&[("domain_unit_id", "mlplatform0001"), ("designation", "OWNER")]),
        ] {
            assert_eq!(errors(&config(p, &["hyperpodprof01"])), Vec::<(String, String)>::new());
        }
    }

    #[test]
    fn two_principals_point_at_the_second() {
        let two = principal(&[("group_id", "ml-admins"), ("user_id", "u-1")]);
        assert_eq!(
            errors(&config(two, &["hyperpodprof01"])),
            [("principal.user_id".to_string(), "Conflicting principals".to_string())]
        );
        let none = principal(&[]);
        assert_eq!(errors(&config(none, &["p"]))[0].0, "principal");
    }

    #[test]
    fn designation_goes_with_a_domain_unit_only() {
        let missing = principal(&[("domain_unit_id", "mlplatform0001")]);
        assert_eq!(errors(&config(missing, &["p"]))[0].0, "principal.designation");
        let stray = principal(&[("group_id", "g"), ("designation", "OWNER")]);
        assert_eq!(errors(&config(stray, &["p"]))[0].1, "Designation without a domain unit");
    }

    #[test]
    fn unknown_principal_values_count_as_set() {
        let mut p = principal(&[("group_id", "g")]);
        set_attr(&mut p, "user_id", Value::Unknown);
        assert_eq!(errors(&config(p, &["p"])).len(), 1);
    }

    #[test]
    fn profiles_need_one_distinct_well_formed_id() {
        assert_eq!(
            errors(&config(principal(&[("group_id", "g")]), &[]))[0].0,
            "project_profile_ids"
        );
        let found = errors(&config(
            principal(&[("group_id", "g")]),
            &["a", "hyperpod projects", "a"],
        ));
        let paths: Vec<_> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["project_profile_ids[1]", "project_profile_ids[2]"]);
    }

    #[test]
    fn import_ids_split_on_the_first_two_slashes() {
        assert_eq!(
            parse_resource_id("dzd_capacity01/mlplatform0001/ab/Cd+ef12"),
            Some((
                "dzd_capacity01".to_string(),
                "mlplatform0001".to_string(),
                "ab/Cd+ef12".to_string()
            ))
        );
        assert_eq!(parse_resource_id("dzd_capacity01/mlplatform0001"), None);
        assert_eq!(parse_resource_id("dzd_capacity01//x"), None);
        let id = grant_resource_id("d", "u", "g/h");
        assert_eq!(parse_resource_id(&id).map(|(_, _, g)| g), Some("g/h".to_string()));
    }

    #[test]
    fn flatten_keeps_the_configured_profile_order_and_reads_the_principal() {
        let grant = ProfileGrant {
            grant_id: "AbCdEf0123".to_string(),
            principal: GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()),
            project_profile_ids: vec!["b".to_string(), "a".to_string()],
            include_child_domain_units: true,
            raw_principal: None,
        };
        let prior = config(principal(&[]), &["a", "b"]);
        let state = flatten(&grant, "dzd_capacity01", "mlplatform0001", &prior);
        assert_eq!(strings(&state, "project_profile_ids"), ["a", "b"]);
        assert_eq!(
            string(&state, "id").as_deref(),
            Some("dzd_capacity01/mlplatform0001/AbCdEf0123")
        );
        let p = nested(&state, "principal").expect("principal");
        assert_eq!(string(p, "designation").as_deref(), Some("OWNER"));
        assert_eq!(
            principal_from_value(&state),
            Some(GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string()))
        );
        let governance = state.get_attr("governance").expect("governance");
        assert_eq!(boolean(governance, "include_child_domain_units"), Some(true));
        // A changed set of profiles is reported as DataZone has it: drift.
        let other = config(principal(&[]), &["a", "c"]);
        let drifted = flatten(&grant, "dzd_capacity01", "mlplatform0001", &other);
        assert_eq!(strings(&drifted, "project_profile_ids"), ["b", "a"]);
    }

    #[test]
    fn a_principal_kind_the_resource_cannot_express_reads_as_no_principal() {
        let value = principal_value(&GrantPrincipal::Other("all users".to_string()));
        assert!(
            PRINCIPAL_KINDS
                .iter()
                .all(|name| value.get_attr(name) == Some(&Value::Null))
        );
    }

    #[test]
    fn governance_is_known_when_the_arguments_are() {
        let planned = config(principal(&[("group_id", "g")]), &["p"]);
        let facts = governance_value(&planned);
        assert!(facts.is_wholly_known());
        assert_eq!(boolean(&facts, "include_child_domain_units"), Some(false));
        let mut later = planned.clone();
        set_attr(&mut later, "domain_unit_id", Value::Unknown);
        assert_eq!(
            governance_value(&later).get_attr("domain_unit_id"),
            Some(&Value::Unknown)
        );
    }

    fn spec(principal: GrantPrincipal, profiles: &[&str], children: bool) -> GrantSpec {
        GrantSpec {
            domain_id: "dzd_capacity01".to_string(),
            domain_unit_id: "mlplatform0001".to_string(),
            project_profile_ids: profiles.iter().map(std::string::ToString::to_string).collect(),
            include_child_domain_units: children,
            principal,
        }
    }

    #[test]
    fn the_client_token_follows_the_terms_and_fits_datazone() {
        let owners = || GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string());
        let token = spec(owners(), &["a", "b"], false).client_token();
        assert!(token.starts_with(TOKEN_PREFIX) && token.len() == TOKEN_PREFIX.len() + 32);
        assert!(token.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        // The same grant (profiles are a set) gives the same token; any other term another one.
        assert_eq!(spec(owners(), &["b", "a", "a"], false).client_token(), token);
        for other in [
            spec(owners(), &["a"], false),
            spec(owners(), &["a", "b"], true),
            spec(GrantPrincipal::Group("mlplatform0001".to_string()), &["a", "b"], false),
            spec(GrantPrincipal::User("mlplatform0001".to_string()), &["a", "b"], false),
        ] {
            assert_ne!(other.client_token(), token);
        }
        let next = next_client_token(&token, "AbCdEf0123");
        assert!(next.starts_with(TOKEN_PREFIX) && next != token);
        assert_eq!(next_client_token(&token, "AbCdEf0123"), next);
        assert_ne!(next_client_token(&token, "AbCdEf0124"), next);
    }
}
