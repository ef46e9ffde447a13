"""The one module that imports moto: everything the sandbox uses of moto 5.2.5's internals, under the sandbox's names.

moto is pinned exactly (requirements.txt) because the extensions patch and subclass its internals; keeping every such
use here means a moto upgrade is checked, and mended, in one file.  harness/tests/test_import_structure.py fails when
another module imports moto.

What is here:
* classes the extensions patch or subclass (response classes, backends, models) and the URL maps they extend;
* exceptions that moto renders as AWS errors, prefixed with their service where moto's names clash;
* backend lookups by account and region (`iam_backend`, `eks_backend`, ...) and iteration over the loaded ones;
* request parsing with the botocore model, STS identities for Kubernetes tokens, and the server's bootstrap (the moto
  WSGI app, its request handler, reset, the default account, registering a service moto does not have).
"""
import re
import sys
from collections.abc import Iterator
from typing import Any

import moto
from moto import backend_index, backends
from moto.cloudwatch import exceptions as _cloudwatch_exceptions, urls as _cloudwatch_urls
from moto.cloudwatch.responses import CloudWatchResponse
from moto.core.base_backend import BackendDict, BaseBackend
from moto.core.exceptions import ServiceException
from moto.core.parse import PROTOCOL_PARSERS, UNDEFINED
from moto.core.request import determine_request_protocol
from moto.core.responses import ActionResult, BaseResponse, EmptyResult
from moto.core.utils import get_service_model, unix_time, utcnow
from moto.eks import exceptions as _eks_exceptions, models as _eks_models, urls as _eks_urls
from moto.eks.responses import EKSResponse
from moto.iam import models as _iam_models
from moto.iam.aws_managed_policies import aws_managed_policies_data
from moto.iam.exceptions import NotFoundException as IamNotFoundException
from moto.iam.responses import IamResponse
from moto.kms import exceptions as _kms_exceptions, models as _kms_models
from moto.kms.responses import KmsResponse
from moto.moto_api._internal.models import moto_api_backend
from moto.sagemaker import exceptions as _sagemaker_exceptions, models as _sagemaker_models
from moto.sagemaker.responses import SageMakerResponse
from moto.sagemaker.utils import arn_formatter as _sagemaker_arn
from moto.ssm import models as _ssm_models
from moto.sts.models import sts_backends as _sts_backends
from moto.utilities.utils import get_partition

__all__ = [
    "MOTO_VERSION", "UNDEFINED", "ActionResult", "AWSManagedPolicy", "BackendDict", "BaseBackend", "BaseResponse",
    "CLOUDWATCH_URL_PATHS", "CloudWatchResponse", "CloudWatchValidationError", "EKSBackend", "EKSResponse",
    "EKS_URL_PATHS", "EksInvalidParameterException", "EksInvalidRequestException", "EksResourceInUseException",
    "EksResourceNotFoundException", "EmptyResult", "IAMBackend", "IamNotFoundException", "IamResponse", "KmsError",
    "KmsGrant", "KmsKey", "KmsNotFoundException", "KmsResponse", "KmsValidationException", "SageMakerBackend",
    "SageMakerCluster", "SageMakerConflictException", "SageMakerResourceNotFound", "SageMakerResponse",
    "SageMakerValidationError", "ServiceException", "SsmBackend", "aws_managed_policies", "eks_backend",
    "get_service_model", "iam_backend", "issued_credentials", "is_moto_service", "kms_backend", "loaded_backends",
    "moto_server_app", "parse_request", "register_service", "request_handler", "reset_all_backends",
    "sagemaker_arn", "sagemaker_backend", "set_default_account", "ssm_backend", "sts_caller_arn", "unix_time",
    "utcnow",
]

MOTO_VERSION: str = moto.__version__

# ---- classes the extensions patch or subclass --------------------------------------------------------------------
EKSBackend = _eks_models.EKSBackend
IAMBackend = _iam_models.IAMBackend
AWSManagedPolicy = _iam_models.AWSManagedPolicy
KmsKey = _kms_models.Key
KmsGrant = _kms_models.Grant
SageMakerBackend = _sagemaker_models.SageMakerModelBackend
SageMakerCluster = _sagemaker_models.Cluster
SsmBackend = _ssm_models.SimpleSystemManagerBackend
# Extended in place: moto builds each service's Flask app from these on its first request.
EKS_URL_PATHS: dict = _eks_urls.url_paths
CLOUDWATCH_URL_PATHS: dict = _cloudwatch_urls.url_paths

# ---- exceptions moto renders in AWS's shape (name = the AWS error code) ------------------------------------------
EksInvalidParameterException = _eks_exceptions.InvalidParameterException
EksInvalidRequestException = _eks_exceptions.InvalidRequestException
EksResourceInUseException = _eks_exceptions.ResourceInUseException
EksResourceNotFoundException = _eks_exceptions.ResourceNotFoundException
SageMakerConflictException = _sagemaker_exceptions.ConflictException
SageMakerResourceNotFound = _sagemaker_exceptions.ResourceNotFound
SageMakerValidationError = _sagemaker_exceptions.ValidationError
KmsError = _kms_exceptions.JsonRESTError  # the base of KMS's errors: subclass it for a code moto lacks
KmsNotFoundException = _kms_exceptions.NotFoundException
KmsValidationException = _kms_exceptions.ValidationException
CloudWatchValidationError = _cloudwatch_exceptions.ValidationError


# ---- backends ------------------------------------------------------------------------------------------------------
def iam_backend(account_id: str, partition: str = "aws") -> Any:
    return _iam_models.iam_backends[account_id][partition]


def eks_backend(account_id: str, region: str) -> Any:
    return _eks_models.eks_backends[account_id][region]


def kms_backend(account_id: str, region: str) -> Any:
    return _kms_models.kms_backends[account_id][region]


def sagemaker_backend(account_id: str, region: str) -> Any:
    return _sagemaker_models.sagemaker_backends[account_id][region]


def ssm_backend(account_id: str, region: str) -> Any:
    return _ssm_models.ssm_backends[account_id][region]


_LOADED = {"iam": _iam_models.iam_backends, "sts": _sts_backends, "eks": _eks_models.eks_backends,
           "kms": _kms_models.kms_backends, "sagemaker": _sagemaker_models.sagemaker_backends,
           "ssm": _ssm_models.ssm_backends}


def ssm_parameter_values(backend: Any) -> dict[str, str]:
    """A backend's Parameter Store parameters (name -> latest value), without moto's built-in `/aws/` trees."""
    parameters = backend._parameters
    return {name: versions[-1].value for name, versions in list(dict.items(parameters))
            if versions and not name.startswith("/aws/")}


def loaded_backends(service: str, ordered: bool = False) -> Iterator[Any]:
    """The backends of `service` that exist (moto makes one per account and region on first use), in creation order
    or, `ordered`, by account and region.  Iterates over snapshots: requests may create backends meanwhile."""
    by_account = list(_LOADED[service].items())
    for _, by_region in sorted(by_account) if ordered else by_account:
        regions = list(by_region.items())
        for _, backend in sorted(regions) if ordered else regions:
            yield backend


def sagemaker_arn(resource_type: str, resource_id: str, account_id: str, region: str) -> str:
    return _sagemaker_arn(resource_type, resource_id, account_id, region)


def aws_managed_policies() -> str:
    """moto's bundled copy of the AWS managed policies (JSON text: name -> policy), which moto loads none of."""
    return aws_managed_policies_data


# ---- requests ------------------------------------------------------------------------------------------------------
def parse_request(resp: Any, service_model: Any, operation_model: Any) -> dict:
    """A moto response object's request, parsed with the botocore model (member names, decoded uri labels); members
    the request lacks may be None or UNDEFINED."""
    req = resp.normalized_request
    parser = PROTOCOL_PARSERS[determine_request_protocol(service_model, req.content_type)](operation_model)
    return parser.parse({"method": req.method, "values": req.values, "headers": req.headers, "body": req.data,
                         "url_path": req.path, "url_params": resp.uri_match})


# ---- identities (the Kubernetes API's bearer tokens) ---------------------------------------------------------------
def sts_caller_arn(access_key_id: str, region: str) -> str:
    """The ARN moto's STS GetCallerIdentity answers for this access key."""
    account = _iam_models.get_account_id_from(access_key_id)
    _, arn, _ = _sts_backends[account][get_partition(region)].get_caller_identity(access_key_id, region)
    return arn


def issued_credentials(access_key_id: str) -> tuple[str, str | None] | None:
    """(secret, session token or None) moto issued for this access key, or None if moto never issued it."""
    for by_partition in list(_iam_models.iam_backends.values()):
        for backend in list(by_partition.values()):
            key = backend.access_keys.get(access_key_id)
            if key is not None:
                token = None
                for sts in loaded_backends("sts"):
                    role = sts.get_assumed_role_from_access_key(access_key_id)
                    if role is not None:
                        token = role.session_token
                return key.secret_access_key, token
    return None


# ---- the server ----------------------------------------------------------------------------------------------------
def moto_server_app() -> Any:
    """moto's WSGI app for every service (what `moto_server` serves); Flask is loaded only by the server."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    class Dispatcher(DomainDispatcherApplication):
        """moto's dispatcher, with the service of each host remembered: moto finds it anew on every request, under
        one lock for all of them, by listing its package directory and matching every service's URL patterns (the
        sandbox's CPU per call: 2.2 ms with that lookup, 1.7 ms without, over a no-change plan of 200 teams). A
        host's service changes only when a service is registered (`register_service` appends to the patterns), so
        the answer is remembered per host and number of patterns: the same answer, without the cost."""

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self._backend_of_host: dict = {}

        def get_backend_for_host(self, host: str | None) -> Any:
            key = (host, len(backend_index.backend_url_patterns))
            if key not in self._backend_of_host:
                self._backend_of_host[key] = super().get_backend_for_host(host)
            return self._backend_of_host[key]

    return Dispatcher(create_backend_app)


def request_handler() -> Any:
    """The werkzeug request handler moto's server uses."""
    from moto.moto_server.werkzeug_app import MotoRequestHandler

    return MotoRequestHandler


def reset_all_backends() -> None:
    """What POST /moto-api/reset does: every backend starts empty."""
    moto_api_backend.reset()


def set_default_account(account_id: str) -> None:
    """The account of requests signed with keys moto did not issue.  Keys moto issued (AssumeRole into another
    account) still land in their own account: moto looks those up first (get_account_id_from)."""
    _iam_models.DEFAULT_ACCOUNT_ID = account_id


def is_moto_service(name: str) -> bool:
    """moto has (or was given, see register_service) a backend for this service."""
    return name in backends.list_of_moto_modules() or f"moto.{name}" in sys.modules


def register_service(name: str, module: Any, url_bases: list) -> None:
    """Serve `module` as moto's service `name`: `moto.backends.get_backend(name)` imports `moto.<name>`, and the host
    dispatcher matches requests against `url_bases`.  Idempotent."""
    if sys.modules.get(f"moto.{name}") is module:
        return
    sys.modules[f"moto.{name}"] = module
    for base in url_bases:  # moto's dispatcher holds this very list: append in place
        backend_index.backend_url_patterns.append((name, re.compile(base)))
