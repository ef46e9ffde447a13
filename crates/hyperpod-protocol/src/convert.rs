//! Conversions between the provider's own types (values, schemas, diagnostics) and the tfplugin6 wire messages.

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics, PathStep, Severity};
use super::proto::tfplugin6 as pb;
use super::schema::{
    Attribute, AttributeKind, Block, FunctionSignature, IdentitySchema, NestedBlock, Nesting, Presence, Schema,
};
use super::value::{Type, Value};

// ---- values ---------------------------------------------------------------------------------------------------

pub(crate) fn decode(value: Option<&pb::DynamicValue>, ty: &Type) -> Result<Value, Diagnostics> {
    let Some(value) = value else {
        return Ok(Value::Null);
    };
    let result = if !value.msgpack.is_empty() {
        Value::decode_msgpack(&value.msgpack, ty)
    } else if !value.json.is_empty() {
        Value::decode_json(&value.json, ty)
    } else {
        Ok(Value::Null)
    };
    result.map_err(|err| {
        Diagnostics::error(
            AttributePath::root(),
            "Undecodable value from Terraform",
            err.to_string(),
        )
    })
}

pub(crate) fn encode(value: &Value, ty: &Type) -> Result<pb::DynamicValue, Diagnostics> {
    value
        .encode_msgpack(ty)
        .map(|msgpack| pb::DynamicValue {
            msgpack,
            json: Vec::new(),
        })
        .map_err(|err| {
            Diagnostics::error(
                AttributePath::root(),
                "Provider produced an unencodable value",
                err.to_string(),
            )
        })
}

pub(crate) fn diagnostics_to_proto(diagnostics: Diagnostics) -> Vec<pb::Diagnostic> {
    diagnostics.into_iter().map(diagnostic_to_proto).collect()
}

pub(crate) fn diagnostic_to_proto(diagnostic: Diagnostic) -> pb::Diagnostic {
    let attribute = (!diagnostic.path.is_root()).then(|| path_to_proto(&diagnostic.path));
    pb::Diagnostic {
        severity: match diagnostic.severity {
            Severity::Error => pb::diagnostic::Severity::Error,
            Severity::Warning => pb::diagnostic::Severity::Warning,
        } as i32,
        summary: diagnostic.summary,
        detail: diagnostic.detail,
        attribute,
    }
}

pub(crate) fn path_to_proto(path: &AttributePath) -> pb::AttributePath {
    use pb::attribute_path::step::Selector;
    pb::AttributePath {
        steps: path
            .0
            .iter()
            .map(|step| pb::attribute_path::Step {
                selector: Some(match step {
                    PathStep::Attribute(name) => Selector::AttributeName(name.clone()),
                    PathStep::Key(key) => Selector::ElementKeyString(key.clone()),
                    PathStep::Index(index) => Selector::ElementKeyInt(*index),
                }),
            })
            .collect(),
    }
}

pub(crate) fn identity_data(
    identity: Option<Value>,
    schema: Option<&IdentitySchema>,
) -> Option<pb::ResourceIdentityData> {
    let (identity, schema) = (identity?, schema?);
    encode(&identity, &schema.value_type())
        .ok()
        .map(|value| pb::ResourceIdentityData {
            identity_data: Some(value),
        })
}

// ---- schema ---------------------------------------------------------------------------------------------------

pub fn schema_to_proto(schema: &Schema) -> pb::Schema {
    pb::Schema {
        version: schema.version,
        block: Some(block_to_proto(&schema.block)),
    }
}

pub(crate) fn block_to_proto(block: &Block) -> pb::schema::Block {
    pb::schema::Block {
        version: 0,
        attributes: block.attributes.iter().map(attribute_to_proto).collect(),
        block_types: block.blocks.iter().map(nested_block_to_proto).collect(),
        description: block.description.clone(),
        description_kind: pb::StringKind::Markdown as i32,
        deprecated: block.deprecation.is_some(),
        deprecation_message: block.deprecation.clone().unwrap_or_default(),
    }
}

pub(crate) fn attribute_to_proto(attribute: &Attribute) -> pb::schema::Attribute {
    let (ty, nested_type) = match &attribute.kind {
        AttributeKind::Primitive(ty) => (ty.to_json_bytes(), None),
        AttributeKind::Nested { nesting, attributes } => (
            Vec::new(),
            Some(pb::schema::Object {
                attributes: attributes.iter().map(attribute_to_proto).collect(),
                nesting: match nesting {
                    Nesting::Single => pb::schema::object::NestingMode::Single,
                    Nesting::List => pb::schema::object::NestingMode::List,
                    Nesting::Set => pb::schema::object::NestingMode::Set,
                    Nesting::Map => pb::schema::object::NestingMode::Map,
                } as i32,
                ..Default::default()
            }),
        ),
    };
    pb::schema::Attribute {
        name: attribute.name.to_string(),
        r#type: ty,
        nested_type,
        description: attribute_description(attribute),
        required: attribute.presence == Presence::Required,
        optional: matches!(attribute.presence, Presence::Optional | Presence::OptionalComputed),
        computed: attribute.presence.is_computed(),
        sensitive: attribute.sensitive,
        description_kind: pb::StringKind::Markdown as i32,
        deprecated: attribute.deprecation.is_some(),
        write_only: attribute.write_only,
        deprecation_message: attribute.deprecation.clone().unwrap_or_default(),
    }
}

/// The attribute's description followed by what its validators and default accept, so docs never drift from code.
pub fn attribute_description(attribute: &Attribute) -> String {
    let mut text = attribute.description.clone();
    for validator in &attribute.validators {
        text.push(' ');
        text.push_str(&validator.description());
    }
    if let Some(default) = &attribute.default {
        text.push_str(&format!(" Defaults to `{}`.", display_value(default)));
    }
    if attribute.requires_replace && attribute.presence == Presence::Computed {
        text.push_str(" When it changes, the resource is replaced.");
    } else if attribute.requires_replace {
        text.push_str(" Changing it replaces the resource.");
    }
    text
}

pub(crate) fn display_value(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.as_str().to_string(),
        Value::String(s) => format!("{s:?}"),
        _ => "…".to_string(),
    }
}

pub(crate) fn nested_block_to_proto(nested: &NestedBlock) -> pb::schema::NestedBlock {
    use pb::schema::nested_block::NestingMode;
    pb::schema::NestedBlock {
        type_name: nested.name.to_string(),
        block: Some(block_to_proto(&nested.block)),
        nesting: match nested.nesting {
            Nesting::Single => NestingMode::Single,
            Nesting::List => NestingMode::List,
            Nesting::Set => NestingMode::Set,
            Nesting::Map => NestingMode::Map,
        } as i32,
        min_items: nested.min_items,
        max_items: nested.max_items,
    }
}

pub(crate) fn identity_schema_to_proto(schema: &IdentitySchema) -> pb::ResourceIdentitySchema {
    pb::ResourceIdentitySchema {
        version: schema.version,
        identity_attributes: schema
            .attributes
            .iter()
            .map(|a| pb::resource_identity_schema::IdentityAttribute {
                name: a.name.to_string(),
                r#type: a.ty.to_json_bytes(),
                required_for_import: a.required_for_import,
                optional_for_import: !a.required_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

pub(crate) fn function_to_proto(signature: &FunctionSignature) -> pb::Function {
    pb::Function {
        parameters: signature
            .parameters
            .iter()
            .map(|p| pb::function::Parameter {
                name: p.name.to_string(),
                r#type: p.ty.to_json_bytes(),
                allow_null_value: false,
                allow_unknown_values: false,
                description: p.description.clone(),
                description_kind: pb::StringKind::Markdown as i32,
            })
            .collect(),
        variadic_parameter: None,
        r#return: Some(pb::function::Return {
            r#type: signature.return_type.to_json_bytes(),
        }),
        summary: signature.summary.clone(),
        description: signature.description.clone(),
        description_kind: pb::StringKind::Markdown as i32,
        deprecation_message: String::new(),
    }
}
