//! Schemas as typed declarations: attributes, nested attributes and blocks, in declaration order, with markdown
//! descriptions, validators and plan modifiers. One declaration drives validation, planning, the wire schema and docs.

use std::sync::Arc;

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
pub use super::validators::Validator;
use super::value::{Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    Required,
    Optional,
    /// Set by the provider only.
    Computed,
    /// Set by the user, or by the provider when the user leaves it out.
    OptionalComputed,
}

impl Presence {
    pub fn is_computed(self) -> bool {
        matches!(self, Self::Computed | Self::OptionalComputed)
    }
}

/// How nested attributes or blocks repeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nesting {
    Single,
    List,
    Set,
    Map,
}

#[derive(Clone)]
pub enum AttributeKind {
    Primitive(Type),
    Nested {
        nesting: Nesting,
        attributes: Vec<Attribute>,
    },
}

/// The flags mirror the protocol's `Schema.Attribute` (sensitive, write-only, ...), one field each.
#[derive(Clone)]
#[allow(clippy::struct_excessive_bools)]
pub struct Attribute {
    pub name: &'static str,
    pub kind: AttributeKind,
    pub description: String,
    pub presence: Presence,
    pub sensitive: bool,
    pub write_only: bool,
    pub deprecation: Option<String>,
    pub validators: Vec<Arc<dyn Validator>>,
    /// A change to this attribute destroys and re-creates the object.
    pub requires_replace: bool,
    /// A computed value that never changes once known: plans keep the prior value instead of "(known after apply)".
    pub use_state_for_unknown: bool,
    /// The value planned when the user leaves an optional+computed attribute out.
    pub default: Option<Value>,
}

impl Attribute {
    pub fn new(name: &'static str, ty: Type) -> Self {
        Self {
            name,
            kind: AttributeKind::Primitive(ty),
            description: String::new(),
            presence: Presence::Optional,
            sensitive: false,
            write_only: false,
            deprecation: None,
            validators: Vec::new(),
            requires_replace: false,
            use_state_for_unknown: false,
            default: None,
        }
    }
    pub fn string(name: &'static str) -> Self {
        Self::new(name, Type::String)
    }
    pub fn number(name: &'static str) -> Self {
        Self::new(name, Type::Number)
    }
    pub fn bool(name: &'static str) -> Self {
        Self::new(name, Type::Bool)
    }
    pub fn nested(name: &'static str, nesting: Nesting, attributes: Vec<Attribute>) -> Self {
        Self {
            kind: AttributeKind::Nested { nesting, attributes },
            ..Self::new(name, Type::Dynamic)
        }
    }
    pub fn required(mut self) -> Self {
        self.presence = Presence::Required;
        self
    }
    pub fn optional(mut self) -> Self {
        self.presence = Presence::Optional;
        self
    }
    pub fn computed(mut self) -> Self {
        self.presence = Presence::Computed;
        self
    }
    pub fn optional_computed(mut self) -> Self {
        self.presence = Presence::OptionalComputed;
        self
    }
    pub fn describe(mut self, markdown: impl Into<String>) -> Self {
        self.description = markdown.into();
        self
    }
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }
    /// Write-only (tfplugin6, Terraform/OpenTofu 1.11+): the provider reads the value from the configuration at plan
    /// and apply; plans and state hold null for it, and the plan renders `(write-only attribute)`.
    pub fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }
    pub fn deprecated(mut self, message: impl Into<String>) -> Self {
        self.deprecation = Some(message.into());
        self
    }
    pub fn validate(mut self, validator: impl Validator + 'static) -> Self {
        self.validators.push(Arc::new(validator));
        self
    }
    pub fn requires_replace(mut self) -> Self {
        self.requires_replace = true;
        self
    }
    pub fn use_state_for_unknown(mut self) -> Self {
        self.use_state_for_unknown = true;
        self
    }
    pub fn default_value(mut self, value: Value) -> Self {
        self.presence = Presence::OptionalComputed;
        self.default = Some(value);
        self
    }

    pub fn value_type(&self) -> Type {
        match &self.kind {
            AttributeKind::Primitive(ty) => ty.clone(),
            AttributeKind::Nested { nesting, attributes } => {
                let object = object_type(attributes.iter().map(|a| (a.name, a.value_type())));
                wrap(*nesting, object)
            }
        }
    }
}

#[derive(Clone)]
pub struct NestedBlock {
    pub name: &'static str,
    pub nesting: Nesting,
    pub block: Block,
    pub min_items: i64,
    pub max_items: i64,
}

impl NestedBlock {
    pub fn list(name: &'static str, block: Block) -> Self {
        Self {
            name,
            nesting: Nesting::List,
            block,
            min_items: 0,
            max_items: 0,
        }
    }
    pub fn single(name: &'static str, block: Block) -> Self {
        Self {
            nesting: Nesting::Single,
            ..Self::list(name, block)
        }
    }
    /// For list and set blocks. (Single blocks are optional with 0/0, required with 1/1: see `required`.)
    pub fn max_items(mut self, max: i64) -> Self {
        self.max_items = max;
        self
    }
    /// A single block the configuration must contain (Terraform wants min = max = 1 for it).
    pub fn required(mut self) -> Self {
        self.min_items = 1;
        self.max_items = 1;
        self
    }
    pub fn value_type(&self) -> Type {
        wrap(self.nesting, self.block.value_type())
    }
}

#[derive(Clone, Default)]
pub struct Block {
    pub description: String,
    pub deprecation: Option<String>,
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<NestedBlock>,
    /// The operations a `timeouts` block times and their default (`Block::timeouts`); the protocol layer turns them
    /// into each create, update and delete's deadline (`deadline`).
    pub timeouts: Option<super::deadline::Timeouts>,
}

impl Block {
    pub fn new(description: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            ..Self::default()
        }
    }
    pub fn attribute(mut self, attribute: Attribute) -> Self {
        self.attributes.push(attribute);
        self
    }
    /// The conventional `timeouts { create = "…" … }` block for `operations`, each allowed `default` unless
    /// configured. Every create, update and delete of the resource is held to it (`deadline`), waits included.
    pub fn timeouts(mut self, operations: &'static [super::deadline::Operation], default: std::time::Duration) -> Self {
        let text = super::deadline::humantime(default);
        let block = operations.iter().fold(
            Block::new(
                "How long each operation may take, its calls and its waits together. At the deadline a wait ends, \
                 a call is no longer sent, and a call answered later fails; the apply then fails with \
                 \"Operation timed out\", and what the operation had written is kept in state (tainted, replaced \
                 next) or adopted by the next apply.",
            ),
            |block, operation| {
                block.attribute(
                    Attribute::string(operation.name())
                        .optional()
                        .describe(format!("Time allowed for {}. Defaults to `{text}`.", operation.name()))
                        .validate(super::validators::IsDuration),
                )
            },
        );
        self.timeouts = Some(super::deadline::Timeouts { operations, default });
        self.block(NestedBlock::single(super::deadline::BLOCK, block))
    }
    pub fn attributes(mut self, attributes: impl IntoIterator<Item = Attribute>) -> Self {
        self.attributes.extend(attributes);
        self
    }
    pub fn block(mut self, block: NestedBlock) -> Self {
        self.blocks.push(block);
        self
    }
    pub fn value_type(&self) -> Type {
        object_type(
            self.attributes
                .iter()
                .map(|a| (a.name, a.value_type()))
                .chain(self.blocks.iter().map(|b| (b.name, b.value_type()))),
        )
    }
    /// An object of this block's type with every attribute and nested block null: the start of an imported state.
    pub fn null_value(&self) -> Value {
        Value::Object(
            self.attributes
                .iter()
                .map(|a| a.name)
                .chain(self.blocks.iter().map(|b| b.name))
                .map(|name| (name.to_string(), Value::Null))
                .collect(),
        )
    }

    /// The names of the top-level write-only attributes.
    pub fn write_only_names(&self) -> Vec<&'static str> {
        self.attributes
            .iter()
            .filter(|a| a.write_only)
            .map(|a| a.name)
            .collect()
    }

    /// The attributes the provider derives: computed, or optional and computed without a declared default (a
    /// default is planned by the schema walk). In declaration order; what a plan that cannot know them yet marks
    /// unknown.
    pub fn derived_names(&self) -> Vec<&'static str> {
        self.attributes
            .iter()
            .filter(|a| matches!(a.presence, Presence::Computed | Presence::OptionalComputed) && a.default.is_none())
            .map(|a| a.name)
            .collect()
    }

    pub fn find_attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// Runs every attribute's validators over a configuration value, skipping unknown and null values, and warns
    /// about deprecated attributes that are set.
    pub fn validate(&self, value: &Value, path: &AttributePath, diagnostics: &mut Diagnostics) {
        for attribute in &self.attributes {
            let Some(attribute_value) = value.get_attr(attribute.name) else {
                continue;
            };
            let attribute_path = path.push_attr(attribute.name);
            if attribute_value.is_null() {
                // Terraform passes an explicit `name = null` through as if the argument were set; a required one
                // must still fail here, at its path, not later at apply.
                if attribute.presence == Presence::Required {
                    diagnostics.push(super::validators::missing_required(&attribute_path));
                }
                continue;
            }
            if !attribute_value.is_known() {
                continue;
            }
            super::validators::no_null_elements(&attribute_path, attribute_value, diagnostics);
            super::validators::no_control_characters(&attribute_path, attribute_value, diagnostics);
            if let Some(message) = &attribute.deprecation {
                diagnostics.push(Diagnostic::warning(
                    attribute_path.clone(),
                    "Deprecated attribute",
                    format!("{attribute_path} is deprecated: {message}"),
                ));
            }
            for validator in &attribute.validators {
                validator.validate(&attribute_path, attribute_value, diagnostics);
            }
            if let AttributeKind::Nested { attributes, .. } = &attribute.kind {
                let nested = Block {
                    attributes: attributes.clone(),
                    ..Block::default()
                };
                for_each_element(attribute_value, &attribute_path, |element, element_path| {
                    nested.validate(element, element_path, diagnostics);
                });
            }
        }
        for nested in &self.blocks {
            if let Some(block_value) = value.get_attr(nested.name) {
                let block_path = path.push_attr(nested.name);
                for_each_element(block_value, &block_path, |element, element_path| {
                    nested.block.validate(element, element_path, diagnostics);
                });
            }
        }
    }
}

/// Calls `f` on each object of a nested collection (or on the object itself for single nesting).
fn for_each_element(value: &Value, path: &AttributePath, mut f: impl FnMut(&Value, &AttributePath)) {
    match value {
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            for (index, item) in items.iter().enumerate() {
                if item.is_known() && !item.is_null() {
                    f(item, &path.index(index));
                }
            }
        }
        Value::Map(items) => {
            for (key, item) in items {
                if item.is_known() && !item.is_null() {
                    f(item, &path.key(key));
                }
            }
        }
        Value::Object(_) => f(value, path),
        _ => {}
    }
}

fn object_type<'a>(attributes: impl Iterator<Item = (&'a str, Type)>) -> Type {
    Type::Object(attributes.map(|(name, ty)| (name.to_string(), ty)).collect())
}

fn wrap(nesting: Nesting, object: Type) -> Type {
    match nesting {
        Nesting::Single => object,
        Nesting::List => Type::List(Box::new(object)),
        Nesting::Set => Type::Set(Box::new(object)),
        Nesting::Map => Type::Map(Box::new(object)),
    }
}

/// A resource's, data source's or the provider's schema.
#[derive(Clone)]
pub struct Schema {
    pub version: i64,
    pub block: Block,
}

impl Schema {
    pub fn value_type(&self) -> Type {
        self.block.value_type()
    }
}

/// Attributes that identify a resource for `import { identity = { … } }` and for Terraform's identity tracking.
#[derive(Clone)]
pub struct IdentitySchema {
    pub version: i64,
    pub attributes: Vec<IdentityAttribute>,
}

#[derive(Clone)]
pub struct IdentityAttribute {
    pub name: &'static str,
    pub ty: Type,
    pub description: String,
    pub required_for_import: bool,
}

impl IdentitySchema {
    /// The identity a block declares: each attribute, required for import when the block requires it.
    pub fn of(version: i64, block: &Block) -> Self {
        Self {
            version,
            attributes: (block.attributes.iter())
                .map(|attribute| IdentityAttribute {
                    name: attribute.name,
                    ty: attribute.value_type(),
                    description: attribute.description.clone(),
                    required_for_import: attribute.presence == Presence::Required,
                })
                .collect(),
        }
    }

    pub fn value_type(&self) -> Type {
        object_type(self.attributes.iter().map(|a| (a.name, a.ty.clone())))
    }
}

/// A provider function's signature.
#[derive(Clone)]
pub struct FunctionSignature {
    pub summary: String,
    pub description: String,
    pub parameters: Vec<FunctionParameter>,
    pub return_type: Type,
}

#[derive(Clone)]
pub struct FunctionParameter {
    pub name: &'static str,
    pub ty: Type,
    pub description: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_names_are_the_computed_attributes_without_a_declared_default() {
        let block = Block::new("")
            .attribute(Attribute::string("name").required())
            .attribute(Attribute::string("arn").computed())
            .attribute(Attribute::string("note").optional())
            .attribute(Attribute::string("label").optional_computed())
            .attribute(
                Attribute::string("state")
                    .optional_computed()
                    .default_value(Value::String("Enabled".into())),
            )
            .attribute(Attribute::string("id").computed());
        assert_eq!(block.derived_names(), ["arn", "label", "id"]);
    }
}
