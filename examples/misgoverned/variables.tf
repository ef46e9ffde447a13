# What this example names in the account. The defaults are the local sandbox's seed (`make sandbox`); for another
# account (or the sandbox seeded from another fixture) set them, e.g. in terraform.tfvars.json — the acceptance tests
# write that file from their fixture (acceptance-tests/harness/fixture.py: Fixture.example_variables).

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
  description = "The domain unit of the teams' projects (the ML platform's)."
  type        = string
  default     = "mlplatform0001"
}

variable "project_profile_id" {
  description = "The approved project profile projects in that domain unit are created from."
  type        = string
  default     = "hyperpodprof01"
}

variable "teams" {
  description = "Per team (production, research): its Unified Studio project, the project's Tooling user role, the IAM roles of the tenant's viewers and operators, and the project's owner and contributor groups."
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

  validation {
    condition     = alltrue([for team in ["production", "research"] : contains(keys(var.teams), team)])
    error_message = "teams: needs the production and research teams."
  }
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

variable "consumer_account_id" {
  description = "The research consumer account the research workloads reach."
  type        = string
  default     = "444455556666"
}

variable "consumer_role_name" {
  description = "The role in the consumer account research pods assume."
  type        = string
  default     = "research-consumer"
}

variable "kms_key_id" {
  description = "The research data key in the capacity account."
  type        = string
  default     = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
}

variable "instance_types" {
  description = "The instance types of the cluster's training, inference and MIG-partitioned instance groups."
  type = object({
    training    = string
    inference   = string
    partitioned = string
  })
  default = {
    training    = "ml.p5.48xlarge"
    inference   = "ml.g5.8xlarge"
    partitioned = "ml.p4d.24xlarge"
  }
}

variable "last_reviewed" {
  description = "When the accountable administrator last reviewed the contracts."
  type        = string
  default     = "2026-11-20"
}
