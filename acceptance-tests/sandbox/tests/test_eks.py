"""EKS in the sandbox, through boto3: clusters' access config and endpoint access, access entries, access
policies, Pod Identity associations, add-ons; rejections with EKS's codes and HTTP statuses.

Run: $VENV/bin/python -m pytest sandbox/tests/test_eks.py   (from acceptance-tests/)
"""
import base64
import json
import re

import pytest

from helpers import error_of, make_principals

ACCOUNT, REGION = "123456789012", "us-west-2"
SEEDED = "ml-capacity-eks"
EKS_ARN = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{SEEDED}"
LEGACY = "legacy-capacity-eks"  # the seed's second EKS cluster: the observability add-on older than 2.4.0 (OBS-1)
ADMIN_ROLE = f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"
DEFAULT_CALLER = f"arn:aws:iam::{ACCOUNT}:user/moto"  # what moto's STS says for the harness's dummy keys
POLICY = "arn:aws:eks::aws:cluster-access-policy/{}"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/team-a"
POD_ROLE = f"arn:aws:iam::{ACCOUNT}:role/pod-identity"
TARGET_ROLE = "arn:aws:iam::777788889999:role/data-reader"
CW = "amazon-cloudwatch-observability"
TG = "amazon-sagemaker-hyperpod-taskgovernance"
VPC = {"subnetIds": ["subnet-0a1b2c3d4e5f60001"], "securityGroupIds": ["sg-0a1b2c3d4e5f60001"]}


# Principals the tests name: EKS refuses one IAM does not know (see test_principals_must_exist).
PRINCIPALS = (ROLE, POD_ROLE, f"arn:aws:iam::{ACCOUNT}:role/node", f"arn:aws:iam::{ACCOUNT}:user/alice",
              *(f"arn:aws:iam::{ACCOUNT}:role/r{i}" for i in range(3)))


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()
    make_principals(sandbox, *PRINCIPALS)


@pytest.fixture
def eks(sandbox):
    return sandbox.client("eks")




def make_cluster(eks, name="extra", mode=None, bootstrap=None, **vpc):
    access = {}
    if mode:
        access["authenticationMode"] = mode
    if bootstrap is not None:
        access["bootstrapClusterCreatorAdminPermissions"] = bootstrap
    kwargs = {"accessConfig": access} if access else {}
    return eks.create_cluster(name=name, roleArn=f"arn:aws:iam::{ACCOUNT}:role/eks-cluster-role",
                              resourcesVpcConfig={**VPC, **vpc}, **kwargs)["cluster"]


# ---- seed -------------------------------------------------------------------------------------------
def test_seeded_cluster(eks, sandbox):
    c = eks.describe_cluster(name=SEEDED)["cluster"]
    assert c["arn"] == EKS_ARN and c["status"] == "ACTIVE"
    assert c["accessConfig"] == {"authenticationMode": "API_AND_CONFIG_MAP",
                                 "bootstrapClusterCreatorAdminPermissions": True}
    vpc = c["resourcesVpcConfig"]
    assert (vpc["endpointPublicAccess"], vpc["endpointPrivateAccess"], vpc["publicAccessCidrs"]) == \
        (True, True, ["203.0.113.0/24"])
    assert eks.list_access_entries(clusterName=SEEDED)["accessEntries"] == [ADMIN_ROLE, DEFAULT_CALLER]
    [assoc] = eks.list_associated_access_policies(clusterName=SEEDED, principalArn=ADMIN_ROLE)[
        "associatedAccessPolicies"]
    assert assoc["policyArn"] == POLICY.format("AmazonEKSClusterAdminPolicy")
    assert assoc["accessScope"]["type"] == "cluster"
    addon = eks.describe_addon(clusterName=SEEDED, addonName=CW)["addon"]
    assert (addon["addonVersion"], addon["status"]) == ("v2.4.0-eksbuild.1", "ACTIVE")  # OBS-1 compliant
    assert sandbox.health()["seed"]["eks"]["clusters"][SEEDED]["endpoint"] == c["endpoint"]


def test_seeded_legacy_cluster_has_the_old_observability_addon(eks, sandbox):
    c = eks.describe_cluster(name=LEGACY)["cluster"]
    assert c["arn"] == f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{LEGACY}" and c["status"] == "ACTIVE"
    assert c["roleArn"] == f"arn:aws:iam::{ACCOUNT}:role/legacy-capacity-eks-cluster-role"
    assert c["accessConfig"] == {"authenticationMode": "API_AND_CONFIG_MAP",
                                 "bootstrapClusterCreatorAdminPermissions": True}
    vpc = c["resourcesVpcConfig"]
    assert (vpc["endpointPublicAccess"], vpc["endpointPrivateAccess"], vpc["publicAccessCidrs"]) == \
        (True, True, ["203.0.113.0/24"])
    assert eks.list_access_entries(clusterName=LEGACY)["accessEntries"] == [DEFAULT_CALLER]  # the creator only
    assert eks.list_addons(clusterName=LEGACY)["addons"] == [CW, TG]  # task governance: quotas need it
    addon = eks.describe_addon(clusterName=LEGACY, addonName=CW)["addon"]
    assert (addon["addonVersion"], addon["status"]) == ("v2.3.0-eksbuild.1", "ACTIVE")  # older than 2.4.0: OBS-1
    assert addon["addonArn"].startswith(f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{LEGACY}/{CW}/")
    assert re.fullmatch(rf"https://127\.0\.0\.1:\d+/clusters/{LEGACY}", c["endpoint"])
    assert sandbox.health()["seed"]["eks"]["clusters"][LEGACY]["endpoint"] == c["endpoint"]
    assert sorted(eks.list_clusters()["clusters"]) == [LEGACY, SEEDED]


def test_endpoint_and_ca_point_at_the_sandbox_kubernetes_api(eks):
    c = eks.describe_cluster(name=SEEDED)["cluster"]
    assert re.fullmatch(rf"https://127\.0\.0\.1:\d+/clusters/{SEEDED}", c["endpoint"])
    pem = base64.b64decode(c["certificateAuthority"]["data"]).decode()
    assert pem.startswith("-----BEGIN CERTIFICATE-----")
    other = make_cluster(eks)
    assert eks.describe_cluster(name="extra")["cluster"]["endpoint"] == c["endpoint"].replace(SEEDED, "extra")
    assert other["certificateAuthority"]["data"] == c["certificateAuthority"]["data"]


# ---- clusters: access config ----------------------------------------------------------------------------------
def test_create_cluster_defaults_to_config_map_with_bootstrap(eks):
    c = make_cluster(eks)
    assert c["accessConfig"] == {"authenticationMode": "CONFIG_MAP", "bootstrapClusterCreatorAdminPermissions": True}
    vpc = eks.describe_cluster(name="extra")["cluster"]["resourcesVpcConfig"]
    assert (vpc["endpointPublicAccess"], vpc["endpointPrivateAccess"], vpc["publicAccessCidrs"]) == \
        (True, False, ["0.0.0.0/0"])


def test_create_cluster_api_mode_bootstraps_creator_access_entry(eks):
    make_cluster(eks, mode="API")
    assert eks.list_access_entries(clusterName="extra")["accessEntries"] == [DEFAULT_CALLER]
    [assoc] = eks.list_associated_access_policies(clusterName="extra", principalArn=DEFAULT_CALLER)[
        "associatedAccessPolicies"]
    assert assoc["policyArn"] == POLICY.format("AmazonEKSClusterAdminPolicy")
    make_cluster(eks, name="nobootstrap", mode="API", bootstrap=False)
    assert eks.list_access_entries(clusterName="nobootstrap")["accessEntries"] == []


def test_create_cluster_rejections(eks):
    code, status, msg = error_of(make_cluster, eks, mode="CONFIG_MAP", bootstrap=False)
    assert (code, status) == ("InvalidParameterException", 400)
    assert msg == ("bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to "
                   "CONFIG_MAP")
    assert error_of(make_cluster, eks, endpointPublicAccess=False, endpointPrivateAccess=False)[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(make_cluster, eks, publicAccessCidrs=["203.0.113.0/33"])[:2] == ("InvalidParameterException", 400)
    assert error_of(make_cluster, eks, name=SEEDED)[:2] == ("ResourceInUseException", 409)


def test_authentication_mode_only_widens_one_step(eks):
    make_cluster(eks)
    code, status, msg = error_of(eks.update_cluster_config, name="extra", accessConfig={"authenticationMode": "API"})
    assert (code, status, msg) == ("InvalidParameterException", 400,
                                   "Unsupported authentication mode update from CONFIG_MAP to API")
    update = eks.update_cluster_config(name="extra",
                                       accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"})["update"]
    assert update["type"] == "AccessConfigUpdate" and update["status"] == "InProgress"
    assert update["params"] == [{"type": "AuthenticationMode", "value": "API_AND_CONFIG_MAP"}]
    assert eks.describe_update(name="extra", updateId=update["id"])["update"]["status"] == "Successful"
    assert eks.list_updates(name="extra")["updateIds"] == [update["id"]]
    # widening from CONFIG_MAP gives the creator the access entry it implicitly had
    assert eks.list_access_entries(clusterName="extra")["accessEntries"] == [DEFAULT_CALLER]
    for same_or_back in ("API_AND_CONFIG_MAP", "CONFIG_MAP"):
        assert error_of(eks.update_cluster_config, name="extra",
                        accessConfig={"authenticationMode": same_or_back})[:2] == ("InvalidParameterException", 400)
    eks.update_cluster_config(name="extra", accessConfig={"authenticationMode": "API"})
    assert eks.describe_cluster(name="extra")["cluster"]["accessConfig"]["authenticationMode"] == "API"
    assert error_of(eks.update_cluster_config, name="extra",
                    accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"})[2] == \
        "Unsupported authentication mode update from API to API_AND_CONFIG_MAP"


def test_update_endpoint_access(eks):
    update = eks.update_cluster_config(name=SEEDED, resourcesVpcConfig={
        "endpointPublicAccess": False, "endpointPrivateAccess": True})["update"]
    assert update["type"] == "EndpointAccessUpdate"
    vpc = eks.describe_cluster(name=SEEDED)["cluster"]["resourcesVpcConfig"]
    assert (vpc["endpointPublicAccess"], vpc["endpointPrivateAccess"]) == (False, True)
    eks.update_cluster_config(name=SEEDED, resourcesVpcConfig={"endpointPublicAccess": True,
                                                               "publicAccessCidrs": ["198.51.100.0/24"]})
    vpc = eks.describe_cluster(name=SEEDED)["cluster"]["resourcesVpcConfig"]
    assert vpc["publicAccessCidrs"] == ["198.51.100.0/24"] and vpc["subnetIds"] == VPC["subnetIds"] + [
        "subnet-0a1b2c3d4e5f60002"]


def test_update_cluster_config_rejections(eks):
    assert error_of(eks.update_cluster_config, name=SEEDED, resourcesVpcConfig={"endpointPrivateAccess": True},
                    accessConfig={"authenticationMode": "API"})[:3] == (
        "InvalidParameterException", 400, "Only one type of update can be allowed.")
    assert error_of(eks.update_cluster_config, name=SEEDED,
                    resourcesVpcConfig={"endpointPublicAccess": False, "endpointPrivateAccess": False})[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(eks.update_cluster_config, name=SEEDED, resourcesVpcConfig={"endpointPrivateAccess": True})[:2] == \
        ("InvalidParameterException", 400)  # already at the desired configuration
    assert error_of(eks.update_cluster_config, name="missing", accessConfig={"authenticationMode": "API"})[:2] == \
        ("ResourceNotFoundException", 404)
    assert error_of(eks.describe_update, name=SEEDED, updateId="00000000-0000-0000-0000-000000000000")[:2] == \
        ("ResourceNotFoundException", 404)


# ---- access entries ----------------------------------------------------------------------------------------------
def test_access_entry_lifecycle(eks):
    entry = eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE, kubernetesGroups=["team-a-viewers"],
                                    tags={"team": "a"})["accessEntry"]
    assert entry["type"] == "STANDARD" and entry["kubernetesGroups"] == ["team-a-viewers"]
    assert entry["username"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/team-a/{{{{SessionName}}}}"
    assert re.fullmatch(rf"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/{SEEDED}/role/{ACCOUNT}/team-a/[0-9a-f-]{{36}}",
                        entry["accessEntryArn"])
    assert eks.describe_access_entry(clusterName=SEEDED, principalArn=ROLE)["accessEntry"] == entry
    updated = eks.update_access_entry(clusterName=SEEDED, principalArn=ROLE, kubernetesGroups=["g1", "g2"],
                                      username="team-a-user")["accessEntry"]
    assert (updated["kubernetesGroups"], updated["username"], updated["createdAt"]) == \
        (["g1", "g2"], "team-a-user", entry["createdAt"])
    assert ROLE in eks.list_access_entries(clusterName=SEEDED)["accessEntries"]
    eks.delete_access_entry(clusterName=SEEDED, principalArn=ROLE)
    assert error_of(eks.describe_access_entry, clusterName=SEEDED, principalArn=ROLE)[:2] == \
        ("ResourceNotFoundException", 404)
    assert error_of(eks.delete_access_entry, clusterName=SEEDED, principalArn=ROLE)[:2] == \
        ("ResourceNotFoundException", 404)


def test_access_entry_user_and_node_types(eks):
    user = f"arn:aws:iam::{ACCOUNT}:user/alice"
    assert eks.create_access_entry(clusterName=SEEDED, principalArn=user)["accessEntry"]["username"] == user
    node = eks.create_access_entry(clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/node",
                                   type="EC2_LINUX")["accessEntry"]
    assert (node["type"], node["username"], node["kubernetesGroups"]) == \
        ("EC2_LINUX", "system:node:{{EC2PrivateDNSName}}", ["system:nodes"])


def test_access_entry_rejections(eks):
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    code, status, msg = error_of(eks.create_access_entry, clusterName=SEEDED, principalArn=ROLE)
    assert (code, status, msg) == ("ResourceInUseException", 409,
                                   "The specified access entry resource is already in use on this cluster.")
    for bad in (f"arn:aws:sts::{ACCOUNT}:assumed-role/team-a/session", "team-a", f"arn:aws:iam::{ACCOUNT}:group/x"):
        assert error_of(eks.create_access_entry, clusterName=SEEDED, principalArn=bad)[:2] == \
            ("InvalidParameterException", 400)
    assert error_of(eks.create_access_entry, clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/n",
                    type="EC2_LINUX", kubernetesGroups=["x"])[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_access_entry, clusterName=SEEDED, principalArn="arn:aws:iam::444455556666:role/n",
                    type="EC2_LINUX")[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_access_entry, clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/u",
                    username="system:admin")[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_access_entry, clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/u",
                    type="BOGUS")[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_access_entry, clusterName="missing", principalArn=ROLE)[:2] == \
        ("ResourceNotFoundException", 404)
    # a cross-account STANDARD principal is fine
    eks.create_access_entry(clusterName=SEEDED, principalArn="arn:aws:iam::444455556666:role/research-consumer")


def test_access_entries_need_an_api_authentication_mode(eks):
    make_cluster(eks)  # CONFIG_MAP
    code, status, msg = error_of(eks.create_access_entry, clusterName="extra", principalArn=ROLE)
    assert (code, status, msg) == ("InvalidRequestException", 400, "The cluster's authentication mode must be set to "
                                   "one of [API, API_AND_CONFIG_MAP] to perform this operation.")
    assert error_of(eks.list_access_entries, clusterName="extra")[:2] == ("InvalidRequestException", 400)


def test_list_access_entries_filter_and_pages(eks):
    for i in range(3):
        eks.create_access_entry(clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/r{i}")
    admins = eks.list_access_entries(clusterName=SEEDED,
                                     associatedPolicyArn=POLICY.format("AmazonEKSClusterAdminPolicy"))
    assert admins["accessEntries"] == [ADMIN_ROLE, DEFAULT_CALLER]
    first = eks.list_access_entries(clusterName=SEEDED, maxResults=2)
    rest = eks.list_access_entries(clusterName=SEEDED, maxResults=10, nextToken=first["nextToken"])
    assert len(first["accessEntries"]) == 2 and len(rest["accessEntries"]) == 3 and "nextToken" not in rest


# ---- access policies ---------------------------------------------------------------------------------------------
def test_list_access_policies(eks):
    policies = {p["name"]: p["arn"] for p in eks.list_access_policies()["accessPolicies"]}
    for name in ("AmazonEKSAdminPolicy", "AmazonEKSClusterAdminPolicy", "AmazonEKSEditPolicy", "AmazonEKSViewPolicy",
                 "AmazonEKSAdminViewPolicy", "AmazonSagemakerHyperpodTrainingPolicy",
                 "AmazonSagemakerHyperpodInferencePolicy", "AmazonSagemakerHyperpodSpacePolicy",
                 "AmazonSagemakerHyperpodSpaceTemplatePolicy", "AmazonSagemakerHyperpodUserClusterPolicy"):
        assert policies[name] == f"arn:aws:eks::aws:cluster-access-policy/{name}"


def test_associate_list_disassociate_access_policies(eks):
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    training = POLICY.format("AmazonSagemakerHyperpodTrainingPolicy")
    out = eks.associate_access_policy(clusterName=SEEDED, principalArn=ROLE, policyArn=training,
                                      accessScope={"type": "namespace", "namespaces": ["hyperpod-ns-team-a"]})
    assert out["clusterName"] == SEEDED and out["principalArn"] == ROLE
    assert out["associatedAccessPolicy"]["accessScope"] == {"type": "namespace", "namespaces": ["hyperpod-ns-team-a"]}
    eks.associate_access_policy(clusterName=SEEDED, principalArn=ROLE,
                                policyArn=POLICY.format("AmazonSagemakerHyperpodUserClusterPolicy"),
                                accessScope={"type": "cluster"})
    # re-associating replaces the scope
    again = eks.associate_access_policy(clusterName=SEEDED, principalArn=ROLE, policyArn=training,
                                        accessScope={"type": "namespace", "namespaces": ["a", "dev-*"]})
    assert again["associatedAccessPolicy"]["associatedAt"] == out["associatedAccessPolicy"]["associatedAt"]
    listed = eks.list_associated_access_policies(clusterName=SEEDED, principalArn=ROLE)["associatedAccessPolicies"]
    assert {p["policyArn"]: p["accessScope"]["namespaces"] for p in listed} == {
        training: ["a", "dev-*"], POLICY.format("AmazonSagemakerHyperpodUserClusterPolicy"): []}
    assert eks.list_access_entries(clusterName=SEEDED, associatedPolicyArn=training)["accessEntries"] == [ROLE]
    eks.disassociate_access_policy(clusterName=SEEDED, principalArn=ROLE, policyArn=training)
    assert error_of(eks.disassociate_access_policy, clusterName=SEEDED, principalArn=ROLE, policyArn=training)[:2] == \
        ("ResourceNotFoundException", 404)
    assert len(eks.list_associated_access_policies(clusterName=SEEDED, principalArn=ROLE)[
        "associatedAccessPolicies"]) == 1


def test_associate_access_policy_rejections(eks):
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    view = POLICY.format("AmazonEKSViewPolicy")
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=ROLE, policyArn=view,
                    accessScope={"type": "namespace"})[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=ROLE, policyArn=view,
                    accessScope={"type": "cluster", "namespaces": ["a"]})[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=ROLE,
                    policyArn=POLICY.format("AmazonSagemakerHyperpodUserClusterPolicy"),
                    accessScope={"type": "namespace", "namespaces": ["a"]})[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=ROLE,
                    policyArn=POLICY.format("AmazonEKSNoSuchPolicy"), accessScope={"type": "cluster"})[:2] == \
        ("ResourceNotFoundException", 404)
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=f"arn:aws:iam::{ACCOUNT}:role/none",
                    policyArn=view, accessScope={"type": "cluster"})[:2] == ("ResourceNotFoundException", 404)
    node = f"arn:aws:iam::{ACCOUNT}:role/node"
    eks.create_access_entry(clusterName=SEEDED, principalArn=node, type="EC2_LINUX")
    assert error_of(eks.associate_access_policy, clusterName=SEEDED, principalArn=node, policyArn=view,
                    accessScope={"type": "cluster"}) == (
        "InvalidParameterException", 400,
        'This operation can only be performed on Access Entries with a type of "STANDARD".')


def test_deleting_an_access_entry_drops_its_policies(eks):
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    eks.associate_access_policy(clusterName=SEEDED, principalArn=ROLE, policyArn=POLICY.format("AmazonEKSViewPolicy"),
                                accessScope={"type": "cluster"})
    eks.delete_access_entry(clusterName=SEEDED, principalArn=ROLE)
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    assert eks.list_associated_access_policies(clusterName=SEEDED, principalArn=ROLE)["associatedAccessPolicies"] == []


# ---- Pod Identity associations -----------------------------------------------------------------------------------
def test_pod_identity_association_lifecycle(eks):
    a = eks.create_pod_identity_association(clusterName=SEEDED, namespace="hyperpod-ns-team-a",
                                            serviceAccount="trainer", roleArn=POD_ROLE, targetRoleArn=TARGET_ROLE,
                                            tags={"team": "a"})["association"]
    assert re.fullmatch(r"a-[a-z0-9]{17}", a["associationId"])
    assert a["associationArn"] == f"arn:aws:eks:{REGION}:{ACCOUNT}:podidentityassociation/{SEEDED}/{a['associationId']}"
    assert a["disableSessionTags"] is False and a["targetRoleArn"] == TARGET_ROLE
    assert a["externalId"] == f"{REGION}/{ACCOUNT}/{SEEDED}/hyperpod-ns-team-a/trainer"
    assert "policy" not in a
    assert eks.describe_pod_identity_association(clusterName=SEEDED, associationId=a["associationId"])[
        "association"] == a
    session_policy = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]})
    u = eks.update_pod_identity_association(clusterName=SEEDED, associationId=a["associationId"],
                                            disableSessionTags=True, policy=session_policy)["association"]
    assert (u["disableSessionTags"], u["policy"], u["roleArn"]) == (True, session_policy, POD_ROLE)
    listed = eks.list_pod_identity_associations(clusterName=SEEDED, namespace="hyperpod-ns-team-a")["associations"]
    assert listed == [{k: a[k] for k in ("clusterName", "namespace", "serviceAccount", "associationArn",
                                         "associationId")}]
    assert eks.list_pod_identity_associations(clusterName=SEEDED, serviceAccount="other")["associations"] == []
    deleted = eks.delete_pod_identity_association(clusterName=SEEDED, associationId=a["associationId"])["association"]
    assert deleted["associationId"] == a["associationId"]
    assert error_of(eks.describe_pod_identity_association, clusterName=SEEDED,
                    associationId=a["associationId"])[:2] == ("ResourceNotFoundException", 404)


def test_pod_identity_association_rejections(eks):
    kwargs = dict(clusterName=SEEDED, namespace="ns", serviceAccount="sa", roleArn=POD_ROLE)
    policy = json.dumps({"Version": "2012-10-17", "Statement": []})
    code, status, _ = error_of(eks.create_pod_identity_association, **kwargs, policy=policy)
    assert (code, status) == ("InvalidParameterException", 400)  # policy needs disableSessionTags=true
    a = eks.create_pod_identity_association(**kwargs, disableSessionTags=True, policy=policy)["association"]
    assert a["policy"] == policy and "externalId" not in a
    assert error_of(eks.create_pod_identity_association, **kwargs)[:2] == ("ResourceInUseException", 409)
    assert error_of(eks.update_pod_identity_association, clusterName=SEEDED, associationId=a["associationId"],
                    disableSessionTags=False)[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_pod_identity_association, **{**kwargs, "serviceAccount": "x",
                                                           "roleArn": "arn:aws:iam::444455556666:role/r"})[:2] == \
        ("InvalidParameterException", 400)  # roleArn must be in the cluster's account
    assert error_of(eks.create_pod_identity_association, **{**kwargs, "serviceAccount": "y"},
                    targetRoleArn="not-an-arn")[:2] == ("InvalidParameterException", 400)
    assert error_of(eks.create_pod_identity_association, **{**kwargs, "clusterName": "missing"})[:2] == \
        ("ResourceNotFoundException", 404)
    assert error_of(eks.delete_pod_identity_association, clusterName=SEEDED, associationId="a-00000000000000000")[:2] \
        == ("ResourceNotFoundException", 404)


# ---- add-ons -----------------------------------------------------------------------------------------------------
def test_addon_lifecycle(eks):
    make_cluster(eks)
    addon = eks.create_addon(clusterName="extra", addonName=CW, addonVersion="v2.4.0-eksbuild.1",
                             configurationValues='{"agent": {"config": {"logs": {"metrics_collected": {"kubernetes": '
                                                 '{"kueue_container_insights": true}}}}}}')["addon"]
    assert (addon["status"], addon["addonVersion"]) == ("ACTIVE", "v2.4.0-eksbuild.1")
    assert addon["addonArn"].startswith(f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/extra/{CW}/")
    assert eks.describe_addon(clusterName="extra", addonName=CW)["addon"] == addon
    assert eks.list_addons(clusterName="extra")["addons"] == [CW]
    update = eks.update_addon(clusterName=LEGACY, addonName=CW, addonVersion="v2.4.0-eksbuild.1")["update"]
    assert update["type"] == "AddonUpdate" and update["params"] == [{"type": "AddonVersion",
                                                                     "value": "v2.4.0-eksbuild.1"}]
    assert eks.describe_update(name=LEGACY, updateId=update["id"], addonName=CW)["update"]["status"] == "Successful"
    assert eks.describe_addon(clusterName=LEGACY, addonName=CW)["addon"]["addonVersion"] == "v2.4.0-eksbuild.1"
    assert eks.delete_addon(clusterName="extra", addonName=CW)["addon"]["status"] == "DELETING"
    assert error_of(eks.describe_addon, clusterName="extra", addonName=CW)[:2] == ("ResourceNotFoundException", 404)
    # no version: the default (newest)
    assert eks.create_addon(clusterName="extra", addonName=CW)["addon"]["addonVersion"] == "v2.4.0-eksbuild.1"


def test_addon_rejections(eks):
    assert error_of(eks.create_addon, clusterName=SEEDED, addonName=CW)[:2] == ("ResourceInUseException", 409)
    make_cluster(eks)
    assert error_of(eks.create_addon, clusterName="extra", addonName=CW, addonVersion="v9.9.9-eksbuild.1")[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(eks.create_addon, clusterName="extra", addonName="no-such-addon")[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(eks.create_addon, clusterName="extra", addonName=CW, configurationValues="[1, 2")[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(eks.update_addon, clusterName="extra", addonName=CW, addonVersion="v2.4.0-eksbuild.1")[:2] == \
        ("ResourceNotFoundException", 404)
    assert error_of(eks.update_addon, clusterName=SEEDED, addonName=CW, addonVersion="v1.0.0")[:2] == \
        ("InvalidParameterException", 400)
    assert error_of(eks.create_addon, clusterName="missing", addonName=CW)[:2] == ("ResourceNotFoundException", 404)


def test_describe_addon_versions(eks):
    [info] = eks.describe_addon_versions(addonName=CW, kubernetesVersion="1.31")["addons"]
    versions = [v["addonVersion"] for v in info["addonVersions"]]
    assert versions == ["v2.4.0-eksbuild.1", "v2.3.0-eksbuild.1"]
    assert info["addonVersions"][0]["compatibilities"] == [{"clusterVersion": "1.31", "platformVersions": ["*"],
                                                            "defaultVersion": True}]
    assert eks.describe_addon_versions(addonName="no-such-addon")["addons"] == []
    assert CW in {a["addonName"] for a in eks.describe_addon_versions()["addons"]}


def test_deleting_a_cluster_drops_its_sub_resources(eks):
    make_cluster(eks, mode="API")
    eks.create_access_entry(clusterName="extra", principalArn=ROLE)
    eks.create_addon(clusterName="extra", addonName=CW)
    eks.delete_cluster(name="extra")
    make_cluster(eks, mode="API", bootstrap=False)
    assert eks.list_access_entries(clusterName="extra")["accessEntries"] == []
    assert eks.list_addons(clusterName="extra")["addons"] == []


def test_reset_restores_the_seed(eks, sandbox):
    eks.delete_addon(clusterName=SEEDED, addonName=CW)
    eks.create_access_entry(clusterName=SEEDED, principalArn=ROLE)
    eks.update_addon(clusterName=LEGACY, addonName=CW, addonVersion="v2.4.0-eksbuild.1")
    sandbox.reset()
    assert eks.describe_addon(clusterName=SEEDED, addonName=CW)["addon"]["addonVersion"] == "v2.4.0-eksbuild.1"
    assert eks.describe_addon(clusterName=LEGACY, addonName=CW)["addon"]["addonVersion"] == "v2.3.0-eksbuild.1"
    assert ROLE not in eks.list_access_entries(clusterName=SEEDED)["accessEntries"]
