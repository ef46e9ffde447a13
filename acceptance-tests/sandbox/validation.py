"""Server-side request validation against the botocore service model, and AWS-shaped error responses.

AWS front ends check every request against the service model before any handler runs: required members, types,
length/size/value ranges, enums and patterns (matched against the WHOLE value; the model's patterns are unanchored,
but `Name="-bad"` is rejected by AWS).  botocore's client-side ParamValidator only does required/type/min, and
the Rust SDK validates nothing, so without this the sandbox would accept requests that AWS rejects.

Errors are rendered the way the AWS (Coral) front end renders them:

    2 validation errors detected: Value 'x y' at 'roleName' failed to satisfy constraint: Member must satisfy
    regular expression pattern: [\\w+=,.@-]+; Value null at 'tags.1.member.value' failed to satisfy constraint:
    Member must not be null

member paths are lowerCamelCase, list items are `<list>.<1-based index>.member`, constraints on the items of a
scalar list / the keys or values of a map are reported once at the collection ("Member must satisfy constraint:
[...]", "Map keys must satisfy constraint: [...]").  Code and HTTP status per service: see `ERROR_CODES`.
"""
import json
import math
import uuid
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape

import regex  # unlike `re`, supports the \p{L}-style classes used in AWS patterns

from . import readings
from .cloudwatch import cbor_error
from .moto_adapter import UNDEFINED, BaseResponse, get_service_model, parse_request

# Service (boto3 name) -> error code AWS answers for a constraint violation (HTTP 400 everywhere).  Coral JSON
# services (SageMaker, KMS, SSM) send the namespaced `__type` shown; SDKs strip the namespace.
ERROR_CODES = {"iam": "ValidationError", "sts": "ValidationError", "eks": "InvalidParameterException"}
DEFAULT_ERROR_CODE = "ValidationException"
CORAL_JSON_NAMESPACE = {"ValidationException": "com.amazon.coral.validate#",
                        "SerializationException": "com.amazon.coral.service#"}

_RX: dict[str, Any] = {}  # pattern -> compiled `regex` pattern


def _rx(pattern):
    if pattern not in _RX:
        _RX[pattern] = regex.compile(pattern)
    return _RX[pattern]


# ---- AWS-shaped error responses -------------------------------------------------------------------------------
def aws_error(service: str, code: str, message: str, status: int = 400, extra: dict | None = None):
    """(status, headers, body) of an AWS error for `service` (boto3 name), shaped by its protocol:
    query -> XML ErrorResponse (Type Sender for 4xx, Receiver for 5xx); json -> `__type` + `message`;
    rest-json -> `x-amzn-ErrorType` header + `message` (+ `extra` members, e.g. EKS `clusterName`)."""
    request_id = str(uuid.uuid4())
    try:
        model = get_service_model(service)
        protocol, meta = model.protocol, model.metadata
    except Exception:  # unknown service: JSON is what most AWS APIs speak
        protocol, meta = "rest-json", {}
    headers = {"x-amzn-RequestId": request_id}
    if protocol in ("query", "ec2"):
        xmlns = meta.get("xmlNamespace", "")
        fault = "Sender" if status < 500 else "Receiver"
        body = (f'<ErrorResponse xmlns="{xmlns}"><Error><Type>{fault}</Type><Code>{escape(code)}</Code>'
                f"<Message>{escape(message)}</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>")
        headers["Content-Type"] = "text/xml"
    elif protocol == "json":
        body = json.dumps({"__type": CORAL_JSON_NAMESPACE.get(code, "") + code, "message": message, **(extra or {})})
        headers["Content-Type"] = f"application/x-amz-json-{meta.get('jsonVersion', '1.1')}"
    elif protocol == "smithy-rpc-v2-cbor":  # CloudWatch
        body, cbor_headers = cbor_error(code, message, status)
        headers.update({k: v for k, v in cbor_headers.items() if k != "status"})
    else:  # rest-json (EKS, DataZone) and anything else
        body = json.dumps({"message": message, **(extra or {})})
        headers["Content-Type"] = "application/json"
        headers["x-amzn-ErrorType"] = code
    return status, headers, body


# ---- Validation ----------------------------------------------------------------------------------------------------
def coral_name(member: str) -> str:
    """The member name AWS uses in validation messages: lowerCamelCase (`KMSKeyId` -> `kmsKeyId`)."""
    n = 0
    while n < len(member) and member[n].isupper():
        n += 1
    if n <= 1 or n == len(member):
        return member[:n].lower() + member[n:]
    return member[:n - 1].lower() + member[n - 1:]  # "KMSKey" -> "kms" + "Key"


def _join(path: str, member: str) -> str:
    return f"{path}.{coral_name(member)}" if path else coral_name(member)


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


_TYPES = {"string": (str,), "integer": (int,), "long": (int,), "boolean": (bool,), "float": (int, float),
          "double": (int, float), "timestamp": (datetime, str, int, float), "blob": (bytes, bytearray, str)}


class Report:
    def __init__(self):
        self.errors: list[str] = []  # constraint violations, in AWS's words
        self.malformed: list[str] = []  # wrong JSON types: AWS answers SerializationException

    def add(self, value, path, constraint, show_value=True):
        shown = "null" if value is None else (f"'{_show(value)}'" if show_value else None)
        value = f"{shown} " if shown else ""
        self.errors.append(f"Value {value}at '{path}' failed to satisfy constraint: {constraint}")


def _scalar_problems(value, shape) -> list[str] | None:
    """Constraint violations of one scalar value ("Member must ..."), or None if it has the wrong type."""
    t = shape.type_name
    ok = _TYPES.get(t)
    if ok and (not isinstance(value, ok) or (t in ("integer", "long", "float", "double") and isinstance(value, bool))):
        return None
    meta, out = shape.metadata, []
    if t in ("string", "blob"):
        size = len(value)
        if "min" in meta and size < meta["min"]:
            out.append(f"Member must have length greater than or equal to {meta['min']}")
        if "max" in meta and size > meta["max"]:
            out.append(f"Member must have length less than or equal to {meta['max']}")
        if t == "string":
            if meta.get("enum") and value not in meta["enum"]:
                out.append(f"Member must satisfy enum value set: [{', '.join(meta['enum'])}]")
            if meta.get("pattern") and not _rx(meta["pattern"]).fullmatch(value):
                out.append(f"Member must satisfy regular expression pattern: {meta['pattern']}")
    elif t in ("integer", "long", "float", "double"):
        if "min" in meta and value < meta["min"]:
            out.append(f"Member must have value greater than or equal to {meta['min']}")
        if "max" in meta and value > meta["max"]:
            out.append(f"Member must have value less than or equal to {meta['max']}")
    return out


def _check(value, shape, path, report: Report):
    t = shape.type_name
    if shape.metadata.get("document"):
        return
    if t == "structure":
        if not isinstance(value, dict):
            report.malformed.append(path)
            return
        for name in shape.required_members:
            if value.get(name) is None:
                report.add(None, _join(path, name), "Member must not be null")
        if shape.metadata.get("union"):
            set_members = [k for k, v in value.items() if v is not None]
            if len(set_members) != 1:
                report.add(None if not set_members else _show(sorted(set_members)), path or "input",
                           "Member must have exactly one member set", show_value=False)
        for name, member_value in value.items():
            if name in shape.members and member_value is not None:
                _check(member_value, shape.members[name], _join(path, name), report)
    elif t == "list":
        if not isinstance(value, (list, tuple)):
            report.malformed.append(path)
            return
        _collection_size(value, shape, path, report)
        member = shape.member
        if member.type_name in ("structure", "list", "map"):
            for i, item in enumerate(value):
                if item is not None:
                    _check(item, member, f"{path}.{i + 1}.member", report)
            return
        problems = _item_problems(value, member, path, report)
        if problems:
            report.add(value, path, f"Member must satisfy constraint: [{', '.join(problems)}]",
                       show_value=not member.metadata.get("sensitive"))
    elif t == "map":
        if not isinstance(value, dict):
            report.malformed.append(path)
            return
        _collection_size(value, shape, path, report)
        problems = _item_problems(list(value), shape.key, path, report)
        if problems:
            report.add(None, path, f"Map keys must satisfy constraint: [{', '.join(problems)}]", show_value=False)
        if shape.value.type_name in ("structure", "list", "map"):
            for key, item in value.items():
                if item is not None:
                    _check(item, shape.value, f"{path}.{key}", report)
        else:
            problems = _item_problems(list(value.values()), shape.value, path, report)
            if problems:
                report.add(None, path, f"Map value must satisfy constraint: [{', '.join(problems)}]", show_value=False)
    else:
        scalar_problems = _scalar_problems(value, shape)
        if scalar_problems is None:
            report.malformed.append(path)
            return
        hide = shape.metadata.get("sensitive") or t == "blob"
        for problem in scalar_problems:
            report.add(value, path, problem, show_value=not hide)


def _collection_size(value, shape, path, report):
    meta = shape.metadata
    if "min" in meta and len(value) < meta["min"]:
        report.add(None, path, f"Member must have length greater than or equal to {meta['min']}", show_value=False)
    if "max" in meta and len(value) > meta["max"]:
        report.add(None, path, f"Member must have length less than or equal to {meta['max']}", show_value=False)


def _item_problems(items, shape, path, report) -> list[str]:
    problems = []
    for item in items:
        found = _scalar_problems(item, shape) if item is not None else []
        if found is None:
            report.malformed.append(path)
            continue
        problems += [p for p in found if p not in problems]
    return problems


def validate(params: dict, input_shape) -> Report:
    report = Report()
    _check(params, input_shape, "", report)
    return report


def render(errors: list[str]) -> str:
    n = len(errors)
    return f"{n} validation error{'s' if n > 1 else ''} detected: " + "; ".join(errors)


# ---- Wire types: the body as sent, against the model (the JSON protocols) ------------------------------------------
# A JSON front end deserializes the body into the operation's input before any constraint is checked, so a value of
# the wrong JSON type is a 400 SerializationException whatever else the request lacks (Smithy's malformed-request
# protocol tests, restJson1 `malformed-integer.smithy` etc.: "\"123\"", true and 1.001 for an integer; AWS's JSON
# services word it "STRING_VALUE can not be converted to an Integer").  Nothing is coerced: "16" is not 16.
_INTEGER_RANGE = {"integer": (-2 ** 31, 2 ** 31 - 1), "long": (-2 ** 63, 2 ** 63 - 1)}
_FLOAT_WORDS = ("NaN", "Infinity", "-Infinity")  # how Smithy's JSON protocols write the non-finite floats
_JAVA_TYPE = {"string": "a String", "integer": "an Integer", "long": "a Long", "float": "a Float",
              "double": "a Double", "boolean": "a Boolean", "timestamp": "a Date", "blob": "a ByteBuffer",
              "structure": "a Structure", "list": "a List", "map": "a Map"}


def _token(value) -> str:
    """The JSON token AWS's messages name a value by."""
    if value is None:
        return "NULL_VALUE"
    if isinstance(value, bool):
        return "BOOLEAN_VALUE"
    if isinstance(value, (int, float)):
        return "NUMBER_VALUE"
    if isinstance(value, str):
        return "STRING_VALUE"
    return "START_ARRAY" if isinstance(value, list) else "START_OBJECT"


def _scalar_reads_as(value, shape) -> bool:
    t = shape.type_name
    if t in _INTEGER_RANGE:
        low, high = _INTEGER_RANGE[t]
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    if t in ("float", "double"):
        if isinstance(value, str):
            return value in _FLOAT_WORDS
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "timestamp":  # epoch seconds, unless the member says otherwise
        if shape.serialization.get("timestampFormat") in ("iso8601", "rfc822"):
            return isinstance(value, str)
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)  # string, blob (base64)


def _wire_problem(value, shape, path: str, refuse_unknown: bool) -> str | None:
    """The first place `value` (JSON as sent) does not read as `shape`, in AWS's words; None when it reads."""
    where = path or "input"
    t = shape.type_name
    if shape.metadata.get("document"):
        return None
    if t == "structure":
        if not isinstance(value, dict):
            return f"{_token(value)} can not be converted to {_JAVA_TYPE[t]} at '{where}'"
        for name, member_value in value.items():
            member = shape.members.get(name)
            if member is None:
                if refuse_unknown:
                    return f"Unrecognized field \"{name}\" at '{where}', not marked as ignorable"
                continue
            if member_value is not None:
                found = _wire_problem(member_value, member, _join(path, name), refuse_unknown)
                if found:
                    return found
        return None
    if t in ("list", "map"):
        if not isinstance(value, list if t == "list" else dict):
            return f"{_token(value)} can not be converted to {_JAVA_TYPE[t]} at '{where}'"
        items = [(f"{i + 1}.member", item) for i, item in enumerate(value)] if isinstance(value, list) \
            else list(value.items())
        item_shape = shape.member if t == "list" else shape.value
        for key, item in items:
            at = f"{path}.{key}"
            if item is None:
                if not shape.metadata.get("sparse"):
                    return f"NULL_VALUE can not be converted to {_JAVA_TYPE.get(item_shape.type_name, 'a value')} " \
                           f"at '{at}' (a dense {t} has no null {'items' if t == 'list' else 'values'})"
                continue
            found = _wire_problem(item, item_shape, at, refuse_unknown)
            if found:
                return found
        return None
    if not _scalar_reads_as(value, shape):
        return f"{_token(value)} can not be converted to {_JAVA_TYPE.get(t, 'a ' + t)} at '{where}'"
    return None


def _body_shape(op):
    """The shape the JSON body is read as: the input, or (REST) its payload member; None for a blob payload. REST
    members bound to the URI, headers or query string are not in the body."""
    shape = op.input_shape
    payload = shape.serialization.get("payload")
    if payload:
        member = shape.members[payload]
        return member if member.type_name == "structure" else None
    return shape


def wire_problem(resp: BaseResponse, sm, op) -> str | None:
    """Why the request's body does not read as the operation's input (a JSON protocol), or None."""
    shape = _body_shape(op)
    if shape is None:
        return None
    raw = resp.body
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", errors="replace")
    if not raw or not raw.strip():
        return None  # no body: every member absent (REST GETs; the SDKs send "{}" otherwise)
    try:
        body = json.loads(raw)
    except ValueError as e:
        return f"The request body is not valid JSON: {e}"
    if not isinstance(body, dict):
        return f"{_token(body)} can not be converted to a Structure at 'input'"
    bound = {name for name, member in shape.members.items() if member.serialization.get("location")}
    unbound = {name: value for name, value in body.items() if name not in bound}
    return _wire_problem(unbound, shape, "", readings.reading("unknown_members") == "refuse")


# ---- Hook for moto responses --------------------------------------------------------------------------------------
def _clean(v):
    """Drop members the parser filled with None/UNDEFINED (absent uri labels etc.)."""
    if hasattr(v, "original_dict"):
        v = v.original_dict()
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None and x is not UNDEFINED}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def _model_params(resp: BaseResponse, sm, op) -> dict:
    """The request's input parsed with the botocore model (for any moto response)."""
    if resp.automated_parameter_parsing and hasattr(resp, "params"):
        return _clean(resp.params)
    return _clean(parse_request(resp, sm, op))


def validation_error(resp: BaseResponse):
    """The AWS error response (status, headers, body) for an invalid request, else None."""
    service = resp.boto3_service_name
    sm = get_service_model(service)
    action = resp._get_action()
    if not action or action not in sm.operation_names:
        return None
    op = sm.operation_model(action)
    if op.input_shape is None:
        return None
    if sm.protocol in ("json", "rest-json"):
        problem = wire_problem(resp, sm, op)
        if problem:
            return _malformed(service, sm, problem)
    unreadable = getattr(resp, "sandbox_unreadable", None)
    if unreadable is not None:  # moto's parser could not read the body (the front door kept why)
        return _malformed(service, sm, f"Could not read the request: {unreadable}")
    try:
        params = _model_params(resp, sm, op)
    except Exception as e:  # a value the model's parser cannot read (e.g. "abc" for an integer)
        return _malformed(service, sm, f"Could not read the request: {e}")
    report = validate(params, op.input_shape)
    if report.errors:
        return aws_error(service, ERROR_CODES.get(service, DEFAULT_ERROR_CODE), render(report.errors))
    if report.malformed:
        return _malformed(service, sm, f"Unexpected value type at '{report.malformed[0] or 'input'}'")
    return None


def _malformed(service, sm, message):
    """Wrong types: JSON front ends answer SerializationException; query ones a ValidationError."""
    if sm.protocol in ("json", "rest-json"):
        return aws_error(service, "SerializationException", message)
    return aws_error(service, ERROR_CODES.get(service, DEFAULT_ERROR_CODE), message)


def malformed_error(service: str, message: str):
    """The AWS error for a request of `service` whose body cannot be read (any service, any protocol)."""
    try:
        sm = get_service_model(service)
    except Exception:  # noqa: BLE001 - a service botocore has no model of: JSON is what most AWS APIs speak
        return aws_error(service, "SerializationException", message)
    return _malformed(service, sm, message)
