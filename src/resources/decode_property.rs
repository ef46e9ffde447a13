//! A property every resource's decoding must have (tests only): an argument whose value is unknown at plan is never
//! read as if it were unset. For each argument of a schema, the decoder given the argument unknown either defers
//! (`None`) or yields something other than what it yields with the argument null; otherwise a rule would judge
//! "not set" where the user set a value not known yet.

use crate::protocol::diagnostics::AttributePath;
use crate::protocol::schema::{AttributeKind, Block, Nesting, Presence};
use crate::protocol::value::{Type, Value};

/// `value` with the argument at `steps` (attribute names from the root; blocks take their first element) set.
fn set_at(value: &Value, steps: &[&str], to: Value) -> Value {
    let mut fields = match value {
        Value::Object(fields) => fields.clone(),
        _ => return value.clone(),
    };
    let Some(current) = fields.get(steps[0]).cloned() else {
        return value.clone();
    };
    let updated = if steps.len() == 1 {
        to
    } else {
        match current {
            Value::List(mut items) if !items.is_empty() => {
                items[0] = set_at(&items[0], &steps[1..], to);
                Value::List(items)
            }
            Value::Set(mut items) if !items.is_empty() => {
                items[0] = set_at(&items[0], &steps[1..], to);
                Value::Set(items)
            }
            object @ Value::Object(_) => set_at(&object, &steps[1..], to),
            other => other,
        }
    };
    fields.insert(steps[0].to_string(), updated);
    Value::Object(fields)
}

/// An argument: its path, whether Terraform lets it be null at plan, and an empty value of its type (collections).
struct Argument {
    steps: Vec<&'static str>,
    may_be_null: bool,
    empty: Option<Value>,
}

fn arguments(block: &Block, prefix: &[&'static str], out: &mut Vec<Argument>) {
    for attribute in &block.attributes {
        let AttributeKind::Primitive(ty) = &attribute.kind else {
            continue;
        };
        if attribute.presence == Presence::Computed {
            continue;
        }
        out.push(Argument {
            steps: [prefix, &[attribute.name]].concat(),
            may_be_null: attribute.presence != Presence::Required,
            empty: match ty {
                Type::List(_) => Some(Value::List(Vec::new())),
                Type::Set(_) => Some(Value::Set(Vec::new())),
                Type::Map(_) => Some(Value::Map(std::collections::BTreeMap::default())),
                _ => None,
            },
        });
    }
    for nested in &block.blocks {
        if nested.nesting != Nesting::Map {
            arguments(&nested.block, &[prefix, &[nested.name]].concat(), out);
        }
    }
}

/// The arguments (as paths) that `decode` reads as unset (null, or an empty collection) while they are unknown,
/// starting from `baseline` (a configuration with every block the decoder reads present). A required argument is
/// never null at plan, so for it only the empty collection counts. `skip` lists arguments read elsewhere.
pub fn unknown_read_as_unset<T: PartialEq>(
    block: &Block,
    baseline: &Value,
    skip: &[&str],
    decode: impl Fn(&Value) -> Option<T>,
) -> Vec<String> {
    let mut paths = Vec::new();
    arguments(block, &[], &mut paths);
    let mut wrong = Vec::new();
    for argument in paths {
        let steps = argument.steps;
        let path = steps
            .iter()
            .fold(AttributePath::root(), |p, s| p.push_attr(s))
            .to_string();
        if skip.contains(&path.as_str()) {
            continue;
        }
        let unknown = set_at(baseline, &steps, Value::Unknown);
        if &unknown == baseline {
            continue; // its block is absent from the baseline
        }
        let Some(decoded) = decode(&unknown) else {
            continue; // deferred: judged at apply
        };
        let unset = [argument.may_be_null.then_some(Value::Null), argument.empty]
            .into_iter()
            .flatten()
            .any(|unset| decode(&set_at(baseline, &steps, unset)).is_some_and(|read| read == decoded));
        if unset {
            wrong.push(path);
        }
    }
    wrong
}
