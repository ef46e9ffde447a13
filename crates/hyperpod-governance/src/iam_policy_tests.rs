//! Tests of the IAM policy evaluation behind PRJ-2: wildcards, NotAction, Deny, conditions, managed policies.

use super::*;
use serde_json::json;

fn role(policies: Vec<PolicyDocument>) -> RolePermissions {
    RolePermissions {
        role_arn: "arn:aws:iam::111122223333:role/project".into(),
        policies,
    }
}
fn inline(document: Value) -> PolicyDocument {
    PolicyDocument {
        name: "inline".into(),
        managed_arn: None,
        document,
    }
}
fn allow(action: Value) -> Value {
    json!({"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": action, "Resource": "*"}})
}
fn granted(document: Value) -> Vec<&'static str> {
    forbidden_grants(&role(vec![inline(document)]))
        .grants
        .into_iter()
        .flat_map(|grant| grant.actions)
        .collect()
}

#[test]
fn wildcards_match_case_insensitively() {
    assert!(wildcard_match("*", "sagemaker:CreateCluster"));
    assert!(wildcard_match("sagemaker:*", "sagemaker:CreateCluster"));
    assert!(wildcard_match("SageMaker:create*", "sagemaker:CreateCluster"));
    assert!(wildcard_match(
        "sagemaker:*Cluster*",
        "sagemaker:BatchDeleteClusterNodes"
    ));
    assert!(wildcard_match("sagemaker:?reateCluster", "sagemaker:CreateCluster"));
    assert!(wildcard_match("sagemaker:*a*b*", "sagemaker:xaxxbyb"));
    assert!(!wildcard_match("sagemaker:Describe*", "sagemaker:CreateCluster"));
    assert!(!wildcard_match(
        "sagemaker:CreateCluster",
        "sagemaker:CreateClusterExtension"
    ));
    assert!(!wildcard_match("eks:*", "sagemaker:CreateCluster"));
    assert!(!wildcard_match("sagemaker:*Quota", "sagemaker:ListComputeQuotas"));
}

#[test]
fn read_only_policies_grant_nothing_forbidden() {
    let read = allow(json!([
        "sagemaker:Describe*",
        "sagemaker:List*",
        "eks:DescribeCluster",
        "ssm:StartSession"
    ]));
    assert!(granted(read).is_empty());
}

#[test]
fn wildcard_and_listed_actions_are_found() {
    assert_eq!(granted(allow(json!("*"))).len(), forbidden_actions().count());
    assert_eq!(granted(allow(json!("sagemaker:*"))).len(), 22);
    assert_eq!(
        granted(allow(json!("sagemaker:Create*"))),
        [
            "sagemaker:CreateCluster",
            "sagemaker:CreateClusterExtension",
            "sagemaker:CreateComputeQuota",
            "sagemaker:CreateClusterSchedulerConfig"
        ]
    );
    assert_eq!(
        granted(allow(json!(["eks:*", "sagemaker:UpdateClusterSoftware"]))).len(),
        3
    );
    assert!(granted(allow(json!("sagemaker:*Cluster*"))).contains(&"sagemaker:BatchRebootClusterNodes"));
}

#[test]
fn not_action_allows_everything_it_does_not_list() {
    let document =
        json!({"Statement": [{"Effect": "Allow", "NotAction": ["sagemaker:*Cluster*", "eks:*"], "Resource": "*"}]});
    assert_eq!(
        granted(document),
        [
            "sagemaker:CreateComputeQuota",
            "sagemaker:UpdateComputeQuota",
            "sagemaker:DeleteComputeQuota"
        ]
    );
}

#[test]
fn unconditional_all_resource_deny_clears_but_conditional_or_scoped_deny_does_not() {
    let with_deny = |deny: Value| {
        let all = json!({"Sid": "All", "Effect": "Allow", "Action": "sagemaker:*", "Resource": "*"});
        json!({"Statement": [all, deny]})
    };
    let full = with_deny(
        json!({"Effect": "Deny", "Action": ["sagemaker:*Cluster*", "sagemaker:*ComputeQuota"], "Resource": "*"}),
    );
    assert!(granted(full).is_empty());
    let conditional = with_deny(json!({"Effect": "Deny", "Action": "sagemaker:*", "Resource": "*",
        "Condition": {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}}));
    assert_eq!(granted(conditional).len(), 22);
    let scoped =
        with_deny(json!({"Effect": "Deny", "Action": "sagemaker:*", "Resource": "arn:aws:sagemaker:*:*:cluster/x"}));
    assert_eq!(granted(scoped).len(), 22);
    let not_resource = with_deny(json!({"Effect": "Deny", "Action": "sagemaker:*", "NotResource": "arn:aws:s3:::b"}));
    assert_eq!(granted(not_resource).len(), 22);
    // A NotAction Deny denies what it does not list.
    let not_action = with_deny(json!({"Effect": "Deny", "NotAction": "sagemaker:Describe*", "Resource": "*"}));
    assert!(granted(not_action).is_empty());
}

#[test]
fn conditional_and_resource_scoped_allows_still_count() {
    let document = json!({"Statement": {"Effect": "Allow", "Action": "sagemaker:UpdateCluster",
        "Resource": "arn:aws:sagemaker:us-west-2:111122223333:cluster/abc",
        "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}}}});
    assert_eq!(granted(document), ["sagemaker:UpdateCluster"]);
}

#[test]
fn grants_name_policy_and_statement() {
    let evaluation = forbidden_grants(&role(vec![inline(json!({"Statement": [
        {"Effect": "Allow", "Action": "sagemaker:DescribeCluster", "Resource": "*"},
        {"Effect": "Allow", "Action": ["sagemaker:CreateCluster", "sagemaker:DeleteCluster"], "Resource": "*"},
        {"Sid": "Quotas", "Effect": "Allow", "Action": "sagemaker:CreateComputeQuota", "Resource": "*"}]}))]));
    assert_eq!(evaluation.grants.len(), 2);
    assert_eq!(evaluation.grants[0].policy, "inline policy \"inline\"");
    assert_eq!(evaluation.grants[0].statement, "Statement[1]");
    assert_eq!(
        evaluation.grants[0].actions,
        ["sagemaker:CreateCluster", "sagemaker:DeleteCluster"]
    );
    assert_eq!(evaluation.grants[1].statement, "Sid \"Quotas\"");
}

#[test]
fn sagemaker_full_access_is_judged_by_arn_even_unread() {
    let managed = PolicyDocument {
        name: SAGEMAKER_FULL_ACCESS.into(),
        managed_arn: Some("arn:aws:iam::aws:policy/AmazonSageMakerFullAccess".into()),
        document: Value::Null,
    };
    let evaluation = forbidden_grants(&role(vec![managed]));
    assert!(evaluation.unreadable.is_empty());
    assert_eq!(evaluation.grants.len(), 1);
    assert!(evaluation.grants[0].policy.contains("policy/AmazonSageMakerFullAccess"));
    assert_eq!(evaluation.grants[0].actions.len(), 22);
}

#[test]
fn string_documents_parse_and_malformed_ones_are_unreadable() {
    assert_eq!(
        granted(json!(
            r#"{"Statement":{"Effect":"Allow","Action":"sagemaker:DeleteCluster","Resource":"*"}}"#
        ))
        .len(),
        1
    );
    for bad in [
        json!("{not json"),
        json!({"Version": "2012-10-17"}),
        json!({"Statement": {"Effect": "Maybe", "Action": "*"}}),
        json!({"Statement": {"Effect": "Allow"}}),
        json!({"Statement": {"Effect": "Allow", "Action": 3}}),
        json!({"Statement": {"Effect": "Allow", "Action": "*", "NotAction": "x"}}),
    ] {
        let evaluation = forbidden_grants(&role(vec![inline(bad.clone())]));
        assert_eq!(evaluation.unreadable.len(), 1, "{bad}");
    }
    let unread = forbidden_grants(&role(vec![PolicyDocument {
        name: "other".into(),
        managed_arn: Some("arn:aws:iam::111122223333:policy/other".into()),
        document: Value::Null,
    }]));
    assert!(unread.unreadable[0].contains("not read"));
}
