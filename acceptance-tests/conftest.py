"""Fixtures for the acceptance tests and the sandbox's own tests.

* `sandbox` (session): the local AWS sandbox, started once per run (or the one at
  $HYPERPOD_SANDBOX_URL); see harness/sandbox.py.
* `tf` (function): a fresh Terraform working dir pointed at the sandbox, which is
  reset to its seed first, so every test starts from the same capacity account.
* `@pytest.mark.provider`: the test needs the built provider binary; skipped when
  it is missing, failed instead when env CI is set.
"""
import pytest

from harness import Sandbox, Terraform, require_provider


def pytest_configure(config):
    config.addinivalue_line("markers", "provider: needs the built terraform-provider-hyperpod binary "
                                       "(skipped if missing; fails in CI)")


def pytest_runtest_setup(item):
    if item.get_closest_marker("provider"):
        require_provider()


@pytest.fixture(scope="session")
def sandbox():
    sb = Sandbox.from_env_or_start()
    yield sb
    sb.stop()


@pytest.fixture
def tf(sandbox, tmp_path):
    sandbox.reset()
    return Terraform(tmp_path, sandbox.env())
