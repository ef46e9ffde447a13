//! Arguments that may be unknown at plan without deferring the whole contract: a reference to an object created in
//! the same run (a role, a project, an address range). Each names the rules that read it; those rules, and the
//! computed values derived from the argument, are planned unknown and judged at apply (`plan/deferral.rs`). Every
//! other rule is judged at plan as usual. Anything else unknown defers the whole contract (`ContractConfig`).

use crate::governance::{RuleId, paths};
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::value::Value;

/// One argument that may be unknown at plan.
#[derive(Debug)]
pub struct Partial {
    /// Its path in the contract, as the deferral diagnostic points at it.
    pub path: fn() -> AttributePath,
    /// How to find it in the resource's value.
    pub block: Option<&'static str>,
    pub name: &'static str,
    /// The rules that read it, in catalog terms.
    pub rules: &'static [RuleId],
    /// A material field (LIF-2): while it is unknown on an update, LIF-2 and the review status wait for apply.
    pub material: bool,
}

fn cidrs() -> AttributePath {
    paths::contract::attr(paths::contract::APPROVED_PUBLIC_CIDRS)
}
fn accounts() -> AttributePath {
    paths::contract::attr(paths::contract::APPROVED_ACCOUNT_IDS)
}
fn namespaces() -> AttributePath {
    paths::contract::attr(paths::contract::EKS_NAMESPACES)
}
fn project_role() -> AttributePath {
    paths::contract::attr(paths::contract::PROJECT_ROLE_ARN)
}
fn access_role() -> AttributePath {
    paths::contract::attr(paths::contract::ACCESS_ROLE_ARN)
}
fn domain() -> AttributePath {
    paths::contract::unified_studio("domain_id")
}
fn domain_unit() -> AttributePath {
    paths::contract::unified_studio("domain_unit_id")
}
fn project() -> AttributePath {
    paths::contract::unified_studio("project_id")
}

/// The arguments a plan can leave unknown, and what reads each (CON-1 checks every list's items and the ARNs' form).
pub const PARTIALS: [Partial; 8] = [
    Partial {
        path: cidrs,
        block: None,
        name: "approved_public_cidrs",
        rules: &[RuleId::Con1, RuleId::Clu5],
        material: false,
    },
    Partial {
        path: accounts,
        block: None,
        name: "approved_account_ids",
        rules: &[RuleId::Con1],
        material: true,
    },
    Partial {
        path: namespaces,
        block: None,
        name: "eks_namespaces",
        rules: &[RuleId::Con1, RuleId::Con2],
        material: true,
    },
    Partial {
        path: project_role,
        block: None,
        name: "project_role_arn",
        rules: &[RuleId::Con1, RuleId::Prj2, RuleId::Prj4],
        material: true,
    },
    Partial {
        path: access_role,
        block: None,
        name: "access_role_arn",
        rules: &[RuleId::Con1, RuleId::Prj2],
        material: true,
    },
    Partial {
        path: domain,
        block: Some("unified_studio"),
        name: "domain_id",
        rules: &[RuleId::Org1, RuleId::Prj4],
        material: false,
    },
    Partial {
        path: domain_unit,
        block: Some("unified_studio"),
        name: "domain_unit_id",
        rules: &[RuleId::Org1],
        material: false,
    },
    Partial {
        path: project,
        block: Some("unified_studio"),
        name: "project_id",
        rules: &[RuleId::Org1, RuleId::Prj4],
        material: true,
    },
];

fn field<'a>(value: &'a Value, partial: &Partial) -> Option<&'a Value> {
    match partial.block {
        None => value.get_attr(partial.name),
        Some(block) => match value.get_attr(block)? {
            Value::List(items) => items.first()?.get_attr(partial.name),
            object => object.get_attr(partial.name),
        },
    }
}

/// The partial arguments of `value` that are not wholly known (a list with one unknown item counts).
pub fn unknown_in(value: &Value) -> Vec<&'static Partial> {
    PARTIALS
        .iter()
        .filter(|partial| field(value, partial).is_some_and(|v| !v.is_null() && !v.is_wholly_known()))
        .collect()
}

/// `value` with the unknown list arguments replaced by the prior state's (empty on create), so the contract decodes
/// and comparisons with the prior (LIF-2) see no change there; the rules reading them are deferred at plan (`plan/deferral.rs`).
/// ARNs and IDs need no stand-in: the contract holds them as `Option`, `None` while unknown.
pub fn with_stand_ins(value: &Value, unknown: &[&Partial], prior: Option<&Value>) -> Value {
    let mut stand_in = value.clone();
    for partial in unknown {
        if partial.block.is_some() || partial.name.ends_with("_arn") {
            continue;
        }
        let prior_list = prior
            .and_then(|p| p.get_attr(partial.name))
            .filter(|v| v.is_wholly_known() && !v.is_null())
            .cloned()
            .unwrap_or(Value::List(Vec::new()));
        crate::protocol::plan::set_attr(&mut stand_in, partial.name, prior_list);
    }
    stand_in
}
