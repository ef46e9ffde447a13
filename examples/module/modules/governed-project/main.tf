# One Unified Studio project on a shared HyperPod cluster, in the order the governance rules ask for: the approved
# contract, a task view restriction (CLU-2), the team's tenant (its share of the cluster's allocation: WKL-3), and
# only then the project's HyperPod connection.
locals {
  namespace = provider::hyperpod::team_namespace(var.team)
}

resource "hyperpod_connection_contract" "this" {
  name = "${var.team}-on-${var.cluster.name}"

  owners {
    business   = var.owners.business
    operations = var.owners.operations
    cost       = var.owners.cost
  }

  unified_studio {
    domain_id      = var.unified_studio.domain_id
    domain_unit_id = var.unified_studio.domain_unit_id
    project_id     = var.unified_studio.project_id
  }

  cluster {
    account_id   = var.cluster.account_id
    region       = var.cluster.region
    name         = var.cluster.name
    orchestrator = "eks"
  }

  project_role_arn        = var.unified_studio.project_role_arn
  access_role_arn         = var.access_role_arn
  approved_workload_types = var.approved_workload_types
  data_classification     = var.data_classification
  eks_namespaces          = [local.namespace]
  approved_account_ids    = var.approved_account_ids
  approved_public_cidrs   = var.approved_public_cidrs
  organization            = var.organization

  scheduling {
    policy          = var.scheduling.policy
    exception_owner = var.scheduling.exception_owner
  }

  monitoring {
    dynamic "signal" {
      for_each = var.monitoring_signals
      content {
        name     = signal.value.name
        owner    = signal.value.owner
        response = signal.value.response
      }
    }
  }

  support      = var.support
  decommission = var.decommission

  review {
    interval_days = var.review.interval_days
    last_reviewed = var.review.last_reviewed
    approved_by   = var.review.approved_by
  }
}

# Studio users of the project see only the team's tasks: the project role's access entry gets the HyperPod Studio
# policies scoped to the contract's namespace.
resource "hyperpod_task_view_restriction" "this" {
  contract = hyperpod_connection_contract.this.governance
}

# The compute quota is the tenant's first write, its claim on the shared capacity; the rest follows once it fits.
resource "hyperpod_tenant" "this" {
  contract          = hyperpod_connection_contract.this.governance
  scheduling_policy = var.scheduling_policy
  team              = var.team

  # The cluster's documented split (WKL-3 counts every team it lists on the first plan); var.quota is this team's
  # entry in it, from the same value in the caller.
  allocation = var.allocation

  dynamic "quota" {
    for_each = var.quota
    content {
      instance_type = quota.value.instance_type
      count         = quota.value.count
      accelerators  = quota.value.accelerators
      vcpu          = quota.value.vcpu
      memory_gib    = quota.value.memory_gib
    }
  }

  sharing {
    strategy     = var.sharing.strategy
    borrow_limit = var.sharing.borrow_limit
  }

  preempt_team_tasks = var.preempt_team_tasks
  fair_share_weight  = var.fair_share_weight
  priority_class     = var.priority_class

  viewer_groups           = var.viewers.groups
  viewer_principal_arns   = var.viewers.principal_arns
  operator_groups         = var.operators.groups
  operator_principal_arns = var.operators.principal_arns

  workload {
    service_account = coalesce(var.service_account, "${var.team}-jobs")
    target_role_arn = var.target_role_arn
  }

  dynamic "data" {
    for_each = length(var.kms_keys) > 0 ? [var.kms_keys] : []
    content {
      kms_keys = data.value
    }
  }

  # The tenants this team borrows from (WKL-5), counted with it against the cluster (WKL-3) on the first plan.
  borrows_from = var.borrows_from

  tags = var.tags
}

# The project's HyperPod connection, under the approved contract. It references the tenant of the contract's
# namespace (WKL-1) and the project's task view restriction (CLU-2), which orders their plans first, and the
# cluster's allocation, whose other teams make the cluster shared for CLU-2 on the first plan.
resource "hyperpod_unified_studio_project_binding" "this" {
  contract         = hyperpod_connection_contract.this.governance
  project_id       = var.unified_studio.project_id
  cluster_name     = var.cluster.name
  project_role_arn = hyperpod_connection_contract.this.project_role_arn
  description      = "${var.team} on the shared ${var.cluster.name} capacity"

  task_view_restriction = hyperpod_task_view_restriction.this.governance
  tenants               = [hyperpod_tenant.this.governance]
  allocation            = var.allocation

  dynamic "member" {
    for_each = var.members
    content {
      name        = member.value.name
      designation = member.value.designation
    }
  }
}
