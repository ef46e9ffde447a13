"""HYPERPOD_REAL_AWS=1: the `sandbox` fixture is the caller's real account; nothing is started or reset, and
sandbox-only tests skip with their reason.  No AWS call is made here."""
import os
import subprocess
import sys

import pytest

from harness import RealAws, current_fixture, guard, real_aws
from harness.fixture import selected_path as current_fixture_path
from harness.sandbox import ACCEPTANCE_DIR


@pytest.fixture
def real_env(monkeypatch):
    monkeypatch.setenv("HYPERPOD_REAL_AWS", "1")
    monkeypatch.delenv("HYPERPOD_SANDBOX_URL", raising=False)
    monkeypatch.setenv("AWS_PROFILE", "capacity-sandbox")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("HYPERPOD_FIXTURE", str(current_fixture_path()))
    # The guard's STS call is suites/test_real_account_guard.py's subject; here the caller is taken as the fixture's.
    monkeypatch.setattr(guard, "check_account", lambda fixture, sts, environ=None: fixture.account_id)
    monkeypatch.setattr(RealAws, "client", lambda self, service, validate=True, **config: None)  # no profile here


def test_real_aws_handle(real_env):
    assert real_aws()
    aws = RealAws()
    assert aws.real and aws.url is None and aws.region == "eu-west-1"
    assert aws.reset() == {}
    env = aws.env()
    assert env["AWS_PROFILE"] == "capacity-sandbox" and env["AWS_REGION"] == "eu-west-1"
    assert "AWS_ENDPOINT_URL" not in env
    for call in (lambda: aws.fault("DescribeCluster"), aws.calls, aws.reset_calls, aws.clear_faults):
        with pytest.raises(pytest.skip.Exception, match="sandbox-only"):
            call()


def test_real_aws_and_a_sandbox_url_are_exclusive(real_env, monkeypatch):
    monkeypatch.setenv("HYPERPOD_SANDBOX_URL", "http://127.0.0.1:4599")
    with pytest.raises(RuntimeError, match="unset one of them"):
        RealAws()


@pytest.mark.parametrize("value, expected", [("1", True), ("true", True), ("0", False), ("", False)])
def test_flag_values(monkeypatch, value, expected):
    monkeypatch.setenv("HYPERPOD_REAL_AWS", value)
    assert real_aws() is expected


def test_sandbox_only_tests_skip_with_their_reason():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HYPERPOD_SANDBOX_URL"))}
    env.update(HYPERPOD_REAL_AWS="1", AWS_REGION=current_fixture().region, CI="")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "sandbox/tests/test_faults.py::test_latency",
         "suites/test_scheduling_policy.py::test_throttling_is_retried"],
        cwd=ACCEPTANCE_DIR, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "2 skipped" in out
    assert "sandbox-only (a test of the sandbox itself); HYPERPOD_REAL_AWS=1 runs against a real account" in out
    # the provider check comes first; with a provider built, the reason would be "injects throttling"
    assert "terraform-provider-hyperpod" in out or "injects throttling" in out
