"""Who may do what: a caller is mapped to a cluster as EKS's authenticator does (an access entry, or the cluster
creator's implicit admin in CONFIG_MAP modes; else 401), then checked against its entry's EKS access policies (403
otherwise).  A documented simplification: Kubernetes RBAC objects and `kubernetesGroups` are stored, not evaluated
(see sandbox/kubernetes.py for what each policy allows)."""
import fnmatch

from ..eks_state import API_MODES, state
from .errors import ApiError, details, qualified
from .identity import principal_key, principal_of
from .kinds import NAMESPACES, RBAC
from .tokens import Unauthorized

ADMIN = "AmazonEKSClusterAdminPolicy"
NS_WRITE = {"AmazonEKSAdminPolicy", "AmazonEKSEditPolicy"}
NS_READ = {"AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy"}
READ_VERBS = {"get", "list"}


class Caller:
    def __init__(self, identity, entry, implicit_admin, username):
        self.identity, self.entry, self.implicit_admin, self.username = identity, entry, implicit_admin, username


def authenticate(cluster, identity) -> Caller:
    st = state(cluster)
    mode = cluster.access_config["authenticationMode"]
    key = principal_key(principal_of(identity))
    session = identity.rsplit("/", 1)[-1] if ":assumed-role/" in identity else ""
    if mode in API_MODES:
        for principal, entry in st["access_entries"].items():
            if key is not None and principal_key(principal) == key:
                username = entry["username"].replace("{{SessionName}}", session).replace(
                    "{{AccountID}}", key[0])
                return Caller(identity, entry, False, username)
    creator = st.get("creator")
    if (mode != "API" and cluster.access_config.get("bootstrapClusterCreatorAdminPermissions")
            and creator and key is not None and principal_key(creator) == key):
        return Caller(identity, None, True, identity)
    raise Unauthorized(f"{identity} is not mapped to cluster {cluster.name}")


def _in_scope(scope, namespace):
    if scope.get("type") == "cluster":
        return True
    return namespace is not None and any(fnmatch.fnmatchcase(namespace, pattern)
                                         for pattern in scope.get("namespaces") or [])


def authorized(caller, verb, kind, namespace, name) -> bool:
    if caller.implicit_admin:
        return True
    if caller.entry is None or caller.entry.get("type") != "STANDARD":
        return False
    write = verb not in READ_VERBS
    # the namespace a request is about: the object's namespace, or the namespace object itself (get one)
    ns = namespace if kind.namespaced else (name if kind is NAMESPACES and verb == "get" else None)
    for assoc in caller.entry["policies"].values():
        policy, scope = assoc["policyArn"].rsplit("/", 1)[-1], assoc["accessScope"]
        cluster_scope = scope.get("type") == "cluster"
        if policy == ADMIN:
            if cluster_scope or (ns is not None and _in_scope(scope, ns) and (kind.namespaced or not write)):
                return True
        elif policy in NS_WRITE or policy in NS_READ:
            if write and (policy in NS_READ or (policy == "AmazonEKSEditPolicy" and kind.group == RBAC)):
                continue
            if kind.namespaced or kind is NAMESPACES:
                if kind.namespaced and _in_scope(scope, ns):
                    return True
                if kind is NAMESPACES and not write and (cluster_scope or (ns is not None and _in_scope(scope, ns))):
                    return True
            elif not write and cluster_scope and policy == "AmazonEKSAdminViewPolicy":
                return True
    return False


def forbidden(caller, verb, kind, namespace, name):
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    what = f'{qualified(kind)} "{name}"' if name else qualified(kind)
    return ApiError(403, "Forbidden", f'{what} is forbidden: User "{caller.username}" cannot {verb} resource '
                                      f'"{kind.resource}" in API group "{kind.group}" {where}',
                    details(kind, name))

