"""GET /_sandbox/inventory (sandbox/inventory.py, harness `Sandbox.inventory()`): a deterministic snapshot of what
tests create or leave behind."""
import json

import pytest

ACCOUNT, REGION = "123456789012", "us-west-2"
KEY = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


def test_the_seed_inventory_is_the_same_after_every_reset(sandbox):
    first = sandbox.inventory()
    sandbox.client("iam").create_role(RoleName="temporary", AssumeRolePolicyDocument=TRUST)
    sandbox.reset()
    assert sandbox.inventory() == first
    sandbox.reset()
    assert json.dumps(sandbox.inventory()) == json.dumps(first)  # same order too


def test_the_seed_inventory(sandbox):
    inv = sandbox.inventory()
    assert set(inv) == {"iam_roles", "sagemaker", "eks", "kms_grants", "kubernetes", "datazone", "ssm_parameters"}
    assert inv["ssm_parameters"] == {}  # the project bindings' member records (none seeded)
    assert inv["datazone"] == {"dzd_capacity01": {"connections": {}, "policy_grants": {},
                                                  "memberships": {"production0001": [], "research000001": []}}}
    roles = inv["iam_roles"][ACCOUNT]
    assert roles["datazone_usr_role_research"] == {
        "path": "/", "inline_policies": ["hyperpod-read"], "attached_policies": [],
        "tags": {"AmazonDataZoneDomain": "dzd_capacity01", "AmazonDataZoneProject": "research000001"}}
    assert roles["overprivileged-project-role"]["attached_policies"] == [
        "arn:aws:iam::aws:policy/AmazonSageMakerFullAccess"]
    assert set(inv["iam_roles"]) == {ACCOUNT, "444455556666", "777788889999"}
    assert inv["sagemaker"] == {"compute_quotas": [], "scheduler_configs": []}
    entries = inv["eks"]["ml-capacity-eks"]["access_entries"]
    assert sorted(entries) == [f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin",
                               f"arn:aws:iam::{ACCOUNT}:user/moto"]
    assert entries[f"arn:aws:iam::{ACCOUNT}:user/moto"]["policies"] == {
        "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy": {"type": "cluster", "namespaces": []}}
    assert inv["eks"]["ml-capacity-eks"]["pod_identity_associations"] == {}
    assert inv["kms_grants"] == {}
    assert sorted(inv["kubernetes"]["ml-capacity-eks"]) == [
        "Namespace/default", "Namespace/kube-public", "Namespace/kube-system"]
    assert "uid" not in inv["kubernetes"]["ml-capacity-eks"]["Namespace/default"]["metadata"]
    # The second seeded EKS cluster (OBS-1 tests): only its creator's bootstrap entry, its own Kubernetes API.
    assert set(inv["eks"]) == set(inv["kubernetes"]) == {"ml-capacity-eks", "legacy-capacity-eks"}
    assert sorted(inv["eks"]["legacy-capacity-eks"]["access_entries"]) == [f"arn:aws:iam::{ACCOUNT}:user/moto"]
    assert inv["eks"]["legacy-capacity-eks"]["pod_identity_associations"] == {}
    assert sorted(inv["kubernetes"]["legacy-capacity-eks"]) == [
        "Namespace/default", "Namespace/kube-public", "Namespace/kube-system"]
    assert {"legacy-capacity-eks-cluster-role", "legacy-capacity-node-role"} <= set(roles)


def test_the_inventory_shows_what_was_created(sandbox, tmp_path):
    seed = sandbox.inventory()
    iam, eks, kms = sandbox.client("iam"), sandbox.client("eks"), sandbox.client("kms")
    role = iam.create_role(RoleName="hyperpod-ml-capacity-research", AssumeRolePolicyDocument=TRUST,
                           Tags=[{"Key": "hyperpod:tenant", "Value": "research"}])["Role"]["Arn"]
    iam.put_role_policy(RoleName="hyperpod-ml-capacity-research", PolicyName="hyperpod-tenant-data",
                        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
                            {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": KEY}]}))
    eks.create_pod_identity_association(clusterName="ml-capacity-eks", namespace="hyperpod-ns-research",
                                        serviceAccount="research-jobs", roleArn=role)
    eks.create_access_entry(clusterName="ml-capacity-eks", principalArn=f"arn:aws:iam::{ACCOUNT}:role/research-viewers",
                            kubernetesGroups=["research-viewers"])
    kms.create_grant(KeyId=KEY, GranteePrincipal=role, Name="hyperpod-ml-capacity-research", Operations=["Decrypt"])
    sandbox.client("sagemaker").create_compute_quota(
        Name="research-quota", ClusterArn=ML_ARN, ComputeQuotaTarget={"TeamName": "research"},
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}]})
    inv = sandbox.inventory()
    assert inv != seed
    assert inv["iam_roles"][ACCOUNT]["hyperpod-ml-capacity-research"] == {
        "path": "/", "inline_policies": ["hyperpod-tenant-data"], "attached_policies": [],
        "tags": {"hyperpod:tenant": "research"}}
    assert inv["eks"]["ml-capacity-eks"]["pod_identity_associations"] == {"hyperpod-ns-research/research-jobs": {
        "role_arn": role, "target_role_arn": None, "disable_session_tags": False, "session_policy": None, "tags": {}}}
    assert inv["eks"]["ml-capacity-eks"]["access_entries"][f"arn:aws:iam::{ACCOUNT}:role/research-viewers"][
        "kubernetes_groups"] == ["research-viewers"]
    assert inv["kms_grants"] == {KEY: [{"name": "hyperpod-ml-capacity-research", "grantee": role,
                                        "operations": ["Decrypt"], "retiring_principal": None, "constraints": None}]}
    assert inv["sagemaker"]["compute_quotas"] == [{"cluster": "ml-capacity", "name": "research-quota",
                                                   "team": "research"}]
    sandbox.reset()
    assert sandbox.inventory() == seed


def test_the_inventory_shows_datazone_connections_memberships_and_grants(sandbox):
    seed = sandbox.inventory()
    dz = sandbox.client("datazone")
    connection = dz.create_connection(
        domainIdentifier="dzd_capacity01", environmentIdentifier="restooling0001", name="hyperpod-ml-capacity-research",
        description="research on ml-capacity", props={"hyperPodProperties": {"clusterName": "ml-capacity"}})
    (leads,) = [g["id"] for g in dz.search_group_profiles(domainIdentifier="dzd_capacity01", groupType="SSO_GROUP",
                                                          searchText="research-leads")["items"]
                if g["groupName"] == "research-leads"]
    dz.create_project_membership(domainIdentifier="dzd_capacity01", projectIdentifier="research000001",
                                 member={"groupIdentifier": leads}, designation="PROJECT_OWNER")
    principal = {"domainUnit": {"domainUnitDesignation": "OWNER",
                                "domainUnitIdentifier": "mlplatform0001"}}
    detail = {"createProjectFromProjectProfile": {"projectProfiles": ["hyperpodprof01"]}}
    dz.add_policy_grant(domainIdentifier="dzd_capacity01", entityType="DOMAIN_UNIT", entityIdentifier="mlplatform0001",
                        policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE", principal=principal, detail=detail)
    inv = sandbox.inventory()["datazone"]["dzd_capacity01"]
    assert inv["connections"] == {"hyperpod-ml-capacity-research": {
        "type": "HYPERPOD", "scope": "PROJECT", "project": "research000001", "environment": "restooling0001",
        "description": "research on ml-capacity",
        "props": {"hyperPodProperties": {"clusterName": "ml-capacity", "clusterArn": ML_ARN, "orchestrator": "EKS"}}}}
    assert inv["memberships"] == {"production0001": [], "research000001": [f"group:{leads}:PROJECT_OWNER"]}
    assert inv["policy_grants"] == {"DOMAIN_UNIT/mlplatform0001": [
        {"policy_type": "CREATE_PROJECT_FROM_PROJECT_PROFILE", "principal": principal, "detail": detail}]}
    dz.delete_connection(domainIdentifier="dzd_capacity01", identifier=connection["connectionId"])
    dz.delete_project_membership(domainIdentifier="dzd_capacity01", projectIdentifier="research000001",
                                 member={"groupIdentifier": leads})
    dz.remove_policy_grant(domainIdentifier="dzd_capacity01", entityType="DOMAIN_UNIT",
                           entityIdentifier="mlplatform0001", policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE",
                           principal=principal)
    assert sandbox.inventory() == seed


def test_inventory_is_sandbox_only():
    from harness import RealAws
    assert RealAws.inventory is RealAws.admin  # skips with HYPERPOD_REAL_AWS=1
