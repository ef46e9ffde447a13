//! Reusable attribute validators. Each one sees only known, non-null values (the schema walk skips the rest), names
//! the attribute path, shows the observed value and says how to fix it.

use std::sync::OnceLock;

use regex::Regex;

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::value::Value;

/// Checks one known, non-null value. Validators never see unknown or null values: those are skipped for them.
pub trait Validator: Send + Sync {
    /// A sentence for the docs, e.g. "Between 0 and 100."
    fn description(&self) -> String;
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics);
}

/// A required argument written as `null`: the same error as leaving it out, at its path.
pub fn missing_required(path: &AttributePath) -> Diagnostic {
    Diagnostic::error(
        path.clone(),
        "Missing required argument",
        format!("{path} is required but is null. Fix: set a value for {path}."),
    )
}

/// A null element of a list, set or map (`["a", null]`, `{ k = null }`): no attribute of this provider gives one a
/// meaning, and AWS refuses them (or the provider would drop them, leaving a perpetual diff), so they fail at their
/// element's path. A set element has no index Terraform can point at: the diagnostic names the set.
pub fn no_null_elements(path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
    let null_element = |element_path: AttributePath, diagnostics: &mut Diagnostics| {
        diagnostics.push(Diagnostic::invalid_value(
            element_path,
            "null",
            "an element of a collection cannot be null",
            "remove the null element, or use compact() on a list built from expressions",
        ));
    };
    match value {
        Value::List(items) | Value::Tuple(items) => {
            for (index, item) in items.iter().enumerate() {
                if item.is_null() {
                    null_element(path.index(index), diagnostics);
                }
            }
        }
        Value::Set(items) if items.iter().any(Value::is_null) => null_element(path.clone(), diagnostics),
        Value::Map(items) => {
            for (key, item) in items {
                if item.is_null() {
                    null_element(path.key(key), diagnostics);
                }
            }
        }
        _ => {}
    }
}

/// Control characters other than tab, newline and carriage return, in a string or in a list, set or map of strings
/// (values and keys). XML 1.0 cannot carry them, so IAM and STS fail on them at apply, and no AWS or Kubernetes
/// pattern this provider sends admits them; descriptions may still hold tabs and newlines (where AWS refuses those
/// too, the attribute's own validator says so).
/// A control character other than tab, line feed and carriage return: what `no_control_characters` refuses.
pub fn has_control_character(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

pub fn no_control_characters(path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
    let bad = has_control_character;
    let mut report = |element_path: AttributePath, text: &str| {
        diagnostics.push(Diagnostic::invalid_value(
            element_path,
            format!("{text:?}"),
            "the value contains a control character",
            "remove control characters (U+0000 to U+001F other than tab and newline, U+007F to U+009F)",
        ));
    };
    match value {
        Value::String(text) if bad(text) => report(path.clone(), text),
        Value::List(items) | Value::Tuple(items) => {
            for (index, item) in items.iter().enumerate() {
                if let Value::String(text) = item
                    && bad(text)
                {
                    report(path.index(index), text);
                }
            }
        }
        Value::Set(items) => {
            for item in items {
                if let Value::String(text) = item
                    && bad(text)
                {
                    report(path.clone(), text);
                }
            }
        }
        Value::Map(items) => {
            for (key, item) in items {
                if bad(key) {
                    report(path.key(key), key);
                } else if let Value::String(text) = item
                    && bad(text)
                {
                    report(path.key(key), text);
                }
            }
        }
        _ => {}
    }
}

/// A whole number that fits a 64-bit integer, for counts and percentages whose range a governance rule judges (so
/// a fractional or huge value is an error at its path, never read as "unset" or "unknown").
pub struct WholeNumber;

impl Validator for WholeNumber {
    fn description(&self) -> String {
        "A whole number.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::Number(number) = value else { return };
        if number.as_i64().is_none() {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                number.as_str(),
                "the value must be a whole number (of at most 19 digits)",
                "use a whole number",
            ));
        }
    }
}

/// A finite number of zero or more, for amounts that may be fractional (vCPUs, GiB).
pub struct NonNegativeNumber;

impl Validator for NonNegativeNumber {
    fn description(&self) -> String {
        "A finite number of zero or more.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::Number(number) = value else { return };
        let amount = number.as_f64();
        if !amount.is_finite() || amount < 0.0 {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                number.as_str(),
                "the value must be a finite number of zero or more",
                "use an amount such as 8 or 0.5",
            ));
        }
    }
}

/// A whole number in `min..=max`.
pub struct IntBetween {
    pub min: i64,
    pub max: i64,
}

impl Validator for IntBetween {
    fn description(&self) -> String {
        format!("A whole number from {} to {}.", self.min, self.max)
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::Number(number) = value else { return };
        let fix = format!("use a whole number from {} to {}", self.min, self.max);
        match number.as_i64() {
            Some(n) if (self.min..=self.max).contains(&n) => {}
            Some(_) => diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                number.as_str(),
                "the value is out of range",
                &fix,
            )),
            None => diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                number.as_str(),
                "the value must be a whole number",
                &fix,
            )),
        }
    }
}

/// A string that matches a pattern as a whole (AWS matches service patterns against the entire value).
pub struct Matches {
    /// The anchored pattern. It is compiled on first use: compiling every pattern of every schema up front cost each
    /// plugin start about a millisecond (Terraform starts the provider at least twice per command), and most starts
    /// judge few strings or none.
    pattern: String,
    regex: OnceLock<Regex>,
    /// What the pattern means, for people: "1 to 63 letters, digits and hyphens, …".
    meaning: String,
}

impl Matches {
    /// `pattern` is anchored here; pass it unanchored, as AWS's models write it.
    pub fn new(pattern: &str, meaning: impl Into<String>) -> Self {
        Self {
            pattern: format!("^(?:{pattern})$"),
            regex: OnceLock::new(),
            meaning: meaning.into(),
        }
    }
    pub fn is_match(&self, text: &str) -> bool {
        self.regex().is_match(text)
    }
    fn regex(&self) -> &Regex {
        // The patterns are constants in this crate, so a bad one is a programming error; the schema property tests
        // run every validator of every schema, which compiles every pattern.
        self.regex.get_or_init(|| {
            Regex::new(&self.pattern).unwrap_or_else(|err| panic!("invalid built-in pattern {}: {err}", self.pattern))
        })
    }
}

impl Validator for Matches {
    fn description(&self) -> String {
        let mut chars = self.meaning.chars();
        let sentence: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        format!("{sentence}.")
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        if !self.is_match(text) {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "the value has the wrong form",
                &format!("use {}", self.meaning),
            ));
        }
    }
}

/// A string length in `min..=max` characters.
pub struct LengthBetween {
    pub min: usize,
    pub max: usize,
}

impl Validator for LengthBetween {
    fn description(&self) -> String {
        if self.min == 0 {
            format!("At most {} characters.", self.max)
        } else {
            format!("From {} to {} characters.", self.min, self.max)
        }
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        let length = text.chars().count();
        if !(self.min..=self.max).contains(&length) {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{length} characters"),
                "the value has the wrong length",
                &format!("use from {} to {} characters", self.min, self.max),
            ));
        }
    }
}

/// A duration such as `30s`, `10m`, `1h30m` (the `timeouts` block's format).
pub struct IsDuration;

impl Validator for IsDuration {
    fn description(&self) -> String {
        "A duration such as `30s`, `10m` or `1h30m`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        if parse_duration(text).is_none() {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "the value is not a duration",
                "write a number followed by a unit (s, m or h), e.g. \"20m\" or \"1h30m\"",
            ));
        }
    }
}

/// Parses Go-style durations made of `<number><unit>` parts with units `ms`, `s`, `m`, `h`.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let mut total = 0f64;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += number * seconds;
        rest = &rest[unit_len..];
    }
    Some(std::time::Duration::from_secs_f64(total))
}

/// One of a fixed set of strings.
pub struct OneOf(pub &'static [&'static str]);

impl OneOf {
    fn allowed(&self) -> String {
        self.0.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
    }
}

impl Validator for OneOf {
    fn description(&self) -> String {
        format!("One of {}.", self.allowed())
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        if !self.0.contains(&text.as_str()) {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "the value is not one of the allowed values",
                &format!("use one of {}", self.allowed()),
            ));
        }
    }
}

/// Every element of a list or set of strings is one of a fixed set.
pub struct EachOneOf(pub &'static [&'static str]);

impl Validator for EachOneOf {
    fn description(&self) -> String {
        format!("Each one of {}.", OneOf(self.0).allowed())
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        each_string(value, |text| {
            OneOf(self.0).validate(path, &Value::String(text.to_string()), diagnostics);
        });
    }
}

/// Calls `f` with each known string element of a list or set (sets have no index Terraform can point at), or with
/// the string itself.
pub fn each_string(value: &Value, mut f: impl FnMut(&str)) {
    if let Value::String(text) = value {
        f(text);
    }
    if let Value::List(items) | Value::Set(items) = value {
        for item in items {
            if let Value::String(text) = item {
                f(text);
            }
        }
    }
}

/// A calendar date written `YYYY-MM-DD`.
pub struct IsDate;

impl Validator for IsDate {
    fn description(&self) -> String {
        "A date, `YYYY-MM-DD`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        if parse_date(text).is_none() {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "the value is not a calendar date",
                "write the date as YYYY-MM-DD, e.g. \"2026-11-01\"",
            ));
        }
    }
}

/// Parses `YYYY-MM-DD` into a real calendar date (so `2026-02-30` is refused).
pub fn parse_date(text: &str) -> Option<time::Date> {
    let mut parts = text.splitn(3, '-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    if year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return None;
    }
    let month = time::Month::try_from(month.parse::<u8>().ok()?).ok()?;
    time::Date::from_calendar_date(year.parse().ok()?, month, day.parse().ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Number;

    fn run(validator: &dyn Validator, value: Value) -> Diagnostics {
        let mut diagnostics = Diagnostics::new();
        validator.validate(&AttributePath::attr("x"), &value, &mut diagnostics);
        diagnostics
    }

    #[test]
    fn int_between_rejects_out_of_range_and_fractions() {
        let weight = IntBetween { min: 0, max: 100 };
        assert!(run(&weight, Value::Number(Number::from_i64(100))).is_empty());
        assert!(run(&weight, Value::Number(Number::from_i64(0))).is_empty());
        let too_big = run(&weight, Value::Number(Number::from_i64(101)));
        assert!(too_big.has_errors());
        assert!(too_big.0[0].detail.contains("Observed: 101"));
        assert!(run(&weight, Value::Number(Number::parse("1.5").unwrap())).has_errors());
    }

    #[test]
    fn matches_is_anchored() {
        let name = Matches::new("[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?", "lowercase");
        assert!(run(&name, Value::String("prod-1".into())).is_empty());
        assert!(run(&name, Value::String("-bad".into())).has_errors());
        assert!(run(&name, Value::String("Bad".into())).has_errors());
    }

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("10m"), Some(std::time::Duration::from_mins(10)));
        assert_eq!(parse_duration("1h30m"), Some(std::time::Duration::from_mins(90)));
        assert_eq!(parse_duration("1.5s"), Some(std::time::Duration::from_millis(1500)));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(parse_duration("ten minutes"), None);
        assert_eq!(parse_duration(""), None);
        assert!(run(&IsDuration, Value::String("5x".into())).has_errors());
    }

    #[test]
    fn one_of_and_dates() {
        let orchestrator = OneOf(&["eks", "slurm"]);
        assert!(run(&orchestrator, Value::String("eks".into())).is_empty());
        let wrong = run(&orchestrator, Value::String("k8s".into()));
        assert!(wrong.0[0].detail.contains("use one of `eks`, `slurm`"));
        let each = EachOneOf(&["a", "b"]);
        assert!(
            run(
                &each,
                Value::Set(vec![Value::String("a".into()), Value::String("c".into())])
            )
            .has_errors()
        );
        assert_eq!(
            parse_date("2026-11-01"),
            time::Date::from_calendar_date(2026, time::Month::November, 1).ok()
        );
        assert_eq!(parse_date("2026-02-30"), None);
        assert_eq!(parse_date("26-11-01"), None);
        assert!(run(&IsDate, Value::String("yesterday".into())).has_errors());
    }

    #[test]
    fn length_counts_characters() {
        let length = LengthBetween { min: 1, max: 3 };
        assert!(run(&length, Value::String("äöü".into())).is_empty());
        assert!(run(&length, Value::String(String::new())).has_errors());
    }

    #[test]
    fn generic_checks_reject_null_elements_and_control_characters_at_their_path() {
        let path = AttributePath::attr("x");
        let mut diagnostics = Diagnostics::new();
        no_null_elements(&path, &Value::List(vec!["a".into(), Value::Null]), &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path, path.index(1));
        let mut diagnostics = Diagnostics::new();
        let tags = Value::Map([("k".to_string(), Value::Null)].into_iter().collect());
        no_null_elements(&path, &tags, &mut diagnostics);
        assert_eq!(diagnostics.0[0].path, path.key("k"));

        let mut diagnostics = Diagnostics::new();
        no_control_characters(&path, &"tab\tand\nnewline".into(), &mut diagnostics);
        assert!(
            diagnostics.is_empty(),
            "tabs and newlines are left to the attribute's own validators"
        );
        no_control_characters(&path, &"a\u{1}b".into(), &mut diagnostics);
        no_control_characters(
            &path,
            &Value::List(vec!["ok".into(), "b\u{7f}".into()]),
            &mut diagnostics,
        );
        let keys = Value::Map([("k\u{1}".to_string(), Value::from("v"))].into_iter().collect());
        no_control_characters(&path, &keys, &mut diagnostics);
        let paths: Vec<_> = diagnostics.0.iter().map(|d| d.path.clone()).collect();
        assert_eq!(paths, [path.clone(), path.index(1), path.key("k\u{1}")]);
        assert!(diagnostics.0[0].detail.contains("control character"));
    }

    #[test]
    fn the_schema_walk_rejects_a_required_argument_written_as_null() {
        use crate::schema::{Attribute, Block};
        let block = Block::new("test")
            .attribute(Attribute::string("name").required())
            .attribute(Attribute::string("note").optional());
        let config = Value::object([("name", Value::Null), ("note", Value::Null)]);
        let mut diagnostics = Diagnostics::new();
        block.validate(&config, &AttributePath::root(), &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1, "an optional null is simply unset");
        assert_eq!(diagnostics.0[0].path, AttributePath::attr("name"));
        assert_eq!(diagnostics.0[0].summary, "Missing required argument");
    }
}
