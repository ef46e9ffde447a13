# Who may create projects in a domain unit, from which project profiles. A grant the creation of a
# governed project rests on is listed as "<principal>: <profiles> (governed by contract <name>)";
# a grant nothing governed rests on as "(not governed)": review it, and revoke it if it has no owner.
list "hyperpod_domain_unit_policy_grant" "project_creation" {
  provider = hyperpod

  config {
    domain_id      = "dzd_capacity01"
    domain_unit_id = "mlplatform0001"
  }
}
