# The import ID is the HyperPod cluster's name or ARN: a cluster has exactly one scheduling policy.
terraform import hyperpod_scheduling_policy.capacity ml-capacity
