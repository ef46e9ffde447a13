//! `#[derive(Model)]`: one struct declares a resource's (or a block's, or an object attribute's) attributes — name,
//! Terraform type, presence, description, validators, plan modifiers — and the derive writes from it the schema
//! block, the typed decode and encode of its value, and a typed name per attribute (`Self::ARN`), so that a misspelt
//! attribute does not compile. The terraform-plugin-framework shape (a struct with `tfsdk` tags), in Rust.
//!
//! ```ignore
//! /// The cluster policy of an EKS-orchestrated HyperPod cluster.      <- the block's description
//! #[derive(Model)]
//! pub struct SchedulingPolicyModel {
//!     /// Name of the HyperPod cluster the policy governs.              <- the attribute's description
//!     #[tf(required, requires_replace, validate = entity_name())]
//!     pub cluster_name: Field<String>,
//!     #[tf(block, max_items = 10)]
//!     pub priority_class: Field<Vec<PriorityClass>>,
//! }
//! ```
//!
//! Field options (`#[tf(...)]`): `required`, `optional` (the default), `computed`, `optional_computed`,
//! `requires_replace`, `use_state_for_unknown`, `sensitive`, `write_only`, `validate = expr` (repeatable),
//! `default = expr`, `deprecated = expr`, `description = expr` (instead of the doc comment), `name = "…"`,
//! `ty = expr` (the Terraform type, for a raw `Value` field), `block` (a list block of a derived model),
//! `block = single` (a single block; with `required`, one the configuration must hold), `nested` / `nested = single` /
//! `nested = map` (a nested attribute, a list, one object or a map of objects, of a derived model), `flatten` (a
//! derived model whose attributes and blocks are this one's, in its place: attributes several resources share, such
//! as the checklist; it gets no typed name here, its own model names them), `max_items = n`, `schema = expr` (the
//! block a `block` or `nested` field's model is declared with instead of its own `Model::block()`: one entry type
//! whose attributes differ in one resource, such as a tenant's quota entry), `timeouts = expr` (the conventional
//! `timeouts` block: `expr` is `(&[Operation], Duration)`; the field holds the raw `Value`). The generated code
//! names `::hyperpod_protocol`, so the derive is used through that crate (`hyperpod_protocol::model::Model`).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Expr, Fields, LitStr, parse_macro_input};

#[proc_macro_derive(Model, attributes(tf))]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// What one field declares.
#[derive(Default)]
struct FieldSpec {
    name: Option<LitStr>,
    presence: Option<syn::Ident>,
    flags: Vec<Tokens>,
    validators: Vec<Expr>,
    default: Option<Expr>,
    deprecated: Option<Expr>,
    description: Option<Expr>,
    ty: Option<Expr>,
    block: Option<BlockNesting>,
    /// A nested attribute (protocol 6 `NestedType`) of a derived model, not a block.
    nested: Option<BlockNesting>,
    max_items: Option<Expr>,
    /// The block a `block` or `nested` field's model is declared with, when not its model's own (`schema = expr`).
    schema: Option<Expr>,
    timeouts: Option<Expr>,
    /// A derived model whose attributes and blocks are spliced into this one (`#[tf(flatten)]`).
    flatten: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum BlockNesting {
    List,
    Single,
    /// A nested attribute whose value is a map of objects (protocol 6 `NestedType` with nesting `MAP`).
    Map,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(input, "#[derive(Model)] takes a struct"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            input,
            "#[derive(Model)] takes a struct with named fields",
        ));
    };
    let model = &input.ident;
    let block_description = doc_text(&input.attrs);

    let mut schema_steps = Vec::new();
    let mut type_entries = Vec::new();
    let mut decodes = Vec::new();
    let mut encodes = Vec::new();
    let mut names = Vec::new();
    for field in &fields.named {
        let ident = field
            .ident
            .as_ref()
            .ok_or_else(|| syn::Error::new_spanned(field, "a named field"))?;
        let spec = field_spec(&field.attrs)?;
        let field_type = &field.ty;
        if spec.flatten {
            flattened(
                &mut Expansion {
                    schema_steps: &mut schema_steps,
                    type_entries: &mut type_entries,
                    decodes: &mut decodes,
                    encodes: &mut encodes,
                },
                ident,
                field_type,
            );
            continue;
        }
        let name = spec
            .name
            .clone()
            .unwrap_or_else(|| LitStr::new(ident.to_string().trim_start_matches("r#"), ident.span()));
        let const_name = format_ident!("{}", ident.to_string().trim_start_matches("r#").to_uppercase());
        let description = spec.description.as_ref().map_or_else(
            || {
                let text = doc_text(&field.attrs);
                quote!(#text)
            },
            |expr| quote!(#expr),
        );
        let terraform_type = spec.ty.as_ref().map_or_else(
            || quote!(<#field_type as ::hyperpod_protocol::model::FieldType>::terraform_type()),
            |expr| quote!(#expr),
        );
        schema_steps.push(schema_step(&spec, &name, &description, &terraform_type, field_type));
        type_entries.push(quote!(entries.insert(#name.to_string(), #terraform_type);));
        decodes.push(quote! {
            let #ident = match <#field_type as ::hyperpod_protocol::model::FieldType>::decode(
                object.get(#name).unwrap_or(&::hyperpod_protocol::value::Value::Null),
                &path.push_attr(#name),
            ) {
                Ok(decoded) => Some(decoded),
                Err(found) => {
                    problems.extend(found);
                    None
                }
            };
        });
        encodes.push(quote! {
            fields.insert(#name.to_string(), ::hyperpod_protocol::model::FieldType::encode(&self.#ident));
        });
        let doc = format!("The `{}` attribute.", name.value());
        names.push(quote! {
            #[doc = #doc]
            pub const #const_name: ::hyperpod_protocol::model::Attr<#model, #field_type> =
                ::hyperpod_protocol::model::Attr::new(#name);
        });
    }
    let field_idents: Vec<_> = fields.named.iter().filter_map(|f| f.ident.as_ref()).collect();
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();

    Ok(quote! {
        impl #impl_generics ::hyperpod_protocol::model::Model for #model #type_generics #where_clause {
            fn block() -> ::hyperpod_protocol::schema::Block {
                let block = ::hyperpod_protocol::schema::Block::new(#block_description);
                #(let block = #schema_steps;)*
                block
            }
        }

        impl #impl_generics ::hyperpod_protocol::model::Known for #model #type_generics #where_clause {
            const HOLDS_UNKNOWN: bool = true;

            fn terraform_type() -> ::hyperpod_protocol::value::Type {
                let mut entries = ::std::collections::BTreeMap::new();
                #(#type_entries)*
                ::hyperpod_protocol::value::Type::Object(entries)
            }

            fn decode_known(
                value: &::hyperpod_protocol::value::Value,
                path: &::hyperpod_protocol::diagnostics::AttributePath,
            ) -> ::core::result::Result<Self, ::hyperpod_protocol::diagnostics::Diagnostics> {
                let ::hyperpod_protocol::value::Value::Object(object) = value else {
                    return Err(::hyperpod_protocol::model::not_of_type(path, value, "an object"));
                };
                let mut problems = ::hyperpod_protocol::diagnostics::Diagnostics::new();
                #(#decodes)*
                match (#(#field_idents,)*) {
                    (#(Some(#field_idents),)*) => Ok(Self { #(#field_idents),* }),
                    _ => Err(problems),
                }
            }

            fn encode_known(&self) -> ::hyperpod_protocol::value::Value {
                let mut fields = ::std::collections::BTreeMap::new();
                #(#encodes)*
                ::hyperpod_protocol::value::Value::Object(fields)
            }
        }

        impl #impl_generics #model #type_generics #where_clause {
            #(#names)*
        }
    })
}

/// The generated code of every field, in declaration order.
struct Expansion<'a> {
    schema_steps: &'a mut Vec<Tokens>,
    type_entries: &'a mut Vec<Tokens>,
    decodes: &'a mut Vec<Tokens>,
    encodes: &'a mut Vec<Tokens>,
}

/// A `#[tf(flatten)]` field: its model's attributes and blocks are this block's, its value's fields this value's.
fn flattened(expansion: &mut Expansion<'_>, ident: &syn::Ident, field_type: &syn::Type) {
    expansion.schema_steps.push(quote! {{
        let inner = <#field_type as ::hyperpod_protocol::model::Model>::block();
        inner.blocks.into_iter().fold(block.attributes(inner.attributes), |block, nested| block.block(nested))
    }});
    expansion.type_entries.push(quote! {
        if let ::hyperpod_protocol::value::Type::Object(inner) =
            <#field_type as ::hyperpod_protocol::model::Known>::terraform_type()
        {
            entries.extend(inner);
        }
    });
    expansion.decodes.push(quote! {
        let #ident = match <#field_type as ::hyperpod_protocol::model::Known>::decode_known(value, path) {
            Ok(decoded) => Some(decoded),
            Err(found) => {
                problems.extend(found);
                None
            }
        };
    });
    expansion.encodes.push(quote! {
        if let ::hyperpod_protocol::value::Value::Object(inner) =
            ::hyperpod_protocol::model::Known::encode_known(&self.#ident)
        {
            fields.extend(inner);
        }
    });
}

/// The builder call that adds one field to the block (`block` is the block so far).
fn schema_step(
    spec: &FieldSpec,
    name: &LitStr,
    description: &Tokens,
    terraform_type: &Tokens,
    field_type: &syn::Type,
) -> Tokens {
    if let Some(timeouts) = &spec.timeouts {
        return quote! {{
            let (operations, default) = #timeouts;
            block.timeouts(operations, default)
        }};
    }
    let inner = quote!(<#field_type as ::hyperpod_protocol::model::BlockField>::Model);
    let inner_block = (spec.schema.as_ref()).map_or_else(
        || quote!(<#inner as ::hyperpod_protocol::model::Model>::block()),
        |expr| quote!(#expr),
    );
    if let Some(nesting) = spec.block {
        let nested = match nesting {
            BlockNesting::List => quote!(::hyperpod_protocol::schema::NestedBlock::list(#name, #inner_block)),
            BlockNesting::Single | BlockNesting::Map => {
                quote!(::hyperpod_protocol::schema::NestedBlock::single(#name, #inner_block))
            }
        };
        let max = spec.max_items.as_ref().map(|n| quote!(.max_items(#n)));
        let required = (spec.presence.as_ref())
            .is_some_and(|presence| presence == "required")
            .then(|| quote!(.required()));
        return quote!(block.block(#nested #max #required));
    }
    let presence = spec.presence.clone().unwrap_or_else(|| format_ident!("optional"));
    let flags = &spec.flags;
    let validators = &spec.validators;
    let default = spec.default.as_ref().map(|expr| quote!(.default_value(#expr)));
    let deprecated = spec.deprecated.as_ref().map(|expr| quote!(.deprecated(#expr)));
    let attribute = if let Some(nesting) = spec.nested {
        let nesting = match nesting {
            BlockNesting::List => quote!(::hyperpod_protocol::schema::Nesting::List),
            BlockNesting::Single => quote!(::hyperpod_protocol::schema::Nesting::Single),
            BlockNesting::Map => quote!(::hyperpod_protocol::schema::Nesting::Map),
        };
        quote!(::hyperpod_protocol::schema::Attribute::nested(#name, #nesting, #inner_block.attributes))
    } else {
        quote!(::hyperpod_protocol::schema::Attribute::new(#name, #terraform_type))
    };
    quote! {
        block.attribute(
            #attribute
                .#presence()
                .describe(#description)
                #(.#flags())*
                #(.validate(#validators))*
                #default
                #deprecated
        )
    }
}

fn field_spec(attributes: &[Attribute]) -> syn::Result<FieldSpec> {
    let mut spec = FieldSpec::default();
    for attribute in attributes.iter().filter(|a| a.path().is_ident("tf")) {
        attribute.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .ok_or_else(|| meta.error("expected an option name"))?;
            match key.as_str() {
                "required" | "optional" | "computed" | "optional_computed" => {
                    if spec.presence.is_some() {
                        return Err(meta.error("one of required, optional, computed, optional_computed"));
                    }
                    spec.presence = Some(format_ident!("{}", key));
                }
                "flatten" => spec.flatten = true,
                "requires_replace" | "use_state_for_unknown" | "sensitive" | "write_only" => {
                    let ident = format_ident!("{}", key);
                    spec.flags.push(quote!(#ident));
                }
                "validate" => spec.validators.push(meta.value()?.parse()?),
                "default" => spec.default = Some(meta.value()?.parse()?),
                "deprecated" => spec.deprecated = Some(meta.value()?.parse()?),
                "description" => spec.description = Some(meta.value()?.parse()?),
                "ty" => spec.ty = Some(meta.value()?.parse()?),
                "timeouts" => spec.timeouts = Some(meta.value()?.parse()?),
                "max_items" => spec.max_items = Some(meta.value()?.parse()?),
                "schema" => spec.schema = Some(meta.value()?.parse()?),
                "name" => spec.name = Some(meta.value()?.parse()?),
                "block" | "nested" => {
                    let nesting = if meta.input.peek(syn::Token![=]) {
                        let nesting: syn::Ident = meta.value()?.parse()?;
                        match nesting.to_string().as_str() {
                            "single" => BlockNesting::Single,
                            "list" => BlockNesting::List,
                            "map" if key == "nested" => BlockNesting::Map,
                            _ => return Err(syn::Error::new(nesting.span(), "list or single (or map, nested)")),
                        }
                    } else {
                        BlockNesting::List
                    };
                    if key == "block" {
                        spec.block = Some(nesting);
                    } else {
                        spec.nested = Some(nesting);
                    }
                }
                _ => return Err(meta.error(format!("unknown option `{key}`"))),
            }
            Ok(())
        })?;
    }
    Ok(spec)
}

/// The doc comment as one markdown description: its lines joined by spaces, a blank line kept as a paragraph break.
fn doc_text(attributes: &[Attribute]) -> String {
    let lines = attributes
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|attribute| {
            let syn::Meta::NameValue(pair) = &attribute.meta else {
                return None;
            };
            let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) = &pair.value
            else {
                return None;
            };
            Some(text.value().trim().to_string())
        });
    let mut description = String::new();
    let mut paragraph_break = false;
    for line in lines {
        if line.is_empty() {
            paragraph_break = !description.is_empty();
            continue;
        }
        if paragraph_break {
            description.push_str("\n\n");
            paragraph_break = false;
        } else if !description.is_empty() {
            description.push(' ');
        }
        description.push_str(&line);
    }
    description
}
