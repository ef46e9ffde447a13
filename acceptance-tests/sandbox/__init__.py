"""Local AWS sandbox for the provider's acceptance tests: moto + project extensions on one port.

`install()` must run before moto serves its first request: moto builds each
service's Flask app lazily, from the (patched) response classes and URL maps.
Everything here uses moto internals (through moto_adapter.py), hence the exact `moto==5.2.5` pin.

Importing this package loads no moto (the harness and the suites read seed.py and names.py); `install()` does.
"""
import logging
import traceback

from .names import CALLER_HEADER

# Services whose requests are checked against the botocore model before moto sees them: all the sandbox serves.
VALIDATED_SERVICES = {"iam", "sts", "kms", "eks", "sagemaker", "datazone", "ssm"}
log = logging.getLogger("sandbox")


def install():
    """The front door first, then each service's extension: one line per service (append yours)."""
    from . import cloudwatch, datazone, eks, iam, kms, sagemaker, ssm  # here: they load moto

    _install_front_door()
    iam.install()
    kms.install()
    ssm.install()
    sagemaker.install()
    eks.install()
    cloudwatch.install()
    datazone.install()  # a new moto service: registers itself with moto


def _install_front_door():
    """Wrap moto's `BaseResponse.call_action`, which every AWS request of every service passes through:
    call counters, faults, model validation, then moto (or our extension); JSON/XML 501 for what is not implemented
    and an AWS-shaped 500 for a crash, never moto's HTML 500 (SDKs retry 500s)."""
    from . import faults
    from .moto_adapter import BaseResponse
    from .validation import aws_error, malformed_error, validation_error

    if getattr(BaseResponse.call_action, "sandbox_front_door", False):
        return  # installed already

    moto_call_action = BaseResponse.call_action
    moto_parse_parameters = BaseResponse.parse_parameters

    def parse_parameters(self, request):
        # moto parses the body before any handler runs, and crashes on a value it cannot read ("abc" for an integer):
        # kept for the front door, which answers it as AWS does (validation.py), never as a 500.
        try:
            moto_parse_parameters(self, request)
        except Exception as e:  # noqa: BLE001 - whatever moto's parser raises, the request is malformed
            self.params = {}
            self.sandbox_unreadable = e

    def call_action(self):
        service, operation = self.boto3_service_name, self._get_action() or "UnknownOperation"
        faults.count_call(service, operation, _caller(self))
        faults.delay(service, operation)
        failure = faults.failure_response(service, operation)
        if failure:
            return aws_error(service, *failure)
        if service in ("iam", "sts"):
            invisible = faults.invisible_role(service, operation, _param(self, "RoleName"), _param(self, "RoleArn"))
            if invisible:
                return aws_error(service, *invisible)
        if service in VALIDATED_SERVICES:
            error = validation_error(self)
            if error:
                return error
        unreadable = getattr(self, "sandbox_unreadable", None)
        if unreadable is not None:
            return malformed_error(service, f"Could not read the request: {unreadable}")
        try:
            status, headers, body = moto_call_action(self)
        except NotImplementedError as e:
            return aws_error(service, "NotImplemented", f"sandbox: {operation} is not implemented ({e})", 501)
        except Exception as e:  # noqa: BLE001 - a sandbox bug: say so in AWS's shape, keep the traceback in the log
            log.error("sandbox: %s.%s crashed:\n%s", service, operation, traceback.format_exc())
            return aws_error(service, "InternalFailure", f"sandbox: {operation} crashed: {e!r}", 500)
        if service == "iam" and operation == "CreateRole" and status == 200:
            faults.role_created(_param(self, "RoleName"))
        faults.hold(service, operation, status)  # a `hold` fault: accepted, but the answer waits (kill tests)
        return status, _json_content_type(self, headers, body), body

    call_action.sandbox_front_door = True  # type: ignore[attr-defined]  # a marker: functions declare no attributes
    BaseResponse.call_action = call_action
    BaseResponse.parse_parameters = parse_parameters


def _caller(resp):
    """The x-hyperpod-caller header: whom the provider made this call for (faults.calls_by_caller)."""
    headers = getattr(resp, "headers", None)
    return headers.get(CALLER_HEADER) if headers is not None else None


def _param(resp, name):
    try:
        value = resp._get_param(name)
    except Exception:  # noqa: BLE001 - no parsed params (e.g. an unknown operation)
        return None
    return value if isinstance(value, str) else None


def _json_content_type(resp, headers, body):
    """moto's hand-written JSON responses (KMS, SSM, ...) say text/html; AWS says application/x-amz-json-1.1."""
    content_type = str(headers.get("Content-Type") or headers.get("content-type") or "")
    if (content_type.startswith("text/html") or not content_type) and isinstance(body, (str, bytes)) \
            and body[:1] in ("{", b"{"):
        from .moto_adapter import get_service_model

        try:
            model = get_service_model(resp.boto3_service_name)
        except Exception:  # noqa: BLE001
            return headers
        if model.protocol == "json":
            headers = dict(headers)
            headers.pop("content-type", None)
            headers["Content-Type"] = f"application/x-amz-json-{model.metadata.get('jsonVersion', '1.1')}"
        elif model.protocol == "rest-json":
            headers = dict(headers)
            headers.pop("content-type", None)
            headers["Content-Type"] = "application/json"
    return headers
