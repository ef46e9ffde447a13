//! Codec for tfplugin6 `DynamicValue` payloads.
//!
//! Terraform exchanges resource and data-source values as go-cty msgpack (and, for
//! `UpgradeResourceState`, go-cty JSON). Neither encoding carries types, so every decode and
//! encode here is driven by the schema [`Type`]. The rules follow go-cty's `cty/msgpack` and
//! `cty/json` packages; the code is our own.

use std::collections::BTreeMap;

mod error;
mod json;
mod msgpack;
mod number;
mod types;

pub use error::{AttrPath, ValueError, ValuePathStep};
pub use number::Number;
pub use types::Type;

// Private items of this module (`Value::kind_name`) are visible to the codec submodules, which add the codecs to
// `Value` (`json.rs`, `msgpack.rs`), so they need no wider visibility.

/// A cty value. It carries no type: the schema [`Type`] is supplied to every codec call.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    Unknown,
    /// Also the default: what Terraform holds for an attribute nobody set.
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    List(Vec<Value>),
    Set(Vec<Value>),
    Map(BTreeMap<String, Value>),
    Object(BTreeMap<String, Value>),
    Tuple(Vec<Value>),
}

impl Value {
    pub fn is_known(&self) -> bool {
        !matches!(self, Value::Unknown)
    }

    /// True when neither this value nor anything nested in it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Value::Unknown => false,
            Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs.iter().all(Value::is_wholly_known),
            Value::Map(m) | Value::Object(m) => m.values().all(Value::is_wholly_known),
            _ => true,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// An attribute of an object (or map) value.
    pub fn get_attr(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(m) | Value::Map(m) => m.get(name),
            _ => None,
        }
    }

    pub fn object<K: Into<String>>(attrs: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Object(attrs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// An object of the given object type with every attribute null (e.g. the starting point
    /// of a planned new state); `Null` for other types.
    pub fn null_attrs_of(ty: &Type) -> Value {
        match ty {
            Type::Object(attrs) => Value::Object(attrs.keys().map(|k| (k.clone(), Value::Null)).collect()),
            _ => Value::Null,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Elements of a list, set or tuple.
    pub fn as_elements(&self) -> Option<&[Value]> {
        match self {
            Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => Some(xs),
            _ => None,
        }
    }

    /// Entries of a map or attributes of an object.
    pub fn as_entries(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Map(m) | Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The type a dynamic value is sent as. Null and unknown imply `Dynamic`; a list, set or
    /// map takes the unified type of its elements (`Dynamic` parts are filled in by other
    /// elements), falling back to a tuple/object type when elements disagree, since a
    /// collection of mixed types would be invalid in cty.
    pub fn implied_type(&self) -> Type {
        match self {
            Value::Unknown | Value::Null => Type::Dynamic,
            Value::Bool(_) => Type::Bool,
            Value::Number(_) => Type::Number,
            Value::String(_) => Type::String,
            Value::List(xs) => unify_all(xs.iter()).map_or_else(|| tuple_of(xs), Type::list),
            Value::Set(xs) => unify_all(xs.iter()).map_or_else(|| tuple_of(xs), Type::set),
            Value::Map(m) => unify_all(m.values()).map_or_else(|| object_of(m), Type::map),
            Value::Object(m) => object_of(m),
            Value::Tuple(xs) => tuple_of(xs),
        }
    }

    fn kind_name(&self) -> &'static str {
        match self {
            Value::Unknown => "unknown",
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Tuple(_) => "tuple",
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Number(Number::from_i64(i))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

fn tuple_of(xs: &[Value]) -> Type {
    Type::Tuple(xs.iter().map(Value::implied_type).collect())
}

fn object_of(m: &BTreeMap<String, Value>) -> Type {
    Type::Object(m.iter().map(|(k, v)| (k.clone(), v.implied_type())).collect())
}

fn unify_all<'a>(mut values: impl Iterator<Item = &'a Value>) -> Option<Type> {
    values.try_fold(Type::Dynamic, |acc, v| unify(&acc, &v.implied_type()))
}

/// The most specific type both `a` and `b` conform to, treating `Dynamic` as "anything".
fn unify(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Dynamic, t) | (t, Type::Dynamic) => Some(t.clone()),
        (Type::List(x), Type::List(y)) => unify(x, y).map(Type::list),
        (Type::Set(x), Type::Set(y)) => unify(x, y).map(Type::set),
        (Type::Map(x), Type::Map(y)) => unify(x, y).map(Type::map),
        (Type::Object(x), Type::Object(y)) if x.len() == y.len() => x
            .iter()
            .map(|(k, t)| Some((k.clone(), unify(t, y.get(k)?)?)))
            .collect::<Option<_>>()
            .map(Type::Object),
        (Type::Tuple(x), Type::Tuple(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .map(|(p, q)| unify(p, q))
            .collect::<Option<_>>()
            .map(Type::Tuple),
        (x, y) if x == y => Some(x.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! Cross-codec tests, plus the fixtures and proptest strategies the per-file tests share.

    use super::*;
    use proptest::prelude::*;

    pub(super) fn num(s: &str) -> Number {
        Number::parse(s).expect("test number")
    }

    pub(super) fn roundtrip(v: &Value, ty: &Type) {
        let mp = v.encode_msgpack(ty).expect("encode msgpack");
        assert_eq!(&Value::decode_msgpack(&mp, ty).expect("decode msgpack"), v, "msgpack");
        if v.is_wholly_known() {
            let js = v.encode_json(ty).expect("encode json");
            assert_eq!(&Value::decode_json(&js, ty).expect("decode json"), v, "json");
        }
    }

    pub(super) fn schema() -> Type {
        Type::object([
            ("name", Type::String),
            ("enabled", Type::Bool),
            (
                "priority_class",
                Type::list(Type::object([("name", Type::String), ("weight", Type::Number)])),
            ),
            ("zones", Type::set(Type::String)),
            ("labels", Type::map(Type::String)),
            ("pair", Type::tuple([Type::String, Type::Number])),
            ("extra", Type::Dynamic),
            ("nested", Type::map(Type::list(Type::set(Type::Number)))),
        ])
    }

    pub(super) fn sample() -> Value {
        let class = |n: &str, w: i64| Value::object([("name", n.into()), ("weight", w.into())]);
        Value::object([
            ("name", "hp".into()),
            ("enabled", true.into()),
            ("priority_class", Value::List(vec![class("a", 10), class("b", -3)])),
            ("zones", Value::Set(vec!["us-east-1a".into(), "us-east-1b".into()])),
            ("labels", Value::Map([("team".to_owned(), "ml".into())].into())),
            ("pair", Value::Tuple(vec!["x".into(), Value::Number(num("0.5"))])),
            (
                "extra",
                Value::object([
                    ("list", Value::List(vec![1.into(), 2.into()])),
                    ("s", "v".into()),
                    ("none", Value::Null),
                ]),
            ),
            (
                "nested",
                Value::Map(
                    [(
                        "k".to_owned(),
                        Value::List(vec![Value::Set(vec![1.into()]), Value::Set(vec![])]),
                    )]
                    .into(),
                ),
            ),
        ])
    }

    #[test]
    fn round_trips_every_type() {
        roundtrip(&sample(), &schema());
        roundtrip(&Value::Null, &schema());
        roundtrip(&Value::null_attrs_of(&schema()), &schema());
        for (v, t) in [
            (Value::Bool(false), Type::Bool),
            (Value::String(String::new()), Type::String),
            (Value::String("ünïcødé ✓".into()), Type::String),
            (Value::List(vec![]), Type::list(Type::Number)),
            (Value::Map(BTreeMap::new()), Type::map(Type::Bool)),
            (
                Value::Object(BTreeMap::new()),
                Type::object(Vec::<(String, Type)>::new()),
            ),
            (Value::Tuple(vec![]), Type::tuple([])),
            ("s".into(), Type::Dynamic),
            (Value::List(vec![Value::Null, "a".into()]), Type::Dynamic),
            (Value::List(vec![1.into(), "a".into()]), Type::list(Type::Dynamic)),
        ] {
            roundtrip(&v, &t);
        }
    }

    #[test]
    fn object_shape_rules() {
        let ty = Type::object([("a", Type::Number), ("b", Type::Number)]);
        // msgpack: any order accepted; unknown, missing and duplicate attributes refused.
        assert_eq!(
            Value::decode_msgpack(&[0x82, 0xa1, b'b', 0x02, 0xa1, b'a', 0x01], &ty).unwrap(),
            Value::object([("a", 1.into()), ("b", 2.into())])
        );
        let err = Value::decode_msgpack(&[0x82, 0xa1, b'a', 0x01, 0xa1, b'c', 0x01], &ty).unwrap_err();
        assert_eq!(err.to_string(), "unsupported attribute \"c\"");
        let err = Value::decode_msgpack(&[0x81, 0xa1, b'a', 0x01], &ty).unwrap_err();
        assert_eq!(err.to_string(), "missing attribute \"b\"");
        assert!(Value::decode_msgpack(&[0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x01], &ty).is_err());
        // JSON (state upgrade): absent attributes are null, strings convert like cty.
        assert_eq!(
            Value::decode_json(br#"{"a":"7"}"#, &ty).unwrap(),
            Value::object([("a", 7.into()), ("b", Value::Null)])
        );
        assert!(Value::decode_json(br#"{"c":1}"#, &ty).is_err());
        assert_eq!(Value::decode_json(br#""1""#, &Type::Bool).unwrap(), true.into());
        assert_eq!(Value::decode_json(b"1.50", &Type::String).unwrap(), "1.50".into());
        // Tuples need the exact length; trailing bytes and truncation are errors.
        assert!(Value::decode_msgpack(&[0x91, 0x01], &Type::tuple([Type::Number, Type::Number])).is_err());
        assert!(Value::decode_msgpack(&[0x01, 0x02], &Type::Number).is_err());
        let full = sample().encode_msgpack(&schema()).unwrap();
        for cut in 0..full.len() {
            assert!(Value::decode_msgpack(&full[..cut], &schema()).is_err(), "prefix {cut}");
        }
    }

    #[test]
    fn dynamic_values() {
        let json = br#"{"value":{"a":[1,2]},"type":["object",{"a":["list","number"]}]}"#;
        let v = Value::decode_json(json, &Type::Dynamic).unwrap();
        assert_eq!(v, Value::object([("a", Value::List(vec![1.into(), 2.into()]))]));
        assert_eq!(Value::decode_json(b"null", &Type::Dynamic).unwrap(), Value::Null);
        assert!(Value::decode_json(br#"{"value":1}"#, &Type::Dynamic).is_err());
        assert!(Value::decode_json(br#"{"value":1,"type":"number","x":1}"#, &Type::Dynamic).is_err());
        // msgpack type JSON may come as str as well as bin.
        let mut bytes = vec![0x92, 0xa8];
        bytes.extend_from_slice(b"\"number\"");
        bytes.push(0x05);
        assert_eq!(Value::decode_msgpack(&bytes, &Type::Dynamic).unwrap(), 5.into());
        assert!(Value::decode_msgpack(&[0x91, 0xc0], &Type::Dynamic).is_err());
        // A chain of dynamic-in-dynamic wrappers stops at the depth limit, not the stack.
        let mut deep = Vec::new();
        for _ in 0..10_000 {
            deep.extend_from_slice(&[0x92, 0xa9]);
            deep.extend_from_slice(b"\"dynamic\"");
        }
        deep.push(0xc0);
        assert!(Value::decode_msgpack(&deep, &Type::Dynamic).is_err());
    }

    #[test]
    fn implied_types() {
        let v = Value::List(vec![
            Value::object([("a", Value::Null), ("b", Value::List(vec![]))]),
            Value::object([("a", "x".into()), ("b", Value::List(vec![1.into()]))]),
        ]);
        assert_eq!(
            v.implied_type(),
            Type::list(Type::object([("a", Type::String), ("b", Type::list(Type::Number))]))
        );
        assert_eq!(
            Value::List(vec![1.into(), "x".into()]).implied_type(),
            Type::tuple([Type::Number, Type::String])
        );
        assert_eq!(
            Value::Map([("k".to_owned(), true.into())].into()).implied_type(),
            Type::map(Type::Bool)
        );
        assert_eq!(Value::Set(vec![]).implied_type(), Type::set(Type::Dynamic));
        roundtrip(&v, &Type::Dynamic);
    }

    // ---- property tests

    pub(super) fn arb_type(allow_dynamic: bool) -> impl Strategy<Value = Type> {
        let leaf = if allow_dynamic {
            prop_oneof![
                Just(Type::Bool),
                Just(Type::Number),
                Just(Type::String),
                Just(Type::Dynamic)
            ]
            .boxed()
        } else {
            prop_oneof![Just(Type::Bool), Just(Type::Number), Just(Type::String)].boxed()
        };
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(Type::list),
                inner.clone().prop_map(Type::set),
                inner.clone().prop_map(Type::map),
                prop::collection::btree_map("[a-z_]{1,8}", inner.clone(), 0..4).prop_map(Type::Object),
                prop::collection::vec(inner, 0..4).prop_map(Type::Tuple),
            ]
        })
    }

    fn arb_number() -> impl Strategy<Value = Number> {
        prop_oneof![
            any::<i64>().prop_map(Number::from_i64),
            any::<u64>().prop_map(Number::from_u64),
            any::<f64>().prop_filter_map("finite", |f| f.is_finite().then(|| Number::from_f64(f)).flatten()),
            "-?[0-9]{1,40}(\\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?".prop_map(|s| num(&s)),
        ]
    }

    fn arb_value(ty: &Type, unknowns: bool) -> BoxedStrategy<Value> {
        let concrete: BoxedStrategy<Value> = match ty {
            Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
            Type::Number => arb_number().prop_map(Value::Number).boxed(),
            Type::String => ".{0,10}".prop_map(Value::String).boxed(),
            // What sits in a dynamic slot has some static type of its own.
            Type::Dynamic => arb_type(false).prop_flat_map(move |t| arb_value(&t, unknowns)).boxed(),
            Type::List(et) => prop::collection::vec(arb_value(et, unknowns), 0..4)
                .prop_map(Value::List)
                .boxed(),
            Type::Set(et) => prop::collection::vec(arb_value(et, unknowns), 0..4)
                .prop_map(Value::Set)
                .boxed(),
            Type::Map(et) => prop::collection::btree_map(".{0,6}", arb_value(et, unknowns), 0..4)
                .prop_map(Value::Map)
                .boxed(),
            Type::Object(attrs) => attrs
                .iter()
                .map(|(k, t)| {
                    let k = k.clone();
                    arb_value(t, unknowns).prop_map(move |v| (k.clone(), v))
                })
                .collect::<Vec<_>>()
                .prop_map(|kv| Value::Object(kv.into_iter().collect()))
                .boxed(),
            Type::Tuple(ets) => ets
                .iter()
                .map(|t| arb_value(t, unknowns))
                .collect::<Vec<_>>()
                .prop_map(Value::Tuple)
                .boxed(),
        };
        if unknowns {
            prop_oneof![1 => Just(Value::Null), 1 => Just(Value::Unknown), 6 => concrete].boxed()
        } else {
            prop_oneof![1 => Just(Value::Null), 6 => concrete].boxed()
        }
    }

    pub(super) fn typed_value(unknowns: bool) -> impl Strategy<Value = (Type, Value)> {
        arb_type(true).prop_flat_map(move |t| (Just(t.clone()), arb_value(&t, unknowns)))
    }

    proptest! {
        #[test]
        fn prop_garbage_never_panics(ty in arb_type(true), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = Value::decode_msgpack(&bytes, &ty);
            let _ = Value::decode_json(&bytes, &ty);
        }
    }
}
