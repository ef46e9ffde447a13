"""Where the provider binary under test is, and what to do when it is missing."""
import os
from pathlib import Path

import pytest

PROVIDER_SOURCE = "hyperpod-governance/hyperpod"
BINARY_NAME = "terraform-provider-hyperpod"


def provider_dir() -> Path:
    default = Path.home() / ".cache" / "terraform-provider-hyperpod" / "target" / "release"
    return Path(os.environ.get("HYPERPOD_PROVIDER_DIR") or default)


def provider_binary() -> Path:
    return provider_dir() / BINARY_NAME


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require_provider() -> None:
    """Skip the calling test if the provider is not built; in CI (env CI set) fail instead,
    so a broken build cannot turn the acceptance suite into a green run of skips."""
    binary = provider_binary()
    if binary.is_file() and os.access(binary, os.X_OK):
        return
    reason = (f"provider binary {binary} not found: build it with cargo build --release "
              f"(target dir from HYPERPOD_PROVIDER_DIR or ~/.cache/terraform-provider-hyperpod/target/release)")
    if _in_ci():
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)
