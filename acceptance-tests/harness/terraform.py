"""A Terraform working directory wired to the sandbox and to the locally built provider."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .provider import PROVIDER_SOURCE, provider_dir

COMMON = ("-no-color", "-input=false")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # commands without -no-color (e.g. providers schema) still colour errors


def flat(text: str) -> str:
    """Terraform wraps diagnostics and aligns plan columns; compare text with whitespace folded."""
    return " ".join(text.split())


@dataclass
class Result:
    args: tuple
    rc: int
    stdout: str
    stderr: str


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
    def __init__(self, root: Path, sandbox_env: dict, timeout: float = 600.0, cli_config: str | None = None):
        """`cli_config`: the CLI configuration's text (TF_CLI_CONFIG_FILE), e.g. a filesystem mirror to install a
        packaged release from; default: dev_overrides_cli_config()."""
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
        self.binary = shutil.which("terraform", path=self.env["PATH"])
        if self.binary is None:
            raise RuntimeError(f"no terraform on PATH ({venv_bin} first); run acceptance-tests/bootstrap.sh")

    def write(self, main_tf: str) -> Path:
        return self.write_file("main.tf", main_tf)

    def write_file(self, name: str, text: str) -> Path:
        path = self.dir / name
        path.write_text(textwrap.dedent(text))
        return path

    def run(self, *args: str, check: bool = True, ok_codes: tuple = (0,)) -> Result:
        proc = subprocess.run([self.binary, *args], cwd=self.dir, env=self.env, capture_output=True,
                              text=True, timeout=self.timeout, stdin=subprocess.DEVNULL)
        result = Result(args, proc.returncode, proc.stdout, proc.stderr)
        if check and result.rc not in ok_codes:
            raise TerraformError(result)
        return result

    def init(self) -> Result:
        return self.run("init", *COMMON)

    def plan(self, extra=(), check: bool = True) -> Result:
        """rc 0 = no changes, 2 = changes (both fine with check=True), 1 = error."""
        return self.run("plan", "-detailed-exitcode", *COMMON, *extra, check=check, ok_codes=(0, 2))

    def assert_no_changes(self) -> None:
        """The next plan is empty: what exists matches the configuration."""
        result = self.plan()
        assert result.rc == 0, f"expected an empty plan, got:\n{result.stdout}"

    def plan_fails_with(self, rule: str, path: str, observed: str = "") -> Result:
        """The plan fails with a diagnostic naming the rule ID, the attribute path and the observed value."""
        result = self.plan(check=False)
        assert result.rc == 1, result.stdout
        text = flat(result.stderr)
        assert f"[{rule}]" in text, result.stderr
        assert flat(path) in text, result.stderr
        assert flat(observed) in text, result.stderr
        return result

    def apply(self, *extra: str, check: bool = True) -> Result:
        return self.run("apply", "-auto-approve", *COMMON, *extra, check=check)

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
