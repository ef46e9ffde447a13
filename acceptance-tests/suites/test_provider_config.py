"""The provider block through a real Terraform: credentials chain, profiles and shared files, assume_role,
per-service endpoints, account guards and validation."""
import pytest

from harness import flat
from hcl import ACCOUNT, CLUSTER, FX, REGION

pytestmark = pytest.mark.provider

REQUIRED = """
terraform {
  required_providers {
    hyperpod = { source = "hyperpod-governance/hyperpod" }
  }
}
"""

READS_CLUSTER = f"""
data "hyperpod_cluster" "c" {{
  name = "{CLUSTER}"
}}

output "arn" {{
  value = data.hyperpod_cluster.c.arn
}}
"""

CLUSTER_ARN = FX.cluster_arn("eks")
REGION_LINE = f'  region = "{REGION}"'


def provider(body: str) -> str:
    return REQUIRED + 'provider "hyperpod" {\n' + body + "\n}\n" + READS_CLUSTER


def test_region_and_credentials_from_the_environment(tf):
    tf.write(provider(""))
    tf.apply()
    assert tf.output("arn") == CLUSTER_ARN


@pytest.mark.sandbox_only(reason="dummy credentials that only the sandbox accepts")
def test_profile_from_shared_config_and_credentials_files(tf):
    config = tf.write_file("aws-config", f"[profile capacity]\nregion = {REGION}\n")
    credentials = tf.write_file("aws-credentials", "[capacity]\naws_access_key_id = AKIDCAPACITY\n"
                                                   "aws_secret_access_key = secret\n")
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION"):
        tf.env.pop(variable, None)
    tf.write(provider(f'  profile                  = "capacity"\n'
                      f'  shared_config_files      = ["{config}"]\n'
                      f'  shared_credentials_files = ["{credentials}"]'))
    tf.apply()
    assert tf.output("arn") == CLUSTER_ARN


def test_missing_region_is_a_clear_error(tf):
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        tf.env.pop(variable, None)
    tf.env["AWS_CONFIG_FILE"] = str(tf.write_file("empty-config", ""))
    tf.write(provider(""))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("no AWS region is configured: set `region` in the provider block") in flat(result.stderr)


@pytest.mark.sandbox_only(reason="assumes a role in a made-up account")
def test_assume_role_is_used_for_every_call(tf):
    # The sandbox's STS hands out credentials for the role's account, so the account guard sees the assumed identity.
    tf.write(provider(f'  region              = "{REGION}"\n'
                      f'  allowed_account_ids = ["{ACCOUNT}"]\n'
                      '  assume_role {\n'
                      '    role_arn     = "arn:aws:iam::111122223333:role/capacity-admin"\n'
                      '    session_name = "pipeline"\n'
                      '    external_id  = "capacity-ci"\n'
                      '    duration     = "30m"\n'
                      '  }'))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("the credentials belong to account 111122223333, which is not in allowed_account_ids") \
        in flat(result.stderr)


@pytest.mark.sandbox_only(reason="points endpoints at the sandbox's URL")
def test_per_service_endpoints_override_the_global_one(tf, sandbox):
    tf.env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9"  # nothing listens there
    tf.write(provider(REGION_LINE + '\n'
                      '  endpoints {\n'
                      f'    sts       = "{sandbox.url}"\n'
                      f'    sagemaker = "{sandbox.url}"\n'
                      '  }'))
    tf.apply()
    assert tf.output("arn") == CLUSTER_ARN


def test_unreachable_endpoint_fails_configuration_readably(tf):
    tf.env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9"
    tf.write(provider(f'  region      = "{REGION}"\n  max_retries = 0'))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("could not confirm the AWS identity (sts:GetCallerIdentity)") in flat(result.stderr)
    assert "Connection refused" in result.stderr


def test_wrong_account_fails_configuration(tf):
    tf.write(provider(f'  region              = "{REGION}"\n  allowed_account_ids = ["111122223333"]'))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat(f"account {ACCOUNT}, which is not in allowed_account_ids") in flat(result.stderr)


def test_forbidden_account_fails_configuration(tf):
    tf.write(provider(f'  region                = "{REGION}"\n  forbidden_account_ids = ["{ACCOUNT}"]'))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("which is listed in forbidden_account_ids") in flat(result.stderr)


def test_invalid_provider_settings_fail_validation_with_paths(tf):
    tf.write(provider('  region                = "mars"\n'
                      '  max_retries           = 100\n'
                      '  allowed_account_ids   = ["12"]\n'
                      f'  forbidden_account_ids = ["{ACCOUNT}"]\n'
                      '  endpoints {\n    sagemaker = "localhost:4599"\n  }'))
    result = tf.plan(check=False)
    assert result.rc == 1
    stderr = flat(result.stderr)
    assert flat('region: "mars" is not an AWS region name') in stderr
    assert flat("max_retries: the value is out of range. Observed: 100") in stderr
    assert flat('"12" is not an AWS account ID (12 digits)') in stderr
    assert flat("allowed_account_ids and forbidden_account_ids cannot both be set") in stderr
    assert flat('endpoints.sagemaker: the value is not a URL. Observed: "localhost:4599"') in stderr
