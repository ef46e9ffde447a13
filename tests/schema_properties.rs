//! Fail closed, for every resource schema: a known value that cannot mean what the attribute says (fractional or
//! huge numbers where whole ones are meant, empty or oversized strings where a format is enforced) is a diagnostic
//! at that attribute's path, from `terraform validate` on; an unknown or null value is never judged there; and no
//! value makes validation panic.

use terraform_provider_hyperpod::protocol::diagnostics::{AttributePath, Diagnostics, Severity};
use terraform_provider_hyperpod::protocol::plugin::PluginProvider;
use terraform_provider_hyperpod::protocol::schema::{AttributeKind, Block, Nesting, Presence};
use terraform_provider_hyperpod::protocol::value::{Number, Type, Value};
use terraform_provider_hyperpod::provider::HyperpodProvider;

/// Amounts that may be fractional (SageMaker takes vCPUs and GiB as floats).
const FRACTIONAL: &[&str] = &["vcpu", "memory_gib"];

/// One argument of a schema: where it is, its type, whether it has validators.
struct Argument {
    path: AttributePath,
    /// The attribute names from the root to it (blocks included), to build a config that sets it.
    steps: Vec<(String, Option<Nesting>)>,
    ty: Type,
    validated: bool,
    /// Required: a null is a missing argument, which validate reports (Terraform lets `x = null` through a required
    /// attribute of a nested block).
    required: bool,
}

fn arguments(block: &Block, path: &AttributePath, steps: &[(String, Option<Nesting>)], out: &mut Vec<Argument>) {
    for attribute in &block.attributes {
        if attribute.presence == Presence::Computed {
            continue; // not the user's to set
        }
        if let AttributeKind::Primitive(ty) = &attribute.kind {
            let mut here = steps.to_vec();
            here.push((attribute.name.to_string(), None));
            out.push(Argument {
                path: path.push_attr(attribute.name),
                steps: here,
                ty: ty.clone(),
                validated: !attribute.validators.is_empty(),
                required: attribute.presence == Presence::Required,
            });
        }
    }
    for nested in &block.blocks {
        let mut here = steps.to_vec();
        here.push((nested.name.to_string(), Some(nested.nesting)));
        let nested_path = match nested.nesting {
            Nesting::Single => path.push_attr(nested.name),
            _ => path.push_attr(nested.name).index(0),
        };
        arguments(&nested.block, &nested_path, &here, out);
    }
}

/// `base` with the argument at `steps` set to `value` (blocks on the way get one element).
fn with(base: &Value, block: &Block, steps: &[(String, Option<Nesting>)], value: Value) -> Value {
    let mut object = match base {
        Value::Object(fields) => fields.clone(),
        _ => std::collections::BTreeMap::default(),
    };
    let (name, nesting) = &steps[0];
    let inner = if steps.len() == 1 {
        value
    } else {
        let nested = block.blocks.iter().find(|b| b.name == name).expect("nested block");
        let element = with(&nested.block.null_value(), &nested.block, &steps[1..], value);
        match nesting {
            Some(Nesting::Single) | None => element,
            Some(Nesting::Set) => Value::Set(vec![element]),
            Some(_) => Value::List(vec![element]),
        }
    };
    object.insert(name.clone(), inner);
    Value::Object(object)
}

fn diagnostics_for(provider: &HyperpodProvider, type_name: &str, config: &Value) -> Diagnostics {
    let resource = provider
        .resources()
        .into_iter()
        .find(|r| r.type_name() == type_name)
        .expect("registered");
    let mut diagnostics = Diagnostics::new();
    resource
        .schema()
        .block
        .validate(config, &AttributePath::root(), &mut diagnostics);
    resource.validate(config, &mut diagnostics);
    diagnostics
}

fn number(text: &str) -> Value {
    Value::Number(Number::parse(text).expect("a number"))
}

#[test]
fn known_values_that_cannot_mean_what_the_attribute_says_fail_at_their_path() {
    let provider = HyperpodProvider::default();
    let mut checked = 0;
    let mut accepted = Vec::new();
    for resource in provider.resources() {
        let block = &resource.schema().block;
        let mut found = Vec::new();
        arguments(block, &AttributePath::root(), &[], &mut found);
        for argument in found {
            let name = argument.steps.last().map(|(n, _)| n.as_str()).unwrap_or_default();
            let mut bad: Vec<Value> = Vec::new();
            match &argument.ty {
                Type::Number => {
                    bad.push(number("1e400"));
                    bad.push(number("-1e400"));
                    if !FRACTIONAL.contains(&name) {
                        bad.push(number("2.5"));
                    }
                }
                Type::String if argument.validated => {
                    bad.push(Value::String("x".repeat(5000)));
                }
                _ => {}
            }
            for value in bad {
                let config = with(&block.null_value(), block, &argument.steps, value.clone());
                let diagnostics = diagnostics_for(&provider, resource.type_name(), &config);
                if !diagnostics
                    .0
                    .iter()
                    .any(|d| d.path == argument.path && d.severity == Severity::Error)
                {
                    let shown = match &value {
                        Value::String(text) => format!("a string of {} characters", text.len()),
                        other => format!("{other:?}"),
                    };
                    accepted.push(format!("{}.{}: {shown}", resource.type_name(), argument.path));
                }
                checked += 1;
            }
            // Unknown and null are never judged at validate: the plan judges them once known. A null required
            // argument is the exception: it is missing.
            let unset = if argument.required {
                vec![Value::Unknown]
            } else {
                vec![Value::Unknown, Value::Null]
            };
            for value in unset {
                let config = with(&block.null_value(), block, &argument.steps, value);
                let diagnostics = diagnostics_for(&provider, resource.type_name(), &config);
                assert!(
                    !diagnostics.0.iter().any(|d| d.path == argument.path),
                    "{}.{}: an unknown or null value was judged: {:?}",
                    resource.type_name(),
                    argument.path,
                    diagnostics.0
                );
            }
        }
    }
    assert!(accepted.is_empty(), "accepted at validate:\n{}", accepted.join("\n"));
    assert!(checked > 40, "only {checked} invalid values were tried");
}

/// Runs every validator in `block`, nested attributes and blocks included, over `samples`; returns how many ran.
fn run_validators(block: &Block, samples: &[Value], path: &AttributePath) -> usize {
    let mut ran = 0;
    for attribute in &block.attributes {
        let here = path.push_attr(attribute.name);
        for validator in &attribute.validators {
            for sample in samples {
                validator.validate(&here, sample, &mut Diagnostics::new());
            }
            ran += 1;
        }
        if let AttributeKind::Nested { attributes, .. } = &attribute.kind {
            let nested = Block {
                attributes: attributes.clone(),
                ..Block::default()
            };
            ran += run_validators(&nested, samples, &here);
        }
    }
    for nested in &block.blocks {
        ran += run_validators(&nested.block, samples, &path.push_attr(nested.name));
    }
    ran
}

/// Validators compile their patterns on first use (`Matches`), so a bad built-in pattern would only show when a
/// value reaches it: run every validator of every schema once, so that it shows here instead.
#[test]
fn every_validator_of_every_schema_runs() {
    let provider = HyperpodProvider::default();
    let samples = [
        Value::String(String::new()),
        Value::String("x".into()),
        Value::List(vec![Value::String("x".into())]),
        number("1"),
    ];
    let mut schemas = vec![provider.schema().clone()];
    schemas.extend(provider.resources().iter().map(|r| r.schema().clone()));
    schemas.extend(provider.data_sources().iter().map(|d| d.schema().clone()));
    let ran: usize = schemas
        .iter()
        .map(|schema| run_validators(&schema.block, &samples, &AttributePath::root()))
        .sum();
    assert!(ran > 40, "only {ran} validators ran");
}
