//! Typed models of resource values, declared once with `#[derive(Model)]` (crate `hyperpod-derive`): the struct's
//! fields are the attributes and blocks, and from it come the schema block ([`Model::block`]), the decode of a
//! configuration, plan or state into the struct and the encode back ([`Known`]), and a typed name per attribute
//! ([`Attr`], e.g. `SchedulingPolicyModel::ARN`) for the places that read or write one attribute of a value, so a misspelt
//! name does not compile and a value of the wrong type does not either.
//!
//! Every attribute is a [`Field`]: null, unknown until apply, or known. A known value that does not fit the model's
//! type is an error at its path (the validators keep such values out of configurations; a state written by hand or
//! by an older provider is where one could come from).
//!
//! A typed name exists for each declared attribute, and only for those:
//!
//! ```
//! use hyperpod_protocol::model::{Field, Model};
//!
//! /// A policy.
//! #[derive(Model)]
//! struct Policy {
//!     /// The cluster.
//!     #[tf(required)]
//!     cluster_name: Field<String>,
//! }
//! assert_eq!(Policy::CLUSTER_NAME.name(), "cluster_name");
//! ```
//!
//! so a misspelt one does not compile:
//!
//! ```compile_fail
//! use hyperpod_protocol::model::{Field, Model};
//!
//! /// A policy.
//! #[derive(Model)]
//! struct Policy {
//!     /// The cluster.
//!     #[tf(required)]
//!     cluster_name: Field<String>,
//! }
//! let _ = Policy::CLUSTR_NAME;
//! ```

use std::collections::BTreeMap;
use std::marker::PhantomData;

pub use super::decode::Field;
use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::schema::Block;
use super::value::{Number, Type, Value};
pub use hyperpod_derive::Model;

/// A struct whose fields are a block's attributes and nested blocks (`#[derive(Model)]`).
pub trait Model: Known {
    /// The schema block: each field's attribute or nested block, in declaration order.
    fn block() -> Block;

    /// Decodes a configuration, plan or state value; a known value of the wrong type is an error at its path.
    fn decode(value: &Value) -> Result<Self, Diagnostics> {
        Self::decode_known(value, &AttributePath::root())
    }

    /// The value Terraform holds for this model.
    fn encode(&self) -> Value {
        self.encode_known()
    }
}

/// A Rust type that stands for a known Terraform value.
pub trait Known: Sized {
    /// True when a value of this type can be known while parts of it are not (an object, a list of objects): a
    /// field of this type decodes such a value as known and lets its parts say which of them are unknown.
    const HOLDS_UNKNOWN: bool = false;
    fn terraform_type() -> Type;
    /// Decodes a value that is neither null nor unknown.
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics>;
    fn encode_known(&self) -> Value;
}

/// The type of a model's field: a [`Field`] of a known type, or a raw [`Value`] passed through as it is.
pub trait FieldType: Sized {
    fn terraform_type() -> Type;
    fn decode(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics>;
    fn encode(&self) -> Value;
}

impl<T: Known> FieldType for Field<T> {
    fn terraform_type() -> Type {
        T::terraform_type()
    }

    fn decode(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        match value {
            Value::Null => Ok(Field::Null),
            Value::Unknown => Ok(Field::Unknown),
            partly if !T::HOLDS_UNKNOWN && !partly.is_wholly_known() => Ok(Field::Unknown),
            known => T::decode_known(known, path).map(Field::Known),
        }
    }

    fn encode(&self) -> Value {
        match self {
            Field::Known(value) => value.encode_known(),
            Field::Null => Value::Null,
            // Never decoded (a decode reports the error instead); encoded as unknown so it is never taken as a value.
            Field::Unknown | Field::Invalid => Value::Unknown,
        }
    }
}

/// An element of a known list (or a value of a known map) that may itself be null or unknown: `Vec<Field<String>>`
/// keeps `["a", (known after apply)]` as it is, where `Vec<String>` reads the whole list as unknown.
impl<T: Known> Known for Field<T> {
    const HOLDS_UNKNOWN: bool = true;
    fn terraform_type() -> Type {
        T::terraform_type()
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        <Self as FieldType>::decode(value, path)
    }
    fn encode_known(&self) -> Value {
        FieldType::encode(self)
    }
}

/// A value passed through untouched (the `timeouts` block, an attribute whose type the model does not spell out).
impl FieldType for Value {
    fn terraform_type() -> Type {
        Type::Dynamic
    }

    fn decode(value: &Value, _: &AttributePath) -> Result<Self, Diagnostics> {
        Ok(value.clone())
    }

    fn encode(&self) -> Value {
        self.clone()
    }
}

/// The model of a nested block field (`#[tf(block)]`): a list of models or a single one.
pub trait BlockField {
    type Model: Model;
}

impl<M: Model> BlockField for Field<Vec<M>> {
    type Model = M;
}

impl<M: Model> BlockField for Field<M> {
    type Model = M;
}

/// A map of objects (`nested = map`): each element a field of its own, so one element known only at apply leaves
/// the others known.
impl<M: Model> BlockField for Field<BTreeMap<String, Field<M>>> {
    type Model = M;
}

/// The error for a known value of another type than the model's.
pub fn not_of_type(path: &AttributePath, value: &Value, expected: &str) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    diagnostics.push(Diagnostic::error(
        path.clone(),
        "Value of the wrong type",
        format!(
            "{path} is {}, where {expected} was expected. The state or plan was not written by this provider's \
             schema; correct the value, or remove the resource from state and import it.",
            value.implied_type().friendly_name()
        ),
    ));
    diagnostics
}

impl Known for String {
    fn terraform_type() -> Type {
        Type::String
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        match value {
            Value::String(text) => Ok(text.clone()),
            other => Err(not_of_type(path, other, "a string")),
        }
    }
    fn encode_known(&self) -> Value {
        Value::String(self.clone())
    }
}

impl Known for bool {
    fn terraform_type() -> Type {
        Type::Bool
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        match value {
            Value::Bool(flag) => Ok(*flag),
            other => Err(not_of_type(path, other, "a bool")),
        }
    }
    fn encode_known(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Known for i64 {
    fn terraform_type() -> Type {
        Type::Number
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        match value {
            Value::Number(number) => number
                .as_i64()
                .ok_or_else(|| not_of_type(path, value, "a whole number")),
            other => Err(not_of_type(path, other, "a whole number")),
        }
    }
    fn encode_known(&self) -> Value {
        Value::Number(Number::from_i64(*self))
    }
}

/// A number as Terraform holds it (arbitrary precision), for a measure that is not a whole number.
impl Known for Number {
    fn terraform_type() -> Type {
        Type::Number
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        match value {
            Value::Number(number) => Ok(number.clone()),
            other => Err(not_of_type(path, other, "a number")),
        }
    }
    fn encode_known(&self) -> Value {
        Value::Number(self.clone())
    }
}

impl Known for i32 {
    fn terraform_type() -> Type {
        Type::Number
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        let whole = i64::decode_known(value, path)?;
        i32::try_from(whole).map_err(|_| not_of_type(path, value, "a whole number of 32 bits"))
    }
    fn encode_known(&self) -> Value {
        Value::Number(Number::from_i64(i64::from(*self)))
    }
}

impl<T: Known> Known for Vec<T> {
    const HOLDS_UNKNOWN: bool = T::HOLDS_UNKNOWN;
    fn terraform_type() -> Type {
        Type::list(T::terraform_type())
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        let (Value::List(items) | Value::Set(items) | Value::Tuple(items)) = value else {
            return Err(not_of_type(path, value, "a list"));
        };
        let mut problems = Diagnostics::new();
        let mut decoded = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            match T::decode_known(item, &path.index(index)) {
                Ok(element) => decoded.push(element),
                Err(found) => problems.extend(found),
            }
        }
        problems.into_result(decoded)
    }
    fn encode_known(&self) -> Value {
        Value::List(self.iter().map(Known::encode_known).collect())
    }
}

impl<T: Known> Known for BTreeMap<String, T> {
    const HOLDS_UNKNOWN: bool = T::HOLDS_UNKNOWN;
    fn terraform_type() -> Type {
        Type::map(T::terraform_type())
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        let (Value::Map(entries) | Value::Object(entries)) = value else {
            return Err(not_of_type(path, value, "a map"));
        };
        let mut problems = Diagnostics::new();
        let mut decoded = BTreeMap::new();
        for (key, item) in entries {
            match T::decode_known(item, &path.key(key)) {
                Ok(element) => {
                    decoded.insert(key.clone(), element);
                }
                Err(found) => problems.extend(found),
            }
        }
        problems.into_result(decoded)
    }
    fn encode_known(&self) -> Value {
        Value::Map(
            self.iter()
                .map(|(key, item)| (key.clone(), item.encode_known()))
                .collect(),
        )
    }
}

/// A set attribute's elements (`Type::Set`): decoded from a set (or a list), encoded as a set, so a `Vec` keeps
/// meaning a list. Terraform orders a set's elements itself; the order here is the one it sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set<T>(pub Vec<T>);

impl<T: Known> Known for Set<T> {
    const HOLDS_UNKNOWN: bool = T::HOLDS_UNKNOWN;
    fn terraform_type() -> Type {
        Type::set(T::terraform_type())
    }
    fn decode_known(value: &Value, path: &AttributePath) -> Result<Self, Diagnostics> {
        if !matches!(value, Value::Set(_) | Value::List(_) | Value::Tuple(_)) {
            return Err(not_of_type(path, value, "a set"));
        }
        Vec::decode_known(value, path).map(Set)
    }
    fn encode_known(&self) -> Value {
        Value::Set(self.0.iter().map(Known::encode_known).collect())
    }
}

impl<T: Known> Field<T> {
    /// A value the provider computed for a field (from another resource's attributes) as the field: null, unknown
    /// or known as it is; one that is not of the field's type reads as unknown, so nothing is judged on it.
    pub fn of_value(value: &Value) -> Self {
        <Self as FieldType>::decode(value, &AttributePath::root()).unwrap_or(Field::Unknown)
    }
}

/// One attribute of a model, named once by the derive (`SchedulingPolicyModel::ARN`): reads and writes that attribute of
/// a value of the model, typed.
pub struct Attr<M, F> {
    name: &'static str,
    model: PhantomData<fn() -> (M, F)>,
}

impl<M, F> Clone for Attr<M, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, F> Copy for Attr<M, F> {}

impl<M, F: FieldType> Attr<M, F> {
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            model: PhantomData,
        }
    }

    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The attribute's path from the resource's root.
    pub fn path(self) -> AttributePath {
        AttributePath::attr(self.name)
    }

    /// The attribute of `object`, decoded (null when `object` lacks it).
    pub fn get(self, object: &Value) -> Result<F, Diagnostics> {
        F::decode(object.get_attr(self.name).unwrap_or(&Value::Null), &self.path())
    }

    /// Sets the attribute of `object` (a value of the model, so an object that has it).
    pub fn set(self, object: &mut Value, value: &F) {
        if let Value::Object(attributes) = object {
            attributes.insert(self.name.to_string(), value.encode());
        }
    }
}

impl<M, T: Known> Attr<M, Field<T>> {
    /// The attribute of `object` when known; `None` when null, unknown, or not of its type.
    pub fn known(self, object: &Value) -> Option<T> {
        self.get(object).ok()?.known()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::{object, text};
    use crate::validators::IntBetween;

    /// A priority class.
    #[derive(Model, Debug, PartialEq)]
    struct Class {
        /// The class's name.
        #[tf(required)]
        name: Field<String>,
        /// Its weight.
        #[tf(required, validate = IntBetween { min: 0, max: 100 })]
        weight: Field<i32>,
    }

    /// A policy: what the
    /// cluster runs.
    ///
    /// Second paragraph.
    #[derive(Model, Debug, PartialEq)]
    struct Policy {
        /// The cluster.
        #[tf(required, requires_replace)]
        cluster_name: Field<String>,
        #[tf(computed, use_state_for_unknown, description = format!("The {} ARN.", "config's"))]
        arn: Field<String>,
        #[tf(optional)]
        tags: Field<BTreeMap<String, String>>,
        #[tf(block, max_items = 10)]
        class: Field<Vec<Class>>,
    }

    #[test]
    fn a_set_is_a_set_both_ways() {
        type Ids = Field<Set<String>>;
        assert_eq!(<Ids as FieldType>::terraform_type(), Type::set(Type::String));
        let value = Value::Set(vec![text("1"), text("2")]);
        let ids = <Ids as FieldType>::decode(&value, &AttributePath::attr("ids")).expect("a set decodes");
        assert_eq!(ids, Field::Known(Set(vec!["1".to_string(), "2".to_string()])));
        assert_eq!(FieldType::encode(&ids), value);
        let wrong = <Ids as FieldType>::decode(&text("1"), &AttributePath::attr("ids"));
        assert!(wrong.is_err(), "a string is not a set");
    }

    #[test]
    fn the_declaration_is_the_schema() {
        let block = Policy::block();
        assert_eq!(
            block.description,
            "A policy: what the cluster runs.\n\nSecond paragraph."
        );
        let names: Vec<_> = block.attributes.iter().map(|a| a.name).collect();
        assert_eq!(names, ["cluster_name", "arn", "tags"]);
        assert!(block.attributes[0].requires_replace);
        assert_eq!(block.attributes[0].description, "The cluster.");
        assert_eq!(block.attributes[1].description, "The config's ARN.");
        assert_eq!(block.derived_names(), ["arn"]);
        assert_eq!(block.blocks[0].name, "class");
        assert_eq!(block.blocks[0].max_items, 10);
        assert_eq!(block.blocks[0].block.attributes[1].validators.len(), 1);
        assert_eq!(Policy::terraform_type(), block.value_type());
    }

    #[test]
    fn null_unknown_and_partly_unknown_values_round_trip() {
        let class = object([("name", Value::Unknown), ("weight", Value::Number(Number::from_i64(5)))]);
        let value = object([
            ("cluster_name", text("ml")),
            ("arn", Value::Unknown),
            ("tags", Value::Null),
            ("class", Value::List(vec![class])),
        ]);
        let policy = Policy::decode(&value).expect("decodes");
        assert_eq!(policy.cluster_name, Field::Known("ml".into()));
        assert_eq!(policy.arn, Field::Unknown);
        assert_eq!(policy.tags, Field::Null);
        let Field::Known(classes) = &policy.class else {
            panic!("a list of partly unknown blocks is known: {:?}", policy.class)
        };
        assert_eq!(classes[0].name, Field::Unknown);
        assert_eq!(classes[0].weight, Field::Known(5));
        assert_eq!(policy.encode(), value);
    }

    /// A list of strings, one of them unknown.
    #[derive(Model, Debug, PartialEq)]
    struct Profiles {
        #[tf(required)]
        whole: Field<Vec<String>>,
        #[tf(required)]
        parts: Field<Vec<Field<String>>>,
    }

    #[test]
    fn a_list_of_fields_keeps_its_unknown_elements() {
        let partly = Value::List(vec![text("a"), Value::Unknown]);
        let value = object([("whole", partly.clone()), ("parts", partly.clone())]);
        let profiles = Profiles::decode(&value).expect("decodes");
        assert_eq!(
            profiles.whole,
            Field::Unknown,
            "a list of plain strings is known only when all are"
        );
        assert_eq!(
            profiles.parts,
            Field::Known(vec![Field::Known("a".into()), Field::Unknown])
        );
        assert_eq!(profiles.parts.encode(), partly);
    }

    #[test]
    fn a_known_value_of_the_wrong_type_is_an_error_at_its_path() {
        let class = object([("name", text("a")), ("weight", text("heavy"))]);
        let value = object([
            ("cluster_name", Value::Bool(true)),
            ("arn", Value::Null),
            ("tags", Value::Null),
            ("class", Value::List(vec![class])),
        ]);
        let problems = Policy::decode(&value).expect_err("two wrong types");
        let paths: Vec<_> = problems.iter().map(|d| d.path.to_string()).collect();
        assert_eq!(paths, ["cluster_name", "class[0].weight"]);
    }

    /// Attributes several models share.
    #[derive(Model, Debug, PartialEq)]
    struct Shared {
        #[tf(computed)]
        passed: Field<String>,
    }

    /// A model that takes the shared attributes in its place.
    #[derive(Model, Debug, PartialEq)]
    struct WithShared {
        #[tf(required)]
        name: Field<String>,
        #[tf(flatten)]
        shared: Shared,
        #[tf(computed)]
        id: Field<String>,
    }

    /// A class whose weight this policy computes when unset.
    fn computed_weight() -> Block {
        let mut block = Class::block();
        for attribute in block.attributes.iter_mut().filter(|a| a.name == "weight") {
            *attribute = attribute.clone().optional_computed();
        }
        block
    }

    /// A policy whose classes are declared with another block than `Class::block()`.
    #[derive(Model, Debug, PartialEq)]
    struct Overridden {
        #[tf(block, schema = computed_weight())]
        class: Field<Vec<Class>>,
        /// The classes, as an attribute.
        #[tf(nested, schema = computed_weight())]
        classes: Field<Vec<Class>>,
    }

    #[test]
    fn a_block_declared_with_its_own_schema_keeps_the_model_s_type() {
        let block = Overridden::block();
        let weight = |attributes: &[crate::schema::Attribute]| {
            attributes.iter().find(|a| a.name == "weight").map(|a| a.presence)
        };
        assert_eq!(
            weight(&block.blocks[0].block.attributes),
            weight(&computed_weight().attributes)
        );
        assert_ne!(
            weight(&block.blocks[0].block.attributes),
            weight(&Class::block().attributes)
        );
        let crate::schema::AttributeKind::Nested { attributes, .. } = &block.attributes[0].kind else {
            panic!("a nested attribute");
        };
        assert_eq!(weight(attributes), weight(&computed_weight().attributes));
    }

    #[test]
    fn a_flattened_model_is_the_outer_ones_attributes_in_its_place() {
        let block = WithShared::block();
        let names: Vec<_> = block.attributes.iter().map(|a| a.name).collect();
        assert_eq!(names, ["name", "passed", "id"]);
        assert_eq!(WithShared::terraform_type(), block.value_type());
        let value = object([("name", text("a")), ("passed", Value::Unknown), ("id", Value::Null)]);
        let decoded = WithShared::decode(&value).expect("decodes");
        assert_eq!(decoded.shared.passed, Field::Unknown);
        assert_eq!(decoded.encode(), value);
        let wrong = object([("name", text("a")), ("passed", Value::Bool(true)), ("id", Value::Null)]);
        let paths: Vec<_> = WithShared::decode(&wrong)
            .expect_err("a bool is no string")
            .iter()
            .map(|d| d.path.to_string())
            .collect();
        assert_eq!(paths, ["passed"]);
    }

    #[test]
    fn typed_names_read_and_write_one_attribute() {
        let mut value = object([("cluster_name", text("ml")), ("arn", Value::Unknown)]);
        assert_eq!(
            Policy::CLUSTER_NAME.get(&value).expect("a string"),
            Field::Known("ml".into())
        );
        Policy::ARN.set(&mut value, &Field::Known("arn:x".into()));
        assert_eq!(value.get_attr("arn"), Some(&text("arn:x")));
        assert_eq!(Policy::ARN.path().to_string(), "arn");
    }
}
