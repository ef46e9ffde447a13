"""Strictness: every service rejects malformed requests the way AWS does (code, HTTP status, body shape, Coral-style
message), accepts valid ones, and answers unimplemented operations with a non-retryable 501 in its own protocol.

Clients here have boto3's own validation off (`validate=False`), like the Rust SDK, so requests reach the sandbox.
"""
import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT, REGION = "123456789012", "us-west-2"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


class Raw:
    """The HTTP response behind the last call of a client."""

    def __init__(self, client):
        self.status: Any = None  # set by the client's after-call event
        self.headers: Any = None
        self.body: Any = None
        client.meta.events.register("after-call.*.*", self._keep)

    def _keep(self, http_response, **_):
        self.status, self.headers, self.body = http_response.status_code, http_response.headers, http_response.text


def rejected(call, **kwargs):
    with pytest.raises(ClientError) as info:
        call(**kwargs)
    err = info.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"], err["Error"].get("Message", "")


MALFORMED = [
    # service, operation, kwargs, code, exact message
    ("iam", "create_role", {"RoleName": "bad role", "AssumeRolePolicyDocument": TRUST}, "ValidationError",
     "1 validation error detected: Value 'bad role' at 'roleName' failed to satisfy constraint: "
     "Member must satisfy regular expression pattern: [\\w+=,.@-]+"),
    ("iam", "tag_role", {"RoleName": "ml-capacity-node-role", "Tags": [{"Key": "team"}]}, "ValidationError",
     "1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy constraint: "
     "Member must not be null"),
    ("sts", "assume_role", {"RoleArn": ROLE, "RoleSessionName": "s", "DurationSeconds": 60}, "ValidationError",
     "2 validation errors detected: Value 's' at 'roleSessionName' failed to satisfy constraint: Member must have "
     "length greater than or equal to 2; Value '60' at 'durationSeconds' failed to satisfy constraint: "
     "Member must have value greater than or equal to 900"),
    ("kms", "describe_key", {"KeyId": ""}, "ValidationException",
     "1 validation error detected: Value '' at 'keyId' failed to satisfy constraint: "
     "Member must have length greater than or equal to 1"),
    ("kms", "create_grant", {"KeyId": "alias/research-data", "GranteePrincipal": ROLE, "Operations": ["Fly"]},
     "ValidationException", "1 validation error detected: Value '[Fly]' at 'operations' failed to satisfy "
     "constraint: Member must satisfy constraint: [Member must satisfy enum value set: [Decrypt, Encrypt, "),
    ("ssm", "get_document", {"Name": "bad name!"}, "ValidationException",
     "1 validation error detected: Value 'bad name!' at 'name' failed to satisfy constraint: "
     "Member must satisfy regular expression pattern: ^[a-zA-Z0-9_\\-.:/]{3,128}$"),
    ("eks", "create_cluster", {"name": "x", "roleArn": ROLE, "resourcesVpcConfig": {},
                               "kubernetesNetworkConfig": {"ipFamily": "ipv5"}}, "InvalidParameterException",
     "1 validation error detected: Value 'ipv5' at 'kubernetesNetworkConfig.ipFamily' failed to satisfy "
     "constraint: Member must satisfy enum value set: [ipv4, ipv6]"),
    ("sagemaker", "describe_cluster", {"ClusterName": "-bad"}, "ValidationException",
     "1 validation error detected: Value '-bad' at 'clusterName' failed to satisfy constraint: Member must satisfy "
     "regular expression pattern: ((arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]*:[0-9]{12}:cluster/[a-z0-9]{12})|"
     "([a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}))"),
    ("datazone", "get_domain", {"identifier": "not-a-domain"}, "ValidationException",
     "1 validation error detected: Value 'not-a-domain' at 'identifier' failed to satisfy constraint: "
     "Member must satisfy regular expression pattern: dzd[-_][a-zA-Z0-9_-]{1,36}"),
]


@pytest.mark.parametrize("service, operation, kwargs, code, message", MALFORMED,
                         ids=[f"{m[0]}-{m[1]}" for m in MALFORMED])
def test_malformed_request_is_rejected_like_aws(sandbox, service, operation, kwargs, code, message):
    client = sandbox.client(service, validate=False)
    raw = Raw(client)
    got_code, status, got_message = rejected(getattr(client, operation), **kwargs)
    if service == "datazone" and status == 501:
        pytest.skip("this sandbox has no DataZone (sandbox/datazone.py)")
    assert (got_code, status) == (code, 400)
    assert got_message.startswith(message) if message.endswith(", ") else got_message == message
    # the body in the service's protocol, as AWS sends it
    if service in ("iam", "sts"):
        assert raw.headers["content-type"].startswith("text/xml")
        assert f"<Error><Type>Sender</Type><Code>{code}</Code><Message>" in raw.body
        assert raw.body.startswith("<ErrorResponse xmlns=\"https://") and "<RequestId>" in raw.body
    elif service in ("kms", "ssm", "sagemaker"):  # Coral JSON: namespaced __type
        assert raw.headers["content-type"] == "application/x-amz-json-1.1"
        assert json.loads(raw.body) == {"__type": f"com.amazon.coral.validate#{code}", "message": got_message}
    else:  # rest-json: error type in a header
        assert raw.headers["x-amzn-errortype"] == code and json.loads(raw.body) == {"message": got_message}


def test_nothing_is_written_when_a_request_is_rejected(sandbox):
    iam = sandbox.client("iam", validate=False)
    rejected(iam.create_role, RoleName="new-role", AssumeRolePolicyDocument=TRUST, MaxSessionDuration=60)
    assert rejected(iam.get_role, RoleName="new-role")[:2] == ("NoSuchEntity", 404)


def test_patterns_match_the_whole_value(sandbox):
    sm = sandbox.client("sagemaker", validate=False)
    # `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}` is found inside "ml-capacity!" but does not match all of it
    assert rejected(sm.describe_cluster, ClusterName="ml-capacity!")[0] == "ValidationException"
    assert sm.describe_cluster(ClusterName="ml-capacity")["ClusterArn"] == ML_ARN


def test_wrong_json_types_are_a_serialization_exception(sandbox):
    kms = sandbox.client("kms", validate=False)
    code, status, _ = rejected(kms.create_key, Description=42)
    assert (code, status) == ("SerializationException", 400)


def test_every_violation_is_listed(sandbox):
    iam = sandbox.client("iam", validate=False)
    _, _, message = rejected(iam.create_role, RoleName="x" * 65, AssumeRolePolicyDocument=TRUST, Path="no-slashes",
                             MaxSessionDuration=100000)
    assert message.startswith("3 validation errors detected: ")
    for fragment in ("at 'roleName' failed to satisfy constraint: Member must have length less than or equal to 64",
                     "Value 'no-slashes' at 'path' failed to satisfy constraint: Member must satisfy regular "
                     "expression pattern: ", "Value '100000' at 'maxSessionDuration' failed to satisfy constraint: "
                     "Member must have value less than or equal to 43200"):
        assert fragment in message


# ---- valid requests are accepted (also those moto serves without the sandbox's extensions) ---------------------------
def test_valid_iam_requests_are_accepted(sandbox):
    iam = sandbox.client("iam", validate=False)
    iam.create_role(RoleName="svc-role", Path="/team/ml/", AssumeRolePolicyDocument=TRUST, Description="d",
                    MaxSessionDuration=7200, Tags=[{"Key": "team", "Value": "ml"}, {"Key": "env", "Value": ""}])
    iam.tag_role(RoleName="svc-role", Tags=[{"Key": "cost-center", "Value": "42"}])
    iam.untag_role(RoleName="svc-role", TagKeys=["env"])
    iam.put_role_policy(RoleName="svc-role", PolicyName="inline", PolicyDocument=TRUST.replace(
        '"Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"',
        '"Action": ["sagemaker:DescribeCluster"], "Resource": "*"'))
    arn = iam.create_policy(PolicyName="p", Path="/team/", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "eks:*", "Resource": "*"}]}),
        Tags=[{"Key": "a", "Value": "b"}])["Policy"]["Arn"]
    iam.attach_role_policy(RoleName="svc-role", PolicyArn=arn)
    iam.update_assume_role_policy(RoleName="svc-role", PolicyDocument=TRUST)
    iam.update_role(RoleName="svc-role", Description="e", MaxSessionDuration=3600)
    assert [p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName="svc-role", MaxItems=10)
            ["AttachedPolicies"]] == [arn]
    assert iam.list_role_policies(RoleName="svc-role")["PolicyNames"] == ["inline"]
    assert iam.list_role_tags(RoleName="svc-role")["Tags"]
    assert iam.list_roles(PathPrefix="/team/")["Roles"][0]["RoleName"] == "svc-role"
    iam.list_policies(Scope="Local", OnlyAttached=True, MaxItems=5)
    iam.create_instance_profile(InstanceProfileName="ip")
    iam.add_role_to_instance_profile(InstanceProfileName="ip", RoleName="svc-role")
    iam.create_user(UserName="alice", Tags=[{"Key": "k", "Value": "v"}])
    iam.create_access_key(UserName="alice")
    iam.list_users()
    iam.get_account_authorization_details(Filter=["Role"], MaxItems=100)


def test_valid_sts_kms_ssm_requests_are_accepted(sandbox):
    sts = sandbox.client("sts", validate=False)
    sts.get_caller_identity()
    sts.assume_role(RoleArn=ROLE, RoleSessionName="pipeline@ci", DurationSeconds=1800, ExternalId="capacity-ci",
                    Tags=[{"Key": "team", "Value": "ml"}], TransitiveTagKeys=["team"],
                    PolicyArns=[{"arn": "arn:aws:iam::aws:policy/ReadOnlyAccess"}],
                    Policy=json.dumps({"Version": "2012-10-17", "Statement": [
                        {"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    sts.get_session_token(DurationSeconds=900)
    kms = sandbox.client("kms", validate=False)
    key = kms.create_key(Description="d", KeyUsage="ENCRYPT_DECRYPT", KeySpec="SYMMETRIC_DEFAULT",
                         Tags=[{"TagKey": "a", "TagValue": "b"}])["KeyMetadata"]
    kms.create_alias(AliasName="alias/test-key", TargetKeyId=key["KeyId"])
    blob = kms.encrypt(KeyId="alias/test-key", Plaintext=b"secret",
                       EncryptionContext={"purpose": "test"})["CiphertextBlob"]
    assert kms.decrypt(CiphertextBlob=blob, EncryptionContext={"purpose": "test"})["Plaintext"] == b"secret"
    kms.generate_data_key(KeyId=key["Arn"], KeySpec="AES_256")
    kms.create_grant(KeyId=key["Arn"], GranteePrincipal=ROLE, Operations=["Decrypt", "DescribeKey"], Name="g",
                     Constraints={"EncryptionContextSubset": {"purpose": "test"}})
    kms.list_grants(KeyId=key["KeyId"], Limit=10)
    kms.list_aliases(KeyId=key["KeyId"])
    kms.get_key_policy(KeyId=key["KeyId"], PolicyName="default")
    kms.list_resource_tags(KeyId=key["KeyId"])
    kms.enable_key_rotation(KeyId=key["KeyId"])
    kms.schedule_key_deletion(KeyId=key["KeyId"], PendingWindowInDays=7)
    ssm = sandbox.client("ssm", validate=False)
    ssm.put_parameter(Name="/hyperpod/test", Value="v", Type="String", Tags=[{"Key": "a", "Value": "b"}])
    assert ssm.get_parameter(Name="/hyperpod/test", WithDecryption=True)["Parameter"]["Value"] == "v"
    ssm.get_parameters_by_path(Path="/hyperpod", Recursive=True, MaxResults=10)
    ssm.describe_document(Name="SSM-SessionManagerRunShell")
    ssm.list_documents(Filters=[{"Key": "DocumentType", "Values": ["Session"]}], MaxResults=10)
    ssm.get_document(Name="SSM-SessionManagerRunShell", DocumentFormat="JSON")


def test_valid_eks_and_sagemaker_requests_are_accepted(sandbox):
    eks = sandbox.client("eks", validate=False)
    assert "ml-capacity-eks" in eks.list_clusters(maxResults=10)["clusters"]
    eks_arn = eks.describe_cluster(name="ml-capacity-eks")["cluster"]["arn"]
    eks.tag_resource(resourceArn=eks_arn, tags={"team": "ml"})
    assert eks.list_tags_for_resource(resourceArn=eks_arn)["tags"]["team"] == "ml"
    eks.untag_resource(resourceArn=eks_arn, tagKeys=["team"])
    eks.create_cluster(name="extra_cluster-1", roleArn=ROLE, version="1.31",
                       resourcesVpcConfig={"subnetIds": ["subnet-1", "subnet-2"], "endpointPublicAccess": True,
                                           "publicAccessCidrs": ["10.0.0.0/8"]},
                       logging={"clusterLogging": [{"types": ["api", "audit"], "enabled": True}]},
                       tags={"team": "ml"})
    eks.create_nodegroup(clusterName="extra_cluster-1", nodegroupName="ng", subnets=["subnet-1"], nodeRole=ROLE,
                         scalingConfig={"minSize": 0, "maxSize": 2, "desiredSize": 1}, labels={"a": "b"},
                         instanceTypes=["m5.large"])
    eks.list_nodegroups(clusterName="extra_cluster-1")
    sm = sandbox.client("sagemaker", validate=False)
    sm.list_clusters(MaxResults=10, SortBy="NAME", SortOrder="Ascending", NameContains="capacity")
    sm.describe_cluster(ClusterName=ML_ARN)
    sm.list_tags(ResourceArn=ML_ARN)


# ---- what is not implemented: a final 501 in the service's protocol, never an HTML page -----------------------------
def test_unimplemented_json_operation_is_json_501(sandbox):
    sm = sandbox.client("sagemaker")
    raw = Raw(sm)
    code, status, message = rejected(sm.describe_workforce, WorkforceName="default")
    assert (code, status) == ("NotImplemented", 501) and "DescribeWorkforce" in message
    assert json.loads(raw.body)["__type"] == "NotImplemented"


def test_unimplemented_query_operation_is_xml_501(sandbox):
    sts = sandbox.client("sts")
    raw = Raw(sts)
    code, status, message = rejected(sts.get_delegated_access_token, TradeInToken="x" * 40)
    assert (code, status) == ("NotImplemented", 501) and "GetDelegatedAccessToken" in message
    assert raw.headers["content-type"].startswith("text/xml") and "<Type>Receiver</Type>" in raw.body


def test_unimplemented_rest_route_is_json_501(sandbox):
    eks = sandbox.client("eks")
    raw = Raw(eks)
    code, status, message = rejected(eks.describe_insight, clusterName="ml-capacity-eks", id="abc")
    assert (code, status) == ("NotImplemented", 501)
    assert "/clusters/ml-capacity-eks/insights/abc" in message and raw.headers["x-amzn-errortype"] == "NotImplemented"


def test_unknown_service_is_json_501(sandbox):
    amplify = sandbox.client("amplify")
    code, status, message = rejected(amplify.list_apps)
    assert (code, status) == ("NotImplemented", 501) and "amplify" in message
