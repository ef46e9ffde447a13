"""`terraform test` on examples/module (tests/*.tftest.hcl), as a module author runs it
(docs/guides/testing-modules.md): against the sandbox, on every Terraform the provider is tested with. Every run
block passes: the good teams plan with every rule passed, a misgoverned one fails the module's check with the rule's
ID (expect_failures), and both teams apply; then `terraform test` destroys them and keeps no state."""
import json
import shutil
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness.terraform_versions import TESTED, workdir
from hcl import days_ago

pytestmark = pytest.mark.provider

REPO = Path(__file__).resolve().parents[2]
MODULE = REPO / "examples" / "module"
RUNS = {"both_teams_plan_clean", "an_unapproved_public_endpoint_fails_clu_5", "both_teams_apply"}


@pytest.mark.parametrize("terraform", TESTED, ids=lambda v: f"terraform-{v.version}")
def test_examples_module_terraform_test(terraform, sandbox, tmp_path):
    sandbox.reset()
    tf = workdir(terraform, tmp_path, sandbox.env())
    shutil.copytree(MODULE, tf.dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    write_example_variables(tf, MODULE)
    # Reviewed ten days ago, so the contracts are current whatever today's date (the example's default is fixed).
    tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    tf.init()
    result = tf.run("test", "-json", check=False)
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    runs = {m["test_run"]["run"]: m["test_run"]["status"] for m in messages
            if m.get("type") == "test_run" and m["test_run"].get("progress") == "complete"}
    summary = [m["test_summary"] for m in messages if m.get("type") == "test_summary"]
    assert runs == {name: "pass" for name in RUNS}, result.stdout + result.stderr
    assert result.rc == 0 and summary and summary[0]["status"] == "pass", result.stdout + result.stderr
    assert tf.run("state", "list", check=False).stdout.strip() == ""  # terraform test keeps no state in the dir
