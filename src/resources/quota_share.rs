//! One entry of a guaranteed quota as configuration and `governance` values carry it (`instance_type`, `count`,
//! `accelerators`, `vcpu`, `memory_gib`), read into the engine's `QuotaShare`. A tenant's `quota` blocks, the
//! cluster allocation's `teams[*].quota` and a tenant's `governance.quota` share this shape.

use crate::governance::QuotaShare;
use crate::protocol::decode::Fields;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{object, string};
use crate::protocol::schema::Attribute;
use crate::protocol::validators::{IntBetween, Matches, NonNegativeNumber};
use crate::protocol::value::{Type, Value};
use crate::resources::validators::AtMost;

/// SageMaker takes at most this many instance types in one `ComputeQuotaResources`.
pub const MAX_ENTRIES: i64 = 15;

/// The attributes of one entry: the instance type and its amount in one unit.
pub fn attributes() -> Vec<Attribute> {
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
        let amounts = ["count", "accelerators", "vcpu", "memory_gib"];
        if entry.is_wholly_known() && amounts.iter().all(|f| entry.get_attr(f).is_none_or(Value::is_null)) {
            diagnostics.push(Diagnostic::invalid_value(
                at.index(index),
                format!(
                    "{:?} with no amount",
                    string(entry, "instance_type").unwrap_or_default()
                ),
                "a quota entry needs an amount",
                "set count (whole instances), or accelerators, vcpu or memory_gib",
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
    ])
}

/// An entry, or `None` while a field is unknown (or not a number the entry allows).
pub fn decode(entry: &Fields<'_>) -> Option<QuotaShare> {
    Some(QuotaShare {
        instance_type: entry.string("instance_type").known()?,
        count: entry.integer("count").optional()?,
        accelerators: entry.integer("accelerators").optional()?,
        vcpu: entry.number("vcpu").optional()?,
        memory_gib: entry.number("memory_gib").optional()?,
        accelerator_partitions: Vec::new(),
    })
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
            text
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The entries of [`to_text`]'s line, or `None` when it is not one.
pub fn from_text(text: &str) -> Option<Vec<QuotaShare>> {
    if text.trim().is_empty() {
        return Some(Vec::new());
    }
    text.split(", ")
        .map(|entry| {
            let mut words = entry.split_whitespace();
            let mut share = QuotaShare {
                instance_type: words.next()?.to_string(),
                ..QuotaShare::default()
            };
            for word in words {
                let (unit, amount) = word.split_once('=')?;
                match unit {
                    "count" => share.count = Some(amount.parse().ok()?),
                    "accelerators" => share.accelerators = Some(amount.parse().ok()?),
                    "vcpu" => share.vcpu = Some(amount.parse::<f64>().ok().filter(|n| n.is_finite())?),
                    "memory_gib" => share.memory_gib = Some(amount.parse::<f64>().ok().filter(|n| n.is_finite())?),
                    _ => return None,
                }
            }
            Some(share)
        })
        .collect()
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
        ];
        let line = to_text(&shares);
        assert_eq!(line, "ml.p5.48xlarge count=5, ml.g5.8xlarge vcpu=12.5 memory_gib=64");
        assert_eq!(from_text(&line), Some(shares));
        assert_eq!(from_text(""), Some(Vec::new()));
        assert_eq!(from_text("ml.p5.48xlarge gpus=2"), None);
        assert_eq!(from_text("ml.p5.48xlarge count=two"), None);
    }
}
