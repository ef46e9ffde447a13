"""Every call hyperpod_tenant's apply composes, one at a time, as AWS answers it (the tenant spec, "What apply
composes"): the workload role with its inline policies and tags; the compute quota and the team namespace it makes;
the namespace's ServiceAccount, Roles, RoleBindings and NetworkPolicies, written by the provider's identity (the
dummy keys = user/moto, the EKS cluster's creator); the Pod Identity association with a cross-account target role;
access entries with namespace-scoped policies; KMS grants for the workload role.  And that a fault can target each
of these calls, Kubernetes requests included.

Run: $VENV/bin/python -m pytest sandbox/tests/test_tenant_composition.py   (from acceptance-tests/)
"""
import json
import time

import boto3
import pytest

import helpers
from harness.kube import Kube
from helpers import error_of

ACCOUNT, CONSUMER, DATA, REGION = "123456789012", "444455556666", "777788889999", "us-west-2"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
EKS = "ml-capacity-eks"
TEAM, NS = "research", "hyperpod-ns-research"
ROLE_NAME = "hyperpod-ml-capacity-research"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE_NAME}"
TARGET_ROLE = f"arn:aws:iam::{CONSUMER}:role/research-consumer"
VIEWERS, OPERATORS = f"arn:aws:iam::{ACCOUNT}:role/research-viewers", f"arn:aws:iam::{ACCOUNT}:role/research-operators"
KEY = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
DATA_KEY = f"arn:aws:kms:{REGION}:{DATA}:key/7e8f9a0b-1c2d-4e3f-a4b5-c6d7e8f90a1b"
GRANT_OPERATIONS = ["Decrypt", "Encrypt", "GenerateDataKey", "DescribeKey"]
POLICY = "arn:aws:eks::aws:cluster-access-policy/{}"
LABELS = {"app.kubernetes.io/managed-by": "terraform-provider-hyperpod", "hyperpod.governance/tenant": TEAM}
TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"},
                                                 "Action": ["sts:AssumeRole", "sts:TagSession"]}]}
TARGET_POLICY = {"Version": "2012-10-17",
                 "Statement": [{"Effect": "Allow", "Action": ["sts:AssumeRole", "sts:TagSession"],
                                "Resource": TARGET_ROLE}]}
DATA_POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
     "Resource": ["arn:aws:s3:::research-datasets", "arn:aws:s3:::research-datasets/*"]},
    {"Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Resource": [KEY]}]}
SESSION_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::research-datasets/*"}]})


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


@pytest.fixture
def iam(sandbox):
    return sandbox.client("iam")


@pytest.fixture
def eks(sandbox):
    return sandbox.client("eks")


@pytest.fixture
def kms(sandbox):
    return sandbox.client("kms")


@pytest.fixture
def kube(sandbox, tmp_path):
    return Kube(sandbox, tmp_path, EKS)


def create_workload_role(iam):
    return iam.create_role(RoleName=ROLE_NAME, AssumeRolePolicyDocument=json.dumps(TRUST),
                           Tags=[{"Key": "hyperpod:contract", "Value": "research-on-ml-capacity"},
                                 {"Key": "hyperpod:tenant", "Value": TEAM},
                                 {"Key": "hyperpod:cluster", "Value": "ml-capacity"}])["Role"]


def create_team_quota(sm):
    return sm.create_compute_quota(Name=f"{TEAM}-quota", ClusterArn=ML_ARN, ComputeQuotaTarget={"TeamName": TEAM},
                                   ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge",
                                                                                  "Count": 2}]})["ComputeQuotaId"]


def wait_namespace(kube, present=True, timeout=10.0):
    deadline = time.monotonic() + timeout
    while (kube.get(f"/api/v1/namespaces/{NS}")[0] == 200) != present:
        assert time.monotonic() < deadline, f"namespace {NS} {'never appeared' if present else 'is still there'}"
        time.sleep(0.1)


# ---- 1. IAM workload role ------------------------------------------------------------------------------------------
def test_workload_role_inline_policies_and_tags(iam):
    role = create_workload_role(iam)
    assert role["Arn"] == ROLE_ARN
    got = iam.get_role(RoleName=ROLE_NAME)["Role"]
    assert got["AssumeRolePolicyDocument"] == TRUST
    assert {t["Key"]: t["Value"] for t in got["Tags"]} == {
        "hyperpod:contract": "research-on-ml-capacity", "hyperpod:tenant": TEAM, "hyperpod:cluster": "ml-capacity"}
    iam.put_role_policy(RoleName=ROLE_NAME, PolicyName="hyperpod-tenant-target",
                        PolicyDocument=json.dumps(TARGET_POLICY))
    iam.put_role_policy(RoleName=ROLE_NAME, PolicyName="hyperpod-tenant-data", PolicyDocument=json.dumps(DATA_POLICY))
    assert iam.get_role_policy(RoleName=ROLE_NAME, PolicyName="hyperpod-tenant-data")["PolicyDocument"] == DATA_POLICY
    assert iam.list_role_policies(RoleName=ROLE_NAME)["PolicyNames"] == ["hyperpod-tenant-data",
                                                                         "hyperpod-tenant-target"]
    iam.tag_role(RoleName=ROLE_NAME,
                 Tags=[{"Key": "hyperpod:tenant", "Value": "renamed"}, {"Key": "team", "Value": "r"}])
    tags = {t["Key"]: t["Value"] for t in iam.list_role_tags(RoleName=ROLE_NAME)["Tags"]}
    assert (tags["hyperpod:tenant"], tags["team"], len(tags)) == ("renamed", "r", 4)  # TagRole overwrites a key

    assert error_of(iam.delete_role, RoleName=ROLE_NAME) == (
        "DeleteConflict", 409, "Cannot delete entity, must delete policies first.")
    for name in ("hyperpod-tenant-target", "hyperpod-tenant-data"):
        iam.delete_role_policy(RoleName=ROLE_NAME, PolicyName=name)
    missing = ("NoSuchEntity", 404, "The role policy with name hyperpod-tenant-data cannot be found.")
    assert error_of(iam.delete_role_policy, RoleName=ROLE_NAME, PolicyName="hyperpod-tenant-data") == missing
    assert error_of(iam.get_role_policy, RoleName=ROLE_NAME, PolicyName="hyperpod-tenant-data") == missing
    iam.delete_role(RoleName=ROLE_NAME)
    gone = ("NoSuchEntity", 404, f"The role with name {ROLE_NAME} cannot be found.")
    assert error_of(iam.get_role, RoleName=ROLE_NAME) == gone
    assert error_of(iam.delete_role, RoleName=ROLE_NAME) == gone
    assert error_of(iam.tag_role, RoleName=ROLE_NAME, Tags=[{"Key": "a", "Value": "b"}]) == gone


def test_creating_the_role_twice_is_a_conflict(iam):
    create_workload_role(iam)
    assert error_of(create_workload_role, iam) == (
        "EntityAlreadyExists", 409, f"Role with name {ROLE_NAME} already exists.")


# ---- 2. compute quota and its namespace ------------------------------------------------------------------------------
def test_compute_quota_creates_the_team_namespace(sandbox, kube):
    sm = sandbox.client("sagemaker")
    qid = create_team_quota(sm)
    helpers.wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), "Created")
    wait_namespace(kube)
    assert f"Namespace/{NS}" in sandbox.inventory()["kubernetes"][EKS]
    sm.delete_compute_quota(ComputeQuotaId=qid)
    helpers.wait_gone(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), qid)
    wait_namespace(kube, present=False)


# ---- 3. Kubernetes objects in the team namespace -----------------------------------------------------------------
RBAC = "/apis/rbac.authorization.k8s.io/v1"
NET = "/apis/networking.k8s.io/v1"
DENY = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
# What step 3 writes, by collection: (collection path, apiVersion, kind, name, body beyond metadata).
OBJECTS: dict[str, tuple[str, str, str, str, dict]] = {
    "serviceaccounts": (f"/api/v1/namespaces/{NS}/serviceaccounts", "v1", "ServiceAccount", "research-jobs", {}),
    "roles": (f"{RBAC}/namespaces/{NS}/roles", "rbac.authorization.k8s.io/v1", "Role", "hyperpod-tenant-viewer",
              {"rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list", "watch"]}]}),
    "rolebindings": (f"{RBAC}/namespaces/{NS}/rolebindings", "rbac.authorization.k8s.io/v1", "RoleBinding",
                     "hyperpod-tenant-viewer",
                     {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                  "name": "hyperpod-tenant-viewer"},
                      "subjects": [{"kind": "Group", "name": "research-viewers",
                                    "apiGroup": "rbac.authorization.k8s.io"}]}),
    "networkpolicies": (f"{NET}/namespaces/{NS}/networkpolicies", "networking.k8s.io/v1", "NetworkPolicy",
                        "hyperpod-tenant-default-deny", {"spec": DENY}),
}


def manifest(collection, labels=LABELS):
    _, api_version, kind, name, body = OBJECTS[collection]
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": NS,
                                                                  "labels": dict(labels)}, **body}


@pytest.fixture
def namespace(sandbox, kube):
    create_team_quota(sandbox.client("sagemaker"))
    wait_namespace(kube)


def test_the_provider_identity_is_the_clusters_creator_with_admin_access(sandbox, eks):
    arn = sandbox.client("sts").get_caller_identity()["Arn"]
    assert arn == f"arn:aws:sts::{ACCOUNT}:user/moto"
    entry = eks.list_associated_access_policies(clusterName=EKS, principalArn=f"arn:aws:iam::{ACCOUNT}:user/moto")
    assert [(p["policyArn"], p["accessScope"]["type"]) for p in entry["associatedAccessPolicies"]] == [
        (POLICY.format("AmazonEKSClusterAdminPolicy"), "cluster")]


@pytest.mark.parametrize("collection", list(OBJECTS))
def test_create_get_replace_delete_in_the_team_namespace(kube, namespace, collection):
    path, _, kind, name, _ = OBJECTS[collection]
    code, created = kube.post(path, manifest(collection))
    assert code == 201, created
    code, got = kube.get(f"{path}/{name}")
    assert code == 200 and got["kind"] == kind and got["metadata"]["labels"] == LABELS
    code, body = kube.post(path, manifest(collection))
    assert (code, body["reason"]) == (409, "AlreadyExists")

    replacement = manifest(collection, {**LABELS, "extra": "x"})
    replacement["metadata"]["resourceVersion"] = got["metadata"]["resourceVersion"]
    code, replaced = kube.put(f"{path}/{name}", replacement)
    assert code == 200 and replaced["metadata"]["labels"]["extra"] == "x"
    assert replaced["metadata"]["uid"] == got["metadata"]["uid"]
    code, body = kube.put(f"{path}/{name}", replacement)  # the resourceVersion is stale now
    assert (code, body["reason"]) == (409, "Conflict")
    unconditional = manifest(collection)  # no resourceVersion: replaces whatever is there
    assert kube.put(f"{path}/{name}", unconditional)[0] == 200

    code, status = kube.delete(f"{path}/{name}")
    assert (code, status["status"]) == (200, "Success")
    assert kube.get(f"{path}/{name}")[0] == 404
    assert kube.delete(f"{path}/{name}")[0] == 404


def test_network_policies_get_their_server_side_defaults(kube, namespace):
    path = OBJECTS["networkpolicies"][0]
    dns = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
           "metadata": {"name": "hyperpod-tenant-allow-dns", "labels": LABELS},
           "spec": {"podSelector": {}, "policyTypes": ["Egress"],
                    "egress": [{"to": [{"namespaceSelector": {}}], "ports": [{"port": 53, "protocol": "UDP"},
                                                                            {"port": 53}]}]}}
    code, created = kube.post(path, dns)
    assert code == 201 and created["spec"]["egress"][0]["ports"][1] == {"port": 53, "protocol": "TCP"}
    egress = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
              "metadata": {"name": "hyperpod-tenant-allow-egress", "labels": LABELS},
              "spec": {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/16"}}]}]}}
    code, created = kube.post(path, egress)
    assert code == 201 and created["spec"]["policyTypes"] == ["Ingress", "Egress"]  # defaulted from the rules


# ---- 4. Pod Identity association ---------------------------------------------------------------------------------
def test_pod_identity_association_with_a_cross_account_target(iam, eks):
    create_workload_role(iam)
    a = eks.create_pod_identity_association(clusterName=EKS, namespace=NS, serviceAccount="research-jobs",
                                            roleArn=ROLE_ARN, targetRoleArn=TARGET_ROLE, disableSessionTags=True,
                                            policy=SESSION_POLICY, tags={"hyperpod:tenant": TEAM})["association"]
    assert (a["roleArn"], a["targetRoleArn"], a["disableSessionTags"], a["policy"]) == (
        ROLE_ARN, TARGET_ROLE, True, SESSION_POLICY)
    assert a["externalId"] == f"{REGION}/{ACCOUNT}/{EKS}/{NS}/research-jobs"
    aid = a["associationId"]
    assert eks.describe_pod_identity_association(clusterName=EKS, associationId=aid)["association"] == a
    listed = eks.list_pod_identity_associations(clusterName=EKS, namespace=NS, serviceAccount="research-jobs")
    assert [x["associationId"] for x in listed["associations"]] == [aid]
    assert error_of(eks.create_pod_identity_association, clusterName=EKS, namespace=NS, serviceAccount="research-jobs",
                    roleArn=ROLE_ARN)[:2] == ("ResourceInUseException", 409)

    other_target = f"arn:aws:iam::{DATA}:role/research-datasets"
    u = eks.update_pod_identity_association(clusterName=EKS, associationId=aid,
                                            targetRoleArn=other_target)["association"]
    assert (u["targetRoleArn"], u["disableSessionTags"], u["policy"], u["createdAt"]) == (
        other_target, True, SESSION_POLICY, a["createdAt"])
    assert error_of(eks.update_pod_identity_association, clusterName=EKS, associationId=aid,
                    disableSessionTags=False)[:2] == ("InvalidParameterException", 400)  # the policy needs it

    assert eks.delete_pod_identity_association(clusterName=EKS, associationId=aid)["association"][
        "associationId"] == aid
    assert error_of(eks.describe_pod_identity_association, clusterName=EKS, associationId=aid)[:2] == (
        "ResourceNotFoundException", 404)
    assert error_of(eks.delete_pod_identity_association, clusterName=EKS, associationId=aid)[:2] == (
        "ResourceNotFoundException", 404)
    assert eks.list_pod_identity_associations(clusterName=EKS, namespace=NS)["associations"] == []


# ---- 5. access entries -------------------------------------------------------------------------------------------
def create_access_entries(eks):
    for principal, group, policy in ((VIEWERS, "research-viewers", "AmazonEKSViewPolicy"),
                                     (OPERATORS, "research-operators", "AmazonEKSEditPolicy")):
        eks.create_access_entry(clusterName=EKS, principalArn=principal, kubernetesGroups=[group])
        eks.associate_access_policy(clusterName=EKS, principalArn=principal, policyArn=POLICY.format(policy),
                                    accessScope={"type": "namespace", "namespaces": [NS]})


def test_access_entries_with_namespace_scoped_policies(eks):
    create_access_entries(eks)
    entry = eks.describe_access_entry(clusterName=EKS, principalArn=VIEWERS)["accessEntry"]
    assert (entry["kubernetesGroups"], entry["type"]) == (["research-viewers"], "STANDARD")
    assert entry["username"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/research-viewers/{{{{SessionName}}}}"
    listed = eks.list_associated_access_policies(clusterName=EKS, principalArn=OPERATORS)["associatedAccessPolicies"]
    assert [(p["policyArn"], p["accessScope"]) for p in listed] == [
        (POLICY.format("AmazonEKSEditPolicy"), {"type": "namespace", "namespaces": [NS]})]
    assert error_of(eks.create_access_entry, clusterName=EKS, principalArn=VIEWERS,
                    kubernetesGroups=["research-viewers"]) == (
        "ResourceInUseException", 409, "The specified access entry resource is already in use on this cluster.")
    for principal in (VIEWERS, OPERATORS):
        eks.delete_access_entry(clusterName=EKS, principalArn=principal)
        assert error_of(eks.describe_access_entry, clusterName=EKS, principalArn=principal)[:2] == (
            "ResourceNotFoundException", 404)
        assert error_of(eks.list_associated_access_policies, clusterName=EKS, principalArn=principal)[:2] == (
            "ResourceNotFoundException", 404)
        assert error_of(eks.delete_access_entry, clusterName=EKS, principalArn=principal)[:2] == (
            "ResourceNotFoundException", 404)


def test_namespace_scoped_entries_grant_what_they_say(sandbox, eks, tmp_path, namespace):
    create_access_entries(eks)
    sts = sandbox.client("sts")

    def kube_as(role_arn):
        c = sts.assume_role(RoleArn=role_arn, RoleSessionName="alice")["Credentials"]
        session = boto3.session.Session(aws_access_key_id=c["AccessKeyId"], aws_secret_access_key=c["SecretAccessKey"],
                                        aws_session_token=c["SessionToken"], region_name=REGION)
        return Kube(sandbox, tmp_path, EKS, session=session)

    path = OBJECTS["serviceaccounts"][0]
    viewer, operator = kube_as(VIEWERS), kube_as(OPERATORS)
    assert viewer.get(path)[0] == 200
    assert viewer.post(path, manifest("serviceaccounts"))[0] == 403
    assert viewer.get("/api/v1/namespaces/default/serviceaccounts")[0] == 403
    assert operator.post(path, manifest("serviceaccounts"))[0] == 201
    assert operator.post(OBJECTS["roles"][0], manifest("roles"))[0] == 403  # Edit does not write RBAC


# ---- 6. KMS grants -----------------------------------------------------------------------------------------------
def test_kms_grant_for_the_workload_role(iam, kms):
    create_workload_role(iam)
    grant = kms.create_grant(KeyId=KEY, GranteePrincipal=ROLE_ARN, Name=ROLE_NAME, Operations=GRANT_OPERATIONS)
    gid = grant["GrantId"]
    listed = kms.list_grants(KeyId=KEY, GrantId=gid)["Grants"]
    assert [(g["KeyId"], g["GrantId"], g["Name"], g["GranteePrincipal"], g["Operations"]) for g in listed] == [
        (KEY, gid, ROLE_NAME, ROLE_ARN, GRANT_OPERATIONS)]
    # AWS: a named CreateGrant retried with identical parameters returns the same grant (a new token)
    again = kms.create_grant(KeyId=KEY, GranteePrincipal=ROLE_ARN, Name=ROLE_NAME, Operations=GRANT_OPERATIONS)
    assert again["GrantId"] == gid and again["GrantToken"] != grant["GrantToken"]
    assert len(kms.list_grants(KeyId=KEY)["Grants"]) == 1
    assert [g["GrantId"] for g in kms.list_grants(KeyId=KEY, GranteePrincipal=ROLE_ARN)["Grants"]] == [gid]
    assert kms.list_grants(KeyId=KEY, GranteePrincipal=VIEWERS)["Grants"] == []

    kms.revoke_grant(KeyId=KEY, GrantId=gid)
    assert error_of(kms.list_grants, KeyId=KEY, GrantId=gid) == ("NotFoundException", 400, f"Grant ID {gid} not found")
    assert error_of(kms.revoke_grant, KeyId=KEY, GrantId=gid) == ("NotFoundException", 400, f"Grant ID {gid} not found")
    assert kms.list_grants(KeyId=KEY)["Grants"] == []


def test_kms_grant_on_the_data_accounts_key(iam, kms):
    create_workload_role(iam)
    gid = kms.create_grant(KeyId=DATA_KEY, GranteePrincipal=ROLE_ARN, Name=ROLE_NAME,
                           Operations=GRANT_OPERATIONS)["GrantId"]
    assert [g["KeyId"] for g in kms.list_grants(KeyId=DATA_KEY, GrantId=gid)["Grants"]] == [DATA_KEY]
    kms.revoke_grant(KeyId=DATA_KEY, GrantId=gid)


def test_kms_grants_paginate(kms, sandbox):
    helpers.make_principals(sandbox, *(f"arn:aws:iam::{ACCOUNT}:role/r{i}" for i in range(3)))
    for i in range(3):
        kms.create_grant(KeyId=KEY, GranteePrincipal=f"arn:aws:iam::{ACCOUNT}:role/r{i}", Operations=["Decrypt"])
    first = kms.list_grants(KeyId=KEY, Limit=2)
    rest = kms.list_grants(KeyId=KEY, Limit=2, Marker=first["NextMarker"])
    assert (len(first["Grants"]), first["Truncated"], len(rest["Grants"]), rest["Truncated"]) == (2, True, 1, False)


def test_kms_grant_operations_on_a_missing_key(kms):
    missing = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/00000000-0000-4000-8000-000000000000"
    expected = ("NotFoundException", 400, f"Key '{missing}' does not exist")
    assert error_of(kms.create_grant, KeyId=missing, GranteePrincipal=ROLE_ARN, Operations=["Decrypt"]) == expected
    assert error_of(kms.list_grants, KeyId=missing) == expected
    assert error_of(kms.revoke_grant, KeyId=missing, GrantId="0" * 64) == expected


# ---- faults on each composed call --------------------------------------------------------------------------------
CALLS = {  # operation -> (boto3 service, call); an `error` fault answers before validation, so dummy values do
    "CreateRole": ("iam", lambda c: c.create_role(RoleName="r", AssumeRolePolicyDocument="{}")),
    "PutRolePolicy": ("iam", lambda c: c.put_role_policy(RoleName="r", PolicyName="p", PolicyDocument="{}")),
    "GetRolePolicy": ("iam", lambda c: c.get_role_policy(RoleName="r", PolicyName="p")),
    "DeleteRolePolicy": ("iam", lambda c: c.delete_role_policy(RoleName="r", PolicyName="p")),
    "DeleteRole": ("iam", lambda c: c.delete_role(RoleName="r")),
    "TagRole": ("iam", lambda c: c.tag_role(RoleName="r", Tags=[{"Key": "k", "Value": "v"}])),
    "CreateComputeQuota": ("sagemaker", lambda c: create_team_quota(c)),
    "DescribeComputeQuota": ("sagemaker", lambda c: c.describe_compute_quota(ComputeQuotaId="abcdef123456")),
    "DeleteComputeQuota": ("sagemaker", lambda c: c.delete_compute_quota(ComputeQuotaId="abcdef123456")),
    "CreatePodIdentityAssociation": ("eks", lambda c: c.create_pod_identity_association(
        clusterName=EKS, namespace=NS, serviceAccount="sa", roleArn=ROLE_ARN)),
    "DescribePodIdentityAssociation": ("eks", lambda c: c.describe_pod_identity_association(
        clusterName=EKS, associationId="a-00000000000000000")),
    "UpdatePodIdentityAssociation": ("eks", lambda c: c.update_pod_identity_association(
        clusterName=EKS, associationId="a-00000000000000000", roleArn=ROLE_ARN)),
    "DeletePodIdentityAssociation": ("eks", lambda c: c.delete_pod_identity_association(
        clusterName=EKS, associationId="a-00000000000000000")),
    "ListPodIdentityAssociations": ("eks", lambda c: c.list_pod_identity_associations(clusterName=EKS)),
    "CreateAccessEntry": ("eks", lambda c: c.create_access_entry(clusterName=EKS, principalArn=VIEWERS)),
    "AssociateAccessPolicy": ("eks", lambda c: c.associate_access_policy(
        clusterName=EKS, principalArn=VIEWERS, policyArn=POLICY.format("AmazonEKSViewPolicy"),
        accessScope={"type": "namespace", "namespaces": [NS]})),
    "DescribeAccessEntry": ("eks", lambda c: c.describe_access_entry(clusterName=EKS, principalArn=VIEWERS)),
    "ListAssociatedAccessPolicies": ("eks", lambda c: c.list_associated_access_policies(clusterName=EKS,
                                                                                        principalArn=VIEWERS)),
    "DeleteAccessEntry": ("eks", lambda c: c.delete_access_entry(clusterName=EKS, principalArn=VIEWERS)),
    "CreateGrant": ("kms", lambda c: c.create_grant(KeyId=KEY, GranteePrincipal=ROLE_ARN, Operations=["Decrypt"])),
    "ListGrants": ("kms", lambda c: c.list_grants(KeyId=KEY)),
    "RevokeGrant": ("kms", lambda c: c.revoke_grant(KeyId=KEY, GrantId="0" * 64)),
}
ACCESS_DENIED = {"iam": ("AccessDenied", 403), "sagemaker": ("AccessDeniedException", 400),
                 "eks": ("AccessDeniedException", 403), "kms": ("AccessDeniedException", 400)}


@pytest.mark.parametrize("operation", list(CALLS))
def test_each_composed_aws_call_can_be_faulted(sandbox, operation):
    service, call = CALLS[operation]
    code, status = ACCESS_DENIED[service]
    sandbox.fault(operation, code=code, status=status, message="not allowed (sandbox fault)", service=service)
    assert error_of(call, sandbox.client(service)) == (code, status, "not allowed (sandbox fault)")
    assert sandbox.calls()[f"{service}.{operation}"] == 1
    assert sandbox.admin("GET", "faults")["faults"] == []  # count 1: consumed


@pytest.mark.parametrize("collection", list(OBJECTS))
def test_each_kubernetes_write_can_be_faulted(sandbox, kube, namespace, collection):
    path, _, _, name, _ = OBJECTS[collection]
    sandbox.fault(f"kubernetes.create.{collection}", code="Forbidden", status=403, count=None)
    code, body = kube.post(path, manifest(collection))
    assert (code, body["kind"], body["reason"], body["code"]) == (403, "Status", "Forbidden", 403)
    assert kube.get(f"{path}/{name}")[0] == 404  # nothing was written
    sandbox.clear_faults()
    assert kube.post(path, manifest(collection))[0] == 201
    for verb, request in (("update", lambda: kube.put(f"{path}/{name}", manifest(collection))),
                          ("get", lambda: kube.get(f"{path}/{name}")),
                          ("delete", lambda: kube.delete(f"{path}/{name}"))):
        sandbox.fault(f"kubernetes.{verb}.{collection}", "server_error", status=503)
        code, body = request()
        assert (code, body["reason"]) == (503, "ServiceUnavailable"), verb
    assert sandbox.calls()[f"kubernetes.create.{collection}"] == 2
    assert kube.get(f"{path}/{name}")[0] == 200  # the failed delete deleted nothing
