"""Server-side request validation against the botocore service model.

botocore's ParamValidator checks required members, types, `min`, unions and
documents.  AWS also enforces `max`, `pattern` and `enum`; this subclass adds
those and renders errors the way AWS does ("N validation errors detected: ...").
The Rust SDK validates nothing client-side, so without this the sandbox would
accept requests that AWS rejects.
"""
import regex  # unlike `re`, supports the \p{L}-style classes used in AWS patterns
from botocore.validate import ParamValidator
from moto.core.exceptions import ServiceException
from moto.core.parse import PROTOCOL_PARSERS, UNDEFINED
from moto.core.request import determine_request_protocol
from moto.core.responses import BaseResponse
from moto.core.utils import get_service_model

_RX = {}


def _rx(pattern):
    if pattern not in _RX:
        _RX[pattern] = regex.compile(pattern)
    return _RX[pattern]


class ValidationException(ServiceException):
    code = "ValidationException"


class StrictParamValidator(ParamValidator):
    VALIDATED_METADATA_ATTRS = ParamValidator.VALIDATED_METADATA_ATTRS | {"max", "pattern", "enum"}

    def _max(self, name, n, shape, errors, what):
        if "max" in shape.metadata and n > shape.metadata["max"]:
            errors.report(name, "max " + what, max_allowed=shape.metadata["max"], param=n)

    def _validate_string(self, param, shape, errors, name):
        super()._validate_string(param, shape, errors, name)
        if not isinstance(param, str):
            return
        self._max(name, len(param), shape, errors, "length")
        enum = shape.metadata.get("enum")
        if enum and param not in enum:
            errors.report(name, "enum", param=param, allowed=enum)
        pattern = shape.metadata.get("pattern")
        # Smithy says patterns are unanchored, but AWS (Coral) front ends reject
        # anything that does not match the whole value (e.g. Name="-bad").
        if pattern and not _rx(pattern).fullmatch(param):
            errors.report(name, "pattern", param=param, pattern=pattern)

    def _validate_list(self, param, shape, errors, name):
        super()._validate_list(param, shape, errors, name)
        if isinstance(param, (list, tuple)):
            self._max(name, len(param), shape, errors, "length")

    def _validate_map(self, param, shape, errors, name):
        super()._validate_map(param, shape, errors, name)
        if isinstance(param, dict):
            self._max(name, len(param), shape, errors, "length")

    def _validate_integer(self, param, shape, errors, name):
        super()._validate_integer(param, shape, errors, name)
        if isinstance(param, int):
            self._max(name, param, shape, errors, "value")

    _validate_long = _validate_integer


def _aws_message(errors):
    """Render botocore ValidationErrors the way AWS (Coral) does."""
    out = []
    for reason, name, kw in errors._errors:
        path = name.lstrip(".") or "input"
        if reason == "missing required field":
            path = f"{path}.{kw['required_name']}" if name else kw["required_name"]
            out.append(f"Value null at '{path}' failed to satisfy constraint: Member must not be null")
        elif reason == "invalid length":
            out.append(f"Value at '{path}' failed to satisfy constraint: "
                       f"Member must have length greater than or equal to {kw['min_allowed']}")
        elif reason == "max length":
            out.append(f"Value at '{path}' failed to satisfy constraint: "
                       f"Member must have length less than or equal to {kw['max_allowed']}")
        elif reason == "invalid range":
            out.append(f"Value '{kw['param']}' at '{path}' failed to satisfy constraint: "
                       f"Member must have value greater than or equal to {kw['min_allowed']}")
        elif reason == "max value":
            out.append(f"Value '{kw['param']}' at '{path}' failed to satisfy constraint: "
                       f"Member must have value less than or equal to {kw['max_allowed']}")
        elif reason == "enum":
            out.append(f"Value '{kw['param']}' at '{path}' failed to satisfy constraint: "
                       f"Member must satisfy enum value set: [{', '.join(kw['allowed'])}]")
        elif reason == "pattern":
            out.append(f"Value '{kw['param']}' at '{path}' failed to satisfy constraint: "
                       f"Member must satisfy regular expression pattern: {kw['pattern']}")
        else:  # type errors, unions
            out.append(f"{reason} at '{path}'")
    n = len(out)
    return f"{n} validation error{'s' if n > 1 else ''} detected: " + "; ".join(out)


def _clean(v):
    """Drop members the parser filled with None/UNDEFINED (absent uri labels etc.)."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None and x is not UNDEFINED}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def _operation(resp: BaseResponse):
    sm = get_service_model(resp.boto3_service_name)
    action = resp._get_action()
    if not action or action not in sm.operation_names:
        return sm, None
    return sm, sm.operation_model(action)


def _model_params(resp: BaseResponse, sm, op) -> dict:
    """The request's input parsed with the botocore model (for any moto response)."""
    if resp.automated_parameter_parsing and hasattr(resp, "params"):
        params = resp.params
        return _clean(dict(params.original_dict() if hasattr(params, "original_dict") else params))
    req = resp.normalized_request
    parser = PROTOCOL_PARSERS[determine_request_protocol(sm, req.content_type)](op)
    return _clean(dict(parser.parse({"method": req.method, "values": req.values, "headers": req.headers,
                                     "body": req.data, "url_path": req.path, "url_params": resp.uri_match})))


def validation_error(resp: BaseResponse):
    """An AWS-style ValidationException for an invalid request, else None."""
    sm, op = _operation(resp)
    if op is None or op.input_shape is None:
        return None
    errors = StrictParamValidator().validate(_model_params(resp, sm, op), op.input_shape)
    return ValidationException(_aws_message(errors)) if errors.has_errors() else None
