# The contracts the reviewer approves, one per project-to-cluster connection. `terraform plan` verifies each against
# the live account (project, domain unit, roles and their permissions, cluster, EKS endpoint and add-ons).
locals {
  teams = {
    production = {
      project_id = "production0001"
      business   = "head-of-product-ml@example.com"
      workloads  = ["training", "inference"]
      policy     = "guaranteed share at high priority; lends idle capacity"
      accounts   = []
    }
    research = {
      project_id = "research000001"
      business   = "head-of-research@example.com"
      workloads  = ["training", "interactive"]
      policy     = "borrow idle capacity at low priority; preempted when production needs it"
      accounts   = ["444455556666"] # the research consumer account its workloads reach
    }
  }
}

# The organization layer: only the ML platform domain unit's owners may create projects, and only from the approved
# HyperPod project profile. Each contract names this grant, so ORG-1 checks its project against it.
resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {
  domain_id           = "dzd_capacity01"
  domain_unit_id      = "mlplatform0001"
  project_profile_ids = ["hyperpodprof01"]

  principal {
    domain_unit_id = "mlplatform0001"
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
    domain_id      = "dzd_capacity01"
    domain_unit_id = "mlplatform0001"
    project_id     = each.value.project_id
  }

  cluster {
    account_id   = var.capacity_account_id
    region       = var.region
    name         = var.cluster_name
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::${var.capacity_account_id}:role/datazone_usr_role_${each.key}"
  access_role_arn         = "arn:aws:iam::${var.capacity_account_id}:role/hyperpod-connection-access"
  approved_workload_types = each.value.workloads
  data_classification     = "internal"
  eks_namespaces          = [provider::hyperpod::team_namespace(each.key)]
  approved_account_ids    = each.value.accounts
  approved_public_cidrs   = ["203.0.113.0/24"]
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

variable "last_reviewed" {
  description = "When the accountable administrator last reviewed the contracts."
  type        = string
  default     = "2026-11-20"
}
