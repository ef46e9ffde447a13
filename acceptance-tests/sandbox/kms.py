"""KMS in the sandbox: moto's KMS, grants shaped like AWS's, keys usable by ARN from other accounts, and the seeded
keys of seed_data/kms.json (fixed key ids, so their ARNs survive resets).

Fixes:
* CreateGrant: `GrantId` is 64 hex characters and `GrantToken` an opaque token, as in AWS (moto: 8 hex).
* ListGrants: `KeyId` is the key ARN, with `CreationDate` and `IssuingAccount`; unset members are omitted, not null.
* A key ARN of another account or region (e.g. the data account's key, used from the capacity account) is looked up
  in that account's KMS, as AWS does for cross-account keys.  Key policies are not evaluated.
* CreateGrant, ListGrants, RevokeGrant and RetireGrant (by id) of a key that does not exist answer NotFoundException
  ("Key '<arn>' does not exist", or "Alias <arn> is not found."; moto crashed with a KeyError).
* CreateGrant with a `Name` is idempotent, as AWS documents: the same name, grantee, operations, constraints and
  retiring principal return the existing grant's `GrantId` (with a new token) instead of a duplicate grant.
* CreateGrant of a grantee that is not an existing IAM role, user or account root (or a role an
  `eventual_consistency` fault still hides) answers InvalidArnException, after the key is checked.
* ListGrants filters by `GranteePrincipal` and pages (`Limit` 1-1000, default 50; `NextMarker`, `Truncated`); a
  `GrantId` that is not a grant of the key answers NotFoundException ("Grant ID <id> not found"), as RevokeGrant does.
"""
import base64
import json
import re
import secrets

from . import principals
from .iam import substitute
from .moto_adapter import (
    KmsError,
    KmsGrant,
    KmsKey,
    KmsNotFoundException,
    KmsResponse,
    KmsValidationException,
    kms_backend,
    unix_time,
)

_KEY_ARN = re.compile(r"arn:aws[\w-]*:kms:([\w-]+):(\d{12}):(?:key|alias)/")
_orig_add_grant = KmsKey.add_grant
_orig_backend = KmsResponse.kms_backend


def _add_grant(self, name, grantee_principal, operations, constraints, retiring_principal):
    if name:  # AWS: retrying a named CreateGrant with identical parameters returns the original grant
        for existing in self.grants.values():
            if (existing.name, existing.grantee_principal, sorted(existing.operations or []),
                    existing.constraints or None, existing.retiring_principal) == \
                    (name, grantee_principal, sorted(operations or []), constraints or None, retiring_principal):
                existing.token = secrets.token_urlsafe(96)
                return existing
    grant = _orig_add_grant(self, name, grantee_principal, operations, constraints, retiring_principal)
    del self.grants[grant.id]
    grant.id = secrets.token_hex(32)
    grant.token = secrets.token_urlsafe(96)
    grant.key_arn, grant.creation_date = self.arn, unix_time()
    grant.issuing_account = f"arn:aws:iam::{self.account_id}:root"
    self.grants[grant.id] = grant
    return grant


def _grant_json(self):
    out = {"KeyId": getattr(self, "key_arn", self.key_id), "GrantId": self.id, "Name": self.name,
           "CreationDate": getattr(self, "creation_date", None), "GranteePrincipal": self.grantee_principal,
           "RetiringPrincipal": self.retiring_principal, "IssuingAccount": getattr(self, "issuing_account", None),
           "Operations": self.operations, "Constraints": self.constraints}
    return {k: v for k, v in out.items() if v not in (None, "", {})}


def _kms_backend(self):
    try:
        key_id = self._get_param("KeyId")
    except Exception:  # noqa: BLE001
        key_id = None
    match = _KEY_ARN.match(key_id) if isinstance(key_id, str) else None
    if match and (match.group(2), match.group(1)) != (self.current_account, self.region):
        return kms_backend(match.group(2), match.group(1))
    return _orig_backend.fget(self)


def _existing_key(fn):
    """Grant operations on a key that does not exist: moto's NotFoundException, not a KeyError crash."""
    def wrapper(self):
        self._validate_key_id(self._get_param("KeyId"))
        return fn(self)
    wrapper.__name__ = fn.__name__
    return wrapper


class InvalidArnException(KmsError):
    code = 400

    def __init__(self, message):
        super().__init__("InvalidArnException", message)


def _grantee_must_exist(fn):
    """CreateGrant of a grantee IAM does not know (never created, or still propagating): InvalidArnException, as AWS
    answers (the AWS provider retries it for IAM eventual consistency)."""
    def create_grant(self):
        grantee = self._get_param("GranteePrincipal")
        if grantee and not principals.visible("kms", "CreateGrant", grantee):
            raise InvalidArnException(f"ARN does not refer to a valid principal: {grantee}")
        return fn(self)
    return create_grant


def _list_grants(self):
    grant_id, grantee = self._get_param("GrantId"), self._get_param("GranteePrincipal")
    grants = self.kms_backend.list_grants(key_id=self._get_param("KeyId"), grant_id=grant_id)
    if grant_id and not grants:
        raise KmsNotFoundException(f"Grant ID {grant_id} not found")
    if grantee:
        grants = [g for g in grants if g.grantee_principal == grantee]
    start = _marker(self._get_param("Marker"))
    end = start + (self._get_param("Limit") or 50)
    out = {"Grants": [g.to_json() for g in grants[start:end]], "Truncated": end < len(grants)}
    if out["Truncated"]:
        out["NextMarker"] = base64.urlsafe_b64encode(str(end).encode()).decode()
    return json.dumps(out)


def _marker(marker):
    if not marker:
        return 0
    try:
        return int(base64.urlsafe_b64decode(marker.encode()).decode())
    except ValueError:
        raise KmsValidationException(f"Invalid marker {marker}") from None


def install():
    KmsKey.add_grant = _add_grant
    KmsGrant.to_json = _grant_json
    KmsResponse.kms_backend = property(_kms_backend)
    KmsResponse.list_grants = _list_grants
    KmsResponse.create_grant = _grantee_must_exist(KmsResponse.create_grant)
    for name in ("create_grant", "list_grants", "revoke_grant"):
        setattr(KmsResponse, name, _existing_key(getattr(KmsResponse, name)))
    KmsResponse.retire_grant = _retire_grant_checked(KmsResponse.retire_grant)


def _retire_grant_checked(fn):
    def retire_grant(self):
        if self._get_param("KeyId") and not self._get_param("GrantToken"):
            self._validate_key_id(self._get_param("KeyId"))
        return fn(self)
    return retire_grant


def apply_seed(data: dict, account: dict) -> dict:
    """Keys with fixed ids and their aliases, per account of account.json (`account_id`, `data_account_id`, ...)."""
    variables = {k: v for k, v in account.items() if isinstance(v, str)}
    summary = {}
    for k in substitute(data.get("keys", []), variables):
        backend = kms_backend(account[k.get("account", "account_id")], account["region"])
        policy = k.get("Policy")
        key = backend.create_key(policy=policy if isinstance(policy, str) or policy is None else _json(policy),
                                 key_usage=k.get("KeyUsage", "ENCRYPT_DECRYPT"), key_spec=k.get("KeySpec"),
                                 description=k.get("Description", ""), tags=None)
        backend.keys.pop(key.id)
        key.id, key.arn = k["KeyId"], key.arn.rsplit("/", 1)[0] + "/" + k["KeyId"]
        backend.keys[key.id] = key
        if k.get("Tags"):
            backend.tagger.tag_resource(key.id, k["Tags"])
        for alias in k.get("Aliases", []):
            backend.create_alias(key.id, alias)
        summary[key.arn] = k.get("Aliases", [])
    return {"keys": summary}


def _json(value):
    return json.dumps(value, indent=2)
