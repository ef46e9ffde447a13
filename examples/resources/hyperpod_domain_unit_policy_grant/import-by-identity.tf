import {
  to = hyperpod_domain_unit_policy_grant.hyperpod_projects
  identity = {
    domain_id      = "dzd_capacity01"
    domain_unit_id = "mlplatform0001"
    grant_id       = "AbCdEf0123"
  }
}
