# The documented split of the shared cluster `ml-capacity` (8 ml.p5.48xlarge instances): production 16 accelerators,
# research 2 whole instances, which WKL-3 counts as 16 accelerators too. Each team's hyperpod_tenant references it
# (`allocation = hyperpod_cluster_allocation.capacity.governance`) and asks for exactly its entry, so WKL-3 counts
# both teams on the first plan, whatever order Terraform plans them in. It writes no SageMaker object (only its claim
# on the cluster: one allocation per cluster): a capacity change plans as this resource's own, with `capacity` per
# instance type beside what the instance groups hold. `sharing`
# records who lends: each tenant's sharing must be its entry's (WKL-5), so teams that lend to each other need no
# `borrows_from` between them.
resource "hyperpod_cluster_allocation" "capacity" {
  cluster_name = "ml-capacity"

  teams = {
    production = {
      quota   = [{ instance_type = "ml.p5.48xlarge", accelerators = 16 }]
      sharing = { strategy = "Lend" }
    }
    research = {
      quota   = [{ instance_type = "ml.p5.48xlarge", count = 2 }]
      sharing = { strategy = "LendAndBorrow", borrow_limit = 50 }
    }
  }
}
