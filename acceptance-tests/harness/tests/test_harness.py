"""Tests of the harness itself (none needs the provider binary)."""
import json
import os
import subprocess

import pytest

from harness import PROVIDER_SOURCE, Sandbox, Terraform, TerraformError, provider_dir, require_provider

DATA_ONLY = """
    resource "terraform_data" "policy" {
      input = { name = "cluster-policy", weight = 90 }
    }

    output "weight" {
      value = terraform_data.policy.output.weight
    }
"""


def test_terraform_version_through_shim(tf):
    out = tf.run("version", "-json").stdout
    assert json.loads(out)["terraform_version"] == "1.15.5"
    assert tf.binary.endswith("/bin/terraform")


def test_environment_points_at_sandbox_and_provider(tf, sandbox, fx):
    env = tf.env
    assert env["AWS_ENDPOINT_URL"] == sandbox.url and env["AWS_REGION"] == fx.region
    assert env["AWS_EC2_METADATA_DISABLED"] == "true" and env["CHECKPOINT_DISABLE"] == "1"
    assert env["TF_IN_AUTOMATION"] == "1" and env["AWS_ACCESS_KEY_ID"]
    cli_config = open(env["TF_CLI_CONFIG_FILE"]).read()
    assert f'"{PROVIDER_SOURCE}" = {json.dumps(str(provider_dir()))}' in cli_config and "direct {}" in cli_config


def test_terraform_data_lifecycle(tf):
    tf.write(DATA_ONLY)
    tf.init()
    assert tf.plan().rc == 2  # -detailed-exitcode: changes pending
    tf.apply()
    assert tf.output("weight") == 90
    state = tf.state_json()
    assert [r["type"] for r in state["resources"]] == ["terraform_data"]
    shown = tf.show_json()["values"]["root_module"]["resources"][0]
    assert shown["values"]["output"] == {"name": "cluster-policy", "weight": 90}
    assert tf.plan().rc == 0  # converged
    tf.destroy()
    assert tf.state_json()["resources"] == []


def test_plan_file_show_json(tf):
    tf.write(DATA_ONLY)
    tf.init()
    tf.plan(["-out=tfplan"])
    changes = tf.show_json("tfplan")["resource_changes"]
    assert [(c["address"], c["change"]["actions"]) for c in changes] == [("terraform_data.policy", ["create"])]


def test_failure_raises_with_rc_and_output(tf):
    tf.write('resource "terraform_data" "broken" {\n  input = undefined_thing\n}\n')
    with pytest.raises(TerraformError) as info:
        tf.init()
        tf.plan()
    assert info.value.result.rc == 1
    assert "exited 1" in str(info.value) and "--- stderr ---" in str(info.value)
    assert tf.plan(check=False).rc == 1


def test_shim_passes_exit_codes_directly(tf):
    tf.write(DATA_ONLY)
    tf.init()
    proc = subprocess.run([tf.binary, "plan", "-detailed-exitcode", "-no-color", "-input=false"],
                          cwd=tf.dir, env=tf.env, capture_output=True, text=True)
    assert proc.returncode == 2 and "1 to add" in proc.stdout


def test_sandbox_from_env_url_is_not_owned(sandbox, monkeypatch):
    monkeypatch.setenv("HYPERPOD_SANDBOX_URL", sandbox.url)
    attached = Sandbox.from_env_or_start()
    assert attached.process is None and attached.health()["status"] == "ok"
    attached.stop()  # a no-op: the session's sandbox keeps running
    assert sandbox.health()["status"] == "ok"


@pytest.mark.parametrize("ci", [None, "true"])
def test_missing_provider_skips_or_fails_in_ci(tmp_path, monkeypatch, ci):
    monkeypatch.setenv("HYPERPOD_PROVIDER_DIR", str(tmp_path))
    if ci:
        monkeypatch.setenv("CI", ci)
    else:
        monkeypatch.delenv("CI", raising=False)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match="terraform-provider-hyperpod"):
        require_provider()
    binary = tmp_path / "terraform-provider-hyperpod"
    binary.write_text("#!/bin/sh\n")
    os.chmod(binary, 0o755)
    require_provider()  # present: no skip, no failure


def test_custom_cli_config_replaces_dev_overrides(tmp_path):
    config = """\
        provider_installation {
          filesystem_mirror {
            path = "/srv/mirror"
          }
        }
        """
    tf = Terraform(tmp_path, {}, cli_config=config)
    assert tf.env["TF_CLI_CONFIG_FILE"] == str(tf.cli_config)
    text = tf.cli_config.read_text()
    assert text.startswith("provider_installation {\n  filesystem_mirror {") and "dev_overrides" not in text
