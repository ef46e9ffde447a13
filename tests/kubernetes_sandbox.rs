//! The Kubernetes layer against the local sandbox: EKS `DescribeCluster`, the bearer token (the sandbox checks its
//! SigV4 signature), and namespace / NetworkPolicy calls. Needs the acceptance-test venv
//! (`acceptance-tests/bootstrap.sh`); skipped without it, except under CI, where a missing venv fails.
#![allow(clippy::unwrap_used, reason = "a test: a panic is its failure, with the message")]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use serde_json::json;
use terraform_provider_hyperpod::aws::config::{AwsSettings, connect};
use terraform_provider_hyperpod::aws::eks::{find_cluster, token};
use terraform_provider_hyperpod::kubernetes::paths::{self, NETWORKING_V1};
use terraform_provider_hyperpod::kubernetes::{KubeClient, KubeError, find_namespace, wait_namespace};

const CLUSTER: &str = "ml-capacity-eks";

struct Sandbox {
    child: Child,
    url: String,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_sandbox() -> Option<Sandbox> {
    let python = PathBuf::from(std::env::var("HOME").unwrap_or_default())
        .join(".cache/terraform-provider-hyperpod/venv/bin/python");
    if !python.exists() {
        let message = format!("{} is missing: run acceptance-tests/bootstrap.sh", python.display());
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("SKIPPED kubernetes_sandbox: {message}");
        return None;
    }
    let mut child = Command::new(&python)
        .args(["-m", "sandbox", "--port", "0"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/acceptance-tests"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the sandbox");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        if stdout.read_line(&mut line).expect("read the sandbox's output") == 0 {
            let _ = child.kill();
            panic!("the sandbox exited before its ready line");
        }
        if let Some(rest) = line.trim().strip_prefix("hyperpod-sandbox ready on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // Keep draining, so a chatty sandbox never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = stdout.read_to_end(&mut sink);
    });
    Some(Sandbox { child, url })
}

#[test]
#[allow(
    unsafe_code,
    reason = "the AWS environment is set before any other thread of this binary reads it"
)]
fn kubernetes_api_of_a_sandbox_eks_cluster() {
    let Some(sandbox) = start_sandbox() else { return };
    // SAFETY: set before any other thread of this test binary reads the environment (the only test here, and the
    // runtime is built afterwards). Keys moto never issued are checked against the secret `testing`.
    unsafe {
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        std::env::set_var("AWS_REGION", "us-west-2");
        std::env::set_var("AWS_ENDPOINT_URL", &sandbox.url);
        std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        std::env::set_var("AWS_CONFIG_FILE", "/nonexistent/aws-config");
        std::env::set_var("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials");
        for name in [
            "AWS_PROFILE",
            "AWS_SESSION_TOKEN",
            "AWS_ENDPOINT_URL_STS",
            "AWS_ENDPOINT_URL_EKS",
        ] {
            std::env::remove_var(name);
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(exercise(&sandbox.url));
}

async fn exercise(aws_url: &str) {
    let client = connect(&AwsSettings::default()).await.expect("connect to the sandbox");
    assert_eq!(client.eks_tokens.sts_endpoint.trim_end_matches('/'), aws_url);

    let missing = find_cluster(&client.eks, "no-such-cluster").await.unwrap_err();
    assert!(missing.is_not_found(), "{missing}");
    let cluster = find_cluster(&client.eks, CLUSTER)
        .await
        .expect("describe the EKS cluster");
    assert!(
        cluster.endpoint.starts_with("https://127.0.0.1:"),
        "{}",
        cluster.endpoint
    );
    assert!(
        cluster.endpoint.ends_with(&format!("/clusters/{CLUSTER}")),
        "{}",
        cluster.endpoint
    );
    assert!(
        cluster
            .certificate_authority_pem
            .contains("-----BEGIN CERTIFICATE-----")
    );
    assert_eq!(cluster.authentication_mode.as_deref(), Some("API_AND_CONFIG_MAP"));

    let bearer = token(&client.eks_tokens, CLUSTER, SystemTime::now()).await.unwrap();
    let kube = KubeClient::new(&cluster.endpoint, &cluster.certificate_authority_pem, &bearer).unwrap();

    // A token signed for another cluster name is refused.
    let foreign = token(&client.eks_tokens, "another-cluster", SystemTime::now())
        .await
        .unwrap();
    let refused = KubeClient::new(&cluster.endpoint, &cluster.certificate_authority_pem, &foreign).unwrap();
    let err = refused.get(&paths::namespace("default")).await.unwrap_err();
    assert!(matches!(err, KubeError::Unauthorized { .. }), "{err}");
    assert_eq!(err.code(), Some(401));

    // Namespaces: create, conflict on re-create, wait, replace (stale resourceVersion is a Conflict), delete.
    let name = "tenant-it";
    assert!(find_namespace(&kube, name).await.unwrap().is_none());
    let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"team": "a"}}});
    let collection = paths::cluster_collection(paths::CORE_V1, "namespaces");
    let created = kube.create(&collection, &body).await.expect("create the namespace");
    let first_version = created["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let again = kube.create(&collection, &body).await.unwrap_err();
    assert!(matches!(again, KubeError::AlreadyExists { .. }), "{again}");

    let (_stop, stop) = tokio::sync::watch::channel(false);
    let active = wait_namespace(&kube, name, Duration::from_secs(30), &stop)
        .await
        .unwrap();
    assert_eq!(active["metadata"]["labels"]["team"], "a");

    let mut changed = created.clone();
    changed["metadata"]["labels"]["team"] = json!("b");
    let replaced = kube.replace(&paths::namespace(name), &changed).await.expect("replace");
    assert_eq!(replaced["metadata"]["labels"]["team"], "b");
    assert_ne!(replaced["metadata"]["resourceVersion"].as_str().unwrap(), first_version);
    let stale = kube.replace(&paths::namespace(name), &changed).await.unwrap_err();
    assert!(matches!(stale, KubeError::Conflict { .. }), "{stale}");

    // A NetworkPolicy in the namespace.
    let policy = json!({
        "apiVersion": NETWORKING_V1, "kind": "NetworkPolicy",
        "metadata": {"name": "deny-ingress", "namespace": name},
        "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
    });
    kube.create(
        &paths::namespaced_collection(NETWORKING_V1, "networkpolicies", name),
        &policy,
    )
    .await
    .expect("create the network policy");
    let path = paths::namespaced(NETWORKING_V1, "networkpolicies", name, "deny-ingress");
    let read = kube.get(&path).await.unwrap().expect("the network policy exists");
    assert_eq!(read["spec"]["policyTypes"], json!(["Ingress"]));
    let invalid = json!({"apiVersion": NETWORKING_V1, "kind": "NetworkPolicy", "metadata": {"name": "Bad_Name"}});
    let err = kube
        .create(
            &paths::namespaced_collection(NETWORKING_V1, "networkpolicies", name),
            &invalid,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, KubeError::Api { code: 422, reason, .. } if reason == "Invalid"),
        "{err}"
    );
    assert!(
        kube.get(&paths::namespaced(NETWORKING_V1, "networkpolicies", name, "absent"))
            .await
            .unwrap()
            .is_none()
    );

    kube.delete(&paths::namespace(name))
        .await
        .expect("delete the namespace");
    kube.delete(&paths::namespace(name))
        .await
        .expect("deleting twice is fine");
    assert!(find_namespace(&kube, name).await.unwrap().is_none());
    assert!(
        kube.get(&path).await.unwrap().is_none(),
        "the namespace's objects go with it"
    );
}
