# The quickstart's two teams, onboarded through a reusable module. The infra team owns this root: the provider, the
# shared cluster's scheduling policy, its capacity allocation and the organization grant. Each Unified Studio project
# on the cluster is one call of modules/governed-project (its contract, task view restriction, tenant and project
# binding), so onboarding a third team is one more module block and one more entry in local.guaranteed, reviewed in
# one pull request. `terraform plan` checks every layer against the live account before anything is created.

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
  allowed_account_ids = [var.capacity_account_id]

  default_tags {
    tags = {
      "managed-by" = "terraform"
    }
  }
}

locals {
  cluster = {
    account_id = var.capacity_account_id
    region     = var.region
    name       = data.hyperpod_cluster.capacity.name
  }
  role    = "arn:aws:iam::${var.capacity_account_id}:role"
  owners  = { operations = "ml-platform-oncall@example.com", cost = "finance-ml@example.com" }
  review  = { interval_days = 90, last_reviewed = var.last_reviewed, approved_by = "security-lead@example.com" }
  cidrs   = [var.approved_public_cidr] # the EKS API endpoint is public to this range only
  domain  = var.domain_id
  ml_unit = var.domain_unit_id
}

# What the cluster offers: its orchestrator and instance groups.
data "hyperpod_cluster" "capacity" {
  name = var.cluster_name
}

# The cluster policy: production work first, research borrows idle capacity at low priority.
resource "hyperpod_scheduling_policy" "capacity" {
  cluster_name          = data.hyperpod_cluster.capacity.name
  description           = "Production first; research borrows idle capacity"
  fair_share            = true
  idle_resource_sharing = true

  priority_class {
    name   = "production"
    weight = 90
  }

  priority_class {
    name   = "research"
    weight = 10
  }
}

# The cluster's guaranteed capacity, written once: the allocation documents every team's share, and each module
# call passes its team's entry on as the tenant's quota. Every tenant and binding references the allocation, so
# WKL-3 (the shares fit the instance groups) and CLU-2 (the cluster is shared) see both teams on the first plan.
locals {
  guaranteed = {
    production = [
      { instance_type = var.instance_types.training, count = 5 },
      { instance_type = var.instance_types.inference, count = 2 },
    ]
    research = [
      { instance_type = var.instance_types.training, count = 2 },
    ]
  }
}

resource "hyperpod_cluster_allocation" "capacity" {
  cluster_name = data.hyperpod_cluster.capacity.name
  teams        = { for team, quota in local.guaranteed : team => { quota = quota } }
}

# Only the ML platform domain unit's owners may create projects there, and only from the approved HyperPod project
# profile; every contract names this grant, so ORG-1 checks its project against it.
resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {
  domain_id           = local.domain
  domain_unit_id      = local.ml_unit
  project_profile_ids = [var.project_profile_id]

  principal {
    domain_unit_id = local.ml_unit
    designation    = "OWNER"
  }
}

# Production: 5 training (p5) and 2 inference (g5) instances guaranteed at high priority, lending what it does not use.
module "production" {
  source = "./modules/governed-project"

  team    = "production"
  cluster = local.cluster
  unified_studio = {
    domain_id        = local.domain
    domain_unit_id   = local.ml_unit
    project_id       = var.teams["production"].project_id
    project_role_arn = "${local.role}/${var.teams["production"].project_role_name}"
  }
  access_role_arn   = "${local.role}/${var.connection_access_role_name}"
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance
  organization      = hyperpod_domain_unit_policy_grant.hyperpod_projects.governance

  owners                  = merge(local.owners, { business = "head-of-product-ml@example.com" })
  approved_workload_types = ["training", "inference"]
  approved_public_cidrs   = local.cidrs
  scheduling = {
    policy          = "guaranteed share at high priority; lends idle capacity"
    exception_owner = "ml-platform-leads@example.com"
  }
  monitoring_signals = [{
    name     = "team-utilization"
    owner    = "production-leads@example.com"
    response = "rebalance quotas at the monthly capacity review"
  }]
  review = local.review

  quota              = local.guaranteed["production"]
  sharing            = { strategy = "Lend" }
  priority_class     = "production"
  fair_share_weight  = 90
  preempt_team_tasks = "LowerPriority"
  viewers            = { groups = ["production-viewers"], principal_arns = ["${local.role}/${var.teams["production"].viewer_role_name}"] }
  operators          = { groups = ["production-operators"], principal_arns = ["${local.role}/${var.teams["production"].operator_role_name}"] }

  members = [
    { name = var.teams["production"].owner_group, designation = "PROJECT_OWNER" },
    { name = var.teams["production"].contributor_group, designation = "PROJECT_CONTRIBUTOR" },
  ]
}

# Research: 2 training (p5) instances guaranteed, borrowing idle capacity (up to 50 % more) at low priority, never preempting
# others; its pods reach the consumer account's role and its data key.
module "research" {
  source = "./modules/governed-project"

  team    = "research"
  cluster = local.cluster
  unified_studio = {
    domain_id        = local.domain
    domain_unit_id   = local.ml_unit
    project_id       = var.teams["research"].project_id
    project_role_arn = "${local.role}/${var.teams["research"].project_role_name}"
  }
  access_role_arn   = "${local.role}/${var.connection_access_role_name}"
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance
  organization      = hyperpod_domain_unit_policy_grant.hyperpod_projects.governance

  owners                  = merge(local.owners, { business = "head-of-research@example.com" })
  approved_workload_types = ["training", "interactive"]
  approved_account_ids    = [var.consumer_account_id] # the research consumer account its workloads reach
  approved_public_cidrs   = local.cidrs
  scheduling = {
    policy          = "borrow idle capacity at low priority; preempted when production needs it"
    exception_owner = "ml-platform-leads@example.com"
  }
  monitoring_signals = [{
    name     = "team-utilization"
    owner    = "research-leads@example.com"
    response = "rebalance quotas at the monthly capacity review"
  }]
  review = local.review

  quota              = local.guaranteed["research"]
  sharing            = { strategy = "LendAndBorrow", borrow_limit = 50 }
  priority_class     = "research"
  fair_share_weight  = 10
  preempt_team_tasks = "Never"
  viewers            = { groups = ["research-viewers"], principal_arns = ["${local.role}/${var.teams["research"].viewer_role_name}"] }
  operators          = { groups = ["research-operators"], principal_arns = ["${local.role}/${var.teams["research"].operator_role_name}"] }
  target_role_arn    = "arn:aws:iam::${var.consumer_account_id}:role/${var.consumer_role_name}"
  kms_keys           = ["arn:aws:kms:${var.region}:${var.capacity_account_id}:key/${var.kms_key_id}"]

  members = [
    { name = var.teams["research"].owner_group, designation = "PROJECT_OWNER" },
    { name = var.teams["research"].contributor_group, designation = "PROJECT_CONTRIBUTOR" },
  ]

  # Borrowing needs a team that lends (WKL-5): research names production's tenant.
  borrows_from = [module.production.tenant]
}

# Every team's contract passed every rule that applies. Any finding (a warning such as an overdue review, LIF-1; a
# failed rule, which apply refuses) fails this check, naming the rule, and the plan goes on: no rule fails a plan
# (docs/design/where-rules-run.md). tests/governance.tftest.hcl expects this check to fail for a misgoverned team.
locals {
  checks_not_passed = concat(module.production.contract.checks_not_passed, module.research.contract.checks_not_passed)
}

check "teams_governed" {
  assert {
    condition     = length(local.checks_not_passed) == 0
    error_message = "Checks not passed: ${join(", ", local.checks_not_passed)}"
  }
}

output "capacity" {
  description = "Per instance type: what the instance groups hold and each team's guaranteed share."
  value       = hyperpod_cluster_allocation.capacity.capacity
}

output "scheduling_policy" {
  description = "The cluster policy as SageMaker holds it."
  value = {
    arn     = hyperpod_scheduling_policy.capacity.arn
    version = hyperpod_scheduling_policy.capacity.version
    status  = hyperpod_scheduling_policy.capacity.status
  }
}

locals {
  teams = { production = module.production, research = module.research }
}

output "teams" {
  description = "Per team: the contract's review status, the tenant's namespace and workload role, the connection."
  value = {
    for name, team in local.teams : name => {
      contract          = team.contract
      namespace         = team.namespace
      workload_role_arn = team.workload_role_arn
      connection_id     = team.connection_id
    }
  }
}
