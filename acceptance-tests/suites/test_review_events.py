"""Event-driven review (issue 17): a contract records the facts it was approved against, and every later plan compares
them with the account. Growing an instance group and upgrading the orchestrator out of band mark the contract
`review_required`, naming both changes and the approval date (under `strict`, apply refuses the change instead);
re-approval accepts the new facts. OBS-1 names a worker node role that lost CloudWatchAgentServerPolicy.

Diagnostics are read from `terraform plan -json` (rule ID, address, the attribute the range points at)."""
import time
from datetime import date

import pytest

from hcl import CLUSTER, EKS_CLUSTER, contract, days_ago
from test_tenant import refused_at_apply

pytestmark = pytest.mark.provider

ADDR = "hyperpod_connection_contract.research"
CLOUDWATCH_POLICY = "CloudWatchAgentServerPolicy"


def state(tf):
    for resource in tf.show_json()["values"]["root_module"]["resources"]:
        if resource["address"] == ADDR:
            return resource["values"]
    raise AssertionError(f"{ADDR} not in state")


def first_group(sandbox):
    return sandbox.client("sagemaker").describe_cluster(ClusterName=CLUSTER)["InstanceGroups"][0]


def grow(sandbox, group, count):
    """UpdateCluster to `count` nodes, then wait for the cluster to be InService again (AWS provisions first)."""
    sm = sandbox.client("sagemaker")
    sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[{
        "InstanceGroupName": group["InstanceGroupName"], "InstanceType": group["InstanceType"],
        "InstanceCount": count, "LifeCycleConfig": group["LifeCycleConfig"],
        "ExecutionRole": group["ExecutionRole"]}])
    deadline = time.monotonic() + 30
    while sm.describe_cluster(ClusterName=CLUSTER)["ClusterStatus"] != "InService":
        assert time.monotonic() < deadline, "UpdateCluster did not settle"
        time.sleep(0.5)


def next_minor(version: str) -> str:
    major, minor = version.split(".")
    return f"{major}.{int(minor) + 1}"


@pytest.mark.sandbox_only(reason="grows an instance group and upgrades the EKS cluster out of band")
def test_grown_group_and_upgraded_orchestrator_require_review_until_reapproved(tf, sandbox):
    approved_on = days_ago(10)
    tf.write(contract(last_reviewed=approved_on))
    tf.apply()
    values = state(tf)
    group = first_group(sandbox)
    name, count = group["InstanceGroupName"], group["CurrentCount"]
    eks = sandbox.client("eks")
    version = eks.describe_cluster(name=EKS_CLUSTER)["cluster"]["version"]
    facts = values["approved_facts"]
    assert facts[f"instance_group/{name}"] == f"{group['InstanceType']} × {count}"
    assert facts["orchestrator"] == f"EKS {version}"
    assert facts[f"monitoring/node_role/{group['ExecutionRole'].rsplit('/', 1)[1]}"] == \
        f"{CLOUDWATCH_POLICY} attached"
    assert values["changed_facts"] is None and values["review_status"] == "current"
    assert tf.plan().rc == 0, "nothing changed: the plan is empty"

    grow(sandbox, group, count * 2)
    eks.update_cluster_version(name=EKS_CLUSTER, version=next_minor(version))

    verdict = tf.plan_json()
    diag = verdict.assert_rule("LIF-2", ADDR, "last_reviewed", severity="warning")
    assert f"instance group {name} grew {count} → {count * 2}" in diag.detail, diag.detail
    assert f"orchestrator EKS {version} → EKS {next_minor(version)}" in diag.detail, diag.detail
    assert f"since approval on {approved_on}" in diag.detail, diag.detail
    assert verdict.rc == 2, "a warning: the contract's record changes, the plan goes ahead"

    tf.apply()
    values = state(tf)
    assert values["review_status"] == "review_required"
    assert values["changed_facts"] == {f"instance_group/{name}": f"{group['InstanceType']} × {count * 2}",
                                       "orchestrator": f"EKS {next_minor(version)}"}
    assert values["approved_facts"]["orchestrator"] == f"EKS {version}", "approval is not rewritten by a plan"
    # Strict: the same change is refused (a warning at plan, which no rule fails), and apply refuses it before
    # writing anything: the contract's record stays as it was.
    tf.write(contract(last_reviewed=approved_on, extra="  strict = true"))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    verdict.assert_rule("LIF-2", ADDR, "last_reviewed")
    refused_at_apply(tf.apply_json(), "LIF-2", ADDR, "last_reviewed")
    assert state(tf) == values, "a refused apply writes nothing of the contract"

    # Re-approval (a new review date and approver) accepts the facts as they are now.
    tf.write(contract(last_reviewed=date.today().isoformat(), approved_by="ciso@example.com"))
    verdict = tf.plan_json()
    assert not [d for d in verdict.diagnostics if d.rule == "LIF-2"], verdict.describe()
    tf.apply()
    values = state(tf)
    assert values["review_status"] == "current" and values["changed_facts"] is None
    assert values["approved_facts"]["orchestrator"] == f"EKS {next_minor(version)}"
    assert tf.plan().rc == 0


@pytest.mark.sandbox_only(reason="detaches a policy from the cluster's node role")
def test_obs_1_names_the_node_role_without_the_cloudwatch_agent_policy(tf, sandbox):
    tf.write(contract())
    verdict = tf.plan_json()
    assert not [d for d in verdict.diagnostics if d.rule == "OBS-1"], verdict.describe()
    tf.apply()
    role_arn = first_group(sandbox)["ExecutionRole"]
    role = role_arn.rsplit("/", 1)[1]
    partition = role_arn.split(":")[1]
    sandbox.client("iam").detach_role_policy(RoleName=role,
                                             PolicyArn=f"arn:{partition}:iam::aws:policy/{CLOUDWATCH_POLICY}")
    verdict = tf.plan_json()
    diag = verdict.assert_rule("OBS-1", ADDR, "signal", severity="warning")
    assert f"node role {role} " in diag.detail and f"has no {CLOUDWATCH_POLICY}" in diag.detail, diag.detail
    assert f"attach arn:{partition}:iam::aws:policy/{CLOUDWATCH_POLICY} to role {role}" in diag.detail
    # Monitoring coverage is a fact the contract was approved against: LIF-2 names the change too.
    lif_2 = verdict.assert_rule("LIF-2", ADDR, "last_reviewed", severity="warning")
    assert f"monitoring node role {role} {CLOUDWATCH_POLICY} attached → {CLOUDWATCH_POLICY} not attached" \
        in lif_2.detail, lif_2.detail
