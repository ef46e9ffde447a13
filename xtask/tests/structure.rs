//! The structure a newcomer relies on (README, "Layout"; `docs/design/resource-shape.md`), read from the source by
//! `xtask::structure` (`cargo xtask structure` prints the same figures): no file of any crate imports itself through
//! others, resources never reach up into the provider module, every resource folder has the same shape, every
//! function on a resource's plan path and in the engine and the report fits on a screen, no two public types share a
//! name, and no branch decides on a message's wording.

use xtask::repository_root;
use xtask::structure::{
    self, MAX_PLAN_FUNCTION_LINES, MAX_PLAN_FUNCTION_PARAMETERS, calls, imports, names, shape, sources, wording,
};

fn workspace() -> sources::Workspace {
    sources::Workspace::load(repository_root()).expect("the sources parse")
}

#[test]
fn no_crate_has_an_import_circle() {
    let workspace = workspace();
    let circles = imports::circles(&workspace);
    assert!(
        circles.is_empty(),
        "files that import each other in a loop: {circles:#?}"
    );
}

#[test]
fn resources_never_import_the_provider_module() {
    let workspace = workspace();
    let provider = workspace.provider();
    let edges = imports::file_edges(provider);
    let names = imports::edge_names(provider);
    let mut upward = Vec::new();
    for (from, targets) in edges.iter().enumerate() {
        let from_path = provider.files[from].path.display().to_string();
        if !from_path.starts_with("src/resources/") && !from_path.starts_with("src/data_sources/") {
            continue;
        }
        for &to in targets {
            if provider.files[to].path.starts_with("src/provider") {
                upward.push(format!("{from_path} -> {:?}", names.get(&(from, to))));
            }
        }
    }
    assert!(upward.is_empty(), "resources naming the provider module: {upward:#?}");
}

/// What the resources share (`src/resources/*.rs`: cluster facts, references, the checklist) sits below every resource
/// folder: it never names one, so no resource reaches another through it.
#[test]
fn shared_resource_modules_never_import_a_resource_folder() {
    let workspace = workspace();
    let provider = workspace.provider();
    let edges = imports::file_edges(provider);
    let names = imports::edge_names(provider);
    let shared = |path: &std::path::Path| path.parent() == Some(std::path::Path::new("src/resources"));
    let mut upward = Vec::new();
    for (from, targets) in edges.iter().enumerate() {
        let from_path = &provider.files[from].path;
        if !shared(from_path) {
            continue;
        }
        for &to in targets {
            let to_path = &provider.files[to].path;
            if to_path.starts_with("src/resources") && !shared(to_path) {
                upward.push(format!("{} -> {:?}", from_path.display(), names.get(&(from, to))));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "shared modules naming a resource folder: {upward:#?}"
    );
}

#[test]
fn every_resource_folder_has_the_shape() {
    let problems = shape::resource_folder_problems(repository_root());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn every_function_on_a_plan_path_fits_on_a_screen() {
    let workspace = workspace();
    let graph = calls::CallGraph::build(workspace.provider());
    let mut too_large = Vec::new();
    for folder in structure::resource_folders(repository_root()) {
        let path = graph
            .plan_path(&folder)
            .unwrap_or_else(|| panic!("{folder} has no modify_plan"));
        // The check can fail: a plan path that reaches nothing would pass it trivially.
        assert!(path.functions.len() > 3, "{folder}: {} functions", path.functions.len());
        for function in &path.functions {
            if function.lines > MAX_PLAN_FUNCTION_LINES || function.parameters > MAX_PLAN_FUNCTION_PARAMETERS {
                too_large.push(format!(
                    "{}: {} lines, {} parameters",
                    function.display(),
                    function.lines,
                    function.parameters
                ));
            }
        }
    }
    too_large.sort();
    too_large.dedup();
    assert!(
        too_large.is_empty(),
        "plan-path functions over {MAX_PLAN_FUNCTION_LINES} lines or {MAX_PLAN_FUNCTION_PARAMETERS} parameters: \
         {too_large:#?}"
    );
}

#[test]
fn no_two_public_types_share_a_name() {
    let shared = shape::shared_type_names(&workspace());
    assert!(shared.is_empty(), "public types declared more than once: {shared:#?}");
}

/// Rewording a message never changes what the provider does: no branch outside tests tests a diagnostic's, finding's
/// or checklist row's text (`structure::wording`; the governance report reads Terraform's log against declared marks).
#[test]
fn no_branch_decides_on_a_message_s_wording() {
    let found = wording::tests_of_wording(&workspace());
    assert!(found.is_empty(), "branches on a message's wording: {found:#?}");
}

#[test]
fn a_typed_resource_names_no_attribute_by_string() {
    let workspace = workspace();
    let literals = names::name_literals(&workspace, &names::attribute_names());
    let named: Vec<_> = literals
        .iter()
        .filter(|literal| !names::is_not_a_name(literal))
        .collect();
    assert!(
        named.is_empty(),
        "attribute names typed as strings (use the declaration's typed names, e.g. `SchedulingPolicyModel::ARN`, \
         or list a plain word in names::NOT_NAMES with why): {named:#?}"
    );
    // Each word listed as not a name is still there: a stale entry would let a real name back in unnoticed.
    for entry in names::NOT_NAMES {
        for word in entry.words {
            assert!(
                literals
                    .iter()
                    .any(|literal| literal.path == entry.path && literal.name == *word),
                "names::NOT_NAMES lists {word:?} in {}, which no longer has it",
                entry.path
            );
        }
    }
}

/// A `components` key is formatted and read by `hyperpod_model::component::Component` alone: no resource, the
/// report or the clients spell `kubernetes/<Kind>/…`, `kms_grant/…` or `iam_role` by hand.
#[test]
fn no_component_key_is_spelt_by_hand() {
    let found = names::component_key_literals(&workspace());
    assert!(
        found.is_empty(),
        "`components` keys spelt as strings (build them with hyperpod_model::component::Component): {found:#?}"
    );
}

/// The engine (one function per rule, its parts named) and the report's renderers fit on a screen everywhere, not
/// only on a plan path.
#[test]
fn every_function_of_the_engine_and_the_report_fits_on_a_screen() {
    let workspace = workspace();
    let long = structure::long_functions(&workspace);
    assert!(
        long.is_empty(),
        "functions over {MAX_PLAN_FUNCTION_LINES} lines in {:?}: {long:#?}",
        structure::SIZED_EVERYWHERE
    );
}
