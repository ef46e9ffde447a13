# Quickstart: the post's example end to end. One shared HyperPod cluster (`var.cluster_name`), its scheduling policy, and
# two teams: production (a guaranteed share at high priority, bursting into idle research capacity) and research (a
# small guaranteed share and MIG slices, its interactive spaces first, lending idle capacity and never borrowing). Each team has
# an approved contract (contracts.tf), a tenant (tenants.tf), a task view restriction and a Unified Studio project
# binding (access.tf). `terraform plan` proves the four control layers agree before anything is created.
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

# What the cluster offers: its orchestrator and instance groups.
data "hyperpod_cluster" "capacity" {
  name = var.cluster_name
}

# The cluster policy: interactive spaces first (never preempted), then production, then research batch work.
resource "hyperpod_scheduling_policy" "capacity" {
  cluster_name          = data.hyperpod_cluster.capacity.name
  description           = "Spaces first; production first among tasks and bursts into idle research capacity"
  fair_share            = true
  idle_resource_sharing = true

  # AWS's guidance for interactive spaces: a dedicated class with the highest weight.
  priority_class {
    name   = "interactive"
    weight = 100
  }

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

# The cluster's guaranteed capacity, documented once: every team's share. Each tenant references it, so WKL-3 counts
# both teams on the very first plan, whatever order Terraform plans them in; each tenant's quota is its entry here.
# Research also holds MIG slices of the partitioned group's A100s (WKL-3 counts them against the group's layout).
locals {
  guaranteed = {
    production = [
      { instance_type = var.instance_types.training, count = 5, accelerator_partition = null },
      { instance_type = var.instance_types.inference, count = 2, accelerator_partition = null },
    ]
    research = [
      { instance_type = var.instance_types.training, count = 2, accelerator_partition = null },
      {
        instance_type         = var.instance_types.partitioned
        count                 = null
        accelerator_partition = { type = "mig-1g.5gb", count = 56 }
      },
    ]
  }
}

resource "hyperpod_cluster_allocation" "capacity" {
  cluster_name = data.hyperpod_cluster.capacity.name
  teams        = { for team, quota in local.guaranteed : team => { quota = quota } }
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
    id                  = hyperpod_scheduling_policy.capacity.id
    scheduler_config_id = hyperpod_scheduling_policy.capacity.scheduler_config_id
    arn                 = hyperpod_scheduling_policy.capacity.arn
    version             = hyperpod_scheduling_policy.capacity.version
    status              = hyperpod_scheduling_policy.capacity.status
    priority_levels     = { for c in hyperpod_scheduling_policy.capacity.priority_class : c.name => c.weight }
  }
}

output "teams" {
  description = "Per team: the contract's review status, the tenant's namespace, the binding."
  value = {
    for team in keys(local.teams) : team => {
      review_status = hyperpod_connection_contract.team[team].review_status
      namespace     = team == "production" ? hyperpod_tenant.production.namespace : hyperpod_tenant.research.namespace
      connection_id = hyperpod_unified_studio_project_binding.team[team].connection_id
    }
  }
}
