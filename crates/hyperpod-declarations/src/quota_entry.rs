//! One entry of a guaranteed quota, declared once: `QuotaEntry` is the schema of a tenant's `quota` blocks, its
//! `sharing.absolute_borrow_limit` and `spaces.guaranteed`, the cluster allocation's `teams[*].quota` and the `quota`
//! of a tenant's `governance`, and the typed value of each; it converts to and from the model's one quota entry type
//! (`QuotaShare`), which the engine counts and the SageMaker client sends. The units an entry may give are
//! `hyperpod_model::quota::Unit`, one table for the schema's names, the validation here and the engine's arithmetic.

use crate::governance::{Partition, QuotaShare, Unit};
use crate::protocol::decode::Fields;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::{Attribute, Block};
use crate::protocol::validators::{IntBetween, Matches, NonNegativeNumber, OneOf};
use crate::protocol::value::{Number, Value};
use crate::validators::AtMost;

/// SageMaker takes at most this many instance types in one `ComputeQuotaResources`.
pub const MAX_ENTRIES: i64 = 15;

/// The most of any unit one entry may give (the API's bound is an `Integer`; this keeps sums exact in `f64`).
const MAX_AMOUNT: i64 = 10_000_000;

/// `MIGProfileType` of the SageMaker API (aws-sdk-sagemaker 1.248.0): the MIG profiles a partition may name.
pub const MIG_PROFILES: [&str; 28] = [
    "mig-1g.5gb",
    "mig-1g.10gb",
    "mig-1g.18gb",
    "mig-1g.20gb",
    "mig-1g.23gb",
    "mig-1g.35gb",
    "mig-1g.45gb",
    "mig-1g.47gb",
    "mig-2g.10gb",
    "mig-2g.20gb",
    "mig-2g.35gb",
    "mig-2g.45gb",
    "mig-2g.47gb",
    "mig-3g.20gb",
    "mig-3g.40gb",
    "mig-3g.71gb",
    "mig-3g.90gb",
    "mig-3g.93gb",
    "mig-4g.20gb",
    "mig-4g.40gb",
    "mig-4g.71gb",
    "mig-4g.90gb",
    "mig-4g.93gb",
    "mig-7g.40gb",
    "mig-7g.80gb",
    "mig-7g.141gb",
    "mig-7g.180gb",
    "mig-7g.186gb",
];

fn instance_type() -> Matches {
    Matches::new(
        r"ml\.[a-z0-9-]+\.[a-z0-9-]+",
        "an instance type such as \"ml.p5.48xlarge\"",
    )
}

fn whole_amount() -> IntBetween {
    IntBetween {
        min: 0,
        max: MAX_AMOUNT,
    }
}

/// Guaranteed capacity of one instance type (`ComputeQuotaResources`): a whole-instance `count`, `accelerators`,
/// `vcpu` and `memory_gib`, or MIG slices (`accelerator_partition`). WKL-3 counts every unit against what the
/// instance groups hold, summed over every tenant of the cluster.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct QuotaEntry {
    /// Instance type of a cluster instance group, e.g. `ml.p5.48xlarge`.
    #[tf(required, validate = instance_type())]
    pub instance_type: Field<String>,
    /// Whole instances guaranteed to the team.
    #[tf(validate = whole_amount())]
    pub count: Field<i64>,
    /// Accelerators (GPUs, Trainium chips) guaranteed; SageMaker fills vCPU and memory by ratio.
    #[tf(validate = whole_amount())]
    pub accelerators: Field<i64>,
    /// vCPUs guaranteed.
    #[tf(validate = NonNegativeNumber, validate = AtMost(MAX_AMOUNT as f64))]
    pub vcpu: Field<Number>,
    /// Memory guaranteed, in GiB.
    #[tf(validate = NonNegativeNumber, validate = AtMost(MAX_AMOUNT as f64))]
    pub memory_gib: Field<Number>,
    /// MIG slices guaranteed (`AcceleratorPartition`), on an instance type whose instance groups partition their
    /// GPUs (`nvidia.com/mig.config`); not with `count` or `accelerators`.
    #[tf(nested = single)]
    pub accelerator_partition: Field<PartitionBlock>,
}

/// `AcceleratorPartition` (`Type`, `Count`, both required by the API).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct PartitionBlock {
    /// MIG profile of the slices, e.g. `mig-1g.10gb` (the API's `MIGProfileType`).
    #[tf(required, validate = OneOf(&MIG_PROFILES))]
    pub r#type: Field<String>,
    /// Slices of that profile; SageMaker fills vCPU and memory by ratio unless given.
    #[tf(required, validate = whole_amount())]
    pub count: Field<i64>,
}

/// How an entry's `accelerator_partition` behaves when the configuration leaves it null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partitions {
    /// A record of what is guaranteed (the allocation): null is no partitions.
    AsWritten,
    /// A tenant's quota: null keeps what the live entry holds (computed from it), so a partition set in the
    /// console survives an unrelated change and shows in state.
    KeepLive,
}

/// The schema of one entry. A tenant's quota block (`KeepLive`) computes an unset partition from the live entry.
pub fn entry_block(partitions: Partitions) -> Block {
    let mut block = QuotaEntry::block();
    if partitions == Partitions::KeepLive {
        let name = QuotaEntry::ACCELERATOR_PARTITION.name();
        for attribute in block.attributes.iter_mut().filter(|a| a.name == name) {
            *attribute = attribute.clone().optional_computed().describe(
                "MIG slices guaranteed (`AcceleratorPartition`), on an instance type whose instance groups partition \
                 their GPUs (`nvidia.com/mig.config`, WKL-3); not with `count` or `accelerators`. Unset: a partition \
                 the live quota holds for this instance type (set in the console) is kept and shown here, with a \
                 warning; giving the entry `count` or `accelerators` instead drops it.",
            );
        }
    }
    block
}

/// The attributes of one entry: the instance type and its amount in one unit.
pub fn attributes(partitions: Partitions) -> Vec<Attribute> {
    entry_block(partitions).attributes
}

impl QuotaEntry {
    /// The entry as the engine counts it, or `None` while a field is unknown (or the instance type is null).
    pub fn share(&self) -> Option<QuotaShare> {
        Some(QuotaShare {
            instance_type: self.instance_type.as_known()?.clone(),
            count: self.count.clone().optional()?,
            accelerators: self.accelerators.clone().optional()?,
            vcpu: self.vcpu.clone().optional()?.map(|vcpu| vcpu.as_f64()),
            memory_gib: self.memory_gib.clone().optional()?.map(|memory| memory.as_f64()),
            accelerator_partition: match self.accelerator_partition.clone().optional()? {
                None => None,
                Some(partition) => Some(Partition {
                    profile: partition.r#type.known()?,
                    count: partition.count.known()?,
                }),
            },
        })
    }

    /// Entries as the engine counts them, or `None` while any field of any is unknown.
    pub fn shares(entries: &[QuotaEntry]) -> Option<Vec<QuotaShare>> {
        entries.iter().map(QuotaEntry::share).collect()
    }

    /// Whether the entry gives an amount in `unit`: null, unknown or known (the amount itself left out).
    pub fn unit(&self, unit: Unit) -> Field<()> {
        fn shape<T>(field: &Field<T>) -> Field<()> {
            field.as_ref().map(|_| ())
        }
        match unit {
            Unit::Count => shape(&self.count),
            Unit::AcceleratorPartition => shape(&self.accelerator_partition),
            Unit::Accelerators => shape(&self.accelerators),
            Unit::Vcpu => shape(&self.vcpu),
            Unit::MemoryGib => shape(&self.memory_gib),
        }
    }

    /// The entry with its amount in `unit` taken from `other` (null when `other` gives none).
    pub fn with_unit_of(mut self, unit: Unit, other: &QuotaEntry) -> Self {
        match unit {
            Unit::Count => self.count = other.count.clone(),
            Unit::AcceleratorPartition => self.accelerator_partition = other.accelerator_partition.clone(),
            Unit::Accelerators => self.accelerators = other.accelerators.clone(),
            Unit::Vcpu => self.vcpu = other.vcpu.clone(),
            Unit::MemoryGib => self.memory_gib = other.memory_gib.clone(),
        }
        self
    }
}

impl From<&QuotaShare> for QuotaEntry {
    fn from(share: &QuotaShare) -> Self {
        let number = |value: Option<f64>| value.and_then(Number::from_f64).into();
        QuotaEntry {
            instance_type: Field::Known(share.instance_type.clone()),
            count: share.count.into(),
            accelerators: share.accelerators.into(),
            vcpu: number(share.vcpu),
            memory_gib: number(share.memory_gib),
            accelerator_partition: share.accelerator_partition.as_ref().map_or(Field::Null, |partition| {
                Field::Known(PartitionBlock {
                    r#type: Field::Known(partition.profile.clone()),
                    count: Field::Known(partition.count),
                })
            }),
        }
    }
}

/// What SageMaker refuses in a list of entries at `at` (`quota`, `teams["x"].quota`): too many, an instance type
/// twice, units that exclude each other, an entry with no amount.
pub fn validate_entries(entries: &[Value], at: &AttributePath, diagnostics: &mut Diagnostics) {
    if entries.len() > MAX_ENTRIES as usize {
        diagnostics.push(Diagnostic::invalid_value(
            at.clone(),
            format!("{} entries", entries.len()),
            &format!("SageMaker takes at most {MAX_ENTRIES} instance types in a compute quota"),
            "write one entry per instance type",
        ));
    }
    validate_each(entries, at, diagnostics);
}

/// `validate_entries` without the count, for lists whose schema validator caps it (`ListAtMost`).
pub fn validate_each(entries: &[Value], at: &AttributePath, diagnostics: &mut Diagnostics) {
    // A value of the wrong type is the schema's to report; the rules here read what decodes.
    let decoded: Vec<Option<QuotaEntry>> = entries.iter().map(|entry| QuotaEntry::decode(entry).ok()).collect();
    let mut types = std::collections::BTreeSet::new();
    for (index, entry) in decoded.iter().enumerate() {
        let Some(entry) = entry else { continue };
        let at = at.index(index);
        if let Some(instance_type) = entry.instance_type.as_known()
            && !types.insert(instance_type.clone())
        {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr(QuotaEntry::INSTANCE_TYPE.name()),
                format!("{instance_type:?}"),
                "the instance type has another entry already (SageMaker refuses a type listed twice)",
                "write one entry per instance type",
            ));
        }
        if let Some(excluded) = excluded_unit(entry, Unit::AcceleratorPartition) {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr(Unit::AcceleratorPartition.name()),
                format!("accelerator_partition and {} both set", excluded.name()),
                "an entry guarantees MIG slices or whole instances or accelerators, not both",
                &format!("remove {}, or remove accelerator_partition", excluded.name()),
            ));
        }
        if let Some(excluded) = excluded_unit(entry, Unit::Count) {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr(excluded.name()),
                format!("count and {} both set", excluded.name()),
                "a quota entry allocates whole instances (count) or amounts (accelerators, vcpu, memory_gib), \
                 not both",
                "remove count, or remove the amounts",
            ));
        }
    }
    for (index, (value, entry)) in entries.iter().zip(&decoded).enumerate() {
        let Some(entry) = entry else { continue };
        if value.is_wholly_known() && Unit::ALL.iter().all(|unit| entry.unit(*unit) == Field::Null) {
            diagnostics.push(Diagnostic::invalid_value(
                at.index(index),
                format!(
                    "{:?} with no amount",
                    entry.instance_type.as_known().cloned().unwrap_or_default()
                ),
                "a quota entry needs an amount",
                "set count (whole instances), or accelerators, vcpu, memory_gib or accelerator_partition",
            ));
        }
    }
}

/// The first unit `unit` excludes that the entry also sets (known values only: an unknown one is judged at apply).
fn excluded_unit(entry: &QuotaEntry, unit: Unit) -> Option<Unit> {
    let set = |unit: Unit| entry.unit(unit).as_known().is_some();
    set(unit).then(|| unit.excludes().iter().copied().find(|other| set(*other)))?
}

/// An entry, or `None` while a field is unknown (or not a number the entry allows).
pub fn decode(entry: &Fields<'_>) -> Option<QuotaShare> {
    QuotaEntry::decode(entry.0).ok()?.share()
}

/// Entries of a list of blocks or objects (`quota`, `absolute_borrow_limit`, `guaranteed`), or `None` while any is
/// unknown.
pub fn decode_all(entries: Vec<Fields<'_>>) -> Option<Vec<QuotaShare>> {
    entries.iter().map(decode).collect()
}

/// The entries of a list value, or `None` while any is unknown.
pub fn decode_list(value: &Value) -> Option<Vec<QuotaShare>> {
    match value {
        Value::List(entries) | Value::Set(entries) => entries.iter().map(|e| decode(&Fields(e))).collect(),
        Value::Null => Some(Vec::new()),
        _ => None,
    }
}

/// A list of configured entries (a tenant's `quota` blocks) as `governance` carries them: each field as configured
/// (null, unknown or known); unknown while the list is.
pub fn governance_list(value: Option<&Value>) -> Field<Vec<QuotaEntry>> {
    match value {
        Some(Value::Null) | None => Field::Known(Vec::new()),
        Some(value) => Field::of_value(value),
    }
}

/// Entries a handoff carries (a team's entries in an allocation's `governance`, the `quota` of a tenant's
/// `governance`), written by hand, at `at`: held to what a configured entry is held to, the attributes' validators
/// and [`validate_entries`].
pub fn validate_handoff_entries(entries: &[Value], at: &AttributePath, diagnostics: &mut Diagnostics) {
    let entry = entry_block(Partitions::AsWritten);
    for (index, value) in entries.iter().enumerate() {
        entry.validate(value, &at.index(index), diagnostics);
    }
    validate_entries(entries, at, diagnostics);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::Partition;

    #[test]
    fn an_entry_reads_back_as_the_share_it_was_written_from() {
        let shares = vec![
            QuotaShare::instances("ml.p5.48xlarge", 5),
            QuotaShare {
                instance_type: "ml.g5.8xlarge".into(),
                vcpu: Some(12.5),
                memory_gib: Some(64.0),
                ..QuotaShare::default()
            },
            QuotaShare {
                instance_type: "ml.p4d.24xlarge".into(),
                accelerator_partition: Some(Partition::new("mig-1g.5gb", 14)),
                ..QuotaShare::default()
            },
        ];
        for share in &shares {
            let value = QuotaEntry::from(share).encode();
            assert_eq!(
                QuotaEntry::decode(&value).ok().and_then(|entry| entry.share()),
                Some(share.clone())
            );
        }
        let mut unknown = QuotaEntry::from(&shares[0]);
        unknown.count = Field::Unknown;
        assert_eq!(unknown.share(), None, "known only at apply");
    }

    #[test]
    fn the_schema_names_each_unit_of_the_model() {
        let block = QuotaEntry::block();
        for unit in Unit::ALL {
            assert!(
                block.attributes.iter().any(|attribute| attribute.name == unit.name()),
                "{unit:?}"
            );
        }
    }

    fn entry(fields: &[(&str, Value)]) -> Value {
        let mut value = QuotaEntry::default().encode();
        if let Value::Object(object) = &mut value {
            for (name, field) in fields {
                object.insert(name.to_string(), field.clone());
            }
        }
        value
    }

    #[test]
    fn a_handoff_entry_is_held_to_what_a_configured_entry_is_held_to() {
        let number = |n: f64| Value::Number(Number::from_f64(n).expect("finite"));
        let p5 = ("instance_type", Value::String("ml.p5.48xlarge".into()));
        let problems = |entries: &[Value]| {
            let mut diagnostics = Diagnostics::new();
            validate_handoff_entries(entries, &AttributePath::attr("teams"), &mut diagnostics);
            diagnostics.0.iter().map(|d| d.path.to_string()).collect::<Vec<_>>()
        };
        let good = [
            entry(&[p5.clone(), ("count", number(5.0))]),
            entry(&[
                ("instance_type", Value::String("ml.g5.8xlarge".into())),
                ("vcpu", number(12.5)),
            ]),
        ];
        assert!(problems(&good).is_empty());
        assert_eq!(
            problems(&[entry(&[p5.clone(), ("count", number(-10.0))])]),
            ["teams[0].count"]
        );
        assert_eq!(
            problems(&[entry(&[p5.clone(), ("count", number(2.5))])]),
            ["teams[0].count"]
        );
        assert_eq!(
            problems(&[entry(&[p5.clone(), ("vcpu", number(-1.0))])]),
            ["teams[0].vcpu"]
        );
        assert_eq!(
            problems(&[entry(&[
                ("instance_type", Value::String("two big boxes please".into())),
                ("count", number(2.0))
            ])]),
            ["teams[0].instance_type"]
        );
        assert_eq!(
            problems(&[entry(&[
                p5.clone(),
                ("count", number(1.0)),
                ("accelerators", number(2.0))
            ])]),
            ["teams[0].accelerators"]
        );
        assert_eq!(
            problems(&[
                entry(&[p5.clone(), ("count", number(1.0))]),
                entry(&[p5.clone(), ("count", number(2.0))])
            ]),
            ["teams[1].instance_type"]
        );
        assert_eq!(problems(&[entry(&[p5])]), ["teams[0]"]);
    }
}
