# The ML platform admins may create projects in the `ml-platform` domain unit, and only from the approved
# "hyperpod-projects" profile (the one whose projects may connect to HyperPod clusters).
resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {
  domain_id           = "dzd_capacity01"
  domain_unit_id      = "mlplatform0001"
  project_profile_ids = ["hyperpodprof01"]

  principal {
    group_id = "platform-admins"
  }
}

# The owners of the root domain unit may do the same in `ml-platform` and its child units.
resource "hyperpod_domain_unit_policy_grant" "root_owners" {
  domain_id                  = "dzd_capacity01"
  domain_unit_id             = "mlplatform0001"
  project_profile_ids        = ["hyperpodprof01"]
  include_child_domain_units = true

  principal {
    domain_unit_id = "capgovroot0001"
    designation    = "OWNER"
  }
}
