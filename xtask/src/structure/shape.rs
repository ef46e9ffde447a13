//! Two rules a newcomer leans on: a type's name says which one it is (no two public types of the workspace share a
//! name), and every resource folder has the same files (`docs/design/resource-shape.md`).

use std::collections::BTreeMap;
use std::path::Path;

use super::sources::Workspace;
use super::syntax::{is_test_only, item_attributes};

/// The files every resource folder has, each as a file or as a folder with a `mod.rs`.
pub const RESOURCE_FILES: [&str; 6] = ["schema", "model", "plan", "apply", "read", "import"];
/// A resource's plan, split by what each part may do: read (gather), decide (judge), compute the planned state
/// (predict).
pub const PLAN_FILES: [&str; 3] = ["gather", "judge", "predict"];
/// Files a resource folder may have beside the shape: its list resource.
pub const OPTIONAL_FILES: [&str; 1] = ["list"];

/// Public type names (structs, enums, traits, type aliases, unions; `pub` in any form, test code left out) declared
/// in more than one place, with the files that declare each.
pub fn shared_type_names(workspace: &Workspace) -> BTreeMap<String, Vec<String>> {
    let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for source in workspace.crates.iter().filter(|c| !c.name.ends_with("(bin)")) {
        for file in &source.files {
            let mut names = Vec::new();
            public_types(&file.syntax.items, &mut names);
            for name in names {
                declared.entry(name).or_default().push(file.path.display().to_string());
            }
        }
    }
    declared.retain(|_, files| files.len() > 1);
    declared
}

fn public_types(items: &[syn::Item], out: &mut Vec<String>) {
    for item in items {
        if item_attributes(item).is_some_and(is_test_only) {
            continue;
        }
        let (visibility, ident) = match item {
            syn::Item::Struct(i) => (&i.vis, &i.ident),
            syn::Item::Enum(i) => (&i.vis, &i.ident),
            syn::Item::Trait(i) => (&i.vis, &i.ident),
            syn::Item::Type(i) => (&i.vis, &i.ident),
            syn::Item::Union(i) => (&i.vis, &i.ident),
            syn::Item::Mod(i) => {
                // Generated code (`include_proto!`) is not declared here; inline modules' items are.
                if let Some((_, inner)) = &i.content {
                    public_types(inner, out);
                }
                continue;
            }
            _ => continue,
        };
        if !matches!(visibility, syn::Visibility::Inherited) {
            out.push(ident.to_string());
        }
    }
}

/// What is off the shape in `src/resources/*/`: a missing file, a plan not split in gather / judge / predict, a file
/// that is none of the shape's.
pub fn resource_folder_problems(root: &Path) -> Vec<String> {
    let resources = root.join("src/resources");
    let Ok(entries) = std::fs::read_dir(&resources) else {
        return vec!["src/resources is missing".into()];
    };
    let mut folders: Vec<_> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.path())
        .collect();
    folders.sort();
    let mut problems = Vec::new();
    for folder in folders {
        let name = folder.file_name().unwrap_or_default().to_string_lossy().to_string();
        let has =
            |part: &str| folder.join(format!("{part}.rs")).is_file() || folder.join(part).join("mod.rs").is_file();
        if !folder.join("mod.rs").is_file() {
            problems.push(format!("{name}: no mod.rs"));
        }
        for part in RESOURCE_FILES {
            if !has(part) {
                problems.push(format!("{name}: no {part}.rs"));
            }
        }
        for part in PLAN_FILES {
            if !folder.join("plan").join(format!("{part}.rs")).is_file() {
                problems.push(format!("{name}: no plan/{part}.rs"));
            }
        }
        let Ok(children) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut others: Vec<String> = children
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().to_string())
            .filter(|file| {
                let stem = file.strip_suffix(".rs").unwrap_or(file);
                stem != "mod" && !RESOURCE_FILES.contains(&stem) && !OPTIONAL_FILES.contains(&stem)
            })
            .collect();
        others.sort();
        for other in others {
            problems.push(format!(
                "{name}: {other} is not part of the shape (move it under plan/, apply/ or model/)"
            ));
        }
    }
    problems
}
