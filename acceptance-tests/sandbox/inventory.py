"""`GET /_sandbox/inventory`: a deterministic snapshot of everything a tenant (or any test) could create or leave
behind, for "nothing orphaned" assertions: compare the inventory after a destroy with the one before the apply.

Only names, relations and settings; no ids, ARNs with random parts, timestamps, versions or statuses, so two
snapshots of the same objects are equal whenever they were taken (the inventory after a reset equals the one after
the next reset).  Every mapping is sorted by key, every list sorted.

    {"iam_roles":  {account: {role name: {"path", "inline_policies": [names], "attached_policies": [ARNs],
                                          "tags": {key: value}}}},
     "sagemaker":  {"compute_quotas":    [{"cluster", "name", "team"}],      # every quota still there (any status;
                    "scheduler_configs": [{"cluster", "name"}]},             #  deleted ones are gone), by cluster name
     "eks":        {cluster: {"access_entries": {principal ARN: {"type", "username", "kubernetes_groups", "tags",
                                                                 "policies": {policy ARN: {"type", "namespaces"}}}},
                              "pod_identity_associations": {"<namespace>/<service account>": {
                                  "role_arn", "target_role_arn", "disable_session_tags", "session_policy", "tags"}}}},
     "kms_grants": {key ARN: [{"name", "grantee", "operations", "retiring_principal", "constraints"}]},  # with grants
     "kubernetes": {EKS cluster: {"<Kind>/<namespace>/<name>" (cluster-scoped: "<Kind>/<name>"): object without
                                  uid, resourceVersion, creationTimestamp, generation, managedFields,
                                  deletionTimestamp}},
     "datazone":   {domain id: {"connections": {name: {"type", "scope", "project", "environment", "description",
                                                      "props"}},            # props without resolved ARNs' ids
                                "memberships": {project id: ["<kind>:<profile id>:<designation>"]},
                                "policy_grants": {"<entity type>/<entity id>": [{"policy_type", "principal",
                                                                                 "detail"}]}}},
     "ssm_parameters": {account: {parameter name: value}}}              # with parameters (not moto's /aws/ trees)
"""
import copy

from . import datazone, sagemaker
from .eks_state import LOCK as EKS_LOCK, state as eks_state
from .k8s.kinds import BY_RESOURCE
from .k8s.store import objects_of
from .moto_adapter import loaded_backends, ssm_parameter_values

VOLATILE_METADATA = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "deletionTimestamp")


def snapshot() -> dict:
    sagemaker_part = _sagemaker()  # first: settling a due quota transition creates or deletes its team namespace
    with EKS_LOCK:  # EKS state and the Kubernetes objects share this lock
        eks_part, k8s_part = _eks(), _kubernetes()
    return {"iam_roles": _iam_roles(), "sagemaker": sagemaker_part, "eks": eks_part, "kms_grants": _kms_grants(),
            "kubernetes": k8s_part, "datazone": _datazone(), "ssm_parameters": _ssm_parameters()}


def _sorted(mapping: dict) -> dict:
    return {k: mapping[k] for k in sorted(mapping)}


def _backends(backend_dict):
    """Every instantiated backend of a BackendDict (account -> region/partition -> backend), by account and region."""
    for _, regions in sorted(list(backend_dict.items())):
        for _, backend in sorted(list(regions.items())):
            yield backend


# ---- SSM -----------------------------------------------------------------------------------------------------------
def _ssm_parameters() -> dict:
    found: dict = {}
    for backend in loaded_backends("ssm", ordered=True):
        values = ssm_parameter_values(backend)
        if values:
            found.setdefault(backend.account_id, {}).update(values)
    return _sorted({account: _sorted(values) for account, values in found.items()})


# ---- IAM -----------------------------------------------------------------------------------------------------------
def _tags(tags) -> dict:
    items = tags.values() if isinstance(tags, dict) else (tags or [])
    return _sorted({t["Key"]: t.get("Value", "") for t in items})


def _iam_roles() -> dict:
    out = {}
    for backend in loaded_backends("iam", ordered=True):
        roles = {}
        for role in list(backend.roles.values()):
            roles[role.name] = {"path": role.path, "inline_policies": sorted(role.policies),
                                "attached_policies": sorted(role.managed_policies), "tags": _tags(role.tags)}
        if roles:
            out[backend.account_id] = _sorted(roles)
    return _sorted(out)


# ---- SageMaker -----------------------------------------------------------------------------------------------------
def _sagemaker() -> dict:
    quotas, configs = [], []
    with sagemaker._lock:
        for backend in loaded_backends("sagemaker", ordered=True):
            names = {c.arn: c.cluster_name for c in list(backend.clusters.values())}
            for q in sagemaker._quotas(backend).values():  # settles due transitions first
                quotas.append({"cluster": names.get(q.cluster_arn, q.cluster_arn), "name": q.name, "team": q.team})
            for c in sagemaker._configs(backend).values():
                configs.append({"cluster": names.get(c.cluster_arn, c.cluster_arn), "name": c.name})
    key = lambda item: tuple(sorted(item.items()))  # noqa: E731
    return {"compute_quotas": sorted(quotas, key=key), "scheduler_configs": sorted(configs, key=key)}


# ---- EKS -----------------------------------------------------------------------------------------------------------
def _clusters():
    for backend in loaded_backends("eks", ordered=True):
        for cluster in list(backend.clusters.values()):
            eks_state(cluster)
            yield cluster


def _entry(entry: dict) -> dict:
    policies = {arn: {"type": a["accessScope"].get("type"),
                      "namespaces": sorted(a["accessScope"].get("namespaces") or [])}
                for arn, a in entry["policies"].items()}
    return {"type": entry["type"], "username": entry["username"],
            "kubernetes_groups": sorted(entry["kubernetesGroups"]), "tags": _sorted(dict(entry.get("tags") or {})),
            "policies": _sorted(policies)}


def _association(a: dict) -> dict:
    return {"role_arn": a["roleArn"], "target_role_arn": a.get("targetRoleArn"),
            "disable_session_tags": a["disableSessionTags"], "session_policy": a.get("policy"),
            "tags": _sorted(dict(a.get("tags") or {}))}


def _eks() -> dict:
    out = {}
    for cluster in _clusters():
        st = eks_state(cluster)
        out[cluster.name] = {
            "access_entries": _sorted({p: _entry(e) for p, e in st["access_entries"].items()}),
            "pod_identity_associations": _sorted({f"{a['namespace']}/{a['serviceAccount']}": _association(a)
                                                  for a in st["pod_identity"].values()})}
    return _sorted(out)


# ---- KMS -----------------------------------------------------------------------------------------------------------
def _grant(g) -> dict:
    return {"name": g.name or "", "grantee": g.grantee_principal, "operations": sorted(g.operations or []),
            "retiring_principal": g.retiring_principal, "constraints": g.constraints or None}


def _kms_grants() -> dict:
    out = {}
    for backend in loaded_backends("kms", ordered=True):
        for key in list(backend.keys.values()):
            grants = [_grant(g) for g in list(key.grants.values())]
            if grants:
                out[key.arn] = sorted(grants, key=lambda g: (g["name"], g["grantee"], g["operations"]))
    return _sorted(out)


# ---- Kubernetes ----------------------------------------------------------------------------------------------------
def _object(obj: dict) -> dict:
    obj = copy.deepcopy(obj)
    for field in VOLATILE_METADATA:
        obj["metadata"].pop(field, None)
    return obj


def _kubernetes() -> dict:
    out = {}
    for cluster in _clusters():
        store = objects_of(cluster)
        objects = {}
        for (group, resource, namespace, name), obj in store.items():
            kind = obj.get("kind") or BY_RESOURCE[(group, resource)].kind
            objects[f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"] = _object(obj)
        out[cluster.name] = _sorted(objects)
    return _sorted(out)


# ---- DataZone ------------------------------------------------------------------------------------------------------
def _connection(c: dict) -> dict:
    return {"type": c["type"], "scope": c["scope"], "project": c.get("projectId"),
            "environment": c.get("environmentId"), "description": c.get("description"),
            "props": copy.deepcopy(c.get("props"))}


def _datazone() -> dict:
    out = {}
    with datazone._lock:
        for backend in _backends(datazone.datazone_backends):
            for domain in list(backend.domains.values()):
                grants = {f"{entity_type}/{entity_id}": sorted(
                    ({"policy_type": g["policyType"], "principal": g["principal"], "detail": g["detail"]} for g in gs),
                    key=lambda g: repr(sorted(g.items())))
                    for (entity_type, entity_id), gs in domain.grants.items() if gs}
                out[domain.id] = {
                    # Connection names are unique in a domain (CreateConnection refuses a second one): the key.
                    "connections": _sorted({c["name"]: _connection(c) for c in domain.connections.values()}),
                    "memberships": _sorted({project: sorted(f"{m['kind']}:{m['id']}:{m['designation']}"
                                                            for m in members)
                                            for project, members in domain.memberships.items()}),
                    "policy_grants": _sorted(grants)}
    return _sorted(out)
