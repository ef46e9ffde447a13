"""Helpers the sandbox's own tests share: AWS errors as (code, status, message) and polling for async states."""
import time

import pytest
from botocore.exceptions import ClientError


def error_of(call, *args, **kwargs):
    """Calls `call` expecting a ClientError; returns (code, HTTP status, message)."""
    with pytest.raises(ClientError) as info:
        call(*args, **kwargs)
    err = info.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"], err["Error"].get("Message", "")


def wait_status(describe, want, timeout=10.0):
    """Polls `describe()` until its Status is `want`; returns the last description."""
    deadline = time.monotonic() + timeout
    while True:
        desc = describe()
        if desc["Status"] == want or time.monotonic() > deadline:
            assert desc["Status"] == want, desc
            return desc
        time.sleep(0.1)


def wait_gone(describe, what, timeout=10.0):
    """Polls `describe()` until it raises ResourceNotFound."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            describe()
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ResourceNotFound"
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} still exists after {timeout}s")


TRUST_ANY_SERVICE = ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":'
                     '"eks.amazonaws.com"},"Action":"sts:AssumeRole"}]}')


def make_principals(sandbox, *arns):
    """Creates the IAM roles and users these ARNs (of the sandbox caller's account) name, so that EKS and KMS, which
    refuse principals IAM does not know, accept them."""
    iam = sandbox.client("iam")
    for arn in arns:
        kind, _, name = arn.split(":", 5)[5].partition("/")
        if kind == "role":
            iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST_ANY_SERVICE)
        else:
            iam.create_user(UserName=name)
