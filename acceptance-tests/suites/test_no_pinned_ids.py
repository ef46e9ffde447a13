"""No suite pins a seeded name or id: every value of `fixtures/local.json` that names something in the account (an
account, region, cluster, domain, unit, profile, project, role, group, bucket, key) reaches a test through the
fixture (`fx` / `harness.current_fixture()`), never as a literal, so the same suites run against the renamed seed
and a real sandbox account.

The scan is textual on purpose (a grep with word boundaries): it also sees values inside HCL templates, JSON
snippets and f-strings, and names derived from a value (`hyperpod-<cluster>-<team>`) as well as the value itself.
What is not scanned, and why, is in `NOT_NAMES` and `ALLOWED` below; both say why for each entry."""
import json
import re
from pathlib import Path

import pytest

from harness.fixture import LOCAL

ACCEPTANCE_DIR = Path(__file__).resolve().parent.parent
SCANNED = [ACCEPTANCE_DIR / "suites", ACCEPTANCE_DIR / "harness" / "tests"]

# Fixture paths whose values are not names of anything in the account.
NOT_NAMES = {
    "name": "the fixture's own label (local / renamed), not an object in the account",
}

# (file name, value): a literal that may stay, with the reason.  Keep it empty or justified.
# Values AWS's published requests name, which suites/test_aws_published.py transcribes (and asserts of the fixture).
_AWS_PUBLISHED = {
    "ml.g5.8xlarge": "AWS's two-team requests name it; the suite asserts the fixture's inference group is of it",
    "ml.p4d.24xlarge": "AWS's GPU-partition request names it; asserted of the fixture",
    "all-1g.5gb": "the MIG layout AWS's mig-1g.5gb request needs; asserted of the fixture",
}
ALLOWED: dict[tuple[str, str], str] = {
    (file, value): why for value, why in _AWS_PUBLISHED.items()
    for file in ("test_aws_published.py", "test_no_pinned_ids.py")  # and here, where they are listed
}

# A value matches where it is not part of a longer word: a hyphen is a boundary, so a name derived from a fixture
# value (`hyperpod-<cluster>-<team>`, `<cluster>-policy`) counts as spelling it out; an underscore or a letter is not
# (a project's name inside its role's name, `datazone_usr_role_<team>`, is part of another token).
_NAME_CHARS = r"A-Za-z0-9_"


def leaves(node, path=""):
    """(path, value) for every string leaf of the fixture; numbers and booleans are sizes and switches, not names."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, f"{path}[{index}]")
    elif isinstance(node, str):
        yield path, node


def keys(node) -> set:
    """Every key of the fixture: suites address the fixture by them (`fx.project("research")`)."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            found |= keys(value)
    return found


def pinned_values() -> dict[str, str]:
    """value -> the fixture path that holds it, for every value a suite must not spell out."""
    fixture = json.loads(LOCAL.read_text())
    fixture_keys = keys(fixture)
    values: dict[str, str] = {}
    for path, value in leaves(fixture):
        if path in NOT_NAMES:
            continue
        if value in fixture_keys:
            # A team's project is named like its fixture key in the local seed (projects.research.name =
            # "research"); the key is how suites address the fixture, so the word stays legal.  A pinned project
            # *name* still fails: the renamed fixture names the projects differently and the suites run against it.
            continue
        values.setdefault(value, path)
    return values


def occurrences(text: str, value: str):
    # Followed by "@" it is an e-mail address's local part (research-leads@example.com): free text, not a name.
    pattern = re.compile(rf"(?<![{_NAME_CHARS}]){re.escape(value)}(?![{_NAME_CHARS}@])")
    for match in pattern.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        yield line


def scan(roots=SCANNED, base=ACCEPTANCE_DIR) -> list[str]:
    values = pinned_values()
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            text = path.read_text()
            for value, fixture_path in values.items():
                if (path.name, value) in ALLOWED:
                    continue
                for line in occurrences(text, value):
                    found.append(f"{path.relative_to(base)}:{line}: {value!r} is fixture.{fixture_path}")
    return sorted(found, key=lambda f: (f.split(":")[0], int(f.split(":")[1])))


def test_no_suite_spells_out_a_fixture_value():
    found = scan()
    assert not found, ("literal fixture values in the suites; read them from `fx` / current_fixture():\n"
                       + "\n".join(found))


def test_the_scan_sees_a_pinned_value(tmp_path):
    """The scanner itself: a literal cluster name, an account id in an ARN and a name derived from the cluster's are
    found; an e-mail address whose local part is a group's name is not."""
    fixture = json.loads(LOCAL.read_text())
    suite = tmp_path / "suites"
    suite.mkdir()
    (suite / "test_pinned.py").write_text(
        f'CLUSTER = "{fixture["clusters"]["eks"]["name"]}"\n'
        f'ROLE = "arn:aws:iam::{fixture["account_id"]}:role/x"\n'
        f'DERIVED = "hyperpod-{fixture["clusters"]["eks"]["name"]}-research"\n'
        f'OK = "{fixture["datazone"]["groups"][0]}@example.com"\n')
    found = scan([suite], tmp_path)
    assert [f.split(":")[1] for f in found] == ["1", "2", "3"], found


@pytest.mark.parametrize("path", sorted(NOT_NAMES))
def test_every_exemption_is_a_fixture_path(path):
    fixture = json.loads(LOCAL.read_text())
    assert path in dict(leaves(fixture)), f"NOT_NAMES names {path}, which the fixture does not have"
