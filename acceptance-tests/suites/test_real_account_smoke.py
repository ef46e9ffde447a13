"""Real-account smoke: one create / list / update per AWS behaviour the local sandbox can only guess, run first on a
new sandbox account (docs/guides/acceptance-testing.md). Each test makes only objects with the test tag or prefix and
removes them, even when it fails (a killed run's are `make sweep`'s). Skipped without a real account
(HYPERPOD_REAL_AWS=1, HYPERPOD_FIXTURE, HYPERPOD_ACCEPT_REAL_ACCOUNT; the guard checks the account first).

What each settles, and which reading the sandbox and the provider take until it does (docs/sandbox.md):
* DataZone memberships: ListProjectMemberships reports a group by its group profile ID (GetGroupProfile's `id`),
  not the name it was added with; a second CreateProjectMembership of the same group is a ConflictException.
* DataZone policy grants: ListPolicyGrants reports a group principal by its profile ID too.
* UpdateComputeQuota / UpdateClusterSchedulerConfig `TargetVersion`: the current version, or the current + 1 (the
  provider works with both; the test reports which one AWS takes).
* EKS CreateAccessEntry, CreatePodIdentityAssociation and KMS CreateGrant: a principal that does not exist is
  refused; a role created a moment ago may be refused for a while (IAM eventual consistency), then accepted; EKS
  TagResource works on a Pod Identity association ARN.
* The task-governance add-on `amazon-sagemaker-hyperpod-taskgovernance` is ACTIVE on the fixture's EKS cluster.
"""
import json
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from harness.tags import tag_list, tag_map

TASK_GOVERNANCE = "amazon-sagemaker-hyperpod-taskgovernance"
POLICY_TYPE = "CREATE_PROJECT_FROM_PROJECT_PROFILE"
PROPAGATION = 180  # seconds a just-created role may stay unknown to EKS and KMS


@pytest.fixture(autouse=True)
def real_account_only(sandbox):
    """After the `sandbox` fixture, so a run against the wrong account is refused by the guard, not skipped."""
    if not sandbox.real:
        pytest.skip("real-account smoke: runs only against a real sandbox account (HYPERPOD_REAL_AWS=1, "
                    "HYPERPOD_FIXTURE, HYPERPOD_ACCEPT_REAL_ACCOUNT; docs/guides/acceptance-testing.md)")


@pytest.fixture
def name(fx) -> str:
    """A fresh name with the test prefix, for the objects of one test."""
    return f"{fx.test_prefix}-smoke-{uuid.uuid4().hex[:8]}"


def code(err: ClientError) -> str:
    return err.response["Error"]["Code"]


def eventually(call, what: str, timeout: float = PROPAGATION):
    """`call()` until it succeeds; a principal just created may be refused for a while. Returns (result, the error
    codes seen before, seconds waited); reports them, as they are what the provider's retry paths must cover."""
    start, seen = time.monotonic(), list[str]()
    while True:
        try:
            result = call()
            waited = time.monotonic() - start
            print(f"{what}: accepted after {waited:.1f}s; refused before with {seen or 'nothing'}")
            return result, seen, waited
        except ClientError as err:
            seen.append(code(err))
            if time.monotonic() - start > timeout:
                raise


def settle(describe, status_key: str = "Status", timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        current = describe()
        if current[status_key] in ("Created", "Updated", "CreateFailed", "UpdateFailed"):
            return current
        assert time.monotonic() < deadline, f"still {current[status_key]} after {timeout}s"
        time.sleep(5)


def test_task_governance_add_on_is_active(sandbox, fx):
    addon = sandbox.client("eks").describe_addon(clusterName=fx.clusters.eks.eks_cluster_name,
                                                 addonName=TASK_GOVERNANCE)["addon"]
    assert addon["status"] == "ACTIVE", addon


def group_profile(dz, domain: str, name: str) -> dict:
    """The group profile of the group called `name`: by SearchGroupProfiles (exact name), read back with
    GetGroupProfile by its id; reports whether GetGroupProfile also takes the name."""
    found = {item["id"]: item for group_type in ("SSO_GROUP", "DATAZONE_SSO_GROUP")
             for page in dz.get_paginator("search_group_profiles").paginate(domainIdentifier=domain,
                                                                           groupType=group_type, searchText=name)
             for item in page["items"] if item.get("groupName") == name}
    assert len(found) == 1, f"SearchGroupProfiles found {list(found.values())} for {name}"
    profile = dz.get_group_profile(domainIdentifier=domain, groupIdentifier=next(iter(found)))
    try:
        by_name = dz.get_group_profile(domainIdentifier=domain, groupIdentifier=name)["id"]
    except ClientError as err:
        by_name = code(err)
    print(f"group {name}: profile {profile['id']} ({profile['status']}); GetGroupProfile by name: {by_name}")
    return profile


def accepted_identifier(call, name: str, profile_id: str) -> str:
    """Calls `call(identifier)` with the group's name, else with its profile id; returns the one accepted."""
    try:
        call(name)
        print(f"accepted the group name {name}")
        return name
    except ClientError as err:
        print(f"refused the group name {name}: {code(err)}; trying the profile id")
        call(profile_id)
        return profile_id


def test_group_membership_is_listed_by_profile_id_and_a_duplicate_is_refused(sandbox, fx):
    dz, domain, project = sandbox.client("datazone"), fx.datazone.domain_id, fx.project("research").id
    group = fx.datazone.groups[0]
    profile = group_profile(dz, domain, group)

    def listed() -> dict:
        pages = dz.get_paginator("list_project_memberships").paginate(domainIdentifier=domain,
                                                                     projectIdentifier=project)
        return {m["memberDetails"]["group"]["groupId"]: m["designation"]
                for page in pages for m in page["members"] if "group" in m["memberDetails"]}

    if profile["id"] in listed() or group in listed():
        pytest.skip(f"{group} is already a member of {project}: run `make sweep`, or it is not a test group")
    identifier = accepted_identifier(
        lambda ident: dz.create_project_membership(domainIdentifier=domain, projectIdentifier=project,
                                                   member={"groupIdentifier": ident},
                                                   designation="PROJECT_CONTRIBUTOR"), group, profile["id"])
    member = {"groupIdentifier": identifier}
    try:
        members = listed()
        print(f"listed groups: {members}")
        assert members.get(profile["id"]) == "PROJECT_CONTRIBUTOR", members
        with pytest.raises(ClientError) as duplicate:
            dz.create_project_membership(domainIdentifier=domain, projectIdentifier=project, member=member,
                                         designation="PROJECT_CONTRIBUTOR")
        assert code(duplicate.value) == "ConflictException", duplicate.value.response
    finally:
        dz.delete_project_membership(domainIdentifier=domain, projectIdentifier=project, member=member)


def test_policy_grant_principal_is_listed_by_profile_id(sandbox, fx):
    dz, domain, unit = sandbox.client("datazone"), fx.datazone.domain_id, fx.datazone.domain_unit_id
    group = fx.datazone.groups[-1]
    profile = group_profile(dz, domain, group)
    added = {}

    def add(ident):
        added["principal"] = {"group": {"groupIdentifier": ident}}
        added["grant_id"] = dz.add_policy_grant(
            domainIdentifier=domain, entityType="DOMAIN_UNIT", entityIdentifier=unit, policyType=POLICY_TYPE,
            principal=added["principal"], detail={"createProjectFromProjectProfile": {
                "projectProfiles": [fx.datazone.project_profile_id], "includeChildDomainUnits": False}}).get("grantId")

    accepted_identifier(add, group, profile["id"])
    principal, grant_id = added["principal"], added["grant_id"]
    try:
        pages = dz.get_paginator("list_policy_grants").paginate(domainIdentifier=domain, entityType="DOMAIN_UNIT",
                                                                entityIdentifier=unit, policyType=POLICY_TYPE)
        grants = [g for page in pages for g in page["grantList"]]
        ours = [g for g in grants if g.get("grantId") == grant_id]
        print(f"AddPolicyGrant returned grantId {grant_id!r}; listed as {ours or grants}")
        assert ours, grants
        assert ours[0]["principal"]["group"]["groupIdentifier"] == profile["id"], ours[0]
    finally:
        dz.remove_policy_grant(domainIdentifier=domain, entityType="DOMAIN_UNIT", entityIdentifier=unit,
                               policyType=POLICY_TYPE, principal=principal,
                               **({"grantIdentifier": grant_id} if grant_id else {}))


def update_with_target_version(update, version: int) -> str:
    """Which reading of TargetVersion AWS takes: `current` (the version read) or `next` (current + 1)."""
    try:
        update(version)
        return "current"
    except ClientError as first:
        print(f"TargetVersion={version} (current) refused: {code(first)}: {first}")
        update(version + 1)
        return "next"


def test_update_compute_quota_target_version(sandbox, fx, name):
    sm, eks = sandbox.client("sagemaker"), fx.clusters.eks
    quota_id = sm.create_compute_quota(
        Name=name, ClusterArn=fx.cluster_arn("eks"), ActivationState="Disabled",  # no effect on the cluster's work
        ComputeQuotaConfig={"ComputeQuotaResources": [
            {"InstanceType": eks.instance_groups.training.instance_type, "Count": 1}]},
        ComputeQuotaTarget={"TeamName": name},
        Tags=tag_list(fx))["ComputeQuotaId"]
    try:
        quota = settle(lambda: sm.describe_compute_quota(ComputeQuotaId=quota_id))
        assert quota["Status"] == "Created", quota
        version = quota["ComputeQuotaVersion"]
        reading = update_with_target_version(
            lambda v: sm.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=v, Description="smoke"),
            version)
        print(f"UpdateComputeQuota TargetVersion reading: {reading} (version was {version})")
        updated = settle(lambda: sm.describe_compute_quota(ComputeQuotaId=quota_id))
        assert updated.get("Description") == "smoke", updated
    finally:
        sm.delete_compute_quota(ComputeQuotaId=quota_id)


def test_update_cluster_scheduler_config_target_version(sandbox, fx, name):
    if not fx.clusters.eks.get("scheduling_policy_writable"):
        pytest.skip("real-account guard: the fixture does not allow changing the cluster's scheduling policy "
                    "(clusters.eks.scheduling_policy_writable)")
    sm = sandbox.client("sagemaker")
    live = [c for page in sm.get_paginator("list_cluster_scheduler_configs").paginate(ClusterArn=fx.cluster_arn())
            for c in page["ClusterSchedulerConfigSummaries"] if c["Status"] not in ("Deleting", "Deleted")]
    created = not live
    if created:
        config_id = sm.create_cluster_scheduler_config(
            Name=name, ClusterArn=fx.cluster_arn(), SchedulerConfig={"FairShare": "Enabled"},
            Tags=tag_list(fx))["ClusterSchedulerConfigId"]
    else:
        config_id = live[0]["ClusterSchedulerConfigId"]
    try:
        describe = lambda: sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)  # noqa: E731
        config = settle(describe)
        version = config["ClusterSchedulerConfigVersion"]
        # The same settings again: nothing about scheduling changes, only the version.
        reading = update_with_target_version(
            lambda v: sm.update_cluster_scheduler_config(ClusterSchedulerConfigId=config_id, TargetVersion=v,
                                                         SchedulerConfig=config["SchedulerConfig"]), version)
        print(f"UpdateClusterSchedulerConfig TargetVersion reading: {reading} (version was {version})")
        assert settle(describe)["ClusterSchedulerConfigVersion"] > version
    finally:
        if created:
            sm.delete_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)


def test_principals_must_exist_and_a_just_created_role_becomes_usable(sandbox, fx, name):
    iam, eks, kms = (sandbox.client(s) for s in ("iam", "eks", "kms"))
    cluster, key = fx.clusters.eks.eks_cluster_name, fx.kms_key_arn()
    tags = tag_map(fx)
    missing = fx.role_arn(f"{name}-missing")
    refusals, accepted = {}, []
    for what, call, undo in (
            ("CreateAccessEntry",
             lambda: eks.create_access_entry(clusterName=cluster, principalArn=missing, tags=tags),
             lambda _: eks.delete_access_entry(clusterName=cluster, principalArn=missing)),
            ("CreatePodIdentityAssociation",
             lambda: eks.create_pod_identity_association(clusterName=cluster, namespace=name, serviceAccount=name,
                                                         roleArn=missing, tags=tags),
             lambda made: eks.delete_pod_identity_association(clusterName=cluster,
                                                              associationId=made["association"]["associationId"])),
            ("CreateGrant",
             lambda: kms.create_grant(KeyId=key, GranteePrincipal=missing, Operations=["Decrypt"], Name=name),
             lambda made: kms.revoke_grant(KeyId=key, GrantId=made["GrantId"]))):
        try:
            undo(call())  # accepted: more lenient than the sandbox assumes; leave nothing behind
            accepted.append(what)
        except ClientError as refused:
            refusals[what] = f"{code(refused)}: {refused.response['Error'].get('Message')}"
    print(f"a role that does not exist: {json.dumps(refusals, indent=2)}")
    assert not accepted, f"accepted a principal that does not exist: {accepted}"

    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["sts:AssumeRole", "sts:TagSession"],
                                                     "Principal": {"Service": "pods.eks.amazonaws.com"}}]}
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust),
                           Tags=tag_list(fx))["Role"]["Arn"]
    association = grant = entry = None
    try:
        eventually(lambda: eks.create_access_entry(clusterName=cluster, principalArn=role, tags=tags),
                   "CreateAccessEntry of a new role")
        entry = role
        association = eventually(lambda: eks.create_pod_identity_association(
            clusterName=cluster, namespace=name, serviceAccount=name, roleArn=role, tags=tags),
            "CreatePodIdentityAssociation of a new role")[0]["association"]
        eks.tag_resource(resourceArn=association["associationArn"], tags={"smoke": "tagged"})
        listed = eks.list_tags_for_resource(resourceArn=association["associationArn"])["tags"]
        assert listed.get("smoke") == "tagged", listed
        grant = eventually(lambda: kms.create_grant(KeyId=key, GranteePrincipal=role, Operations=["Decrypt"],
                                                    Name=name), "CreateGrant to a new role")[0]["GrantId"]
    finally:
        if grant:
            kms.revoke_grant(KeyId=key, GrantId=grant)
        if association:
            eks.delete_pod_identity_association(clusterName=cluster, associationId=association["associationId"])
        if entry:
            eks.delete_access_entry(clusterName=cluster, principalArn=entry)
        iam.delete_role(RoleName=name)
