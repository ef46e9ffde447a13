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
(`eks_state.state(cluster)["kubernetes"]`), so deleting the EKS cluster or resetting moto wipes them; every cluster
starts with namespaces default, kube-system and kube-public.

This module is the API's public face: each concern lives in its own module of sandbox/k8s/ (see its __init__).
"""
from .eks_state import LOCK
from .k8s.app import KubernetesApp
from .k8s.endpoint import HOST, endpoint_for, port
from .k8s.errors import ApiError
from .k8s.identity import caller_identity, principal_for_access_key, principal_of
from .k8s.kinds import BY_RESOURCE, DEFAULT_NAMESPACES, GROUPS, KINDS, NAMESPACES, Kind
from .k8s.server import start, stop
from .k8s.store import delete_namespace, dump, ensure_namespace, objects_of
from .k8s.tls import ca_data, ca_pem, tls
from .k8s.tokens import K8S_AWS_ID_HEADER, MAX_TOKEN_EXPIRES, TOKEN_PREFIX, Unauthorized, token_for, verify_token

__all__ = ["BY_RESOURCE", "DEFAULT_NAMESPACES", "GROUPS", "HOST", "K8S_AWS_ID_HEADER", "KINDS", "LOCK",
           "MAX_TOKEN_EXPIRES", "NAMESPACES", "TOKEN_PREFIX", "ApiError", "Kind", "KubernetesApp", "Unauthorized",
           "ca_data", "ca_pem", "caller_identity", "delete_namespace", "dump", "endpoint_for", "ensure_namespace",
           "install", "objects_of", "port", "principal_for_access_key", "principal_of", "start", "stop", "tls",
           "token_for", "verify_token"]


def install():
    """Nothing to patch: eks.py calls in here; kept so the module shape matches the others."""
