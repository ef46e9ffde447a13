"""CloudWatch in the sandbox: GetMetricData over the Kueue metrics Container Insights publishes, seeded per team.

CloudWatch answers three protocols from one store of datapoints, and so does the sandbox:
* Smithy RPC v2 CBOR (`POST /service/GraniteServiceVersion20100801/operation/<Operation>`, `Content-Type:
  application/cbor`, `smithy-protocol: rpc-v2-cbor`): what the Rust SDK aws-sdk-cloudwatch 1.140 (the provider)
  speaks. moto 5.2.5 neither routes nor parses it: this module adds the route to moto's CloudWatch app, and decodes
  and encodes bodies with botocore's own CBOR parser and serializer, shaped by the `cloudwatch` model;
* awsJson1_0 (`X-Amz-Target: GraniteServiceVersion20100801.GetMetricData`, what boto3 1.44 picks) and awsQuery:
  moto's routes, whose GetMetricData is replaced by the same `_get_metric_data`.
Either way requests pass the sandbox's front door (counters, faults). moto's own metric store (PutMetricData) is not
read: nothing the provider does writes metrics.

What AWS does that the sandbox does too:
* exact dimension-set matching: a query names a metric by namespace, name and *all* its dimensions;
* periods 1, 5, 10, 20, 30 or a multiple of 60, else ValidationError; buckets of `Period` seconds from StartTime,
  timestamps at bucket start; statistics Average, Sum, Minimum, Maximum, SampleCount (others: ValidationError);
* for StartTime older than 15 days a period that is not a multiple of 300 (older than 63 days: 3600) returns no
  datapoints (CloudWatch's retention of finer data), not an error;
* 1 to 500 queries per call, Ids `^[a-z][a-zA-Z0-9_]*$` and unique, StartTime before EndTime: ValidationError;
* ScanBy TimestampDescending unless TimestampAscending; StatusCode Complete; Label = the metric name.
Not served: metric math (`Expression`: 501 NotImplemented), `MaxDatapoints` pagination (NextToken never set: the seed
stays far below the 100,800 datapoints of one page), PutMetricData (nothing in the provider writes metrics).

The seed (`seed_data/cloudwatch.json`) describes per-team profiles as 24 hourly values (index = UTC hour of day) for
each Kueue metric; `apply_seed` lays them out hourly over the `days` before "now" (sandbox start or reset), under the
dimension sets the CloudWatch agent publishes (`ContainerInsights/Prometheus`, see docs/data-sources/team_usage.md).
"""
import datetime
import io
import re
import threading
import time
from collections.abc import Callable

from botocore import parsers, serialize

from .moto_adapter import (
    CLOUDWATCH_URL_PATHS,
    ActionResult,
    BaseResponse,
    CloudWatchResponse,
    CloudWatchValidationError,
    get_service_model,
)

NAMESPACE = "ContainerInsights/Prometheus"
_PATH = re.compile(r"/service/GraniteServiceVersion20100801/operation/(?P<operation>[A-Za-z]+)$")
_ID = re.compile(r"^[a-z][a-zA-Z0-9_]*$")
_STATS = {"Average", "Sum", "Minimum", "Maximum", "SampleCount"}
MAX_QUERIES = 500
_lock = threading.RLock()
# (account, region) -> {(namespace, metric name, frozenset of (dimension, value)): [(epoch seconds, value), ...]}
_metrics: dict = {}


class ValidationError(Exception):
    """CloudWatch's `ValidationError` (shape ValidationException), HTTP 400."""


class CloudWatchCbor(BaseResponse):
    """The rpc-v2-cbor route of CloudWatch. Only what `call_action` needs is overridden, so the front door's wrapper of
    `BaseResponse.call_action` still counts, faults and logs these calls."""

    def __init__(self):
        super().__init__(service_name="cloudwatch")

    def setup_class(self, request, full_url, headers, use_raw_body=False):
        super().setup_class(request, full_url, headers, use_raw_body=True)  # CBOR is no UTF-8 text

    def _get_action(self) -> str:
        match = _PATH.search(self.parsed_url.path if hasattr(self, "parsed_url") else self.path)
        return match.group("operation") if match else "UnknownOperation"

    def get_metric_data(self):
        try:
            # BufferedReader: the parser peeks for the break of the indefinite-length items the Rust SDK sends.
            params = parsers.RpcV2CBORParser().parse_data_item(io.BufferedReader(io.BytesIO(self.raw_body or b"\xa0")))
            results = _get_metric_data(self.current_account, self.region, params)
        except ValidationError as e:
            return cbor_error("ValidationError", str(e))
        return _cbor_body({"MetricDataResults": results}, "GetMetricData"), {
            "status": 200, "Content-Type": "application/cbor", "smithy-protocol": "rpc-v2-cbor"}


def cbor_error(code: str, message: str, status: int = 400):
    """(body, headers) of a CloudWatch error in rpc-v2-cbor: `__type` names the model's shape, and, CloudWatch being
    awsQuery-compatible, `x-amzn-query-error` carries the query error code that SDKs report."""
    shapes = {"ValidationError": "ValidationException", "NotImplemented": "NotImplemented",
              "InternalFailure": "InternalFailure"}
    payload = _encode_plain({"__type": f"com.amazonaws.cloudwatch#{shapes.get(code, code)}", "message": message})
    fault = "Sender" if status < 500 else "Receiver"
    return payload, {"status": status, "Content-Type": "application/cbor", "smithy-protocol": "rpc-v2-cbor",
                     "x-amzn-query-error": f"{code};{fault}"}


def _encode_plain(value: dict) -> bytes:
    """A map of text strings in CBOR (major type 5 of major type 3 items): what an error body holds."""
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        for size, extra in ((0xFF, 24), (0xFFFF, 25), (0xFFFFFFFF, 26)):
            if n <= size:
                return bytes([major << 5 | extra]) + n.to_bytes({24: 1, 25: 2, 26: 4}[extra], "big")
        return bytes([major << 5 | 27]) + n.to_bytes(8, "big")

    out = bytearray(head(5, len(value)))
    for key, text in value.items():
        for s in (key, text):
            raw = s.encode()
            out += head(3, len(raw)) + raw
    return bytes(out)


def _cbor_body(value: dict, operation: str) -> bytes:
    shape = get_service_model("cloudwatch").operation_model(operation).output_shape
    out = bytearray()
    serialize.RpcV2CBORSerializer()._serialize_data_item(out, value, shape)
    return bytes(out)


def _epoch(value) -> float:
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    return float(value)


def _get_metric_data(account: str, region: str, params: dict) -> list:
    queries = params.get("MetricDataQueries") or []
    if not 1 <= len(queries) <= MAX_QUERIES:
        raise ValidationError(f"1 validation error detected: Value at 'metricDataQueries' failed to satisfy "
                              f"constraint: Member must have length between 1 and {MAX_QUERIES}")
    if "StartTime" not in params or "EndTime" not in params:
        raise ValidationError("The parameters StartTime and EndTime are required.")
    start, end = _epoch(params["StartTime"]), _epoch(params["EndTime"])
    if start >= end:
        raise ValidationError("The parameter StartTime must be less than the parameter EndTime.")
    seen = set()
    for n, query in enumerate(queries, 1):
        at = f"MetricDataQueries.member.{n}"
        qid = query.get("Id", "")
        if not _ID.match(qid):
            raise ValidationError(f"The value {qid} for parameter {at}.Id is not valid: it must start with a "
                                  f"lowercase letter and contain only letters, digits and underscores.")
        if qid in seen:
            raise ValidationError(f"The value {qid} for parameter {at}.Id is not unique.")
        seen.add(qid)
        if ("MetricStat" in query) == ("Expression" in query):
            raise ValidationError(f"The parameter {at}.MetricStat or {at}.Expression is required, not both.")
        if "Expression" in query:
            raise NotImplementedError("metric math (Expression) is not served by the sandbox")
        stat = query["MetricStat"]
        period = int(stat.get("Period", 0))
        if not (period in (1, 5, 10, 20, 30) or (period > 0 and period % 60 == 0)):
            raise ValidationError(f"The value {period} for parameter {at}.MetricStat.Period is not a valid period. "
                                  f"Valid values are 1, 5, 10, 20, 30 and any multiple of 60.")
        if stat.get("Stat") not in _STATS:
            raise ValidationError(f"The value {stat.get('Stat')} for parameter {at}.MetricStat.Stat is not valid.")
    ascending = params.get("ScanBy") == "TimestampAscending"
    results = []
    with _lock:
        store = _metrics.get((account, region), {})
        for query in queries:
            stat = query["MetricStat"]
            metric = stat["Metric"]
            key = (metric.get("Namespace"), metric.get("MetricName"),
                   frozenset((d["Name"], d["Value"]) for d in metric.get("Dimensions") or []))
            period = int(stat["Period"])
            points = [] if _too_fine(start, period) else store.get(key, [])
            buckets: dict[int, list] = {}
            for at, value in points:
                if start <= at < end:
                    buckets.setdefault(int((at - start) // period), []).append(value)
            stamps = sorted(buckets, reverse=not ascending)
            results.append({
                "Id": query["Id"],
                "Label": query.get("Label") or metric.get("MetricName"),
                "Timestamps": [datetime.datetime.fromtimestamp(start + i * period, datetime.UTC)
                               for i in stamps],
                "Values": [_statistic(stat["Stat"], buckets[i]) for i in stamps],
                "StatusCode": "Complete",
            })
    return results


def _too_fine(start: float, period: int) -> bool:
    age = time.time() - start
    return bool((age > 63 * 86400 and period % 3600) or (age > 15 * 86400 and period % 300))


_STATISTICS: dict[str, Callable[[list], float]] = {
    "Average": lambda v: sum(v) / len(v), "Sum": sum, "Minimum": min, "Maximum": max,
    "SampleCount": lambda v: float(len(v))}


def _statistic(stat: str, values: list) -> float:
    return _STATISTICS[stat](values)


# ---- seed ----------------------------------------------------------------------------------------------------------

def _moto_get_metric_data(self):
    """moto's JSON/query route of GetMetricData, answered from the sandbox's store."""
    try:
        results = _get_metric_data(self.current_account, self.region, self._get_params())
    except ValidationError as e:
        raise CloudWatchValidationError(str(e)) from None
    return ActionResult({"MetricDataResults": results})


def install():
    CloudWatchResponse.get_metric_data = _moto_get_metric_data
    CLOUDWATCH_URL_PATHS[r"{0}/service/GraniteServiceVersion20100801/operation/(?P<operation>[A-Za-z]+)$"] = \
        CloudWatchCbor.dispatch


def put(account: str, region: str, metric: str, dimensions: dict, points: list) -> None:
    key = (NAMESPACE, metric, frozenset(dimensions.items()))
    with _lock:
        _metrics.setdefault((account, region), {}).setdefault(key, []).extend(points)


def apply_seed(data: dict, account: dict) -> dict:
    """Each cluster's teams, hourly over the `days` before now: 24-value profiles indexed by UTC hour of day."""
    acct, region = account["account_id"], account["region"]
    with _lock:
        _metrics.pop((acct, region), None)  # a reset re-seeds relative to the new "now"
    now_hour = int(time.time()) // 3600 * 3600
    summary = {}
    for cluster in data.get("clusters", []):
        name, resource, flavor = cluster["cluster"], cluster["resource"], cluster["flavor"]
        hours = [now_hour - h * 3600 for h in range(cluster["days"] * 24, 0, -1)]
        teams = []
        for team in cluster["teams"]:
            queue = f"hyperpod-ns-{team['team']}-clusterqueue"
            hour_of = [(at, (at // 3600) % 24) for at in hours]
            series = {
                "kueue_cluster_queue_nominal_quota": [(at, float(team["nominal"])) for at, _ in hour_of],
                "kueue_cluster_queue_resource_usage": [(at, float(team["usage"][h])) for at, h in hour_of],
            }
            for metric, points in series.items():
                for dims in ({"Resource": resource}, {"Resource": resource, "Flavor": flavor}):
                    put(acct, region, metric, {"ClusterName": name, "ClusterQueue": queue, **dims}, points)
            put(acct, region, "kueue_pending_workloads", {"ClusterName": name, "ClusterQueue": queue},
                [(at, float(team["pending"][h])) for at, h in hour_of])
            # The agent publishes the counter's per-interval increase; an interval without eviction publishes none.
            put(acct, region, "kueue_evicted_workloads_total",
                {"ClusterName": name, "ClusterQueue": queue, "Reason": "Preempted"},
                [(at, float(team["preempted"][h])) for at, h in hour_of if team["preempted"][h]])
            teams.append(team["team"])
        summary[name] = teams
    return summary
