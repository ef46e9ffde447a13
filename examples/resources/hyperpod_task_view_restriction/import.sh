# The import ID is `<cluster>/<project role ARN>`. An imported access entry counts as adopted: destroy then removes
# only what the restriction added.
terraform import hyperpod_task_view_restriction.research ml-capacity/arn:aws:iam::123456789012:role/datazone_usr_role_research
