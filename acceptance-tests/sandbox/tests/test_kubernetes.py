"""The sandbox's Kubernetes API per EKS cluster: HTTPS with the CA DescribeCluster returns, EKS bearer tokens built by
botocore (as `aws eks get-token`), access entries / access policies, and Kubernetes object semantics.

Run: $VENV/bin/python -m pytest sandbox/tests/test_kubernetes.py   (from acceptance-tests/)
"""
import base64
import copy
import time
from datetime import UTC
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import boto3
import pytest
import requests

from harness.kube import Kube
from helpers import make_principals
from sandbox import kubernetes

ACCOUNT, REGION = "123456789012", "us-west-2"
SEEDED = "ml-capacity-eks"
EKS_ARN = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{SEEDED}"
ADMIN_ROLE = f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"
POLICY = "arn:aws:eks::aws:cluster-access-policy/{}"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
NET = "/apis/networking.k8s.io/v1"

# kind -> (collection path, a valid object, a changed copy's field to replace)
SAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "namespaces": ("/api/v1/namespaces",
                   {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "a"}}}),
    "serviceaccounts": ("/api/v1/namespaces/default/serviceaccounts",
                        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "trainer"}}),
    "roles": (f"{RBAC}/namespaces/default/roles",
              {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "pod-reader"},
               "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}),
    "rolebindings": (f"{RBAC}/namespaces/default/rolebindings",
                     {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                      "metadata": {"name": "team-a-view"},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                      "subjects": [{"kind": "Group", "name": "team-a-viewers"}]}),
    "clusterroles": (f"{RBAC}/clusterroles",
                     {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                      "metadata": {"name": "crd-reader"},
                      "rules": [{"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"],
                                 "verbs": ["get"]}]}),
    "clusterrolebindings": (f"{RBAC}/clusterrolebindings",
                            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                             "metadata": {"name": "crd-reader"},
                             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                         "name": "crd-reader"},
                             "subjects": [{"kind": "Group", "name": "studio-users"}]}),
    "networkpolicies": (f"{NET}/namespaces/default/networkpolicies",
                        {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                         "metadata": {"name": "deny-other-namespaces"},
                         "spec": {"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}],
                                                                  "ports": [{"port": 8080}]}]}}),
}


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


def dummy_session():
    return boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION)


def role_session(sandbox, role_arn, name="tests"):
    creds = sandbox.client("sts").assume_role(RoleArn=role_arn, RoleSessionName=name)["Credentials"]
    return boto3.session.Session(aws_access_key_id=creds["AccessKeyId"], aws_secret_access_key=creds["SecretAccessKey"],
                                 aws_session_token=creds["SessionToken"], region_name=REGION)


def user_session(sandbox, name):
    iam = sandbox.client("iam")
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return boto3.session.Session(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                                 region_name=REGION), f"arn:aws:iam::{ACCOUNT}:user/{name}"


@pytest.fixture
def kube(sandbox, tmp_path):
    return Kube(sandbox, tmp_path)


def status_of(body):
    return body["kind"], body["reason"], body["code"]


# ---- transport, discovery ----------------------------------------------------------------------------------------
def test_tls_is_verified_with_the_described_ca(kube, tmp_path):
    assert kube.get("/api/v1/namespaces/default")[0] == 200
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(kube.endpoint + "/version", timeout=10)  # the system CAs do not know the sandbox's CA
    localhost = kube.endpoint.replace("127.0.0.1", "localhost")  # the certificate also names localhost
    assert requests.get(localhost + "/version", verify=str(kube.ca), timeout=10).status_code == 200


def test_discovery(kube):
    code, version = kube.get("/version", token="nonsense")  # /version needs no credentials
    assert code == 200 and (version["major"], version["minor"]) == ("1", "31")
    assert kube.get("/api")[1]["versions"] == ["v1"]
    groups = {g["name"]: g["preferredVersion"]["groupVersion"] for g in kube.get("/apis")[1]["groups"]}
    assert groups == {"rbac.authorization.k8s.io": "rbac.authorization.k8s.io/v1",
                      "networking.k8s.io": "networking.k8s.io/v1"}
    core = {r["name"]: (r["kind"], r["namespaced"]) for r in kube.get("/api/v1")[1]["resources"]}
    assert core == {"namespaces": ("Namespace", False), "serviceaccounts": ("ServiceAccount", True)}
    rbac = {r["name"]: r["namespaced"] for r in kube.get(RBAC)[1]["resources"]}
    assert rbac == {"roles": True, "rolebindings": True, "clusterroles": False, "clusterrolebindings": False}
    assert kube.get("/apis/networking.k8s.io")[1]["preferredVersion"]["version"] == "v1"
    assert kube.get(NET)[1]["resources"][0]["name"] == "networkpolicies"
    assert kube.get("/apis/apps/v1/deployments")[0] == 404
    assert kube.get("/api/v1/pods")[0] == 404


def test_default_namespaces_and_list_shape(kube):
    code, body = kube.get("/api/v1/namespaces")
    assert code == 200 and body["kind"] == "NamespaceList" and body["apiVersion"] == "v1"
    assert int(body["metadata"]["resourceVersion"]) > 0
    assert [n["metadata"]["name"] for n in body["items"]] == ["default", "kube-public", "kube-system"]
    item = body["items"][0]
    assert "kind" not in item and item["status"] == {"phase": "Active"}  # as the API server lists them
    assert item["metadata"]["labels"] == {"kubernetes.io/metadata.name": "default"}
    assert {"uid", "resourceVersion", "creationTimestamp"} <= set(item["metadata"])


# ---- tokens ------------------------------------------------------------------------------------------------------
def test_missing_and_malformed_tokens_are_401(kube):
    for token in ("", "k8s-aws-v1.", "k8s-aws-v1.!!!", "not-an-eks-token",
                  "k8s-aws-v1." + base64.urlsafe_b64encode(b"https://example.com/?Action=GetCallerIdentity").decode()):
        code, body = kube.get("/api/v1/namespaces", token=token or " ")
        assert code == 401 and status_of(body) == ("Status", "Unauthorized", 401), token
    r = requests.get(kube.endpoint + "/api/v1/namespaces", verify=str(kube.ca), timeout=10)
    assert r.status_code == 401


def _url(token):
    body = token[len("k8s-aws-v1."):]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()


def _token(url):
    return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def test_token_shape_is_what_aws_eks_get_token_makes(kube, sandbox):
    parts = urlsplit(_url(kube.token))
    q = dict(parse_qsl(parts.query))
    assert f"{parts.scheme}://{parts.netloc}" == sandbox.url and parts.path == "/"
    assert (q["Action"], q["Version"], q["X-Amz-Expires"]) == ("GetCallerIdentity", "2011-06-15", "60")
    assert q["X-Amz-SignedHeaders"] == "host;x-k8s-aws-id"
    assert "=" not in kube.token


def test_token_for_another_cluster_is_401(kube, sandbox):
    other = kubernetes.token_for("other-cluster", dummy_session(), endpoint_url=sandbox.url)
    assert kube.get("/api/v1/namespaces", token=other)[0] == 401


def test_tampered_wrong_secret_and_long_lived_tokens_are_401(kube, sandbox):
    url = _url(kube.token)
    q = dict(parse_qsl(urlsplit(url).query))
    tampered = url.replace(q["X-Amz-Signature"], "0" * 64)
    assert kube.get("/api/v1/namespaces", token=_token(tampered))[0] == 401
    stretched = url.replace("X-Amz-Expires=60", "X-Amz-Expires=61")
    assert kube.get("/api/v1/namespaces", token=_token(stretched))[0] == 401
    wrong = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="wrong", region_name=REGION)
    assert kube.get("/api/v1/namespaces",
                    token=kubernetes.token_for(SEEDED, wrong, endpoint_url=sandbox.url))[0] == 401
    too_long = kubernetes.token_for(SEEDED, dummy_session(), endpoint_url=sandbox.url, expires=3600)
    assert kube.get("/api/v1/namespaces", token=too_long)[0] == 401
    foreign = url.replace(urlsplit(url).netloc, "evil.example.com")
    assert kube.get("/api/v1/namespaces", token=_token(foreign))[0] == 401


def test_expired_token_is_401(kube, sandbox):
    # X-Amz-Date has whole seconds, so a 1 s token may be stale before its first use on a loaded machine (CI saw it):
    # 5 s leaves room for the first request, and the sleep passes the expiry from any point in the signing second.
    short = kubernetes.token_for(SEEDED, dummy_session(), endpoint_url=sandbox.url, expires=5)
    assert kube.get("/api/v1/namespaces", token=short)[0] == 200
    time.sleep(6.1)
    assert kube.get("/api/v1/namespaces", token=short)[0] == 401


def test_assumed_role_maps_to_its_role_access_entry(kube, sandbox):
    token = kubernetes.token_for(SEEDED, role_session(sandbox, ADMIN_ROLE), endpoint_url=sandbox.url)
    assert kube.post("/api/v1/namespaces", SAMPLES["namespaces"][1], token=token)[0] == 201
    # a session token that is not the one STS issued for the key
    url = _url(token)
    q = dict(parse_qsl(urlsplit(url).query))
    forged = url.replace(q["X-Amz-Security-Token"].replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"), "x")
    assert forged != url and kube.get("/api/v1/namespaces", token=_token(forged))[0] == 401


# ---- authentication: access entries ------------------------------------------------------------------------------
def test_principal_without_access_entry_is_401_and_entry_without_policy_403(kube, sandbox):
    session, arn = user_session(sandbox, "bob")
    token = kubernetes.token_for(SEEDED, session, endpoint_url=sandbox.url)
    code, body = kube.get("/api/v1/namespaces", token=token)
    assert code == 401 and status_of(body) == ("Status", "Unauthorized", 401)  # unmapped on EKS: "Unauthorized"
    eks = sandbox.client("eks")
    eks.create_access_entry(clusterName=SEEDED, principalArn=arn)
    code, body = kube.get("/api/v1/namespaces", token=token)
    assert code == 403 and status_of(body) == ("Status", "Forbidden", 403)
    assert body["message"] == (f'namespaces is forbidden: User "{arn}" cannot list resource "namespaces" in API '
                               'group "" at the cluster scope')
    eks.associate_access_policy(clusterName=SEEDED, principalArn=arn,
                                policyArn=POLICY.format("AmazonEKSClusterAdminPolicy"), accessScope={"type": "cluster"})
    assert kube.get("/api/v1/namespaces", token=token)[0] == 200
    eks.delete_access_entry(clusterName=SEEDED, principalArn=arn)
    assert kube.get("/api/v1/namespaces", token=token)[0] == 401


def test_namespace_scoped_policies(kube, sandbox):
    kube.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})
    kube.post("/api/v1/namespaces", {"metadata": {"name": "team-b"}})
    eks = sandbox.client("eks")
    role = f"arn:aws:iam::{ACCOUNT}:role/team-a"
    make_principals(sandbox, role)
    eks.create_access_entry(clusterName=SEEDED, principalArn=role)
    eks.associate_access_policy(clusterName=SEEDED, principalArn=role, policyArn=POLICY.format("AmazonEKSEditPolicy"),
                                accessScope={"type": "namespace", "namespaces": ["team-a"]})
    eks.associate_access_policy(clusterName=SEEDED, principalArn=role, policyArn=POLICY.format("AmazonEKSViewPolicy"),
                                accessScope={"type": "namespace", "namespaces": ["team-b*"]})
    token = kubernetes.token_for(SEEDED, role_session(sandbox, role, "alice"), endpoint_url=sandbox.url)
    sa = {"metadata": {"name": "runner"}}
    assert kube.post("/api/v1/namespaces/team-a/serviceaccounts", sa, token=token)[0] == 201
    assert kube.get("/api/v1/namespaces/team-a/serviceaccounts", token=token)[0] == 200
    assert kube.get("/api/v1/namespaces/team-b/serviceaccounts", token=token)[0] == 200  # view (pattern)
    code, body = kube.post("/api/v1/namespaces/team-b/serviceaccounts", sa, token=token)
    assert code == 403 and body["message"] == (
        'serviceaccounts is forbidden: User "arn:aws:sts::123456789012:assumed-role/team-a/alice" cannot create '
        'resource "serviceaccounts" in API group "" in the namespace "team-b"')
    assert kube.get("/api/v1/namespaces/default/serviceaccounts", token=token)[0] == 403
    assert kube.get("/api/v1/namespaces/team-a", token=token)[0] == 200
    assert kube.get("/api/v1/namespaces", token=token)[0] == 403
    assert kube.post("/api/v1/namespaces", {"metadata": {"name": "x"}}, token=token)[0] == 403
    assert kube.get("/api/v1/serviceaccounts", token=token)[0] == 403  # all namespaces needs cluster scope
    binding = copy.deepcopy(SAMPLES["rolebindings"][1])
    assert kube.post(f"{RBAC}/namespaces/team-a/rolebindings", binding, token=token)[0] == 403  # edit: no RBAC writes
    eks.associate_access_policy(clusterName=SEEDED, principalArn=role, policyArn=POLICY.format("AmazonEKSAdminPolicy"),
                                accessScope={"type": "namespace", "namespaces": ["team-a"]})
    assert kube.post(f"{RBAC}/namespaces/team-a/rolebindings", binding, token=token)[0] == 201
    assert kube.post(f"{RBAC}/clusterroles", SAMPLES["clusterroles"][1], token=token)[0] == 403


def test_hyperpod_policies_grant_nothing_here(kube, sandbox):
    eks = sandbox.client("eks")
    role = f"arn:aws:iam::{ACCOUNT}:role/studio"
    make_principals(sandbox, role)
    eks.create_access_entry(clusterName=SEEDED, principalArn=role)
    eks.associate_access_policy(clusterName=SEEDED, principalArn=role,
                                policyArn=POLICY.format("AmazonSagemakerHyperpodTrainingPolicy"),
                                accessScope={"type": "namespace", "namespaces": ["default"]})
    token = kubernetes.token_for(SEEDED, role_session(sandbox, role), endpoint_url=sandbox.url)
    assert kube.get("/api/v1/namespaces/default/serviceaccounts", token=token)[0] == 403
    assert kube.get("/api", token=token)[0] == 200  # discovery: any mapped principal


def test_config_map_cluster_creator_and_api_mode_without_bootstrap(sandbox, tmp_path):
    eks = sandbox.client("eks")
    vpc = {"subnetIds": ["subnet-1"]}
    eks.create_cluster(name="cm", roleArn=f"arn:aws:iam::{ACCOUNT}:role/r", resourcesVpcConfig=vpc)
    creator = Kube(sandbox, tmp_path, "cm")
    assert creator.get("/api/v1/namespaces")[0] == 200  # implicit aws-auth admin
    admin_token = kubernetes.token_for("cm", role_session(sandbox, ADMIN_ROLE), endpoint_url=sandbox.url)
    assert creator.get("/api/v1/namespaces", token=admin_token)[0] == 401
    eks.create_cluster(name="locked", roleArn=f"arn:aws:iam::{ACCOUNT}:role/r", resourcesVpcConfig=vpc,
                       accessConfig={"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": False})
    assert Kube(sandbox, tmp_path, "locked").get("/api/v1/namespaces")[0] == 401
    code, body = creator.get("/api/v1/namespaces", token=kubernetes.token_for("nope", dummy_session(),
                                                                               endpoint_url=sandbox.url))
    assert code == 401


def test_unknown_cluster_is_404(kube, sandbox):
    r = requests.get(kube.endpoint.replace(SEEDED, "nope") + "/api/v1/namespaces", verify=str(kube.ca), timeout=10,
                     headers={"Authorization": "Bearer " + kubernetes.token_for("nope", dummy_session(),
                                                                               endpoint_url=sandbox.url)})
    assert r.status_code == 404


def test_the_seeded_legacy_cluster_has_its_own_api(kube, sandbox, tmp_path):
    """legacy-capacity-eks (the OBS-1 tests' cluster) is served like ml-capacity-eks, with separate objects."""
    legacy = Kube(sandbox, tmp_path, "legacy-capacity-eks")  # its creator (the dummy keys' user) is admin
    assert legacy.endpoint == kube.endpoint.replace(SEEDED, "legacy-capacity-eks")
    assert legacy.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})[0] == 201
    names = [n["metadata"]["name"] for n in legacy.get("/api/v1/namespaces")[1]["items"]]
    assert names == ["default", "kube-public", "kube-system", "team-a"]
    assert kube.get("/api/v1/namespaces/team-a")[0] == 404
    assert kube.get("/api/v1/namespaces", token=legacy.token)[0] == 401  # its token is bound to its cluster


# ---- objects -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("resource", list(SAMPLES))
def test_crud(kube, resource):
    collection, obj = SAMPLES[resource]
    name = obj["metadata"]["name"]
    code, created = kube.post(collection, obj)
    assert code == 201, created
    meta = created["metadata"]
    assert (created["apiVersion"], created["kind"], meta["name"]) == (obj["apiVersion"], obj["kind"], name)
    assert {"uid", "resourceVersion", "creationTimestamp"} <= set(meta)
    if "/namespaces/" in collection:
        assert meta["namespace"] == "default"
    code, got = kube.get(f"{collection}/{name}")
    assert code == 200 and got == created
    code, listed = kube.get(collection)
    assert code == 200 and listed["kind"] == f"{obj['kind']}List"
    assert name in [i["metadata"]["name"] for i in listed["items"]]
    assert int(listed["metadata"]["resourceVersion"]) >= int(meta["resourceVersion"])
    code, body = kube.post(collection, obj)
    assert code == 409 and status_of(body) == ("Status", "AlreadyExists", 409)
    # replace
    changed = copy.deepcopy(created)
    changed["metadata"].setdefault("labels", {})["changed"] = "yes"
    code, replaced = kube.put(f"{collection}/{name}", changed)
    assert code == 200 and replaced["metadata"]["labels"]["changed"] == "yes"
    assert int(replaced["metadata"]["resourceVersion"]) > int(meta["resourceVersion"])
    assert replaced["metadata"]["uid"] == meta["uid"]
    code, body = kube.put(f"{collection}/{name}", changed)  # stale resourceVersion
    assert code == 409 and status_of(body) == ("Status", "Conflict", 409)
    assert "the object has been modified" in body["message"]
    unconditional = copy.deepcopy(changed)
    del unconditional["metadata"]["resourceVersion"]
    assert kube.put(f"{collection}/{name}", unconditional)[0] == 200
    code, body = kube.put(f"{collection}/other-name", unconditional)
    assert code in (400, 404)
    # delete
    code, body = kube.delete(f"{collection}/{name}")
    assert code == 200
    if resource == "namespaces":
        assert body["kind"] == "Namespace" and body["status"]["phase"] == "Terminating"
    else:
        assert body["kind"] == "Status" and body["status"] == "Success" and body["details"]["name"] == name
    code, body = kube.get(f"{collection}/{name}")
    assert code == 404 and status_of(body) == ("Status", "NotFound", 404)
    assert body["details"]["name"] == name and body["details"]["kind"] == resource
    assert kube.delete(f"{collection}/{name}")[0] == 404
    assert kube.put(f"{collection}/{name}", unconditional)[0] == 404


def test_not_found_message_and_missing_namespace(kube):
    code, body = kube.get("/api/v1/namespaces/default/serviceaccounts/nope")
    assert code == 404 and body["message"] == 'serviceaccounts "nope" not found'
    code, body = kube.get(f"{RBAC}/clusterroles/nope")
    assert body["message"] == 'clusterroles.rbac.authorization.k8s.io "nope" not found'
    assert body["details"] == {"name": "nope", "kind": "clusterroles", "group": "rbac.authorization.k8s.io"}
    for resource in ("serviceaccounts", "roles", "rolebindings", "networkpolicies"):
        collection, obj = SAMPLES[resource]
        code, body = kube.post(collection.replace("/default/", "/missing/"), obj)
        assert code == 404 and body["message"] == 'namespaces "missing" not found', resource
    assert kube.get("/api/v1/namespaces/missing/serviceaccounts")[1]["items"] == []


def test_deleting_a_namespace_deletes_its_objects(kube):
    kube.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})
    for resource in ("serviceaccounts", "roles", "rolebindings", "networkpolicies"):
        collection, obj = SAMPLES[resource]
        assert kube.post(collection.replace("/default/", "/team-a/"), obj)[0] == 201
    assert len(kube.get("/api/v1/serviceaccounts")[1]["items"]) == 1
    assert kube.delete("/api/v1/namespaces/team-a")[0] == 200
    assert kube.get("/api/v1/namespaces/team-a")[0] == 404
    assert kube.get("/api/v1/serviceaccounts")[1]["items"] == []
    assert kube.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})[0] == 201
    assert kube.get(f"{NET}/namespaces/team-a/networkpolicies")[1]["items"] == []
    code, body = kube.delete("/api/v1/namespaces/kube-system")
    assert code == 403 and body["reason"] == "Forbidden"


def test_validation_is_422(kube):
    code, body = kube.post("/api/v1/namespaces", {"metadata": {"name": "Team_A"}})
    assert code == 422 and status_of(body) == ("Status", "Invalid", 422)
    assert body["details"]["causes"][0]["field"] == "metadata.name"
    assert kube.post("/api/v1/namespaces/default/serviceaccounts", {"metadata": {}})[0] == 422
    role = copy.deepcopy(SAMPLES["roles"][1])
    role["rules"][0]["verbs"] = []
    assert kube.post(SAMPLES["roles"][0], role)[0] == 422
    binding = copy.deepcopy(SAMPLES["clusterrolebindings"][1])
    binding["roleRef"]["kind"] = "Role"
    assert kube.post(SAMPLES["clusterrolebindings"][0], binding)[0] == 422
    code, created = kube.post(*SAMPLES["rolebindings"])
    created["roleRef"]["name"] = "edit"
    code, body = kube.put(f"{SAMPLES['rolebindings'][0]}/team-a-view", created)
    assert code == 422 and "cannot change roleRef" in body["message"]
    code, body = kube.post(SAMPLES["serviceaccounts"][0].replace("default", "kube-system"),
                           {"metadata": {"name": "x", "namespace": "default"}})
    assert code == 400 and body["reason"] == "BadRequest"
    code, body = kube.post(SAMPLES["roles"][0], {**SAMPLES["roles"][1], "kind": "ClusterRole"})
    assert code == 400


def test_server_defaults(kube):
    _, ns = kube.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}
    assert ns["spec"] == {"finalizers": ["kubernetes"]} and ns["status"] == {"phase": "Active"}
    _, np = kube.post(*SAMPLES["networkpolicies"])
    assert np["spec"]["policyTypes"] == ["Ingress"] and np["spec"]["ingress"][0]["ports"] == [
        {"port": 8080, "protocol": "TCP"}]
    assert np["metadata"]["generation"] == 1
    _, rb = kube.post(*SAMPLES["rolebindings"])
    assert rb["subjects"] == [{"kind": "Group", "name": "team-a-viewers", "apiGroup": "rbac.authorization.k8s.io"}]


def test_list_selectors_and_paging(kube):
    for i in range(5):
        kube.post("/api/v1/namespaces", {"metadata": {"name": f"team-{i}", "labels": {"tier": "even" if i % 2 == 0
                                                                                     else "odd"}}})
    names = lambda body: [i["metadata"]["name"] for i in body["items"]]  # noqa: E731
    assert names(kube.get("/api/v1/namespaces", params={"labelSelector": "tier=odd"})[1]) == ["team-1", "team-3"]
    assert len(names(kube.get("/api/v1/namespaces", params={"labelSelector": "tier!=odd"})[1])) == 6
    assert len(names(kube.get("/api/v1/namespaces", params={"labelSelector": "tier"})[1])) == 5
    assert names(kube.get("/api/v1/namespaces", params={"labelSelector": "tier in (even),!missing"})[1]) == [
        "team-0", "team-2", "team-4"]
    assert names(kube.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=team-2"})[1]) == ["team-2"]
    page1 = kube.get("/api/v1/namespaces", params={"limit": 3})[1]
    page2 = kube.get("/api/v1/namespaces", params={"limit": 10, "continue": page1["metadata"]["continue"]})[1]
    assert len(page1["items"]) == 3 and page1["metadata"]["remainingItemCount"] == 5 and len(page2["items"]) == 5
    assert "continue" not in page2["metadata"]


def test_merge_patch(kube):
    kube.post(*SAMPLES["serviceaccounts"])
    path = SAMPLES["serviceaccounts"][0] + "/trainer"
    code, patched = kube.call("PATCH", path, {"metadata": {"labels": {"a": "1"}, "annotations": {"x": "y"}}},
                              ctype="application/merge-patch+json")
    assert code == 200 and patched["metadata"]["labels"] == {"a": "1"}
    code, patched = kube.call("PATCH", path, {"metadata": {"annotations": None}}, ctype="application/merge-patch+json")
    assert "annotations" not in patched["metadata"] and patched["metadata"]["labels"] == {"a": "1"}
    assert kube.call("PATCH", path, [{"op": "add"}], ctype="application/json-patch+json")[0] == 415
    assert kube.call("PATCH", path.replace("trainer", "nope"), {}, ctype="application/merge-patch+json")[0] == 404


# ---- server-side apply -------------------------------------------------------------------------------------------
def test_server_side_apply_create_update_and_no_op(kube):
    path = "/api/v1/namespaces/team-a"
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Namespace",
                              "metadata": {"name": "team-a", "labels": {"team": "a"}}}
    code, created = kube.apply(path, config)
    assert code == 201 and created["metadata"]["labels"]["team"] == "a"
    [mf] = created["metadata"]["managedFields"]
    assert (mf["manager"], mf["operation"], mf["fieldsType"]) == ("hyperpod-provider", "Apply", "FieldsV1")
    assert mf["fieldsV1"] == {"f:metadata": {"f:labels": {"f:team": {}}}}
    code, again = kube.apply(path, config)
    assert code == 200 and again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    code, shared = kube.apply(path, config, manager="another-applier")  # same value: shared ownership, no conflict
    assert code == 200 and len(shared["metadata"]["managedFields"]) == 2
    assert kube.apply(path, {**config, "metadata": {"name": "team-a", "labels": {"team": "b"}}},
                      manager="another-applier")[0] == 409
    config["metadata"]["labels"] = {"owner": "ml"}  # drops "team", adds "owner"
    code, updated = kube.apply(path, config)
    # "team" stays while another-applier still owns it; it goes when its last owner drops it
    assert updated["metadata"]["labels"] == {"owner": "ml", "team": "a", "kubernetes.io/metadata.name": "team-a"}
    code, updated = kube.apply(path, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
                               manager="another-applier")
    assert updated["metadata"]["labels"] == {"owner": "ml", "kubernetes.io/metadata.name": "team-a"}
    assert int(updated["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


def test_server_side_apply_conflicts_with_out_of_band_edits(kube):
    path = f"{NET}/namespaces/default/networkpolicies/deny-other-namespaces"
    config = copy.deepcopy(SAMPLES["networkpolicies"][1])
    assert kube.apply(path, config)[0] == 201
    # someone edits the policy out of band (kubectl edit)
    _, current = kube.get(path)
    current["spec"]["ingress"] = []
    current["metadata"]["labels"] = {"edited": "by-hand"}
    code, edited = kube.put(path, current, headers={"User-Agent": "kubectl-edit/v1.31.0"})
    assert code == 200
    managers = {m["manager"]: m["operation"] for m in edited["metadata"]["managedFields"]}
    assert managers == {"hyperpod-provider": "Apply", "kubectl-edit": "Update"}
    code, body = kube.apply(path, config)
    assert code == 409 and body["reason"] == "Conflict"
    assert body["message"] == ('Apply failed with 1 conflict: conflict with "kubectl-edit" using networking.k8s.io/v1: '
                               '.spec.ingress')
    code, forced = kube.apply(path, config, force=True)
    assert code == 200 and forced["spec"]["ingress"] == [{"from": [{"podSelector": {}}],
                                                          "ports": [{"port": 8080, "protocol": "TCP"}]}]
    assert forced["metadata"]["labels"] == {"edited": "by-hand"}  # not in our config, still owned by kubectl-edit
    assert forced["metadata"]["generation"] == 3


def test_server_side_apply_rejections_and_dry_run(kube):
    path = "/api/v1/namespaces/default/serviceaccounts/trainer"
    body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "trainer"}}
    code, status = kube.call("PATCH", path, body, ctype="application/apply-patch+yaml")
    assert code == 422 and "fieldManager" in status["message"]
    assert kube.apply(path, {"metadata": {"name": "trainer"}})[0] == 400  # apiVersion and kind are required
    assert kube.apply(path.replace("default", "missing"), body)[0] == 404
    code, _ = kube.call("PATCH", path, body, ctype="application/apply-patch+yaml",
                        params={"fieldManager": "p", "dryRun": "All"})
    assert code == 201 and kube.get(path)[0] == 404
    yaml_body = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: trainer\n  labels:\n    a: b\n"
    r = requests.patch(kube.endpoint + path, data=yaml_body, params={"fieldManager": "p"}, verify=str(kube.ca),
                       headers={"Authorization": f"Bearer {kube.token}",
                                "Content-Type": "application/apply-patch+yaml"},
                       timeout=10)
    assert r.status_code == 201 and r.json()["metadata"]["labels"] == {"a": "b"}


# ---- out-of-band access, reset, in-process helpers ---------------------------------------------------------------
def test_admin_dump_and_reset(kube, sandbox):
    kube.post("/api/v1/namespaces", {"metadata": {"name": "team-a"}})
    dumped = sandbox.admin("GET", f"kubernetes/{SEEDED}")
    assert dumped["arn"] == EKS_ARN and dumped["endpoint"] == kube.endpoint
    assert "team-a" in [o["metadata"]["name"] for o in dumped["objects"] if o["kind"] == "Namespace"]
    sandbox.reset()
    names = [o["metadata"]["name"] for o in sandbox.admin("GET", f"kubernetes/{SEEDED}")["objects"]]
    assert names == ["default", "kube-public", "kube-system"]
    with pytest.raises(Exception):  # noqa: B017 - urllib's HTTPError; what matters is that it fails
        sandbox.admin("GET", "kubernetes/nope")


def test_ensure_and_delete_namespace_in_process():
    """The helpers the SageMaker compute-quota code calls, against an EKS cluster in this process's moto."""
    from moto.eks.models import eks_backends

    from sandbox import eks

    account, region = "000011112222", "eu-west-1"
    backend = eks_backends[account][region]
    cluster = eks.create_cluster(backend, {"name": "inproc", "roleArn": f"arn:aws:iam::{account}:role/r",
                                           "resourcesVpcConfig": {"subnetIds": ["subnet-1"]}}, None)
    try:
        kubernetes.ensure_namespace(cluster.arn, "hyperpod-ns-team-a", {"sagemaker.amazonaws.com/quota": "team-a"})
        kubernetes.ensure_namespace(cluster.arn, "hyperpod-ns-team-a", {"extra": "1"})
        objects = {o["metadata"]["name"]: o for o in kubernetes.dump("inproc")["objects"]}
        assert set(objects) == {"default", "kube-public", "kube-system", "hyperpod-ns-team-a"}
        assert objects["hyperpod-ns-team-a"]["metadata"]["labels"] == {
            "sagemaker.amazonaws.com/quota": "team-a", "extra": "1",
            "kubernetes.io/metadata.name": "hyperpod-ns-team-a"}
        kubernetes.delete_namespace(cluster.arn, "hyperpod-ns-team-a")
        kubernetes.delete_namespace(cluster.arn, "hyperpod-ns-team-a")  # absent: no-op
        assert len(kubernetes.dump("inproc")["objects"]) == 3
        kubernetes.ensure_namespace(f"arn:aws:eks:{region}:{account}:cluster/none", "x", {})  # no such cluster: no-op
    finally:
        del backend.clusters["inproc"]


def test_verify_token_rejects_expiry_in_process():
    from datetime import datetime, timedelta

    session = dummy_session()
    token = kubernetes.token_for("c", session, endpoint_url="https://sts.us-west-2.amazonaws.com")
    signed_at = datetime.strptime(dict(parse_qsl(urlsplit(_url(token)).query))["X-Amz-Date"],
                                  "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    with pytest.raises(kubernetes.Unauthorized, match="expired"):
        kubernetes.verify_token(token, "c", now=signed_at + timedelta(seconds=61))
    with pytest.raises(kubernetes.Unauthorized, match="another cluster"):
        kubernetes.verify_token(token, "d", now=signed_at)
    assert kubernetes.verify_token(token, "c", now=signed_at) == f"arn:aws:sts::{ACCOUNT}:user/moto"
