//! One entry of a guaranteed quota as configuration and `governance` values carry it (`instance_type`, `count`,
//! `accelerators`, `vcpu`, `memory_gib`, `accelerator_partition`), read into the engine's `QuotaShare`. A tenant's
//! `quota` blocks and `sharing.absolute_borrow_limit`, the cluster allocation's `teams[*].quota` and a tenant's
//! `governance.quota` share this shape.

use crate::governance::QuotaShare;
use crate::protocol::decode::Fields;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{object, string};
use crate::protocol::schema::{Attribute, Nesting};
use crate::protocol::validators::{IntBetween, Matches, NonNegativeNumber, OneOf};
use crate::protocol::value::{Type, Value};
use crate::resources::validators::AtMost;

/// SageMaker takes at most this many instance types in one `ComputeQuotaResources`.
pub const MAX_ENTRIES: i64 = 15;

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

/// How an entry's `accelerator_partition` behaves when the configuration leaves it null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partitions {
    /// A record of what is guaranteed (the allocation): null is no partitions.
    AsWritten,
    /// A tenant's quota: null keeps what the live entry holds (computed from it), so a partition set in the
    /// console survives an unrelated change and shows in state.
    KeepLive,
}

/// `AcceleratorPartition` (`Type`, `Count`, both required by the API).
fn partition_attribute(partitions: Partitions) -> Attribute {
    let attribute = Attribute::nested(
        "accelerator_partition",
        Nesting::Single,
        vec![
            Attribute::string("type")
                .required()
                .describe("MIG profile of the slices, e.g. `mig-1g.10gb` (the API's `MIGProfileType`).")
                .validate(OneOf(&MIG_PROFILES)),
            Attribute::number("count")
                .required()
                .describe("Slices of that profile; SageMaker fills vCPU and memory by ratio unless given.")
                .validate(IntBetween {
                    min: 0,
                    max: 10_000_000,
                }),
        ],
    );
    match partitions {
        Partitions::AsWritten => attribute.optional().describe(
            "MIG slices guaranteed (`AcceleratorPartition`), on an instance type whose instance groups partition \
             their GPUs (`nvidia.com/mig.config`); not with `count` or `accelerators`.",
        ),
        Partitions::KeepLive => attribute.optional_computed().describe(
            "MIG slices guaranteed (`AcceleratorPartition`), on an instance type whose instance groups partition \
             their GPUs (`nvidia.com/mig.config`, WKL-3); not with `count` or `accelerators`. Unset: a partition \
             the live quota holds for this instance type (set in the console) is kept and shown here, with a \
             warning; giving the entry `count` or `accelerators` instead drops it.",
        ),
    }
}

/// The attributes of one entry: the instance type and its amount in one unit.
pub fn attributes(partitions: Partitions) -> Vec<Attribute> {
    vec![
        Attribute::string("instance_type")
            .required()
            .describe("Instance type of a cluster instance group, e.g. `ml.p5.48xlarge`.")
            .validate(Matches::new(
                r"ml\.[a-z0-9-]+\.[a-z0-9-]+",
                "an instance type such as \"ml.p5.48xlarge\"",
            )),
        Attribute::number("count")
            .optional()
            .describe("Whole instances guaranteed to the team.")
            .validate(IntBetween {
                min: 0,
                max: 10_000_000,
            }),
        Attribute::number("accelerators")
            .optional()
            .describe("Accelerators (GPUs, Trainium chips) guaranteed; SageMaker fills vCPU and memory by ratio.")
            .validate(IntBetween {
                min: 0,
                max: 10_000_000,
            }),
        Attribute::number("vcpu")
            .optional()
            .describe("vCPUs guaranteed.")
            .validate(NonNegativeNumber)
            .validate(AtMost(10_000_000.0)),
        Attribute::number("memory_gib")
            .optional()
            .describe("Memory guaranteed, in GiB.")
            .validate(NonNegativeNumber)
            .validate(AtMost(10_000_000.0)),
        partition_attribute(partitions),
    ]
}

/// What SageMaker refuses in a list of entries at `at` (`quota`, `teams["x"].quota`): too many, an instance type
/// twice, `count` with amounts, an entry with no amount.
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
    let mut types = std::collections::BTreeSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = at.index(index);
        if let Some(instance_type) = string(entry, "instance_type")
            && !types.insert(instance_type.clone())
        {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr("instance_type"),
                format!("{instance_type:?}"),
                "the instance type has another entry already (SageMaker refuses a type listed twice)",
                "write one entry per instance type",
            ));
        }
        // Whole instances or amounts, never both: CreateComputeQuota refuses Count with the others.
        let set = |f: &str| entry.get_attr(f).is_some_and(|v| v.is_known() && !v.is_null());
        // Slices are a unit of their own: with whole instances or accelerators the entry would count twice (the API
        // is silent; the stricter reading, which the sandbox refuses too). vCPU and memory may go with them.
        if set("accelerator_partition")
            && let Some(other) = ["count", "accelerators"].into_iter().find(|f| set(f))
        {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr("accelerator_partition"),
                format!("accelerator_partition and {other} both set"),
                "an entry guarantees MIG slices or whole instances or accelerators, not both",
                &format!("remove {other}, or remove accelerator_partition"),
            ));
        }
        if set("count")
            && let Some(other) = ["accelerators", "vcpu", "memory_gib"].into_iter().find(|f| set(f))
        {
            diagnostics.push(Diagnostic::invalid_value(
                at.push_attr(other),
                format!("count and {other} both set"),
                "a quota entry allocates whole instances (count) or amounts (accelerators, vcpu, memory_gib), \
                 not both",
                "remove count, or remove the amounts",
            ));
        }
    }
    for (index, entry) in entries.iter().enumerate() {
        let amounts = ["count", "accelerators", "vcpu", "memory_gib", "accelerator_partition"];
        if entry.is_wholly_known() && amounts.iter().all(|f| entry.get_attr(f).is_none_or(Value::is_null)) {
            diagnostics.push(Diagnostic::invalid_value(
                at.index(index),
                format!(
                    "{:?} with no amount",
                    string(entry, "instance_type").unwrap_or_default()
                ),
                "a quota entry needs an amount",
                "set count (whole instances), or accelerators, vcpu, memory_gib or accelerator_partition",
            ));
        }
    }
}

/// The object type of one entry in a `governance` value.
pub fn entry_type() -> Type {
    Type::object([
        ("instance_type", Type::String),
        ("count", Type::Number),
        ("accelerators", Type::Number),
        ("vcpu", Type::Number),
        ("memory_gib", Type::Number),
        ("accelerator_partition", partition_type()),
    ])
}

/// The object type of `accelerator_partition`.
pub fn partition_type() -> Type {
    Type::object([("type", Type::String), ("count", Type::Number)])
}

/// An entry, or `None` while a field is unknown (or not a number the entry allows).
pub fn decode(entry: &Fields<'_>) -> Option<QuotaShare> {
    Some(QuotaShare {
        instance_type: entry.string("instance_type").known()?,
        count: entry.integer("count").optional()?,
        accelerators: entry.integer("accelerators").optional()?,
        vcpu: entry.number("vcpu").optional()?,
        memory_gib: entry.number("memory_gib").optional()?,
        accelerator_partition: match entry.block("accelerator_partition").optional()? {
            Some(partition) => Some((partition.string("type").known()?, partition.integer("count").known()?)),
            None => None,
        },
    })
}

/// A partition as values carry it (`{type, count}`), or null.
pub fn partition_value(partition: Option<&(String, i64)>) -> Value {
    match partition {
        Some((profile, count)) => object([
            ("type", Value::String(profile.clone())),
            ("count", crate::protocol::object::int(*count)),
        ]),
        None => Value::Null,
    }
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

/// An entry of a configuration (a `quota` block, an allocation's entry) as `governance` carries it: the five
/// fields, each as configured (null, unknown or known).
pub fn governance_entry(entry: &Value) -> Value {
    let field = |name: &str| entry.get_attr(name).cloned().unwrap_or(Value::Null);
    object([
        ("instance_type", field("instance_type")),
        ("count", field("count")),
        ("accelerators", field("accelerators")),
        ("vcpu", field("vcpu")),
        ("memory_gib", field("memory_gib")),
        ("accelerator_partition", field("accelerator_partition")),
    ])
}

/// A list of entries as `governance` carries it: unknown while the list is.
pub fn governance_list(value: Option<&Value>) -> Value {
    match value {
        Some(Value::List(entries) | Value::Set(entries)) => Value::List(entries.iter().map(governance_entry).collect()),
        Some(Value::Null) | None => Value::List(Vec::new()),
        Some(_) => Value::Unknown,
    }
}

/// Entries as one line: `ml.p5.48xlarge count=5, ml.g5.8xlarge accelerators=4` (each entry its instance type and
/// the units it sets). How an allocation's `governance` carries a team's share: one line per team in the plan.
pub fn to_text(shares: &[QuotaShare]) -> String {
    let number = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            format!("{n:.0}")
        } else {
            format!("{n}")
        }
    };
    shares
        .iter()
        .map(|share| {
            let mut text = share.instance_type.clone();
            for (unit, amount) in [
                ("count", share.count.map(|c| c as f64)),
                ("accelerators", share.accelerators.map(|a| a as f64)),
                ("vcpu", share.vcpu),
                ("memory_gib", share.memory_gib),
            ] {
                if let Some(amount) = amount {
                    text.push_str(&format!(" {unit}={}", number(amount)));
                }
            }
            if let Some((profile, count)) = &share.accelerator_partition {
                text.push_str(&format!(" {profile}={count}"));
            }
            text
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The entries of [`to_text`]'s line, or `None` when it is not one.
pub fn from_text(text: &str) -> Option<Vec<QuotaShare>> {
    line_entries(text)
        .ok()?
        .iter()
        .map(|entry| decode(&Fields(entry)))
        .collect()
}

/// The entries of a share line as entry objects (the shape of [`entry_type`]), each field null unless the line
/// sets it: what a configured entry would be, so a line is held to the same rules ([`validate_handoff_entries`]).
/// `Err` names the part of the line that is not what [`to_text`] writes.
pub fn line_entries(text: &str) -> Result<Vec<Value>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(", ").map(line_entry).collect()
}

fn line_entry(entry: &str) -> Result<Value, String> {
    let mut words = entry.split_whitespace();
    let instance_type = words.next().ok_or_else(|| "an empty entry".to_string())?;
    let amounts = ["count", "accelerators", "vcpu", "memory_gib", "accelerator_partition"];
    let mut fields: std::collections::BTreeMap<String, Value> = amounts
        .into_iter()
        .map(|name| (name.to_string(), Value::Null))
        .collect();
    fields.insert("instance_type".into(), Value::String(instance_type.to_string()));
    for word in words {
        let (unit, amount) = word
            .split_once('=')
            .ok_or_else(|| format!("{word:?} is not <unit>=<amount>"))?;
        // `to_text` writes finite decimals only: "inf" or "NaN" is not an amount it would write.
        let number = crate::protocol::value::Number::parse(amount)
            .ok()
            .filter(|number| number.as_f64().is_finite())
            .map(Value::Number)
            .ok_or_else(|| format!("{amount:?} ({unit}) is not a finite number"))?;
        let partition = MIG_PROFILES.contains(&unit);
        let field = if partition { "accelerator_partition" } else { unit };
        match fields.get(field) {
            Some(Value::Null) => {}
            Some(_) => return Err(format!("{field} is given twice in {entry:?}")),
            None => return Err(format!("{unit:?} is neither a unit nor a MIG profile")),
        }
        let value = if partition {
            object([("type", Value::String(unit.to_string())), ("count", number)])
        } else {
            number
        };
        fields.insert(field.to_string(), value);
    }
    Ok(Value::Object(fields))
}

/// Entries a handoff carries (a share line of an allocation's `governance`, the `quota` of a tenant's `governance`
/// written by hand), at `at`: held to what a configured entry is held to, the attributes' validators and
/// [`validate_entries`].
pub fn validate_handoff_entries(entries: &[Value], at: &AttributePath, diagnostics: &mut Diagnostics) {
    let entry = crate::protocol::schema::Block {
        attributes: attributes(Partitions::AsWritten),
        ..crate::protocol::schema::Block::default()
    };
    for (index, value) in entries.iter().enumerate() {
        entry.validate(value, &at.index(index), diagnostics);
    }
    validate_entries(entries, at, diagnostics);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_line_reads_back_as_the_shares_it_was_written_from() {
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
                accelerator_partition: Some(("mig-1g.5gb".into(), 14)),
                ..QuotaShare::default()
            },
        ];
        let line = to_text(&shares);
        assert_eq!(
            line,
            "ml.p5.48xlarge count=5, ml.g5.8xlarge vcpu=12.5 memory_gib=64, ml.p4d.24xlarge mig-1g.5gb=14"
        );
        assert_eq!(from_text(&line), Some(shares));
        assert_eq!(from_text(""), Some(Vec::new()));
        assert_eq!(from_text("ml.p5.48xlarge gpus=2"), None);
        assert_eq!(from_text("ml.p5.48xlarge count=two"), None);
        assert_eq!(from_text("ml.p5.48xlarge count=2 count=3"), None);
        assert_eq!(from_text("ml.p5.48xlarge vcpu=NaN"), None);
        assert_eq!(from_text("ml.p5.48xlarge vcpu=inf"), None);
        assert_eq!(from_text("ml.p5.48xlarge count=2.5"), None);
    }

    #[test]
    fn a_handoff_line_is_held_to_what_a_configured_entry_is_held_to() {
        let problems = |line: &str| {
            let entries = line_entries(line).expect("a share line");
            let mut diagnostics = Diagnostics::new();
            validate_handoff_entries(&entries, &AttributePath::attr("teams"), &mut diagnostics);
            diagnostics.0.iter().map(|d| d.path.to_string()).collect::<Vec<_>>()
        };
        assert!(problems("ml.p5.48xlarge count=5, ml.g5.8xlarge vcpu=12.5 memory_gib=64").is_empty());
        assert_eq!(problems("ml.p5.48xlarge count=-10"), ["teams[0].count"]);
        assert_eq!(problems("ml.p5.48xlarge vcpu=-1"), ["teams[0].vcpu"]);
        assert_eq!(problems("big.boxes count=2"), ["teams[0].instance_type"]);
        assert_eq!(
            problems("ml.p5.48xlarge count=1 accelerators=2"),
            ["teams[0].accelerators"]
        );
        assert_eq!(
            problems("ml.p5.48xlarge count=1, ml.p5.48xlarge count=2"),
            ["teams[1].instance_type"]
        );
        assert_eq!(problems("ml.p5.48xlarge"), ["teams[0]"]);
        for not_a_line in [
            "two big boxes please",
            "ml.p5.48xlarge vcpu=NaN",
            "ml.p5.48xlarge vcpu=inf",
            "ml.p5.48xlarge gpus=2",
        ] {
            assert!(line_entries(not_a_line).is_err(), "{not_a_line}");
        }
    }
}
