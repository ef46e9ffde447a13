//! The crate graph keeps the architecture's arrows pointing down (README, "Layout"): the model depends on nothing;
//! the governance engine only on the model and plain data crates, never on the provider, the plugin protocol, an AWS
//! SDK or a Kubernetes client; the plugin protocol on neither AWS, the engine nor the provider; the cloud clients on
//! neither the engine, the protocol nor the provider (they share only the model); the resources' declarations on the
//! protocol, the engine and the model only; the report never on the provider.
//! Read from `cargo tree`
//! (normal dependencies, transitively, as the lock file resolves them), so a dependency added anywhere below a layer
//! is caught too.

use std::collections::BTreeSet;
use std::process::Command;

/// Every package `package` reaches through normal (not dev, not build) dependencies on this platform, as
/// `cargo tree` resolves them from the lock file.
fn reachable(package: &str) -> BTreeSet<String> {
    tree(package, "normal")
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != package)
        .map(str::to_string)
        .collect()
}

/// `cargo tree` of `package` along `edges`, one node per line.
fn tree(package: &str, edges: &str) -> String {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "--edges",
            edges,
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
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The AWS SDK and its runtime (`aws-sdk-*`, `aws-smithy-*`, `aws-config`, `aws-sigv4`, ...). `aws-lc-*` is the
/// cryptography library under rustls, which the plugin transport needs.
fn is_aws_client(name: &str) -> bool {
    name.starts_with("aws-") && !name.starts_with("aws-lc-")
}

/// What the engine must never reach: the layers above it and the heavy clients.
fn forbidden_below_engine(name: &str) -> bool {
    ["terraform-provider-hyperpod", "hyperpod-protocol", "hyperpod-clients"].contains(&name)
        || name.starts_with("aws-")
        || ["tonic", "prost", "hyper", "rustls", "tokio"].contains(&name)
}

/// What the plugin protocol must never reach: AWS, the engine, the clients, the provider.
fn forbidden_below_protocol(name: &str) -> bool {
    ["terraform-provider-hyperpod", "hyperpod-governance", "hyperpod-clients"].contains(&name) || is_aws_client(name)
}

/// What the cloud clients must never reach: the engine, the plugin protocol (its gRPC stack included), the provider.
fn forbidden_below_clients(name: &str) -> bool {
    [
        "terraform-provider-hyperpod",
        "hyperpod-governance",
        "hyperpod-protocol",
        "tonic",
        "prost",
    ]
    .contains(&name)
}

#[test]
fn the_model_depends_on_nothing() {
    assert_eq!(reachable("hyperpod-model"), BTreeSet::new());
}

#[test]
fn the_engine_reaches_neither_the_provider_nor_the_protocol_nor_any_client() {
    let engine = reachable("hyperpod-governance");
    assert!(engine.contains("hyperpod-model"), "{engine:?}");
    let leaks: Vec<&String> = engine.iter().filter(|name| forbidden_below_engine(name)).collect();
    assert!(leaks.is_empty(), "the governance engine reaches {leaks:?}");
    // The check can fail: the provider reaches all of them.
    assert!(
        reachable("terraform-provider-hyperpod")
            .iter()
            .any(|name| forbidden_below_engine(name))
    );
}

#[test]
fn the_protocol_reaches_neither_aws_nor_the_engine_nor_the_provider() {
    let protocol = reachable("hyperpod-protocol");
    assert!(protocol.contains("tonic"), "{protocol:?}");
    let leaks: Vec<&String> = protocol.iter().filter(|name| forbidden_below_protocol(name)).collect();
    assert!(leaks.is_empty(), "the plugin protocol reaches {leaks:?}");
    assert!(
        reachable("terraform-provider-hyperpod")
            .iter()
            .any(|name| is_aws_client(name))
    );
}

#[test]
fn the_clients_reach_neither_the_engine_nor_the_protocol_nor_the_provider() {
    let clients = reachable("hyperpod-clients");
    assert!(
        clients.contains("aws-sdk-sagemaker") && clients.contains("hyperpod-model"),
        "{clients:?}"
    );
    let leaks: Vec<&String> = clients.iter().filter(|name| forbidden_below_clients(name)).collect();
    assert!(leaks.is_empty(), "the cloud clients reach {leaks:?}");
    assert!(
        reachable("terraform-provider-hyperpod")
            .iter()
            .any(|name| forbidden_below_clients(name))
    );
}

/// The governance report reads plans and states, not the provider's resources: it cannot import a resource's
/// internals because it cannot reach the provider crate at all.
#[test]
fn the_report_does_not_reach_the_provider() {
    let report = reachable("hyperpod-report");
    assert!(report.contains("hyperpod-governance"), "{report:?}");
    assert!(
        !report.contains("terraform-provider-hyperpod"),
        "the report reaches the provider: {report:?}"
    );
    assert!(reachable("terraform-provider-hyperpod").contains("hyperpod-report"));
}

/// The declarations sit below the provider and the report alike: the protocol, the engine and the model, no AWS
/// client, no provider; so the report can name an attribute by its declaration instead of a string.
#[test]
fn the_declarations_sit_below_the_provider_and_the_report() {
    let declarations = reachable("hyperpod-declarations");
    assert!(declarations.contains("hyperpod-protocol"), "{declarations:?}");
    for above in ["terraform-provider-hyperpod", "hyperpod-report", "hyperpod-clients"] {
        assert!(
            !declarations.contains(above),
            "the declarations reach {above}: {declarations:?}"
        );
    }
    assert!(reachable("terraform-provider-hyperpod").contains("hyperpod-declarations"));
}

/// The catalog's examples are test support: the docs generator (xtask) and the tests enable them, the shipped
/// provider does not.
#[test]
fn the_shipped_provider_is_built_without_the_engines_examples() {
    const EXAMPLES: &str = "hyperpod-governance feature \"examples\"";
    let provider = tree("terraform-provider-hyperpod", "normal,features");
    assert!(
        provider.contains("hyperpod-governance feature \"default\""),
        "{provider}"
    );
    assert!(
        !provider.contains(EXAMPLES),
        "the provider's normal dependencies enable the engine's examples"
    );
    assert!(tree("xtask", "normal,features").contains(EXAMPLES));
}
