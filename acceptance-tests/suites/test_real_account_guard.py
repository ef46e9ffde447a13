"""The safety guard of real-account runs (harness/guard.py), shown against the sandbox playing a "real" account: the
sandbox's STS answers GetCallerIdentity, so a fixture naming another account is a run against the wrong account."""
import json
import os
import subprocess
import sys

import pytest

from harness import RealAws
from harness.fixture import Fixture
from harness.guard import OPT_IN, GuardError, check_account, refusal_for_scheduling_policy
from harness.sandbox import ACCEPTANCE_DIR, DUMMY_KEYS

pytestmark = pytest.mark.sandbox_only(reason="plays a real account with the sandbox's STS")


def other_account(account_id: str) -> str:
    return f"{(int(account_id) + 1) % 10**12:012d}"


def fake_real_env(sandbox, fixture_path, opt_in: str | None) -> dict:
    """HYPERPOD_REAL_AWS=1 with the sandbox as the "real" endpoint: what a user's real-account run looks like."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AWS_", "HYPERPOD_")) or k in ("HYPERPOD_PROVIDER_DIR", "HYPERPOD_VENV")}
    env.update({"HYPERPOD_REAL_AWS": "1", "HYPERPOD_FIXTURE": str(fixture_path), "AWS_ENDPOINT_URL": sandbox.url,
                "AWS_REGION": sandbox.fixture().region, "AWS_ACCESS_KEY_ID": DUMMY_KEYS["aws_access_key_id"],
                "AWS_SECRET_ACCESS_KEY": DUMMY_KEYS["aws_secret_access_key"]})
    if opt_in is not None:
        env[OPT_IN] = opt_in
    return env


@pytest.fixture
def caller(sandbox) -> str:
    return sandbox.client("sts").get_caller_identity()["Account"]


@pytest.fixture
def wrong_fixture(fx, caller, tmp_path):
    """The run's fixture, but naming an account the credentials are not in."""
    data = {**fx.raw(), "account_id": other_account(caller)}
    path = tmp_path / "wrong-account.json"
    path.write_text(json.dumps(data))
    return path, data["account_id"]


def test_a_run_whose_fixture_account_is_not_the_callers_is_refused_before_any_test(sandbox, caller, wrong_fixture):
    """A whole pytest run with HYPERPOD_REAL_AWS=1: every test errors in setup with the guard's message, none runs."""
    path, wanted = wrong_fixture
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "suites/test_real_account_smoke.py"],
                         cwd=ACCEPTANCE_DIR, env=fake_real_env(sandbox, path, opt_in=wanted), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode != 0, run.stdout
    assert "passed" not in run.stdout.splitlines()[-1], run.stdout[-2000:]
    message = (f"refusing to run: the credentials are account {caller} (arn:aws:sts::{caller}:user/moto), but the "
               f"fixture's account_id is {wanted}")
    assert message in run.stdout, run.stdout[-4000:]


def test_real_aws_handle_refuses_a_mismatched_account(sandbox, caller, wrong_fixture, monkeypatch):
    path, wanted = wrong_fixture
    for key in [k for k in os.environ if k.startswith(("AWS_", "HYPERPOD_")) and k != "HYPERPOD_PROVIDER_DIR"]:
        monkeypatch.delenv(key)
    for key, value in fake_real_env(sandbox, path, opt_in=wanted).items():
        monkeypatch.setenv(key, value)
    with pytest.raises(GuardError, match=f"credentials are account {caller} .* fixture's account_id is {wanted}"):
        RealAws()


def test_the_opt_in_is_required_and_must_name_the_fixtures_account(sandbox, fx, caller):
    fixture = Fixture({**fx.raw(), "account_id": caller})
    sts = sandbox.client("sts")
    with pytest.raises(GuardError, match=f"set {OPT_IN}={caller} to accept that account"):
        check_account(fixture, sts, environ={})
    with pytest.raises(GuardError, match=f"{OPT_IN}={other_account(caller)} but the fixture's account_id is {caller}"):
        check_account(fixture, sts, environ={OPT_IN: other_account(caller)})
    # And the guard lets the right account through: it does not refuse everything.
    assert check_account(fixture, sts, environ={OPT_IN: caller}) == caller


POLICY_CONFIG = 'resource "hyperpod_scheduling_policy" "capacity" {\n  cluster_name = "x"\n}\n'


@pytest.mark.parametrize("writable", [False, True])
def test_scheduling_policy_writes_need_the_fixtures_permission(fx, tmp_path, writable):
    data = fx.raw()
    data["clusters"]["eks"]["scheduling_policy_writable"] = writable
    fixture = Fixture(data)
    (tmp_path / "main.tf").write_text(POLICY_CONFIG)
    for command in ("apply", "import"):
        reason = refusal_for_scheduling_policy(fixture, (command, "-auto-approve"), tmp_path)
        if writable:
            assert reason is None
        else:
            assert reason == (f"`terraform {command}` would change the scheduling policy of {fx.clusters.eks.name}, "
                              "which this run did not create; set clusters.eks.scheduling_policy_writable=true in "
                              "the fixture to allow it")
    assert refusal_for_scheduling_policy(fixture, ("plan",), tmp_path) is None  # reading is always fine
    # and so is destroying: what is in state got there through a guarded apply or import (a teardown must work)
    assert refusal_for_scheduling_policy(fixture, ("destroy", "-auto-approve"), tmp_path) is None
    (tmp_path / "main.tf").write_text('resource "terraform_data" "x" {}\n')
    assert refusal_for_scheduling_policy(fixture, ("apply",), tmp_path) is None
