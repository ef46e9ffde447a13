"""CloudWatch GetMetricData as the sandbox serves it (sandbox/cloudwatch.py): boto3 speaks rpc-v2-cbor to it, the
seeded Kueue series come back per hour as the seed profiles say, and what AWS refuses is refused the same way."""
import datetime
import json
import urllib.error
import urllib.request
from pathlib import Path

import botocore.session
import pytest
from botocore import parsers, serialize
from botocore.exceptions import ClientError

SEED = Path(__file__).resolve().parents[1] / "seed_data" / "cloudwatch.json"
NAMESPACE = "ContainerInsights/Prometheus"
DAY = 86400


@pytest.fixture(scope="module")
def seeded(sandbox):
    """(cluster name, resource, [(team, profile)]): names from the sandbox's own seed summary (they follow the
    fixture), profiles from the seed file in the same order."""
    summary = sandbox.reset()["seed"]["cloudwatch"]
    seed = json.loads(SEED.read_text())["clusters"][0]
    (cluster, teams), = summary.items()
    return cluster, seed["resource"], list(zip(teams, seed["teams"], strict=False))


@pytest.fixture
def cw(sandbox):
    return sandbox.client("cloudwatch")


def window(days: int):
    today = datetime.datetime.now(datetime.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return today - datetime.timedelta(days=days), today


def stat_query(qid, metric, dims, stat="Average", period=3600):
    return {"Id": qid, "MetricStat": {"Metric": {"Namespace": NAMESPACE, "MetricName": metric,
                                                 "Dimensions": [{"Name": k, "Value": v} for k, v in dims.items()]},
                                      "Period": period, "Stat": stat}}


def cbor_call(sandbox, operation: str, params: dict):
    """GetMetricData as the Rust SDK sends it (rpc-v2-cbor; boto3 picks awsJson1_0): (status, headers, parsed)."""
    model = botocore.session.get_session().get_service_model("cloudwatch")
    op = model.operation_model(operation)
    request = serialize.create_serializer("smithy-rpc-v2-cbor").serialize_to_request(params, op)
    day = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d")
    headers = dict(request["headers"], Authorization=(
        f"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/{day}/{sandbox.region}/monitoring/aws4_request, "
        "SignedHeaders=host, Signature=0"))
    http = urllib.request.Request(sandbox.url + request["url_path"], data=request["body"], headers=headers,
                                  method="POST")
    try:
        with urllib.request.urlopen(http) as response:
            status, got, body = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        status, got, body = e.code, dict(e.headers), e.read()
    shape = op.output_shape if status == 200 else None
    parsed = parsers.RpcV2CBORParser().parse({"body": body, "headers": got, "status_code": status}, shape)
    return status, got, parsed


def test_the_cbor_protocol_the_provider_speaks(sandbox, seeded):
    cluster, resource, teams = seeded
    start, end = window(1)
    team, profile = teams[0]
    query = stat_query("q", "kueue_cluster_queue_resource_usage", {
        "ClusterName": cluster, "ClusterQueue": f"hyperpod-ns-{team}-clusterqueue", "Resource": resource})
    status, headers, parsed = cbor_call(sandbox, "GetMetricData", {
        "MetricDataQueries": [query], "StartTime": start, "EndTime": end, "ScanBy": "TimestampAscending"})
    assert status == 200 and headers["Content-Type"] == "application/cbor"
    assert headers["smithy-protocol"] == "rpc-v2-cbor"
    assert parsed["MetricDataResults"][0]["Values"] == [float(v) for v in profile["usage"]]
    query["MetricStat"]["Period"] = 90
    status, headers, parsed = cbor_call(sandbox, "GetMetricData", {
        "MetricDataQueries": [query], "StartTime": start, "EndTime": end})
    assert status == 400
    assert headers["x-amzn-query-error"] == "ValidationError;Sender"
    assert parsed["Error"]["Code"] == "ValidationError", parsed


def test_seeded_series_come_back_hourly_as_the_profile_says(cw, seeded):
    cluster, resource, teams = seeded
    start, end = window(2)
    queries, expected = [], {}
    for n, (team, profile) in enumerate(teams):
        queue = f"hyperpod-ns-{team}-clusterqueue"
        queries.append(stat_query(f"u{n}", "kueue_cluster_queue_resource_usage",
                                  {"ClusterName": cluster, "ClusterQueue": queue, "Resource": resource}))
        queries.append(stat_query(f"p{n}", "kueue_evicted_workloads_total",
                                  {"ClusterName": cluster, "ClusterQueue": queue, "Reason": "Preempted"},
                                  stat="Sum", period=DAY))
        expected[f"u{n}"] = [float(profile["usage"][h % 24]) for h in range(48)]
        expected[f"p{n}"] = [float(sum(profile["preempted"]))] * 2 if any(profile["preempted"]) else []
    out = cw.get_metric_data(MetricDataQueries=queries, StartTime=start, EndTime=end, ScanBy="TimestampAscending")
    results = {r["Id"]: r for r in out["MetricDataResults"]}
    for qid, values in expected.items():
        assert results[qid]["Values"] == values, qid
        assert results[qid]["StatusCode"] == "Complete"
    first = results["u0"]["Timestamps"][0]
    assert first == start, "buckets start at StartTime"


def test_a_dimension_set_matches_exactly_or_not_at_all(cw, seeded):
    cluster, _, teams = seeded
    start, end = window(1)
    team = teams[0][0]
    out = cw.get_metric_data(MetricDataQueries=[stat_query("q", "kueue_cluster_queue_nominal_quota", {
        "ClusterName": cluster, "ClusterQueue": f"hyperpod-ns-{team}-clusterqueue"})], StartTime=start, EndTime=end)
    assert out["MetricDataResults"][0]["Values"] == []


def test_descending_by_default(cw, seeded):
    cluster, resource, teams = seeded
    start, end = window(1)
    out = cw.get_metric_data(MetricDataQueries=[stat_query("q", "kueue_cluster_queue_nominal_quota", {
        "ClusterName": cluster, "ClusterQueue": f"hyperpod-ns-{teams[0][0]}-clusterqueue", "Resource": resource})],
        StartTime=start, EndTime=end)
    stamps = out["MetricDataResults"][0]["Timestamps"]
    assert len(stamps) == 24 and stamps == sorted(stamps, reverse=True)


@pytest.mark.parametrize("change, message", [
    (lambda q, p: q[0]["MetricStat"].update(Period=61), "is not a valid period"),
    (lambda q, p: q.extend(stat_query(f"q{i}", "m", {}) for i in range(500)), "length between 1 and 500"),
    (lambda q, p: p.update(EndTime=p["StartTime"]), "StartTime must be less than"),
    (lambda q, p: q[0].update(Id="Upper"), "Id is not valid"),
    (lambda q, p: q[0]["MetricStat"].update(Stat="Median"), "Stat is not valid"),
])
def test_what_aws_refuses_is_a_validation_error(sandbox, change, message):
    cw = sandbox.client("cloudwatch", validate=False)  # the sandbox's checks, not boto3's
    start, end = window(1)
    queries, params = [stat_query("q", "kueue_pending_workloads", {"ClusterName": "c"})], {
        "StartTime": start, "EndTime": end}
    change(queries, params)
    with pytest.raises(ClientError) as error:
        cw.get_metric_data(MetricDataQueries=queries, **params)
    assert error.value.response["Error"]["Code"] == "ValidationError"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert message in error.value.response["Error"]["Message"]
