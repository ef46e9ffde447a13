"""The object kinds the sandbox's Kubernetes API serves (JSON only, version v1 of each group)."""

RBAC = "rbac.authorization.k8s.io"
NETWORKING = "networking.k8s.io"
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public")  # every cluster starts with these
PROTECTED_NAMESPACES = DEFAULT_NAMESPACES  # DELETE answers 403


class Kind:
    def __init__(self, group, resource, kind, namespaced, singular, short=(), name_rule="subdomain"):
        self.group, self.version, self.resource, self.kind = group, "v1", resource, kind
        self.namespaced, self.singular, self.short, self.name_rule = namespaced, singular, list(short), name_rule

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    def discovery(self):
        return {"name": self.resource, "singularName": self.singular, "namespaced": self.namespaced,
                "kind": self.kind, "verbs": ["create", "delete", "get", "list", "patch", "update"],
                **({"shortNames": self.short} if self.short else {})}


KINDS = [Kind("", "namespaces", "Namespace", False, "namespace", ["ns"], "label"),
         Kind("", "serviceaccounts", "ServiceAccount", True, "serviceaccount", ["sa"]),
         Kind(RBAC, "roles", "Role", True, "role", (), "path"),
         Kind(RBAC, "rolebindings", "RoleBinding", True, "rolebinding", (), "path"),
         Kind(RBAC, "clusterroles", "ClusterRole", False, "clusterrole", (), "path"),
         Kind(RBAC, "clusterrolebindings", "ClusterRoleBinding", False, "clusterrolebinding", (), "path"),
         Kind(NETWORKING, "networkpolicies", "NetworkPolicy", True, "networkpolicy", ["netpol"])]
BY_RESOURCE = {(k.group, k.resource): k for k in KINDS}
NAMESPACES = BY_RESOURCE[("", "namespaces")]
GROUPS = {RBAC: "v1", NETWORKING: "v1"}
