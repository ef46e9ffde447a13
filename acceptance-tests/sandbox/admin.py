"""The sandbox's admin API, served under /_sandbox/ on the same port as the AWS APIs.

GET    /_sandbox/health   liveness + what was seeded
POST   /_sandbox/reset    moto reset, re-seed, clear faults
GET    /_sandbox/faults   armed faults
POST   /_sandbox/faults   arm a fault (see faults.py)
DELETE /_sandbox/faults   disarm all faults
"""
import json

import moto
from moto.moto_api._internal.models import moto_api_backend

from . import faults, seed

PREFIX = "/_sandbox/"


class AdminMiddleware:
    """WSGI wrapper: /_sandbox/* is handled here, everything else goes to moto."""

    def __init__(self, moto_app, seed_path):
        self.moto_app = moto_app
        self.seed_path = seed_path
        self.seeded = seed.apply(seed_path)

    def reset(self) -> dict:
        moto_api_backend.reset()  # what POST /moto-api/reset does: every backend starts empty
        faults.clear()
        self.seeded = seed.apply(self.seed_path)
        return self.seeded

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return self.moto_app(environ, start_response)
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
            return 200, {"status": "ok", "moto": moto.__version__, "seed": self.seeded}
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
        return 404, {"error": f"no admin route {method} {PREFIX}{route}"}


def _json_body(environ) -> dict:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    try:
        body = json.loads(environ["wsgi.input"].read(length) or b"{}")
    except json.JSONDecodeError as e:
        raise ValueError(f"body is not JSON: {e}")
    if not isinstance(body, dict):
        raise ValueError("body must be a JSON object")
    return body
