import {
  to = hyperpod_unified_studio_project_binding.research
  identity = {
    domain_id     = "dzd_capacity01"
    connection_id = "a1b2c3d4e5f6g7"
  }
}
