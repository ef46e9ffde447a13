"""The wire format as AWS reads it (issue 41): every operation the provider calls (the `called` actions of
docs/guides/permissions.md's machine-readable table), with each member of its input (nested ones too) sent as a
value of the wrong JSON type, is a 4xx, never a 500: for the JSON protocols (SageMaker, SSM, KMS: awsJson1_1; EKS,
DataZone: restJson1) a 400 SerializationException, as Smithy's malformed-request protocol tests require ("\"123\"",
true and 1.001 for an integer: `smithy-aws-protocol-tests/model/restJson1/malformedRequests/malformed-integer.smithy`);
for the query protocol (IAM, STS), whose values are all text, a 400 for text that does not read as the member's type.

Requests are raw and signed (SigV4), since an SDK refuses to send them. CloudWatch (Smithy RPC v2 CBOR, one call,
GetMetricData) is left out: the sandbox's CBOR front end is cloudwatch.py's own.
"""
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import botocore.session
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

REPO = Path(__file__).resolve().parents[3]
GUIDE = REPO / "docs" / "guides" / "permissions.md"
REGION = "us-west-2"
SERVICES = {"sagemaker", "ssm", "kms", "eks", "datazone", "iam", "sts"}
MAX_DEPTH = 5

# Values of the wrong JSON type for each shape type.
WRONG: dict[str, list[Any]] = {
    "string": [16, True, {"a": 1}],
    "integer": ["16", "abc", True, 16.5, 2 ** 40],
    "long": ["16", True, 16.5],
    "float": ["1.5", True, [1]],
    "double": ["1.5", True, [1]],
    "boolean": ["true", 1],
    "timestamp": [True, {"a": 1}],
    "blob": [16, True],
    "structure": ["x", [1]],
    "list": ["x", {"a": 1}],
    "map": ["x", [1]],
}
# Text that does not read as the member's type, for the query protocol.
WRONG_TEXT: dict[str, list[str]] = {"integer": ["abc", "1.5"], "long": ["abc"], "boolean": ["maybe"],
                                    "timestamp": ["yesterday"]}


def called_operations() -> list[tuple[str, str]]:
    """(boto3 service, operation) of every action the provider calls, from the permissions guide's table."""
    text = GUIDE.read_text()
    section = text[text.index("## Machine-readable table"):]
    match = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert match, f"{GUIDE}: no machine-readable table"
    actions = {action for entry in json.loads(match.group(1)).values()
               for action, facts in entry["actions"].items() if facts["called"]}
    found = sorted(tuple(action.split(":", 1)) for action in actions)
    assert found, "no called action in the table"
    return [(service, operation) for service, operation in found if service in SERVICES]


_SESSION = botocore.session.get_session()
OPERATIONS = called_operations()


def model(service: str):
    return _SESSION.get_service_model(service)


def body_members(shape) -> dict:
    """The input members a request carries in its body (not in the URI, headers or query string)."""
    return {name: member for name, member in shape.members.items() if not member.serialization.get("location")}


def swaps(shape, depth: int = 0) -> Iterator[tuple[dict, str, Any]]:
    """(value builder, member path, wrong value) for every member under `shape`: the builder wraps a value into a
    body that sets only that member."""
    for name, member in body_members(shape).items() if depth == 0 else shape.members.items():
        for wrong in WRONG.get(member.type_name, []):
            yield {name: wrong}, name, wrong
        if depth >= MAX_DEPTH:
            continue
        wrap: Callable[[Any], Any]
        if member.type_name == "list":
            inner, wrap = member.member, (lambda v: [v])
        elif member.type_name == "map":
            inner, wrap = member.value, (lambda v: {"k": v})
        else:
            inner, wrap = member, (lambda v: v)
        if inner.type_name == "structure":
            for body, path, wrong in swaps(inner, depth + 1):
                yield {name: wrap(body)}, f"{name}.{path}", wrong
        elif inner is not member:  # a list or map of scalars: one wrong item
            for wrong in WRONG.get(inner.type_name, []):
                yield {name: wrap(wrong)}, f"{name}[]", wrong


def send(sandbox, service: str, operation: str, body, query: dict | None = None) -> tuple[int, str, str]:
    """A signed raw request; (HTTP status, error code, message)."""
    sm = model(service)
    op = sm.operation_model(operation)
    headers = {}
    if sm.protocol == "json":
        method, path = "POST", "/"
        headers["X-Amz-Target"] = f"{sm.metadata['targetPrefix']}.{operation}"
        headers["Content-Type"] = f"application/x-amz-json-{sm.metadata.get('jsonVersion', '1.1')}"
        data = json.dumps(body).encode()
    elif sm.protocol == "rest-json":
        method = op.http["method"]
        path = re.sub(r"\{[^}]+\}", "fuzz", op.http["requestUri"])
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    else:  # query
        method, path = "POST", "/"
        headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8"
        data = urlencode({"Action": operation, "Version": sm.api_version, **(query or {})}).encode()
    url = sandbox.url + path
    request = AWSRequest(method, url, data=data, headers=headers)
    SigV4Auth(Credentials("testing", "testing"), sm.signing_name, REGION).add_auth(request)
    raw = urllib.request.Request(request.url, data=data, headers=dict(request.headers), method=method)
    try:
        with urllib.request.urlopen(raw, timeout=30) as response:
            return response.status, "", ""
    except urllib.error.HTTPError as error:
        text = error.read().decode(errors="replace")
        code = error.headers.get("x-amzn-ErrorType", "")
        try:
            parsed = json.loads(text)
            code = code or parsed.get("__type", "")
            message = parsed.get("message") or parsed.get("Message") or ""
        except ValueError:
            found = re.search(r"<Code>(.*?)</Code>", text)
            code = code or (found.group(1) if found else "")
            message = text
        return error.code, code.split("#")[-1].split(":")[0], message


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()  # the seed, and every reading back to the run's
    yield
    sandbox.reset()


def test_the_provider_calls_operations_of_every_json_and_query_service():
    """The table is read: the fuzz below covers what the provider calls in each protocol."""
    services = {service for service, _ in OPERATIONS}
    assert {"sagemaker", "eks", "datazone", "iam"} <= services, services


def with_body(service: str, operation: str) -> bool:
    """Whether the operation's input has a member its body carries (a REST DELETE of a URI does not)."""
    shape = model(service).operation_model(operation).input_shape
    return shape is not None and bool(body_members(shape))


JSON_OPERATIONS = [o for o in OPERATIONS if model(o[0]).protocol != "query" and with_body(*o)]


@pytest.mark.parametrize("service,operation", JSON_OPERATIONS, ids=lambda v: str(v))
def test_a_member_of_the_wrong_json_type_is_a_serialization_exception(sandbox, service, operation):
    shape = model(service).operation_model(operation).input_shape
    problems, sent = [], 0
    for body, path, wrong in swaps(shape):
        status, code, message = send(sandbox, service, operation, body)
        sent += 1
        if (status, code) != (400, "SerializationException"):
            problems.append(f"{path} = {wrong!r}: {status} {code} {message[:160]}")
    assert sent, f"{operation}: no member to swap"
    assert not problems, f"{service}.{operation}, {len(problems)} of {sent}:\n  " + "\n  ".join(problems[:20])


def typed_query_members(service: str, operation: str) -> dict:
    """The members of a query operation's input that are not text (integers, booleans, timestamps)."""
    shape = model(service).operation_model(operation).input_shape
    return {} if shape is None else {n: m for n, m in shape.members.items() if m.type_name in WRONG_TEXT}


QUERY_OPERATIONS = [o for o in OPERATIONS if model(o[0]).protocol == "query" and typed_query_members(*o)]


@pytest.mark.parametrize("service,operation", QUERY_OPERATIONS, ids=lambda v: str(v))
def test_query_text_that_does_not_read_as_its_type_is_a_4xx(sandbox, service, operation):
    members = typed_query_members(service, operation)
    problems = []
    for name, member in members.items():
        for wrong in WRONG_TEXT[member.type_name]:
            status, code, message = send(sandbox, service, operation, None, {name: wrong})
            if not 400 <= status < 500:
                problems.append(f"{name} = {wrong!r}: {status} {code} {message[:160]}")
    assert not problems, "\n".join(problems)


# AWS's compute-allocation page spells `vCpu`; the model's member is `VCpu`.
PUBLISHED_VCPU = {"Name": "team-a-quota", "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/mlcapeks0001",
                  "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "vCpu": 8}]},
                  "ComputeQuotaTarget": {"TeamName": "team-a"}}


def test_an_unknown_member_is_refused_or_skipped_as_the_reading_says(sandbox):
    """Whether an AWS JSON service refuses a member its model does not have is undocumented (readings.py): under
    "refuse" (the default) a 400 SerializationException naming it; under "ignore" it is skipped, and what is left is
    judged (here: a quota resource with no amount, a ValidationException)."""
    status, code, message = send(sandbox, "sagemaker", "CreateComputeQuota", PUBLISHED_VCPU)
    assert (status, code) == (400, "SerializationException") and '"vCpu"' in message, (status, code, message)
    sandbox.admin("PUT", "settings", {"unknown_members": "ignore"})
    status, code, message = send(sandbox, "sagemaker", "CreateComputeQuota", PUBLISHED_VCPU)
    assert (status, code) == (400, "ValidationException"), (status, code, message)


@pytest.mark.parametrize("value", ["16", "abc", True, 16.5, None])
def test_a_wrong_typed_amount_never_creates_a_quota(sandbox, value):
    """The issue's measurement: "16", true and 16.5 were stored as 16, "abc" answered 500. Now each is a 400 and no
    quota exists (null is an absent member: a quota resource with no amount, a ValidationException)."""
    body = json.loads(json.dumps(PUBLISHED_VCPU))
    body["ComputeQuotaConfig"]["ComputeQuotaResources"] = [{"InstanceType": "ml.p5.48xlarge", "Accelerators": value}]
    status, code, _ = send(sandbox, "sagemaker", "CreateComputeQuota", body)
    assert status == 400 and code == ("ValidationException" if value is None else "SerializationException")
    assert sandbox.client("sagemaker").list_compute_quotas()["ComputeQuotaSummaries"] == []


# ---- AWS's documented-invalid requests -------------------------------------------------------------------------------
# AWS's published team quota (the awslabs task-governance page's Team-A) and cluster policy, each mutated into a
# request AWS documents as invalid (botocore's model: FairShareWeight 0-100, PriorityClasses at most 10, TeamName
# `[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?`, AbsoluteBorrowLimits at most 15, Strategy an enum; the developer guide: a MIG
# profile exists only on the GPUs that offer it, BorrowLimit 1-500 percent).
def team_a(**changes) -> dict:
    request: dict[str, Any] = {
        "Name": "Team-A", "ClusterArn": PUBLISHED_VCPU["ClusterArn"], "ActivationState": "Enabled",
        "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}],
                               "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 100},
                               "PreemptTeamTasks": "LowerPriority"},
        "ComputeQuotaTarget": {"TeamName": "team-a", "FairShareWeight": 0}}
    for path, value in changes.items():
        node: Any = request
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        node[last] = value
    return request


def policy(classes: int) -> dict:
    return {"Name": "example-cluster-scheduler-config", "ClusterArn": PUBLISHED_VCPU["ClusterArn"],
            "SchedulerConfig": {"PriorityClasses": [{"Name": f"class-{i}", "Weight": 10} for i in range(classes)],
                                "FairShare": "Enabled"}}


P4D_PARTITION = {"InstanceType": "ml.p4d.24xlarge", "AcceleratorPartition": {"Type": "mig-7g.80gb", "Count": 1}}
LIMITS = [{"InstanceType": "ml.p5.48xlarge", "Count": 1}] * 16

DOCUMENTED_INVALID = {
    "fair-share weight 101": ("CreateComputeQuota", team_a(**{"ComputeQuotaTarget.FairShareWeight": 101})),
    "11 priority classes": ("CreateClusterSchedulerConfig", policy(11)),
    "upper-case team name": ("CreateComputeQuota", team_a(**{"ComputeQuotaTarget.TeamName": "Team-A"})),
    "a MIG profile the GPU does not have": (
        "CreateComputeQuota", team_a(**{"ComputeQuotaConfig.ComputeQuotaResources": [P4D_PARTITION]})),
    "16 absolute borrow limits": ("CreateComputeQuota", team_a(**{
        "ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits": LIMITS})),
    "misspelt strategy": ("CreateComputeQuota", team_a(**{"ComputeQuotaConfig.ResourceSharingConfig.Strategy":
                                                          "LendandBorrow"})),
    "borrow limit 501": ("CreateComputeQuota", team_a(**{"ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit": 501})),
    "a count as text": ("CreateComputeQuota", team_a(**{"ComputeQuotaConfig.ComputeQuotaResources": [
        {"InstanceType": "ml.p5.48xlarge", "Count": "1"}]})),
}


@pytest.mark.parametrize("case", DOCUMENTED_INVALID)
def test_a_request_aws_documents_as_invalid_is_a_4xx_and_writes_nothing(sandbox, case):
    operation, body = DOCUMENTED_INVALID[case]
    status, code, message = send(sandbox, "sagemaker", operation, body)
    assert status == 400 and code in ("ValidationException", "SerializationException"), (status, code, message)
    sm = sandbox.client("sagemaker")
    assert sm.list_compute_quotas()["ComputeQuotaSummaries"] == []
    assert sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"] == []


def test_the_published_requests_themselves_are_accepted(sandbox):
    """The unmutated requests are valid: each case above fails for its own change only."""
    assert send(sandbox, "sagemaker", "CreateComputeQuota", team_a())[0] == 200
    assert send(sandbox, "sagemaker", "CreateClusterSchedulerConfig", policy(10))[0] == 200
