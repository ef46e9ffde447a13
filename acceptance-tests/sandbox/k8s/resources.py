"""The verbs on objects (get, list, create, update, patch, delete), as the API server answers them: routes of
resource paths, bodies checked against the URL, validation and defaults, resource versions, dry runs."""
import base64
import copy
import json
import re
import uuid
from typing import Any

from . import field_ownership
from .authorization import authorized, forbidden
from .errors import ApiError, bad_request, conflict, details, not_found, qualified
from .http import field_selector_matches, json_response, label_selector_matches, merge_patch, parse_body
from .kinds import BY_RESOURCE, GROUPS, NAMESPACES, PROTECTED_NAMESPACES
from .store import drop_namespace, finish_create, last_rv, next_rv, now, objects_of
from .validation import defaults, validate


def verb_of(method, name):
    """The API server's verb for an HTTP method on an object (`name`) or a collection (None)."""
    return {"GET": "get" if name else "list", "POST": "create", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete"}.get(method)


def route(path):
    """(kind, namespace, name) for a resource path, or raise 404."""
    m = re.fullmatch(r"/api/v1/(.+)", path) or re.fullmatch(r"/apis/([^/]+/[^/]+)/(.+)", path)
    if not m:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    if path.startswith("/api/v1/"):
        group, rest = "", m.group(1)
    else:
        group, version = m.group(1).split("/")
        rest = m.group(2)
        if GROUPS.get(group) != version:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
    segs = rest.split("/")
    namespace = None
    if segs[0] == "namespaces" and len(segs) >= 3:
        namespace, segs = segs[1], segs[2:]
    kind = BY_RESOURCE.get((group, segs[0]))
    if kind is None or len(segs) > 2 or (namespace is not None and not kind.namespaced):
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    return kind, namespace, (segs[1] if len(segs) == 2 else None)


def handle(request, cluster, caller, path):
    """A request on objects of `cluster` by an authenticated `caller` (authorized here): the verb's response."""
    kind, namespace, name = route(path)
    method = request.method
    verb = verb_of(method, name)
    if verb is None or (name is None and method not in ("GET", "POST")) or (name and method == "POST"):
        raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
    if request.args.get("watch") in ("1", "true"):
        raise ApiError(405, "MethodNotAllowed", "sandbox: watch is not supported")
    if not authorized(caller, verb, kind, namespace, name):
        raise forbidden(caller, verb, kind, namespace, name)
    store = objects_of(cluster)
    if kind.namespaced and namespace is not None and ("", "namespaces", "", namespace) not in store \
            and verb != "list":
        raise not_found(NAMESPACES, namespace)
    dry_run = request.args.get("dryRun") == "All"
    return _HANDLERS[verb](request, store, kind, namespace, name, dry_run=dry_run)


def _key(kind, namespace, name):
    return (kind.group, kind.resource, namespace or "", name)


def _existing(store, kind, namespace, name):
    obj = store.get(_key(kind, namespace, name))
    if obj is None:
        raise not_found(kind, name)
    return obj


def _get(request, store, kind, namespace, name, dry_run=False):
    return json_response(_existing(store, kind, namespace, name))


def _list(request, store, kind, namespace, name, dry_run=False):
    items = [o for (g, r, ns, _), o in sorted(store.items())
             if (g, r) == (kind.group, kind.resource) and (namespace is None or ns == namespace)]
    items = [o for o in items if label_selector_matches(request.args.get("labelSelector"),
                                                         o["metadata"].get("labels") or {})
             and field_selector_matches(request.args.get("fieldSelector"), o)]
    meta: dict[str, Any] = {"resourceVersion": last_rv()}
    start = 0
    if request.args.get("continue"):
        try:
            start = int(base64.urlsafe_b64decode(request.args["continue"].encode()).decode())
        except ValueError:
            raise ApiError(400, "BadRequest", "continue key is not valid") from None
    limit = int(request.args.get("limit") or 0)
    if limit > 0:
        if start + limit < len(items):
            meta["continue"] = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
            meta["remainingItemCount"] = len(items) - start - limit
        items = items[start:start + limit]
    else:
        items = items[start:]
    # as the API server: list items carry no apiVersion/kind
    items = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in items]
    return json_response({"kind": f"{kind.kind}List", "apiVersion": kind.api_version, "metadata": meta,
                          "items": items})


def _check_body(body, kind, namespace, name=None):
    if body.get("apiVersion") not in (None, kind.api_version) or body.get("kind") not in (None, kind.kind):
        raise bad_request(f"the API version in the data ({body.get('apiVersion')}) does not match the expected "
                          f"API version ({kind.api_version})" if body.get("apiVersion") != kind.api_version else
                          f"the kind in the data ({body.get('kind')}) does not match the expected kind "
                          f"({kind.kind})")
    meta = body.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise bad_request("metadata must be an object")
    if kind.namespaced:
        if meta.get("namespace") not in (None, "", namespace):
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        meta["namespace"] = namespace
    else:
        meta.pop("namespace", None)
    if name is not None and meta.get("name") not in (None, name):
        raise bad_request(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                          f"({name})")
    if name is not None:
        meta["name"] = name
    body["apiVersion"], body["kind"] = kind.api_version, kind.kind


def _manager(request, default):
    return request.args.get("fieldManager") or (request.headers.get("User-Agent") or default).split("/")[0] \
        or default


def _create(request, store, kind, namespace, name, dry_run=False):
    body = parse_body(request)
    _check_body(body, kind, namespace)
    meta = body["metadata"]
    if not meta.get("name") and meta.get("generateName"):
        meta["name"] = meta["generateName"] + uuid.uuid4().hex[:5]
    for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "deletionTimestamp"):
        meta.pop(k, None)
    body.pop("status", None)
    validate(kind, body)
    if _key(kind, namespace, meta["name"]) in store:
        raise ApiError(409, "AlreadyExists", f'{qualified(kind)} "{meta["name"]}" already exists',
                       details(kind, meta["name"]))
    if dry_run:
        defaults(kind, body)
        return json_response(body, 201)
    finish_create(kind, body)
    field_ownership.record_update(kind, None, body, _manager(request, "unknown"))
    store[_key(kind, namespace, meta["name"])] = body
    return json_response(body, 201)


def _replace(store, kind, namespace, name, old, new, request, manager, dry_run):
    """Validate and store `new` in place of `old` (server-owned fields kept); returns the stored object."""
    meta = new["metadata"]
    for k in ("uid", "creationTimestamp", "generation"):
        if k in old["metadata"]:
            meta[k] = old["metadata"][k]
        else:
            meta.pop(k, None)
    if "status" in old:
        new["status"] = copy.deepcopy(old["status"])
    else:
        new.pop("status", None)
    validate(kind, new, old)
    defaults(kind, new)
    if manager is not None:
        field_ownership.record_update(kind, old, new, manager)
    changed = {k: v for k, v in new.items() if k != "metadata"} != \
        {k: v for k, v in old.items() if k != "metadata"} or field_ownership.meta_changed(old, new)
    if not changed:
        return old
    if kind.kind == "NetworkPolicy" and new.get("spec") != old.get("spec"):
        meta["generation"] = old["metadata"].get("generation", 1) + 1
    if dry_run:
        return new
    meta["resourceVersion"] = next_rv()
    store[_key(kind, namespace, name)] = new
    return new


def _update(request, store, kind, namespace, name, dry_run=False):
    old = _existing(store, kind, namespace, name)
    body = parse_body(request)
    _check_body(body, kind, namespace, name)
    rv = body["metadata"].get("resourceVersion")
    if rv not in (None, "") and rv != old["metadata"]["resourceVersion"]:
        raise conflict(kind, name)
    if "managedFields" not in body["metadata"] and "managedFields" in old["metadata"]:
        body["metadata"]["managedFields"] = copy.deepcopy(old["metadata"]["managedFields"])
    return json_response(_replace(store, kind, namespace, name, old, body, request, _manager(request, "unknown"),
                                  dry_run))


def _patch(request, store, kind, namespace, name, dry_run=False):
    ctype = (request.mimetype or "").lower()
    if ctype == "application/apply-patch+yaml":
        return _server_side_apply(request, store, kind, namespace, name, dry_run)
    if ctype not in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
        raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                                                    "accepted media types include: application/json-patch+json "
                                                    "(not in the sandbox), application/merge-patch+json, "
                                                    "application/apply-patch+yaml, "
                                                    "application/strategic-merge-patch+json")
    old = _existing(store, kind, namespace, name)
    patch = parse_body(request, yaml_ok=False)
    rv = (patch.get("metadata") or {}).get("resourceVersion")
    if rv is not None and rv != old["metadata"]["resourceVersion"]:
        raise conflict(kind, name)
    new = merge_patch(copy.deepcopy(old), patch)
    if not isinstance(new.get("metadata"), dict):
        raise bad_request("metadata must be an object")
    new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
    _check_body(new, kind, namespace, name)
    return json_response(_replace(store, kind, namespace, name, old, new, request, _manager(request, "unknown"),
                                  dry_run))


def _server_side_apply(request, store, kind, namespace, name, dry_run):
    manager = request.args.get("fieldManager")
    if not manager:
        raise ApiError(422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
                                       "required for apply patch",
                       {"group": "meta.k8s.io", "kind": "PatchOptions",
                        "causes": [{"reason": "FieldValueRequired", "message": "Required value: is required for "
                                    "apply patch", "field": "fieldManager"}]})
    force = request.args.get("force") in ("true", "1")
    config = parse_body(request)
    if not config.get("apiVersion") or not config.get("kind"):
        raise bad_request("apply patches must specify apiVersion and kind")
    _check_body(config, kind, namespace, name)
    rv = config["metadata"].pop("resourceVersion", None)
    current = store.get(_key(kind, namespace, name))
    if rv is not None and (current is None or rv != current["metadata"]["resourceVersion"]):
        raise conflict(kind, name)
    for k in ("uid", "creationTimestamp", "managedFields", "generation"):
        config["metadata"].pop(k, None)
    config.pop("status", None)
    new = field_ownership.apply(kind, current, config, manager, force)
    if current is None:
        validate(kind, new)
        if dry_run:
            defaults(kind, new)
            return json_response(new, 201)
        finish_create(kind, new)
        store[_key(kind, namespace, name)] = new
        return json_response(new, 201)
    return json_response(_replace(store, kind, namespace, name, current, new, request, None, dry_run))


def _delete(request, store, kind, namespace, name, dry_run=False):
    obj = _existing(store, kind, namespace, name)
    try:
        options = json.loads(request.get_data() or b"{}") or {}
    except ValueError:
        raise bad_request("the body of the request is not valid JSON") from None
    pre = options.get("preconditions") or {}
    if pre.get("resourceVersion") not in (None, obj["metadata"]["resourceVersion"]) or \
            pre.get("uid") not in (None, obj["metadata"]["uid"]):
        raise conflict(kind, name, "the precondition did not match")
    if kind is NAMESPACES:
        if name in PROTECTED_NAMESPACES:
            raise ApiError(403, "Forbidden", f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                           details(kind, name))
        out = copy.deepcopy(obj)
        out["metadata"]["deletionTimestamp"] = now()
        out["status"] = {"phase": "Terminating"}
        if not dry_run:
            drop_namespace(store, name)
        return json_response(out)
    if not dry_run:
        del store[_key(kind, namespace, name)]
    return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                          "details": {**details(kind, name), "uid": obj["metadata"]["uid"]}})



_HANDLERS = {"get": _get, "list": _list, "create": _create, "update": _update, "patch": _patch, "delete": _delete}
