//! The grant's plan without a sandbox: inputs built by hand, the verdict and the planned attributes.

use super::gather::{DataZoneLookup, GrantDomainReads, PrincipalChange};
use super::{GrantPlanInputs, judge::judge, predict::predict};
use crate::aws::datazone_grants::{GrantPrincipal, ProfileGrant, ProjectProfile};
use crate::protocol::diagnostics::Severity;
use crate::protocol::model::{Known, Model};
use crate::protocol::object::{object, text};
use crate::protocol::plan::{plan_with_schema, set_attr};
use crate::protocol::value::Value;
use crate::resources::domain_unit_policy_grant::model::{GrantConfig, governance};
use crate::resources::domain_unit_policy_grant::schema::{PolicyGrantModel, schema};

fn model(value: &Value) -> PolicyGrantModel {
    PolicyGrantModel::decode(value).expect("a grant's value decodes")
}

fn config(profiles: &[&str], group: &str) -> Value {
    object([
        ("id", Value::Null),
        ("grant_id", Value::Null),
        ("domain_id", text("dzd_capacity01")),
        ("domain_unit_id", text("mlplatform0001")),
        (
            "project_profile_ids",
            Value::List(profiles.iter().map(|p| text(*p)).collect()),
        ),
        ("include_child_domain_units", Value::Null),
        ("governance", Value::Null),
        (
            "principal",
            object([
                ("group_id", text(group)),
                ("user_id", Value::Null),
                ("domain_unit_id", Value::Null),
                ("designation", Value::Null),
            ]),
        ),
    ])
}

fn applied(config: &Value) -> Value {
    let mut state = config.clone();
    set_attr(&mut state, "include_child_domain_units", Value::Bool(false));
    set_attr(&mut state, "grant_id", text("AbCdEf0123"));
    set_attr(&mut state, "id", text("dzd_capacity01/mlplatform0001/AbCdEf0123"));
    let facts = governance(&model(&state)).encode_known();
    set_attr(&mut state, "governance", facts);
    state
}

fn profile(id: &str, status: &str) -> ProjectProfile {
    ProjectProfile {
        id: id.into(),
        name: format!("{id} profile"),
        status: Some(status.into()),
        domain_unit_id: None,
    }
}

/// A create of a grant to group `g` of `profiles`, with everything DataZone was asked found.
fn inputs(profiles: &[&str]) -> GrantPlanInputs {
    let config = GrantConfig::of(&model(&config(profiles, "g")));
    GrantPlanInputs {
        domain: Some(GrantDomainReads {
            unit: Some(DataZoneLookup::Found(())),
            domain_missing: false,
            owner_unit: None,
            principal: Some(DataZoneLookup::Found(GrantPrincipal::Group("gp-1".into()))),
            profiles: profiles
                .iter()
                .map(|id| DataZoneLookup::Found(profile(id, "ENABLED")))
                .collect(),
            domain_profiles: None,
            unit_grants: Some(DataZoneLookup::Found(Vec::new())),
        }),
        config,
        is_create: true,
        principal_change: PrincipalChange::Same,
        account_id: "123456789012".into(),
        region: "us-west-2".into(),
    }
}

fn reads(inputs: &mut GrantPlanInputs) -> &mut GrantDomainReads {
    inputs.domain.as_mut().expect("read")
}

#[test]
fn a_missing_profile_fails_at_its_index_naming_the_domain_s_profiles_with_the_warnings_after() {
    let mut inputs = inputs(&["hyperpodprof01", "trainingprof01", "oldprof01"]);
    let reads = reads(&mut inputs);
    reads.profiles[1] = DataZoneLookup::Missing;
    reads.profiles[2] = DataZoneLookup::Found(profile("oldprof01", "DISABLED"));
    reads.domain_profiles = Some(vec![profile("hyperpodprof01", "ENABLED")]);
    let errors = judge(&inputs).expect_err("a profile is missing");
    assert_eq!(errors.0.len(), 2);
    assert_eq!(errors.0[0].path.to_string(), "project_profile_ids[1]");
    assert!(
        errors.0[0].detail.contains("hyperpodprof01 (hyperpodprof01 profile)"),
        "{}",
        errors.0[0].detail
    );
    assert_eq!(errors.0[1].summary, "Disabled project profile");
    assert_eq!(errors.0[1].severity, Severity::Warning);
}

#[test]
fn a_missing_domain_is_the_only_error() {
    let mut inputs = inputs(&["hyperpodprof01"]);
    let reads = reads(&mut inputs);
    reads.unit = Some(DataZoneLookup::Missing);
    reads.domain_missing = true;
    let errors = judge(&inputs).expect_err("no domain");
    assert_eq!(errors.0.len(), 1);
    assert_eq!(errors.0[0].path.to_string(), "domain_id");
    assert!(errors.0[0].detail.contains("account 123456789012 region us-west-2"));
}

#[test]
fn an_identical_grant_outside_the_state_is_a_warning_naming_its_import_id() {
    let mut inputs = inputs(&["hyperpodprof01"]);
    reads(&mut inputs).unit_grants = Some(DataZoneLookup::Found(vec![ProfileGrant {
        grant_id: "XyZ0123456".into(),
        principal: GrantPrincipal::Group("gp-1".into()),
        project_profile_ids: vec!["hyperpodprof01".into()],
        include_child_domain_units: false,
        raw_principal: None,
    }]));
    let warnings = judge(&inputs).expect("warnings only");
    assert_eq!(warnings.0.len(), 1);
    assert_eq!(warnings.0[0].summary, "An identical grant exists");
    assert!(
        warnings.0[0]
            .detail
            .contains("dzd_capacity01/mlplatform0001/XyZ0123456")
    );
    reads(&mut inputs).unit_grants = Some(DataZoneLookup::Unreadable("ListPolicyGrants failed".into()));
    let warnings = judge(&inputs).expect("warnings only");
    assert_eq!(warnings.0[0].summary, "Could not verify that no identical grant exists");
}

#[test]
fn a_plan_that_reads_nothing_judges_nothing_and_a_new_principal_replaces() {
    let schema = schema();
    let prior = applied(&config(&["hyperpodprof01"], "g"));
    let planned = config(&["hyperpodprof01"], "other");
    let mut change = plan_with_schema(&schema.block, planned.clone(), Some(prior), planned);
    let mut inputs = inputs(&["hyperpodprof01"]);
    inputs.domain = None;
    inputs.principal_change = PrincipalChange::Replaced;
    assert_eq!(judge(&inputs), Ok(crate::protocol::diagnostics::Diagnostics::new()));
    let planned = model(&change.planned);
    predict(&inputs, &planned, &mut change);
    assert!(
        change
            .requires_replace
            .iter()
            .any(|path| path.to_string() == "principal")
    );
    let governance = change.planned.get_attr("governance").expect("governance");
    assert_eq!(governance.get_attr("domain_unit_id"), Some(&text("mlplatform0001")));
}

#[test]
fn a_changed_profile_list_replaces_and_an_unchanged_plan_is_empty() {
    let schema = schema();
    let prior = applied(&config(&["hyperpodprof01"], "g"));
    let same = config(&["hyperpodprof01"], "g");
    let change = plan_with_schema(&schema.block, same.clone(), Some(prior.clone()), prior.clone());
    assert!(!change.has_changes());
    let changed = config(&["hyperpodprof01", "trainingprof01"], "g");
    let mut proposed = prior.clone();
    set_attr(
        &mut proposed,
        "project_profile_ids",
        changed.get_attr("project_profile_ids").cloned().unwrap(),
    );
    let change = plan_with_schema(&schema.block, changed, Some(prior), proposed);
    assert_eq!(
        change.requires_replace,
        vec![crate::protocol::diagnostics::AttributePath::attr("project_profile_ids")]
    );
}
