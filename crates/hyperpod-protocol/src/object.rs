//! Reading and building object values: the small vocabulary resources use to flatten and expand their state.
//! Readers return `None` for null and unknown values alike; callers that must tell them apart use `Value` directly.

use std::collections::BTreeMap;

use super::value::{Number, Value};

pub fn string(object: &Value, name: &str) -> Option<String> {
    match object.get_attr(name) {
        Some(Value::String(text)) => Some(text.clone()),
        _ => None,
    }
}

pub fn boolean(object: &Value, name: &str) -> Option<bool> {
    match object.get_attr(name) {
        Some(Value::Bool(flag)) => Some(*flag),
        _ => None,
    }
}

pub fn integer(object: &Value, name: &str) -> Option<i64> {
    match object.get_attr(name) {
        Some(Value::Number(number)) => number.as_i64(),
        _ => None,
    }
}

/// The known strings of a list or set attribute (empty when null or unknown).
pub fn strings(object: &Value, name: &str) -> Vec<String> {
    elements(object, name)
        .iter()
        .filter_map(|item| match item {
            Value::String(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// The elements of a list, set or tuple attribute (empty when null or unknown).
pub fn elements<'a>(object: &'a Value, name: &str) -> &'a [Value] {
    match object.get_attr(name) {
        Some(Value::List(items) | Value::Set(items) | Value::Tuple(items)) => items,
        _ => &[],
    }
}

/// A map of strings (empty when null or unknown; unknown entries are skipped).
pub fn string_map(object: &Value, name: &str) -> BTreeMap<String, String> {
    match object.get_attr(name) {
        Some(Value::Map(entries)) => entries
            .iter()
            .filter_map(|(key, value)| match value {
                Value::String(text) => Some((key.clone(), text.clone())),
                _ => None,
            })
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// A single nested block or object attribute, when present and known.
pub fn nested<'a>(object: &'a Value, name: &str) -> Option<&'a Value> {
    match object.get_attr(name) {
        Some(value @ Value::Object(_)) => Some(value),
        // A single block is sometimes sent as a one-element list by older clients.
        Some(Value::List(items)) => items.first().filter(|v| matches!(v, Value::Object(_))),
        _ => None,
    }
}

pub fn object<'a>(attributes: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    Value::Object(
        attributes
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect(),
    )
}

pub fn text(value: impl Into<String>) -> Value {
    Value::String(value.into())
}

pub fn optional_text(value: Option<impl Into<String>>) -> Value {
    value.map_or(Value::Null, |v| Value::String(v.into()))
}

pub fn int(value: i64) -> Value {
    Value::Number(Number::from_i64(value))
}

pub fn text_map(entries: &BTreeMap<String, String>) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

pub fn text_list(items: &[String]) -> Value {
    Value::List(items.iter().map(|item| Value::String(item.clone())).collect())
}

/// State may not hold unknown values: after a failed step, anything still unknown is recorded as null.
pub fn unknowns_to_null(value: Value) -> Value {
    match value {
        Value::Unknown => Value::Null,
        Value::List(items) => Value::List(items.into_iter().map(unknowns_to_null).collect()),
        Value::Set(items) => Value::Set(items.into_iter().map(unknowns_to_null).collect()),
        Value::Tuple(items) => Value::Tuple(items.into_iter().map(unknowns_to_null).collect()),
        Value::Map(entries) => Value::Map(entries.into_iter().map(|(k, v)| (k, unknowns_to_null(v))).collect()),
        Value::Object(entries) => Value::Object(entries.into_iter().map(|(k, v)| (k, unknowns_to_null(v))).collect()),
        known => known,
    }
}
