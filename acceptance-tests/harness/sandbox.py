"""Handle on a running sandbox: started here as a subprocess, or found via HYPERPOD_SANDBOX_URL."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import boto3
from botocore.config import Config

REGION = "us-west-2"
DUMMY_KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
ACCEPTANCE_DIR = Path(__file__).resolve().parent.parent
_READY = re.compile(r"hyperpod-sandbox ready on (http://\S+)")


class Sandbox:
    def __init__(self, url: str, process: subprocess.Popen | None = None, log_path: Path | None = None):
        self.url = url.rstrip("/")
        self.process = process
        self.log_path = log_path

    @classmethod
    def start(cls, timeout: float = 60.0) -> "Sandbox":
        """Start `python -m sandbox` on a free port (it binds port 0 and reports the real one)."""
        log = tempfile.NamedTemporaryFile(prefix="hyperpod-sandbox-", suffix=".log", delete=False)
        process = subprocess.Popen([sys.executable, "-m", "sandbox", "--port", "0"], cwd=ACCEPTANCE_DIR,
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
            return sandbox
        return cls.start()

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

    def reset(self) -> dict:
        """Back to exactly the seed; also disarms faults."""
        return self.admin("POST", "reset")

    def fault(self, operation: str, mode: str = "error", count: int = 1, **fields) -> dict:
        """Arm a fault, e.g. fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="boom")
        or fault("DescribeCluster", code="ThrottlingException", status=400, count=2)."""
        return self.admin("POST", "faults", {"operation": operation, "mode": mode, "count": count, **fields})

    def clear_faults(self) -> None:
        self.admin("DELETE", "faults")

    def client(self, service: str, validate: bool = True, **config):
        """boto3 client on the sandbox.  One attempt, no retries, so injected faults surface;
        validate=False turns off boto3's client-side checks to exercise the sandbox's own."""
        cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"}, parameter_validation=validate, **config)
        return boto3.client(service, endpoint_url=self.url, region_name=REGION, config=cfg, **DUMMY_KEYS)

    def env(self) -> dict:
        """Environment that points AWS SDKs (and the provider) at the sandbox."""
        return {"AWS_ENDPOINT_URL": self.url, "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION,
                "AWS_ACCESS_KEY_ID": DUMMY_KEYS["aws_access_key_id"],
                "AWS_SECRET_ACCESS_KEY": DUMMY_KEYS["aws_secret_access_key"], "AWS_EC2_METADATA_DISABLED": "true"}
