# Every team's compute quota on the cluster. A quota a tenant composed is listed as
# "<team> (governed by contract <name>)", any other as "<team> (not governed)".
list "hyperpod_tenant" "quotas" {
  provider = hyperpod

  config {
    cluster_name = "ml-capacity"
  }
}
