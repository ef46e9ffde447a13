# The two teams on the cluster. Production: 60 % of the cluster guaranteed at high priority, lending what it does not
# use. Research: two p5 instances guaranteed, borrowing idle capacity (up to 50 % more) at low priority, never
# preempting others, its pods reaching the consumer account's role and its data key.
resource "hyperpod_tenant" "production" {
  contract          = hyperpod_connection_contract.team["production"].governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  team              = "production"

  quota {
    instance_type = "ml.p5.48xlarge"
    count         = 5
  }
  quota {
    instance_type = "ml.g5.8xlarge"
    count         = 2
  }

  sharing {
    strategy = "Lend"
  }

  preempt_team_tasks = "LowerPriority"
  fair_share_weight  = 90
  priority_class     = "production"

  viewer_groups           = ["production-viewers"]
  viewer_principal_arns   = ["arn:aws:iam::${var.capacity_account_id}:role/production-viewers"]
  operator_groups         = ["production-operators"]
  operator_principal_arns = ["arn:aws:iam::${var.capacity_account_id}:role/production-operators"]

  workload {
    service_account = "production-jobs"
  }
}

resource "hyperpod_tenant" "research" {
  contract          = hyperpod_connection_contract.team["research"].governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  team              = "research"

  quota {
    instance_type = "ml.p5.48xlarge"
    count         = 2
  }

  sharing {
    strategy     = "LendAndBorrow"
    borrow_limit = 50
  }
  # WKL-5 and WKL-3 on the first plan: research borrows what production lends, and both quotas must fit.
  borrows_from = [hyperpod_tenant.production.governance]

  preempt_team_tasks = "Never"
  fair_share_weight  = 10
  priority_class     = "research"

  viewer_groups           = ["research-viewers"]
  viewer_principal_arns   = ["arn:aws:iam::${var.capacity_account_id}:role/research-viewers"]
  operator_groups         = ["research-operators"]
  operator_principal_arns = ["arn:aws:iam::${var.capacity_account_id}:role/research-operators"]

  workload {
    service_account = "research-jobs"
    target_role_arn = "arn:aws:iam::444455556666:role/research-consumer"
  }

  data {
    kms_keys = ["arn:aws:kms:${var.region}:${var.capacity_account_id}:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"]
  }
}

# The bindings reference each team's tenant (WKL-1).
locals {
  tenants = {
    production = hyperpod_tenant.production
    research   = hyperpod_tenant.research
  }
}
