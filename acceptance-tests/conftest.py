"""Fixtures for the acceptance tests and the sandbox's own tests.

* `sandbox` (session): the local AWS sandbox, started once per run (or the one at
  $HYPERPOD_SANDBOX_URL); see harness/sandbox.py.  With HYPERPOD_REAL_AWS=1 it is the caller's real AWS account
  instead (harness.RealAws): nothing is started or reset.
* `fx` (session): the fixture, the names and ids of what the account holds (harness/fixture.py). Suites read every
  cluster, domain, project, role and key from it, never a literal.
* `tf` (function): a fresh Terraform working dir pointed at the sandbox, which is
  reset to its seed first, so every test starts from the same capacity account.
* `@pytest.mark.provider`: the test needs the built provider binary; skipped when
  it is missing, failed instead when env CI is set.
* `@pytest.mark.sandbox_only(reason=...)`: the test needs the sandbox (its admin API: faults, reset, call counters,
  or its seeded ids); skipped with HYPERPOD_REAL_AWS=1.  Every test under sandbox/tests is sandbox-only.
"""
from pathlib import Path

import pytest

from harness import RealAws, Sandbox, Terraform, real_aws, require_provider

SANDBOX_TESTS = Path(__file__).resolve().parent / "sandbox" / "tests"


def pytest_configure(config):
    config.addinivalue_line("markers", "provider: needs the built terraform-provider-hyperpod binary "
                                       "(skipped if missing; fails in CI)")
    config.addinivalue_line("markers", "sandbox_only(reason): needs the local sandbox (faults, reset, call counters, "
                                       "seeded ids); skipped when HYPERPOD_REAL_AWS=1")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SANDBOX_TESTS in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.sandbox_only(reason="a test of the sandbox itself"))


def pytest_runtest_setup(item):
    if item.get_closest_marker("provider"):
        require_provider()
    marker = item.get_closest_marker("sandbox_only")
    if marker and real_aws():
        reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "needs the sandbox's admin API")
        pytest.skip(f"sandbox-only ({reason}); HYPERPOD_REAL_AWS=1 runs against a real account")


@pytest.fixture(scope="session")
def sandbox():
    sb = RealAws() if real_aws() else Sandbox.from_env_or_start()
    yield sb
    sb.stop()


@pytest.fixture(scope="session")
def fx(sandbox):
    return sandbox.fixture()


@pytest.fixture
def tf(sandbox, tmp_path):
    sandbox.reset()  # a no-op on a real account
    terraform = Terraform(tmp_path, sandbox.env())
    yield terraform
    if sandbox.real and (terraform.dir / "terraform.tfstate").exists():
        terraform.destroy(check=False)  # nothing resets a real account: leave it as the test found it
