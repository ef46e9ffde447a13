//! Fixtures for the rules' unit tests: one valid EKS contract and the tenant, binding and cluster view that agree
//! with it. Each test breaks exactly the fact its rule judges.

use time::{Date, Month};

use super::model::*;

pub const CAPACITY_ACCOUNT: &str = "111122223333";
pub const DATA_ACCOUNT: &str = "444455556666";
pub const PROJECT_ROLE: &str = "arn:aws:iam::111122223333:role/datazone_usr_role_abc123";
pub const ACCESS_ROLE: &str = "arn:aws:iam::111122223333:role/hyperpod-connection";
pub const WORKLOAD_ROLE: &str = "arn:aws:iam::111122223333:role/research-workload";
pub const TARGET_ROLE: &str = "arn:aws:iam::444455556666:role/research-data";

pub fn date(year: i32, month: u8, day: u8) -> Date {
    Date::from_calendar_date(year, Month::try_from(month).expect("month"), day).expect("date")
}

/// The day the tests run on: 30 days after the fixture's last review (interval 90: current).
pub fn today() -> Date {
    date(2026, 6, 1)
}

pub fn contract() -> Contract {
    Contract {
        name: "research-on-ml-capacity".into(),
        owners: Owners {
            business: "head-of-research".into(),
            operations: "ml-platform-oncall".into(),
            cost: "research-finance".into(),
        },
        unified_studio: UnifiedStudio {
            domain_id: Some("dzd_abc123".into()),
            domain_unit_id: Some("research_unit".into()),
            project_id: Some("prj-research".into()),
        },
        cluster: ClusterRef {
            account_id: CAPACITY_ACCOUNT.into(),
            region: "us-west-2".into(),
            name: "ml-capacity".into(),
            orchestrator: Orchestrator::Eks,
        },
        project_role_arn: Some(PROJECT_ROLE.into()),
        access_role_arn: Some(ACCESS_ROLE.into()),
        approved_workload_types: vec!["training".into(), "interactive".into()],
        data_classification: "internal".into(),
        eks_namespaces: vec!["hyperpod-ns-research".into()],
        slurm: SlurmScope::default(),
        scheduling: Scheduling {
            policy: "borrow idle capacity at low priority".into(),
            exception_owner: "ml-platform-lead".into(),
        },
        monitoring: vec![Signal {
            name: "team-utilization".into(),
            owner: "ml-platform-oncall".into(),
            response: "rebalance quotas at the monthly review".into(),
        }],
        support: "#ml-platform".into(),
        decommission: "delete tenants, then the binding; archive data for 90 days".into(),
        approved_account_ids: vec![DATA_ACCOUNT.into()],
        approved_public_cidrs: vec!["203.0.113.0/24".into()],
        review: Review {
            interval_days: 90,
            last_reviewed: date(2026, 5, 2),
            approved_by: "arn:aws:iam::111122223333:role/governance-board".into(),
        },
        lifecycle: LifecycleState::Approved,
        exceptions: Vec::new(),
    }
}

pub fn slurm_contract() -> Contract {
    let mut contract = contract();
    contract.cluster.orchestrator = Orchestrator::Slurm;
    contract.eks_namespaces.clear();
    contract.slurm = SlurmScope {
        accounts: vec!["research".into()],
        partitions: vec!["gpu".into()],
    };
    contract
}

pub fn tenant() -> Tenant {
    Tenant {
        team: "research".into(),
        namespace: Tenant::namespace_for("research"),
        orchestrator: Orchestrator::Eks,
        quota: vec![Capacity {
            instance_type: "ml.p5.48xlarge".into(),
            count: 2,
        }],
        sharing: Some(Sharing {
            strategy: SharingStrategy::LendAndBorrow,
            borrow_limit: Some(50),
        }),
        priority_class: Some("research".into()),
        fair_share_weight: Some(10),
        viewer_groups: vec!["research-viewers".into()],
        operator_groups: vec!["research-operators".into()],
        viewer_verbs: vec!["get".into(), "list".into(), "watch".into()],
        operator_verbs: vec!["create".into(), "delete".into(), "patch".into()],
        default_deny_network_policy: true,
        workload_role_arn: Some(WORKLOAD_ROLE.into()),
        target_role_arn: Setting::Set(TARGET_ROLE.into()),
        pod_identity: PodIdentity::default(),
        data_grants: DataGrants {
            buckets: vec!["research-data".into()],
            kms_keys: vec!["arn:aws:kms:us-west-2:444455556666:key/1234abcd".into()],
            grantee_role_arn: Some(TARGET_ROLE.into()),
        },
    }
}

pub fn slurm_tenant() -> Tenant {
    Tenant {
        orchestrator: Orchestrator::Slurm,
        sharing: None,
        ..tenant()
    }
}

pub fn binding() -> Binding {
    Binding {
        project_id: Some("prj-research".into()),
        cluster_name: "ml-capacity".into(),
        project_role_arn: Some(PROJECT_ROLE.into()),
        members: vec![Member {
            kind: MemberKind::Group,
            name: "research-scientists".into(),
            designation: "PROJECT_CONTRIBUTOR".into(),
        }],
    }
}

pub fn capacity(instance_type: &str, count: i64) -> Capacity {
    Capacity {
        instance_type: instance_type.into(),
        count,
    }
}

pub fn policy(classes: &[&str], fair_share: bool) -> SchedulingPolicy {
    SchedulingPolicy {
        priority_classes: classes.iter().map(|c| c.to_string()).collect(),
        fair_share,
    }
}

/// A cluster with four p5 nodes, where a `platform` team already lends two; the fixture tenant is planned.
pub fn view() -> ClusterView {
    ClusterView {
        cluster_name: "ml-capacity".into(),
        instance_groups: Fact::Known(vec![capacity("ml.p5.48xlarge", 4), capacity("ml.t3.xlarge", 1)]),
        scheduling_policy: Fact::Known(Some(policy(&["production", "research"], true))),
        tenants: Inventory {
            planned: vec![tenant().capacity()],
            live: Fact::Known(vec![TenantCapacity {
                team: "platform".into(),
                quota: vec![capacity("ml.p5.48xlarge", 2)],
                sharing: Some(Sharing {
                    strategy: SharingStrategy::Lend,
                    borrow_limit: None,
                }),
            }]),
        },
        projects: Inventory {
            planned: vec![ProjectOnCluster {
                project_id: "prj-research".into(),
                project_role_arn: Some(PROJECT_ROLE.into()),
            }],
            live: Fact::Known(Vec::new()),
        },
        restrictions: Inventory {
            planned: vec![TaskViewRestriction {
                project_role_arn: Some(PROJECT_ROLE.into()),
                namespaces: vec!["hyperpod-ns-research".into()],
            }],
            live: Fact::Known(Vec::new()),
        },
    }
}
