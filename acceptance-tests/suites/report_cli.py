"""The provider binary's `report` subcommand (REPORT.md), as the suites that run it need it: the binary, and a skip
with a clear reason while the build has no such subcommand (`report --help` exits non-zero: the plugin refuses to be
run directly). Also the plan artifacts the report reads, made from an example as a CI job makes them."""
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import Terraform, provider_binary, require_provider


def require_report() -> Path:
    """The provider binary, once it has the `report` subcommand; skip (or, in CI without a binary, fail) before."""
    require_provider()
    binary = provider_binary()
    probe = subprocess.run([str(binary), "report", "--help"], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    if probe.returncode != 0:
        pytest.skip(f"{binary} has no `report` subcommand yet (`report --help` exited {probe.returncode}): "
                    f"the report helper's branch adds it")
    return binary


@dataclass(frozen=True)
class PlanArtifacts:
    plan_rc: int  # `terraform plan` without -detailed-exitcode: 0 planned, 1 failed (the plan file is errored)
    log: Path  # plan.log.jsonl: `terraform plan -json`'s lines
    plan: Path  # plan.json: `terraform show -json tfplan`


def plan_artifacts(tf: Terraform) -> PlanArtifacts:
    """init, `plan -json -out=tfplan` (kept whatever its exit code: an errored plan is still written) and
    `show -json tfplan`, in tf's working dir, as examples/ci/pipeline.sh runs them."""
    tf.init()
    planned = tf.run("plan", "-input=false", "-json", "-out=tfplan", check=False)
    log = tf.dir / "plan.log.jsonl"
    log.write_text(planned.stdout)
    assert (tf.dir / "tfplan").is_file(), f"plan exited {planned.rc} and wrote no plan file\n{planned.stderr}"
    plan = tf.dir / "plan.json"
    plan.write_text(json.dumps(tf.show_json("tfplan")))
    return PlanArtifacts(planned.rc, log, plan)
