"""What the API server checks of an object before it stores it (names, labels, RBAC and NetworkPolicy fields: 422
Invalid), and the defaults it sets (so clients see the same perpetual values as on EKS)."""
import re

from .errors import invalid
from .kinds import NAMESPACES, RBAC

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_LABEL_VALUE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _name_error(kind, name):
    if not name:
        return "Required value: name or generateName is required"
    if kind.name_rule == "label" and (len(name) > 63 or not _LABEL.fullmatch(name)):
        return (f'Invalid value: "{name}": a lowercase RFC 1123 label must consist of lower case alphanumeric '
                "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
    if kind.name_rule == "subdomain" and (len(name) > 253 or not _SUBDOMAIN.fullmatch(name)):
        return (f'Invalid value: "{name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    if kind.name_rule == "path" and (name in (".", "..") or "/" in name or "%" in name):
        return f'Invalid value: "{name}": may not contain \'/\' or \'%\' and may not be \'.\' or \'..\''
    return None


def validate(kind, obj, old=None):
    name = obj["metadata"].get("name")
    causes = []
    err = _name_error(kind, name)
    if err:
        causes.append(("metadata.name", err))
    for field in ("labels", "annotations"):
        value = obj["metadata"].get(field)
        if value is not None and (not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values())):
            causes.append((f"metadata.{field}", "Invalid value: must be a map of strings"))
    for v in (obj["metadata"].get("labels") or {}).values():
        if isinstance(v, str) and (len(v) > 63 or (v and not _LABEL_VALUE.fullmatch(v))):
            causes.append(("metadata.labels", f'Invalid value: "{v}": a valid label must be an empty string or '
                                                "consist of alphanumeric characters, '-', '_' or '.', and must start "
                                                "and end with an alphanumeric character"))
    if kind.kind in ("Role", "ClusterRole"):
        for i, rule in enumerate(obj.get("rules") or []):
            if not rule.get("verbs"):
                causes.append((f"rules[{i}].verbs", "Required value: verbs must contain at least one value"))
            if rule.get("nonResourceURLs"):
                if kind.kind == "Role":
                    causes.append((f"rules[{i}].nonResourceURLs", "Invalid value: namespaced rules cannot apply to "
                                                                  "non-resource URLs"))
            else:
                if not rule.get("apiGroups"):
                    causes.append((f"rules[{i}].apiGroups", "Required value: resource rules must supply at least one "
                                                            "api group"))
                if not rule.get("resources"):
                    causes.append((f"rules[{i}].resources", "Required value: resource rules must supply at least one "
                                                            "resource"))
    if kind.kind in ("RoleBinding", "ClusterRoleBinding"):
        ref = obj.get("roleRef") or {}
        allowed = ("Role", "ClusterRole") if kind.kind == "RoleBinding" else ("ClusterRole",)
        if ref.get("apiGroup") != RBAC:
            causes.append(("roleRef.apiGroup", f'Unsupported value: "{ref.get("apiGroup", "")}": supported values: '
                                               f'"{RBAC}"'))
        if ref.get("kind") not in allowed:
            causes.append(("roleRef.kind", f'Unsupported value: "{ref.get("kind", "")}": supported values: '
                                           + ", ".join(f'"{a}"' for a in allowed)))
        if not ref.get("name"):
            causes.append(("roleRef.name", "Required value"))
        if old is not None and old.get("roleRef") != obj.get("roleRef"):
            causes.append(("roleRef", "Invalid value: cannot change roleRef"))
        for i, s in enumerate(obj.get("subjects") or []):
            if s.get("kind") not in ("User", "Group", "ServiceAccount"):
                causes.append((f"subjects[{i}].kind", f'Unsupported value: "{s.get("kind", "")}": supported values: '
                                                      '"ServiceAccount", "User", "Group"'))
            if not s.get("name"):
                causes.append((f"subjects[{i}].name", "Required value"))
            if s.get("kind") == "ServiceAccount" and kind.kind == "ClusterRoleBinding" and not s.get("namespace"):
                causes.append((f"subjects[{i}].namespace", "Required value"))
    if kind.kind == "NetworkPolicy":
        for i, t in enumerate((obj.get("spec") or {}).get("policyTypes") or []):
            if t not in ("Ingress", "Egress"):
                causes.append((f"spec.policyTypes[{i}]", f'Unsupported value: "{t}": supported values: "Ingress", '
                                                         '"Egress"'))
    if causes:
        raise invalid(kind, name or "", causes)


def defaults(kind, obj):
    """Server-side defaults, as the API server sets them (so clients see the same perpetual values)."""
    meta = obj["metadata"]
    if kind is NAMESPACES:
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
        obj["spec"] = {"finalizers": ["kubernetes"]}
        obj["status"] = {"phase": "Active"}
    elif kind.kind in ("RoleBinding", "ClusterRoleBinding"):
        for s in obj.get("subjects") or []:
            if s.get("kind") in ("User", "Group"):
                s.setdefault("apiGroup", RBAC)
            elif s.get("kind") == "ServiceAccount" and kind.kind == "RoleBinding":
                s.setdefault("namespace", meta.get("namespace"))
    elif kind.kind == "NetworkPolicy":
        spec = obj.setdefault("spec", {})
        spec.setdefault("podSelector", {})
        if "policyTypes" not in spec:
            spec["policyTypes"] = ["Ingress"] + (["Egress"] if spec.get("egress") else [])
        for rules in (spec.get("ingress") or [], spec.get("egress") or []):
            for rule in rules:
                for p in rule.get("ports") or []:
                    p.setdefault("protocol", "TCP")
    for field in ("labels", "annotations"):
        if field in meta and not meta[field]:
            del meta[field]

