"""Out-of-band changes to a cluster that LIF-2 and OBS-1 watch (issue 17): SageMaker UpdateCluster grows an instance
group (asynchronously, like AWS) or changes its Kubernetes labels (the MIG layout among them), EKS UpdateClusterVersion
moves one minor version at a time, and the seeded worker node role of ml-capacity carries the CloudWatch agent's
policy.

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


MIG = "nvidia.com/mig.config"


def _wait_in_service(sm):
    deadline = time.monotonic() + 10
    while sm.describe_cluster(ClusterName=CLUSTER)["ClusterStatus"] != "InService":
        assert time.monotonic() < deadline, "UpdateCluster never settled"
        time.sleep(0.2)


def _partition_quota(sm, profile, team="research"):
    arn = sm.describe_cluster(ClusterName=CLUSTER)["ClusterArn"]
    return sm.create_compute_quota(
        Name=f"{team}-quota", ClusterArn=arn, ComputeQuotaTarget={"TeamName": team},
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.p4d.24xlarge",
                                                       "AcceleratorPartition": {"Type": profile, "Count": 3}}]})


def test_update_cluster_repartitions_a_group_through_its_labels(sm):
    group = _group(sm, "a100-mig")
    assert group["KubernetesConfig"] == {"CurrentLabels": {MIG: "all-1g.5gb"}, "DesiredLabels": {MIG: "all-1g.5gb"}}
    sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[
        {**_spec(group, 2), "KubernetesConfig": {"Labels": {MIG: "all-2g.10gb", "team": "vision"}}}])
    assert _group(sm, "a100-mig")["KubernetesConfig"] == {
        "CurrentLabels": {MIG: "all-1g.5gb"}, "DesiredLabels": {MIG: "all-2g.10gb", "team": "vision"}}
    # While the nodes are repartitioned, the group offers no partitions at all.
    code, _, message = error_of(_partition_quota, sm, "mig-1g.5gb")
    assert code == "ValidationException" and "has a MIG configuration" in message
    _wait_in_service(sm)
    assert _group(sm, "a100-mig")["KubernetesConfig"] == {
        "CurrentLabels": {MIG: "all-2g.10gb", "team": "vision"},
        "DesiredLabels": {MIG: "all-2g.10gb", "team": "vision"}}
    assert "not exposed" in error_of(_partition_quota, sm, "mig-1g.5gb")[2]
    _partition_quota(sm, "mig-2g.10gb")
    # An update that does not name KubernetesConfig keeps the labels.
    sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[_spec(_group(sm, "a100-mig"), 3)])
    _wait_in_service(sm)
    assert _group(sm, "a100-mig")["KubernetesConfig"]["CurrentLabels"] == {MIG: "all-2g.10gb", "team": "vision"}


def test_a_new_group_has_its_labels_once_provisioned(sm):
    spec = {**_spec(_group(sm, "a100-mig"), 1), "InstanceGroupName": "a100-more",
            "KubernetesConfig": {"Labels": {MIG: "all-7g.40gb"}}}
    sm.update_cluster(ClusterName=CLUSTER, InstanceGroups=[spec])
    assert _group(sm, "a100-more")["KubernetesConfig"] == {"DesiredLabels": {MIG: "all-7g.40gb"}}
    _wait_in_service(sm)
    assert _group(sm, "a100-more")["KubernetesConfig"] == {"CurrentLabels": {MIG: "all-7g.40gb"},
                                                          "DesiredLabels": {MIG: "all-7g.40gb"}}


def test_kubernetes_labels_need_an_eks_cluster(sm):
    spec = {"InstanceGroupName": "workers", "InstanceType": "ml.g5.8xlarge", "InstanceCount": 1,
            "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-test/lc/", "OnCreate": "on_create.sh"},
            "ExecutionRole": "arn:aws:iam::123456789012:role/node",
            "KubernetesConfig": {"Labels": {MIG: "all-disabled"}}}
    code, _, message = error_of(sm.create_cluster, ClusterName="slurm-labels",
                                Orchestrator={"Slurm": {"SlurmConfigStrategy": "Managed"}}, InstanceGroups=[spec])
    assert (code, message) == ("ValidationException", "KubernetesConfig of instance group workers is only supported "
                                                      "on clusters orchestrated by Amazon EKS")
    assert error_of(sm.update_cluster, ClusterName="slurm-capacity", InstanceGroups=[spec])[0] == "ValidationException"
    sm.create_cluster(ClusterName="eks-labels", InstanceGroups=[spec], Orchestrator={
        "Eks": {"ClusterArn": "arn:aws:eks:us-west-2:123456789012:cluster/ml-capacity-eks"}})
    [group] = sm.describe_cluster(ClusterName="eks-labels")["InstanceGroups"]
    assert group["KubernetesConfig"] == {"CurrentLabels": {MIG: "all-disabled"}, "DesiredLabels": {MIG: "all-disabled"}}


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
