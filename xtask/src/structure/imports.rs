//! Which file of a crate names which: every `use`, every path in code and types, and every `crate::`/`super::`/`self::`
//! path inside a macro, resolved to the file that defines what it names: the longest module prefix of the path, and
//! through that module's `pub use` re-exports to where the item really lives (a facade such as `lib.rs` re-exporting
//! `model::*` is passed through, not depended on; a re-export is not itself an arrow). Declaring a module (`mod x;`)
//! is not naming it. Test-only items are left out, as the compiler leaves them out of the shipped crate.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use super::sources::{CrateSource, ModulePath, Workspace};
use super::syntax::{is_test_only, item_attributes};

/// Every crate's import circles, each as the files that import each other in a loop (repository paths, sorted).
pub fn circles(workspace: &Workspace) -> Vec<Vec<String>> {
    workspace.crates.iter().flat_map(crate_circles).collect()
}

/// What ties each circle of every crate: `a -> b: names` for every arrow between two of its files.
pub fn circle_ties(workspace: &Workspace) -> Vec<Vec<String>> {
    let mut ties = Vec::new();
    for source in &workspace.crates {
        let names = edge_names(source);
        for circle in crate_circles(source) {
            let member = |file: usize| circle.contains(&source.files[file].path.display().to_string());
            ties.push(
                names
                    .iter()
                    .filter(|((from, to), _)| member(*from) && member(*to))
                    .map(|((from, to), used)| {
                        format!(
                            "{} -> {}: {}",
                            source.files[*from].path.display(),
                            source.files[*to].path.display(),
                            used.join(", ")
                        )
                    })
                    .collect(),
            );
        }
    }
    ties
}

/// The circles of one crate: its strongly connected groups of files larger than one.
pub fn crate_circles(source: &CrateSource) -> Vec<Vec<String>> {
    let edges = file_edges(source);
    strongly_connected(source.files.len(), &edges)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| {
            let mut names: Vec<String> = group
                .iter()
                .map(|&file| source.files[file].path.display().to_string())
                .collect();
            names.sort();
            names
        })
        .collect()
}

/// For each file, the files it names (never itself).
pub fn file_edges(source: &CrateSource) -> Vec<BTreeSet<usize>> {
    source
        .files
        .iter()
        .enumerate()
        .map(|(index, file)| {
            let mut collector = PathCollector::new(source, file.module.clone());
            collector.visit_file(&file.syntax);
            collector
                .paths
                .iter()
                .filter_map(|path| defining_file(source, path))
                .filter(|&target| target != index)
                .collect()
        })
        .collect()
}

/// The file that defines what an absolute path names: the file of its longest module prefix, or, when that module
/// only re-exports the name, the file the re-export leads to.
pub fn defining_file(source: &CrateSource, path: &[String]) -> Option<usize> {
    let mut path: Vec<String> = path.to_vec();
    for _ in 0..8 {
        let length = (0..=path.len()).rev().find(|&n| source.is_module(&path[..n]))?;
        let module = path[..length].to_vec();
        let Some(name) = path.get(length).cloned() else {
            return source.file_of(&module);
        };
        if source.defined.get(&module).is_some_and(|names| names.contains(&name)) {
            return source.file_of(&module);
        }
        let reexports = source.reexports.get(&module).map(Vec::as_slice).unwrap_or_default();
        let named = reexports.iter().find(|(alias, _)| *alias == name);
        let target = named.map(|(_, target)| target.clone()).or_else(|| {
            reexports
                .iter()
                .filter(|(alias, _)| alias == "*")
                .filter_map(|(_, target)| absolute(source, &module, target))
                .find(|glob| {
                    source.defined.get(glob).is_some_and(|names| names.contains(&name))
                        || source
                            .reexports
                            .get(glob)
                            .is_some_and(|r| r.iter().any(|(a, _)| *a == name || a == "*"))
                })
                .map(|mut glob| {
                    glob.insert(0, "crate".into());
                    glob.push(name.clone());
                    glob
                })
        });
        let Some(target) = target else {
            return source.file_of(&module);
        };
        // A re-export of another crate's item leaves the crate: no file of it is depended on.
        let resolved = absolute(source, &module, &target)?;
        path = resolved.into_iter().chain(path[length + 1..].iter().cloned()).collect();
    }
    None
}

/// Resolves a path as written in module `current` to an absolute module path of the crate, when it names something
/// of the crate: `crate::`, `super::`, `self::`, or a first segment that is a child module of `current`.
pub fn absolute(source: &CrateSource, current: &[String], segments: &[String]) -> Option<ModulePath> {
    let mut iter = segments.iter().peekable();
    let mut base: ModulePath = match iter.peek().map(|s| s.as_str()) {
        Some("crate") => {
            iter.next();
            Vec::new()
        }
        Some("self") => {
            iter.next();
            current.to_vec()
        }
        Some("super") => {
            let mut base = current.to_vec();
            while iter.peek().map(|s| s.as_str()) == Some("super") {
                iter.next();
                base.pop()?;
            }
            base
        }
        Some(first) => {
            let mut child = current.to_vec();
            child.push(first.to_string());
            if !source.is_module(&child) {
                return None;
            }
            current.to_vec()
        }
        None => return None,
    };
    base.extend(iter.cloned());
    Some(base)
}

/// Collects the absolute paths a file names.
struct PathCollector<'a> {
    source: &'a CrateSource,
    /// The module the visitor is in (an inline module extends the file's).
    module: ModulePath,
    paths: Vec<ModulePath>,
}

impl<'a> PathCollector<'a> {
    fn new(source: &'a CrateSource, module: ModulePath) -> Self {
        Self {
            source,
            module,
            paths: Vec::new(),
        }
    }

    fn add(&mut self, segments: &[String]) {
        if let Some(path) = absolute(self.source, &self.module, segments) {
            self.paths.push(path);
        }
    }
}

/// The paths a `use` tree brings in (`a::{b, c::d}` is `a::b` and `a::c::d`; `a::{self}` and `a::*` are `a`).
pub fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) if name.ident == "self" => out.push(prefix.clone()),
        syn::UseTree::Name(name) => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            path.push(rename.ident.to_string());
            out.push(path);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                use_paths(item, prefix, out);
            }
        }
    }
}

/// `crate :: a :: b`, `super :: x`, `self :: y` runs in a macro's tokens, as segments.
pub fn macro_paths(tokens: &proc_macro2::TokenStream) -> Vec<Vec<String>> {
    let words: Vec<String> = flatten_tokens(tokens.clone());
    let mut found = Vec::new();
    let mut index = 0;
    while index < words.len() {
        if matches!(words[index].as_str(), "crate" | "super" | "self")
            && words.get(index + 1).is_some_and(|w| w == "::")
        {
            let mut path = vec![words[index].clone()];
            let mut next = index + 1;
            while words.get(next).is_some_and(|w| w == "::")
                && words
                    .get(next + 1)
                    .is_some_and(|w| w.chars().all(|c| c.is_alphanumeric() || c == '_'))
            {
                path.push(words[next + 1].clone());
                next += 2;
            }
            found.push(path);
            index = next;
        } else {
            index += 1;
        }
    }
    found
}

/// The identifiers and `::` of a token stream, groups flattened.
fn flatten_tokens(tokens: proc_macro2::TokenStream) -> Vec<String> {
    let mut words = Vec::new();
    let mut joint_colon = false;
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => {
                words.push(ident.to_string());
                joint_colon = false;
            }
            proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' => {
                if joint_colon {
                    words.push("::".into());
                    joint_colon = false;
                } else if punct.spacing() == proc_macro2::Spacing::Joint {
                    joint_colon = true;
                }
            }
            proc_macro2::TokenTree::Group(group) => {
                words.push("(".into());
                words.extend(flatten_tokens(group.stream()));
                words.push(")".into());
                joint_colon = false;
            }
            _ => {
                words.push(".".into());
                joint_colon = false;
            }
        }
    }
    words
}

fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if item_attributes(item).is_some_and(is_test_only) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_none() {
            return;
        }
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        // A re-export only names: the files that use the name depend on where it is defined (`defining_file`).
        if !matches!(item.vis, syn::Visibility::Inherited) {
            return;
        }
        let mut found = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut found);
        for path in found {
            self.add(&path);
        }
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(super)`, `pub(crate)`: who may see an item, not what it uses.
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A bare name is a local, an item of this module, or one a `use` brought in (that `use` is the arrow).
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            self.add(&segments(path));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for path in macro_paths(&mac.tokens) {
            self.add(&path);
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// Tarjan's strongly connected components over `nodes` nodes.
pub fn strongly_connected(nodes: usize, edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        groups: Vec<Vec<usize>>,
    }
    fn connect(state: &mut State<'_>, node: usize) {
        state.index[node] = Some(state.next);
        state.low[node] = state.next;
        state.next += 1;
        state.stack.push(node);
        state.on_stack[node] = true;
        for &target in &state.edges[node].clone() {
            match state.index[target] {
                None => {
                    connect(state, target);
                    state.low[node] = state.low[node].min(state.low[target]);
                }
                Some(index) if state.on_stack[target] => state.low[node] = state.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(state.low[node]) == state.index[node] {
            let mut group = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack[member] = false;
                group.push(member);
                if member == node {
                    break;
                }
            }
            state.groups.push(group);
        }
    }
    let mut state = State {
        edges,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on_stack: vec![false; nodes],
        stack: Vec::new(),
        next: 0,
        groups: Vec::new(),
    };
    for node in 0..nodes {
        if state.index[node].is_none() {
            connect(&mut state, node);
        }
    }
    state.groups
}

/// For the report: which names one file takes from another (the first path of each), keyed by the pair.
pub fn edge_names(source: &CrateSource) -> BTreeMap<(usize, usize), Vec<String>> {
    let mut names: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for (index, file) in source.files.iter().enumerate() {
        let mut collector = PathCollector::new(source, file.module.clone());
        collector.visit_file(&file.syntax);
        for path in collector.paths {
            if let Some(target) = defining_file(source, &path).filter(|&target| target != index) {
                let entry = names.entry((index, target)).or_default();
                let name = path.join("::");
                if !entry.contains(&name) {
                    entry.push(name);
                }
            }
        }
    }
    names
}
