"""How long AWS's asynchronous transitions take in the sandbox (Creating -> Created, Updating -> Updated,
Deleting -> gone; an UpdateCluster's counts). AWS takes seconds to minutes and documents no figure, so the sandbox
takes HYPERPOD_SANDBOX_ASYNC_SECONDS (default 1.0) for a run; `make test-timing` runs the suites that wait at several
seconds. A test changes it with `PUT /_sandbox/timing {"async_seconds": 30}` (`null`: back to the run's); a reset
restores the run's."""
import math
import os

_chosen: dict[str, float] = {}


def async_seconds() -> float:
    return _chosen.get("async_seconds", float(os.environ.get("HYPERPOD_SANDBOX_ASYNC_SECONDS", "1.0")))


def settings(body: dict | None = None) -> dict:
    """GET/PUT /_sandbox/timing."""
    if body is not None:
        unknown = set(body) - {"async_seconds"}
        if unknown:
            raise ValueError(f"unknown timing settings {sorted(unknown)}; known: ['async_seconds']")
        value = body.get("async_seconds")
        if value is None:
            _chosen.pop("async_seconds", None)
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 <= value <= 3600:
            raise ValueError("'async_seconds' must be a number of seconds from 0 to 3600, or null")
        else:
            _chosen["async_seconds"] = float(value)
    return {"async_seconds": async_seconds()}


def reset() -> None:
    _chosen.clear()
