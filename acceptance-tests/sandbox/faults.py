"""Faults injected through the admin API (`POST /_sandbox/faults`), and per-operation call counters.

Modes (each fault matches `operation` — an API name, or "*" for any — optionally narrowed by `service`):
* ``error``: the call fails outright with `code`/`status`/`message` (default ThrottlingException 400; `Throttling`
  for the query services IAM/STS, as they name it) before validation or any state change, as AWS front ends throttle.
* ``server_error``: the same with a 5xx `status` (default 500): code `InternalFailure`, or `ServiceUnavailable` for 503.
* ``latency``: the call is delayed by `ms` milliseconds, then handled normally (other faults still apply).
* ``async_failure``: the write succeeds, but the resource's asynchronous transition ends in ``*Failed`` with
  `failure_reason` (consumed by sagemaker.py).
* ``partial_failure`` (CreateClusterSchedulerConfig / UpdateClusterSchedulerConfig only): the write succeeds and the
  config settles with its overall Status as normal (Created / Updated), but `StatusDetails[component]` reads
  CreateFailed / UpdateFailed and `FailureReason` is `failure_reason` (default "Injected partial failure (sandbox
  fault)").  `component` (required) is PriorityClasses, FairShare or IdleResourceSharing; only a write whose
  SchedulerConfig sets that component takes the fault (others leave it armed).  An `async_failure` armed for the
  same write wins (the whole config fails) and leaves this fault armed.  GUESS: AWS documents StatusDetails as
  context in non-active states and on failures; that the overall status can read as a success while a component
  failed is the stricter reading for a client (it must read StatusDetails, not Status alone).
* ``eventual_consistency``: the next IAM CreateRole of `role_name` (or of the role `resource` names, by name or
  ARN; any role if neither is given) succeeds, but the role stays invisible to the next `count` reads of it, or,
  with `seconds`, to every read for that many seconds after its creation (`count` then defaults to null):
  IAM calls naming it (GetRole, GetRolePolicy, ListAttachedRolePolicies, PutRolePolicy, ... — all but
  Create/DeleteRole) answer 404 NoSuchEntity, STS AssumeRole of it answers 403 AccessDenied, and the services that
  check a principal against IAM refuse it as they refuse one that does not exist (EKS CreateAccessEntry 400
  InvalidParameterException "The specified principalArn is invalid: invalid principal.", Create/Update
  PodIdentityAssociation 400 InvalidParameterException "Role provided in the request does not exist", KMS
  CreateGrant 400 InvalidArnException), as AWS does while a new role propagates.  `existing: true` starts the window
  at once for a role that exists already (as if it had just been created outside the sandbox's view).
* ``hold``: the call is handled normally (AWS accepts it, the state changes), then its response is held back for
  `ms` milliseconds (default 600000, the most) or until released, so a test can kill the caller at exactly that
  moment (the kill test: the provider killed right after a create AWS accepted).  While it waits the call is listed
  by `GET /_sandbox/held` ({"held": [{"id", "service", "operation", "status", "held_ms"}]}); `DELETE
  /_sandbox/held` releases every held response (as do `DELETE /_sandbox/faults` and reset).  Only calls that
  succeed (2xx) are held and count towards `nth`: a rejected call changed nothing to be interrupted after.

`count` (default 1) is how many matching calls the fault affects; `null` = every matching call until the faults are
cleared. `nth` (default 1) lets the first nth-1 matching calls through and starts with the nth.

Kubernetes API requests (kubernetes.py, every EKS cluster's API) have operation names of their own, always with the
`kubernetes.` prefix: `kubernetes.<verb>.<resource>`, where verb is what the API server calls it (`get`, `list`,
`create` = POST, `update` = PUT, `patch` = PATCH of any content type, server-side apply included, `delete`) and
resource the plural lower-case name in the URL (`namespaces`, `serviceaccounts`, `roles`, `rolebindings`,
`clusterroles`, `clusterrolebindings`, `networkpolicies`); `kubernetes.get.discovery` (/api, /apis, ...) and
`kubernetes.get.version` (/version).  E.g. `kubernetes.create.networkpolicies`.  Kubernetes names may use shell
wildcards (`kubernetes.*.networkpolicies`, `kubernetes.create.*`, `kubernetes.*`); a bare "*" matches AWS calls only.
Kubernetes faults take the modes `error` (default 429 TooManyRequests), `server_error` (500 InternalError, 503
ServiceUnavailable), `latency` and `hold`; `code` is the Status `reason` (e.g. "Forbidden" with status 403).  They
apply on every EKS cluster, before authentication (`hold`: after the request was handled).  The call counters count them
under the same names ("kubernetes.create.networkpolicies").

Calls are also counted per caller: the `x-hyperpod-caller` request header the provider sets to the resource type, data
source (`data.<type>`) or `provider` step a call is made for (`calls_by_caller()`; calls without it, e.g. a test's own
boto3 calls, under "").  The plain per-operation counters are unchanged.
"""
import collections
import fnmatch
import itertools
import re
import threading
import time

from .k8s.kinds import KINDS
from .names import SCHEDULER_COMPONENTS

MODES = ("error", "server_error", "latency", "async_failure", "partial_failure", "eventual_consistency", "hold")
PARTIAL_FAILURE_OPERATIONS = ("CreateClusterSchedulerConfig", "UpdateClusterSchedulerConfig")
DEFAULT_PARTIAL_FAILURE_REASON = "Injected partial failure (sandbox fault)"
HOLD_MAX_MS = 600_000
QUERY_SERVICES = ("iam", "sts")
# IAM operations that name a role but are not reads of an existing one.
_NOT_ROLE_READS = ("CreateRole", "DeleteRole", "CreateServiceLinkedRole")
KUBERNETES = "kubernetes"  # the `service` of Kubernetes API requests; their operation names start with "kubernetes."
KUBERNETES_VERBS = ("get", "list", "create", "update", "patch", "delete")
KUBERNETES_MODES = ("error", "server_error", "latency", "hold")
# Status reasons the Kubernetes API server gives per HTTP status (k8s.io/apimachinery metav1.StatusReason).
KUBERNETES_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
                      405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType",
                      422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
                      504: "Timeout"}
_KUBERNETES_NAME = re.compile(r"kubernetes\.(get\.(discovery|version)|(" + "|".join(KUBERNETES_VERBS) + r")\.[a-z]+)")


_lock = threading.Lock()
_armed: list[dict] = []
_calls: collections.Counter = collections.Counter()
_calls_by_caller: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


def _positive_int(spec, name, default):
    value = spec.get(name, default)
    if value is None and name == "count":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"'{name}' must be a positive integer" + (" or null (always)" if name == "count" else ""))
    return value


def add(spec: dict) -> dict:
    """Arm a fault; returns the normalised spec.  Raises ValueError on bad input."""
    mode = spec.get("mode", "error")
    if mode not in MODES:
        raise ValueError(f"'mode' must be one of {list(MODES)}")
    op = spec.get("operation", "CreateRole" if mode == "eventual_consistency" else None)
    if not isinstance(op, str) or not op:
        raise ValueError("'operation' (an API name such as CreateClusterSchedulerConfig, or \"*\") is required")
    fault = {"operation": op, "mode": mode, "count": _positive_int(spec, "count", 1),
             "nth": _positive_int(spec, "nth", 1), "seen": 0}
    if spec.get("service"):  # disambiguates e.g. CreateCluster (eks vs sagemaker)
        fault["service"] = spec["service"]
    kubernetes = op.startswith(KUBERNETES + ".") or spec.get("service") == KUBERNETES
    if kubernetes:
        _check_kubernetes_fault(op, mode, spec.get("service"))
        fault["service"] = KUBERNETES
    if mode in ("error", "server_error"):
        status = spec.get("status", (429 if kubernetes else 400) if mode == "error" else 500)
        if not isinstance(status, int) or not (400 <= status <= 599) or (mode == "server_error" and status < 500):
            raise ValueError("'status' must be an HTTP error status" + (" (5xx)" if mode == "server_error" else ""))
        default_code = {503: "ServiceUnavailable"}.get(status, "InternalFailure") if status >= 500 else None
        if kubernetes:
            default_code = KUBERNETES_REASONS.get(status, "InternalError" if status >= 500 else "BadRequest")
        fault["code"] = spec.get("code", default_code)  # None: ThrottlingException (Throttling for IAM/STS)
        fault["status"] = status
        fault["message"] = spec.get("message")
    elif mode == "latency":
        ms = spec.get("ms")
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not (0 <= ms <= 600_000):
            raise ValueError("'ms' (milliseconds to add, 0..600000) is required for latency")
        fault["ms"] = ms
    elif mode == "hold":
        ms = spec.get("ms", HOLD_MAX_MS)
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not (0 <= ms <= HOLD_MAX_MS):
            raise ValueError(f"'ms' (how long to hold the response at most, 0..{HOLD_MAX_MS}) must be a number")
        fault["ms"] = ms
    elif mode == "async_failure":
        fault["failure_reason"] = spec.get("failure_reason", "Injected failure (sandbox fault)")
    elif mode == "partial_failure":
        if op not in PARTIAL_FAILURE_OPERATIONS:
            raise ValueError(f"partial_failure applies to {' and '.join(PARTIAL_FAILURE_OPERATIONS)} only, not {op!r}")
        if spec.get("component") not in SCHEDULER_COMPONENTS:
            raise ValueError(f"'component' (the scheduler config component that fails) is required, one of "
                             f"{list(SCHEDULER_COMPONENTS)}")
        reason = spec.get("failure_reason", DEFAULT_PARTIAL_FAILURE_REASON)
        if not isinstance(reason, str) or not reason:
            raise ValueError("'failure_reason' must be a non-empty string")
        fault.update(service="sagemaker", component=spec["component"], failure_reason=reason)
    else:
        seconds = spec.get("seconds")
        if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
                                    or not (0 < seconds <= 600)):
            raise ValueError("'seconds' (how long after its creation the role stays invisible, 0..600) must be a "
                             "number")
        if seconds is not None and "count" not in spec:
            fault["count"] = None  # a time window: every read until it closes
        if op != "CreateRole" or fault["nth"] != 1 or (fault["count"] is None and seconds is None):
            raise ValueError("eventual_consistency takes `role_name` or `resource` and a `count` of reads or "
                             "`seconds` (operation CreateRole, no nth)")
        target = spec.get("role_name") or spec.get("resource")
        if target is not None and (not isinstance(target, str) or not target):
            raise ValueError("'role_name'/'resource' must be a role name or ARN")
        existing = spec.get("existing", False)
        if not isinstance(existing, bool) or (existing and target is None):
            raise ValueError("'existing' (true: the role exists already and propagates from now) needs `role_name` "
                             "or `resource`")
        fault["service"] = "iam"
        fault["role_name"] = target.rsplit("/", 1)[-1] if target else None
        fault["seconds"] = seconds
        fault["active"] = False  # becomes True when the role is created (at once for an existing role)
        fault["until"] = None
        if existing:
            _activate(fault)
    with _lock:
        _armed.append(fault)
    return _public(fault)


def _check_kubernetes_fault(op: str, mode: str, service) -> None:
    if service not in (None, KUBERNETES) or not op.startswith(KUBERNETES + "."):
        raise ValueError("Kubernetes faults name a `kubernetes.<verb>.<resource>` operation (e.g. "
                         "kubernetes.create.networkpolicies; wildcards allowed) and no other service")
    if mode not in KUBERNETES_MODES:
        raise ValueError(f"Kubernetes faults take the modes {list(KUBERNETES_MODES)}, not {mode!r}")
    m = _KUBERNETES_NAME.fullmatch(op)
    known = m is not None and (m.group(2) is not None or op.rsplit(".", 1)[1] in {k.resource for k in KINDS})
    if not any(c in op for c in "*?[") and not known:
        raise ValueError(f"{op!r} is not a Kubernetes operation name: kubernetes.<verb>.<resource> with verb one of "
                         f"{', '.join(KUBERNETES_VERBS)} (e.g. kubernetes.create.networkpolicies), "
                         "kubernetes.get.discovery or kubernetes.get.version")


def _public(fault: dict) -> dict:
    return {k: v for k, v in fault.items() if (v is not None or k in ("count", "code")) and k != "until"}


def _matches(fault, service, operation, modes):
    if fault["mode"] not in modes:
        return False
    if service == KUBERNETES or fault.get("service") == KUBERNETES:  # Kubernetes names: shell wildcards allowed
        return service == fault.get("service") and fnmatch.fnmatchcase(operation, fault["operation"])
    return fault["operation"] in (operation, "*") and fault.get("service", service) == service


def _consume(fault):
    if fault["count"] is not None:
        fault["count"] -= 1
        if fault["count"] == 0:
            _armed.remove(fault)


def take(service: str, operation: str, mode, applies=None):
    """Consume one armed fault of `mode` (a name or a tuple of names) matching the call, or return None.
    Called once per call and mode; every matching fault counts the call towards its `nth`.  `applies(fault)`, if
    given, narrows what matches (a fault it refuses neither counts the call nor is consumed)."""
    modes = (mode,) if isinstance(mode, str) else tuple(mode)
    chosen = None
    with _lock:
        for fault in list(_armed):
            if not _matches(fault, service, operation, modes) or (applies is not None and not applies(fault)):
                continue
            fault["seen"] += 1
            if fault["seen"] >= fault["nth"] and chosen is None:
                chosen = fault
        if chosen is None:
            return None
        _consume(chosen)
        return dict(chosen)


def failure_response(service: str, operation: str):
    """An `error`/`server_error` fault's (code, message, status) for this call, or None."""
    fault = take(service, operation, ("error", "server_error"))
    if fault is None:
        return None
    code = fault["code"] or ("Throttling" if service in QUERY_SERVICES else "ThrottlingException")
    message = fault["message"] or ("Rate exceeded" if "Throttl" in code else f"Injected {code} (sandbox fault)")
    return code, message, fault["status"]


def kubernetes_call(operation: str, caller: str | None = None):
    """Front door of a Kubernetes API request named `operation` ("kubernetes.create.networkpolicies") made for
    `caller`: count it, apply latency, and return an armed error's (reason, message, status), or None."""
    count_call(KUBERNETES, operation[len(KUBERNETES) + 1:], caller)
    delay(KUBERNETES, operation)
    fault = take(KUBERNETES, operation, ("error", "server_error"))
    if fault is None:
        return None
    reason = fault["code"]
    message = fault["message"] or ("Too many requests, please try again later." if reason == "TooManyRequests"
                                   else f"Injected {reason} (sandbox fault)")
    return reason, message, fault["status"]


def delay(service: str, operation: str) -> float:
    """Sleep for an armed `latency` fault; returns the seconds slept."""
    fault = take(service, operation, "latency")
    if fault is None:
        return 0.0
    time.sleep(fault["ms"] / 1000.0)
    return fault["ms"] / 1000.0


# ---- held responses ----------------------------------------------------------------------------------------------
_held: dict[int, dict] = {}  # id -> {"id", "service", "operation", "status", "since", "ms", "release": Event}
_held_ids = itertools.count(1)


def hold(service: str, operation: str, status: int) -> float:
    """The call was handled with HTTP `status`; if it succeeded and a `hold` fault matches, block this request's
    thread (no lock held) until the fault's `ms` pass or the response is released.  Returns the seconds held."""
    if not 200 <= status < 300:
        return 0.0
    fault = take(service, operation, "hold")
    if fault is None:
        return 0.0
    entry = {"id": next(_held_ids), "service": service, "operation": operation, "status": status,
             "since": time.monotonic(), "ms": fault["ms"], "release": threading.Event()}
    with _lock:
        _held[entry["id"]] = entry
    try:
        entry["release"].wait(fault["ms"] / 1000.0)
    finally:
        with _lock:
            _held.pop(entry["id"], None)
    return time.monotonic() - entry["since"]


def held() -> list:
    """The responses being held now, oldest first."""
    now = time.monotonic()
    with _lock:
        return [{"id": e["id"], "service": e["service"], "operation": e["operation"], "status": e["status"],
                 "held_ms": round((now - e["since"]) * 1000)} for e in sorted(_held.values(), key=lambda e: e["id"])]


def release_held() -> int:
    """Let every held response go; returns how many were released."""
    with _lock:
        entries = list(_held.values())
    for entry in entries:
        entry["release"].set()
    return len(entries)


# ---- IAM eventual consistency --------------------------------------------------------------------------------
def _activate(fault, role_name=None):
    fault["active"] = True
    fault["role_name"] = fault["role_name"] or role_name
    if fault.get("seconds") is not None:
        fault["until"] = time.monotonic() + fault["seconds"]


def role_created(role_name: str) -> None:
    """CreateRole of `role_name` succeeded: start the invisibility window of a waiting fault."""
    with _lock:
        for fault in _armed:
            if (fault["mode"] == "eventual_consistency" and not fault["active"]
                    and fault["role_name"] in (None, role_name)):
                _activate(fault, role_name)
                return


def _hiding(name: str):
    """The active eventual-consistency fault that still hides role `name` (expired time windows are dropped)."""
    for fault in list(_armed):
        if fault["mode"] != "eventual_consistency" or not fault["active"] or fault["role_name"] != name:
            continue
        if fault.get("until") is not None and time.monotonic() >= fault["until"]:
            _armed.remove(fault)
            continue
        return fault
    return None


def role_hidden(service: str, operation: str, role_name: str) -> bool:
    """Whether a call of another service that checks role `role_name` against IAM (EKS CreateAccessEntry,
    CreatePodIdentityAssociation, KMS CreateGrant) still cannot see it; counts as one read of the role."""
    with _lock:
        fault = _hiding(role_name)
        if fault is None:
            return False
        _consume(fault)
        return True


def invisible_role(service: str, operation: str, role_name: str | None, role_arn: str | None):
    """(code, message, status) if this call reads a role that is still invisible (and counts the read), else None."""
    if service == "iam" and role_name and operation not in _NOT_ROLE_READS:
        name, answer = role_name, ("NoSuchEntity", f"The role with name {role_name} cannot be found.", 404)
    elif service == "sts" and operation.startswith("AssumeRole") and role_arn and ":role/" in role_arn:
        name = role_arn.rsplit("/", 1)[-1]
        answer = ("AccessDenied", f"User is not authorized to perform: sts:AssumeRole on resource: {role_arn}", 403)
    else:
        return None
    with _lock:
        fault = _hiding(name)
        if fault is not None:
            _consume(fault)
            return answer
    return None


# ---- admin -----------------------------------------------------------------------------------------------------------
def armed() -> list:
    with _lock:
        return [_public(f) for f in _armed]


def clear() -> None:
    with _lock:
        _armed.clear()
    release_held()


# ---- call counters ---------------------------------------------------------------------------------------------------
def count_call(service: str, operation: str, caller: str | None = None) -> None:
    with _lock:
        _calls[f"{service}.{operation}"] += 1
        _calls_by_caller[caller or ""][f"{service}.{operation}"] += 1


def calls() -> dict:
    with _lock:
        return dict(sorted(_calls.items()))


def calls_by_caller() -> dict:
    """{caller: {"service.Operation": n}}: "" holds the calls that named no caller."""
    with _lock:
        return {caller: dict(sorted(counts.items())) for caller, counts in sorted(_calls_by_caller.items())}


def reset_calls() -> None:
    with _lock:
        _calls.clear()
        _calls_by_caller.clear()
