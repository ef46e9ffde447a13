# The import ID is `<domain_id>/<connection_id>`. The contract, the project role and the members exist only in
# configuration: the first plan after an import records them in place (members the project already has are taken
# over, and the plan says so).
terraform import hyperpod_unified_studio_project_binding.research dzd_capacity01/a1b2c3d4e5f6g7
