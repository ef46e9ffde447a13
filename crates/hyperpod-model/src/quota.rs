//! One entry of a guaranteed quota (SageMaker's `ComputeQuotaResourceConfig`, also the type of an
//! `AbsoluteBorrowLimits` entry): the one type the configuration's declaration decodes into, the engine counts and
//! the SageMaker client sends and reads, and the one table of the units an entry gives its amount in.

/// One entry of a guaranteed quota, in the units it was given: whole instances (`count`), or amounts of
/// accelerators, vCPU and memory (one amount alone is filled by the instance type's ratios, as SageMaker fills it),
/// or MIG slices of one profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuotaShare {
    pub instance_type: String,
    pub count: Option<i64>,
    pub accelerators: Option<i64>,
    pub vcpu: Option<f64>,
    pub memory_gib: Option<f64>,
    /// `AcceleratorPartition`.
    pub accelerator_partition: Option<Partition>,
}

// vCPU and memory are finite (validated where they enter), so equality is an equivalence.
impl Eq for QuotaShare {}

/// `AcceleratorPartitionConfig`: `count` MIG slices of `profile` (`mig-1g.10gb`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Partition {
    pub profile: String,
    pub count: i64,
}

impl Partition {
    pub fn new(profile: &str, count: i64) -> Self {
        Self {
            profile: profile.to_string(),
            count,
        }
    }
}

/// A unit an entry gives its amount in. Each is an attribute of a quota entry (`name`) and an amount the engine
/// counts (`QuotaShare::amount`); the order is the one the engine compares them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    Count,
    AcceleratorPartition,
    Accelerators,
    Vcpu,
    MemoryGib,
}

impl Unit {
    /// Every unit, in the order the engine compares them.
    pub const ALL: [Unit; 5] = [
        Unit::Count,
        Unit::AcceleratorPartition,
        Unit::Accelerators,
        Unit::Vcpu,
        Unit::MemoryGib,
    ];

    /// The attribute of a quota entry that holds this unit's amount.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::AcceleratorPartition => "accelerator_partition",
            Unit::Accelerators => "accelerators",
            Unit::Vcpu => "vcpu",
            Unit::MemoryGib => "memory_gib",
        }
    }

    /// How a finding names an amount in this unit (`6 instances`, `12 vCPU`).
    pub fn label(self) -> &'static str {
        match self {
            Unit::Count => "instances",
            Unit::AcceleratorPartition => "partitions",
            Unit::Accelerators => "accelerators",
            Unit::Vcpu => "vCPU",
            Unit::MemoryGib => "GiB of memory",
        }
    }

    /// How the governance report names an amount in this unit after its number (`12 vCPU`, `64 GiB`).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Count => "instances",
            Unit::AcceleratorPartition => "slices",
            Unit::Accelerators => "accelerators",
            Unit::Vcpu => "vCPU",
            Unit::MemoryGib => "GiB",
        }
    }

    /// Whether SageMaker fills this amount in when an entry gives another (vCPU and memory from accelerators, by the
    /// instance type's ratios): a live amount the configuration did not write is SageMaker's, not drift.
    pub fn filled_in(self) -> bool {
        matches!(self, Unit::Accelerators | Unit::Vcpu | Unit::MemoryGib)
    }

    /// Whether a live amount the configuration leaves unset is kept and shown (a MIG partition set in the console):
    /// the tenant's attribute is optional and computed.
    pub fn kept_from_live(self) -> bool {
        matches!(self, Unit::AcceleratorPartition)
    }

    /// Whether the API carries the amount as a 32-bit float, so state keeps the decimal the configuration wrote
    /// (`12.1` comes back as `12.100000381`).
    pub fn is_float(self) -> bool {
        matches!(self, Unit::Vcpu | Unit::MemoryGib)
    }

    /// The units SageMaker (or the stricter reading of it) refuses beside this one in an entry: `count` allocates
    /// whole instances and takes no amount (CreateComputeQuota refuses it with the others); MIG slices would count
    /// twice with whole instances or accelerators (the API is silent; the sandbox refuses it too). vCPU and memory
    /// may go with slices or accelerators.
    pub fn excludes(self) -> &'static [Unit] {
        match self {
            Unit::Count => &[Unit::Accelerators, Unit::Vcpu, Unit::MemoryGib],
            Unit::AcceleratorPartition => &[Unit::Count, Unit::Accelerators],
            Unit::Accelerators | Unit::Vcpu | Unit::MemoryGib => &[],
        }
    }
}

impl QuotaShare {
    /// `count` whole instances of `instance_type`.
    pub fn instances(instance_type: &str, count: i64) -> Self {
        Self {
            instance_type: instance_type.to_string(),
            count: Some(count),
            ..Self::default()
        }
    }

    /// The amount the entry gives in `unit` (slices for a partition), `None` where it gives none.
    pub fn amount(&self, unit: Unit) -> Option<f64> {
        match unit {
            Unit::Count => self.count.map(|count| count as f64),
            Unit::AcceleratorPartition => self.accelerator_partition.as_ref().map(|p| p.count as f64),
            Unit::Accelerators => self.accelerators.map(|count| count as f64),
            Unit::Vcpu => self.vcpu,
            Unit::MemoryGib => self.memory_gib,
        }
    }

    /// The units the entry gives an amount in, in [`Unit::ALL`]'s order.
    pub fn units(&self) -> impl Iterator<Item = Unit> + '_ {
        Unit::ALL.into_iter().filter(|unit| self.amount(*unit).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_gives_its_amounts_in_the_units_it_sets() {
        let share = QuotaShare {
            instance_type: "ml.p4d.24xlarge".into(),
            vcpu: Some(12.5),
            accelerator_partition: Some(Partition::new("mig-1g.5gb", 14)),
            ..QuotaShare::default()
        };
        assert_eq!(
            share.units().collect::<Vec<_>>(),
            [Unit::AcceleratorPartition, Unit::Vcpu]
        );
        assert_eq!(share.amount(Unit::AcceleratorPartition), Some(14.0));
        assert_eq!(share.amount(Unit::Count), None);
        assert_eq!(
            QuotaShare::instances("ml.p5.48xlarge", 5).amount(Unit::Count),
            Some(5.0)
        );
    }
}
