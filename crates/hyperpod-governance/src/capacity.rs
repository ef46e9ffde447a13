//! WKL-3: the guaranteed quotas on a cluster fit its instance groups, in every unit SageMaker allocates in (whole
//! instances, accelerators, vCPU, memory; MIG partitions are not counted yet and are never taken as zero).
//!
//! The teams counted, in the order they are admitted: the live compute quotas of teams this plan does not plan
//! (they exist), then the planned ones. With the cluster's allocation referenced those are its teams by name (the
//! tenant's own entry in place of its row); without it, the tenants this one references, then itself. A planned team
//! whose share does not fit beside those admitted before it is the non-compliant one, so a violation is reported
//! once, on that tenant, at the quota entry and unit that overflow.

use std::fmt::Write as _;

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Fact, Setting};
use super::paths::tenant as path;
use super::shapes::{self, InstanceShape};
use super::tenancy::{Allocation, ClusterView, Phase, QuotaShare, Referenced, TenantCapacity};
use crate::path::AttributePath;

/// One share in every unit the check compares.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Units {
    instances: f64,
    accelerators: f64,
    vcpu: f64,
    memory_gib: f64,
}

const UNITS: [(&str, &str); 4] = [
    ("count", "instances"),
    ("accelerators", "accelerators"),
    ("vcpu", "vCPU"),
    ("memory_gib", "GiB of memory"),
];

impl Units {
    fn get(&self, unit: &str) -> f64 {
        match unit {
            "count" => self.instances,
            "accelerators" => self.accelerators,
            "vcpu" => self.vcpu,
            _ => self.memory_gib,
        }
    }
    fn add(&self, other: &Units) -> Units {
        Units {
            instances: self.instances + other.instances,
            accelerators: self.accelerators + other.accelerators,
            vcpu: self.vcpu + other.vcpu,
            memory_gib: self.memory_gib + other.memory_gib,
        }
    }
    /// The first unit in which `self` exceeds `capacity` (amounts only where the shape is known).
    fn overflow(&self, capacity: &Units, shape_known: bool) -> Option<&'static str> {
        UNITS
            .iter()
            .map(|(unit, _)| *unit)
            .filter(|unit| shape_known || *unit == "count")
            .find(|unit| self.get(unit) > capacity.get(unit) + 1e-9)
    }
}

/// Why a share cannot be converted into the units it is compared in.
fn unresolved(share: &QuotaShare, shape: Option<InstanceShape>) -> Option<String> {
    if !share.accelerator_partitions.is_empty() {
        return Some(format!(
            "{} is guaranteed in MIG partitions, and the provider does not read the instance groups' partition \
             configuration yet",
            share.instance_type
        ));
    }
    let amounts = share.accelerators.is_some() || share.vcpu.is_some() || share.memory_gib.is_some();
    if !amounts && share.count.is_none() {
        // A live entry in a unit the clients do not read (AcceleratorPartition alone): never counted as zero.
        return Some(format!(
            "the share of {} is in a unit the provider does not read (no count, accelerators, vCPU or memory)",
            share.instance_type
        ));
    }
    (amounts && shape.is_none()).then(|| {
        format!(
            "the provider does not know the shape (accelerators, vCPU, memory per instance) of {}",
            share.instance_type
        )
    })
}

/// A share in every unit, SageMaker's way: `count` instances hold `count` times the shape; one amount alone is
/// filled by the shape's ratios; of several amounts, those not given are zero.
fn units(share: &QuotaShare, shape: Option<InstanceShape>) -> Units {
    if let Some(count) = share.count {
        let n = count as f64;
        let shape = shape.unwrap_or(InstanceShape {
            accelerators: 0,
            vcpu: 0.0,
            memory_gib: 0.0,
        });
        return Units {
            instances: n,
            accelerators: n * shape.accelerators as f64,
            vcpu: n * shape.vcpu,
            memory_gib: n * shape.memory_gib,
        };
    }
    let given = (share.accelerators.map(|a| a as f64), share.vcpu, share.memory_gib);
    let Some(shape) = shape else {
        return Units::default();
    };
    let accelerators_per_instance = shape.accelerators as f64;
    match given {
        (Some(accelerators), None, None) if accelerators_per_instance > 0.0 => {
            let ratio = accelerators / accelerators_per_instance;
            Units {
                instances: 0.0,
                accelerators,
                vcpu: ratio * shape.vcpu,
                memory_gib: ratio * shape.memory_gib,
            }
        }
        (None, Some(vcpu), None) => Units {
            vcpu,
            memory_gib: vcpu / shape.vcpu * shape.memory_gib,
            ..Units::default()
        },
        (None, None, Some(memory_gib)) => Units {
            vcpu: memory_gib / shape.memory_gib * shape.vcpu,
            memory_gib,
            ..Units::default()
        },
        (accelerators, vcpu, memory_gib) => Units {
            instances: 0.0,
            accelerators: accelerators.unwrap_or(0.0),
            vcpu: vcpu.unwrap_or(0.0),
            memory_gib: memory_gib.unwrap_or(0.0),
        },
    }
}

/// The attribute a share was given in: `count`, else the first amount set.
fn unit_given(share: &QuotaShare) -> &'static str {
    if share.count.is_some() {
        "count"
    } else if share.accelerators.is_some() {
        "accelerators"
    } else if share.vcpu.is_some() {
        "vcpu"
    } else if share.memory_gib.is_some() {
        "memory_gib"
    } else {
        "count"
    }
}

fn number(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.2}")
    }
}

fn label(unit: &str) -> &'static str {
    UNITS.iter().find(|(u, _)| *u == unit).map_or("", |(_, l)| l)
}

/// `research 40 accelerators`, `production 2 instances (16 accelerators)`: the share in the unit it was given,
/// and in the unit compared when that differs.
fn describe_share(team: &str, share: &QuotaShare, units: &Units, compared: &str) -> String {
    let mut text = as_given(team, share);
    if unit_given(share) != compared {
        let _ = write!(text, " ({} {})", number(units.get(compared)), label(compared));
    }
    text
}

/// `research 8 accelerators`: the team and its share exactly as configured.
fn as_given(team: &str, share: &QuotaShare) -> String {
    format!("{team} {}", amount_as_given(share))
}

/// `6 instances`, `40 accelerators`, `12 vCPU`, `64 GiB of memory`, `4 x mig-1g.10gb`: a share in the unit it was
/// given (its first, where it sets several), as findings and the allocation's `capacity` name it.
pub fn amount_as_given(share: &QuotaShare) -> String {
    let unit = unit_given(share);
    let amount = match unit {
        "count" => share.count.map(|c| c as f64),
        "accelerators" => share.accelerators.map(|a| a as f64),
        "vcpu" => share.vcpu,
        _ => share.memory_gib,
    };
    match amount {
        Some(amount) => format!("{} {}", number(amount), label(unit)),
        None => share
            .accelerator_partitions
            .iter()
            .map(|(profile, count)| format!("{count} x {profile}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Which planned team an entry stands for, and whether it is the tenant being judged.
struct Team<'a> {
    name: &'a str,
    shares: &'a [QuotaShare],
    own: bool,
    live: bool,
}

/// The teams in admission order (see the module docs).
fn admission_order<'a>(
    view: &'a ClusterView,
    own: &'a TenantCapacity,
    allocation: Option<&'a Allocation>,
) -> Vec<Team<'a>> {
    let mut planned: Vec<Team<'a>> = Vec::new();
    let others = view
        .tenants
        .referenced
        .iter()
        .filter(|r| r.cluster_name == view.cluster_name && r.item.team != own.team)
        .map(|r| &r.item);
    match allocation {
        Some(allocation) => {
            for (team, row) in &allocation.teams {
                let own_row = *team == own.team;
                planned.push(Team {
                    name: team,
                    shares: if own_row { &own.quota } else { row },
                    own: own_row,
                    live: false,
                });
            }
            for other in others.filter(|t| !allocation.teams.contains_key(&t.team)) {
                planned.insert(
                    0,
                    Team {
                        name: &other.team,
                        shares: &other.quota,
                        own: false,
                        live: false,
                    },
                );
            }
            if !allocation.teams.contains_key(&own.team) {
                planned.push(Team {
                    name: &own.team,
                    shares: &own.quota,
                    own: true,
                    live: false,
                });
            }
        }
        None => {
            planned.extend(others.map(|t| Team {
                name: &t.team,
                shares: &t.quota,
                own: false,
                live: false,
            }));
            planned.push(Team {
                name: &own.team,
                shares: &own.quota,
                own: true,
                live: false,
            });
        }
    }
    let mut order: Vec<Team<'a>> = match &view.tenants.live {
        Fact::Known(live) => {
            let mut existing: Vec<&TenantCapacity> = live
                .iter()
                .filter(|t| !planned.iter().any(|p| p.name == t.team))
                .collect();
            existing.sort_by(|a, b| a.team.cmp(&b.team));
            existing
                .into_iter()
                .map(|t| Team {
                    name: &t.team,
                    shares: &t.quota,
                    own: false,
                    live: true,
                })
                .collect()
        }
        Fact::Unavailable(_) => Vec::new(),
    };
    order.extend(planned);
    order
}

/// The allocation checks of the tenant itself: the allocation is of this cluster, lists the team, and gives it the
/// quota the tenant asks for.
fn allocation_findings(view: &ClusterView, own: &TenantCapacity, at: &AttributePath) -> Vec<Finding> {
    let rule = RuleId::Wkl3;
    let Setting::Set(Referenced { cluster_name, item, .. }) = &view.allocation else {
        return Vec::new();
    };
    if *cluster_name != view.cluster_name {
        return vec![Finding::new(
            rule,
            path::allocation(),
            format!("the allocation of cluster {cluster_name:?}"),
            format!("this tenant is on cluster {:?}", view.cluster_name),
            format!(
                "reference the hyperpod_cluster_allocation of cluster {:?}",
                view.cluster_name
            ),
        )];
    }
    match item.teams.get(&own.team) {
        None => vec![Finding::new(
            rule,
            path::allocation(),
            format!(
                "cluster {:?}'s allocation lists {:?}, not {:?}",
                view.cluster_name,
                item.teams.keys().collect::<Vec<_>>(),
                own.team
            ),
            "the tenant's guaranteed capacity is not in the cluster's documented allocation",
            format!(
                "add teams[{:?}] with this tenant's quota to the hyperpod_cluster_allocation",
                own.team
            ),
        )],
        Some(row) if !same_shares(row, &own.quota) => vec![Finding::new(
            rule,
            at.clone(),
            format!(
                "quota {}; the allocation gives {:?} {}",
                shares_text(&own.quota),
                own.team,
                shares_text(row)
            ),
            "the tenant's quota differs from its share in the cluster's allocation",
            "make the tenant's quota and its teams entry in the hyperpod_cluster_allocation the same (one local \
             value for both keeps them so)",
        )],
        Some(_) => Vec::new(),
    }
}

fn same_shares(a: &[QuotaShare], b: &[QuotaShare]) -> bool {
    let sorted = |shares: &[QuotaShare]| {
        let mut out = shares.to_vec();
        out.sort_by(|x, y| x.instance_type.cmp(&y.instance_type));
        out
    };
    sorted(a) == sorted(b)
}

fn shares_text(shares: &[QuotaShare]) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|share| as_given(&share.instance_type, share))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// What the instance groups hold of one instance type.
fn capacity_of(view_groups: &[super::model::Capacity], instance_type: &str, shape: Option<InstanceShape>) -> Units {
    let instances: i64 = view_groups
        .iter()
        .filter(|g| g.instance_type == instance_type)
        .map(|g| g.count)
        .sum();
    units(&QuotaShare::instances(instance_type, instances), shape)
}

/// WKL-3 for the tenant whose own entry in `view.tenants.referenced` is at `at` (its quota attribute).
pub fn wkl_3(view: &ClusterView, at: AttributePath) -> Check {
    let rule = RuleId::Wkl3;
    let groups = match &view.instance_groups {
        Fact::Known(groups) => groups,
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
    };
    let Some(own) = view.tenants.referenced.iter().find(|r| r.at == at).map(|r| &r.item) else {
        return Check::passed(rule, "no quota of this resource to judge");
    };
    let mut findings = allocation_findings(view, own, &at);
    let allocation = match &view.allocation {
        Setting::Set(reference) if reference.cluster_name == view.cluster_name => Some(&reference.item),
        _ => None,
    };
    let order = admission_order(view, own, allocation);
    let mut skipped: Vec<String> = Vec::new();
    for (index, share) in own.quota.iter().enumerate() {
        let instance_type = share.instance_type.as_str();
        let shape = shapes::shape(instance_type);
        let capacity = capacity_of(groups, instance_type, shape);
        let entry_at = at.index(index).push_attr(unit_given(share));
        if capacity.instances == 0.0 {
            findings.push(Finding::new(
                rule,
                at.index(index).push_attr("instance_type"),
                format!(
                    "{instance_type}: no instance group of cluster {:?} has it",
                    view.cluster_name
                ),
                format!("the guaranteed quotas overcommit cluster {:?}", view.cluster_name),
                "guarantee an instance type of the cluster's instance groups, or add the instance group first",
            ));
            continue;
        }
        if let Some(reason) = unresolved(share, shape) {
            findings.push(Finding::new(
                rule,
                entry_at,
                format!("{instance_type}: {}", as_given(&own.team, share)),
                reason,
                "give the share in whole instances (count), which WKL-3 can always count",
            ));
            continue;
        }
        if let Some(finding) = admit(view, &order, instance_type, shape, &capacity, &entry_at, &mut skipped) {
            findings.push(finding);
        }
    }
    if !findings.is_empty() {
        return Check::from_findings(rule, findings, "");
    }
    if !view.tenants.unresolved.is_empty() || view.allocation == Setting::Unknown {
        let mut unknown = view.tenants.unresolved.clone();
        if view.allocation == Setting::Unknown {
            unknown.push(path::ALLOCATION.to_string());
        }
        return Check::unknowns(rule, &unknown);
    }
    if let Fact::Unavailable(reason) = &view.tenants.live {
        return Check::unavailable(
            rule,
            format!("{reason}; this tenant and the tenants it references fit on their own"),
        );
    }
    if !skipped.is_empty() {
        skipped.dedup();
        return Check::unavailable(rule, skipped.join("; "));
    }
    if allocation.is_none() && view.phase == Phase::Plan {
        return Check::not_at_plan(
            rule,
            format!(
                "not evaluated at plan: team {:?} references no allocation of cluster {:?}, so other tenants \
                 planned in this configuration are not counted (it fits beside the live quotas and the tenants it \
                 references). Fix: document the cluster's split in a hyperpod_cluster_allocation listing every \
                 team's guaranteed quota and set allocation = hyperpod_cluster_allocation.<name>.governance",
                own.team, view.cluster_name
            ),
        );
    }
    // No count in the wording: the plan and the re-plan at apply may see different numbers of live tenants.
    Check::passed(
        rule,
        format!(
            "the guaranteed quotas on cluster {:?} fit its instance groups",
            view.cluster_name
        ),
    )
}

/// Walks `order` for one instance type: live teams always count, planned ones only when they fit beside those
/// before them. Returns the finding when the tenant's own share does not fit; a team whose share cannot be
/// converted is noted in `skipped` (the check cannot pass, but is not failed for another team's unit).
fn admit(
    view: &ClusterView,
    order: &[Team<'_>],
    instance_type: &str,
    shape: Option<InstanceShape>,
    capacity: &Units,
    entry_at: &AttributePath,
    skipped: &mut Vec<String>,
) -> Option<Finding> {
    let mut admitted = Units::default();
    let mut counted: Vec<(&str, &QuotaShare, Units)> = Vec::new();
    for team in order {
        for share in team.shares.iter().filter(|s| s.instance_type == instance_type) {
            if let Some(reason) = unresolved(share, shape) {
                if !team.own {
                    skipped.push(format!("team {}'s share of {instance_type}: {reason}", team.name));
                }
                continue;
            }
            let demand = units(share, shape);
            let total = admitted.add(&demand);
            match total.overflow(capacity, shape.is_some()) {
                None => {
                    admitted = total;
                    counted.push((team.name, share, demand));
                }
                Some(unit) if team.own => {
                    let label = UNITS.iter().find(|(u, _)| *u == unit).map_or("", |(_, l)| l);
                    let mut shares: Vec<String> = counted
                        .iter()
                        .map(|(name, share, units)| describe_share(name, share, units, unit))
                        .collect();
                    shares.push(describe_share(team.name, share, &demand, unit));
                    let available = if unit == "count" {
                        format!("the instance groups have {} {label}", number(capacity.instances))
                    } else {
                        format!(
                            "its {} instances hold {} {label}",
                            number(capacity.instances),
                            number(capacity.get(unit))
                        )
                    };
                    return Some(Finding::new(
                        RuleId::Wkl3,
                        entry_at.clone(),
                        format!(
                            "{instance_type}: {} {label} guaranteed ({}) but {available}",
                            number(total.get(unit)),
                            shares.join(", "),
                        ),
                        format!("the guaranteed quotas overcommit cluster {:?}", view.cluster_name),
                        "lower the guaranteed share (borrowing covers bursts), or grow the instance groups first",
                    ));
                }
                // Live quotas exist whatever they overcommit; a planned sibling that does not fit fails on its own
                // tenant and takes nothing from those after it.
                Some(_) if team.live => {
                    admitted = total;
                    counted.push((team.name, share, demand));
                }
                Some(_) => {}
            }
        }
    }
    None
}
