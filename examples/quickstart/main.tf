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

output "research_namespace" {
  description = "Where the research team's tasks run once it has a quota."
  value       = provider::hyperpod::team_namespace("research")
}
