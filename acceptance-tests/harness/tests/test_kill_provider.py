"""Killing the provider plugin of one Terraform run (harness/procs.py, `Terraform.start()` / `Running`), as the kill
test (suites/test_kill.py) does: found through /proc among that Terraform's descendants only, never another run's."""
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import current_fixture, procs

DESCRIBE_CLUSTER = f"""
    terraform {{
      required_providers {{
        hyperpod = {{ source = "hyperpod-governance/hyperpod" }}
      }}
    }}

    provider "hyperpod" {{
      region = "{current_fixture().region}"
    }}

    data "hyperpod_cluster" "capacity" {{
      name = "{current_fixture().clusters.eks.name}"
    }}
"""


@pytest.fixture
def sleeper(tmp_path) -> Path:
    """A copy of `sleep` under a name of its own, so only the processes this test starts run it."""
    binary = tmp_path / "sleeper"
    shutil.copy(shutil.which("sleep"), binary)
    return binary


def test_descendants_and_what_they_run(sleeper):
    # parent (python) -> child (sleeper) and an unrelated sleeper started by the test itself.
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, time; subprocess.Popen(['{sleeper}', '60']); "
                                                     "time.sleep(60)"])
    outsider = subprocess.Popen([str(sleeper), "60"])
    try:
        deadline = time.monotonic() + 10
        while not (found := procs.running(parent.pid, sleeper)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(found) == 1 and found[0] != outsider.pid
        assert found[0] in procs.descendants(parent.pid)
        assert outsider.pid not in procs.descendants(parent.pid)
        assert procs.executable(found[0]) == sleeper.resolve()
        procs.kill(found)
        assert not procs.alive(found[0])
        assert procs.alive(outsider.pid) and parent.poll() is None  # only the child was killed
        assert procs.running(parent.pid, sleeper) == []
    finally:
        for p in (parent, outsider):
            p.kill()
            p.wait()


def test_alive_is_false_for_a_gone_process():
    p = subprocess.Popen(["true"])
    p.wait()
    assert not procs.alive(p.pid) and procs.executable(p.pid) is None


@pytest.mark.provider
def test_kill_the_provider_of_one_terraform_run_while_its_call_is_held(sandbox, tmp_path):
    """Two plans hold their DescribeCluster at once; killing the first one's provider fails that plan (rc 1, the
    plugin's death as the error) and leaves the second's provider running: released, it plans normally."""
    from harness import Terraform
    sandbox.reset()
    runs = []
    for name in ("killed", "spared"):
        tf = Terraform(tmp_path / name, sandbox.env())
        tf.write(DESCRIBE_CLUSTER)
        tf.init()
        runs.append(tf)
    sandbox.fault("DescribeCluster", "hold", count=2, service="sagemaker")
    killed, spared = (tf.start("plan", "-no-color", "-input=false") for tf in runs)
    try:
        deadline = time.monotonic() + 60
        while len(sandbox.held()) < 2:
            assert time.monotonic() < deadline, f"not both held: {sandbox.held()}"
            assert killed.running() and spared.running()
            time.sleep(0.05)
        (spared_provider,) = spared.provider_pids()
        pids = killed.kill_provider()
        assert pids and spared_provider not in pids and killed.killed == pids
        assert procs.alive(spared_provider) and killed.provider_pids() == []
    finally:
        sandbox.release_held()
        killed_result, spared_result = killed.wait(), spared.wait()
    assert killed_result.rc == 1, killed_result.stdout
    assert "plugin" in killed_result.stderr.lower() or "provider" in killed_result.stderr.lower(), \
        killed_result.stderr
    assert spared_result.rc == 0, spared_result.stderr
    assert killed_result.args[0] == "plan"


def test_kill_provider_fails_when_terraform_started_none(tf):
    tf.write('output "x" { value = 1 }')
    run = tf.start("version")
    result = run.wait(60)
    assert result.rc == 0 and "Terraform v1.15.5" in result.stdout
    with pytest.raises(RuntimeError, match="has no provider plugin"):
        run.kill_provider(timeout=1)
