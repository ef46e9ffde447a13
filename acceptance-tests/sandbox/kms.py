"""KMS in the sandbox: moto's KMS, grants shaped like AWS's, keys usable by ARN from other accounts, and the seeded
keys of seed_data/kms.json (fixed key ids, so their ARNs survive resets).

Fixes:
* CreateGrant: `GrantId` is 64 hex characters and `GrantToken` an opaque token, as in AWS (moto: 8 hex).
* ListGrants: `KeyId` is the key ARN, with `CreationDate` and `IssuingAccount`; unset members are omitted, not null.
* A key ARN of another account or region (e.g. the data account's key, used from the capacity account) is looked up
  in that account's KMS, as AWS does for cross-account keys.  Key policies are not evaluated.
"""
import re
import secrets

from moto.core.utils import unix_time
from moto.kms import models as kms_models
from moto.kms.responses import KmsResponse

_KEY_ARN = re.compile(r"arn:aws[\w-]*:kms:([\w-]+):(\d{12}):(?:key|alias)/")
_orig_add_grant = kms_models.Key.add_grant
_orig_backend = KmsResponse.kms_backend


def _add_grant(self, name, grantee_principal, operations, constraints, retiring_principal):
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


@property
def _kms_backend(self):
    try:
        key_id = self._get_param("KeyId")
    except Exception:  # noqa: BLE001
        key_id = None
    match = _KEY_ARN.match(key_id) if isinstance(key_id, str) else None
    if match and (match.group(2), match.group(1)) != (self.current_account, self.region):
        return kms_models.kms_backends[match.group(2)][match.group(1)]
    return _orig_backend.fget(self)


def install():
    kms_models.Key.add_grant = _add_grant
    kms_models.Grant.to_json = _grant_json
    KmsResponse.kms_backend = _kms_backend


def apply_seed(data: dict, account: dict) -> dict:
    """Keys with fixed ids and their aliases, per account of account.json (`account_id`, `data_account_id`, ...)."""
    from .iam import substitute
    variables = {k: v for k, v in account.items() if isinstance(v, str)}
    summary = {}
    for k in substitute(data.get("keys", []), variables):
        backend = kms_models.kms_backends[account[k.get("account", "account_id")]][account["region"]]
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
    import json
    return json.dumps(value, indent=2)
