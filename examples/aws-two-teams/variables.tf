# What this example names in the account. The defaults are the local sandbox's seed (`make sandbox`); for another
# account set them, e.g. in terraform.tfvars.json (the acceptance tests write that file from their fixture).

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

variable "domain_id" {
  description = "The Unified Studio (DataZone) domain the projects live in."
  type        = string
  default     = "dzd_capacity01"
}

variable "domain_unit_id" {
  description = "The domain unit of the teams' projects."
  type        = string
  default     = "mlplatform0001"
}

variable "teams" {
  description = "The Unified Studio projects the teams belong to (production, research): each project, its Tooling user role, and (unused here) its viewer and operator roles and groups."
  type = map(object({
    project_id         = string
    project_role_name  = string
    viewer_role_name   = string
    operator_role_name = string
    owner_group        = string
    contributor_group  = string
  }))
  default = {
    production = {
      project_id         = "production0001"
      project_role_name  = "datazone_usr_role_production"
      viewer_role_name   = "production-viewers"
      operator_role_name = "production-operators"
      owner_group        = "production-leads"
      contributor_group  = "production-scientists"
    }
    research = {
      project_id         = "research000001"
      project_role_name  = "datazone_usr_role_research"
      viewer_role_name   = "research-viewers"
      operator_role_name = "research-operators"
      owner_group        = "research-leads"
      contributor_group  = "research-scientists"
    }
  }
}

variable "projects" {
  description = "The project (a key of `teams`) of team-a and of team-b."
  type        = list(string)
  default     = ["research", "production"]
}

variable "connection_access_role_name" {
  description = "The role DataZone uses to look up the cluster for the projects' HyperPod connections."
  type        = string
  default     = "hyperpod-connection-access"
}

variable "approved_public_cidr" {
  description = "The range the EKS API endpoint is public to."
  type        = string
  default     = "203.0.113.0/24"
}

variable "last_reviewed" {
  description = "When the accountable administrator last reviewed the contracts."
  type        = string
  default     = "2026-11-20"
}

variable "instance_type" {
  description = "The instance type both teams share (AWS's page: ml.g5.8xlarge; the HyperPod CLI walkthrough: ml.g5.12xlarge)."
  type        = string
  default     = "ml.g5.8xlarge"
}

variable "instances_per_team" {
  description = "Each team's guaranteed instances (AWS's page: 2; the walkthrough: 1)."
  type        = number
  default     = 2
}

variable "borrow_limit" {
  description = "Each team's borrow limit, percent of its quota (AWS's page: 50; the walkthrough: 100)."
  type        = number
  default     = 50
}

variable "quota_names" {
  description = "The compute quotas' names, team-a's then team-b's (AWS's page; the walkthrough names them Team-A and Team-B)."
  type        = list(string)
  default     = ["Team-A-Quota-Allocation", "Team-B-Quota-Allocation"]
}
