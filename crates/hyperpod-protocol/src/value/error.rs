//! Decode/encode errors and the attribute paths that locate them.

use std::fmt;

/// One step of an [`AttrPath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValuePathStep {
    /// Object attribute, shown as `.name`.
    Attr(String),
    /// List, set or tuple element, shown as `[2]`.
    Index(usize),
    /// Map element, shown as `["key"]`.
    Key(String),
}

/// Where inside a value an error happened, e.g. `.priority_class[2].weight`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttrPath(pub Vec<ValuePathStep>);

impl AttrPath {
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for AttrPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step {
                ValuePathStep::Attr(name) => write!(f, ".{name}")?,
                ValuePathStep::Index(i) => write!(f, "[{i}]")?,
                ValuePathStep::Key(k) => write!(f, "[{k:?}]")?,
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
    pub(super) fn within(mut self, step: ValuePathStep) -> Self {
        self.path_mut().0.insert(0, step);
        self
    }

    pub(super) fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid {
            path: AttrPath::default(),
            message: message.into(),
        }
    }

    pub(super) fn mismatch(expected: impl Into<String>, got: impl Into<String>) -> Self {
        Self::TypeMismatch {
            path: AttrPath::default(),
            expected: expected.into(),
            got: got.into(),
        }
    }

    pub(super) fn bad_type(message: impl Into<String>) -> Self {
        Self::InvalidType {
            path: AttrPath::default(),
            message: message.into(),
        }
    }
}

/// Shared by the msgpack and JSON codecs, which both check tuple lengths.
pub(super) fn tuple_len_error(want: usize, got: usize) -> ValueError {
    ValueError::invalid(format!("a tuple of {want} elements is required ({got} given)"))
}

#[cfg(test)]
mod tests {
    use crate::value::{Type, Value};

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
}
