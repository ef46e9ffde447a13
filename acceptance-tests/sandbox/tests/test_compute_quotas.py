"""SageMaker compute quotas in the sandbox, through boto3.

Run: $VENV/bin/python -m pytest sandbox/tests/test_compute_quotas.py   (from acceptance-tests/)
The tests use the session's sandbox process; the namespace tests read its Kubernetes objects through
`GET /_sandbox/kubernetes/<eks cluster>` (skipped while that route is missing).  One test runs a second sandbox
inside this process, to make `sandbox.kubernetes` fail.
Status transitions use HYPERPOD_SANDBOX_ASYNC_SECONDS (default 1.0).
"""
import re
import threading
import time
import urllib.error
from datetime import UTC, datetime, timedelta

import pytest

import helpers
from helpers import error_of

ACCOUNT, REGION = "123456789012", "us-west-2"
# 8 x ml.p5.48xlarge, 4 x ml.g5.8xlarge, 2 x ml.p4d.24xlarge (group a100-mig: nvidia.com/mig.config all-1g.5gb)
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
SLURM_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/slurmcap0001"
EKS_ARN = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/ml-capacity-eks"
MISSING_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/abcdef123456"
P5, G5, P4D = "ml.p5.48xlarge", "ml.g5.8xlarge", "ml.p4d.24xlarge"
MIG_LABEL = "nvidia.com/mig.config"
DEFAULT_SHARING = {"Strategy": "LendAndBorrow", "BorrowLimit": 50}


@pytest.fixture(autouse=True)
def fresh(request):
    if "inproc_server" not in request.fixturenames:
        request.getfixturevalue("sandbox").reset()



def wait_status(sm, quota_id, want, timeout=10.0):
    return helpers.wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=quota_id), want, timeout)


def wait_gone(sm, quota_id, timeout=10.0):
    helpers.wait_gone(lambda: sm.describe_compute_quota(ComputeQuotaId=quota_id), quota_id, timeout)


def create_quota(sm, name="research-quota", team="research", resources=({"InstanceType": P5, "Count": 2},),
                 cluster_arn=ML_ARN, config=None, **extra):
    config = {"ComputeQuotaResources": list(resources), **(config or {})}
    target = extra.pop("target", {"TeamName": team})
    return sm.create_compute_quota(Name=name, ClusterArn=cluster_arn, ComputeQuotaConfig=config,
                                   ComputeQuotaTarget=target, **extra)


def make_cluster(sm, name, groups=(("workers", "ml.g5.xlarge", 2),), slurm=False):
    """`groups`: (name, instance type, count) or (name, instance type, count, MIG layout label value)."""
    orchestrator = {"Slurm": {"SlurmConfigStrategy": "Managed"}} if slurm else {"Eks": {"ClusterArn": EKS_ARN}}
    specs = []
    for g, t, n, *mig in groups:
        spec = {"InstanceGroupName": g, "InstanceType": t, "InstanceCount": n,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-test/lc/", "OnCreate": "on_create.sh"},
                "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/node"}
        if mig:
            spec["KubernetesConfig"] = {"Labels": {MIG_LABEL: mig[0]}}
        specs.append(spec)
    return sm.create_cluster(ClusterName=name, Orchestrator=orchestrator, InstanceGroups=specs)["ClusterArn"]


# ---- lifecycle, defaults, versions ----------------------------------------------------
def test_quota_lifecycle(sm):
    created = create_quota(sm, Description="research team")
    qid = created["ComputeQuotaId"]
    assert re.fullmatch(r"[a-z0-9]{12}", qid)
    assert created["ComputeQuotaArn"] == f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:compute-quota/{qid}"

    desc = sm.describe_compute_quota(ComputeQuotaId=qid)
    assert desc["Status"] == "Creating" and desc["ComputeQuotaVersion"] == 1
    desc = wait_status(sm, qid, "Created")
    assert desc["Name"] == "research-quota" and desc["ClusterArn"] == ML_ARN
    assert desc["Description"] == "research team" and desc["ActivationState"] == "Enabled"
    assert desc["ComputeQuotaConfig"] == {"ComputeQuotaResources": [{"InstanceType": P5, "Count": 2}],
                                          "ResourceSharingConfig": DEFAULT_SHARING,
                                          "PreemptTeamTasks": "LowerPriority"}
    assert desc["ComputeQuotaTarget"] == {"TeamName": "research", "FairShareWeight": 0}
    assert desc["CreationTime"] <= desc["LastModifiedTime"] and "FailureReason" not in desc

    new_config = {"ComputeQuotaResources": [{"InstanceType": P5, "Count": 3}, {"InstanceType": G5, "Count": 1}],
                  "ResourceSharingConfig": {"Strategy": "Lend"}, "PreemptTeamTasks": "Never"}
    updated = sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, ComputeQuotaConfig=new_config,
                                      ComputeQuotaTarget={"TeamName": "research", "FairShareWeight": 40})
    assert updated == {**updated, "ComputeQuotaArn": created["ComputeQuotaArn"], "ComputeQuotaVersion": 2}
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["Status"] == "Updating"
    desc = wait_status(sm, qid, "Updated")
    assert desc["ComputeQuotaConfig"] == new_config and desc["ComputeQuotaTarget"]["FairShareWeight"] == 40
    assert desc["Description"] == "research team" and desc["ComputeQuotaVersion"] == 2

    old = sm.describe_compute_quota(ComputeQuotaId=qid, ComputeQuotaVersion=1)
    assert old["ComputeQuotaVersion"] == 1 and old["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["Count"] == 2
    assert old["ComputeQuotaTarget"]["FairShareWeight"] == 0
    assert error_of(sm.describe_compute_quota, ComputeQuotaId=qid, ComputeQuotaVersion=3)[0] == "ResourceNotFound"

    sm.delete_compute_quota(ComputeQuotaId=qid)
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["Status"] == "Deleting"
    sm.delete_compute_quota(ComputeQuotaId=qid)  # again while Deleting: accepted, nothing changes
    wait_gone(sm, qid)
    code, status, message = error_of(sm.delete_compute_quota, ComputeQuotaId=qid)
    assert (code, status) == ("ResourceNotFound", 400) and qid in message


def test_explicit_values_are_kept(sm):
    qid = create_quota(sm, config={"ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 200},
                                   "PreemptTeamTasks": "Never"},
                       target={"TeamName": "research", "FairShareWeight": 100},
                       ActivationState="Disabled")["ComputeQuotaId"]
    desc = sm.describe_compute_quota(ComputeQuotaId=qid)
    assert desc["ComputeQuotaConfig"]["ResourceSharingConfig"] == {"Strategy": "LendAndBorrow", "BorrowLimit": 200}
    assert desc["ComputeQuotaConfig"]["PreemptTeamTasks"] == "Never"
    assert desc["ComputeQuotaTarget"]["FairShareWeight"] == 100 and desc["ActivationState"] == "Disabled"
    assert "Description" not in desc

    qid = create_quota(sm, name="dontlend", team="dontlend", resources=(),
                       config={"ResourceSharingConfig": {"Strategy": "DontLend"}})["ComputeQuotaId"]
    desc = sm.describe_compute_quota(ComputeQuotaId=qid)
    assert desc["ComputeQuotaConfig"] == {"ComputeQuotaResources": [],
                                          "ResourceSharingConfig": {"Strategy": "DontLend"},
                                          "PreemptTeamTasks": "LowerPriority"}


@pytest.mark.parametrize("given, expected", [
    ({"InstanceType": P5, "Accelerators": 4}, {"InstanceType": P5, "Accelerators": 4, "VCpu": 96.0,
                                               "MemoryInGiB": 1024.0}),
    ({"InstanceType": P5, "VCpu": 48}, {"InstanceType": P5, "VCpu": 48.0, "MemoryInGiB": 512.0, "Accelerators": 0}),
    ({"InstanceType": G5, "MemoryInGiB": 64}, {"InstanceType": G5, "MemoryInGiB": 64.0, "VCpu": 16.0,
                                               "Accelerators": 0}),
    ({"InstanceType": P5, "Count": 3}, {"InstanceType": P5, "Count": 3}),
    ({"InstanceType": P5, "Accelerators": 8, "VCpu": 100}, {"InstanceType": P5, "Accelerators": 8, "VCpu": 100.0}),
], ids=["accelerators-only", "vcpu-only", "memory-only", "count", "two-amounts-no-fill"])
def test_auto_fill_from_the_instance_shape(sm, given, expected):
    qid = create_quota(sm, resources=[given])["ComputeQuotaId"]
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["ComputeQuotaConfig"]["ComputeQuotaResources"] == [expected]


def test_update_keeps_what_it_omits_and_replaces_what_it_sends(sm):
    qid = create_quota(sm, config={"PreemptTeamTasks": "Never",
                                   "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 300}},
                       target={"TeamName": "research", "FairShareWeight": 10}, Description="v1")["ComputeQuotaId"]
    wait_status(sm, qid, "Created")
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="v2", ActivationState="Disabled")
    desc = wait_status(sm, qid, "Updated")
    assert desc["ComputeQuotaConfig"]["ResourceSharingConfig"]["BorrowLimit"] == 300
    assert desc["ComputeQuotaTarget"]["FairShareWeight"] == 10
    assert (desc["Description"], desc["ActivationState"]) == ("v2", "Disabled")
    # A ComputeQuotaConfig is taken whole: what it leaves out is back to the default.
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=2,
                            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": G5, "Count": 1}]})
    desc = wait_status(sm, qid, "Updated")
    assert desc["ComputeQuotaConfig"] == {"ComputeQuotaResources": [{"InstanceType": G5, "Count": 1}],
                                          "ResourceSharingConfig": DEFAULT_SHARING,
                                          "PreemptTeamTasks": "LowerPriority"}
    assert desc["ActivationState"] == "Disabled" and desc["ComputeQuotaVersion"] == 3


# ---- rejections -----------------------------------------------------------------------
@pytest.mark.parametrize("change, fragment", [
    ({"ComputeQuotaTarget": {"TeamName": "research", "FairShareWeight": 101}},
     "Value '101' at 'computeQuotaTarget.fairShareWeight' failed to satisfy constraint: "
     "Member must have value less than or equal to 100"),
    ({"ComputeQuotaTarget": {"TeamName": "Research_Team"}},
     "Value 'Research_Team' at 'computeQuotaTarget.teamName' failed to satisfy constraint: "
     "Member must satisfy regular expression pattern"),
    ({"ComputeQuotaTarget": {"TeamName": "-research"}}, "at 'computeQuotaTarget.teamName'"),
    ({"ComputeQuotaConfig": {"ResourceSharingConfig": {"Strategy": "Borrow"}}},
     "Value 'Borrow' at 'computeQuotaConfig.resourceSharingConfig.strategy' failed to satisfy constraint: "
     "Member must satisfy enum value set: [Lend, DontLend, LendAndBorrow]"),
    ({"ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.49xlarge", "Count": 1}]}},
     "at 'computeQuotaConfig.computeQuotaResources.1.member.instanceType'"),
    ({"ComputeQuotaTarget": None}, "Value null at 'computeQuotaTarget' failed to satisfy constraint"),
    ({"ActivationState": "On"}, "at 'activationState'"),
], ids=["fair-share-weight-101", "team-name-pattern", "team-name-leading-dash", "strategy-enum",
        "instance-type-enum", "missing-target", "activation-enum"])
def test_model_validation(raw_sm, change, fragment):
    request = {"Name": "q", "ClusterArn": ML_ARN, "ComputeQuotaConfig": {},
               "ComputeQuotaTarget": {"TeamName": "research"}, **change}
    code, status, message = error_of(raw_sm.create_compute_quota,
                                     **{k: v for k, v in request.items() if v is not None})
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("1 validation error detected: ") and fragment in message


@pytest.mark.parametrize("config, fragment", [
    ({"ResourceSharingConfig": {"Strategy": "Lend", "BorrowLimit": 100}},
     "'ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit' is only allowed with Strategy LendAndBorrow, not Lend"),
    ({"ResourceSharingConfig": {"Strategy": "DontLend", "BorrowLimit": 100}}, "not DontLend"),
    ({"ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 0}}, "between 1 and 500"),
    ({"ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 501}}, "between 1 and 500"),
    ({"ComputeQuotaResources": [{"InstanceType": "ml.trn1.32xlarge", "Count": 1}]},
     f"Instance type ml.trn1.32xlarge at 'ComputeQuotaConfig.ComputeQuotaResources[0].InstanceType' is not in any "
     f"instance group of cluster {ML_ARN} (its instance types: {G5}, {P4D}, {P5})"),
    ({"ResourceSharingConfig": {"Strategy": "LendAndBorrow",
                                "AbsoluteBorrowLimits": [{"InstanceType": "ml.g5.12xlarge", "Accelerators": 1}]}},
     "Instance type ml.g5.12xlarge at 'ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0]"),
    ({"ComputeQuotaResources": [{"InstanceType": P5, "Count": 1}, {"InstanceType": P5, "Accelerators": 2}]},
     "appears more than once"),
    ({"ComputeQuotaResources": [{"InstanceType": P5, "Count": 1, "Accelerators": 8}]},
     "sets Count together with Accelerators"),
    ({"ComputeQuotaResources": [{"InstanceType": P5}]}, "must set Count, Accelerators, VCpu, MemoryInGiB"),
    ({"ComputeQuotaResources": [{"InstanceType": P5, "Count": 9}]},
     f"would allocate 9 {P5} instances (research: 9), but the cluster has 8"),
], ids=["borrow-limit-with-lend", "borrow-limit-with-dontlend", "borrow-limit-0", "borrow-limit-501",
        "type-not-in-cluster", "borrow-type-not-in-cluster", "duplicate-type", "count-and-amounts", "empty-entry",
        "one-team-over-capacity"])
def test_semantic_validation(sm, config, fragment):
    code, status, message = error_of(sm.create_compute_quota, Name="q", ClusterArn=ML_ARN, ComputeQuotaConfig=config,
                                     ComputeQuotaTarget={"TeamName": "research"})
    assert (code, status) == ("ValidationException", 400)
    assert fragment in message, message
    assert sm.list_compute_quotas()["ComputeQuotaSummaries"] == []


def test_team_name_longer_than_40_is_refused(sm):
    code, _, message = error_of(create_quota, sm, team="a" * 41)
    assert code == "ValidationException" and "length less than or equal to 40" in message
    create_quota(sm, team="a" * 40)


def test_accelerators_on_a_cpu_only_type(sm):
    cpu = make_cluster(sm, "cpu-only", groups=(("cpu", "ml.m5.2xlarge", 2),))
    code, _, message = error_of(create_quota, sm, cluster_arn=cpu,
                                resources=[{"InstanceType": "ml.m5.2xlarge", "Accelerators": 1}])
    assert code == "ValidationException" and "ml.m5.2xlarge has no accelerators" in message
    qid = create_quota(sm, cluster_arn=cpu, resources=[{"InstanceType": "ml.m5.2xlarge", "VCpu": 4}])["ComputeQuotaId"]
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["ComputeQuotaConfig"]["ComputeQuotaResources"] == [
        {"InstanceType": "ml.m5.2xlarge", "VCpu": 4.0, "MemoryInGiB": 16.0, "Accelerators": 0}]


def test_over_commit_across_teams(sm):
    a = create_quota(sm, name="team-a", team="team-a", resources=[{"InstanceType": P5, "Count": 6}])["ComputeQuotaId"]
    code, status, message = error_of(create_quota, sm, name="team-b", team="team-b",
                                     resources=[{"InstanceType": P5, "Count": 3}])
    assert (code, status) == ("ValidationException", 400)
    assert f"would allocate 9 {P5} instances (team-a: 6, team-b: 3), but the cluster has 8" in message
    create_quota(sm, name="team-b", team="team-b", resources=[{"InstanceType": P5, "Count": 2}])  # exactly 8
    # Amounts count too: all 64 accelerators of the 8 p5 instances are taken.
    code, _, message = error_of(create_quota, sm, name="team-c", team="team-c",
                                resources=[{"InstanceType": P5, "Accelerators": 1}])
    assert code == "ValidationException"
    assert f"would allocate 65 Accelerators of {P5} (team-a: 48, team-b: 16, team-c: 1), but its 8 {P5} " \
           "instances have 64" in message
    code, _, message = error_of(create_quota, sm, name="team-c", team="team-c",
                                resources=[{"InstanceType": G5, "VCpu": 129}])
    assert code == "ValidationException"
    assert f"would allocate 129 VCpu of {G5} (team-c: 129), but its 4 {G5} instances have 128" in message

    wait_status(sm, a, "Created")
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=a, TargetVersion=1,
                                ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": P5, "Count": 7}]})
    assert code == "ValidationException" and "would allocate 9" in message
    assert sm.describe_compute_quota(ComputeQuotaId=a)["ComputeQuotaVersion"] == 1  # nothing written
    sm.update_compute_quota(ComputeQuotaId=a, TargetVersion=1,
                            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": P5, "Count": 5}]})
    wait_status(sm, a, "Updated")
    create_quota(sm, name="team-c", team="team-c", resources=[{"InstanceType": P5, "Accelerators": 8}])

    # A quota keeps its share until it is gone.
    sm.delete_compute_quota(ComputeQuotaId=a)
    assert error_of(create_quota, sm, name="team-d", team="team-d",
                    resources=[{"InstanceType": P5, "Count": 5}])[0] == "ValidationException"
    wait_gone(sm, a)
    create_quota(sm, name="team-d", team="team-d", resources=[{"InstanceType": P5, "Count": 5}])


def test_the_accept_reading_creates_an_overcommitting_quota(sm, sandbox):
    """AWS does not document whether an overcommitting guaranteed quota is refused; the "accept" reading lets a test
    see what a provider does when it is not (the default, "refuse", is the stricter one)."""
    assert sandbox.admin("PUT", "settings", {"quota_capacity": "accept"})["quota_capacity"] == "accept"
    create_quota(sm, name="team-a", team="team-a", resources=[{"InstanceType": P5, "Count": 6}])
    b = create_quota(sm, name="team-b", team="team-b", resources=[{"InstanceType": P5, "Count": 6}])["ComputeQuotaId"]
    wait_status(sm, b, "Created")
    assert sandbox.admin("PUT", "settings", {"quota_capacity": None})["quota_capacity"] == "refuse"
    assert error_of(create_quota, sm, name="team-c", team="team-c",
                    resources=[{"InstanceType": P5, "Count": 1}])[0] == "ValidationException"


def test_capacity_is_per_cluster(sm):
    other = make_cluster(sm, "other", groups=(("p5", P5, 2),))
    create_quota(sm, resources=[{"InstanceType": P5, "Count": 8}])
    create_quota(sm, cluster_arn=other, resources=[{"InstanceType": P5, "Count": 2}])
    assert error_of(create_quota, sm, name="more", team="more", cluster_arn=other,
                    resources=[{"InstanceType": P5, "Count": 1}])[0] == "ValidationException"


# ---- MIG partitions (AcceleratorPartition) ---------------------------------------------
RESOURCES = "ComputeQuotaConfig.ComputeQuotaResources"
NO_MIG = ("AcceleratorPartition at 'ComputeQuotaConfig.ComputeQuotaResources[0]' needs MIG-partitioned GPUs, but no "
          "instance group of {itype} in cluster {arn} has a MIG configuration (Kubernetes label nvidia.com/mig.config "
          "absent or all-disabled)")


def partition(profile="mig-1g.5gb", count=14, itype=P4D, **amounts):
    return {"InstanceType": itype, "AcceleratorPartition": {"Type": profile, "Count": count}, **amounts}


def test_the_seeded_mig_group(sm):
    groups = {g["InstanceGroupName"]: g for g in sm.describe_cluster(ClusterName=ML_ARN)["InstanceGroups"]}
    mig = groups["a100-mig"]
    assert (mig["InstanceType"], mig["CurrentCount"], mig["TargetCount"]) == (P4D, 2, 2)
    assert mig["ExecutionRole"] == groups["p5-training"]["ExecutionRole"]
    assert mig["KubernetesConfig"] == {"CurrentLabels": {MIG_LABEL: "all-1g.5gb"},
                                       "DesiredLabels": {MIG_LABEL: "all-1g.5gb"}}
    assert "KubernetesConfig" not in groups["p5-training"] and "KubernetesConfig" not in groups["g5-inference"]


@pytest.mark.parametrize("given, filled", [
    (partition(count=14), {"VCpu": 24.0, "MemoryInGiB": 288.0}),  # 14 x 1g.5gb = 2 A100s' worth of 96 vCPU / 1152 GiB
    (partition(count=1), {"VCpu": pytest.approx(12 / 7), "MemoryInGiB": pytest.approx(144 / 7)}),
    (partition(count=0), {"VCpu": 0.0, "MemoryInGiB": 0.0}),
    (partition(count=7, VCpu=6), {"VCpu": 6.0, "MemoryInGiB": 72.0}),  # one amount: the other by its ratio
    (partition(count=7, MemoryInGiB=288), {"MemoryInGiB": 288.0, "VCpu": 24.0}),
    (partition(count=7, VCpu=1, MemoryInGiB=500), {"VCpu": 1.0, "MemoryInGiB": 500.0}),  # both: kept
], ids=["ratio", "one-partition", "zero", "vcpu-given", "memory-given", "both-given"])
def test_partitions_are_accepted_on_the_mig_group_and_round_trip(sm, given, filled):
    qid = create_quota(sm, resources=[given])["ComputeQuotaId"]
    want = [{**given, **filled}]
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["ComputeQuotaConfig"]["ComputeQuotaResources"] == want
    [summary] = sm.list_compute_quotas()["ComputeQuotaSummaries"]
    assert summary["ComputeQuotaConfig"]["ComputeQuotaResources"] == want
    assert "Accelerators" not in want[0]  # the partitions are the entry's accelerators
    desc = wait_status(sm, qid, "Created")
    # Sending back what was read changes nothing.
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, ComputeQuotaConfig=desc["ComputeQuotaConfig"])
    assert wait_status(sm, qid, "Updated")["ComputeQuotaConfig"] == desc["ComputeQuotaConfig"]


def test_partitions_beside_whole_instances_and_other_types(sm):
    resources = [{"InstanceType": P5, "Count": 2}, partition(count=21), {"InstanceType": G5, "Accelerators": 1}]
    qid = create_quota(sm, resources=resources)["ComputeQuotaId"]
    got = sm.describe_compute_quota(ComputeQuotaId=qid)["ComputeQuotaConfig"]["ComputeQuotaResources"]
    assert got == [resources[0], {**resources[1], "VCpu": 36.0, "MemoryInGiB": 432.0},
                   {**resources[2], "VCpu": 32.0, "MemoryInGiB": 128.0}]


@pytest.mark.parametrize("entry, message", [
    (partition("mig-1g.10gb", itype=P5), NO_MIG.format(itype=P5, arn=ML_ARN)),
    (partition("mig-1g.5gb", itype=G5), NO_MIG.format(itype=G5, arn=ML_ARN)),
    (partition("mig-2g.10gb"),
     f"Accelerator partition type mig-2g.10gb at '{RESOURCES}[0].AcceleratorPartition.Type' is not exposed by the "
     f"{P4D} instance groups of cluster {ML_ARN}: their nvidia.com/mig.config is all-1g.5gb (partitions mig-1g.5gb "
     "only)"),
    (partition("mig-7g.80gb"),
     f"Accelerator partition type mig-7g.80gb at '{RESOURCES}[0].AcceleratorPartition.Type' is not available on "
     f"{P4D}: its NVIDIA A100 40GB GPUs offer mig-1g.5gb, mig-1g.10gb, mig-2g.10gb, mig-3g.20gb, mig-4g.20gb, "
     "mig-7g.40gb"),
    (partition(Count=1),
     f"'{RESOURCES}[0]' ({P4D}) sets AcceleratorPartition together with Count: allocate either accelerator "
     "partitions or whole instances/accelerators"),
    (partition(Accelerators=2), f"'{RESOURCES}[0]' ({P4D}) sets AcceleratorPartition together with Accelerators"),
], ids=["p5-no-mig-label", "g5-no-mig-label", "profile-not-exposed", "profile-not-on-this-gpu", "with-count",
        "with-accelerators"])
def test_partitions_that_the_cluster_cannot_give_are_refused(sm, entry, message):
    code, status, got = error_of(create_quota, sm, resources=[entry])
    assert (code, status) == ("ValidationException", 400)
    assert message in got, got
    assert sm.list_compute_quotas()["ComputeQuotaSummaries"] == []


def test_disabled_and_custom_mig_layouts(sm):
    disabled = make_cluster(sm, "mig-off", groups=(("a100", P4D, 1, "all-disabled"),))
    code, _, message = error_of(create_quota, sm, cluster_arn=disabled, resources=[partition()])
    assert code == "ValidationException" and NO_MIG.format(itype=P4D, arn=disabled) in message
    # A custom layout may expose any profile of the GPU, and its partitions are not counted against capacity.
    custom = make_cluster(sm, "mig-custom", groups=(("a100", P4D, 1, "custom-3g-2g-1g"),))
    for team, profile in (("team-a", "mig-3g.20gb"), ("team-b", "mig-2g.10gb"), ("team-c", "mig-1g.5gb")):
        create_quota(sm, name=team, team=team, cluster_arn=custom,
                     resources=[partition(profile, count=100, VCpu=1, MemoryInGiB=8)])
    code, _, message = error_of(create_quota, sm, name="team-d", team="team-d", cluster_arn=custom,
                                resources=[partition("mig-7g.80gb", count=1)])
    assert code == "ValidationException" and "is not available on ml.p4d.24xlarge" in message


def test_partitions_over_capacity_are_refused(sm, sandbox):
    """2 instances x 8 A100 x 7 partitions of 1g.5gb = 112 on a100-mig."""
    code, status, message = error_of(create_quota, sm, resources=[partition(count=113)])
    assert (code, status) == ("ValidationException", 400)
    assert (f"Compute quotas of cluster {ML_ARN} would allocate 113 mig-1g.5gb partitions of {P4D} (research: 113), "
            f"but its 2 {P4D} instances with nvidia.com/mig.config all-1g.5gb have 112") in message
    create_quota(sm, name="team-a", team="team-a", resources=[partition(count=56)])
    code, _, message = error_of(create_quota, sm, name="team-b", team="team-b", resources=[partition(count=57)])
    assert code == "ValidationException"
    assert "113 mig-1g.5gb partitions" in message and "(team-a: 56, team-b: 57)" in message
    create_quota(sm, name="team-b", team="team-b", resources=[partition(count=56)])  # exactly 112
    # The 112 partitions are all 16 GPUs' worth: not one whole accelerator is left.
    code, _, message = error_of(create_quota, sm, name="team-c", team="team-c",
                                resources=[{"InstanceType": P4D, "Accelerators": 1}])
    assert code == "ValidationException"
    assert f"would allocate 17 Accelerators of {P4D} (team-a: 8, team-b: 8, team-c: 1), but its 2 {P4D} instances " \
           "have 16" in message
    assert error_of(create_quota, sm, name="team-c", team="team-c",
                    resources=[{"InstanceType": P4D, "Count": 1}])[0] == "ValidationException"
    # The "accept" reading lets them overcommit.
    sandbox.admin("PUT", "settings", {"quota_capacity": "accept"})
    qid = create_quota(sm, name="team-c", team="team-c", resources=[partition(count=112)])["ComputeQuotaId"]
    assert wait_status(sm, qid, "Created")["ComputeQuotaConfig"]["ComputeQuotaResources"] == [
        {**partition(count=112), "VCpu": 192.0, "MemoryInGiB": 2304.0}]


def test_partition_capacity_comes_from_the_groups_with_that_layout(sm):
    mixed = make_cluster(sm, "mig-mixed", groups=(("sliced", P4D, 1, "all-1g.5gb"), ("whole", P4D, 1)))
    code, _, message = error_of(create_quota, sm, cluster_arn=mixed, resources=[partition(count=57)])
    assert code == "ValidationException"
    assert f"but its 1 {P4D} instances with nvidia.com/mig.config all-1g.5gb have 56" in message
    create_quota(sm, cluster_arn=mixed, resources=[partition(count=56)])
    create_quota(sm, name="whole", team="whole", cluster_arn=mixed, resources=[{"InstanceType": P4D, "Count": 1}])


def test_absolute_borrow_limits_round_trip(sm):
    # Limits may exceed what the cluster has (they cap borrowing, they guarantee nothing).
    limits = [{"InstanceType": P5, "Accelerators": 4}, partition(count=500), {"InstanceType": G5, "Count": 1}]
    sharing = {"Strategy": "LendAndBorrow", "BorrowLimit": 100, "AbsoluteBorrowLimits": limits}
    qid = create_quota(sm, config={"ResourceSharingConfig": sharing})["ComputeQuotaId"]
    desc = sm.describe_compute_quota(ComputeQuotaId=qid)
    assert desc["ComputeQuotaConfig"]["ResourceSharingConfig"] == sharing  # as written: no fill, no capacity check
    [summary] = sm.list_compute_quotas()["ComputeQuotaSummaries"]
    assert summary["ComputeQuotaConfig"]["ResourceSharingConfig"] == sharing


@pytest.mark.parametrize("limit, fragment", [
    (partition("mig-1g.10gb", itype=P5),
     "AcceleratorPartition at 'ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0]' needs "
     "MIG-partitioned GPUs, but no instance group of ml.p5.48xlarge"),
    (partition("mig-3g.20gb"), "mig-3g.20gb at 'ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits[0]"
                               ".AcceleratorPartition.Type' is not exposed"),
    (partition(Count=1), "sets AcceleratorPartition together with Count"),
], ids=["no-mig-label", "profile-not-exposed", "with-count"])
def test_partition_borrow_limits_are_validated(sm, limit, fragment):
    sharing = {"Strategy": "LendAndBorrow", "AbsoluteBorrowLimits": [limit]}
    code, _, message = error_of(create_quota, sm, config={"ResourceSharingConfig": sharing})
    assert code == "ValidationException" and fragment in message, message


# ---- held to botocore's model: the sandbox refuses at least what the model refuses ----------------------------------
@pytest.fixture(scope="module")
def model():
    import botocore.session
    return botocore.session.get_session().get_service_model("sagemaker")


def refused(raw_sm, config):
    code, status, message = error_of(raw_sm.create_compute_quota, Name="q", ClusterArn=ML_ARN,
                                     ComputeQuotaConfig=config, ComputeQuotaTarget={"TeamName": "research"})
    assert (code, status) == ("ValidationException", 400), message
    return message


def test_partition_type_outside_the_models_enum_is_refused(raw_sm, model):
    enum = model.shape_for("AcceleratorPartitionConfig").members["Type"].enum
    assert "mig-1g.5gb" in enum
    for bad in ("mig-9g.99gb", "1g.5gb", "all-1g.5gb", "MIG-1G.5GB"):
        assert bad not in enum
        message = refused(raw_sm, {"ComputeQuotaResources": [partition(bad)]})
        assert (f"Value '{bad}' at 'computeQuotaConfig.computeQuotaResources.1.member.acceleratorPartition.type' "
                "failed to satisfy constraint: Member must satisfy enum value set: [") in message


def test_partition_count_outside_the_models_range_is_refused(raw_sm, model):
    meta = model.shape_for("AcceleratorPartitionConfig").members["Count"].metadata
    assert (meta["min"], meta["max"]) == (0, 10_000_000)
    where = "computeQuotaConfig.resourceSharingConfig.absoluteBorrowLimits.1.member.acceleratorPartition.count"
    for bad, constraint in ((meta["min"] - 1, f"greater than or equal to {meta['min']}"),
                            (meta["max"] + 1, f"less than or equal to {meta['max']}")):
        message = refused(raw_sm, {"ComputeQuotaResources": [partition(count=bad)]})
        assert f"Value '{bad}' at 'computeQuotaConfig.computeQuotaResources.1.member.acceleratorPartition.count' " \
               f"failed to satisfy constraint: Member must have value {constraint}" in message
        message = refused(raw_sm, {"ResourceSharingConfig": {"Strategy": "LendAndBorrow",
                                                             "AbsoluteBorrowLimits": [partition(count=bad)]}})
        assert f"at '{where}' failed to satisfy constraint: Member must have value {constraint}" in message


@pytest.mark.parametrize("missing", ["Type", "Count"])
def test_partition_members_the_model_requires(raw_sm, model, missing):
    assert missing in model.shape_for("AcceleratorPartitionConfig").required_members
    entry = partition()
    del entry["AcceleratorPartition"][missing]
    message = refused(raw_sm, {"ComputeQuotaResources": [entry]})
    assert (f"Value null at 'computeQuotaConfig.computeQuotaResources.1.member.acceleratorPartition."
            f"{missing.lower()}' failed to satisfy constraint: Member must not be null") in message


def test_absolute_borrow_limits_longer_than_the_model_allows_are_refused(raw_sm, model):
    limit = model.shape_for("ResourceSharingConfig").members["AbsoluteBorrowLimits"].metadata["max"]
    assert limit == 15
    entries = [{"InstanceType": P5, "Accelerators": 1} for _ in range(limit + 1)]
    message = refused(raw_sm, {"ResourceSharingConfig": {"Strategy": "LendAndBorrow",
                                                         "AbsoluteBorrowLimits": entries}})
    assert ("at 'computeQuotaConfig.resourceSharingConfig.absoluteBorrowLimits' failed to satisfy constraint: "
            f"Member must have length less than or equal to {limit}") in message
    # Within the model's length, the sandbox's own checks apply (one entry per instance type).
    message = refused(raw_sm, {"ResourceSharingConfig": {"Strategy": "LendAndBorrow",
                                                         "AbsoluteBorrowLimits": entries[:limit]}})
    assert "appears more than once" in message


def test_borrow_limit_range_lies_inside_the_models(raw_sm, model):
    from sandbox.sagemaker import BORROW_LIMIT_RANGE
    meta = model.shape_for("ResourceSharingConfig").members["BorrowLimit"].metadata
    low, high = BORROW_LIMIT_RANGE
    assert meta["min"] <= low <= high <= meta["max"], (BORROW_LIMIT_RANGE, meta)
    for bad in (meta["min"] - 1, meta["max"] + 1):  # outside the model: refused by the model's words
        message = refused(raw_sm, {"ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": bad}})
        assert f"Value '{bad}' at 'computeQuotaConfig.resourceSharingConfig.borrowLimit'" in message
    for bad in (low - 1, high + 1):  # inside the model, outside the docs' range: refused by the sandbox
        message = refused(raw_sm, {"ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": bad}})
        assert f"BorrowLimit must be between {low} and {high} (percent)" in message
    for n, good in enumerate((low, high)):
        raw_sm.create_compute_quota(Name=f"q{n}", ClusterArn=ML_ARN, ComputeQuotaTarget={"TeamName": f"team{n}"},
                                    ComputeQuotaConfig={"ResourceSharingConfig": {"Strategy": "LendAndBorrow",
                                                                                  "BorrowLimit": good}})


# ---- conflicts, not found -----------------------------------------------------------
def test_name_and_team_unique_per_cluster(sm):
    create_quota(sm, name="shared-name", team="research")
    code, status, message = error_of(create_quota, sm, name="shared-name", team="production")
    assert (code, status) == ("ConflictException", 400) and "shared-name" in message
    code, _, message = error_of(create_quota, sm, name="second", team="research")
    assert code == "ConflictException" and "one compute quota per cluster" in message
    other = make_cluster(sm, "other")
    create_quota(sm, name="shared-name", team="research", cluster_arn=other,
                 resources=[{"InstanceType": "ml.g5.xlarge", "Count": 1}])  # another cluster is fine


def test_quota_needs_existing_eks_cluster(sm):
    assert error_of(create_quota, sm, cluster_arn=MISSING_ARN)[:2] == ("ResourceNotFound", 400)
    code, _, message = error_of(create_quota, sm, cluster_arn=SLURM_ARN,
                                resources=[{"InstanceType": G5, "Count": 1}])
    assert code == "ValidationException" and "not orchestrated by Amazon EKS" in message


def test_versions_and_transitions_guard_writes(sm):
    qid = create_quota(sm)["ComputeQuotaId"]
    for call in (lambda: sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="x"),
                 lambda: sm.delete_compute_quota(ComputeQuotaId=qid)):
        code, _, message = error_of(call)
        assert code == "ConflictException" and "Creating" in message
    wait_status(sm, qid, "Created")
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=2, Description="x")
    assert code == "ConflictException" and "current version 1" in message
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="v2")
    assert error_of(sm.delete_compute_quota, ComputeQuotaId=qid)[0] == "ConflictException"  # Updating
    wait_status(sm, qid, "Updated")
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=1, Description="stale")
    assert code == "ConflictException" and "current version 2" in message
    sm.delete_compute_quota(ComputeQuotaId=qid)
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=2, Description="late")
    assert code == "ConflictException" and "Deleting" in message


def test_team_name_cannot_change(sm):
    qid = create_quota(sm)["ComputeQuotaId"]
    wait_status(sm, qid, "Created")
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=1,
                                ComputeQuotaTarget={"TeamName": "production"})
    assert code == "ValidationException" and "TeamName cannot be changed" in message


def test_unknown_quota_id(sm):
    for call in (sm.describe_compute_quota, sm.delete_compute_quota):
        assert error_of(call, ComputeQuotaId="abcdef123456")[:2] == ("ResourceNotFound", 400)
    assert error_of(sm.update_compute_quota, ComputeQuotaId="abcdef123456",
                    TargetVersion=1)[0] == "ResourceNotFound"
    arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:compute-quota/abcdef123456"
    assert error_of(sm.list_tags, ResourceArn=arn)[0] == "ResourceNotFound"


# ---- list, tags ----------------------------------------------------------------------
def test_list_filters_sorting_and_paging(sm):
    other = make_cluster(sm, "other")
    before = datetime.now(UTC) - timedelta(seconds=5)
    ids = [create_quota(sm, name=n, team=t, cluster_arn=c, resources=[{"InstanceType": i, "Count": 1}])
           ["ComputeQuotaId"] for n, t, c, i in (("alpha-quota", "alpha", ML_ARN, P5),
                                                 ("beta-quota", "beta", other, "ml.g5.xlarge"),
                                                 ("gamma", "gamma", ML_ARN, G5))]
    wait_status(sm, ids[0], "Created")
    sm.update_compute_quota(ComputeQuotaId=ids[0], TargetVersion=1, Description="x")

    def names(**kw):
        return [s["Name"] for s in sm.list_compute_quotas(**kw)["ComputeQuotaSummaries"]]

    assert names() == ["gamma", "beta-quota", "alpha-quota"]  # newest first
    assert names(SortBy="Name", SortOrder="Ascending") == ["alpha-quota", "beta-quota", "gamma"]
    by_cluster = names(SortBy="ClusterArn", SortOrder="Ascending")
    assert by_cluster.index("beta-quota") == (0 if other < ML_ARN else 2)
    assert names(ClusterArn=other) == ["beta-quota"]
    assert names(NameContains="quota", SortBy="Name", SortOrder="Ascending") == ["alpha-quota", "beta-quota"]
    assert names(Status="Updating") == ["alpha-quota"]
    assert names(CreatedAfter=before, SortBy="Name") == ["gamma", "beta-quota", "alpha-quota"]
    assert names(CreatedBefore=before) == []
    assert names(CreatedAfter=datetime.now(UTC) + timedelta(seconds=5)) == []

    summary = sm.list_compute_quotas(ClusterArn=ML_ARN, NameContains="alpha")["ComputeQuotaSummaries"][0]
    assert summary["ComputeQuotaVersion"] == 2 and summary["ComputeQuotaId"] == ids[0]
    assert summary["ComputeQuotaArn"].endswith(f":compute-quota/{ids[0]}") and summary["ClusterArn"] == ML_ARN
    assert summary["ComputeQuotaTarget"] == {"TeamName": "alpha", "FairShareWeight": 0}
    assert summary["ComputeQuotaConfig"]["ResourceSharingConfig"] == DEFAULT_SHARING
    assert summary["ActivationState"] == "Enabled" and "Description" not in summary

    pages, token = [], None
    while True:
        page = sm.list_compute_quotas(MaxResults=2, SortBy="Name", SortOrder="Ascending",
                                      **({"NextToken": token} if token else {}))
        pages.append([s["Name"] for s in page["ComputeQuotaSummaries"]])
        token = page.get("NextToken")
        if not token:
            break
    assert pages == [["alpha-quota", "beta-quota"], ["gamma"]]


def test_tags_on_quota_arn(sm):
    arn = create_quota(sm, Tags=[{"Key": "team", "Value": "ml"}])["ComputeQuotaArn"]
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "ml"}]
    sm.add_tags(ResourceArn=arn, Tags=[{"Key": "team", "Value": "research"}, {"Key": "env", "Value": "test"}])
    assert {t["Key"]: t["Value"] for t in sm.list_tags(ResourceArn=arn)["Tags"]} == {"team": "research", "env": "test"}
    sm.delete_tags(ResourceArn=arn, TagKeys=["team"])
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}]


# ---- faults, reset ------------------------------------------------------------------
def test_async_failure_faults(sm, sandbox):
    sandbox.fault("CreateComputeQuota", "async_failure", failure_reason="Kueue webhook unavailable")
    qid = create_quota(sm)["ComputeQuotaId"]
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["Status"] == "Creating"
    assert wait_status(sm, qid, "CreateFailed")["FailureReason"] == "Kueue webhook unavailable"
    assert sm.list_compute_quotas(Status="CreateFailed")["ComputeQuotaSummaries"][0]["ComputeQuotaId"] == qid

    sandbox.fault("UpdateComputeQuota", "async_failure", failure_reason="ClusterQueue rejected")
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="v2")
    assert wait_status(sm, qid, "UpdateFailed")["FailureReason"] == "ClusterQueue rejected"
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=2, Description="v3")
    desc = wait_status(sm, qid, "Updated")  # count=1: the next write succeeds again
    assert "FailureReason" not in desc and sandbox.admin("GET", "faults")["faults"] == []

    sandbox.fault("DeleteComputeQuota", "async_failure", failure_reason="finalizer stuck")
    sm.delete_compute_quota(ComputeQuotaId=qid)
    assert wait_status(sm, qid, "DeleteFailed")["FailureReason"] == "finalizer stuck"
    sm.delete_compute_quota(ComputeQuotaId=qid)
    wait_gone(sm, qid)


def test_error_fault_writes_nothing(sm, sandbox):
    sandbox.fault("CreateComputeQuota", code="ThrottlingException", status=400, message="Rate exceeded")
    assert error_of(create_quota, sm) == ("ThrottlingException", 400, "Rate exceeded")
    assert sm.list_compute_quotas()["ComputeQuotaSummaries"] == []
    create_quota(sm)


def test_reset_drops_quotas(sm, sandbox):
    qid = create_quota(sm)["ComputeQuotaId"]
    sandbox.reset()
    assert sm.list_compute_quotas()["ComputeQuotaSummaries"] == []
    assert error_of(sm.describe_compute_quota, ComputeQuotaId=qid)[0] == "ResourceNotFound"
    create_quota(sm)  # the team and the capacity are free again


def test_transitions_take_as_long_as_the_timing_setting_says(sm, sandbox):
    """`PUT /_sandbox/timing` lengthens Creating -> Created (and a reset restores the run's setting); a value that
    is not a number of seconds is refused."""
    run_setting = sandbox.admin("GET", "timing")["async_seconds"]
    longer = run_setting + 3
    assert sandbox.admin("PUT", "timing", {"async_seconds": longer})["async_seconds"] == longer
    qid = create_quota(sm)["ComputeQuotaId"]
    time.sleep(run_setting + 0.5)
    assert sm.describe_compute_quota(ComputeQuotaId=qid)["Status"] == "Creating"
    wait_status(sm, qid, "Created", timeout=5)
    for bad in ("3", -1, True, {"x": 1}):
        with pytest.raises(urllib.error.HTTPError) as refused:
            sandbox.admin("PUT", "timing", {"async_seconds": bad})
        assert refused.value.code == 400
    sandbox.reset()
    assert sandbox.admin("GET", "timing")["async_seconds"] == run_setting


# ---- the team namespace in the cluster's Kubernetes API ---------------------------------
def namespaces(sandbox, eks_cluster="ml-capacity-eks") -> dict:
    """Namespace name -> labels in the EKS cluster's Kubernetes API (admin dump of sandbox/kubernetes.py)."""
    try:
        dump = sandbox.admin("GET", f"kubernetes/{eks_cluster}")
    except urllib.error.HTTPError as e:
        if e.code == 404 and b"no admin route" in e.read():
            pytest.skip("the sandbox has no Kubernetes API yet (sandbox/kubernetes.py, GET /_sandbox/kubernetes/...)")
        raise
    return {o["metadata"]["name"]: o["metadata"].get("labels", {})
            for o in dump["objects"] if o.get("kind") == "Namespace"}


def team_labels(team, activation="Enabled"):
    return {"sagemaker.amazonaws.com/sagemaker-managed-queue": "true",
            "sagemaker.amazonaws.com/quota-allocation-id": team,
            "sagemaker.amazonaws.com/activate-quota": activation}


def test_namespace_follows_the_quota(sm, sandbox):
    assert "hyperpod-ns-research" not in namespaces(sandbox)
    qid = create_quota(sm)["ComputeQuotaId"]
    assert "hyperpod-ns-research" not in namespaces(sandbox)  # HyperPod makes it while Creating
    wait_status(sm, qid, "Created")
    labels = namespaces(sandbox)["hyperpod-ns-research"]
    assert labels == {**labels, **team_labels("research")}

    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, ActivationState="Disabled")
    wait_status(sm, qid, "Updated")
    assert namespaces(sandbox)["hyperpod-ns-research"]["sagemaker.amazonaws.com/activate-quota"] == "Disabled"

    sm.delete_compute_quota(ComputeQuotaId=qid)
    assert "hyperpod-ns-research" in namespaces(sandbox)  # still there while Deleting
    wait_gone(sm, qid)
    assert "hyperpod-ns-research" not in namespaces(sandbox)


def test_namespace_appears_without_further_sagemaker_calls(sm, sandbox):
    create_quota(sm)
    deadline = time.monotonic() + 10
    while "hyperpod-ns-research" not in namespaces(sandbox) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "hyperpod-ns-research" in namespaces(sandbox)


def test_failed_writes_and_namespaces(sm, sandbox):
    sandbox.fault("CreateComputeQuota", "async_failure", failure_reason="boom")
    failed = create_quota(sm)["ComputeQuotaId"]
    wait_status(sm, failed, "CreateFailed")
    assert "hyperpod-ns-research" not in namespaces(sandbox)  # no namespace for a quota that failed to create

    qid = create_quota(sm, name="prod", team="production", resources=[{"InstanceType": G5, "Count": 1}])
    wait_status(sm, qid["ComputeQuotaId"], "Created")
    sandbox.fault("DeleteComputeQuota", "async_failure", failure_reason="finalizer stuck")
    sm.delete_compute_quota(ComputeQuotaId=qid["ComputeQuotaId"])
    wait_status(sm, qid["ComputeQuotaId"], "DeleteFailed")
    assert "hyperpod-ns-production" in namespaces(sandbox)  # the namespace stays while the quota does


def test_namespace_shared_by_two_clusters_on_one_eks_cluster(sm, sandbox):
    other = make_cluster(sm, "other")  # another HyperPod cluster on the same EKS cluster
    a = create_quota(sm)["ComputeQuotaId"]
    b = create_quota(sm, cluster_arn=other, resources=[{"InstanceType": "ml.g5.xlarge", "Count": 1}])["ComputeQuotaId"]
    wait_status(sm, a, "Created")
    wait_status(sm, b, "Created")
    sm.delete_compute_quota(ComputeQuotaId=a)
    wait_gone(sm, a)
    assert "hyperpod-ns-research" in namespaces(sandbox)  # team research still has a quota on this EKS cluster
    sm.delete_compute_quota(ComputeQuotaId=b)
    wait_gone(sm, b)
    assert "hyperpod-ns-research" not in namespaces(sandbox)


@pytest.fixture(scope="module")
def inproc_server():
    """A sandbox served from this process, so `sandbox.kubernetes` can be made to fail."""
    k8s = pytest.importorskip("sandbox.kubernetes", reason="sandbox/kubernetes.py does not exist yet")
    if not all(callable(getattr(k8s, f, None)) for f in ("ensure_namespace", "delete_namespace")):
        pytest.skip("sandbox.kubernetes has no ensure_namespace/delete_namespace yet")
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    import sandbox as sandbox_pkg
    from harness import Sandbox
    from sandbox.admin import AdminMiddleware
    from sandbox.seed import DEFAULT_SEED

    sandbox_pkg.install()
    app = AdminMiddleware(DomainDispatcherApplication(create_backend_app), DEFAULT_SEED)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=MotoRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Sandbox(f"http://127.0.0.1:{server.server_port}"), k8s
    server.shutdown()


def test_namespace_failure_fails_the_write(inproc_server, monkeypatch):
    sb, k8s = inproc_server
    sb.reset()

    def unreachable(eks_cluster_arn, name, labels):
        raise ConnectionError("API server unreachable")

    monkeypatch.setattr(k8s, "ensure_namespace", unreachable)
    sm = sb.client("sagemaker")
    qid = create_quota(sm)["ComputeQuotaId"]
    desc = wait_status(sm, qid, "CreateFailed")
    assert desc["FailureReason"] == "Failed to create namespace hyperpod-ns-research: API server unreachable"
