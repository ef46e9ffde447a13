# The contracts the reviewer approves, one per project-to-cluster connection. `terraform plan` verifies each against
# the live account (project, domain unit, roles and their permissions, cluster, EKS endpoint and add-ons).
locals {
  teams = {
    production = {
      project_id = var.teams["production"].project_id
      business   = "head-of-product-ml@example.com"
      workloads  = ["training", "inference"]
      policy     = "guaranteed share at high priority; borrows idle research capacity"
      accounts   = []
    }
    research = {
      project_id = var.teams["research"].project_id
      business   = "head-of-research@example.com"
      workloads  = ["training", "interactive"]
      policy     = "guaranteed share and MIG slices; interactive spaces first; lends idle capacity, never borrows"
      accounts   = [var.consumer_account_id] # the research consumer account its workloads reach
    }
  }
}

# The organization layer: only the ML platform domain unit's owners may create projects, and only from the approved
# HyperPod project profile. Each contract names this grant, so ORG-1 checks its project against it.
resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {
  domain_id           = var.domain_id
  domain_unit_id      = var.domain_unit_id
  project_profile_ids = [var.project_profile_id]

  principal {
    domain_unit_id = var.domain_unit_id
    designation    = "OWNER"
  }
}

resource "hyperpod_connection_contract" "team" {
  for_each = local.teams
  name     = "${each.key}-on-${var.cluster_name}"

  owners {
    business   = each.value.business
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }

  unified_studio {
    domain_id      = var.domain_id
    domain_unit_id = var.domain_unit_id
    project_id     = each.value.project_id
  }

  cluster {
    account_id   = var.capacity_account_id
    region       = var.region
    name         = var.cluster_name
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::${var.capacity_account_id}:role/${var.teams[each.key].project_role_name}"
  access_role_arn         = "arn:aws:iam::${var.capacity_account_id}:role/${var.connection_access_role_name}"
  approved_workload_types = each.value.workloads
  data_classification     = "internal"
  eks_namespaces          = [provider::hyperpod::team_namespace(each.key)]
  approved_account_ids    = each.value.accounts
  approved_public_cidrs   = [var.approved_public_cidr]
  organization            = hyperpod_domain_unit_policy_grant.hyperpod_projects.governance

  scheduling {
    policy          = each.value.policy
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "team-utilization"
      owner    = "${each.key}-leads@example.com"
      response = "rebalance quotas at the monthly capacity review"
    }
  }

  support      = "ml-platform on-call, business hours"
  decommission = "remove the binding, then the tenant; keep data 90 days"

  review {
    interval_days = 90
    last_reviewed = var.last_reviewed
    approved_by   = "security-lead@example.com"
  }
}
