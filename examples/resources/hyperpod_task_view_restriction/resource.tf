# Studio users of the research project see only research's tasks on the shared cluster: the project role's access
# entry gets the HyperPod Studio policies scoped to the contract's namespaces, plus the cluster-scoped probe policy.
resource "hyperpod_task_view_restriction" "research" {
  contract = hyperpod_connection_contract.research.governance
  # project_role_arn and namespaces default to the contract's.
}

# The same with Kubernetes RBAC instead of EKS access policies: a Role per namespace, so the restriction references
# the tenant whose compute quota has HyperPod create `hyperpod-ns-production` (Terraform applies the tenant first).
resource "hyperpod_task_view_restriction" "production" {
  contract = hyperpod_connection_contract.production.governance
  mode     = "rbac"
  tenants  = [hyperpod_tenant.production.governance]
}

# On a Slurm cluster: the research project role's sessions run as the OS user `research`, so Studio lists only its
# jobs (Session Manager Run As must be enabled for the account: CLU-7).
resource "hyperpod_task_view_restriction" "research_slurm" {
  contract = hyperpod_connection_contract.research_slurm.governance

  slurm {
    os_user = "research"
  }
}
