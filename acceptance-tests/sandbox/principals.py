"""Does an IAM principal exist (and is it visible yet)?  What EKS and KMS check before they accept a principal.

AWS checks the principal of EKS CreateAccessEntry, the role of CreatePodIdentityAssociation /
UpdatePodIdentityAssociation and the grantee of KMS CreateGrant against IAM, and refuses one it cannot find — whether
it never existed or was created moments ago and is still propagating.  The sandbox looks the ARN up in moto's IAM of
the ARN's account (roles and users by their full ARN, path included; an account's `root`), and asks faults.py whether
an `eventual_consistency` fault still hides a role.
"""
import re

from . import faults
from .moto_adapter import iam_backend

_IAM_ARN = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):(role|user)/(?:[\w+=,.@-]+/)*([\w+=,.@-]+)")
_ROOT = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):root")


def exists(arn: str) -> bool:
    """The role or user with exactly this ARN exists in its account (path included), or it is an account root."""
    if _ROOT.fullmatch(arn or ""):
        return True
    m = _IAM_ARN.fullmatch(arn or "")
    if not m:
        return False
    account_id, kind, _ = m.groups()
    backend = iam_backend(account_id)
    if kind == "role":
        return any(role.arn == arn for role in backend.get_roles())
    return any(user.arn == arn for user in backend.users.values())


def visible(service: str, operation: str, arn: str) -> bool:
    """The principal exists and no `eventual_consistency` fault hides it from this call (a hidden read is counted)."""
    if not exists(arn):
        return False
    m = _IAM_ARN.fullmatch(arn)
    return not (m and m.group(2) == "role" and faults.role_hidden(service, operation, m.group(3)))
