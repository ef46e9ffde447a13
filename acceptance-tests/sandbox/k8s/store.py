"""The Kubernetes objects of each EKS cluster: {(group, resource, namespace or "", name): object}, kept on moto's
EKS Cluster (`eks_state.state(cluster)["kubernetes"]`), so deleting the cluster or resetting moto wipes them; every
cluster starts with namespaces default, kube-system and kube-public.  Resource versions count across all clusters.

`ensure_namespace` / `delete_namespace` are how other sandbox modules (SageMaker's compute quotas) change a cluster's
objects; `dump` is the admin API's view.
"""
import copy
import datetime as dt
import uuid

from ..eks_state import LOCK, find_cluster, state
from .endpoint import endpoint_for
from .kinds import DEFAULT_NAMESPACES, NAMESPACES
from .validation import defaults

_rv = [0]


def now():
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def next_rv() -> str:
    _rv[0] += 1
    return str(_rv[0])


def last_rv() -> str:
    return str(_rv[0])


def objects_of(cluster) -> dict:
    """{(group, resource, namespace or "", name): object} of an EKS cluster (moto Cluster), created on first use."""
    st = state(cluster)
    if st["kubernetes"] is None:
        st["kubernetes"] = {}
        for ns in DEFAULT_NAMESPACES:
            _put_namespace(st["kubernetes"], ns, {})
    return st["kubernetes"]


def finish_create(kind, obj):
    """The server's part of a create: uid, resourceVersion, creationTimestamp, generation, defaults."""
    meta = obj["metadata"]
    meta.update(uid=str(uuid.uuid4()), resourceVersion=next_rv(), creationTimestamp=now())
    if kind.kind == "NetworkPolicy":
        meta["generation"] = 1
    defaults(kind, obj)


def _put_namespace(store, name, labels):
    obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels or {})}}
    finish_create(NAMESPACES, obj)
    store[("", "namespaces", "", name)] = obj


def ensure_namespace(eks_cluster_arn: str, name: str, labels: dict) -> None:
    """Create namespace `name` with `labels` unless it exists; if it does, merge `labels` into its labels.
    A no-op if no EKS cluster has that ARN."""
    with LOCK:
        cluster = find_cluster(arn=eks_cluster_arn)
        if cluster is None:
            return
        store = objects_of(cluster)
        ns = store.get(("", "namespaces", "", name))
        if ns is None:
            _put_namespace(store, name, labels)
        elif any(ns["metadata"].get("labels", {}).get(k) != v for k, v in (labels or {}).items()):
            ns["metadata"].setdefault("labels", {}).update(labels)
            ns["metadata"]["resourceVersion"] = next_rv()


def delete_namespace(eks_cluster_arn: str, name: str) -> None:
    """Delete namespace `name` and everything in it; a no-op if absent (or no EKS cluster has that ARN)."""
    with LOCK:
        cluster = find_cluster(arn=eks_cluster_arn)
        if cluster is not None:
            drop_namespace(objects_of(cluster), name)


def drop_namespace(store, name):
    if store.pop(("", "namespaces", "", name), None) is not None:
        for key in [k for k in store if k[2] == name]:
            del store[key]


def dump(cluster_name: str) -> dict | None:
    """All objects of a cluster (for the admin API / drift tests), or None if there is no such EKS cluster."""
    with LOCK:
        cluster = find_cluster(name=cluster_name)
        if cluster is None:
            return None
        store = objects_of(cluster)
        return {"cluster": cluster.name, "arn": cluster.arn, "endpoint": endpoint_for(cluster.name),
                "resourceVersion": last_rv(),
                "objects": [copy.deepcopy(store[k]) for k in sorted(store)]}
