import {
  to = hyperpod_tenant.research
  identity = {
    cluster_name = "ml-capacity"
    team         = "research"
  }
}
