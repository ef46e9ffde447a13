//! A call graph of one crate, good enough to follow a resource's plan: calls and function references by path
//! (`plan::derive`, `Self::target`, `TenantConfig::decode`, imported names and aliases), method calls by name when
//! the crate has one method of that name (or the receiver is `self` and its type has it), and the calls inside
//! macros whose arguments are expressions (`tokio::join!`, `vec!`, `format!`). Calls into other crates are not
//! followed: the plan path is what the provider crate itself runs.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use syn::parse::Parser as _;
use syn::visit::Visit;

use super::imports::{absolute, use_paths};
use super::sources::{CrateSource, ModulePath};
use super::syntax::{is_test_only, item_attributes};

pub struct CalledFunction<'a> {
    pub file: usize,
    pub path: String,
    pub module: ModulePath,
    /// The type (or trait) of an `impl` or trait method.
    pub owner: Option<String>,
    pub name: String,
    pub lines: usize,
    pub parameters: usize,
    body: &'a syn::Block,
}

impl CalledFunction<'_> {
    /// `src/resources/tenant/plan.rs::derive`, `...::Tenant::modify_plan`.
    pub fn display(&self) -> String {
        match &self.owner {
            Some(owner) => format!("{}::{owner}::{}", self.path, self.name),
            None => format!("{}::{}", self.path, self.name),
        }
    }
}

pub struct CallGraph<'a> {
    pub functions: Vec<CalledFunction<'a>>,
    calls: Vec<BTreeSet<usize>>,
}

pub struct PlanPath<'g, 'a> {
    pub functions: Vec<&'g CalledFunction<'a>>,
}

impl PlanPath<'_, '_> {
    pub fn files(&self) -> BTreeSet<&str> {
        self.functions.iter().map(|f| f.path.as_str()).collect()
    }

    pub fn largest(&self) -> Option<&CalledFunction<'_>> {
        self.functions.iter().copied().max_by_key(|f| (f.lines, f.parameters))
    }

    pub fn most_parameters(&self) -> Option<&CalledFunction<'_>> {
        self.functions.iter().copied().max_by_key(|f| (f.parameters, f.lines))
    }
}

impl<'a> CallGraph<'a> {
    pub fn build(source: &'a CrateSource) -> Self {
        let mut functions = Vec::new();
        for (index, file) in source.files.iter().enumerate() {
            let path = file.path.display().to_string();
            collect_functions(&file.syntax.items, index, &path, &file.module, &mut functions);
        }
        let calls = functions
            .iter()
            .map(|function| {
                let file = &source.files[function.file];
                let mut finder = CallFinder {
                    source,
                    functions: &functions,
                    module: &function.module,
                    owner: function.owner.as_deref(),
                    imports: imports_of(source, file),
                    found: BTreeSet::new(),
                };
                finder.visit_block(function.body);
                finder.found
            })
            .collect();
        Self { functions, calls }
    }

    /// Every function reachable from `from` (itself included), in the order first reached.
    pub fn reachable(&self, from: usize) -> Vec<&CalledFunction<'a>> {
        let mut seen = BTreeSet::from([from]);
        let mut queue = VecDeque::from([from]);
        let mut order = Vec::new();
        while let Some(next) = queue.pop_front() {
            order.push(&self.functions[next]);
            for &callee in &self.calls[next] {
                if seen.insert(callee) {
                    queue.push_back(callee);
                }
            }
        }
        order
    }

    /// The plan path of the resource in `src/resources/<folder>/`: everything its `modify_plan` reaches.
    pub fn plan_path(&self, folder: &str) -> Option<PlanPath<'_, 'a>> {
        let prefix = format!("src/resources/{folder}/");
        let entry = self
            .functions
            .iter()
            .position(|f| f.name == "modify_plan" && f.owner.is_some() && f.path.starts_with(&prefix))?;
        Some(PlanPath {
            functions: self.reachable(entry),
        })
    }
}

fn lines_of(start: proc_macro2::Span, body: &syn::Block) -> usize {
    body.brace_token.span.close().end().line + 1 - start.start().line
}

fn parameters_of(signature: &syn::Signature) -> usize {
    signature
        .inputs
        .iter()
        .filter(|input| matches!(input, syn::FnArg::Typed(_)))
        .count()
}

/// The last identifier of an `impl`'s self type (`Tenant` of `impl Resource<C> for Tenant`).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn collect_functions<'a>(
    items: &'a [syn::Item],
    file: usize,
    path: &str,
    module: &ModulePath,
    out: &mut Vec<CalledFunction<'a>>,
) {
    for item in items {
        if item_attributes(item).is_some_and(is_test_only) {
            continue;
        }
        match item {
            syn::Item::Fn(function) => out.push(CalledFunction {
                file,
                path: path.to_string(),
                module: module.clone(),
                owner: None,
                name: function.sig.ident.to_string(),
                lines: lines_of(function.sig.fn_token.span, &function.block),
                parameters: parameters_of(&function.sig),
                body: &function.block,
            }),
            syn::Item::Impl(block) => {
                let owner = type_name(&block.self_ty);
                for member in &block.items {
                    if let syn::ImplItem::Fn(method) = member
                        && !is_test_only(&method.attrs)
                    {
                        out.push(CalledFunction {
                            file,
                            path: path.to_string(),
                            module: module.clone(),
                            owner: owner.clone(),
                            name: method.sig.ident.to_string(),
                            lines: lines_of(method.sig.fn_token.span, &method.block),
                            parameters: parameters_of(&method.sig),
                            body: &method.block,
                        });
                    }
                }
            }
            syn::Item::Trait(definition) => {
                for member in &definition.items {
                    if let syn::TraitItem::Fn(method) = member
                        && let Some(body) = &method.default
                    {
                        out.push(CalledFunction {
                            file,
                            path: path.to_string(),
                            module: module.clone(),
                            owner: Some(definition.ident.to_string()),
                            name: method.sig.ident.to_string(),
                            lines: lines_of(method.sig.fn_token.span, body),
                            parameters: parameters_of(&method.sig),
                            body,
                        });
                    }
                }
            }
            syn::Item::Mod(inner) => {
                if let Some((_, items)) = &inner.content {
                    let mut inner_module = module.clone();
                    inner_module.push(inner.ident.to_string());
                    collect_functions(items, file, path, &inner_module, out);
                }
            }
            _ => {}
        }
    }
}

/// The names a file's `use` items bring into scope, with the absolute path each stands for (crate-local only).
fn imports_of(source: &CrateSource, file: &super::sources::SourceFile) -> BTreeMap<String, ModulePath> {
    let mut imports = BTreeMap::new();
    for item in &file.syntax.items {
        let syn::Item::Use(declaration) = item else {
            continue;
        };
        let mut paths = Vec::new();
        use_paths(&declaration.tree, &mut Vec::new(), &mut paths);
        let mut renames = Vec::new();
        renamed(&declaration.tree, &mut Vec::new(), &mut renames);
        for path in paths {
            let Some(resolved) = absolute(source, &file.module, &path) else {
                continue;
            };
            let alias = renames
                .iter()
                .find(|(original, _)| original == &path)
                .map_or_else(|| path.last().cloned().unwrap_or_default(), |(_, alias)| alias.clone());
            imports.insert(alias, resolved);
        }
    }
    imports
}

/// `use a::b as c`: (a::b, c).
fn renamed(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            renamed(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            path.push(rename.ident.to_string());
            out.push((path, rename.rename.to_string()));
        }
        syn::UseTree::Group(group) => {
            for item in &group.items {
                renamed(item, prefix, out);
            }
        }
        _ => {}
    }
}

/// Method names of the standard library's collections, iterators, `Option`, `Result`, strings and smart pointers
/// that a crate's own types also use: a call by one of these names is not resolved by name alone.
const STD_METHODS: [&str; 60] = [
    "all",
    "any",
    "as_deref",
    "as_ref",
    "as_str",
    "chain",
    "clone",
    "cloned",
    "collect",
    "component",
    "contains",
    "contains_key",
    "count",
    "entry",
    "extend",
    "filter",
    "filter_map",
    "find",
    "first",
    "flat_map",
    "flatten",
    "fold",
    "for_each",
    "get",
    "get_mut",
    "insert",
    "into_iter",
    "is_empty",
    "is_none",
    "is_some",
    "iter",
    "join",
    "keys",
    "last",
    "len",
    "lock",
    "map",
    "map_err",
    "max",
    "min",
    "next",
    "ok",
    "or_else",
    "position",
    "push",
    "read",
    "remove",
    "retain",
    "snapshot",
    "sort",
    "split",
    "take",
    "to_string",
    "unwrap_or",
    "unwrap_or_default",
    "values",
    "wait",
    "write",
    "new",
    "default",
];

struct CallFinder<'s, 'a> {
    source: &'a CrateSource,
    functions: &'s [CalledFunction<'a>],
    module: &'s ModulePath,
    owner: Option<&'s str>,
    imports: BTreeMap<String, ModulePath>,
    found: BTreeSet<usize>,
}

impl CallFinder<'_, '_> {
    fn function(&self, module: &[String], owner: Option<&str>, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| {
            f.name == name
                && match owner {
                    Some(owner) => f.owner.as_deref() == Some(owner),
                    None => f.owner.is_none() && f.module == module,
                }
        })
    }

    /// The function a path names, if it is one of this crate's.
    fn resolve(&self, segments: &[String]) -> Option<usize> {
        if segments.len() == 2 && segments[0] == "Self" {
            return self.function(&[], Some(self.owner?), &segments[1]);
        }
        let absolute_path = match self.imports.get(&segments[0]) {
            Some(imported) => {
                let mut path = imported.clone();
                path.extend(segments[1..].iter().cloned());
                Some(path)
            }
            None => absolute(self.source, self.module, segments),
        };
        let Some(path) = absolute_path else {
            return match segments {
                [name] => self.function(self.module, None, name),
                [owner, name] => self.function(&[], Some(owner), name),
                _ => None,
            };
        };
        self.resolve_absolute(path, 0)
    }

    /// The function an absolute path names, through the `pub use` re-exports of the modules it passes.
    fn resolve_absolute(&self, path: ModulePath, depth: usize) -> Option<usize> {
        let module_length = (0..=path.len()).rev().find(|&n| self.source.is_module(&path[..n]))?;
        let module = &path[..module_length];
        let found = match &path[module_length..] {
            [name] => self.function(module, None, name),
            [owner, name] => self.function(&[], Some(owner), name),
            _ => None,
        };
        if found.is_some() || depth > 8 {
            return found;
        }
        let first = path.get(module_length)?;
        let (_, target) = self
            .source
            .reexports
            .get(module)?
            .iter()
            .find(|(alias, _)| alias == first)?;
        let mut followed = absolute(self.source, module, target)?;
        followed.extend(path[module_length + 1..].iter().cloned());
        self.resolve_absolute(followed, depth + 1)
    }

    fn method(&self, name: &str, on_self: bool) -> Option<usize> {
        if on_self
            && let Some(owner) = self.owner
            && let Some(found) = self.function(&[], Some(owner), name)
        {
            return Some(found);
        }
        // A name the standard library's types also have says nothing of the receiver's type.
        if STD_METHODS.contains(&name) {
            return None;
        }
        let mut candidates = self
            .functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.owner.is_some() && f.name == name);
        match (candidates.next(), candidates.next()) {
            (Some((index, _)), None) => Some(index),
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for CallFinder<'_, '_> {
    fn visit_expr_path(&mut self, expr: &'ast syn::ExprPath) {
        let segments: Vec<String> = expr.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(callee) = self.resolve(&segments) {
            self.found.insert(callee);
        }
        syn::visit::visit_expr_path(self, expr);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let on_self = matches!(&*call.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
        if let Some(callee) = self.method(&call.method.to_string(), on_self) {
            self.found.insert(callee);
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(arguments) = parser.parse2(mac.tokens.clone()) {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        // A function nested in a body is its own item; its calls are not the outer function's.
    }
}
