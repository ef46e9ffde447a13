//! The registry docs under `docs/` are generated from the provider's schema and `examples/` (xtask/src/docs.rs).
//! This test fails when they are stale, missing or left over; `make docs` rewrites them.

use std::fs;

use xtask::docs;

const FIX: &str = "make docs   # = cargo xtask docs";

#[test]
fn docs_match_the_schema_and_examples() {
    let root = xtask::repository_root();
    let pages = docs::render_all(root);
    let on_disk = docs::existing(root).expect("listing docs/");
    let mut problems = Vec::new();
    for (path, expected) in &pages {
        match fs::read_to_string(root.join(path)) {
            Err(_) => problems.push(format!("missing: {}", path.display())),
            Ok(actual) if actual != *expected => problems.push(format!(
                "stale:   {} ({})",
                path.display(),
                first_difference(&actual, expected)
            )),
            Ok(_) => {}
        }
    }
    for extra in on_disk.iter().filter(|path| !pages.contains_key(*path)) {
        problems.push(format!(
            "extra:   {} (no resource, data source or function renders it)",
            extra.display()
        ));
    }
    assert!(
        problems.is_empty(),
        "docs/ does not match the provider schema and examples/:\n  {}\nRegenerate them with:\n  {FIX}",
        problems.join("\n  ")
    );
}

/// Where two texts first differ, as `line N: "got" != "want"`.
fn first_difference(actual: &str, expected: &str) -> String {
    let mut actual_lines = actual.lines();
    let mut expected_lines = expected.lines();
    for number in 1.. {
        match (actual_lines.next(), expected_lines.next()) {
            (Some(a), Some(e)) if a == e => {}
            (None, None) => break,
            (a, e) => {
                return format!(
                    "line {number}: has {:?}, should be {:?}",
                    a.unwrap_or("<end of file>"),
                    e.unwrap_or("<end of file>")
                );
            }
        }
    }
    "line endings differ".to_string()
}
