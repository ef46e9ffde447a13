# A deliberately mis-governed configuration: `make demo` plans it after the quickstart and shows the plan failing,
# each diagnostic naming its rule, the attribute, what was found and the fix. Nothing here can be applied.

terraform {
  required_providers {
    hyperpod = {
      source = "hyperpod-governance/hyperpod"
    }
  }
}

provider "hyperpod" {
  region = "us-west-2"
}

resource "hyperpod_connection_contract" "research" {
  name = "research-on-ml-capacity"

  owners {
    business   = "head-of-research@example.com"
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }

  unified_studio {
    domain_id      = "dzd_capacity01"
    domain_unit_id = "mlplatform0001"
    project_id     = "research000001"
  }

  cluster {
    account_id   = "123456789012"
    region       = "us-west-2"
    name         = "ml-capacity"
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::123456789012:role/datazone_usr_role_research"
  access_role_arn         = "arn:aws:iam::123456789012:role/hyperpod-connection-access"
  approved_workload_types = ["training"]
  data_classification     = "internal"
  eks_namespaces          = ["hyperpod-ns-research"]
  approved_public_cidrs   = ["203.0.113.0/24"]

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
    last_reviewed = "2026-11-20"
    approved_by   = "security-lead@example.com"
  }
}

resource "hyperpod_tenant" "research" {
  contract = hyperpod_connection_contract.research.governance
  team     = "research"

  # WKL-3: more p5 instances than the cluster has.
  quota {
    instance_type = "ml.p5.48xlarge"
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
