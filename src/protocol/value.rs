//! Codec for tfplugin6 `DynamicValue` payloads.
//!
//! Terraform exchanges resource and data-source values as go-cty msgpack (and, for
//! `UpgradeResourceState`, go-cty JSON). Neither encoding carries types, so every decode and
//! encode here is driven by the schema [`Type`]. The rules follow go-cty's `cty/msgpack` and
//! `cty/json` packages; the code is our own.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rmp::Marker;

/// Deepest nesting accepted while decoding. Schemas are shallow; the limit only stops hostile
/// input (e.g. a chain of dynamic wrappers) from overflowing the stack.
const MAX_DEPTH: usize = 128;
/// go-cty rejects unknown-value refinement payloads over 1 KiB as abusive.
const MAX_REFINEMENT_LEN: usize = 1024;
/// go-cty's extension type for "unknown value with refinements" (Terraform >= 1.6).
const EXT_REFINED_UNKNOWN: i8 = 0x0c;
/// go-cty writes a wholly unknown value as fixext1 of type 0 holding one zero byte, because
/// that is one byte shorter than a zero-length ext8. Readers accept any ext of length <= 1.
const UNKNOWN_BYTES: [u8; 3] = [0xd4, 0x00, 0x00];
/// A canonical number is written plainly when that needs at most this many padding zeros,
/// and in scientific notation otherwise (so "1e400" does not become 401 characters).
const PLAIN_ZEROS: i64 = 32;
/// Largest decimal exponent accepted; far beyond f64 and cty's 512-bit floats, small enough
/// that exponent arithmetic cannot overflow.
const MAX_EXPONENT: i64 = 1_000_000_000;

// ---------------------------------------------------------------------------------------------
// Errors and paths

/// One step of an [`AttrPath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// Object attribute, shown as `.name`.
    Attr(String),
    /// List, set or tuple element, shown as `[2]`.
    Index(usize),
    /// Map element, shown as `["key"]`.
    Key(String),
}

/// Where inside a value an error happened, e.g. `.priority_class[2].weight`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttrPath(pub Vec<PathStep>);

impl AttrPath {
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for AttrPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step {
                PathStep::Attr(name) => write!(f, ".{name}")?,
                PathStep::Index(i) => write!(f, "[{i}]")?,
                PathStep::Key(k) => write!(f, "[{k:?}]")?,
            }
        }
        Ok(())
    }
}

/// Renders the "at <path>: " prefix of an error message (nothing at the root).
struct At<'a>(&'a AttrPath);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_root() {
            Ok(())
        } else {
            write!(f, "at {}: ", self.0)
        }
    }
}

/// A value, type or number that could not be decoded or encoded, with the path to the culprit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    #[error("{}expected {expected}, got {got}", At(.path))]
    TypeMismatch {
        path: AttrPath,
        expected: String,
        got: String,
    },
    #[error("{}unsupported attribute {name:?}", At(.path))]
    UnsupportedAttribute { path: AttrPath, name: String },
    #[error("{}invalid number {text:?}: {reason}", At(.path))]
    InvalidNumber {
        path: AttrPath,
        text: String,
        reason: &'static str,
    },
    #[error("{}invalid type: {message}", At(.path))]
    InvalidType { path: AttrPath, message: String },
    /// Malformed bytes or a value the encoding cannot represent.
    #[error("{}{message}", At(.path))]
    Invalid { path: AttrPath, message: String },
}

impl ValueError {
    pub fn path(&self) -> &AttrPath {
        match self {
            Self::TypeMismatch { path, .. }
            | Self::UnsupportedAttribute { path, .. }
            | Self::InvalidNumber { path, .. }
            | Self::InvalidType { path, .. }
            | Self::Invalid { path, .. } => path,
        }
    }

    fn path_mut(&mut self) -> &mut AttrPath {
        match self {
            Self::TypeMismatch { path, .. }
            | Self::UnsupportedAttribute { path, .. }
            | Self::InvalidNumber { path, .. }
            | Self::InvalidType { path, .. }
            | Self::Invalid { path, .. } => path,
        }
    }

    /// Errors are built at the leaf with an empty path; each enclosing level prepends its step
    /// while the error propagates, so the success path never pays for path bookkeeping.
    fn within(mut self, step: PathStep) -> Self {
        self.path_mut().0.insert(0, step);
        self
    }

    fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            path: AttrPath::default(),
            message: message.into(),
        }
    }

    fn mismatch(expected: impl Into<String>, got: impl Into<String>) -> Self {
        Self::TypeMismatch {
            path: AttrPath::default(),
            expected: expected.into(),
            got: got.into(),
        }
    }

    fn bad_type(message: impl Into<String>) -> Self {
        Self::InvalidType {
            path: AttrPath::default(),
            message: message.into(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Types

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

// ---------------------------------------------------------------------------------------------
// Numbers

/// An exact decimal number (or ±infinity), stored as canonical text so nothing is lost
/// between the wire and the program.
///
/// Canonical text: no exponent, leading `+` or redundant zeros when at most 32 padding zeros
/// are needed (`"100"`, `"0.000001"`, `"-2.5"`), otherwise scientific with one leading digit
/// (`"1e400"`, `"-1.25e-40"`); `"Infinity"`/`"-Infinity"`. Each value has exactly one
/// canonical text, so equality of text is numeric equality.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number(String);

impl Number {
    pub fn from_i64(i: i64) -> Self {
        // Integer Display has no redundant zeros and i64 needs at most 18 padding zeros.
        Number(i.to_string())
    }

    pub fn from_u64(u: u64) -> Self {
        Number(u.to_string())
    }

    /// The shortest decimal that reads back as `f` (what Go's `Text('f', -1)` gives for a
    /// float64, hence what cty compares against). `None` for NaN.
    pub fn from_f64(f: f64) -> Option<Self> {
        if f.is_nan() {
            None
        } else {
            // `{:e}` is the shortest round-trip representation and handles infinities.
            Number::parse(&format!("{f:e}")).ok()
        }
    }

    /// Parses decimal text: optional sign, digits with an optional point, optional exponent;
    /// also `inf`/`infinity` in any case.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        canonicalize(text)
            .map(Number)
            .map_err(|reason| ValueError::InvalidNumber {
                path: AttrPath::default(),
                text: text.to_owned(),
                reason,
            })
    }

    /// The value as an `i64`, only if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        // Canonical integers in i64 range are written plainly, so the std parser suffices.
        self.0.parse().ok()
    }

    /// The nearest `f64` (correctly rounded; ±infinity when out of range).
    pub fn as_f64(&self) -> f64 {
        // Canonical text is always valid for the std parser, which also reads "Infinity".
        self.0.parse().unwrap_or(f64::NAN)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_infinite(&self) -> bool {
        self.0 == "Infinity" || self.0 == "-Infinity"
    }

    /// True for whole numbers of any size (`"1.5e41"` is one).
    pub fn is_integer(&self) -> bool {
        if self.is_infinite() {
            return false;
        }
        let (mantissa, exp) = match self.0.split_once('e') {
            Some((m, e)) => (m, e.parse::<i64>().unwrap_or(i64::MIN)),
            None => (self.0.as_str(), 0),
        };
        let frac_len = mantissa.split_once('.').map_or(0, |(_, f)| f.len());
        exp >= frac_len as i64
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Number {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        Number::parse(s)
    }
}

impl From<i64> for Number {
    fn from(i: i64) -> Self {
        Number::from_i64(i)
    }
}

impl From<u64> for Number {
    fn from(u: u64) -> Self {
        Number::from_u64(u)
    }
}

impl From<i32> for Number {
    fn from(i: i32) -> Self {
        Number::from_i64(i.into())
    }
}

fn canonicalize(text: &str) -> Result<String, &'static str> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return Ok(if neg { "-Infinity" } else { "Infinity" }.to_owned());
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err("no digits");
    }
    if !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_digit()) {
        return Err("not a decimal number");
    }
    let mut exp = match exponent {
        Some(e) => parse_exponent(e)?,
        None => 0,
    };
    // Value = digits × 10^exp, with digits stripped of leading and trailing zeros.
    let all_digits = format!("{int_part}{frac_part}");
    let significant = all_digits.trim_start_matches('0');
    let digits = significant.trim_end_matches('0');
    if digits.is_empty() {
        return Ok("0".to_owned());
    }
    exp = exp - frac_part.len() as i64 + (significant.len() - digits.len()) as i64;
    let point = digits.len() as i64 + exp; // position of the decimal point after the first digit
    if !(-MAX_EXPONENT..=MAX_EXPONENT).contains(&point) {
        return Err("exponent out of range");
    }

    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    let padding = if exp >= 0 { exp } else { (-point).max(0) };
    if padding > PLAIN_ZEROS {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str(&format!("e{}", point - 1));
    } else if exp >= 0 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', padding as usize));
    } else if point > 0 {
        let (whole, frac) = digits.split_at(point as usize);
        out.push_str(whole);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', padding as usize));
        out.push_str(digits);
    }
    Ok(out)
}

fn parse_exponent(e: &str) -> Result<i64, &'static str> {
    let (neg, digits) = match e.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, e.strip_prefix('+').unwrap_or(e)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("malformed exponent");
    }
    let digits = digits.trim_start_matches('0');
    if digits.len() > 12 {
        return Err("exponent out of range");
    }
    let magnitude: i64 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| "malformed exponent")?
    };
    Ok(if neg { -magnitude } else { magnitude })
}

// ---------------------------------------------------------------------------------------------
// Values

/// A cty value. It carries no type: the schema [`Type`] is supplied to every codec call.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Unknown,
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
    /// Decodes a `DynamicValue.msgpack` payload of the given type.
    pub fn decode_msgpack(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
        let mut rd = Reader { buf: bytes };
        let value = decode_mp(&mut rd, ty, 0)?;
        if !rd.buf.is_empty() {
            return Err(ValueError::invalid(format!(
                "{} trailing bytes after msgpack value",
                rd.buf.len()
            )));
        }
        Ok(value)
    }

    /// Encodes as go-cty msgpack. Object attributes missing from the value are written as
    /// null; like cty's Marshal (which converts first), lists, sets and tuples are
    /// interchangeable, and so are maps and objects, since their wire forms are identical.
    pub fn encode_msgpack(&self, ty: &Type) -> Result<Vec<u8>, ValueError> {
        let mut out = Vec::new();
        encode_mp(self, ty, &mut out)?;
        Ok(out)
    }

    /// Decodes go-cty JSON (e.g. raw state in `UpgradeResourceState`). As in cty, missing
    /// object attributes become null, and strings convert to numbers and bools.
    pub fn decode_json(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
        let json: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| ValueError::invalid(format!("invalid JSON: {e}")))?;
        Value::from_json(&json, ty)
    }

    /// Like [`Value::decode_json`], from an already parsed document.
    pub fn from_json(json: &serde_json::Value, ty: &Type) -> Result<Value, ValueError> {
        decode_js(json, ty, 0)
    }

    /// Encodes as go-cty JSON. Only known values can be encoded (JSON has no unknown).
    pub fn encode_json(&self, ty: &Type) -> Result<Vec<u8>, ValueError> {
        Ok(self.to_json(ty)?.to_string().into_bytes())
    }

    /// Like [`Value::encode_json`], as a JSON document.
    pub fn to_json(&self, ty: &Type) -> Result<serde_json::Value, ValueError> {
        encode_js(self, ty)
    }

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

fn len_u32(n: usize) -> Result<u32, ValueError> {
    u32::try_from(n).map_err(|_| ValueError::invalid(format!("{n} elements exceed the msgpack limit")))
}

/// Writes into a `Vec` cannot fail, but rmp's signatures are fallible; keep it total anyway.
fn written<T, E: fmt::Display>(r: Result<T, E>) -> Result<(), ValueError> {
    r.map(drop)
        .map_err(|e| ValueError::invalid(format!("msgpack write failed: {e}")))
}

// ---------------------------------------------------------------------------------------------
// msgpack encoding

fn encode_mp(v: &Value, ty: &Type, out: &mut Vec<u8>) -> Result<(), ValueError> {
    use rmp::encode as w;
    match (v, ty) {
        (Value::Unknown, _) => out.extend_from_slice(&UNKNOWN_BYTES),
        (Value::Null, _) => written(w::write_nil(out))?,
        // A known value in a dynamic slot travels as [type JSON bytes, value].
        (_, Type::Dynamic) => {
            let concrete = v.implied_type();
            written(w::write_array_len(out, 2))?;
            written(w::write_bin(out, &concrete.to_json_bytes()))?;
            encode_mp(v, &concrete, out)?;
        }
        (Value::Bool(b), Type::Bool) => written(w::write_bool(out, *b))?,
        (Value::Number(n), Type::Number) => encode_number(n, out)?,
        (Value::String(s), Type::String) => written(w::write_str(out, s))?,
        (Value::List(xs) | Value::Set(xs) | Value::Tuple(xs), Type::List(et) | Type::Set(et)) => {
            written(w::write_array_len(out, len_u32(xs.len())?))?;
            for (i, x) in xs.iter().enumerate() {
                encode_mp(x, et, out).map_err(|e| e.within(PathStep::Index(i)))?;
            }
        }
        (Value::Map(m) | Value::Object(m), Type::Map(et)) => {
            written(w::write_map_len(out, len_u32(m.len())?))?;
            for (k, x) in m {
                written(w::write_str(out, k))?;
                encode_mp(x, et, out).map_err(|e| e.within(PathStep::Key(k.clone())))?;
            }
        }
        (Value::Map(m) | Value::Object(m), Type::Object(attrs)) => {
            if let Some(extra) = m.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(ValueError::UnsupportedAttribute {
                    path: AttrPath::default(),
                    name: extra.clone(),
                });
            }
            // Every attribute of the type, in cty's (sorted) order.
            written(w::write_map_len(out, len_u32(attrs.len())?))?;
            for (k, at) in attrs {
                written(w::write_str(out, k))?;
                let x = m.get(k).unwrap_or(&Value::Null);
                encode_mp(x, at, out).map_err(|e| e.within(PathStep::Attr(k.clone())))?;
            }
        }
        (Value::List(xs) | Value::Set(xs) | Value::Tuple(xs), Type::Tuple(ets)) => {
            if xs.len() != ets.len() {
                return Err(tuple_len_error(ets.len(), xs.len()));
            }
            written(w::write_array_len(out, len_u32(xs.len())?))?;
            for (i, (x, et)) in xs.iter().zip(ets).enumerate() {
                encode_mp(x, et, out).map_err(|e| e.within(PathStep::Index(i)))?;
            }
        }
        _ => return Err(ValueError::mismatch(ty.friendly_name(), v.kind_name())),
    }
    Ok(())
}

/// Same choice as cty's Marshal: an int when it is an i64, a float64 when that is exact
/// (here: the decimal is the float's shortest text, which is also how cty compares numbers),
/// otherwise the decimal as a string so no precision is lost.
fn encode_number(n: &Number, out: &mut Vec<u8>) -> Result<(), ValueError> {
    use rmp::encode as w;
    if let Some(i) = n.as_i64() {
        return written(w::write_sint(out, i));
    }
    let f = n.as_f64();
    if n.is_infinite() || (f.is_finite() && Number::from_f64(f).as_ref() == Some(n)) {
        written(w::write_f64(out, f))
    } else {
        written(w::write_str(out, n.as_str()))
    }
}

fn tuple_len_error(want: usize, got: usize) -> ValueError {
    ValueError::invalid(format!("a tuple of {want} elements is required ({got} given)"))
}

// ---------------------------------------------------------------------------------------------
// msgpack decoding

/// Cursor over untrusted msgpack bytes; every read is bounds-checked.
struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ValueError> {
        if n > self.buf.len() {
            return Err(ValueError::invalid("truncated msgpack data"));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ValueError> {
        self.take(N)?
            .try_into()
            .map_err(|_| ValueError::invalid("truncated msgpack data"))
    }

    fn u8(&mut self) -> Result<u8, ValueError> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<usize, ValueError> {
        Ok(u16::from_be_bytes(self.array()?).into())
    }

    fn u32(&mut self) -> Result<usize, ValueError> {
        usize::try_from(u32::from_be_bytes(self.array()?)).map_err(|_| ValueError::invalid("length too large"))
    }

    fn marker(&mut self) -> Result<Marker, ValueError> {
        Ok(Marker::from_u8(self.u8()?))
    }

    /// Payload of a str or bin value (cty reads both as strings and as bytes).
    fn bytes_after(&mut self, m: Marker) -> Result<Option<&'a [u8]>, ValueError> {
        let n = match m {
            Marker::FixStr(n) => n.into(),
            Marker::Str8 | Marker::Bin8 => self.u8()?.into(),
            Marker::Str16 | Marker::Bin16 => self.u16()?,
            Marker::Str32 | Marker::Bin32 => self.u32()?,
            _ => return Ok(None),
        };
        self.take(n).map(Some)
    }

    fn array_len_after(&mut self, m: Marker) -> Result<Option<usize>, ValueError> {
        Ok(Some(match m {
            Marker::FixArray(n) => n.into(),
            Marker::Array16 => self.u16()?,
            Marker::Array32 => self.u32()?,
            _ => return Ok(None),
        }))
    }

    fn map_len_after(&mut self, m: Marker) -> Result<Option<usize>, ValueError> {
        Ok(Some(match m {
            Marker::FixMap(n) => n.into(),
            Marker::Map16 => self.u16()?,
            Marker::Map32 => self.u32()?,
            _ => return Ok(None),
        }))
    }

    /// Extension type and payload.
    fn ext_after(&mut self, m: Marker) -> Result<Option<(i8, &'a [u8])>, ValueError> {
        let n = match m {
            Marker::FixExt1 => 1,
            Marker::FixExt2 => 2,
            Marker::FixExt4 => 4,
            Marker::FixExt8 => 8,
            Marker::FixExt16 => 16,
            Marker::Ext8 => self.u8()?.into(),
            Marker::Ext16 => self.u16()?,
            Marker::Ext32 => self.u32()?,
            _ => return Ok(None),
        };
        let ty = i8::from_be_bytes(self.array()?);
        Ok(Some((ty, self.take(n)?)))
    }

    /// A cap for `Vec::with_capacity` so a forged length cannot force a huge allocation:
    /// every element takes at least one byte.
    fn capacity_for(&self, n: usize) -> usize {
        n.min(self.buf.len())
    }
}

fn describe(m: Marker) -> &'static str {
    match m {
        Marker::Null => "null",
        Marker::True | Marker::False => "bool",
        Marker::FixPos(_)
        | Marker::FixNeg(_)
        | Marker::U8
        | Marker::U16
        | Marker::U32
        | Marker::U64
        | Marker::I8
        | Marker::I16
        | Marker::I32
        | Marker::I64 => "integer",
        Marker::F32 | Marker::F64 => "float",
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "string",
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "binary",
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "array",
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "map",
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "extension",
        Marker::Reserved => "reserved byte 0xc1",
    }
}

fn utf8(bytes: &[u8]) -> Result<String, ValueError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ValueError::invalid("string is not valid UTF-8"))
}

fn decode_mp(rd: &mut Reader<'_>, ty: &Type, depth: usize) -> Result<Value, ValueError> {
    if depth > MAX_DEPTH {
        return Err(ValueError::invalid(format!(
            "value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    let m = rd.marker()?;
    // As in cty, extensions mean "unknown" whatever the type, and are checked first.
    if let Some((ext_type, payload)) = rd.ext_after(m)? {
        return decode_unknown(ext_type, payload);
    }
    if matches!(m, Marker::Null) {
        return Ok(Value::Null);
    }
    let expected = || ValueError::mismatch(ty.friendly_name(), describe(m));
    match ty {
        Type::Dynamic => {
            if rd.array_len_after(m)?.ok_or_else(expected)? != 2 {
                return Err(ValueError::invalid("dynamic value must be a [type, value] array"));
            }
            let tm = rd.marker()?;
            let type_json = rd
                .bytes_after(tm)?
                .ok_or_else(|| ValueError::mismatch("type JSON bytes", describe(tm)))?;
            let concrete = Type::from_json_bytes(type_json)?;
            decode_mp(rd, &concrete, depth + 1)
        }
        Type::Bool => match m {
            Marker::True => Ok(Value::Bool(true)),
            Marker::False => Ok(Value::Bool(false)),
            _ => Err(expected()),
        },
        Type::Number => decode_number(rd, m).map(Value::Number),
        Type::String => match rd.bytes_after(m)? {
            Some(b) => utf8(b).map(Value::String),
            None => Err(expected()),
        },
        Type::List(et) | Type::Set(et) => {
            let n = rd.array_len_after(m)?.ok_or_else(expected)?;
            let mut items = Vec::with_capacity(rd.capacity_for(n));
            for i in 0..n {
                items.push(decode_mp(rd, et, depth + 1).map_err(|e| e.within(PathStep::Index(i)))?);
            }
            Ok(if matches!(ty, Type::List(_)) {
                Value::List(items)
            } else {
                Value::Set(items)
            })
        }
        Type::Tuple(ets) => {
            let n = rd.array_len_after(m)?.ok_or_else(expected)?;
            if n != ets.len() {
                return Err(tuple_len_error(ets.len(), n));
            }
            let mut items = Vec::with_capacity(n);
            for (i, et) in ets.iter().enumerate() {
                items.push(decode_mp(rd, et, depth + 1).map_err(|e| e.within(PathStep::Index(i)))?);
            }
            Ok(Value::Tuple(items))
        }
        Type::Map(et) => {
            let n = rd.map_len_after(m)?.ok_or_else(expected)?;
            let mut entries = BTreeMap::new();
            for _ in 0..n {
                let key = decode_key(rd)?;
                let v = decode_mp(rd, et, depth + 1).map_err(|e| e.within(PathStep::Key(key.clone())))?;
                if entries.insert(key.clone(), v).is_some() {
                    return Err(ValueError::invalid("duplicate map key").within(PathStep::Key(key)));
                }
            }
            Ok(Value::Map(entries))
        }
        Type::Object(attrs) => {
            // cty requires exactly the type's attributes: none unknown, none missing.
            let n = rd.map_len_after(m)?.ok_or_else(expected)?;
            let mut entries = BTreeMap::new();
            for _ in 0..n {
                let key = decode_key(rd)?;
                let Some(at) = attrs.get(&key) else {
                    return Err(ValueError::UnsupportedAttribute {
                        path: AttrPath::default(),
                        name: key,
                    });
                };
                let v = decode_mp(rd, at, depth + 1).map_err(|e| e.within(PathStep::Attr(key.clone())))?;
                if entries.insert(key.clone(), v).is_some() {
                    return Err(ValueError::invalid("duplicate attribute").within(PathStep::Attr(key)));
                }
            }
            if let Some(missing) = attrs.keys().find(|k| !entries.contains_key(*k)) {
                return Err(ValueError::invalid(format!("missing attribute {missing:?}")));
            }
            Ok(Value::Object(entries))
        }
    }
}

fn decode_key(rd: &mut Reader<'_>) -> Result<String, ValueError> {
    let m = rd.marker()?;
    match rd.bytes_after(m)? {
        Some(b) => utf8(b),
        None => Err(ValueError::mismatch("string key", describe(m))),
    }
}

/// Ext of length 0 or 1 is a plain unknown (cty writes fixext1 type 0). Longer payloads must
/// be type 12, a map of refinements (nullness, string prefix, number/length bounds); they
/// are checked for shape and dropped, since [`Value::Unknown`] carries no refinements.
fn decode_unknown(ext_type: i8, payload: &[u8]) -> Result<Value, ValueError> {
    if payload.len() <= 1 {
        return Ok(Value::Unknown);
    }
    if ext_type != EXT_REFINED_UNKNOWN {
        return Err(ValueError::invalid(format!(
            "unsupported msgpack extension type {ext_type} with length {}",
            payload.len()
        )));
    }
    if payload.len() > MAX_REFINEMENT_LEN {
        return Err(ValueError::invalid("oversize unknown value refinement"));
    }
    let mut rd = Reader { buf: payload };
    let m = rd.marker()?;
    match rd.map_len_after(m)? {
        Some(_) => Ok(Value::Unknown),
        None => Err(ValueError::invalid("unknown value refinements are not a msgpack map")),
    }
}

fn decode_number(rd: &mut Reader<'_>, m: Marker) -> Result<Number, ValueError> {
    let n = match m {
        Marker::FixPos(v) => Number::from_i64(v.into()),
        Marker::FixNeg(v) => Number::from_i64(v.into()),
        Marker::U8 => Number::from_u64(rd.u8()?.into()),
        Marker::U16 => Number::from_u64(u16::from_be_bytes(rd.array()?).into()),
        Marker::U32 => Number::from_u64(u32::from_be_bytes(rd.array()?).into()),
        Marker::U64 => Number::from_u64(u64::from_be_bytes(rd.array()?)),
        Marker::I8 => Number::from_i64(i8::from_be_bytes(rd.array()?).into()),
        Marker::I16 => Number::from_i64(i16::from_be_bytes(rd.array()?).into()),
        Marker::I32 => Number::from_i64(i32::from_be_bytes(rd.array()?).into()),
        Marker::I64 => Number::from_i64(i64::from_be_bytes(rd.array()?)),
        Marker::F32 => float_number(f32::from_be_bytes(rd.array()?).into())?,
        Marker::F64 => float_number(f64::from_be_bytes(rd.array()?))?,
        _ => match rd.bytes_after(m)? {
            // Numbers too big or precise for int/float64 arrive as decimal strings.
            Some(b) => Number::parse(&utf8(b)?)?,
            None => return Err(ValueError::mismatch("number", describe(m))),
        },
    };
    Ok(n)
}

fn float_number(f: f64) -> Result<Number, ValueError> {
    Number::from_f64(f).ok_or_else(|| ValueError::InvalidNumber {
        path: AttrPath::default(),
        text: "NaN".into(),
        reason: "NaN is not a number in Terraform",
    })
}

// ---------------------------------------------------------------------------------------------
// JSON

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
                .map(|(i, x)| encode_js(x, et).map_err(|e| e.within(PathStep::Index(i))))
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
                    .map(|(i, (x, et))| encode_js(x, et).map_err(|e| e.within(PathStep::Index(i))))
                    .collect::<Result<_, _>>()?,
            )
        }
        (Value::Map(m) | Value::Object(m), Type::Map(et)) => J::Object(
            m.iter()
                .map(|(k, x)| {
                    let j = encode_js(x, et).map_err(|e| e.within(PathStep::Key(k.clone())))?;
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
                        let j = encode_js(x, at).map_err(|e| e.within(PathStep::Attr(k.clone())))?;
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
                .map(|(i, x)| decode_js(x, et, depth + 1).map_err(|e| e.within(PathStep::Index(i))))
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
                .map(|(i, (x, et))| decode_js(x, et, depth + 1).map_err(|e| e.within(PathStep::Index(i))))
                .collect::<Result<_, _>>()
                .map(Value::Tuple)
        }
        Type::Map(et) => j
            .as_object()
            .ok_or_else(expected)?
            .iter()
            .map(|(k, x)| {
                let v = decode_js(x, et, depth + 1).map_err(|e| e.within(PathStep::Key(k.clone())))?;
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
                let v = decode_js(x, at, depth + 1).map_err(|e| e.within(PathStep::Attr(k.clone())))?;
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

// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn num(s: &str) -> Number {
        Number::parse(s).expect("test number")
    }

    fn roundtrip(v: &Value, ty: &Type) {
        let mp = v.encode_msgpack(ty).expect("encode msgpack");
        assert_eq!(&Value::decode_msgpack(&mp, ty).expect("decode msgpack"), v, "msgpack");
        if v.is_wholly_known() {
            let js = v.encode_json(ty).expect("encode json");
            assert_eq!(&Value::decode_json(&js, ty).expect("decode json"), v, "json");
        }
    }

    fn schema() -> Type {
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

    fn sample() -> Value {
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
    fn wire_bytes_match_cty() {
        let obj = Type::object([("a", Type::Number), ("b", Type::String)]);
        let v = Value::object([("b", "x".into()), ("a", 1.into())]);
        assert_eq!(
            v.encode_msgpack(&obj).unwrap(),
            [0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0xa1, b'x']
        );
        assert_eq!(Value::Unknown.encode_msgpack(&Type::String).unwrap(), UNKNOWN_BYTES);
        assert_eq!(Value::Null.encode_msgpack(&Type::Dynamic).unwrap(), [0xc0]);
        let mut dynamic = vec![0x92, 0xc4, 8];
        dynamic.extend_from_slice(b"\"string\"");
        dynamic.extend_from_slice(&[0xa1, b'x']);
        assert_eq!(Value::from("x").encode_msgpack(&Type::Dynamic).unwrap(), dynamic);
        // Attributes absent from the value are written as null, extra ones are refused.
        let partial = Value::object([("a", 1.into())]);
        assert_eq!(
            partial.encode_msgpack(&obj).unwrap(),
            [0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0xc0]
        );
        let extra = Value::object([("zz", 1.into())]);
        assert_eq!(
            extra.encode_msgpack(&obj).unwrap_err().to_string(),
            "unsupported attribute \"zz\""
        );
        assert_eq!(
            Type::list(Type::object([("a", Type::Dynamic)])).to_json_bytes(),
            br#"["list",["object",{"a":"dynamic"}]]"#
        );
        let dyn_json = Value::from(1).encode_json(&Type::Dynamic).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&dyn_json).unwrap(),
            serde_json::json!({"value": 1, "type": "number"})
        );
    }

    #[test]
    fn unknowns_decode_plain_refined_and_nested() {
        let refined: &[&[u8]] = &[
            &[0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2],                   // {nullness: false}
            &[0xc7, 0x05, 0x0c, 0x81, 0x02, 0xa2, b'a', b'b'],       // {string prefix: "ab"}
            &[0xd6, 0x0c, 0x82, 0x05, 0x01, 0x06],                   // fixext4 {len min 1, len max ..}
            &[0xc7, 0x06, 0x0c, 0x81, 0x03, 0x92, 0x00, 0xc3, 0x00], // {number min [0, true]} + padding
        ];
        for bytes in [&UNKNOWN_BYTES[..], &[0xc7, 0x00, 0x00], &[0xd4, 0x05, 0x07]]
            .into_iter()
            .chain(refined.iter().copied())
        {
            for ty in [Type::String, Type::Number, Type::list(Type::Bool), Type::Dynamic] {
                assert_eq!(Value::decode_msgpack(bytes, &ty).unwrap(), Value::Unknown, "{bytes:x?}");
            }
        }
        // Not type 12, or not a map inside: refused like cty does.
        assert!(Value::decode_msgpack(&[0xd5, 0x01, 0x81, 0x01], &Type::String).is_err());
        assert!(Value::decode_msgpack(&[0xd5, 0x0c, 0x01, 0x01], &Type::String).is_err());
        let mut big = vec![0xc9, 0x00, 0x00, 0x04, 0x01, 0x0c, 0x80];
        big.resize(big.len() + 1024, 0);
        assert!(Value::decode_msgpack(&big, &Type::String).is_err());

        let ty = Type::object([
            ("ids", Type::list(Type::String)),
            ("arn", Type::String),
            ("any", Type::Dynamic),
        ]);
        let v = Value::object([
            ("ids", Value::List(vec!["a".into(), Value::Unknown])),
            ("arn", Value::Unknown),
            ("any", Value::Unknown),
        ]);
        roundtrip(&v, &ty);
        assert!(v.is_known() && !v.is_wholly_known());
        assert!(!Value::Unknown.is_known());
        // A refined unknown nested in a list: [ "a", <refined> ].
        let bytes = [0x92, 0xa1, b'a', 0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc2];
        assert_eq!(
            Value::decode_msgpack(&bytes, &Type::list(Type::String)).unwrap(),
            Value::List(vec!["a".into(), Value::Unknown])
        );
        assert!(
            v.encode_json(&ty)
                .unwrap_err()
                .to_string()
                .starts_with("at .any: unknown")
        );
    }

    #[test]
    fn numbers_stay_exact() {
        let cases = [
            ("0", vec![0x00]),
            ("-1", vec![0xff]),
            (
                "9223372036854775807",
                vec![0xcf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
            ("-9223372036854775808", vec![0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("0.1", [vec![0xcb], 0.1f64.to_be_bytes().to_vec()].concat()),
            ("1.5", [vec![0xcb], 1.5f64.to_be_bytes().to_vec()].concat()),
            (
                "-2.25e-10",
                [vec![0xcb], (-2.25e-10f64).to_be_bytes().to_vec()].concat(),
            ),
        ];
        for (text, wire) in cases {
            let n = num(text);
            let bytes = Value::Number(n.clone()).encode_msgpack(&Type::Number).unwrap();
            assert_eq!(bytes, wire, "{text}");
            roundtrip(&Value::Number(n), &Type::Number);
        }
        // Beyond i64/f64 exactness: sent as decimal strings, like cty's Marshal.
        for text in [
            "18446744073709551616",
            "123456789012345678901234567890.5",
            "1e400",
            "-1.000000000000000000001",
        ] {
            let n = num(text);
            let bytes = Value::Number(n.clone()).encode_msgpack(&Type::Number).unwrap();
            assert_eq!(
                Value::decode_msgpack(&bytes, &Type::Number).unwrap(),
                Value::Number(n.clone())
            );
            assert!(
                matches!(Marker::from_u8(bytes[0]), Marker::FixStr(_) | Marker::Str8),
                "{text}"
            );
            let js = Value::Number(n.clone()).encode_json(&Type::Number).unwrap();
            assert_eq!(Value::decode_json(&js, &Type::Number).unwrap(), Value::Number(n));
        }
        assert_eq!(
            num("123456789012345678901234567890.5").as_str(),
            "123456789012345678901234567890.5"
        );
        assert_eq!(
            Value::decode_json(b"123456789012345678901234567890.5", &Type::Number).unwrap(),
            Value::Number(num("123456789012345678901234567890.5"))
        );
        // uint64, float32, and string encodings all decode.
        assert_eq!(
            Value::decode_msgpack(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], &Type::Number).unwrap(),
            Value::Number(num("18446744073709551615"))
        );
        let f32_wire = [vec![0xca], 1.5f32.to_be_bytes().to_vec()].concat();
        assert_eq!(
            Value::decode_msgpack(&f32_wire, &Type::Number).unwrap(),
            Value::Number(num("1.5"))
        );
        assert_eq!(
            Value::decode_msgpack(&[0xa3, b'1', b'e', b'3'], &Type::Number).unwrap(),
            1000.into()
        );
        // Infinity is a float on the wire and refused by JSON.
        let inf = Number::from_f64(f64::INFINITY).unwrap();
        assert_eq!(inf.as_str(), "Infinity");
        let bytes = Value::Number(inf.clone()).encode_msgpack(&Type::Number).unwrap();
        assert_eq!(bytes[0], 0xcb);
        assert_eq!(
            Value::decode_msgpack(&bytes, &Type::Number).unwrap(),
            Value::Number(inf.clone())
        );
        assert!(Value::Number(inf).encode_json(&Type::Number).is_err());
        assert!(Value::decode_msgpack(&[vec![0xcb], f64::NAN.to_be_bytes().to_vec()].concat(), &Type::Number).is_err());
    }

    #[test]
    fn number_canonical_text() {
        for (a, b) in [
            ("1.0", "1"),
            ("1e2", "100"),
            ("-0", "0"),
            ("+5", "5"),
            ("0.50", "0.5"),
            ("1E+2", "100"),
            (".5", "0.5"),
            ("5.", "5"),
            ("-2.25e-10", "-0.000000000225"),
            ("1e33", "1e33"),
            ("12.5e40", "1.25e41"),
            ("1e-40", "1e-40"),
            ("-INF", "-Infinity"),
        ] {
            assert_eq!(num(a).as_str(), b, "{a}");
            assert_eq!(num(a), num(b));
        }
        assert_ne!(num("1"), num("1.0000000000000000000001"));
        assert_eq!(Number::from_f64(0.1).unwrap().as_str(), "0.1");
        assert_eq!(Number::from_f64(-0.0).unwrap().as_str(), "0");
        assert_eq!(Number::from_f64(1e21).unwrap().as_str(), "1000000000000000000000");
        assert!(Number::from_f64(f64::NAN).is_none());
        assert_eq!(num("1e2").as_i64(), Some(100));
        assert_eq!(num("1.5").as_i64(), None);
        assert_eq!(num("9223372036854775808").as_i64(), None);
        assert_eq!(num("-2.25e-10").as_f64(), -2.25e-10);
        assert!(num("1e400").as_f64().is_infinite());
        assert!(num("100").is_integer() && num("1.5e41").is_integer() && num("1e400").is_integer());
        assert!(!num("1.5").is_integer() && !num("1e-40").is_integer() && !num("Infinity").is_integer());
        for bad in [
            "",
            "-",
            "abc",
            "1e",
            "1e+",
            ".",
            "1.2.3",
            "--1",
            "1 ",
            "0x10",
            "1e9999999999999",
            "NaN",
        ] {
            let err = Number::parse(bad).unwrap_err();
            assert!(matches!(err, ValueError::InvalidNumber { .. }), "{bad}: {err}");
        }
    }

    #[test]
    fn errors_carry_the_path() {
        let bad_schema = Type::object([(
            "priority_class",
            Type::list(Type::object([("name", Type::String), ("weight", Type::Bool)])),
        )]);
        let good_schema = Type::object([(
            "priority_class",
            Type::list(Type::object([("name", Type::String), ("weight", Type::Number)])),
        )]);
        let class = |w: Value| Value::object([("name", "n".into()), ("weight", w)]);
        let v = Value::object([(
            "priority_class",
            Value::List(vec![class(Value::Null), class(Value::Null), class(true.into())]),
        )]);
        let bytes = v.encode_msgpack(&bad_schema).unwrap();
        let err = Value::decode_msgpack(&bytes, &good_schema).unwrap_err();
        assert_eq!(
            err.to_string(),
            "at .priority_class[2].weight: expected number, got bool"
        );
        assert_eq!(err.path().0.len(), 3);
        let err = v.encode_msgpack(&good_schema).unwrap_err();
        assert_eq!(
            err.to_string(),
            "at .priority_class[2].weight: expected number, got bool"
        );

        let js = br#"{"priority_class":[{"name":"a","weight":"heavy"}]}"#;
        let err = Value::decode_json(js, &good_schema).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("at .priority_class[0].weight: invalid number \"heavy\""),
            "{err}"
        );

        let map_ty = Type::map(Type::list(Type::Number));
        let err = Value::decode_json(br#"{"k y":[1,true]}"#, &map_ty).unwrap_err();
        assert_eq!(err.to_string(), "at [\"k y\"][1]: expected number, got bool");
        let err = Value::decode_msgpack(
            &[0x81, 0xa1, b'a', 0x91, 0xa1, b'x'],
            &Type::object([("a", Type::list(Type::Bool))]),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "at .a[0]: expected bool, got string");
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
            br#"[]"#,
        ] {
            assert!(Type::from_json_bytes(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(Type::list(Type::String).friendly_name(), "list of string");
    }

    // ---- property tests

    fn arb_type(allow_dynamic: bool) -> impl Strategy<Value = Type> {
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

    fn typed_value(unknowns: bool) -> impl Strategy<Value = (Type, Value)> {
        arb_type(true).prop_flat_map(move |t| (Just(t.clone()), arb_value(&t, unknowns)))
    }

    proptest! {
        #[test]
        fn prop_msgpack_round_trip((ty, v) in typed_value(true)) {
            let bytes = v.encode_msgpack(&ty).unwrap();
            prop_assert_eq!(Value::decode_msgpack(&bytes, &ty).unwrap(), v);
        }

        #[test]
        fn prop_json_round_trip((ty, v) in typed_value(false)) {
            let bytes = v.encode_json(&ty).unwrap();
            prop_assert_eq!(Value::decode_json(&bytes, &ty).unwrap(), v);
        }

        #[test]
        fn prop_type_json_round_trip(ty in arb_type(true)) {
            prop_assert_eq!(Type::from_json_bytes(&ty.to_json_bytes()).unwrap(), ty);
        }

        #[test]
        fn prop_decimal_strings_are_exact(
            neg in any::<bool>(), int in "[0-9]{1,40}", frac in "[0-9]{0,30}", exp in -400i64..400,
        ) {
            let text = format!("{}{int}.{frac}e{exp}", if neg { "-" } else { "" });
            let n = num(&text);
            // Canonical text is a fixed point and denotes the same digits and scale.
            prop_assert_eq!(&num(n.as_str()), &n);
            let digits = format!("{int}{frac}");
            let digits = digits.trim_start_matches('0');
            let (sig, scale) = decimal_parts(n.as_str());
            prop_assert_eq!(sig.as_str(), digits.trim_end_matches('0'));
            if !sig.is_empty() {
                let orig_scale = exp - frac.len() as i64 + (digits.len() - sig.len()) as i64;
                prop_assert_eq!(scale, orig_scale);
                prop_assert_eq!(n.as_str().starts_with('-'), neg);
            }
            let v = Value::Number(n);
            prop_assert_eq!(Value::decode_msgpack(&v.encode_msgpack(&Type::Number).unwrap(), &Type::Number).unwrap(), v.clone());
            prop_assert_eq!(Value::decode_json(&v.encode_json(&Type::Number).unwrap(), &Type::Number).unwrap(), v);
        }

        #[test]
        fn prop_f64_round_trip(f in any::<f64>().prop_filter("not NaN", |f| !f.is_nan())) {
            let n = Number::from_f64(f).unwrap();
            prop_assert!(n.as_f64() == f);
            let v = Value::Number(n);
            let bytes = v.encode_msgpack(&Type::Number).unwrap();
            prop_assert_eq!(Value::decode_msgpack(&bytes, &Type::Number).unwrap(), v);
        }

        #[test]
        fn prop_garbage_never_panics(ty in arb_type(true), bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = Value::decode_msgpack(&bytes, &ty);
            let _ = Value::decode_json(&bytes, &ty);
        }

        /// Corrupting one byte of a valid encoding never panics, and whatever still decodes
        /// conforms to the type (so it encodes again).
        #[test]
        fn prop_corrupted_input_is_handled((ty, v) in typed_value(true), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut bytes = v.encode_msgpack(&ty).unwrap();
            let i = at.index(bytes.len());
            bytes[i] = byte;
            if let Ok(decoded) = Value::decode_msgpack(&bytes, &ty) {
                prop_assert!(decoded.encode_msgpack(&ty).is_ok());
            }
        }
    }

    /// Independent reading of canonical text: (significant digits, power of ten of the last).
    fn decimal_parts(text: &str) -> (String, i64) {
        let body = text.trim_start_matches('-');
        let (mant, exp) = body
            .split_once('e')
            .map_or((body, 0), |(m, e)| (m, e.parse::<i64>().unwrap()));
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let all = format!("{int}{frac}");
        let sig = all.trim_start_matches('0');
        let trimmed = sig.trim_end_matches('0');
        (
            trimmed.to_owned(),
            exp - frac.len() as i64 + (sig.len() - trimmed.len()) as i64,
        )
    }
}
