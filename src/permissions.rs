//! The provider's least-privilege policy, as one table: for each caller (the provider's configure step, each
//! resource, data source and function) every IAM action it may need, and the Kubernetes RBAC its Kubernetes API
//! calls need. `docs/guides/permissions.md` is generated from it (xtask/src/docs.rs), and it is checked both ways:
//!
//! * code → table: a test below scans `src/` and the clients crate for every AWS SDK operation the code sends and
//!   fails, naming the file and line, when one is not in the table;
//! * table ↔ what runs: the acceptance suite `test_permissions.py` reads the sandbox's call counters per caller
//!   (every request names its caller, `caller::CALLER_HEADER` of the clients crate) and fails when a caller made a
//!   call its policy does not allow, or when a declared action was never exercised and is not marked `unexercised`
//!   here with the reason.
//!
//! To extend it: add the action to the group the new call belongs to (or a new group, listed in the callers that reach
//! it). A permission AWS checks on another call (`iam:PassRole`, tag-on-create) is `implied` by that call.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

/// What kind of caller a table entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The provider's configure step (`ConfigureProvider`).
    Provider,
    Resource,
    DataSource,
    Function,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Provider => "provider",
            Self::Resource => "resource",
            Self::DataSource => "data source",
            Self::Function => "function",
        }
    }
}

/// An IAM condition on a permission: `{operator: {key: values}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    pub operator: &'static str,
    pub key: &'static str,
    pub values: &'static [&'static str],
}

#[derive(Clone, Copy, Debug)]
pub struct Permission {
    /// `service:Action`, as in an IAM policy (and `service.Action` in the sandbox's counters).
    pub action: &'static str,
    /// What the provider uses it for.
    pub why: &'static str,
    /// The provider sends this operation itself (an SDK call in `src/`).
    pub called: bool,
    /// AWS also checks this permission when the provider sends the named operation (`service:Operation`), e.g.
    /// `iam:PassRole` on `eks:CreatePodIdentityAssociation`, `sagemaker:AddTags` on a create with tags.
    pub implied_by: Option<&'static str>,
    /// False for calls AWS authorizes without any permission (`sts:GetCallerIdentity`): listed, never granted.
    pub granted: bool,
    pub condition: Option<Condition>,
    /// Set when no acceptance scenario takes the path that needs it: why not (the two-way test does not expect it).
    pub unexercised: Option<&'static str>,
}

impl Permission {
    const fn call(action: &'static str, why: &'static str) -> Self {
        Self {
            action,
            why,
            called: true,
            implied_by: None,
            granted: true,
            condition: None,
            unexercised: None,
        }
    }

    /// A permission AWS checks on `by` that is never a call of its own.
    const fn implied(action: &'static str, by: &'static str, why: &'static str) -> Self {
        Self {
            called: false,
            implied_by: Some(by),
            ..Self::call(action, why)
        }
    }

    /// A call that AWS also checks on `by`.
    const fn also_implied_by(self, by: &'static str) -> Self {
        Self {
            implied_by: Some(by),
            ..self
        }
    }

    const fn unexercised(self, reason: &'static str) -> Self {
        Self {
            unexercised: Some(reason),
            ..self
        }
    }

    const fn when(self, condition: Condition) -> Self {
        Self {
            condition: Some(condition),
            ..self
        }
    }

    const fn not_granted(self) -> Self {
        Self { granted: false, ..self }
    }

    /// `service`, the part before the colon.
    pub fn service(&self) -> &'static str {
        self.action.split_once(':').map_or(self.action, |(service, _)| service)
    }

    /// `Operation`, the part after the colon.
    pub fn operation(&self) -> &'static str {
        self.action
            .split_once(':')
            .map_or(self.action, |(_, operation)| operation)
    }
}

/// Kubernetes RBAC a caller's Kubernetes API requests need: `verbs` on `resource` of `api_group` ("" = core).
#[derive(Clone, Copy, Debug)]
pub struct Rbac {
    pub api_group: &'static str,
    pub resource: &'static str,
    pub verbs: &'static [&'static str],
    pub why: &'static str,
}

#[derive(Debug)]
pub struct Caller {
    /// `provider`, a resource type (`hyperpod_tenant`), `data.<type>` or a function name: what the protocol layer
    /// names the RPC (`protocol::caller`).
    pub name: &'static str,
    pub kind: Kind,
    /// The groups of permissions its RPCs reach.
    pub aws: &'static [&'static [Permission]],
    pub kubernetes: &'static [Rbac],
}

impl Caller {
    /// Each action once, in table order; an action in two of its groups is called if either calls it, and
    /// expected to be exercised unless both say it is not.
    pub fn permissions(&self) -> Vec<Permission> {
        merge(self.aws.iter().flat_map(|group| group.iter()))
    }

    /// The IAM policy document that allows exactly what this caller needs (`None`: it needs nothing).
    pub fn policy(&self) -> Option<Value> {
        policy_document(self.permissions())
    }
}

// ---- the groups -------------------------------------------------------------------------------------------------

const fn call(action: &'static str, why: &'static str) -> Permission {
    Permission::call(action, why)
}

/// `iam:PassedToService` for roles handed to EKS Pod Identity.
const PASSED_TO_PODS: Condition = Condition {
    operator: "StringEquals",
    key: "iam:PassedToService",
    values: &["pods.eks.amazonaws.com"],
};

const IDENTITY: &[Permission] = &[call(
    "sts:GetCallerIdentity",
    "confirms the account of the credentials (allowed_account_ids, forbidden_account_ids); AWS allows it to every \
     principal, so no policy needs to grant it",
)
.not_granted()];

const HYPERPOD_CLUSTER: &[Permission] = &[call(
    "sagemaker:DescribeCluster",
    "reads the HyperPod cluster: orchestrator, EKS cluster, instance groups",
)];

const EKS_CLUSTER: &[Permission] = &[call(
    "eks:DescribeCluster",
    "reads the EKS cluster: its Kubernetes API endpoint and certificate authority, its authentication mode",
)];

const EKS_ADDONS: &[Permission] = &[call(
    "eks:DescribeAddon",
    "checks the add-ons the rules rely on: observability (OBS-1) and task governance (CLU-10)",
)];

/// What the rules read about the cluster's other tenants, its scheduling policy and the access entries of the
/// roles a resource's rules are about (`cluster_facts::gather`).
const CLUSTER_FACTS: &[Permission] = &[
    call(
        "sagemaker:ListComputeQuotas",
        "lists the cluster's compute quotas (the other tenants, their capacity and lending)",
    ),
    call(
        "sagemaker:ListTags",
        "reads the ownership tags of compute quotas and scheduler configs",
    ),
    call(
        "sagemaker:ListClusterSchedulerConfigs",
        "finds the cluster's scheduling policy",
    ),
    call(
        "sagemaker:DescribeClusterSchedulerConfig",
        "reads the cluster's scheduling policy (priority classes, fair share)",
    ),
    call(
        "eks:ListAssociatedAccessPolicies",
        "reads the access policies of the roles the rules are about",
    ),
];

/// What the contract and the binding read about the Unified Studio project (`project_facts::read`).
const PROJECT_FACTS: &[Permission] = &[
    call(
        "datazone:GetProject",
        "reads the Unified Studio project and its domain unit",
    ),
    call(
        "datazone:ListEnvironmentBlueprints",
        "finds the domain's Tooling blueprint",
    ),
    call(
        "datazone:ListEnvironments",
        "finds the project's Tooling environment (its user role, where the connection lives)",
    ),
    call("datazone:GetEnvironment", "reads the Tooling environment's user role"),
    call(
        "datazone:GetDomainUnit",
        "walks the project's domain units up to the root (ORG-1)",
    ),
];

/// A role's policies, as the IAM rules evaluate them (`iam::find_role_policies`).
const ROLE_POLICIES: &[Permission] = &[
    call("iam:ListRolePolicies", "lists the project role's inline policies"),
    call("iam:GetRolePolicy", "reads the project role's inline policies"),
    call(
        "iam:ListAttachedRolePolicies",
        "lists the project role's managed policies",
    ),
    call(
        "iam:GetPolicy",
        "finds the default version of an attached managed policy",
    ),
    call("iam:GetPolicyVersion", "reads an attached managed policy's document"),
];

/// The worker node roles' CloudWatch policy (OBS-1), beside the contract's other facts.
const CONTRACT_FACTS: &[Permission] = &[call(
    "iam:ListAttachedRolePolicies",
    "checks each worker node role of the cluster for CloudWatchAgentServerPolicy (OBS-1)",
)];

const TENANT_ROLE: &[Permission] = &[
    call("iam:GetRole", "reads the tenant's workload role"),
    call(
        "iam:CreateRole",
        "creates the tenant's workload role (EKS Pod Identity trust)",
    ),
    call(
        "iam:TagRole",
        "creates the role with its tags (IAM checks iam:TagRole on a create with tags) and corrects drifted tags",
    )
    .also_implied_by("iam:CreateRole"),
    call("iam:UntagRole", "removes tags the configuration no longer sets"),
    call(
        "iam:PutRolePolicy",
        "writes the role's inline policies (data access, target role)",
    ),
    call("iam:GetRolePolicy", "reads the role's inline policies"),
    call(
        "iam:DeleteRolePolicy",
        "removes inline policies the tenant no longer needs",
    ),
    call(
        "iam:ListRolePolicies",
        "lists the role's inline policies before deleting it",
    ),
    call(
        "iam:ListAttachedRolePolicies",
        "lists managed policies someone attached, before deleting the role",
    ),
    call("iam:DetachRolePolicy", "detaches them")
        .unexercised("only when someone attached a managed policy to the tenant's role outside Terraform"),
    call(
        "iam:ListInstanceProfilesForRole",
        "lists instance profiles holding the role, before deleting it",
    ),
    call("iam:RemoveRoleFromInstanceProfile", "removes the role from them")
        .unexercised("only when someone added the tenant's role to an instance profile outside Terraform"),
    call("iam:DeleteRole", "deletes the tenant's workload role"),
    call("iam:UpdateAssumeRolePolicy", "rewrites a role's trust policy").unexercised(
        "no resource calls it at this version (aws/iam_roles.rs keeps the helper); listed because the code can send it",
    ),
];

const COMPUTE_QUOTA: &[Permission] = &[
    call("sagemaker:CreateComputeQuota", "creates the tenant's compute quota"),
    call(
        "sagemaker:AddTags",
        "creates the quota with its tags (SageMaker checks sagemaker:AddTags on a create with tags) and corrects \
         drifted tags",
    )
    .also_implied_by("sagemaker:CreateComputeQuota"),
    call(
        "sagemaker:DescribeComputeQuota",
        "reads the quota and waits for it to be created or deleted",
    ),
    call(
        "sagemaker:UpdateComputeQuota",
        "changes the quota's capacity, sharing or activation",
    ),
    call("sagemaker:DeleteComputeQuota", "deletes the quota"),
    call("sagemaker:DeleteTags", "removes tags the configuration no longer sets"),
];

const ACCESS_ENTRIES: &[Permission] = &[
    call(
        "eks:ListAccessEntries",
        "finds the access entries of the tenant's principals on import",
    ),
    call(
        "eks:DescribeAccessEntry",
        "reads an access entry (its Kubernetes groups)",
    ),
    call("eks:CreateAccessEntry", "grants a principal access to the cluster"),
    call("eks:UpdateAccessEntry", "changes an access entry's Kubernetes groups"),
    call("eks:DeleteAccessEntry", "removes an access entry"),
    call(
        "eks:AssociateAccessPolicy",
        "associates a namespace-scoped access policy with an access entry",
    ),
    call(
        "eks:DisassociateAccessPolicy",
        "removes an access policy from an access entry",
    ),
];

const POD_IDENTITY: &[Permission] = &[
    call(
        "eks:ListPodIdentityAssociations",
        "finds the association of the tenant's service account",
    ),
    call("eks:DescribePodIdentityAssociation", "reads the association"),
    call(
        "eks:CreatePodIdentityAssociation",
        "binds the tenant's service account to its workload role",
    ),
    Permission::implied(
        "iam:PassRole",
        "eks:CreatePodIdentityAssociation",
        "EKS checks that the caller may pass the workload role (and a cross-account target role) to Pod Identity",
    )
    .when(PASSED_TO_PODS),
    call(
        "eks:UpdatePodIdentityAssociation",
        "changes the association's role or session policy",
    )
    .unexercised("only when a tenant's target role or session policy changes; the quickstart's never do (test_tenant)"),
    call("eks:DeletePodIdentityAssociation", "removes the association"),
    call("eks:TagResource", "corrects the association's tags")
        .unexercised("only when an association's tags drifted from the configuration outside Terraform"),
    call("eks:UntagResource", "removes tags the configuration no longer sets")
        .unexercised("only when an association carries tags the configuration no longer sets"),
];

const KMS_GRANTS: &[Permission] = &[
    call(
        "kms:CreateGrant",
        "grants the workload role use of the tenant's KMS keys",
    ),
    call("kms:ListGrants", "finds the grants it made"),
    call("kms:RevokeGrant", "revokes them"),
];

const ALLOCATION_CLAIM: &[Permission] = &[
    call(
        "ssm:GetParameter",
        "reads which allocation holds the cluster (`/hyperpod-governance/cluster-allocations/<cluster>`)",
    ),
    call(
        "ssm:PutParameter",
        "claims the cluster for the allocation (one allocation per cluster) and records its teams",
    ),
    Permission::implied(
        "ssm:AddTagsToResource",
        "ssm:PutParameter",
        "tags that record when the claim is created (SSM checks ssm:AddTagsToResource on a PutParameter with tags)",
    ),
    call("ssm:DeleteParameter", "gives the claim up with the allocation"),
];

const SCHEDULER_CONFIG: &[Permission] = &[
    call(
        "sagemaker:ListClusterSchedulerConfigs",
        "finds the cluster's scheduler config",
    ),
    call(
        "sagemaker:DescribeClusterSchedulerConfig",
        "reads it and waits for its status",
    ),
    call(
        "sagemaker:CreateClusterSchedulerConfig",
        "creates the cluster's scheduling policy",
    ),
    call(
        "sagemaker:AddTags",
        "creates the config with its tags (SageMaker checks sagemaker:AddTags on a create with tags) and corrects \
         drifted tags",
    )
    .also_implied_by("sagemaker:CreateClusterSchedulerConfig"),
    call("sagemaker:ListTags", "reads the config's tags"),
    call("sagemaker:DeleteTags", "removes tags the configuration no longer sets")
        .unexercised("only when a scheduling policy's tags are removed from the configuration"),
    call(
        "sagemaker:UpdateClusterSchedulerConfig",
        "changes the scheduling policy",
    ),
    call(
        "sagemaker:DeleteClusterSchedulerConfig",
        "deletes the scheduling policy",
    ),
];

const CONNECTIONS: &[Permission] = &[
    call(
        "datazone:ListConnections",
        "lists the project's (and the domain's) HyperPod connections",
    ),
    call(
        "datazone:GetConnection",
        "reads the connection and waits for it to be ready or gone",
    ),
    call("datazone:CreateConnection", "creates the project's HyperPod connection"),
    call("datazone:UpdateConnection", "changes the connection's description"),
    call("datazone:DeleteConnection", "deletes the connection"),
    call("datazone:ListProjectMemberships", "reads the project's members"),
    call(
        "datazone:CreateProjectMembership",
        "adds the binding's members to the project",
    ),
    call(
        "datazone:DeleteProjectMembership",
        "removes them, unless another binding of the project declares them",
    ),
    call(
        "ssm:PutParameter",
        "records the members the binding declares (`/hyperpod-governance/project-members/<domain>/<project>/<cluster>`), \
         so a member two bindings of a project declare stays while either does",
    ),
    Permission::implied(
        "ssm:AddTagsToResource",
        "ssm:PutParameter",
        "tags that record when it is created (SSM checks ssm:AddTagsToResource on a PutParameter with tags)",
    ),
    call(
        "ssm:GetParametersByPath",
        "reads what the project's other bindings declare before removing a member",
    ),
    call("ssm:DeleteParameter", "removes the record with the binding"),
    call(
        "datazone:SearchGroupProfiles",
        "resolves a member group's name to the group profile ID the project lists it by",
    ),
    call(
        "datazone:GetGroupProfile",
        "resolves a member group given by ID to its group profile",
    )
    .unexercised("only for a member group given by its profile or Identity Center ID (test_datazone_identities)"),
    call(
        "datazone:SearchUserProfiles",
        "resolves a member user's Identity Center name to the user profile ID",
    )
    .unexercised("only for a user member given by name (test_datazone_identities; PRJ-1 warns about users)"),
    call(
        "datazone:GetUserProfile",
        "resolves a member user given by ID or IAM ARN to its user profile",
    )
    .unexercised("only for a user member given by ID or IAM ARN (test_datazone_identities)"),
];

const POLICY_GRANTS: &[Permission] = &[
    call(
        "datazone:GetDomain",
        "tells a missing domain from a missing domain unit in a plan error",
    )
    .unexercised("only to explain a plan that names a domain unit that does not exist (test_domain_unit_policy_grant)"),
    call("datazone:GetDomainUnit", "checks the domain unit the grant is on"),
    call(
        "datazone:ListProjectProfiles",
        "names the existing project profiles in a plan error",
    )
    .unexercised(
        "only to explain a plan that names a project profile that does not exist (test_domain_unit_policy_grant)",
    ),
    call("datazone:GetProjectProfile", "reads a project profile"),
    call("datazone:ListPolicyGrants", "finds the grant on the domain unit"),
    call(
        "datazone:AddPolicyGrant",
        "grants creating projects from the profiles on the domain unit",
    ),
    call("datazone:RemovePolicyGrant", "removes the grant"),
    call(
        "datazone:SearchGroupProfiles",
        "resolves a group principal's name to the group profile ID DataZone lists grants by",
    )
    .unexercised("only for a grant to a group (the quickstart grants to domain-unit owners; test_datazone_identities)"),
    call(
        "datazone:GetGroupProfile",
        "resolves a group principal given by ID to its group profile",
    )
    .unexercised("only for a grant to a group given by ID (test_datazone_identities)"),
    call(
        "datazone:SearchUserProfiles",
        "resolves a user principal's Identity Center name to the user profile ID",
    )
    .unexercised("only for a grant to a user given by name (test_datazone_identities)"),
    call(
        "datazone:GetUserProfile",
        "resolves a user principal given by ID or IAM ARN to its user profile",
    )
    .unexercised("only for a grant to a user given by ID or IAM ARN (test_domain_unit_policy_grant)"),
];

const RESTRICTION_WRITES: &[Permission] = &[
    call("eks:DescribeAccessEntry", "reads the project role's access entry"),
    call("eks:CreateAccessEntry", "creates the project role's access entry"),
    call(
        "eks:UpdateAccessEntry",
        "sets the entry's Kubernetes groups (rbac mode)",
    ),
    call("eks:DeleteAccessEntry", "removes the entry the restriction created"),
    call(
        "eks:AssociateAccessPolicy",
        "associates the view policy, scoped to the team's namespaces (access_policy mode)",
    ),
    call(
        "eks:DisassociateAccessPolicy",
        "removes access policies the restriction no longer allows",
    ),
    call("iam:GetRole", "reads the project role's tags"),
    call(
        "iam:TagRole",
        "tags the project role with the restriction it is under (Slurm)",
    ),
    call(
        "iam:UntagRole",
        "removes that tag when the restriction goes away (Slurm)",
    ),
];

const TEAM_METRICS: &[Permission] = &[call(
    "cloudwatch:GetMetricData",
    "reads the Kueue metrics Container Insights publishes (`ContainerInsights/Prometheus`) for each team's queue",
)];

const SESSION_PREFERENCES: &[Permission] = &[call(
    "ssm:GetDocument",
    "reads the Session Manager preferences (Run As) a Slurm restriction relies on",
)];

// ---- Kubernetes RBAC ---------------------------------------------------------------------------------------------

const READ: &[&str] = &["get", "list"];
const WRITE: &[&str] = &["get", "list", "create", "update", "delete"];

const TENANT_RBAC: &[Rbac] = &[
    Rbac {
        api_group: "",
        resource: "namespaces",
        verbs: READ,
        why: "waits for the namespace the compute quota creates",
    },
    Rbac {
        api_group: "",
        resource: "serviceaccounts",
        verbs: WRITE,
        why: "the tenant's workload service account",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "roles",
        verbs: WRITE,
        why: "the viewer and operator roles (creating a role that grants verbs needs those verbs, or `escalate`)",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "rolebindings",
        verbs: WRITE,
        why: "binds the roles to the groups (needs `bind` on the roles, or their verbs)",
    },
    Rbac {
        api_group: "networking.k8s.io",
        resource: "networkpolicies",
        verbs: WRITE,
        why: "default-deny network policies with the explicit allows",
    },
];

const RESTRICTION_RBAC: &[Rbac] = &[
    Rbac {
        api_group: "",
        resource: "namespaces",
        verbs: &["get"],
        why: "checks, at plan and before its first write, that the namespaces it writes into exist (rbac mode)",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "roles",
        verbs: WRITE,
        why: "the task viewer role in each namespace (rbac mode)",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "rolebindings",
        verbs: WRITE,
        why: "binds it to the project role's group",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "clusterroles",
        verbs: WRITE,
        why: "the read-only probes role (rbac mode)",
    },
    Rbac {
        api_group: "rbac.authorization.k8s.io",
        resource: "clusterrolebindings",
        verbs: WRITE,
        why: "binds it to the project role's group",
    },
];

// ---- the table ---------------------------------------------------------------------------------------------------

/// Every caller: the configure step, each resource, data source and function (a test checks the provider has no
/// other and this table no stale one).
pub const CALLERS: &[Caller] = &[
    Caller {
        name: "provider",
        kind: Kind::Provider,
        aws: &[IDENTITY],
        kubernetes: &[],
    },
    Caller {
        name: "hyperpod_cluster_allocation",
        kind: Kind::Resource,
        aws: &[HYPERPOD_CLUSTER, ALLOCATION_CLAIM],
        kubernetes: &[],
    },
    Caller {
        name: "hyperpod_connection_contract",
        kind: Kind::Resource,
        aws: &[
            HYPERPOD_CLUSTER,
            EKS_CLUSTER,
            EKS_ADDONS,
            CLUSTER_FACTS,
            PROJECT_FACTS,
            ROLE_POLICIES,
            CONTRACT_FACTS,
        ],
        kubernetes: &[],
    },
    Caller {
        name: "hyperpod_tenant",
        kind: Kind::Resource,
        aws: &[
            HYPERPOD_CLUSTER,
            EKS_CLUSTER,
            EKS_ADDONS,
            CLUSTER_FACTS,
            TENANT_ROLE,
            COMPUTE_QUOTA,
            ACCESS_ENTRIES,
            POD_IDENTITY,
            KMS_GRANTS,
        ],
        kubernetes: TENANT_RBAC,
    },
    Caller {
        name: "hyperpod_scheduling_policy",
        kind: Kind::Resource,
        aws: &[HYPERPOD_CLUSTER, EKS_ADDONS, SCHEDULER_CONFIG],
        kubernetes: &[],
    },
    Caller {
        name: "hyperpod_unified_studio_project_binding",
        kind: Kind::Resource,
        aws: &[HYPERPOD_CLUSTER, CLUSTER_FACTS, PROJECT_FACTS, CONNECTIONS],
        kubernetes: &[],
    },
    Caller {
        name: "hyperpod_task_view_restriction",
        kind: Kind::Resource,
        aws: &[
            HYPERPOD_CLUSTER,
            EKS_CLUSTER,
            CLUSTER_FACTS,
            ROLE_POLICIES,
            RESTRICTION_WRITES,
            SESSION_PREFERENCES,
        ],
        kubernetes: RESTRICTION_RBAC,
    },
    Caller {
        name: "hyperpod_domain_unit_policy_grant",
        kind: Kind::Resource,
        aws: &[POLICY_GRANTS],
        kubernetes: &[],
    },
    Caller {
        name: "data.hyperpod_cluster",
        kind: Kind::DataSource,
        aws: &[HYPERPOD_CLUSTER],
        kubernetes: &[],
    },
    Caller {
        name: "data.hyperpod_team_usage",
        kind: Kind::DataSource,
        aws: &[HYPERPOD_CLUSTER, TEAM_METRICS],
        kubernetes: &[],
    },
    Caller {
        name: "review_status",
        kind: Kind::Function,
        aws: &[],
        kubernetes: &[],
    },
    Caller {
        name: "next_review_date",
        kind: Kind::Function,
        aws: &[],
        kubernetes: &[],
    },
    Caller {
        name: "team_namespace",
        kind: Kind::Function,
        aws: &[],
        kubernetes: &[],
    },
];

pub fn caller(name: &str) -> Option<&'static Caller> {
    CALLERS.iter().find(|caller| caller.name == name)
}

/// Every permission of every caller, each action once (for the whole provider's policy).
pub fn all_permissions() -> Vec<Permission> {
    merge(
        CALLERS
            .iter()
            .flat_map(|caller| caller.aws.iter().flat_map(|group| group.iter())),
    )
}

fn merge<'a>(permissions: impl Iterator<Item = &'a Permission>) -> Vec<Permission> {
    let mut merged: Vec<Permission> = Vec::new();
    for permission in permissions {
        match merged.iter_mut().find(|p| p.action == permission.action) {
            Some(existing) => {
                existing.called |= permission.called;
                existing.implied_by = existing.implied_by.or(permission.implied_by);
                existing.granted |= permission.granted;
                existing.condition = existing.condition.or(permission.condition);
                if permission.unexercised.is_none() {
                    existing.unexercised = None;
                }
            }
            None => merged.push(*permission),
        }
    }
    merged
}

/// The whole provider's policy: the union of every caller's.
pub fn provider_policy() -> Option<Value> {
    policy_document(all_permissions())
}

/// An IAM policy document granting `permissions` (those AWS grants to everyone left out): one statement per service
/// and condition, actions sorted, on every resource (narrow `Resource` to your clusters, roles and keys if you like;
/// docs/guides/permissions.md says how).
pub fn policy_document(permissions: impl IntoIterator<Item = Permission>) -> Option<Value> {
    // One statement per (service, condition key): the condition and its actions.
    type Statements = BTreeMap<(&'static str, Option<&'static str>), (Option<Condition>, BTreeSet<&'static str>)>;
    let mut statements = Statements::new();
    for permission in permissions.into_iter().filter(|p| p.granted) {
        let key = (permission.service(), permission.condition.map(|c| c.key));
        let entry = statements.entry(key).or_insert((permission.condition, BTreeSet::new()));
        entry.1.insert(permission.action);
    }
    if statements.is_empty() {
        return None;
    }
    let statement: Vec<Value> = statements
        .into_iter()
        .map(|((service, _), (condition, actions))| {
            let mut statement = json!({
                "Sid": statement_id(service, condition.as_ref()),
                "Effect": "Allow",
                "Action": actions.into_iter().collect::<Vec<_>>(),
                "Resource": "*",
            });
            if let Some(condition) = condition {
                statement["Condition"] = json!({ condition.operator: { condition.key: condition.values } });
            }
            statement
        })
        .collect();
    Some(json!({ "Version": "2012-10-17", "Statement": statement }))
}

fn statement_id(service: &str, condition: Option<&Condition>) -> String {
    let name = match service {
        "sagemaker" => "SageMaker",
        "cloudwatch" => "CloudWatch",
        "datazone" => "DataZone",
        "eks" => "Eks",
        "iam" => "Iam",
        "kms" => "Kms",
        "ssm" => "Ssm",
        "sts" => "Sts",
        other => other,
    };
    match condition {
        Some(condition) if condition.key == "iam:PassedToService" => format!("{name}PassRoleToEksPodIdentity"),
        Some(_) => format!("{name}Conditional"),
        None => name.to_string(),
    }
}

/// The whole table as data, for tools and the acceptance suite (the last section of docs/guides/permissions.md):
/// `{caller: {kind, actions: {action: {source, granted, unexercised}}, kubernetes: [{api_group, resource, verbs}]}}`.
pub fn as_json() -> Value {
    let mut callers = serde_json::Map::new();
    for caller in CALLERS {
        let mut actions = serde_json::Map::new();
        for permission in caller.permissions() {
            actions.insert(
                permission.action.to_string(),
                json!({
                    "called": permission.called,
                    "implied_by": permission.implied_by,
                    "granted": permission.granted,
                    "unexercised": permission.unexercised,
                }),
            );
        }
        let kubernetes: Vec<Value> = caller
            .kubernetes
            .iter()
            .map(|rbac| json!({ "api_group": rbac.api_group, "resource": rbac.resource, "verbs": rbac.verbs }))
            .collect();
        callers.insert(
            caller.name.to_string(),
            json!({ "kind": caller.kind.label(), "actions": actions, "kubernetes": kubernetes }),
        );
    }
    Value::Object(callers)
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
