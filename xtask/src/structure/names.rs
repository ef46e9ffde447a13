//! Attribute names typed as strings: each string literal in the provider's and the report's code (`src/`,
//! `crates/hyperpod-report/`; tests and schema declarations left out) that equals the name of an attribute or block of
//! one of the provider's schemas. A resource declared with `#[derive(Model)]` names its attributes through the
//! declaration (`SchedulingPolicyModel::ARN`), so a misspelt one does not compile; issue 42 brings the count to zero.
//! Like any count of names it also meets plain words that happen to be names (`"name"`, `"team"`); `cargo xtask
//! structure` prints it, and `xtask/tests/structure.rs` holds the folders of [`TYPED`] at zero.

use std::collections::BTreeSet;

use hyperpod_protocol::plugin::PluginProvider;
use hyperpod_protocol::schema::{AttributeKind, Block};
use syn::visit::Visit;
use terraform_provider_hyperpod::component::Component;
use terraform_provider_hyperpod::provider::HyperpodProvider;

use super::sources::Workspace;
use super::syntax::{is_test_only, item_attributes, visit_non_test_items};

/// Folders whose values are typed end to end (resources, the provider block): no attribute name as a string outside
/// their declaration, save the files of [`UNTYPED_FILES`].
pub const TYPED: [&str; 8] = [
    "src/data_sources/",
    "src/provider/",
    "src/resources/cluster_allocation/",
    "src/resources/domain_unit_policy_grant/",
    "src/resources/project_binding/",
    "src/resources/scheduling_policy/",
    "src/resources/task_view_restriction/",
    "src/resources/tenant/",
];

/// Files of a [`TYPED`] folder whose literals are not attribute names, with why: the Kubernetes objects' JSON keys
/// (`"name"`, `"namespace"`, …; typed Kubernetes objects are issue 43's) and a key of a stored format the 0.2.0
/// state upgrade reads (`"namespaces"` of a removed attribute's rows).
pub const UNTYPED_FILES: [&str; 3] = [
    "src/resources/task_view_restriction/model/manifests.rs",
    "src/resources/tenant/model/manifests.rs",
    "src/resources/tenant/model/upgrade.rs",
];

/// Whether a file is held at zero attribute names typed as strings.
pub fn is_typed(path: &str) -> bool {
    TYPED.iter().any(|folder| path.starts_with(folder)) && !UNTYPED_FILES.contains(&path)
}

/// One attribute name typed as a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameLiteral {
    pub path: String,
    pub line: usize,
    pub name: String,
}

/// Every attribute and block name of the provider's, its resources', data sources' and list resources' schemas.
pub fn attribute_names() -> BTreeSet<String> {
    let provider = HyperpodProvider::default();
    let mut names = BTreeSet::new();
    add_block(&provider.schema().block, &mut names);
    for resource in provider.resources() {
        add_block(&resource.schema().block, &mut names);
    }
    for data_source in provider.data_sources() {
        add_block(&data_source.schema().block, &mut names);
    }
    for list in provider.list_resources() {
        add_block(&list.schema().block, &mut names);
    }
    names
}

fn add_block(block: &Block, names: &mut BTreeSet<String>) {
    for attribute in &block.attributes {
        names.insert(attribute.name.to_string());
        if let AttributeKind::Nested { attributes, .. } = &attribute.kind {
            add_block(
                &Block {
                    attributes: attributes.clone(),
                    ..Block::default()
                },
                names,
            );
        }
    }
    for nested in &block.blocks {
        names.insert(nested.name.to_string());
        add_block(&nested.block, names);
    }
}

/// Whether a file is where names are declared or tested (its literals are not counted).
fn is_declaration_or_test(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file == "schema.rs" || file == "tests.rs" || file.ends_with("_tests.rs")
}

/// Every attribute name typed as a string in the provider's and the report's non-test code, by file and line.
pub fn name_literals(workspace: &Workspace, names: &BTreeSet<String>) -> Vec<NameLiteral> {
    literals_where(workspace, is_declaration_or_test, &|text| names.contains(text))
}

/// Every string literal in the provider's and the report's non-test code that spells a key of a resource's `components`
/// (`kubernetes/Role/{name}`, `kms_grant/{key}`, `iam_role`): `hyperpod_model::component` formats and reads them all.
pub fn component_key_literals(workspace: &Workspace) -> Vec<NameLiteral> {
    let is_test = |path: &str| is_declaration_or_test(path) && !path.ends_with("schema.rs");
    literals_where(workspace, is_test, &spells_a_key)
}

/// A key, a key's pattern (`kms_grant/{key}`), or a prefix that makes one (`kms_grant/`, `kubernetes/`, as
/// `strip_prefix` takes it).
fn spells_a_key(text: &str) -> bool {
    Component::parse(text).is_some() || (text.ends_with('/') && Component::parse(&format!("{text}Kind/name")).is_some())
}

fn literals_where(
    workspace: &Workspace,
    skip: impl Fn(&str) -> bool,
    matches: &dyn Fn(&str) -> bool,
) -> Vec<NameLiteral> {
    let mut found = Vec::new();
    for file in workspace.value_readers().flat_map(|source| &source.files) {
        let path = file.path.display().to_string().replace('\\', "/");
        if skip(&path) {
            continue;
        }
        let mut finder = Finder {
            path: &path,
            matches,
            found: &mut found,
        };
        for item in &file.syntax.items {
            if item_attributes(item).is_some_and(is_test_only) {
                continue;
            }
            finder.visit_item(item);
        }
    }
    found
}

struct Finder<'a> {
    path: &'a str,
    matches: &'a dyn Fn(&str) -> bool,
    found: &'a mut Vec<NameLiteral>,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    visit_non_test_items!();

    fn visit_lit_str(&mut self, literal: &'ast syn::LitStr) {
        self.record(&literal.value(), literal.span());
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A literal inside a macro's arguments (`vec!["arn"]`, `format!(..)`) is still one.
        for token in mac.tokens.clone() {
            self.visit_token(&token);
        }
    }
}

impl Finder<'_> {
    fn record(&mut self, text: &str, span: proc_macro2::Span) {
        if (self.matches)(text) {
            self.found.push(NameLiteral {
                path: self.path.to_string(),
                line: span.start().line,
                name: text.to_string(),
            });
        }
    }

    fn visit_token(&mut self, token: &proc_macro2::TokenTree) {
        match token {
            proc_macro2::TokenTree::Literal(literal) => {
                if let Ok(syn::Lit::Str(text)) = syn::parse_str::<syn::Lit>(&literal.to_string()) {
                    self.record(&text.value(), literal.span());
                }
            }
            proc_macro2::TokenTree::Group(group) => {
                for inner in group.stream() {
                    self.visit_token(&inner);
                }
            }
            _ => {}
        }
    }
}
