"""SageMaker additions to moto's backend (monkeypatched on import, no fork).

* HyperPod clusters: moto drops `Orchestrator` & co. and names clusters
  `cluster/<ClusterName>`; AWS keeps them and uses `cluster/<12-char id>`.  An instance group's
  `KubernetesConfig` (Labels/Taints, EKS only) is returned as AWS returns it: `CurrentLabels`/`DesiredLabels`
  (`CurrentTaints`/`DesiredTaints`), the current ones following the desired ones when an update settles.  MIG
  partitioning is such a label (`nvidia.com/mig.config`, e.g. `all-1g.5gb`); compute quotas read it.
* Cluster scheduler configs ("cluster policies", task governance): not in moto.
  Versioned, one per cluster, with AWS's asynchronous status transitions.
* Compute quotas (task governance): not in moto.  Same versioning and transitions,
  AWS's defaults and auto-fill, checked against the cluster's instance groups (MIG
  partitions against their `nvidia.com/mig.config` layouts), and the team namespace
  `hyperpod-ns-<team>` in the cluster's Kubernetes API.

moto dispatches `X-Amz-Target: SageMaker.<Op>` to `SageMakerResponse.<snake_op>`,
so a new operation is a method set on that class.  State lives in the backend's
`__dict__`, which moto's reset wipes.
"""
import base64
import copy
import functools
import secrets
import string
import threading
from datetime import UTC, datetime, timedelta

from . import faults, kubernetes, readings, timing
from .eks_state import find_cluster as find_eks_cluster, state as eks_state
from .moto_adapter import (
    ActionResult,
    EmptyResult,
    SageMakerBackend,
    SageMakerCluster,
    SageMakerConflictException as ConflictException,
    SageMakerResourceNotFound as ResourceNotFound,
    SageMakerResponse,
    SageMakerValidationError as ValidationError,
    sagemaker_arn,
    sagemaker_backend,
    utcnow,
)
from .names import MIG_CONFIG_LABEL, SCHEDULER_COMPONENTS

# Members of CreateCluster that moto ignores but DescribeCluster must return.
_CLUSTER_EXTRA_KEYS = ("Orchestrator", "NodeRecovery", "NodeProvisioningMode", "ClusterRole")
_ALNUM = string.ascii_lowercase + string.digits
_FAILED = {"Creating": "CreateFailed", "Updating": "UpdateFailed", "Deleting": "DeleteFailed"}
_lock = threading.RLock()  # moto's server is threaded; Terraform writes in parallel


TASK_GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"


def target_version_reading() -> str:
    """Which reading of UpdateComputeQuota/UpdateClusterSchedulerConfig `TargetVersion` the sandbox enforces: "current"
    (TargetVersion = the version being replaced) or "next" (= current + 1).  AWS documents only "Target version"."""
    return readings.reading("target_version")


def _check_target_version(target, current, kind, rid):
    """ConflictException unless `target` is what the configured reading expects (see target_version_reading)."""
    reading = target_version_reading()
    expected = current if reading == "current" else current + 1
    if target != expected:
        raise ConflictException(f"TargetVersion {target} does not match the expected version {expected} of {kind} "
                                f"{rid} (current version {current})")


def async_delay() -> timedelta:
    """How long a Creating/Updating/Deleting state lasts, measured from the write (timing.py)."""
    return timedelta(seconds=timing.async_seconds())


def new_id() -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(12))


def _naive_utc(t: datetime) -> datetime:
    """moto keeps naive UTC datetimes; parsed request timestamps may be aware."""
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t


# ---- HyperPod clusters -------------------------------------------------------
# Kubernetes labels and taints of instance groups (EKS), the MIG layout among them.
MIG_DISABLED = "all-disabled"
_K8S_PARTS = (("Labels", "CurrentLabels", "DesiredLabels"), ("Taints", "CurrentTaints", "DesiredTaints"))


def _check_kubernetes_config(orchestrator, specs) -> None:
    """GUESS, the stricter reading: KubernetesConfig (node labels and taints) is refused on a cluster that is not
    orchestrated by EKS (the API reference describes it for EKS nodes only; a Slurm cluster has no Kubernetes)."""
    if "Eks" in (orchestrator or {}):
        return
    for spec in specs:
        if spec.get("KubernetesConfig") is not None:
            raise ValidationError(f"KubernetesConfig of instance group {spec.get('InstanceGroupName')} is only "
                                  "supported on clusters orchestrated by Amazon EKS")


def _desire_kubernetes_config(group: dict, spec_config, settled: bool) -> None:
    """Record a create/update's `KubernetesConfig` on `group` as DescribeCluster shows it.  A given Labels or Taints
    replaces the desired one whole; the current one follows when the group settles (at once when `settled`).
    GUESS: a group that has no nodes with the labels yet (a new group while it is provisioned) has no
    CurrentLabels/CurrentTaints until it settles."""
    details = group.get("KubernetesConfig") or {}
    details = {k: v for k, v in details.items() if k in ("CurrentLabels", "DesiredLabels",
                                                         "CurrentTaints", "DesiredTaints")}
    for given, current, desired in _K8S_PARTS:
        if spec_config is not None and spec_config.get(given) is not None:
            details[desired] = copy.deepcopy(spec_config[given])
        if settled and desired in details:
            details[current] = copy.deepcopy(details[desired])
    if details:
        group["KubernetesConfig"] = details
    else:
        group.pop("KubernetesConfig", None)


def _settle_kubernetes_config(group: dict) -> None:
    _desire_kubernetes_config(group, None, settled=True)


def mig_config(group: dict):
    """The MIG layout the nodes of `group` have (its `nvidia.com/mig.config` label), or None if it has none or it is
    `all-disabled`.  GUESS, the stricter reading: while an update changes the label (current != desired), the group
    counts as having none: its nodes are being repartitioned."""
    details = group.get("KubernetesConfig") or {}
    current = (details.get("CurrentLabels") or {}).get(MIG_CONFIG_LABEL)
    desired = (details.get("DesiredLabels") or {}).get(MIG_CONFIG_LABEL)
    if current != desired or current in (None, MIG_DISABLED):
        return None
    return current


def create_hyperpod_cluster(backend, params: dict, cluster_id: str | None = None):
    """Create a HyperPod cluster in moto's backend the way AWS shapes it (also used by the seed)."""
    groups = copy.deepcopy(params.get("InstanceGroups") or [])
    _check_kubernetes_config(params.get("Orchestrator"), groups)
    configs = {}
    for group in groups:
        # moto indexes both unconditionally (KeyError -> HTML 500); the model makes them optional.
        group.setdefault("ThreadsPerCore", 1)
        if "SourceS3Uri" not in (group.get("LifeCycleConfig") or {}):
            raise ValidationError(f"sandbox: instance group {group.get('InstanceGroupName')} "
                                  "needs LifeCycleConfig.SourceS3Uri (s3://sagemaker-...)")
        configs[group.get("InstanceGroupName")] = group.pop("KubernetesConfig", None)
    backend.create_cluster(cluster_name=params["ClusterName"], instance_groups=groups,
                           vpc_config=params.get("VpcConfig"), tags=params.get("Tags"))
    cluster = backend.clusters[params["ClusterName"]]
    cluster.arn = sagemaker_arn("cluster", cluster_id or new_id(), backend.account_id, backend.region_name)
    cluster.sandbox_extra = {k: copy.deepcopy(params[k]) for k in _CLUSTER_EXTRA_KEYS if params.get(k) is not None}
    for group in cluster.instance_groups:
        group["Status"] = "InService"
        _desire_kubernetes_config(group, configs.get(group["InstanceGroupName"]), settled=True)
    return cluster


def find_cluster(backend, name_or_arn: str):
    for cluster in backend.clusters.values():
        if name_or_arn in (cluster.cluster_name, cluster.arn):
            return cluster
    return None


def _cluster_or_404(backend, name_or_arn: str):
    cluster = find_cluster(backend, name_or_arn)
    if cluster is None:
        raise ResourceNotFound(f"Cluster {name_or_arn} not found")
    return cluster


def _create_cluster(self):
    params = {k: self._get_param(k) for k in ("ClusterName", "InstanceGroups", "VpcConfig", "Tags",
                                               *_CLUSTER_EXTRA_KEYS)}
    return ActionResult({"ClusterArn": create_hyperpod_cluster(self.sagemaker_backend, params).arn})


def _settle_cluster_update(cluster) -> None:
    """An UpdateCluster's new counts are reached `async_delay()` after the write (AWS: minutes of provisioning)."""
    settles = getattr(cluster, "sandbox_update_settles", None)
    if settles is not None and utcnow() >= settles:
        for group in cluster.instance_groups:
            group["CurrentCount"] = group["TargetCount"]
            group["Status"] = "InService"
            _settle_kubernetes_config(group)
        cluster.status = "InService"
        cluster.sandbox_update_settles = None


def _update_cluster(self):
    """UpdateCluster: new instance counts (or new groups) for an InService cluster. AWS rejects a change of an
    existing group's instance type and an update while one is in progress (the stricter reading: ConflictException,
    as for the task-governance resources); the counts settle after `async_delay()`."""
    name = self._get_param("ClusterName")
    specs = self._get_param("InstanceGroups") or []
    cluster = _cluster_or_404(self.sagemaker_backend, name)
    _settle_cluster_update(cluster)
    if cluster.status != "InService":
        raise ConflictException(f"Cluster {cluster.cluster_name} is in {cluster.status} status; wait for InService")
    existing = {g["InstanceGroupName"]: g for g in cluster.instance_groups}
    _check_kubernetes_config(getattr(cluster, "sandbox_extra", {}).get("Orchestrator"), specs)
    for spec in specs:
        group = existing.get(spec["InstanceGroupName"])
        cluster.valid_cluster_node_instance_types(spec["InstanceType"])
        if group is not None and group["InstanceType"] != spec["InstanceType"]:
            raise ValidationError(f"The instance type of instance group {spec['InstanceGroupName']} cannot be "
                                  f"changed from {group['InstanceType']} to {spec['InstanceType']}")
        if spec.get("InstanceCount", 0) < 0:
            raise ValidationError("InstanceCount must be 0 or greater")
    for spec in specs:
        group = existing.get(spec["InstanceGroupName"])
        if group is None:
            group = {**copy.deepcopy({k: v for k, v in spec.items() if k not in ("InstanceCount", "KubernetesConfig")}),
                     "CurrentCount": 0, "ThreadsPerCore": spec.get("ThreadsPerCore", 1)}
            cluster.instance_groups.append(group)
        group["TargetCount"] = spec["InstanceCount"]
        group["ExecutionRole"] = spec.get("ExecutionRole", group.get("ExecutionRole"))
        group["Status"] = "Updating"
        _desire_kubernetes_config(group, spec.get("KubernetesConfig"), settled=False)
    cluster.status = "Updating"
    cluster.sandbox_update_settles = utcnow() + async_delay()
    return ActionResult({"ClusterArn": cluster.arn})


def _describe(cluster) -> dict:
    _settle_cluster_update(cluster)
    out = {**_orig_cluster_describe(cluster), **getattr(cluster, "sandbox_extra", {})}
    if not out.get("FailureMessage"):
        del out["FailureMessage"]  # AWS omits it; moto sends ""
    return out


def _backend_describe_cluster(self, cluster_name):
    return _cluster_or_404(self, cluster_name).describe()


def _backend_delete_cluster(self, cluster_name):
    cluster = _cluster_or_404(self, cluster_name)
    del self.clusters[cluster.cluster_name]
    return cluster.arn


# ---- Versioned resources with asynchronous status (scheduler configs, compute quotas) ----
class Versioned:
    """A task-governance resource.  `versions[n]` holds what the n-th write (Create = 1) set.

    Status transitions are evaluated lazily (see `_settle`): a write sets a
    transitional status plus the status it settles into after `async_delay()`.
    """
    arn_type = ""

    def __init__(self, backend, name, cluster_arn, tags):
        self.id = new_id()
        self.arn = sagemaker_arn(self.arn_type, self.id, backend.account_id, backend.region_name)
        self.name = name
        self.cluster_arn = cluster_arn
        self.tags = tags or []  # moto's AddTags/ListTags/DeleteTags work on `.tags`
        self.version = 0
        self.versions: dict[int, dict] = {}
        self.creation_time = utcnow()
        self.pending = None

    def write(self, content: dict, transitional, settled, failure):
        self.version += 1
        self.versions[self.version] = content
        self.last_modified_time = utcnow()
        self.transition(transitional, settled, failure)

    def transition(self, transitional, settled, failure):
        """Enter `transitional`; after the delay, `settled` (None = gone), or `*Failed` if a fault is armed."""
        self.status = transitional
        self.failure_reason = None
        outcome = (_FAILED[transitional], failure["failure_reason"]) if failure else (settled, None)
        self.pending = (outcome, utcnow() + async_delay())

    def on_settle(self, backend, status):
        """Side effects of reaching `status` (None = gone); may return (failed_status, reason) instead."""
        return None


def _settle(backend, attr: str) -> dict:
    """Resources of one kind by id, with due transitions applied (deleted ones dropped)."""
    store = backend.__dict__.setdefault(attr, {})
    now = utcnow()
    for rid, obj in list(store.items()):
        if obj.pending and obj.pending[1] <= now:
            (status, reason), _ = obj.pending
            obj.pending = None
            if status is None:
                del store[rid]
            else:
                obj.status, obj.failure_reason = status, reason
            failed = obj.on_settle(backend, status)  # after the state is consistent, in case it raises
            if failed and status is not None:
                obj.status, obj.failure_reason = failed
    return store


# ---- Cluster scheduler configs -------------------------------------------------
class SchedulerConfig(Versioned):
    """One cluster policy; versions hold `SchedulerConfig` and `Description`.

    `StatusDetails` lists the components the version sets, each in the config's status, except after a
    `partial_failure` fault (faults.py): the config settles Created/Updated, but that component reads
    CreateFailed/UpdateFailed and FailureReason says why.  GUESS: AWS documents StatusDetails only as context in
    non-active states and on failures; a success overall with one component failed is the stricter reading.
    """
    arn_type = "cluster-scheduler-config"
    _partial = None  # the armed partial_failure fault of the latest write, until it settles
    component_failure = None  # (component, CreateFailed|UpdateFailed) of the latest write, once settled

    def write_config(self, content: dict, transitional, settled, operation, failure=None):
        """Writes `content`; it settles `settled`, or failed with `failure` (or an armed async_failure fault)."""
        failure = failure or faults.take("sagemaker", operation, "async_failure")
        components = content["SchedulerConfig"] or {}
        partial = None if failure else faults.take("sagemaker", operation, "partial_failure",
                                                   applies=lambda f: f["component"] in components)
        self.write(content, transitional, settled, failure)
        self._partial = partial

    def transition(self, transitional, settled, failure):
        super().transition(transitional, settled, failure)
        self._partial = None
        self.component_failure = None

    def on_settle(self, backend, status):
        if self._partial and status in ("Created", "Updated"):
            self.component_failure = (self._partial["component"], "CreateFailed" if status == "Created"
                                      else "UpdateFailed")
            self.failure_reason = self._partial["failure_reason"]
        self._partial = None
        return None

    def summary(self) -> dict:
        return {"ClusterSchedulerConfigArn": self.arn, "ClusterSchedulerConfigId": self.id,
                "ClusterSchedulerConfigVersion": self.version, "Name": self.name,
                "CreationTime": self.creation_time, "LastModifiedTime": self.last_modified_time,
                "Status": self.status, "ClusterArn": self.cluster_arn}

    def describe(self, version=None) -> dict:
        version = self.version if version is None else version
        if version not in self.versions:
            raise ResourceNotFound(f"ClusterSchedulerConfig {self.id} version {version} not found")
        content = self.versions[version]
        details = {c: self.status for c in SCHEDULER_COMPONENTS if c in content["SchedulerConfig"]}
        if self.component_failure and version == self.version:
            component, failed = self.component_failure
            details[component] = failed
        out = {**self.summary(), **content, "ClusterSchedulerConfigVersion": version, "StatusDetails": details}
        if content["Description"] is None:
            del out["Description"]
        if self.failure_reason:
            out["FailureReason"] = self.failure_reason
        return out


def _configs(backend) -> dict:
    """Scheduler configs by id, with due transitions applied (deleted ones dropped)."""
    return _settle(backend, "cluster_scheduler_configs")


def _or_404(found: dict, kind: str, ident: str):
    """The object with this id, or the ResourceNotFound AWS answers for it."""
    if ident not in found:
        raise ResourceNotFound(f"{kind} {ident} not found")
    return found[ident]


def _config_or_404(backend, cid):
    return _or_404(_configs(backend), "ClusterSchedulerConfig", cid)


def _governed_cluster(backend, cluster_arn):
    """The EKS-orchestrated HyperPod cluster with this ARN (task governance needs EKS)."""
    cluster = find_cluster(backend, cluster_arn)
    if cluster is None or cluster.arn != cluster_arn:
        raise ResourceNotFound(f"Cluster {cluster_arn} not found")
    if "Eks" not in getattr(cluster, "sandbox_extra", {}).get("Orchestrator", {}):
        raise ValidationError(f"Cluster {cluster_arn} is not orchestrated by Amazon EKS; "
                              "task governance requires an EKS-orchestrated cluster")
    return cluster


def _require_task_governance(cluster) -> dict | None:
    """Task governance runs on the task-governance EKS add-on (Kueue): AWS has it installed before cluster policies
    and compute allocations are created, and documents `CreateFailed` as what a policy that could not be created
    settles in (delete it and create it again). What a create or update without the add-on ACTIVE answers is the
    guess `scheduler_before_addon` (readings.py): "create_failed" (default) accepts the write, which settles
    CreateFailed/UpdateFailed with a FailureReason naming the add-on (the failure returned here); "refuse" answers a
    ValidationException at once."""
    eks_arn = cluster.sandbox_extra["Orchestrator"]["Eks"]["ClusterArn"]
    eks_cluster = find_eks_cluster(arn=eks_arn)
    addon = eks_state(eks_cluster)["addons"].get(TASK_GOVERNANCE_ADDON) if eks_cluster is not None else None
    if addon is not None and addon.get("status") == "ACTIVE":
        return None
    eks_name = eks_arn.rsplit("/", 1)[-1]
    reason = (f"Task governance is not enabled on cluster {cluster.arn}: install the {TASK_GOVERNANCE_ADDON} add-on "
              f"on EKS cluster {eks_name} (status ACTIVE) first")
    if readings.reading("scheduler_before_addon") == "refuse":
        raise ValidationError(reason)
    return {"failure_reason": reason}


def _locked(fn):
    @functools.wraps(fn)
    def wrapper(self):
        with _lock:
            return fn(self)
    return wrapper


@_locked
def create_cluster_scheduler_config(self):
    backend = self.sagemaker_backend
    cluster_arn = self._get_param("ClusterArn")
    missing_addon = _require_task_governance(_governed_cluster(backend, cluster_arn))
    for other in _configs(backend).values():
        if other.cluster_arn == cluster_arn:
            raise ConflictException(f"Cluster {cluster_arn} already has a cluster scheduler config "
                                    f"({other.id}); only one is allowed per cluster")
    cfg = SchedulerConfig(backend, self._get_param("Name"), cluster_arn, self._get_param("Tags"))
    cfg.write_config({"SchedulerConfig": self._get_param("SchedulerConfig") or {},
                      "Description": self._get_param("Description")}, "Creating", "Created",
                     "CreateClusterSchedulerConfig", missing_addon)
    _configs(backend)[cfg.id] = cfg
    return ActionResult({"ClusterSchedulerConfigArn": cfg.arn, "ClusterSchedulerConfigId": cfg.id})


@_locked
def describe_cluster_scheduler_config(self):
    cfg = _config_or_404(self.sagemaker_backend, self._get_param("ClusterSchedulerConfigId"))
    return ActionResult(cfg.describe(self._get_param("ClusterSchedulerConfigVersion")))


@_locked
def update_cluster_scheduler_config(self):
    cfg = _config_or_404(self.sagemaker_backend, self._get_param("ClusterSchedulerConfigId"))
    target = self._get_param("TargetVersion")
    _check_target_version(target, cfg.version, "ClusterSchedulerConfig", cfg.id)
    if cfg.status in ("Creating", "Updating", "Deleting"):
        raise ConflictException(f"ClusterSchedulerConfig {cfg.id} is {cfg.status}; retry when the operation completes")
    missing_addon = _require_task_governance(_governed_cluster(self.sagemaker_backend, cfg.cluster_arn))
    current = cfg.versions[cfg.version]
    spec = self._get_param("SchedulerConfig")
    description = self._get_param("Description")
    cfg.write_config({"SchedulerConfig": current["SchedulerConfig"] if spec is None else spec,
                      "Description": current["Description"] if description is None else description},
                     "Updating", "Updated", "UpdateClusterSchedulerConfig", missing_addon)
    return ActionResult({"ClusterSchedulerConfigArn": cfg.arn, "ClusterSchedulerConfigVersion": cfg.version})


@_locked
def delete_cluster_scheduler_config(self):
    cfg = _config_or_404(self.sagemaker_backend, self._get_param("ClusterSchedulerConfigId"))
    if cfg.status != "Deleting":
        cfg.transition("Deleting", None, faults.take("sagemaker", "DeleteClusterSchedulerConfig", "async_failure"))
    return EmptyResult()


@_locked
def list_cluster_scheduler_configs(self):
    items, token = _filter_sort_page(self, _configs(self.sagemaker_backend).values(), ("Name", "Status"))
    out = {"ClusterSchedulerConfigSummaries": [c.summary() for c in items]}
    if token:
        out["NextToken"] = token
    return ActionResult(out)


def _filter_sort_page(response, items, sort_keys):
    """ListClusterSchedulerConfigs/ListComputeQuotas: filters, sort (default newest first), paging."""
    p = {k: response._get_param(k) for k in ("CreatedAfter", "CreatedBefore", "NameContains", "ClusterArn",
                                             "Status", "SortBy", "SortOrder", "NextToken", "MaxResults")}
    items = list(items)
    if p["CreatedAfter"]:
        items = [c for c in items if c.creation_time > _naive_utc(p["CreatedAfter"])]
    if p["CreatedBefore"]:
        items = [c for c in items if c.creation_time < _naive_utc(p["CreatedBefore"])]
    if p["NameContains"]:
        items = [c for c in items if p["NameContains"] in c.name]
    if p["ClusterArn"]:
        items = [c for c in items if c.cluster_arn == p["ClusterArn"]]
    if p["Status"]:
        items = [c for c in items if c.status == p["Status"]]
    attr = {"Name": "name", "Status": "status", "ClusterArn": "cluster_arn"}.get(p["SortBy"], "creation_time")
    attr = attr if p["SortBy"] in sort_keys else "creation_time"
    items.sort(key=lambda c: getattr(c, attr), reverse=p["SortOrder"] != "Ascending")  # AWS default: newest first
    start = _decode_token(p["NextToken"])
    end = start + (p["MaxResults"] or 100)
    token = base64.urlsafe_b64encode(str(end).encode()).decode() if end < len(items) else None
    return items[start:end], token


def _decode_token(token):
    if not token:
        return 0
    try:
        return int(base64.urlsafe_b64decode(token.encode()).decode())
    except ValueError:
        raise ValidationError(f"Invalid NextToken: {token}") from None


# ---- Compute quotas ----------------------------------------------------------------
# What AWS documents (model docs, aws-apis.md §1.2/§1.3) is implemented as documented: defaults (ActivationState
# Enabled, Strategy LendAndBorrow, BorrowLimit 50, PreemptTeamTasks LowerPriority, FairShareWeight 0), BorrowLimit
# 1-500 (docs; the model allows 0-10000), the ratio auto-fill of VCpu/MemoryInGiB/Accelerators (and of VCpu/MemoryInGiB
# from an AcceleratorPartition's count), MIG profiles that depend on the instance type, names unique per cluster.
# Everything marked GUESS below is AWS behaviour nobody has documented; the sandbox picks the stricter reading so that
# a provider that passes here does not rely on leniency.  (The model's own constraints, e.g. AcceleratorPartition's
# Type enum and Count 0-10000000 or at most 15 AbsoluteBorrowLimits, are enforced before any of this: validation.py.)

# (accelerators, vCPU, memory GiB) per instance, from the public EC2 specs.  The auto-fill and the capacity check
# need the shape; an instance type missing here cannot be allocated by amounts (add it first).
_INSTANCE_SHAPES = {
    "ml.p4d.24xlarge": (8, 96, 1152),    # 8 x NVIDIA A100 40GB
    "ml.p4de.24xlarge": (8, 96, 1152),   # 8 x NVIDIA A100 80GB
    "ml.p5.48xlarge": (8, 192, 2048),    # 8 x NVIDIA H100
    "ml.p5e.48xlarge": (8, 192, 2048),   # 8 x NVIDIA H200
    "ml.p5en.48xlarge": (8, 192, 2048),  # 8 x NVIDIA H200
    "ml.g5.xlarge": (1, 4, 16),          # 1 x NVIDIA A10G
    "ml.g5.8xlarge": (1, 32, 128),       # 1 x NVIDIA A10G
    "ml.g5.12xlarge": (4, 48, 192),      # 4 x NVIDIA A10G
    "ml.trn1.32xlarge": (16, 128, 512),  # 16 Trainium devices (32 NeuronCores)
    "ml.m5.2xlarge": (0, 8, 32),
}
_AMOUNTS = ("Accelerators", "VCpu", "MemoryInGiB")
_TRANSITIONAL = ("Creating", "Updating", "Deleting")
# The docs' BorrowLimit range (percent of idle compute); the model's 0-10000 is looser (tests/test_compute_quotas.py
# checks that this range lies inside the model's).
BORROW_LIMIT_RANGE = (1, 500)
# MIG profiles per instance type: (GPU, {profile: partitions of that profile per GPU}), from NVIDIA's MIG user guide
# ("Supported MIG Profiles"; `+me` profiles left out: SageMaker does not take them); the profile names are those of
# aws/sagemaker-hyperpod-cli's INSTANCE_TYPE_MIG_PROFILES (without `mig-`).  The model documents that "the available
# profile types depend on the instance type": a profile not listed for an instance type is refused.
_MIG_PROFILES = {
    "ml.p4d.24xlarge": ("NVIDIA A100 40GB", {"1g.5gb": 7, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1,
                                             "7g.40gb": 1}),
    "ml.p4de.24xlarge": ("NVIDIA A100 80GB", {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1,
                                              "7g.80gb": 1}),
    "ml.p5.48xlarge": ("NVIDIA H100 80GB", {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1,
                                            "7g.80gb": 1}),
    "ml.p5e.48xlarge": ("NVIDIA H200 141GB", {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1,
                                              "7g.141gb": 1}),
    "ml.p5en.48xlarge": ("NVIDIA H200 141GB", {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1,
                                               "7g.141gb": 1}),
}
_PARTITION_CLASHES = ("Count", "Accelerators")  # what an entry with AcceleratorPartition may not set (GUESS)
TEAM_NAMESPACE_PREFIX = "hyperpod-ns-"  # aws/sagemaker-hyperpod-cli HYPERPOD_NAMESPACE_PREFIX


class ComputeQuota(Versioned):
    """One team's compute allocation on one cluster; versions hold the config, target, activation, description.

    Settling into Created/Updated makes "HyperPod" create or relabel the team namespace in the cluster's
    Kubernetes API; the quota's disappearance removes it when no other quota of that team remains on that EKS
    cluster (two HyperPod clusters may share one EKS cluster).
    """
    arn_type = "compute-quota"

    def __init__(self, backend, name, cluster, tags):
        super().__init__(backend, name, cluster.arn, tags)
        self.eks_cluster_arn = cluster.sandbox_extra["Orchestrator"]["Eks"]["ClusterArn"]

    @property
    def content(self) -> dict:
        return self.versions[self.version]

    @property
    def team(self) -> str:
        return self.content["ComputeQuotaTarget"]["TeamName"]

    @property
    def namespace(self) -> str:
        return TEAM_NAMESPACE_PREFIX + self.team

    def summary(self, version=None) -> dict:
        version = self.version if version is None else version
        content = self.versions[version]
        return {"ComputeQuotaArn": self.arn, "ComputeQuotaId": self.id, "Name": self.name,
                "ComputeQuotaVersion": version, "Status": self.status, "ClusterArn": self.cluster_arn,
                "ComputeQuotaConfig": copy.deepcopy(content["ComputeQuotaConfig"]),
                "ComputeQuotaTarget": dict(content["ComputeQuotaTarget"]),
                "ActivationState": content["ActivationState"],
                "CreationTime": self.creation_time, "LastModifiedTime": self.last_modified_time}

    def describe(self, version=None) -> dict:
        version = self.version if version is None else version
        if version not in self.versions:
            raise ResourceNotFound(f"ComputeQuota {self.id} version {version} not found")
        out = self.summary(version)
        if self.versions[version]["Description"] is not None:
            out["Description"] = self.versions[version]["Description"]
        if self.failure_reason:
            out["FailureReason"] = self.failure_reason
        return out

    def namespace_labels(self) -> dict:
        # The first two labels: HyperPod docs + sagemaker-hyperpod-cli constants.  activate-quota: seen on real
        # clusters (the task-governance admission policy binds on it); that it follows ActivationState is a GUESS.
        return {"sagemaker.amazonaws.com/sagemaker-managed-queue": "true",
                "sagemaker.amazonaws.com/quota-allocation-id": self.team,
                "sagemaker.amazonaws.com/activate-quota": self.content["ActivationState"]}

    def on_settle(self, backend, status):
        # Through the module, not its functions: tests replace kubernetes.ensure_namespace to make it fail.
        if status in ("Created", "Updated"):
            try:
                kubernetes.ensure_namespace(self.eks_cluster_arn, self.namespace, self.namespace_labels())
            except Exception as e:  # HyperPod could not reach the cluster: the write fails
                return (_FAILED["Creating" if status == "Created" else "Updating"],
                        f"Failed to create namespace {self.namespace}: {e}")
        elif status is None:
            remaining = backend.__dict__.get("compute_quotas", {}).values()
            if not any(q.eks_cluster_arn == self.eks_cluster_arn and q.team == self.team for q in remaining):
                try:
                    kubernetes.delete_namespace(self.eks_cluster_arn, self.namespace)
                except Exception:  # already gone out of band: nothing left to clean up
                    pass
        return None


def _quotas(backend) -> dict:
    """Compute quotas by id, with due transitions applied (deleted ones dropped)."""
    return _settle(backend, "compute_quotas")


def _quota_or_404(backend, qid):
    return _or_404(_quotas(backend), "ComputeQuota", qid)


def _settle_quotas_later(backend):
    """Apply the transition when it is due even if nobody calls SageMaker: the namespace must appear in the
    Kubernetes API on its own, as it does when HyperPod finishes creating the quota."""
    def run():
        with _lock:
            _quotas(backend)
    timer = threading.Timer(async_delay().total_seconds() + 0.05, run)
    timer.daemon = True
    timer.start()


def _cluster_capacity(cluster) -> dict:
    """Instance type -> instances the cluster is configured for (sum over its instance groups)."""
    capacity: dict[str, int] = {}
    for group in cluster.instance_groups:
        count = group.get("TargetCount", group.get("InstanceCount", 0))
        capacity[group["InstanceType"]] = capacity.get(group["InstanceType"], 0) + count
    return capacity


def _ratio_fill(key, value, shape) -> dict:
    """The model docs' auto-fill: one amount given -> the others by the instance type's ratio."""
    accelerators, vcpu, memory = shape
    if key == "Accelerators":
        ratio = value / accelerators if accelerators else 0
        return {"VCpu": float(ratio * vcpu), "MemoryInGiB": float(ratio * memory)}
    if key == "VCpu":
        return {"MemoryInGiB": float(value / vcpu * memory), "Accelerators": 0}
    return {"VCpu": float(value / memory * vcpu), "Accelerators": 0}


def _mig_layouts(cluster, itype) -> list:
    """(group, MIG layout or None) of each instance group of `itype` (see mig_config)."""
    return [(g, mig_config(g)) for g in cluster.instance_groups if g["InstanceType"] == itype]


def _partition_slices(itype, profile):
    """Partitions of `profile` ("mig-1g.5gb") per GPU of `itype`, or None if its GPUs have no such profile."""
    return _MIG_PROFILES.get(itype, (None, {}))[1].get(profile.removeprefix("mig-"))


def _check_partition(cluster, itype, entry, where) -> None:
    """An AcceleratorPartition entry against the cluster's instance groups of `itype`.

    GUESS (stricter): an entry with AcceleratorPartition may not also set Count or Accelerators (the partitions are its
    accelerator allocation; VCpu and MemoryInGiB may be given, else they are filled by the partitions' ratio).
    GUESS (stricter): a partition needs an instance group of `itype` with a MIG layout (the `nvidia.com/mig.config`
    label, not `all-disabled`); if every such group has a uniform layout (`all-<profile>`), the profile must be one of
    theirs (the nodes expose no other partitions); a custom layout (any other name) may expose any profile.
    Documented (model): the profile must be one the instance type's GPUs offer (_MIG_PROFILES).
    """
    profile = entry["AcceleratorPartition"]["Type"]
    clash = [k for k in _PARTITION_CLASHES if k in entry]
    if clash:
        raise ValidationError(f"'{where}' ({itype}) sets AcceleratorPartition together with {', '.join(clash)}: "
                              "allocate either accelerator partitions or whole instances/accelerators")
    layouts = [layout for _, layout in _mig_layouts(cluster, itype) if layout is not None]
    if not layouts:
        raise ValidationError(f"AcceleratorPartition at '{where}' needs MIG-partitioned GPUs, but no instance group "
                              f"of {itype} in cluster {cluster.arn} has a MIG configuration (Kubernetes label "
                              f"{MIG_CONFIG_LABEL} absent or {MIG_DISABLED})")
    if _partition_slices(itype, profile) is None:
        gpu, profiles = _MIG_PROFILES.get(itype, (None, {}))
        offered = (f"its {gpu} GPUs offer {', '.join('mig-' + p for p in profiles)}" if gpu
                   else "its accelerators do not support MIG")
        raise ValidationError(f"Accelerator partition type {profile} at '{where}.AcceleratorPartition.Type' is not "
                              f"available on {itype}: {offered}")
    if all(layout.startswith("all-") for layout in layouts) and f"all-{profile.removeprefix('mig-')}" not in layouts:
        exposed = sorted({"mig-" + layout.removeprefix("all-") for layout in layouts})
        raise ValidationError(f"Accelerator partition type {profile} at '{where}.AcceleratorPartition.Type' is not "
                              f"exposed by the {itype} instance groups of cluster {cluster.arn}: their "
                              f"{MIG_CONFIG_LABEL} is {', '.join(sorted(set(layouts)))} (partitions "
                              f"{', '.join(exposed)} only)")


def _partition_fill(entry, itype, shape) -> dict:
    """The model docs' auto-fill for AcceleratorPartition: without VCpu and MemoryInGiB, both by the ratio of the
    partitions to the instance (Count partitions of a profile with k per GPU = Count/k GPUs' worth of the instance's
    vCPU and memory); with one of them, the other by that one's ratio (GUESS: no Accelerators are filled in, the
    partitions are the entry's accelerators)."""
    accelerators, vcpu, memory = shape
    if "VCpu" in entry and "MemoryInGiB" in entry:
        return {}
    if "VCpu" in entry:
        return {"MemoryInGiB": float(entry["VCpu"] / vcpu * memory)}
    if "MemoryInGiB" in entry:
        return {"VCpu": float(entry["MemoryInGiB"] / memory * vcpu)}
    partition = entry["AcceleratorPartition"]
    gpus = partition["Count"] / _partition_slices(itype, partition["Type"])
    return {"VCpu": float(gpus / accelerators * vcpu), "MemoryInGiB": float(gpus / accelerators * memory)}


def _quota_resources(entries, cluster, path, fill) -> list:
    capacity = _cluster_capacity(cluster)
    seen, out = set(), []
    for i, entry in enumerate(entries):
        where = f"{path}[{i}]"
        itype = entry["InstanceType"]
        if itype not in capacity:
            raise ValidationError(f"Instance type {itype} at '{where}.InstanceType' is not in any instance group of "
                                  f"cluster {cluster.arn} (its instance types: {', '.join(sorted(capacity))})")
        if itype in seen:  # GUESS: AWS's behaviour on a repeated instance type is undocumented
            raise ValidationError(f"Instance type {itype} appears more than once in '{path}'")
        seen.add(itype)
        given = [k for k in _AMOUNTS if k in entry]
        if "Count" not in entry and not given and "AcceleratorPartition" not in entry:
            # GUESS: an entry that allocates nothing is refused
            raise ValidationError(f"'{where}' ({itype}) must set Count, Accelerators, VCpu, MemoryInGiB "
                                  "or AcceleratorPartition")
        if "Count" in entry and given:
            # GUESS: the console allocates either whole instances or amounts, never both in one entry
            raise ValidationError(f"'{where}' ({itype}) sets Count together with {', '.join(given)}: allocate "
                                  "either whole instances (Count) or resource amounts")
        shape = _INSTANCE_SHAPES.get(itype)
        if shape is None and (given or "AcceleratorPartition" in entry):
            raise ValidationError(f"sandbox: no instance shape known for {itype} (at '{where}'); "
                                  "add it to sandbox/sagemaker.py _INSTANCE_SHAPES")
        if shape and shape[0] == 0 and (entry.get("Accelerators") or "AcceleratorPartition" in entry):
            raise ValidationError(f"Instance type {itype} has no accelerators, but '{where}' allocates some")
        if "AcceleratorPartition" in entry:
            _check_partition(cluster, itype, entry, where)
            if fill:
                entry = {**entry, **_partition_fill(entry, itype, shape)}
        elif fill and len(given) == 1:
            entry = {**entry, **_ratio_fill(given[0], entry[given[0]], shape)}
        out.append(entry)
    return out


def _quota_config(config, cluster) -> dict:
    """ComputeQuotaConfig as AWS stores and returns it: checked against the cluster, defaults applied."""
    path = "ComputeQuotaConfig"
    out = copy.deepcopy(config)
    if "ComputeQuotaResources" in out:
        out["ComputeQuotaResources"] = _quota_resources(out["ComputeQuotaResources"], cluster,
                                                        f"{path}.ComputeQuotaResources", fill=True)
    sharing = out.setdefault("ResourceSharingConfig", {"Strategy": "LendAndBorrow"})
    if sharing["Strategy"] == "LendAndBorrow":
        sharing.setdefault("BorrowLimit", 50)
        low, high = BORROW_LIMIT_RANGE
        if not low <= sharing["BorrowLimit"] <= high:  # docs: 1-500 percent; the model's 0-10000 is looser
            raise ValidationError(f"Value '{sharing['BorrowLimit']}' at '{path}.ResourceSharingConfig.BorrowLimit' "
                                  f"failed to satisfy constraint: BorrowLimit must be between {low} and {high} "
                                  "(percent)")
    else:
        for key in ("BorrowLimit", "AbsoluteBorrowLimits"):  # AbsoluteBorrowLimits: GUESS, same rule
            if key in sharing:
                raise ValidationError(f"'{path}.ResourceSharingConfig.{key}' is only allowed with Strategy "
                                      f"LendAndBorrow, not {sharing['Strategy']}")
    if "AbsoluteBorrowLimits" in sharing:
        sharing["AbsoluteBorrowLimits"] = _quota_resources(sharing["AbsoluteBorrowLimits"], cluster,
                                                           f"{path}.ResourceSharingConfig.AbsoluteBorrowLimits",
                                                           fill=False)
    out.setdefault("PreemptTeamTasks", "LowerPriority")
    return out


def _quota_target(target) -> dict:
    team = target["TeamName"]
    if len(team) > 40:  # GUESS: the pattern's {0,39} means 40 at most; it does not enforce it (inner `*`)
        raise ValidationError(f"Value '{team}' at 'ComputeQuotaTarget.TeamName' failed to satisfy constraint: "
                              "Member must have length less than or equal to 40")
    return {"TeamName": team, "FairShareWeight": target.get("FairShareWeight", 0)}


def _check_capacity(cluster, allocations):
    if readings.reading("quota_capacity") == "accept":
        return
    _refuse_overcommit(cluster, allocations)


def _refuse_overcommit(cluster, allocations):
    """`allocations`: (team, ComputeQuotaConfig) of every quota on the cluster, the new/updated one included.

    Per instance type, the instances (Count) of all teams must fit the cluster's instances, and so must the
    accelerators, vCPUs and memory (a Count entry counting as Count whole instances).  AWS documents only "the
    sum of reserved quotas should not exceed cluster capacity"; that it is refused at write time, and with
    quotas in any status (failed ones included) counting until they are gone, is a GUESS (the stricter reading).

    MIG partitions (AcceleratorPartition) count where the instance type's layout is uniform: an instance group with
    `nvidia.com/mig.config` `all-<profile>` holds instances x GPUs x (partitions of that profile per GPU) partitions
    of `mig-<profile>`, and all teams' Count of that profile on that type must fit them (0 if no group has that
    layout); each share of Count partitions also counts as Count/k accelerators (k: partitions per GPU) in the
    accelerator sum, besides its VCpu and MemoryInGiB.  Partitions on an instance type of which some group has a
    custom layout (not `all-...`) are not counted at all: the sandbox cannot tell what that layout holds (their
    VCpu and MemoryInGiB still count, as any amounts do).
    """
    for itype, instances in _cluster_capacity(cluster).items():
        entries = [(team, r) for team, cfg in allocations for r in cfg.get("ComputeQuotaResources", [])
                   if r["InstanceType"] == itype]
        counts = [(team, r["Count"]) for team, r in entries if "Count" in r]
        total = sum(n for _, n in counts)
        if total > instances:
            detail = ", ".join(f"{team}: {n}" for team, n in counts)
            raise ValidationError(f"Compute quotas of cluster {cluster.arn} would allocate {total} {itype} instances "
                                  f"({detail}), but the cluster has {instances}")
        shape = _INSTANCE_SHAPES.get(itype)
        if shape is None:
            continue
        layouts = _mig_layouts(cluster, itype)
        partitions_count = all(layout is None or layout.startswith("all-") for _, layout in layouts)
        if partitions_count:
            _refuse_partition_overcommit(cluster, itype, shape, layouts, entries)

        def demand(r, dim, per_instance, itype=itype, partitions_count=partitions_count):
            if "Count" in r:
                return r["Count"] * per_instance
            partition = r.get("AcceleratorPartition")
            if dim == "Accelerators" and partition and partitions_count:
                slices = _partition_slices(itype, partition["Type"])
                return partition["Count"] / slices if slices else 0
            return r.get(dim, 0)

        for dim, per_instance in zip(_AMOUNTS, shape, strict=True):
            shares = [(team, demand(r, dim, per_instance)) for team, r in entries]
            total, available = sum(n for _, n in shares), instances * per_instance
            if total > available + 1e-9:
                detail = ", ".join(f"{team}: {n:g}" for team, n in shares)
                raise ValidationError(f"Compute quotas of cluster {cluster.arn} would allocate {total:g} {dim} of "
                                      f"{itype} ({detail}), but its {instances} {itype} instances have {available:g}")


def _refuse_partition_overcommit(cluster, itype, shape, layouts, entries):
    """Per MIG profile of `itype`: all teams' partitions must fit the groups laid out `all-<profile>` (see above)."""
    by_profile: dict[str, list] = {}
    for team, r in entries:
        if "AcceleratorPartition" in r:
            partition = r["AcceleratorPartition"]
            by_profile.setdefault(partition["Type"], []).append((team, partition["Count"]))
    for profile, shares in sorted(by_profile.items()):
        name = profile.removeprefix("mig-")
        instances = sum(g.get("TargetCount", 0) for g, layout in layouts if layout == f"all-{name}")
        available = instances * shape[0] * (_partition_slices(itype, profile) or 0)
        total = sum(n for _, n in shares)
        if total > available:
            detail = ", ".join(f"{team}: {n}" for team, n in shares)
            raise ValidationError(f"Compute quotas of cluster {cluster.arn} would allocate {total} {profile} "
                                  f"partitions of {itype} ({detail}), but its {instances} {itype} instances with "
                                  f"{MIG_CONFIG_LABEL} all-{name} have {available}")


def _check_unique(quotas, cluster_arn, name, team):
    """Name unique per cluster: documented.  One quota per team per cluster: implied by the per-team namespace and
    ClusterQueue, not stated in the API reference (GUESS, stricter)."""
    for q in quotas:
        if q.name == name:
            raise ConflictException(f"A compute quota named {name} already exists in cluster {cluster_arn} ({q.id})")
        if q.team == team:
            raise ConflictException(f"Team {team} already has a compute quota in cluster {cluster_arn} "
                                    f"({q.id}, {q.name}); a team can have only one compute quota per cluster")


@_locked
def create_compute_quota(self):
    backend = self.sagemaker_backend
    cluster = _governed_cluster(backend, self._get_param("ClusterArn"))
    missing_addon = _require_task_governance(cluster)
    name = self._get_param("Name")
    target = _quota_target(self._get_param("ComputeQuotaTarget"))
    config = _quota_config(self._get_param("ComputeQuotaConfig"), cluster)
    on_cluster = [q for q in _quotas(backend).values() if q.cluster_arn == cluster.arn]
    _check_unique(on_cluster, cluster.arn, name, target["TeamName"])
    _check_capacity(cluster, [(q.team, q.content["ComputeQuotaConfig"]) for q in on_cluster]
                    + [(target["TeamName"], config)])
    quota = ComputeQuota(backend, name, cluster, self._get_param("Tags"))
    quota.write({"ComputeQuotaConfig": config, "ComputeQuotaTarget": target,
                 "ActivationState": self._get_param("ActivationState") or "Enabled",
                 "Description": self._get_param("Description")}, "Creating", "Created",
                missing_addon or faults.take("sagemaker", "CreateComputeQuota", "async_failure"))
    _quotas(backend)[quota.id] = quota
    _settle_quotas_later(backend)
    return ActionResult({"ComputeQuotaArn": quota.arn, "ComputeQuotaId": quota.id})


@_locked
def describe_compute_quota(self):
    quota = _quota_or_404(self.sagemaker_backend, self._get_param("ComputeQuotaId"))
    return ActionResult(quota.describe(self._get_param("ComputeQuotaVersion")))


@_locked
def update_compute_quota(self):
    backend = self.sagemaker_backend
    quota = _quota_or_404(backend, self._get_param("ComputeQuotaId"))
    target_version = self._get_param("TargetVersion")
    _check_target_version(target_version, quota.version, "ComputeQuota", quota.id)
    if quota.status in _TRANSITIONAL:
        raise ConflictException(f"ComputeQuota {quota.id} is {quota.status}; retry when the operation completes")
    cluster = _governed_cluster(backend, quota.cluster_arn)
    missing_addon = _require_task_governance(cluster)
    current = quota.content
    config, target = self._get_param("ComputeQuotaConfig"), self._get_param("ComputeQuotaTarget")
    # A given ComputeQuotaConfig/ComputeQuotaTarget replaces the stored one whole (defaults re-applied).
    config = current["ComputeQuotaConfig"] if config is None else _quota_config(config, cluster)
    target = current["ComputeQuotaTarget"] if target is None else _quota_target(target)
    if target["TeamName"] != quota.team:  # GUESS: undocumented; the team (and its namespace) is the identity
        raise ValidationError(f"ComputeQuotaTarget.TeamName cannot be changed (ComputeQuota {quota.id} is for team "
                              f"{quota.team}); create a new compute quota for team {target['TeamName']}")
    others = [q for q in _quotas(backend).values() if q.cluster_arn == cluster.arn and q is not quota]
    _check_capacity(cluster, [(q.team, q.content["ComputeQuotaConfig"]) for q in others] + [(quota.team, config)])
    activation, description = self._get_param("ActivationState"), self._get_param("Description")
    quota.write({"ComputeQuotaConfig": config, "ComputeQuotaTarget": target,
                 "ActivationState": current["ActivationState"] if activation is None else activation,
                 "Description": current["Description"] if description is None else description},
                "Updating", "Updated", missing_addon or faults.take("sagemaker", "UpdateComputeQuota", "async_failure"))
    _settle_quotas_later(backend)
    return ActionResult({"ComputeQuotaArn": quota.arn, "ComputeQuotaVersion": quota.version})


@_locked
def delete_compute_quota(self):
    backend = self.sagemaker_backend
    quota = _quota_or_404(backend, self._get_param("ComputeQuotaId"))
    if quota.status in ("Creating", "Updating"):  # GUESS: refused mid-transition, like Update
        raise ConflictException(f"ComputeQuota {quota.id} is {quota.status}; retry when the operation completes")
    if quota.status != "Deleting":
        quota.transition("Deleting", None, faults.take("sagemaker", "DeleteComputeQuota", "async_failure"))
        _settle_quotas_later(backend)
    return EmptyResult()


@_locked
def list_compute_quotas(self):
    items, token = _filter_sort_page(self, _quotas(self.sagemaker_backend).values(),
                                     ("Name", "Status", "ClusterArn"))
    out = {"ComputeQuotaSummaries": [q.summary() for q in items]}
    if token:
        out["NextToken"] = token
    return ActionResult(out)


# ---- Tagging on AWS-shaped ARNs ---------------------------------------------------
def _resource_from_arn(self, arn):
    """moto resolves `cluster/<name>` only; resolve our id-based cluster, config and quota ARNs too."""
    resource_type = arn.split(":")[-1].split("/")[0]
    if resource_type == "cluster":
        return _cluster_or_404(self, arn)
    if resource_type == "cluster-scheduler-config":
        return _config_or_404(self, arn.split("/")[-1])
    if resource_type == "compute-quota":
        return _quota_or_404(self, arn.split("/")[-1])
    return _orig_resource_from_arn(self, arn)


def _add_tags(self, arn, tags):
    """AWS AddTags overwrites the value of an existing key; moto appends a duplicate."""
    resource = self._get_resource_from_arn(arn)
    keys = {t["Key"] for t in tags}
    resource.tags = [t for t in resource.tags if t["Key"] not in keys] + list(tags)
    return resource.tags


_orig_cluster_describe = SageMakerCluster.describe
_orig_resource_from_arn = SageMakerBackend._get_resource_from_arn


def install():
    SageMakerCluster.describe = _describe
    SageMakerBackend.describe_cluster = _backend_describe_cluster
    SageMakerBackend.delete_cluster = _backend_delete_cluster
    SageMakerBackend._get_resource_from_arn = _resource_from_arn
    SageMakerBackend.add_tags = _add_tags
    SageMakerResponse.create_cluster = _create_cluster
    SageMakerResponse.update_cluster = _locked(_update_cluster)
    for fn in (create_cluster_scheduler_config, describe_cluster_scheduler_config, update_cluster_scheduler_config,
               delete_cluster_scheduler_config, list_cluster_scheduler_configs,
               create_compute_quota, describe_compute_quota, update_compute_quota, delete_compute_quota,
               list_compute_quotas):
        setattr(SageMakerResponse, fn.__name__, fn)


def apply_seed(data: dict, account: dict) -> dict:
    """HyperPod clusters from seed_data/sagemaker.json, with fixed ids so ARNs survive resets."""
    backend = sagemaker_backend(account["account_id"], account["region"])
    clusters = {}
    for c in data.get("hyperpod_clusters", []):
        params = {k: v for k, v in c.items() if k != "ClusterId"}
        clusters[c["ClusterName"]] = create_hyperpod_cluster(backend, params, cluster_id=c["ClusterId"]).arn
    return {"hyperpod_clusters": clusters}


def add_instance_group(account: dict, cluster_name: str, group: dict) -> dict:
    """One more instance group (CreateCluster's shape) on an existing HyperPod cluster, InService at once, as if the
    capacity team had grown the cluster before the run (the admin fixtures' way); returns it as DescribeCluster does.
    Its lifecycle script and execution role default to those of the cluster's first group. ValueError (an admin 400)
    for an unknown cluster, a taken group name or an instance type HyperPod does not offer."""
    backend = sagemaker_backend(account["account_id"], account["region"])
    with _lock:
        cluster = find_cluster(backend, cluster_name)
        if cluster is None:
            raise ValueError(f"no HyperPod cluster {cluster_name}")
        if any(g["InstanceGroupName"] == group["InstanceGroupName"] for g in cluster.instance_groups):
            raise ValueError(f"cluster {cluster_name} already has an instance group {group['InstanceGroupName']}")
        try:
            cluster.valid_cluster_node_instance_types(group["InstanceType"])
        except ValidationError as e:
            raise ValueError(e.message) from None
        first = cluster.instance_groups[0]
        added = {"LifeCycleConfig": copy.deepcopy(first["LifeCycleConfig"]), "ExecutionRole": first["ExecutionRole"],
                 "ThreadsPerCore": 1, **copy.deepcopy(group), "Status": "InService"}
        count = added.pop("InstanceCount")
        added.update(CurrentCount=count, TargetCount=count)
        _desire_kubernetes_config(added, added.pop("KubernetesConfig", None), settled=True)
        cluster.instance_groups.append(added)
        return added
