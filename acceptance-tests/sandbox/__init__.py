"""Local AWS sandbox for the provider's acceptance tests: moto + project extensions on one port.

`install()` must run before moto serves its first request: moto builds each
service's Flask app lazily, from the (patched) response classes and URL maps.
Everything here uses moto internals, hence the exact `moto==5.2.5` pin.
"""
import json

# Services whose requests are checked against the botocore model before moto sees them.
VALIDATED_SERVICES = {"sagemaker"}


def install():
    from moto.core.responses import ActionResult, BaseResponse

    from . import faults, sagemaker
    from .validation import validation_error

    sagemaker.install()
    moto_call_action = BaseResponse.call_action

    def call_action(self):
        service, operation = self.boto3_service_name, self._get_action()
        fault = faults.take(service, operation, "error")
        if fault:
            _, headers, body = self.serialized(ActionResult(faults.InjectedFault(fault["code"], fault["message"])))
            return fault["status"], headers, body
        if service in VALIDATED_SERVICES:
            error = validation_error(self)
            if error:
                return self.serialized(ActionResult(error))
        try:
            return moto_call_action(self)
        except NotImplementedError as e:
            # moto answers HTML 500, which SDKs retry with backoff; AWS-style JSON 501 is final.
            return 501, {"Content-Type": "application/json", "x-amzn-ErrorType": "NotImplemented"}, \
                json.dumps({"__type": "NotImplemented", "message": f"sandbox: {operation} is not implemented ({e})"})

    BaseResponse.call_action = call_action
