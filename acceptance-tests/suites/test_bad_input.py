"""The bad-input suite: every case bad_input.py generates (each resource's attributes, nested block attributes, the
data source and the functions) goes through `validate`, `plan` and, where the plan accepts it, `apply` against the
sandbox. Each case must end in one of two ways:

* diagnosed: an error diagnostic whose range starts on the mutated attribute's line(s) in the generated file (for
  the plan: on the case's resource address), at validate or plan; or, for what the provider judges against the
  account and its rules, a refusal there: the plan succeeds with a warning that apply refuses the change (no such
  finding may fail a plan, since `terraform destroy` refreshes with one), and apply then fails for that case only
  with errors saying nothing of the change was written, one at the attribute, and the case's address is not in state.
  A case that leaves a handoff object unreadable (bad_input.py's `Case.must_be_invalid`) must be an error, never a
  refusal; or
* converged: plan and apply succeed and the next plan has no change for the case's address.

Never acceptable, whatever else happened: Terraform's "Provider produced inconsistent ..." errors, a panic, the
plugin exiting ("plugin exited", "unexpected EOF", "rpc error"). Cases of one resource type are instances of one
configuration (one validate, one plan, one apply, one re-plan); cases that cannot coexist in AWS (one scheduler
configuration per cluster, one task view restriction per project role) are applied one at a time.

The counts go to acceptance-tests/out/bad_input.json (cases, diagnosed at the right path, of those refused at apply,
converged applies, inconsistent-result errors, crashes) and the failures to out/bad_input_failures.json.
"""
from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

import bad_input
from bad_input import Case
from harness import Terraform, flat
from harness.terraform import REFUSED_AT_APPLY, Diagnostic, parse_validate_json

pytestmark = [pytest.mark.provider, pytest.mark.sandbox_only(reason="resets the sandbox between resource batches")]

OUT = Path(__file__).resolve().parent.parent / "out"
# The groups bad_input.py's binding members and grant principals name (binding_base, grant_base, GRANT_SHARED).
GROUP_NAMES = re.compile(r'"(bi\d+-leads|bad-input-(?:\d+|org))"')
CRASH = re.compile(r"panic|plugin exited|plugin crashed|unexpected EOF|rpc error|connection refused|"
                   r"The plugin encountered an error|plugin did not respond", re.I)
INCONSISTENT = re.compile(r"Provider produced inconsistent|Provider produced invalid|produced an invalid new value|"
                          r"produced an unexpected new value|invalid plan for", re.I)
RESOURCES = list(bad_input.specs())
TIMINGS: dict[str, float] = {}  # seconds per terraform command, for the summary
NAMED_ADDRESS = re.compile(r"(?:for|planned for|applying changes to) ((?:data\.)?hyperpod_[a-z_]+\.[a-z0-9_]+)")


@dataclass
class Outcome:
    case: Case
    # diagnosed | converged | wrong-path | refused-not-invalid | not-refused | apply-error | not-converged |
    # inconsistent | crash
    result: str = "pending"
    stage: str = ""
    detail: str = ""
    warnings_at_path: int = 0
    refused: bool = False  # the plan warned at the path that apply refuses the case: its apply must refuse it

    @property
    def ok(self) -> bool:
        return self.result in ("diagnosed", "converged")

    def report(self) -> dict:
        return {"address": self.case.address, "path": self.case.path_text, "kind": self.case.kind,
                "value": self.case.value if len(self.case.value) <= 120 else self.case.value[:100] + "...",
                "result": self.result, "stage": self.stage, "detail": self.detail[:1500]}


def diag_text(d: Diagnostic) -> str:
    where = f"{d.filename}:{d.start_line}" if d.filename else "(no range)"
    return f"{d.kind} at {where} [{d.address or '-'}]: {d.summary} -- {d.detail}"


def classify_crash(diags: list[Diagnostic], stderr: str = "") -> str | None:
    for d in diags:
        text = f"{d.summary}\n{d.detail}"
        if INCONSISTENT.search(text):
            return "inconsistent"
        if CRASH.search(text):
            return "crash"
    if CRASH.search(stderr or ""):
        return "crash"
    return None


class Batch:
    """One working dir holding some cases of one resource type and the configuration they share."""

    def __init__(self, sandbox, root: Path, shared: str):
        self.tf = Terraform(root, sandbox.env(), timeout=900)
        self.shared = shared
        self.sandbox = sandbox

    def write(self, cases: list[Case]) -> None:
        for stale in self.tf.dir.glob("*.tf"):
            stale.unlink()
        names = set()
        for name, text in bad_input.render_batch(cases, self.shared).items():
            (self.tf.dir / name).write_text(text)
            names |= set(GROUP_NAMES.findall(text))
        # DataZone keeps binding members and grant principals by group profile: the groups the cases name exist, as
        # Identity Center groups given a profile would; a mutated name that is no group's is diagnosed at its path.
        dz = self.sandbox.client("datazone")
        for name in sorted(names):
            try:
                dz.create_group_profile(domainIdentifier=self.sandbox.fixture().datazone.domain_id,
                                        groupIdentifier=name)
            except dz.exceptions.ConflictException:
                pass

    def run_json(self, *args) -> tuple[int, list[dict], str]:
        started = time.monotonic()
        result = self.tf.run(*args, check=False)
        TIMINGS[args[0]] = TIMINGS.get(args[0], 0.0) + time.monotonic() - started
        messages = []
        for line in result.stdout.splitlines():
            try:
                messages.append(json.loads(line))
            except ValueError:
                pass
        return result.rc, messages, result.stderr + ("\n" + result.stdout if result.rc and not messages else "")


def owner(cases: list[Case], d: Diagnostic) -> Case | None:
    """The case a diagnostic belongs to: by address, else by the line its range starts on."""
    if d.address:
        for case in cases:
            if d.address == case.address or d.address.startswith(case.address + "["):
                return case
    if d.filename:
        for case in cases:
            if d.filename == case.filename:
                return case
    # Terraform's inconsistent-plan/result errors carry neither: the address is in their text.
    named = NAMED_ADDRESS.search(f"{d.summary}\n{d.detail}")
    if named:
        for case in cases:
            if named.group(1) in (case.address, f"{case.address}[0]"):
                return case
    return None


def at_path(case: Case, d: Diagnostic) -> bool:
    if d.filename != case.filename or d.start_line is None:
        return False
    # For a nulled attribute, an enclosing block's first line (parent_line, or the resource's) counts as well.
    return case.lines[0] <= d.start_line <= case.lines[1] or (
        case.parent_line > 0 and d.start_line in (case.parent_line, case.block_lines[0])) or (
        case.verdict_lines[0] > 0 and case.verdict_lines[0] <= d.start_line <= case.verdict_lines[1])


def judge_diagnostics(stage: str, cases: list[Case], outcomes: dict, diags: list[Diagnostic], stray: list) -> set:
    """Record diagnostics against their cases; returns the labels of cases that got an error at this stage, or a
    refusal where none may be (`Case.must_be_invalid`) or away from the case's path. A case refused at its path is
    marked `refused` and goes on to apply, which must refuse it."""
    failed = set()
    by_case: dict[str, list[Diagnostic]] = {}
    for d in diags:
        case = owner(cases, d)
        if case is None:
            if d.severity == "error" or classify_crash([d]):
                stray.append(f"{stage}: {diag_text(d)}")
            continue
        by_case.setdefault(case.label, []).append(d)
    for case in cases:
        mine = by_case.get(case.label, [])
        outcome = outcomes[case.label]
        crash = classify_crash(mine)
        errors = [d for d in mine if d.severity == "error"]
        refusals = [d for d in mine if d.kind == "refused"]
        outcome.warnings_at_path += sum(1 for d in mine if d.severity == "warning" and at_path(case, d))
        if crash:
            outcome.result, outcome.stage = crash, stage
            outcome.detail = "\n".join(diag_text(d) for d in mine)
            failed.add(case.label)
        elif errors or refusals:
            # A refusal stands where an error used to: it must be at the case's path as well.
            found = errors or refusals
            if not any(at_path(case, d) for d in found):
                failed.add(case.label)
                outcome.result, outcome.stage = "wrong-path", stage
                outcome.detail = (f"expected a diagnostic on {case.filename} lines {case.lines[0]}-{case.lines[1]}; "
                                  "got\n" + "\n".join(diag_text(d) for d in found))
            elif errors:
                failed.add(case.label)
                outcome.result, outcome.stage = "diagnosed", stage
                outcome.detail = "\n".join(diag_text(d) for d in errors)[:600]
            elif case.must_be_invalid:
                failed.add(case.label)
                outcome.result, outcome.stage = "refused-not-invalid", stage
                outcome.detail = ("an unreadable handoff object must fail the plan with an error; the plan warned that "
                                  "apply refuses it:\n" + "\n".join(diag_text(d) for d in refusals))
            else:
                outcome.refused, outcome.stage = True, stage
                outcome.detail = "\n".join(diag_text(d) for d in refusals)[:600]
    return failed


def changed_addresses(messages: list[dict]) -> dict[str, str]:
    changed = {}
    for m in messages:
        if m.get("type") in ("planned_change", "resource_drift"):
            change = m.get("change", {})
            action = change.get("action")
            if action and action != "noop":
                changed[change.get("resource", {}).get("addr", "?")] = f"{m['type']}:{action}"
    return changed


def diagnostics_of(messages: list[dict]) -> list[Diagnostic]:
    return [Diagnostic.from_json(m["diagnostic"]) for m in messages
            if m.get("type") == "diagnostic" and isinstance(m.get("diagnostic"), dict)
            and m["diagnostic"].get("summary") != "Provider development overrides are in effect"]


def apply_round(batch: Batch, cases: list[Case], outcomes: dict, stray: list, destroy: bool) -> None:
    """Apply these cases together, then re-plan; each case converges or records why not. A case the plan refused
    must be refused by apply (errors saying nothing was written, one at its path) and be absent from state, unless
    its refusal rests on a live object this apply made first (`Case.judged_again_at_apply`): then it converges."""
    batch.write(cases)
    rc, messages, stderr = batch.run_json("apply", "-json", "-auto-approve", "-input=false")
    diags = diagnostics_of(messages)
    if rc and not diags:
        stray.append(f"apply rc={rc} without diagnostics: {stderr[-2000:]}")
    for m in messages:  # errors Terraform attributes to a resource without a diagnostic address
        if m.get("type") == "apply_errored":
            addr = m.get("hook", {}).get("resource", {}).get("addr")
            for case in cases:
                if case.address == addr and outcomes[case.label].result == "pending":
                    outcomes[case.label].result, outcomes[case.label].stage = "apply-error", "apply"
    failed = set()
    by_case: dict[str, list[Diagnostic]] = {}
    for d in diags:
        case = owner(cases, d)
        if case is None:
            if d.severity == "error":
                stray.append(f"apply: {diag_text(d)}")
            continue
        by_case.setdefault(case.label, []).append(d)
    in_state = set(batch.tf.run("state", "list", check=False).stdout.split())
    for case in cases:
        mine = [d for d in by_case.get(case.label, []) if d.severity == "error"]
        outcome = outcomes[case.label]
        written = case.address in in_state or any(a.startswith(case.address + "[") for a in in_state)
        if outcome.refused and case.judged_again_at_apply and written and not mine:
            continue  # the live object came first at apply: judged again, it passed; it must converge (below)
        if outcome.refused:
            failed.add(case.label)
            crash = classify_crash(mine)
            if crash:
                outcome.result, outcome.detail = crash, "\n".join(diag_text(d) for d in mine)
            elif not mine or written:
                outcome.result = "not-refused"
                outcome.detail = (f"the plan warned that apply refuses it:\n{outcome.detail}\nbut apply "
                                  + ("wrote it (in state)" if written else "raised no error for it"))
            elif all(REFUSED_AT_APPLY in flat(d.detail) for d in mine) and any(at_path(case, d) for d in mine):
                outcome.result = "diagnosed"
                outcome.detail = "\n".join(diag_text(d) for d in mine)[:600]
            else:
                outcome.result = "apply-error"
                outcome.detail = ("apply's errors are not the refusal the plan warned of, at the case's path:\n"
                                  + "\n".join(diag_text(d) for d in mine))
            outcome.stage = "plan+apply"
            continue
        if not mine and outcome.result != "apply-error":
            continue
        outcome.result = classify_crash(mine) or "apply-error"
        outcome.stage = "apply"
        outcome.detail = "\n".join(diag_text(d) for d in mine) or "apply_errored without a diagnostic"
        failed.add(case.label)
    rc, messages, stderr = batch.run_json("plan", "-json", "-input=false", "-detailed-exitcode")
    diags = diagnostics_of(messages)
    changed = changed_addresses(messages)
    crash_everything = classify_crash(diags, stderr)
    for case in cases:
        if case.label in failed:
            continue
        outcome = outcomes[case.label]
        mine = [d for d in diags if owner(cases, d) is case and d.severity == "error"]
        if mine:
            outcome.result = classify_crash(mine) or "not-converged"
            outcome.stage, outcome.detail = "re-plan", "\n".join(diag_text(d) for d in mine)
        elif case.address in changed:
            outcome.result, outcome.stage = "not-converged", "re-plan"
            outcome.detail = f"second plan: {changed[case.address]}"
        elif crash_everything:
            outcome.result, outcome.stage, outcome.detail = crash_everything, "re-plan", stderr[-1500:]
        else:
            outcome.result, outcome.stage = "converged", "apply"
    if destroy:
        rc, messages, stderr = batch.run_json("destroy", "-json", "-auto-approve", "-input=false")
        if rc:
            stray.append(f"destroy after {[c.address for c in cases]}: "
                         + "\n".join(diag_text(d) for d in diagnostics_of(messages) if d.severity == "error"))


def run_cases(sandbox, root: Path, cases: list[Case], shared: str, exclusive: bool) -> tuple[dict, list]:
    outcomes = {case.label: Outcome(case) for case in cases}
    stray: list[str] = []
    batch = Batch(sandbox, root, shared)
    batch.write(cases)
    batch.tf.init()
    # 1. validate: one document, diagnostics located by line.
    started = time.monotonic()
    result = batch.tf.run("validate", "-json", check=False)
    TIMINGS["validate"] = TIMINGS.get("validate", 0.0) + time.monotonic() - started
    try:
        diags, _ = parse_validate_json(result.stdout)
    except ValueError:
        diags = []
        stray.append(f"validate printed no JSON document: {result.stdout[-500:]} {result.stderr[-1500:]}")
    diags = [d for d in diags if d.summary != "Provider development overrides are in effect"]
    failed = judge_diagnostics("validate", cases, outcomes, diags, stray)
    remaining = [c for c in cases if c.label not in failed]
    # 2. plan the rest (lines move: rewrite first).
    batch.write(remaining)
    rc, messages, stderr = batch.run_json("plan", "-json", "-input=false", "-detailed-exitcode")
    diags = diagnostics_of(messages)
    if classify_crash([], stderr):
        stray.append(f"plan stderr: {stderr[-1500:]}")
    failed = judge_diagnostics("plan", remaining, outcomes, diags, stray)
    accepted = [c for c in remaining if c.label not in failed]
    # 3. apply what the plan accepted, then re-plan.
    if exclusive:  # one case per slot at a time: rounds of the i-th accepted case of each slot
        slots: dict[int, list[Case]] = {}
        for case in accepted:
            slots.setdefault(case.slot, []).append(case)
        for round_index in range(max((len(v) for v in slots.values()), default=0)):
            round_cases = [v[round_index] for v in slots.values() if round_index < len(v)]
            apply_round(batch, round_cases, outcomes, stray, destroy=True)
    elif accepted:
        apply_round(batch, accepted, outcomes, stray, destroy=False)
    return outcomes, stray


def summarize(outcomes: dict) -> dict:
    counts = Counter(o.result for o in outcomes.values())
    refused = sum(1 for o in outcomes.values() if o.result == "diagnosed" and o.refused)
    return {"cases": len(outcomes), "diagnosed_at_path": counts["diagnosed"], "refused_at_apply": refused,
            "converged_applies": counts["converged"], "wrong_path": counts["wrong-path"],
            "refused_not_invalid": counts["refused-not-invalid"], "not_refused": counts["not-refused"],
            "apply_errors_after_plan": counts["apply-error"],
            "not_converged": counts["not-converged"], "inconsistent_result_errors": counts["inconsistent"],
            "crashes": counts["crash"], "pending": counts["pending"]}


def record(name: str, outcomes: dict, stray: list, seconds: float) -> dict:
    OUT.mkdir(exist_ok=True)
    path = OUT / "bad_input.json"
    failures_path = OUT / "bad_input_failures.json"
    document = json.loads(path.read_text()) if path.exists() else {"resources": {}}
    failures = json.loads(failures_path.read_text()) if failures_path.exists() else {}
    summary = {**summarize(outcomes), "seconds": round(seconds, 1), "batch_errors": len(stray),
               "seconds_by_command": {k: round(v, 1) for k, v in TIMINGS.items()}}
    TIMINGS.clear()
    document["resources"][name] = summary
    totals: Counter[str] = Counter()
    for entry in document["resources"].values():
        totals.update({k: v for k, v in entry.items() if isinstance(v, (int, float))})
    totals["seconds"] = round(totals["seconds"], 1)
    document["total"] = dict(totals)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    failures[name] = {"failures": [o.report() for o in outcomes.values() if not o.ok], "batch_errors": stray}
    failures_path.write_text(json.dumps(failures, indent=2, ensure_ascii=False) + "\n")
    print(f"\nbad input {name}: {json.dumps(summary)}")
    return summary


@pytest.fixture(scope="module")
def schema(sandbox, tmp_path_factory):
    tf = Terraform(tmp_path_factory.mktemp("schema"), sandbox.env())
    tf.write_file("main.tf", bad_input.PROVIDER_HCL)
    return tf.schema_json()


def assert_all_ok(outcomes: dict, stray: list) -> None:
    bad = [o for o in outcomes.values() if not o.ok]
    lines = [f"{o.result:<14} {o.stage:<8} {o.case.describe()}\n    {o.detail[:400]}" for o in bad]
    assert not bad and not stray, (f"{len(bad)} of {len(outcomes)} cases failed, {len(stray)} batch errors:\n"
                                   + "\n".join(lines[:80]) + "\n" + "\n".join(stray[:20]))


@pytest.mark.parametrize("resource", RESOURCES)
def test_bad_input(sandbox, tmp_path, schema, resource):
    started = time.monotonic()
    sandbox.reset()
    teams = {}
    if bad_input.specs()[resource].teams:
        teams = sandbox.add_teams(bad_input.specs()[resource].teams, prefix="bad-input")["teams"]
    spec = bad_input.specs(teams=teams)[resource]
    cases = bad_input.generate(schema, only=(resource,), teams=teams)
    if spec.capacity:
        sandbox.add_teams(1, prefix="badinput", cluster=bad_input.CLUSTER, instance_type=bad_input.TENANT_INSTANCE_TYPE,
                          instances_per_team=spec.capacity)
    outcomes, stray = run_cases(sandbox, tmp_path, cases, spec.shared, exclusive=spec.exclusive is not None)
    record(resource, outcomes, stray, time.monotonic() - started)
    assert_all_ok(outcomes, stray)


def test_bad_input_data_source_and_functions(sandbox, tmp_path, schema):
    cases = bad_input.generate_misc(schema)
    started = time.monotonic()
    sandbox.reset()
    outcomes, stray = run_cases(sandbox, tmp_path, cases, "", exclusive=False)
    record("data_source_and_functions", outcomes, stray, time.monotonic() - started)
    assert_all_ok(outcomes, stray)
