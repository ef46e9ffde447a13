# AWS's own two-team task governance setup, as the provider writes it: the cluster policy and the Team-A / Team-B
# compute quotas of the awslabs "AI on SageMaker HyperPod" Task Governance page (the same as the HyperPod CLI
# end-to-end walkthrough, there on ml.g5.12xlarge, one instance and a 100 % borrow limit each):
# https://awslabs.github.io/ai-on-sagemaker-hyperpod/docs/add-ons/Task%20Governance/Task%20Governance%20for%20Training
#
# Both teams lend and borrow: each lends to the other. The cluster allocation records who lends beside every team's
# guaranteed share, so the first plan sees both lenders without either tenant naming the other in `borrows_from`
# (which would be a dependency cycle), and each tenant's sharing must be its entry's (WKL-5). What the provider adds
# to AWS's quotas: a contract per team, and the Kubernetes groups that may see and act in each namespace (WKL-10).

terraform {
  required_version = ">= 1.11"
  required_providers {
    hyperpod = {
      source = "hyperpod-governance/hyperpod"
    }
  }
}

provider "hyperpod" {
  region              = var.region
  allowed_account_ids = var.capacity_account_id == null ? null : [var.capacity_account_id]
}

locals {
  # AWS's quotas, by team: the quota's name, its project (and so its contract), and the Kubernetes groups of its
  # people. Both get the same share and sharing.
  teams = {
    team-a = { quota_name = var.quota_names[0], project = var.projects[0] }
    team-b = { quota_name = var.quota_names[1], project = var.projects[1] }
  }
  sharing = { strategy = "LendAndBorrow", borrow_limit = var.borrow_limit }
}

# aws sagemaker create-cluster-scheduler-config --name "example-cluster-scheduler-config" --scheduler-config
#   "PriorityClasses=[{Name=inference,Weight=90},{Name=experimentation,Weight=80},{Name=fine-tuning,Weight=50},
#    {Name=training,Weight=70}],FairShare=Enabled"
resource "hyperpod_scheduling_policy" "capacity" {
  cluster_name = var.cluster_name
  name         = "example-cluster-scheduler-config"
  fair_share   = true

  priority_class {
    name   = "inference"
    weight = 90
  }

  priority_class {
    name   = "experimentation"
    weight = 80
  }

  priority_class {
    name   = "fine-tuning"
    weight = 50
  }

  priority_class {
    name   = "training"
    weight = 70
  }
}

# Every team's share and sharing in one place: the reviewer reads the cluster's split, and each tenant is checked
# against it (WKL-3, WKL-5) on the first plan.
resource "hyperpod_cluster_allocation" "capacity" {
  cluster_name = var.cluster_name
  teams = {
    for team in keys(local.teams) : team => {
      quota   = [{ instance_type = var.instance_type, count = var.instances_per_team }]
      sharing = local.sharing
    }
  }
}

resource "hyperpod_connection_contract" "team" {
  for_each = local.teams
  name     = "${each.key}-on-${var.cluster_name}"

  owners {
    business   = "${each.key}-lead@example.com"
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }

  unified_studio {
    domain_id      = var.domain_id
    domain_unit_id = var.domain_unit_id
    project_id     = var.teams[each.value.project].project_id
  }

  cluster {
    account_id   = var.capacity_account_id
    region       = var.region
    name         = var.cluster_name
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::${var.capacity_account_id}:role/${var.teams[each.value.project].project_role_name}"
  access_role_arn         = "arn:aws:iam::${var.capacity_account_id}:role/${var.connection_access_role_name}"
  approved_workload_types = ["training"]
  data_classification     = "internal"
  eks_namespaces          = [provider::hyperpod::team_namespace(each.key)]
  approved_public_cidrs   = [var.approved_public_cidr]

  scheduling {
    policy          = "guaranteed share; lends idle capacity and borrows up to the borrow limit"
    exception_owner = "ml-platform-leads@example.com"
  }

  monitoring {
    signal {
      name     = "team-utilization"
      owner    = "${each.key}-lead@example.com"
      response = "rebalance quotas at the monthly capacity review"
    }
  }

  support      = "ml-platform on-call, business hours"
  decommission = "remove the tenant; the namespace goes with its quota"

  review {
    interval_days = 90
    last_reviewed = var.last_reviewed
    approved_by   = "security-lead@example.com"
  }
}

# aws sagemaker create-compute-quota --name "Team-A-Quota-Allocation" --compute-quota-config
#   "ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],ResourceSharingConfig={Strategy=LendAndBorrow,
#    BorrowLimit=50},PreemptTeamTasks=LowerPriority" --activation-state "Enabled"
#   --compute-quota-target "TeamName=team-a,FairShareWeight=0"   (and the same for team-b)
resource "hyperpod_tenant" "team" {
  for_each          = local.teams
  contract          = hyperpod_connection_contract.team[each.key].governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance

  team                      = each.key
  compute_quota_name        = each.value.quota_name
  compute_quota_description = "" # AWS's requests set none
  preempt_team_tasks        = "LowerPriority"
  fair_share_weight         = 0
  activation_state          = "Enabled"

  quota {
    instance_type = var.instance_type
    count         = var.instances_per_team
  }

  sharing {
    strategy     = local.sharing.strategy
    borrow_limit = local.sharing.borrow_limit
  }

  # No workload block: a team's share needs no IAM role or service account of its own. Who may see and act in the
  # namespace is the provider's addition (WKL-10: a quota is never the only control).
  viewer_groups   = ["${each.key}-viewers"]
  operator_groups = ["${each.key}-operators"]
}
