//! Whose an object of the tenant's name is: the tenant never takes over a compute quota or an IAM role it cannot
//! prove its own (`crate::tags::is_tenants_own`). The refusals the plan and apply give, each at the argument to
//! change and with the way out.

use super::super::schema::TenantModel as M;
use crate::aws::compute_quota::ComputeQuota;
use crate::protocol::diagnostics::Diagnostic;

/// A role of the workload role's name that the tenant did not create: never taken over.
pub fn foreign_role(role_name: &str) -> Diagnostic {
    Diagnostic::invalid_value(
        M::WORKLOAD_ROLE_NAME.path(),
        format!("{role_name:?}"),
        "an IAM role of that name already exists and is not this tenant's (its hyperpod:tenant and \
         hyperpod:cluster tags do not name it)",
        "choose another workload_role_name; the tenant never takes over a role it did not create",
    )
}

/// The refusal of a compute quota the tenant would need but cannot prove is its own: at `team`, with the import ID.
pub fn foreign_quota(quota: &ComputeQuota, cluster: &str, team: &str) -> Diagnostic {
    Diagnostic::error(
        M::TEAM.path(),
        "A compute quota for this team already exists",
        format!(
            "Compute quota {:?} ({}) for team {:?} on cluster {cluster:?} exists, and its hyperpod:tenant and \
             hyperpod:cluster tags do not name this tenant, so the tenant does not take it over (SageMaker allows \
             one quota per team and cluster). If it is this tenant's, import it: `terraform import \
             <address> {cluster}/{team}` (or an import block with id = \"{cluster}/{team}\"); otherwise delete \
             it or choose another team.",
            quota.name, quota.id, quota.team_name
        ),
    )
}
