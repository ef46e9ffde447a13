"""examples/ci: the GitHub Actions workflow is valid YAML that runs the pipeline's commands in order (init, plan to a
file with its JSON log, show -json, the report of both, the PR comment, the verdict), every `run:` script is valid
bash, and pipeline.sh (the same as a plain shell pipeline) runs against the sandbox with the quickstart: once with a
stand-in report binary where `terraform init` installs providers (finds it, passes the files, keeps its exit code),
and once with the real `report` subcommand (skipped while the binary has none).
"""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from report_cli import require_report
from test_verdict import MISGOVERNED_SIZES, workdir

REPO = Path(__file__).resolve().parents[2]
CI = REPO / "examples" / "ci"
WORKFLOW = CI / "github-actions.yml"
PIPELINE = CI / "pipeline.sh"

# What both run, in this order. A pattern per command, matched against the joined shell text.
COMMANDS = [
    ("init", r"terraform init -input=false"),
    ("plan", r"terraform plan -input=false -json -out=tfplan > ?plan\.log\.jsonl"),
    ("show", r"terraform show -json tfplan > ?plan\.json"),
    ("find the provider", r"find \.terraform/providers .*'terraform-provider-hyperpod_v\*'"),
    ("report", r'report --log plan\.log\.jsonl plan\.json > ?report\.md'),
]


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def joined(text: str) -> str:
    """Shell text with continuation lines joined, so a command split over lines matches as one."""
    return re.sub(r"\\\n\s*", " ", text)


def positions(text: str, what: str) -> list[int]:
    found = []
    text = joined(text)
    for name, pattern in COMMANDS:
        match = re.search(pattern, text)
        assert match, f"{what} does not run {name} (/{pattern}/)"
        found.append(match.start())
    return found


def test_the_workflow_runs_the_pipeline_in_order_and_comments():
    doc = workflow()
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert "pull_request" in triggers
    assert doc["permissions"]["pull-requests"] == "write"
    (job,) = doc["jobs"].values()
    steps = job["steps"]

    setup = next(s for s in steps if s.get("uses", "").startswith("hashicorp/setup-terraform@"))
    assert setup["with"]["terraform_wrapper"] is False, "the wrapper corrupts `terraform show -json` on stdout"
    assert tuple(int(p) for p in str(setup["with"]["terraform_version"]).split(".")[:2]) >= (1, 11)

    # Each command in its step, the steps in order; then the comment, then the verdict.
    runs = [(i, s["run"]) for i, s in enumerate(steps) if "run" in s]
    step_of = []
    for name, pattern in COMMANDS:
        hits = [i for i, text in runs if re.search(pattern, joined(text))]
        assert hits, f"no step runs {name} (/{pattern}/)"
        step_of.append(hits[0])
    assert step_of == sorted(step_of), \
        f"steps out of order: {list(zip([n for n, _ in COMMANDS], step_of, strict=False))}"
    comment = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/github-script@"))
    script = steps[comment]["with"]["script"]
    assert "updateComment" in script and "createComment" in script, "the report comment is not created or updated"
    assert comment > step_of[-1], "the comment is posted before the report exists"
    verdict = steps[-1]
    assert "steps.report.outputs.exit_code" in verdict["run"] and '!= "1"' in verdict["run"], \
        "the last step does not fail the job on the report's exit 1"
    report_step = steps[step_of[-1]]
    assert report_step.get("id") == "report" and "GITHUB_OUTPUT" in report_step["run"]


def test_every_run_script_is_valid_bash():
    for step in workflow()["jobs"]["report"]["steps"]:
        if "run" in step:
            script = re.sub(r"\$\{\{.*?\}\}", "x", step["run"])  # expressions are substituted before bash runs
            checked = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
            assert checked.returncode == 0, f"step {step.get('name')}: {checked.stderr}\n{script}"
    checked = subprocess.run(["bash", "-n", str(PIPELINE)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_pipeline_sh_runs_the_same_commands_in_the_same_order():
    text = PIPELINE.read_text().replace('"$tf"', "terraform")
    found = positions(text, "pipeline.sh")
    assert found == sorted(found), "pipeline.sh runs the commands in another order than the workflow"
    positions("\n".join(s["run"] for s in workflow()["jobs"]["report"]["steps"] if "run" in s), "the workflow")
    assert os.access(PIPELINE, os.X_OK), "pipeline.sh is not executable"


def run_pipeline(tf, **env) -> subprocess.CompletedProcess:
    """pipeline.sh in tf's working dir, with tf's environment (the sandbox, dev_overrides for the built provider,
    the venv's terraform first on PATH)."""
    return subprocess.run(["bash", str(PIPELINE), str(tf.dir)], env={**tf.env, **env}, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)


STUB = """#!/bin/sh
# A stand-in for the provider's report: says how it was called, exits 2 ("needs attention").
echo "stub $*"
exit 2
"""


@pytest.mark.provider
@pytest.mark.sandbox_only(reason="runs terraform outside the harness's real-account guard (a plan only)")
def test_pipeline_finds_the_installed_provider_and_keeps_the_report_exit_code(sandbox, tmp_path):
    sandbox.reset()
    tf = workdir("quickstart", tmp_path, sandbox)
    # Where `terraform init` puts a registry provider; the harness's dev_overrides load the build instead, so the
    # file here is only what the pipeline finds and runs as the report.
    installed = tf.dir / ".terraform/providers/registry.terraform.io/hyperpod-governance/hyperpod/0.3.0/linux_amd64"
    installed.mkdir(parents=True)
    stub = installed / "terraform-provider-hyperpod_v0.3.0"
    stub.write_text(STUB)
    stub.chmod(0o755)

    result = run_pipeline(tf)
    assert result.returncode == 2, f"rc {result.returncode}\n{result.stderr[-3000:]}"
    assert result.stdout == "stub report --log plan.log.jsonl plan.json\n", result.stdout
    assert (tf.dir / "report.md").read_text() == result.stdout
    plan = json.loads((tf.dir / "plan.json").read_text())
    assert not plan.get("errored") and plan["resource_changes"], "plan.json is not the quickstart's plan"
    log = [json.loads(line) for line in (tf.dir / "plan.log.jsonl").read_text().splitlines()]
    assert any(entry.get("type") == "change_summary" for entry in log), "plan.log.jsonl is not `plan -json`'s log"

    # Nothing installed and no REPORT_BIN: exit 3 with a message, not a report of nothing.
    shutil.rmtree(tf.dir / ".terraform" / "providers")
    missing = run_pipeline(tf)
    assert missing.returncode == 3 and "set REPORT_BIN" in missing.stderr, missing.stderr


@pytest.mark.provider
@pytest.mark.parametrize("example, expected", [
    ("quickstart", 0),
    pytest.param("misgoverned", 1, marks=pytest.mark.sandbox_only(reason=MISGOVERNED_SIZES)),
])
def test_pipeline_reports_the_example(example, expected, sandbox, tmp_path):
    binary = require_report()
    if sandbox.real:
        pytest.skip("runs terraform outside the harness's real-account guard")
    sandbox.reset()
    tf = workdir(example, tmp_path, sandbox)
    result = run_pipeline(tf, REPORT_BIN=str(binary))
    assert result.returncode == expected, f"rc {result.returncode}\n{result.stderr[-3000:]}\n{result.stdout}"
    assert result.stdout.startswith("## HyperPod governance: "), result.stdout[:500]
    assert (tf.dir / "report.md").read_text() == result.stdout
