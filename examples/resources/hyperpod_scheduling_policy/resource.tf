# The cluster policy of the shared cluster `ml-capacity`: production work first, research borrows idle capacity at
# low priority.
resource "hyperpod_scheduling_policy" "capacity" {
  cluster_name          = "ml-capacity"
  description           = "Production first; research borrows idle capacity"
  fair_share            = true
  idle_resource_sharing = true

  priority_class {
    name   = "production"
    weight = 90
  }

  priority_class {
    name   = "research"
    weight = 10
  }

  tags = {
    "cost-center" = "ml-platform"
  }
}
