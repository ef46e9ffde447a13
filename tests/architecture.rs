//! The crate graph keeps the architecture's arrows pointing down (README, "Layout"): the model depends on nothing, the
//! governance engine only on the model and plain data crates, never on the provider, the plugin protocol, an AWS SDK
//! or a Kubernetes client. Read from `cargo tree` (normal dependencies, transitively, as the lock file resolves them), so a
//! dependency added anywhere below the engine is caught too.

use std::collections::BTreeSet;
use std::process::Command;

/// Every package `package` reaches through normal (not dev, not build) dependencies on this platform, as
/// `cargo tree` resolves them from the lock file.
fn reachable(package: &str) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--package",
            package,
        ])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != package)
        .map(str::to_string)
        .collect()
}

/// What a layer must never reach: the layers above it and the heavy clients.
fn forbidden(name: &str) -> bool {
    name == "terraform-provider-hyperpod"
        || name.starts_with("aws-")
        || ["tonic", "prost", "hyper", "rustls", "tokio"].contains(&name)
}

#[test]
fn the_model_depends_on_nothing() {
    assert_eq!(reachable("hyperpod-model"), BTreeSet::new());
}

#[test]
fn the_engine_reaches_neither_the_provider_nor_the_protocol_nor_any_client() {
    let engine = reachable("hyperpod-governance");
    assert!(engine.contains("hyperpod-model"), "{engine:?}");
    let leaks: Vec<&String> = engine.iter().filter(|name| forbidden(name)).collect();
    assert!(leaks.is_empty(), "the governance engine reaches {leaks:?}");
    // The check can fail: the provider reaches all of them.
    assert!(
        reachable("terraform-provider-hyperpod")
            .iter()
            .any(|name| forbidden(name))
    );
}
