"""The seed's fixture and seeding under another fixture (sandbox/seed.py, `python -m sandbox --fixture/--write-fixture`,
GET /_sandbox/fixture).

fixtures/local.json is what the sandbox writes from its seed, so it cannot go stale; fixtures/renamed.json seeds a
sandbox in which no name or id of the local seed is left.

Run: $VENV/bin/python -m pytest sandbox/tests/test_seed_fixture.py   (from acceptance-tests/)
"""
import copy
import json
import re
import subprocess
import sys

import pytest

from harness import Sandbox
from harness.fixture import FIXTURES_DIR, LOCAL, current
from harness.sandbox import ACCEPTANCE_DIR
from sandbox import seed

RENAMED = FIXTURES_DIR / "renamed.json"


def load(path):
    return json.loads(path.read_text())


def leaves(value, path="fixture"):
    """(path, value) of every string in a fixture."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, f"{path}[{i}]")
    elif isinstance(value, str):
        yield path, value


def test_local_fixture_is_what_the_sandbox_writes_from_its_seed(tmp_path):
    written = tmp_path / "local.json"
    subprocess.run([sys.executable, "-m", "sandbox", "--write-fixture", str(written)], cwd=ACCEPTANCE_DIR,
                   check=True, timeout=60)
    assert load(written) == load(LOCAL), "fixtures/local.json is stale: regenerate it with " \
                                         "`python -m sandbox --write-fixture fixtures/local.json`"


def test_the_sandbox_serves_the_fixture_it_was_seeded_for(sandbox):
    assert sandbox.admin("GET", "fixture") == current().raw()


def test_the_renamed_seed_keeps_no_local_name_or_id(tmp_path):
    local, renamed = load(LOCAL), load(RENAMED)
    out = seed.rename(renamed, out=tmp_path / "seed")
    assert seed.derive_fixture(out) == renamed
    renamed_values = {value for _, value in leaves(renamed)}
    text = "\n".join(f.read_text() for f in sorted(out.glob("*.json")) if f.name != seed.FIXTURE_HINTS)
    kept = {path: value for path, value in leaves({k: v for k, v in local.items() if k not in seed.NOT_IN_SEED})
            if value not in renamed_values and re.search(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text)}
    assert kept == {}
    # the renamed fixture really renames: every name and id of the local seed (but instance types and MIG layouts,
    # which are no names) is another one
    same = {path for path, value in leaves(local) if value in renamed_values
            and not path.endswith((".instance_type", ".partition_config"))}
    assert same == set()


def test_a_sandbox_seeded_from_the_renamed_fixture(monkeypatch):
    renamed = load(RENAMED)
    monkeypatch.setenv("HYPERPOD_FIXTURE", str(RENAMED))
    sb = Sandbox.start()
    try:
        assert sb.admin("GET", "fixture") == renamed
        eks = renamed["clusters"]["eks"]
        account, region = renamed["account_id"], renamed["region"]
        assert sb.client("sts").get_caller_identity()["Account"] == account
        cluster = sb.client("sagemaker").describe_cluster(ClusterName=eks["name"])
        assert cluster["ClusterArn"] == f"arn:aws:sagemaker:{region}:{account}:cluster/{eks['id']}"
        assert cluster["Orchestrator"]["Eks"]["ClusterArn"] == \
            f"arn:aws:eks:{region}:{account}:cluster/{eks['eks_cluster_name']}"
        assert {g["InstanceGroupName"] for g in cluster["InstanceGroups"]} == \
            {g["name"] for g in eks["instance_groups"].values()}
        dz = renamed["datazone"]
        research = dz["projects"]["research"]
        project = sb.client("datazone").get_project(domainIdentifier=dz["domain_id"], identifier=research["id"])
        assert (project["name"], project["domainUnitId"], project["projectProfileId"]) == \
            (research["name"], dz["domain_unit_id"], dz["project_profile_id"])
        role = sb.client("iam").get_role(RoleName=research["role_name"])["Role"]
        assert {"Key": "AmazonDataZoneProject", "Value": research["id"]} in role["Tags"]
        key = sb.client("kms").describe_key(KeyId=renamed["kms_key_id"])["KeyMetadata"]
        assert key["Arn"] == f"arn:aws:kms:{region}:{account}:key/{renamed['kms_key_id']}"
        # the bench's teams copy the renamed research team onto the renamed cluster
        added = sb.add_teams(2, prefix="bt")
        assert added["instance_group"]["InstanceGroupName"] == "bt-capacity"
        assert sb.client("iam").get_role(RoleName="bt001-viewers")["Role"]["Arn"] == \
            added["teams"]["bt001"]["viewer_role_arn"]
        # what a reset restores is the renamed seed too
        sb.reset()
        assert sb.client("sagemaker").describe_cluster(ClusterName=eks["name"])["ClusterName"] == eks["name"]
    finally:
        sb.stop()


def test_a_sandbox_url_seeded_for_another_fixture_is_refused(monkeypatch):
    """HYPERPOD_SANDBOX_URL names a sandbox seeded from the renamed fixture while the run's fixture is the local one:
    the harness stops at once, naming both."""
    monkeypatch.setenv("HYPERPOD_FIXTURE", str(RENAMED))
    sb = Sandbox.start()
    try:
        monkeypatch.delenv("HYPERPOD_FIXTURE")
        monkeypatch.setenv("HYPERPOD_SANDBOX_URL", sb.url)
        with pytest.raises(RuntimeError, match=r"seeded for fixture 'renamed', but this run's fixture is "
                                               r".*local\.json \('local'\); they differ in account_id, .*"
                                               r"--fixture .*local\.json"):
            Sandbox.from_env_or_start()
        monkeypatch.setenv("HYPERPOD_FIXTURE", "fixtures/renamed.json")
        assert Sandbox.from_env_or_start().url == sb.url
    finally:
        sb.stop()


@pytest.mark.parametrize("change, message", [
    (lambda f: f["clusters"]["eks"]["instance_groups"]["training"].update(count=9),
     r"fixture\.clusters\.eks\.instance_groups\.training\.count is 8 in the seed and 9 .*only names and ids"),
    (lambda f: f["roles"].update(research_viewers=f["roles"]["research_operators"]),
     r"would rename both"),
    (lambda f: f["datazone"]["projects"].pop("research"),
     r"fixture\.datazone\.projects\.research is not in the renamed fixture"),
    (lambda f: f.update(surprise="x"),
     r"fixture\.surprise: in the fixture \('x'\), not derivable from the seed"),
])
def test_a_fixture_the_seed_cannot_be_renamed_to_is_refused(tmp_path, change, message):
    target = copy.deepcopy(load(RENAMED))
    change(target)
    with pytest.raises(seed.SeedError, match=message):
        seed.rename(target, out=tmp_path / "seed")


def test_the_launcher_says_why_it_cannot_seed(tmp_path):
    bad = load(RENAMED)
    bad["clusters"]["eks"]["instance_groups"]["training"]["count"] = 9
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    run = subprocess.run([sys.executable, "-m", "sandbox", "--port", "0", "--fixture", str(tmp_path / "bad.json")],
                         cwd=ACCEPTANCE_DIR, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "cannot seed from" in run.stderr and "training.count is 8 in the seed and 9" in run.stderr
