import {
  to = hyperpod_cluster_allocation.capacity
  identity = {
    cluster_name = "ml-capacity"
  }
}
