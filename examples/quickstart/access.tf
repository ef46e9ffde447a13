# Where each project meets the cluster. Restrict what its Studio users see before a second team is onboarded
# (CLU-2), then make the cluster available to the project only under its approved contract.
resource "hyperpod_task_view_restriction" "team" {
  for_each = local.teams
  contract = hyperpod_connection_contract.team[each.key].governance
  # The tenant that creates the team's namespace (`mode = "rbac"` writes Roles into it): applied first.
  tenants = [local.tenants[each.key].governance]
}

resource "hyperpod_unified_studio_project_binding" "team" {
  for_each         = local.teams
  contract         = hyperpod_connection_contract.team[each.key].governance
  project_id       = each.value.project_id
  cluster_name     = var.cluster_name
  project_role_arn = hyperpod_connection_contract.team[each.key].project_role_arn
  description      = "${each.key} on the shared ${var.cluster_name} capacity"

  # What the plan checks the binding against: CLU-2 (the project's task view is restricted) and WKL-1 (every
  # namespace of the contract has a tenant). The references also order the plans.
  task_view_restriction = hyperpod_task_view_restriction.team[each.key].governance
  tenants               = [local.tenants[each.key].governance]

  member {
    name        = var.teams[each.key].owner_group
    designation = "PROJECT_OWNER"
  }
  member {
    name        = var.teams[each.key].contributor_group
    designation = "PROJECT_CONTRIBUTOR"
  }
}
