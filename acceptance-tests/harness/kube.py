"""A minimal Kubernetes client for one EKS cluster, configured only from DescribeCluster (endpoint and CA) and an EKS
bearer token, as the provider is: for tests that read or change Kubernetes objects out of band.  Works on the sandbox
(its dummy keys) and, with HYPERPOD_REAL_AWS=1, on a real cluster (the caller's credentials)."""
import base64
from pathlib import Path

import boto3
import requests

from sandbox.kubernetes import token_for

from .sandbox import DUMMY_KEYS, REGION


def _session(sandbox):
    if getattr(sandbox, "real", False):
        return boto3.session.Session(region_name=sandbox.region)
    return boto3.session.Session(region_name=REGION, **DUMMY_KEYS)


class Kube:
    def __init__(self, sandbox, ca_dir: Path, cluster: str = "ml-capacity-eks", session=None, token=None):
        desc = sandbox.client("eks").describe_cluster(name=cluster)["cluster"]
        self.endpoint = desc["endpoint"]
        self.ca = Path(ca_dir) / f"ca-{cluster}.pem"
        self.ca.write_bytes(base64.b64decode(desc["certificateAuthority"]["data"]))
        self.token = token or token_for(cluster, session or _session(sandbox), endpoint_url=sandbox.url)

    def call(self, method, path, body=None, ctype="application/json", params=None, token=None, headers=None):
        """(HTTP status, JSON body or text) of one request; `path` starts at /api or /apis."""
        hdrs = {"Authorization": f"Bearer {token or self.token}", "Content-Type": ctype, **(headers or {})}
        r = requests.request(method, self.endpoint + path, json=body, params=params, headers=hdrs, verify=str(self.ca),
                             timeout=10)
        return r.status_code, (r.json() if r.headers.get("Content-Type") == "application/json" else r.text)

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.call("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.call("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)

    def apply(self, path, body, manager="hyperpod-provider", force=False, **kw):
        """Server-side apply (PATCH application/apply-patch+yaml) as `manager`."""
        params = {"fieldManager": manager, **({"force": "true"} if force else {})}
        return self.call("PATCH", path, body, ctype="application/apply-patch+yaml", params=params, **kw)
