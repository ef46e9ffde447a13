"""Names several sandbox modules share: a request header, a node label, SageMaker's scheduler components.

Plain values, no imports, so the module that defines a behaviour and the one that injects faults into it (faults.py)
can both use them without importing each other.
"""

# The header the provider names, on every AWS and Kubernetes call, the resource type, data source (`data.<type>`)
# or `provider` step the call is made for (faults.calls_by_caller).
CALLER_HEADER = "x-hyperpod-caller"

# The components of a cluster scheduler config's SchedulerConfig, each with its own status in StatusDetails
# (sagemaker.py), and what a `partial_failure` fault may fail (faults.py).
SCHEDULER_COMPONENTS = ("PriorityClasses", "FairShare", "IdleResourceSharing")

# NVIDIA GPU operator's mig-manager: the node label naming the MIG layout a node applies (an instance group's
# Kubernetes label in sagemaker.py; the fixture's `partition_config` in seed.py).
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
