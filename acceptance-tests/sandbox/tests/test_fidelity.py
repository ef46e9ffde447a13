"""Where the sandbox is as strict as AWS on EKS, KMS and task governance (issue 15): principals must exist (with IAM's
eventual consistency as a fault), Pod Identity associations take tags, task governance needs its EKS add-on, and
`TargetVersion` follows the configured reading.

Run: $VENV/bin/python -m pytest sandbox/tests/test_fidelity.py   (from acceptance-tests/)
"""
import json
import time
import urllib.error

import pytest

from helpers import error_of, make_principals, wait_gone, wait_status

ACCOUNT, REGION = "123456789012", "us-west-2"
EKS = "ml-capacity-eks"
HYPERPOD_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
KEY = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # the seeded data key (seed_data/kms.json)
TG = "amazon-sagemaker-hyperpod-taskgovernance"
NEW_ROLE = f"arn:aws:iam::{ACCOUNT}:role/tfacc-fresh"
GHOST = f"arn:aws:iam::{ACCOUNT}:role/tfacc-never-created"
INVALID_PRINCIPAL = ("InvalidParameterException", 400, "The specified principalArn is invalid: invalid principal.")
NO_ROLE = ("InvalidParameterException", 400, "Role provided in the request does not exist")


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


@pytest.fixture
def eks(sandbox):
    return sandbox.client("eks")


def kms_key_arn(sandbox):
    return sandbox.client("kms").describe_key(KeyId=KEY)["KeyMetadata"]["Arn"]


# ---- principals must exist -----------------------------------------------------------------------------------------
def test_unknown_principals_are_refused_as_aws_refuses_them(sandbox, eks):
    assert error_of(eks.create_access_entry, clusterName=EKS, principalArn=GHOST) == INVALID_PRINCIPAL
    assert error_of(eks.create_access_entry, clusterName=EKS,
                    principalArn=f"arn:aws:iam::{ACCOUNT}:user/nobody") == INVALID_PRINCIPAL
    assert error_of(eks.create_pod_identity_association, clusterName=EKS, namespace="ns", serviceAccount="sa",
                    roleArn=GHOST) == NO_ROLE
    code, status, message = error_of(sandbox.client("kms").create_grant, KeyId=kms_key_arn(sandbox),
                                     GranteePrincipal=GHOST, Operations=["Decrypt"])
    assert (code, status) == ("InvalidArnException", 400) and GHOST in message
    # A role with the same name on another path is another role.
    make_principals(sandbox, NEW_ROLE)
    assert error_of(eks.create_access_entry, clusterName=EKS,
                    principalArn=f"arn:aws:iam::{ACCOUNT}:role/team/tfacc-fresh") == INVALID_PRINCIPAL
    assert eks.list_access_entries(clusterName=EKS)["accessEntries"] == sorted(
        [f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin", f"arn:aws:iam::{ACCOUNT}:user/moto"])


def test_existing_principals_are_accepted(sandbox, eks):
    make_principals(sandbox, NEW_ROLE)
    eks.create_access_entry(clusterName=EKS, principalArn=NEW_ROLE)
    association = eks.create_pod_identity_association(clusterName=EKS, namespace="ns", serviceAccount="sa",
                                                      roleArn=NEW_ROLE)["association"]
    assert association["roleArn"] == NEW_ROLE
    assert error_of(eks.update_pod_identity_association, clusterName=EKS,
                    associationId=association["associationId"], roleArn=GHOST) == NO_ROLE
    sandbox.client("kms").create_grant(KeyId=kms_key_arn(sandbox), GranteePrincipal=NEW_ROLE, Operations=["Decrypt"])


def test_a_role_still_propagating_is_refused_for_the_next_reads(sandbox, eks):
    sandbox.fault(mode="eventual_consistency", role_name="tfacc-fresh", count=3)
    make_principals(sandbox, NEW_ROLE)  # CreateRole starts the window
    assert error_of(eks.create_access_entry, clusterName=EKS, principalArn=NEW_ROLE) == INVALID_PRINCIPAL
    assert error_of(eks.create_pod_identity_association, clusterName=EKS, namespace="ns", serviceAccount="sa",
                    roleArn=NEW_ROLE) == NO_ROLE
    assert error_of(sandbox.client("kms").create_grant, KeyId=kms_key_arn(sandbox), GranteePrincipal=NEW_ROLE,
                    Operations=["Decrypt"])[0] == "InvalidArnException"
    eks.create_access_entry(clusterName=EKS, principalArn=NEW_ROLE)  # propagated after 3 reads
    assert sandbox.admin("GET", "faults")["faults"] == []


def test_a_propagation_window_in_seconds_for_an_existing_role(sandbox, eks):
    role = f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"
    eks.delete_access_entry(clusterName=EKS, principalArn=role)
    armed = sandbox.fault(mode="eventual_consistency", role_name="ml-capacity-cluster-admin", count=None, seconds=4,
                          existing=True)["armed"]
    assert (armed["active"], armed["count"], armed["seconds"]) == (True, None, 4)
    for _ in range(3):  # every read within the window (4 s: room for a loaded CI machine)
        assert error_of(eks.create_access_entry, clusterName=EKS, principalArn=role) == INVALID_PRINCIPAL
    time.sleep(4.1)
    eks.create_access_entry(clusterName=EKS, principalArn=role)
    assert sandbox.admin("GET", "faults")["faults"] == []


@pytest.mark.parametrize("spec", [
    {"mode": "eventual_consistency", "existing": True},  # existing needs a role
    {"mode": "eventual_consistency", "role_name": "r", "seconds": 0},
    {"mode": "eventual_consistency", "role_name": "r", "seconds": "soon"},
], ids=["existing-without-role", "seconds-zero", "seconds-type"])
def test_bad_propagation_faults_are_rejected(sandbox, spec):
    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.admin("POST", "faults", spec)
    assert info.value.code == 400 and "error" in json.loads(info.value.read())


# ---- tags on a Pod Identity association -----------------------------------------------------------------------------
def test_pod_identity_association_arns_take_tags(sandbox, eks):
    make_principals(sandbox, NEW_ROLE)
    association = eks.create_pod_identity_association(clusterName=EKS, namespace="ns", serviceAccount="sa",
                                                      roleArn=NEW_ROLE, tags={"a": "1"})["association"]
    arn = association["associationArn"]
    eks.tag_resource(resourceArn=arn, tags={"hyperpod-acceptance-test": "tfacc", "a": "2"})
    assert eks.list_tags_for_resource(resourceArn=arn)["tags"] == {"a": "2", "hyperpod-acceptance-test": "tfacc"}
    eks.untag_resource(resourceArn=arn, tagKeys=["a"])
    assert eks.list_tags_for_resource(resourceArn=arn)["tags"] == {"hyperpod-acceptance-test": "tfacc"}
    described = eks.describe_pod_identity_association(clusterName=EKS, associationId=association["associationId"])
    assert described["association"]["tags"] == {"hyperpod-acceptance-test": "tfacc"}
    eks.delete_pod_identity_association(clusterName=EKS, associationId=association["associationId"])
    assert error_of(eks.list_tags_for_resource, resourceArn=arn)[:2] == ("ResourceNotFoundException", 404)


# ---- the task-governance add-on -------------------------------------------------------------------------------------
def quota(sm, name="tfacc-quota", team="tfacc"):
    return sm.create_compute_quota(Name=name, ClusterArn=HYPERPOD_ARN, ComputeQuotaTarget={"TeamName": team},
                                   ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge",
                                                                                  "Count": 1}]})


@pytest.mark.parametrize("reading", ["create_failed", "refuse"])
def test_task_governance_needs_its_addon(sandbox, eks, reading):
    """Without the add-on ACTIVE, a write is either accepted and settles CreateFailed/UpdateFailed with a
    FailureReason naming the add-on (the default reading), or refused at once (ValidationException): the guess
    `scheduler_before_addon`. Once the add-on is back, the failed config is deleted and created again, as AWS's
    troubleshooting page says."""
    sandbox.admin("PUT", "settings", {"scheduler_before_addon": reading})
    sm = sandbox.client("sagemaker")
    addon = eks.describe_addon(clusterName=EKS, addonName=TG)["addon"]
    assert addon["status"] == "ACTIVE"  # seeded on the suites' EKS clusters
    qid = quota(sm)["ComputeQuotaId"]
    wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), "Created")
    eks.delete_addon(clusterName=EKS, addonName=TG)
    policy = {"Name": "tfacc-policy", "ClusterArn": HYPERPOD_ARN, "SchedulerConfig": {"FairShare": "Enabled"}}
    if reading == "refuse":
        code, status, message = error_of(quota, sm, name="tfacc-other", team="other")
        assert (code, status) == ("ValidationException", 400) and TG in message and EKS in message
        code, _, message = error_of(sm.create_cluster_scheduler_config, **policy)
        assert code == "ValidationException" and TG in message
        assert error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=1, Description="x")[0] == \
            "ValidationException"
        eks.create_addon(clusterName=EKS, addonName=TG)
        sm.create_cluster_scheduler_config(**policy)
        return
    other = quota(sm, name="tfacc-other", team="other")["ComputeQuotaId"]
    failed = wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=other), "CreateFailed")
    assert TG in failed["FailureReason"] and EKS in failed["FailureReason"]
    cid = sm.create_cluster_scheduler_config(**policy)["ClusterSchedulerConfigId"]
    failed = wait_status(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid), "CreateFailed")
    assert TG in failed["FailureReason"]
    sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="x")
    assert TG in wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), "UpdateFailed")["FailureReason"]
    eks.create_addon(clusterName=EKS, addonName=TG)
    sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=cid)
    wait_gone(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid), "the failed config")
    cid = sm.create_cluster_scheduler_config(**policy)["ClusterSchedulerConfigId"]
    wait_status(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid), "Created")


# ---- TargetVersion readings -----------------------------------------------------------------------------------------
def test_target_version_reading_is_switchable(sandbox):
    sm = sandbox.client("sagemaker")
    assert sandbox.admin("GET", "settings")["target_version"] == "current"
    qid = quota(sm)["ComputeQuotaId"]
    wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), "Created")
    assert error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=2, Description="next")[0] == \
        "ConflictException"
    assert sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=1, Description="v2")["ComputeQuotaVersion"] == 2
    wait_status(lambda: sm.describe_compute_quota(ComputeQuotaId=qid), "Updated")

    assert sandbox.admin("PUT", "settings", {"target_version": "next"})["target_version"] == "next"
    code, _, message = error_of(sm.update_compute_quota, ComputeQuotaId=qid, TargetVersion=2, Description="cur")
    assert code == "ConflictException" and "expected version 3" in message
    assert sm.update_compute_quota(ComputeQuotaId=qid, TargetVersion=3, Description="v3")["ComputeQuotaVersion"] == 3
    cid = sm.create_cluster_scheduler_config(Name="tfacc-policy", ClusterArn=HYPERPOD_ARN,
                                             SchedulerConfig={"FairShare": "Enabled"})["ClusterSchedulerConfigId"]
    wait_status(lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=cid), "Created")
    assert error_of(sm.update_cluster_scheduler_config, ClusterSchedulerConfigId=cid, TargetVersion=1,
                    Description="x")[0] == "ConflictException"
    sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=cid, TargetVersion=2, Description="x")

    with pytest.raises(urllib.error.HTTPError) as info:
        sandbox.admin("PUT", "settings", {"target_version": "previous"})
    assert info.value.code == 400
    sandbox.reset()
    assert sandbox.admin("GET", "settings") == {"target_version": "current", "quota_capacity": "refuse",
                                                "unknown_members": "refuse", "scheduler_before_addon": "create_failed"}
