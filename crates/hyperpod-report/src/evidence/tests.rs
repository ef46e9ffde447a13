//! The evidence of hand-made states: a module, attributes missing, a contract with no dependents, approved facts
//! recorded or not, the exit codes, and one document per contract.

use serde_json::{Value, json};

use super::cli::{EvidenceOutcome, file_names, run};
use super::model::Evidence;
use super::state::parse;
use crate::model::Options;
use crate::verdict::Level;

const ACCOUNT: &str = "111122223333";
const ROLE: &str = "arn:aws:iam::111122223333:role/datazone_usr_role_p1";

fn resource(address: &str, kind: &str, values: Value) -> Value {
    json!({"address": address, "mode": "managed", "type": kind, "name": "x", "provider_name": "x", "values": values})
}

fn state(root: Vec<Value>, modules: Vec<(&str, Vec<Value>)>) -> String {
    state_value(root, modules).to_string()
}

fn state_value(root: Vec<Value>, modules: Vec<(&str, Vec<Value>)>) -> Value {
    let children: Vec<Value> = modules
        .into_iter()
        .map(|(address, resources)| json!({"address": address, "resources": resources}))
        .collect();
    json!({"format_version": "1.0", "terraform_version": "1.15.5",
           "values": {"root_module": {"resources": root, "child_modules": children}}})
}

fn contract(name: &str, project: &str, role: &str) -> Value {
    json!({
        "id": name, "name": name,
        "owners": {"business": "head@example.com", "operations": "oncall@example.com", "cost": "finance@example.com"},
        "unified_studio": {"domain_id": "dzd_1", "domain_unit_id": "du_1", "project_id": project},
        "cluster": {"account_id": ACCOUNT, "region": "us-west-2", "name": "ml", "orchestrator": "eks"},
        "project_role_arn": role,
        "access_role_arn": "arn:aws:iam::111122223333:role/access",
        "lifecycle_state": "approved",
        "review": {"interval_days": 90, "last_reviewed": "2026-01-01", "approved_by": "security@example.com"},
        "review_status": "current", "next_review_date": "2026-04-01",
        "passed_checks": "CON-1 PRJ-2", "not_applicable_checks": "CLU-7", "findings": [],
        "exception": [{"rule": "WKL-8", "owner": "leads@example.com", "expires": "2026-06-01", "reason": "migration"}],
        "organization": null,
    })
}

fn tenant(contract: &str) -> Value {
    json!({
        "cluster_name": "ml", "namespace": "hyperpod-ns-research", "tags_all": {"hyperpod:contract": contract},
        "contract": null,
        "compute_quota_arn": "arn:aws:sagemaker:us-west-2:111122223333:compute-quota/q-1",
        "components": {
            "iam_role": "hyperpod-ml-research",
            "iam_policy/hyperpod-tenant-data": "hyperpod-ml-research",
            "compute_quota": "q-1",
            "pod_identity_association": "a-1",
            "kubernetes/Role/hyperpod-tenant-viewer": "hyperpod-ns-research@1a2b3c4d",
            "access_entry/arn:aws:iam::111122223333:role/viewers": "AmazonEKSViewPolicy@1a2b3c4d",
            "kms_grant/arn:aws:kms:us-west-2:111122223333:key/k-1": "g-1",
        },
        "passed_checks": "WKL-1", "not_applicable_checks": "",
        "findings": [{"rule": "WKL-8", "status": "excepted", "detail": "default deny off by exception"}],
    })
}

fn restriction(role: &str) -> Value {
    json!({
        "cluster_name": "ml", "project_role_arn": role, "contract": null,
        "components": {
            "access_entry": role,
            "access_policy/AmazonSagemakerHyperpodTrainingPolicy": "namespace:hyperpod-ns-research",
            "kubernetes/ClusterRole/-/hyperpod-studio-probes": "1a2b3c4d",
            "kubernetes/Role/hyperpod-ns-research/hyperpod-studio-viewer": "1a2b3c4d",
        },
        "passed_checks": "CLU-2", "not_applicable_checks": "", "findings": [],
    })
}

fn binding(project: &str) -> Value {
    json!({"cluster_name": "ml", "project_id": project, "connection_id": "conn-1", "environment_id": "env-1",
           "contract": null, "passed_checks": "CLU-2 WKL-1", "not_applicable_checks": "", "findings": []})
}

fn grant() -> Value {
    json!({"domain_id": "dzd_1", "domain_unit_id": "du_1", "grant_id": "grant-1", "passed_checks": "ORG-1",
           "not_applicable_checks": "", "findings": []})
}

fn options() -> Options {
    Options {
        title: "HyperPod governance evidence".into(),
        rules_url: "docs/guides/governance-rules.md".into(),
        version: "0.0.0-test".into(),
    }
}

fn evidence_of(text: &str) -> Evidence {
    Evidence::build(&parse(text).expect("a state"), options())
}

/// The quickstart's shape: a root contract with its tenant, restriction and binding; a second contract in a module
/// with only a binding; the grant both rest on.
fn two_contracts() -> String {
    two_contracts_value().to_string()
}

fn two_contracts_value() -> Value {
    let other_role = "arn:aws:iam::111122223333:role/datazone_usr_role_p2";
    state_value(
        vec![
            resource(
                "hyperpod_connection_contract.research",
                "hyperpod_connection_contract",
                contract("research-on-ml", "p1", ROLE),
            ),
            resource("hyperpod_tenant.research", "hyperpod_tenant", tenant("research-on-ml")),
            resource(
                "hyperpod_task_view_restriction.research",
                "hyperpod_task_view_restriction",
                restriction(ROLE),
            ),
            resource(
                "hyperpod_unified_studio_project_binding.research",
                "hyperpod_unified_studio_project_binding",
                binding("p1"),
            ),
            resource(
                "hyperpod_domain_unit_policy_grant.projects",
                "hyperpod_domain_unit_policy_grant",
                grant(),
            ),
            resource("data.hyperpod_cluster.ml", "hyperpod_cluster", json!({"name": "ml"}))
                .as_object()
                .map(|o| {
                    let mut o = o.clone();
                    o.insert("mode".into(), json!("data"));
                    Value::Object(o)
                })
                .unwrap_or_default(),
        ],
        vec![(
            "module.production",
            vec![
                resource(
                    "module.production.hyperpod_connection_contract.this",
                    "hyperpod_connection_contract",
                    contract("production-on-ml", "p2", other_role),
                ),
                resource(
                    "module.production.hyperpod_unified_studio_project_binding.this",
                    "hyperpod_unified_studio_project_binding",
                    binding("p2"),
                ),
            ],
        )],
    )
}

#[test]
fn each_contract_gets_the_resources_it_governs_in_the_root_module_and_in_modules() {
    let evidence = evidence_of(&two_contracts());
    let names: Vec<&str> = evidence.contracts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["production-on-ml", "research-on-ml"], "by name");
    let members = |i: usize| -> Vec<&str> {
        evidence.contracts[i]
            .resources
            .iter()
            .map(|m| m.address.as_str())
            .collect()
    };
    assert_eq!(
        members(0),
        [
            "module.production.hyperpod_connection_contract.this",
            "hyperpod_domain_unit_policy_grant.projects",
            "module.production.hyperpod_unified_studio_project_binding.this",
        ]
    );
    assert_eq!(
        members(1),
        [
            "hyperpod_connection_contract.research",
            "hyperpod_domain_unit_policy_grant.projects",
            "hyperpod_task_view_restriction.research",
            "hyperpod_tenant.research",
            "hyperpod_unified_studio_project_binding.research",
        ]
    );
    let research = &evidence.contracts[1];
    assert_eq!(research.owners.business.as_deref(), Some("head@example.com"));
    assert_eq!(research.review.interval_days.as_deref(), Some("90"));
    assert_eq!(research.review.approved_by.as_deref(), Some("security@example.com"));
    assert_eq!(research.exceptions[0].rule, "WKL-8");
    // Every rule's verdict, by rule then address, from the contract and each governed resource.
    let rules: Vec<(String, &str, &str)> = research
        .results
        .iter()
        .map(|r| (r.rule.id().to_string(), r.status.key(), r.address.as_str()))
        .collect();
    assert!(rules.contains(&("ORG-1".into(), "passed", "hyperpod_domain_unit_policy_grant.projects")));
    assert!(rules.contains(&("WKL-8".into(), "excepted", "hyperpod_tenant.research")));
    assert!(rules.contains(&(
        "CLU-7".into(),
        "not_applicable",
        "hyperpod_connection_contract.research"
    )));
    assert!(rules.contains(&("CLU-2".into(), "passed", "hyperpod_task_view_restriction.research")));
    assert!(rules.contains(&(
        "CLU-2".into(),
        "passed",
        "hyperpod_unified_studio_project_binding.research"
    )));
    let mut sorted = research.results.clone();
    sorted.sort_by(|a, b| (&a.rule, &a.address).cmp(&(&b.rule, &b.address)));
    assert_eq!(sorted, research.results);
    assert_eq!(evidence.level, Level::Compliant, "{}", evidence.summary);
    assert!(
        evidence.summary.starts_with("✅ Current — 2 connection contracts"),
        "{}",
        evidence.summary
    );
}

#[test]
fn every_composed_object_gets_its_arn_or_its_api_path() {
    use super::components::Locator::*;
    let evidence = evidence_of(&two_contracts());
    let located: Vec<(String, String, super::components::Locator)> = evidence.contracts[1]
        .components
        .iter()
        .map(|c| (c.address.clone(), c.key.clone(), c.locator.clone()))
        .collect();
    let at = |address: &str, key: &str| {
        located
            .iter()
            .find(|(a, k, _)| a == address && k == key)
            .map_or_else(|| panic!("no {address} {key} in {located:#?}"), |(_, _, l)| l.clone())
    };
    let tenant = "hyperpod_tenant.research";
    assert_eq!(
        at(tenant, "iam_role"),
        Arn(format!("arn:aws:iam::{ACCOUNT}:role/hyperpod-ml-research"))
    );
    assert_eq!(
        at(tenant, "iam_policy/hyperpod-tenant-data"),
        On(format!("arn:aws:iam::{ACCOUNT}:role/hyperpod-ml-research"))
    );
    assert_eq!(
        at(tenant, "compute_quota"),
        Arn(format!("arn:aws:sagemaker:us-west-2:{ACCOUNT}:compute-quota/q-1"))
    );
    assert_eq!(
        at(tenant, "pod_identity_association"),
        Arn(format!("arn:aws:eks:us-west-2:{ACCOUNT}:podidentityassociation/ml/a-1"))
    );
    assert_eq!(
        at(tenant, "kubernetes/Role/hyperpod-tenant-viewer"),
        ApiPath(
            "/apis/rbac.authorization.k8s.io/v1/namespaces/hyperpod-ns-research/roles/hyperpod-tenant-viewer".into()
        )
    );
    assert_eq!(
        at(tenant, "kms_grant/arn:aws:kms:us-west-2:111122223333:key/k-1"),
        On("arn:aws:kms:us-west-2:111122223333:key/k-1".into())
    );
    assert!(matches!(
        at(tenant, "access_entry/arn:aws:iam::111122223333:role/viewers"),
        Unlocated(_)
    ));
    let restriction = "hyperpod_task_view_restriction.research";
    assert_eq!(
        at(restriction, "kubernetes/ClusterRole/-/hyperpod-studio-probes"),
        ApiPath("/apis/rbac.authorization.k8s.io/v1/clusterroles/hyperpod-studio-probes".into())
    );
    assert_eq!(
        at(restriction, "access_policy/AmazonSagemakerHyperpodTrainingPolicy"),
        On("arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy".into())
    );
    assert!(matches!(
        at("hyperpod_unified_studio_project_binding.research", "connection_id"),
        Unlocated(_)
    ));
    assert!(matches!(
        at("hyperpod_domain_unit_policy_grant.projects", "grant_id"),
        Unlocated(_)
    ));

    // The partition is the account's: a GovCloud role ARN makes every ARN a GovCloud one.
    let gov = two_contracts()
        .replace(
            "arn:aws:iam::111122223333:role/datazone_usr_role_p1",
            "arn:aws-us-gov:iam::111122223333:role/datazone_usr_role_p1",
        )
        .replace("us-west-2", "us-gov-west-1");
    let gov = evidence_of(&gov);
    let role = gov.contracts[1]
        .components
        .iter()
        .find(|c| c.key == "iam_role")
        .map(|c| c.locator.clone());
    assert_eq!(
        role,
        Some(Arn(format!("arn:aws-us-gov:iam::{ACCOUNT}:role/hyperpod-ml-research")))
    );

    let markdown = super::markdown::render(&evidence);
    assert!(
        markdown.contains(
            "| `iam_role` | IAM role | `hyperpod-ml-research` | `arn:aws:iam::111122223333:role/hyperpod-ml-research` |"
        ),
        "{markdown}"
    );
    assert!(markdown.contains("A Kubernetes object has no ARN: its path on the cluster's API server stands in."));
}

#[test]
fn a_contract_with_no_dependents_and_attributes_missing_still_has_its_evidence() {
    let text = state(
        vec![resource(
            "hyperpod_connection_contract.bare",
            "hyperpod_connection_contract",
            json!({"name": "bare", "cluster": null, "review": [], "findings": null}),
        )],
        vec![],
    );
    let evidence = evidence_of(&text);
    let bare = &evidence.contracts[0];
    assert_eq!(bare.resources.len(), 1);
    assert!(bare.components.is_empty() && bare.results.is_empty() && bare.facts.is_none());
    assert_eq!(bare.owners.business, None);
    // Nothing says it is current: it needs a look, it is not failed.
    assert_eq!(bare.level, Level::Attention);
    assert_eq!(bare.reasons, ["no review status recorded"]);
    let markdown = super::markdown::render(&evidence);
    for says in [
        "| business owner | — |",
        "State records no rule verdict for this contract or the resources it governs.",
        "State records no composed object for the resources this contract governs.",
        "Approved facts: not recorded (state written before approved facts were recorded).",
    ] {
        assert!(markdown.contains(says), "{says}\n{markdown}");
    }
    let json: Value = serde_json::from_str(&super::json::render(&evidence)).expect("JSON");
    assert_eq!(json["contracts"][0]["owners"]["business"], Value::Null);
    assert_eq!(json["contracts"][0]["facts"]["recorded"], false);
    assert_eq!(json["evidence"]["exit_code"], 2);

    // An empty state: no contract, nothing to flag.
    let empty = evidence_of(r#"{"format_version":"1.0"}"#);
    assert_eq!((empty.contracts.len(), empty.level), (0, Level::Compliant));
}

#[test]
fn approved_facts_show_their_current_values_and_a_change_needs_attention() {
    let with = |facts: Value| {
        let mut values = contract("research-on-ml", "p1", ROLE);
        for (key, value) in facts.as_object().cloned().unwrap_or_default() {
            values[key] = value;
        }
        evidence_of(&state(
            vec![resource(
                "hyperpod_connection_contract.r",
                "hyperpod_connection_contract",
                values,
            )],
            vec![],
        ))
    };
    let unchanged = with(json!({
        "approved_facts": {"instance_group/p5": "ml.p5.48xlarge × 8", "orchestrator": "EKS 1.31"},
        "changed_facts": {},
    }));
    let facts = unchanged.contracts[0].facts.clone().expect("recorded");
    assert_eq!(facts.len(), 2);
    assert!(
        facts
            .iter()
            .all(|f| !f.changed && Some(&f.current) == f.approved.as_ref())
    );
    assert_eq!(unchanged.level, Level::Compliant);

    let changed = with(json!({
        "approved_facts": {"instance_group/p5": "ml.p5.48xlarge × 8", "orchestrator": "EKS 1.31"},
        "changed_facts": {"instance_group/p5": "ml.p5.48xlarge × 4", "eks_endpoint": "public"},
    }));
    let facts = changed.contracts[0].facts.clone().expect("recorded");
    let fact = |key: &str| facts.iter().find(|f| f.key == key).cloned().expect(key);
    assert_eq!(fact("instance_group/p5").current, "ml.p5.48xlarge × 4");
    assert!(fact("instance_group/p5").changed);
    assert_eq!(fact("orchestrator").current, "EKS 1.31");
    assert!(!fact("orchestrator").changed);
    assert_eq!(
        (fact("eks_endpoint").approved, fact("eks_endpoint").changed),
        (None, true)
    );
    assert_eq!(changed.level, Level::Attention);
    assert_eq!(changed.contracts[0].reasons, ["2 facts changed since approval"]);
    let markdown = super::markdown::render(&changed);
    assert!(
        markdown.contains("| `instance_group/p5` | ml.p5.48xlarge × 8 | ⚠️ ml.p5.48xlarge × 4 (changed) |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| `eks_endpoint` | not recorded | ⚠️ public (changed) |"),
        "{markdown}"
    );
    let json: Value = serde_json::from_str(&super::json::render(&changed)).expect("JSON");
    assert_eq!(json["contracts"][0]["facts"]["items"][1]["fact"], "instance_group/p5");
    assert_eq!(
        json["contracts"][0]["facts"]["items"][1]["approved"],
        "ml.p5.48xlarge × 8"
    );
    assert_eq!(
        json["contracts"][0]["facts"]["items"][1]["current"],
        "ml.p5.48xlarge × 4"
    );

    // A state written before the attributes existed.
    let absent = with(json!({}));
    assert_eq!(absent.contracts[0].facts, None);
    assert_eq!(absent.level, Level::Compliant, "not recorded is not a change");
}

fn invoke(arguments: &[&str], text: &str) -> EvidenceOutcome {
    let arguments: Vec<String> = arguments.iter().map(std::string::ToString::to_string).collect();
    let text = text.to_string();
    run(&arguments, move |file| match file {
        "state.json" | "-" => Ok(text.clone()),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "No such file or directory",
        )),
    })
}

#[test]
fn the_exit_code_says_current_failed_or_needs_attention() {
    assert_eq!(invoke(&["state.json"], &two_contracts()).code, 0);
    // The root module's resources: [0] the contract, [1] its tenant.
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut state = two_contracts_value();
        edit(&mut state["values"]["root_module"]["resources"]);
        state.to_string()
    };
    let failed = edited(&|resources: &mut Value| resources[1]["values"]["findings"][0]["status"] = json!("failed"));
    let outcome = invoke(&["--format", "json", "state.json"], &failed);
    assert_eq!(outcome.code, 1, "{}", outcome.stdout);
    let json: Value = serde_json::from_str(&outcome.stdout).expect("JSON");
    assert_eq!(json["evidence"]["status"], "not_compliant");
    assert_eq!(json["contracts"][1]["reasons"][0], "1 rule verdict failed");
    let overdue = edited(&|resources: &mut Value| resources[0]["values"]["review_status"] = json!("overdue"));
    assert_eq!(invoke(&["state.json"], &overdue).code, 2);
    let warned = edited(&|resources: &mut Value| resources[1]["values"]["findings"][0]["status"] = json!("warning"));
    assert_eq!(invoke(&["-"], &warned).code, 2);

    for (arguments, text, says) in [
        (vec!["missing.json"], "", "missing.json: cannot read it"),
        (vec!["state.json"], "{", "state.json: not JSON"),
        (
            vec!["state.json"],
            r#"{"format_version":"1.2","resource_changes":[]}"#,
            "this is a plan",
        ),
        (
            vec!["state.json"],
            r#"{"format_version":"1.0","values":{"root_module":{"resources":{}}}}"#,
            "values.root_module.resources is not a list",
        ),
        (vec!["--bogus", "state.json"], "", "unknown option --bogus"),
        (vec![], "", "STATE_JSON is missing"),
        (vec!["--out-dir"], "", "--out-dir needs a value"),
    ] {
        let outcome = invoke(&arguments, text);
        assert_eq!((outcome.code, outcome.stdout.as_str()), (3, ""), "{arguments:?}");
        assert!(outcome.stderr.contains(says), "{arguments:?}: {}", outcome.stderr);
    }
    let help = invoke(&["--help"], "");
    assert_eq!(help.code, 0);
    assert!(
        help.stdout
            .starts_with("Usage: terraform-provider-hyperpod report evidence")
    );
}

#[test]
fn out_dir_writes_a_document_per_contract_with_what_stdout_shows_of_it() {
    let text = two_contracts();
    for (format, extension) in [("json", "json"), ("markdown", "md")] {
        let all = invoke(&["--format", format, "state.json"], &text);
        let each = invoke(&["--format", format, "--out-dir", "out/evidence", "state.json"], &text);
        assert_eq!(each.code, all.code);
        let paths: Vec<String> = each.files.iter().map(|(path, _)| path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                format!("out/evidence/production-on-ml.{extension}"),
                format!("out/evidence/research-on-ml.{extension}")
            ]
        );
        assert_eq!(each.stdout, format!("{}\n", paths.join("\n")));
        if format == "json" {
            let all: Value = serde_json::from_str(&all.stdout).expect("JSON");
            for (index, (_, content)) in each.files.iter().enumerate() {
                let one: Value = serde_json::from_str(content).expect("JSON");
                assert_eq!(one["contracts"].as_array().map(Vec::len), Some(1));
                assert_eq!(one["contracts"][0], all["contracts"][index]);
            }
        } else {
            for (_, content) in &each.files {
                let section = content
                    .split_once("\n## ")
                    .map(|(_, rest)| rest.split_once("\n<sub>").map_or(rest, |(section, _)| section))
                    .expect("a contract section");
                assert!(all.stdout.contains(section), "{section}");
            }
        }
    }
    assert_eq!(
        file_names(["a", "../etc/passwd", "a", "", ".hidden"].into_iter()),
        ["a", "-..-etc-passwd", "a-2", "-", "-.hidden"]
    );
}

#[test]
fn rule_ids_link_to_their_section_of_the_rules_guide() {
    let markdown = super::markdown::render(&evidence_of(&two_contracts()));
    assert!(markdown.contains("| [ORG-1][org-1] "), "{markdown}");
    assert!(
        markdown.contains("\n[org-1]: docs/guides/governance-rules.md#org-1\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- [WKL-8][wkl-8] owned by leads@example.com until 2026-06-01: migration"),
        "{markdown}"
    );
}
