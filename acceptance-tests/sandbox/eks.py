"""EKS in the sandbox: moto's clusters plus what moto 5.2.5 lacks (monkeypatched, no fork).

* Clusters: `accessConfig` (authenticationMode, bootstrapClusterCreatorAdminPermissions), endpoint
  access (`resourcesVpcConfig.endpointPublicAccess/endpointPrivateAccess/publicAccessCidrs`),
  `UpdateClusterConfig` for both (one kind of update per call, authentication mode only widened one
  step CONFIG_MAP -> API_AND_CONFIG_MAP -> API, as AWS), `DescribeUpdate`/`ListUpdates`.
  `endpoint` and `certificateAuthority.data` point at the sandbox's Kubernetes API (kubernetes.py).
* Access entries, access policies (+ associations), Pod Identity associations, add-ons.

State of a cluster's sub-resources lives on moto's `Cluster` object (`cluster.sandbox`, eks_state.py), so deleting
the cluster deletes them and moto's reset wipes them.  Errors are moto's EKS exceptions (AWS's codes
and HTTP statuses: ResourceNotFoundException 404, ResourceInUseException 409,
InvalidParameterException 400, InvalidRequestException 400).
"""
import base64
import functools
import ipaddress
import json
import re
import secrets
import string
import uuid

from . import kubernetes, principals
from .eks_state import API_MODES, LOCK as _lock, state  # _lock: EKS state and the Kubernetes objects share it
from .moto_adapter import (
    EKS_URL_PATHS,
    UNDEFINED,
    ActionResult,
    EKSBackend,
    EksInvalidParameterException as InvalidParameterException,
    EksInvalidRequestException as InvalidRequestException,
    EksResourceInUseException as ResourceInUseException,
    EksResourceNotFoundException as ResourceNotFoundException,
    EKSResponse,
    eks_backend,
    get_service_model,
    parse_request,
    utcnow,
)

_ALNUM = string.ascii_lowercase + string.digits

AUTH_MODES = ("CONFIG_MAP", "API_AND_CONFIG_MAP", "API")  # the only allowed updates: one step to the right
POLICY_ARN = "arn:aws:eks::aws:cluster-access-policy/{}"
ACCESS_POLICIES = (
    "AmazonEKSAdminPolicy", "AmazonEKSAdminViewPolicy", "AmazonEKSAutoNodePolicy", "AmazonEKSBlockStoragePolicy",
    "AmazonEKSClusterAdminPolicy", "AmazonEKSComputePolicy", "AmazonEKSEditPolicy", "AmazonEKSHybridPolicy",
    "AmazonEKSLoadBalancingPolicy", "AmazonEKSNetworkingPolicy", "AmazonEKSViewPolicy", "AmazonEMRJobPolicy",
    "AmazonSagemakerHyperpodClusterPolicy", "AmazonSagemakerHyperpodControllerPolicy",
    "AmazonSagemakerHyperpodInferencePolicy", "AmazonSagemakerHyperpodSpacePolicy",
    "AmazonSagemakerHyperpodSpaceTemplatePolicy", "AmazonSagemakerHyperpodSystemNamespacePolicy",
    "AmazonSagemakerHyperpodTrainingPolicy", "AmazonSagemakerHyperpodUserClusterPolicy",
)
CLUSTER_SCOPE_ONLY = {"AmazonSagemakerHyperpodUserClusterPolicy"}
ENTRY_TYPES = ("STANDARD", "FARGATE_LINUX", "EC2_LINUX", "EC2_WINDOWS", "EC2", "HYBRID_LINUX", "HYPERPOD_LINUX")
RESERVED_USERNAME_PREFIXES = ("system:", "eks:", "aws:", "amazon:", "iam:")
_PRINCIPAL = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):(role|user)/(?:[\w+=,.@-]+/)*([\w+=,.@-]+)")
_ROLE = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):role/(?:[\w+=,.@-]+/)*[\w+=,.@-]+")

# Add-ons the sandbox knows: name -> (versions oldest first, type, default namespace).  The newest is the default.
ADDONS = {
    "amazon-cloudwatch-observability": (("v2.3.0-eksbuild.1", "v2.4.0-eksbuild.1"), "observability",
                                        "amazon-cloudwatch"),
    "eks-pod-identity-agent": (("v1.3.4-eksbuild.1", "v1.3.8-eksbuild.2"), "security", "kube-system"),
    # HyperPod task governance (Kueue): the prerequisite of compute quotas and cluster policies (sagemaker.py).
    # Versions, type and namespace are the sandbox's (GUESS); only the name and ACTIVE status are relied on.
    "amazon-sagemaker-hyperpod-taskgovernance": (("v1.0.0-eksbuild.1", "v1.1.0-eksbuild.1"), "machine-learning",
                                                 "kueue-system"),
}


# ---- helpers ------------------------------------------------------------------------------------
def _error(cls, message, **fields):
    return cls(**{k: v for k, v in fields.items() if v is not None}, message=message)


def _params(resp) -> dict:
    """The request's input, parsed with the botocore model (member names, decoded uri labels)."""
    sm = get_service_model("eks")
    parsed = parse_request(resp, sm, sm.operation_model(resp._get_action()))
    return {k: v for k, v in parsed.items() if v is not None and v is not UNDEFINED}


def _locked(fn):
    @functools.wraps(fn)
    def wrapper(self):
        with _lock:
            return fn(self)
    return wrapper


def _cluster(backend, name):
    cluster = backend.clusters.get(name)
    if cluster is None:
        raise _error(ResourceNotFoundException, f"No cluster found for name: {name}.", clusterName=name)
    state(cluster)
    return cluster


def _page(items, p, key):
    start = 0
    if p.get("nextToken"):
        try:
            start = int(base64.urlsafe_b64decode(p["nextToken"].encode()).decode())
        except ValueError:
            raise _error(InvalidParameterException, "The nextToken is invalid.") from None
    end = start + int(p.get("maxResults") or 100)
    out = {key: items[start:end]}
    if end < len(items):
        out["nextToken"] = base64.urlsafe_b64encode(str(end).encode()).decode()
    return out


def _arn(cluster, kind, *parts):
    account_id, region = cluster.arn.split(":")[4], cluster.arn.split(":")[3]
    return f"arn:aws:eks:{region}:{account_id}:{kind}/" + "/".join(parts)


def _account(cluster):
    return cluster.arn.split(":")[4]


def _new_update(cluster, update_type, params, addon=None):
    upd = {"id": str(uuid.uuid4()), "status": "Successful", "type": update_type,
           "params": [{"type": t, "value": v} for t, v in params], "createdAt": utcnow(), "errors": []}
    state(cluster)["updates"][upd["id"]] = (addon, upd)
    return {**upd, "status": "InProgress"}  # as AWS answers the write; DescribeUpdate then says Successful


def _check_cidrs(cidrs, cluster_name):
    for c in cidrs:
        try:
            net = ipaddress.ip_network(c, strict=True)
        except ValueError:
            raise _error(InvalidParameterException, f"The following CIDRs are invalid in publicAccessCidrs: [{c}]",
                         clusterName=cluster_name) from None
        if net.version != 4:
            raise _error(InvalidParameterException, f"The following CIDRs are invalid in publicAccessCidrs: [{c}]",
                         clusterName=cluster_name)


def _vpc_config(requested: dict | None, name: str) -> dict:
    """AWS's DescribeCluster shape of resourcesVpcConfig, with its defaults."""
    cfg = dict(requested or {})
    cfg.setdefault("subnetIds", [])
    cfg.setdefault("securityGroupIds", [])
    cfg.setdefault("endpointPublicAccess", True)
    cfg.setdefault("endpointPrivateAccess", False)
    cfg.setdefault("publicAccessCidrs", ["0.0.0.0/0"])
    cfg.setdefault("clusterSecurityGroupId", "sg-" + secrets.token_hex(8) + "c")
    cfg.setdefault("vpcId", "vpc-" + secrets.token_hex(8) + "a")
    if not cfg["endpointPublicAccess"] and not cfg["endpointPrivateAccess"]:
        raise _error(InvalidParameterException, "Invalid endpoint access configuration: you must enable public "
                     "access, private access, or both.", clusterName=name)
    _check_cidrs(cfg["publicAccessCidrs"], name)
    return cfg


# ---- clusters -------------------------------------------------------------------------------------
def create_cluster(backend, params: dict, creator_arn: str | None):
    """CreateCluster with accessConfig and endpoint access (also used by the seed)."""
    name = params["name"]
    access = dict(params.get("accessConfig") or {})
    mode = access.get("authenticationMode", "CONFIG_MAP")  # the API's default (the console's is API_AND_CONFIG_MAP)
    if mode not in AUTH_MODES:
        raise _error(InvalidParameterException, f"Unsupported authentication mode: {mode}", clusterName=name)
    bootstrap = access.get("bootstrapClusterCreatorAdminPermissions", True)
    if mode == "CONFIG_MAP" and not bootstrap:
        raise _error(InvalidParameterException, "bootstrapClusterCreatorAdminPermissions must be true if cluster "
                     "authentication mode is set to CONFIG_MAP", clusterName=name)
    vpc = _vpc_config(params.get("resourcesVpcConfig"), name)
    cluster = backend.create_cluster(
        name=name, role_arn=params["roleArn"], resources_vpc_config=vpc, version=params.get("version"),
        kubernetes_network_config=params.get("kubernetesNetworkConfig"), logging=params.get("logging"),
        client_request_token=params.get("clientRequestToken"), tags=params.get("tags"),
        encryption_config=params.get("encryptionConfig"), remote_network_config=params.get("remoteNetworkConfig"))
    cluster.access_config = {"authenticationMode": mode, "bootstrapClusterCreatorAdminPermissions": bootstrap}
    st = state(cluster)
    st["creator"] = creator_arn
    if bootstrap and mode in API_MODES and creator_arn:
        _bootstrap_creator_entry(cluster)
    _refresh_endpoint(cluster)
    return cluster


def _bootstrap_creator_entry(cluster):
    """What AWS does for bootstrapClusterCreatorAdminPermissions in API modes: a real, visible access entry."""
    creator = state(cluster)["creator"]
    if creator and creator not in state(cluster)["access_entries"] and _PRINCIPAL.fullmatch(creator):
        entry = _new_entry(cluster, creator, "STANDARD", [], None, {})
        entry["policies"][POLICY_ARN.format("AmazonEKSClusterAdminPolicy")] = _policy_assoc(
            POLICY_ARN.format("AmazonEKSClusterAdminPolicy"), {"type": "cluster"})


def _refresh_endpoint(cluster):
    """Endpoint and CA of the sandbox's Kubernetes API (moto's are random strings)."""
    endpoint = kubernetes.endpoint_for(cluster.name)
    if endpoint:
        cluster.endpoint = endpoint
        cluster.certificate_authority = {"data": kubernetes.ca_data()}


@_locked
def _create_cluster(self):
    p = _params(self)
    creator = kubernetes.principal_for_access_key(self.get_access_key(), self.region)
    return ActionResult({"cluster": create_cluster(self.eks_backend, p, creator)})


@_locked
def _describe_cluster(self):
    cluster = _cluster(self.eks_backend, _params(self)["name"])
    _refresh_endpoint(cluster)
    return ActionResult({"cluster": cluster})


@_locked
def _update_cluster_config(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["name"])
    kinds = [k for k in ("resourcesVpcConfig", "logging", "accessConfig", "upgradePolicy", "zonalShiftConfig",
                         "computeConfig", "kubernetesNetworkConfig", "storageConfig", "remoteNetworkConfig",
                         "deletionProtection", "controlPlaneScalingConfig") if k in p]
    if len(kinds) != 1:
        raise _error(InvalidParameterException, "Only one type of update can be allowed." if kinds else
                     "At least one type of update must be specified.", clusterName=cluster.name)
    kind = kinds[0]
    if kind == "accessConfig":
        update = _update_access_config(cluster, p["accessConfig"])
    elif kind == "resourcesVpcConfig":
        update = _update_vpc_config(cluster, p["resourcesVpcConfig"])
    elif kind == "logging":
        cluster.logging = p["logging"]
        update = _new_update(cluster, "LoggingUpdate", [("ClusterLogging", json.dumps(p["logging"]))])
    else:
        raise _error(InvalidParameterException, f"sandbox: UpdateClusterConfig of {kind} is not supported",
                     clusterName=cluster.name)
    return ActionResult({"update": update})


def _update_access_config(cluster, access):
    if "bootstrapClusterCreatorAdminPermissions" in access:
        raise _error(InvalidParameterException, "Unsupported update: bootstrapClusterCreatorAdminPermissions can "
                     "only be set at cluster creation", clusterName=cluster.name)
    old, new = cluster.access_config["authenticationMode"], access.get("authenticationMode")
    if new not in AUTH_MODES or AUTH_MODES.index(new) != AUTH_MODES.index(old) + 1:
        raise _error(InvalidParameterException, f"Unsupported authentication mode update from {old} to {new}",
                     clusterName=cluster.name)
    cluster.access_config = {**cluster.access_config, "authenticationMode": new}
    if old == "CONFIG_MAP" and cluster.access_config["bootstrapClusterCreatorAdminPermissions"]:
        _bootstrap_creator_entry(cluster)  # the creator keeps its (so far implicit) admin access
    return _new_update(cluster, "AccessConfigUpdate", [("AuthenticationMode", new)])


def _update_vpc_config(cluster, req):
    cur = cluster.resources_vpc_config
    new = dict(cur)
    for k in ("endpointPublicAccess", "endpointPrivateAccess", "publicAccessCidrs", "subnetIds", "securityGroupIds"):
        if k in req:
            new[k] = req[k]
    if "publicAccessCidrs" in req:
        _check_cidrs(req["publicAccessCidrs"], cluster.name)
    if not new["endpointPublicAccess"] and not new["endpointPrivateAccess"]:
        raise _error(InvalidParameterException, "Invalid endpoint access configuration: you must enable public "
                     "access, private access, or both.", clusterName=cluster.name)
    if new == cur:
        raise _error(InvalidParameterException, "Cluster is already at the desired configuration with "
                     f"endpointPrivateAccess: {str(cur['endpointPrivateAccess']).lower()} , endpointPublicAccess: "
                     f"{str(cur['endpointPublicAccess']).lower()}, and Public Endpoint Restrictions: "
                     f"{cur['publicAccessCidrs']}", clusterName=cluster.name)
    endpoint_keys = ("endpointPublicAccess", "endpointPrivateAccess", "publicAccessCidrs")
    params = [(t, json.dumps(new[k]) if isinstance(new[k], list) else str(new[k]).lower())
              for t, k in (("EndpointPublicAccess", "endpointPublicAccess"),
                           ("EndpointPrivateAccess", "endpointPrivateAccess"),
                           ("PublicAccessCidrs", "publicAccessCidrs")) if k in req]
    kind = "EndpointAccessUpdate" if any(k in req for k in endpoint_keys) else "VpcConfigUpdate"
    if kind == "VpcConfigUpdate":
        params = [(t, json.dumps(new[k])) for t, k in (("Subnets", "subnetIds"), ("SecurityGroups", "securityGroupIds"))
                  if k in req]
    cluster.resources_vpc_config = new
    return _new_update(cluster, kind, params)


@_locked
def update_cluster_version(self):
    """UpdateClusterVersion: one Kubernetes minor version at a time (AWS: "Unsupported Kubernetes minor version
    update from 1.31 to 1.33"); the sandbox's update completes at once (DescribeUpdate says Successful)."""
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["name"])
    try:
        major, minor = (int(x) for x in cluster.version.split("."))
        new_major, new_minor = (int(x) for x in p["version"].split("."))
    except (ValueError, AttributeError):
        raise _error(InvalidParameterException, f"Invalid Kubernetes version {p.get('version')!r}",
                     clusterName=cluster.name) from None
    if (new_major, new_minor) != (major, minor + 1):
        raise _error(InvalidParameterException, f"Unsupported Kubernetes minor version update from "
                     f"{cluster.version} to {p['version']}", clusterName=cluster.name)
    cluster.version = p["version"]
    update = _new_update(cluster, "VersionUpdate", [("Version", p["version"]), ("PlatformVersion", "eks.1")])
    return ActionResult({"update": update})


@_locked
def describe_update(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["name"])
    addon, upd = state(cluster)["updates"].get(p["updateId"], (None, None))
    if upd is None or addon != p.get("addonName"):
        raise _error(ResourceNotFoundException, f"No update found for ID: {p['updateId']}.", clusterName=cluster.name)
    return ActionResult({"update": upd})


@_locked
def list_updates(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["name"])
    ids = [uid for uid, (addon, _) in state(cluster)["updates"].items() if addon == p.get("addonName")]
    return ActionResult(_page(ids, p, "updateIds"))


# ---- access entries ---------------------------------------------------------------------------------
def _api_mode_cluster(self, name):
    cluster = _cluster(self.eks_backend, name)
    if cluster.access_config["authenticationMode"] not in API_MODES:
        raise _error(InvalidRequestException, "The cluster's authentication mode must be set to one of "
                     "[API, API_AND_CONFIG_MAP] to perform this operation.", clusterName=name)
    return cluster


def _entry(cluster, principal):
    entry = state(cluster)["access_entries"].get(principal)
    if entry is None:
        raise _error(ResourceNotFoundException, "The specified principalArn could not be found. You can view your "
                     "available access entries with 'list-access-entries'.", clusterName=cluster.name)
    return entry


def _entry_view(entry):
    return {k: v for k, v in entry.items() if k != "policies"}


def _new_entry(cluster, principal, entry_type, groups, username, tags):
    m = _PRINCIPAL.fullmatch(principal)
    assert m is not None, f"{principal} was checked before"
    account_id, kind, name = m.groups()
    if username is None:
        if entry_type == "STANDARD":
            username = (f"arn:aws:sts::{account_id}:assumed-role/{name}/{{{{SessionName}}}}" if kind == "role"
                        else principal)
        elif entry_type in ("EC2_LINUX", "EC2_WINDOWS", "EC2"):
            username = "system:node:{{EC2PrivateDNSName}}"
        else:
            username = "system:node:{{SessionName}}"
    if entry_type != "STANDARD":
        groups = ["system:nodes"] + (["eks:kube-proxy-windows"] if entry_type == "EC2_WINDOWS" else [])
    now = utcnow()
    entry = {"clusterName": cluster.name, "principalArn": principal, "kubernetesGroups": list(groups or []),
             "accessEntryArn": _arn(cluster, "access-entry", cluster.name, kind, account_id, name, str(uuid.uuid4())),
             "createdAt": now, "modifiedAt": now, "tags": dict(tags or {}), "username": username,
             "type": entry_type, "policies": {}}
    state(cluster)["access_entries"][principal] = entry
    return entry


def _check_username_and_groups(cluster, entry_type, p):
    username = p.get("username")
    if username is not None and username.startswith(RESERVED_USERNAME_PREFIXES):
        raise _error(InvalidParameterException, f"The username {username} is not valid: usernames can't start with "
                     f"{', '.join(RESERVED_USERNAME_PREFIXES)}", clusterName=cluster.name)
    if entry_type != "STANDARD" and (p.get("kubernetesGroups") or username is not None):
        raise _error(InvalidParameterException, "kubernetesGroups and username can only be specified for access "
                     "entries with a type of \"STANDARD\".", clusterName=cluster.name)
    for group in p.get("kubernetesGroups") or []:
        if group.startswith("system:"):
            raise _error(InvalidParameterException, f"The kubernetes group {group} is not valid: groups can't start "
                         "with system:", clusterName=cluster.name)


@_locked
def create_access_entry(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    principal = p["principalArn"]
    entry_type = p.get("type", "STANDARD")
    if entry_type not in ENTRY_TYPES:
        raise _error(InvalidParameterException, f"The type {entry_type} is not valid. Valid types: "
                     f"{', '.join(ENTRY_TYPES)}", clusterName=cluster.name)
    m = _PRINCIPAL.fullmatch(principal)
    if not m:
        raise _error(InvalidParameterException, f"The specified principalArn is invalid: {principal} is not an IAM "
                     "role or user ARN.", clusterName=cluster.name)
    if entry_type != "STANDARD" and (m.group(2) != "role" or m.group(1) != _account(cluster)):
        raise _error(InvalidParameterException, f"Access entries of type {entry_type} must use an IAM role in the "
                     "cluster's account.", clusterName=cluster.name)
    _check_username_and_groups(cluster, entry_type, p)
    if not principals.visible("eks", "CreateAccessEntry", principal):
        # AWS checks the principal against IAM; a role still propagating gets the same answer.
        raise _error(InvalidParameterException, "The specified principalArn is invalid: invalid principal.",
                     clusterName=cluster.name)
    if principal in state(cluster)["access_entries"]:
        raise _error(ResourceInUseException, "The specified access entry resource is already in use on this cluster.",
                     clusterName=cluster.name)
    entry = _new_entry(cluster, principal, entry_type, p.get("kubernetesGroups"), p.get("username"), p.get("tags"))
    return ActionResult({"accessEntry": _entry_view(entry)})


@_locked
def describe_access_entry(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    return ActionResult({"accessEntry": _entry_view(_entry(cluster, p["principalArn"]))})


@_locked
def update_access_entry(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    entry = _entry(cluster, p["principalArn"])
    _check_username_and_groups(cluster, entry["type"], p)
    if "kubernetesGroups" in p:
        entry["kubernetesGroups"] = list(p["kubernetesGroups"])
    if "username" in p:
        entry["username"] = p["username"]
    entry["modifiedAt"] = utcnow()
    return ActionResult({"accessEntry": _entry_view(entry)})


@_locked
def delete_access_entry(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    _entry(cluster, p["principalArn"])
    del state(cluster)["access_entries"][p["principalArn"]]
    return ActionResult({})


@_locked
def list_access_entries(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    entries = state(cluster)["access_entries"].values()
    if p.get("associatedPolicyArn"):
        entries = [e for e in entries if p["associatedPolicyArn"] in e["policies"]]
    return ActionResult(_page(sorted(e["principalArn"] for e in entries), p, "accessEntries"))


# ---- access policies ----------------------------------------------------------------------------------
@_locked
def list_access_policies(self):
    p = _params(self)
    return ActionResult(_page([{"name": n, "arn": POLICY_ARN.format(n)} for n in ACCESS_POLICIES], p,
                              "accessPolicies"))


def _policy_assoc(policy_arn, scope):
    now = utcnow()
    return {"policyArn": policy_arn, "accessScope": scope, "associatedAt": now, "modifiedAt": now}


@_locked
def associate_access_policy(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    entry = _entry(cluster, p["principalArn"])
    policy_arn, scope = p["policyArn"], dict(p.get("accessScope") or {})
    name = policy_arn.rsplit("/", 1)[-1]
    if policy_arn != POLICY_ARN.format(name) or name not in ACCESS_POLICIES:
        raise _error(ResourceNotFoundException, f"The specified policy {policy_arn} could not be found. You can view "
                     "available policies with 'list-access-policies'.", clusterName=cluster.name)
    if entry["type"] != "STANDARD":
        raise _error(InvalidParameterException, "This operation can only be performed on Access Entries with a type "
                     "of \"STANDARD\".", clusterName=cluster.name)
    if scope.get("type") not in ("cluster", "namespace"):
        raise _error(InvalidParameterException, "accessScope.type must be one of [cluster, namespace]",
                     clusterName=cluster.name)
    if scope["type"] == "namespace" and not scope.get("namespaces"):
        raise _error(InvalidParameterException, "At least one namespace must be specified for an access scope of "
                     "type namespace.", clusterName=cluster.name)
    if scope["type"] == "cluster" and scope.get("namespaces"):
        raise _error(InvalidParameterException, "Namespaces can't be specified for an access scope of type cluster.",
                     clusterName=cluster.name)
    if scope["type"] == "namespace" and name in CLUSTER_SCOPE_ONLY:
        raise _error(InvalidParameterException, f"The policy {policy_arn} can only be associated with an access "
                     "scope of type cluster.", clusterName=cluster.name)
    scope.setdefault("namespaces", [])
    existing = entry["policies"].get(policy_arn)
    assoc = _policy_assoc(policy_arn, scope)
    if existing:  # re-associating replaces the scope
        assoc["associatedAt"] = existing["associatedAt"]
    entry["policies"][policy_arn] = assoc
    return ActionResult({"clusterName": cluster.name, "principalArn": entry["principalArn"],
                         "associatedAccessPolicy": assoc})


@_locked
def disassociate_access_policy(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    entry = _entry(cluster, p["principalArn"])
    if p["policyArn"] not in entry["policies"]:
        raise _error(ResourceNotFoundException, f"The specified policy {p['policyArn']} is not associated with "
                     f"{p['principalArn']}.", clusterName=cluster.name)
    del entry["policies"][p["policyArn"]]
    return ActionResult({})


@_locked
def list_associated_access_policies(self):
    p = _params(self)
    cluster = _api_mode_cluster(self, p["clusterName"])
    entry = _entry(cluster, p["principalArn"])
    out = _page(sorted(entry["policies"].values(), key=lambda a: a["policyArn"]), p, "associatedAccessPolicies")
    return ActionResult({"clusterName": cluster.name, "principalArn": entry["principalArn"], **out})


# ---- Pod Identity associations ------------------------------------------------------------------------------
def _association(cluster, aid):
    assoc = state(cluster)["pod_identity"].get(aid)
    if assoc is None:
        raise _error(ResourceNotFoundException, f"No Pod Identity Association found with id: {aid}.",
                     clusterName=cluster.name)
    return assoc


def _check_association(cluster, a, operation=None):
    """`operation`: the write that names `roleArn` (then checked against IAM), None when the role is unchanged."""
    if not _ROLE.fullmatch(a.get("roleArn") or "") or a["roleArn"].split(":")[4] != _account(cluster):
        raise _error(InvalidParameterException, f"The roleArn {a.get('roleArn')} is not valid: it must be an IAM role "
                     "in the cluster's account.", clusterName=cluster.name)
    if operation and not principals.visible("eks", operation, a["roleArn"]):
        raise _error(InvalidParameterException, "Role provided in the request does not exist",
                     clusterName=cluster.name)
    if a.get("targetRoleArn") and not _ROLE.fullmatch(a["targetRoleArn"]):
        raise _error(InvalidParameterException, f"The targetRoleArn {a['targetRoleArn']} is not a valid IAM role ARN.",
                     clusterName=cluster.name)
    if a.get("policy") is not None:
        if not a.get("disableSessionTags"):
            raise _error(InvalidParameterException, "A session policy can only be specified when disableSessionTags "
                         "is true.", clusterName=cluster.name)
        try:
            json.loads(a["policy"])
        except ValueError:
            raise _error(InvalidParameterException, "The policy is not a valid JSON policy document.",
                         clusterName=cluster.name) from None


def _external_id(cluster, a):
    region = cluster.arn.split(":")[3]
    return f"{region}/{_account(cluster)}/{cluster.name}/{a['namespace']}/{a['serviceAccount']}"


@_locked
def create_pod_identity_association(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    a = {"clusterName": cluster.name, "namespace": p["namespace"], "serviceAccount": p["serviceAccount"],
         "roleArn": p["roleArn"], "disableSessionTags": bool(p.get("disableSessionTags", False)),
         "tags": dict(p.get("tags") or {})}
    for k in ("targetRoleArn", "policy"):
        if p.get(k):
            a[k] = p[k]
    _check_association(cluster, a, "CreatePodIdentityAssociation")
    for other in state(cluster)["pod_identity"].values():
        if (other["namespace"], other["serviceAccount"]) == (a["namespace"], a["serviceAccount"]):
            raise _error(ResourceInUseException, "Association already exists: "
                         f"{other['associationId']}", clusterName=cluster.name)
    aid = "a-" + "".join(secrets.choice(_ALNUM) for _ in range(17))
    now = utcnow()
    a.update(associationId=aid, associationArn=_arn(cluster, "podidentityassociation", cluster.name, aid),
             createdAt=now, modifiedAt=now)
    if a.get("targetRoleArn"):
        a["externalId"] = _external_id(cluster, a)
    state(cluster)["pod_identity"][aid] = a
    return ActionResult({"association": a})


@_locked
def describe_pod_identity_association(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    return ActionResult({"association": _association(cluster, p["associationId"])})


@_locked
def update_pod_identity_association(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    cur = _association(cluster, p["associationId"])
    new = dict(cur)
    for k in ("roleArn", "disableSessionTags", "targetRoleArn", "policy"):
        if k in p:
            new[k] = p[k]
    for k in ("targetRoleArn", "policy"):  # an empty string removes it
        if new.get(k) == "":
            del new[k]
    _check_association(cluster, new, "UpdatePodIdentityAssociation" if "roleArn" in p else None)
    new.pop("externalId", None)
    if new.get("targetRoleArn"):
        new["externalId"] = _external_id(cluster, new)
    new["modifiedAt"] = utcnow()
    state(cluster)["pod_identity"][cur["associationId"]] = new
    return ActionResult({"association": new})


@_locked
def delete_pod_identity_association(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    a = _association(cluster, p["associationId"])
    del state(cluster)["pod_identity"][a["associationId"]]
    return ActionResult({"association": a})


@_locked
def list_pod_identity_associations(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    items = [a for a in state(cluster)["pod_identity"].values()
             if p.get("namespace") in (None, a["namespace"]) and p.get("serviceAccount") in (None, a["serviceAccount"])]
    keys = ("clusterName", "namespace", "serviceAccount", "associationArn", "associationId", "ownerArn")
    return ActionResult(_page([{k: a[k] for k in keys if k in a} for a in items], p, "associations"))


# ---- add-ons ---------------------------------------------------------------------------------------------------
def _addon(cluster, name):
    addon = state(cluster)["addons"].get(name)
    if addon is None:
        raise _error(ResourceNotFoundException, f"No addon: {name} found in cluster: {cluster.name}",
                     clusterName=cluster.name, addonName=name)
    return addon


def _check_addon_version(cluster, name, version):
    if name not in ADDONS:
        raise _error(InvalidParameterException, f"Addon {name} specified is not supported", clusterName=cluster.name,
                     addonName=name)
    versions = ADDONS[name][0]
    if version is None:
        return versions[-1]
    if version not in versions:
        raise _error(InvalidParameterException, f"Addon version specified is not supported, {version}",
                     clusterName=cluster.name, addonName=name)
    return version


def _check_configuration(cluster, name, values):
    if values is None:
        return
    try:
        parsed = json.loads(values)
    except ValueError:
        import yaml
        try:
            parsed = yaml.safe_load(values)
        except yaml.YAMLError:
            parsed = None
    if not isinstance(parsed, dict):
        raise _error(InvalidParameterException, "ConfigurationValue provided in request is not supported: Json "
                     "schema validation failed", clusterName=cluster.name, addonName=name)


@_locked
def create_addon(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    name = p["addonName"]
    version = _check_addon_version(cluster, name, p.get("addonVersion"))
    if name in state(cluster)["addons"]:
        raise _error(ResourceInUseException, f"Addon already exists with name: {name}", clusterName=cluster.name,
                     addonName=name)
    _check_configuration(cluster, name, p.get("configurationValues"))
    now = utcnow()
    addon = {"addonName": name, "clusterName": cluster.name, "status": "ACTIVE", "addonVersion": version,
             "health": {"issues": []}, "addonArn": _arn(cluster, "addon", cluster.name, name, str(uuid.uuid4())),
             "createdAt": now, "modifiedAt": now, "tags": dict(p.get("tags") or {}), "publisher": "eks",
             "owner": "aws", "podIdentityAssociations": []}
    for k in ("serviceAccountRoleArn", "configurationValues"):
        if p.get(k) is not None:
            addon[k] = p[k]
    state(cluster)["addons"][name] = addon
    return ActionResult({"addon": addon})


@_locked
def describe_addon(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    return ActionResult({"addon": _addon(cluster, p["addonName"])})


@_locked
def update_addon(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    addon = _addon(cluster, p["addonName"])
    params = []
    if "addonVersion" in p:
        addon["addonVersion"] = _check_addon_version(cluster, addon["addonName"], p["addonVersion"])
        params.append(("AddonVersion", addon["addonVersion"]))
    if "serviceAccountRoleArn" in p:
        addon["serviceAccountRoleArn"] = p["serviceAccountRoleArn"]
        params.append(("ServiceAccountRoleArn", p["serviceAccountRoleArn"]))
    if "configurationValues" in p:
        _check_configuration(cluster, addon["addonName"], p["configurationValues"])
        addon["configurationValues"] = p["configurationValues"]
        params.append(("ConfigurationValues", p["configurationValues"]))
    if "resolveConflicts" in p:
        params.append(("ResolveConflicts", p["resolveConflicts"]))
    addon["modifiedAt"] = utcnow()
    return ActionResult({"update": _new_update(cluster, "AddonUpdate", params, addon=addon["addonName"])})


@_locked
def delete_addon(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    addon = _addon(cluster, p["addonName"])
    del state(cluster)["addons"][addon["addonName"]]
    return ActionResult({"addon": {**addon, "status": "DELETING"}})


@_locked
def list_addons(self):
    p = _params(self)
    cluster = _cluster(self.eks_backend, p["clusterName"])
    return ActionResult(_page(sorted(state(cluster)["addons"]), p, "addons"))


@_locked
def describe_addon_versions(self):
    p = _params(self)
    out = []
    for name, (versions, addon_type, namespace) in sorted(ADDONS.items()):
        if p.get("addonName") not in (None, name) or (p.get("types") and addon_type not in p["types"]):
            continue
        if p.get("publishers") and "eks" not in p["publishers"] or p.get("owners") and "aws" not in p["owners"]:
            continue
        cluster_versions = [p["kubernetesVersion"]] if p.get("kubernetesVersion") else \
            ["1.28", "1.29", "1.30", "1.31", "1.32", "1.33"]
        out.append({"addonName": name, "type": addon_type, "publisher": "eks", "owner": "aws",
                    "defaultNamespace": namespace,
                    "addonVersions": [{"addonVersion": v, "architecture": ["amd64", "arm64"], "computeTypes": ["ec2"],
                                       "compatibilities": [{"clusterVersion": cv, "platformVersions": ["*"],
                                                            "defaultVersion": v == versions[-1]}
                                                           for cv in cluster_versions],
                                       "requiresConfiguration": False, "requiresIamPermissions": True}
                                      for v in reversed(versions)]})
    return ActionResult(_page(out, p, "addons"))


# ---- tags on sub-resources ----------------------------------------------------------------------------------
# moto tags clusters only; AWS's TagResource/UntagResource/ListTagsForResource take any taggable EKS ARN.  Pod
# Identity associations, access entries and add-ons keep their tags in their own `tags`, which their Describe shows.
_orig_tag_resource = EKSBackend.tag_resource
_orig_untag_resource = EKSBackend.untag_resource
_orig_list_tags = EKSBackend.list_tags_for_resource


def _sub_resource(backend, arn):
    """The association, access entry or add-on (a dict with `tags`) whose ARN this is, or None."""
    for cluster in list(backend.clusters.values()):
        st = state(cluster)
        for item in (*st["pod_identity"].values(), *st["access_entries"].values(), *st["addons"].values()):
            if arn in (item.get("associationArn"), item.get("accessEntryArn"), item.get("addonArn")):
                return item
    return None


def _tag_resource(self, resource_arn, tags):
    with _lock:
        item = _sub_resource(self, resource_arn)
        if item is None:
            return _orig_tag_resource(self, resource_arn, tags)
        item["tags"].update(tags)


def _untag_resource(self, resource_arn, tag_keys):
    with _lock:
        item = _sub_resource(self, resource_arn)
        if item is None:
            return _orig_untag_resource(self, resource_arn, tag_keys)
        for key in tag_keys if isinstance(tag_keys, list) else [tag_keys]:
            item["tags"].pop(key, None)


def _list_tags_for_resource(self, resource_arn):
    with _lock:
        item = _sub_resource(self, resource_arn)
        return dict(item["tags"]) if item is not None else _orig_list_tags(self, resource_arn)


# ---- install & seed ----------------------------------------------------------------------------------------------
_OPERATIONS = (update_cluster_version, describe_update, list_updates, create_access_entry, describe_access_entry,
               update_access_entry, delete_access_entry, list_access_entries, list_access_policies,
               associate_access_policy, disassociate_access_policy, list_associated_access_policies,
               create_pod_identity_association, describe_pod_identity_association, update_pod_identity_association,
               delete_pod_identity_association, list_pod_identity_associations, create_addon, describe_addon,
               update_addon, delete_addon, list_addons, describe_addon_versions)

# Flask only forwards paths it has rules for; moto's Smithy router then picks the operation from the raw path
# (principal and policy ARNs arrive %2F-encoded and are decoded by the model parser).
_URL_PATHS = {
    "{0}/access-policies$": EKSResponse.dispatch,
    "{0}/addons/supported-versions$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/updates$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/updates/(?P<updateId>[^/]+)$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/access-entries$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/access-entries/(?P<rest>.+)$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/pod-identity-associations/(?P<associationId>[^/]+)$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/addons$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)$": EKSResponse.dispatch,
    "{0}/clusters/(?P<name>[^/]+)/addons/(?P<addonName>[^/]+)/update$": EKSResponse.dispatch,
}


def install():
    EKSResponse.create_cluster = _create_cluster
    EKSResponse.describe_cluster = _describe_cluster
    EKSResponse.update_cluster_config = _update_cluster_config
    for fn in _OPERATIONS:
        setattr(EKSResponse, fn.__name__, fn)
    EKS_URL_PATHS.update(_URL_PATHS)
    EKSBackend.tag_resource = _tag_resource
    EKSBackend.untag_resource = _untag_resource
    EKSBackend.list_tags_for_resource = _list_tags_for_resource
    kubernetes.install()


def apply_seed(data: dict, account: dict) -> dict:
    """EKS clusters from seed_data/eks.json, with access entries, policy associations and add-ons."""
    backend = eks_backend(account["account_id"], account["region"])
    out = {}
    with _lock:
        for c in data.get("clusters", []):
            params = {k: v for k, v in c.items() if k not in ("creatorArn", "accessEntries", "addons")}
            cluster = create_cluster(backend, params, c.get("creatorArn"))
            for e in c.get("accessEntries", []):
                entry = _new_entry(cluster, e["principalArn"], e.get("type", "STANDARD"), e.get("kubernetesGroups"),
                                   e.get("username"), e.get("tags"))
                for pol in e.get("policies", []):
                    scope = {"namespaces": [], **pol["accessScope"]}
                    entry["policies"][pol["policyArn"]] = _policy_assoc(pol["policyArn"], scope)
            for a in c.get("addons", []):
                now = utcnow()
                state(cluster)["addons"][a["addonName"]] = {
                    "addonName": a["addonName"], "clusterName": cluster.name, "status": "ACTIVE",
                    "addonVersion": a["addonVersion"], "health": {"issues": []},
                    "addonArn": _arn(cluster, "addon", cluster.name, a["addonName"], str(uuid.uuid4())),
                    "createdAt": now, "modifiedAt": now, "tags": {}, "publisher": "eks", "owner": "aws",
                    "podIdentityAssociations": [],
                    **({"configurationValues": a["configurationValues"]} if "configurationValues" in a else {})}
            out[cluster.name] = {"arn": cluster.arn, "endpoint": cluster.endpoint}
    return {"clusters": out}
