# The research project's approved use of the shared cluster `ml-capacity`. Reviewers approve this record in the
# pull request; `terraform plan` checks it against the live account, and `passed_checks` and `findings` list the
# outcome of each rule.
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
  approved_workload_types = ["training", "interactive"]
  data_classification     = "internal"
  eks_namespaces          = ["hyperpod-ns-research"]
  approved_account_ids    = ["444455556666", "777788889999"]
  approved_public_cidrs   = ["203.0.113.0/24"]

  scheduling {
    policy          = "borrow idle capacity at low priority; preempted when production needs it"
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "team-utilization"
      owner    = "research-leads@example.com"
      response = "rebalance quotas at the monthly capacity review"
    }
    signal {
      name     = "borrowed-capacity"
      owner    = "ml-platform-oncall@example.com"
      response = "lower the borrow limit if production waits"
    }
  }

  support      = "ml-platform on-call, business hours"
  decommission = "remove the binding, then the tenant; keep data 90 days"

  review {
    interval_days = 90
    last_reviewed = "2026-11-20"
    approved_by   = "security-lead@example.com"
  }

  exception {
    rule    = "WKL-8"
    owner   = "ml-platform-leads@example.com"
    expires = "2027-01-31"
    reason  = "legacy notebooks need open egress until the proxy lands"
  }
}

# The production project on the same cluster. Its project was created under the ML platform unit's project-creation
# grant: naming that grant in `organization` makes ORG-1 also check that the grant covers the project's domain unit
# and approves the profile the project was created from.
resource "hyperpod_connection_contract" "production" {
  name = "production-on-ml-capacity"

  owners {
    business   = "head-of-product-ml@example.com"
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }

  unified_studio {
    domain_id      = "dzd_capacity01"
    domain_unit_id = "mlplatform0001"
    project_id     = "production0001"
  }

  cluster {
    account_id   = "123456789012"
    region       = "us-west-2"
    name         = "ml-capacity"
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::123456789012:role/datazone_usr_role_production"
  access_role_arn         = "arn:aws:iam::123456789012:role/hyperpod-connection-access"
  approved_workload_types = ["training", "inference"]
  data_classification     = "confidential"
  eks_namespaces          = ["hyperpod-ns-production"]
  approved_public_cidrs   = ["203.0.113.0/24"]
  organization            = hyperpod_domain_unit_policy_grant.hyperpod_projects.governance

  scheduling {
    policy          = "guaranteed share at high priority; lends idle capacity"
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "team-utilization"
      owner    = "production-leads@example.com"
      response = "rebalance quotas at the monthly capacity review"
    }
  }

  support      = "ml-platform on-call, 24x7"
  decommission = "remove the binding, then the tenant; keep data 90 days"

  review {
    interval_days = 90
    last_reviewed = "2026-11-20"
    approved_by   = "security-lead@example.com"
  }
}

# The research project on the Slurm cluster `slurm-capacity`: Slurm accounts and partitions instead of namespaces.
resource "hyperpod_connection_contract" "research_slurm" {
  name = "research-on-slurm-capacity"

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
    name         = "slurm-capacity"
    orchestrator = "slurm"
  }

  project_role_arn        = "arn:aws:iam::123456789012:role/datazone_usr_role_research"
  access_role_arn         = "arn:aws:iam::123456789012:role/hyperpod-connection-access"
  approved_workload_types = ["training"]
  data_classification     = "internal"

  slurm {
    accounts   = ["research"]
    partitions = ["gpu"]
  }

  scheduling {
    policy          = "fair share within the gpu partition"
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "queue-wait"
      owner    = "research-leads@example.com"
      response = "raise the research fairshare at the monthly capacity review"
    }
  }

  support      = "ml-platform on-call, business hours"
  decommission = "remove the task view restriction, then the tenant"

  review {
    interval_days = 90
    last_reviewed = "2026-11-20"
    approved_by   = "security-lead@example.com"
  }
}

# Dependents take the facts they check against from `governance`, known at plan time.
output "research_namespaces" {
  value = hyperpod_connection_contract.research.governance.eks_namespaces
}
