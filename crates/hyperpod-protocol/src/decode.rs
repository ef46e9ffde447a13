//! One typed layer between a resource's value (configuration, plan or state) and its model: every field is null,
//! unknown until apply, or a known value of its type ([`Field`]), so a model can never read "unknown" as "unset".
//! Validators run before any decode (`terraform validate`, and again at plan), so a known value that does not fit
//! its type never gets here; one that would (a schema without its validator) decodes as [`Field::Invalid`], which
//! every accessor treats like unknown: the rules that read it wait, they never pass on it.
//!
//! Terraform always sends every attribute of a schema (null when unset), so a name missing from an object is a
//! typo in the model: under `cfg(test)` the readers assert it, and the decode property tests (which decode values
//! shaped by the schema) then prove every name a model reads exists in its schema.

use super::value::Value;

/// A field as a model sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field<T> {
    Null,
    Unknown,
    Known(T),
    /// Known, but not of the model's type (kept out by validators; treated like unknown).
    Invalid,
}

/// Null: an attribute nobody set.
impl<T> Default for Field<T> {
    fn default() -> Self {
        Field::Null
    }
}

impl<T> Field<T> {
    /// The value when known; `None` when null, unknown or invalid.
    pub fn known(self) -> Option<T> {
        match self {
            Field::Known(value) => Some(value),
            _ => None,
        }
    }

    /// The value by reference when known; `None` when null, unknown or invalid.
    pub fn as_known(&self) -> Option<&T> {
        match self {
            Field::Known(value) => Some(value),
            _ => None,
        }
    }

    /// The field with its value, if known, mapped; null, unknown and invalid stay so.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Field<U> {
        match self {
            Field::Known(value) => Field::Known(f(value)),
            Field::Null => Field::Null,
            Field::Unknown => Field::Unknown,
            Field::Invalid => Field::Invalid,
        }
    }

    /// The field by reference.
    pub fn as_ref(&self) -> Field<&T> {
        match self {
            Field::Known(value) => Field::Known(value),
            Field::Null => Field::Null,
            Field::Unknown => Field::Unknown,
            Field::Invalid => Field::Invalid,
        }
    }

    /// Whether the value waits for apply: unknown, or invalid (which every accessor treats like unknown).
    pub fn is_unknown(&self) -> bool {
        matches!(self, Field::Unknown | Field::Invalid)
    }

    /// `Some(value)`, `Some(default)` when null, `None` (wait for apply) when unknown or invalid.
    pub fn or_when_null(self, default: T) -> Option<T> {
        match self {
            Field::Known(value) => Some(value),
            Field::Null => Some(default),
            Field::Unknown | Field::Invalid => None,
        }
    }

    /// `Some(Some(value))`, `Some(None)` when null, `None` (wait for apply) when unknown or invalid.
    pub fn optional(self) -> Option<Option<T>> {
        match self {
            Field::Known(value) => Some(Some(value)),
            Field::Null => Some(None),
            Field::Unknown | Field::Invalid => None,
        }
    }
}

/// Known when `Some`, null when `None`: a value the service reports or leaves out.
impl<T> From<Option<T>> for Field<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Field::Null, Field::Known)
    }
}

impl<T> Field<Vec<Field<T>>> {
    /// The list when it and every element are known; unknown while the list or an element is; invalid when an
    /// element is null or invalid (a list the model needs whole, e.g. to write every element).
    pub fn wholly_known(self) -> Field<Vec<T>> {
        let items = match self {
            Field::Known(items) => items,
            Field::Null => return Field::Null,
            Field::Unknown => return Field::Unknown,
            Field::Invalid => return Field::Invalid,
        };
        if items.iter().any(Field::is_unknown) {
            return if items.iter().any(|item| matches!(item, Field::Unknown)) {
                Field::Unknown
            } else {
                Field::Invalid
            };
        }
        items
            .into_iter()
            .map(Field::known)
            .collect::<Option<Vec<T>>>()
            .map_or(Field::Invalid, Field::Known)
    }

    /// Whether neither the list nor an element waits for apply (null counts as known).
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Field::Known(items) => !items.iter().any(Field::is_unknown),
            Field::Null => true,
            Field::Unknown | Field::Invalid => false,
        }
    }
}

impl<T: Default> Field<T> {
    /// The value, its type's default when null, or `None` when unknown (empty lists for unset list attributes).
    pub fn or_empty(self) -> Option<T> {
        self.or_when_null(T::default())
    }
}

/// An object value (a resource, a block, an object attribute) read field by field.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a>(pub &'a Value);

impl<'a> Fields<'a> {
    fn get(self, name: &str) -> &'a Value {
        let value = self.0.get_attr(name);
        if cfg!(test) && matches!(self.0, Value::Object(_)) {
            assert!(
                value.is_some(),
                "the model reads {name:?}, which its schema does not have"
            );
        }
        value.unwrap_or(&Value::Null)
    }

    fn field<T>(self, name: &str, read: impl FnOnce(&'a Value) -> Option<T>) -> Field<T> {
        match self.get(name) {
            Value::Null => Field::Null,
            value if !value.is_wholly_known() => Field::Unknown,
            value => read(value).map_or(Field::Invalid, Field::Known),
        }
    }

    pub fn string(&self, name: &str) -> Field<String> {
        self.field(name, |value| match value {
            Value::String(text) => Some(text.clone()),
            _ => None,
        })
    }

    pub fn bool(&self, name: &str) -> Field<bool> {
        self.field(name, |value| match value {
            Value::Bool(flag) => Some(*flag),
            _ => None,
        })
    }

    /// A whole number that fits `i64` (a fractional or huge one is `Invalid`).
    pub fn integer(&self, name: &str) -> Field<i64> {
        self.field(name, |value| match value {
            Value::Number(number) => number.as_i64(),
            _ => None,
        })
    }

    /// A finite number.
    pub fn number(&self, name: &str) -> Field<f64> {
        self.field(name, |value| match value {
            Value::Number(number) => Some(number.as_f64()).filter(|n| n.is_finite()),
            _ => None,
        })
    }

    /// A list or set of strings, wholly known.
    pub fn strings(&self, name: &str) -> Field<Vec<String>> {
        self.field(name, |value| {
            elements_of(value)
                .iter()
                .map(|item| match item {
                    Value::String(text) => Some(text.clone()),
                    _ => None,
                })
                .collect()
        })
    }

    /// A map of strings, wholly known.
    pub fn string_map(&self, name: &str) -> Field<std::collections::BTreeMap<String, String>> {
        self.field(name, |value| match value {
            Value::Map(entries) => entries
                .iter()
                .map(|(key, item)| match item {
                    Value::String(text) => Some((key.clone(), text.clone())),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
    }

    /// A single nested block or object attribute. Unknown only when the whole block is: its fields say the rest.
    pub fn block(&self, name: &str) -> Field<Fields<'a>> {
        match self.get(name) {
            Value::Null => Field::Null,
            Value::Unknown => Field::Unknown,
            object @ Value::Object(_) => Field::Known(Fields(object)),
            // A single block is sometimes sent as a one-element list by older clients.
            Value::List(items) => match items.first() {
                Some(object @ Value::Object(_)) => Field::Known(Fields(object)),
                Some(Value::Unknown) => Field::Unknown,
                _ => Field::Null,
            },
            _ => Field::Invalid,
        }
    }

    /// The elements of a list or set of blocks.
    pub fn blocks(&self, name: &str) -> Field<Vec<Fields<'a>>> {
        match self.get(name) {
            Value::Null => Field::Null,
            Value::Unknown => Field::Unknown,
            value => Field::Known(elements_of(value).iter().map(Fields).collect()),
        }
    }
}

fn elements_of(value: &Value) -> &[Value] {
    match value {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => items,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::{object, text};
    use crate::value::Number;

    #[test]
    fn a_list_is_wholly_known_only_when_every_element_is() {
        let list = |items: Vec<Field<String>>| Field::Known(items);
        let a = || Field::Known("a".to_string());
        assert_eq!(
            list(vec![a(), a()]).wholly_known(),
            Field::Known(vec!["a".into(), "a".into()])
        );
        assert_eq!(list(vec![a(), Field::Unknown]).wholly_known(), Field::Unknown);
        assert_eq!(list(vec![a(), Field::Null]).wholly_known(), Field::Invalid);
        assert_eq!(Field::<Vec<Field<String>>>::Null.wholly_known(), Field::Null);
        assert!(
            list(vec![a(), Field::Null]).is_wholly_known(),
            "a null element is known"
        );
        assert!(!list(vec![a(), Field::Unknown]).is_wholly_known());
        assert!(Field::<Vec<Field<String>>>::Null.is_wholly_known());
        assert!(!Field::<Vec<Field<String>>>::Unknown.is_wholly_known());
    }

    #[test]
    fn null_unknown_and_known_stay_apart() {
        let value = object([
            ("set", text("x")),
            ("unset", Value::Null),
            ("later", Value::Unknown),
            ("half", Value::List(vec![text("a"), Value::Unknown])),
            ("fraction", Value::Number(Number::parse("2.5").expect("a number"))),
        ]);
        let fields = Fields(&value);
        assert_eq!(fields.string("set"), Field::Known("x".into()));
        assert_eq!(fields.string("unset").optional(), Some(None));
        assert_eq!(
            fields.string("later").optional(),
            None,
            "unknown waits, never reads as unset"
        );
        assert_eq!(
            fields.strings("half").or_empty(),
            None,
            "a partly known list is not known"
        );
        assert_eq!(fields.integer("fraction"), Field::Invalid);
        assert_eq!(
            fields.integer("fraction").or_when_null(0),
            None,
            "invalid never passes as a value"
        );
    }

    #[test]
    #[should_panic(expected = "which its schema does not have")]
    fn a_name_the_schema_lacks_is_caught_in_tests() {
        let value = object([("team", text("research"))]);
        let _ = Fields(&value).string("teams");
    }
}
