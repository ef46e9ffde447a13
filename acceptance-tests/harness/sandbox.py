"""Handle on a running sandbox: started here as a subprocess, or found via HYPERPOD_SANDBOX_URL; or, with
HYPERPOD_REAL_AWS=1, on a real AWS account (`RealAws`: nothing is started or reset, sandbox-only features skip)."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import boto3
from botocore.config import Config

from . import guard
from .fixture import Fixture, current, selected_path

REGION = "us-west-2"  # the local seed's region; a Sandbox uses its fixture's (`Sandbox.region`)
DUMMY_KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
ACCEPTANCE_DIR = Path(__file__).resolve().parent.parent
_READY = re.compile(r"hyperpod-sandbox ready on (http://\S+)")


class Sandbox:
    real = False

    def __init__(self, url: str, process: subprocess.Popen | None = None, log_path: Path | None = None):
        self.url = url.rstrip("/")
        self.process = process
        self.log_path = log_path
        self.region = current().region

    @classmethod
    def start(cls, timeout: float = 60.0) -> "Sandbox":
        """Start `python -m sandbox` on a free port (it binds port 0 and reports the real one), seeded under the run's
        fixture (HYPERPOD_FIXTURE; the local seed's own by default)."""
        log = tempfile.NamedTemporaryFile(prefix="hyperpod-sandbox-", suffix=".log", delete=False)
        command = [sys.executable, "-m", "sandbox", "--port", "0", "--fixture", str(selected_path())]
        process = subprocess.Popen(command, cwd=ACCEPTANCE_DIR,
                                   stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        log_path = Path(log.name)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = _READY.search(log_path.read_text(errors="replace"))
            if match:
                sandbox = cls(match.group(1), process, log_path)
                sandbox.wait_healthy(deadline - time.monotonic())
                return sandbox
            if process.poll() is not None:
                break
            time.sleep(0.1)
        process.kill()
        raise RuntimeError(f"sandbox did not start (rc={process.poll()}); log {log_path}:\n"
                           + log_path.read_text(errors="replace")[-4000:])

    @classmethod
    def from_env_or_start(cls) -> "Sandbox":
        url = os.environ.get("HYPERPOD_SANDBOX_URL")
        if url:
            sandbox = cls(url)
            sandbox.wait_healthy(10.0)
            sandbox.check_fixture()
            return sandbox
        return cls.start()

    def check_fixture(self) -> None:
        """The sandbox at HYPERPOD_SANDBOX_URL holds what the run's fixture says, or the run stops here: a sandbox
        started with another `--fixture` (or none) would fail every test that names a seeded object, obscurely."""
        try:
            served = self.admin("GET", "fixture")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"the sandbox at {self.url} serves no fixture (GET /_sandbox/fixture: {e.code}); "
                               "restart it from this checkout") from None
        expected = current().raw()
        if served != expected:
            differing = sorted(k for k in set(served) | set(expected) if served.get(k) != expected.get(k))
            raise RuntimeError(
                f"the sandbox at {self.url} was seeded for fixture {served.get('name')!r}, but this run's fixture is "
                f"{selected_path()} ({expected.get('name')!r}); they differ in {', '.join(differing)}. Start the "
                f"sandbox with `python -m sandbox --fixture {selected_path()}`, or set HYPERPOD_FIXTURE to match it.")

    def stop(self) -> None:
        if self.process is None:
            return  # not ours (HYPERPOD_SANDBOX_URL)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def wait_healthy(self, timeout: float) -> dict:
        deadline = time.monotonic() + max(timeout, 0.5)
        while True:
            try:
                return self.admin("GET", "health")
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def admin(self, method: str, route: str, body: dict | None = None) -> dict:
        """Call the admin API; raises urllib.error.HTTPError (with the JSON error) on 4xx."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.url}/_sandbox/{route}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def health(self) -> dict:
        return self.admin("GET", "health")

    def target_version(self, read: int) -> int:
        """The `TargetVersion` an update of an object whose version was `read` sends, as the sandbox's reading of
        that undocumented member wants it (`target_version`: the version read, or the next one)."""
        return read + 1 if self.admin("GET", "settings")["target_version"] == "next" else read

    def async_seconds(self, seconds: float | None) -> None:
        """How long the sandbox's Creating/Updating/Deleting states last from now on (None: the run's setting, which
        a reset restores too)."""
        self.admin("PUT", "timing", {"async_seconds": seconds})

    def reset(self) -> dict:
        """Back to exactly the seed; also disarms faults and zeroes the call counters."""
        return self.admin("POST", "reset")

    def fault(self, operation: str | None = None, mode: str = "error", count: int | None = 1, *,
              nth: int | None = None, service: str | None = None, **fields) -> dict:
        """Arm a fault (see sandbox/faults.py); `count=None` = every matching call until cleared,
        `nth=N` = let N-1 matching calls through first.  Examples:
        fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="boom")
        fault("DescribeCluster", code="ThrottlingException", status=400, count=2)
        fault("DescribeCluster", "server_error", status=503, nth=3)
        fault("*", "latency", count=None, ms=200, service="sagemaker")
        fault(mode="eventual_consistency", role_name="new-role", count=2)   # invisible to the next 2 reads
        fault("CreateComputeQuota", "hold")   # accepted, then the answer waits: see held(), release_held()"""
        body = {"mode": mode, "count": count, **fields}
        body.update({k: v for k, v in (("operation", operation), ("nth", nth), ("service", service)) if v is not None})
        return self.admin("POST", "faults", body)

    def clear_faults(self) -> None:
        self.admin("DELETE", "faults")

    def held(self) -> list:
        """Responses a `hold` fault is holding back now: [{"id", "service", "operation", "status", "held_ms"}]."""
        return self.admin("GET", "held")["held"]

    def wait_held(self, timeout: float = 120.0, poll: float = 0.05, while_running=None) -> list:
        """Wait until some response is held; returns held(). Raises TimeoutError after `timeout` seconds, or as soon
        as `while_running()` is false (e.g. the Terraform run that should make the call ended without it)."""
        deadline = time.monotonic() + timeout
        while True:
            held = self.held()
            if held:
                return held
            if while_running is not None and not while_running():
                raise TimeoutError("the caller ended before any response was held")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no response held within {timeout}s (armed: {self.admin('GET', 'faults')})")
            time.sleep(poll)

    def release_held(self) -> int:
        """Let every held response go; returns how many there were."""
        return self.admin("DELETE", "held")["released"]

    def calls(self) -> dict:
        """AWS calls per operation since start, reset or reset_calls(): {"sagemaker.DescribeCluster": 3, ...}."""
        return self.admin("GET", "calls")

    def calls_by_caller(self) -> dict:
        """The same counters per caller, as the provider names it in the x-hyperpod-caller header (the resource type,
        `data.<type>` or `provider`): {"hyperpod_tenant": {"sagemaker.CreateComputeQuota": 1, ...}, ...}; calls that
        named no caller (a test's own boto3 calls) are under ""."""
        return self.admin("GET", "calls/by-caller")

    def reset_calls(self) -> None:
        self.admin("DELETE", "calls")

    def add_teams(self, count: int, **options) -> dict:
        """The `teams` fixture (sandbox/fixtures.py): `count` more teams like the seeded research team (Tooling user
        role, viewer and operator roles, DataZone project) and an instance group on the cluster with room for one
        guaranteed quota each. Options: prefix, cluster, instance_type, instances_per_team. Returns
        {"teams": {team: {project_id, project_role_arn, viewer_role_arn, operator_role_arn}}, "instance_group": ...};
        gone at the next reset."""
        return self.admin("POST", "fixtures/teams", {"count": count, **options})

    def fixture(self) -> Fixture:
        """The names and ids of what this sandbox holds (harness/fixture.py): the run's fixture, which the sandbox
        was seeded from (`start` passes it; `from_env_or_start` checks it against GET /_sandbox/fixture)."""
        return current()

    def inventory(self) -> dict:
        """Deterministic snapshot of IAM roles, compute quotas and scheduler configs, EKS access entries and Pod
        Identity associations, KMS grants and Kubernetes objects (sandbox/inventory.py): equal before an apply and
        after its destroy when nothing was orphaned."""
        return self.admin("GET", "inventory")

    def client(self, service: str, validate: bool = True, **config):
        """boto3 client on the sandbox.  One attempt, no retries, so injected faults surface;
        validate=False turns off boto3's client-side checks to exercise the sandbox's own."""
        cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"}, parameter_validation=validate, **config)
        return boto3.client(service, endpoint_url=self.url, region_name=self.region, config=cfg, **DUMMY_KEYS)

    def env(self) -> dict:
        """Environment that points AWS SDKs (and the provider) at the sandbox."""
        return {"AWS_ENDPOINT_URL": self.url, "AWS_REGION": self.region, "AWS_DEFAULT_REGION": self.region,
                "AWS_ACCESS_KEY_ID": DUMMY_KEYS["aws_access_key_id"],
                "AWS_SECRET_ACCESS_KEY": DUMMY_KEYS["aws_secret_access_key"], "AWS_EC2_METADATA_DISABLED": "true"}


class RealAws:
    """What the `sandbox` fixture is with HYPERPOD_REAL_AWS=1: the caller's AWS account (credentials, profile and
    region from the usual AWS_* variables and files).  Nothing is started or reset; tests that need the sandbox's
    admin API are marked `sandbox_only` and skip, and calling it anyway skips too."""
    real = True
    url = None
    process = None
    log_path = None

    def __init__(self):
        if os.environ.get("HYPERPOD_SANDBOX_URL"):
            raise RuntimeError("HYPERPOD_REAL_AWS=1 and HYPERPOD_SANDBOX_URL are both set: unset one of them")
        self.region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") \
            or (current().region if os.environ.get("HYPERPOD_FIXTURE") else REGION)
        # The safety guard (harness/guard.py): the opt-in and the caller's account must both name the fixture's.
        self.account_id = guard.check_account(self.fixture(), self.client("sts"))

    def stop(self) -> None:
        pass

    def fixture(self) -> Fixture:
        """The account's fixture file, named by HYPERPOD_FIXTURE (docs/guides/acceptance-testing.md)."""
        if not os.environ.get("HYPERPOD_FIXTURE"):
            raise RuntimeError("HYPERPOD_REAL_AWS=1 needs HYPERPOD_FIXTURE=<fixture file> naming the account's objects")
        return current()

    def reset(self) -> dict:
        """Nothing to reset in a real account: every test cleans up what it creates."""
        return {}

    def health(self) -> dict:
        identity = self.client("sts").get_caller_identity()
        return {"status": "real-aws", "account": identity["Account"], "arn": identity["Arn"], "region": self.region}

    def target_version(self, read: int) -> int:
        """As `Sandbox.target_version`, for the account's AWS: the reading test_real_account_smoke found, given as
        HYPERPOD_SANDBOX_TARGET_VERSION (default: the version read)."""
        return read + 1 if os.environ.get("HYPERPOD_SANDBOX_TARGET_VERSION") == "next" else read

    def client(self, service: str, validate: bool = True, **config):
        cfg = Config(retries={"mode": "standard"}, parameter_validation=validate, **config)
        return boto3.client(service, region_name=self.region, config=cfg)

    def env(self) -> dict:
        """The caller's AWS_* settings (credentials, profile, shared files, region), passed through to Terraform."""
        env = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}
        env.setdefault("AWS_REGION", self.region)
        return env

    def _sandbox_only(self, *_, **__):
        import pytest
        pytest.skip("sandbox-only feature (admin API: faults, reset, call counters, inventory) with "
                    "HYPERPOD_REAL_AWS=1")

    admin = fault = clear_faults = calls = calls_by_caller = reset_calls = inventory = add_teams = wait_healthy = \
        _sandbox_only
    held = wait_held = release_held = _sandbox_only
