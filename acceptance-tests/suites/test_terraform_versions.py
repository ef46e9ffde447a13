"""The quickstart as a user runs it, on every Terraform the provider is tested with (harness/terraform_versions.py):
the lowest it supports (1.11.4) and the newest installable one (1.15.5). Each installs the local build the way the
README tells a user of that version (dev_overrides on 1.15, the filesystem mirror of `tools/release-local --mirror`
below), then init, plan with zero diagnostics, the governance report of that plan, apply of the saved plan, an empty
second plan and destroy."""
import json
import subprocess
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import PlanVerdict, Terraform
from harness.terraform_versions import TESTED, TerraformVersion, workdir
from hcl import days_ago
from report_cli import plan_artifacts, require_report

pytestmark = pytest.mark.provider

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"


def quickstart(terraform: TerraformVersion, root: Path, sandbox_env: dict) -> Terraform:
    tf = workdir(terraform, root, sandbox_env)
    for source in sorted(QUICKSTART.glob("*.tf")):
        tf.write_file(source.name, source.read_text())
    # Reviewed ten days ago, so the quickstart's contracts never go overdue (LIF-1) under the test.
    tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, QUICKSTART)
    return tf


@pytest.mark.parametrize("terraform", TESTED, ids=lambda v: f"terraform-{v.version}")
def test_quickstart_lifecycle(terraform, sandbox, tmp_path):
    sandbox.reset()
    tf = quickstart(terraform, tmp_path, sandbox.env())
    assert json.loads(tf.run("version", "-json").stdout)["terraform_version"] == terraform.version

    artifacts = plan_artifacts(tf)  # init, plan -json -out=tfplan, show -json tfplan
    verdict = PlanVerdict.from_plan_output(artifacts.plan_rc, artifacts.log.read_text(), tf.dir)
    assert artifacts.plan_rc == 0 and verdict.diagnostics == [], artifacts.log.read_text()
    planned = json.loads(artifacts.plan.read_text())
    assert planned["terraform_version"] == terraform.version
    actions = {c["address"]: c["change"]["actions"] for c in planned["resource_changes"]}
    assert actions and all(a == ["create"] for a in actions.values()), actions

    report = subprocess.run([str(require_report()), "report", "--log", str(artifacts.log), str(artifacts.plan)],
                            capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stdout + report.stderr
    assert f"Terraform {terraform.version} plan" in report.stdout, report.stdout

    tf.apply("tfplan")
    tf.assert_no_changes()
    tf.destroy()
    assert tf.run("state", "list").stdout.strip() == ""

