"""The sandbox's admin API, served under /_sandbox/ on the same port as the AWS APIs.

GET    /_sandbox/health   liveness + what was seeded
GET    /_sandbox/fixture  the fixture of what was seeded (harness/fixture.py; `--fixture` or the seed's own)
POST   /_sandbox/reset    moto reset, re-seed, clear faults and call counters
GET    /_sandbox/faults   armed faults
POST   /_sandbox/faults   arm a fault (see faults.py)
DELETE /_sandbox/faults   disarm all faults (and release held responses)
GET    /_sandbox/held     responses a `hold` fault is holding back now: {"held": [{"id", "service", "operation", ...}]}
DELETE /_sandbox/held     release them: {"released": N}
GET    /_sandbox/calls    AWS calls per operation since start/reset: {"sagemaker.DescribeCluster": 3, ...}
GET    /_sandbox/calls/by-caller   the same per caller (x-hyperpod-caller header): {"hyperpod_tenant": {...}, "": {...}}
DELETE /_sandbox/calls    zero the call counters (both views)
GET    /_sandbox/kubernetes/<eks cluster>   dump that cluster's Kubernetes objects
GET    /_sandbox/settings  {"target_version": "current", "quota_capacity": "refuse", ...}: the reading in effect of
                           each guess about what AWS leaves undocumented (readings.py lists them)
PUT    /_sandbox/settings  change some ({"target_version": null}: back to HYPERPOD_SANDBOX_TARGET_VERSION); reset
                           restores the run's
GET    /_sandbox/timing    {"async_seconds": 1.0}: how long Creating/Updating/Deleting last (timing.py)
PUT    /_sandbox/timing    change it ({"async_seconds": null}: back to HYPERPOD_SANDBOX_ASYNC_SECONDS); reset restores
                           the run's
GET    /_sandbox/inventory  deterministic snapshot of what tests create or leave behind (inventory.py)
POST   /_sandbox/fixtures/teams  add K teams' projects, roles and cluster capacity to the account (fixtures.py)
"""
import json
import logging
import re
import traceback

from . import faults, fixtures, inventory, kubernetes, readings, seed, timing
from .moto_adapter import MOTO_VERSION, is_moto_service, reset_all_backends
from .validation import aws_error

PREFIX = "/_sandbox/"
log = logging.getLogger("sandbox")
_SCOPE = re.compile(r"Credential=[^/]+/[^/]+/[^/]+/([^/]+)/aws4_request")


class AdminMiddleware:
    """WSGI wrapper: /_sandbox/* is handled here, everything else goes to moto."""

    def __init__(self, moto_app, seed_path, fixture=None):
        self.moto_app = moto_app
        self.seed_path = seed_path
        self.fixture = fixture if fixture is not None else seed.derive_fixture(seed_path)
        self.seeded = seed.apply(seed_path)

    def reset(self) -> dict:
        reset_all_backends()  # what POST /moto-api/reset does: every backend starts empty
        faults.clear()
        faults.reset_calls()
        readings.reset()
        timing.reset()
        self.seeded = seed.apply(self.seed_path)
        return self.seeded

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return self._aws(environ, start_response)
        method, route = environ["REQUEST_METHOD"], path[len(PREFIX):].rstrip("/")
        try:
            status, body = self._route(method, route, environ)
        except ValueError as e:
            status, body = 400, {"error": str(e)}
        payload = json.dumps(body, default=str).encode()
        start_response(f"{status} {'OK' if status < 400 else 'Error'}",
                       [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
        return [payload]

    def _route(self, method, route, environ):
        if (method, route) == ("GET", "health"):
            return 200, {"status": "ok", "moto": MOTO_VERSION, "seed": self.seeded}
        if (method, route) == ("GET", "fixture"):
            return 200, self.fixture
        if (method, route) == ("POST", "reset"):
            return 200, {"status": "reset", "seed": self.reset()}
        if route == "faults":
            if method == "GET":
                return 200, {"faults": faults.armed()}
            if method == "POST":
                fault = faults.add(_json_body(environ))
                return 200, {"armed": fault, "faults": faults.armed()}
            if method == "DELETE":
                faults.clear()
                return 200, {"faults": []}
        if route == "held":
            if method == "GET":
                return 200, {"held": faults.held()}
            if method == "DELETE":
                return 200, {"released": faults.release_held()}
        if route == "calls":
            if method == "GET":
                return 200, faults.calls()
            if method == "DELETE":
                faults.reset_calls()
                return 200, {}
        if (method, route) == ("GET", "calls/by-caller"):
            return 200, faults.calls_by_caller()
        if route == "settings" and method in ("GET", "PUT"):  # sandbox readings of what AWS leaves open
            return 200, readings.settings(_json_body(environ) if method == "PUT" else None)
        if route == "timing" and method in ("GET", "PUT"):  # how long AWS's asynchronous transitions take
            return 200, timing.settings(_json_body(environ) if method == "PUT" else None)
        if (method, route) == ("GET", "inventory"):
            return 200, inventory.snapshot()
        if (method, route) == ("POST", "fixtures/teams"):
            return 200, fixtures.teams(_json_body(environ), self.seed_path, self.fixture)
        if method == "GET" and route.startswith("kubernetes/"):  # a cluster's Kubernetes objects (kubernetes.py)
            dumped = kubernetes.dump(route[len("kubernetes/"):])
            return (200, dumped) if dumped is not None else (404, {"error": f"no EKS cluster {route[11:]}"})
        return 404, {"error": f"no admin route {method} {PREFIX}{route}"}

    def _aws(self, environ, start_response):
        """moto, but never an HTML error page: moto answers a request it has no route for with Flask's HTML 404,
        and a service it does not know with an HTML 500; SDKs cannot parse those (and retry 500s)."""
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, headers
            return lambda data: None

        try:
            chunks = self.moto_app(environ, capture)
            try:
                body = b"".join(chunks)
            finally:
                getattr(chunks, "close", lambda: None)()
        except Exception as e:  # noqa: BLE001 - e.g. moto's dispatcher finds no backend for the service
            known = is_moto_service(_service(environ))
            if known:
                log.error("sandbox: %s %s crashed:\n%s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"),
                          traceback.format_exc())
            return self._error(environ, start_response, 500 if known else 501, repr(e))
        status = int(captured["status"].split()[0])
        content_type = next((v for k, v in captured["headers"] if k.lower() == "content-type"), "")
        if status in (404, 405, 500) and content_type.startswith("text/html") \
                and body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html")):
            return self._error(environ, start_response, 501 if status != 500 else 500, None)
        start_response(captured["status"], captured["headers"])
        return [body]

    def _error(self, environ, start_response, status, detail):
        service = _service(environ)
        what = f"{environ.get('REQUEST_METHOD')} {environ.get('PATH_INFO')}"
        if status == 501:
            code, message = "NotImplemented", f"sandbox: {service} {what} is not implemented"
        else:
            code, message = "InternalFailure", f"sandbox: {service} {what} crashed: {detail}"
        status, headers, body = aws_error(service, code, message, status)
        payload = body.encode()
        start_response(f"{status} Error", [*headers.items(), ("Content-Length", str(len(payload)))])
        return [payload]


# Signing names that are not the boto3 service name (moto's module, the model aws_error shapes errors by).
_SIGNING_NAMES = {"monitoring": "cloudwatch"}


def _service(environ) -> str:
    """The service a request is for, from its SigV4 credential scope (what moto routes on too)."""
    match = _SCOPE.search(environ.get("HTTP_AUTHORIZATION", ""))
    scope = match.group(1) if match else "unknown"
    return _SIGNING_NAMES.get(scope, scope)


def _json_body(environ) -> dict:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    try:
        body = json.loads(environ["wsgi.input"].read(length) or b"{}")
    except json.JSONDecodeError as e:
        raise ValueError(f"body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise ValueError("body must be a JSON object")
    return body
