# The access entries on the cluster's EKS cluster that give a project role HyperPod Studio
# access policies. An entry a task view restriction created is listed as
# "<role name> (governed)", any other as "<role name> (not governed)".
list "hyperpod_task_view_restriction" "task_views" {
  provider = hyperpod

  config {
    cluster_name = "ml-capacity"
  }
}
