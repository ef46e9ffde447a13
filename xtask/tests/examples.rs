//! Schema, docs and examples agree on what a resource requires. The docs pages are generated from the schema
//! (`docs.rs` checks they are current), so what is checked here is the rest: each page lists every top-level
//! argument in the group of its presence (Required, Optional, Read-Only), and each resource's example
//! (`examples/resources/<type>/resource*.tf`, which its page shows) sets every argument and block the schema
//! requires. Issue 40 found `workload` documented Optional while the plan required it; the plan-side half of that
//! (a tenant without a workload block is judged, not refused) is `tenant::plan::tests`.

use std::fs;

use hyperpod_protocol::plugin::PluginProvider;
use hyperpod_protocol::schema::Presence;
use terraform_provider_hyperpod::provider::HyperpodProvider;

/// The names listed under `### <group>` on a docs page (top level only: up to the next heading).
fn listed(page: &str, group: &str) -> Vec<String> {
    let heading = format!("### {group}\n");
    let Some(start) = page.find(&heading) else {
        return Vec::new();
    };
    page[start + heading.len()..]
        .lines()
        .take_while(|line| !line.starts_with('#') && !line.starts_with("<a id"))
        .filter_map(|line| line.strip_prefix("- `")?.split('`').next().map(str::to_string))
        .collect()
}

#[test]
fn every_page_lists_each_argument_under_its_presence_and_every_example_sets_what_is_required() {
    let root = xtask::repository_root();
    let provider = HyperpodProvider::default();
    let mut problems = Vec::new();
    for resource in provider.resources() {
        let type_name = resource.type_name();
        let short = type_name.trim_start_matches("hyperpod_");
        let page = fs::read_to_string(root.join("docs/resources").join(format!("{short}.md"))).unwrap_or_default();
        let example_dir = root.join("examples/resources").join(type_name);
        let example: String = fs::read_dir(&example_dir)
            .map(|entries| {
                let mut files: Vec<_> = entries
                    .filter_map(|entry| entry.ok().map(|e| e.path()))
                    .filter(|path| {
                        let named = path.file_name().and_then(|n| n.to_str());
                        named.is_some_and(|n| n.starts_with("resource"))
                            && path.extension().is_some_and(|extension| extension == "tf")
                    })
                    .collect();
                files.sort();
                files.iter().filter_map(|path| fs::read_to_string(path).ok()).collect()
            })
            .unwrap_or_default();
        let (required, optional, read_only) = (
            listed(&page, "Required"),
            listed(&page, "Optional"),
            listed(&page, "Read-Only"),
        );
        let block = &resource.schema().block;
        for attribute in &block.attributes {
            let (group, names) = match attribute.presence {
                Presence::Required => ("Required", &required),
                Presence::Optional | Presence::OptionalComputed => ("Optional", &optional),
                Presence::Computed => ("Read-Only", &read_only),
            };
            if !names.iter().any(|name| name == attribute.name) {
                problems.push(format!("{type_name}.{}: not listed under {group}", attribute.name));
            }
            let set = example.lines().any(|line| {
                line.trim_start()
                    .strip_prefix(attribute.name)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            });
            if attribute.presence == Presence::Required && !set {
                problems.push(format!(
                    "{type_name}.{}: required, and its example does not set it",
                    attribute.name
                ));
            }
        }
        for nested in block.blocks.iter().filter(|nested| nested.min_items > 0) {
            let set = example
                .lines()
                .any(|line| line.trim_start().starts_with(&format!("{} {{", nested.name)));
            if !set {
                problems.push(format!(
                    "{type_name}.{}: a required block its example leaves out",
                    nested.name
                ));
            }
            if !required.iter().any(|name| name == nested.name) {
                problems.push(format!(
                    "{type_name}.{}: a required block not listed under Required",
                    nested.name
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "schema, docs and examples disagree:\n  {}",
        problems.join("\n  ")
    );
}
