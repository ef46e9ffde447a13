//! The `governance` values a tenant and a task view restriction expose, and how the resources that reference them
//! read them back. This is how one resource learns about another of the same configuration: by an explicit
//! reference in HCL (`borrows_from = [hyperpod_tenant.production.governance]`), never by what the provider process
//! happens to have planned already, so the verdict does not depend on planning order
//! (`docs/design/cross-resource-rules.md`). Each value is derived from the resource's own arguments and its
//! contract, so it is known at plan time.

use crate::governance::{
    Allocation, Referenced, SchedulingPolicy, Setting, Sharing, SharingStrategy, TaskViewRestriction, TenantCapacity,
};
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::value::Value;
use crate::resources::governance_objects::{AllocationGovernance, PolicyGovernance, SharingRecord};
pub use crate::resources::governance_objects::{
    RestrictionGovernance, TenantGovernance, restriction_type, tenant_type,
};
use crate::resources::quota_entry::QuotaEntry;

/// A contract fact from a resource's `contract` argument (the value the resource holds): the value, or unknown
/// while the contract is. `contract` is write-only, so a stored value (Read, import) has it null: the fact is then
/// the one the resource recorded, `stored`.
pub fn contract_fact<T: Known>(contract: &Value, fact: &str, stored: impl FnOnce() -> Field<T>) -> Field<T> {
    match contract {
        Value::Object(_) => Field::of_value(contract.get_attr(fact).unwrap_or(&Value::Null)),
        Value::Null => stored(),
        _ => Field::Unknown,
    }
}

/// What a resource recorded of a fact: its own `governance`'s when known, else `attribute` (its own copy).
pub fn recorded<T: Clone>(in_governance: Option<&Field<T>>, attribute: &Field<T>) -> Field<T> {
    match in_governance {
        Some(Field::Known(fact)) => Field::Known(fact.clone()),
        _ => attribute.clone(),
    }
}

/// What a resource references, decoded: the entries whose values are known, and the attributes that are not known
/// until apply (the rules that read them are judged at apply).
#[derive(Clone, Debug, PartialEq)]
pub struct References<T> {
    pub known: Vec<Referenced<T>>,
    pub unknown: Vec<String>,
}

impl<T> Default for References<T> {
    fn default() -> Self {
        Self {
            known: Vec::new(),
            unknown: Vec::new(),
        }
    }
}

/// The tenants listed in `attribute` (`borrows_from`, a binding's `tenants`).
pub fn tenants(value: &Value, attribute: &str) -> References<TenantCapacity> {
    tenants_in(value.get_attr(attribute).unwrap_or(&Value::Null), attribute)
}

/// The tenants of `list`, the value of the resource's `attribute`.
pub fn tenants_in(list: &Value, attribute: &str) -> References<TenantCapacity> {
    let mut out = References::default();
    match list {
        Value::Unknown => out.unknown.push(attribute.to_string()),
        Value::List(entries) => {
            for (index, entry) in entries.iter().enumerate() {
                let at = AttributePath::attr(attribute).index(index);
                match tenant_capacity(entry) {
                    Some((cluster_name, capacity)) => out.known.push(Referenced {
                        at,
                        cluster_name,
                        item: capacity,
                    }),
                    None => out.unknown.push(at.to_string()),
                }
            }
        }
        _ => {}
    }
    out
}

/// One tenant's `governance`, when it is wholly known.
fn tenant_capacity(facts: &Value) -> Option<(String, TenantCapacity)> {
    if !facts.is_wholly_known() {
        return None;
    }
    let facts = TenantGovernance::decode(facts).ok()?;
    let quota = (facts.quota.known()?.iter())
        .map(QuotaEntry::share)
        .collect::<Option<Vec<_>>>()?;
    let sharing = facts.sharing_strategy.known().map(|strategy| Sharing {
        strategy: SharingStrategy::from_name(&strategy),
        borrow_limit: None,
        absolute_borrow_limits: Vec::new(),
    });
    Some((
        facts.cluster_name.known()?,
        TenantCapacity {
            team: facts.team.known()?,
            quota,
            sharing,
        },
    ))
}

/// The cluster allocation a tenant or binding references in `attribute` (`allocation`): unset when null, unknown
/// while any part of it is.
pub fn allocation(value: &Value, attribute: &str) -> Setting<Referenced<Allocation>> {
    match value.get_attr(attribute) {
        Some(Value::Null) | None => Setting::Unset,
        Some(facts) => match allocation_from_governance(facts) {
            Some(item) if facts.is_wholly_known() => Setting::Set(Referenced {
                at: AttributePath::attr(attribute),
                cluster_name: item.cluster_name.clone(),
                item,
            }),
            _ => Setting::Unknown,
        },
    }
}

/// The restriction a binding references in `attribute`.
pub fn restriction(value: &Value, attribute: &str) -> References<TaskViewRestriction> {
    let mut out = References::default();
    match value.get_attr(attribute) {
        Some(Value::Null) | None => {}
        Some(facts) if !facts.is_wholly_known() => out.unknown.push(attribute.to_string()),
        Some(facts) => {
            let Ok(facts) = RestrictionGovernance::decode(facts) else {
                return out;
            };
            if let Some(cluster_name) = facts.cluster_name.known() {
                out.known.push(Referenced {
                    at: AttributePath::attr(attribute),
                    cluster_name,
                    item: TaskViewRestriction {
                        project_role_arn: facts.project_role_arn.known(),
                        namespaces: (facts.namespaces.known().into_iter().flatten())
                            .filter_map(Field::known)
                            .collect(),
                    },
                });
            }
        }
    }
    out
}

/// The cluster policy a resource references in `attribute` (`scheduling_policy`).
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyReference {
    /// Not given: the rules read the cluster's live policy.
    NotGiven,
    /// Known only at apply: the rules that read it wait.
    Unknown,
    Known(SchedulingPolicy),
}

impl PolicyReference {
    /// As `cluster_view::view` takes it: `None` to read the live policy, `Some(None)` while unknown.
    #[allow(clippy::option_option)]
    pub fn for_view(&self) -> Option<Option<SchedulingPolicy>> {
        match self {
            Self::NotGiven => None,
            Self::Unknown => Some(None),
            Self::Known(policy) => Some(Some(policy.clone())),
        }
    }
}

/// The cluster policy in `attribute`: its priority classes (unknown until they are wholly known) and whether fair
/// share is on (an unset `fair_share` is SageMaker's default, enabled).
pub fn scheduling_policy(value: &Value, attribute: &str) -> PolicyReference {
    let Some(facts) = value.get_attr(attribute).filter(|facts| !facts.is_null()) else {
        return PolicyReference::NotGiven;
    };
    let Ok(facts) = PolicyGovernance::decode(facts) else {
        return PolicyReference::Unknown;
    };
    // Null is a policy without classes; unknown waits for apply.
    let Some(classes) = facts.priority_classes.or_empty() else {
        return PolicyReference::Unknown;
    };
    let fair_share = facts.fair_share.known().unwrap_or(true);
    PolicyReference::Known(SchedulingPolicy {
        priority_classes: classes,
        fair_share,
    })
}

/// The tenant being planned, among the tenants its rules count (at its own `quota`).
pub fn own_entry(cluster_name: &str, capacity: TenantCapacity) -> Referenced<TenantCapacity> {
    Referenced {
        at: crate::governance::paths::tenant::quota(),
        cluster_name: cluster_name.to_string(),
        item: capacity,
    }
}

/// An allocation's `governance` (team -> its entries), as a tenant or binding receives it; `None` while unknown.
pub fn allocation_from_governance(facts: &Value) -> Option<Allocation> {
    let facts = AllocationGovernance::decode(facts).ok()?;
    let teams = (facts.teams.known()?.into_iter())
        .map(|(team, entries)| Some((team, QuotaEntry::shares(&entries.known()?)?)))
        .collect::<Option<std::collections::BTreeMap<_, _>>>()?;
    // Null in a value written before teams recorded their sharing: nothing recorded.
    let sharing = (facts.sharing.or_empty()?.into_iter())
        .map(|(team, row)| Some((team, sharing_of(&row)?)))
        .collect::<Option<std::collections::BTreeMap<_, _>>>()?;
    Some(Allocation {
        cluster_name: facts.cluster_name.known()?,
        teams,
        sharing,
    })
}

/// A recorded sharing (`teams[<team>].sharing`, or a row of `governance.sharing`), or `None` while unknown.
pub fn recorded_sharing(value: &Value) -> Option<Sharing> {
    sharing_of(&SharingRecord::decode(value).ok()?)
}

pub fn sharing_of(row: &SharingRecord) -> Option<Sharing> {
    Some(Sharing {
        strategy: SharingStrategy::from_name(row.strategy.as_known()?),
        borrow_limit: row.borrow_limit.clone().optional()?,
        absolute_borrow_limits: Vec::new(),
    })
}
