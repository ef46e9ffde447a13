use super::*;
use crate::examples::{self, *};
use crate::lifecycle::lif_2;
use crate::model::{LiveCluster, LiveInstanceGroup};

fn live() -> ContractLiveFacts {
    contract_live_facts()
}

/// The live facts after p5-training grew to `count` nodes and EKS moved to `version`.
fn grown(count: i64, version: &str) -> ContractLiveFacts {
    let mut facts = live();
    if let Fact::Known(Some(LiveCluster { instance_groups, .. })) = &mut facts.cluster {
        instance_groups[0] = LiveInstanceGroup {
            capacity: capacity("ml.p5.48xlarge", count),
            ..instance_groups[0].clone()
        };
    }
    if let Some(Fact::Known(eks)) = &mut facts.eks {
        eks.version = version.into();
    }
    facts
}

#[test]
fn facts_record_every_group_the_catalog_names() {
    let facts = current_facts(&examples::contract(), &live());
    assert!(facts.unavailable.is_empty());
    let keys: Vec<&str> = facts.values.keys().map(String::as_str).collect();
    for key in [
        "cluster",
        "instance_group/p5-training",
        "orchestrator",
        "project/domain_unit",
        "monitoring/addon",
        "monitoring/node_role/ml-capacity-node-role",
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
    assert!(
        !keys.contains(&"data_classification"),
        "arguments are compared as arguments, not as facts"
    );
    assert_eq!(facts.values["instance_group/p5-training"], "ml.p5.48xlarge × 4");
    assert_eq!(facts.values["orchestrator"], "EKS 1.31");
    assert_eq!(facts.values["project/domain_unit"], "research_unit");
    assert_eq!(
        facts.values["monitoring/node_role/ml-capacity-node-role"],
        "CloudWatchAgentServerPolicy attached"
    );
}

#[test]
fn a_grown_group_and_an_upgraded_orchestrator_are_named_with_the_approval_date() {
    let contract = examples::contract();
    let approved = to_record(&current_facts(&contract, &live()));
    let comparison = compare(&approved, &current_facts(&contract, &grown(8, "1.32")));
    assert_eq!(comparison.changes.len(), 2, "{comparison:?}");
    let text = describe_all(&comparison.changes, date(2026, 11, 21));
    assert_eq!(
        text,
        "instance group p5-training grew 4 → 8; orchestrator EKS 1.31 → EKS 1.32 since approval on 2026-11-21"
    );
    let changed = changed_facts(&comparison.changes);
    assert_eq!(changed["instance_group/p5-training"], "ml.p5.48xlarge × 8");

    let check = lif_2(&contract, Some(&contract), Some(&comparison));
    assert!(check.is_failed());
    assert_eq!(check.findings()[0].path.to_string(), "review.last_reviewed");
    assert!(
        check.findings()[0]
            .observed
            .starts_with("instance group p5-training grew 4 → 8")
    );

    // Re-approval accepts the facts as they are: nothing left to compare.
    let mut reapproved = contract.clone();
    reapproved.review.last_reviewed = date(2026, 12, 1);
    assert!(lif_2(&reapproved, Some(&contract), Some(&comparison)).is_passed());
}

#[test]
fn unchanged_facts_pass_and_unreadable_ones_are_not_checked() {
    let contract = examples::contract();
    let approved = to_record(&current_facts(&contract, &live()));
    let same = compare(&approved, &current_facts(&contract, &live()));
    assert_eq!(same, FactComparison::default());
    assert!(lif_2(&contract, Some(&contract), Some(&same)).is_passed());

    let mut unread = live();
    unread.cluster = Fact::Unavailable("AccessDenied on DescribeCluster".into());
    let unverified = compare(&approved, &current_facts(&contract, &unread));
    assert!(unverified.changes.is_empty());
    assert!(lif_2(&contract, Some(&contract), Some(&unverified)).is_skipped());
}

#[test]
fn a_group_not_recorded_at_approval_is_not_compared() {
    let contract = examples::contract();
    let mut unread = live();
    unread.project = Fact::Unavailable("AccessDenied".into());
    let approved = to_record(&current_facts(&contract, &unread));
    assert!(!approved.contains_key("project/domain_unit"));
    assert!(
        compare(&approved, &current_facts(&contract, &live()))
            .changes
            .is_empty()
    );
}

#[test]
fn a_removed_policy_and_a_removed_group_read_as_such() {
    let contract = examples::contract();
    let approved = to_record(&current_facts(&contract, &live()));
    let mut now = live();
    now.node_roles = Some(node_roles(false));
    if let Fact::Known(Some(cluster)) = &mut now.cluster {
        cluster.instance_groups.clear();
    }
    let comparison = compare(&approved, &current_facts(&contract, &now));
    let described: Vec<String> = comparison.changes.iter().map(describe).collect();
    assert_eq!(
        described,
        [
            "instance group p5-training removed (was ml.p5.48xlarge × 4)",
            "monitoring node role ml-capacity-node-role CloudWatchAgentServerPolicy attached → \
             CloudWatchAgentServerPolicy not attached",
        ]
    );
    assert_eq!(changed_facts(&comparison.changes)["instance_group/p5-training"], ABSENT);
}

#[test]
fn an_argument_change_and_a_fact_change_are_named_together() {
    let contract = examples::contract();
    let approved = to_record(&current_facts(&contract, &live()));
    let mut changed = contract.clone();
    changed.data_classification = "restricted".into();
    let comparison = compare(&approved, &current_facts(&changed, &grown(8, "1.31")));
    let check = lif_2(&changed, Some(&contract), Some(&comparison));
    let observed = &check.findings()[0].observed;
    assert!(
        observed.starts_with("instance group p5-training grew 4 → 8 since approval on"),
        "{observed}"
    );
    assert!(observed.contains("; changed data_classification;"), "{observed}");
}
