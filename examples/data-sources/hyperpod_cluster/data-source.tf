variable "cluster_name" {
  description = "The HyperPod cluster to read (the local sandbox's seeded EKS cluster by default)."
  type        = string
  default     = "ml-capacity"
}

data "hyperpod_cluster" "capacity" {
  name = var.cluster_name
}

# Scheduling policies and task governance need an EKS-orchestrated cluster.
output "is_eks" {
  value = data.hyperpod_cluster.capacity.orchestrator == "eks"
}

# Instances per group, e.g. { "gpu-workers" = 4 }.
output "instances" {
  value = { for group in data.hyperpod_cluster.capacity.instance_groups : group.name => group.current_count }
}
