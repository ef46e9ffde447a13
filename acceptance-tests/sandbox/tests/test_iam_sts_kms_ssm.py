"""The seeded identities (IAM roles, KMS keys, the Session Manager document) and round-trips of what the provider
writes and reads through IAM, STS, KMS and SSM."""
import json
import re
from typing import Any
from urllib.parse import quote, unquote

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

ACCOUNT, CONSUMER, DATA, REGION = "123456789012", "444455556666", "777788889999", "us-west-2"
CAPACITY_KEY = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
DATA_KEY = f"arn:aws:kms:{REGION}:{DATA}:key/7e8f9a0b-1c2d-4e3f-a4b5-c6d7e8f90a1b"
FULL_ACCESS = "arn:aws:iam::aws:policy/AmazonSageMakerFullAccess"
CAPACITY_ROLES = ["datazone_usr_role_production", "datazone_usr_role_research", "hyperpod-connection-access",
                  "overprivileged-project-role", "ml-capacity-cluster-admin", "ml-capacity-eks-cluster-role",
                  "ml-capacity-node-role", "slurm-capacity-node-role", "legacy-capacity-eks-cluster-role",
                  "legacy-capacity-node-role", "service-role/AmazonSageMakerDomainExecution",
                  "service-role/AmazonSageMakerDomainService", "research-viewers", "research-operators",
                  "production-viewers", "production-operators"]
TENANT_PRINCIPALS = ["research-viewers", "research-operators", "production-viewers", "production-operators"]


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


@pytest.fixture
def iam(sandbox):
    return sandbox.client("iam")


def session_in(sandbox, role_arn, name="tests"):
    """boto3 clients with the credentials of an assumed role (moto maps them to the role's account)."""
    creds = sandbox.client("sts").assume_role(RoleArn=role_arn, RoleSessionName=name)["Credentials"]

    def client(service):
        return boto3.client(service, endpoint_url=sandbox.url, region_name=REGION,
                            aws_access_key_id=creds["AccessKeyId"], aws_secret_access_key=creds["SecretAccessKey"],
                            aws_session_token=creds["SessionToken"], config=Config(retries={"total_max_attempts": 1}))
    return client


def raw_bodies(client):
    bodies = []
    client.meta.events.register("after-call.*.*", lambda http_response, **_: bodies.append(http_response.text))
    return bodies


def quote_all(text):
    """URL-encoding as IAM does it: everything but the RFC 3986 unreserved characters."""
    return quote(text, safe="")


def actions(document) -> set:
    out = set()
    for statement in document["Statement"]:
        acts = statement.get("Action", [])
        out |= {acts} if isinstance(acts, str) else set(acts)
    return out


def role_policies(iam, name):
    """{policy name or ARN: document} of every inline and attached policy of a role."""
    out = {p: iam.get_role_policy(RoleName=name, PolicyName=p)["PolicyDocument"]
           for p in iam.list_role_policies(RoleName=name)["PolicyNames"]}
    for attached in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]:
        version = iam.get_policy(PolicyArn=attached["PolicyArn"])["Policy"]["DefaultVersionId"]
        out[attached["PolicyArn"]] = iam.get_policy_version(PolicyArn=attached["PolicyArn"],
                                                            VersionId=version)["PolicyVersion"]["Document"]
    return out


# ---- seed ---------------------------------------------------------------------------------------------------------
def test_capacity_account_roles(iam, sandbox):
    arns = {r["Arn"] for r in iam.list_roles()["Roles"]}
    assert arns == {f"arn:aws:iam::{ACCOUNT}:role/{name}" for name in CAPACITY_ROLES}
    assert sandbox.health()["seed"]["iam"]["roles"]["overprivileged-project-role"] == \
        f"arn:aws:iam::{ACCOUNT}:role/overprivileged-project-role"


@pytest.mark.parametrize("name", ["datazone_usr_role_production", "datazone_usr_role_research",
                                  "hyperpod-connection-access"])
def test_project_and_connection_roles_are_harmless(iam, name):
    role = iam.get_role(RoleName=name)["Role"]
    principals = role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Service"]
    assert "datazone.amazonaws.com" in principals
    granted = set().union(*(actions(doc) for doc in role_policies(iam, name).values()))
    assert granted and all(re.fullmatch(r"(sagemaker|eks):(Describe|List)\w+", a) for a in granted)
    if name.startswith("datazone_usr_role_"):
        assert "sagemaker.amazonaws.com" in principals


def test_overprivileged_role_carries_lifecycle_permissions(iam):
    policies = role_policies(iam, "overprivileged-project-role")
    assert FULL_ACCESS in policies and "sagemaker:*" in actions(policies[FULL_ACCESS])
    assert actions(policies["cluster-lifecycle"]) == {"sagemaker:CreateCluster", "sagemaker:UpdateClusterSoftware",
                                                      "sagemaker:CreateComputeQuota"}
    policy = iam.get_policy(PolicyArn=FULL_ACCESS)["Policy"]
    assert (policy["PolicyName"], policy["Path"], policy["IsAttachable"]) == ("AmazonSageMakerFullAccess", "/", True)
    assert policy["AttachmentCount"] == 1


def test_cluster_roles(iam):
    for name in ("ml-capacity-eks-cluster-role", "legacy-capacity-eks-cluster-role"):
        assert iam.get_role(RoleName=name)["Role"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
            "Service": "eks.amazonaws.com"}
        assert [p["PolicyName"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]] == [
            "AmazonEKSClusterPolicy"]
    # The CloudWatch agent's policy (OBS-1) only on the compliant EKS cluster's node role; legacy lacks it.
    for name, extra in (("ml-capacity-node-role", ["CloudWatchAgentServerPolicy"]), ("slurm-capacity-node-role", []),
                        ("legacy-capacity-node-role", [])):
        assert [p["PolicyName"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]] == [
            "AmazonSageMakerClusterInstanceRolePolicy", *extra]
    admin = role_policies(iam, "ml-capacity-cluster-admin")
    assert {"eks:CreateAccessEntry", "sagemaker:CreateComputeQuota"} <= actions(admin["cluster-admin"])


def test_consumer_and_data_account_roles(sandbox):
    consumer = session_in(sandbox, f"arn:aws:iam::{CONSUMER}:role/research-consumer")("iam")
    assert [r["Arn"] for r in consumer.list_roles()["Roles"]] == [f"arn:aws:iam::{CONSUMER}:role/research-consumer"]
    data = session_in(sandbox, f"arn:aws:iam::{DATA}:role/research-datasets")("iam")
    trust = data.get_role(RoleName="research-datasets")["Role"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust[0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert trust[0]["Condition"] == {"StringEquals": {"aws:SourceAccount": ACCOUNT}}
    assert trust[1]["Principal"] == {"AWS": f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_research"}
    read = data.get_role_policy(RoleName="research-datasets", PolicyName="read-datasets")["PolicyDocument"]
    assert read["Statement"][1]["Resource"] == DATA_KEY


@pytest.mark.parametrize("name", TENANT_PRINCIPALS)
def test_tenant_viewer_and_operator_principals(iam, sandbox, name):
    role = iam.get_role(RoleName=name)["Role"]
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}
    assert role_policies(iam, name) == {}
    arn = f"arn:aws:iam::{ACCOUNT}:role/{name}"
    assert sandbox.client("sts").assume_role(RoleArn=arn, RoleSessionName="alice")["AssumedRoleUser"]["Arn"] == \
        f"arn:aws:sts::{ACCOUNT}:assumed-role/{name}/alice"


def test_role_ids_survive_a_reset(iam, sandbox):
    before = iam.get_role(RoleName="ml-capacity-cluster-admin")["Role"]["RoleId"]
    assert re.fullmatch(r"AROA[A-Z2-7]{17}", before)
    sandbox.reset()
    assert iam.get_role(RoleName="ml-capacity-cluster-admin")["Role"]["RoleId"] == before


def test_seeded_kms_keys(sandbox):
    kms = sandbox.client("kms")
    assert kms.describe_key(KeyId="alias/research-data")["KeyMetadata"]["Arn"] == CAPACITY_KEY
    data_kms = session_in(sandbox, f"arn:aws:iam::{DATA}:role/research-datasets")("kms")
    meta = data_kms.describe_key(KeyId="alias/research-data")["KeyMetadata"]
    assert (meta["Arn"], meta["KeyState"], meta["KeyUsage"]) == (DATA_KEY, "Enabled", "ENCRYPT_DECRYPT")
    policy = json.loads(data_kms.get_key_policy(KeyId=DATA_KEY, PolicyName="default")["Policy"])
    assert policy["Statement"][1]["Principal"] == {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}
    assert sandbox.health()["seed"]["kms"]["keys"] == {CAPACITY_KEY: ["alias/research-data"],
                                                       DATA_KEY: ["alias/research-data"]}


# ---- IAM round-trips -------------------------------------------------------------------------------------------------
def test_role_round_trip_with_url_encoded_documents(iam):
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "AWS": f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"}, "Action": "sts:AssumeRole"}]}
    inline = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["sagemaker:DescribeCluster"],
                                                      "Resource": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/*"}]}
    trust_text, inline_text = json.dumps(trust, separators=(",", ":")), json.dumps(inline, indent=2)
    bodies = raw_bodies(iam)
    created = iam.create_role(RoleName="team-role", Path="/teams/", AssumeRolePolicyDocument=trust_text,
                              Tags=[{"Key": "team", "Value": "research"}])["Role"]
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:role/teams/team-role"
    iam.tag_role(RoleName="team-role", Tags=[{"Key": "owner", "Value": "ml-platform"}])
    iam.put_role_policy(RoleName="team-role", PolicyName="describe", PolicyDocument=inline_text)
    iam.attach_role_policy(RoleName="team-role", PolicyArn=FULL_ACCESS)

    role = iam.get_role(RoleName="team-role")["Role"]
    assert role["AssumeRolePolicyDocument"] == trust  # boto3 URL-decodes and parses it
    assert {t["Key"]: t["Value"] for t in role["Tags"]} == {"team": "research", "owner": "ml-platform"}
    # on the wire, IAM sends documents URL-encoded (RFC 3986): what the Rust SDK hands the provider
    assert f"<AssumeRolePolicyDocument>{quote_all(trust_text)}</AssumeRolePolicyDocument>" in bodies[-1]
    got = iam.get_role_policy(RoleName="team-role", PolicyName="describe")
    assert got["PolicyDocument"] == inline
    assert f"<PolicyDocument>{quote_all(inline_text)}</PolicyDocument>" in bodies[-1]
    assert "%2F" in bodies[-1] and "cluster/*" not in bodies[-1]
    iam.list_roles(PathPrefix="/teams/")
    assert f"<AssumeRolePolicyDocument>{quote_all(trust_text)}</AssumeRolePolicyDocument>" in bodies[-1]
    assert iam.list_role_policies(RoleName="team-role")["PolicyNames"] == ["describe"]
    assert iam.list_attached_role_policies(RoleName="team-role")["AttachedPolicies"] == [
        {"PolicyName": "AmazonSageMakerFullAccess", "PolicyArn": FULL_ACCESS}]
    policy = iam.get_policy(PolicyArn=FULL_ACCESS)["Policy"]
    version = iam.get_policy_version(PolicyArn=FULL_ACCESS, VersionId=policy["DefaultVersionId"])["PolicyVersion"]
    assert version["IsDefaultVersion"] and "sagemaker:*" in actions(version["Document"])
    encoded = re.search(r"<Document>([^<]*)</Document>", bodies[-1]).group(1)
    assert encoded.startswith("%7B") and json.loads(unquote(encoded)) == version["Document"]


def test_customer_managed_policy_versions(iam):
    doc: dict[str, Any] = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "eks:DescribeCluster",
                                                   "Resource": "*"}]}
    arn = iam.create_policy(PolicyName="eks-read", PolicyDocument=json.dumps(doc))["Policy"]["Arn"]
    doc2 = {**doc, "Statement": [{**doc["Statement"][0], "Action": ["eks:DescribeCluster", "eks:ListClusters"]}]}
    iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(doc2), SetAsDefault=True)
    assert iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"] == "v2"
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v2")["PolicyVersion"]["Document"] == doc2
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]["Document"] == doc


def test_missing_role_is_no_such_entity(iam):
    with pytest.raises(ClientError) as info:
        iam.get_role(RoleName="nobody")
    err = info.value.response
    assert (err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]) == ("NoSuchEntity", 404)
    assert err["Error"]["Message"] == "The role with name nobody cannot be found."


# ---- STS ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("role_arn", [f"arn:aws:iam::{CONSUMER}:role/research-consumer",
                                      f"arn:aws:iam::{DATA}:role/research-datasets",
                                      f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"])
def test_assume_role_and_caller_identity(sandbox, role_arn):
    account, name = role_arn.split(":")[4], role_arn.rsplit("/", 1)[1]
    assumed = sandbox.client("sts").assume_role(RoleArn=role_arn, RoleSessionName="pipeline",
                                                ExternalId="capacity-ci", DurationSeconds=1800)
    expected_arn = f"arn:aws:sts::{account}:assumed-role/{name}/pipeline"
    assert assumed["AssumedRoleUser"]["Arn"] == expected_arn
    identity = session_in(sandbox, role_arn, "pipeline")("sts").get_caller_identity()
    assert (identity["Account"], identity["Arn"]) == (account, expected_arn)
    role_id = session_in(sandbox, role_arn)("iam").get_role(RoleName=name)["Role"]["RoleId"]
    assert identity["UserId"] == f"{role_id}:pipeline" == assumed["AssumedRoleUser"]["AssumedRoleId"]


def test_caller_identity_of_the_dummy_keys(sandbox):
    identity = sandbox.client("sts").get_caller_identity()
    assert identity["Account"] == ACCOUNT and identity["Arn"] == f"arn:aws:sts::{ACCOUNT}:user/moto"


# ---- KMS grants ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["alias/research-data", CAPACITY_KEY, DATA_KEY])
def test_grant_round_trip(sandbox, key):
    kms = sandbox.client("kms")
    grantee = f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_research"
    created = kms.create_grant(KeyId=key, GranteePrincipal=grantee, Operations=["Decrypt", "DescribeKey"],
                               Name="research-pods", Constraints={"EncryptionContextSubset": {"team": "research"}})
    assert re.fullmatch(r"[0-9a-f]{64}", created["GrantId"]) and len(created["GrantToken"]) > 64
    key_arn = kms.describe_key(KeyId=key)["KeyMetadata"]["Arn"]
    grants = kms.list_grants(KeyId=key)["Grants"]
    assert len(grants) == 1
    grant = grants[0]
    assert {k: grant[k] for k in ("KeyId", "GrantId", "Name", "GranteePrincipal", "Operations", "Constraints")} == {
        "KeyId": key_arn, "GrantId": created["GrantId"], "Name": "research-pods", "GranteePrincipal": grantee,
        "Operations": ["Decrypt", "DescribeKey"], "Constraints": {"EncryptionContextSubset": {"team": "research"}}}
    assert grant["IssuingAccount"] == f"arn:aws:iam::{key_arn.split(':')[4]}:root" and grant["CreationDate"]
    assert "RetiringPrincipal" not in grant
    assert kms.list_grants(KeyId=key_arn, GrantId=created["GrantId"])["Grants"][0]["GrantId"] == created["GrantId"]
    kms.revoke_grant(KeyId=key_arn, GrantId=created["GrantId"])
    assert kms.list_grants(KeyId=key)["Grants"] == []
    with pytest.raises(ClientError) as info:
        kms.revoke_grant(KeyId=key_arn, GrantId=created["GrantId"])
    assert info.value.response["Error"]["Code"] == "NotFoundException"


def test_the_data_accounts_key_is_usable_by_arn_from_the_capacity_account(sandbox):
    kms = sandbox.client("kms")
    assert kms.describe_key(KeyId=DATA_KEY)["KeyMetadata"]["Description"].startswith("Research datasets key")
    grant_id = kms.create_grant(KeyId=DATA_KEY, GranteePrincipal=f"arn:aws:iam::{ACCOUNT}:root",
                                Operations=["Decrypt"])["GrantId"]
    data_kms = session_in(sandbox, f"arn:aws:iam::{DATA}:role/research-datasets")("kms")
    assert [g["GrantId"] for g in data_kms.list_grants(KeyId="alias/research-data")["Grants"]] == [grant_id]


# ---- SSM: Session Manager preferences -------------------------------------------------------------------------
def test_session_manager_preferences_document(sandbox):
    ssm = sandbox.client("ssm")
    doc = ssm.get_document(Name="SSM-SessionManagerRunShell")
    assert (doc["DocumentType"], doc["DocumentFormat"], doc["DocumentVersion"], doc["Status"]) == (
        "Session", "JSON", "1", "Active")
    content = json.loads(doc["Content"])
    assert content["sessionType"] == "Standard_Stream"
    assert (content["inputs"]["runAsEnabled"], content["inputs"]["runAsDefaultUser"]) == (False, "")

    content["inputs"].update(runAsEnabled=True, runAsDefaultUser="ssm-user")
    updated = ssm.update_document(Name="SSM-SessionManagerRunShell", Content=json.dumps(content),
                                  DocumentVersion="$LATEST")["DocumentDescription"]
    assert (updated["DocumentVersion"], updated["LatestVersion"], updated["DefaultVersion"]) == ("2", "2", "1")
    assert json.loads(ssm.get_document(Name="SSM-SessionManagerRunShell")["Content"])["inputs"]["runAsEnabled"] is False
    ssm.update_document_default_version(Name="SSM-SessionManagerRunShell", DocumentVersion="2")
    got = json.loads(ssm.get_document(Name="SSM-SessionManagerRunShell")["Content"])["inputs"]
    assert (got["runAsEnabled"], got["runAsDefaultUser"]) == (True, "ssm-user")
    # without DocumentVersion, AWS updates the latest version too
    content["inputs"]["runAsDefaultUser"] = "ec2-user"
    assert ssm.update_document(Name="SSM-SessionManagerRunShell", Content=json.dumps(content))[
        "DocumentDescription"]["DocumentVersion"] == "3"
    sandbox.reset()
    assert json.loads(ssm.get_document(Name="SSM-SessionManagerRunShell")["Content"])["inputs"]["runAsEnabled"] is False


def test_session_document_create(sandbox):
    ssm = sandbox.client("ssm")
    content = ssm.get_document(Name="SSM-SessionManagerRunShell")["Content"]
    created = ssm.create_document(Name="team-session-prefs", DocumentType="Session", DocumentFormat="JSON",
                                  Content=content)["DocumentDescription"]
    assert (created["Name"], created["DocumentType"], created["Status"]) == ("team-session-prefs", "Session", "Active")
    with pytest.raises(ClientError) as info:
        ssm.create_document(Name="SSM-SessionManagerRunShell", DocumentType="Session", Content=content)
    assert info.value.response["Error"]["Code"] == "DocumentAlreadyExists"
