//! Example facts, shared by the rules' unit tests and the docs. One valid EKS contract and the tenant, binding,
//! cluster view and live facts that agree with it (every rule passes on them); and for every rule of the catalog a
//! failing configuration that breaks exactly the fact the rule judges, run through the rule's function by
//! [`failing`]. The unit tests start from these setups, and `docs/guides/governance-rules.md` shows the diagnostics
//! [`failing`] produces, so the documented output is the engine's own.

use serde_json::json;
use std::collections::BTreeMap;
use time::{Date, Month};

use super::catalog::RuleId;
use super::finding::Check;
use super::model::{
    AccessEntry, AccessScope, Addon, Allocation, AssociatedPolicy, Binding, Capacity, ClusterRef, ClusterView,
    Contract, DataGrants, EksCluster, Exception, Fact, Inventory, LifecycleState, LiveCluster, LiveInstanceGroup,
    LiveProject, Member, MemberKind, Neighbours, NodeRole, Orchestrator, Owners, Phase, PodIdentity, PolicyDocument,
    ProjectOnCluster, QuotaShare, Referenced, Review, RolePermissions, Scheduling, SchedulingPolicy, Setting, Sharing,
    SharingStrategy, Signal, SlurmScope, Spaces, TaskViewRestriction, Tenant, TenantCapacity, UnifiedStudio,
};
use super::{
    cluster, cluster_slurm, contract as contract_rules, exceptions, lifecycle, observability, organization, paths,
    project, spaces, workload, workload_access,
};

pub const CAPACITY_ACCOUNT: &str = "111122223333";
pub const DATA_ACCOUNT: &str = "444455556666";
pub const PROJECT_ROLE: &str = "arn:aws:iam::111122223333:role/datazone_usr_role_abc123";
pub const ACCESS_ROLE: &str = "arn:aws:iam::111122223333:role/hyperpod-connection";
pub const WORKLOAD_ROLE: &str = "arn:aws:iam::111122223333:role/research-workload";
pub const TARGET_ROLE: &str = "arn:aws:iam::444455556666:role/research-data";
pub const NODE_ROLE: &str = "arn:aws:iam::111122223333:role/ml-capacity-node-role";
pub const CLUSTER_ARN: &str = "arn:aws:sagemaker:us-west-2:111122223333:cluster/slurmcap0001";

pub fn date(year: i32, month: u8, day: u8) -> Date {
    Date::from_calendar_date(year, Month::try_from(month).expect("month"), day).expect("date")
}

/// The day the examples are checked on: 30 days after the contract's last review (interval 90: current).
pub fn today() -> Date {
    date(2026, 6, 1)
}

// ---- facts every rule accepts ----------------------------------------------------------------------------------

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
        organization: None,
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
        namespace: hyperpod_model::names::team_namespace("research"),
        orchestrator: Orchestrator::Eks,
        quota: vec![share("ml.p5.48xlarge", 2)],
        sharing: Some(Sharing {
            strategy: SharingStrategy::LendAndBorrow,
            borrow_limit: Some(50),
            absolute_borrow_limits: Vec::new(),
        }),
        sharing_written: true,
        priority_class: Some("research".into()),
        fair_share_weight: Some(10),
        viewer_groups: vec!["research-viewers".into()],
        operator_groups: vec!["research-operators".into()],
        viewer_verbs: vec!["get".into(), "list".into(), "watch".into()],
        operator_verbs: vec!["create".into(), "delete".into(), "patch".into()],
        default_deny_network_policy: true,
        slurm_users: Vec::new(),
        workload_role_arn: Setting::Set(WORKLOAD_ROLE.into()),
        target_role_arn: Setting::Set(TARGET_ROLE.into()),
        pod_identity: PodIdentity::default(),
        data_grants: DataGrants {
            buckets: vec!["research-data".into()],
            kms_keys: vec!["arn:aws:kms:us-west-2:444455556666:key/1234abcd".into()],
            grantee_role_arn: Some(TARGET_ROLE.into()),
        },
        spaces: None,
    }
}

/// WKL-12: spaces at the team's own task class, borrowing.
pub fn wkl_12_tenant() -> Tenant {
    let mut tenant = spaces_tenant();
    if let Some(spaces) = tenant.spaces.as_mut() {
        spaces.priority_class = "research".into();
    }
    tenant
}

/// WKL-12: a tenant with interactive spaces (a dedicated class, two of its instances kept for them, lending only).
pub fn spaces_tenant() -> Tenant {
    Tenant {
        spaces: Some(Spaces {
            priority_class: "interactive".into(),
            guaranteed: vec![share("ml.p5.48xlarge", 1)],
        }),
        sharing: Some(Sharing {
            strategy: SharingStrategy::Lend,
            borrow_limit: None,
            absolute_borrow_limits: Vec::new(),
        }),
        ..tenant()
    }
}

pub fn slurm_tenant() -> Tenant {
    Tenant {
        orchestrator: Orchestrator::Slurm,
        sharing: None,
        sharing_written: false,
        slurm_users: vec!["alice".into(), "bob".into()],
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

pub fn restriction() -> TaskViewRestriction {
    TaskViewRestriction {
        project_role_arn: Some(PROJECT_ROLE.into()),
        namespaces: vec!["hyperpod-ns-research".into()],
    }
}

pub fn capacity(instance_type: &str, count: i64) -> Capacity {
    Capacity {
        instance_type: instance_type.into(),
        count,
        partition_layout: None,
    }
}

/// `count` whole instances of `instance_type`, guaranteed.
pub fn share(instance_type: &str, count: i64) -> QuotaShare {
    QuotaShare::instances(instance_type, count)
}

/// The cluster's documented allocation: each (team, guaranteed p5 instances).
pub fn allocation(teams: &[(&str, i64)]) -> Setting<Referenced<Allocation>> {
    Setting::Set(Referenced {
        at: paths::tenant::allocation(),
        cluster_name: "ml-capacity".into(),
        item: Allocation {
            cluster_name: "ml-capacity".into(),
            teams: teams
                .iter()
                .map(|(team, count)| (team.to_string(), vec![share("ml.p5.48xlarge", *count)]))
                .collect(),
            sharing: BTreeMap::new(),
        },
    })
}

pub fn policy(classes: &[&str], fair_share: bool) -> SchedulingPolicy {
    SchedulingPolicy {
        priority_classes: classes.iter().map(std::string::ToString::to_string).collect(),
        fair_share,
    }
}

/// The fixture tenant among the tenants its rules count (at its own `quota`).
pub fn own(tenant: &Tenant) -> Referenced<TenantCapacity> {
    Referenced {
        at: paths::tenant::quota(),
        cluster_name: "ml-capacity".into(),
        item: tenant.capacity(),
    }
}

/// The research project, as its binding onboards it.
pub fn research_project() -> ProjectOnCluster {
    ProjectOnCluster {
        project_id: "prj-research".into(),
        project_role_arn: Some(PROJECT_ROLE.into()),
    }
}

/// A cluster with four p5 nodes, where a `platform` team already lends two; the fixture tenant is the one planned,
/// the cluster's allocation documents its two p5 nodes, and the research binding references the research
/// restriction.
pub fn view() -> ClusterView {
    ClusterView {
        cluster_name: "ml-capacity".into(),
        instance_groups: Fact::Known(vec![capacity("ml.p5.48xlarge", 4), capacity("ml.t3.xlarge", 1)]),
        scheduling_policy: Fact::Known(Some(policy(&["production", "research"], true))),
        tenants: Inventory {
            referenced: vec![own(&tenant())],
            unresolved: Vec::new(),
            live: Fact::Known(vec![TenantCapacity {
                team: "platform".into(),
                quota: vec![share("ml.p5.48xlarge", 2)],
                sharing: Some(Sharing {
                    strategy: SharingStrategy::Lend,
                    borrow_limit: None,
                    absolute_borrow_limits: Vec::new(),
                }),
            }]),
        },
        projects: Fact::Known(Vec::new()),
        restrictions: Inventory {
            referenced: vec![Referenced {
                at: paths::binding::task_view_restriction(),
                cluster_name: "ml-capacity".into(),
                item: restriction(),
            }],
            unresolved: Vec::new(),
            live: Fact::Known(Vec::new()),
        },
        allocation: allocation(&[("research", 2)]),
        phase: Phase::Plan,
        neighbours: Neighbours::LiveAndReferenced,
        policy_live: false,
    }
}

/// The HyperPod cluster as DescribeCluster reports it: four p5 nodes.
pub fn live_cluster(account_id: &str, region: &str, orchestrator: Orchestrator) -> Fact<Option<LiveCluster>> {
    Fact::Known(Some(LiveCluster {
        arn: format!("arn:aws:sagemaker:{region}:{account_id}:cluster/mlcapeks0001"),
        account_id: account_id.into(),
        region: region.into(),
        orchestrator,
        instance_groups: vec![LiveInstanceGroup {
            name: "p5-training".into(),
            capacity: capacity("ml.p5.48xlarge", 4),
            execution_role: NODE_ROLE.into(),
        }],
    }))
}

/// The Unified Studio project as DataZone reports it.
pub fn live_project(domain_unit_id: &str, tooling_user_role_arn: Option<&str>) -> Fact<LiveProject> {
    Fact::Known(LiveProject {
        domain_unit_id: domain_unit_id.into(),
        tooling_user_role_arn: tooling_user_role_arn.map(str::to_string),
        project_profile_id: Some("hyperpodprof01".into()),
        domain_unit_ancestors: vec!["root_unit".into()],
    })
}

/// A role with one inline policy `studio` whose statement `Studio` allows `actions` on everything.
pub fn role(arn: &str, actions: &[&str]) -> Fact<RolePermissions> {
    Fact::Known(RolePermissions {
        role_arn: arn.into(),
        policies: vec![PolicyDocument {
            name: "studio".into(),
            managed_arn: None,
            document: json!({"Statement": [
                {"Sid": "Studio", "Effect": "Allow", "Action": actions, "Resource": "*"}
            ]}),
        }],
    })
}

/// A role that may only describe clusters.
pub fn read_only_role(arn: &str) -> Fact<RolePermissions> {
    role(arn, &["sagemaker:DescribeCluster", "eks:DescribeCluster"])
}

/// The EKS cluster behind the HyperPod cluster; the endpoint is private unless `public`.
pub fn eks(authentication_mode: &str, public: bool, public_cidrs: &[&str]) -> Fact<EksCluster> {
    Fact::Known(EksCluster {
        authentication_mode: authentication_mode.into(),
        endpoint_public: public,
        endpoint_private: !public,
        public_cidrs: public_cidrs.iter().map(std::string::ToString::to_string).collect(),
        version: "1.31".into(),
    })
}

/// An EKS access entry for `principal` with one access policy (by name) at `scope`.
pub fn access_entry(principal: &str, policy: &str, scope: AccessScope) -> AccessEntry {
    AccessEntry {
        principal_arn: principal.into(),
        policies: vec![AssociatedPolicy {
            policy_arn: format!("arn:aws:eks::aws:cluster-access-policy/{policy}"),
            scope,
        }],
    }
}

/// The amazon-cloudwatch-observability add-on at `version` (as EKS writes it, `v2.4.0-eksbuild.1`).
pub fn addon(version: &str, status: &str) -> Fact<Option<Addon>> {
    Fact::Known(Some(Addon {
        name: observability::OBSERVABILITY_ADDON.into(),
        version: version.into(),
        status: status.into(),
    }))
}

/// The identity running the plan: a CI role, not the contract's approver.
pub fn caller() -> Fact<String> {
    Fact::Known("arn:aws:sts::111122223333:assumed-role/ci-deployer/run-1".into())
}

// ---- one failing configuration per rule --------------------------------------------------------------------------

/// The rule `rule` checked on its failing configuration. The match is exhaustive: a rule added to the catalog does
/// not compile until it has an example, which its unit tests and the docs then share.
pub fn failing(rule: RuleId) -> Check {
    use RuleId::{
        Clu1, Clu2, Clu3, Clu4, Clu5, Clu6, Clu7, Clu8, Clu9, Clu10, Con1, Con2, Con3, Exc1, Lif1, Lif2, Lif3, Lif4,
        Obs1, Org1, Org2, Org3, Prj1, Prj2, Prj3, Prj4, Wkl1, Wkl2, Wkl3, Wkl4, Wkl5, Wkl6, Wkl7, Wkl8, Wkl9, Wkl10,
        Wkl11, Wkl12,
    };
    match rule {
        Con1 => contract_rules::con_1(&con_1_contract()),
        Con2 => contract_rules::con_2(&con_2_contract()),
        Con3 => contract_rules::con_3(&con_3_contract()),
        Org1 => organization::org_1(&contract(), &org_1_project()),
        Org2 => organization::org_2(&org_2_tenant(), &contract()),
        Org3 => organization::org_3(&contract(), &org_3_cluster()),
        Prj1 => project::prj_1(&prj_1_binding()),
        Prj2 => project::prj_2(&contract(), &prj_2_project_role(), &read_only_role(ACCESS_ROLE)),
        Prj3 => project::prj_3(&prj_3_binding(), &contract(), today()),
        Prj4 => project::prj_4(
            &contract(),
            Some(&prj_4_binding()),
            &live_project("research_unit", Some(PROJECT_ROLE)),
        ),
        Clu1 | Clu2 | Clu3 | Clu4 | Clu5 | Clu6 | Clu7 | Clu8 | Clu9 | Clu10 => failing_cluster_rule(rule),
        Wkl1 => workload::wkl_1(&wkl_1_tenant(), &contract()),
        Wkl2 => workload::wkl_2(&wkl_2_tenant()),
        Wkl3 => workload::wkl_3(&wkl_3_view(), paths::tenant::quota()),
        Wkl4 => workload::wkl_4(&tenant(), &wkl_4_policy()),
        Wkl5 => workload::wkl_5(&tenant(), &wkl_5_view()),
        Wkl6 => workload::wkl_6(&tenant(), &wkl_6_policy()),
        Wkl7 => workload_access::wkl_7(&wkl_7_tenant()),
        Wkl8 => workload_access::wkl_8(&wkl_8_tenant()),
        Wkl9 => workload_access::wkl_9(&wkl_9_tenant()),
        Wkl10 => workload_access::wkl_10(&wkl_10_tenant()),
        Wkl11 => workload_access::wkl_11(&wkl_11_tenant(), &contract()),
        Wkl12 => spaces::wkl_12(&wkl_12_tenant(), &contract(), &wkl_4_policy()),
        Exc1 => exceptions::exc_1(&exc_1_contract(), today()),
        Obs1 => observability::obs_1(&obs_1_addon(), &node_roles(true), paths::contract::signals()),
        Lif1 => lifecycle::lif_1(&contract(), lif_1_today()),
        Lif2 => lifecycle::lif_2(&lif_2_contract(), Some(&contract()), None),
        Lif3 => lifecycle::lif_3(&lif_3_contract(), paths::tenant::contract()),
        Lif4 => lifecycle::lif_4(&lif_4_contract(), &caller()),
    }
}

/// `failing` for the cluster rules (CLU-*).
fn failing_cluster_rule(rule: RuleId) -> Check {
    use RuleId::{Clu1, Clu2, Clu3, Clu4, Clu5, Clu6, Clu7, Clu8, Clu9, Clu10};
    match rule {
        Clu1 => cluster::clu_1(
            &slurm_contract(),
            &live_cluster(CAPACITY_ACCOUNT, "us-west-2", Orchestrator::Eks),
        ),
        Clu2 => cluster::clu_2(
            &research_project(),
            &contract().eks_namespaces,
            &clu_2_view(),
            paths::binding::task_view_restriction(),
        ),
        Clu3 => cluster::clu_3(&restriction(), &clu_3_entries()),
        Clu4 => cluster::clu_4(&clu_4_eks(), paths::contract::cluster("name")),
        Clu5 => cluster::clu_5(&contract(), &clu_5_eks()),
        Clu6 => cluster::clu_6(&clu_6_tenant(), &contract(), &[]),
        Clu7 => cluster_slurm::clu_7(&Fact::Known(cluster_slurm::SessionPreferences {
            run_as_enabled: false,
        })),
        Clu8 => cluster_slurm::clu_8(&clu_8_role(), CLUSTER_ARN),
        Clu9 => cluster::clu_9(&clu_9_restriction(), &contract()),
        Clu10 => cluster::clu_10(
            &Fact::Known(None),
            "ml-capacity-eks",
            paths::tenant::contract().push_attr("cluster_name"),
        ),
        other => unreachable!("{other} is not a cluster rule"),
    }
}

/// CON-1: the capacity account ID has 11 digits.
pub fn con_1_contract() -> Contract {
    let mut contract = contract();
    contract.cluster.account_id = "11112222333".into();
    contract
}

/// CON-2: a Slurm contract that lists EKS namespaces.
pub fn con_2_contract() -> Contract {
    let mut contract = slurm_contract();
    contract.eks_namespaces = vec!["hyperpod-ns-research".into()];
    contract
}

/// CON-3: a monitored signal without a response.
pub fn con_3_contract() -> Contract {
    let mut contract = contract();
    contract.monitoring[0].response.clear();
    contract
}

/// ORG-1: the project lives in another domain unit.
pub fn org_1_project() -> Fact<LiveProject> {
    live_project("marketing_unit", Some(PROJECT_ROLE))
}

/// ORG-2: the tenant's target role is in an account the contract does not approve.
pub fn org_2_tenant() -> Tenant {
    Tenant {
        target_role_arn: Setting::Set("arn:aws:iam::999988887777:role/x".into()),
        ..tenant()
    }
}

/// ORG-3: the cluster is in another account and region.
pub fn org_3_cluster() -> Fact<Option<LiveCluster>> {
    live_cluster("999988887777", "eu-west-1", Orchestrator::Eks)
}

/// PRJ-1: an individual user is a project member.
pub fn prj_1_binding() -> Binding {
    let mut binding = binding();
    binding.members.push(Member {
        kind: MemberKind::User,
        name: "alice".into(),
        designation: "PROJECT_OWNER".into(),
    });
    binding
}

/// PRJ-2: the project role may update the cluster.
pub fn prj_2_project_role() -> Fact<RolePermissions> {
    role(PROJECT_ROLE, &["sagemaker:DescribeCluster", "sagemaker:UpdateCluster*"])
}

/// PRJ-3: the binding is for another project than the contract's.
pub fn prj_3_binding() -> Binding {
    Binding {
        project_id: Some("prj-marketing".into()),
        ..binding()
    }
}

/// PRJ-4: the binding names the connection's access role as the project role.
pub fn prj_4_binding() -> Binding {
    Binding {
        project_role_arn: Some(ACCESS_ROLE.into()),
        ..binding()
    }
}

/// CLU-2: a second project on the cluster, and the research binding references no task view restriction.
pub fn clu_2_view() -> ClusterView {
    let mut view = view();
    view.restrictions.referenced.clear();
    view.projects = Fact::Known(vec![ProjectOnCluster {
        project_id: "prj-marketing".into(),
        project_role_arn: Some("arn:aws:iam::111122223333:role/datazone_usr_role_mkt".into()),
    }]);
    view
}

/// CLU-9: the research restriction reaches into the production team's namespace.
pub fn clu_9_restriction() -> TaskViewRestriction {
    TaskViewRestriction {
        namespaces: vec!["hyperpod-ns-research".into(), "hyperpod-ns-production".into()],
        ..restriction()
    }
}

/// CLU-3: the restricted project role holds a cluster-scoped admin policy.
pub fn clu_3_entries() -> Fact<Vec<AccessEntry>> {
    Fact::Known(vec![access_entry(
        PROJECT_ROLE,
        "AmazonEKSClusterAdminPolicy",
        AccessScope::Cluster,
    )])
}

/// CLU-4: the EKS cluster authenticates with the aws-auth ConfigMap only.
pub fn clu_4_eks() -> Fact<EksCluster> {
    eks("CONFIG_MAP", false, &[])
}

/// CLU-5: the EKS API endpoint is public to the internet as well as to an approved CIDR.
pub fn clu_5_eks() -> Fact<EksCluster> {
    eks("API", true, &["203.0.113.0/24", "0.0.0.0/0"])
}

/// CLU-6: the tenant's workload role is the project role.
pub fn clu_6_tenant() -> Tenant {
    Tenant {
        workload_role_arn: Setting::Set(PROJECT_ROLE.into()),
        ..tenant()
    }
}

/// WKL-1: a team whose namespace the contract does not list.
pub fn wkl_1_tenant() -> Tenant {
    Tenant {
        team: "marketing".into(),
        namespace: hyperpod_model::names::team_namespace("marketing"),
        ..tenant()
    }
}

/// WKL-1 for a binding: the cluster has no research tenant, live or referenced (only the platform team's quota). The
/// docs show the tenant's half of WKL-1; this one is for the unit tests.
#[cfg(test)]
pub fn wkl_1_binding_view() -> ClusterView {
    let mut view = view();
    view.tenants.referenced.clear();
    view
}

/// WKL-2: a Slurm tenant that lends and borrows.
pub fn wkl_2_tenant() -> Tenant {
    Tenant {
        sharing: tenant().sharing,
        ..slurm_tenant()
    }
}

/// The fixture view with the tenant being planned guaranteed `count` p5 nodes.
pub fn view_with_quota(count: i64) -> ClusterView {
    let mut view = view();
    let research = Tenant {
        quota: vec![share("ml.p5.48xlarge", count)],
        ..tenant()
    };
    view.tenants.referenced = vec![own(&research)];
    view.allocation = allocation(&[("research", count)]);
    view
}

/// WKL-3: three guaranteed p5 nodes where the other team already holds two of four.
pub fn wkl_3_view() -> ClusterView {
    view_with_quota(3)
}

/// WKL-4: the cluster policy has no `research` priority class.
pub fn wkl_4_policy() -> Fact<Option<SchedulingPolicy>> {
    Fact::Known(Some(policy(&["production"], true)))
}

/// WKL-5: the tenant borrows, but the cluster's allocation records that its team does not share.
pub fn wkl_5_view() -> ClusterView {
    let mut view = view();
    view.tenants.live = Fact::Known(Vec::new());
    view.allocation = allocation(&[("research", 2), ("production", 4)]);
    if let Setting::Set(reference) = &mut view.allocation {
        reference.item.sharing.insert(
            "research".into(),
            Sharing {
                strategy: SharingStrategy::DontLend,
                borrow_limit: None,
                absolute_borrow_limits: Vec::new(),
            },
        );
    }
    view
}

/// WKL-6: the tenant sets a fair-share weight, the cluster policy disables fair share.
pub fn wkl_6_policy() -> Fact<Option<SchedulingPolicy>> {
    Fact::Known(Some(policy(&["research"], false)))
}

/// WKL-7: viewers may create, and anything.
pub fn wkl_7_tenant() -> Tenant {
    let mut tenant = tenant();
    tenant.viewer_verbs.extend(["create".to_string(), "*".to_string()]);
    tenant
}

/// WKL-8: an EKS tenant without the default-deny NetworkPolicy.
pub fn wkl_8_tenant() -> Tenant {
    Tenant {
        default_deny_network_policy: false,
        ..tenant()
    }
}

/// WKL-9: a Pod Identity session policy with session tags left on.
pub fn wkl_9_tenant() -> Tenant {
    let mut tenant = tenant();
    tenant.pod_identity.session_policy = Some("{\"Version\":\"2012-10-17\",\"Statement\":[]}".into());
    tenant
}

/// WKL-10: a tenant with neither viewer nor operator groups.
pub fn wkl_10_tenant() -> Tenant {
    Tenant {
        viewer_groups: Vec::new(),
        operator_groups: Vec::new(),
        ..tenant()
    }
}

/// WKL-11: the tenant's buckets and keys are granted to the project role.
pub fn wkl_11_tenant() -> Tenant {
    let mut tenant = tenant();
    tenant.data_grants.grantee_role_arn = Some(PROJECT_ROLE.into());
    tenant
}

/// An exception waiving `rule`, owned by `owner`, until `expires`.
pub fn exception(rule: RuleId, owner: &str, expires: Date) -> Exception {
    Exception {
        rule,
        owner: owner.into(),
        expires,
        reason: "NCCL traffic between tenants during the migration".into(),
    }
}

/// EXC-1: an exception that expired the day before [`today`].
pub fn exc_1_contract() -> Contract {
    let mut contract = contract();
    contract
        .exceptions
        .push(exception(RuleId::Clu5, "network-team", date(2026, 5, 31)));
    contract
}

/// What the contract reads at plan time, agreeing with the fixture contract.
#[cfg(test)]
pub fn contract_live_facts() -> super::ContractLiveFacts {
    super::ContractLiveFacts {
        cluster: live_cluster(CAPACITY_ACCOUNT, "us-west-2", Orchestrator::Eks),
        project: live_project("research_unit", Some(PROJECT_ROLE)),
        project_role: read_only_role(PROJECT_ROLE),
        access_role: read_only_role(ACCESS_ROLE),
        eks: Some(eks("API_AND_CONFIG_MAP", false, &[])),
        observability_addon: Some(addon("v2.4.0-eksbuild.1", "ACTIVE")),
        node_roles: Some(node_roles(true)),
    }
}

/// The worker node role of [`live_cluster`]'s instance group, with or without the CloudWatch agent's policy.
pub fn node_roles(with_cloudwatch_policy: bool) -> Fact<Vec<NodeRole>> {
    let mut attached = vec!["arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy".to_string()];
    if with_cloudwatch_policy {
        attached.push("arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy".into());
    }
    Fact::Known(vec![NodeRole {
        role_arn: NODE_ROLE.into(),
        instance_groups: vec!["p5-training".into()],
        attached_policy_arns: attached,
    }])
}

/// OBS-1: the observability add-on is older than 2.4.0.
pub fn obs_1_addon() -> Fact<Option<Addon>> {
    addon("v2.3.9-eksbuild.1", "ACTIVE")
}

/// LIF-1: the day the contract (due 2026-07-31) is ten days overdue.
pub fn lif_1_today() -> Date {
    date(2026, 8, 10)
}

/// LIF-2: the capacity account changed since [`contract`] was approved, without a new review.
pub fn lif_2_contract() -> Contract {
    let mut contract = contract();
    contract.cluster.account_id = "999988887777".into();
    contract
}

/// LIF-3: a revoked contract.
pub fn lif_3_contract() -> Contract {
    Contract {
        lifecycle: LifecycleState::Revoked,
        ..contract()
    }
}

/// LIF-4: the contract was approved by the role [`caller`] runs as.
pub fn lif_4_contract() -> Contract {
    let mut contract = contract();
    contract.review.approved_by = "arn:aws:iam::111122223333:role/ci-deployer".into();
    contract
}

/// CLU-8: the project role may start sessions on every managed node.
pub fn clu_8_role() -> Fact<RolePermissions> {
    Fact::Known(RolePermissions {
        role_arn: PROJECT_ROLE.into(),
        policies: vec![PolicyDocument {
            name: "studio-slurm".into(),
            managed_arn: None,
            document: serde_json::json!({
                "Version": "2012-10-17",
                "Statement": [{ "Sid": "Sessions", "Effect": "Allow", "Action": "ssm:StartSession", "Resource": "*" }],
            }),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_fails_its_example_under_its_own_id() {
        for rule in RuleId::ALL {
            let check = failing(*rule);
            assert_eq!(
                check.rule,
                *rule,
                "{}'s example reports under {}",
                rule.id(),
                check.rule.id()
            );
            assert!(check.is_failed(), "{}: {:?}", rule.id(), check.outcome);
            assert!(!check.findings().is_empty(), "{} failed without findings", rule.id());
            for finding in check.findings() {
                assert_eq!(finding.rule, *rule, "{}: {finding:?}", rule.id());
                assert_eq!(finding.severity, rule.default_severity(), "{}: {finding:?}", rule.id());
            }
        }
    }
}
