//! The report end to end on small synthetic plans (new schema: `passed_checks`, `not_applicable_checks`,
//! `findings`; handoff arguments null).

use serde_json::{Value, json};

use super::cli::run;
use super::log;
use super::model::{GovernanceReport, Options};
use super::plan;
use super::rules::Status;
use super::verdict::Level;

fn contract(key: &str, project: &str) -> Value {
    json!({
        "address": format!("hyperpod_connection_contract.team[\"{key}\"]"), "type": "hyperpod_connection_contract",
        "mode": "managed", "index": key,
        "change": {"actions": ["create"], "before": null, "after_unknown": {}, "after": {
            "name": format!("{key}-on-ml"), "cluster": {"name": "ml", "orchestrator": "eks"},
            "unified_studio": {"domain_unit_id": "unit1", "project_id": project},
            "project_role_arn": format!("arn:aws:iam::111122223333:role/{key}"), "organization": null,
            "passed_checks": "CON-1 ORG-1 PRJ-2 CLU-1 LIF-1", "not_applicable_checks": null, "findings": null}}
    })
}

fn tenant(team: &str, contract_name: &str, checks: Value, unknown: Value) -> Value {
    let mut after = json!({
        "team": team, "namespace": format!("hyperpod-ns-{team}"), "cluster_name": "ml", "contract": null,
        "tags_all": {"hyperpod:contract": contract_name},
        "quota": [{"instance_type": "ml.p5.48xlarge", "count": 2, "accelerators": null, "vcpu": null,
                   "memory_gib": null}],
        "sharing": {"strategy": "LendAndBorrow", "borrow_limit": 50}, "priority_class": "research",
        "fair_share_weight": 10, "viewer_groups": [format!("{team}-viewers")], "operator_groups": [],
        "viewer_principal_arns": [format!("arn:aws:iam::111122223333:role/{team}-viewers")],
        "operator_principal_arns": [], "slurm": null
    });
    if let (Value::Object(after), Value::Object(checks)) = (&mut after, checks) {
        after.extend(checks);
    }
    json!({
        "address": format!("hyperpod_tenant.{team}"), "type": "hyperpod_tenant", "mode": "managed",
        "change": {"actions": ["create"], "before": null, "after": after, "after_unknown": unknown}
    })
}

fn passing() -> Value {
    json!({"passed_checks": "ORG-2 WKL-1 WKL-3 WKL-8", "not_applicable_checks": "WKL-2", "findings": null})
}

fn plan_json(changes: Vec<Value>, errored: bool) -> String {
    json!({"format_version": "1.2", "terraform_version": "1.15.5", "errored": errored,
           "resource_changes": changes})
    .to_string()
}

fn options() -> Options {
    Options {
        title: "HyperPod governance".into(),
        rules_url: "docs/guides/governance-rules.md".into(),
        version: "0.3.0".into(),
    }
}

fn report(plan_text: &str, log_text: Option<&str>) -> GovernanceReport {
    let plan = plan::parse(plan_text).expect("a plan");
    let diagnostics = log_text.map(|text| log::parse(text).expect("a log"));
    GovernanceReport::build(&plan, diagnostics.as_deref(), options())
}

fn diagnostic(severity: &str, summary: &str, detail: &str, address: &str) -> String {
    json!({"type": "diagnostic", "diagnostic": {"severity": severity, "summary": summary, "detail": detail,
           "address": address}})
    .to_string()
}

#[test]
fn a_plan_whose_every_rule_passes_is_compliant_and_exits_0() {
    let text = plan_json(
        vec![
            contract("research", "p1"),
            tenant("research", "research-on-ml", passing(), json!({})),
        ],
        false,
    );
    let built = report(&text, None);
    assert_eq!(built.verdict.level, Level::Compliant);
    assert_eq!(built.verdict.level.exit_code(), 0);
    assert_eq!(
        built.verdict.summary,
        "✅ Compliant — 1 connection contract, 1 tenant; 9 checks passed; 2 to create, 0 to change, 0 to destroy."
    );
    assert_eq!(built.counts.not_applicable, 1);
}

#[test]
fn warnings_skipped_and_deferred_checks_need_attention_and_exit_2() {
    let warned = json!({"passed_checks": "ORG-2", "not_applicable_checks": null,
        "findings": [{"rule": "WKL-6", "status": "warning", "detail": "fair share is off"},
                     {"rule": "WKL-3", "status": "skipped", "detail": "AccessDenied reading the quotas"}]});
    let report_of =
        |tenant_value: Value| report(&plan_json(vec![contract("research", "p1"), tenant_value], false), None);
    let warned = report_of(tenant("research", "research-on-ml", warned, json!({})));
    assert_eq!(warned.verdict.level, Level::Attention);
    assert_eq!(warned.verdict.level.exit_code(), 2);
    assert!(
        warned.verdict.summary.starts_with("⚠️ Compliant, needs attention — "),
        "{}",
        warned.verdict.summary
    );
    assert!(
        warned
            .verdict
            .summary
            .contains("1 warning (WKL-6), 1 not checked (WKL-3)")
    );

    // All three checklist attributes unknown: every rule of the tenant is judged at apply.
    let unknown = json!({"passed_checks": true, "not_applicable_checks": true, "findings": true});
    let deferred = report_of(tenant("research", "research-on-ml", json!({}), unknown));
    assert_eq!(deferred.verdict.level, Level::Attention);
    assert!(
        deferred
            .resources
            .iter()
            .any(|r| r.deferred && r.address == "hyperpod_tenant.research")
    );
    assert_eq!(deferred.status_of("hyperpod_tenant.research"), Some(Status::Deferred));
    let markdown = super::markdown::render(&deferred);
    assert!(
        markdown.contains("⏳ `hyperpod_tenant.research`: every rule is judged at apply"),
        "{markdown}"
    );

    // An excepted rule is compliant.
    let excepted = json!({"passed_checks": "ORG-2", "not_applicable_checks": null,
        "findings": [{"rule": "WKL-8", "status": "excepted", "detail": "exception (owner a, expires 2027-01-01: x)"}]});
    let excepted = report_of(tenant("research", "research-on-ml", excepted, json!({})));
    assert_eq!(excepted.verdict.level, Level::Compliant, "{}", excepted.verdict.summary);
    assert!(excepted.verdict.summary.contains("6 checks passed, 1 by exception"));
}

#[test]
fn a_failed_rule_or_error_is_not_compliant_and_exits_1() {
    let failed = json!({"passed_checks": "ORG-2", "not_applicable_checks": null,
        "findings": [{"rule": "WKL-8", "status": "failed", "detail": "no default deny"}]});
    let built = report(
        &plan_json(
            vec![
                contract("research", "p1"),
                tenant("research", "research-on-ml", failed, json!({})),
            ],
            false,
        ),
        None,
    );
    assert_eq!(built.verdict.level, Level::NotCompliant);
    assert_eq!(built.verdict.level.exit_code(), 1);
    assert_eq!(
        built.verdict.summary,
        "❌ Not compliant — 1 rule failed (WKL-8) on 1 resource; 2 to create, 0 to change, 0 to destroy."
    );

    // An error diagnostic without a rule fails too; Terraform's own warnings do not weigh.
    let log = [
        diagnostic("warning", "Provider development overrides are in effect", "…", ""),
        diagnostic(
            "error",
            "creating the connection failed",
            "AccessDenied",
            "hyperpod_tenant.research",
        ),
    ]
    .join("\n")
    .replace(r#","address":"""#, "");
    let text = plan_json(
        vec![
            contract("research", "p1"),
            tenant("research", "research-on-ml", passing(), json!({})),
        ],
        false,
    );
    let errored = report(&text, Some(&log));
    assert_eq!(errored.verdict.level, Level::NotCompliant);
    assert_eq!(errored.counts.errors, 1);
    assert_eq!(
        report(&text, log.lines().next()).verdict.level,
        Level::Compliant,
        "Terraform's own warning alone"
    );
}

#[test]
fn an_errored_plan_fails_and_its_log_names_the_resource_that_is_missing_from_the_plan() {
    let text = json!({"format_version": "1.2", "terraform_version": "1.15.5", "errored": true,
        "resource_changes": [contract("research", "p1")],
        "configuration": {"root_module": {"resources": [{"address": "hyperpod_tenant.research", "expressions": {
            "team": {"constant_value": "research"},
            "contract": {"references": ["hyperpod_connection_contract.team[\"research\"].governance",
                                        "hyperpod_connection_contract.team"]}}}]}}})
    .to_string();
    let without_log = report(&text, None);
    assert_eq!(without_log.verdict.level, Level::NotCompliant);
    assert!(
        without_log.verdict.summary.contains("the plan failed; pass --log"),
        "{}",
        without_log.verdict.summary
    );
    let (code, _, _) = run(&["plan.json".to_string()], |_| Ok(text.clone()));
    assert_eq!(code, 1);

    let log = [
        diagnostic(
            "error",
            "[WKL-8] Every EKS tenant namespace has a default-deny NetworkPolicy",
            "network_policy.default_deny: the namespace accepts all traffic",
            "hyperpod_tenant.research",
        ),
        diagnostic(
            "error",
            "[ORG-2] A cross-account target role",
            "workload.target_role_arn: not approved",
            "hyperpod_tenant.research",
        ),
    ]
    .join("\n");
    let with_log = report(&text, Some(&log));
    assert_eq!(
        with_log.verdict.summary,
        "❌ Not compliant — 2 rules failed (ORG-2, WKL-8) on 1 resource; the plan stopped."
    );
    // The tenant only the log names is tied to its contract through the configuration's reference.
    assert_eq!(
        with_log.contracts[0].resources,
        [
            "hyperpod_connection_contract.team[\"research\"]".to_string(),
            "hyperpod_tenant.research".to_string()
        ]
    );
    let tenant = &with_log.tenants[0];
    assert_eq!(
        (tenant.team.as_str(), tenant.planned, tenant.contract),
        ("research", false, Some(0))
    );
    let attention = with_log.attention();
    assert_eq!(attention[0].attribute.as_deref(), Some("workload.target_role_arn"));
    assert_eq!(attention[0].detail, "not approved");
}

#[test]
fn unreadable_input_exits_3() {
    let (code, stdout, stderr) = run(&["-".to_string()], |_| Ok("{\"not\": \"a plan\"}".to_string()));
    assert_eq!((code, stdout.as_str()), (3, ""));
    assert!(stderr.starts_with("report: stdin: no format_version"), "{stderr}");
}

#[test]
fn restriction_tenant_and_binding_are_listed_under_their_contract() {
    let restriction = json!({"address": "hyperpod_task_view_restriction.team[\"b\"]",
        "type": "hyperpod_task_view_restriction", "mode": "managed",
        "change": {"actions": ["create"], "after_unknown": {}, "after": {"cluster_name": "ml",
            "project_role_arn": "arn:aws:iam::111122223333:role/b", "contract": null,
            "passed_checks": "CLU-9 CLU-3", "not_applicable_checks": null, "findings": null}}});
    let binding = json!({"address": "hyperpod_unified_studio_project_binding.team[\"a\"]",
        "type": "hyperpod_unified_studio_project_binding", "mode": "managed",
        "change": {"actions": ["create"], "after_unknown": {}, "after": {"cluster_name": "ml",
            "project_id": "pa", "contract": null, "tenants": null, "task_view_restriction": null,
            "passed_checks": "PRJ-1 PRJ-3", "not_applicable_checks": null,
            "findings": [{"rule": "CLU-2", "status": "warning", "detail": "no restriction"}]}}});
    let text = plan_json(
        vec![
            binding,
            tenant("b", "b-on-ml", passing(), json!({})),
            contract("b", "pb"),
            restriction,
            contract("a", "pa"),
        ],
        false,
    );
    let built = report(&text, None);
    let names: Vec<&str> = built.contracts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a-on-ml", "b-on-ml"], "sorted by name");
    assert_eq!(
        built.contracts[0].resources,
        [
            "hyperpod_connection_contract.team[\"a\"]",
            "hyperpod_unified_studio_project_binding.team[\"a\"]"
        ]
    );
    assert_eq!(
        built.contracts[1].resources,
        [
            "hyperpod_connection_contract.team[\"b\"]",
            "hyperpod_task_view_restriction.team[\"b\"]",
            "hyperpod_tenant.b"
        ]
    );
    let markdown = super::markdown::render(&built);
    // Contract a's cluster row has the binding's CLU-2 warning next to the contract's CLU-1.
    assert!(
        markdown.contains("| Cluster | ✅ [CLU-1][clu-1] ⚠️ [CLU-2][clu-2] |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("\n[clu-2]: docs/guides/governance-rules.md#clu-2\n"),
        "{markdown}"
    );
    assert!(markdown.contains("| ✅ b | hyperpod-ns-b | 2 × ml.p5.48xlarge | LendAndBorrow, borrows ≤ 50 % | research (10) | b-viewers · role/b-viewers | — |"), "{markdown}");
}

#[test]
fn deletes_and_replaces_of_any_type_are_listed_with_their_reason() {
    let gone = json!({"address": "aws_s3_bucket.logs", "type": "aws_s3_bucket", "mode": "managed",
        "action_reason": "delete_because_no_resource_config",
        "change": {"actions": ["delete"], "before": {"bucket": "logs"}, "after": null, "after_unknown": {}}});
    let replaced = json!({"address": "hyperpod_tenant.old", "type": "hyperpod_tenant", "mode": "managed",
        "action_reason": "replace_because_cannot_update",
        "change": {"actions": ["delete", "create"], "before": {}, "after": {"team": "old", "passed_checks": "",
            "not_applicable_checks": null, "findings": null}, "after_unknown": {},
            "replace_paths": [["team"]]}});
    let built = report(&plan_json(vec![replaced, gone], false), None);
    let listed: Vec<(&str, &str, &str)> = built
        .destroyed
        .iter()
        .map(|d| (d.address.as_str(), d.action, d.reason.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            ("aws_s3_bucket.logs", "destroy", "removed from the configuration"),
            ("hyperpod_tenant.old", "replace", "team cannot change in place"),
        ]
    );
    assert_eq!(
        (built.counts.create, built.counts.destroy, built.counts.replace),
        (1, 2, 1)
    );
    let markdown = super::markdown::render(&built);
    assert!(
        markdown.contains("- `aws_s3_bucket.logs` is destroyed: removed from the configuration\n"),
        "{markdown}"
    );

    let nothing = super::markdown::render(&report(&plan_json(vec![], false), None));
    assert!(
        nothing.contains("### Destroyed or replaced\n\nNothing is destroyed or replaced.\n"),
        "{nothing}"
    );
}

#[test]
fn the_report_leads_with_the_verdict_then_the_diagram_and_ends_with_the_footer() {
    let text = plan_json(
        vec![
            contract("research", "p1"),
            tenant("research", "research-on-ml", passing(), json!({})),
        ],
        false,
    );
    let markdown = super::markdown::render(&report(&text, None));
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(lines[0], "## HyperPod governance: compliant");
    assert!(lines[2].starts_with("✅ Compliant — "));
    assert_eq!((lines[4], lines[5]), ("```mermaid", "flowchart LR"));
    assert!(markdown.contains("<sub>terraform-provider-hyperpod report 0.3.0 · Terraform 1.15.5 plan</sub>"));
    assert!(!markdown.contains("### Needs attention"), "omitted when empty");
    for line in markdown.lines().filter(|l| !l.starts_with('|')) {
        assert!(line.chars().count() <= 140, "{line}");
    }
}

#[test]
fn odd_names_cannot_break_the_diagram_or_the_markdown() {
    let odd = "x\"] --> evil[\"`|<b>研究 ü";
    let mut c = contract("a", "p1");
    c["change"]["after"]["name"] = json!(odd);
    let mut t = tenant("t", odd, passing(), json!({}));
    t["change"]["after"]["team"] = json!(odd);
    let built = report(&plan_json(vec![c, t], false), None);
    let diagram = super::mermaid::diagram(&built);
    for line in diagram.lines().skip(1) {
        let line = line.trim();
        // Every node line is `nN["…"]` with no quote, bracket, pipe or backtick inside the label.
        if let Some(label) = line.split_once("[\"").map(|(_, rest)| rest) {
            let label = label.strip_suffix("\"]").expect("a closed label");
            for forbidden in ['"', '[', ']', '|', '`', '<', '>'] {
                assert!(!label.replace("<br/>", "").contains(forbidden), "{line}");
            }
            assert!(
                line.starts_with('n')
                    && line[1..]
                        .split('[')
                        .next()
                        .is_some_and(|id| id.chars().all(|c| c.is_ascii_digit()))
            );
        }
    }
    assert!(diagram.contains("研究 ü"), "unicode is kept: {diagram}");
    let markdown = super::markdown::render(&built);
    assert!(!markdown.contains("<b>"), "{markdown}");
    assert_eq!(
        markdown.matches("```").count(),
        2,
        "only the diagram's fence: {markdown}"
    );
}

#[test]
fn output_is_deterministic_whatever_the_order_of_resources() {
    let changes = vec![
        contract("b", "pb"),
        tenant("b", "b-on-ml", passing(), json!({})),
        contract("a", "pa"),
        tenant("a", "a-on-ml", passing(), json!({})),
    ];
    let mut reversed = changes.clone();
    reversed.reverse();
    let one = report(&plan_json(changes, false), None);
    let other = report(&plan_json(reversed, false), None);
    assert_eq!(super::markdown::render(&one), super::markdown::render(&other));
    assert_eq!(super::json::render(&one), super::json::render(&other));
}

#[test]
fn json_output_carries_the_verdict_exit_code_and_layers() {
    let failed = json!({"passed_checks": "ORG-2", "not_applicable_checks": null,
        "findings": [{"rule": "WKL-8", "status": "failed", "detail": "no default deny"}]});
    let text = plan_json(
        vec![
            contract("research", "p1"),
            tenant("research", "research-on-ml", failed, json!({})),
        ],
        false,
    );
    let (code, stdout, _) = run(&["--format".into(), "json".into(), "p".into()], |_| Ok(text.clone()));
    assert_eq!(code, 1);
    let document: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(document["verdict"]["status"], "not_compliant");
    assert_eq!(document["verdict"]["exit_code"], 1);
    let workload = &document["contracts"][0]["layers"]["workload"];
    assert_eq!(workload[0]["rule"], "WKL-8");
    assert_eq!(workload[0]["status"], "failed");
    assert_eq!(workload[0]["address"], "hyperpod_tenant.research");
    assert_eq!(workload[0]["title"], hyperpod_governance::catalog::RuleId::Wkl8.title());
    assert!(
        workload[0]["link"]
            .as_str()
            .is_some_and(|l| l.ends_with("governance-rules#wkl-8"))
    );
    assert!(
        document["mermaid"]
            .as_str()
            .is_some_and(|m| m.starts_with("flowchart LR"))
    );
    let keys: Vec<&String> = document.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(keys.len(), 10, "{keys:?}");
}

#[test]
fn a_plan_of_a_provider_before_0_3_is_read_from_its_checks_list() {
    let old = json!({"checks": [
        {"rule": "ORG-2", "status": "passed", "detail": "no cross-account role"},
        {"rule": "WKL-2", "status": "not_applicable", "detail": "EKS"},
        {"rule": "WKL-8", "status": "passed", "detail": "passed with exception (owner a, expires 2027-01-01: x)"},
        {"rule": "WKL-6", "status": "warning", "detail": "fair share is off"}]});
    let mut t = tenant("research", "research-on-ml", old, json!({}));
    for name in ["passed_checks", "not_applicable_checks", "findings"] {
        if let Some(after) = t["change"]["after"].as_object_mut() {
            after.remove(name);
        }
    }
    let built = report(&plan_json(vec![contract("research", "p1"), t.clone()], false), None);
    let statuses: Vec<(&str, Status)> = built
        .results
        .iter()
        .filter(|r| r.address == "hyperpod_tenant.research")
        .map(|r| (r.rule.id(), r.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("ORG-2", Status::Passed),
            ("WKL-2", Status::NotApplicable),
            ("WKL-6", Status::Warning),
            ("WKL-8", Status::Excepted)
        ]
    );
    // A row whose status waits for apply: the resource is judged at apply.
    t["change"]["after_unknown"] = json!({"checks": [{}, {}, {"status": true, "detail": true}, {}]});
    let deferred = report(&plan_json(vec![contract("research", "p1"), t], false), None);
    assert!(
        deferred
            .resources
            .iter()
            .any(|r| r.deferred && r.address == "hyperpod_tenant.research")
    );
}
