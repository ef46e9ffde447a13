"""The governance evidence (`terraform-provider-hyperpod report evidence`) of examples/quickstart's real state: the
quickstart applied through Terraform against the sandbox (written as test_verdict.workdir writes it: the fixture's
names, reviewed ten days ago), `terraform show -json` of its state fed to the command, as an audit job would run it.

- what the evidence says under any fixture: exit 0, both contracts current, each with the tenant, restriction and
  binding it governs and the organization grant, every rule's last verdict, and every composed object located by its
  ARN (a Kubernetes object by its API path);
- golden files (acceptance-tests/golden/evidence/quickstart.{md,json}): the whole evidence, byte for byte, normalised
  as golden/report is (test_report.to_local_seed: the fixture's names and the review dates) and, beyond that, the
  IDs the sandbox generates at each apply and the content digests the provider records, which follow them.
  `UPDATE_GOLDEN=1` rewrites them; review the diff as you would any change to what auditors read;
- `--out-dir`: one document per contract, the same as its section of the whole;
- the Markdown renders (harness/render.py) with its tables and every rule ID a link.
"""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from harness import current_fixture, render
from report_cli import require_report
from test_report import to_local_seed
from test_verdict import workdir

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "evidence"
FX = current_fixture()
TEAMS = ("production", "research")
GOVERNED = ("hyperpod_tenant", "hyperpod_task_view_restriction", "hyperpod_unified_studio_project_binding")


@pytest.fixture(scope="module")
def applied(sandbox, tmp_path_factory):
    """examples/quickstart applied once, and `terraform show -json` of its state: (state.json path, state)."""
    sandbox.reset()
    tf = workdir("quickstart", tmp_path_factory.mktemp("evidence-quickstart"), sandbox)
    tf.init()
    tf.apply()
    state = tf.show_json()
    path = tf.dir / "state.json"
    path.write_text(json.dumps(state))
    yield path, state
    if sandbox.real:
        tf.destroy(check=False)  # nothing resets a real account


def run_evidence(state: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(require_report()), "report", "evidence", *extra, str(state)], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def generated(state: dict) -> dict[str, str]:
    """Every ID the sandbox (or AWS) generated at this apply, mapped to a stable placeholder named after where it is
    recorded: `<compute_quota of hyperpod_tenant.production>`."""
    found = {}
    for resource in state["values"]["root_module"].get("resources", []):
        values, address = resource["values"], resource["address"]
        for key in ("connection_id", "grant_id", "compute_quota_id", "pod_identity_association_id"):
            if values.get(key):
                found[values[key]] = f"<{key} of {address}>"
        for key, value in (values.get("components") or {}).items():
            if key in ("compute_quota", "pod_identity_association") or key.startswith("kms_grant/"):
                found[value] = f"<{key.split('/')[0]} of {address}>"
    return found


def normalised(text: str, state: dict) -> str:
    """The evidence as one golden file holds it for every fixture and every run: the fixture's names mapped to the
    local seed's and the review dates replaced (to_local_seed), generated IDs replaced by placeholders, and the
    8-hex-digit digests of recorded content (which hash the fixture's names) by `<digest>`."""
    for value, placeholder in sorted(generated(state).items(), key=lambda item: -len(item[0])):
        text = text.replace(value, placeholder)
    # A Kubernetes object's or access entry's value (`<name>@1a2b3c4d`), or a restriction's object (the digest alone).
    text = re.sub(r"(?<=@)[0-9a-f]{8}(?![0-9a-zA-Z])", "<digest>", text)
    text = re.sub(r'(?<=[`"])[0-9a-f]{8}(?=[`"])', "<digest>", text)
    return to_local_seed(text)


@pytest.mark.provider
def test_the_quickstart_s_evidence_is_current_and_complete(applied):
    path, state = applied
    result = run_evidence(path, "--format", "json")
    assert result.returncode == 0, result.stderr + result.stdout[:3000]
    evidence = json.loads(result.stdout)
    assert evidence["evidence"] == {"status": "compliant", "summary": evidence["evidence"]["summary"], "exit_code": 0}
    contracts = {c["name"]: c for c in evidence["contracts"]}
    assert set(contracts) == {f"{team}-on-{FX.clusters.eks.name}" for team in TEAMS}
    for team in TEAMS:
        contract = contracts[f"{team}-on-{FX.clusters.eks.name}"]
        assert contract["status"] == "compliant" and contract["review"]["review_status"] == "current", contract
        assert contract["review"]["approved_by"] == "security-lead@example.com"
        assert contract["cluster"]["account_id"] == FX.account_id
        governed = {r["address"] for r in contract["resources"]}
        expected = {f'hyperpod_connection_contract.team["{team}"]',
                    "hyperpod_domain_unit_policy_grant.hyperpod_projects", f"hyperpod_tenant.{team}",
                    f'hyperpod_task_view_restriction.team["{team}"]',
                    f'hyperpod_unified_studio_project_binding.team["{team}"]'}
        assert governed == expected, governed
        # Every rule's verdict, of each governed resource with a checklist (the grant has none: ORG-1 is the
        # contract's); none failed.
        judged = {r["address"] for r in contract["rules"]}
        assert judged == expected - {"hyperpod_domain_unit_policy_grant.hyperpod_projects"}, judged
        assert not [r for r in contract["rules"] if r["status"] == "failed"]
        assert all(r["link"].endswith("#" + r["rule"].lower()) for r in contract["rules"] if r["link"])
        # Every object state records for the contract's resources, each located.
        recorded = {(r["address"], key) for r in state_resources(state) if r["address"] in expected
                    for key in (r["values"].get("components") or {})}
        listed = {(c["address"], c["component"]) for c in contract["components"]}
        assert recorded <= listed, recorded - listed
        role = next(c for c in contract["components"] if c["component"] == "iam_role")
        assert role["arn"] == f"arn:aws:iam::{FX.account_id}:role/{role['value']}"
        kubernetes = [c for c in contract["components"] if c["component"].startswith("kubernetes/")]
        assert kubernetes and all(c["api_path"] and c["api_path"].startswith("/api") for c in kubernetes), kubernetes
        assert all(c["arn"] or c["api_path"] or c["on"] or c["note"] for c in contract["components"])


def state_resources(state: dict) -> list[dict]:
    return state["values"]["root_module"].get("resources", [])


@pytest.mark.provider
@pytest.mark.parametrize("form", ["md", "json"])
def test_golden(applied, form):
    """The quickstart's evidence, Markdown and JSON, as auditors and bots read it."""
    path, state = applied
    result = run_evidence(path, "--format", "markdown" if form == "md" else "json")
    assert result.returncode == 0, result.stderr
    actual = normalised(result.stdout, state)
    golden = GOLDEN / f"quickstart.{form}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual)
    assert golden.is_file(), f"no golden file {golden}: run with UPDATE_GOLDEN=1 and review it"
    assert actual == golden.read_text(), \
        f"the quickstart's evidence differs from {golden} (UPDATE_GOLDEN=1 rewrites it)"


@pytest.mark.provider
def test_out_dir_writes_one_document_per_contract(applied, tmp_path):
    path, _ = applied
    whole = json.loads(run_evidence(path, "--format", "json").stdout)
    result = run_evidence(path, "--format", "json", "--out-dir", str(tmp_path / "evidence"))
    assert result.returncode == 0, result.stderr
    names = [c["name"] for c in whole["contracts"]]
    written = [tmp_path / "evidence" / f"{name}.json" for name in names]
    assert result.stdout.splitlines() == [str(p) for p in written]
    for index, file in enumerate(written):
        assert json.loads(file.read_text())["contracts"] == [whole["contracts"][index]]


@pytest.mark.provider
def test_the_evidence_renders_with_its_tables_and_rule_links(applied):
    path, _ = applied
    render.require_tools()
    result = run_evidence(path)
    assert result.returncode == 0, result.stderr
    render.OUT.mkdir(parents=True, exist_ok=True)
    (render.OUT / "evidence-quickstart.md").write_text(result.stdout)
    rendered = render.render_markdown(result.stdout, "evidence-quickstart")
    rendered.assert_ok()
    dom = rendered.dom_path.read_text()
    assert re.search(r"<h1>HyperPod governance evidence: current</h1>", dom), "no `# … evidence: current` heading"
    for section in ("Identity", "Owners and approval", "Approved facts", "Rules", "Composed objects"):
        assert dom.count(f"<h3>{section}</h3>") == len(TEAMS), f"### {section} is not there once per contract"
    # Per contract: identity, owners, rules, and a table of objects per resource that composes any.
    assert rendered.tables >= len(TEAMS) * 5, f"{rendered.tables} tables"
    for rule in ("ORG-1", "CLU-2", "WKL-1"):
        assert re.search(rf'<a href="[^"]*#{rule.lower()}">{rule}</a>', dom), f"{rule} is not linked"
    print(f"screenshot: {rendered.screenshot}")
