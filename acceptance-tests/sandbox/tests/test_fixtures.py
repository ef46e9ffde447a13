"""The admin fixtures (`POST /_sandbox/fixtures/<name>`, sandbox/fixtures.py), through the admin API and boto3.

Run: $VENV/bin/python -m pytest sandbox/tests/test_fixtures.py   (from acceptance-tests/)
"""
import json
import urllib.error

import pytest

from helpers import error_of

ACCOUNT, REGION = "123456789012", "us-west-2"
DOMAIN, ML_UNIT, PROFILE = "dzd_capacity01", "mlplatform0001", "hyperpodprof01"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
G5_SMALL = "ml.g5.xlarge"


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


def admin_error(call, *args, **kwargs) -> tuple[int, str]:
    with pytest.raises(urllib.error.HTTPError) as info:
        call(*args, **kwargs)
    return info.value.code, json.loads(info.value.read())["error"]


def create_quota(sm, team, count):
    return sm.create_compute_quota(
        Name=f"{team}-quota", ClusterArn=ML_ARN, ComputeQuotaTarget={"TeamName": team},
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": G5_SMALL, "Count": count}]})


def test_teams_are_copies_of_the_research_team(sandbox):
    added = sandbox.add_teams(3, prefix="scale")
    assert list(added["teams"]) == ["scale001", "scale002", "scale003"]
    dz, iam = sandbox.client("datazone"), sandbox.client("iam")
    research_policy = iam.get_role_policy(RoleName="datazone_usr_role_research", PolicyName="hyperpod-read")
    for team, facts in added["teams"].items():
        project = dz.get_project(domainIdentifier=DOMAIN, identifier=facts["project_id"])
        assert (project["name"], project["domainUnitId"], project["projectProfileId"]) == (team, ML_UNIT, PROFILE)
        [env] = dz.list_environments(domainIdentifier=DOMAIN, projectIdentifier=facts["project_id"])["items"]
        env = dz.get_environment(domainIdentifier=DOMAIN, identifier=env["id"])
        assert {"name": "userRoleArn", "value": facts["project_role_arn"], "provider": "IAM",
                "type": "IAMRole"} in env["provisionedResources"]
        role = iam.get_role(RoleName=f"datazone_usr_role_{team}")["Role"]
        assert role["Arn"] == facts["project_role_arn"]
        assert {"Key": "AmazonDataZoneProject", "Value": facts["project_id"]} in role["Tags"]
        policy = iam.get_role_policy(RoleName=f"datazone_usr_role_{team}", PolicyName="hyperpod-read")
        assert policy["PolicyDocument"] == research_policy["PolicyDocument"]
        for kind in ("viewer", "operator"):
            assert iam.get_role(RoleName=f"{team}-{kind}s")["Role"]["Arn"] == facts[f"{kind}_role_arn"]


def test_teams_grow_the_cluster_for_one_quota_each(sandbox):
    added = sandbox.add_teams(4, prefix="scale", instances_per_team=2)
    assert added["instance_group"]["InstanceGroupName"] == "scale-capacity"
    sm = sandbox.client("sagemaker")
    groups = {g["InstanceGroupName"]: g for g in sm.describe_cluster(ClusterName="ml-capacity")["InstanceGroups"]}
    assert {"p5-training", "g5-inference", "a100-mig", "scale-capacity"} == set(groups)
    group = groups["scale-capacity"]
    assert (group["InstanceType"], group["CurrentCount"], group["TargetCount"], group["Status"]) == (
        G5_SMALL, 8, 8, "InService")
    assert group["ExecutionRole"] == groups["p5-training"]["ExecutionRole"]
    for team in added["teams"]:
        create_quota(sm, team, 2)
    code, status, message = error_of(create_quota, sm, "one-too-many", 1)
    assert (code, status) == ("ValidationException", 400) and "9 ml.g5.xlarge" in message, message


def test_ids_survive_a_reset_and_the_fixture_does_not(sandbox):
    first = sandbox.add_teams(2)
    sandbox.reset()
    groups = sandbox.client("sagemaker").describe_cluster(ClusterName="ml-capacity")["InstanceGroups"]
    assert "team-capacity" not in {g["InstanceGroupName"] for g in groups}
    code, status, _ = error_of(sandbox.client("iam").get_role, RoleName="datazone_usr_role_team001")
    assert (code, status) == ("NoSuchEntity", 404)
    assert sandbox.add_teams(2) == first


@pytest.mark.parametrize("body, fragment", [
    ({}, "'count'"),
    ({"count": 0}, "'count'"),
    ({"count": True}, "'count'"),
    ({"count": 2, "prefix": "Team"}, "'prefix'"),
    ({"count": 2, "instances_per_team": 0}, "'instances_per_team'"),
    ({"count": 2, "cluster": "no-such-cluster"}, "no HyperPod cluster"),
    ({"count": 2, "instance_type": "ml.x9.huge"}, "InstanceType"),
], ids=["no-count", "zero", "bool", "prefix", "per-team", "cluster", "instance-type"])
def test_bad_requests_are_refused_and_write_nothing(sandbox, body, fragment):
    before = sandbox.inventory()
    status, error = admin_error(sandbox.admin, "POST", "fixtures/teams", body)
    assert status == 400 and fragment in error, error
    assert sandbox.inventory() == before


def test_a_repeated_prefix_is_refused_before_anything_is_written(sandbox):
    sandbox.add_teams(2)
    before = sandbox.inventory()
    status, error = admin_error(sandbox.add_teams, 3)
    assert status == 400 and "team-capacity" in error, error
    assert sandbox.inventory() == before
    assert list(sandbox.add_teams(1, prefix="more")["teams"]) == ["more001"]
