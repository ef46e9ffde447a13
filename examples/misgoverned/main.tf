# A deliberately mis-governed configuration: `make demo` plans it after the quickstart and shows what apply refuses,
# each warning naming its rule, the attribute, what was found and the fix; its report is not compliant and its apply
# refuses the tenant before anything of it is written. Nothing of the tenant can be applied.

terraform {
  required_providers {
    hyperpod = {
      source = "hyperpod-governance/hyperpod"
    }
  }
}

provider "hyperpod" {
  region = var.region
}

resource "hyperpod_connection_contract" "research" {
  name = "research-on-${var.cluster_name}"

  owners {
    business   = "head-of-research@example.com"
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }

  unified_studio {
    domain_id      = var.domain_id
    domain_unit_id = var.domain_unit_id
    project_id     = var.teams["research"].project_id
  }

  cluster {
    account_id   = var.capacity_account_id
    region       = var.region
    name         = var.cluster_name
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::${var.capacity_account_id}:role/${var.teams["research"].project_role_name}"
  access_role_arn         = "arn:aws:iam::${var.capacity_account_id}:role/${var.connection_access_role_name}"
  approved_workload_types = ["training"]
  data_classification     = "internal"
  eks_namespaces          = ["hyperpod-ns-research"]
  approved_public_cidrs   = [var.approved_public_cidr]

  scheduling {
    policy          = "borrow idle capacity at low priority"
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "team-utilization"
      owner    = "research-leads@example.com"
      response = "rebalance quotas at the monthly capacity review"
    }
  }

  support      = "ml-platform on-call, business hours"
  decommission = "remove the binding, then the tenant"

  review {
    interval_days = 90
    last_reviewed = var.last_reviewed
    approved_by   = "security-lead@example.com"
  }
}

resource "hyperpod_tenant" "research" {
  contract = hyperpod_connection_contract.research.governance
  team     = "research"

  # WKL-3: more training instances than the cluster has (its training group has 8).
  quota {
    instance_type = var.instance_types.training
    count         = 9
  }

  # WKL-7: viewers that can create.
  viewer_groups   = ["research-viewers"]
  viewer_verbs    = ["get", "list", "watch", "create"]
  operator_groups = ["research-operators"]

  # WKL-8: no default deny, and no exception in the contract.
  network_policy {
    default_deny = false
  }

  # ORG-2: a target role in an account the contract does not approve.
  workload {
    service_account = "research-jobs"
    target_role_arn = "arn:aws:iam::999999999999:role/research-data"
  }
}
