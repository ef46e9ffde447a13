"""EKS bearer tokens: `k8s-aws-v1.` + the unpadded base64url of a presigned STS GetCallerIdentity URL, bound to a
cluster name by the signed `x-k8s-aws-id` header (what `aws eks get-token` makes).  `verify_token` is the API server's
check; `token_for` makes one, for tests and the harness."""
import base64
import datetime as dt
import hashlib
import hmac
import os
import re
from urllib.parse import parse_qsl, quote, urlsplit

import boto3

from ..moto_adapter import issued_credentials
from .identity import caller_identity

TOKEN_PREFIX = "k8s-aws-v1."
K8S_AWS_ID_HEADER = "x-k8s-aws-id"
MAX_TOKEN_EXPIRES = 900


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
        raise Unauthorized("token is not base64url") from None
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
        signed_at = dt.datetime.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC)
        expires = int(q["X-Amz-Expires"])
        signed_headers = q["X-Amz-SignedHeaders"].split(";")
        signature = q["X-Amz-Signature"]
    except (KeyError, ValueError):
        raise Unauthorized("malformed presigned URL") from None
    if service != "sts" or terminator != "aws4_request" or date != q["X-Amz-Date"][:8]:
        raise Unauthorized("malformed credential scope")
    if not 0 < expires <= MAX_TOKEN_EXPIRES:
        raise Unauthorized("X-Amz-Expires out of range")
    now = now or dt.datetime.now(dt.UTC)
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
