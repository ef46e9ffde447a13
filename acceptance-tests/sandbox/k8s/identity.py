"""Who a caller is: the IAM principal behind the access key of a request (moto's STS), as EKS's authenticator
maps it to access entries."""
import re

from ..moto_adapter import sts_caller_arn

_ARN = re.compile(r"arn:(aws[a-z-]*):(iam|sts)::(\d{12}):(user|role|assumed-role)/(.+)")


def caller_identity(access_key_id: str, region: str) -> str:
    """The ARN moto's STS GetCallerIdentity answers for this access key."""
    return sts_caller_arn(access_key_id, region)


def principal_of(identity_arn: str) -> str:
    """The IAM principal behind a caller identity: assumed-role/R/S -> role/R (path unknown), sts user -> iam user."""
    m = _ARN.fullmatch(identity_arn or "")
    if not m:
        return identity_arn
    partition, _, account, kind, rest = m.groups()
    if kind == "assumed-role":
        return f"arn:{partition}:iam::{account}:role/{rest.split('/')[0]}"
    return f"arn:{partition}:iam::{account}:{kind}/{rest}"


def principal_for_access_key(access_key_id: str, region: str) -> str:
    return principal_of(caller_identity(access_key_id, region))


def principal_key(arn: str):
    """(account, kind, name) of an IAM role/user ARN, ignoring its path, for matching access entries."""
    m = _ARN.fullmatch(arn or "")
    if not m or m.group(4) == "assumed-role":
        return None
    return m.group(3), m.group(4), m.group(5).rsplit("/", 1)[-1]
