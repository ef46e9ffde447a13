//! What a tenant's configuration leaves to the live compute quota, and keeps there: a MIG partition on an entry,
//! absolute borrow limits, the borrow limit, or the whole sharing config, set in the console or by another tool.
//! An update re-reads the quota and sends those fields as they are (`keeping`), so an unrelated change never
//! erases them; the plan names each one the live quota holds (`warnings`), so a reviewer sees what the HCL does not
//! say; and plans what a block leaves unset as the prior state has it (`carry_*`: Terraform's proposal pairs list
//! blocks by position and does not carry a nested computed attribute of a block). A partition and the absolute limits are also computed attributes (refresh records them), so they show in
//! state and their drift in the plan.

use super::super::schema::{SharingBlock, TenantModel};
use crate::aws::compute_quota::{ComputeQuota, QuotaSpec};
use crate::governance::{QuotaShare, SharingStrategy, TenantCapacity, Unit};
use crate::protocol::diagnostics::{AttributePath, Diagnostic};
use crate::protocol::model::Field;
use crate::protocol::plan::PlannedChange;
use crate::protocol::value::Value;
use crate::resources::quota_entry::QuotaEntry;

pub use crate::governance::DEFAULT_BORROW_LIMIT;

/// The fields a tenant value (planned or configured) leaves unset, so the live quota's stay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeftToLive {
    /// No `sharing` block: the strategy, borrow limit and absolute limits are the live quota's.
    pub sharing: bool,
    /// A LendAndBorrow `sharing` block without `borrow_limit`.
    pub borrow_limit: bool,
    /// A `sharing` block whose `absolute_borrow_limit` is null (`[]` asks for none).
    pub absolute_borrow_limits: bool,
    /// Instance types whose entry sets no partition and no unit that excludes one (`count`, `accelerators`).
    pub partitions: Vec<String>,
}

/// Whether an entry leaves its partition to the live quota: it sets none, nor a unit that excludes one.
fn leaves_partition(entry: &QuotaEntry) -> bool {
    let partition = Unit::AcceleratorPartition;
    (std::iter::once(&partition).chain(partition.excludes())).all(|unit| entry.unit(*unit) == Field::Null)
}

impl LeftToLive {
    pub fn of(tenant: &TenantModel) -> Self {
        // A block not known yet (`Some(None)`) leaves every field of it to the live quota until it is.
        let sharing: Option<Option<&SharingBlock>> = match &tenant.sharing {
            Field::Null => None,
            Field::Known(block) => Some(Some(block)),
            Field::Unknown | Field::Invalid => Some(None),
        };
        // Only a LendAndBorrow block (the strategy's default) leaves a borrow limit to the live quota.
        let lends_and_borrows = sharing.is_some_and(|block| {
            block
                .and_then(|b| b.strategy.as_known())
                .is_none_or(|strategy| *strategy == SharingStrategy::LendAndBorrow.to_string())
        });
        let unset = |field: fn(&SharingBlock) -> bool| sharing.is_some_and(|block| block.is_none_or(field));
        // A spaces block without a sharing block lends (`model`): the sharing is the tenant's, not left to live.
        let spaces = tenant.spaces != Field::Null;
        let entries = tenant.quota.as_known().map(Vec::as_slice).unwrap_or_default();
        Self {
            sharing: sharing.is_none() && !spaces,
            borrow_limit: lends_and_borrows && unset(|b| b.borrow_limit == Field::Null),
            absolute_borrow_limits: unset(|b| b.absolute_borrow_limit == Field::Null),
            partitions: (entries.iter())
                .filter(|entry| leaves_partition(entry))
                .filter_map(|entry| entry.instance_type.as_known().cloned())
                .collect(),
        }
    }
}

/// Whether a quota with this `Strategy` borrows: unset (SageMaker's default) or `LendAndBorrow`.
fn borrows(strategy: Option<SharingStrategy>) -> bool {
    strategy.is_none_or(SharingStrategy::borrows)
}

/// `wanted` with what `left` leaves to the live quota taken from `live`.
pub fn keeping(mut wanted: QuotaSpec, left: &LeftToLive, live: &ComputeQuota) -> QuotaSpec {
    if left.sharing {
        wanted.sharing_strategy = live.sharing_strategy;
        wanted.borrow_limit = live.borrow_limit;
        wanted.absolute_borrow_limits.clone_from(&live.absolute_borrow_limits);
    } else {
        let borrows = borrows(wanted.sharing_strategy) && borrows(live.sharing_strategy);
        if left.borrow_limit && borrows && wanted.borrow_limit.is_none() {
            wanted.borrow_limit = live.borrow_limit;
        }
        if left.absolute_borrow_limits && borrows && wanted.absolute_borrow_limits.is_empty() {
            wanted.absolute_borrow_limits.clone_from(&live.absolute_borrow_limits);
        }
    }
    for resource in &mut wanted.resources {
        if left.partitions.contains(&resource.instance_type) && resource.accelerator_partition.is_none() {
            resource.accelerator_partition = live
                .resources
                .iter()
                .find(|l| l.instance_type == resource.instance_type)
                .and_then(|l| l.accelerator_partition.clone());
        }
    }
    wanted
}

/// The quota entries of a tenant value (none when it has none or they are not known).
fn quota_of(value: &Value) -> Vec<QuotaEntry> {
    TenantModel::QUOTA.known(value).unwrap_or_default()
}

/// Plans each entry's unset partition as the prior state's entry of the same instance type has it (Terraform's
/// proposal pairs entries by position, which a reordered or inserted entry would get wrong).
pub fn carry_partitions(change: &mut PlannedChange) {
    let prior = change.prior.as_ref().map(quota_of).unwrap_or_default();
    let config = quota_of(&change.config);
    let Some(planned) = TenantModel::QUOTA.known(&change.planned) else {
        return;
    };
    let carried: Vec<QuotaEntry> = (planned.into_iter().enumerate())
        .map(|(index, mut entry)| {
            let configured = config.get(index);
            if configured.is_some_and(|c| c.accelerator_partition != Field::Null) {
                return entry;
            }
            let partition = Unit::AcceleratorPartition;
            let excluded =
                configured.is_some_and(|c| partition.excludes().iter().any(|unit| c.unit(*unit) != Field::Null));
            let kept = (prior.iter())
                .find(|p| entry.instance_type.as_known().is_some() && p.instance_type == entry.instance_type)
                .map(|p| p.accelerator_partition.clone())
                .filter(|_| !excluded)
                .unwrap_or_default();
            entry.accelerator_partition = kept;
            entry
        })
        .collect();
    TenantModel::QUOTA.set(&mut change.planned, &Field::Known(carried));
}

/// Plans an unset (null) `sharing.absolute_borrow_limit` as the prior state has it: what refresh read of the live
/// quota, which apply keeps (Terraform's proposal does not carry a nested attribute of a block).
pub fn carry_absolute_borrow_limits(change: &mut PlannedChange) {
    let unset = matches!(
        TenantModel::SHARING.get(&change.config),
        Ok(Field::Known(SharingBlock {
            absolute_borrow_limit: Field::Null,
            ..
        }))
    );
    let prior = (change.prior.as_ref())
        .and_then(|p| TenantModel::SHARING.known(p))
        .map(|sharing| sharing.absolute_borrow_limit)
        .unwrap_or_default();
    let Some(mut sharing) = TenantModel::SHARING.known(&change.planned) else {
        return;
    };
    if !unset || prior == Field::Null {
        return;
    }
    sharing.absolute_borrow_limit = prior;
    TenantModel::SHARING.set(&mut change.planned, &Field::Known(sharing));
}

/// One warning per field the live quota holds that the configuration does not set (and that is not SageMaker's
/// default): it is kept, and the reviewer should know it is there.
pub fn warnings(config: &TenantModel, planned: &TenantModel, live: Option<&TenantCapacity>) -> Vec<Diagnostic> {
    let left = LeftToLive::of(config);
    let mut out = partition_warnings(&left, planned);
    let Some(live) = live else { return out };
    out.extend(sharing_warnings(&left, planned, live));
    out
}

/// A partition on an entry that sets none (nor a unit that excludes one).
fn partition_warnings(left: &LeftToLive, planned: &TenantModel) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let entries = planned.quota.as_known().map(Vec::as_slice).unwrap_or_default();
    for (index, entry) in entries.iter().enumerate() {
        let Some(instance_type) = entry.instance_type.as_known() else {
            continue;
        };
        let partition =
            (entry.accelerator_partition.as_known()).and_then(|p| Some((p.r#type.as_known()?, p.count.as_known()?)));
        if let Some((profile, count)) = partition.filter(|_| left.partitions.contains(instance_type)) {
            out.push(kept(
                TenantModel::QUOTA
                    .path()
                    .index(index)
                    .push_attr(QuotaEntry::ACCELERATOR_PARTITION.name()),
                &format!("{count} x {profile} of {instance_type}"),
                "write accelerator_partition in this quota block to manage it, or give the entry count or \
                 accelerators to drop it",
            ));
        }
    }
    out
}

/// The live sharing config, or the parts of it the sharing block leaves unset.
fn sharing_warnings(left: &LeftToLive, planned: &TenantModel, live: &TenantCapacity) -> Vec<Diagnostic> {
    let sharing = live.sharing.as_ref();
    let absolute = sharing.map(|s| s.absolute_borrow_limits.as_slice()).unwrap_or_default();
    let non_default_limit = sharing
        .and_then(|s| s.borrow_limit)
        .filter(|limit| *limit != DEFAULT_BORROW_LIMIT);
    let at = TenantModel::SHARING.path();
    if left.sharing {
        let mut held = Vec::new();
        if let Some(strategy) = sharing
            .map(|s| s.strategy)
            .filter(|s| *s != SharingStrategy::LendAndBorrow)
        {
            held.push(format!("strategy {strategy}"));
        }
        if let Some(limit) = non_default_limit {
            held.push(format!("borrow limit {limit} %"));
        }
        if !absolute.is_empty() {
            held.push(format!("absolute borrow limits {}", limits_text(absolute)));
        }
        if held.is_empty() {
            return Vec::new();
        }
        return vec![kept(at, &held.join(", "), "write a sharing block to manage it")];
    }
    let mut out = Vec::new();
    if left.borrow_limit
        && let Some(limit) = non_default_limit
    {
        out.push(kept(
            at.push_attr(SharingBlock::BORROW_LIMIT.name()),
            &format!("a borrow limit of {limit} %"),
            "set borrow_limit to manage it",
        ));
    }
    let carried = (planned.sharing.as_known())
        .and_then(|s| s.absolute_borrow_limit.as_known())
        .is_some_and(|limits| !limits.is_empty());
    if left.absolute_borrow_limits && (carried || !absolute.is_empty()) {
        out.push(kept(
            at.push_attr(SharingBlock::ABSOLUTE_BORROW_LIMIT.name()),
            &format!("absolute borrow limits {}", limits_text(absolute)),
            "write absolute_borrow_limit to manage them, or set it to [] to remove them",
        ));
    }
    out
}

fn kept(at: AttributePath, what: &str, fix: &str) -> Diagnostic {
    Diagnostic::warning(
        at,
        "Set outside this configuration: kept",
        format!(
            "The tenant's compute quota holds {what}, which this configuration does not set. Apply keeps it as \
             it is (an update never drops what the configuration does not ask to drop); {fix}."
        ),
    )
}

fn limits_text(limits: &[QuotaShare]) -> String {
    let parts: Vec<String> = limits
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l.instance_type,
                crate::governance::capacity::amount_as_given(l)
            )
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aws::compute_quota::{Partition, QuotaShare};

    fn live() -> ComputeQuota {
        ComputeQuota {
            resources: vec![QuotaShare {
                instance_type: "ml.p4d.24xlarge".into(),
                accelerator_partition: Some(Partition {
                    profile: "mig-1g.5gb".into(),
                    count: 14,
                }),
                vcpu: Some(12.0),
                ..QuotaShare::default()
            }],
            sharing_strategy: Some(crate::quota_settings::SharingStrategy::LendAndBorrow),
            borrow_limit: Some(80),
            absolute_borrow_limits: vec![QuotaShare {
                instance_type: "ml.p5.48xlarge".into(),
                accelerators: Some(16),
                ..QuotaShare::default()
            }],
            ..ComputeQuota::default()
        }
    }

    fn wanted() -> QuotaSpec {
        QuotaSpec {
            resources: vec![QuotaShare {
                instance_type: "ml.p4d.24xlarge".into(),
                vcpu: Some(12.0),
                ..QuotaShare::default()
            }],
            ..QuotaSpec::default()
        }
    }

    #[test]
    fn an_update_keeps_what_the_configuration_leaves_unset_and_drops_only_what_it_asks_to() {
        let all_left = LeftToLive {
            sharing: true,
            partitions: vec!["ml.p4d.24xlarge".into()],
            ..LeftToLive::default()
        };
        let sent = keeping(wanted(), &all_left, &live());
        assert_eq!(
            sent.resources[0].accelerator_partition,
            live().resources[0].accelerator_partition
        );
        assert_eq!(sent.borrow_limit, Some(80));
        assert_eq!(sent.absolute_borrow_limits, live().absolute_borrow_limits);
        // A sharing block that writes `absolute_borrow_limit = []` and a borrow limit: those win.
        let managed = LeftToLive::default();
        let mut asked = wanted();
        asked.sharing_strategy = Some(crate::quota_settings::SharingStrategy::LendAndBorrow);
        asked.borrow_limit = Some(20);
        let sent = keeping(asked, &managed, &live());
        assert_eq!(sent.borrow_limit, Some(20));
        assert!(sent.absolute_borrow_limits.is_empty());
        assert_eq!(
            sent.resources[0].accelerator_partition, None,
            "the entry is not left to live"
        );
        // A strategy that does not borrow takes no borrow limit from the live quota.
        let lend = LeftToLive {
            borrow_limit: true,
            absolute_borrow_limits: true,
            ..LeftToLive::default()
        };
        let mut lending = wanted();
        lending.sharing_strategy = Some(crate::quota_settings::SharingStrategy::Lend);
        let sent = keeping(lending, &lend, &live());
        assert_eq!((sent.borrow_limit, sent.absolute_borrow_limits.len()), (None, 0));
    }
}
