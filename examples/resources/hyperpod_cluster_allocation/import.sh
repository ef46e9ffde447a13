# The import ID is the HyperPod cluster's name. The allocation exists only in configuration and state: import records
# the cluster, and the next apply records the teams from the configuration (no AWS write).
terraform import hyperpod_cluster_allocation.capacity ml-capacity
