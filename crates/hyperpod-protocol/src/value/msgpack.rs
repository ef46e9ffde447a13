//! go-cty msgpack encoding and decoding (`DynamicValue.msgpack`).

use std::collections::BTreeMap;
use std::fmt;

use rmp::Marker;

use super::error::tuple_len_error;
use super::types::MAX_DEPTH;
use super::{AttrPath, Number, Type, Value, ValueError, ValuePathStep};

impl Value {
    /// Decodes a `DynamicValue.msgpack` payload of the given type.
    pub fn decode_msgpack(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
        decode(bytes, ty)
    }

    /// Encodes as go-cty msgpack. Object attributes missing from the value are written as
    /// null; like cty's Marshal (which converts first), lists, sets and tuples are
    /// interchangeable, and so are maps and objects, since their wire forms are identical.
    pub fn encode_msgpack(&self, ty: &Type) -> Result<Vec<u8>, ValueError> {
        encode(self, ty)
    }
}

/// go-cty rejects unknown-value refinement payloads over 1 KiB as abusive.
const MAX_REFINEMENT_LEN: usize = 1024;
/// go-cty's extension type for "unknown value with refinements" (Terraform >= 1.6).
const EXT_REFINED_UNKNOWN: i8 = 0x0c;
/// go-cty writes a wholly unknown value as fixext1 of type 0 holding one zero byte, because
/// that is one byte shorter than a zero-length ext8. Readers accept any ext of length <= 1.
const UNKNOWN_BYTES: [u8; 3] = [0xd4, 0x00, 0x00];

/// Entry point behind [`Value::encode_msgpack`].
pub(super) fn encode(v: &Value, ty: &Type) -> Result<Vec<u8>, ValueError> {
    let mut out = Vec::new();
    encode_mp(v, ty, &mut out)?;
    Ok(out)
}

/// Entry point behind [`Value::decode_msgpack`]; the whole buffer must be one value.
pub(super) fn decode(bytes: &[u8], ty: &Type) -> Result<Value, ValueError> {
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

fn len_u32(n: usize) -> Result<u32, ValueError> {
    u32::try_from(n).map_err(|_| ValueError::invalid(format!("{n} elements exceed the msgpack limit")))
}

/// Writes into a `Vec` cannot fail, but rmp's signatures are fallible; keep it total anyway.
fn written<T, E: fmt::Display>(r: Result<T, E>) -> Result<(), ValueError> {
    r.map(drop)
        .map_err(|e| ValueError::invalid(format!("msgpack write failed: {e}")))
}

// Encoding

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
                encode_mp(x, et, out).map_err(|e| e.within(ValuePathStep::Index(i)))?;
            }
        }
        (Value::Map(m) | Value::Object(m), Type::Map(et)) => {
            written(w::write_map_len(out, len_u32(m.len())?))?;
            for (k, x) in m {
                written(w::write_str(out, k))?;
                encode_mp(x, et, out).map_err(|e| e.within(ValuePathStep::Key(k.clone())))?;
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
                encode_mp(x, at, out).map_err(|e| e.within(ValuePathStep::Attr(k.clone())))?;
            }
        }
        (Value::List(xs) | Value::Set(xs) | Value::Tuple(xs), Type::Tuple(ets)) => {
            if xs.len() != ets.len() {
                return Err(tuple_len_error(ets.len(), xs.len()));
            }
            written(w::write_array_len(out, len_u32(xs.len())?))?;
            for (i, (x, et)) in xs.iter().zip(ets).enumerate() {
                encode_mp(x, et, out).map_err(|e| e.within(ValuePathStep::Index(i)))?;
            }
        }
        _ => return Err(ValueError::mismatch(ty.friendly_name(), v.kind_name())),
    }
    Ok(())
}

/// Same choice as cty's Marshal: an int when it is an i64, a float64 when that is exact
/// (here: the decimal is the float's shortest text, which is also how cty compares
/// non-integers; integers cty compares exactly, so a whole number beyond i64 goes as a float
/// only if the float is that very integer: 1e30 as a float is 1000000000000000019884624838656,
/// and Terraform would call the plan invalid), otherwise the decimal as a string so no
/// precision is lost.
fn encode_number(n: &Number, out: &mut Vec<u8>) -> Result<(), ValueError> {
    use rmp::encode as w;
    if let Some(i) = n.as_i64() {
        return written(w::write_sint(out, i));
    }
    let f = n.as_f64();
    let exact = if n.is_integer() {
        // `{:.0}` writes a float's exact integer digits.
        f.is_finite() && Number::parse(&format!("{f:.0}")).ok().as_ref() == Some(n)
    } else {
        f.is_finite() && Number::from_f64(f).as_ref() == Some(n)
    };
    if n.is_infinite() || exact {
        written(w::write_f64(out, f))
    } else {
        written(w::write_str(out, n.as_str()))
    }
}

// Decoding

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
                items.push(decode_mp(rd, et, depth + 1).map_err(|e| e.within(ValuePathStep::Index(i)))?);
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
                items.push(decode_mp(rd, et, depth + 1).map_err(|e| e.within(ValuePathStep::Index(i)))?);
            }
            Ok(Value::Tuple(items))
        }
        Type::Map(et) => {
            let n = rd.map_len_after(m)?.ok_or_else(expected)?;
            let mut entries = BTreeMap::new();
            for _ in 0..n {
                let key = decode_key(rd)?;
                let v = decode_mp(rd, et, depth + 1).map_err(|e| e.within(ValuePathStep::Key(key.clone())))?;
                if entries.insert(key.clone(), v).is_some() {
                    return Err(ValueError::invalid("duplicate map key").within(ValuePathStep::Key(key)));
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
                let v = decode_mp(rd, at, depth + 1).map_err(|e| e.within(ValuePathStep::Attr(key.clone())))?;
                if entries.insert(key.clone(), v).is_some() {
                    return Err(ValueError::invalid("duplicate attribute").within(ValuePathStep::Attr(key)));
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

/// A whole float is the integer it exactly is, as cty reads it (and as `encode_number` decides a whole number may
/// travel as a float): 12089009975911411712.0 is that integer, not its shortest text 12089009975911412000.
fn float_number(f: f64) -> Result<Number, ValueError> {
    if f.is_finite() && f.fract() == 0.0 {
        return Number::parse(&format!("{f:.0}"));
    }
    Number::from_f64(f).ok_or_else(|| ValueError::InvalidNumber {
        path: AttrPath::default(),
        text: "NaN".into(),
        reason: "NaN is not a number in Terraform",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::{num, roundtrip, typed_value};
    use proptest::prelude::*;

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
            "18446744073709551617", // 2^64 + 1; 2^64 itself is an exact float
            "1e30",                 // its float is 1000000000000000019884624838656, not 10^30
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
    fn a_whole_float_beyond_i64_decodes_as_the_integer_it_is() {
        // Found by prop_msgpack_round_trip: sent as an exact float, it came back as its shortest text.
        let v = Value::Number(Number::from_u64(12_089_009_975_911_411_712));
        let bytes = v.encode_msgpack(&Type::Number).unwrap();
        assert_eq!(bytes[0], 0xcb);
        assert_eq!(Value::decode_msgpack(&bytes, &Type::Number).unwrap(), v);
    }

    proptest! {
        #[test]
        fn prop_msgpack_round_trip((ty, v) in typed_value(true)) {
            let bytes = v.encode_msgpack(&ty).unwrap();
            prop_assert_eq!(Value::decode_msgpack(&bytes, &ty).unwrap(), v);
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
}
