//! The `report` subcommand through the real binary, and the plugin path beside it left as it was: Terraform
//! starts the plugin without arguments, and nothing but a first argument `report` leaves that path.

use std::io::Write;
use std::process::{Command, Stdio};

mod common;

use common::{ClientIdentity, PluginProcess, provider_binary, terraform_command};
use terraform_provider_hyperpod::protocol::proto::tfplugin6;

fn report(arguments: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(provider_binary())
        .arg("report")
        .args(arguments)
        .env_remove(common::MAGIC_COOKIE_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the provider binary");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin.as_bytes()).expect("write stdin");
    }
    let output = child.wait_with_output().expect("collect output");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn report_help_prints_usage_and_exits_0() {
    let (code, stdout, stderr) = report(&["--help"], "");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.starts_with("Usage: terraform-provider-hyperpod report"),
        "{stdout}"
    );
}

#[test]
fn report_of_a_plan_on_stdin_exits_with_its_verdict() {
    let plan = r#"{"format_version":"1.2","terraform_version":"1.15.5","errored":false,"resource_changes":[]}"#;
    let (code, stdout, stderr) = report(&["-"], plan);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("## HyperPod governance: compliant\n"), "{stdout}");
    let errored = plan.replace(r#""errored":false"#, r#""errored":true"#);
    let (code, stdout, _) = report(&["--format", "json", "-"], &errored);
    assert_eq!(code, Some(1));
    assert!(stdout.contains(r#""status": "not_compliant""#), "{stdout}");
}

#[test]
fn unknown_options_and_unreadable_files_exit_3() {
    let (code, stdout, stderr) = report(&["--verbose", "plan.json"], "");
    assert_eq!((code, stdout.as_str()), (Some(3), ""));
    assert!(
        stderr.contains("unknown option --verbose") && stderr.contains("Usage:"),
        "{stderr}"
    );
    let (code, _, stderr) = report(&["/nonexistent/plan.json"], "");
    assert_eq!(code, Some(3));
    assert!(stderr.contains("/nonexistent/plan.json: cannot read it"), "{stderr}");
}

#[test]
fn without_the_subcommand_the_binary_is_still_the_plugin() {
    // Arguments that are not the subcommand do not leave the plugin path: without Terraform's cookie it still says
    // it is a plugin, as it always has.
    for arguments in [&[][..], &["reports"][..], &["--debug-not"][..]] {
        let output = Command::new(provider_binary())
            .args(arguments)
            .env_remove(common::MAGIC_COOKIE_KEY)
            .output()
            .expect("run the provider binary");
        assert!(!output.status.success(), "{arguments:?}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("plugin for Terraform"),
            "{arguments:?}"
        );
    }
}

#[tokio::test]
async fn the_plugin_still_serves_its_schema_to_terraform() {
    let identity = ClientIdentity::terraform_like();
    let command = terraform_command(&provider_binary(), Some(&identity.certificate_pem));
    let plugin = PluginProcess::start(command, identity).expect("the plugin starts and prints its handshake");
    let mut client = tfplugin6::provider_client::ProviderClient::new(plugin.connect_announced().await)
        .max_decoding_message_size(256 * 1024 * 1024);
    let schema = client
        .get_provider_schema(tfplugin6::get_provider_schema::Request {})
        .await
        .expect("GetProviderSchema")
        .into_inner();
    assert!(schema.resource_schemas.contains_key("hyperpod_tenant"));
}
