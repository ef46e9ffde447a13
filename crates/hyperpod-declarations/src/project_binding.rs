//! `hyperpod_unified_studio_project_binding` schema: the project, cluster and contract it binds, the groups that
//! collaborate in the project, and, computed at plan time, where the connection lives and the reviewer's checklist.

use std::time::Duration;

use crate::checklist::ChecklistAttributes;
use crate::governance_objects::ContractArgument;
use crate::handoff::CapacityHandoffs;
use crate::names::ENTITY_NAME;
use crate::protocol::deadline::Operation;
use crate::protocol::model::{Field, Model};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::validators::{LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};
use crate::validators::IsArn;

// The resource's one declaration (`#[derive(Model)]`, docs/design/typed-values.md): its schema, docs and typed value
// come from it. Doc comments are the user-facing descriptions. The handoffs (`contract`, `task_view_restriction`,
// `allocation`, `tenants`) are kept as the values Terraform sends: each is read by the reader of the resource that
// writes it (`references`, `handoff`), which holds a hand-written one to that resource's rules at its own path.

pub const TYPE_NAME: &str = "hyperpod_unified_studio_project_binding";

/// DataZone `DomainId`.
pub const DOMAIN_ID: &str = "dzd[-_][a-zA-Z0-9_-]{1,36}";
/// DataZone `ProjectId` and `EnvironmentId`.
pub const RESOURCE_ID: &str = "[a-zA-Z0-9_-]{1,36}";
/// CloudFormation's pattern for connection names (the API model gives none); at most 64 characters. Its `\w` is
/// Java's, ASCII only: spelled out, since Rust's `\w` also matches non-ASCII letters AWS refuses.
pub const CONNECTION_NAME: &str = r"[A-Za-z0-9_][A-Za-z0-9_.-]*";
pub const MEMBER_KINDS: [&str; 2] = ["group", "user"];
/// `UserDesignation` without `USER_CREATED_DESIGNATION`, which needs a custom designation this resource does not
/// manage.
pub const DESIGNATIONS: [&str; 5] = [
    "PROJECT_OWNER",
    "PROJECT_CONTRIBUTOR",
    "PROJECT_CATALOG_VIEWER",
    "PROJECT_CATALOG_CONSUMER",
    "PROJECT_CATALOG_STEWARD",
];

/// The HyperPod connection of one SageMaker Unified Studio project: a DataZone connection of type `HYPERPOD` in the
/// project's tooling environment, plus the project memberships of the groups that use it. It is created only when the
/// control layers agree, checked at plan time: an approved, unexpired contract for this project and cluster (PRJ-3,
/// LIF-3), the contract's project role, which is the project's tooling-environment user role (PRJ-4), a task view
/// restriction for every project once the cluster is shared (CLU-2), a tenant for every namespace of the contract
/// (WKL-1), and groups rather than users (PRJ-1). `passed_checks` lists the rules that passed, `findings` every other
/// one with its detail. Other HyperPod connections of the project to the same cluster exist without a contract: the
/// plan warns about them.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct BindingModel {
    /// `<domain_id>/<connection_id>`, also the import ID.
    #[tf(computed, use_state_for_unknown)]
    pub id: Field<String>,
    #[tf(flatten)]
    pub contract: ContractArgument,
    /// The project's task view restriction on this cluster, `hyperpod_task_view_restriction.<name>.governance`
    /// (CLU-2): required once other projects or teams use the cluster, unless a namespace-scoped access entry for the
    /// project role already exists.
    #[tf(write_only, optional, ty = crate::governance_objects::restriction_type())]
    pub task_view_restriction: Value,
    /// The cluster's documented split, `hyperpod_cluster_allocation.<name>.governance` (CLU-2): its teams count as
    /// the cluster's other teams on the first plan. Unset: teams planned beside this binding are not seen, so an
    /// unrestricted project alone in live state is not evaluated at plan (a warning) and is evaluated at apply. A
    /// value written by hand is held to the allocation's own rules, each problem an error at its path.
    #[tf(write_only, optional, ty = crate::cluster_allocation::governance_type())]
    pub allocation: Value,
    /// The tenants of the contract's namespaces, `[hyperpod_tenant.<name>.governance]` (WKL-1): every namespace of
    /// the contract has a tenant, referenced here or live, before Studio users reach it.
    #[tf(write_only, optional, ty = Type::list(crate::governance_objects::tenant_type()))]
    pub tenants: Value,
    /// The Unified Studio project; must be the contract's (PRJ-3). The connection lives in the project's tooling
    /// environment, so another project replaces it.
    #[tf(required, requires_replace, validate = Matches::new(RESOURCE_ID, "1 to 36 letters, digits, `_` and `-`"))]
    pub project_id: Field<String>,
    /// The HyperPod cluster; must be the contract's (PRJ-3). DataZone cannot change a connection's cluster, so
    /// another one replaces it.
    #[tf(required, requires_replace, validate = Matches::new(
        ENTITY_NAME,
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
    ))]
    pub cluster_name: Field<String>,
    /// The project role Studio users act as; must be the contract's and the project's tooling-environment user role
    /// (PRJ-4). Not sent to AWS: a change is checked, then recorded.
    #[tf(required, validate = IsArn)]
    pub project_role_arn: Field<String>,
    /// The Unified Studio domain; defaults to the contract's and must equal it.
    #[tf(optional_computed, requires_replace, validate = Matches::new(DOMAIN_ID, "a domain ID such as `dzd_abc123`"))]
    pub domain_id: Field<String>,
    /// The connection's name; defaults to `hyperpod-<cluster_name>-<project_id>` (names are unique in a domain).
    /// DataZone cannot rename a connection.
    #[tf(
        optional_computed,
        requires_replace,
        validate = Matches::new(
            CONNECTION_NAME,
            "letters, digits, `_`, `.` and `-`, starting with a letter, digit or `_`",
        ),
        validate = LengthBetween { min: 1, max: 64 }
    )]
    pub connection_name: Field<String>,
    /// The connection's description, as Studio shows it. Changed in place; removing it replaces the connection
    /// (DataZone cannot clear a description).
    #[tf(optional, validate = LengthBetween { min: 1, max: 128 })]
    pub description: Field<String>,
    /// The DataZone connection's ID.
    #[tf(computed, use_state_for_unknown)]
    pub connection_id: Field<String>,
    /// The project's tooling environment, where the connection lives; resolved at plan time. When the project's
    /// tooling environment changes, the connection is replaced.
    #[tf(computed)]
    pub environment_id: Field<String>,
    /// The cluster's ARN: known at plan time, read back from the connection.
    #[tf(computed)]
    pub cluster_arn: Field<String>,
    /// `EKS` or `SLURM`: known at plan time, read back from the connection.
    #[tf(computed)]
    pub orchestrator: Field<String>,
    #[tf(flatten)]
    pub checklist: ChecklistAttributes,
    #[tf(block)]
    pub member: Field<Vec<MemberBlock>>,
    #[tf(timeouts = (&[Operation::Create, Operation::Delete], Duration::from_mins(10)))]
    pub timeouts: Value,
}

/// A project membership the binding manages: a group (PRJ-1 warns about users) and its designation. Refresh reads
/// each back; one deleted or changed out of band shows in the next plan and apply restores it. Memberships are
/// project-wide: a member that another binding of the project (on another cluster) declares too stays while either
/// declares it. Each binding records what it declares in an SSM parameter,
/// `/hyperpod-governance/project-members/<domain>/<project>/<cluster>`, removed with it.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct MemberBlock {
    /// `group` (default) or `user`.
    #[tf(default = Value::String(MEMBER_KINDS[0].into()), validate = OneOf(&MEMBER_KINDS))]
    pub kind: Field<String>,
    /// The group as Unified Studio knows it (its name, IAM Identity Center group ID or DataZone group profile ID), or
    /// the user (Identity Center user name, user profile ID or IAM ARN). Resolved to the DataZone profile at plan
    /// time, which is how the project lists its members: a name that names no profile in the domain is refused here
    /// (a warning at plan, an error at apply). State keeps the name as written.
    #[tf(required, validate = LengthBetween { min: 1, max: 1024 })]
    pub name: Field<String>,
    /// The member's designation in the project. A change deletes and re-creates the membership.
    #[tf(required, validate = OneOf(&DESIGNATIONS))]
    pub designation: Field<String>,
}

/// What identifies a binding (`import { identity = { … } }`).
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct BindingIdentity {
    /// The Unified Studio domain.
    #[tf(required)]
    pub domain_id: Field<String>,
    /// The DataZone connection's ID.
    #[tf(required)]
    pub connection_id: Field<String>,
}

/// Where a binding takes the capacity handoffs `handoff::unreadable_capacity` holds to their sources' rules.
pub const CAPACITY_HANDOFFS: CapacityHandoffs = CapacityHandoffs {
    allocation: BindingModel::ALLOCATION.name(),
    tenant_lists: &[BindingModel::TENANTS.name()],
};

pub fn schema() -> Schema {
    // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
    Schema {
        version: 1,
        block: BindingModel::block(),
    }
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &BindingIdentity::block())
}

pub fn identity(domain_id: &str, connection_id: &str) -> Value {
    BindingIdentity {
        domain_id: Field::Known(domain_id.to_string()),
        connection_id: Field::Known(connection_id.to_string()),
    }
    .encode()
}
