# Quickstart: govern the shared HyperPod cluster `ml-capacity` with one scheduling policy.
# `make demo` runs this against the local sandbox; against AWS, drop nothing — credentials and region come from the
# usual AWS chain.

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

# The contract the reviewer approves: the research project may use the cluster for training and notebooks, in
# its own namespace, under the capacity policy below. `terraform plan` verifies it against the live account.
resource "hyperpod_connection_contract" "research" {
  name = "research-on-${var.cluster_name}"

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
    account_id   = var.capacity_account_id
    region       = var.region
    name         = var.cluster_name
    orchestrator = "eks"
  }

  project_role_arn        = "arn:aws:iam::${var.capacity_account_id}:role/datazone_usr_role_research"
  access_role_arn         = "arn:aws:iam::${var.capacity_account_id}:role/hyperpod-connection-access"
  approved_workload_types = ["training", "interactive"]
  data_classification     = "internal"
  eks_namespaces          = [provider::hyperpod::team_namespace("research")]
  approved_account_ids    = ["444455556666"] # the research consumer account its workloads reach
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
  description = "When the accountable administrator last reviewed the research contract."
  type        = string
  default     = "2026-11-20"
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

  tags = {
    "cost-center" = "ml-platform"
  }
}

# The research team on the cluster: its guaranteed share, who may see and act, network isolation, workload identity
# (chained to the consumer account) and its data key. The plan lists every object it composes.
resource "hyperpod_tenant" "research" {
  contract          = hyperpod_connection_contract.research.governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  team              = "research"

  quota {
    instance_type = "ml.p5.48xlarge"
    count         = 2
  }

  # Research lends its idle share; borrowing waits until another team lends (WKL-5).
  sharing {
    strategy = "Lend"
  }

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

output "cluster" {
  description = "The governed cluster."
  value = {
    arn             = data.hyperpod_cluster.capacity.arn
    orchestrator    = data.hyperpod_cluster.capacity.orchestrator
    instance_groups = data.hyperpod_cluster.capacity.instance_groups
  }
}

output "scheduling_policy" {
  description = "The cluster policy as SageMaker holds it."
  value = {
    id              = hyperpod_scheduling_policy.capacity.id
    arn             = hyperpod_scheduling_policy.capacity.arn
    version         = hyperpod_scheduling_policy.capacity.version
    status          = hyperpod_scheduling_policy.capacity.status
    priority_levels = { for c in hyperpod_scheduling_policy.capacity.priority_class : c.name => c.weight }
  }
}

output "research_contract" {
  description = "The research contract's review status and the reviewer's checklist."
  value = {
    review_status    = hyperpod_connection_contract.research.review_status
    next_review_date = hyperpod_connection_contract.research.next_review_date
    checks           = { for c in hyperpod_connection_contract.research.checks : c.rule => c.status }
    namespaces       = hyperpod_connection_contract.research.governance.eks_namespaces
  }
}

output "research_tenant" {
  description = "What the research tenant composed, and the rules its plan checked."
  value = {
    namespace     = hyperpod_tenant.research.namespace
    compute_quota = hyperpod_tenant.research.compute_quota_arn
    workload_role = hyperpod_tenant.research.workload_role_arn
    components    = keys(hyperpod_tenant.research.components)
    checks        = { for c in hyperpod_tenant.research.checks : c.rule => c.status }
  }
}
