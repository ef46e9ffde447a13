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
import subprocess
from pathlib import Path

import pytest

from harness import current_fixture
from harness.fixture import LOCAL, Fixture
from hcl import days_ago
from report_cli import plan_artifacts, require_report
from test_verdict import MISGOVERNED_AT, MISGOVERNED_SIZES, workdir

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report"
FX = current_fixture()
REVIEW_INTERVAL_DAYS = 90  # the examples' contracts
# example -> (report exit code, verdict status, {(rule, address)} of the failures)
EXPECTED = {
    "quickstart": (0, "compliant", set()),
    "module": (0, "compliant", set()),
    "misgoverned": (1, "not_compliant", {(rule, "hyperpod_tenant.research") for rule in MISGOVERNED_AT}),
}
EXAMPLES = [pytest.param(e, marks=pytest.mark.sandbox_only(reason=MISGOVERNED_SIZES)) if e == "misgoverned" else e
            for e in sorted(EXPECTED)]


def run_report(artifacts, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(require_report()), "report", "--log", str(artifacts.log), *extra,
                           str(artifacts.plan)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def planned(sandbox, tmp_path_factory):
    """Each example planned once, against the seed as it is, as examples/ci/pipeline.sh plans it (lazily, so a
    skipped example is never planned): {example: PlanArtifacts}."""
    artifacts = {}

    def plan(example: str):
        if example not in artifacts:
            sandbox.reset()
            artifacts[example] = plan_artifacts(workdir(example, tmp_path_factory.mktemp(f"report-{example}"), sandbox))
        return artifacts[example]
    return plan


def to_local_seed(text: str) -> str:
    """The fixture's names and ids replaced by the local seed's (longest first, so an ARN's parts map whole), and
    the review dates, which move with today, by placeholders."""
    pairs = []

    def walk(ours, local):
        if isinstance(ours, dict):
            for key in ours.keys() & local.keys():
                walk(ours[key], local[key])
        elif isinstance(ours, list):
            for a, b in zip(ours, local, strict=False):
                walk(a, b)
        elif isinstance(ours, str) and ours != local and len(ours) >= 4:
            pairs.append((ours, local))

    walk(FX.raw(), Fixture.load(LOCAL).raw())
    for ours, local in sorted(set(pairs), key=lambda pair: -len(pair[0])):
        text = text.replace(ours, local)
    last_reviewed = days_ago(10)  # as test_verdict.workdir writes it
    next_review = datetime.date.fromisoformat(last_reviewed) + datetime.timedelta(days=REVIEW_INTERVAL_DAYS)
    return text.replace(last_reviewed, "<last_reviewed>").replace(next_review.isoformat(), "<next_review>")


@pytest.mark.provider
@pytest.mark.parametrize("example", EXAMPLES)
def test_verdict(planned, example):
    """The report's exit code and verdict, and the failures it names, for the example's real plan."""
    result = run_report(planned(example), "--format", "json")
    code, status, failures = EXPECTED[example]
    report = json.loads(result.stdout)
    assert (result.returncode, report["verdict"]["status"]) == (code, status), result.stderr
    assert report["verdict"]["exit_code"] == code
    found = {(item["rule"], item["address"]) for item in report["attention"] if item["status"] == "failed"}
    assert found == failures


@pytest.mark.provider
@pytest.mark.parametrize("form", ["md", "json"])
@pytest.mark.parametrize("example", EXAMPLES)
def test_golden(planned, example, form):
    """The whole report, Markdown and JSON, as reviewers and bots read it."""
    result = run_report(planned(example), "--format", "markdown" if form == "md" else "json")
    assert result.returncode == EXPECTED[example][0], result.stderr
    actual = to_local_seed(result.stdout)
    golden = GOLDEN / f"{example}.{form}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual)
    assert golden.is_file(), f"no golden file {golden}: run with UPDATE_GOLDEN=1 and review it"
    assert actual == golden.read_text(), f"the {example} report differs from {golden} (UPDATE_GOLDEN=1 rewrites it)"


@pytest.mark.provider
def test_unreadable_plan_is_exit_3(tmp_path):
    """A file that is not `terraform show -json` output: exit 3 and a message naming the file, not a verdict."""
    bogus = tmp_path / "plan.json"
    bogus.write_text("{not json")
    result = subprocess.run([str(require_report()), "report", str(bogus)], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 3 and str(bogus) in result.stderr and not result.stdout


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "reviewing-a-plan.md"


def quoted(text: str) -> str:
    """A report as the guide quotes it: a Markdown blockquote, so its headings stay inside the guide's section."""
    return "".join(f"> {line}".rstrip() + "\n" for line in text.splitlines())


@pytest.mark.parametrize("example", ["quickstart", "misgoverned"])
def test_the_guide_quotes_the_reports_as_the_provider_writes_them(example):
    """docs/guides/reviewing-a-plan.md walks through these two reports: its quoted copies are the golden files (which
    test_golden holds to the provider's output), so the guide cannot go stale. `UPDATE_GOLDEN=1` rewrites them."""
    begin, end = f"<!-- report:{example} -->\n", f"<!-- /report:{example} -->\n"
    guide = GUIDE.read_text()
    assert begin in guide and end in guide, f"{GUIDE} has no {begin.strip()} … {end.strip()} block"
    head, rest = guide.split(begin, 1)
    body, tail = rest.split(end, 1)
    expected = quoted((GOLDEN / f"{example}.md").read_text())
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GUIDE.write_text(head + begin + expected + end + tail)
        body = expected
    assert body == expected, f"the guide's {example} report differs from golden/report/{example}.md"
