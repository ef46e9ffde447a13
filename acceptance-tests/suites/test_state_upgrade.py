"""State written by the previous release, read by this one through a real Terraform (`UpgradeResourceState`).

`tests/fixtures/state-0.1.0/quickstart.tfstate` is the state provider 0.1.0 wrote when it applied
examples/quickstart against the sandbox's local seed; the test reads it under the run's fixture's names
(hcl.as_run_fixture). 0.2.0 changed one stored shape: `hyperpod_scheduling_policy`'s `id` was
SageMaker's scheduler config ID and is now the cluster name, with the config ID in `scheduler_config_id`
(schema version 0 -> 1). Here the 0.1.0 state of the policy is put in front of this provider with a live config
behind it: the plan must be empty, the upgraded state must carry the moved ID, and updates must reach the same
config. (tests/state_compat.rs checks every other resource's 0.1.0 state decodes.)"""
import json
from pathlib import Path

import pytest

from harness import flat
from hcl import CLUSTER, PROVIDER_REGION, as_run_fixture, provider

pytestmark = pytest.mark.provider

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "state-0.1.0" / "quickstart.tfstate"
ADDR = "hyperpod_scheduling_policy.capacity"

# The quickstart's provider and policy, with the cluster named directly instead of through the data source.
CONFIG = provider(f"""{PROVIDER_REGION}
  default_tags {{
    tags = {{ "managed-by" = "terraform" }}
  }}""") + f"""

resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name          = "{CLUSTER}"
  description           = "Production first; research borrows idle capacity"
  fair_share            = true
  idle_resource_sharing = true

  priority_class {{
    name   = "production"
    weight = 90
  }}
  priority_class {{
    name   = "research"
    weight = RESEARCH_WEIGHT
  }}

  tags = {{ "cost-center" = "ml-platform" }}
}}
"""


def recorded_policy():
    state = json.loads(as_run_fixture(FIXTURE.read_text()))
    [resource] = [r for r in state["resources"] if r["type"] == "hyperpod_scheduling_policy"]
    return state, resource


def recreate_live(sandbox, attributes):
    """The config 0.1.0 created, made again (SageMaker generates a new ID)."""
    sm = sandbox.client("sagemaker")
    created = sm.create_cluster_scheduler_config(
        Name=attributes["name"],
        ClusterArn=attributes["cluster_arn"],
        Description=attributes["description"],
        SchedulerConfig={
            "PriorityClasses": [{"Name": c["name"], "Weight": c["weight"]} for c in attributes["priority_class"]],
            "FairShare": "Enabled" if attributes["fair_share"] else "Disabled",
            "IdleResourceSharing": "Enabled" if attributes["idle_resource_sharing"] else "Disabled",
        },
        Tags=[{"Key": k, "Value": v} for k, v in attributes["tags_all"].items()],
    )
    return sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=created["ClusterSchedulerConfigId"])


def test_0_1_0_policy_state_upgrades_with_an_empty_plan_and_keeps_managing_the_same_config(tf, sandbox):
    state, resource = recorded_policy()
    [instance] = resource["instances"]
    assert instance["schema_version"] == 0
    live = recreate_live(sandbox, instance["attributes"])
    # Only what SageMaker generated differs from the recording; everything else is 0.1.0's state as written.
    instance["attributes"].update(id=live["ClusterSchedulerConfigId"], arn=live["ClusterSchedulerConfigArn"],
                                  version=live["ClusterSchedulerConfigVersion"], status=live["Status"])
    instance.pop("dependencies", None)
    state.update(resources=[resource], outputs={}, check_results=None, serial=1)
    tf.write_file("terraform.tfstate", json.dumps(state, indent=2))
    # The recorded state carries no test tag: the harness's (for the sweeper, where it adds one) would be a change.
    tf.test_tags = False
    tf.write(CONFIG.replace("RESEARCH_WEIGHT", "10"))

    tf.assert_no_changes()
    tf.apply("-refresh-only")
    [upgraded] = tf.state_json()["resources"][0]["instances"]
    assert upgraded["schema_version"] == 1
    assert upgraded["attributes"]["id"] == CLUSTER
    assert upgraded["attributes"]["scheduler_config_id"] == live["ClusterSchedulerConfigId"]
    assert upgraded["identity"] == instance["identity"]

    # The moved ID is the one updates use: an in-place change reaches the recorded config, no replacement.
    tf.write(CONFIG.replace("RESEARCH_WEIGHT", "20"))
    plan = tf.plan()
    assert flat(f"{ADDR} will be updated in-place") in flat(plan.stdout)
    tf.apply()
    after = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=live["ClusterSchedulerConfigId"])
    assert after["SchedulerConfig"]["PriorityClasses"][1] == {"Name": "research", "Weight": 20}
    assert after["ClusterSchedulerConfigVersion"] == live["ClusterSchedulerConfigVersion"] + 1
    tf.assert_no_changes()

