# The import ID is `<cluster>/<team>`: the team's compute quota and the objects the tenant composes are found by
# their names and this provider's tags.
terraform import hyperpod_tenant.research ml-capacity/research
