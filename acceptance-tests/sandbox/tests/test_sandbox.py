"""Smoke tests of the sandbox through boto3, against the session's sandbox process.

Run: $VENV/bin/python -m pytest sandbox/tests   (from acceptance-tests/)
Status transitions use the sandbox's HYPERPOD_SANDBOX_ASYNC_SECONDS (default 1.0).
"""
import re
import urllib.error

import pytest

import helpers
from helpers import error_of

ACCOUNT, REGION = "123456789012", "us-west-2"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
SLURM_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/slurmcap0001"
EKS_ARN = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/ml-capacity-eks"
LEGACY_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/legacycap001"  # on EKS legacy-capacity-eks (OBS-1)
LEGACY_EKS_ARN = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/legacy-capacity-eks"
SEEDED_CLUSTERS = {"ml-capacity": ML_ARN, "slurm-capacity": SLURM_ARN, "legacy-capacity": LEGACY_ARN}
POLICY = {"PriorityClasses": [{"Name": "inference", "Weight": 90}, {"Name": "training", "Weight": 50}],
          "FairShare": "Enabled"}


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()



def wait_status(sm, config_id, want, timeout=10.0):
    return helpers.wait_status(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id), want,
                               timeout)


def wait_gone(sm, config_id, timeout=10.0):
    helpers.wait_gone(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id), config_id,
                      timeout)


def create_policy(sm, name="cluster-policy", cluster_arn=ML_ARN, **extra):
    return sm.create_cluster_scheduler_config(Name=name, ClusterArn=cluster_arn, SchedulerConfig=POLICY, **extra)


def make_eks_cluster(sm, name):
    return sm.create_cluster(
        ClusterName=name, Orchestrator={"Eks": {"ClusterArn": EKS_ARN}},
        InstanceGroups=[{"InstanceGroupName": "workers", "InstanceType": "ml.g5.xlarge", "InstanceCount": 2,
                         "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-test/lc/", "OnCreate": "on_create.sh"},
                         "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/node"}])["ClusterArn"]


# ---- seed + HyperPod clusters ------------------------------------------------------
def test_health_reports_seed(sandbox):
    health = sandbox.health()
    assert health["status"] == "ok" and health["moto"] == "5.2.5"
    assert health["seed"]["sagemaker"]["hyperpod_clusters"] == SEEDED_CLUSTERS
    assert set(health["seed"]["eks"]["clusters"]) == {"ml-capacity-eks", "legacy-capacity-eks"}


def test_seeded_eks_cluster_by_name_and_arn(sm, sandbox):
    by_name = sm.describe_cluster(ClusterName="ml-capacity")
    assert by_name == {**sm.describe_cluster(ClusterName=ML_ARN), "ResponseMetadata": by_name["ResponseMetadata"]}
    assert by_name["ClusterArn"] == ML_ARN and by_name["ClusterStatus"] == "InService"
    assert by_name["Orchestrator"] == {"Eks": {"ClusterArn": EKS_ARN}}
    groups = {g["InstanceType"]: g for g in by_name["InstanceGroups"]}
    assert groups["ml.p5.48xlarge"]["CurrentCount"] == groups["ml.p5.48xlarge"]["TargetCount"] == 8
    assert groups["ml.g5.8xlarge"]["CurrentCount"] == 4 and groups["ml.g5.8xlarge"]["Status"] == "InService"
    # The EKS cluster the HyperPod cluster points at exists in the same sandbox.
    assert sandbox.client("eks").describe_cluster(name="ml-capacity-eks")["cluster"]["arn"] == EKS_ARN


def test_seeded_legacy_observability_cluster(sm, sandbox):
    """A second EKS-orchestrated cluster, whose EKS cluster keeps the observability add-on older than 2.4.0 (OBS-1)."""
    desc = sm.describe_cluster(ClusterName="legacy-capacity")
    assert desc["ClusterArn"] == LEGACY_ARN and desc["ClusterStatus"] == "InService"
    assert desc["Orchestrator"] == {"Eks": {"ClusterArn": LEGACY_EKS_ARN}}
    [group] = desc["InstanceGroups"]
    assert (group["InstanceGroupName"], group["InstanceType"], group["CurrentCount"], group["Status"]) == (
        "g5-training", "ml.g5.8xlarge", 2, "InService")
    assert group["ExecutionRole"] == f"arn:aws:iam::{ACCOUNT}:role/legacy-capacity-node-role"
    eks = sandbox.client("eks")
    assert eks.describe_cluster(name="legacy-capacity-eks")["cluster"]["arn"] == LEGACY_EKS_ARN
    addon = eks.describe_addon(clusterName="legacy-capacity-eks",
                               addonName="amazon-cloudwatch-observability")["addon"]
    assert (addon["addonVersion"], addon["status"]) == ("v2.3.0-eksbuild.1", "ACTIVE")


def test_seeded_slurm_cluster(sm):
    desc = sm.describe_cluster(ClusterName="slurm-capacity")
    assert desc["ClusterArn"] == SLURM_ARN
    assert desc["Orchestrator"] == {"Slurm": {"SlurmConfigStrategy": "Managed"}}
    assert "FailureMessage" not in desc


def test_cluster_create_list_delete(sm):
    arn = make_eks_cluster(sm, "extra")
    assert re.fullmatch(rf"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/[a-z0-9]{{12}}", arn)
    assert sm.describe_cluster(ClusterName=arn)["Orchestrator"]["Eks"]["ClusterArn"] == EKS_ARN
    names = {c["ClusterName"]: c["ClusterArn"] for c in sm.list_clusters()["ClusterSummaries"]}
    assert names == {**SEEDED_CLUSTERS, "extra": arn}
    assert sm.delete_cluster(ClusterName=arn)["ClusterArn"] == arn
    assert error_of(sm.describe_cluster, ClusterName="extra")[:2] == ("ResourceNotFound", 400)


# ---- cluster scheduler configs ---------------------------------------------------
def test_scheduler_config_lifecycle(sm):
    created = create_policy(sm, Description="team priorities")
    cid = created["ClusterSchedulerConfigId"]
    assert re.fullmatch(r"[a-z0-9]{12}", cid)
    assert created["ClusterSchedulerConfigArn"] == \
        f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster-scheduler-config/{cid}"

    desc = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    assert desc["Status"] == "Creating" and desc["ClusterSchedulerConfigVersion"] == 1
    desc = wait_status(sm, cid, "Created")
    assert desc["Name"] == "cluster-policy" and desc["ClusterArn"] == ML_ARN
    assert desc["SchedulerConfig"] == POLICY and desc["Description"] == "team priorities"
    assert desc["StatusDetails"] == {"PriorityClasses": "Created", "FairShare": "Created"}
    assert desc["CreationTime"] <= desc["LastModifiedTime"] and "FailureReason" not in desc

    new_policy = {**POLICY, "FairShare": "Disabled", "IdleResourceSharing": "Enabled"}
    updated = sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=1,
                                                 SchedulerConfig=new_policy)
    assert updated["ClusterSchedulerConfigVersion"] == 2
    assert sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid)["Status"] == "Updating"
    desc = wait_status(sm, cid, "Updated")
    assert desc["SchedulerConfig"] == new_policy and desc["Description"] == "team priorities"
    assert desc["StatusDetails"]["IdleResourceSharing"] == "Updated"
    old = sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid, ClusterSchedulerConfigVersion=1)
    assert old["ClusterSchedulerConfigVersion"] == 1 and old["SchedulerConfig"] == POLICY
    assert error_of(sm.describe_cluster_scheduler_config, ClusterSchedulerConfigId=cid,
                    ClusterSchedulerConfigVersion=3)[0] == "ResourceNotFound"

    sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    assert sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid)["Status"] == "Deleting"
    wait_gone(sm, cid)
    code, status, message = error_of(sm.delete_cluster_scheduler_config, ClusterSchedulerConfigId=cid)
    assert (code, status) == ("ResourceNotFound", 400) and cid in message


def test_update_with_stale_target_version_conflicts(sm):
    cid = create_policy(sm)["ClusterSchedulerConfigId"]
    wait_status(sm, cid, "Created")
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=1, Description="v2")
    wait_status(sm, cid, "Updated")
    code, _, message = error_of(sm.update_cluster_scheduler_config, ClusterSchedulerConfigId=cid,
                                TargetVersion=1, Description="stale")
    assert code == "ConflictException" and "current version 2" in message


def test_update_while_creating_conflicts(sm):
    cid = create_policy(sm)["ClusterSchedulerConfigId"]
    assert error_of(sm.update_cluster_scheduler_config, ClusterSchedulerConfigId=cid,
                    TargetVersion=1)[0] == "ConflictException"


def test_one_config_per_cluster(sm):
    create_policy(sm)
    assert error_of(create_policy, sm, name="second")[:2] == ("ConflictException", 400)
    create_policy(sm, cluster_arn=make_eks_cluster(sm, "other"))  # another cluster is fine


def test_config_needs_existing_eks_cluster(sm):
    missing = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/abcdef123456"
    assert error_of(create_policy, sm, cluster_arn=missing)[0] == "ResourceNotFound"
    assert error_of(create_policy, sm, cluster_arn=SLURM_ARN)[0] == "ValidationException"


def test_unknown_config_id(sm):
    for call in (sm.describe_cluster_scheduler_config, sm.delete_cluster_scheduler_config):
        assert error_of(call, ClusterSchedulerConfigId="abcdef123456")[0] == "ResourceNotFound"
    assert error_of(sm.update_cluster_scheduler_config, ClusterSchedulerConfigId="abcdef123456",
                    TargetVersion=1)[0] == "ResourceNotFound"


@pytest.mark.parametrize("kwargs, fragment", [
    ({"SchedulerConfig": {"PriorityClasses": [{"Name": "p", "Weight": 101}]}},
     "Value '101' at 'schedulerConfig.priorityClasses.1.member.weight' failed to satisfy constraint: "
     "Member must have value less than or equal to 100"),
    ({"SchedulerConfig": {"PriorityClasses": [{"Name": f"p{i}", "Weight": i} for i in range(11)]}},
     "at 'schedulerConfig.priorityClasses' failed to satisfy constraint: Member must have length less than or equal "
     "to 10"),
    ({"Name": "-bad"},
     "Value '-bad' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern"),
    ({"SchedulerConfig": {"FairShare": "On"}},
     "Value 'On' at 'schedulerConfig.fairShare' failed to satisfy constraint: Member must satisfy enum value set: "
     "[Enabled, Disabled]"),
    ({"Name": None}, "Value null at 'name' failed to satisfy constraint: Member must not be null"),
    ({"ClusterArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/ml-capacity"}, "at 'clusterArn'"),
], ids=["weight-101", "11-priority-classes", "name-pattern", "enum", "missing-name", "name-style-arn"])
def test_validation(raw_sm, kwargs, fragment):
    request = {"Name": "ok", "ClusterArn": ML_ARN, "SchedulerConfig": POLICY, **kwargs}
    code, status, message = error_of(raw_sm.create_cluster_scheduler_config,
                                     **{k: v for k, v in request.items() if v is not None})
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("1 validation error detected: ") and fragment in message


def test_list_filters_and_paging(sm):
    other = make_eks_cluster(sm, "team-b")
    third = make_eks_cluster(sm, "team-c")
    ids = [create_policy(sm, name=n, cluster_arn=a)["ClusterSchedulerConfigId"]
           for n, a in (("alpha-policy", ML_ARN), ("beta-policy", other), ("gamma", third))]
    wait_status(sm, ids[0], "Created")
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=ids[0], TargetVersion=1, Description="x")

    def names(**kw):
        return [s["Name"] for s in sm.list_cluster_scheduler_configs(**kw)["ClusterSchedulerConfigSummaries"]]

    assert names() == ["gamma", "beta-policy", "alpha-policy"]  # newest first
    assert names(SortBy="Name", SortOrder="Ascending") == ["alpha-policy", "beta-policy", "gamma"]
    assert names(ClusterArn=other) == ["beta-policy"]
    assert names(NameContains="policy", SortBy="Name", SortOrder="Ascending") == ["alpha-policy", "beta-policy"]
    assert names(Status="Updating") == ["alpha-policy"]
    summary = sm.list_cluster_scheduler_configs(ClusterArn=ML_ARN)["ClusterSchedulerConfigSummaries"][0]
    assert summary["ClusterSchedulerConfigVersion"] == 2 and summary["ClusterSchedulerConfigId"] == ids[0]

    pages, token = [], None
    while True:
        page = sm.list_cluster_scheduler_configs(MaxResults=2, SortBy="Name", SortOrder="Ascending",
                                                 **({"NextToken": token} if token else {}))
        pages.append([s["Name"] for s in page["ClusterSchedulerConfigSummaries"]])
        token = page.get("NextToken")
        if not token:
            break
    assert pages == [["alpha-policy", "beta-policy"], ["gamma"]]


def test_tags_on_config_and_cluster_arns(sm):
    arn = create_policy(sm, Tags=[{"Key": "team", "Value": "ml"}])["ClusterSchedulerConfigArn"]
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "ml"}]
    sm.add_tags(ResourceArn=arn, Tags=[{"Key": "team", "Value": "research"}, {"Key": "env", "Value": "test"}])
    assert {t["Key"]: t["Value"] for t in sm.list_tags(ResourceArn=arn)["Tags"]} == {"team": "research", "env": "test"}
    sm.delete_tags(ResourceArn=arn, TagKeys=["team"])
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}]
    sm.add_tags(ResourceArn=ML_ARN, Tags=[{"Key": "capacity", "Value": "shared"}])
    assert sm.list_tags(ResourceArn=ML_ARN)["Tags"] == [{"Key": "capacity", "Value": "shared"}]


# ---- faults, unimplemented operations, reset ----------------------------------------
def test_async_failure_faults(sm, sandbox):
    sandbox.fault("CreateClusterSchedulerConfig", "async_failure", failure_reason="Kueue webhook unavailable")
    cid = create_policy(sm)["ClusterSchedulerConfigId"]
    assert sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid)["Status"] == "Creating"
    desc = wait_status(sm, cid, "CreateFailed")
    assert desc["FailureReason"] == "Kueue webhook unavailable"
    assert desc["StatusDetails"]["PriorityClasses"] == "CreateFailed"

    sandbox.fault("UpdateClusterSchedulerConfig", "async_failure", failure_reason="quota exceeded")
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=1, Description="v2")
    assert wait_status(sm, cid, "UpdateFailed")["FailureReason"] == "quota exceeded"
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=2, Description="v3")
    desc = wait_status(sm, cid, "Updated")  # count=1: the next write succeeds again
    assert "FailureReason" not in desc and sandbox.admin("GET", "faults")["faults"] == []

    sandbox.fault("DeleteClusterSchedulerConfig", "async_failure", failure_reason="finalizer stuck")
    sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    assert wait_status(sm, cid, "DeleteFailed")["FailureReason"] == "finalizer stuck"
    sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    wait_gone(sm, cid)


def test_error_faults(sm, sandbox):
    sandbox.fault("DescribeCluster", code="ThrottlingException", status=400, count=2, message="Rate exceeded")
    for _ in range(2):
        assert error_of(sm.describe_cluster, ClusterName="ml-capacity") == ("ThrottlingException", 400, "Rate exceeded")
    assert sm.describe_cluster(ClusterName="ml-capacity")["ClusterArn"] == ML_ARN

    sandbox.fault("CreateClusterSchedulerConfig", code="InternalFailure", status=500)
    assert error_of(create_policy, sm)[:2] == ("InternalFailure", 500)
    assert sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"] == []  # nothing was written

    sandbox.fault("DescribeCluster", count=5)
    sandbox.clear_faults()
    sm.describe_cluster(ClusterName="ml-capacity")


def test_bad_fault_spec_is_rejected(sandbox):
    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.fault("DescribeCluster", mode="sometimes")
    assert info.value.code == 400


def test_unimplemented_operation_is_json_501(sm):
    code, status, message = error_of(sm.describe_workforce, WorkforceName="default")
    assert (code, status) == ("NotImplemented", 501) and "DescribeWorkforce" in message


def test_reset_restores_exactly_the_seed(sm, sandbox):
    make_eks_cluster(sm, "temporary")
    cid = create_policy(sm)["ClusterSchedulerConfigId"]
    sandbox.fault("DescribeCluster", count=10)
    sandbox.reset()
    assert {c["ClusterName"]: c["ClusterArn"] for c in sm.list_clusters()["ClusterSummaries"]} == SEEDED_CLUSTERS
    assert sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"] == []
    assert error_of(sm.describe_cluster_scheduler_config, ClusterSchedulerConfigId=cid)[0] == "ResourceNotFound"
    assert sorted(sandbox.client("eks").list_clusters()["clusters"]) == ["legacy-capacity-eks", "ml-capacity-eks"]
    assert sm.describe_cluster(ClusterName="ml-capacity")["ClusterArn"] == ML_ARN  # faults were disarmed
