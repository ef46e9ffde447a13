# Where each project meets the cluster. Restrict what its Studio users see before a second team is onboarded
# (CLU-2), then make the cluster available to the project only under its approved contract.
resource "hyperpod_task_view_restriction" "team" {
  for_each = local.teams
  contract = hyperpod_connection_contract.team[each.key].governance
}

resource "hyperpod_unified_studio_project_binding" "team" {
  for_each         = local.teams
  contract         = hyperpod_connection_contract.team[each.key].governance
  project_id       = each.value.project_id
  cluster_name     = var.cluster_name
  project_role_arn = hyperpod_connection_contract.team[each.key].project_role_arn
  description      = "${each.key} on the shared ${var.cluster_name} capacity"

  member {
    name        = "${each.key}-leads"
    designation = "PROJECT_OWNER"
  }
  member {
    name        = "${each.key}-scientists"
    designation = "PROJECT_CONTRIBUTOR"
  }

  # The tenants of the contract's namespaces (WKL-1) and the restriction (CLU-2) are planned first.
  depends_on = [hyperpod_tenant.production, hyperpod_tenant.research, hyperpod_task_view_restriction.team]
}
