output "contract" {
  description = "The contract's name, review status, next review date and any check that did not pass."
  value = {
    name              = hyperpod_connection_contract.this.name
    review_status     = hyperpod_connection_contract.this.review_status
    next_review_date  = hyperpod_connection_contract.this.next_review_date
    checks_not_passed = [for f in coalesce(hyperpod_connection_contract.this.findings, []) : "${f.rule}: ${f.status}"]
  }
}

output "tenant" {
  description = "The tenant's governance facts, for another team's borrows_from."
  value       = hyperpod_tenant.this.governance
}

output "namespace" {
  description = "The tenant's Kubernetes namespace."
  value       = hyperpod_tenant.this.namespace
}

output "workload_role_arn" {
  description = "The role the team's pods run as (EKS Pod Identity)."
  value       = hyperpod_tenant.this.workload_role_arn
}

output "tenant_components" {
  description = "Every object the tenant composes, by component."
  value       = hyperpod_tenant.this.components
}

output "task_view_policies" {
  description = "The access policies restricting what the project's Studio users see."
  value       = [for key in keys(hyperpod_task_view_restriction.this.components) : trimprefix(key, "access_policy/") if startswith(key, "access_policy/")]
}

output "connection_id" {
  description = "The project's HyperPod connection in Unified Studio."
  value       = hyperpod_unified_studio_project_binding.this.connection_id
}
