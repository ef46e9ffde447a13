//! WKL-3: the guaranteed quotas on a cluster fit its instance groups, in every unit SageMaker allocates in: whole
//! instances, accelerators, vCPU, memory and MIG partitions. A partition share needs an instance group of its type
//! whose GPUs are partitioned (`nvidia.com/mig.config`); it counts as its fraction of a GPU in accelerators (and
//! vCPU and memory by ratio, as SageMaker fills them), and in slices of its profile against the groups split
//! uniformly into that profile (`all-<profile>`). A custom layout's slices cannot be counted: never as zero.
//!
//! The teams counted, in the order they are admitted: the live compute quotas of teams this plan does not plan
//! (they exist; not counted in the checklist a plan records, `Neighbours::ReferencedOnly`), then the planned ones. With the cluster's allocation referenced those are its teams by name (the
//! tenant's own entry in place of its row); without it, the tenants this one references, then itself. A planned team
//! whose share does not fit beside those admitted before it is the non-compliant one, so a violation is reported
//! once, on that tenant, at the quota entry and unit that overflow.

use std::fmt::Write as _;

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Capacity, Fact, Setting};
use super::paths::tenant as path;
use super::shapes::{self, InstanceShape};
use super::tenancy::{Allocation, ClusterView, Partition, Phase, QuotaShare, Referenced, TenantCapacity, Unit};
use crate::path::AttributePath;

/// One share in every unit the check compares.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Units {
    instances: f64,
    accelerators: f64,
    vcpu: f64,
    memory_gib: f64,
    /// Slices of the one MIG profile being checked (zero for a share in another unit or profile).
    partitions: f64,
}

impl Units {
    fn get(&self, unit: Unit) -> f64 {
        match unit {
            Unit::Count => self.instances,
            Unit::AcceleratorPartition => self.partitions,
            Unit::Accelerators => self.accelerators,
            Unit::Vcpu => self.vcpu,
            Unit::MemoryGib => self.memory_gib,
        }
    }
    fn add(&self, other: &Units) -> Units {
        Units {
            instances: self.instances + other.instances,
            accelerators: self.accelerators + other.accelerators,
            vcpu: self.vcpu + other.vcpu,
            memory_gib: self.memory_gib + other.memory_gib,
            partitions: self.partitions + other.partitions,
        }
    }
    /// The first unit in which `self` exceeds `capacity` (amounts only where the shape is known).
    fn overflow(&self, capacity: &Units, shape_known: bool) -> Option<Unit> {
        Unit::ALL
            .into_iter()
            .filter(|unit| shape_known || matches!(unit, Unit::Count | Unit::AcceleratorPartition))
            .find(|unit| self.get(*unit) > capacity.get(*unit) + 1e-9)
    }
}

/// Why a share cannot be converted into the units it is compared in.
fn unresolved(share: &QuotaShare, shape: Option<InstanceShape>) -> Option<String> {
    if let Some(Partition { profile, .. }) = &share.accelerator_partition {
        if shape.is_none() {
            return Some(format!(
                "the provider does not know the shape (accelerators, vCPU, memory per instance) of {}",
                share.instance_type
            ));
        }
        return match shapes::mig_profiles(&share.instance_type) {
            None => Some(format!(
                "the accelerators of {} cannot be partitioned (no MIG profiles)",
                share.instance_type
            )),
            Some((gpu, profiles)) if !profiles.iter().any(|(name, _)| name == profile) => Some(format!(
                "{profile} is not a MIG profile of the {gpu} GPUs of {} ({})",
                share.instance_type,
                profiles.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
            )),
            Some(_) => None,
        };
    }
    let amounts = share.units().any(Unit::filled_in);
    if !amounts && share.count.is_none() {
        // A live entry in a unit this provider does not know: never counted as zero.
        return Some(format!(
            "the share of {} is in a unit the provider does not read (no count, partitions, accelerators, vCPU or \
             memory)",
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
/// filled by the shape's ratios; of several amounts, those not given are zero; partitions are their fraction of a
/// GPU, with vCPU and memory by that ratio unless given, and count as slices when of `profile` (the one checked).
fn units(share: &QuotaShare, shape: Option<InstanceShape>, profile: Option<&str>) -> Units {
    if let Some(units) = partition_units(share, shape, profile) {
        return units;
    }
    if let Some(count) = share.count {
        return instance_units(count, shape);
    }
    amount_units(share, shape)
}

/// A MIG partition share (with a known shape) in every unit: its fraction of a GPU, vCPU and memory by that ratio
/// unless given, and slices when of `profile`. `None` for any other share.
fn partition_units(share: &QuotaShare, shape: Option<InstanceShape>, profile: Option<&str>) -> Option<Units> {
    let (
        Some(Partition {
            profile: given_profile,
            count: slices,
        }),
        Some(shape),
    ) = (&share.accelerator_partition, shape)
    else {
        return None;
    };
    let per_accelerator = shapes::slices_per_accelerator(&share.instance_type, given_profile).unwrap_or(1);
    let accelerators = *slices as f64 / per_accelerator as f64;
    let ratio = if shape.accelerators > 0 {
        accelerators / shape.accelerators as f64
    } else {
        0.0
    };
    Some(Units {
        instances: 0.0,
        accelerators,
        vcpu: share.vcpu.unwrap_or(ratio * shape.vcpu),
        memory_gib: share.memory_gib.unwrap_or(ratio * shape.memory_gib),
        partitions: if profile == Some(given_profile.as_str()) {
            *slices as f64
        } else {
            0.0
        },
    })
}

/// `count` whole instances: `count` times the shape (instances alone when the shape is unknown).
fn instance_units(count: i64, shape: Option<InstanceShape>) -> Units {
    let n = count as f64;
    let shape = shape.unwrap_or(InstanceShape {
        accelerators: 0,
        vcpu: 0.0,
        memory_gib: 0.0,
    });
    Units {
        instances: n,
        accelerators: n * shape.accelerators as f64,
        vcpu: n * shape.vcpu,
        memory_gib: n * shape.memory_gib,
        partitions: 0.0,
    }
}

/// A share in amounts: one amount alone is filled by the shape's ratios; of several, those not given are zero.
/// Nothing when the shape is unknown.
fn amount_units(share: &QuotaShare, shape: Option<InstanceShape>) -> Units {
    let given = (share.accelerators.map(|a| a as f64), share.vcpu, share.memory_gib);
    let Some(shape) = shape else {
        return Units::default();
    };
    let accelerators_per_instance = shape.accelerators as f64;
    match given {
        (Some(accelerators), None, None) if accelerators_per_instance > 0.0 => {
            let ratio = accelerators / accelerators_per_instance;
            Units {
                accelerators,
                vcpu: ratio * shape.vcpu,
                memory_gib: ratio * shape.memory_gib,
                ..Units::default()
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
            accelerators: accelerators.unwrap_or(0.0),
            vcpu: vcpu.unwrap_or(0.0),
            memory_gib: memory_gib.unwrap_or(0.0),
            ..Units::default()
        },
    }
}

/// The unit a share was given in: `count`, its partitions, else the first amount set.
fn unit_given(share: &QuotaShare) -> Unit {
    share.units().next().unwrap_or(Unit::Count)
}

fn number(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.2}")
    }
}

/// `research 40 accelerators`, `production 2 instances (16 accelerators)`: the share in the unit it was given,
/// and in the unit compared when that differs.
fn describe_share(team: &str, share: &QuotaShare, units: &Units, compared: Unit, profile: Option<&str>) -> String {
    let mut text = as_given(team, share);
    if unit_given(share) != compared {
        let _ = write!(text, " ({})", amount_in(units.get(compared), compared, profile));
    }
    text
}

/// `16 accelerators`, `112 x mig-1g.5gb`: an amount in a compared unit.
fn amount_in(value: f64, unit: Unit, profile: Option<&str>) -> String {
    match (unit, profile) {
        (Unit::AcceleratorPartition, Some(profile)) => format!("{} x {profile}", number(value)),
        _ => format!("{} {}", number(value), unit.label()),
    }
}

/// `research 8 accelerators`: the team and its share exactly as configured.
fn as_given(team: &str, share: &QuotaShare) -> String {
    format!("{team} {}", amount_as_given(share))
}

/// `6 instances`, `40 accelerators`, `12 vCPU`, `64 GiB of memory`, `4 x mig-1g.10gb`: a share in the unit it was
/// given (its first, where it sets several), as findings and the allocation's `capacity` name it.
pub fn amount_as_given(share: &QuotaShare) -> String {
    let unit = unit_given(share);
    if let (Unit::AcceleratorPartition, Some(Partition { profile, count })) = (unit, &share.accelerator_partition) {
        return format!("{count} x {profile}");
    }
    share
        .amount(unit)
        .map_or_else(String::new, |amount| format!("{} {}", number(amount), unit.label()))
}

/// Whether `share` fits inside `quota`'s entries of its instance type (a part kept for one use, such as a tenant's
/// interactive spaces): `None` when it does, else the attribute it was given in, what it asks and what the quota
/// holds, in the first unit that does not fit (accelerators, vCPU, memory and slices where the shape is known, so a
/// share in instances compares with a quota in accelerators; instances otherwise).
pub fn fits_within(share: &QuotaShare, quota: &[QuotaShare]) -> Option<(Unit, String, String)> {
    let shape = shapes::shape(&share.instance_type);
    let profile = share.accelerator_partition.as_ref().map(|p| p.profile.as_str());
    let wanted = units(share, shape, profile);
    let held = quota
        .iter()
        .filter(|entry| entry.instance_type == share.instance_type)
        .fold(Units::default(), |total, entry| {
            total.add(&units(entry, shape, profile))
        });
    let unit = Unit::ALL
        .into_iter()
        .filter(|unit| (*unit == Unit::Count) == shape.is_none() || *unit == Unit::AcceleratorPartition)
        .find(|unit| wanted.get(*unit) > held.get(*unit) + 1e-9)?;
    // In the unit the share was given, when the quota holds some of it (instances beside instances), else in the
    // unit that overflows.
    let shown = if held.get(unit_given(share)) > 0.0 {
        unit_given(share)
    } else {
        unit
    };
    Some((
        unit_given(share),
        amount_in(wanted.get(shown), shown, profile),
        amount_in(held.get(shown), shown, profile),
    ))
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
    let planned = planned_teams(view, own, allocation);
    let mut order = live_teams_not_planned(view, &planned);
    order.extend(planned);
    order
}

/// The teams this plan plans, in admission order: with the cluster's allocation, the referenced tenants it does
/// not list, then its teams by name (the tenant's own entry in place of its row), then the tenant if unlisted;
/// without it, the tenants this one references, then itself.
fn planned_teams<'a>(
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
    let own_team = Team {
        name: &own.team,
        shares: &own.quota,
        own: true,
        live: false,
    };
    let Some(allocation) = allocation else {
        planned.extend(others.map(|t| Team {
            name: &t.team,
            shares: &t.quota,
            own: false,
            live: false,
        }));
        planned.push(own_team);
        return planned;
    };
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
        planned.push(own_team);
    }
    planned
}

/// The live teams counted on the cluster that this plan does not plan, by name (none when the live half is not
/// counted or could not be read): admitted first, since they exist.
fn live_teams_not_planned<'a>(view: &'a ClusterView, planned: &[Team<'a>]) -> Vec<Team<'a>> {
    match &view.tenants.live {
        _ if !view.neighbours.live_counted() => Vec::new(),
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
    }
}

/// The allocation checks of the tenant itself: the allocation is of this cluster, lists the team, and gives it the
/// quota the tenant asks for.
fn allocation_findings(view: &ClusterView, own: &TenantCapacity, at: &AttributePath) -> Vec<Finding> {
    let rule = RuleId::Wkl3;
    let Setting::Set(Referenced { cluster_name, item, .. }) = &view.allocation else {
        return Vec::new();
    };
    if *cluster_name != view.cluster_name {
        return vec![Finding {
            path: path::allocation(),
            observed: format!("the allocation of cluster {cluster_name:?}"),
            problem: format!("this tenant is on cluster {:?}", view.cluster_name),
            fix: format!(
                "reference the hyperpod_cluster_allocation of cluster {:?}",
                view.cluster_name
            ),
            ..Finding::of(rule)
        }];
    }
    match item.teams.get(&own.team) {
        None => vec![Finding {
            path: path::allocation(),
            observed: format!(
                "cluster {:?}'s allocation lists {:?}, not {:?}",
                view.cluster_name,
                item.teams.keys().collect::<Vec<_>>(),
                own.team
            ),
            problem: "the tenant's guaranteed capacity is not in the cluster's documented allocation".into(),
            fix: format!(
                "add teams[{:?}] with this tenant's quota to the hyperpod_cluster_allocation",
                own.team
            ),
            ..Finding::of(rule)
        }],
        Some(row) if !same_shares(row, &own.quota) => vec![Finding {
            path: at.clone(),
            observed: format!(
                "quota {}; the allocation gives {:?} {}",
                shares_text(&own.quota),
                own.team,
                shares_text(row)
            ),
            problem: "the tenant's quota differs from its share in the cluster's allocation".into(),
            fix: "make the tenant's quota and its teams entry in the hyperpod_cluster_allocation the same (one local \
             value for both keeps them so)"
                .into(),
            ..Finding::of(rule)
        }],
        Some(_) => Vec::new(),
    }
}

/// The row and the tenant's quota give the same shares. A partition on a tenant entry that also gives another unit,
/// where the row's entry has none, is one the live quota holds and the configuration leaves unset (kept, and named
/// by its own warning): not a difference from the documented split, though admission counts it.
fn same_shares(row: &[QuotaShare], quota: &[QuotaShare]) -> bool {
    let sorted = |shares: &[QuotaShare]| {
        let mut out = shares.to_vec();
        out.sort_by(|x, y| x.instance_type.cmp(&y.instance_type));
        out
    };
    let quota: Vec<QuotaShare> = quota
        .iter()
        .map(|entry| {
            let documented = row.iter().find(|r| r.instance_type == entry.instance_type);
            let other_unit = entry.units().any(|unit| unit != Unit::AcceleratorPartition);
            match documented {
                Some(r) if r.accelerator_partition.is_none() && other_unit => QuotaShare {
                    accelerator_partition: None,
                    ..entry.clone()
                },
                _ => entry.clone(),
            }
        })
        .collect();
    sorted(row) == sorted(&quota)
}

fn shares_text(shares: &[QuotaShare]) -> String {
    let parts: Vec<String> = shares
        .iter()
        .map(|share| as_given(&share.instance_type, share))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// What the instance groups hold of one instance type (slices of no profile: see `partition_capacity`).
fn capacity_of(view_groups: &[super::model::Capacity], instance_type: &str, shape: Option<InstanceShape>) -> Units {
    let instances: i64 = view_groups
        .iter()
        .filter(|g| g.instance_type == instance_type)
        .map(|g| g.count)
        .sum();
    units(&QuotaShare::instances(instance_type, instances), shape, None)
}

/// The slices of `profile` the instance groups of `instance_type` hold: `Err(Some(finding))` when none can (no
/// group partitions its GPUs, or every one splits them into another profile), `Err(None)` with `skipped` noted when
/// a custom layout's slices cannot be counted.
fn partition_capacity(
    view: &ClusterView,
    groups: &[super::model::Capacity],
    share: &QuotaShare,
    profile: &str,
    at: &AttributePath,
    skipped: &mut Vec<String>,
) -> Result<f64, Option<Finding>> {
    let instance_type = share.instance_type.as_str();
    let of_type: Vec<&super::model::Capacity> = groups.iter().filter(|g| g.instance_type == instance_type).collect();
    let layouts: Vec<&str> = of_type.iter().filter_map(|g| g.partition_layout.as_deref()).collect();
    if layouts.is_empty() {
        return Err(Some(no_partitioned_group(&view.cluster_name, share, profile, at)));
    }
    if let Some(custom) = layouts.iter().find(|layout| shapes::uniform_profile(layout).is_none()) {
        skipped.push(format!(
            "an instance group of {instance_type} has the custom MIG layout {custom:?}, whose slices of {profile} the \
             provider cannot count"
        ));
        return Err(None);
    }
    let held = slices_held(&of_type, instance_type, profile);
    if held == 0 {
        let mut split: Vec<&str> = layouts.clone();
        split.dedup();
        return Err(Some(Finding {
            path: at.clone(),
            observed: format!("{instance_type}: {}", amount_as_given(share)),
            problem: format!(
                "the instance groups of {instance_type} on cluster {:?} split their GPUs as {}: no {profile} slices",
                view.cluster_name,
                split.join(", ")
            ),
            fix: "guarantee the profile the instance groups are split into, or change their MIG layout first".into(),
            ..Finding::of(RuleId::Wkl3)
        }));
    }
    Ok(held as f64)
}

/// A partition share of an instance type no instance group of cluster `cluster_name` partitions the GPUs of.
fn no_partitioned_group(cluster_name: &str, share: &QuotaShare, profile: &str, at: &AttributePath) -> Finding {
    let instance_type = share.instance_type.as_str();
    Finding {
        path: at.clone(),
        observed: format!("{instance_type}: {}", amount_as_given(share)),
        problem: format!(
            "no instance group of {instance_type} on cluster {cluster_name:?} partitions its GPUs (node label {})",
            super::model::MIG_CONFIG_LABEL
        ),
        fix: format!(
            "configure MIG on the instance group first (KubernetesConfig label {} = \"all-{}\"), or guarantee \
             whole accelerators",
            super::model::MIG_CONFIG_LABEL,
            profile.trim_start_matches("mig-")
        ),
        ..Finding::of(RuleId::Wkl3)
    }
}

/// The slices of `profile` the instance groups `of_type` (all of `instance_type`) hold: those split uniformly into
/// that profile, every GPU of every instance.
fn slices_held(of_type: &[&super::model::Capacity], instance_type: &str, profile: &str) -> i64 {
    let accelerators = shapes::shape(instance_type).map_or(0, |s| s.accelerators);
    let slices = shapes::slices_per_accelerator(instance_type, profile).unwrap_or(0);
    of_type
        .iter()
        .filter(|g| {
            g.partition_layout
                .as_deref()
                .and_then(shapes::uniform_profile)
                .is_some_and(|p| p == profile)
        })
        .map(|g| g.count * accelerators * slices)
        .sum()
}

/// WKL-3 on a cluster allocation, before any tenant counts it: every share names an instance type one of the
/// cluster's instance groups has, and a share in amounts (accelerators, vCPU, memory) is of a type whose shape is
/// known, so it can be counted at all. One finding per entry that fails, at the unit that makes it so.
pub fn allocation_entries(allocation: &Allocation, groups: &[Capacity]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (team, row) in &allocation.teams {
        for (index, share) in row.iter().enumerate() {
            if let Some(finding) = allocation_entry(allocation, groups, team, index, share) {
                findings.push(finding);
            }
        }
    }
    findings
}

fn allocation_entry(
    allocation: &Allocation,
    groups: &[Capacity],
    team: &str,
    index: usize,
    share: &QuotaShare,
) -> Option<Finding> {
    let at = |attribute: &str| super::paths::allocation::share(team, index, attribute);
    let instance_type = &share.instance_type;
    if !groups.iter().any(|g| &g.instance_type == instance_type) {
        let types: Vec<&str> = groups.iter().map(|g| g.instance_type.as_str()).collect();
        return Some(Finding {
            path: at("instance_type"),
            observed: format!(
                "{instance_type}: no instance group of cluster {:?} has it (its types: {types:?})",
                allocation.cluster_name
            ),
            problem: "the allocation guarantees capacity the cluster does not have".into(),
            fix: "guarantee an instance type the cluster has, or add the instance group first".into(),
            ..Finding::of(RuleId::Wkl3)
        });
    }
    let amount = share.units().find(|unit| unit.filled_in());
    let unit = amount.filter(|_| shapes::shape(instance_type).is_none())?.name();
    Some(Finding {
        path: at(unit),
        observed: format!("{instance_type}: {team} {unit} given"),
        problem:
            "the provider does not know this instance type's shape (accelerators, vCPU and memory per instance), so a \
         share in amounts cannot be counted against the cluster"
                .into(),
        fix: "give the share in whole instances (count), which WKL-3 can always count".into(),
        ..Finding::of(RuleId::Wkl3)
    })
}

/// Whether an entry shaped like a quota entry but claiming nothing (an absolute borrow limit) names capacity the
/// cluster has: an instance type of its instance groups and, for MIG slices, a profile a group of that type is
/// split into. SageMaker refuses the others (`ValidationException`). `None` when it does, or the groups are unknown.
pub fn names_cluster_capacity(view: &ClusterView, share: &QuotaShare, at: &AttributePath) -> Option<Finding> {
    let Fact::Known(groups) = &view.instance_groups else {
        return None;
    };
    let instance_type = share.instance_type.as_str();
    if !groups.iter().any(|g| g.instance_type == instance_type) {
        let types: Vec<&str> = groups.iter().map(|g| g.instance_type.as_str()).collect();
        return Some(Finding {
            path: at.push_attr("instance_type"),
            observed: format!(
                "{instance_type}: no instance group of cluster {:?} has it (its types: {types:?})",
                view.cluster_name
            ),
            problem: "the entry names capacity the cluster does not have".into(),
            fix: "name an instance type of the cluster's instance groups".into(),
            ..Finding::of(RuleId::Wkl3)
        });
    }
    let profile = &share.accelerator_partition.as_ref()?.profile;
    let mut skipped = Vec::new();
    partition_capacity(
        view,
        groups,
        share,
        profile,
        &at.push_attr(Unit::AcceleratorPartition.name()),
        &mut skipped,
    )
    .err()?
}

/// The allocation's cluster with its instance groups and nothing else: what the allocation's own checks see.
fn bare_view(allocation: &Allocation, groups: &[Capacity]) -> ClusterView {
    fn empty<T>() -> super::tenancy::Inventory<T> {
        super::tenancy::Inventory {
            referenced: Vec::new(),
            unresolved: Vec::new(),
            live: Fact::Known(Vec::new()),
        }
    }
    ClusterView {
        cluster_name: allocation.cluster_name.clone(),
        instance_groups: Fact::Known(groups.to_vec()),
        scheduling_policy: Fact::Known(None),
        tenants: empty(),
        projects: Fact::Known(Vec::new()),
        restrictions: empty(),
        allocation: Setting::Unset,
        phase: Phase::Plan,
        neighbours: super::model::Neighbours::ReferencedOnly,
        policy_live: false,
    }
}

/// WKL-3 on a cluster allocation's MIG shares: each names a profile an instance group of its type is split into
/// (SageMaker refuses the others), at `teams["<team>"].quota[i].accelerator_partition`.
pub fn allocation_partitions(allocation: &Allocation, groups: &[Capacity]) -> Vec<Finding> {
    let view = bare_view(allocation, groups);
    let mut findings = Vec::new();
    for (team, row) in &allocation.teams {
        for (index, share) in row.iter().enumerate() {
            if share.accelerator_partition.is_none() {
                continue;
            }
            let at = super::paths::allocation::quota(team).index(index);
            findings.extend(names_cluster_capacity(&view, share, &at));
        }
    }
    findings
}

/// WKL-3 on a cluster allocation's teams together: admitted by name, as the tenants' WKL-3 admits them, the entry of
/// a team whose share does not fit beside those before it is refused at its unit (`teams["<team>"].quota[i].<unit>`),
/// whether or not the team has a tenant yet. The split is the allocation's decision, so that is where the
/// overcommit is reported; a tenant whose quota is its entry defers to it (`wkl_3`). Live quotas of teams the
/// allocation does not list are the tenants' to count (they may change before apply).
pub fn allocation_fits(allocation: &Allocation, groups: &[Capacity]) -> Vec<Finding> {
    // An entry refused on its own (its instance type, shape or MIG profile) is not an overcommit: left out here.
    let refused_alone: Vec<AttributePath> = allocation_entries(allocation, groups)
        .into_iter()
        .chain(allocation_partitions(allocation, groups))
        .map(|finding| finding.path)
        .collect();
    let mut findings = Vec::new();
    for (team, quota) in &allocation.teams {
        let at = super::paths::allocation::quota(team);
        let mut view = bare_view(allocation, groups);
        view.tenants.referenced.push(Referenced {
            at: at.clone(),
            cluster_name: allocation.cluster_name.clone(),
            item: TenantCapacity {
                team: team.clone(),
                quota: quota.clone(),
                sharing: None,
            },
        });
        view.allocation = Setting::Set(Referenced {
            at: at.clone(),
            cluster_name: allocation.cluster_name.clone(),
            item: allocation.clone(),
        });
        findings.extend(
            judged(&view, at)
                .findings()
                .iter()
                .filter(|finding| !refused_alone.iter().any(|path| finding.path.0.starts_with(&path.0)))
                .cloned(),
        );
    }
    findings
}

/// WKL-3 on an allocation of a cluster another allocation already splits (`holder_teams`: that allocation's
/// teams). Each split could fit on its own while the two together overcommit, and each tenant would be held to
/// whichever it references: one cluster, one allocation.
pub fn allocation_claimed_elsewhere(cluster_name: &str, holder_teams: &[String]) -> Finding {
    let teams = if holder_teams.is_empty() {
        "no team yet".to_string()
    } else {
        holder_teams.join(", ")
    };
    Finding {
        path: super::paths::allocation::cluster_name(),
        observed: format!(
            "cluster {cluster_name:?} is already split by another hyperpod_cluster_allocation (its teams: {teams})"
        ),
        problem: "two allocations of one cluster each judge only their own teams, so together they can overcommit it"
            .into(),
        fix:
            "list these teams in that allocation, or move it here: `removed` block (destroy = false) where it is, then \
         import it here by the cluster's name"
                .into(),
        ..Finding::of(RuleId::Wkl3)
    }
}

/// Whether the allocation refuses `own`'s entry (its rows alone do not fit the cluster) while `own`'s quota is that
/// entry: the violation is the allocation's, reported there.
fn refused_on_the_allocation(allocation: &Allocation, groups: &[Capacity], own: &TenantCapacity) -> bool {
    let entry = super::paths::allocation::quota(&own.team);
    allocation
        .teams
        .get(&own.team)
        .is_some_and(|row| same_shares(row, &own.quota))
        && allocation_fits(allocation, groups)
            .iter()
            .any(|finding| finding.path.0.starts_with(&entry.0))
}

/// WKL-3 for the tenant whose own entry in `view.tenants.referenced` is at `at` (its quota attribute). A quota that
/// is its allocation entry, where the allocation's own split does not fit, is the allocation's violation: reported
/// there once (`allocation_fits`), not again on the tenant.
pub fn wkl_3(view: &ClusterView, at: AttributePath) -> Check {
    let rule = RuleId::Wkl3;
    if let (Fact::Known(groups), Setting::Set(reference)) = (&view.instance_groups, &view.allocation)
        && reference.cluster_name == view.cluster_name
        && let Some(own) = view.tenants.referenced.iter().find(|r| r.at == at).map(|r| &r.item)
        && refused_on_the_allocation(&reference.item, groups, own)
    {
        return Check::not_applicable(
            rule,
            format!(
                "team {:?}'s quota is its entry in the cluster allocation, whose split of cluster {:?} does not fit \
                 the instance groups: refused on hyperpod_cluster_allocation, at teams[{:?}]",
                own.team, view.cluster_name, own.team
            ),
        );
    }
    judged(view, at)
}

/// WKL-3 as the tenant's entry is admitted beside the others (`wkl_3` without deferring to the allocation): also
/// what a drifted live quota is judged with (the allocation's row replaced by what is live).
pub fn judged(view: &ClusterView, at: AttributePath) -> Check {
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
        let judging = ShareJudging {
            view,
            groups,
            order: &order,
            team: &own.team,
            at: &at,
        };
        if let Some(finding) = judging.share(index, share, &mut skipped) {
            findings.push(finding);
        }
    }
    if !findings.is_empty() {
        return Check::from_findings(rule, findings, "");
    }
    fitting(view, own, allocation.is_some(), skipped)
}

/// What one share of a tenant is judged against: the cluster's instance groups and the teams admitted before it.
struct ShareJudging<'a> {
    view: &'a ClusterView,
    groups: &'a [super::model::Capacity],
    order: &'a [Team<'a>],
    team: &'a str,
    /// The tenant's `quota` (or the allocation's row standing for it).
    at: &'a AttributePath,
}

impl ShareJudging<'_> {
    /// WKL-3 for the share at `index`: the finding when it does not fit; a team that could not be counted is named
    /// in `skipped`.
    fn share(&self, index: usize, share: &QuotaShare, skipped: &mut Vec<String>) -> Option<Finding> {
        let (view, groups, at) = (self.view, self.groups, self.at);
        let rule = RuleId::Wkl3;
        let instance_type = share.instance_type.as_str();
        let shape = shapes::shape(instance_type);
        let capacity = capacity_of(groups, instance_type, shape);
        let entry_at = at.index(index).push_attr(unit_given(share).name());
        if capacity.instances == 0.0 {
            return Some(Finding {
                path: at.index(index).push_attr("instance_type"),
                observed: format!(
                    "{instance_type}: no instance group of cluster {:?} has it",
                    view.cluster_name
                ),
                problem: format!("the guaranteed quotas overcommit cluster {:?}", view.cluster_name),
                fix: "guarantee an instance type of the cluster's instance groups, or add the instance group first"
                    .into(),
                ..Finding::of(rule)
            });
        }
        if let Some(reason) = unresolved(share, shape) {
            return Some(Finding {
                path: entry_at,
                observed: format!("{instance_type}: {}", as_given(self.team, share)),
                problem: reason,
                fix: "give the share in whole instances (count), which WKL-3 can always count".into(),
                ..Finding::of(rule)
            });
        }
        let mut capacity = capacity;
        capacity.partitions = f64::INFINITY;
        let profile = share.accelerator_partition.as_ref().map(|p| p.profile.as_str());
        if let Some(profile) = profile {
            match partition_capacity(view, groups, share, profile, &entry_at, skipped) {
                Ok(slices) => capacity.partitions = slices,
                Err(finding) => return finding,
            }
        }
        let wanted = Wanted {
            instance_type,
            shape,
            profile,
        };
        admit(view, self.order, &wanted, &capacity, &entry_at, skipped)
    }
}

/// WKL-3 once every share fits: passed, or why that is not yet the whole answer (a tenant unknown, live tenants
/// unreadable, a team not counted, or other tenants planned in this configuration not seen at plan).
fn fitting(view: &ClusterView, own: &TenantCapacity, allocation_referenced: bool, mut skipped: Vec<String>) -> Check {
    let rule = RuleId::Wkl3;
    if !view.tenants.unresolved.is_empty() || view.allocation == Setting::Unknown {
        let mut unknown = view.tenants.unresolved.clone();
        if view.allocation == Setting::Unknown {
            unknown.push(path::ALLOCATION.to_string());
        }
        return Check::unknowns(rule, &unknown);
    }
    if let (Fact::Unavailable(reason), true) = (&view.tenants.live, view.neighbours.live_counted()) {
        return Check::unavailable(
            rule,
            format!("{reason}; this tenant and the tenants it references fit on their own"),
        );
    }
    if !skipped.is_empty() {
        skipped.dedup();
        return Check::unavailable(rule, skipped.join("; "));
    }
    if !allocation_referenced && view.phase == Phase::Plan {
        return Check::not_at_plan(
            rule,
            format!(
                "not evaluated at plan: team {:?} references no allocation of cluster {:?}, so other tenants \
                 planned in this configuration are not counted (it fits beside the tenants it references). Fix: document the cluster's split in a hyperpod_cluster_allocation listing every \
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
/// What one of the tenant's entries is checked in: its instance type, that type's shape, and its MIG profile.
struct Wanted<'a> {
    instance_type: &'a str,
    shape: Option<InstanceShape>,
    profile: Option<&'a str>,
}

fn admit(
    view: &ClusterView,
    order: &[Team<'_>],
    wanted: &Wanted<'_>,
    capacity: &Units,
    entry_at: &AttributePath,
    skipped: &mut Vec<String>,
) -> Option<Finding> {
    let Wanted {
        instance_type,
        shape,
        profile,
    } = *wanted;
    let mut admitted = Units::default();
    let mut counted: Vec<Counted<'_>> = Vec::new();
    for team in order {
        for share in team.shares.iter().filter(|s| s.instance_type == instance_type) {
            if let Some(reason) = unresolved(share, shape) {
                if !team.own {
                    skipped.push(format!("team {}'s share of {instance_type}: {reason}", team.name));
                }
                continue;
            }
            let demand = units(share, shape, profile);
            let total = admitted.add(&demand);
            match total.overflow(capacity, shape.is_some()) {
                None => {
                    admitted = total;
                    counted.push((team.name, share, demand));
                }
                Some(unit) if team.own => {
                    let own = (team.name, share, demand);
                    return Some(Finding {
                        path: entry_at.clone(),
                        observed: format!(
                            "{instance_type}: {} guaranteed ({}) but {}",
                            amount_in(total.get(unit), unit, profile),
                            shares_up_to(&counted, own, unit, profile).join(", "),
                            capacity_available(capacity, unit, profile),
                        ),
                        problem: format!("the guaranteed quotas overcommit cluster {:?}", view.cluster_name),
                        fix: "lower the guaranteed share (borrowing covers bursts), or grow the instance groups first"
                            .into(),
                        ..Finding::of(RuleId::Wkl3)
                    });
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

/// A share admitted (or refused) on an instance type: the team's name, the share and what it asks in every unit.
type Counted<'a> = (&'a str, &'a QuotaShare, Units);

/// The shares that add up to an overflow of `unit`: those admitted before (only the ones that hold slices, for an
/// overflow in slices), then the tenant's `own` share that overflows.
fn shares_up_to(counted: &[Counted<'_>], own: Counted<'_>, unit: Unit, profile: Option<&str>) -> Vec<String> {
    let (name, share, demand) = own;
    let mut shares: Vec<String> = counted
        .iter()
        .filter(|(_, _, units)| unit != Unit::AcceleratorPartition || units.partitions > 0.0)
        .map(|(name, share, units)| describe_share(name, share, units, unit, profile))
        .collect();
    shares.push(describe_share(name, share, &demand, unit, profile));
    shares
}

/// What the instance groups of the instance type hold of `unit`: their instances, or the amount those hold.
fn capacity_available(capacity: &Units, unit: Unit, profile: Option<&str>) -> String {
    if unit == Unit::Count {
        format!(
            "the instance groups have {}",
            amount_in(capacity.instances, unit, profile)
        )
    } else {
        format!(
            "its {} instances hold {}",
            number(capacity.instances),
            amount_in(capacity.get(unit), unit, profile)
        )
    }
}
