# The research project's HyperPod connection to `ml-capacity`, under its approved contract. The plan checks the
# contract (approved, current, this project and cluster), the project role, the task view restrictions once the
# cluster is shared and the tenant of every namespace in the contract; `passed_checks` and `findings` list the
# outcome of each rule.
resource "hyperpod_unified_studio_project_binding" "research" {
  contract         = hyperpod_connection_contract.research.governance
  project_id       = "research000001"
  cluster_name     = "ml-capacity"
  project_role_arn = "arn:aws:iam::123456789012:role/datazone_usr_role_research"
  description      = "Research training on the shared p5 capacity"

  # Groups, not individual users (PRJ-1).
  member {
    name        = "research-leads"
    designation = "PROJECT_OWNER"
  }
  member {
    name        = "research-scientists"
    designation = "PROJECT_CONTRIBUTOR"
  }

  # The research tenant (namespace hyperpod-ns-research, WKL-1) and the project's task view restriction (CLU-2).
  task_view_restriction = hyperpod_task_view_restriction.research.governance
  tenants               = [hyperpod_tenant.research.governance]
}
