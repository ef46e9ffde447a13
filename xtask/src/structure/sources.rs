//! The files of each crate of the workspace, found as rustc finds them: from `lib.rs` (or `main.rs`) through every
//! `mod name;` that is not test-only, each file with the module path it is (`resources::tenant::plan`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::syntax::{exported_names, is_test_only, item_attributes};

/// A module path inside one crate, without `crate` (the root is empty).
pub type ModulePath = Vec<String>;

pub struct SourceFile {
    /// Relative to the repository root.
    pub path: PathBuf,
    pub module: ModulePath,
    pub syntax: syn::File,
}

pub struct CrateSource {
    /// The package name (`terraform-provider-hyperpod`, `hyperpod-governance`, ...), with `(bin)` for a binary root.
    pub name: String,
    pub files: Vec<SourceFile>,
    /// Every module, inline ones included, and the file (an index into `files`) it is written in.
    pub modules: BTreeMap<ModulePath, usize>,
    /// The names each module defines itself (functions, types, constants, modules...).
    pub defined: BTreeMap<ModulePath, BTreeSet<String>>,
    /// What each module re-exports (`pub use a::b as c;` is `c` -> `a::b`; a glob `pub use a::*;` is `*` -> `a`),
    /// as written: resolved against the module when a path goes through it.
    pub reexports: BTreeMap<ModulePath, Vec<(String, Vec<String>)>>,
}

pub struct Workspace {
    pub crates: Vec<CrateSource>,
}

/// The crate roots of the workspace: (package name, root file relative to the repository).
const ROOTS: [(&str, &str); 10] = [
    ("terraform-provider-hyperpod", "src/lib.rs"),
    ("terraform-provider-hyperpod (bin)", "src/main.rs"),
    ("hyperpod-protocol", "crates/hyperpod-protocol/src/lib.rs"),
    ("hyperpod-governance", "crates/hyperpod-governance/src/lib.rs"),
    ("hyperpod-clients", "crates/hyperpod-clients/src/lib.rs"),
    ("hyperpod-model", "crates/hyperpod-model/src/lib.rs"),
    ("hyperpod-derive", "crates/hyperpod-derive/src/lib.rs"),
    ("hyperpod-report", "crates/hyperpod-report/src/lib.rs"),
    ("xtask", "xtask/src/lib.rs"),
    ("xtask (bin)", "xtask/src/main.rs"),
];

impl Workspace {
    pub fn load(root: &Path) -> Result<Self, String> {
        // A crate an earlier checkout does not have yet (`--root`) is left out.
        let crates = ROOTS
            .iter()
            .filter(|(_, file)| root.join(file).exists())
            .map(|(name, file)| CrateSource::load(root, name, Path::new(file)))
            .collect::<Result<_, _>>()?;
        Ok(Self { crates })
    }

    /// The provider's library crate (`src/`).
    pub fn provider(&self) -> &CrateSource {
        &self.crates[0]
    }

    /// The crates that read and write the provider's values: the provider's library and the governance report (which
    /// reads plans and states by attribute name). Where attribute names and `components` keys are counted.
    pub fn value_readers(&self) -> impl Iterator<Item = &CrateSource> {
        (self.crates.iter())
            .filter(|source| ["terraform-provider-hyperpod", "hyperpod-report"].contains(&source.name.as_str()))
    }
}

impl CrateSource {
    fn load(root: &Path, name: &str, root_file: &Path) -> Result<Self, String> {
        let mut source = Self {
            name: name.to_string(),
            files: Vec::new(),
            modules: BTreeMap::new(),
            defined: BTreeMap::new(),
            reexports: BTreeMap::new(),
        };
        let directory = root_file.parent().unwrap_or(Path::new("")).to_path_buf();
        source.add_file(root, root_file.to_path_buf(), Vec::new(), &directory)?;
        Ok(source)
    }

    /// Parses `path` as module `module` whose children live in `directory`, then its children.
    fn add_file(&mut self, root: &Path, path: PathBuf, module: ModulePath, directory: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(root.join(&path)).map_err(|err| format!("{}: {err}", path.display()))?;
        let syntax = syn::parse_file(&text).map_err(|err| format!("{}: {err}", path.display()))?;
        let index = self.files.len();
        self.modules.insert(module.clone(), index);
        self.record_names(&syntax.items, &module);
        let children = declared_modules(&syntax.items, &module, directory);
        self.files.push(SourceFile { path, module, syntax });
        for child in children {
            match child {
                Declared::Inline(module) => {
                    self.modules.insert(module, index);
                }
                Declared::File { module, directory } => {
                    let name = module.last().cloned().unwrap_or_default();
                    let flat = directory.join(format!("{name}.rs"));
                    let nested = directory.join(&name).join("mod.rs");
                    let (file, children_directory) = if root.join(&flat).is_file() {
                        (flat, directory.join(&name))
                    } else if root.join(&nested).is_file() {
                        (nested, directory.join(&name))
                    } else {
                        return Err(format!(
                            "module {} has no file in {}",
                            module.join("::"),
                            directory.display()
                        ));
                    };
                    self.add_file(root, file, module, &children_directory)?;
                }
            }
        }
        Ok(())
    }

    /// The names `items` define and re-export, for module `module` and its inline modules.
    fn record_names(&mut self, items: &[syn::Item], module: &ModulePath) {
        for item in items {
            if item_attributes(item).is_some_and(is_test_only) {
                continue;
            }
            if let syn::Item::Use(declaration) = item {
                if !matches!(declaration.vis, syn::Visibility::Inherited) {
                    let mut exported = Vec::new();
                    exported_names(&declaration.tree, &mut Vec::new(), &mut exported);
                    self.reexports.entry(module.clone()).or_default().extend(exported);
                }
                continue;
            }
            if let syn::Item::Mod(inner) = item
                && let Some((_, inner_items)) = &inner.content
            {
                let mut inner_module = module.clone();
                inner_module.push(inner.ident.to_string());
                self.record_names(inner_items, &inner_module);
            }
            if let Some(name) = item_name(item) {
                self.defined.entry(module.clone()).or_default().insert(name);
            }
        }
    }

    /// The file a module is written in, if the crate has that module.
    pub fn file_of(&self, module: &[String]) -> Option<usize> {
        self.modules.get(module).copied()
    }

    /// The file of the longest prefix of `path` that is a module of this crate.
    pub fn file_of_prefix(&self, path: &[String]) -> Option<usize> {
        (0..=path.len()).rev().find_map(|length| self.file_of(&path[..length]))
    }

    pub fn is_module(&self, module: &[String]) -> bool {
        self.modules.contains_key(module)
    }
}

/// The name an item defines in its module's namespace, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Mod(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

enum Declared {
    /// `mod name { ... }`, written in the same file.
    Inline(ModulePath),
    /// `mod name;`, in `directory/name.rs` or `directory/name/mod.rs`.
    File { module: ModulePath, directory: PathBuf },
}

/// The non-test modules `items` declare, inline modules' own declarations included.
fn declared_modules(items: &[syn::Item], parent: &ModulePath, directory: &Path) -> Vec<Declared> {
    let mut found = Vec::new();
    for item in items {
        let syn::Item::Mod(declaration) = item else {
            continue;
        };
        if is_test_only(&declaration.attrs) {
            continue;
        }
        let mut module = parent.clone();
        module.push(declaration.ident.to_string());
        match &declaration.content {
            Some((_, inner)) => {
                let inner_directory = directory.join(declaration.ident.to_string());
                found.extend(declared_modules(inner, &module, &inner_directory));
                found.push(Declared::Inline(module));
            }
            None => found.push(Declared::File {
                module,
                directory: directory.to_path_buf(),
            }),
        }
    }
    found
}
