# The two teams on the cluster. Production: 60 % of the cluster guaranteed at high priority, bursting into idle
# research capacity (up to 50 % more). Research: two training (p5) instances and 56 MIG slices guaranteed, never
# preempting others, lending what it does not use but never borrowing, so a reclaim never preempts its interactive
# spaces (JupyterLab, Code Editor), which run first at their own class on a share of its slices; its pods reach the
# consumer account's role and its data key.
resource "hyperpod_tenant" "production" {
  contract          = hyperpod_connection_contract.team["production"].governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance
  team              = "production"

  # Its share of the cluster's allocation (main.tf), the same value the allocation documents.
  dynamic "quota" {
    for_each = local.guaranteed["production"]
    content {
      instance_type         = quota.value.instance_type
      count                 = quota.value.count
      accelerator_partition = quota.value.accelerator_partition
    }
  }

  sharing {
    strategy     = "LendAndBorrow"
    borrow_limit = 50
  }
  # WKL-5 on the first plan: production borrows what research lends.
  borrows_from = [hyperpod_tenant.research.governance]

  preempt_team_tasks = "LowerPriority"
  fair_share_weight  = 90
  priority_class     = "production"

  viewer_groups           = ["production-viewers"]
  viewer_principal_arns   = ["arn:aws:iam::${var.capacity_account_id}:role/${var.teams["production"].viewer_role_name}"]
  operator_groups         = ["production-operators"]
  operator_principal_arns = ["arn:aws:iam::${var.capacity_account_id}:role/${var.teams["production"].operator_role_name}"]

  workload {
    service_account = "production-jobs"
  }
}

resource "hyperpod_tenant" "research" {
  contract          = hyperpod_connection_contract.team["research"].governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance
  team              = "research"

  dynamic "quota" {
    for_each = local.guaranteed["research"]
    content {
      instance_type         = quota.value.instance_type
      count                 = quota.value.count
      accelerator_partition = quota.value.accelerator_partition
    }
  }

  sharing {
    strategy = "Lend"
  }

  # Interactive development under the allocation policy (WKL-12; the contract approves "interactive"): spaces run
  # at their own class, ahead of the team's batch tasks, on 28 of its 56 slices kept for peak demand, and the
  # viewer and operator Roles cover Workspaces in the team namespace.
  spaces {
    priority_class = "interactive"
    guaranteed = [{
      instance_type         = var.instance_types.partitioned
      accelerator_partition = { type = "mig-1g.5gb", count = 28 }
    }]
  }

  preempt_team_tasks = "Never"
  fair_share_weight  = 10
  priority_class     = "research"

  viewer_groups           = ["research-viewers"]
  viewer_principal_arns   = ["arn:aws:iam::${var.capacity_account_id}:role/${var.teams["research"].viewer_role_name}"]
  operator_groups         = ["research-operators"]
  operator_principal_arns = ["arn:aws:iam::${var.capacity_account_id}:role/${var.teams["research"].operator_role_name}"]

  workload {
    service_account = "research-jobs"
    target_role_arn = "arn:aws:iam::${var.consumer_account_id}:role/${var.consumer_role_name}"
  }

  data {
    kms_keys = ["arn:aws:kms:${var.region}:${var.capacity_account_id}:key/${var.kms_key_id}"]
  }
}

# The bindings reference each team's tenant (WKL-1).
locals {
  tenants = {
    production = hyperpod_tenant.production
    research   = hyperpod_tenant.research
  }
}
