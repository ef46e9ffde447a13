"""Field ownership (`metadata.managedFields`) and server-side apply, as the API server does them: which manager owns
which field paths, what a write by another manager takes over, and when an apply conflicts (409, unless forced)."""
import copy

from .errors import ApiError, details
from .store import now
from .validation import defaults

FieldPath = tuple[str, ...]  # a field of an object: ("spec", "podSelector", "matchLabels")
_UNOWNED = {("apiVersion",), ("kind",), ("status",), ("metadata", "name"), ("metadata", "namespace"),
            ("metadata", "uid"), ("metadata", "resourceVersion"), ("metadata", "generation"),
            ("metadata", "creationTimestamp"), ("metadata", "managedFields"), ("metadata", "deletionTimestamp"),
            ("metadata", "selfLink")}


def _leaves(obj, prefix=()):
    """Owned field paths: maps are granular, lists atomic (true of the RBAC and NetworkPolicy lists)."""
    out = set()
    for k, v in obj.items():
        path = prefix + (k,)
        if path in _UNOWNED:
            continue
        if isinstance(v, dict) and v:
            out |= _leaves(v, path)
        else:
            out.add(path)
    return out


def _get(obj, path):
    for k in path:
        if not isinstance(obj, dict) or k not in obj:
            return None
        obj = obj[k]
    return obj


def _set(obj, path, value):
    for k in path[:-1]:
        obj = obj.setdefault(k, {})
    obj[path[-1]] = copy.deepcopy(value)


def _remove(obj, path):
    parents = []
    for k in path[:-1]:
        if not isinstance(obj, dict) or k not in obj:
            return
        parents.append((obj, k))
        obj = obj[k]
    obj.pop(path[-1], None)
    for parent, k in reversed(parents):  # prune maps emptied by the removal
        if parent[k] == {}:
            del parent[k]
        else:
            break


def _overlaps(a, b):
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _to_fields_v1(paths):
    tree: dict = {}
    for path in sorted(paths):
        node = tree
        for k in path:
            node = node.setdefault(f"f:{k}", {})
    return tree


def _from_fields_v1(tree, prefix=()):
    out: set[FieldPath] = set()
    for k, v in tree.items():
        if not k.startswith("f:"):
            continue
        path = prefix + (k[2:],)
        out |= _from_fields_v1(v, path) if v else {path}
    return out


def _managers(obj):
    """[(manager, operation, apiVersion, paths)] from metadata.managedFields."""
    return [(m["manager"], m["operation"], m.get("apiVersion", "v1"), _from_fields_v1(m.get("fieldsV1") or {}))
            for m in obj["metadata"].get("managedFields") or []]


def _set_managers(obj, managers):
    obj["metadata"]["managedFields"] = [
        {"manager": m, "operation": op, "apiVersion": av, "time": now(), "fieldsType": "FieldsV1",
         "fieldsV1": _to_fields_v1(paths)} for m, op, av, paths in managers if paths]
    if not obj["metadata"]["managedFields"]:
        del obj["metadata"]["managedFields"]


def record_update(kind, old, new, manager):
    """Ownership after a non-apply write (POST/PUT/merge PATCH): `manager` takes every changed field."""
    new_leaves = _leaves(new)
    changed = {p for p in new_leaves if old is None or _get(old, p) != _get(new, p)}
    managers = []
    for m, op, av, paths in (_managers(old) if old is not None else []):
        paths = {p for p in paths if any(_overlaps(p, q) for q in new_leaves)}
        if not (m == manager and op == "Update"):
            paths = {p for p in paths if not any(_overlaps(p, c) for c in changed)}
        else:
            paths = paths | changed
            changed = set()
        managers.append((m, op, av, paths))
    if changed:
        managers.append((manager, "Update", kind.api_version, changed))
    _set_managers(new, managers)


def apply(kind, current, config, manager, force):
    """Server-side apply of `config` by `manager` onto `current` (None = create); returns the new object."""
    cfg_leaves = _leaves(config)
    if current is None:
        new = {"apiVersion": kind.api_version, "kind": kind.kind, "metadata": {}}
        for p in cfg_leaves:
            _set(new, p, _get(config, p))
        new["metadata"].update({k: v for k, v in config["metadata"].items() if k in ("name", "namespace")})
        _set_managers(new, [(manager, "Apply", kind.api_version, cfg_leaves)])
        return new
    managers = _managers(current)
    defaulted = copy.deepcopy(config)  # compare as the server stores values (e.g. NetworkPolicy port protocol)
    defaults(kind, defaulted)
    conflicts = []
    for m, op, _, paths in managers:
        if m == manager and op == "Apply":
            continue
        for p in paths:
            for q in cfg_leaves:
                if _overlaps(p, q) and _get(current, q) != _get(defaulted, q):
                    conflicts.append((m, q if len(q) >= len(p) else p))
    if conflicts and not force:
        fields = sorted({(m, "." + ".".join(p)) for m, p in conflicts})
        msg = f"Apply failed with {len(fields)} conflict{'s' if len(fields) > 1 else ''}: " + "; ".join(
            f'conflict with "{m}" using {kind.api_version}: {f}' for m, f in fields)
        raise ApiError(409, "Conflict", msg, {**details(kind, current["metadata"]["name"]),
                                              "causes": [{"reason": "FieldManagerConflict",
                                                          "message": f'conflict with "{m}" using {kind.api_version}',
                                                          "field": f} for m, f in fields]})
    if force:
        managers = [(m, op, av, paths if (m == manager and op == "Apply")
                     else {p for p in paths if not any(_overlaps(p, q) and _get(current, q) != _get(defaulted, q)
                                                       for q in cfg_leaves)})
                    for m, op, av, paths in managers]
    previous: set[FieldPath] = next((paths for m, op, _, paths in managers if m == manager and op == "Apply"), set())
    others = set().union(*[paths for m, op, _, paths in managers if not (m == manager and op == "Apply")])
    new = copy.deepcopy(current)
    for p in previous - cfg_leaves:
        if not any(_overlaps(p, q) for q in others | cfg_leaves):
            _remove(new, p)
    for p in cfg_leaves:
        _set(new, p, _get(config, p))
    managers = [(m, op, av, paths) for m, op, av, paths in managers if not (m == manager and op == "Apply")]
    managers.append((manager, "Apply", kind.api_version, cfg_leaves))
    _set_managers(new, managers)
    return new



def meta_changed(old, new):
    skip = ("resourceVersion", "managedFields")
    a = {k: v for k, v in old["metadata"].items() if k not in skip}
    b = {k: v for k, v in new["metadata"].items() if k not in skip}
    return a != b or (_strip_times(old["metadata"].get("managedFields"))
                      != _strip_times(new["metadata"].get("managedFields")))


def _strip_times(managed):
    return [{k: v for k, v in m.items() if k != "time"} for m in managed or []]

