"""A Terraform working directory wired to the sandbox and to the locally built provider."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import guard, procs, tags
from .provider import PROVIDER_SOURCE, provider_binary, provider_dir

COMMON = ("-no-color", "-input=false")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # commands without -no-color (e.g. providers schema) still colour errors


# The warning every run with dev_overrides prints: a property of the harness's CLI configuration, not of the
# configuration under test, so verdicts leave it out (PlanVerdict.ignored keeps it).
DEV_OVERRIDES = "Provider development overrides are in effect"
# A governance rule's ID opens the provider's diagnostic summaries: "[WKL-3] ...", "[CLU-2] ... (not checked)".
RULE_ID = re.compile(r"^\[([A-Z][A-Z0-9]*-[0-9]+)\]")
# A refusal (crates/hyperpod-protocol/src/refusal.rs): a finding the plan shows as a warning, since no rule may stop a
# plan (`terraform destroy` refreshes with one), and apply returns as an error before writing anything. Its summary
# ends with one of these marks (the second on an object the plan leaves unchanged).
REFUSED = " (apply refuses this change)"
REFUSED_AT_NEXT_CHANGE = " (unchanged now; apply refuses its next change)"
# What apply's error for a refusal says, at the end of its detail.
REFUSED_AT_APPLY = "Refused before anything of this change was written"


def flat(text: str) -> str:
    """Terraform wraps diagnostics and aligns plan columns; compare text with whitespace folded."""
    return " ".join(text.split())


@dataclass
class Result:
    args: tuple
    rc: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic as Terraform emits it in `-json` output (`plan -json` lines, `validate -json` document).

    `rule` is the "[XXX-N]" ID opening the summary (None if there is none). `filename` and the start/end
    positions come from the diagnostic's "range" (None without one): Terraform's lines and columns are 1-based,
    bytes 0-based offsets into the file, and the file name is relative to the working dir ("main.tf",
    "modules/governed-project/main.tf")."""
    severity: str
    summary: str
    detail: str = ""
    address: str | None = None
    rule: str | None = None
    filename: str | None = None
    start_line: int | None = None
    start_column: int | None = None
    start_byte: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    end_byte: int | None = None
    snippet: dict | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_json(cls, obj: dict) -> "Diagnostic":
        """From a "diagnostic" object: {severity, summary, detail, address?, range?, snippet?}."""
        summary = obj.get("summary", "")
        rng = obj.get("range") or {}
        start, end = rng.get("start") or {}, rng.get("end") or {}
        match = RULE_ID.match(summary)
        return cls(severity=obj.get("severity", ""), summary=summary, detail=obj.get("detail") or "",
                   address=obj.get("address") or None, rule=match.group(1) if match else None,
                   filename=rng.get("filename"),
                   start_line=start.get("line"), start_column=start.get("column"), start_byte=start.get("byte"),
                   end_line=end.get("line"), end_column=end.get("column"), end_byte=end.get("byte"),
                   snippet=obj.get("snippet"))

    @property
    def location(self) -> str:
        return f"{self.filename}:{self.start_line}:{self.start_column}" if self.filename else "(no range)"

    @property
    def kind(self) -> str:
        """"error", "refused" (a plan's warning that apply refuses the change), "refused-later" (the same on an
        object the plan leaves unchanged: its next change is refused) or "warning"."""
        if self.severity == "warning" and self.summary.endswith(REFUSED):
            return "refused"
        if self.severity == "warning" and self.summary.endswith(REFUSED_AT_NEXT_CHANGE):
            return "refused-later"
        return self.severity

    def entry(self) -> tuple:
        """What a verdict records of this diagnostic: (rule, kind); without a rule ID (None, kind, summary), so an
        error that names no rule still shows, and differs from any rule's entry."""
        return (self.rule, self.kind) if self.rule else (None, self.kind, self.summary)


def _entry_key(entry: tuple) -> tuple:
    return (entry[0] is None, entry[0] or "", *entry[1:])


def _address_key(address: str | None) -> tuple:
    return (address is not None, address or "")


def parse_json_lines(text: str) -> tuple[list[Diagnostic], list[str]]:
    """The diagnostics of a `-json` machine-readable UI stream (one JSON object per line; those with
    "type": "diagnostic" carry a "diagnostic" object), in the order Terraform printed them, and the lines that were
    not JSON objects at all."""
    diagnostics, unparsed = [], []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            unparsed.append(line)
            continue
        if not isinstance(message, dict):
            unparsed.append(line)
        elif message.get("type") == "diagnostic" and isinstance(message.get("diagnostic"), dict):
            diagnostics.append(Diagnostic.from_json(message["diagnostic"]))
    return diagnostics, unparsed


def parse_validate_json(text: str) -> tuple[list[Diagnostic], bool | None]:
    """The diagnostics of `terraform validate -json` (one JSON document: {"valid", "diagnostics": [...]}) and its
    "valid"; raises ValueError if `text` is not that document."""
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("diagnostics"), list):
        raise ValueError(f"not a `terraform validate -json` document: {text[:200]!r}")
    return [Diagnostic.from_json(d) for d in document["diagnostics"]], document.get("valid")


@dataclass
class PlanVerdict:
    """What Terraform said about a configuration: the exit code and the diagnostics (`Terraform.plan_json()`,
    `Terraform.validate_json()`).

    `diagnostics` are the configuration's, in Terraform's order (which varies from run to run: compare
    `rules_by_address()`); the dev_overrides warning is moved to `ignored`. When Terraform fails (rc 1) without
    emitting any error diagnostic as JSON (e.g. it could not start: bad flag, missing init), one synthetic error
    without rule or address records its stderr, so such a failure cannot look like a clean verdict.
    `root` is the working dir the ranges' file names are relative to; `result` the raw command result."""
    rc: int
    diagnostics: list[Diagnostic]
    root: Path
    result: Result | None = None
    ignored: list[Diagnostic] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)
    valid: bool | None = None  # validate -json only

    @classmethod
    def from_plan_output(cls, rc: int, stdout: str, root: Path, stderr: str = "",
                         result: Result | None = None) -> "PlanVerdict":
        diagnostics, unparsed = parse_json_lines(stdout)
        return cls._build(rc, diagnostics, root, stderr, result, unparsed=unparsed)

    @classmethod
    def from_validate_output(cls, rc: int, stdout: str, root: Path, stderr: str = "",
                             result: Result | None = None) -> "PlanVerdict":
        try:
            diagnostics, valid = parse_validate_json(stdout)
            unparsed = []
        except ValueError:
            diagnostics, valid, unparsed = [], None, stdout.splitlines()
        return cls._build(rc, diagnostics, root, stderr, result, unparsed=unparsed, valid=valid)

    @classmethod
    def _build(cls, rc, diagnostics, root, stderr, result, **kwargs) -> "PlanVerdict":
        kept = [d for d in diagnostics if d.summary != DEV_OVERRIDES]
        ignored = [d for d in diagnostics if d.summary == DEV_OVERRIDES]
        if rc == 1 and not any(d.severity == "error" for d in kept):
            text = _ANSI.sub("", stderr).strip() or "\n".join(kwargs.get("unparsed") or []) or "(no output)"
            kept.append(Diagnostic("error", "terraform exited 1 without a JSON error diagnostic", text))
        return cls(rc, kept, Path(root), result, ignored, **kwargs)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def refusals(self) -> list[Diagnostic]:
        """The plan's refusals: warnings now, errors at apply."""
        return [d for d in self.diagnostics if d.kind == "refused"]

    def rules_by_address(self) -> dict:
        """{address: sorted [(rule, severity), ...]}: what the verdict is, independent of the order Terraform
        printed it in. Diagnostics without an address (provider configuration, variables, ...) are under None;
        those without a rule ID are entries (None, severity, summary). Duplicates are kept (two quota blocks
        breaking one rule are two entries)."""
        grouped: dict = {}
        for diag in self.diagnostics:
            grouped.setdefault(diag.address, []).append(diag.entry())
        return {address: sorted(grouped[address], key=_entry_key) for address in sorted(grouped, key=_address_key)}

    def source(self, diag: Diagnostic) -> str | None:
        """The exact text of the diagnostic's range in its file (bytes start..end, decoded as UTF-8); None without a
        range. For an attribute path Terraform's range is the attribute's value expression (`50` in
        `borrow_limit = 50`), not its name; a zero-length range (a missing attribute: the block's "missing item
        range") gives ""."""
        if diag.filename is None or diag.start_byte is None or diag.end_byte is None:
            return None
        data = (self.root / diag.filename).read_bytes()
        return data[diag.start_byte:diag.end_byte].decode("utf-8")

    def line(self, diag: Diagnostic) -> str | None:
        """The whole line (without its newline) at the range's start line; None without a range."""
        if diag.filename is None or not diag.start_line:
            return None
        lines = (self.root / diag.filename).read_text(encoding="utf-8").splitlines()
        return lines[diag.start_line - 1] if diag.start_line <= len(lines) else None

    def describe(self) -> str:
        """Every diagnostic, one a line, for failure messages: severity, rule, address, location, the source line
        there and the summary."""
        if not self.diagnostics:
            return f"rc={self.rc}, no diagnostics"
        rows = [f"rc={self.rc}, {len(self.diagnostics)} diagnostic(s):"]
        for d in sorted(self.diagnostics, key=lambda d: (_address_key(d.address), _entry_key(d.entry()))):
            try:
                text = self.line(d)
            except OSError:
                text = None
            where = f"{d.location} {text.strip()!r}" if text is not None else d.location
            rows.append(f"  {d.severity:<7} [{d.rule or '-'}] {d.address or '(no address)'} at {where}: {d.summary}")
        return "\n".join(rows)

    def assert_rule(self, rule: str, address: str, attribute: str, severity: str = "refused") -> Diagnostic:
        """Exactly one diagnostic with `rule` on `address` (as Terraform writes it: `hyperpod_tenant.research`,
        `module.research.hyperpod_tenant.this`, `hyperpod_connection_contract.team["production"]`), of `severity`
        (its `kind`: a plan's rule findings are "refused", apply's "error"), pointing at `attribute`; returns it.

        Pointing at: Terraform 1.15 turns a provider diagnostic's attribute path into the range of the attribute's
        *value expression* (`borrow_limit = 50` gives the range of `50`; a nested block's attribute is found in
        that block's body; an index step narrows it to the element), so the range's text never starts with the
        name. What is checked is the line the range starts on: stripped, it must start with `attribute` as written
        in the HCL (the last step of the path, e.g. "borrow_limit", "team", "contract"), followed by something that
        cannot continue a name (`=`, space, `{`). This holds for values written on the attribute's line (all
        single-line values, and multi-line ones opening there). If the attribute is absent from the configuration
        Terraform points at the enclosing block's opening brace instead (the line `resource "..." "..." {` or
        `sharing {`), so `attribute` can then be the block's name."""
        matching = [d for d in self.diagnostics if d.rule == rule and d.address == address]
        assert len(matching) == 1, \
            f"expected exactly one [{rule}] on {address}, found {len(matching)}\n{self.describe()}"
        (diag,) = matching
        assert diag.kind == severity, \
            f"[{rule}] on {address} is a {diag.kind}, expected a {severity}\n{self.describe()}"
        line = self.line(diag)
        assert line is not None, f"[{rule}] on {address} has no source range\n{self.describe()}"
        assert re.match(rf"{re.escape(attribute)}(?![\w-])", line.strip()), \
            (f"[{rule}] on {address} points at {diag.location} {line.strip()!r} (range text "
             f"{self.source(diag)!r}), not at attribute {attribute!r}\n{self.describe()}")
        return diag


class Running:
    """A Terraform command running in the background (`Terraform.start()`): find and kill the provider plugin it
    started (only its own: a descendant of this Terraform process running the provider binary under test), then
    collect its result with `wait()`."""

    def __init__(self, args: tuple, process: subprocess.Popen, stdout, stderr, timeout: float):
        self.args, self.process, self.timeout = args, process, timeout
        self._stdout, self._stderr = stdout, stderr
        self.killed: list[int] = []

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def provider_pids(self) -> list[int]:
        """The provider plugin processes this Terraform run has running now (usually one)."""
        return procs.running(self.pid, provider_binary())

    def kill_provider(self, timeout: float = 10.0) -> list[int]:
        """SIGKILL the provider plugin(s) this run started, waiting up to `timeout` s for one to be there; returns
        their PIDs. Terraform itself goes on: it reports the plugin's death and exits, writing its state."""
        deadline = time.monotonic() + timeout
        while not (pids := self.provider_pids()):
            if not self.running() or time.monotonic() > deadline:
                raise RuntimeError(f"terraform {' '.join(self.args)} (pid {self.pid}) has no provider plugin "
                                   f"{provider_binary()} running" + ("" if self.running() else " (it has exited)"))
            time.sleep(0.02)
        procs.kill(pids)
        self.killed.extend(pids)
        return pids

    def wait(self, timeout: float | None = None) -> Result:
        """Wait for Terraform to exit; its Result (whatever the exit code). Kills it after `timeout` (default: the
        Terraform's timeout) and raises subprocess.TimeoutExpired."""
        try:
            rc = self.process.wait(self.timeout if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        outputs = []
        for stream in (self._stdout, self._stderr):
            stream.seek(0)
            outputs.append(stream.read())
            stream.close()
        return Result(self.args, rc, *outputs)


class TerraformError(AssertionError):
    def __init__(self, result: Result):
        self.result = result
        super().__init__(_ANSI.sub("", f"terraform {' '.join(result.args)} exited {result.rc}\n"
                                       f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"))


def _base_env() -> dict:
    """The caller's environment without AWS_*/TF_* settings that could leak real accounts or
    state into a test; TF_LOG* (debug logging) is kept."""
    return {k: v for k, v in os.environ.items()
            if not (k.startswith("AWS_") or (k.startswith("TF_") and not k.startswith("TF_LOG")))}


def dev_overrides_cli_config() -> str:
    """dev_overrides: Terraform loads the provider straight from the build dir (no registry, no init needed for
    it); `direct {}` keeps other providers installable."""
    return textwrap.dedent(f"""\
        provider_installation {{
          dev_overrides {{
            "{PROVIDER_SOURCE}" = {json.dumps(str(provider_dir()))}
          }}
          direct {{}}
        }}
        """)


class Terraform:
    def __init__(self, root: Path, sandbox_env: dict, timeout: float = 600.0, cli_config: str | None = None,
                 binary: Path | None = None):
        """`cli_config`: the CLI configuration's text (TF_CLI_CONFIG_FILE), e.g. a filesystem mirror to install a
        packaged release from; default: dev_overrides_cli_config(). `binary`: another Terraform than the venv's
        (harness/terraform_versions.py); default: the `terraform` shim next to this python."""
        root = Path(root)
        self.dir = root / "work"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout
        self.cli_config = root / "cli.tfrc"
        self.cli_config.write_text(dev_overrides_cli_config() if cli_config is None else textwrap.dedent(cli_config))
        venv_bin = str(Path(sys.prefix) / "bin")  # the `terraform` shim lives next to this python
        self.env = {**_base_env(), **sandbox_env,
                    "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""),
                    "TF_CLI_CONFIG_FILE": str(self.cli_config), "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}
        # The fixture's test tag goes into every configuration run here (harness/tags.py), so `make sweep` finds
        # what a killed run left; a test of the provider's own tag handling may turn it off.
        self.test_tags = True
        found = str(binary) if binary is not None else shutil.which("terraform", path=self.env["PATH"])
        if found is None or not os.access(found, os.X_OK):
            raise RuntimeError(f"no terraform at {binary or venv_bin}; run acceptance-tests/bootstrap.sh")
        self.binary: str = found

    def write(self, main_tf: str) -> Path:
        return self.write_file("main.tf", main_tf)

    def write_file(self, name: str, text: str) -> Path:
        path = self.dir / name
        path.write_text(textwrap.dedent(text))
        return path

    def _prepare(self, args: tuple) -> None:
        """Before each command: the test tag (harness/tags.py), and the real-account guard (harness/guard.py)."""
        if self.test_tags:
            tags.inject(self.dir)
        guard.check_terraform_run(args, self.dir)

    def run(self, *args: str, check: bool = True, ok_codes: tuple = (0,)) -> Result:
        self._prepare(args)
        proc = subprocess.run([self.binary, *args], cwd=self.dir, env=self.env, capture_output=True,
                              text=True, timeout=self.timeout, stdin=subprocess.DEVNULL)
        result = Result(args, proc.returncode, proc.stdout, proc.stderr)
        if check and result.rc not in ok_codes:
            raise TerraformError(result)
        return result

    def start(self, *args: str) -> Running:
        """`terraform <args>` in the background (output to temporary files, so it never blocks on a pipe)."""
        self._prepare(args)
        stdout = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        process = subprocess.Popen([self.binary, *args], cwd=self.dir, env=self.env, stdout=stdout, stderr=stderr,
                                   stdin=subprocess.DEVNULL, text=True)
        return Running(args, process, stdout, stderr, self.timeout)

    def start_apply(self, *extra: str) -> Running:
        """`terraform apply -auto-approve` in the background (see `start`)."""
        return self.start("apply", "-auto-approve", *COMMON, *extra)

    def init(self) -> Result:
        return self.run("init", *COMMON)

    def plan(self, extra=(), check: bool = True) -> Result:
        """rc 0 = no changes, 2 = changes (both fine with check=True), 1 = error."""
        return self.run("plan", "-detailed-exitcode", *COMMON, *extra, check=check, ok_codes=(0, 2))

    def plan_json(self, extra=()) -> PlanVerdict:
        """`terraform plan -json -input=false -detailed-exitcode <extra>`, whatever its exit code (0 no changes,
        2 changes, 1 error), with the diagnostics parsed from its JSON lines."""
        result = self.run("plan", "-json", "-input=false", "-detailed-exitcode", *extra, check=False)
        return PlanVerdict.from_plan_output(result.rc, result.stdout, self.dir, result.stderr, result)

    def validate_json(self, extra=()) -> PlanVerdict:
        """`terraform validate -json <extra>` (one JSON document, not lines), whatever its exit code; `.valid` is
        the document's "valid". Needs `init` first, as validate does."""
        result = self.run("validate", "-json", *extra, check=False)
        return PlanVerdict.from_validate_output(result.rc, result.stdout, self.dir, result.stderr, result)

    def assert_no_changes(self) -> None:
        """The next plan is empty: what exists matches the configuration."""
        result = self.plan()
        assert result.rc == 0, f"expected an empty plan, got:\n{result.stdout}"

    def plan_invalid(self, rule: str, path: str, observed: str = "") -> Result:
        """The configuration is invalid (a contract's well-formedness, CON-1..3, judged when Terraform validates it,
        before every plan): the plan fails with an error naming the rule ID, the attribute path and the observed
        value."""
        result = self.plan(check=False)
        assert result.rc == 1, result.stdout
        text = flat(result.stderr)
        assert f"[{rule}]" in text and "Error:" in text, result.stderr
        assert flat(path) in text, result.stderr
        assert flat(observed) in text, result.stderr
        return result

    def plan_refuses(self, rule: str, path: str, observed: str = "") -> Result:
        """The plan succeeds and warns that apply refuses the change, naming the rule ID, the attribute path and the
        observed value; then `terraform apply` fails with that rule before the resource writes anything. Returns the
        failed apply."""
        result = self.plan(check=False)
        assert result.rc in (0, 2), f"a rule never fails the plan (rc {result.rc}):\n{result.stdout}{result.stderr}"
        text = flat(result.stdout + result.stderr)
        assert f"[{rule}]" in text and flat(REFUSED) in text, result.stdout + result.stderr
        assert flat(path) in text, result.stdout + result.stderr
        assert flat(observed) in text, result.stdout + result.stderr
        applied = self.apply(check=False)
        assert applied.rc == 1, f"apply must refuse [{rule}]:\n{applied.stdout}{applied.stderr}"
        refused = flat(applied.stderr)
        assert f"[{rule}]" in refused and REFUSED_AT_APPLY in refused, applied.stderr
        assert flat(observed) in refused, applied.stderr
        return applied

    def apply(self, *extra: str, check: bool = True) -> Result:
        return self.run("apply", "-auto-approve", *COMMON, *extra, check=check)

    def apply_json(self, extra=()) -> PlanVerdict:
        """`terraform apply -json -auto-approve -input=false <extra>`, whatever its exit code (0 applied, 1 error),
        with the diagnostics parsed from its JSON lines (the apply's own checks run in its plan step)."""
        result = self.run("apply", "-json", "-auto-approve", "-input=false", *extra, check=False)
        return PlanVerdict.from_plan_output(result.rc, result.stdout, self.dir, result.stderr, result)

    def destroy_json(self) -> PlanVerdict:
        """`terraform destroy -json -auto-approve -input=false`, whatever its exit code, with its diagnostics parsed
        (Terraform gives a destroy's diagnostics neither address nor range)."""
        result = self.run("destroy", "-json", "-auto-approve", "-input=false", check=False)
        return PlanVerdict.from_plan_output(result.rc, result.stdout, self.dir, result.stderr, result)

    def destroy(self, *extra: str, check: bool = True) -> Result:
        return self.run("destroy", "-auto-approve", *COMMON, *extra, check=check)

    def import_(self, address: str, resource_id: str, check: bool = True) -> Result:
        return self.run("import", *COMMON, address, resource_id, check=check)

    def show_json(self, plan_file: str | None = None) -> dict:
        """`terraform show -json` of the state, or of a plan file written with plan(["-out=..."])."""
        return json.loads(self.run("show", "-json", *([plan_file] if plan_file else [])).stdout)

    def state_json(self) -> dict:
        """The raw state document (`terraform state pull`), with private data and schema versions."""
        return json.loads(self.run("state", "pull").stdout)

    def output(self, name: str):
        return json.loads(self.run("output", "-json", name).stdout)

    def schema_json(self) -> dict:
        return json.loads(self.run("providers", "schema", "-json").stdout)


def checklist(values: dict) -> dict | None:
    """A governed resource's checklist as {rule: {"status", "detail"}}, in the order the rules ran: the rules in
    `passed_checks` and `not_applicable_checks` (no detail) and every `findings` row. None when the plan left it
    unknown (a rule waits for apply)."""
    if values.get("passed_checks") is None and values.get("findings") is None:
        return None
    rows = {rule: {"status": "passed", "detail": None} for rule in (values.get("passed_checks") or "").split()}
    rows |= {rule: {"status": "not_applicable", "detail": None}
             for rule in (values.get("not_applicable_checks") or "").split()}
    rows |= {row["rule"]: {"status": row["status"], "detail": row["detail"]} for row in values.get("findings") or []}
    return rows


def statuses(values: dict) -> dict:
    """{rule: status} of `checklist(values)`."""
    return {rule: row["status"] for rule, row in (checklist(values) or {}).items()}
