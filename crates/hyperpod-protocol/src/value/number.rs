//! Exact decimal numbers in canonical text form.

use std::fmt;
use std::str::FromStr;

use super::{AttrPath, ValueError};

/// A canonical number is written plainly when that needs at most this many padding zeros,
/// and in scientific notation otherwise (so "1e400" does not become 401 characters).
const PLAIN_ZEROS: i64 = 32;
/// Largest decimal exponent accepted; far beyond f64 and cty's 512-bit floats, small enough
/// that exponent arithmetic cannot overflow.
const MAX_EXPONENT: i64 = 1_000_000_000;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::num;
    use crate::value::{Type, Value};
    use proptest::prelude::*;

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

    proptest! {
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
