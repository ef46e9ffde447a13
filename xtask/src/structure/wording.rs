//! Branches on a message's wording: a text test (`starts_with`, `ends_with`, `contains`, `strip_prefix`,
//! `strip_suffix`, `==`, `!=`) on what a diagnostic, a finding or a checklist row says (`summary`, `detail`,
//! `reason`), outside tests. Decisions rest on typed values; messages are only rendered (issue 42): rewording one must
//! never change what the provider does.
//!
//! One reader is allowed, in the files of [`TEXT_READERS`]: the governance report reads `terraform plan -json`, where
//! a diagnostic is text and nothing else, so it tells a refusal or a rule not checked at plan by the marks the
//! writers put in the summary. There it may test only against a declared mark (a constant both sides share), never
//! a string literal.

use syn::visit::{self, Visit};

use super::sources::Workspace;
use super::syntax::{is_test_only, item_attributes, visit_non_test_items};

/// The names under which the provider keeps a message's text.
const MESSAGE_PARTS: [&str; 3] = ["summary", "detail", "reason"];
/// The text tests.
const TESTS: [&str; 5] = ["starts_with", "ends_with", "contains", "strip_prefix", "strip_suffix"];
/// What passes a text through unchanged for this purpose (`summary.trim().ends_with(..)` is still a test of it).
const ADAPTERS: [&str; 8] = [
    "as_str",
    "as_deref",
    "as_ref",
    "trim",
    "trim_end",
    "trim_start",
    "to_ascii_lowercase",
    "to_lowercase",
];
/// Files that read Terraform's text output and may test it against declared marks (module comment).
pub const TEXT_READERS: [&str; 2] = [
    "crates/hyperpod-report/src/log.rs",
    "crates/hyperpod-protocol/src/refusal.rs",
];
/// Readers of a stored format that carried a status in a text: 0.2.0's `checks` rows said `excepted` as a `detail`
/// starting "passed with exception". The state upgrade and the report (reading a plan of such a provider) must read
/// it as written; each may test that one prefix and nothing else.
pub const STORED_FORMAT_READERS: [(&str, &str); 2] = [
    ("src/resources/checklist.rs", "passed with exception"),
    ("crates/hyperpod-report/src/checklist.rs", "passed with exception"),
];

/// One branch on wording: the file, the line, and the test (`.starts_with(..)`, `==`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordingTest {
    pub path: String,
    pub line: usize,
    pub test: String,
}

/// Every branch on wording in the workspace's non-test code.
pub fn tests_of_wording(workspace: &Workspace) -> Vec<WordingTest> {
    let mut found = Vec::new();
    for source in &workspace.crates {
        for file in &source.files {
            let path = file.path.display().to_string().replace('\\', "/");
            let mut finder = Finder {
                path: &path,
                reader: TEXT_READERS.contains(&path.as_str()),
                found: &mut found,
            };
            for item in &file.syntax.items {
                if item_attributes(item).is_some_and(is_test_only) {
                    continue;
                }
                finder.visit_item(item);
            }
        }
    }
    found.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    found.dedup();
    found
}

struct Finder<'a> {
    path: &'a str,
    reader: bool,
    found: &'a mut Vec<WordingTest>,
}

impl Finder<'_> {
    fn record(&mut self, span: proc_macro2::Span, test: String) {
        self.found.push(WordingTest {
            path: self.path.to_string(),
            line: span.start().line,
            test,
        });
    }

    /// A reader of Terraform's text may test against a declared mark (a literal is wording all the same), and a
    /// reader of 0.2.0's stored rows against the one prefix that format used for a status.
    fn allowed(&self, argument: Option<&syn::Expr>) -> bool {
        if self.reader && !argument.is_some_and(is_literal) {
            return true;
        }
        STORED_FORMAT_READERS
            .iter()
            .any(|(path, prefix)| *path == self.path && argument.and_then(literal_text).as_deref() == Some(*prefix))
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    visit_non_test_items!();

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        let tested = TESTS.contains(&method.as_str()) && names_message(&call.receiver);
        // `string(row, "detail").is_some_and(|d| d.starts_with(..))`: a closure that tests the message it is given.
        let inside = call.args.iter().find_map(|argument| match argument {
            syn::Expr::Closure(closure) if !tested && names_message(&call.receiver) => text_test(&closure.body),
            _ => None,
        });
        let argument = if tested {
            call.args.first().cloned()
        } else {
            inside.clone()
        };
        if (tested || inside.is_some()) && !self.allowed(argument.as_ref()) {
            self.record(call.method.span(), format!(".{method}(..)"));
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
        let compares = matches!(binary.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_));
        let (left, right) = (names_message(&binary.left), names_message(&binary.right));
        let other = if left {
            Some(&*binary.right)
        } else {
            Some(&*binary.left)
        };
        if compares && (left || right) && !self.allowed(other) {
            self.record(syn::spanned::Spanned::span(&binary.op), "== / !=".to_string());
        }
        visit::visit_expr_binary(self, binary);
    }
}

/// Whether `expression` is a message's text: a field or a variable named as one ([`MESSAGE_PARTS`]), a call that
/// reads one by name (`string(row, "detail")`), or either through an adapter (`.trim()`, `.as_deref()`).
fn names_message(expression: &syn::Expr) -> bool {
    match expression {
        syn::Expr::Field(field) => matches!(&field.member, syn::Member::Named(name) if is_part(&name.to_string())),
        syn::Expr::Path(path) => path.path.get_ident().is_some_and(|name| is_part(&name.to_string())),
        syn::Expr::Reference(reference) => names_message(&reference.expr),
        syn::Expr::Paren(inner) => names_message(&inner.expr),
        syn::Expr::MethodCall(call) if ADAPTERS.contains(&call.method.to_string().as_str()) => {
            names_message(&call.receiver)
        }
        syn::Expr::Call(call) => call.args.iter().any(|argument| {
            matches!(argument, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) if is_part(&text.value()))
        }),
        _ => false,
    }
}

fn is_part(name: &str) -> bool {
    MESSAGE_PARTS.contains(&name)
}

/// A string literal or a `format!`: wording written out (a `char` such as `'['` is the summary's syntax).
fn is_literal(expression: &syn::Expr) -> bool {
    match expression {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_), ..
        }) => true,
        syn::Expr::Reference(reference) => is_literal(&reference.expr),
        syn::Expr::Macro(call) => call.mac.path.is_ident("format"),
        _ => false,
    }
}

fn literal_text(expression: &syn::Expr) -> Option<String> {
    match expression {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(text.value()),
        syn::Expr::Reference(reference) => literal_text(&reference.expr),
        _ => None,
    }
}

/// What the first text test in a closure body tests against (any text: the closure is handed the message), or
/// `None` when the body tests no text. Every text test takes one argument.
fn text_test(body: &syn::Expr) -> Option<syn::Expr> {
    struct First(Option<syn::Expr>);
    impl<'ast> Visit<'ast> for First {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if self.0.is_none() && TESTS.contains(&call.method.to_string().as_str()) {
                self.0 = call.args.first().cloned();
            }
            visit::visit_expr_method_call(self, call);
        }
    }
    let mut first = First(None);
    first.visit_expr(body);
    first.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str, path: &str) -> usize {
        let syntax: syn::File = syn::parse_str(code).expect("parses");
        let mut found = Vec::new();
        let mut finder = Finder {
            path,
            reader: TEXT_READERS.contains(&path),
            found: &mut found,
        };
        finder.visit_file(&syntax);
        found.len()
    }

    #[test]
    fn a_branch_on_a_message_is_found_and_a_typed_one_is_not() {
        let wording = [
            r#"fn f(d: &D) -> bool { d.detail.starts_with("not evaluated at plan") }"#,
            r"fn f(d: &D) -> bool { d.summary.trim().ends_with(MARK) }",
            r#"fn f(row: &V) -> bool { string(row, "detail").is_some_and(|d| d.starts_with(NOT_AT_PLAN)) }"#,
            r#"fn f(reason: &str) -> bool { reason == "quota exceeded" }"#,
            r#"fn f(summary: &str) -> bool { summary.contains("not checked at plan") }"#,
        ];
        for code in wording {
            assert_eq!(found(code, "src/x.rs"), 1, "{code}");
        }
        let typed = [
            r"fn f(c: &Check) -> bool { matches!(c.outcome, Outcome::Skipped { .. }) }",
            r#"fn f(name: &str) -> bool { name.starts_with("kubernetes/") }"#,
            r"fn f(c: &Ctx) -> bool { c.deferred_checks.is_empty() }",
            r#"#[cfg(test)] mod tests { fn f(d: &D) -> bool { d.detail.contains("x") } }"#,
        ];
        for code in typed {
            assert_eq!(found(code, "src/x.rs"), 0, "{code}");
        }
        // The report reads Terraform's text against declared marks, never a literal.
        assert_eq!(
            found(
                r"fn f(summary: &str) -> bool { summary.ends_with(REFUSED) }",
                TEXT_READERS[0]
            ),
            0
        );
        assert_eq!(
            found(
                r#"fn f(summary: &str) -> bool { summary.ends_with("(x)") }"#,
                TEXT_READERS[0]
            ),
            1
        );
        // A stored format's one prefix, where that format is read, and nothing else there.
        let (reader, prefix) = STORED_FORMAT_READERS[0];
        let stored = format!(r#"fn f(detail: &str) -> bool {{ detail.strip_prefix("{prefix}").is_some() }}"#);
        assert_eq!(found(&stored, reader), 0);
        assert_eq!(found(&stored, "src/x.rs"), 1);
        assert_eq!(
            found(r#"fn f(detail: &str) -> bool { detail.contains("other") }"#, reader),
            1
        );
    }
}
