"""The same configuration gets the same verdict: examples/quickstart, examples/module and examples/misgoverned,
each planned against the sandbox's seed nine times (`-parallelism=1`, `2` and `10`, three times each) after one
`terraform init`, give the same exit code and the same diagnostics: the same rule IDs of the same kind on the same
resource addresses (`PlanVerdict.rules_by_address()`; the order Terraform prints them in does not matter). A rule's
finding is a refusal (kind "refused"): the plan warns that apply refuses the change, and exits 2, since no rule may
fail a plan (`terraform destroy` refreshes with one).

EXPECTED pins what that verdict must be: a dict (address -> sorted [(rule, kind), ...], as rules_by_address()
returns it) is also compared with every plan; None means "not pinned yet" (only the nine plans are compared with
each other). The plans only read the seed; only the misgoverned example is applied once, to show that apply refuses
each violation at its attribute before writing anything of the tenant.
"""
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import PlanVerdict, Terraform, flat
from harness.terraform import REFUSED_AT_APPLY
from hcl import as_run_fixture, days_ago
from test_task_view_restriction import enable_run_as

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

EXPECTED = {
    "quickstart": {},  # no diagnostic at all: the plan creates everything (rc 2)
    "module": {},
    "misgoverned": {
        "hyperpod_tenant.research": [("ORG-2", "refused"), ("WKL-3", "refused"), ("WKL-7", "refused"),
                                     ("WKL-8", "refused")],
    },
}
# Where each of misgoverned's violations points: the attribute, as written in examples/misgoverned/main.tf, on the
# line Terraform's diagnostic range starts.
MISGOVERNED_AT = {
    "ORG-2": "target_role_arn",
    "WKL-3": "count",
    "WKL-7": "viewer_verbs",
    "WKL-8": "default_deny",
}
MISGOVERNED_SIZES = ("the misgoverned example's violations are sized for the local seed's cluster "
                      "(its quota overcommits an 8-instance group)")
PARALLELISM = (1, 2, 10)
REPEATS = 3


def workdir(example: str, tmp_path: Path, sandbox) -> Terraform:
    """The example copied as test_examples.py and demo.sh copy it (its .tf files and local modules), with a review
    ten days ago when it has a `last_reviewed` variable (quickstart, module: their fixed default date goes overdue);
    misgoverned has none and is planned as it is, as demo.sh plans it."""
    tf = Terraform(tmp_path, sandbox.env())
    shutil.copytree(EXAMPLES / example, tf.dir, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*", "*.sh"))
    if any('variable "last_reviewed"' in path.read_text() for path in tf.dir.glob("*.tf")):
        tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, EXAMPLES / example)  # the fixture's names, for the variables the example has
    return tf


def differences(runs: list[tuple[str, PlanVerdict]]) -> str:
    """The distinct verdicts among `runs`, each with the runs that gave it and its diagnostics."""
    groups: list[tuple[tuple, list[str], PlanVerdict]] = []
    for label, verdict in runs:
        key = (verdict.rc, verdict.rules_by_address())
        for group_key, labels, _ in groups:
            if group_key == key:
                labels.append(label)
                break
        else:
            groups.append((key, [label], verdict))
    return "\n\n".join(f"{len(labels)} plan(s) [{', '.join(labels)}]: {(rc, rules)}\n{verdict.describe()}"
                       for (rc, rules), labels, verdict in groups)


@pytest.mark.provider
@pytest.mark.parametrize("example", [pytest.param(e, marks=pytest.mark.sandbox_only(reason=MISGOVERNED_SIZES))
                                     if e == "misgoverned" else e for e in EXPECTED])
def test_same_configuration_same_verdict(example, sandbox, tmp_path):
    sandbox.reset()
    tf = workdir(example, tmp_path, sandbox)
    tf.init()

    runs = [(f"-parallelism={p} #{i + 1}", tf.plan_json(extra=[f"-parallelism={p}"]))
            for p in PARALLELISM for i in range(REPEATS)]

    first = runs[0][1]
    rc, rules = first.rc, first.rules_by_address()
    same = all((verdict.rc, verdict.rules_by_address()) == (rc, rules) for _, verdict in runs)
    assert same, f"{example}: different verdicts in {len(runs)} plans of one configuration\n\n" + differences(runs)
    assert rc in (0, 1, 2), f"{example}: terraform plan exited {rc}\n{first.describe()}"

    expected: dict | None = EXPECTED[example]
    if expected is not None:
        expected = {address: sorted((tuple(e) for e in entries), key=lambda e: (e[0] is None, e[0] or "", *e[1:]))
                    for address, entries in expected.items()}
        assert rules == expected, (f"{example}: the verdict is not the pinned one\nexpected {expected}\n"
                                   f"got      {rules}\n{first.describe()}")
        errors = any(entry[1] == "error" for entries in expected.values() for entry in entries)
        # nothing exists in the seed yet: a plan without errors (refusals are warnings) creates everything
        assert rc == (1 if errors else 2), f"{example}: rc {rc}\n{first.describe()}"


@pytest.mark.provider
@pytest.mark.sandbox_only(reason=MISGOVERNED_SIZES)
def test_each_violation_is_reported_once_at_the_attribute_that_breaks_the_rule(sandbox, tmp_path):
    """The plan warns once per violation, at its attribute, that apply refuses the change; apply then fails with each
    as an error at the same attribute, and writes nothing of the tenant (the contract, which does not depend on it,
    is created)."""
    sandbox.reset()
    tf = workdir("misgoverned", tmp_path, sandbox)
    tf.init()
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    for rule, attribute in MISGOVERNED_AT.items():
        verdict.assert_rule(rule, "hyperpod_tenant.research", attribute)
    # The assertion reads the range Terraform gives: a wrong attribute or address fails it.
    with pytest.raises(AssertionError):
        verdict.assert_rule("WKL-8", "hyperpod_tenant.research", "viewer_verbs")
    with pytest.raises(AssertionError):
        verdict.assert_rule("WKL-8", "hyperpod_connection_contract.research", "default_deny")
    applied = tf.apply_json()
    assert applied.rc == 1, applied.describe()
    errors = replace(applied, diagnostics=applied.errors)  # an apply's output repeats its plan's refusal warnings
    assert {d.rule for d in errors.diagnostics} == set(MISGOVERNED_AT), applied.describe()
    for rule, attribute in MISGOVERNED_AT.items():
        error = errors.assert_rule(rule, "hyperpod_tenant.research", attribute, severity="error")
        assert REFUSED_AT_APPLY in flat(error.detail), applied.describe()
    state = [r["address"] for r in tf.show_json()["values"]["root_module"]["resources"]]
    assert "hyperpod_tenant.research" not in state and "hyperpod_connection_contract.research" in state, state


@pytest.mark.provider
@pytest.mark.sandbox_only(reason="turns on Run As in the account's Session Manager preferences")
def test_the_resource_examples_plan_together_with_no_diagnostic(sandbox, tmp_path):
    """The per-resource examples (the docs pages' HCL, written with the local seed's names, read under the run's
    fixture's: hcl.as_run_fixture) planned together: a good configuration plans with zero diagnostics."""
    sandbox.reset()
    enable_run_as(sandbox)  # the Slurm restriction example's precondition (CLU-7 checks it, never flips it)
    tf = Terraform(tmp_path, sandbox.env())
    tf.write_file("provider.tf", as_run_fixture((EXAMPLES / "provider" / "provider.tf").read_text()))
    for path in sorted((EXAMPLES / "resources").glob("*/resource*.tf")):
        tf.write_file(f"{path.parent.name}--{path.name}", as_run_fixture(path.read_text()))
    tf.init()
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
