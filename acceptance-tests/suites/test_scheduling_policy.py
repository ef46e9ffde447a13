"""hyperpod_scheduling_policy through a real Terraform (1.15.5) against the sandbox:
basic, update, import (by ID and by identity), drift, disappears, destroy, plan-time refusals, and
failures that AWS reports asynchronously."""
import json

import pytest

from harness import flat

pytestmark = pytest.mark.provider

ADDR = "hyperpod_scheduling_policy.capacity"

PROVIDER = """
terraform {
  required_providers {
    hyperpod = { source = "hyperpod-governance/hyperpod" }
  }
}

provider "hyperpod" {
  region = "us-west-2"
}
"""


def policy(classes=(("production", 90), ("research", 10)), cluster="ml-capacity", extra=""):
    blocks = "\n".join(
        f"  priority_class {{\n    name   = \"{name}\"\n    weight = {weight}\n  }}" for name, weight in classes
    )
    return PROVIDER + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = "{cluster}"
  fair_share   = true
{extra}
{blocks}
}}
"""


def live_configs(sandbox, cluster_arn=None):
    """Scheduler configs the sandbox still holds (not deleted)."""
    sm = sandbox.client("sagemaker")
    kwargs = {"ClusterArn": cluster_arn} if cluster_arn else {}
    summaries = sm.list_cluster_scheduler_configs(**kwargs)["ClusterSchedulerConfigSummaries"]
    return [s for s in summaries if s["Status"] not in ("Deleted", "Deleting")]


def resource_state(tf):
    for resource in tf.show_json()["values"]["root_module"]["resources"]:
        if resource["address"] == ADDR:
            return resource["values"]
    raise AssertionError(f"{ADDR} not in state")



def cluster_arn(sandbox, name="ml-capacity"):
    return sandbox.client("sagemaker").describe_cluster(ClusterName=name)["ClusterArn"]


def test_schema_describes_every_attribute(tf):
    tf.write(PROVIDER)
    schema = tf.schema_json()["provider_schemas"]["registry.terraform.io/hyperpod-governance/hyperpod"]
    block = schema["resource_schemas"]["hyperpod_scheduling_policy"]["block"]
    for name, attribute in block["attributes"].items():
        assert attribute.get("description"), f"{name} has no description"
    for name, nested in block["block_types"].items():
        for attr_name, attribute in nested["block"]["attributes"].items():
            assert attribute.get("description"), f"{name}.{attr_name} has no description"
    assert block["block_types"]["priority_class"]["max_items"] == 10
    assert block["attributes"]["cluster_name"]["required"] is True
    identity = schema["resource_identity_schemas"]["hyperpod_scheduling_policy"]["attributes"]
    assert identity["cluster_name"]["required_for_import"] is True
    assert "hyperpod_cluster" in schema["data_source_schemas"]
    assert "team_namespace" in schema["functions"]
    assert schema["provider"]["block"]["block_types"]["assume_role"]["block"]["attributes"]["role_arn"]["description"]


def test_basic_create_then_empty_plan(tf, sandbox):
    tf.write(policy())
    plan = tf.plan()
    assert plan.rc == 2
    # Facts known before anything exists: the cluster ARN and the policy's name.
    assert flat('cluster_arn           = "arn:aws:sagemaker:us-west-2:123456789012:cluster/mlcapeks0001"') in flat(plan.stdout)
    assert flat('name                  = "ml-capacity-policy"') in flat(plan.stdout)
    # The ID is the cluster name, so dependents and reviewers see it before apply; SageMaker's ID comes later.
    assert flat('id                    = "ml-capacity"') in flat(plan.stdout)
    assert flat("scheduler_config_id   = (known after apply)") in flat(plan.stdout)
    tf.apply()
    state = resource_state(tf)
    assert state["id"] == "ml-capacity"
    assert state["status"] == "Created"
    assert state["version"] == 1
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(ClusterSchedulerConfigId=state["scheduler_config_id"])
    assert live["SchedulerConfig"]["PriorityClasses"] == [
        {"Name": "production", "Weight": 90},
        {"Name": "research", "Weight": 10},
    ]
    assert live["SchedulerConfig"]["FairShare"] == "Enabled"
    assert live["ClusterArn"] == cluster_arn(sandbox)
    tf.assert_no_changes()


def test_update_in_place_bumps_the_version(tf, sandbox):
    tf.write(policy())
    tf.apply()
    first = resource_state(tf)
    tf.write(policy(classes=(("production", 80), ("research", 10), ("batch", 5)), extra='  description = "capacity policy"'))
    plan = tf.plan()
    assert flat("will be updated in-place") in flat(plan.stdout)
    assert "must be replaced" not in plan.stdout
    tf.apply()
    second = resource_state(tf)
    assert second["scheduler_config_id"] == first["scheduler_config_id"]
    assert second["version"] == first["version"] + 1
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(ClusterSchedulerConfigId=second["scheduler_config_id"])
    assert [c["Name"] for c in live["SchedulerConfig"]["PriorityClasses"]] == ["production", "research", "batch"]
    assert live["Description"] == "capacity policy"
    tf.assert_no_changes()


def test_tags_merge_default_tags_and_update(tf, sandbox):
    provider_with_tags = PROVIDER.replace('region = "us-west-2"', 'region = "us-west-2"\n  default_tags {\n    tags = { owner = "platform" }\n  }')
    config = policy(extra='  tags = { team = "capacity" }').replace(PROVIDER, provider_with_tags)
    tf.write(config)
    tf.apply()
    state = resource_state(tf)
    assert state["tags_all"] == {"owner": "platform", "team": "capacity"}
    assert state["tags"] == {"team": "capacity"}
    live = sandbox.client("sagemaker").list_tags(ResourceArn=state["arn"])["Tags"]
    assert {t["Key"]: t["Value"] for t in live} == {"owner": "platform", "team": "capacity"}
    tf.assert_no_changes()
    tf.write(config.replace('team = "capacity"', 'team = "ml-platform"'))
    tf.apply()
    live = sandbox.client("sagemaker").list_tags(ResourceArn=state["arn"])["Tags"]
    assert {t["Key"]: t["Value"] for t in live} == {"owner": "platform", "team": "ml-platform"}
    tf.assert_no_changes()


def test_import_by_cluster_name_matches_state(tf, sandbox):
    sm = sandbox.client("sagemaker")
    created = sm.create_cluster_scheduler_config(
        Name="ml-capacity-policy",
        ClusterArn=cluster_arn(sandbox),
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}],
                         "FairShare": "Enabled"},
    )
    tf.write(policy())
    tf.import_(ADDR, "ml-capacity")
    state = resource_state(tf)
    assert state["scheduler_config_id"] == created["ClusterSchedulerConfigId"]
    assert state["id"] == state["cluster_name"] == "ml-capacity"
    assert [c["name"] for c in state["priority_class"]] == ["production", "research"]
    tf.assert_no_changes()


def test_import_block_by_identity(tf, sandbox):
    sm = sandbox.client("sagemaker")
    created = sm.create_cluster_scheduler_config(
        Name="ml-capacity-policy", ClusterArn=cluster_arn(sandbox),
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}],
                         "FairShare": "Enabled"},
    )
    tf.write(policy() + f"""
import {{
  to       = {ADDR}
  identity = {{ cluster_name = "ml-capacity" }}
}}
""")
    plan = tf.plan()
    assert flat("1 to import, 0 to add, 0 to change, 0 to destroy") in flat(plan.stdout)
    tf.apply()
    assert resource_state(tf)["scheduler_config_id"] == created["ClusterSchedulerConfigId"]
    identity = tf.state_json()["resources"][0]["instances"][0]["identity"]
    assert identity == {"cluster_name": "ml-capacity", "account_id": "123456789012", "region": "us-west-2"}


def test_import_of_a_cluster_without_a_policy_says_so(tf):
    tf.write(policy())
    result = tf.import_(ADDR, "ml-capacity", check=False)
    assert result.rc == 1
    assert flat("has no scheduling policy") in flat(result.stderr)


def test_out_of_band_change_shows_as_drift_and_apply_repairs_it(tf, sandbox):
    tf.write(policy())
    tf.apply()
    state = resource_state(tf)
    sm = sandbox.client("sagemaker")
    live = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=state["scheduler_config_id"])
    sm.update_cluster_scheduler_config(
        ClusterSchedulerConfigId=state["scheduler_config_id"], TargetVersion=live["ClusterSchedulerConfigVersion"],
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 50}], "FairShare": "Disabled"},
    )
    plan = tf.plan()
    assert plan.rc == 2
    assert flat("will be updated in-place") in flat(plan.stdout)
    assert flat("~ weight = 50 -> 90") in flat(plan.stdout)
    assert flat("~ fair_share            = false -> true") in flat(plan.stdout)
    tf.apply()
    repaired = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=state["scheduler_config_id"])
    assert repaired["SchedulerConfig"]["PriorityClasses"] == [
        {"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}]
    assert repaired["SchedulerConfig"]["FairShare"] == "Enabled"
    tf.assert_no_changes()


def test_disappears_is_recreated(tf, sandbox):
    tf.write(policy())
    tf.apply()
    old_id = resource_state(tf)["scheduler_config_id"]
    sandbox.client("sagemaker").delete_cluster_scheduler_config(ClusterSchedulerConfigId=old_id)
    _wait_gone(sandbox, old_id)
    plan = tf.plan()
    assert plan.rc == 2
    assert flat("will be created") in flat(plan.stdout)
    tf.apply()
    assert resource_state(tf)["scheduler_config_id"] != old_id
    assert len(live_configs(sandbox)) == 1


def _wait_gone(sandbox, config_id, timeout=10.0):
    import time
    sm = sandbox.client("sagemaker")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
        except sm.exceptions.ResourceNotFound:
            return
        time.sleep(0.2)
    raise AssertionError(f"{config_id} still exists")


def test_destroy_leaves_nothing(tf, sandbox):
    tf.write(policy())
    tf.apply()
    assert len(live_configs(sandbox)) == 1
    tf.destroy()
    assert live_configs(sandbox) == []
    assert tf.show_json().get("values") is None


@pytest.mark.parametrize(
    "classes, path, message",
    [
        ((("production", 101),), "priority_class[0].weight", "Observed: 101"),
        ((("production", 90), ("-bad", 1)), "priority_class[1].name", 'Observed: "-bad"'),
        ((("Prod_1", 1),), "priority_class[0].name", 'Observed: "Prod_1"'),
        ((("a", 1), ("b", 2), ("a", 3)), "priority_class[2].name", "another priority_class already has this name"),
    ],
)
def test_invalid_priority_classes_fail_at_plan_with_the_path(tf, sandbox, classes, path, message):
    tf.write(policy(classes=classes))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert path in result.stderr
    assert message in result.stderr
    assert live_configs(sandbox) == []


def test_eleven_priority_classes_fail_at_plan(tf, sandbox):
    tf.write(policy(classes=[(f"class-{i}", i) for i in range(11)]))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("Too many priority_class blocks") in flat(result.stderr)
    assert live_configs(sandbox) == []


def test_slurm_cluster_is_refused_at_plan(tf):
    tf.write(policy(cluster="slurm-capacity"))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("exist only for EKS-orchestrated clusters") in flat(result.stderr)
    assert flat('cluster_name = "slurm-capacity"') in flat(result.stderr)  # Terraform points at the attribute's line


def test_unknown_cluster_is_refused_at_plan(tf):
    tf.write(policy(cluster="no-such-cluster"))
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("no HyperPod cluster of that name exists in account 123456789012 region us-west-2") in flat(result.stderr)


def test_second_policy_on_a_cluster_is_refused_at_plan_with_import_advice(tf, sandbox):
    sandbox.client("sagemaker").create_cluster_scheduler_config(
        Name="other", ClusterArn=cluster_arn(sandbox), SchedulerConfig={"PriorityClasses": []})
    tf.write(policy())
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("already has a scheduling policy") in flat(result.stderr)
    assert flat("terraform import hyperpod_scheduling_policy.<name> ml-capacity") in flat(result.stderr)


@pytest.mark.sandbox_only(reason="injects an asynchronous failure")
def test_asynchronous_create_failure_surfaces_the_reason_and_the_next_apply_replaces(tf, sandbox):
    sandbox.fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="Insufficient capacity for Kueue")
    tf.write(policy())
    result = tf.apply(check=False)
    assert result.rc == 1
    assert flat("CreateFailed") in flat(result.stderr)
    assert flat("Insufficient capacity for Kueue") in flat(result.stderr)
    # Nothing is orphaned: the failed object is in state, tainted, and the next apply replaces it.
    state = tf.state_json()["resources"][0]["instances"][0]
    assert state["status"] == "tainted"
    failed_id = state["attributes"]["scheduler_config_id"]
    plan = tf.plan()
    assert flat("is tainted, so must be replaced") in flat(plan.stdout)
    tf.apply()
    assert resource_state(tf)["scheduler_config_id"] != failed_id
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [resource_state(tf)["scheduler_config_id"]]


@pytest.mark.sandbox_only(reason="injects a ConflictException")
def test_update_retries_after_a_concurrent_version_bump(tf, sandbox):
    tf.write(policy())
    tf.apply()
    sandbox.fault("UpdateClusterSchedulerConfig", "error", code="ConflictException", status=400, count=1)
    tf.write(policy(classes=(("production", 70), ("research", 30))))
    tf.apply()
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(ClusterSchedulerConfigId=resource_state(tf)["scheduler_config_id"])
    assert live["SchedulerConfig"]["PriorityClasses"][0]["Weight"] == 70


@pytest.mark.sandbox_only(reason="injects throttling")
def test_throttling_is_retried(tf, sandbox):
    sandbox.fault("DescribeCluster", "error", code="ThrottlingException", status=400, count=2)
    tf.write(policy())
    tf.apply()
    assert resource_state(tf)["status"] == "Created"


def test_function_and_data_source(tf):
    tf.write(PROVIDER + """
data "hyperpod_cluster" "eks" {
  name = "ml-capacity"
}

data "hyperpod_cluster" "slurm" {
  name = "slurm-capacity"
}

output "namespace" {
  value = provider::hyperpod::team_namespace("research")
}

output "eks" {
  value = data.hyperpod_cluster.eks
}

output "slurm_orchestrator" {
  value = data.hyperpod_cluster.slurm.orchestrator
}
""")
    tf.apply()
    assert tf.output("namespace") == "hyperpod-ns-research"
    eks = tf.output("eks")
    assert eks["orchestrator"] == "eks"
    assert eks["eks_cluster_arn"].endswith(":cluster/ml-capacity-eks")
    assert {g["instance_type"]: g["current_count"] for g in eks["instance_groups"]} == {
        "ml.p5.48xlarge": 8, "ml.g5.8xlarge": 4}
    assert tf.output("slurm_orchestrator") == "slurm"


def test_function_refuses_a_bad_team_name(tf):
    tf.write(PROVIDER + 'output "ns" {\n  value = provider::hyperpod::team_namespace("Research_Team")\n}\n')
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("not a valid team name") in flat(result.stderr)
