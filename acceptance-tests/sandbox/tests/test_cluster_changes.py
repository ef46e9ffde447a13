"""Out-of-band changes to a cluster that LIF-2 and OBS-1 watch (issue 17): SageMaker UpdateCluster grows an instance
group (asynchronously, like AWS), EKS UpdateClusterVersion moves one minor version at a time, and the seeded worker
node role of ml-capacity carries the CloudWatch agent's policy.

Run: $VENV/bin/python -m pytest sandbox/tests/test_cluster_changes.py   (from acceptance-tests/)
"""
import time

import pytest

from helpers import error_of

CLUSTER, EKS = "ml-capacity", "ml-capacity-eks"


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


def _group(sm, name):
    groups = sm.describe_cluster(ClusterName=CLUSTER)["InstanceGroups"]
    return next(g for g in groups if g["InstanceGroupName"] == name)


def _spec(group, count):
    return {"InstanceGroupName": group["InstanceGroupName"], "InstanceType": group["InstanceType"],
            "InstanceCount": count, "LifeCycleConfig": group["LifeCycleConfig"],
            "ExecutionRole": group["ExecutionRole"]}


def test_update_cluster_grows_a_group_once_provisioned(sandbox, sm):
    group = _group(sm, "p5-training")
    assert group["CurrentCount"] == 8 and group["ExecutionRole"].endswith(":role/ml-capacity-node-role")
    sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[_spec(group, 16)])
    updating = sm.describe_cluster(ClusterName=CLUSTER)
    assert updating["ClusterStatus"] == "Updating"
    assert _group(sm, "p5-training")["TargetCount"] == 16
    # A second update while the first provisions is refused.
    code, _, _ = error_of(lambda: sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[_spec(group, 4)]))
    assert code == "ConflictException"
    deadline = time.monotonic() + 10
    while sm.describe_cluster(ClusterName=CLUSTER)["ClusterStatus"] != "InService":
        assert time.monotonic() < deadline, "UpdateCluster never settled"
        time.sleep(0.2)
    assert _group(sm, "p5-training")["CurrentCount"] == 16


def test_update_cluster_cannot_change_an_instance_type(sm):
    group = _group(sm, "p5-training")
    spec = {**_spec(group, 8), "InstanceType": "ml.g5.8xlarge"}
    code, _, message = error_of(lambda: sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[spec]))
    assert code == "ValidationException" and "cannot be changed" in message
    code, _, _ = error_of(lambda: sm.update_cluster(ClusterName="no-such-cluster", InstanceGroups=[spec]))
    assert code == "ResourceNotFound"


def test_update_cluster_version_moves_one_minor_version(sandbox):
    eks = sandbox.client("eks")
    assert eks.describe_cluster(name=EKS)["cluster"]["version"] == "1.31"
    code, _, message = error_of(lambda: eks.update_cluster_version(name=EKS, version="1.33"))
    assert code == "InvalidParameterException" and "from 1.31 to 1.33" in message
    update = eks.update_cluster_version(name=EKS, version="1.32")["update"]
    assert update["type"] == "VersionUpdate" and update["status"] == "InProgress"
    assert eks.describe_update(name=EKS, updateId=update["id"])["update"]["status"] == "Successful"
    assert eks.describe_cluster(name=EKS)["cluster"]["version"] == "1.32"


def test_the_node_role_has_the_cloudwatch_agent_policy_and_can_lose_it(sandbox):
    iam = sandbox.client("iam")
    attached = iam.list_attached_role_policies(RoleName="ml-capacity-node-role")["AttachedPolicies"]
    arns = [p["PolicyArn"] for p in attached]
    assert "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy" in arns
    iam.detach_role_policy(RoleName="ml-capacity-node-role",
                           PolicyArn="arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy")
    attached = iam.list_attached_role_policies(RoleName="ml-capacity-node-role")["AttachedPolicies"]
    assert "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy" not in [p["PolicyArn"] for p in attached]
