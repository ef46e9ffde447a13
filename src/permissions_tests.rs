//! The table against the code: every SDK operation sent anywhere in `src/` is listed, every listed call is sent
//! somewhere, and every resource, data source and function of the provider has an entry.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::protocol::plugin::PluginProvider;
use crate::provider::HyperpodProvider;

/// The AWS services the provider has clients for: a receiver whose last segment is one of these calls it.
const SERVICES: &[&str] = &["sagemaker", "datazone", "iam", "eks", "kms", "ssm", "sts", "cloudwatch"];

/// One SDK operation sent in the code.
#[derive(Debug, PartialEq)]
struct SdkCall {
    line: usize,
    service: String,
    /// As the SDK spells the method: `create_compute_quota`.
    method: String,
}

/// Every `.send()` of an SDK fluent builder in `text`, with the service and operation (the first method of the
/// chain), or an error saying which call cannot be told apart (`file:line: ...`).
fn sdk_calls(file: &str, text: &str) -> Vec<Result<SdkCall, String>> {
    let code = blank_comments_and_strings(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find(".send()") {
        let at = from + found;
        from = at + ".send()".len();
        let line = code[..at].bytes().filter(|b| *b == b'\n').count() + 1;
        let Some((method, receiver)) = chain_start(bytes, at) else {
            out.push(Err(format!(
                "{file}:{line}: `.send()` on something that is not a method chain on a client; call the SDK as \
                 `client.operation()...send()` so the permissions test can read the operation"
            )));
            continue;
        };
        match service_of(&code, &receiver) {
            Some(service) => out.push(Ok(SdkCall { line, service, method })),
            None => out.push(Err(format!(
                "{file}:{line}: cannot tell which AWS service `{receiver}.{method}()` calls; call it on a client \
                 named for its service (`client.sagemaker`, `eks`, ...) or in a file that imports one \
                 `aws_sdk_<service>::Client`"
            ))),
        }
    }
    out
}

/// Walks back from the `.` of `.send()` over `.method(args)` links: the first method and the receiver before it.
fn chain_start(code: &[u8], dot: usize) -> Option<(String, String)> {
    let mut position = dot;
    let mut first = None;
    loop {
        let close = skip_space_back(code, position)?;
        if code[close] != b')' {
            break;
        }
        let open = matching_open(code, close)?;
        let name_end = open;
        let name_start = ident_start(code, name_end);
        if name_start == name_end {
            break;
        }
        let before = skip_space_back(code, name_start)?;
        if code[before] != b'.' {
            break;
        }
        first = Some((name_start, name_end));
        position = before;
    }
    let (start, end) = first?;
    let method = String::from_utf8_lossy(&code[start..end])
        .trim_start_matches("r#")
        .to_string();
    Some((method, receiver_before(code, position)))
}

/// The receiver expression ending just before `code[dot]` (`self.client.sagemaker`, `client`), whitespace dropped.
fn receiver_before(code: &[u8], dot: usize) -> String {
    let mut segments = Vec::new();
    let mut position = dot;
    while let Some(end) = skip_space_back(code, position) {
        let start = ident_start(code, end + 1);
        if start == end + 1 {
            break;
        }
        segments.push(String::from_utf8_lossy(&code[start..=end]).to_string());
        match skip_space_back(code, start) {
            Some(before) if code[before] == b'.' => position = before,
            _ => break,
        }
    }
    segments.reverse();
    segments.join(".")
}

/// The index of the last non-whitespace byte before `position`.
fn skip_space_back(code: &[u8], position: usize) -> Option<usize> {
    (0..position).rev().find(|&i| !code[i].is_ascii_whitespace())
}

fn ident_start(code: &[u8], end: usize) -> usize {
    let mut start = end;
    while start > 0 && (code[start - 1].is_ascii_alphanumeric() || code[start - 1] == b'_' || code[start - 1] == b'#') {
        start -= 1;
    }
    start
}

fn matching_open(code: &[u8], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match code[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The service a receiver is a client of: its last segment (`client.sagemaker`), a local bound to one
/// (`let sm = &self.client.sagemaker;`), or the one `aws_sdk_<service>::Client` the file imports.
fn service_of(code: &str, receiver: &str) -> Option<String> {
    let last = receiver.rsplit('.').next().unwrap_or(receiver);
    if SERVICES.contains(&last) {
        return Some(last.to_string());
    }
    let binding = format!("let {last} = ");
    if let Some(at) = code.find(&binding) {
        let rest = &code[at + binding.len()..];
        let expression: String = rest[..rest.find(';')?].chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(service) = SERVICES.iter().find(|s| expression.ends_with(&format!(".{s}"))) {
            return Some(service.to_string());
        }
    }
    let imported: Vec<&str> = SERVICES
        .iter()
        .copied()
        .filter(|s| code.contains(&format!("use aws_sdk_{s}::Client;")))
        .collect();
    match imported.as_slice() {
        [only] => Some(only.to_string()),
        _ => None,
    }
}

/// `text` with comments, string and char literals replaced by spaces (newlines kept, so line numbers hold).
fn blank_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|b| **b == b'#').count();
                if bytes.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1; // a raw identifier (r#type)
                    continue;
                }
                let closing = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                let end = text[body..]
                    .find(&closing)
                    .map_or(bytes.len(), |n| body + n + closing.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(bytes.len()));
                i = j + 1;
            }
            b'\'' => {
                // A char literal ('x', '\n', '"'), not a lifetime ('a).
                let end = if bytes.get(i + 1) == Some(&b'\\') {
                    text[i + 2..].find('\'').map(|n| i + 2 + n + 1)
                } else if bytes.get(i + 2) == Some(&b'\'') {
                    Some(i + 3)
                } else {
                    None
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("reading src/") {
        let path = entry.expect("reading src/").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// `create_compute_quota` and `CreateComputeQuota` compare equal.
fn same_operation(method: &str, operation: &str) -> bool {
    method.replace('_', "").eq_ignore_ascii_case(operation)
}

fn pascal(method: &str) -> String {
    method
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Every SDK call in the provider's and the clients crate's sources, with `<path>:line` for messages.
fn calls_in_src() -> (Vec<(String, SdkCall)>, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    // The provider's own code and the clients crate's: SDK calls are made in both.
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/hyperpod-clients/src"), &mut files);
    files.sort();
    let (mut calls, mut problems) = (Vec::new(), Vec::new());
    for path in files {
        let text = fs::read_to_string(&path).expect("reading a source file");
        let file = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        for call in sdk_calls(&file, &text) {
            match call {
                Ok(call) => calls.push((file.clone(), call)),
                Err(problem) => problems.push(problem),
            }
        }
    }
    (calls, problems)
}

#[test]
fn every_sdk_call_in_src_is_in_the_table() {
    let (calls, mut problems) = calls_in_src();
    assert!(
        calls.len() > 50,
        "the scan found only {} SDK calls; is it still reading src/?",
        calls.len()
    );
    let listed: Vec<Permission> = CALLERS
        .iter()
        .flat_map(Caller::permissions)
        .filter(|p| p.called)
        .collect();
    for (file, call) in &calls {
        let known = listed
            .iter()
            .any(|p| p.service() == call.service && same_operation(&call.method, p.operation()));
        if !known {
            problems.push(format!(
                "{file}:{}: sends {}:{} (`.{}()`), which no caller in src/permissions.rs lists; add it to the \
                 group of every resource that reaches this code",
                call.line,
                call.service,
                pascal(&call.method),
                call.method
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn every_listed_call_is_sent_somewhere() {
    let (calls, _) = calls_in_src();
    let stale: Vec<&str> = all_permissions()
        .into_iter()
        .filter(|p| p.called)
        .filter(|p| {
            !calls
                .iter()
                .any(|(_, call)| call.service == p.service() && same_operation(&call.method, p.operation()))
        })
        .map(|p| p.action)
        .collect();
    assert!(
        stale.is_empty(),
        "src/permissions.rs lists calls no code in src/ sends (remove them, or mark them implied): {stale:?}"
    );
}

#[test]
fn an_implied_permission_names_a_call_of_the_same_caller() {
    for caller in CALLERS {
        let permissions = caller.permissions();
        for permission in &permissions {
            if let Some(by) = permission.implied_by {
                assert!(
                    permissions.iter().any(|p| p.action == by && p.called),
                    "{}: {} is implied by {by}, which {} does not call",
                    caller.name,
                    permission.action,
                    caller.name
                );
            }
        }
    }
}

#[test]
fn the_table_has_every_caller_of_the_provider_and_no_other() {
    let provider = HyperpodProvider::default();
    let mut expected: BTreeSet<(String, Kind)> = BTreeSet::from([("provider".to_string(), Kind::Provider)]);
    expected.extend(
        provider
            .resources()
            .iter()
            .map(|r| (r.type_name().to_string(), Kind::Resource)),
    );
    expected.extend(
        provider
            .data_sources()
            .iter()
            .map(|d| (crate::protocol::caller::data_source(d.type_name()), Kind::DataSource)),
    );
    expected.extend(
        provider
            .functions()
            .iter()
            .map(|f| (f.name().to_string(), Kind::Function)),
    );
    let table: BTreeSet<(String, Kind)> = CALLERS.iter().map(|c| (c.name.to_string(), c.kind)).collect();
    assert_eq!(
        table, expected,
        "src/permissions.rs CALLERS against the provider's resources, data sources, functions"
    );
}

#[test]
fn the_policy_grants_what_aws_checks_and_nothing_aws_allows_everyone() {
    let policy = provider_policy().expect("the provider needs permissions");
    let text = policy.to_string();
    assert!(
        !text.contains("sts:GetCallerIdentity"),
        "GetCallerIdentity needs no permission: {text}"
    );
    let statements = policy["Statement"].as_array().expect("statements");
    let pass_role = statements
        .iter()
        .find(|s| {
            s["Action"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == "iam:PassRole"))
        })
        .expect("iam:PassRole is granted");
    assert_eq!(pass_role["Action"], json!(["iam:PassRole"]));
    assert_eq!(
        pass_role["Condition"],
        json!({ "StringEquals": { "iam:PassedToService": ["pods.eks.amazonaws.com"] } })
    );
    // Functions compute locally: no policy at all.
    assert!(caller("team_namespace").and_then(Caller::policy).is_none());
    assert!(caller("provider").and_then(Caller::policy).is_none());
    let tenant = caller("hyperpod_tenant")
        .and_then(Caller::policy)
        .expect("tenant policy")
        .to_string();
    assert!(tenant.contains("sagemaker:CreateComputeQuota") && tenant.contains("sagemaker:AddTags"));
}

#[test]
fn the_scan_reads_chains_across_lines_comments_and_raw_identifiers() {
    let source = r#"
use aws_sdk_datazone::Client;
async fn f(client: &Client, s: &S) {
    let mut pages = client
        .list_connections()
        // a comment with .send() in it
        .r#type(ConnectionType::Hyperpod)
        .into_paginator()
        .send();
    s.client
        .sagemaker
        .delete_cluster_scheduler_config()
        .cluster_scheduler_config_id(&format!("{}", "x.send()"))
        .send()
        .await;
    let sm = &self.client.sagemaker;
    match sm.describe_cluster().cluster_name(name).send().await {}
    thing.send().await;
}
"#;
    let calls = sdk_calls("f.rs", source);
    let ok: Vec<(usize, &str, &str)> = calls
        .iter()
        .filter_map(|c| c.as_ref().ok())
        .map(|c| (c.line, c.service.as_str(), c.method.as_str()))
        .collect();
    assert_eq!(
        ok,
        [
            (9, "datazone", "list_connections"),
            (14, "sagemaker", "delete_cluster_scheduler_config"),
            (17, "sagemaker", "describe_cluster")
        ]
    );
    let errors: Vec<&String> = calls.iter().filter_map(|c| c.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("f.rs:18: "), "{}", errors[0]);
}
