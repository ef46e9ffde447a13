"""SageMaker additions to moto's backend (monkeypatched on import, no fork).

* HyperPod clusters: moto drops `Orchestrator` & co. and names clusters
  `cluster/<ClusterName>`; AWS keeps them and uses `cluster/<12-char id>`.
* Cluster scheduler configs ("cluster policies", task governance): not in moto.
  Versioned, one per cluster, with AWS's asynchronous status transitions.

moto dispatches `X-Amz-Target: SageMaker.<Op>` to `SageMakerResponse.<snake_op>`,
so a new operation is a method set on that class.  State lives in the backend's
`__dict__`, which moto's reset wipes.
"""
import base64
import copy
import functools
import os
import secrets
import string
import threading
from datetime import datetime, timedelta, timezone

from moto.core.responses import ActionResult, EmptyResult
from moto.core.utils import utcnow
from moto.sagemaker import models as sm_models
from moto.sagemaker.exceptions import ConflictException, ResourceNotFound, ValidationError
from moto.sagemaker.responses import SageMakerResponse

from . import faults

# Members of CreateCluster that moto ignores but DescribeCluster must return.
_CLUSTER_EXTRA_KEYS = ("Orchestrator", "NodeRecovery", "NodeProvisioningMode", "ClusterRole")
_ALNUM = string.ascii_lowercase + string.digits
_SCHEDULER_COMPONENTS = ("PriorityClasses", "FairShare", "IdleResourceSharing")
_FAILED = {"Creating": "CreateFailed", "Updating": "UpdateFailed", "Deleting": "DeleteFailed"}
_lock = threading.RLock()  # moto's server is threaded; Terraform writes in parallel


def async_delay() -> timedelta:
    """How long a Creating/Updating/Deleting state lasts, measured from the write."""
    return timedelta(seconds=float(os.environ.get("HYPERPOD_SANDBOX_ASYNC_SECONDS", "1.0")))


def new_id() -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(12))


def _naive_utc(t: datetime) -> datetime:
    """moto keeps naive UTC datetimes; parsed request timestamps may be aware."""
    return t.astimezone(timezone.utc).replace(tzinfo=None) if t.tzinfo else t


# ---- HyperPod clusters -------------------------------------------------------
def create_hyperpod_cluster(backend, params: dict, cluster_id: str | None = None):
    """Create a HyperPod cluster in moto's backend the way AWS shapes it (also used by the seed)."""
    groups = copy.deepcopy(params.get("InstanceGroups") or [])
    for group in groups:
        # moto indexes both unconditionally (KeyError -> HTML 500); the model makes them optional.
        group.setdefault("ThreadsPerCore", 1)
        if "SourceS3Uri" not in (group.get("LifeCycleConfig") or {}):
            raise ValidationError(f"sandbox: instance group {group.get('InstanceGroupName')} "
                                  "needs LifeCycleConfig.SourceS3Uri (s3://sagemaker-...)")
    backend.create_cluster(cluster_name=params["ClusterName"], instance_groups=groups,
                           vpc_config=params.get("VpcConfig"), tags=params.get("Tags"))
    cluster = backend.clusters[params["ClusterName"]]
    cluster.arn = sm_models.arn_formatter("cluster", cluster_id or new_id(), backend.account_id, backend.region_name)
    cluster.sandbox_extra = {k: copy.deepcopy(params[k]) for k in _CLUSTER_EXTRA_KEYS if params.get(k) is not None}
    for group in cluster.instance_groups:
        group["Status"] = "InService"
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


def _describe(cluster) -> dict:
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


# ---- Cluster scheduler configs -------------------------------------------------
class SchedulerConfig:
    """One cluster policy.  `versions[n]` holds what the n-th write (Create = 1) set.

    Status transitions are evaluated lazily (see `_configs`): a write sets a
    transitional status plus the status it settles into after `async_delay()`.
    """

    def __init__(self, backend, name, cluster_arn, tags):
        self.id = new_id()
        self.arn = sm_models.arn_formatter("cluster-scheduler-config", self.id,
                                           backend.account_id, backend.region_name)
        self.name = name
        self.cluster_arn = cluster_arn
        self.tags = tags or []  # moto's AddTags/ListTags/DeleteTags work on `.tags`
        self.version = 0
        self.versions: dict[int, dict] = {}
        self.creation_time = utcnow()

    def write(self, spec, description, transitional, settled, failure):
        self.version += 1
        self.versions[self.version] = {"SchedulerConfig": spec or {}, "Description": description}
        self.last_modified_time = utcnow()
        self.transition(transitional, settled, failure)

    def transition(self, transitional, settled, failure):
        """Enter `transitional`; after the delay, `settled` (None = gone), or `*Failed` if a fault is armed."""
        self.status = transitional
        self.failure_reason = None
        outcome = (_FAILED[transitional], failure["failure_reason"]) if failure else (settled, None)
        self.pending = (outcome, utcnow() + async_delay())

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
        out = {**self.summary(), **content, "ClusterSchedulerConfigVersion": version,
               "StatusDetails": {c: self.status for c in _SCHEDULER_COMPONENTS if c in content["SchedulerConfig"]}}
        if content["Description"] is None:
            del out["Description"]
        if self.failure_reason:
            out["FailureReason"] = self.failure_reason
        return out


def _configs(backend) -> dict:
    """Scheduler configs by id, with due transitions applied (deleted ones dropped)."""
    configs = backend.__dict__.setdefault("cluster_scheduler_configs", {})
    now = utcnow()
    for cid, cfg in list(configs.items()):
        if cfg.pending and cfg.pending[1] <= now:
            (status, reason), _ = cfg.pending
            cfg.pending = None
            if status is None:
                del configs[cid]
            else:
                cfg.status, cfg.failure_reason = status, reason
    return configs


def _config_or_404(backend, cid):
    cfg = _configs(backend).get(cid)
    if cfg is None:
        raise ResourceNotFound(f"ClusterSchedulerConfig {cid} not found")
    return cfg


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
    cluster = find_cluster(backend, cluster_arn)
    if cluster is None or cluster.arn != cluster_arn:
        raise ResourceNotFound(f"Cluster {cluster_arn} not found")
    if "Eks" not in getattr(cluster, "sandbox_extra", {}).get("Orchestrator", {}):
        raise ValidationError(f"Cluster {cluster_arn} is not orchestrated by Amazon EKS; "
                              "task governance requires an EKS-orchestrated cluster")
    for other in _configs(backend).values():
        if other.cluster_arn == cluster_arn:
            raise ConflictException(f"Cluster {cluster_arn} already has a cluster scheduler config "
                                    f"({other.id}); only one is allowed per cluster")
    cfg = SchedulerConfig(backend, self._get_param("Name"), cluster_arn, self._get_param("Tags"))
    cfg.write(self._get_param("SchedulerConfig"), self._get_param("Description"), "Creating", "Created",
              faults.take("sagemaker", "CreateClusterSchedulerConfig", "async_failure"))
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
    if target != cfg.version:
        raise ConflictException(f"TargetVersion {target} does not match the current version {cfg.version} "
                                f"of ClusterSchedulerConfig {cfg.id}")
    if cfg.status in ("Creating", "Updating", "Deleting"):
        raise ConflictException(f"ClusterSchedulerConfig {cfg.id} is {cfg.status}; retry when the operation completes")
    current = cfg.versions[cfg.version]
    spec = self._get_param("SchedulerConfig")
    description = self._get_param("Description")
    cfg.write(current["SchedulerConfig"] if spec is None else spec,
              current["Description"] if description is None else description, "Updating", "Updated",
              faults.take("sagemaker", "UpdateClusterSchedulerConfig", "async_failure"))
    return ActionResult({"ClusterSchedulerConfigArn": cfg.arn, "ClusterSchedulerConfigVersion": cfg.version})


@_locked
def delete_cluster_scheduler_config(self):
    cfg = _config_or_404(self.sagemaker_backend, self._get_param("ClusterSchedulerConfigId"))
    if cfg.status != "Deleting":
        cfg.transition("Deleting", None, faults.take("sagemaker", "DeleteClusterSchedulerConfig", "async_failure"))
    return EmptyResult()


@_locked
def list_cluster_scheduler_configs(self):
    p = {k: self._get_param(k) for k in ("CreatedAfter", "CreatedBefore", "NameContains", "ClusterArn",
                                         "Status", "SortBy", "SortOrder", "NextToken", "MaxResults")}
    items = list(_configs(self.sagemaker_backend).values())
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
    key = {"Name": lambda c: c.name, "Status": lambda c: c.status}.get(p["SortBy"], lambda c: c.creation_time)
    items.sort(key=key, reverse=p["SortOrder"] != "Ascending")  # AWS default: newest first
    start = _decode_token(p["NextToken"])
    end = start + (p["MaxResults"] or 100)
    out = {"ClusterSchedulerConfigSummaries": [c.summary() for c in items[start:end]]}
    if end < len(items):
        out["NextToken"] = base64.urlsafe_b64encode(str(end).encode()).decode()
    return ActionResult(out)


def _decode_token(token):
    if not token:
        return 0
    try:
        return int(base64.urlsafe_b64decode(token.encode()).decode())
    except ValueError:
        raise ValidationError(f"Invalid NextToken: {token}")


# ---- Tagging on AWS-shaped ARNs ---------------------------------------------------
def _resource_from_arn(self, arn):
    """moto resolves `cluster/<name>` only; resolve our id-based cluster and config ARNs too."""
    resource_type = arn.split(":")[-1].split("/")[0]
    if resource_type == "cluster":
        return _cluster_or_404(self, arn)
    if resource_type == "cluster-scheduler-config":
        return _config_or_404(self, arn.split("/")[-1])
    return _orig_resource_from_arn(self, arn)


def _add_tags(self, arn, tags):
    """AWS AddTags overwrites the value of an existing key; moto appends a duplicate."""
    resource = self._get_resource_from_arn(arn)
    keys = {t["Key"] for t in tags}
    resource.tags = [t for t in resource.tags if t["Key"] not in keys] + list(tags)
    return resource.tags


_orig_cluster_describe = sm_models.Cluster.describe
_orig_resource_from_arn = sm_models.SageMakerModelBackend._get_resource_from_arn


def install():
    sm_models.Cluster.describe = _describe
    sm_models.SageMakerModelBackend.describe_cluster = _backend_describe_cluster
    sm_models.SageMakerModelBackend.delete_cluster = _backend_delete_cluster
    sm_models.SageMakerModelBackend._get_resource_from_arn = _resource_from_arn
    sm_models.SageMakerModelBackend.add_tags = _add_tags
    SageMakerResponse.create_cluster = _create_cluster
    for fn in (create_cluster_scheduler_config, describe_cluster_scheduler_config, update_cluster_scheduler_config,
               delete_cluster_scheduler_config, list_cluster_scheduler_configs):
        setattr(SageMakerResponse, fn.__name__, fn)


def apply_seed(data: dict, account: dict) -> dict:
    """HyperPod clusters from seed_data/sagemaker.json, with fixed ids so ARNs survive resets."""
    backend = sm_models.sagemaker_backends[account["account_id"]][account["region"]]
    clusters = {}
    for c in data.get("hyperpod_clusters", []):
        params = {k: v for k, v in c.items() if k != "ClusterId"}
        clusters[c["ClusterName"]] = create_hyperpod_cluster(backend, params, cluster_id=c["ClusterId"]).arn
    return {"hyperpod_clusters": clusters}
