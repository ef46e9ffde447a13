"""Fixtures the sandbox's own tests share (the `sandbox` fixture itself is in acceptance-tests/conftest.py)."""
import pytest


@pytest.fixture
def sm(sandbox):
    return sandbox.client("sagemaker")


@pytest.fixture
def raw_sm(sandbox):
    """No client-side validation: requests reach the sandbox's own model validation."""
    return sandbox.client("sagemaker", validate=False)
