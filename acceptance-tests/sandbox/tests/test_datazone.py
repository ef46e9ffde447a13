"""DataZone (SageMaker Unified Studio) in the sandbox, through boto3 against the session's sandbox process.

Run: $VENV/bin/python -m pytest sandbox/tests   (from acceptance-tests/)
Tests marked `model_validation` need DataZone in the sandbox's VALIDATED_SERVICES (the botocore-model hook).
"""
import re

import pytest

from helpers import error_of
from sandbox import VALIDATED_SERVICES

ACCOUNT, REGION = "123456789012", "us-west-2"
DOMAIN = "dzd_capacity01"
ROOT_UNIT, ML_UNIT = "capgovroot0001", "mlplatform0001"
PROFILE, TOOLING_BLUEPRINT = "hyperpodprof01", "toolingbp00001"
PRODUCTION, RESEARCH = "production0001", "research000001"
PRODUCTION_ENV, RESEARCH_ENV = "prodtooling001", "restooling0001"
PRODUCTION_ROLE = f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_production"
RESEARCH_ROLE = f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_research"
ML_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/mlcapeks0001"
SLURM_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/slurmcap0001"
ID = re.compile(r"[a-z0-9]{14}")
ADMIN_ROLE = f"arn:aws:iam::{ACCOUNT}:role/ml-capacity-cluster-admin"  # has an IAM user profile in the seed
GROUPS = ["research-leads", "research-scientists", "research-analysts", "production-leads", "production-scientists",
          "platform-leads", "platform-admins"]
PROFILE_ID = re.compile(r"([0-9a-f]{10}-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def group_id(dz, name):
    """The group profile ID of a seeded group, found by name as a client must (GetGroupProfile takes the ID)."""
    (found,) = [g for g in dz.search_group_profiles(domainIdentifier=DOMAIN, groupType="DATAZONE_SSO_GROUP",
                                                    searchText=name)["items"] if g["groupName"] == name]
    return found["id"]


GRANT = {"policyType": "CREATE_PROJECT_FROM_PROJECT_PROFILE",
         "principal": {"group": {"groupIdentifier": "platform-admins"}},  # replaced by its profile ID in the tests
         "detail": {"createProjectFromProjectProfile": {"projectProfiles": [PROFILE], "includeChildDomainUnits": True}}}

model_validation = pytest.mark.skipif("datazone" not in VALIDATED_SERVICES,
                                      reason="DataZone is not yet in sandbox.VALIDATED_SERVICES")


@pytest.fixture(autouse=True)
def fresh(sandbox):
    sandbox.reset()


@pytest.fixture
def dz(sandbox):
    return sandbox.client("datazone")


@pytest.fixture
def raw_dz(sandbox):
    """No client-side validation: requests reach the sandbox as the Rust SDK sends them."""
    return sandbox.client("datazone", validate=False)




def status_of(response):
    return response["ResponseMetadata"]["HTTPStatusCode"]


def connect(dz, name="ml-capacity", cluster="ml-capacity", env=PRODUCTION_ENV, **extra):
    return dz.create_connection(domainIdentifier=DOMAIN, name=name, environmentIdentifier=env,
                                props={"hyperPodProperties": {"clusterName": cluster}}, **extra)


def project_role(dz, project_id):
    """How Studio tooling finds the project user role: managed Tooling blueprint -> environment -> userRoleArn."""
    blueprints = dz.list_environment_blueprints(domainIdentifier=DOMAIN, managed=True, name="Tooling")["items"]
    tooling = next(b for b in blueprints if b["name"] == "Tooling")
    envs = dz.list_environments(domainIdentifier=DOMAIN, projectIdentifier=project_id,
                                environmentBlueprintIdentifier=tooling["id"], provider=tooling["provider"])["items"]
    env = dz.get_environment(domainIdentifier=DOMAIN, identifier=envs[0]["id"])
    return env["id"], next(r["value"] for r in env["provisionedResources"] if r["name"] == "userRoleArn")


# ---- seed -------------------------------------------------------------------------------
def test_seed_domain_units_and_profile(dz, sandbox):
    domain = dz.get_domain(identifier=DOMAIN)
    assert (domain["name"], domain["status"], domain["rootDomainUnitId"]) == (
        "capacity-governance", "AVAILABLE", ROOT_UNIT)
    assert domain["arn"] == f"arn:aws:datazone:{REGION}:{ACCOUNT}:domain/{DOMAIN}"
    assert [d["id"] for d in dz.list_domains()["items"]] == [DOMAIN]
    assert dz.list_domain_units_for_parent(domainIdentifier=DOMAIN, parentDomainUnitIdentifier=ROOT_UNIT)["items"] == [
        {"id": ML_UNIT, "name": "ml-platform"}]
    unit = dz.get_domain_unit(domainIdentifier=DOMAIN, identifier=ML_UNIT)
    assert (unit["name"], unit["parentDomainUnitId"]) == ("ml-platform", ROOT_UNIT)
    assert dz.get_domain_unit(domainIdentifier=DOMAIN, identifier=ROOT_UNIT)["name"] == "capacity-governance"
    profile = dz.get_project_profile(domainIdentifier=DOMAIN, identifier=PROFILE)
    assert (profile["name"], profile["status"], profile["domainUnitId"]) == ("hyperpod-projects", "ENABLED", ML_UNIT)
    assert profile["environmentConfigurations"][0]["environmentBlueprintId"] == TOOLING_BLUEPRINT
    seed = sandbox.health()["seed"]["datazone"]["domains"]["capacity-governance"]
    assert seed["domainId"] == DOMAIN and seed["projects"] == {"production": PRODUCTION, "research": RESEARCH}


def test_seed_projects_roles_and_nothing_else(dz):
    projects = {p["name"]: p for p in dz.list_projects(domainIdentifier=DOMAIN)["items"]}
    assert {n: p["id"] for n, p in projects.items()} == {"production": PRODUCTION, "research": RESEARCH}
    for project_id, env_id, role in ((PRODUCTION, PRODUCTION_ENV, PRODUCTION_ROLE),
                                     (RESEARCH, RESEARCH_ENV, RESEARCH_ROLE)):
        project = dz.get_project(domainIdentifier=DOMAIN, identifier=project_id)
        assert (project["projectStatus"], project["domainUnitId"], project["projectProfileId"]) == (
            "ACTIVE", ML_UNIT, PROFILE)
        assert project_role(dz, project_id) == (env_id, role)
        assert dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=project_id)["members"] == []
        assert dz.list_connections(domainIdentifier=DOMAIN, projectIdentifier=project_id)["items"] == []
    env = dz.get_environment(domainIdentifier=DOMAIN, identifier=PRODUCTION_ENV)
    assert (env["status"], env["provider"], env["environmentBlueprintId"]) == (
        "ACTIVE", "Amazon SageMaker", TOOLING_BLUEPRINT)
    assert (env["awsAccountId"], env["awsAccountRegion"]) == (ACCOUNT, REGION)
    assert dz.list_environments(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION, name="nope")["items"] == []


# ---- domains and domain units --------------------------------------------------------------
def test_domain_lifecycle(dz):
    created = dz.create_domain(name="sandbox-two", domainVersion="V2",
                               serviceRole=f"arn:aws:iam::{ACCOUNT}:role/service-role/DzService")
    assert status_of(created) == 201 and re.fullmatch(r"dzd_[a-z0-9]{14}", created["id"])
    assert created["status"] == "AVAILABLE" and ID.fullmatch(created["rootDomainUnitId"])
    got = dz.get_domain(identifier=created["id"])
    assert got["name"] == "sandbox-two" and got["portalUrl"] == f"https://{created['id']}.sagemaker.{REGION}.on.aws"
    tooling = dz.list_environment_blueprints(domainIdentifier=created["id"], managed=True, name="Tooling")["items"]
    assert [b["provider"] for b in tooling] == ["Amazon SageMaker"]
    assert error_of(dz.create_domain, name="sandbox-two")[:2] == ("ConflictException", 409)
    assert {d["id"] for d in dz.list_domains(maxResults=1)["items"]} <= {DOMAIN, created["id"]}
    deleted = dz.delete_domain(identifier=created["id"])
    assert status_of(deleted) == 202 and deleted["status"] == "DELETING"
    assert error_of(dz.get_domain, identifier=created["id"])[:2] == ("ResourceNotFoundException", 404)


def test_domain_with_projects_needs_skip_deletion_check(dz):
    assert error_of(dz.delete_domain, identifier=DOMAIN)[:2] == ("ConflictException", 409)
    dz.delete_domain(identifier=DOMAIN, skipDeletionCheck=True)
    assert error_of(dz.get_project, domainIdentifier=DOMAIN, identifier=PRODUCTION)[0] == "ResourceNotFoundException"


def test_domain_unit_lifecycle(dz):
    team = dz.create_domain_unit(domainIdentifier=DOMAIN, name="team a", parentDomainUnitIdentifier=ML_UNIT,
                                 description="first team")
    assert status_of(team) == 201 and ID.fullmatch(team["id"])
    assert team["ancestorDomainUnitIds"] == [ROOT_UNIT, ML_UNIT] and team["parentDomainUnitId"] == ML_UNIT
    assert dz.get_domain_unit(domainIdentifier=DOMAIN, identifier=team["id"])["description"] == "first team"
    assert [u["name"] for u in dz.list_domain_units_for_parent(
        domainIdentifier=DOMAIN, parentDomainUnitIdentifier=ML_UNIT)["items"]] == ["team a"]
    assert error_of(dz.create_domain_unit, domainIdentifier=DOMAIN, name="team a",
                    parentDomainUnitIdentifier=ML_UNIT)[:2] == ("ConflictException", 409)
    assert error_of(dz.create_domain_unit, domainIdentifier=DOMAIN, name="orphan",
                    parentDomainUnitIdentifier="nosuchunit0001")[:2] == ("ResourceNotFoundException", 404)
    assert error_of(dz.delete_domain_unit, domainIdentifier=DOMAIN, identifier=ML_UNIT)[:2] == (
        "ConflictException", 409)
    assert error_of(dz.delete_domain_unit, domainIdentifier=DOMAIN, identifier=ROOT_UNIT)[:2] == (
        "ValidationException", 400)
    assert status_of(dz.delete_domain_unit(domainIdentifier=DOMAIN, identifier=team["id"])) == 204
    assert error_of(dz.get_domain_unit, domainIdentifier=DOMAIN, identifier=team["id"])[:2] == (
        "ResourceNotFoundException", 404)


# ---- project profiles, projects, environments -----------------------------------------------
def test_project_profile_lifecycle(dz):
    created = dz.create_project_profile(domainIdentifier=DOMAIN, name="notebooks", domainUnitIdentifier=ML_UNIT)
    assert status_of(created) == 201 and (created["status"], created["domainUnitId"]) == ("ENABLED", ML_UNIT)
    assert dz.get_project_profile(domainIdentifier=DOMAIN, identifier=created["id"])["name"] == "notebooks"
    names = [p["name"] for p in dz.list_project_profiles(domainIdentifier=DOMAIN, sortBy="NAME")["items"]]
    assert names == ["hyperpod-projects", "notebooks"]
    assert error_of(dz.create_project_profile, domainIdentifier=DOMAIN, name="notebooks")[:2] == (
        "ConflictException", 409)
    assert status_of(dz.delete_project_profile(domainIdentifier=DOMAIN, identifier=created["id"])) == 204
    assert error_of(dz.get_project_profile, domainIdentifier=DOMAIN, identifier=created["id"])[0] == \
        "ResourceNotFoundException"


def test_project_from_profile_gets_tooling_environment_and_role(dz, sandbox):
    created = dz.create_project(domainIdentifier=DOMAIN, name="staging", domainUnitId=ML_UNIT, projectProfileId=PROFILE)
    assert status_of(created) == 201 and ID.fullmatch(created["id"])
    assert (created["projectStatus"], created["domainUnitId"], created["projectProfileId"]) == (
        "ACTIVE", ML_UNIT, PROFILE)
    env_id, role = project_role(dz, created["id"])
    assert role == f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_{created['id']}_{env_id}"
    iam = sandbox.client("iam")
    assert iam.get_role(RoleName=role.split("/")[-1])["Role"]["Arn"] == role
    connect(dz, name="staging-hp", env=env_id)

    assert error_of(dz.create_project, domainIdentifier=DOMAIN, name="staging")[:2] == ("ConflictException", 409)
    assert error_of(dz.delete_domain_unit, domainIdentifier=DOMAIN, identifier=ML_UNIT)[0] == "ConflictException"
    assert [p["name"] for p in dz.list_projects(domainIdentifier=DOMAIN, name="stag")["items"]] == ["staging"]

    assert status_of(dz.delete_project(domainIdentifier=DOMAIN, identifier=created["id"])) == 204
    assert error_of(dz.get_project, domainIdentifier=DOMAIN, identifier=created["id"])[:2] == (
        "ResourceNotFoundException", 404)
    assert error_of(dz.get_environment, domainIdentifier=DOMAIN, identifier=env_id)[0] == "ResourceNotFoundException"
    assert dz.list_connections(domainIdentifier=DOMAIN, name="staging-hp")["items"] == []
    assert error_of(iam.get_role, RoleName=role.split("/")[-1])[0] == "NoSuchEntity"


def test_project_defaults_and_missing_references(dz):
    bare = dz.create_project(domainIdentifier=DOMAIN, name="bare")
    assert bare["domainUnitId"] == ROOT_UNIT and "projectProfileId" not in bare
    assert dz.list_environments(domainIdentifier=DOMAIN, projectIdentifier=bare["id"])["items"] == []
    assert error_of(dz.create_project, domainIdentifier=DOMAIN, name="x", projectProfileId="nosuchprofile1")[:2] == (
        "ResourceNotFoundException", 404)
    assert error_of(dz.create_project, domainIdentifier=DOMAIN, name="y", domainUnitId="nosuchunit0001")[0] == \
        "ResourceNotFoundException"
    assert error_of(dz.get_project, domainIdentifier="dzd_nosuchdomain", identifier=PRODUCTION)[:2] == (
        "ResourceNotFoundException", 404)


def test_environment_create_get_list(dz):
    env = dz.create_environment(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH, name="extra",
                                environmentBlueprintIdentifier=TOOLING_BLUEPRINT)
    assert status_of(env) == 201 and env["status"] == "ACTIVE" and env["projectId"] == RESEARCH
    assert dz.get_environment(domainIdentifier=DOMAIN, identifier=env["id"])["name"] == "extra"
    assert {e["id"] for e in dz.list_environments(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH)["items"]} == {
        RESEARCH_ENV, env["id"]}
    assert error_of(dz.create_environment, domainIdentifier=DOMAIN, projectIdentifier=RESEARCH, name="extra",
                    environmentBlueprintIdentifier=TOOLING_BLUEPRINT)[:2] == ("ConflictException", 409)
    assert error_of(dz.create_environment, domainIdentifier=DOMAIN, projectIdentifier="nosuchproject",
                    name="x", environmentBlueprintIdentifier=TOOLING_BLUEPRINT)[:2] == (
        "ResourceNotFoundException", 404)
    assert error_of(dz.create_environment, domainIdentifier=DOMAIN, projectIdentifier=RESEARCH, name="x")[:2] == (
        "ValidationException", 400)
    assert error_of(dz.get_environment, domainIdentifier=DOMAIN, identifier="nosuchenv")[:2] == (
        "ResourceNotFoundException", 404)


# ---- connections ---------------------------------------------------------------------------
def test_hyperpod_connection_lifecycle(dz):
    created = connect(dz, description="production capacity")
    assert status_of(created) == 201 and ID.fullmatch(created["connectionId"])
    assert (created["type"], created["scope"], created["projectId"], created["environmentId"],
            created["domainUnitId"]) == ("HYPERPOD", "PROJECT", PRODUCTION, PRODUCTION_ENV, ML_UNIT)
    assert created["props"] == {"hyperPodProperties": {"clusterName": "ml-capacity", "clusterArn": ML_ARN,
                                                       "orchestrator": "EKS"}}
    assert created["physicalEndpoints"] == [{"awsLocation": {"awsAccountId": ACCOUNT, "awsRegion": REGION}}]
    cid = created["connectionId"]

    got = dz.get_connection(domainIdentifier=DOMAIN, identifier=cid)
    assert got["environmentUserRole"] == PRODUCTION_ROLE and got["props"] == created["props"]
    assert got["description"] == "production capacity"

    updated = dz.update_connection(domainIdentifier=DOMAIN, identifier=cid, description="renamed")
    assert status_of(updated) == 200 and updated["description"] == "renamed" and updated["props"] == created["props"]
    assert error_of(dz.update_connection, domainIdentifier=DOMAIN, identifier=cid,
                    props={"s3Properties": {"s3Uri": "s3://bucket/x"}})[:2] == ("ValidationException", 400)

    deleted = dz.delete_connection(domainIdentifier=DOMAIN, identifier=cid)
    assert status_of(deleted) == 202 and deleted["status"] == "DELETING"
    assert error_of(dz.get_connection, domainIdentifier=DOMAIN, identifier=cid)[:2] == (
        "ResourceNotFoundException", 404)
    assert error_of(dz.delete_connection, domainIdentifier=DOMAIN, identifier=cid)[:2] == (
        "ResourceNotFoundException", 404)


def test_slurm_and_new_clusters_resolve(dz, sandbox):
    slurm = connect(dz, name="slurm", cluster="slurm-capacity", env=RESEARCH_ENV)["props"]["hyperPodProperties"]
    assert slurm == {"clusterName": "slurm-capacity", "clusterArn": SLURM_ARN, "orchestrator": "SLURM"}
    sm = sandbox.client("sagemaker")
    arn = sm.create_cluster(
        ClusterName="fresh",
        Orchestrator={"Eks": {"ClusterArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/ml-capacity-eks"}},
        InstanceGroups=[{"InstanceGroupName": "workers", "InstanceType": "ml.g5.xlarge", "InstanceCount": 1,
                         "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-test/lc/", "OnCreate": "on_create.sh"},
                         "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/node"}])["ClusterArn"]
    assert connect(dz, name="fresh", cluster="fresh")["props"]["hyperPodProperties"]["clusterArn"] == arn
    sm.delete_cluster(ClusterName="fresh")
    assert error_of(connect, dz, name="fresh-again", cluster="fresh")[0] == "ResourceNotFoundException"


def test_connection_to_missing_cluster_is_not_found(dz):
    code, status, message = error_of(connect, dz, cluster="no-such-cluster")
    assert (code, status) == ("ResourceNotFoundException", 404) and "no-such-cluster" in message
    other = {"awsAccountId": "444455556666", "awsRegion": REGION}  # the cluster lives in the capacity account only
    assert error_of(connect, dz, awsLocation=other)[0] == "ResourceNotFoundException"
    assert dz.list_connections(domainIdentifier=DOMAIN)["items"] == []


def test_duplicate_connection_name_conflicts_across_the_domain(dz):
    connect(dz)
    code, status, message = error_of(connect, dz, cluster="slurm-capacity")
    assert (code, status) == ("ConflictException", 409) and "ml-capacity" in message
    assert error_of(connect, dz, env=RESEARCH_ENV)[0] == "ConflictException"


def test_a_client_token_answers_with_its_first_connection_even_once_deleted(dz):
    """Stricter reading of CreateConnection's idempotency token (AWS documents no window): remembered for good,
    the same request answers with the first response, other parameters are a ConflictException."""
    first = connect(dz, clientToken="token-1")
    again = connect(dz, clientToken="token-1")
    assert again["connectionId"] == first["connectionId"]
    assert len(dz.list_connections(domainIdentifier=DOMAIN)["items"]) == 1
    assert error_of(connect, dz, clientToken="token-1", description="other")[:2] == ("ConflictException", 409)
    dz.delete_connection(domainIdentifier=DOMAIN, identifier=first["connectionId"])
    assert connect(dz, clientToken="token-1")["connectionId"] == first["connectionId"]
    assert dz.list_connections(domainIdentifier=DOMAIN)["items"] == []
    assert connect(dz, clientToken="token-2")["connectionId"] != first["connectionId"]


def test_list_connections_by_project_environment_and_type(dz):
    connect(dz, name="prod-eks")
    connect(dz, name="prod-slurm", cluster="slurm-capacity")
    connect(dz, name="research-eks", env=RESEARCH_ENV)
    iam = dz.create_connection(domainIdentifier=DOMAIN, name="project.iam", environmentIdentifier=PRODUCTION_ENV,
                               props={"iamProperties": {"glueLineageSyncEnabled": False}})
    assert iam["type"] == "IAM" and iam["props"]["iamProperties"]["environmentId"] == PRODUCTION_ENV

    def names(**kw):
        return sorted(c["name"] for c in dz.list_connections(domainIdentifier=DOMAIN, **kw)["items"])

    assert names(projectIdentifier=PRODUCTION, type="HYPERPOD") == ["prod-eks", "prod-slurm"]
    assert names(projectIdentifier=PRODUCTION) == ["prod-eks", "prod-slurm", "project.iam"]
    assert names(environmentIdentifier=RESEARCH_ENV) == ["research-eks"]
    assert names(type="IAM") == ["project.iam"]
    assert names(name="prod-slurm") == ["prod-slurm"]
    first = dz.list_connections(domainIdentifier=DOMAIN, type="HYPERPOD", sortBy="NAME", maxResults=2)
    assert [c["name"] for c in first["items"]] == ["prod-eks", "prod-slurm"]
    rest = dz.list_connections(domainIdentifier=DOMAIN, type="HYPERPOD", sortBy="NAME", nextToken=first["nextToken"])
    assert [c["name"] for c in rest["items"]] == ["research-eks"] and "nextToken" not in rest


def test_unsupported_connection_kind_is_json_501(dz):
    code, status, _ = error_of(dz.create_connection, domainIdentifier=DOMAIN, name="mlflow",
                               environmentIdentifier=PRODUCTION_ENV,
                               props={"mlflowProperties": {"trackingServerArn": "arn:aws:sagemaker:x"}})
    assert (code, status) == ("NotImplemented", 501)
    assert error_of(dz.list_subscriptions, domainIdentifier=DOMAIN)[:2] == ("NotImplemented", 501)


# ---- user and group profiles ----------------------------------------------------------------
def test_seeded_group_profiles_are_found_by_name_and_read_by_id(dz):
    found = dz.search_group_profiles(domainIdentifier=DOMAIN, groupType="DATAZONE_SSO_GROUP")["items"]
    assert sorted(g["groupName"] for g in found) == sorted(GROUPS)
    assert all(PROFILE_ID.fullmatch(g["id"]) and g["status"] == "ASSIGNED" for g in found)
    leads = group_id(dz, "research-leads")
    got = dz.get_group_profile(domainIdentifier=DOMAIN, groupIdentifier=leads)
    assert (got["id"], got["groupName"], got["domainId"]) == (leads, "research-leads", DOMAIN)
    # A name is not a group profile identifier (the stricter reading); neither is a group that exists nowhere.
    for unknown in ("research-leads", "nobody-at-all"):
        assert error_of(dz.get_group_profile, domainIdentifier=DOMAIN, groupIdentifier=unknown)[:2] == (
            "ResourceNotFoundException", 404)
    assert dz.search_group_profiles(domainIdentifier=DOMAIN, groupType="IAM_ROLE_SESSION_GROUP")["items"] == []
    page = dz.search_group_profiles(domainIdentifier=DOMAIN, groupType="SSO_GROUP", maxResults=2)
    assert len(page["items"]) == 2 and page["nextToken"]


def test_seeded_user_profiles_by_id_iam_arn_and_search(dz):
    (admin,) = dz.search_user_profiles(domainIdentifier=DOMAIN, userType="DATAZONE_IAM_USER")["items"]
    assert (admin["type"], admin["details"]["iam"]["arn"]) == ("IAM", ADMIN_ROLE)
    assert dz.get_user_profile(domainIdentifier=DOMAIN, userIdentifier=ADMIN_ROLE)["id"] == admin["id"]
    assert dz.get_user_profile(domainIdentifier=DOMAIN, userIdentifier=admin["id"])["id"] == admin["id"]
    (alice,) = dz.search_user_profiles(domainIdentifier=DOMAIN, userType="DATAZONE_SSO_USER",
                                       searchText="alice")["items"]
    assert (alice["type"], alice["details"]["sso"]["username"]) == ("SSO", "alice@example.com")
    assert len(dz.search_user_profiles(domainIdentifier=DOMAIN, userType="DATAZONE_USER")["items"]) == 2
    assert error_of(dz.get_user_profile, domainIdentifier=DOMAIN, userIdentifier=admin["id"], type="SSO")[0] == \
        "ResourceNotFoundException"
    for unknown in (f"arn:aws:iam::{ACCOUNT}:role/nobody", "alice@example.com"):
        assert error_of(dz.get_user_profile, domainIdentifier=DOMAIN, userIdentifier=unknown)[:2] == (
            "ResourceNotFoundException", 404)


def test_profile_ids_survive_a_reset(dz, sandbox):
    before = group_id(dz, "research-leads")
    sandbox.reset()
    assert group_id(dz, "research-leads") == before


def test_created_profiles_resolve_like_seeded_ones(dz):
    made = dz.create_group_profile(domainIdentifier=DOMAIN, groupIdentifier="tfacc-reviewers")
    assert group_id(dz, "tfacc-reviewers") == made["id"]
    assert error_of(dz.create_group_profile, domainIdentifier=DOMAIN, groupIdentifier="tfacc-reviewers")[0] == \
        "ConflictException"
    role = f"arn:aws:iam::{ACCOUNT}:role/tfacc-user"
    user = dz.create_user_profile(domainIdentifier=DOMAIN, userIdentifier=role, userType="IAM_ROLE")
    assert dz.get_user_profile(domainIdentifier=DOMAIN, userIdentifier=role)["id"] == user["id"]


# ---- project memberships -------------------------------------------------------------------
def test_project_memberships_resolve_to_profile_ids(dz):
    engineers = group_id(dz, "platform-admins")
    admin = dz.get_user_profile(domainIdentifier=DOMAIN, userIdentifier=ADMIN_ROLE)["id"]
    created = dz.create_project_membership(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                                           member={"groupIdentifier": engineers}, designation="PROJECT_CONTRIBUTOR")
    assert status_of(created) == 201
    dz.create_project_membership(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                                 member={"userIdentifier": ADMIN_ROLE}, designation="PROJECT_OWNER")
    members = dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION)["members"]
    assert members == [
        {"memberDetails": {"group": {"groupId": engineers}}, "designation": "PROJECT_CONTRIBUTOR"},
        {"memberDetails": {"user": {"userId": admin}}, "designation": "PROJECT_OWNER"}]
    assert dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH)["members"] == []
    assert [p["id"] for p in dz.list_projects(domainIdentifier=DOMAIN, groupIdentifier=engineers)["items"]] == [
        PRODUCTION]
    assert dz.list_projects(domainIdentifier=DOMAIN, groupIdentifier="nobody-at-all")["items"] == []

    # A second membership of the same profile is refused, whatever its designation and however it is named.
    for member, designation in (({"groupIdentifier": engineers}, "PROJECT_CONTRIBUTOR"),
                                ({"groupIdentifier": engineers}, "PROJECT_OWNER"),
                                ({"userIdentifier": admin}, "PROJECT_OWNER")):
        assert error_of(dz.create_project_membership, domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                        member=member, designation=designation)[:2] == ("ConflictException", 409)
    # Unknown identities and bare group names are refused: nothing is echoed.
    for member in ({"groupIdentifier": "platform-admins"}, {"groupIdentifier": "ml-engineers"},
                   {"userIdentifier": f"arn:aws:iam::{ACCOUNT}:role/nobody"}, {"userIdentifier": "alice@example.com"}):
        assert error_of(dz.create_project_membership, domainIdentifier=DOMAIN, projectIdentifier=RESEARCH,
                        member=member, designation="PROJECT_OWNER")[:2] == ("ResourceNotFoundException", 404), member
    assert dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH)["members"] == []
    assert error_of(dz.create_project_membership, domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                    member={"groupIdentifier": engineers}, designation="USER_CREATED_DESIGNATION")[0] == \
        "ValidationException"
    assert error_of(dz.create_project_membership, domainIdentifier=DOMAIN, projectIdentifier="nosuchproject",
                    member={"groupIdentifier": engineers}, designation="PROJECT_OWNER")[:2] == (
        "ResourceNotFoundException", 404)

    # Delete names the member by any identifier of its profile.
    deleted = dz.delete_project_membership(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                                           member={"userIdentifier": ADMIN_ROLE})
    assert status_of(deleted) == 204
    assert [m["designation"] for m in dz.list_project_memberships(
        domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION)["members"]] == ["PROJECT_CONTRIBUTOR"]
    assert error_of(dz.delete_project_membership, domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                    member={"userIdentifier": admin})[:2] == ("ResourceNotFoundException", 404)
    assert error_of(dz.delete_project_membership, domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                    member={"groupIdentifier": "nobody-at-all"})[:2] == ("ResourceNotFoundException", 404)


def test_membership_without_designation_is_rejected(raw_dz):
    code, status, message = error_of(raw_dz.create_project_membership, domainIdentifier=DOMAIN,
                                     projectIdentifier=PRODUCTION, member={"groupIdentifier": "platform-admins"})
    assert (code, status) == ("ValidationException", 400)
    assert "Value null at 'designation' failed to satisfy constraint: Member must not be null" in message
    assert raw_dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION)["members"] == []


@pytest.mark.parametrize("call, kwargs, member", [
    ("list_policy_grants", {"domainIdentifier": DOMAIN, "entityType": "DOMAIN_UNIT", "entityIdentifier": ML_UNIT},
     "policyType"),
    ("list_environments", {"domainIdentifier": DOMAIN}, "projectIdentifier"),
    ("list_domain_units_for_parent", {"domainIdentifier": DOMAIN}, "parentDomainUnitIdentifier"),
])
def test_missing_required_query_parameter_is_a_validation_error(raw_dz, call, kwargs, member):
    """Routed on method and path like AWS (moto alone answers a bare 404), then rejected."""
    code, status, message = error_of(getattr(raw_dz, call), **kwargs)
    assert (code, status) == ("ValidationException", 400)
    assert f"Value null at '{member}' failed to satisfy constraint: Member must not be null" in message


# ---- policy grants -------------------------------------------------------------------------
def test_policy_grants_on_domain_units(dz):
    scope = {"domainIdentifier": DOMAIN, "entityType": "DOMAIN_UNIT", "entityIdentifier": ML_UNIT}
    admins = {"group": {"groupIdentifier": group_id(dz, "platform-admins")}}
    terms = {**GRANT, "principal": admins}
    added = dz.add_policy_grant(**scope, **terms)
    assert status_of(added) == 201 and re.fullmatch(r"[A-Za-z0-9+/]{10}", added["grantId"])
    unit_principal = {"domainUnit": {"domainUnitDesignation": "OWNER", "domainUnitIdentifier": ML_UNIT}}
    dz.add_policy_grant(**scope, **{**terms, "principal": unit_principal})
    # A user named by its IAM ARN is kept, and listed, as its profile ID.
    dz.add_policy_grant(**scope, **{**terms, "principal": {"user": {"userIdentifier": ADMIN_ROLE}}})
    user_principal = {"user": {"userIdentifier": dz.get_user_profile(domainIdentifier=DOMAIN,
                                                                     userIdentifier=ADMIN_ROLE)["id"]}}
    dz.add_policy_grant(**scope, policyType="CREATE_PROJECT", principal=user_principal,
                        detail={"createProject": {"includeChildDomainUnits": False}})

    grants = dz.list_policy_grants(**scope, policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE")["grantList"]
    assert [g["principal"] for g in grants] == [terms["principal"], unit_principal, user_principal]
    assert grants[0]["detail"] == terms["detail"] and grants[0]["grantId"] == added["grantId"]
    assert dz.list_policy_grants(domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ROOT_UNIT,
                                 policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE")["grantList"] == []

    assert error_of(dz.add_policy_grant, **scope, **terms)[:2] == ("ConflictException", 409)
    assert error_of(dz.add_policy_grant, **scope, **{**terms, "principal": user_principal})[:2] == (
        "ConflictException", 409), "the same profile, named by its ID this time"
    for unknown in ({"group": {"groupIdentifier": "platform-admins"}}, {"group": {"groupIdentifier": "ml-engineers"}},
                    {"user": {"userIdentifier": f"arn:aws:iam::{ACCOUNT}:role/nobody"}}):
        assert error_of(dz.add_policy_grant, **scope, **{**terms, "principal": unknown})[:2] == (
            "ResourceNotFoundException", 404), unknown
    assert error_of(dz.add_policy_grant, **scope, **{**terms, "policyType": "CREATE_PROJECT"})[:2] == (
        "ValidationException", 400)
    missing_profile = {"createProjectFromProjectProfile": {"projectProfiles": ["nosuchprofile1"]}}
    assert error_of(dz.add_policy_grant, **scope, **{**terms, "detail": missing_profile})[0] == \
        "ResourceNotFoundException"
    assert error_of(dz.add_policy_grant, **{**scope, "entityIdentifier": "nosuchunit0001"}, **terms)[0] == \
        "ResourceNotFoundException"

    removed = dz.remove_policy_grant(**scope, policyType=terms["policyType"], principal=terms["principal"])
    assert status_of(removed) == 204
    dz.remove_policy_grant(**scope, policyType=terms["policyType"], principal=unit_principal,
                           grantIdentifier="AAAAAAAAAA")
    left = dz.list_policy_grants(**scope, policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE")["grantList"]
    assert [g["principal"] for g in left] == [unit_principal, user_principal]  # wrong grantIdentifier: kept
    dz.remove_policy_grant(**scope, policyType=terms["policyType"], principal=terms["principal"])  # absent: no-op
    dz.remove_policy_grant(**scope, policyType="CREATE_PROJECT", principal={"user": {"userIdentifier": ADMIN_ROLE}})
    assert dz.list_policy_grants(**scope, policyType="CREATE_PROJECT")["grantList"] == [], "removed by its IAM ARN"


def test_add_policy_grant_replays_a_client_token(dz):
    """A repeated clientToken answers the first request's grant (even once removed: the stricter reading); the same
    terms under another token are a conflict, the token under other terms too."""
    scope = {"domainIdentifier": DOMAIN, "entityType": "DOMAIN_UNIT", "entityIdentifier": ML_UNIT}
    terms = {**GRANT, "principal": {"group": {"groupIdentifier": group_id(dz, "platform-admins")}}}
    first = dz.add_policy_grant(**scope, **terms, clientToken="hyperpod-grant-1")["grantId"]
    assert dz.add_policy_grant(**scope, **terms, clientToken="hyperpod-grant-1")["grantId"] == first
    assert len(dz.list_policy_grants(**scope, policyType=terms["policyType"])["grantList"]) == 1
    assert error_of(dz.add_policy_grant, **scope, **terms, clientToken="another-token")[:2] == (
        "ConflictException", 409)
    other = {"domainUnit": {"domainUnitDesignation": "OWNER", "domainUnitIdentifier": ML_UNIT}}
    assert error_of(dz.add_policy_grant, **scope, **{**terms, "principal": other}, clientToken="hyperpod-grant-1")[:2] \
        == ("ConflictException", 409)
    dz.remove_policy_grant(**scope, policyType=terms["policyType"], principal=terms["principal"])
    assert dz.add_policy_grant(**scope, **terms, clientToken="hyperpod-grant-1")["grantId"] == first
    assert dz.list_policy_grants(**scope, policyType=terms["policyType"])["grantList"] == []


# ---- model validation (the shared botocore-model hook) ---------------------------------------
@model_validation
@pytest.mark.parametrize("call, kwargs, fragment", [
    ("get_domain", {"identifier": "capacity01"},
     "Value 'capacity01' at 'identifier' failed to satisfy constraint: Member must satisfy regular expression pattern"),
    ("get_domain_unit", {"domainIdentifier": DOMAIN, "identifier": "ML-Platform"}, "at 'identifier'"),
    ("create_connection", {"domainIdentifier": DOMAIN, "environmentIdentifier": PRODUCTION_ENV,
                           "props": {"hyperPodProperties": {"clusterName": "ml-capacity"}}},
     "Value null at 'name' failed to satisfy constraint: Member must not be null"),
    ("create_connection", {"domainIdentifier": DOMAIN, "name": "x", "props": {"hyperPodProperties": {}}},
     "Value null at 'props.hyperPodProperties.clusterName'"),
    ("create_project_membership", {"domainIdentifier": DOMAIN, "projectIdentifier": PRODUCTION,
                                   "member": {"groupIdentifier": "g"}, "designation": "PROJECT_ADMIN"},
     "Member must satisfy enum value set"),
    ("add_policy_grant", {"domainIdentifier": DOMAIN, "entityType": "PROJECT", "entityIdentifier": ML_UNIT, **GRANT},
     "Value 'PROJECT' at 'entityType' failed to satisfy constraint: Member must satisfy enum value set"),
], ids=["domain-id-pattern", "unit-id-pattern", "missing-name", "missing-cluster-name", "designation-enum",
        "entity-type-enum"])
def test_model_validation(raw_dz, call, kwargs, fragment):
    code, status, message = error_of(getattr(raw_dz, call), **kwargs)
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("1 validation error detected: ") and fragment in message


# ---- faults and reset ------------------------------------------------------------------------
def test_error_fault_on_a_datazone_operation(dz, sandbox):
    sandbox.fault("GetProject", service="datazone", code="ThrottlingException", status=429, message="Rate exceeded")
    assert error_of(dz.get_project, domainIdentifier=DOMAIN, identifier=PRODUCTION) == (
        "ThrottlingException", 429, "Rate exceeded")
    assert dz.get_project(domainIdentifier=DOMAIN, identifier=PRODUCTION)["name"] == "production"


def test_reset_restores_exactly_the_seed(dz, sandbox):
    connect(dz)
    dz.create_project_membership(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION,
                                 member={"groupIdentifier": group_id(dz, "platform-admins")},
                                 designation="PROJECT_OWNER")
    dz.add_policy_grant(domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ML_UNIT,
                        **{**GRANT, "principal": {"user": {"userIdentifier": ADMIN_ROLE}}})
    dz.create_group_profile(domainIdentifier=DOMAIN, groupIdentifier="temporary")
    dz.create_project(domainIdentifier=DOMAIN, name="temporary", projectProfileId=PROFILE)
    dz.delete_project(domainIdentifier=DOMAIN, identifier=RESEARCH)
    dz.create_domain(name="temporary")
    sandbox.reset()
    assert [d["id"] for d in dz.list_domains()["items"]] == [DOMAIN]
    assert sorted(p["id"] for p in dz.list_projects(domainIdentifier=DOMAIN)["items"]) == [PRODUCTION, RESEARCH]
    assert dz.list_connections(domainIdentifier=DOMAIN)["items"] == []
    assert dz.list_project_memberships(domainIdentifier=DOMAIN, projectIdentifier=PRODUCTION)["members"] == []
    assert dz.list_policy_grants(domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ML_UNIT,
                                 policyType=GRANT["policyType"])["grantList"] == []
    assert project_role(dz, RESEARCH) == (RESEARCH_ENV, RESEARCH_ROLE)
    assert sorted(g["groupName"] for g in dz.search_group_profiles(domainIdentifier=DOMAIN,
                                                                   groupType="SSO_GROUP")["items"]) == sorted(GROUPS)


def test_fixture_teams_get_the_research_teams_groups(dz, sandbox):
    """A `teams` fixture team is a copy of the research team, its groups too: its bindings name `<team>-leads`."""
    sandbox.add_teams(2, prefix="tfx")
    names = {g["groupName"] for g in dz.search_group_profiles(domainIdentifier=DOMAIN, groupType="SSO_GROUP",
                                                              searchText="tfx")["items"]}
    assert names == {f"tfx{n:03d}-{role}" for n in (1, 2) for role in ("leads", "scientists", "analysts")}
