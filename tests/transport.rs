//! The plugin transport end to end: the built binary started the way Terraform starts it, the go-plugin handshake,
//! mutual TLS with the announced certificate over the Unix socket, refusal of anyone else, and shutdown.

mod common;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::process::Command;
use std::time::Duration;

use common::{ClientIdentity, PluginProcess, provider_binary, terraform_command};
use terraform_provider_hyperpod::protocol::proto::tfplugin6;
use tonic::transport::Channel;

const SCHEDULING_POLICY: &str = "hyperpod_scheduling_policy";
/// Upper bound on any single client step, so a hung server fails the test instead of wedging the suite.
const STEP_TIMEOUT: Duration = Duration::from_secs(15);

async fn provider_schema(channel: Channel) -> Result<tfplugin6::get_provider_schema::Response, tonic::Status> {
    let mut client =
        tfplugin6::provider_client::ProviderClient::new(channel).max_decoding_message_size(256 * 1024 * 1024);
    tokio::time::timeout(
        STEP_TIMEOUT,
        client.get_provider_schema(tfplugin6::get_provider_schema::Request {}),
    )
    .await
    .map_err(|_| tonic::Status::deadline_exceeded("GetProviderSchema timed out"))?
    .map(tonic::Response::into_inner)
}

/// Asserts a full round trip with the announced certificate works.
async fn assert_serves_announced_client(plugin: &PluginProcess) {
    let channel = plugin.connect_announced().await;
    let schema = provider_schema(channel).await.unwrap_or_else(|status| {
        panic!(
            "GetProviderSchema failed: {status:?}; stderr:\n{}",
            plugin.stderr_text()
        )
    });
    assert!(
        schema.resource_schemas.contains_key(SCHEDULING_POLICY),
        "resources: {:?}",
        schema.resource_schemas.keys().collect::<Vec<_>>()
    );
}

/// Asserts a client with `identity` (or none) cannot complete a call, and that the server logged the refusal.
async fn assert_refused(plugin: &PluginProcess, identity: Option<&ClientIdentity>) {
    let outcome = tokio::time::timeout(STEP_TIMEOUT, async {
        let channel = plugin.connect(identity).await.map_err(|err| format!("{err:?}"))?;
        provider_schema(channel).await.map_err(|status| format!("{status:?}"))
    })
    .await
    .expect("a refused client is told promptly, not left hanging");
    assert!(outcome.is_err(), "the server answered a client it should have refused");
    // The refusal must come from the server's certificate check, not from some client-side problem.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !plugin.stderr_text().contains("refused a plugin") {
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not log a refusal; client saw {outcome:?}; stderr:\n{}",
            plugin.stderr_text()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[test]
fn handshake_line_announces_protocol_6_over_a_unix_socket_with_a_certificate() {
    let plugin = PluginProcess::spawn();
    let handshake = &plugin.handshake;
    assert_eq!(handshake.core_version, 1, "{}", plugin.handshake_line);
    assert_eq!(handshake.app_version, 6, "{}", plugin.handshake_line);
    assert_eq!(handshake.network, "unix", "{}", plugin.handshake_line);
    assert_eq!(handshake.protocol, "grpc", "{}", plugin.handshake_line);
    assert!(
        !handshake.server_certificate_der.is_empty(),
        "AutoMTLS needs a server certificate on the line: {}",
        plugin.handshake_line
    );
    let socket = std::fs::symlink_metadata(plugin.socket_path()).expect("the announced socket exists");
    assert!(socket.file_type().is_socket(), "{socket:?}");
}

#[tokio::test]
async fn announced_client_gets_the_provider_schema() {
    let plugin = PluginProcess::spawn();
    let channel = plugin.connect_announced().await;
    let schema = provider_schema(channel).await.expect("GetProviderSchema");
    let errors: Vec<_> = schema
        .diagnostics
        .iter()
        .filter(|d| d.severity == tfplugin6::diagnostic::Severity::Error as i32)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(schema.provider.is_some(), "no provider schema");
    let resource = schema
        .resource_schemas
        .get(SCHEDULING_POLICY)
        .unwrap_or_else(|| panic!("{SCHEDULING_POLICY} missing from {:?}", schema.resource_schemas.keys()));
    assert!(resource.block.is_some(), "{SCHEDULING_POLICY} has no block");
}

#[tokio::test]
async fn announced_client_gets_the_resource_identity_schemas() {
    let plugin = PluginProcess::spawn();
    let mut client = plugin.provider_client().await;
    let identities = tokio::time::timeout(
        STEP_TIMEOUT,
        client.get_resource_identity_schemas(tfplugin6::get_resource_identity_schemas::Request {}),
    )
    .await
    .expect("GetResourceIdentitySchemas in time")
    .expect("GetResourceIdentitySchemas")
    .into_inner();
    assert!(identities.diagnostics.is_empty(), "{:?}", identities.diagnostics);
    let identity = identities.identity_schemas.get(SCHEDULING_POLICY).unwrap_or_else(|| {
        panic!(
            "{SCHEDULING_POLICY} missing from {:?}",
            identities.identity_schemas.keys()
        )
    });
    assert!(
        !identity.identity_attributes.is_empty(),
        "{SCHEDULING_POLICY} identity has no attributes"
    );
    assert!(
        identity.identity_attributes.iter().any(|a| a.required_for_import),
        "{SCHEDULING_POLICY} identity has no attribute required for import: {identity:?}"
    );
}

#[tokio::test]
async fn shutdown_ends_the_process_within_a_second() {
    let mut plugin = PluginProcess::spawn();
    let socket_dir = plugin.socket_path().parent().expect("socket directory").to_path_buf();
    let channel = plugin.connect_announced().await;
    provider_schema(channel.clone()).await.expect("GetProviderSchema");

    let (reply, exit) = plugin.shutdown(channel, Duration::from_secs(1)).await;
    reply.expect("Shutdown is answered before the process goes");
    let (status, elapsed) =
        exit.unwrap_or_else(|| panic!("still running 1 s after Shutdown; stderr:\n{}", plugin.stderr_text()));
    assert!(
        status.success(),
        "exit {status:?} after {elapsed:?}; stderr:\n{}",
        plugin.stderr_text()
    );
    assert!(
        !socket_dir.exists(),
        "the socket directory {} outlived the process",
        socket_dir.display()
    );
    // The handshake line is the only thing a plugin may ever print on stdout.
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(plugin.stdout_after_handshake(), "");
}

#[tokio::test]
async fn a_different_client_certificate_is_refused() {
    let plugin = PluginProcess::spawn();
    let impostor = ClientIdentity::terraform_like();
    assert_ne!(impostor.certificate_der, plugin.identity.certificate_der);
    assert_refused(&plugin, Some(&impostor)).await;
    assert_serves_announced_client(&plugin).await;
}

#[tokio::test]
async fn a_client_without_a_certificate_is_refused() {
    let plugin = PluginProcess::spawn();
    assert_refused(&plugin, None).await;
    assert_serves_announced_client(&plugin).await;
}

#[tokio::test]
async fn refused_clients_do_not_disturb_an_open_connection() {
    let plugin = PluginProcess::spawn();
    let channel = plugin.connect_announced().await;
    provider_schema(channel.clone()).await.expect("first GetProviderSchema");
    assert_refused(&plugin, Some(&ClientIdentity::terraform_like())).await;
    assert_refused(&plugin, None).await;
    provider_schema(channel)
        .await
        .expect("GetProviderSchema on the connection opened before the refusals");
    assert_serves_announced_client(&plugin).await;
}

#[test]
fn socket_directory_is_private() {
    let plugin = PluginProcess::spawn();
    let socket = plugin.socket_path();
    let dir = socket.parent().expect("socket directory");
    let metadata = std::fs::metadata(dir).expect("socket directory metadata");
    assert!(metadata.is_dir());
    assert_eq!(
        metadata.permissions().mode() & 0o777,
        0o700,
        "{} has mode {:o}",
        dir.display(),
        metadata.permissions().mode() & 0o777
    );
    let socket_metadata = std::fs::symlink_metadata(&socket).expect("socket metadata");
    assert_eq!(
        socket_metadata.uid(),
        metadata.uid(),
        "socket and directory belong to the same user"
    );
}

/// Runs the binary to completion with a short deadline, returning (exit status, stdout, stderr).
fn run_to_exit(mut command: Command) -> (std::process::ExitStatus, String, String) {
    let mut child = command.spawn().expect("spawn the provider binary");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while child.try_wait().expect("poll").is_none() {
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the provider kept running although it should have refused to start");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().expect("collect output");
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn without_the_magic_cookie_it_says_it_is_a_terraform_plugin() {
    let identity = ClientIdentity::terraform_like();
    for cookie in [None, Some("not-the-cookie")] {
        let mut command = terraform_command(&provider_binary(), Some(&identity.certificate_pem));
        match cookie {
            None => command.env_remove(common::MAGIC_COOKIE_KEY),
            Some(value) => command.env(common::MAGIC_COOKIE_KEY, value),
        };
        let (status, stdout, stderr) = run_to_exit(command);
        assert!(!status.success(), "cookie {cookie:?}: exited {status:?}");
        assert_eq!(stdout, "", "cookie {cookie:?}: stdout must stay empty");
        assert!(
            stderr.contains("plugin for Terraform"),
            "cookie {cookie:?}: stderr does not say it is a Terraform plugin:\n{stderr}"
        );
    }
}

#[test]
fn unsupported_protocol_versions_are_refused_clearly() {
    let identity = ClientIdentity::terraform_like();
    let mut command = terraform_command(&provider_binary(), Some(&identity.certificate_pem));
    command.env("PLUGIN_PROTOCOL_VERSIONS", "4,5");
    let (status, stdout, stderr) = run_to_exit(command);
    assert!(!status.success(), "exited {status:?}");
    assert_eq!(stdout, "", "no handshake line for an unsupported protocol");
    assert!(
        stderr.contains("4,5") && stderr.contains("protocol 6"),
        "stderr should name the offered versions and the one this provider speaks:\n{stderr}"
    );
}

#[test]
fn a_malformed_client_certificate_is_refused_at_startup() {
    let mut command = terraform_command(
        &provider_binary(),
        Some("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"),
    );
    command.env("PLUGIN_PROTOCOL_VERSIONS", "6");
    let (status, stdout, stderr) = run_to_exit(command);
    assert!(!status.success(), "exited {status:?}");
    assert_eq!(stdout, "", "no handshake line without usable TLS");
    assert!(stderr.contains("PLUGIN_CLIENT_CERT"), "{stderr}");
}

/// A write-only argument (a handoff) set for a Terraform that cannot take one is an error at that argument; a
/// Terraform that announces `write_only_attributes_allowed` gets none.
#[tokio::test]
async fn a_write_only_argument_needs_a_terraform_that_allows_it() {
    use terraform_provider_hyperpod::protocol::plugin::PluginProvider;
    use terraform_provider_hyperpod::protocol::value::Value;
    let provider = terraform_provider_hyperpod::provider::HyperpodProvider::default();
    let contract = provider
        .resources()
        .into_iter()
        .find(|r| r.type_name() == "hyperpod_connection_contract")
        .expect("the contract resource");
    let block = &contract.schema().block;
    let mut config = block.null_value();
    let Value::Object(fields) = &mut config else {
        panic!("an object")
    };
    let organization = block.find_attribute("organization").expect("organization").value_type();
    let Value::Object(grant) = Value::decode_json(b"{}", &organization).expect("a null grant object") else {
        panic!("an object")
    };
    fields.insert("organization".into(), Value::Object(grant));
    let config = tfplugin6::DynamicValue {
        msgpack: Vec::new(),
        json: config.encode_json(&block.value_type()).expect("encode"),
    };

    let plugin = PluginProcess::spawn();
    let mut client = plugin.provider_client().await;
    let mut validate = async |allowed: Option<bool>| {
        let request = tfplugin6::validate_resource_config::Request {
            type_name: "hyperpod_connection_contract".into(),
            config: Some(config.clone()),
            client_capabilities: allowed.map(|allowed| tfplugin6::ClientCapabilities {
                deferral_allowed: false,
                write_only_attributes_allowed: allowed,
            }),
        };
        let response = tokio::time::timeout(STEP_TIMEOUT, client.validate_resource_config(request))
            .await
            .expect("ValidateResourceConfig in time")
            .expect("ValidateResourceConfig")
            .into_inner();
        response
            .diagnostics
            .into_iter()
            .filter(|d| d.summary.contains("Write-only"))
            .map(|d| (d.detail, format!("{:?}", d.attribute)))
            .collect::<Vec<_>>()
    };
    for refused in [validate(None).await, validate(Some(false)).await] {
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0].0.contains("Terraform or OpenTofu 1.11 or later"),
            "{refused:?}"
        );
        assert!(refused[0].1.contains("organization"), "{refused:?}");
    }
    assert!(validate(Some(true)).await.is_empty());
}
