//! cty types and Terraform's JSON type encoding.

use std::collections::BTreeMap;
use std::fmt;

use super::ValueError;

/// Deepest nesting accepted while decoding a type or a value. Schemas are shallow; the limit only stops hostile
/// input (e.g. a chain of dynamic wrappers) from overflowing the stack.
pub(super) const MAX_DEPTH: usize = 128;

/// A cty type, as in Terraform's JSON type encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Bool,
    Number,
    String,
    /// `"dynamic"`: the concrete type travels with the value.
    Dynamic,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Object(BTreeMap<String, Type>),
    Tuple(Vec<Type>),
}

impl Type {
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    pub fn set(elem: Type) -> Type {
        Type::Set(Box::new(elem))
    }

    pub fn map(elem: Type) -> Type {
        Type::Map(Box::new(elem))
    }

    pub fn object<K: Into<String>>(attrs: impl IntoIterator<Item = (K, Type)>) -> Type {
        Type::Object(attrs.into_iter().map(|(k, t)| (k.into(), t)).collect())
    }

    pub fn tuple(elems: impl IntoIterator<Item = Type>) -> Type {
        Type::Tuple(elems.into_iter().collect())
    }

    /// The JSON type encoding, e.g. `["list","string"]`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        let complex = |kind: &str, inner: J| J::Array(vec![J::from(kind), inner]);
        match self {
            Type::Bool => J::from("bool"),
            Type::Number => J::from("number"),
            Type::String => J::from("string"),
            Type::Dynamic => J::from("dynamic"),
            Type::List(t) => complex("list", t.to_json()),
            Type::Set(t) => complex("set", t.to_json()),
            Type::Map(t) => complex("map", t.to_json()),
            Type::Object(attrs) => complex(
                "object",
                J::Object(attrs.iter().map(|(k, t)| (k.clone(), t.to_json())).collect()),
            ),
            Type::Tuple(elems) => complex("tuple", J::Array(elems.iter().map(Type::to_json).collect())),
        }
    }

    /// Compact JSON text of [`Type::to_json`], as used in dynamic values and schemas.
    pub fn to_json_bytes(&self) -> Vec<u8> {
        self.to_json().to_string().into_bytes()
    }

    /// Parses the JSON type encoding. An object type's optional third element (the sorted
    /// names of optional attributes) is validated and dropped: optional attributes are
    /// ordinary attributes on the wire.
    pub fn from_json(v: &serde_json::Value) -> Result<Type, ValueError> {
        type_from_json(v, 0)
    }

    pub fn from_json_bytes(bytes: &[u8]) -> Result<Type, ValueError> {
        let v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| ValueError::bad_type(format!("not JSON: {e}")))?;
        Type::from_json(&v)
    }

    /// Human-readable name used in error messages, e.g. "list of string".
    pub fn friendly_name(&self) -> String {
        match self {
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::Dynamic => "dynamic".into(),
            Type::List(t) => format!("list of {}", t.friendly_name()),
            Type::Set(t) => format!("set of {}", t.friendly_name()),
            Type::Map(t) => format!("map of {}", t.friendly_name()),
            Type::Object(_) => "object".into(),
            Type::Tuple(_) => "tuple".into(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

fn type_from_json(v: &serde_json::Value, depth: usize) -> Result<Type, ValueError> {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Err(ValueError::bad_type("nested too deeply"));
    }
    let elem = |v: &J| type_from_json(v, depth + 1);
    match v {
        J::String(name) => match name.as_str() {
            "bool" => Ok(Type::Bool),
            "number" => Ok(Type::Number),
            "string" => Ok(Type::String),
            "dynamic" => Ok(Type::Dynamic),
            other => Err(ValueError::bad_type(format!("unknown primitive type {other:?}"))),
        },
        J::Array(parts) => {
            let Some(kind) = parts.first().and_then(J::as_str) else {
                return Err(ValueError::bad_type("complex type must start with its kind name"));
            };
            match (kind, &parts[1..]) {
                ("list", [t]) => Ok(Type::list(elem(t)?)),
                ("set", [t]) => Ok(Type::set(elem(t)?)),
                ("map", [t]) => Ok(Type::map(elem(t)?)),
                ("object", [J::Object(attrs), rest @ ..]) if rest.len() <= 1 => {
                    let attrs = attrs
                        .iter()
                        .map(|(k, t)| Ok((k.clone(), elem(t)?)))
                        .collect::<Result<BTreeMap<_, _>, ValueError>>()?;
                    if let Some(optional) = rest.first() {
                        let names = optional
                            .as_array()
                            .ok_or_else(|| ValueError::bad_type("optional attributes must be an array of names"))?;
                        for name in names {
                            match name.as_str() {
                                Some(n) if attrs.contains_key(n) => {}
                                _ => {
                                    return Err(ValueError::bad_type(format!(
                                        "optional attribute {name} is not an attribute of the object"
                                    )));
                                }
                            }
                        }
                    }
                    Ok(Type::Object(attrs))
                }
                ("tuple", [J::Array(elems)]) => Ok(Type::Tuple(elems.iter().map(elem).collect::<Result<_, _>>()?)),
                _ => Err(ValueError::bad_type(format!("malformed {kind:?} type {v}"))),
            }
        }
        other => Err(ValueError::bad_type(format!("unexpected JSON {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::{arb_type, schema};
    use proptest::prelude::*;

    #[test]
    fn type_json() {
        let t = schema();
        assert_eq!(Type::from_json_bytes(&t.to_json_bytes()).unwrap(), t);
        let with_optional = br#"["object",{"a":"string","b":["set","number"]},["b"]]"#;
        assert_eq!(
            Type::from_json_bytes(with_optional).unwrap(),
            Type::object([("a", Type::String), ("b", Type::set(Type::Number))])
        );
        for bad in [
            &br#""str""#[..],
            br#"["list"]"#,
            br#"["list","string","x"]"#,
            br#"["object",{"a":"string"},["zz"]]"#,
            br#"["tuple",{}]"#,
            b"7",
            br"[]",
        ] {
            assert!(Type::from_json_bytes(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(Type::list(Type::String).friendly_name(), "list of string");
    }

    proptest! {
        #[test]
        fn prop_type_json_round_trip(ty in arb_type(true)) {
            prop_assert_eq!(Type::from_json_bytes(&ty.to_json_bytes()).unwrap(), ty);
        }
    }
}
