# One Unified Studio project on a shared HyperPod cluster. The caller owns the provider configuration, the cluster's
# scheduling policy, its capacity allocation and the organization grant, and passes their `governance` facts in.

variable "team" {
  description = "Team name: the tenant's namespace is hyperpod-ns-<team>, its compute quota and workload role are named after it."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$", var.team))
    error_message = "team: 1 to 40 lowercase letters, digits and hyphens, starting and ending with a letter or digit."
  }
}

variable "unified_studio" {
  description = "Where the project lives: the Unified Studio (DataZone) domain, the domain unit it must belong to, the project and its Tooling user role."
  type = object({
    domain_id        = string
    domain_unit_id   = string
    project_id       = string
    project_role_arn = string
  })

  validation {
    condition     = can(regex("^dzd[-_][a-zA-Z0-9_-]{1,36}$", var.unified_studio.domain_id))
    error_message = "unified_studio.domain_id: a DataZone domain ID such as dzd_abc123."
  }
  validation {
    condition     = can(regex("^arn:aws[a-z-]*:iam::[0-9]{12}:role/", var.unified_studio.project_role_arn))
    error_message = "unified_studio.project_role_arn: an IAM role ARN."
  }
}

variable "cluster" {
  description = "The shared EKS-orchestrated HyperPod cluster, in the central capacity account."
  type = object({
    account_id = string
    region     = string
    name       = string
  })

  validation {
    condition     = can(regex("^[0-9]{12}$", var.cluster.account_id))
    error_message = "cluster.account_id: 12 digits."
  }
}

variable "access_role_arn" {
  description = "The role the project's HyperPod connection uses."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:iam::[0-9]{12}:role/", var.access_role_arn))
    error_message = "access_role_arn: an IAM role ARN."
  }
}

variable "scheduling_policy" {
  description = "The cluster policy's facts, hyperpod_scheduling_policy.<name>.governance; null reads the cluster's live policy."
  type = object({
    cluster_name     = string
    fair_share       = bool
    priority_classes = list(string)
  })
  default = null
}

variable "allocation" {
  description = "The cluster's capacity split, hyperpod_cluster_allocation.<name>.governance: WKL-3 and CLU-2 see every team it lists on the first plan (quota must be this team's entry); null leaves them to apply."
  type = object({
    cluster_name = string
    # each team's quota entries, every field present (null where the entry gives none)
    teams = map(list(object({
      instance_type         = string
      count                 = number
      accelerators          = number
      vcpu                  = number
      memory_gib            = number
      accelerator_partition = object({ type = string, count = number })
    })))
    # The teams whose entry records how they share idle capacity (WKL-5).
    sharing = map(object({
      strategy     = string
      borrow_limit = number
    }))
  })
  default = null
}

variable "organization" {
  description = "The grant the project's creation rests on, hyperpod_domain_unit_policy_grant.<name>.governance (ORG-1); null checks only the project's domain unit."
  type = object({
    domain_id                  = string
    domain_unit_id             = string
    include_child_domain_units = bool
    project_profile_ids        = list(string)
  })
  default = null
}

# ---- the contract the reviewer approves ------------------------------------------------------------------------

variable "owners" {
  description = "The three accountable owners of the connection (LIF-3)."
  type = object({
    business   = string
    operations = string
    cost       = string
  })
}

variable "approved_workload_types" {
  description = "Workload types the project may run."
  type        = list(string)

  validation {
    condition     = length(var.approved_workload_types) > 0 && alltrue([for t in var.approved_workload_types : contains(["training", "fine-tuning", "inference", "interactive", "batch"], t)])
    error_message = "approved_workload_types: at least one of training, fine-tuning, inference, interactive, batch."
  }
}

variable "data_classification" {
  description = "Highest classification of the data the workloads touch."
  type        = string
  default     = "internal"

  validation {
    condition     = contains(["public", "internal", "confidential", "restricted"], var.data_classification)
    error_message = "data_classification: one of public, internal, confidential, restricted."
  }
}

variable "approved_account_ids" {
  description = "Consumer and data accounts whose roles the team's workloads may reach (ORG-2)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for id in var.approved_account_ids : can(regex("^[0-9]{12}$", id))])
    error_message = "approved_account_ids: 12-digit account IDs."
  }
}

variable "approved_public_cidrs" {
  description = "CIDRs from which the cluster's EKS API endpoint may be public (CLU-5)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.approved_public_cidrs : can(cidrhost(cidr, 0))])
    error_message = "approved_public_cidrs: CIDR blocks such as 203.0.113.0/24."
  }
}

variable "scheduling" {
  description = "The scheduling policy the project works under, in words, and who decides exceptions to it."
  type = object({
    policy          = string
    exception_owner = string
  })
}

variable "monitoring_signals" {
  description = "The monitored signals of the connection: what is watched, who owns it, what happens when it fires (CON-3)."
  type = list(object({
    name     = string
    owner    = string
    response = string
  }))

  validation {
    condition     = length(var.monitoring_signals) > 0
    error_message = "monitoring_signals: at least one signal with an owner."
  }
}

variable "support" {
  description = "Support expectations: who to call, response times."
  type        = string
  default     = "ml-platform on-call, business hours"
}

variable "decommission" {
  description = "How and when the connection is taken down."
  type        = string
  default     = "remove the binding, then the tenant; keep data 90 days"
}

variable "review" {
  description = "The review schedule and the current approval: days between reviews, the last review (YYYY-MM-DD) and the accountable approver (LIF-1, LIF-4)."
  type = object({
    interval_days = number
    last_reviewed = string
    approved_by   = string
  })

  validation {
    condition     = var.review.interval_days >= 1 && var.review.interval_days <= 730
    error_message = "review.interval_days: 1 to 730."
  }
  validation {
    condition     = can(regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", var.review.last_reviewed))
    error_message = "review.last_reviewed: a date, YYYY-MM-DD."
  }
}

# ---- the tenant ---------------------------------------------------------------------------------------------------

variable "quota" {
  description = "Guaranteed capacity per instance type, the team's entry in the allocation: whole instances (count), or accelerators, vcpu or memory_gib. WKL-3 counts every unit against the instance groups, over every tenant of the cluster."
  type = list(object({
    instance_type = string
    count         = optional(number)
    accelerators  = optional(number)
    vcpu          = optional(number)
    memory_gib    = optional(number)
  }))

  validation {
    condition     = length(var.quota) > 0 && length(var.quota) <= 15
    error_message = "quota: 1 to 15 instance types."
  }
}

variable "sharing" {
  description = "How the team shares idle capacity: Lend, DontLend or LendAndBorrow (with a borrow_limit of 1 to 500 %)."
  type = object({
    strategy     = string
    borrow_limit = optional(number)
  })
  default = { strategy = "Lend" }

  validation {
    condition     = contains(["Lend", "DontLend", "LendAndBorrow"], var.sharing.strategy)
    error_message = "sharing.strategy: one of Lend, DontLend, LendAndBorrow."
  }
  validation {
    condition     = var.sharing.borrow_limit == null || var.sharing.strategy == "LendAndBorrow"
    error_message = "sharing.borrow_limit: only with LendAndBorrow (WKL-5)."
  }
}

variable "borrows_from" {
  description = "The tenants this team borrows idle capacity from (another module's `tenant` output): each must lend (WKL-5), and their quotas count with this team's against the cluster (WKL-3) on the first plan."
  type        = list(any)
  default     = null
}

variable "priority_class" {
  description = "Priority class of the team's tasks; must exist in the cluster policy (WKL-4)."
  type        = string
  default     = null
}

variable "fair_share_weight" {
  description = "Fair-share weight, 0 to 100 (WKL-6)."
  type        = number
  default     = null

  validation {
    condition     = var.fair_share_weight == null || (var.fair_share_weight >= 0 && var.fair_share_weight <= 100)
    error_message = "fair_share_weight: 0 to 100."
  }
}

variable "preempt_team_tasks" {
  description = "LowerPriority lets the team's tasks preempt lower-priority ones; Never does not."
  type        = string
  default     = "LowerPriority"

  validation {
    condition     = contains(["LowerPriority", "Never"], var.preempt_team_tasks)
    error_message = "preempt_team_tasks: LowerPriority or Never."
  }
}

variable "viewers" {
  description = "Who may see the team's tasks (get/list/watch): Kubernetes groups and their IAM roles."
  type = object({
    groups         = list(string)
    principal_arns = optional(list(string), [])
  })
}

variable "operators" {
  description = "Who may act on the team's tasks (create, update, delete): Kubernetes groups and their IAM roles."
  type = object({
    groups         = list(string)
    principal_arns = optional(list(string), [])
  })
}

variable "service_account" {
  description = "The service account the team's pods run as, in its namespace; defaults to <team>-jobs."
  type        = string
  default     = null
}

variable "target_role_arn" {
  description = "A role in an approved consumer or data account the pods reach through the workload role (ORG-2)."
  type        = string
  default     = null
}

variable "kms_keys" {
  description = "KMS keys granted to the team's workload role, never to the project role (WKL-11)."
  type        = list(string)
  default     = []
}

variable "tags" {
  description = "Tags for the tenant's AWS objects, on top of the provider's default_tags."
  type        = map(string)
  default     = {}
}

# ---- the Unified Studio binding -----------------------------------------------------------------------------------

variable "members" {
  description = "Groups the binding makes project members (PRJ-1), with their designation."
  type = list(object({
    name        = string
    designation = string
  }))
  default = []

  validation {
    condition = alltrue([
      for m in var.members : contains([
        "PROJECT_OWNER", "PROJECT_CONTRIBUTOR", "PROJECT_CATALOG_VIEWER", "PROJECT_CATALOG_CONSUMER", "PROJECT_CATALOG_STEWARD",
      ], m.designation)
    ])
    error_message = "members[*].designation: PROJECT_OWNER, PROJECT_CONTRIBUTOR or a PROJECT_CATALOG_* designation."
  }
}
