//! Attribute names typed as strings: each string literal in the provider's and the report's code (`src/`,
//! `crates/hyperpod-report/`; tests and schema declarations left out) that equals the name of an attribute or block of
//! one of the provider's schemas. A resource declared with `#[derive(Model)]` names its attributes through the
//! declaration (`SchedulingPolicyModel::ARN`), so a misspelt one does not compile; issue 42 brings the count to zero.
//! Like any count of names it also meets plain words that happen to be names (`"create"`, `"kind"`): those are listed
//! in [`NOT_NAMES`], each with why; `cargo xtask structure` prints the count, and `xtask/tests/structure.rs` holds
//! every other literal at zero.

use std::collections::BTreeSet;

use hyperpod_protocol::plugin::PluginProvider;
use hyperpod_protocol::schema::{AttributeKind, Block};
use syn::visit::Visit;
use terraform_provider_hyperpod::component::Component;
use terraform_provider_hyperpod::provider::HyperpodProvider;

use super::sources::Workspace;
use super::syntax::{is_test_only, item_attributes, visit_non_test_items};

/// Literals of the provider's and the report's code that equal an attribute's name without being one, by file, each
/// with why. Everything else is held at zero (`xtask/tests/structure.rs`): an attribute is named through its
/// resource's declaration (crate `hyperpod-declarations`).
pub const NOT_NAMES: &[NotNames] = &[
    NotNames {
        path: "crates/hyperpod-report/src/build.rs",
        words: &["tenants", "rule", "resource"],
        why: "nouns of the report's sentences (`plural(n, \"rule\", \"rules\")`)",
    },
    NotNames {
        path: "crates/hyperpod-report/src/checklist.rs",
        words: &["rule", "detail", "status"],
        why: "keys of 0.2.0's `checks` rows, a stored format no declaration describes any more",
    },
    NotNames {
        path: "crates/hyperpod-report/src/evidence/components.rs",
        words: &["sagemaker", "eks"],
        why: "the service of an ARN the evidence builds",
    },
    NotNames {
        path: "crates/hyperpod-report/src/evidence/markdown.rs",
        words: &["contract", "cluster"],
        why: "row labels of the evidence's table",
    },
    NotNames {
        path: "crates/hyperpod-report/src/rules.rs",
        words: &["organization", "cluster", "workload", "contract"],
        why: "the catalog's layers, as keys of the JSON report's `layers`",
    },
    NotNames {
        path: "src/functions/review_status.rs",
        words: &["review_status", "next_review_date", "last_reviewed", "interval_days"],
        why: "the functions' own names and parameters: their declaration (a function's name is its API)",
    },
    NotNames {
        path: "src/functions/team_namespace.rs",
        words: &["team"],
        why: "the function's parameter: its declaration",
    },
    NotNames {
        path: "src/permissions.rs",
        words: &[
            "create",
            "update",
            "delete",
            "namespaces",
            "review_status",
            "next_review_date",
            "sagemaker",
            "cloudwatch",
            "datazone",
            "eks",
            "iam",
            "kms",
            "ssm",
            "sts",
            "resource",
            "kind",
        ],
        why: "Kubernetes verbs and resources, AWS services, the functions' names and the policy document's own keys",
    },
    NotNames {
        path: "src/resources/kubernetes_reads.rs",
        words: &["kind"],
        why: "a Kubernetes object's JSON key (typed Kubernetes objects are issue 43's)",
    },
    NotNames {
        path: "src/resources/task_view_restriction/model/manifests.rs",
        words: &["kind", "name", "namespace", "create"],
        why: "the Kubernetes objects' JSON keys and an RBAC verb (typed Kubernetes objects are issue 43's)",
    },
    NotNames {
        path: "src/resources/tenant/model/manifests.rs",
        words: &["kind", "name", "namespace"],
        why: "the Kubernetes objects' JSON keys (typed Kubernetes objects are issue 43's)",
    },
    NotNames {
        path: "src/resources/tenant/model/upgrade.rs",
        words: &["namespaces"],
        why: "a key of the 0.2.0 stored format the state upgrade reads (a removed attribute's rows)",
    },
];

/// Words of one file that are not attribute names, and why.
pub struct NotNames {
    pub path: &'static str,
    pub words: &'static [&'static str],
    pub why: &'static str,
}

/// Whether a literal is one of [`NOT_NAMES`].
pub fn is_not_a_name(literal: &NameLiteral) -> bool {
    NOT_NAMES
        .iter()
        .any(|entry| entry.path == literal.path && entry.words.contains(&literal.name.as_str()))
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

/// Whether a file is where names are declared or tested (its literals are not counted): a test file, or the
/// report's declaration of Terraform's own JSON formats (serde's `rename = "type"`). A resource's declaration is in
/// crate `hyperpod-declarations`, which is not scanned; a resource's `schema.rs` in the provider holds its checks
/// and upgraders, and is counted.
fn is_declaration_or_test(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file == "tests.rs" || file.ends_with("_tests.rs") || path == "crates/hyperpod-report/src/terraform_json.rs"
}

/// Every attribute name typed as a string in the provider's and the report's non-test code, by file and line.
pub fn name_literals(workspace: &Workspace, names: &BTreeSet<String>) -> Vec<NameLiteral> {
    literals_where(workspace, is_declaration_or_test, &|text| names.contains(text))
}

/// Every string literal in the provider's and the report's non-test code that spells a key of a resource's `components`
/// (`kubernetes/Role/{name}`, `kms_grant/{key}`, `iam_role`): `hyperpod_model::component` formats and reads them all.
pub fn component_key_literals(workspace: &Workspace) -> Vec<NameLiteral> {
    literals_where(workspace, is_declaration_or_test, &spells_a_key)
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
