"""The Kubernetes API as a WSGI app: /clusters/<eks cluster name>/... is that cluster's API.  Every request but the
health checks passes faults.py first (counters, latency, injected errors); then the bearer token, the caller's access
to the cluster, and discovery or the verbs on objects (resources.py)."""
import re

from werkzeug.wrappers import Request, Response

from .. import faults
from ..eks_state import LOCK, find_cluster
from ..names import CALLER_HEADER
from . import resources
from .authorization import authenticate
from .endpoint import HOST, port
from .errors import ApiError
from .http import json_response
from .kinds import GROUPS, KINDS
from .tokens import Unauthorized, verify_token


class KubernetesApp:
    """WSGI app: /clusters/<eks cluster name>/... -> that cluster's API."""

    def __call__(self, environ, start_response):
        request = Request(environ)
        try:
            response = self.handle(request)
        except ApiError as e:
            response = json_response(e.status(), e.code)
        except Unauthorized:
            response = json_response(ApiError(401, "Unauthorized", "Unauthorized").status(), 401)
        self.hold(request, response.status_code)
        return response(environ, start_response)

    def hold(self, request, status):
        """A `hold` fault (faults.py): the request was handled; its response waits, outside every lock."""
        m = re.fullmatch(r"/clusters/[^/]+(/.*)?", request.path)
        operation = self.operation(request.method, ((m.group(1) if m else None) or "/").rstrip("/") or "/") \
            if m else None
        if operation is not None:
            faults.hold(faults.KUBERNETES, operation, status)

    def handle(self, request):
        m = re.fullmatch(r"/clusters/([^/]+)(/.*)?", request.path)
        if not m:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        cluster_name, path = m.group(1), (m.group(2) or "/").rstrip("/") or "/"
        operation = self.operation(request.method, path)
        if operation is not None:  # faults.py: counters, latency and injected errors, before anything else
            failure = faults.kubernetes_call(operation, request.headers.get(CALLER_HEADER))
            if failure is not None:
                reason, message, code = failure
                return json_response(ApiError(code, reason, message).status(), code)
        with LOCK:
            cluster = find_cluster(name=cluster_name)
            if cluster is None:
                raise ApiError(404, "NotFound", f"no EKS cluster {cluster_name} in the sandbox")
            if path in ("/version", "/healthz", "/livez", "/readyz"):
                if path != "/version":
                    return Response("ok", content_type="text/plain")
                major, minor = (cluster.version.split(".") + ["0"])[:2]
                return json_response({"major": major, "minor": minor, "gitVersion": f"v{major}.{minor}.0-eks-sandbox",
                                      "gitCommit": "0" * 40, "gitTreeState": "clean",
                                      "buildDate": "2025-01-01T00:00:00Z",
                                      "goVersion": "go1.23.0", "compiler": "gc", "platform": "linux/amd64"})
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            raise Unauthorized("no bearer token")
        identity = verify_token(auth[len("Bearer "):].strip(), cluster_name)
        with LOCK:
            cluster = find_cluster(name=cluster_name)
            if cluster is None:
                raise ApiError(404, "NotFound", f"no EKS cluster {cluster_name} in the sandbox")
            caller = authenticate(cluster, identity)
            discovery = self.discovery(path)
            if discovery is not None:
                if request.method != "GET":
                    raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                            "resource")
                return json_response(discovery)
            return resources.handle(request, cluster, caller, path)

    def operation(self, method, path):
        """The request's name for faults and call counters: `kubernetes.<verb>.<resource>`,
        `kubernetes.get.discovery`, `kubernetes.get.version`; None for health checks and unknown paths."""
        if path == "/version":
            return "kubernetes.get.version"
        if path in ("/api", "/apis") or re.fullmatch(r"/api/v1|/apis/[^/]+(/[^/]+)?", path):
            return "kubernetes.get.discovery"
        try:
            kind, _, name = resources.route(path)
        except ApiError:
            return None
        verb = resources.verb_of(method, name)
        return f"kubernetes.{verb}.{kind.resource}" if verb else None

    # ---- discovery
    def discovery(self, path):
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"{HOST}:{port()}"}]}
        if path == "/api/v1":
            return self._resource_list("v1", "")
        if path == "/apis":
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [self._group(g) for g in GROUPS]}
        m = re.fullmatch(r"/apis/([^/]+)(?:/([^/]+))?", path)
        if m and m.group(1) in GROUPS:
            if m.group(2) is None:
                return {"kind": "APIGroup", "apiVersion": "v1", **self._group(m.group(1))}
            if m.group(2) == GROUPS[m.group(1)]:
                return self._resource_list(f"{m.group(1)}/{m.group(2)}", m.group(1))
        return None

    @staticmethod
    def _group(group):
        gv = {"groupVersion": f"{group}/{GROUPS[group]}", "version": GROUPS[group]}
        return {"name": group, "versions": [gv], "preferredVersion": gv}

    @staticmethod
    def _resource_list(group_version, group):
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
                "resources": [k.discovery() for k in KINDS if k.group == group]}

