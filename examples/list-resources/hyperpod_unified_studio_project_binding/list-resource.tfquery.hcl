# The domain's HYPERPOD connections. A connection whose project a tenant onboarded on its
# cluster is listed as "<name> (governed by contract <name>)", any other as "<name> (not governed)".
list "hyperpod_unified_studio_project_binding" "connections" {
  provider = hyperpod

  config {
    domain_id = "dzd_capacity01"
    # project_id = "research000001" # only this project's connections
  }
}
