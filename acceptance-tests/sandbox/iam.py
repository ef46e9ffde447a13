"""IAM in the sandbox: moto's IAM/STS, a few fidelity fixes, and the seeded identities of seed_data/iam.json.

Fixes (all responses stay moto's):
* Policy documents come back URL-encoded (RFC 3986, `/` too) wherever AWS encodes them: CreateRole, GetRole and
  ListRoles `AssumeRolePolicyDocument`, GetRolePolicy `PolicyDocument`, GetPolicyVersion `Document` (moto sent the
  last two plain, and left `/` unencoded).  boto3 decodes them for you; the Rust SDK does not.
* GetRole of a missing role says what AWS says: "The role with name X cannot be found." (404 NoSuchEntity); so does
  GetRolePolicy of a missing inline policy: "The role policy with name P cannot be found." (moto: "Policy Document P
  not attached to role R").
* ListRolePolicies lists the inline policy names in alphabetical order, as IAM does (moto: insertion order).

Seed: roles (trust policy, inline and attached policies, tags) and customer managed policies in each account of
account.json (`account_id`, `consumer_account_id`, `data_account_id`).  Strings may use `${account_id}`,
`${consumer_account_id}`, `${data_account_id}` and `${region}`.  AWS managed policies named in `aws_managed_policies`
are created in every seeded account from moto's bundled copies (moto loads none by default).  Role ids are derived
from the ARN, so a role's id (and the assumed-role user id) is the same after every reset.
"""
import base64
import functools
import hashlib
import json
from string import Template
from urllib.parse import quote

from .moto_adapter import (
    AWSManagedPolicy,
    IAMBackend,
    IamNotFoundException,
    IamResponse,
    aws_managed_policies,
    iam_backend,
)


def url_encode(value):
    """AWS encodes every character but the RFC 3986 unreserved ones (moto's `quote` keeps `/`)."""
    return quote(value, safe="") if isinstance(value, str) else value


_ENCODED = ("CreateRoleResponse.Role.AssumeRolePolicyDocument", "GetRoleResponse.Role.AssumeRolePolicyDocument",
            "ListRolesResponse.Roles.Role.AssumeRolePolicyDocument", "GetRolePolicyResponse.PolicyDocument",
            "GetUserPolicyResponse.PolicyDocument", "GetGroupPolicyResponse.PolicyDocument",
            "GetPolicyVersionResponse.PolicyVersion.Document", "UpdateRoleResponse.Role.AssumeRolePolicyDocument")


def _get_role(self, role_name):
    for role in self.get_roles():
        if role.name == role_name:
            return role
    raise IamNotFoundException(f"The role with name {role_name} cannot be found.")


def _get_role_policy(self, role_name, policy_name):
    role = self.get_role(role_name)
    if policy_name not in role.policies:
        raise IamNotFoundException(f"The role policy with name {policy_name} cannot be found.")
    return policy_name, role.policies[policy_name]


def _list_role_policies(self, role_name):
    return sorted(self.get_role(role_name).policies)


def install():
    IamResponse.RESPONSE_KEY_PATH_TO_TRANSFORMER = {
        **IamResponse.RESPONSE_KEY_PATH_TO_TRANSFORMER, **{path: url_encode for path in _ENCODED}}
    IAMBackend.get_role = _get_role
    IAMBackend.get_role_policy = _get_role_policy
    IAMBackend.list_role_policies = _list_role_policies


# ---- seed ----------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _bundled_aws_policies() -> dict:
    return json.loads(aws_managed_policies())


def substitute(value, variables):
    if isinstance(value, str):
        return Template(value).safe_substitute(variables)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def _document(doc) -> str:
    return doc if isinstance(doc, str) else json.dumps(doc, indent=2)


def _stable_id(prefix: str, arn: str) -> str:
    """AWS-shaped unique id (e.g. AROA + 17 base32 characters), derived from the ARN."""
    return prefix + base64.b32encode(hashlib.sha256(arn.encode()).digest()).decode()[:17]


def backend(account_id: str):
    return iam_backend(account_id)


def _add_aws_policy(iam, name: str):
    data = _bundled_aws_policies()[name]
    policy = AWSManagedPolicy.from_data(name, iam.account_id, iam.region_name, data)
    if policy.arn not in iam.managed_policies:
        iam.aws_managed_policies.append(policy)
        iam.managed_policies[policy.arn] = policy
    return policy.arn


def apply_seed(data: dict, account: dict) -> dict:
    variables = {k: v for k, v in account.items() if isinstance(v, str)}
    summary = {"roles": {}, "policies": {}, "aws_managed_policies": data.get("aws_managed_policies", [])}
    for account_key, spec in data.get("accounts", {}).items():
        iam = backend(account[account_key])
        spec = substitute(spec, variables)
        for name in data.get("aws_managed_policies", []):
            _add_aws_policy(iam, name)
        for p in spec.get("policies", []):
            policy = iam.create_policy(description=p.get("Description"), path=p.get("Path", "/"),
                                       policy_document=_document(p["PolicyDocument"]), policy_name=p["PolicyName"],
                                       tags=p.get("Tags", []))
            policy.id = _stable_id("ANPA", policy.arn)
            summary["policies"][p["PolicyName"]] = policy.arn
        for r in spec.get("roles", []):
            role = iam.create_role(role_name=r["RoleName"],
                                   assume_role_policy_document=_document(r["AssumeRolePolicyDocument"]),
                                   path=r.get("Path", "/"), permissions_boundary=None,
                                   description=r.get("Description", ""), tags=r.get("Tags", []),
                                   max_session_duration=str(r.get("MaxSessionDuration", 3600)))
            iam.roles.pop(role.id)
            role.id = _stable_id("AROA", role.arn)
            iam.roles[role.id] = role
            for policy_name, doc in r.get("InlinePolicies", {}).items():
                iam.put_role_policy(role.name, policy_name, _document(doc))
            for arn in r.get("AttachedPolicies", []):
                iam.attach_role_policy(arn, role.name)
            summary["roles"][r["RoleName"]] = role.arn
    return summary
