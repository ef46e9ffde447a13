"""`terraform-provider-hyperpod --debug`: the provider serves on its own and Terraform attaches to it through
TF_REATTACH_PROVIDERS (how developers run it under a debugger)."""
import json
import re
import signal
import subprocess

import pytest

from harness import current_fixture, provider_binary

pytestmark = pytest.mark.provider

CONFIG = f"""
terraform {{
  required_providers {{
    hyperpod = {{ source = "hyperpod-governance/hyperpod" }}
  }}
}}

provider "hyperpod" {{}}

data "hyperpod_cluster" "c" {{
  name = "{current_fixture().clusters.eks.name}"
}}

output "orchestrator" {{
  value = data.hyperpod_cluster.c.orchestrator
}}
"""


def test_terraform_attaches_to_a_provider_started_with_debug(tf):
    provider = subprocess.Popen([str(provider_binary()), "--debug"], env=tf.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        reattach = None
        for line in provider.stdout:
            match = re.search(r"TF_REATTACH_PROVIDERS='(.*)'", line)
            if match:
                reattach = json.loads(match.group(1))
                break
        assert reattach, "the debug server printed no TF_REATTACH_PROVIDERS value"
        entry = reattach["registry.terraform.io/hyperpod-governance/hyperpod"]
        assert entry["ProtocolVersion"] == 6 and entry["Addr"]["Network"] == "unix"
        # No dev_overrides: Terraform must use the running process, not start the binary itself.
        tf.env.pop("TF_CLI_CONFIG_FILE")
        tf.env["TF_REATTACH_PROVIDERS"] = json.dumps(reattach)
        tf.write(CONFIG)
        tf.apply()
        assert tf.output("orchestrator") == "eks"
        assert provider.poll() is None, "the debug server must outlive Terraform's runs"
    finally:
        provider.send_signal(signal.SIGINT)
        assert provider.wait(timeout=5) == 0
