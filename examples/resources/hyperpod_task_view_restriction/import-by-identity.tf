import {
  to = hyperpod_task_view_restriction.research
  identity = {
    cluster_name     = "ml-capacity"
    project_role_arn = "arn:aws:iam::123456789012:role/datazone_usr_role_research"
  }
}
