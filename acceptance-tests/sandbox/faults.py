"""Faults injected through the admin API (`POST /_sandbox/faults`).

Two modes, each armed for the next `count` matching calls:
* ``error``: the call fails outright with `code`/`status` (e.g. ThrottlingException, 400)
  before validation or any state change, as AWS front ends throttle.
* ``async_failure``: the write succeeds, but the resource's asynchronous
  transition ends in ``*Failed`` with `failure_reason` (consumed by sagemaker.py).
"""
import threading

from moto.core.exceptions import ServiceException

MODES = ("error", "async_failure")


class InjectedFault(ServiceException):
    """Defined outside moto's package on purpose: moto's serializer looks up the service
    model from an exception's `moto.<service>` module, and would fail on `moto.core`."""
_lock = threading.Lock()
_armed: list[dict] = []


def add(spec: dict) -> dict:
    """Arm a fault; returns the normalised spec.  Raises ValueError on bad input."""
    op = spec.get("operation")
    mode = spec.get("mode", "error")
    count = spec.get("count", 1)
    if not isinstance(op, str) or not op:
        raise ValueError("'operation' (e.g. CreateClusterSchedulerConfig) is required")
    if mode not in MODES:
        raise ValueError(f"'mode' must be one of {list(MODES)}")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ValueError("'count' must be a positive integer")
    fault = {"operation": op, "mode": mode, "count": count}
    if spec.get("service"):  # disambiguates e.g. CreateCluster (eks vs sagemaker)
        fault["service"] = spec["service"]
    if mode == "error":
        fault["code"] = spec.get("code", "ThrottlingException")
        fault["status"] = int(spec.get("status", 400))
        fault["message"] = spec.get("message", f"Injected {fault['code']} (sandbox fault)")
    else:
        fault["failure_reason"] = spec.get("failure_reason", "Injected failure (sandbox fault)")
    with _lock:
        _armed.append(fault)
    return dict(fault)


def take(service: str, operation: str, mode: str):
    """Consume one armed fault matching the call, or return None."""
    with _lock:
        for fault in _armed:
            if (fault["operation"] == operation and fault["mode"] == mode
                    and fault.get("service", service) == service):
                fault["count"] -= 1
                if fault["count"] == 0:
                    _armed.remove(fault)
                return dict(fault)
    return None


def armed() -> list:
    with _lock:
        return [dict(f) for f in _armed]


def clear() -> None:
    with _lock:
        _armed.clear()
