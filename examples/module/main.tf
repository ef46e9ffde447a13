# The quickstart's two teams, onboarded through a reusable module. The infra team owns this root: the provider, the
# shared cluster's scheduling policy and the organization grant. Each Unified Studio project on the cluster is one
# call of modules/governed-project (its contract, task view restriction, tenant and project binding), so onboarding
# a third team is one more module block, reviewed in one pull request. `terraform plan` checks every layer against
# the live account before anything is created.

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

variable "region" {
  description = "Region of the capacity account."
  type        = string
  default     = "us-west-2"
}

variable "capacity_account_id" {
  description = "The capacity account; plans fail with any other credentials."
  type        = string
  default     = "123456789012"
}

variable "cluster_name" {
  description = "The shared EKS-orchestrated HyperPod cluster."
  type        = string
  default     = "ml-capacity"
}

variable "last_reviewed" {
  description = "When the accountable administrator last reviewed the contracts."
  type        = string
  default     = "2026-11-20"
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
  cidrs   = ["203.0.113.0/24"] # the EKS API endpoint is public to this range only
  domain  = "dzd_capacity01"
  ml_unit = "mlplatform0001"
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

# Only the ML platform domain unit's owners may create projects there, and only from the approved HyperPod project
# profile; every contract names this grant, so ORG-1 checks its project against it.
resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {
  domain_id           = local.domain
  domain_unit_id      = local.ml_unit
  project_profile_ids = ["hyperpodprof01"]

  principal {
    domain_unit_id = local.ml_unit
    designation    = "OWNER"
  }
}

# Production: 5 p5 and 2 g5 instances guaranteed at high priority, lending what it does not use.
module "production" {
  source = "./modules/governed-project"

  team    = "production"
  cluster = local.cluster
  unified_studio = {
    domain_id        = local.domain
    domain_unit_id   = local.ml_unit
    project_id       = "production0001"
    project_role_arn = "${local.role}/datazone_usr_role_production"
  }
  access_role_arn   = "${local.role}/hyperpod-connection-access"
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
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

  quota = [
    { instance_type = "ml.p5.48xlarge", count = 5 },
    { instance_type = "ml.g5.8xlarge", count = 2 },
  ]
  sharing            = { strategy = "Lend" }
  priority_class     = "production"
  fair_share_weight  = 90
  preempt_team_tasks = "LowerPriority"
  viewers            = { groups = ["production-viewers"], principal_arns = ["${local.role}/production-viewers"] }
  operators          = { groups = ["production-operators"], principal_arns = ["${local.role}/production-operators"] }

  members = [
    { name = "production-leads", designation = "PROJECT_OWNER" },
    { name = "production-scientists", designation = "PROJECT_CONTRIBUTOR" },
  ]
}

# Research: 2 p5 instances guaranteed, borrowing idle capacity (up to 50 % more) at low priority, never preempting
# others; its pods reach the consumer account's role and its data key.
module "research" {
  source = "./modules/governed-project"

  team    = "research"
  cluster = local.cluster
  unified_studio = {
    domain_id        = local.domain
    domain_unit_id   = local.ml_unit
    project_id       = "research000001"
    project_role_arn = "${local.role}/datazone_usr_role_research"
  }
  access_role_arn   = "${local.role}/hyperpod-connection-access"
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  organization      = hyperpod_domain_unit_policy_grant.hyperpod_projects.governance

  owners                  = merge(local.owners, { business = "head-of-research@example.com" })
  approved_workload_types = ["training", "interactive"]
  approved_account_ids    = ["444455556666"] # the research consumer account its workloads reach
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

  quota              = [{ instance_type = "ml.p5.48xlarge", count = 2 }]
  sharing            = { strategy = "LendAndBorrow", borrow_limit = 50 }
  priority_class     = "research"
  fair_share_weight  = 10
  preempt_team_tasks = "Never"
  viewers            = { groups = ["research-viewers"], principal_arns = ["${local.role}/research-viewers"] }
  operators          = { groups = ["research-operators"], principal_arns = ["${local.role}/research-operators"] }
  target_role_arn    = "arn:aws:iam::444455556666:role/research-consumer"
  kms_keys           = ["arn:aws:kms:${var.region}:${var.capacity_account_id}:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"]

  members = [
    { name = "research-leads", designation = "PROJECT_OWNER" },
    { name = "research-scientists", designation = "PROJECT_CONTRIBUTOR" },
  ]

  # Borrowing needs a team that lends (WKL-5): research names production's tenant.
  borrows_from = [module.production.tenant]
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
