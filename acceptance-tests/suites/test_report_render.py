"""The governance report renders as a reviewer sees it in a pull request: the report of a real plan (the example
planned against the sandbox, `terraform show -json` of its plan file, its `plan -json` log) is converted to HTML and
loaded in headless Chromium with Mermaid's own script (harness/render.py); every Mermaid diagram must parse and be
drawn, the tables must be tables, the rule IDs links to their sections, and a screenshot is kept under
acceptance-tests/out/render/report-<example>.png (with the Markdown beside it, report-<example>.md).

Skipped while the provider binary has no `report` subcommand (suites/report_cli.py).
"""
import re
import subprocess

import pytest

from harness import render
from report_cli import plan_artifacts, require_report
from test_verdict import MISGOVERNED_AT, MISGOVERNED_SIZES, workdir

# The verdict each example's report gives (REPORT.md's exit codes): the quickstart is compliant, nothing deferred;
# the misgoverned example's plan succeeds but warns that apply refuses four rules, which the report counts as failed.
EXPECTED_EXIT = {"quickstart": 0, "misgoverned": 1}


@pytest.mark.provider
@pytest.mark.parametrize("example", [pytest.param(e, marks=pytest.mark.sandbox_only(reason=MISGOVERNED_SIZES))
                                     if e == "misgoverned" else e for e in EXPECTED_EXIT])
def test_the_report_renders_with_its_diagram_drawn(example, sandbox, tmp_path):
    binary = require_report()
    render.require_tools()
    sandbox.reset()
    tf = workdir(example, tmp_path, sandbox)
    artifacts = plan_artifacts(tf)
    assert artifacts.plan_rc == 0, artifacts.log.read_text()[-3000:]  # no rule fails a plan: refusals are warnings

    report = subprocess.run([str(binary), "report", "--log", str(artifacts.log), str(artifacts.plan)],
                            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    render.OUT.mkdir(parents=True, exist_ok=True)
    (render.OUT / f"report-{example}.md").write_text(report.stdout)
    # A crash exits 1 too: the Markdown must be there before the exit code means the verdict.
    assert report.stdout.startswith("## HyperPod governance: "), f"exit {report.returncode}\n{report.stderr}"
    assert report.returncode == EXPECTED_EXIT[example], f"exit {report.returncode}\n{report.stderr}\n{report.stdout}"

    rendered = render.render_markdown(report.stdout, f"report-{example}")
    assert len(rendered.diagrams) == 1, f"expected one Mermaid diagram, found {len(rendered.diagrams)}"
    rendered.assert_ok()  # Mermaid parsed it and drew an <svg>
    dom = rendered.dom_path.read_text()
    assert re.search(r"<h2>HyperPod governance: ", dom), "no `## HyperPod governance: <verdict>` heading"
    if example == "quickstart":
        for section in ("Connection contracts", "Tenants", "Destroyed or replaced"):
            assert f"<h3>{section}</h3>" in dom, f"no ### {section}"
        assert rendered.tables >= 2, f"{rendered.tables} tables: a layer table per contract and the tenants' table"
    else:
        # Each failed rule is named as a link to its section of the rules guide (anchor = the ID in lower case).
        for rule in MISGOVERNED_AT:
            assert re.search(rf'<a href="[^"]*#{rule.lower()}">{rule}</a>', dom), f"{rule} is not linked"
    print(f"screenshot: {rendered.screenshot}")
