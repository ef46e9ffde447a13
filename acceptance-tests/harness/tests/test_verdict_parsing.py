"""Reading Terraform's diagnostics as it emits them (`plan -json` lines, `validate -json`): PlanVerdict, Diagnostic.

Most tests feed canned output (no Terraform, no provider); the ranges in it are computed the way Terraform computes
them for a provider diagnostic with an attribute path: the range of the attribute's value expression (1-based line
and column, 0-based byte offset). The last tests run the real Terraform: with no provider at all, and (where a
filesystem mirror of hashicorp/aws is on this machine) with a real provider's attribute-path diagnostics.
"""
import json
import random
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness import Diagnostic, PlanVerdict, Terraform
from harness.terraform import DEV_OVERRIDES, REFUSED, REFUSED_AT_NEXT_CHANGE, parse_json_lines, parse_validate_json

MAIN_TF = textwrap.dedent("""\
    resource "hyperpod_tenant" "research" {
      contract = hyperpod_connection_contract.research.governance
      team     = "research"

      quota {
        instance_type = "ml.p4de.24xlarge"
        count         = 9
      }

      sharing {
        strategy     = "LendAndBorrow"
        borrow_limit = 50
      }

      viewer_verbs = ["get", "list", "watch", "create"]
      team_name    = "not an attribute, a decoy for prefix matching"
    }

    resource "hyperpod_connection_contract" "team" {
      for_each = toset(["production"])
      name     = "${each.key}-on-gpu-pool"
    }
    """)
MODULE_TF = textwrap.dedent("""\
    resource "hyperpod_tenant" "this" {
      contract = var.contract
      team     = var.team
    }
    """)
VERSION_LINE = {"@level": "info", "@message": "Terraform 1.15.5", "@module": "terraform.ui",
                "@timestamp": "2026-12-01T03:25:18.663496Z", "terraform": "1.15.5", "type": "version", "ui": "1.3"}


def _range(text: str, filename: str, needle: str, occurrence: int = 0) -> dict:
    """The range Terraform reports for `needle` (its `occurrence`-th appearance) in `text`."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    end = start + len(needle)

    def pos(offset):
        before = text[:offset]
        return {"line": before.count("\n") + 1, "column": offset - (before.rfind("\n") + 1) + 1,
                "byte": len(before.encode())}
    return {"filename": filename, "start": pos(start), "end": pos(end)}


def diag(summary: str, severity: str = "error", address: str | None = None, rng: dict | None = None,
         detail: str = "") -> dict:
    body: dict[str, Any] = {"severity": severity, "summary": summary, "detail": detail}
    if address:
        body["address"] = address
    if rng:
        body["range"] = rng
        body["snippet"] = {"context": None, "code": "", "start_line": rng["start"]["line"],
                           "highlight_start_offset": 0, "highlight_end_offset": 0, "values": []}
    return {"@level": severity, "@message": f"{severity.title()}: {summary}", "@module": "terraform.ui",
            "@timestamp": "2026-12-01T03:25:21.612675Z", "diagnostic": body, "type": "diagnostic"}


def main_range(needle: str, occurrence: int = 0) -> dict:
    return _range(MAIN_TF, "main.tf", needle, occurrence)


def module_range(needle: str) -> dict:
    return _range(MODULE_TF, "modules/governed-project/main.tf", needle)


DEV_WARNING = diag(DEV_OVERRIDES, "warning", detail="The following provider development overrides are set ...")
TENANT = "hyperpod_tenant.research"
MODULE_TENANT = "module.research.hyperpod_tenant.this"
CONTRACT = 'hyperpod_connection_contract.team["production"]'
MESSAGES = [
    diag("[WKL-3] Quota within the cluster's capacity", address=TENANT, rng=main_range("9")),
    diag("[WKL-5] Borrowing needs a lender", "warning", address=TENANT, rng=main_range("50")),
    diag("[WKL-7] Viewers only view", address=TENANT, rng=main_range('"create"')),
    diag("[CLU-2] Task views restricted (not checked)", "warning", address=MODULE_TENANT,
         rng=module_range("var.team")),
    diag("[ORG-1] Projects from the approved profile", address=CONTRACT,
         rng=main_range('"${each.key}-on-gpu-pool"')),
    diag("Invalid provider configuration", detail="region is required"),
]


def jsonl(*messages) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


@pytest.fixture
def workdir(tmp_path) -> Path:
    (tmp_path / "main.tf").write_text(MAIN_TF)
    (tmp_path / "modules" / "governed-project").mkdir(parents=True)
    (tmp_path / "modules" / "governed-project" / "main.tf").write_text(MODULE_TF)
    return tmp_path


def verdict(workdir: Path, rc: int = 1, messages=None, stderr: str = "") -> PlanVerdict:
    messages = MESSAGES if messages is None else messages
    return PlanVerdict.from_plan_output(rc, jsonl(VERSION_LINE, DEV_WARNING, *messages), workdir, stderr)


# ---- parsing --------------------------------------------------------------------------------------------------------

def test_parse_json_lines_reads_every_diagnostic_field():
    planned = {"@level": "info", "@message": "hyperpod_tenant.research: Plan to create", "type": "planned_change",
               "change": {"resource": {"addr": TENANT}, "action": "create"}}
    text = jsonl(VERSION_LINE, planned, MESSAGES[0], MESSAGES[-1]) + "panic: not json\n\n"
    diagnostics, unparsed = parse_json_lines(text)
    assert unparsed == ["panic: not json"]
    first, last = diagnostics
    assert first == Diagnostic(severity="error", summary="[WKL-3] Quota within the cluster's capacity", detail="",
                               address=TENANT, rule="WKL-3", filename="main.tf", start_line=7, start_column=21,
                               start_byte=MAIN_TF.index("= 9") + 2, end_line=7, end_column=22,
                               end_byte=MAIN_TF.index("= 9") + 3)
    assert first.snippet["start_line"] == 7 and first.location == "main.tf:7:21"
    assert last.rule is None and last.address is None and last.filename is None and last.start_line is None
    assert last.detail == "region is required" and last.location == "(no range)"


@pytest.mark.parametrize("summary, rule", [
    ("[WKL-3] Quota within the cluster's capacity", "WKL-3"),
    ("[CLU-2] Task views restricted (not checked)", "CLU-2"),
    ("[LIF-12] Review current", "LIF-12"),
    ("[WKL-3] not checked at plan: a value is known only at apply", "WKL-3"),
    ("Resource precondition failed", None),
    ("Quota too large [WKL-3]", None),  # the ID must open the summary
    ("[wkl-3] lower case is not a rule ID", None),
    ("[WKL] no number", None),
])
def test_rule_id_is_parsed_from_the_start_of_the_summary(summary, rule):
    assert Diagnostic.from_json({"severity": "error", "summary": summary}).rule == rule


def test_verdict_drops_the_dev_overrides_warning(workdir):
    result = verdict(workdir)
    assert [d.summary for d in result.ignored] == [DEV_OVERRIDES]
    assert DEV_OVERRIDES not in [d.summary for d in result.diagnostics]
    assert len(result.diagnostics) == len(MESSAGES)
    assert [d.rule for d in result.errors] == ["WKL-3", "WKL-7", "ORG-1", None]
    assert [d.rule for d in result.warnings] == ["WKL-5", "CLU-2"]


def test_rules_by_address_sorted_and_independent_of_order(workdir):
    expected = {
        None: [(None, "error", "Invalid provider configuration")],
        CONTRACT: [("ORG-1", "error")],
        TENANT: [("WKL-3", "error"), ("WKL-5", "warning"), ("WKL-7", "error")],
        MODULE_TENANT: [("CLU-2", "warning")],
    }
    assert verdict(workdir).rules_by_address() == expected
    assert list(verdict(workdir).rules_by_address()) == list(expected)  # None first, then addresses sorted
    rng = random.Random(7)
    for _ in range(5):
        shuffled = MESSAGES[:]
        rng.shuffle(shuffled)
        assert verdict(workdir, messages=shuffled).rules_by_address() == expected


def test_rules_by_address_keeps_duplicates_and_severity(workdir):
    twice = [MESSAGES[0], MESSAGES[0]]
    assert verdict(workdir, messages=twice).rules_by_address() == {TENANT: [("WKL-3", "error"), ("WKL-3", "error")]}
    as_warning = [diag(MESSAGES[0]["diagnostic"]["summary"], "warning", TENANT, main_range("9"))]
    assert verdict(workdir, messages=as_warning).rules_by_address() != verdict(workdir, messages=MESSAGES[:1]) \
        .rules_by_address()


def test_a_clean_plan_has_an_empty_verdict(workdir):
    result = verdict(workdir, rc=2, messages=[])
    assert result.rc == 2 and result.diagnostics == [] and result.rules_by_address() == {}
    assert result.describe() == "rc=2, no diagnostics"


def test_a_failure_without_json_diagnostics_is_not_an_empty_verdict(workdir):
    """rc 1 with no error diagnostic (Terraform could not start: bad flag, not initialized) still shows."""
    result = PlanVerdict.from_plan_output(1, "", workdir, stderr="\x1b[31mError: Inconsistent dependency lock file")
    ((address, entries),) = result.rules_by_address().items()
    assert address is None and entries == [(None, "error", "terraform exited 1 without a JSON error diagnostic")]
    assert result.diagnostics[0].detail == "Error: Inconsistent dependency lock file"
    # a warning alone does not count as the reason for the failure
    result = verdict(workdir, rc=1, messages=[MESSAGES[1]], stderr="boom")
    assert [d.summary for d in result.errors] == ["terraform exited 1 without a JSON error diagnostic"]


# ---- source ranges --------------------------------------------------------------------------------------------------

def test_source_is_the_exact_text_of_the_range(workdir):
    result = verdict(workdir)
    by_rule = {d.rule: d for d in result.diagnostics}
    assert result.source(by_rule["WKL-3"]) == "9"
    assert result.source(by_rule["WKL-5"]) == "50"
    assert result.source(by_rule["WKL-7"]) == '"create"'
    assert result.source(by_rule["ORG-1"]) == '"${each.key}-on-gpu-pool"'
    assert result.source(by_rule["CLU-2"]) == "var.team"  # relative to the work dir: modules/governed-project/main.tf
    assert result.line(by_rule["CLU-2"]) == "  team     = var.team"
    assert result.source(by_rule[None]) is None and result.line(by_rule[None]) is None


def test_source_counts_bytes_not_characters(tmp_path):
    text = 'resource "hyperpod_tenant" "t" {\n  description = "équipe — recherche"\n  team = "r"\n}\n'
    (tmp_path / "main.tf").write_text(text, encoding="utf-8")
    rng = _range(text, "main.tf", '"r"')
    assert rng["start"]["byte"] > text.index('"r"')  # the multi-byte characters before it
    result = PlanVerdict.from_plan_output(1, jsonl(diag("[WKL-1] x", address="hyperpod_tenant.t", rng=rng)), tmp_path)
    assert result.source(result.diagnostics[0]) == '"r"'
    result.assert_rule("WKL-1", "hyperpod_tenant.t", "team", severity="error")


def test_a_missing_attribute_points_at_the_block(workdir):
    """Terraform's "missing item range" of a body: zero length, at the opening brace of the block."""
    block = main_range("sharing {")["start"]
    at_brace = {"line": block["line"], "column": block["column"] + 8, "byte": block["byte"] + 8}
    brace = {"filename": "main.tf", "start": at_brace, "end": dict(at_brace)}
    result = verdict(workdir, messages=[diag("[WKL-2] Lend/borrow needs a limit", address=TENANT, rng=brace)])
    (d,) = result.diagnostics
    assert result.source(d) == ""
    result.assert_rule("WKL-2", TENANT, "sharing", severity="error")


# ---- assert_rule ----------------------------------------------------------------------------------------------------

def test_assert_rule_passes_on_the_right_rule_address_attribute_and_severity(workdir):
    result = verdict(workdir)
    assert result.assert_rule("WKL-3", TENANT, "count", severity="error").summary.startswith("[WKL-3]")
    result.assert_rule("WKL-5", TENANT, "borrow_limit", severity="warning")
    # an index step: the element, on the attribute's line
    result.assert_rule("WKL-7", TENANT, "viewer_verbs", severity="error")
    result.assert_rule("CLU-2", MODULE_TENANT, "team", severity="warning")
    result.assert_rule("ORG-1", CONTRACT, "name", severity="error")


def test_assert_rule_fails_on_a_wrong_attribute(workdir):
    result = verdict(workdir)
    with pytest.raises(AssertionError, match=r"not at attribute 'instance_type'") as info:
        result.assert_rule("WKL-3", TENANT, "instance_type", severity="error")
    message = str(info.value)
    # the message lists every diagnostic, with where it points
    assert "main.tf:7:21 'count         = 9'" in message and "[ORG-1]" in message and "Invalid provider" in message
    with pytest.raises(AssertionError, match="not at attribute 'strategy'"):
        result.assert_rule("WKL-5", TENANT, "strategy", severity="warning")


def test_assert_rule_fails_on_a_name_that_only_prefixes_the_attribute(workdir):
    line = main_range('"not an attribute')
    result = verdict(workdir, messages=[diag("[WKL-9] x", address=TENANT, rng=line)])
    result.assert_rule("WKL-9", TENANT, "team_name", severity="error")
    with pytest.raises(AssertionError, match="not at attribute 'team'"):
        result.assert_rule("WKL-9", TENANT, "team", severity="error")


def test_assert_rule_fails_on_a_wrong_address(workdir):
    result = verdict(workdir)
    with pytest.raises(AssertionError, match=r"exactly one \[WKL-3\] on hyperpod_tenant.production, found 0"):
        result.assert_rule("WKL-3", "hyperpod_tenant.production", "count")
    with pytest.raises(AssertionError, match="found 0"):  # the module's instance is not the root's resource
        result.assert_rule("CLU-2", "hyperpod_tenant.this", "team", severity="warning")
    with pytest.raises(AssertionError, match="found 0"):  # nor is the for_each resource without its key
        result.assert_rule("ORG-1", "hyperpod_connection_contract.team", "name")


def test_assert_rule_fails_on_a_wrong_rule_severity_or_a_duplicate(workdir):
    result = verdict(workdir)
    with pytest.raises(AssertionError, match="found 0"):
        result.assert_rule("WKL-4", TENANT, "count")
    with pytest.raises(AssertionError, match=r"\[WKL-5\] on hyperpod_tenant.research is a warning, expected a refused"):
        result.assert_rule("WKL-5", TENANT, "borrow_limit")
    twice = verdict(workdir, messages=[MESSAGES[0], MESSAGES[0]])
    with pytest.raises(AssertionError, match="found 2"):
        twice.assert_rule("WKL-3", TENANT, "count")
    no_range = verdict(workdir, messages=[diag("[WKL-3] x", address=TENANT)])
    with pytest.raises(AssertionError, match="has no source range"):
        no_range.assert_rule("WKL-3", TENANT, "count", severity="error")


def test_a_refusal_is_its_own_kind_and_what_assert_rule_expects_by_default(workdir):
    """A plan's rule finding is a warning whose summary says that apply refuses the change (crates/hyperpod-protocol
    /src/refusal.rs): kind "refused" ("refused-later" on an unchanged object), in `refusals`, not in `errors`."""
    refused = diag(f"[WKL-3] Quota within the cluster's capacity{REFUSED}", "warning", TENANT, main_range("9"))
    later = diag(f"[WKL-7] Viewers only view{REFUSED_AT_NEXT_CHANGE}", "warning", TENANT, main_range('"create"'))
    result = verdict(workdir, rc=2, messages=[refused, later, MESSAGES[1]])
    assert [d.kind for d in result.diagnostics] == ["refused", "refused-later", "warning"]
    assert [d.rule for d in result.refusals] == ["WKL-3"] and not result.errors
    result.assert_rule("WKL-3", TENANT, "count")
    result.assert_rule("WKL-7", TENANT, "viewer_verbs", severity="refused-later")
    with pytest.raises(AssertionError, match=r"is a refused, expected a error"):
        result.assert_rule("WKL-3", TENANT, "count", severity="error")


# ---- validate -json -------------------------------------------------------------------------------------------------

def test_validate_json_document(workdir):
    document = {"format_version": "1.0", "valid": False, "error_count": 1, "warning_count": 1,
                "diagnostics": [DEV_WARNING["diagnostic"], MESSAGES[0]["diagnostic"]]}
    diagnostics, valid = parse_validate_json(json.dumps(document))
    assert valid is False and [d.summary for d in diagnostics] == [DEV_OVERRIDES, MESSAGES[0]["diagnostic"]["summary"]]
    result = PlanVerdict.from_validate_output(1, json.dumps(document, indent=2), workdir)
    assert result.valid is False and result.ignored[0].summary == DEV_OVERRIDES
    assert result.rules_by_address() == {TENANT: [("WKL-3", "error")]}
    result.assert_rule("WKL-3", TENANT, "count", severity="error")
    with pytest.raises(ValueError):
        parse_validate_json(jsonl(VERSION_LINE))  # plan's lines are not validate's document
    broken = PlanVerdict.from_validate_output(1, "Error: not initialized\n", workdir, stderr="")
    assert broken.valid is None and broken.unparsed == ["Error: not initialized"]
    assert broken.errors[0].detail == "Error: not initialized"


# ---- the real Terraform ---------------------------------------------------------------------------------------------

PRECONDITION = """\
    variable "weight" {
      type    = number
      default = 3
    }

    resource "terraform_data" "policy" {
      input = { weight = var.weight }

      lifecycle {
        precondition {
          condition     = var.weight > 5
          error_message = "weight must exceed 5"
        }
      }
    }
    """


def test_plan_json_and_validate_json_with_terraform(tmp_path):
    """No provider: a clean plan (rc 2, empty verdict; the dev_overrides warning ignored), then a failing
    precondition (rc 1, an error without rule or address, its range in main.tf)."""
    tf = Terraform(tmp_path, {})
    tf.write(PRECONDITION.replace("default = 3", "default = 9"))
    tf.init()
    clean = tf.plan_json(extra=["-parallelism=2"])
    assert (clean.rc, clean.rules_by_address()) == (2, {}), clean.describe()
    assert clean.result.args[:4] == ("plan", "-json", "-input=false", "-detailed-exitcode")
    validated = tf.validate_json()
    assert (validated.rc, validated.valid, validated.diagnostics) == (0, True, [])

    tf.write(PRECONDITION)
    failed = tf.plan_json()
    assert failed.rc == 1
    assert failed.rules_by_address() == {None: [(None, "error", "Resource precondition failed")]}
    (d,) = failed.diagnostics
    assert (d.filename, d.start_line, d.detail) == ("main.tf", 11, "weight must exceed 5")
    assert failed.source(d) == "var.weight > 5" and failed.line(d).strip().startswith("condition")


AWS_MIRROR = Path("/opt/tf-plugins")
AWS_TF = """\
    terraform {
      required_providers {
        aws = { source = "hashicorp/aws" }
      }
    }

    provider "aws" {
      region                      = "eu-central-1"
      access_key                  = "testing"
      secret_key                  = "testing"
      skip_credentials_validation = true
      skip_requesting_account_id  = true
      skip_metadata_api_check     = true
    }

    resource "aws_lb_target_group" "tg" {
      name = "tg"
      health_check {
        interval = 1
      }
    }

    module "m" {
      source = "./modules/m"
    }
    """
AWS_MODULE_TF = """\
    terraform {
      required_providers {
        aws = { source = "hashicorp/aws" }
      }
    }

    resource "aws_iam_role" "this" {
      name = "r"
      assume_role_policy = jsonencode({
        Version = "2012-10-17"
      })
      max_session_duration = 5
    }
    """


@pytest.mark.skipif(not (AWS_MIRROR / "registry.terraform.io" / "hashicorp" / "aws").is_dir(),
                    reason=f"no filesystem mirror of hashicorp/aws at {AWS_MIRROR}")
def test_attribute_path_ranges_from_a_real_provider(tmp_path):
    """What assert_rule relies on, shown with a real provider's attribute-path diagnostics (validation errors, no
    AWS call): the range is the value's (`1` in `interval = 1`, inside the nested block), the address the resource
    instance's, and a module's file name relative to the working dir."""
    mirror = f'provider_installation {{\n  filesystem_mirror {{\n    path = "{AWS_MIRROR}"\n  }}\n}}\n'
    tf = Terraform(tmp_path, {}, cli_config=mirror)
    tf.write(AWS_TF)
    (tf.dir / "modules" / "m").mkdir(parents=True)
    tf.write_file("modules/m/main.tf", AWS_MODULE_TF)
    tf.init()
    for result in (tf.plan_json(), tf.validate_json()):
        assert result.rc == 1
        by_address = {d.address: d for d in result.diagnostics}
        assert set(by_address) == {"aws_lb_target_group.tg", "module.m.aws_iam_role.this"}, result.describe()
        interval, duration = by_address["aws_lb_target_group.tg"], by_address["module.m.aws_iam_role.this"]
        assert (interval.filename, interval.start_line, interval.start_column) == ("main.tf", 19, 16)
        assert result.source(interval) == "1" and result.line(interval) == "    interval = 1"
        assert (duration.filename, duration.start_line) == ("modules/m/main.tf", 12)
        assert result.source(duration) == "5" and result.line(duration).strip() == "max_session_duration = 5"
