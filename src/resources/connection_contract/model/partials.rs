//! Arguments that may be unknown at plan without deferring the whole contract: a reference to an object created in
//! the same run (a role, a project, an address range). Each names the rules that read it; those rules, and the
//! computed values derived from the argument, are planned unknown and judged at apply (`plan/deferral.rs`). Every
//! other rule is judged at plan as usual. Anything else unknown defers the whole contract (`ContractConfig`).

use super::super::schema::{ContractModel, UnifiedStudioBlock};
use crate::governance::{RuleId, paths};
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::Field;
use crate::resources::governance_objects::ContractGovernance;

/// A list argument of the contract, to read or replace.
pub type ListArgument = fn(&mut ContractModel) -> &mut Field<Vec<String>>;

/// One argument that may be unknown at plan.
#[derive(Debug)]
pub struct Partial {
    /// Its path in the contract, as the deferral diagnostic points at it.
    pub path: fn() -> AttributePath,
    /// Whether it is unknown (a list with one unknown item counts) in the arguments.
    pub unknown: fn(&ContractModel) -> bool,
    /// A list: the prior state's value stands in for it while it is unknown (ARNs and IDs need no stand-in, the
    /// contract holds them as `Option`, `None` while unknown).
    pub list: Option<ListArgument>,
    /// Makes the `governance` fact it decides unknown, as it is (the domain unit is not among the facts handed on).
    pub unknown_fact: Option<fn(&mut ContractGovernance)>,
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
    paths::contract::unified_studio(UnifiedStudioBlock::DOMAIN_ID.name())
}
fn domain_unit() -> AttributePath {
    paths::contract::unified_studio(UnifiedStudioBlock::DOMAIN_UNIT_ID.name())
}
fn project() -> AttributePath {
    paths::contract::unified_studio(UnifiedStudioBlock::PROJECT_ID.name())
}

/// Whether a field of the `unified_studio` block is unknown (an unknown block is the whole contract's wait).
fn in_studio(contract: &ContractModel, field: fn(&UnifiedStudioBlock) -> &Field<String>) -> bool {
    contract
        .unified_studio
        .as_known()
        .is_some_and(|studio| field(studio).is_unknown())
}

/// The arguments a plan can leave unknown, and what reads each (CON-1 checks every list's items and the ARNs' form).
pub const PARTIALS: [Partial; 8] = [
    Partial {
        path: cidrs,
        unknown: |c| c.approved_public_cidrs.is_unknown(),
        list: Some(|c| &mut c.approved_public_cidrs),
        unknown_fact: Some(|g| g.approved_public_cidrs = Field::Unknown),
        rules: &[RuleId::Con1, RuleId::Clu5],
        material: false,
    },
    Partial {
        path: accounts,
        unknown: |c| c.approved_account_ids.is_unknown(),
        list: Some(|c| &mut c.approved_account_ids),
        unknown_fact: Some(|g| g.approved_account_ids = Field::Unknown),
        rules: &[RuleId::Con1],
        material: true,
    },
    Partial {
        path: namespaces,
        unknown: |c| c.eks_namespaces.is_unknown(),
        list: Some(|c| &mut c.eks_namespaces),
        unknown_fact: Some(|g| g.eks_namespaces = Field::Unknown),
        rules: &[RuleId::Con1, RuleId::Con2],
        material: true,
    },
    Partial {
        path: project_role,
        unknown: |c| c.project_role_arn.is_unknown(),
        list: None,
        unknown_fact: Some(|g| g.project_role_arn = Field::Unknown),
        rules: &[RuleId::Con1, RuleId::Prj2, RuleId::Prj4],
        material: true,
    },
    Partial {
        path: access_role,
        unknown: |c| c.access_role_arn.is_unknown(),
        list: None,
        unknown_fact: Some(|g| g.access_role_arn = Field::Unknown),
        rules: &[RuleId::Con1, RuleId::Prj2],
        material: true,
    },
    Partial {
        path: domain,
        unknown: |c| in_studio(c, |s| &s.domain_id),
        list: None,
        unknown_fact: Some(|g| g.domain_id = Field::Unknown),
        rules: &[RuleId::Org1, RuleId::Prj4],
        material: false,
    },
    Partial {
        path: domain_unit,
        unknown: |c| in_studio(c, |s| &s.domain_unit_id),
        list: None,
        unknown_fact: None,
        rules: &[RuleId::Org1],
        material: false,
    },
    Partial {
        path: project,
        unknown: |c| in_studio(c, |s| &s.project_id),
        list: None,
        unknown_fact: Some(|g| g.project_id = Field::Unknown),
        rules: &[RuleId::Org1, RuleId::Prj4],
        material: true,
    },
];

/// The partial arguments of `contract` that are not wholly known (a list with one unknown item counts).
pub fn unknown_in(contract: &ContractModel) -> Vec<&'static Partial> {
    PARTIALS.iter().filter(|partial| (partial.unknown)(contract)).collect()
}

/// `contract` with the unknown list arguments replaced by the prior state's (empty on create), so the contract
/// decodes and comparisons with the prior (LIF-2) see no change there; the rules reading them are deferred at plan
/// (`plan/deferral.rs`).
pub fn with_stand_ins(
    mut contract: ContractModel,
    unknown: &[&Partial],
    prior: Option<&ContractModel>,
) -> ContractModel {
    let mut prior = prior.cloned();
    for list in unknown.iter().filter_map(|partial| partial.list) {
        let prior_list = (prior.as_mut())
            .and_then(|prior| list(prior).as_known().cloned())
            .unwrap_or_default();
        *list(&mut contract) = Field::Known(prior_list);
    }
    contract
}
