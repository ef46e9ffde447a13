//! Where in a configuration something points: an attribute path (`.name`, `["key"]`, `[3]`; the empty path is the
//! resource or provider block itself). The engine's findings point with it, relative to the resource whose plan ran
//! the rule, and the plugin protocol sends it to Terraform with each diagnostic.

use std::fmt;

/// One step of an attribute path: `.name`, `["key"]` or `[3]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    Attribute(String),
    Key(String),
    Index(i64),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttributePath(pub Vec<PathStep>);

impl AttributePath {
    pub fn root() -> Self {
        Self(Vec::new())
    }
    pub fn attr(name: &str) -> Self {
        Self(vec![PathStep::Attribute(name.to_string())])
    }
    pub fn push_attr(&self, name: &str) -> Self {
        self.with(PathStep::Attribute(name.to_string()))
    }
    pub fn index(&self, index: usize) -> Self {
        self.with(PathStep::Index(index as i64))
    }
    pub fn key(&self, key: &str) -> Self {
        self.with(PathStep::Key(key.to_string()))
    }
    fn with(&self, step: PathStep) -> Self {
        let mut steps = self.0.clone();
        steps.push(step);
        Self(steps)
    }
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
    /// The attribute names along the path, without element keys (to match a path against a schema).
    pub fn attribute_names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|step| match step {
            PathStep::Attribute(name) => Some(name.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                PathStep::Attribute(name) if i == 0 => write!(f, "{name}")?,
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::Key(key) => write!(f, "[{key:?}]")?,
                PathStep::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}
