import {
  to = hyperpod_scheduling_policy.capacity
  identity = {
    cluster_name = "ml-capacity"
  }
}
