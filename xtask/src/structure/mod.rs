//! `cargo xtask structure`: the workspace's structure as a newcomer meets it, read from the source with `syn` (nothing
//! is compiled or run): the import circles between the files of each crate, each resource's plan path (the functions
//! its `modify_plan` reaches in the provider crate, their files, the largest), public types that share a name, and the
//! shape of each resource folder. `xtask/tests/structure.rs` holds the invariants; the command prints the figures.
//!
//! - `sources.rs`: which files make up each crate, and the module each file is.
//! - `imports.rs`: which file names which (a `use`, a path, a path inside a macro), and the circles they form.
//! - `calls.rs`: a call graph good enough to follow a plan through the provider crate.
//! - `shape.rs`: the resource folders and the public type names.
//! - `wording.rs`: branches on a message's wording (a decision must rest on typed values).
//! - `names.rs`: attribute names typed as strings (a typed resource names them through its declaration).
//! - `syntax.rs`: what the others read of an item (test-only or not, its attributes, what a `pub use` exports).

pub mod calls;
pub mod imports;
pub mod names;
pub mod shape;
pub mod sources;
pub mod syntax;
pub mod wording;

use std::fmt::Write as _;
use std::path::Path;

/// The most lines a function on a plan path may have, from `fn` to its closing brace.
pub const MAX_PLAN_FUNCTION_LINES: usize = 60;
/// The most parameters (beside `self`) a function on a plan path may take.
pub const MAX_PLAN_FUNCTION_PARAMETERS: usize = 5;

/// The resource folders under `src/resources/`, sorted.
pub fn resource_folders(root: &Path) -> Vec<String> {
    let mut folders: Vec<String> = std::fs::read_dir(root.join("src/resources"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().to_string())
        .collect();
    folders.sort();
    folders
}

/// Every function the plan of the resource in `src/resources/<folder>/` reaches, by file, with lines and parameters.
pub fn plan_path_report(root: &Path, folder: &str) -> Result<String, String> {
    let workspace = sources::Workspace::load(root)?;
    let graph = calls::CallGraph::build(workspace.provider());
    let path = graph
        .plan_path(folder)
        .ok_or_else(|| format!("src/resources/{folder}/ has no modify_plan"))?;
    let mut functions: Vec<&calls::CalledFunction<'_>> = path.functions.clone();
    functions.sort_by(|a, b| (a.path.as_str(), a.display()).cmp(&(b.path.as_str(), b.display())));
    let mut out = format!(
        "{folder}: {} files, {} functions\n",
        path.files().len(),
        functions.len()
    );
    for function in functions {
        let _ = writeln!(
            out,
            "  {:4} lines {} params  {}",
            function.lines,
            function.parameters,
            function.display()
        );
    }
    Ok(out)
}

/// The folders held to [`MAX_PLAN_FUNCTION_LINES`] in every function, not only on a plan path: the governance
/// engine (one function per rule, each rule's parts named) and the governance report's renderers.
pub const SIZED_EVERYWHERE: [&str; 2] = ["crates/hyperpod-governance/src/", "crates/hyperpod-report/src/"];

/// Every function outside tests in [`SIZED_EVERYWHERE`] longer than [`MAX_PLAN_FUNCTION_LINES`], longest first.
pub fn long_functions(workspace: &sources::Workspace) -> Vec<(String, usize)> {
    let mut long = Vec::new();
    for source in &workspace.crates {
        let graph = calls::CallGraph::build(source);
        for function in &graph.functions {
            if function.lines > MAX_PLAN_FUNCTION_LINES
                && SIZED_EVERYWHERE.iter().any(|folder| function.path.starts_with(folder))
            {
                long.push((function.display(), function.lines));
            }
        }
    }
    long.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    long.dedup();
    long
}

/// Every file that types attribute names as strings, with its count, largest first.
pub fn names_report(root: &Path) -> Result<String, String> {
    let workspace = sources::Workspace::load(root)?;
    Ok(name_literal_counts(&workspace, usize::MAX))
}

/// The count of attribute names typed as strings, and the `shown` files with the most.
fn name_literal_counts(workspace: &sources::Workspace, shown: usize) -> String {
    let literals = names::name_literals(workspace, &names::attribute_names());
    let plain_words = literals.iter().filter(|literal| names::is_not_a_name(literal)).count();
    let mut by_file = std::collections::BTreeMap::<&str, usize>::new();
    for literal in &literals {
        *by_file.entry(literal.path.as_str()).or_default() += 1;
    }
    let mut out = format!(
        "\nattribute names typed as strings in src/ and crates/hyperpod-report/ (declarations and tests aside): {} in {} \
         files, of which {plain_words} are plain words listed in names::NOT_NAMES (not attribute names)\n",
        literals.len(),
        by_file.len()
    );
    let mut largest: Vec<_> = by_file.into_iter().collect();
    largest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (path, count) in largest.iter().take(shown) {
        let _ = writeln!(out, "  {count:4}  {path}");
    }
    out
}

/// The whole report `cargo xtask structure` prints.
pub fn report(root: &Path) -> Result<String, String> {
    let workspace = sources::Workspace::load(root)?;
    let mut out = String::new();
    let circles = imports::circles(&workspace);
    let _ = writeln!(out, "import circles: {}", circles.len());
    for (circle, ties) in circles.iter().zip(imports::circle_ties(&workspace)) {
        let _ = writeln!(out, "  {}", circle.join(", "));
        for tie in ties {
            let _ = writeln!(out, "      {tie}");
        }
    }
    let provider = workspace.provider();
    let graph = calls::CallGraph::build(provider);
    let _ = writeln!(
        out,
        "\nplan paths (from each resource's modify_plan, in the provider crate):"
    );
    for folder in resource_folders(root) {
        let Some(path) = graph.plan_path(&folder) else {
            let _ = writeln!(out, "  {folder}: no modify_plan found");
            continue;
        };
        let largest = path.largest();
        let _ = writeln!(
            out,
            "  {folder}: {} files, {} functions; largest {} ({} lines, {} parameters); most parameters {} ({})",
            path.files().len(),
            path.functions.len(),
            largest.map_or("-".into(), calls::CalledFunction::display),
            largest.map_or(0, |f| f.lines),
            largest.map_or(0, |f| f.parameters),
            path.most_parameters()
                .map_or("-".into(), calls::CalledFunction::display),
            path.most_parameters().map_or(0, |f| f.parameters),
        );
    }
    let long = long_functions(&workspace);
    let _ = writeln!(
        out,
        "\nfunctions over {MAX_PLAN_FUNCTION_LINES} lines in the engine and the report: {}",
        long.len()
    );
    for (function, lines) in &long {
        let _ = writeln!(out, "  {lines:4}  {function}");
    }
    let shared = shape::shared_type_names(&workspace);
    let _ = writeln!(out, "\npublic type names declared more than once: {}", shared.len());
    for (name, files) in &shared {
        let _ = writeln!(out, "  {name}: {}", files.join(", "));
    }
    let problems = shape::resource_folder_problems(root);
    let _ = writeln!(out, "\nresource folders off the shape: {}", problems.len());
    for problem in &problems {
        let _ = writeln!(out, "  {problem}");
    }
    out.push_str(&name_literal_counts(&workspace, 10));
    let keys = names::component_key_literals(&workspace);
    let _ = writeln!(
        out,
        "\n`components` keys spelt as strings in src/ and crates/hyperpod-report/ (tests aside; hyperpod_model::component spells them): {}",
        keys.len()
    );
    for key in &keys {
        let _ = writeln!(out, "  {}:{}  {:?}", key.path, key.line, key.name);
    }
    Ok(out)
}
