"""The governance report (`terraform-provider-hyperpod report`) of the examples' real plans: examples/quickstart,
examples/misgoverned and examples/module planned through Terraform against the sandbox, `terraform show -json` of
the saved plan and the `terraform plan -json` log fed to the report, as examples/ci/ does in a pull request.

Two kinds of test per example:
- the verdict, under any fixture: the exit code, the verdict's status, the rules that failed and where;
- golden files (acceptance-tests/golden/report/<example>.{md,json}): the whole report, byte for byte, after the
  fixture's names and ids are mapped back to the local seed's and the review dates (relative to today) are replaced
  by placeholders, so one golden file holds for every fixture and every day. `UPDATE_GOLDEN=1` rewrites them; review
  the diff as you would any other change to what reviewers read.
"""
import datetime
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import Terraform, current_fixture, provider_binary
from harness.fixture import LOCAL, Fixture
from hcl import days_ago

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report"
FX = current_fixture()
REVIEW_INTERVAL_DAYS = 90  # the examples' contracts
LAST_REVIEWED = days_ago(10)
# example -> (report exit code, verdict status, {(rule, address)} of the failures)
EXPECTED = {
    "quickstart": (0, "compliant", set()),
    "module": (0, "compliant", set()),
    "misgoverned": (1, "not_compliant", {("ORG-2", "hyperpod_tenant.research"), ("WKL-3", "hyperpod_tenant.research"),
                                         ("WKL-7", "hyperpod_tenant.research"),
                                         ("WKL-8", "hyperpod_tenant.research")}),
}


def run_report(plan_json: Path, log: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(provider_binary()), "report", "--log", str(log), *extra, str(plan_json)],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def planned(sandbox, tmp_path_factory):
    """Each example planned once against the seed as it is: {example: (plan.json path, plan log path)}."""
    sandbox.reset()
    out = {}
    for example in EXPECTED:
        source = REPO / "examples" / example
        tf = Terraform(tmp_path_factory.mktemp(f"report-{example}"), sandbox.env())
        shutil.copytree(source, tf.dir, dirs_exist_ok=True)
        tf.write_file("terraform.tfvars.json",
                      json.dumps({**FX.tfvars_for(source), "last_reviewed": LAST_REVIEWED}, indent=2))
        tf.init()
        result = tf.run("plan", "-input=false", "-json", "-out=example.tfplan", check=False)
        assert result.rc == (1 if EXPECTED[example][0] == 1 else 0), result.stdout[-4000:]
        log = tf.write_file("plan.log.jsonl", result.stdout)
        plan_json = tf.write_file("plan.json", json.dumps(tf.show_json("example.tfplan")))
        out[example] = (plan_json, log)
    return out


def to_local_seed(text: str) -> str:
    """The fixture's names and ids replaced by the local seed's (longest first, so an ARN's parts map whole), and
    the review dates, which move with today, by placeholders."""
    pairs = []

    def walk(ours, local):
        if isinstance(ours, dict):
            for key in ours.keys() & local.keys():
                walk(ours[key], local[key])
        elif isinstance(ours, list):
            for a, b in zip(ours, local):
                walk(a, b)
        elif isinstance(ours, str) and ours != local and len(ours) >= 4:
            pairs.append((ours, local))

    walk(FX.raw(), Fixture.load(LOCAL).raw())
    for ours, local in sorted(set(pairs), key=lambda pair: -len(pair[0])):
        text = text.replace(ours, local)
    next_review = datetime.date.fromisoformat(LAST_REVIEWED) + datetime.timedelta(days=REVIEW_INTERVAL_DAYS)
    return text.replace(LAST_REVIEWED, "<last_reviewed>").replace(next_review.isoformat(), "<next_review>")


@pytest.mark.parametrize("example", sorted(EXPECTED))
def test_verdict(planned, example):
    """The report's exit code and verdict, and the failures it names, for the example's real plan."""
    plan_json, log = planned[example]
    result = run_report(plan_json, log, "--format", "json")
    code, status, failures = EXPECTED[example]
    report = json.loads(result.stdout)
    assert (result.returncode, report["verdict"]["status"]) == (code, status), result.stderr
    assert report["verdict"]["exit_code"] == code
    found = {(item["rule"], item["address"]) for item in report["attention"] if item["status"] == "failed"}
    assert found == failures


@pytest.mark.parametrize("form", ["md", "json"])
@pytest.mark.parametrize("example", sorted(EXPECTED))
def test_golden(planned, example, form):
    """The whole report, Markdown and JSON, as reviewers and bots read it."""
    plan_json, log = planned[example]
    result = run_report(plan_json, log, "--format", "markdown" if form == "md" else "json")
    assert result.returncode == EXPECTED[example][0], result.stderr
    actual = to_local_seed(result.stdout)
    golden = GOLDEN / f"{example}.{form}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual)
    assert golden.is_file(), f"no golden file {golden}: run with UPDATE_GOLDEN=1 and review it"
    assert actual == golden.read_text(), f"the {example} report differs from {golden} (UPDATE_GOLDEN=1 rewrites it)"


def test_unreadable_plan_is_exit_3(tmp_path):
    """A file that is not `terraform show -json` output: exit 3 and a message naming the file, not a verdict."""
    bogus = tmp_path / "plan.json"
    bogus.write_text("{not json")
    result = subprocess.run([str(provider_binary()), "report", str(bogus)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 3 and str(bogus) in result.stderr and not result.stdout
