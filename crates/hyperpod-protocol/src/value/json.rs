//! go-cty JSON encoding and decoding (raw state in `UpgradeResourceState`).

use std::collections::BTreeMap;
use std::str::FromStr;

use super::error::tuple_len_error;
use super::types::MAX_DEPTH;
use super::{AttrPath, Number, Type, Value, ValueError, ValuePathStep};

impl Value {
    /// Decodes go-cty JSON (e.g. raw state in `UpgradeResourceState`). As in cty, missing
    /// object attributes become null, and strings convert to numbers and bools.
    pub fn decode_json(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
        let json: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| ValueError::invalid(format!("invalid JSON: {e}")))?;
        Value::from_json(&json, ty)
    }

    /// Like [`Value::decode_json`], from an already parsed document.
    pub fn from_json(json: &serde_json::Value, ty: &Type) -> Result<Value, ValueError> {
        decode(json, ty)
    }

    /// Encodes as go-cty JSON. Only known values can be encoded (JSON has no unknown).
    pub fn encode_json(&self, ty: &Type) -> Result<Vec<u8>, ValueError> {
        Ok(self.to_json(ty)?.to_string().into_bytes())
    }

    /// Like [`Value::encode_json`], as a JSON document.
    pub fn to_json(&self, ty: &Type) -> Result<serde_json::Value, ValueError> {
        encode(self, ty)
    }
}

/// Entry point behind [`Value::to_json`].
pub(super) fn encode(v: &Value, ty: &Type) -> Result<serde_json::Value, ValueError> {
    encode_js(v, ty)
}

/// Entry point behind [`Value::from_json`].
pub(super) fn decode(j: &serde_json::Value, ty: &Type) -> Result<Value, ValueError> {
    decode_js(j, ty, 0)
}

fn json_kind(j: &serde_json::Value) -> &'static str {
    use serde_json::Value as J;
    match j {
        J::Null => "null",
        J::Bool(_) => "bool",
        J::Number(_) => "number",
        J::String(_) => "string",
        J::Array(_) => "array",
        J::Object(_) => "object",
    }
}

fn encode_js(v: &Value, ty: &Type) -> Result<serde_json::Value, ValueError> {
    use serde_json::Value as J;
    Ok(match (v, ty) {
        (Value::Unknown, _) => {
            return Err(ValueError::invalid("unknown values cannot be encoded as JSON"));
        }
        (Value::Null, _) => J::Null,
        // cty's JSON form of a dynamic value: {"value": ..., "type": ...}.
        (_, Type::Dynamic) => {
            let concrete = v.implied_type();
            let mut obj = serde_json::Map::new();
            obj.insert("value".into(), encode_js(v, &concrete)?);
            obj.insert("type".into(), concrete.to_json());
            J::Object(obj)
        }
        (Value::Bool(b), Type::Bool) => J::Bool(*b),
        (Value::Number(n), Type::Number) => {
            if n.is_infinite() {
                return Err(ValueError::invalid("infinity cannot be encoded as JSON"));
            }
            // With arbitrary_precision the JSON number keeps our exact text.
            let num = serde_json::Number::from_str(n.as_str()).map_err(|e| ValueError::InvalidNumber {
                path: AttrPath::default(),
                text: n.as_str().to_owned(),
                reason: if e.is_syntax() {
                    "not a JSON number"
                } else {
                    "unrepresentable"
                },
            })?;
            J::Number(num)
        }
        (Value::String(s), Type::String) => J::String(s.clone()),
        (Value::List(xs) | Value::Set(xs) | Value::Tuple(xs), Type::List(et) | Type::Set(et)) => J::Array(
            xs.iter()
                .enumerate()
                .map(|(i, x)| encode_js(x, et).map_err(|e| e.within(ValuePathStep::Index(i))))
                .collect::<Result<_, _>>()?,
        ),
        (Value::List(xs) | Value::Set(xs) | Value::Tuple(xs), Type::Tuple(ets)) => {
            if xs.len() != ets.len() {
                return Err(tuple_len_error(ets.len(), xs.len()));
            }
            J::Array(
                xs.iter()
                    .zip(ets)
                    .enumerate()
                    .map(|(i, (x, et))| encode_js(x, et).map_err(|e| e.within(ValuePathStep::Index(i))))
                    .collect::<Result<_, _>>()?,
            )
        }
        (Value::Map(m) | Value::Object(m), Type::Map(et)) => J::Object(
            m.iter()
                .map(|(k, x)| {
                    let j = encode_js(x, et).map_err(|e| e.within(ValuePathStep::Key(k.clone())))?;
                    Ok((k.clone(), j))
                })
                .collect::<Result<_, ValueError>>()?,
        ),
        (Value::Map(m) | Value::Object(m), Type::Object(attrs)) => {
            if let Some(extra) = m.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(ValueError::UnsupportedAttribute {
                    path: AttrPath::default(),
                    name: extra.clone(),
                });
            }
            J::Object(
                attrs
                    .iter()
                    .map(|(k, at)| {
                        let x = m.get(k).unwrap_or(&Value::Null);
                        let j = encode_js(x, at).map_err(|e| e.within(ValuePathStep::Attr(k.clone())))?;
                        Ok((k.clone(), j))
                    })
                    .collect::<Result<_, ValueError>>()?,
            )
        }
        _ => return Err(ValueError::mismatch(ty.friendly_name(), v.kind_name())),
    })
}

fn decode_js(j: &serde_json::Value, ty: &Type, depth: usize) -> Result<Value, ValueError> {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Err(ValueError::invalid(format!(
            "value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    if j.is_null() {
        return Ok(Value::Null);
    }
    let expected = || ValueError::mismatch(ty.friendly_name(), json_kind(j));
    match ty {
        Type::Dynamic => {
            let obj = j.as_object().ok_or_else(expected)?;
            if let Some(bad) = obj.keys().find(|k| *k != "value" && *k != "type") {
                return Err(ValueError::invalid(format!(
                    "invalid key {bad:?} in dynamically-typed value"
                )));
            }
            let t = obj
                .get("type")
                .ok_or_else(|| ValueError::invalid("missing type in dynamically-typed value"))?;
            let v = obj
                .get("value")
                .ok_or_else(|| ValueError::invalid("missing value in dynamically-typed value"))?;
            decode_js(v, &Type::from_json(t)?, depth + 1)
        }
        // cty converts strings to bools and numbers when reading JSON.
        Type::Bool => match j {
            J::Bool(b) => Ok(Value::Bool(*b)),
            J::String(s) => match s.as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(ValueError::mismatch("bool", format!("string {s:?}"))),
            },
            _ => Err(expected()),
        },
        Type::Number => match j {
            J::Number(n) => Number::parse(n.as_str()).map(Value::Number),
            J::String(s) => Number::parse(s).map(Value::Number),
            _ => Err(expected()),
        },
        Type::String => match j {
            J::String(s) => Ok(Value::String(s.clone())),
            J::Number(n) => Ok(Value::String(n.as_str().to_owned())),
            J::Bool(b) => Ok(Value::String(b.to_string())),
            _ => Err(expected()),
        },
        Type::List(et) | Type::Set(et) => {
            let items = j
                .as_array()
                .ok_or_else(expected)?
                .iter()
                .enumerate()
                .map(|(i, x)| decode_js(x, et, depth + 1).map_err(|e| e.within(ValuePathStep::Index(i))))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(if matches!(ty, Type::List(_)) {
                Value::List(items)
            } else {
                Value::Set(items)
            })
        }
        Type::Tuple(ets) => {
            let arr = j.as_array().ok_or_else(expected)?;
            if arr.len() != ets.len() {
                return Err(tuple_len_error(ets.len(), arr.len()));
            }
            arr.iter()
                .zip(ets)
                .enumerate()
                .map(|(i, (x, et))| decode_js(x, et, depth + 1).map_err(|e| e.within(ValuePathStep::Index(i))))
                .collect::<Result<_, _>>()
                .map(Value::Tuple)
        }
        Type::Map(et) => j
            .as_object()
            .ok_or_else(expected)?
            .iter()
            .map(|(k, x)| {
                let v = decode_js(x, et, depth + 1).map_err(|e| e.within(ValuePathStep::Key(k.clone())))?;
                Ok((k.clone(), v))
            })
            .collect::<Result<_, ValueError>>()
            .map(Value::Map),
        Type::Object(attrs) => {
            let obj = j.as_object().ok_or_else(expected)?;
            let mut entries = BTreeMap::new();
            for (k, x) in obj {
                let Some(at) = attrs.get(k) else {
                    return Err(ValueError::UnsupportedAttribute {
                        path: AttrPath::default(),
                        name: k.clone(),
                    });
                };
                let v = decode_js(x, at, depth + 1).map_err(|e| e.within(ValuePathStep::Attr(k.clone())))?;
                entries.insert(k.clone(), v);
            }
            // Unlike msgpack, cty's JSON reader fills absent attributes with null.
            for k in attrs.keys() {
                entries.entry(k.clone()).or_insert(Value::Null);
            }
            Ok(Value::Object(entries))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::typed_value;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn prop_json_round_trip((ty, v) in typed_value(false)) {
            let bytes = v.encode_json(&ty).unwrap();
            prop_assert_eq!(Value::decode_json(&bytes, &ty).unwrap(), v);
        }
    }
}
