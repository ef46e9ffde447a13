# The research team on the shared cluster `ml-capacity`: a guaranteed share of two p5 instances, borrowing idle
# capacity at low priority (and preempted when production needs it back), its own namespace, workload identity,
# network isolation and data grants. `terraform plan` shows every object below before anything is created.
resource "hyperpod_tenant" "research" {
  contract          = hyperpod_connection_contract.research.governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  # The cluster's documented split: WKL-3 counts every team it lists on the first plan. The quota below is
  # research's entry there, exactly.
  allocation = hyperpod_cluster_allocation.capacity.governance
  team       = "research"

  # The compute quota is the tenant's first write: its claim on the cluster's capacity.
  quota {
    instance_type = "ml.p5.48xlarge"
    count         = 2
  }

  sharing {
    strategy     = "LendAndBorrow"
    borrow_limit = 50
  }
  # The allocation records this sharing (WKL-5). Naming the lender orders the plans and counts production's quota
  # with this one in WKL-3; a borrower with no lender yet is fine too (nothing to borrow until one lends).
  borrows_from = [hyperpod_tenant.production.governance]

  preempt_team_tasks = "Never"
  fair_share_weight  = 10
  priority_class     = "research"

  # Seeing and acting are separate grants, to groups (WKL-7, WKL-10).
  viewer_groups           = ["research-viewers"]
  viewer_principal_arns   = ["arn:aws:iam::123456789012:role/research-viewers"]
  operator_groups         = ["research-operators"]
  operator_principal_arns = ["arn:aws:iam::123456789012:role/research-operators"]

  # Default deny, plus DNS and pod-to-pod traffic inside the namespace for distributed training (WKL-8).
  network_policy {
    egress_cidrs = ["10.20.0.0/16"]
  }

  # Pods run as `research-jobs`, mapped by EKS Pod Identity to the tenant's own role, chained to the consumer
  # account's role (its account must be approved in the contract: ORG-2).
  workload {
    service_account = "research-jobs"
    target_role_arn = "arn:aws:iam::444455556666:role/research-consumer"
  }

  # Data goes to the workload role, never to the project role (WKL-11).
  data {
    kms_keys = ["arn:aws:kms:us-west-2:123456789012:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"]
  }

  tags = {
    "cost-center" = "research"
  }
}

# The production team, which lends what it does not use. Its share is given in accelerators (SageMaker fills vCPU
# and memory by the instance type's ratio); WKL-3 counts it against the accelerators the p5 group holds.
resource "hyperpod_tenant" "production" {
  contract          = hyperpod_connection_contract.production.governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  allocation        = hyperpod_cluster_allocation.capacity.governance
  team              = "production"

  quota {
    instance_type = "ml.p5.48xlarge"
    accelerators  = 16
  }

  sharing {
    strategy = "Lend"
  }

  priority_class  = "production"
  viewer_groups   = ["production-viewers"]
  operator_groups = ["production-operators"]

  workload {
    service_account = "production-jobs"
  }
}
