"""A Kubernetes API for each EKS cluster of the sandbox: HTTPS on its own port, in the sandbox's process.

Contract (what a client such as the provider sees):
* `DescribeCluster.cluster.endpoint` = `https://127.0.0.1:<port>/clusters/<eks cluster name>` (a path-prefixed
  server URL); `certificateAuthority.data` = base64 of the PEM of the CA that signed the listener's certificate
  (generated at start; SANs 127.0.0.1 and localhost).
* Every request but /version, /healthz, /livez, /readyz needs `Authorization: Bearer k8s-aws-v1.<token>`, where the
  token is the unpadded base64url of a presigned STS GetCallerIdentity URL (what `aws eks get-token` makes): GET,
  path `/`, `Action=GetCallerIdentity&Version=2011-06-15`, SigV4 query auth for service `sts` with signed headers
  `host;x-k8s-aws-id` and `x-k8s-aws-id: <eks cluster name>`, `X-Amz-Expires` <= 900.  The URL's host must be the
  sandbox's own AWS endpoint (http://127.0.0.1:<aws port> or localhost) or an `sts[.<region>].amazonaws.com` host.
  The signature is checked (it binds the token to the cluster name) with the secret moto issued for the access
  key; keys moto never issued (e.g. `testing`) must be signed with secret `testing` (env
  HYPERPOD_SANDBOX_DEFAULT_SECRET).  Expired (X-Amz-Date + X-Amz-Expires), malformed, other-cluster or badly
  signed tokens -> 401.
* The caller (moto's STS: access key -> user, or assumed role -> its role) must be mapped to the cluster, as EKS's
  authenticator does: an access entry (authenticationMode API / API_AND_CONFIG_MAP), or, in CONFIG_MAP /
  API_AND_CONFIG_MAP mode, being the cluster creator with bootstrapClusterCreatorAdminPermissions (the implicit
  aws-auth admin).  Unmapped principals get 401 Unauthorized, as on EKS.
* Authorization (403 Forbidden otherwise), a documented simplification of EKS access policies; Kubernetes RBAC
  objects and `kubernetesGroups` are stored but not evaluated:
  - AmazonEKSClusterAdminPolicy at cluster scope: everything.  At namespace scope: everything in those namespaces.
  - AmazonEKSAdminPolicy / AmazonEKSEditPolicy: read and write namespaced objects in the scope's namespaces (cluster
    scope = all namespaces; Edit may not write Roles/RoleBindings), get those namespaces (cluster scope: read all
    namespaces).
  - AmazonEKSViewPolicy / AmazonEKSAdminViewPolicy: the same, reads only (AdminView at cluster scope reads all).
  - Other policies (e.g. AmazonSagemakerHyperpod*): nothing on the kinds served here.
  Namespace patterns in scopes may end in `*`, as EKS allows.
* Kinds (JSON only): core/v1 namespaces, serviceaccounts; rbac.authorization.k8s.io/v1 roles, rolebindings,
  clusterroles, clusterrolebindings; networking.k8s.io/v1 networkpolicies.  GET / LIST (labelSelector,
  fieldSelector metadata.name|metadata.namespace, limit/continue), POST (201, 409 AlreadyExists), PUT (409 Conflict
  on a stale metadata.resourceVersion, none = unconditional), PATCH (application/apply-patch+yaml server-side apply
  with fieldManager and force, application/merge-patch+json, application/strategic-merge-patch+json treated as
  a merge patch), DELETE (namespaces: 200 + the object, phase Terminating, gone at once with their contents;
  others: 200 + Status Success).  `dryRun=All` is honoured.  No watch, no protobuf.
* Faults and call counters (faults.py) see every request but health checks, before authentication, under the names
  `kubernetes.<verb>.<resource>` (`kubernetes.create.networkpolicies`), `kubernetes.get.discovery`,
  `kubernetes.get.version`; an injected error answers a `Status` with the fault's reason and code.

For other sandbox modules: `ensure_namespace(eks_cluster_arn, name, labels)` and `delete_namespace(eks_cluster_arn,
name)`.  Tests and the harness: `token_for(cluster_name, boto3_session)`.  Objects live on moto's EKS Cluster object
(`eks.state(cluster)["kubernetes"]`), so deleting the EKS cluster or resetting moto wipes them; every cluster starts
with namespaces default, kube-system and kube-public.
"""
import base64
import copy
import datetime as dt
import fnmatch
import hashlib
import hmac
import json
import os
import re
import tempfile
import threading
import uuid
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

from werkzeug.wrappers import Request, Response

from .moto_adapter import issued_credentials, sts_caller_arn

TOKEN_PREFIX = "k8s-aws-v1."
K8S_AWS_ID_HEADER = "x-k8s-aws-id"
MAX_TOKEN_EXPIRES = 900
DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public")
PROTECTED_NAMESPACES = DEFAULT_NAMESPACES
HOST = "127.0.0.1"

LOCK = _lock = threading.RLock()  # shared with eks.py
_rv = [0]
_tls = {}
_server = {}


# ==== TLS material and the listener ===============================================================================
def _generate_tls() -> dict:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    import ipaddress

    now = dt.datetime.now(dt.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hyperpod-sandbox-kubernetes-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
          .not_valid_after(now + dt.timedelta(days=365))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return {"ca_pem": ca.public_bytes(pem),
            "cert_pem": cert.public_bytes(pem),
            "key_pem": key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())}


def tls() -> dict:
    with _lock:
        if not _tls:
            _tls.update(_generate_tls())
        return _tls


def ca_pem() -> bytes:
    return tls()["ca_pem"]


def ca_data() -> str:
    """`certificateAuthority.data` of DescribeCluster: base64 of the CA's PEM."""
    return base64.b64encode(ca_pem()).decode()


def start(host: str = HOST, port: int | None = None) -> int:
    """Start the HTTPS listener in a daemon thread; returns its port (0/None = any free port)."""
    import ssl

    from werkzeug.serving import make_server

    if port is None:
        port = int(os.environ.get("HYPERPOD_SANDBOX_K8S_PORT", "0"))
    material = tls()
    tmp = Path(tempfile.mkdtemp(prefix="hyperpod-sandbox-k8s-"))
    (tmp / "server.pem").write_bytes(material["cert_pem"] + material["ca_pem"])
    (tmp / "server.key").write_bytes(material["key_pem"])
    os.chmod(tmp / "server.key", 0o600)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp / "server.pem", tmp / "server.key")
    server = make_server(host, port, KubernetesApp(), threaded=True, ssl_context=ctx)
    thread = threading.Thread(target=server.serve_forever, name="sandbox-kubernetes", daemon=True)
    thread.start()
    _server.update(server=server, thread=thread, port=server.server_port, host=host)
    return server.server_port


def stop() -> None:
    server = _server.pop("server", None)
    if server is not None:
        server.shutdown()
        server.server_close()
    _server.clear()


def port() -> int | None:
    return _server.get("port")


def endpoint_for(cluster_name: str) -> str | None:
    """The cluster's Kubernetes API URL (None while the listener is not running)."""
    return f"https://{HOST}:{_server['port']}/clusters/{cluster_name}" if _server.get("port") else None


def install():
    """Nothing to patch: eks.py calls in here; kept so the module shape matches the others."""


# ==== identities ==================================================================================================
_ARN = re.compile(r"arn:(aws[a-z-]*):(iam|sts)::(\d{12}):(user|role|assumed-role)/(.+)")


def caller_identity(access_key_id: str, region: str) -> str:
    """The ARN moto's STS GetCallerIdentity answers for this access key."""
    return sts_caller_arn(access_key_id, region)


def principal_of(identity_arn: str) -> str:
    """The IAM principal behind a caller identity: assumed-role/R/S -> role/R (path unknown), sts user -> iam user."""
    m = _ARN.fullmatch(identity_arn or "")
    if not m:
        return identity_arn
    partition, _, account, kind, rest = m.groups()
    if kind == "assumed-role":
        return f"arn:{partition}:iam::{account}:role/{rest.split('/')[0]}"
    return f"arn:{partition}:iam::{account}:{kind}/{rest}"


def principal_for_access_key(access_key_id: str, region: str) -> str:
    return principal_of(caller_identity(access_key_id, region))


def _principal_key(arn: str):
    """(account, kind, name) of an IAM role/user ARN, ignoring its path, for matching access entries."""
    m = _ARN.fullmatch(arn or "")
    if not m or m.group(4) == "assumed-role":
        return None
    return m.group(3), m.group(4), m.group(5).rsplit("/", 1)[-1]


# ==== tokens ======================================================================================================
class Unauthorized(Exception):
    pass


def _sig_key(secret, date, region, service):
    k = hmac.new(("AWS4" + secret).encode(), date.encode(), hashlib.sha256).digest()
    for part in (region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return k


def _allowed_sts_host(netloc: str, scheme: str) -> bool:
    host, _, port_ = netloc.rpartition(":") if netloc.count(":") == 1 else (netloc, "", "")
    if re.fullmatch(r"sts(\.[a-z0-9-]+)?\.amazonaws\.com(\.cn)?", host or netloc) and scheme == "https":
        return True
    aws_port = os.environ.get("MOTO_PORT")
    return host in ("127.0.0.1", "localhost") and (aws_port is None or port_ == aws_port)


def verify_token(token: str, cluster_name: str, now: dt.datetime | None = None) -> str:
    """Check an EKS bearer token for `cluster_name`; returns the caller identity ARN (raises Unauthorized)."""
    if not token or not token.startswith(TOKEN_PREFIX):
        raise Unauthorized("token is not an EKS token (k8s-aws-v1.)")
    body = token[len(TOKEN_PREFIX):]
    try:
        url = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise Unauthorized("token is not base64url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not _allowed_sts_host(parts.netloc, parts.scheme):
        raise Unauthorized(f"unexpected STS host {parts.netloc!r}")
    if parts.path not in ("/", ""):
        raise Unauthorized("unexpected path in presigned URL")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    q = dict(pairs)
    if len(q) != len(pairs):
        raise Unauthorized("repeated query parameters")
    if q.get("Action") != "GetCallerIdentity" or q.get("Version") != "2011-06-15":
        raise Unauthorized("not an STS GetCallerIdentity request")
    if q.get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256":
        raise Unauthorized("unsupported signing algorithm")
    try:
        akid, date, region, service, terminator = q["X-Amz-Credential"].split("/")
        signed_at = dt.datetime.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.timezone.utc)
        expires = int(q["X-Amz-Expires"])
        signed_headers = q["X-Amz-SignedHeaders"].split(";")
        signature = q["X-Amz-Signature"]
    except (KeyError, ValueError):
        raise Unauthorized("malformed presigned URL")
    if service != "sts" or terminator != "aws4_request" or date != q["X-Amz-Date"][:8]:
        raise Unauthorized("malformed credential scope")
    if not 0 < expires <= MAX_TOKEN_EXPIRES:
        raise Unauthorized("X-Amz-Expires out of range")
    now = now or dt.datetime.now(dt.timezone.utc)
    if now > signed_at + dt.timedelta(seconds=expires) or signed_at > now + dt.timedelta(minutes=5):
        raise Unauthorized("token expired")
    if K8S_AWS_ID_HEADER not in signed_headers:
        raise Unauthorized("x-k8s-aws-id is not signed")
    header_values = {"host": parts.netloc, K8S_AWS_ID_HEADER: cluster_name}
    if any(h not in header_values for h in signed_headers):
        raise Unauthorized("unexpected signed headers")
    issued = issued_credentials(akid)
    secret, session_token = issued if issued else (os.environ.get("HYPERPOD_SANDBOX_DEFAULT_SECRET", "testing"), None)
    if session_token is not None and q.get("X-Amz-Security-Token") != session_token:
        raise Unauthorized("missing or wrong session token")
    canonical_query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
                               for k, v in sorted(pairs) if k != "X-Amz-Signature")
    canonical_headers = "".join(f"{h}:{header_values[h].strip()}\n" for h in signed_headers)
    key = _sig_key(secret, date, region, service)
    for payload_hash in (hashlib.sha256(b"").hexdigest(), "UNSIGNED-PAYLOAD"):
        canonical = "\n".join(["GET", "/", canonical_query, canonical_headers, ";".join(signed_headers), payload_hash])
        to_sign = "\n".join(["AWS4-HMAC-SHA256", q["X-Amz-Date"], f"{date}/{region}/sts/aws4_request",
                             hashlib.sha256(canonical.encode()).hexdigest()])
        if hmac.compare_digest(hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest(), signature):
            return caller_identity(akid, region)
    raise Unauthorized("signature does not match (wrong secret, or a token for another cluster)")


def token_for(cluster_name: str, session=None, region: str | None = None, endpoint_url: str | None = None,
              expires: int = 60) -> str:
    """An EKS bearer token, built the way `aws eks get-token` does (boto3 session; default: a new one)."""
    import boto3

    session = session or boto3.session.Session()
    kwargs = {"region_name": region or session.region_name or "us-west-2"}
    endpoint_url = endpoint_url or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint_url:
        kwargs["endpoint_url"] = endpoint_url
    sts = session.client("sts", **kwargs)

    def retrieve(params, context, **_):
        if K8S_AWS_ID_HEADER in params:
            context[K8S_AWS_ID_HEADER] = params.pop(K8S_AWS_ID_HEADER)

    def inject(request, **_):
        if K8S_AWS_ID_HEADER in request.context:
            request.headers[K8S_AWS_ID_HEADER] = request.context[K8S_AWS_ID_HEADER]

    sts.meta.events.register("provide-client-params.sts.GetCallerIdentity", retrieve)
    sts.meta.events.register("before-sign.sts.GetCallerIdentity", inject)
    url = sts.generate_presigned_url("get_caller_identity", Params={K8S_AWS_ID_HEADER: cluster_name},
                                     ExpiresIn=expires, HttpMethod="GET")
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


# ==== kinds =======================================================================================================
class Kind:
    def __init__(self, group, resource, kind, namespaced, singular, short=(), name_rule="subdomain"):
        self.group, self.version, self.resource, self.kind = group, "v1", resource, kind
        self.namespaced, self.singular, self.short, self.name_rule = namespaced, singular, list(short), name_rule

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    def discovery(self):
        return {"name": self.resource, "singularName": self.singular, "namespaced": self.namespaced,
                "kind": self.kind, "verbs": ["create", "delete", "get", "list", "patch", "update"],
                **({"shortNames": self.short} if self.short else {})}


RBAC = "rbac.authorization.k8s.io"
NETWORKING = "networking.k8s.io"
KINDS = [Kind("", "namespaces", "Namespace", False, "namespace", ["ns"], "label"),
         Kind("", "serviceaccounts", "ServiceAccount", True, "serviceaccount", ["sa"]),
         Kind(RBAC, "roles", "Role", True, "role", (), "path"),
         Kind(RBAC, "rolebindings", "RoleBinding", True, "rolebinding", (), "path"),
         Kind(RBAC, "clusterroles", "ClusterRole", False, "clusterrole", (), "path"),
         Kind(RBAC, "clusterrolebindings", "ClusterRoleBinding", False, "clusterrolebinding", (), "path"),
         Kind(NETWORKING, "networkpolicies", "NetworkPolicy", True, "networkpolicy", ["netpol"])]
BY_RESOURCE = {(k.group, k.resource): k for k in KINDS}
NAMESPACES = BY_RESOURCE[("", "namespaces")]
GROUPS = {RBAC: "v1", NETWORKING: "v1"}


# ==== errors ======================================================================================================
class ApiError(Exception):
    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code, self.reason, self.message, self.details = code, reason, message, details

    def status(self):
        out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": self.message,
               "reason": self.reason, "code": self.code}
        if self.details:
            out["details"] = self.details
        return out


def _details(kind, name=None):
    d = {"kind": kind.resource}
    if name:
        d["name"] = name
    if kind.group:
        d["group"] = kind.group
    return d


def _qualified(kind):
    return f"{kind.resource}.{kind.group}" if kind.group else kind.resource


def not_found(kind, name):
    return ApiError(404, "NotFound", f'{_qualified(kind)} "{name}" not found', _details(kind, name))


def invalid(kind, name, causes):
    msg = "; ".join(f"{f}: {m}" for f, m in causes)
    if len(causes) > 1:
        msg = f"[{msg}]"
    return ApiError(422, "Invalid", f'{kind.kind}{"." + kind.group if kind.group else ""} "{name}" is invalid: {msg}',
                    {**_details(kind, name), "kind": kind.kind,
                     "causes": [{"reason": "FieldValueInvalid", "message": m, "field": f} for f, m in causes]})


def bad_request(message):
    return ApiError(400, "BadRequest", message)


# ==== store =======================================================================================================
def _now():
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _next_rv() -> str:
    _rv[0] += 1
    return str(_rv[0])


def _store(cluster) -> dict:
    """{(group, resource, namespace or "", name): object} of an EKS cluster (moto Cluster), created on first use."""
    from . import eks

    st = eks.state(cluster)
    if st["kubernetes"] is None:
        st["kubernetes"] = {}
        for ns in DEFAULT_NAMESPACES:
            _put_namespace(st["kubernetes"], ns, {})
    return st["kubernetes"]


def _put_namespace(store, name, labels):
    obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels or {})}}
    _finish_create(NAMESPACES, obj)
    store[("", "namespaces", "", name)] = obj


def _cluster_by_arn(arn):
    from . import eks

    return eks.find_cluster(arn=arn)


def ensure_namespace(eks_cluster_arn: str, name: str, labels: dict) -> None:
    """Create namespace `name` with `labels` unless it exists; if it does, merge `labels` into its labels.
    A no-op if no EKS cluster has that ARN."""
    with _lock:
        cluster = _cluster_by_arn(eks_cluster_arn)
        if cluster is None:
            return
        store = _store(cluster)
        ns = store.get(("", "namespaces", "", name))
        if ns is None:
            _put_namespace(store, name, labels)
        elif any(ns["metadata"].get("labels", {}).get(k) != v for k, v in (labels or {}).items()):
            ns["metadata"].setdefault("labels", {}).update(labels)
            ns["metadata"]["resourceVersion"] = _next_rv()


def delete_namespace(eks_cluster_arn: str, name: str) -> None:
    """Delete namespace `name` and everything in it; a no-op if absent (or no EKS cluster has that ARN)."""
    with _lock:
        cluster = _cluster_by_arn(eks_cluster_arn)
        if cluster is not None:
            _drop_namespace(_store(cluster), name)


def _drop_namespace(store, name):
    if store.pop(("", "namespaces", "", name), None) is not None:
        for key in [k for k in store if k[2] == name]:
            del store[key]


def dump(cluster_name: str) -> dict | None:
    """All objects of a cluster (for the admin API / drift tests), or None if there is no such EKS cluster."""
    from . import eks

    with _lock:
        cluster = eks.find_cluster(name=cluster_name)
        if cluster is None:
            return None
        store = _store(cluster)
        return {"cluster": cluster.name, "arn": cluster.arn, "endpoint": endpoint_for(cluster.name),
                "resourceVersion": str(_rv[0]),
                "objects": [copy.deepcopy(store[k]) for k in sorted(store)]}


# ==== validation & defaults =======================================================================================
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


def _validate(kind, obj, old=None):
    name = obj["metadata"].get("name")
    causes = []
    err = _name_error(kind, name)
    if err:
        causes.append(("metadata.name", err))
    for field in ("labels", "annotations"):
        value = obj["metadata"].get(field)
        if value is not None and (not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values())):
            causes.append((f"metadata.{field}", "Invalid value: must be a map of strings"))
    for k, v in (obj["metadata"].get("labels") or {}).items():
        if isinstance(v, str) and (len(v) > 63 or (v and not _LABEL_VALUE.fullmatch(v))):
            causes.append((f"metadata.labels", f'Invalid value: "{v}": a valid label must be an empty string or '
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


def _defaults(kind, obj):
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


def _finish_create(kind, obj):
    meta = obj["metadata"]
    meta.update(uid=str(uuid.uuid4()), resourceVersion=_next_rv(), creationTimestamp=_now())
    if kind.kind == "NetworkPolicy":
        meta["generation"] = 1
    _defaults(kind, obj)


# ==== server-side apply: field ownership ==========================================================================
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
    tree = {}
    for path in sorted(paths):
        node = tree
        for k in path:
            node = node.setdefault(f"f:{k}", {})
    return tree


def _from_fields_v1(tree, prefix=()):
    out = set()
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
        {"manager": m, "operation": op, "apiVersion": av, "time": _now(), "fieldsType": "FieldsV1",
         "fieldsV1": _to_fields_v1(paths)} for m, op, av, paths in managers if paths]
    if not obj["metadata"]["managedFields"]:
        del obj["metadata"]["managedFields"]


def _record_update(kind, old, new, manager):
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


def _apply(kind, current, config, manager, force):
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
    _defaults(kind, defaulted)
    conflicts = []
    for i, (m, op, av, paths) in enumerate(managers):
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
        raise ApiError(409, "Conflict", msg, {**_details(kind, current["metadata"]["name"]),
                                              "causes": [{"reason": "FieldManagerConflict",
                                                          "message": f'conflict with "{m}" using {kind.api_version}',
                                                          "field": f} for m, f in fields]})
    if force:
        managers = [(m, op, av, paths if (m == manager and op == "Apply")
                     else {p for p in paths if not any(_overlaps(p, q) and _get(current, q) != _get(defaulted, q)
                                                       for q in cfg_leaves)})
                    for m, op, av, paths in managers]
    previous = next((paths for m, op, _, paths in managers if m == manager and op == "Apply"), set())
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


# ==== authorization ===============================================================================================
ADMIN = "AmazonEKSClusterAdminPolicy"
NS_WRITE = {"AmazonEKSAdminPolicy", "AmazonEKSEditPolicy"}
NS_READ = {"AmazonEKSViewPolicy", "AmazonEKSAdminViewPolicy"}
READ_VERBS = {"get", "list"}


class Caller:
    def __init__(self, identity, entry, implicit_admin, username):
        self.identity, self.entry, self.implicit_admin, self.username = identity, entry, implicit_admin, username


def _authenticate(cluster, identity) -> Caller:
    from . import eks

    st = eks.state(cluster)
    mode = cluster.access_config["authenticationMode"]
    key = _principal_key(principal_of(identity))
    session = identity.rsplit("/", 1)[-1] if ":assumed-role/" in identity else ""
    if mode in eks.API_MODES:
        for principal, entry in st["access_entries"].items():
            if key is not None and _principal_key(principal) == key:
                username = entry["username"].replace("{{SessionName}}", session).replace(
                    "{{AccountID}}", key[0])
                return Caller(identity, entry, False, username)
    creator = st.get("creator")
    if (mode != "API" and cluster.access_config.get("bootstrapClusterCreatorAdminPermissions")
            and creator and key is not None and _principal_key(creator) == key):
        return Caller(identity, None, True, identity)
    raise Unauthorized(f"{identity} is not mapped to cluster {cluster.name}")


def _in_scope(scope, namespace):
    if scope.get("type") == "cluster":
        return True
    return namespace is not None and any(fnmatch.fnmatchcase(namespace, pattern)
                                         for pattern in scope.get("namespaces") or [])


def _authorized(caller, verb, kind, namespace, name) -> bool:
    if caller.implicit_admin:
        return True
    if caller.entry is None or caller.entry.get("type") != "STANDARD":
        return False
    write = verb not in READ_VERBS
    # the namespace a request is about: the object's namespace, or the namespace object itself (get one)
    ns = namespace if kind.namespaced else (name if kind is NAMESPACES and verb == "get" else None)
    for assoc in caller.entry["policies"].values():
        policy, scope = assoc["policyArn"].rsplit("/", 1)[-1], assoc["accessScope"]
        cluster_scope = scope.get("type") == "cluster"
        if policy == ADMIN:
            if cluster_scope or (ns is not None and _in_scope(scope, ns) and (kind.namespaced or not write)):
                return True
        elif policy in NS_WRITE or policy in NS_READ:
            if write and (policy in NS_READ or (policy == "AmazonEKSEditPolicy" and kind.group == RBAC)):
                continue
            if kind.namespaced or kind is NAMESPACES:
                if kind.namespaced and _in_scope(scope, ns):
                    return True
                if kind is NAMESPACES and not write and (cluster_scope or (ns is not None and _in_scope(scope, ns))):
                    return True
            elif not write and cluster_scope and policy == "AmazonEKSAdminViewPolicy":
                return True
    return False


def _forbidden(caller, verb, kind, namespace, name):
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    what = f'{_qualified(kind)} "{name}"' if name else _qualified(kind)
    return ApiError(403, "Forbidden", f'{what} is forbidden: User "{caller.username}" cannot {verb} resource '
                                      f'"{kind.resource}" in API group "{kind.group}" {where}',
                    _details(kind, name))


# ==== HTTP ========================================================================================================
def _json_response(body, code=200):
    return Response(json.dumps(body), status=code, content_type="application/json")


def _parse_body(request, yaml_ok=True):
    raw = request.get_data()
    ctype = (request.mimetype or "application/json").lower()
    if "protobuf" in ctype:
        raise ApiError(415, "UnsupportedMediaType", f"the body of the request was in an unknown format - accepted "
                                                    "media types include: application/json, application/yaml")
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        if not yaml_ok:
            raise bad_request("the body of the request is not valid JSON")
        import yaml
        try:
            body = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise bad_request(f"error decoding YAML: {e}")
    if not isinstance(body, dict):
        raise bad_request("the body of the request must be a JSON object")
    return body


def _label_selector_matches(selector, labels):
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        m = re.fullmatch(r"([^!=\s]+)\s*(==|=|!=)\s*(\S*)", term)
        if m:
            k, op, v = m.groups()
            if (labels.get(k) == v) != (op != "!="):
                return False
            continue
        m = re.fullmatch(r"([^\s]+)\s+(in|notin)\s+\(([^)]*)\)", term)
        if m:
            k, op, vals = m.group(1), m.group(2), {x.strip() for x in m.group(3).split(",")}
            if (labels.get(k) in vals) != (op == "in"):
                return False
            continue
        if term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def _field_selector_matches(selector, obj):
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        m = re.fullmatch(r"(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)", term)
        if not m:
            raise bad_request(f'"{term}" is not a known field selector: only "metadata.name", "metadata.namespace"')
        value = obj["metadata"].get(m.group(1).split(".")[1], "")
        if (value == m.group(3)) != (m.group(2) != "!="):
            return False
    return True


class KubernetesApp:
    """WSGI app: /clusters/<eks cluster name>/... -> that cluster's API."""

    def __call__(self, environ, start_response):
        request = Request(environ)
        try:
            response = self.handle(request)
        except ApiError as e:
            response = _json_response(e.status(), e.code)
        except Unauthorized:
            response = _json_response(ApiError(401, "Unauthorized", "Unauthorized").status(), 401)
        self.hold(request, response.status_code)
        return response(environ, start_response)

    def hold(self, request, status):
        """A `hold` fault (faults.py): the request was handled; its response waits, outside every lock."""
        from . import faults
        m = re.fullmatch(r"/clusters/[^/]+(/.*)?", request.path)
        operation = self.operation(request.method, ((m.group(1) if m else None) or "/").rstrip("/") or "/") \
            if m else None
        if operation is not None:
            faults.hold(faults.KUBERNETES, operation, status)

    def handle(self, request):
        from . import eks

        m = re.fullmatch(r"/clusters/([^/]+)(/.*)?", request.path)
        if not m:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        cluster_name, path = m.group(1), (m.group(2) or "/").rstrip("/") or "/"
        operation = self.operation(request.method, path)
        if operation is not None:  # faults.py: counters, latency and injected errors, before anything else
            from . import faults
            failure = faults.kubernetes_call(operation, request.headers.get(faults.CALLER_HEADER))
            if failure is not None:
                reason, message, code = failure
                return _json_response(ApiError(code, reason, message).status(), code)
        with _lock:
            cluster = eks.find_cluster(name=cluster_name)
            if cluster is None:
                raise ApiError(404, "NotFound", f"no EKS cluster {cluster_name} in the sandbox")
            if path in ("/version", "/healthz", "/livez", "/readyz"):
                if path != "/version":
                    return Response("ok", content_type="text/plain")
                major, minor = (cluster.version.split(".") + ["0"])[:2]
                return _json_response({"major": major, "minor": minor, "gitVersion": f"v{major}.{minor}.0-eks-sandbox",
                                       "gitCommit": "0" * 40, "gitTreeState": "clean",
                                       "buildDate": "2025-01-01T00:00:00Z",
                                       "goVersion": "go1.23.0", "compiler": "gc", "platform": "linux/amd64"})
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            raise Unauthorized("no bearer token")
        identity = verify_token(auth[len("Bearer "):].strip(), cluster_name)
        with _lock:
            cluster = eks.find_cluster(name=cluster_name)
            if cluster is None:
                raise ApiError(404, "NotFound", f"no EKS cluster {cluster_name} in the sandbox")
            caller = _authenticate(cluster, identity)
            discovery = self.discovery(path)
            if discovery is not None:
                if request.method != "GET":
                    raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                            "resource")
                return _json_response(discovery)
            return self.resource_request(request, cluster, caller, path)

    def operation(self, method, path):
        """The request's name for faults and call counters: `kubernetes.<verb>.<resource>`,
        `kubernetes.get.discovery`, `kubernetes.get.version`; None for health checks and unknown paths."""
        if path == "/version":
            return "kubernetes.get.version"
        if path in ("/api", "/apis") or re.fullmatch(r"/api/v1|/apis/[^/]+(/[^/]+)?", path):
            return "kubernetes.get.discovery"
        try:
            kind, _, name = self._route(path)
        except ApiError:
            return None
        verb = {"GET": "get" if name else "list", "POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete"}.get(method)
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

    # ---- resources
    def _route(self, path):
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

    def resource_request(self, request, cluster, caller, path):
        kind, namespace, name = self._route(path)
        method = request.method
        verb = {"GET": "get" if name else "list", "POST": "create", "PUT": "update", "PATCH": "patch",
                "DELETE": "delete"}.get(method)
        if verb is None or (name is None and method not in ("GET", "POST")) or (name and method == "POST"):
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
        if request.args.get("watch") in ("1", "true"):
            raise ApiError(405, "MethodNotAllowed", "sandbox: watch is not supported")
        if not _authorized(caller, verb, kind, namespace, name):
            raise _forbidden(caller, verb, kind, namespace, name)
        store = _store(cluster)
        if kind.namespaced and namespace is not None and ("", "namespaces", "", namespace) not in store \
                and verb != "list":
            raise not_found(NAMESPACES, namespace)
        dry_run = request.args.get("dryRun") == "All"
        handler = getattr(self, f"do_{verb}")
        return handler(request, store, kind, namespace, name, dry_run=dry_run)

    @staticmethod
    def _key(kind, namespace, name):
        return (kind.group, kind.resource, namespace or "", name)

    def _existing(self, store, kind, namespace, name):
        obj = store.get(self._key(kind, namespace, name))
        if obj is None:
            raise not_found(kind, name)
        return obj

    def do_get(self, request, store, kind, namespace, name, **_):
        return _json_response(self._existing(store, kind, namespace, name))

    def do_list(self, request, store, kind, namespace, name, **_):
        items = [o for (g, r, ns, _), o in sorted(store.items())
                 if (g, r) == (kind.group, kind.resource) and (namespace is None or ns == namespace)]
        items = [o for o in items if _label_selector_matches(request.args.get("labelSelector"),
                                                             o["metadata"].get("labels") or {})
                 and _field_selector_matches(request.args.get("fieldSelector"), o)]
        meta = {"resourceVersion": str(_rv[0])}
        start = 0
        if request.args.get("continue"):
            try:
                start = int(base64.urlsafe_b64decode(request.args["continue"].encode()).decode())
            except ValueError:
                raise ApiError(400, "BadRequest", "continue key is not valid")
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
        return _json_response({"kind": f"{kind.kind}List", "apiVersion": kind.api_version, "metadata": meta,
                               "items": items})

    def _check_body(self, body, kind, namespace, name=None):
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

    @staticmethod
    def _manager(request, default):
        return request.args.get("fieldManager") or (request.headers.get("User-Agent") or default).split("/")[0] \
            or default

    def do_create(self, request, store, kind, namespace, name, dry_run=False):
        body = _parse_body(request)
        self._check_body(body, kind, namespace)
        meta = body["metadata"]
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + uuid.uuid4().hex[:5]
        for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "deletionTimestamp"):
            meta.pop(k, None)
        body.pop("status", None)
        _validate(kind, body)
        if self._key(kind, namespace, meta["name"]) in store:
            raise ApiError(409, "AlreadyExists", f'{_qualified(kind)} "{meta["name"]}" already exists',
                           _details(kind, meta["name"]))
        if dry_run:
            _defaults(kind, body)
            return _json_response(body, 201)
        _finish_create(kind, body)
        _record_update(kind, None, body, self._manager(request, "unknown"))
        store[self._key(kind, namespace, meta["name"])] = body
        return _json_response(body, 201)

    def _replace(self, store, kind, namespace, name, old, new, request, manager, dry_run):
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
        _validate(kind, new, old)
        _defaults(kind, new)
        if manager is not None:
            _record_update(kind, old, new, manager)
        changed = {k: v for k, v in new.items() if k != "metadata"} != \
            {k: v for k, v in old.items() if k != "metadata"} or _meta_changed(old, new)
        if not changed:
            return old
        if kind.kind == "NetworkPolicy" and new.get("spec") != old.get("spec"):
            meta["generation"] = old["metadata"].get("generation", 1) + 1
        if dry_run:
            return new
        meta["resourceVersion"] = _next_rv()
        store[self._key(kind, namespace, name)] = new
        return new

    def do_update(self, request, store, kind, namespace, name, dry_run=False):
        old = self._existing(store, kind, namespace, name)
        body = _parse_body(request)
        self._check_body(body, kind, namespace, name)
        rv = body["metadata"].get("resourceVersion")
        if rv not in (None, "") and rv != old["metadata"]["resourceVersion"]:
            raise ApiError(409, "Conflict", f'Operation cannot be fulfilled on {_qualified(kind)} "{name}": the '
                                            "object has been modified; please apply your changes to the latest "
                                            "version and try again", _details(kind, name))
        if "managedFields" not in body["metadata"] and "managedFields" in old["metadata"]:
            body["metadata"]["managedFields"] = copy.deepcopy(old["metadata"]["managedFields"])
        return _json_response(self._replace(store, kind, namespace, name, old, body, request,
                                             self._manager(request, "unknown"), dry_run))

    def do_patch(self, request, store, kind, namespace, name, dry_run=False):
        ctype = (request.mimetype or "").lower()
        if ctype == "application/apply-patch+yaml":
            return self._server_side_apply(request, store, kind, namespace, name, dry_run)
        if ctype not in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            raise ApiError(415, "UnsupportedMediaType", f"the body of the request was in an unknown format - "
                                                        "accepted media types include: application/json-patch+json "
                                                        "(not in the sandbox), application/merge-patch+json, "
                                                        "application/apply-patch+yaml, "
                                                        "application/strategic-merge-patch+json")
        old = self._existing(store, kind, namespace, name)
        patch = _parse_body(request, yaml_ok=False)
        rv = (patch.get("metadata") or {}).get("resourceVersion")
        if rv is not None and rv != old["metadata"]["resourceVersion"]:
            raise ApiError(409, "Conflict", f'Operation cannot be fulfilled on {_qualified(kind)} "{name}": the '
                                            "object has been modified; please apply your changes to the latest "
                                            "version and try again", _details(kind, name))
        new = _merge_patch(copy.deepcopy(old), patch)
        if not isinstance(new.get("metadata"), dict):
            raise bad_request("metadata must be an object")
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        self._check_body(new, kind, namespace, name)
        return _json_response(self._replace(store, kind, namespace, name, old, new, request,
                                            self._manager(request, "unknown"), dry_run))

    def _server_side_apply(self, request, store, kind, namespace, name, dry_run):
        manager = request.args.get("fieldManager")
        if not manager:
            raise ApiError(422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
                                           "required for apply patch",
                           {"group": "meta.k8s.io", "kind": "PatchOptions",
                            "causes": [{"reason": "FieldValueRequired", "message": "Required value: is required for "
                                        "apply patch", "field": "fieldManager"}]})
        force = request.args.get("force") in ("true", "1")
        config = _parse_body(request)
        if not config.get("apiVersion") or not config.get("kind"):
            raise bad_request("apply patches must specify apiVersion and kind")
        self._check_body(config, kind, namespace, name)
        rv = config["metadata"].pop("resourceVersion", None)
        current = store.get(self._key(kind, namespace, name))
        if rv is not None and (current is None or rv != current["metadata"]["resourceVersion"]):
            raise ApiError(409, "Conflict", f'Operation cannot be fulfilled on {_qualified(kind)} "{name}": the '
                                            "object has been modified; please apply your changes to the latest "
                                            "version and try again", _details(kind, name))
        for k in ("uid", "creationTimestamp", "managedFields", "generation"):
            config["metadata"].pop(k, None)
        config.pop("status", None)
        new = _apply(kind, current, config, manager, force)
        if current is None:
            _validate(kind, new)
            if dry_run:
                _defaults(kind, new)
                return _json_response(new, 201)
            _finish_create(kind, new)
            store[self._key(kind, namespace, name)] = new
            return _json_response(new, 201)
        return _json_response(self._replace(store, kind, namespace, name, current, new, request, None, dry_run))

    def do_delete(self, request, store, kind, namespace, name, dry_run=False):
        obj = self._existing(store, kind, namespace, name)
        try:
            options = json.loads(request.get_data() or b"{}") or {}
        except ValueError:
            raise bad_request("the body of the request is not valid JSON")
        pre = options.get("preconditions") or {}
        if pre.get("resourceVersion") not in (None, obj["metadata"]["resourceVersion"]) or \
                pre.get("uid") not in (None, obj["metadata"]["uid"]):
            raise ApiError(409, "Conflict", f'Operation cannot be fulfilled on {_qualified(kind)} "{name}": the '
                                            "precondition did not match", _details(kind, name))
        if kind is NAMESPACES:
            if name in PROTECTED_NAMESPACES:
                raise ApiError(403, "Forbidden", f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                               _details(kind, name))
            out = copy.deepcopy(obj)
            out["metadata"]["deletionTimestamp"] = _now()
            out["status"] = {"phase": "Terminating"}
            if not dry_run:
                _drop_namespace(store, name)
            return _json_response(out)
        if not dry_run:
            del store[self._key(kind, namespace, name)]
        return _json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                               "details": {**_details(kind, name), "uid": obj["metadata"]["uid"]}})


def _meta_changed(old, new):
    skip = ("resourceVersion", "managedFields")
    a = {k: v for k, v in old["metadata"].items() if k not in skip}
    b = {k: v for k, v in new["metadata"].items() if k not in skip}
    return a != b or (_strip_times(old["metadata"].get("managedFields"))
                      != _strip_times(new["metadata"].get("managedFields")))


def _strip_times(managed):
    return [{k: v for k, v in m.items() if k != "time"} for m in managed or []]


def _merge_patch(target, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = _merge_patch(target.get(k), v)
    return target
