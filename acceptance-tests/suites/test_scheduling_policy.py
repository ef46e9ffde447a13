"""hyperpod_scheduling_policy through a real Terraform (1.15.5) against the sandbox:
basic, update, import (by ID and by identity), drift, disappears, destroy, invalid configuration (a plan error),
refusals (what the account decides, such as a Slurm, missing or already governed cluster: the plan warns that apply
refuses the change, since no such finding may fail a plan, and apply refuses it before writing anything), and
failures that AWS reports asynchronously."""
import re
import subprocess
import time

import pytest

from harness import flat, provider_binary
from harness.tags import tag_list
from harness.terraform import REFUSED, REFUSED_AT_APPLY
from hcl import ACCOUNT, CLUSTER, FX, PROVIDER_REGION, REGION, SLURM_CLUSTER, provider

pytestmark = pytest.mark.provider

ADDR = "hyperpod_scheduling_policy.capacity"
# The tag that proves a config was created by this resource for the EKS cluster (how an interrupted create is
# recognised on the next apply).
OWNED = {"hyperpod-governance:owner": f"hyperpod_scheduling_policy/{CLUSTER}"}
POLICY_NAME = f"{CLUSTER}-policy"  # the policy's default name: <cluster>-policy

PROVIDER = provider()


def policy(classes=(("production", 90), ("research", 10)), cluster=CLUSTER, extra=""):
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



def cluster_arn(sandbox, name=CLUSTER):
    return sandbox.client("sagemaker").describe_cluster(ClusterName=name)["ClusterArn"]


_MADE_OUTSIDE: list = []  # ids of the scheduler configs the running test made with boto3


def create_outside(sandbox, **request) -> dict:
    """CreateClusterSchedulerConfig outside Terraform (someone else's config, or one to import)."""
    created = sandbox.client("sagemaker").create_cluster_scheduler_config(**request)
    _MADE_OUTSIDE.append(created["ClusterSchedulerConfigId"])
    return created


@pytest.fixture(autouse=True)
def no_config_left(sandbox):
    """On a real account (nothing resets it), a config the test made outside Terraform and did not import (and
    destroy) is deleted after it, so the next test finds the cluster as this one did; only those, never another."""
    _MADE_OUTSIDE.clear()
    yield
    if sandbox.real:
        sm = sandbox.client("sagemaker")
        for config_id in _MADE_OUTSIDE:
            try:
                sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
            except sm.exceptions.ResourceNotFound:
                pass


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
    assert flat(f'cluster_arn           = "{FX.cluster_arn("eks")}"') in flat(plan.stdout)
    assert flat(f'name                  = "{POLICY_NAME}"') in flat(plan.stdout)
    # The ID is the cluster name, so dependents and reviewers see it before apply; SageMaker's ID comes later.
    assert flat(f'id                    = "{CLUSTER}"') in flat(plan.stdout)
    assert flat("scheduler_config_id   = (known after apply)") in flat(plan.stdout)
    tf.apply()
    state = resource_state(tf)
    assert state["id"] == CLUSTER
    assert state["status"] == "Created"
    assert state["version"] == 1
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=state["scheduler_config_id"])
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
    tf.write(policy(classes=(("production", 80), ("research", 10), ("batch", 5)),
                    extra='  description = "capacity policy"'))
    plan = tf.plan()
    assert flat("will be updated in-place") in flat(plan.stdout)
    assert "must be replaced" not in plan.stdout
    tf.apply()
    second = resource_state(tf)
    assert second["scheduler_config_id"] == first["scheduler_config_id"]
    assert second["version"] == first["version"] + 1
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=second["scheduler_config_id"])
    assert [c["Name"] for c in live["SchedulerConfig"]["PriorityClasses"]] == ["production", "research", "batch"]
    assert live["Description"] == "capacity policy"
    tf.assert_no_changes()


def test_tags_merge_default_tags_and_update(tf, sandbox):
    provider_with_tags = PROVIDER.replace(
        PROVIDER_REGION, PROVIDER_REGION + '\n  default_tags {\n    tags = { owner = "platform" }\n  }')
    config = policy(extra='  tags = { team = "capacity" }').replace(PROVIDER, provider_with_tags)
    tf.write(config)
    tf.apply()
    state = resource_state(tf)
    # The harness may add the fixture's test tag to the provider's default_tags (for the sweeper): a default tag too.
    test_tag = {FX.test_tag.key: FX.test_tag.value} if getattr(tf, "test_tags", False) else {}
    assert state["tags_all"] == {"owner": "platform", "team": "capacity", **test_tag}
    assert state["tags"] == {"team": "capacity"}
    live = sandbox.client("sagemaker").list_tags(ResourceArn=state["arn"])["Tags"]
    # The provider's ownership tag is on the config too, but kept out of tags/tags_all.
    assert {t["Key"]: t["Value"] for t in live} == {"owner": "platform", "team": "capacity", **OWNED, **test_tag}
    tf.assert_no_changes()
    tf.write(config.replace('team = "capacity"', 'team = "ml-platform"'))
    tf.apply()
    live = sandbox.client("sagemaker").list_tags(ResourceArn=state["arn"])["Tags"]
    assert {t["Key"]: t["Value"] for t in live} == {"owner": "platform", "team": "ml-platform", **OWNED, **test_tag}
    tf.assert_no_changes()


def test_import_by_cluster_name_matches_state(tf, sandbox):
    # Made with the test tag, as the configuration will have it (the harness adds it to default_tags).
    created = create_outside(
        sandbox, Name=POLICY_NAME, Tags=tag_list(),
        ClusterArn=cluster_arn(sandbox),
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}],
                         "FairShare": "Enabled"},
    )
    tf.write(policy())
    tf.import_(ADDR, CLUSTER)
    state = resource_state(tf)
    assert state["scheduler_config_id"] == created["ClusterSchedulerConfigId"]
    assert state["id"] == state["cluster_name"] == CLUSTER
    assert [c["name"] for c in state["priority_class"]] == ["production", "research"]
    tf.assert_no_changes()


def test_import_block_by_identity(tf, sandbox):
    created = create_outside(
        sandbox, Name=POLICY_NAME, ClusterArn=cluster_arn(sandbox), Tags=tag_list(),
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}],
                         "FairShare": "Enabled"},
    )
    tf.write(policy() + f"""
import {{
  to       = {ADDR}
  identity = {{ cluster_name = "{CLUSTER}" }}
}}
""")
    plan = tf.plan()
    assert flat("1 to import, 0 to add, 0 to change, 0 to destroy") in flat(plan.stdout)
    tf.apply()
    assert resource_state(tf)["scheduler_config_id"] == created["ClusterSchedulerConfigId"]
    identity = tf.state_json()["resources"][0]["instances"][0]["identity"]
    assert identity == {"cluster_name": CLUSTER, "account_id": ACCOUNT, "region": REGION}


def test_import_of_a_cluster_without_a_policy_says_so(tf):
    tf.write(policy())
    result = tf.import_(ADDR, CLUSTER, check=False)
    assert result.rc == 1
    assert flat("has no scheduling policy") in flat(result.stderr)


def test_out_of_band_change_shows_as_drift_and_apply_repairs_it(tf, sandbox):
    tf.write(policy())
    tf.apply()
    state = resource_state(tf)
    sm = sandbox.client("sagemaker")
    live = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=state["scheduler_config_id"])
    sm.update_cluster_scheduler_config(
        ClusterSchedulerConfigId=state["scheduler_config_id"],
        TargetVersion=sandbox.target_version(live["ClusterSchedulerConfigVersion"]),
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


def assert_refused_at(tf, attribute: str, *texts: str):
    """The plan succeeds and warns once, on the policy at `attribute` (the line Terraform points at), that apply
    refuses the change, its summary and detail holding each of `texts`; then apply fails with that refusal as an error
    at the same attribute, saying nothing of the change was written. Returns apply's error."""
    verdict = tf.plan_json()
    refusals = [d for d in verdict.refusals if d.address == ADDR]
    assert verdict.rc == 2 and not verdict.errors and len(refusals) == 1, verdict.describe()
    (refusal,) = refusals
    assert verdict.line(refusal).strip().startswith(attribute), verdict.describe()
    for text in texts:
        assert flat(text) in flat(f"{refusal.summary} {refusal.detail}"), refusal
    applied = tf.apply_json()
    errors = [d for d in applied.errors if d.address == ADDR]
    assert applied.rc == 1 and len(errors) == 1, applied.describe()
    (error,) = errors
    assert error.summary == refusal.summary.removesuffix(REFUSED), applied.describe()
    assert REFUSED_AT_APPLY in flat(error.detail) and applied.line(error).strip().startswith(attribute), \
        applied.describe()
    for text in texts:
        assert flat(text) in flat(f"{error.summary} {error.detail}"), error
    return error


def test_slurm_cluster_is_refused(tf, sandbox):
    tf.write(policy(cluster=SLURM_CLUSTER))
    # Terraform points at the attribute's line.
    assert_refused_at(tf, f'cluster_name = "{SLURM_CLUSTER}"', "exist only for EKS-orchestrated clusters")
    assert live_configs(sandbox) == []
    assert tf.show_json().get("values") is None


def test_unknown_cluster_is_refused(tf, sandbox):
    tf.write(policy(cluster="no-such-cluster"))
    assert_refused_at(tf, "cluster_name",
                      f"no HyperPod cluster of that name exists in account {ACCOUNT} region {REGION}")
    assert live_configs(sandbox) == []
    assert tf.show_json().get("values") is None


def test_second_policy_on_a_cluster_is_refused_with_import_advice(tf, sandbox):
    other = create_outside(
        sandbox, Name="other", ClusterArn=cluster_arn(sandbox), SchedulerConfig={"PriorityClasses": []})
    tf.write(policy())
    assert_refused_at(tf, "cluster_name", "already has a scheduling policy",
                      f"terraform import hyperpod_scheduling_policy.<name> {CLUSTER}")
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [other["ClusterSchedulerConfigId"]]
    assert tf.show_json().get("values") is None


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


@pytest.mark.sandbox_only(reason="injects an asynchronous failure of the deletion")
def test_asynchronous_delete_failure_fails_the_destroy_with_the_reason_and_the_next_destroy_removes_it(tf, sandbox):
    tf.write(policy())
    tf.apply()
    config_id = resource_state(tf)["scheduler_config_id"]
    sandbox.fault("DeleteClusterSchedulerConfig", "async_failure", failure_reason="Jobs still hold the priority class")
    failed = tf.destroy_json()
    assert failed.rc == 1, failed.describe()
    (error,) = failed.errors
    assert "DeleteFailed" in error.detail and "Jobs still hold the priority class" in error.detail, error.detail
    # Nothing is forgotten: the policy stays in state, and the next destroy deletes it again.
    assert resource_state(tf)["scheduler_config_id"] == config_id
    tf.destroy()
    assert live_configs(sandbox) == []


@pytest.mark.sandbox_only(reason="injects a ConflictException")
def test_update_retries_after_a_concurrent_version_bump(tf, sandbox):
    tf.write(policy())
    tf.apply()
    sandbox.fault("UpdateClusterSchedulerConfig", "error", code="ConflictException", status=400, count=1)
    tf.write(policy(classes=(("production", 70), ("research", 30))))
    tf.apply()
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=resource_state(tf)["scheduler_config_id"])
    assert live["SchedulerConfig"]["PriorityClasses"][0]["Weight"] == 70


@pytest.mark.sandbox_only(reason="injects throttling")
def test_throttling_is_retried(tf, sandbox):
    sandbox.fault("DescribeCluster", "error", code="ThrottlingException", status=400, count=2)
    tf.write(policy())
    tf.apply()
    assert resource_state(tf)["status"] == "Created"


def test_function_and_data_source(tf):
    tf.write(PROVIDER + f"""
data "hyperpod_cluster" "eks" {{
  name = "{CLUSTER}"
}}

data "hyperpod_cluster" "slurm" {{
  name = "{SLURM_CLUSTER}"
}}

output "namespace" {{
  value = provider::hyperpod::team_namespace("research")
}}

output "eks" {{
  value = data.hyperpod_cluster.eks
}}

output "slurm_orchestrator" {{
  value = data.hyperpod_cluster.slurm.orchestrator
}}
""")
    tf.apply()
    assert tf.output("namespace") == "hyperpod-ns-research"
    eks = tf.output("eks")
    assert eks["orchestrator"] == "eks"
    assert eks["eks_cluster_arn"] == FX.eks_cluster_arn("eks")
    assert {g["instance_type"]: g["current_count"] for g in eks["instance_groups"]} == {
        group.instance_type: group.count for _, group in FX.clusters.eks.instance_groups.items()}
    assert tf.output("slurm_orchestrator") == "slurm"


def test_function_refuses_a_bad_team_name(tf):
    tf.write(PROVIDER + 'output "ns" {\n  value = provider::hyperpod::team_namespace("Research_Team")\n}\n')
    result = tf.plan(check=False)
    assert result.rc == 1
    assert flat("not a valid team name") in flat(result.stderr)


# ---- issue 14: nested nulls and unknowns, asynchronous update failures, interrupted creates, AWS's limits ----

def assert_invalid_at(verdict, attribute, observed=None, at_least_one=False):
    """Exactly one (or `at_least_one`) plain validation error (no rule ID) on the policy, pointing at `attribute` as
    written in the HCL (Terraform turns the provider's attribute path into the range of that attribute's value),
    and no error elsewhere."""
    matching = [d for d in verdict.errors if d.rule is None and d.address in (ADDR, None)
                and (verdict.line(d) or "").strip().startswith(attribute)]
    count_ok = len(matching) >= 1 if at_least_one else len(matching) == 1
    assert verdict.rc == 1 and count_ok and len(matching) == len(verdict.errors), \
        f"expected one error at {attribute}\n{verdict.describe()}"
    if observed is not None:
        assert observed in matching[0].detail, matching[0].detail
    return matching[0]


def policy_with_class(class_body: str, extra: str = "") -> str:
    return PROVIDER + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = "{CLUSTER}"
{extra}
  priority_class {{
{class_body}
  }}
}}
"""


@pytest.mark.parametrize("class_body, attribute", [
    ('    name   = null\n    weight = 10', "name"),
    ('    name   = "production"\n    weight = null', "weight"),
])
def test_null_in_a_priority_class_is_refused_at_validate_with_its_path(tf, sandbox, class_body, attribute):
    tf.write(policy_with_class(class_body))
    # Either this resource's check or a generic "required argument" check may say it; each at the attribute.
    assert_invalid_at(tf.validate_json(), attribute, at_least_one=True)
    assert_invalid_at(tf.plan_json(), attribute, at_least_one=True)
    assert live_configs(sandbox) == []


UNKNOWN = 'replace("{value}#${{terraform_data.later.id}}", "/#.*/", "")'  # known only once terraform_data exists
LATER = '\nresource "terraform_data" "later" {\n  input = "x"\n}\n'


@pytest.mark.parametrize("where", ["class_name", "weight", "description", "fair_share", "cluster_name", "name",
                                   "tags", "dynamic_classes"])
def test_values_unknown_at_plan_apply_consistently_and_converge(tf, sandbox, where):
    """Anything derived from a value unknown at plan is planned unknown; the apply then matches the plan."""
    unknown = lambda value: UNKNOWN.format(value=value)  # noqa: E731
    name, weight, extra, cluster = '"production"', "90", "", f'"{CLUSTER}"'
    if where == "class_name":
        name = unknown("production")
    elif where == "weight":
        weight = f"tonumber({unknown('90')})"
    elif where == "description":
        extra = f"  description = {unknown('capacity policy')}"
    elif where == "fair_share":
        extra = f"  fair_share = tobool({unknown('true')})"
    elif where == "cluster_name":
        cluster = unknown(CLUSTER)
    elif where == "name":
        extra = f"  name = {unknown('capacity')}"
    elif where == "tags":
        extra = f"  tags = {{ team = {unknown('capacity')} }}"
    body = f"  priority_class {{\n    name   = {name}\n    weight = {weight}\n  }}"
    if where == "dynamic_classes":
        body = ('  dynamic "priority_class" {\n    for_each = toset(split(",", ' + unknown("production,research")
                + '))\n    content {\n      name   = priority_class.value\n      weight = 10\n    }\n  }')
    tf.write(PROVIDER + LATER + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = {cluster}
{extra}
{body}
}}

output "classes" {{
  value = hyperpod_scheduling_policy.capacity.governance.priority_classes
}}
""")
    tf.apply()
    assert len(live_configs(sandbox)) == 1
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="injects an asynchronous failure")
def test_asynchronous_update_failure_fails_the_apply_shows_as_drift_and_the_next_apply_retries(tf, sandbox):
    tf.write(policy())
    tf.apply()
    config_id = resource_state(tf)["scheduler_config_id"]
    sandbox.fault("UpdateClusterSchedulerConfig", "async_failure", failure_reason="Kueue rejected the priority classes")
    tf.write(policy(classes=(("production", 70), ("research", 30))))
    failed = tf.apply(check=False)
    assert failed.rc == 1
    assert flat("UpdateFailed") in flat(failed.stderr)
    assert flat("Kueue rejected the priority classes") in flat(failed.stderr)
    # The failed version is not in effect: the next plan proposes the update again.
    tf.plan(["-out=retry.tfplan"])
    planned = tf.show_json("retry.tfplan")
    (change,) = [c for c in planned["resource_changes"] if c["address"] == ADDR]
    assert change["change"]["actions"] == ["update"]
    refreshed = [r for r in planned["prior_state"]["values"]["root_module"]["resources"] if r["address"] == ADDR]
    assert refreshed[0]["values"]["status"] == "UpdateFailed"
    tf.apply()
    sm = sandbox.client("sagemaker")
    live = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
    assert live["Status"] == "Updated"
    assert live["SchedulerConfig"]["PriorityClasses"][0] == {"Name": "production", "Weight": 70}
    assert resource_state(tf)["status"] == "Updated"
    assert resource_state(tf)["version"] == live["ClusterSchedulerConfigVersion"]
    tf.assert_no_changes()


def _attach_debug_provider(tf):
    """Starts the provider with --debug (a process this test owns, so it can kill it) and points Terraform at it."""
    provider = subprocess.Popen([str(provider_binary()), "--debug"], env=tf.env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
    for line in provider.stdout:
        match = re.search(r"TF_REATTACH_PROVIDERS='(.*)'", line)
        if match:
            return provider, match.group(1)
    raise AssertionError("the debug server printed no TF_REATTACH_PROVIDERS value")


def _kill_provider_after(tf, sandbox, operation, timeout=60.0):
    """`terraform apply` with the provider killed (SIGKILL) as soon as `operation` has returned to it: the object
    exists in AWS but Terraform never hears of it."""
    # Hold the provider in the call that follows the create, so the kill lands before anything is recorded.
    sandbox.fault("DescribeClusterSchedulerConfig", "latency", ms=30000)
    provider, reattach = _attach_debug_provider(tf)
    env = {**tf.env, "TF_REATTACH_PROVIDERS": reattach}
    env.pop("TF_CLI_CONFIG_FILE")
    apply = subprocess.Popen([tf.binary, "apply", "-auto-approve", "-no-color", "-input=false"], cwd=tf.dir,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + timeout
        while sandbox.calls().get(f"sagemaker.{operation}", 0) == 0:
            assert time.monotonic() < deadline and apply.poll() is None, f"{operation} was never called"
            time.sleep(0.1)
        provider.kill()
        provider.wait(timeout=10)
        out, err = apply.communicate(timeout=60)
        assert apply.returncode == 1, out + err
    finally:
        if provider.poll() is None:
            provider.kill()
        if apply.poll() is None:
            apply.kill()
        sandbox.clear_faults()


@pytest.mark.sandbox_only(reason="kills the provider mid-apply")
def test_create_interrupted_after_aws_accepted_it_is_adopted_and_destroy_leaves_nothing(tf, sandbox):
    tf.write(policy(extra='  tags = { team = "capacity" }'))
    before = sandbox.inventory()
    _kill_provider_after(tf, sandbox, "CreateClusterSchedulerConfig")
    (orphan,) = live_configs(sandbox)
    assert tf.show_json().get("values") is None, "the killed apply recorded nothing"
    tf.apply()
    state = resource_state(tf)
    assert state["scheduler_config_id"] == orphan["ClusterSchedulerConfigId"], "adopted, not created anew"
    assert state["tags"] == {"team": "capacity"}
    tf.assert_no_changes()
    tf.destroy()
    assert live_configs(sandbox) == []
    assert sandbox.inventory() == before


@pytest.mark.parametrize("tags", [None, {"hyperpod-governance:owner": "hyperpod_scheduling_policy/other-cluster"}])
def test_a_config_that_is_not_provably_ours_is_refused_at_apply_with_its_import_id(tf, sandbox, tags):
    """The cluster's name is unknown at plan; the apply refuses the foreign config (one without this resource's
    ownership tag, or with the tag of another cluster's policy) before writing anything, and names the import ID."""
    kwargs = {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()]} if tags else {}
    foreign = create_outside(sandbox, Name="console-policy", ClusterArn=cluster_arn(sandbox),
                             SchedulerConfig={"PriorityClasses": []}, **kwargs)
    tf.write(PROVIDER + LATER + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = {UNKNOWN.format(value=CLUSTER)}
}}
""")
    verdict = tf.apply_json()
    assert verdict.rc == 1
    errors = [d for d in verdict.errors if d.summary == "Cluster already has a scheduling policy"]
    assert len(errors) == 1, verdict.describe()
    error = errors[0]
    assert f"terraform import hyperpod_scheduling_policy.<name> {CLUSTER}" in error.detail
    assert foreign["ClusterSchedulerConfigId"] in error.detail
    assert REFUSED_AT_APPLY in flat(error.detail), error.detail
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [foreign["ClusterSchedulerConfigId"]]


@pytest.mark.parametrize("extra, attribute, observed", [
    ('  description = "line one\\nline two"', "description", "U+000A"),
    ('  description = "tab\\there"', "description", "U+0009"),
    ('  description = "${join("", [for i in range(41) : "abcdefghijklmnopqrstuvwxy"])}"', "description",
     "1025 characters"),
    ('  name = "' + "a" * 64 + '"', "name", None),
    ('  name = "my_policy"', "name", None),
    ('  tags = { "hyperpod-governance:owner" = "me" }', "tags", None),
])
def test_values_aws_refuses_fail_at_plan_with_their_path(tf, sandbox, extra, attribute, observed):
    tf.write(policy(extra=extra))
    assert_invalid_at(tf.plan_json(), attribute, observed)
    assert live_configs(sandbox) == []


def test_unicode_descriptions_aws_accepts_are_applied(tf, sandbox):
    tf.write(policy(extra='  description = "Équipe ML — priorité 🚀"'))
    tf.apply()
    tf.assert_no_changes()


@pytest.mark.parametrize("weight", ["1.5", "-1", "1e300"])
def test_weights_aws_refuses_fail_at_plan(tf, sandbox, weight):
    tf.write(policy_with_class(f'    name   = "production"\n    weight = {weight}'))
    assert_invalid_at(tf.plan_json(), "weight")
    assert live_configs(sandbox) == []


def test_tags_beyond_the_limit_with_the_ownership_tag_are_refused(tf, sandbox):
    """SageMaker takes at most 50 tags; the provider adds its ownership tag, so 49 remain for the configuration (and
    the provider's default tags): the plan warns at `tags` that apply refuses the change, and apply refuses it."""
    tags = ", ".join(f'"k{i}" = "v"' for i in range(50))
    tf.write(policy(extra=f"  tags = {{ {tags} }}"))
    assert_refused_at(tf, "tags", "50")
    assert live_configs(sandbox) == []
    assert tf.show_json().get("values") is None


def test_an_empty_description_converges_and_removing_a_description_clears_it(tf, sandbox):
    tf.write(policy(extra='  description = ""'))
    tf.apply()
    tf.assert_no_changes()
    tf.write(policy(extra='  description = "capacity policy"'))
    tf.apply()
    tf.write(policy())
    tf.apply()
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=resource_state(tf)["scheduler_config_id"])
    assert live.get("Description", "") == ""
    assert resource_state(tf)["description"] is None
    tf.assert_no_changes()
