"""The 0.3 -> 0.4 upgrade as CHANGELOG.md ("Upgrading from 0.3") and docs/guides/tenants.md say it, on the 0.3
quickstart (`fixtures/upgrade-0.3/quickstart`, examples/quickstart as 0.3 shipped it) and on a variant of it whose
project bindings, once the restrictions existed, relied on them without referencing them (valid in 0.3): each is
applied with this provider as 0.3 wrote it, changed exactly as the notes say (`upgraded`, one function per step),
and the next plan has no diagnostic, creates the allocation, deletes nothing, updates the tenants and bindings only in
their checklists, applies once, and plans empty.
"""
import re
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import PlanVerdict

pytestmark = pytest.mark.provider

QUICKSTART_0_3 = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade-0.3" / "quickstart"
ALLOCATION = "hyperpod_cluster_allocation.capacity.governance"
CHECKLIST = {"passed_checks", "not_applicable_checks", "findings"}

# Step 1: one allocation per cluster listing every team's current guaranteed quota (the quickstart's two tenants).
ALLOCATION_TF = """
locals {
  guaranteed = {
    production = [
      { instance_type = var.instance_types.training, count = 5 },
      { instance_type = var.instance_types.inference, count = 2 },
    ]
    research = [{ instance_type = var.instance_types.training, count = 2 }]
  }
}

resource "hyperpod_cluster_allocation" "capacity" {
  cluster_name = var.cluster_name
  teams        = { for team, quota in local.guaranteed : team => { quota = quota } }
}
"""


def step_2_tenants(text: str) -> str:
    """`allocation` on each tenant, beside its `scheduling_policy` (both quickstart tenants reference the policy)."""
    anchor = "  scheduling_policy = hyperpod_scheduling_policy.capacity.governance\n"
    assert text.count(anchor) == 2, "the 0.3 quickstart's two tenants reference the scheduling policy"
    return text.replace(anchor, anchor + f"  allocation        = {ALLOCATION}\n")


def step_3_bindings(text: str) -> str:
    """Each binding: `allocation`, its project's task view restriction and its tenants, referenced."""
    anchor = "  tenants               = [local.tenants[each.key].governance]\n"
    assert text.count(anchor) == 1, "the 0.3 quickstart's bindings reference their tenants"
    restriction = "  task_view_restriction = hyperpod_task_view_restriction.team[each.key].governance\n"
    if restriction not in text:
        text = text.replace(anchor, anchor + restriction)
    return text.replace(anchor, anchor + f"  allocation            = {ALLOCATION}\n")


def upgraded(files: dict) -> dict:
    """The notes' three steps."""
    return {**files, "allocation.tf": ALLOCATION_TF, "tenants.tf": step_2_tenants(files["tenants.tf"]),
            "access.tf": step_3_bindings(files["access.tf"])}


def without_restriction_references(files: dict) -> dict:
    """The 0.3 configuration whose bindings did not reference their restriction (CLU-2 read the live one)."""
    line = re.compile(r"^ *task_view_restriction *= .*\n", re.MULTILINE)
    assert line.search(files["access.tf"]), files["access.tf"]
    return {**files, "access.tf": line.sub("", files["access.tf"])}


SHAPES = {"quickstart": lambda files: files, "bindings relying on live restrictions": without_restriction_references}
# How each shape came to be applied: the variant's restrictions were made by an earlier apply that referenced them.
HISTORY = {"quickstart": (), "bindings relying on live restrictions": (lambda files: files,)}


def write(tf, files: dict) -> None:
    for name in list(Path(tf.dir).glob("*.tf")):
        name.unlink()
    for name, text in files.items():
        tf.write_file(name, text)


@pytest.mark.sandbox_only(reason="applies the example against the local seed's account")
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_0_3_configuration_upgraded_as_the_notes_say_plans_with_no_diagnostic(tf, shape):
    original = {path.name: path.read_text() for path in QUICKSTART_0_3.glob("*.tf")}
    write_example_variables(tf, QUICKSTART_0_3)
    for earlier in (*HISTORY[shape], SHAPES[shape]):
        write(tf, earlier(original))
        applied = tf.apply_json()
        assert applied.rc == 0 and not applied.errors and not applied.refusals, applied.describe()
    files = SHAPES[shape](original)
    write(tf, upgraded(files))
    verdict: PlanVerdict = tf.plan_json(["-out=upgrade.tfplan"])
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    changes = tf.show_json("upgrade.tfplan")["resource_changes"]
    actions = {c["address"]: c["change"]["actions"] for c in changes if c["change"]["actions"] != ["no-op"]}
    assert actions.pop("hyperpod_cluster_allocation.capacity") == ["create"], actions
    for change in changes:
        if change["address"] not in actions:
            continue
        assert actions[change["address"]] == ["update"], actions
        before, after = change["change"]["before"], change["change"]["after"]
        moved = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
        assert moved <= CHECKLIST | {"governance"}, (change["address"], moved)
    applied = tf.apply_json(["upgrade.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()
    assert tf.plan_json().rc == 0


def test_the_notes_name_every_step_the_test_takes():
    """The steps above are the ones the notes give: the allocation, `allocation` on tenants and bindings, the
    binding's `task_view_restriction` and `tenants`."""
    root = Path(__file__).resolve().parents[2]
    changelog = (root / "CHANGELOG.md").read_text()
    notes = changelog[changelog.index("### Upgrading from 0.3"):changelog.index("## 0.3.0")]
    for needed in ("hyperpod_cluster_allocation", "allocation = hyperpod_cluster_allocation.<name>.governance",
                   "task_view_restriction = hyperpod_task_view_restriction.<name>.governance",
                   "tenants = [hyperpod_tenant.<name>.governance]", "suites/test_upgrade.py"):
        assert needed in notes, needed
