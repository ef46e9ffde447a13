"""The safety guard of a run against a real AWS account (HYPERPOD_REAL_AWS=1; docs/guides/acceptance-testing.md).

The suites create and delete IAM roles, compute quotas, access entries, DataZone connections and memberships: run
against the wrong account they would change someone's capacity.  So a real-account run (and `make sweep` outside
the sandbox) goes ahead only when all of these hold, checked before the first test:

* the fixture (HYPERPOD_FIXTURE) names the account: `account_id`;
* the caller opted in for exactly that account: HYPERPOD_ACCEPT_REAL_ACCOUNT=<account id>;
* the credentials are that account's: STS GetCallerIdentity's `Account` equals the fixture's `account_id`.

And a test may change the cluster's scheduling policy (SageMaker allows one per cluster, and it orders every
team's work) only when the fixture says `clusters.eks.scheduling_policy_writable: true`: otherwise the harness
skips any apply or import of a `hyperpod_scheduling_policy` on a real account (`check_terraform_run`).
"""
import os
import re
from pathlib import Path

from .fixture import current

OPT_IN = "HYPERPOD_ACCEPT_REAL_ACCOUNT"
_POLICY = re.compile(r'^\s*resource\s+"hyperpod_scheduling_policy"', re.M)
# Not `destroy`: whatever is in state got there through a guarded apply or import, and a test's teardown must be
# able to remove it.
_WRITES = ("apply", "import")


def real_aws() -> bool:
    """HYPERPOD_REAL_AWS=1: run against the real AWS account of the caller's credentials instead of the sandbox."""
    return os.environ.get("HYPERPOD_REAL_AWS", "").lower() not in ("", "0", "false", "no")


class GuardError(RuntimeError):
    """A real-account run refused: the message says what to set or fix."""


def check_account(fixture, sts_client, environ=None) -> str:
    """Refuses (GuardError) unless the opt-in names the fixture's account and the caller is in it; returns the
    account id.  `sts_client` is a boto3 STS client with the run's credentials."""
    environ = os.environ if environ is None else environ
    wanted = str(fixture.get("account_id") or "")
    if not re.fullmatch(r"\d{12}", wanted):
        raise GuardError(f"the fixture's account_id ({wanted or 'missing'}) is not a 12-digit AWS account id: the "
                         "fixture must name the sandbox account the run may change")
    opted = environ.get(OPT_IN, "").strip()
    if not opted:
        raise GuardError(f"a run against a real AWS account changes it: set {OPT_IN}={wanted} to accept that "
                         f"account ({fixture.get('name', 'the fixture')}'s account_id)")
    if opted != wanted:
        raise GuardError(f"{OPT_IN}={opted} but the fixture's account_id is {wanted}: the opt-in must name the "
                         "fixture's account")
    identity = sts_client.get_caller_identity()
    caller = identity.get("Account")
    if caller != wanted:
        raise GuardError(f"refusing to run: the credentials are account {caller} ({identity.get('Arn')}), but the "
                         f"fixture's account_id is {wanted}; use credentials of {wanted} or the fixture of {caller}")
    return caller


def scheduling_policy_writable(fixture, kind: str = "eks") -> bool:
    return bool(fixture.clusters[kind].get("scheduling_policy_writable", False))


def refusal_for_scheduling_policy(fixture, args: tuple, directory: Path) -> str | None:
    """Why this Terraform command may not run on a real account, or None: it would create, import or change the
    cluster's scheduling policy and the fixture does not allow it."""
    if not args or args[0] not in _WRITES or scheduling_policy_writable(fixture):
        return None
    if not any(_POLICY.search(p.read_text(errors="replace")) for p in Path(directory).glob("*.tf")):
        return None
    return (f"`terraform {args[0]}` would change the scheduling policy of {fixture.clusters.eks.name}, which this "
            "run did not create; set clusters.eks.scheduling_policy_writable=true in the fixture to allow it")


def check_terraform_run(args: tuple, directory: Path) -> None:
    """Skips the test (pytest.skip) when a real-account Terraform command would touch the scheduling policy and the
    fixture forbids it; a no-op on the sandbox."""
    if not real_aws():
        return
    reason = refusal_for_scheduling_policy(current(), args, directory)
    if reason:
        import pytest
        pytest.skip(f"real-account guard: {reason}")
