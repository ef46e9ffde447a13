"""Faults on demand (every mode of POST /_sandbox/faults) and the per-operation call counters."""
import json
import time
import urllib.error

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "123456789012"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]})


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


def outcome(call, **kwargs):
    """'ok', or (code, HTTP status, message) of the error."""
    try:
        call(**kwargs)
        return "ok"
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"], \
            e.response["Error"].get("Message", "")


def describe(sm):
    return outcome(sm.describe_cluster, ClusterName="ml-capacity")


def test_error_defaults_to_throttling_in_each_protocols_words(sandbox):
    sandbox.fault("DescribeCluster")
    assert describe(sandbox.client("sagemaker")) == ("ThrottlingException", 400, "Rate exceeded")
    sandbox.fault("GetRole")
    assert outcome(sandbox.client("iam").get_role, RoleName="ml-capacity-node-role") == ("Throttling", 400,
                                                                                          "Rate exceeded")


@pytest.mark.parametrize("status, code", [(500, "InternalFailure"), (503, "ServiceUnavailable")])
def test_server_error(sandbox, status, code):
    sm = sandbox.client("sagemaker")
    armed = sandbox.fault("DescribeCluster", "server_error", status=status)["armed"]
    assert (armed["status"], armed["code"]) == (status, code)
    got = describe(sm)
    assert got[:2] == (code, status)
    assert describe(sm) == "ok"


def test_server_error_on_a_query_service_is_a_receiver_fault(sandbox):
    sts = sandbox.client("sts")
    bodies = []
    sts.meta.events.register("after-call.sts.*", lambda http_response, **_: bodies.append(http_response.text))
    sandbox.fault("GetCallerIdentity", "server_error", status=503, message="Service is unavailable")
    assert outcome(sts.get_caller_identity) == ("ServiceUnavailable", 503, "Service is unavailable")
    assert "<Type>Receiver</Type><Code>ServiceUnavailable</Code>" in bodies[-1]


def test_nth_call_fails(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("DescribeCluster", "server_error", status=500, nth=3, count=2)
    results = [describe(sm) for _ in range(5)]
    assert [r if r == "ok" else r[0] for r in results] == ["ok", "ok", "InternalFailure", "InternalFailure", "ok"]


def test_nth_counts_only_matching_calls(sandbox):
    sm, eks = sandbox.client("sagemaker"), sandbox.client("eks")
    sandbox.fault("DescribeCluster", service="sagemaker", nth=2)
    eks.describe_cluster(name="ml-capacity-eks")  # eks.DescribeCluster does not match
    assert describe(sm) == "ok"
    assert describe(sm)[0] == "ThrottlingException"
    assert eks.describe_cluster(name="ml-capacity-eks")["cluster"]["name"] == "ml-capacity-eks"


def test_count_null_fails_every_call_until_cleared(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("DescribeCluster", count=None, code="AccessDeniedException", message="nope")
    assert [describe(sm) for _ in range(3)] == [("AccessDeniedException", 400, "nope")] * 3
    assert sandbox.admin("GET", "faults")["faults"][0]["count"] is None
    sandbox.clear_faults()
    assert describe(sm) == "ok"


def test_latency(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("*", "latency", service="sagemaker", ms=400, count=2)
    started = time.monotonic()
    assert describe(sm) == "ok"
    sm.list_clusters()
    slow = time.monotonic() - started
    started = time.monotonic()
    describe(sm)
    fast = time.monotonic() - started
    assert slow >= 0.8 and fast < 0.4


def test_latency_then_error_on_the_same_call(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("DescribeCluster", "latency", ms=300)
    sandbox.fault("DescribeCluster", "server_error", status=503)
    started = time.monotonic()
    assert describe(sm)[:2] == ("ServiceUnavailable", 503)
    assert time.monotonic() - started >= 0.3


def test_async_failure(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="Kueue not ready")
    cid = sm.create_cluster_scheduler_config(
        Name="p", ClusterArn=f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/mlcapeks0001",
        SchedulerConfig={"FairShare": "Enabled"})["ClusterSchedulerConfigId"]
    deadline = time.monotonic() + 10
    while (desc := sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid))["Status"] == "Creating":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert (desc["Status"], desc["FailureReason"]) == ("CreateFailed", "Kueue not ready")


CLUSTER_ARN = f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/mlcapeks0001"
POLICY = {"PriorityClasses": [{"Name": "inference", "Weight": 90}], "FairShare": "Enabled"}


def settled_config(sm, cid):
    deadline = time.monotonic() + 10
    while (desc := sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid))["Status"] in (
            "Creating", "Updating"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return desc


def test_partial_failure_fails_one_component_of_a_config_that_reads_as_a_success(sandbox):
    sm = sandbox.client("sagemaker")
    armed = sandbox.fault("CreateClusterSchedulerConfig", "partial_failure", component="FairShare")["armed"]
    assert (armed["service"], armed["component"], armed["failure_reason"]) == (
        "sagemaker", "FairShare", "Injected partial failure (sandbox fault)")
    cid = sm.create_cluster_scheduler_config(Name="p", ClusterArn=CLUSTER_ARN,
                                             SchedulerConfig=POLICY)["ClusterSchedulerConfigId"]
    creating = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    assert creating["StatusDetails"] == {"PriorityClasses": "Creating", "FairShare": "Creating"}
    assert "FailureReason" not in creating
    desc = settled_config(sm, cid)
    assert desc["Status"] == "Created"
    assert desc["StatusDetails"] == {"PriorityClasses": "Created", "FairShare": "CreateFailed"}
    assert desc["FailureReason"] == "Injected partial failure (sandbox fault)"
    assert sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"][0]["Status"] == "Created"

    sandbox.fault("UpdateClusterSchedulerConfig", "partial_failure", component="PriorityClasses",
                  failure_reason="PriorityClass inference rejected by the admission webhook")
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=1, Description="v2")
    desc = settled_config(sm, cid)
    assert (desc["Status"], desc["ClusterSchedulerConfigVersion"]) == ("Updated", 2)
    assert desc["StatusDetails"] == {"PriorityClasses": "UpdateFailed", "FairShare": "Updated"}
    assert desc["FailureReason"] == "PriorityClass inference rejected by the admission webhook"
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=2, Description="v3")
    desc = settled_config(sm, cid)  # count=1: the next write succeeds whole
    assert desc["StatusDetails"] == {"PriorityClasses": "Updated", "FairShare": "Updated"}
    assert "FailureReason" not in desc and sandbox.admin("GET", "faults")["faults"] == []


def test_partial_failure_waits_for_a_config_with_its_component(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("CreateClusterSchedulerConfig", "partial_failure", component="IdleResourceSharing")
    cid = sm.create_cluster_scheduler_config(Name="p", ClusterArn=CLUSTER_ARN,
                                             SchedulerConfig=POLICY)["ClusterSchedulerConfigId"]
    desc = settled_config(sm, cid)
    assert desc["StatusDetails"] == {"PriorityClasses": "Created", "FairShare": "Created"}
    assert [f["component"] for f in sandbox.admin("GET", "faults")["faults"]] == ["IdleResourceSharing"]


def test_an_async_failure_of_the_same_write_wins(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("CreateClusterSchedulerConfig", "partial_failure", component="FairShare")
    sandbox.fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="Kueue not ready")
    cid = sm.create_cluster_scheduler_config(Name="p", ClusterArn=CLUSTER_ARN,
                                             SchedulerConfig=POLICY)["ClusterSchedulerConfigId"]
    desc = settled_config(sm, cid)
    assert (desc["Status"], desc["FailureReason"]) == ("CreateFailed", "Kueue not ready")
    assert desc["StatusDetails"] == {"PriorityClasses": "CreateFailed", "FairShare": "CreateFailed"}
    assert [f["mode"] for f in sandbox.admin("GET", "faults")["faults"]] == ["partial_failure"]


def test_iam_eventual_consistency(sandbox):
    iam, sts = sandbox.client("iam"), sandbox.client("sts")
    armed = sandbox.fault(mode="eventual_consistency", role_name="fresh-role", count=3)["armed"]
    assert armed["operation"] == "CreateRole" and armed["active"] is False
    assert iam.get_role(RoleName="ml-capacity-node-role")["Role"]["RoleName"] == "ml-capacity-node-role"  # others fine
    arn = iam.create_role(RoleName="fresh-role", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    assert outcome(iam.get_role, RoleName="fresh-role") == (
        "NoSuchEntity", 404, "The role with name fresh-role cannot be found.")
    assert outcome(iam.put_role_policy, RoleName="fresh-role", PolicyName="p", PolicyDocument=TRUST)[:2] == (
        "NoSuchEntity", 404)
    assert outcome(sts.assume_role, RoleArn=arn, RoleSessionName="early")[:2] == ("AccessDenied", 403)
    assert iam.get_role(RoleName="fresh-role")["Role"]["Arn"] == arn  # propagated after 3 reads
    assert sts.assume_role(RoleArn=arn, RoleSessionName="later")["AssumedRoleUser"]["Arn"].endswith("/later")
    assert sandbox.admin("GET", "faults")["faults"] == []


def test_eventual_consistency_by_resource_arn(sandbox):
    iam = sandbox.client("iam")
    sandbox.fault(mode="eventual_consistency", resource=f"arn:aws:iam::{ACCOUNT}:role/team/path-role")
    iam.create_role(RoleName="path-role", Path="/team/", AssumeRolePolicyDocument=TRUST)
    assert outcome(iam.list_attached_role_policies, RoleName="path-role")[:2] == ("NoSuchEntity", 404)
    assert iam.list_attached_role_policies(RoleName="path-role")["AttachedPolicies"] == []


def test_error_fault_comes_before_validation_and_writes_nothing(sandbox):
    iam = sandbox.client("iam", validate=False)
    sandbox.fault("CreateRole", "server_error", status=500)
    assert outcome(iam.create_role, RoleName="bad name", AssumeRolePolicyDocument=TRUST)[:2] == (
        "InternalFailure", 500)
    assert outcome(iam.get_role, RoleName="bad name")[:2] == ("ValidationError", 400)


@pytest.mark.parametrize("spec", [
    {"operation": "DescribeCluster", "mode": "sometimes"},
    {"operation": "DescribeCluster", "mode": "latency"},  # no ms
    {"operation": "DescribeCluster", "mode": "server_error", "status": 429},
    {"operation": "DescribeCluster", "nth": 0},
    {"operation": "DescribeCluster", "count": 0},
    {"mode": "error"},  # no operation
    {"mode": "eventual_consistency", "role_name": "r", "count": None},
    {"operation": "CreateClusterSchedulerConfig", "mode": "partial_failure"},  # no component
    {"operation": "CreateClusterSchedulerConfig", "mode": "partial_failure", "component": "Quotas"},
    {"operation": "CreateComputeQuota", "mode": "partial_failure", "component": "FairShare"},
    {"operation": "*", "mode": "partial_failure", "component": "FairShare"},
    {"operation": "UpdateClusterSchedulerConfig", "mode": "partial_failure", "component": "FairShare",
     "failure_reason": ""},
], ids=["mode", "latency-ms", "server-status", "nth", "count", "operation", "ec-count", "partial-no-component",
        "partial-component", "partial-operation", "partial-any-operation", "partial-reason"])
def test_bad_fault_specs_are_rejected(sandbox, spec):
    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.admin("POST", "faults", spec)
    assert info.value.code == 400 and "error" in json.loads(info.value.read())


# ---- call counters -------------------------------------------------------------------------------------------------
def test_call_counters(sandbox):
    sm, iam = sandbox.client("sagemaker"), sandbox.client("iam", validate=False)
    assert sandbox.calls() == {}  # reset zeroes them
    for _ in range(3):
        sm.describe_cluster(ClusterName="ml-capacity")
    sm.list_clusters()
    sandbox.fault("ListClusters")
    outcome(sm.list_clusters)  # failed calls count too: the client made them
    outcome(iam.get_role, RoleName="bad name")  # and rejected ones
    sandbox.client("eks").describe_cluster(name="ml-capacity-eks")
    assert sandbox.calls() == {"eks.DescribeCluster": 1, "iam.GetRole": 1, "sagemaker.DescribeCluster": 3,
                               "sagemaker.ListClusters": 2}
    sandbox.reset_calls()
    assert sandbox.calls() == {}
    sm.describe_cluster(ClusterName="ml-capacity")
    assert sandbox.admin("GET", "calls") == {"sagemaker.DescribeCluster": 1}
    sandbox.reset()
    assert sandbox.calls() == {}


def test_calls_are_counted_per_caller_too(sandbox):
    """The x-hyperpod-caller header the provider sets splits the same counts by resource; calls without it are
    under "" and the plain per-operation view is unchanged."""
    sandbox.reset()

    def as_caller(service, caller):
        client = sandbox.client(service)
        client.meta.events.register("before-sign.*.*",
                                    lambda request, **_: request.headers.__setitem__("x-hyperpod-caller", caller))
        return client

    as_caller("sagemaker", "hyperpod_tenant").describe_cluster(ClusterName="ml-capacity")
    as_caller("sagemaker", "data.hyperpod_cluster").describe_cluster(ClusterName="ml-capacity")
    as_caller("iam", "hyperpod_tenant").get_role(RoleName="datazone_usr_role_research")
    sandbox.client("sagemaker").list_clusters()
    assert sandbox.calls() == {"iam.GetRole": 1, "sagemaker.DescribeCluster": 2, "sagemaker.ListClusters": 1}
    assert sandbox.calls_by_caller() == {
        "": {"sagemaker.ListClusters": 1},
        "data.hyperpod_cluster": {"sagemaker.DescribeCluster": 1},
        "hyperpod_tenant": {"iam.GetRole": 1, "sagemaker.DescribeCluster": 1},
    }
    sandbox.reset_calls()
    assert sandbox.calls_by_caller() == {}


# ---- Kubernetes API requests ---------------------------------------------------------------------------------------
SA_PATH = "/api/v1/namespaces/default/serviceaccounts"
SA = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "trainer"}}


@pytest.fixture
def kube(sandbox, tmp_path):
    from harness.kube import Kube
    return Kube(sandbox, tmp_path)


def test_kubernetes_error_defaults_to_too_many_requests(sandbox, kube):
    armed = sandbox.fault("kubernetes.create.serviceaccounts")["armed"]
    assert (armed["service"], armed["status"], armed["code"]) == ("kubernetes", 429, "TooManyRequests")
    code, body = kube.post(SA_PATH, SA)
    assert (code, body["kind"], body["status"], body["reason"], body["code"]) == (
        429, "Status", "Failure", "TooManyRequests", 429)
    assert body["message"] == "Too many requests, please try again later."
    assert kube.post(SA_PATH, SA)[0] == 201


def test_kubernetes_faults_by_verb_resource_and_wildcard(sandbox, kube):
    sandbox.fault("kubernetes.*.serviceaccounts", code="Forbidden", status=403, count=2, message="no")
    assert kube.get("/api/v1/namespaces/default")[0] == 200  # another resource
    assert kube.get(SA_PATH)[1]["reason"] == "Forbidden"  # list
    assert kube.post(SA_PATH, SA)[:1] == (403,)
    assert kube.post(SA_PATH, SA)[0] == 201
    sandbox.fault("kubernetes.delete.serviceaccounts", "server_error", status=503)
    code, body = kube.delete(f"{SA_PATH}/trainer")
    assert (code, body["reason"]) == (503, "ServiceUnavailable")
    assert kube.get(f"{SA_PATH}/trainer")[0] == 200  # the failed delete deleted nothing
    sandbox.fault("kubernetes.get.version", "server_error")
    assert kube.get("/version")[1]["reason"] == "InternalError"
    sandbox.fault("kubernetes.get.discovery", code="Forbidden", status=403)
    assert kube.get("/apis")[0] == 403


def test_a_bare_star_is_for_aws_calls_only(sandbox, kube):
    sandbox.fault("*", count=None)
    assert kube.post(SA_PATH, SA)[0] == 201
    assert outcome(sandbox.client("sts").get_caller_identity)[0] == "Throttling"


def test_kubernetes_latency_and_call_counters(sandbox, kube):
    sandbox.fault("kubernetes.create.*", "latency", ms=300)
    started = time.monotonic()
    assert kube.post(SA_PATH, SA)[0] == 201
    assert time.monotonic() - started >= 0.3
    kube.get(f"{SA_PATH}/trainer")
    kube.get("/api/v1/namespaces/default/serviceaccounts")
    calls = sandbox.calls()
    assert (calls["kubernetes.create.serviceaccounts"], calls["kubernetes.get.serviceaccounts"],
            calls["kubernetes.list.serviceaccounts"]) == (1, 1, 1)


@pytest.mark.parametrize("spec", [
    {"operation": "kubernetes.create.serviceaccount"},  # singular: not a resource the API serves
    {"operation": "kubernetes.watch.serviceaccounts"},
    {"operation": "kubernetes.create.networkpolicies", "mode": "async_failure"},
    {"operation": "kubernetes.create.networkpolicies", "service": "eks"},
    {"operation": "CreateRole", "service": "kubernetes"},
], ids=["resource", "verb", "mode", "service", "aws-name"])
def test_bad_kubernetes_fault_specs_are_rejected(sandbox, spec):
    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.admin("POST", "faults", spec)
    assert info.value.code == 400 and "error" in json.loads(info.value.read())


# ---- hold: accepted, then the response waits (kill tests) -----------------------------------------------------------
def _in_background(call):
    """Run `call()` in a thread; returns (thread, box) where box gets {"result"} or {"error"} and "done" (monotonic)."""
    import threading
    box = {}

    def run():
        try:
            box["result"] = call()
        except Exception as e:  # noqa: BLE001 - reported to the test through box
            box["error"] = e
        box["done"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def test_hold_handles_the_call_then_holds_its_response_until_released(sandbox):
    iam = sandbox.client("iam", read_timeout=30)
    armed = sandbox.fault("CreateRole", "hold")["armed"]
    assert (armed["mode"], armed["ms"]) == ("hold", 600_000)
    assert sandbox.held() == []
    thread, box = _in_background(lambda: iam.create_role(RoleName="held-role", AssumeRolePolicyDocument=TRUST))
    held = sandbox.wait_held(timeout=10)
    assert [(h["service"], h["operation"], h["status"]) for h in held] == [("iam", "CreateRole", 200)]
    # AWS accepted it: the role exists while its creator still waits for the answer.
    assert iam.get_role(RoleName="held-role")["Role"]["RoleName"] == "held-role"
    time.sleep(0.3)
    assert thread.is_alive() and "done" not in box
    assert sandbox.held()[0]["held_ms"] >= 300
    released_at = time.monotonic()
    assert sandbox.release_held() == 1
    thread.join(10)
    assert box["done"] >= released_at and box["result"]["Role"]["RoleName"] == "held-role"
    assert sandbox.held() == [] and sandbox.admin("GET", "faults")["faults"] == []  # count 1: used up
    iam.create_role(RoleName="next-role", AssumeRolePolicyDocument=TRUST)  # not held
    assert sandbox.calls()["iam.CreateRole"] == 2


def test_hold_ms_bounds_the_wait_and_nth_picks_the_call(sandbox):
    sm = sandbox.client("sagemaker")
    sandbox.fault("DescribeCluster", "hold", ms=400, nth=2)
    started = time.monotonic()
    describe(sm)
    assert time.monotonic() - started < 0.4  # the first call passes
    started = time.monotonic()
    assert describe(sm) == "ok"  # held 400 ms, then answered normally
    assert time.monotonic() - started >= 0.4


def test_only_accepted_calls_are_held(sandbox):
    iam = sandbox.client("iam")
    sandbox.fault("CreateRole", "hold", ms=5_000)
    assert outcome(iam.create_role, RoleName="bad name!", AssumeRolePolicyDocument=TRUST)[0] == "ValidationError"
    assert sandbox.held() == [] and sandbox.admin("GET", "faults")["faults"][0]["seen"] == 0
    thread, box = _in_background(lambda: iam.create_role(RoleName="good-name", AssumeRolePolicyDocument=TRUST))
    assert sandbox.wait_held(timeout=10)[0]["operation"] == "CreateRole"
    sandbox.reset()  # a reset releases what is held (and forgets the role)
    thread.join(10)
    assert box["result"]["Role"]["RoleName"] == "good-name"


def test_kubernetes_create_can_be_held(sandbox, kube):
    sandbox.fault("kubernetes.create.*", "hold")
    thread, box = _in_background(lambda: kube.post(SA_PATH, SA))
    held = sandbox.wait_held(timeout=10)
    assert [(h["service"], h["operation"], h["status"]) for h in held] == [
        ("kubernetes", "kubernetes.create.serviceaccounts", 201)]
    assert kube.get(f"{SA_PATH}/trainer")[0] == 200  # created while its response waits
    assert thread.is_alive()
    sandbox.clear_faults()  # disarming releases too
    thread.join(10)
    assert box["result"][0] == 201


@pytest.mark.parametrize("spec", [{"ms": -1}, {"ms": 600_001}, {"ms": "long"}], ids=["negative", "too-long", "text"])
def test_bad_hold_specs_are_rejected(sandbox, spec):
    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.admin("POST", "faults", {"operation": "CreateRole", "mode": "hold", **spec})
    assert info.value.code == 400 and "ms" in json.loads(info.value.read())["error"]
