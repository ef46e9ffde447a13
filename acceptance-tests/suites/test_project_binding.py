"""hyperpod_unified_studio_project_binding through a real Terraform against the fixture's account: the research
project's HyperPod connection to the EKS cluster (in the fixture's domain, through the project's Tooling environment)
with two group memberships. Create with everything but the connection id known at plan and an empty second plan;
destroy leaves the connections, memberships and inventory as they were; description and members change in place, a
new name replaces; import by `<domain_id>/<connection_id>`; drift (a deleted connection is created again, a deleted
membership shows in the plan and apply restores it, a second connection without a contract is a warning); one refused
change per rule the binding checks (PRJ-1 is a warning), asserting rule ID and attribute path: the plan warns that
apply refuses the change (no rule may fail a plan: `terraform destroy` refreshes with one), and apply refuses it
before writing anything. The checklist a plan records counts no other project's or team's live objects: CLU-2 without
a referenced task view restriction, and WKL-1 without the namespace's tenant referenced, are `skipped` there ("not
evaluated at plan", a warning), and judged against what exists at apply.

The tenant WKL-1 asks for (hyperpod-ns-research) is a compute quota made with boto3 (`research_tenant`), except in the
tests that plan a hyperpod_tenant next to the binding. Task view restrictions (CLU-2) are EKS access entries made with
boto3, as in test_tenant.py.
"""
import time

import pytest
from botocore.exceptions import ClientError

from harness import flat
from hcl import (
    ALLOCATION_REF,
    CLUSTER,
    DOMAIN,
    EKS_CLUSTER as EKS,
    FX,
    RESEARCH_ANALYSTS,
    RESEARCH_LEADS,
    RESEARCH_SCIENTISTS,
    cluster_allocation,
    contract_resource,
    provider,
)

pytestmark = pytest.mark.provider

RESEARCH, PRODUCTION = FX.project("research").id, FX.project("production").id
RESEARCH_TOOLING = FX.project("research").tooling_environment_id
PRODUCTION_TOOLING = FX.project("production").tooling_environment_id
RESEARCH_ROLE = FX.project_role_arn("research")
RESEARCH_ROLE_NAME = FX.project("research").role_name
CLUSTER_ARN = FX.cluster_arn("eks")
CONNECTION = f"hyperpod-{CLUSTER}-{RESEARCH}"  # the binding's default connection name: hyperpod-<cluster>-<project>
BINDING = "hyperpod_unified_studio_project_binding.research"
P5 = FX.clusters.eks.instance_groups.training.instance_type
TRAINING_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy"
MEMBERS = ((RESEARCH_LEADS, "PROJECT_OWNER"), (RESEARCH_SCIENTISTS, "PROJECT_CONTRIBUTOR"))
RULES = ["PRJ-1", "PRJ-3", "PRJ-4", "CLU-2", "WKL-1", "LIF-3"]  # what the binding checks, in order
# research's guaranteed quota (the research_tenant fixture's and TENANT's): the cluster allocation's only team.
SHARES = {"research": ((P5, 2),)}


# ---- HCL -----------------------------------------------------------------------------------------------------------
def member(name: str, designation: str, kind: str = "group") -> str:
    kind_line = f'\n    kind        = "{kind}"' if kind != "group" else ""
    return f'\n  member {{{kind_line}\n    name        = "{name}"\n    designation = "{designation}"\n  }}\n'


def binding(project_id=RESEARCH, role=RESEARCH_ROLE_NAME, members=MEMBERS,
            description="Research training on the shared p5 capacity", extra="", allocation=False) -> str:
    """The research binding; `members`: (name, designation[, kind]) tuples; `allocation`: it references the cluster
    allocation (CLU-2 then counts its other teams at plan; without a task view restriction and with no other team in
    it, CLU-2 is still left to apply)."""
    blocks = "".join(member(*m) for m in members)
    description_line = f'description      = "{description}"' if description else ""
    allocation_line = f"\n  allocation       = {ALLOCATION_REF}" if allocation else ""
    return f"""
resource "hyperpod_unified_studio_project_binding" "research" {{
  contract         = hyperpod_connection_contract.research.governance{allocation_line}
  project_id       = "{project_id}"
  cluster_name     = "{CLUSTER}"
  project_role_arn = "{FX.role_arn(role)}"
  {description_line}
{blocks}
  {extra}
}}
"""


def tenant(allocation: bool = False) -> str:
    """The research tenant (SHARES' quota); `allocation`: it references the cluster allocation."""
    allocation_line = f"\n  allocation      = {ALLOCATION_REF}" if allocation else ""
    quota = "\n\n  ".join(f'quota {{\n    instance_type = "{t}"\n    count         = {n}\n  }}'
                          for t, n in SHARES["research"])
    return f"""
resource "hyperpod_tenant" "research" {{
  contract        = hyperpod_connection_contract.research.governance{allocation_line}
  team            = "research"
  viewer_groups   = ["research-task-viewers"]
  operator_groups = ["research-task-operators"]

  {quota}

  workload {{
    service_account = "research-jobs"
  }}
}}
"""


TENANT = tenant()  # without the allocation (the 0.3 shape: its WKL-3 is not evaluated at plan)


def config(contract=None, allocation=False, **overrides) -> str:
    """The provider, the research contract (`contract`: hcl.contract_resource overrides) and the binding;
    `allocation`: as the docs teach it since issue 30, with the cluster allocation listing SHARES, referenced by the
    binding (research its only team: a binding without a task view restriction still leaves CLU-2 to apply, where
    the projects and teams that exist on the cluster are counted)."""
    split = cluster_allocation(SHARES) if allocation else ""
    return (provider() + contract_resource("research", **(contract or {})) + split
            + binding(allocation=allocation, **overrides))


# ---- the sandbox as DataZone and SageMaker hold it ------------------------------------------------------------------
def connections(sandbox, project=RESEARCH) -> dict:
    """The project's HyperPod connections: name -> connection summary."""
    dz = sandbox.client("datazone")
    items = dz.list_connections(domainIdentifier=DOMAIN, projectIdentifier=project, type="HYPERPOD")["items"]
    return {c["name"]: c for c in items}


def profile_names(sandbox) -> dict:
    """Profile ID -> the name a configuration writes (group name, Identity Center user name, IAM ARN)."""
    dz, names = sandbox.client("datazone"), dict[str, str]()
    for page in dz.get_paginator("search_group_profiles").paginate(domainIdentifier=DOMAIN, groupType="SSO_GROUP"):
        names |= {g["id"]: g["groupName"] for g in page["items"]}
    for page in dz.get_paginator("search_user_profiles").paginate(domainIdentifier=DOMAIN, userType="DATAZONE_USER"):
        names |= {u["id"]: (u["details"].get("sso") or {}).get("username") or u["details"]["iam"]["arn"]
                  for u in page["items"]}
    return names


def group_id(sandbox, name: str) -> str:
    """The group profile ID of a group name: DataZone keeps and lists members by it."""
    (found,) = [i for i, n in profile_names(sandbox).items() if n == name]
    return found


def memberships(sandbox, project=RESEARCH) -> dict:
    """(kind, name) -> designation: DataZone lists members by profile ID, named here as configurations name them."""
    members = sandbox.client("datazone").list_project_memberships(domainIdentifier=DOMAIN,
                                                                  projectIdentifier=project)["members"]
    names = profile_names(sandbox)
    return {(kind, names.get(detail[f"{kind}Id"], detail[f"{kind}Id"])): m["designation"]
            for m in members for kind, detail in m["memberDetails"].items()}


def connect(sandbox, project, environment, name) -> str:
    """A HyperPod connection to the EKS cluster made outside Terraform (no contract); returns its id."""
    return sandbox.client("datazone").create_connection(
        domainIdentifier=DOMAIN, environmentIdentifier=environment, name=name,
        props={"hyperPodProperties": {"clusterName": CLUSTER}})["connectionId"]


def restrict(sandbox, team: str) -> None:
    """A task view restriction for the team's project role: an access entry with only a namespace-scoped policy."""
    eks, role = sandbox.client("eks"), FX.project_role_arn(team)
    eks.create_access_entry(clusterName=EKS, principalArn=role)
    eks.associate_access_policy(clusterName=EKS, principalArn=role, policyArn=TRAINING_POLICY,
                                accessScope={"type": "namespace", "namespaces": [f"hyperpod-ns-{team}"]})


@pytest.fixture
def research_tenant(tf, sandbox):
    """The research team's compute quota on the EKS cluster (after `tf` reset the sandbox): its tenant, for WKL-1."""
    sm = sandbox.client("sagemaker")
    quota = sm.create_compute_quota(Name="research-quota", ClusterArn=CLUSTER_ARN,
                                    ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": P5, "Count": 2}]},
                                    ComputeQuotaTarget={"TeamName": "research"})
    deadline = time.monotonic() + 15  # settled, with the namespace HyperPod makes, before tests snapshot anything
    while sm.describe_compute_quota(ComputeQuotaId=quota["ComputeQuotaId"])["Status"] != "Created":
        assert time.monotonic() < deadline, "the research quota did not settle"
        time.sleep(0.2)
    yield
    try:
        sm.delete_compute_quota(ComputeQuotaId=quota["ComputeQuotaId"])
    except ClientError:
        pass


def resources(tf) -> dict:
    return {r["address"]: r["values"] for r in tf.show_json()["values"]["root_module"]["resources"]}


def planned(tf, plan_file: str) -> tuple[dict, dict]:
    """The binding's planned values and which of them are unknown until apply."""
    (change,) = [c["change"] for c in tf.show_json(plan_file)["resource_changes"] if c["address"] == BINDING]
    return change["after"], change["after_unknown"]


# ---- create, empty plan, destroy -------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_create_knows_everything_but_the_id_at_plan_and_destroy_leaves_the_project_as_it_was(
        tf, sandbox, research_tenant):
    before = (sandbox.inventory(), connections(sandbox), memberships(sandbox))
    # The checklist the plan records counts no other project's or team's live objects (the research quota included):
    # with no task view restriction and no tenant referenced, CLU-2 and WKL-1 are not evaluated at plan (skipped
    # rows, judged at apply against what exists), every other rule passes, and the checklist is known at plan.
    skipped = [("CLU-2", "skipped"), ("WKL-1", "skipped")]
    passed = " ".join(rule for rule in RULES if rule not in ("CLU-2", "WKL-1"))
    tf.write(config())
    tf.plan(extra=["-out=bare.tfplan"])
    bare, _ = planned(tf, "bare.tfplan")
    assert bare["passed_checks"] == passed, bare
    assert [(row["rule"], row["status"]) for row in bare["findings"]] == skipped, bare["findings"]
    assert all(row["detail"].startswith("not evaluated at plan: ") for row in bare["findings"]), bare["findings"]
    # As the docs teach it, with the allocation: research is its only team, so no other team it lists shares the
    # cluster, and CLU-2 (no restriction referenced) is still left to apply; the checklist is the same.
    tf.write(config(allocation=True))
    tf.plan(extra=["-out=create.tfplan"])
    after, unknown = planned(tf, "create.tfplan")
    assert {k: after[k] for k in ("domain_id", "connection_name", "environment_id", "cluster_arn", "orchestrator")} == {
        "domain_id": DOMAIN, "connection_name": CONNECTION, "environment_id": RESEARCH_TOOLING,
        "cluster_arn": CLUSTER_ARN, "orchestrator": "EKS"}
    assert (unknown.get("id"), unknown.get("connection_id"), unknown.get("passed_checks"),
            unknown.get("findings")) == (True, True, None, [{}, {}]), unknown  # findings: two wholly known rows
    assert (after["passed_checks"], after["findings"]) == (bare["passed_checks"], bare["findings"]), after

    tf.apply("create.tfplan")
    tf.assert_no_changes()
    state = resources(tf)[BINDING]
    assert (state["passed_checks"], state["findings"]) == (after["passed_checks"], after["findings"]), \
        "apply records the checklist the plan showed"
    assert state["id"] == f"{DOMAIN}/{state['connection_id']}"
    live = sandbox.client("datazone").get_connection(domainIdentifier=DOMAIN, identifier=state["connection_id"])
    assert (live["name"], live["type"], live["environmentId"], live["description"], live["environmentUserRole"]) == (
        CONNECTION, "HYPERPOD", RESEARCH_TOOLING, "Research training on the shared p5 capacity", RESEARCH_ROLE)
    assert live["props"]["hyperPodProperties"] == {"clusterName": CLUSTER, "clusterArn": CLUSTER_ARN,
                                                   "orchestrator": "EKS"}
    assert memberships(sandbox) == {**before[2], ("group", RESEARCH_LEADS): "PROJECT_OWNER",
                                    ("group", RESEARCH_SCIENTISTS): "PROJECT_CONTRIBUTOR"}

    tf.destroy()
    assert (sandbox.inventory(), connections(sandbox), memberships(sandbox)) == before


@pytest.mark.sandbox_only(reason="injects faults")
def test_a_failed_membership_leaves_state_naming_what_exists_and_the_next_apply_converges(
        tf, sandbox, research_tenant):
    tf.write(config())
    message = "sandbox fault: CreateProjectMembership denied"
    sandbox.fault("CreateProjectMembership", code="AccessDeniedException", status=403, message=message, nth=2,
                  service="datazone")
    failed = tf.apply(check=False)
    assert failed.rc == 1 and flat(message) in flat(failed.stderr), failed.stderr
    state = resources(tf)[BINDING]  # tainted, and honest: the connection and the first member exist
    assert [c["connectionId"] for c in connections(sandbox).values()] == [state["connection_id"]]
    assert [m["name"] for m in state["member"]] == [RESEARCH_LEADS]
    sandbox.clear_faults()
    plan = tf.plan()
    assert f"{BINDING} is tainted, so must be replaced" in flat(plan.stdout), plan.stdout
    tf.apply()
    tf.assert_no_changes()
    assert [c["connectionId"] for c in connections(sandbox).values()] == [resources(tf)[BINDING]["connection_id"]]
    assert {("group", RESEARCH_LEADS), ("group", RESEARCH_SCIENTISTS)} <= set(memberships(sandbox))


@pytest.mark.sandbox_only(reason="injects faults")
def test_a_destroy_that_fails_after_the_connection_stays_in_state_until_the_memberships_are_gone(
        tf, sandbox, research_tenant):
    """DeleteProjectMembership fails during destroy, after the connection was deleted: the binding stays in state
    naming the memberships left (and no connection), survives the next refresh, and the next destroy removes them."""
    before = (sandbox.inventory(), connections(sandbox), memberships(sandbox))
    tf.write(config())
    tf.apply()
    sandbox.fault("DeleteProjectMembership", code="AccessDeniedException", status=403,
                  message="sandbox fault: DeleteProjectMembership denied", nth=2, service="datazone")
    failed = tf.destroy(check=False)
    assert failed.rc == 1, failed.stdout
    assert connections(sandbox) == before[1], "the connection was deleted"
    state = resources(tf)[BINDING]
    assert [m["name"] for m in state["member"]] == [RESEARCH_SCIENTISTS], state["member"]
    sandbox.clear_faults()
    tf.run("refresh", "-input=false")
    assert [m["name"] for m in resources(tf)[BINDING]["member"]] == [RESEARCH_SCIENTISTS], \
        "refresh keeps a binding whose memberships remain"
    tf.destroy()
    assert (sandbox.inventory(), connections(sandbox), memberships(sandbox)) == before


@pytest.mark.sandbox_only(reason="injects faults")
def test_a_create_interrupted_after_create_connection_is_adopted_by_the_next_apply(tf, sandbox, research_tenant):
    """As if the provider were killed right after CreateConnection returned: the connection exists and state knows
    nothing of it (the failed wait's tainted record is removed). The next apply recognises its own connection by the
    create's idempotency token and adopts it: no ConflictException, one connection, an empty second plan, and
    destroy leaves the project as it was."""
    before = (sandbox.inventory(), connections(sandbox), memberships(sandbox))
    tf.write(config())
    tf.plan(extra=["-out=create.tfplan"])
    sandbox.fault("GetConnection", code="AccessDeniedException", status=403, count=50, service="datazone")
    assert tf.apply("create.tfplan", check=False).rc == 1
    sandbox.clear_faults()
    (orphan,) = connections(sandbox).values()
    tf.run("state", "rm", BINDING)
    tf.apply()
    assert [c["connectionId"] for c in connections(sandbox).values()] == [orphan["connectionId"]]
    assert resources(tf)[BINDING]["connection_id"] == orphan["connectionId"]
    tf.assert_no_changes()
    tf.destroy()
    assert (sandbox.inventory(), connections(sandbox), memberships(sandbox)) == before


@pytest.mark.sandbox_only(reason="creates a connection outside Terraform")
def test_a_connection_of_the_same_name_not_made_by_the_binding_is_refused_with_its_import_id(
        tf, sandbox, research_tenant):
    other = connect(sandbox, RESEARCH, RESEARCH_TOOLING, CONNECTION)
    tf.write(config())
    verdict = tf.apply_json()
    assert verdict.rc == 1, verdict.describe()
    (error,) = [d for d in verdict.errors if d.address == BINDING]
    assert f"{DOMAIN}/{other}" in error.detail, error.detail
    assert list(connections(sandbox)) == [CONNECTION]
    assert ("group", RESEARCH_LEADS) not in memberships(sandbox), "nothing of the binding was written"


# ---- update in place; what replaces ---------------------------------------------------------------------------------
def test_description_and_members_change_in_place_and_a_new_name_replaces(tf, sandbox, research_tenant):
    tf.write(config())
    tf.apply()
    connection_id = resources(tf)[BINDING]["connection_id"]
    changed = ((RESEARCH_LEADS, "PROJECT_CONTRIBUTOR"), (RESEARCH_ANALYSTS, "PROJECT_CATALOG_VIEWER"))
    tf.write(config(description="Research training and evaluation", members=changed))
    plan = tf.plan()
    text = flat(plan.stdout)
    assert f"{BINDING} will be updated in-place" in text and "0 to add, 1 to change, 0 to destroy" in text, plan.stdout
    tf.apply()
    assert resources(tf)[BINDING]["connection_id"] == connection_id
    live = sandbox.client("datazone").get_connection(domainIdentifier=DOMAIN, identifier=connection_id)
    assert live["description"] == "Research training and evaluation"
    groups = {RESEARCH_LEADS, RESEARCH_SCIENTISTS, RESEARCH_ANALYSTS}
    assert {k: v for k, v in memberships(sandbox).items() if k[1] in groups} == {
        ("group", RESEARCH_LEADS): "PROJECT_CONTRIBUTOR", ("group", RESEARCH_ANALYSTS): "PROJECT_CATALOG_VIEWER"}
    tf.assert_no_changes()

    # DataZone can neither rename a connection nor clear its description: those plans replace it.
    for overrides in ({"members": changed, "extra": 'connection_name = "research-on-the-cluster"'},
                      {"members": changed, "description": None}):
        tf.write(config(**overrides))
        text = flat(tf.plan().stdout)
        assert f"{BINDING} must be replaced" in text and "1 to add, 0 to change, 1 to destroy" in text, text


# ---- import ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["terraform import", "import block"])
def test_import_by_domain_and_connection_id(tf, sandbox, research_tenant, how):
    tf.write(config())
    tf.apply()
    connection_id = resources(tf)[BINDING]["connection_id"]
    tf.run("state", "rm", BINDING)
    if how == "terraform import":
        tf.import_(BINDING, f"{DOMAIN}/{connection_id}")
        assert resources(tf)[BINDING]["id"] == f"{DOMAIN}/{connection_id}"
    else:
        tf.write(config() + f'\nimport {{\n  to = {BINDING}\n  id = "{DOMAIN}/{connection_id}"\n}}\n')
    plan = tf.plan()
    text = flat(plan.stdout + plan.stderr)
    # Only what exists in configuration alone (contract, project role, members) is recorded, in place.
    assert "0 to add" in text and "0 to destroy" in text, plan.stdout
    assert "Existing project member" in text, "the members the project already has are taken over, visibly"
    tf.apply()
    tf.assert_no_changes()
    assert list(connections(sandbox)) == [CONNECTION]
    assert resources(tf)[BINDING]["connection_id"] == connection_id


# ---- drift -----------------------------------------------------------------------------------------------------------
def test_a_connection_deleted_out_of_band_is_created_again(tf, sandbox, research_tenant):
    """The binding still owns its memberships, so it stays in state (no connection) and the plan replaces it."""
    tf.write(config())
    tf.apply()
    old = resources(tf)[BINDING]["connection_id"]
    sandbox.client("datazone").delete_connection(domainIdentifier=DOMAIN, identifier=old)
    plan = tf.plan()
    assert plan.rc == 2 and f"{BINDING} must be replaced" in flat(plan.stdout), plan.stdout
    tf.apply()
    tf.assert_no_changes()
    assert [c["connectionId"] for c in connections(sandbox).values()] == [resources(tf)[BINDING]["connection_id"]]


def test_a_membership_deleted_out_of_band_shows_in_the_plan_and_apply_restores_it(tf, sandbox, research_tenant):
    tf.write(config())
    tf.apply()
    sandbox.client("datazone").delete_project_membership(
        domainIdentifier=DOMAIN, projectIdentifier=RESEARCH,
        member={"groupIdentifier": group_id(sandbox, RESEARCH_SCIENTISTS)})
    plan = tf.plan()
    text = flat(plan.stdout)
    assert plan.rc == 2 and f"{BINDING} will be updated in-place" in text, plan.stdout
    assert (f'+ member {{ + designation = "PROJECT_CONTRIBUTOR" + kind = "group" + name = "{RESEARCH_SCIENTISTS}" }}'
            in text), plan.stdout
    tf.apply()
    assert memberships(sandbox)[("group", RESEARCH_SCIENTISTS)] == "PROJECT_CONTRIBUTOR"
    tf.assert_no_changes()


def test_another_connection_of_the_project_to_the_cluster_is_a_warning(tf, sandbox, research_tenant):
    tf.write(config())
    tf.apply()
    other = connect(sandbox, RESEARCH, RESEARCH_TOOLING, "research-adhoc")
    try:
        plan = tf.plan()
    finally:
        if sandbox.real:  # nothing resets a real account
            sandbox.client("datazone").delete_connection(domainIdentifier=DOMAIN, identifier=other)
    text = flat(plan.stdout + plan.stderr)
    assert plan.rc == 0, plan.stdout  # a warning, not a change
    assert "HyperPod connections without a contract" in text and f'"research-adhoc" (id {other})' in text, text


# ---- one refused change per rule -------------------------------------------------------------------------------------
def refuses(tf, sandbox, rule: str, path: str, observed: str) -> None:
    """`tf.plan_refuses` (the plan warns, apply fails with the rule), and apply wrote nothing of the binding: no
    connection of either project, the binding not in state (the contract, which does not depend on it, is)."""
    before = (connections(sandbox), connections(sandbox, PRODUCTION))
    tf.plan_refuses(rule, path, observed)
    assert (connections(sandbox), connections(sandbox, PRODUCTION)) == before
    assert BINDING not in resources(tf)


def test_prj_1_a_user_member_is_a_warning(tf, research_tenant):
    tf.write(config(members=MEMBERS + ((FX.datazone.sso_user, "PROJECT_OWNER", "user"),)))
    plan = tf.plan()
    assert plan.rc == 2, plan.stderr
    text = flat(plan.stdout + plan.stderr)
    assert "Warning: [PRJ-1]" in text and "member[2].name" in text and f'user "{FX.datazone.sso_user}"' in text, text


def test_prj_3_another_project_than_the_contracts(tf, sandbox, research_tenant):
    tf.write(config(project_id=PRODUCTION))
    refuses(tf, sandbox, "PRJ-3", "project_id", f'project "{PRODUCTION}"')


def test_lif_3_revoked_contract(tf, sandbox, research_tenant):
    tf.write(config(contract={"extra": '  lifecycle_state = "revoked"'}))
    refuses(tf, sandbox, "LIF-3", "contract", "revoked")


def test_prj_4_project_role_is_not_the_contracts(tf, sandbox, research_tenant):
    tf.write(config(role=FX.roles.connection_access))
    refuses(tf, sandbox, "PRJ-4", "project_role_arn", FX.roles.connection_access)


@pytest.mark.sandbox_only(reason="connects the production project and adds an access entry outside Terraform, "
                                "leaving both to the sandbox's reset")
def test_clu_2_a_second_project_on_the_cluster_needs_a_restriction(tf, sandbox, research_tenant):
    connect(sandbox, PRODUCTION, PRODUCTION_TOOLING, "production-on-the-cluster")  # production is on it already
    tf.write(config())
    refuses(tf, sandbox, "CLU-2", "task_view_restriction", FX.project("research").role_name)
    # Reported once, on this binding, at the argument that would fix it (missing: the resource block).
    verdict = tf.plan_json()
    assert list(verdict.rules_by_address()) == [BINDING], verdict.describe()
    # Only this project's restriction matters: production's missing one is production's binding's finding.
    restrict(sandbox, "research")
    plan = tf.plan()
    assert plan.rc == 2, plan.stderr


RESTRICTION = """
resource "hyperpod_task_view_restriction" "research" {
  contract = hyperpod_connection_contract.research.governance
}
"""


def assert_not_evaluated_at_plan(tf, plan_file: str, *rules: str) -> None:
    """Each of `rules` is `skipped` "not evaluated at plan" in the binding's planned findings: it rests on live
    objects the binding does not reference (research_tenant's quota, made with boto3; the projects on the cluster), so
    the checklist the plan records cannot count them (it must read the same at apply). Judged beside it on the live
    objects, the rule holds, so the plan says nothing of it; apply judges it again before the first write."""
    (change,) = [c["change"] for c in tf.show_json(plan_file)["resource_changes"] if c["address"] == BINDING]
    rows = {row["rule"]: row for row in change["after"]["findings"] or []}
    for rule in rules:
        assert rows[rule]["status"] == "skipped" and rows[rule]["detail"].startswith("not evaluated at plan"), rows


@pytest.mark.sandbox_only(reason="connects the production project outside Terraform, leaving it to the sandbox's reset")
def test_clu_2_a_referenced_restriction_satisfies_it_at_any_parallelism(tf, sandbox, research_tenant):
    """No diagnostic at all: CLU-2 holds on the referenced restriction, and WKL-1 (the tenant exists live and is not
    referenced) is judged beside the recorded checklist, where it is not evaluated at plan."""
    connect(sandbox, PRODUCTION, PRODUCTION_TOOLING, "production-on-the-cluster")
    tf.write(config(extra="task_view_restriction = hyperpod_task_view_restriction.research.governance")
             + RESTRICTION)
    for parallelism in (1, 10):
        verdict = tf.plan_json([f"-parallelism={parallelism}", "-out=binding.tfplan"])
        assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
        assert_not_evaluated_at_plan(tf, "binding.tfplan", "WKL-1")


def test_the_quotas_tags_are_read_only_when_clu_2_asks_which_projects_are_on_the_cluster(tf, sandbox, research_tenant):
    """The projects on the cluster are in the tags this provider writes on each compute quota: one read per quota on
    the cluster. CLU-2 asks for them only when the project role has no task view restriction, so a restricted
    binding's plan reads none, and an unrestricted one reads every quota's."""
    tf.write(config(extra="task_view_restriction = hyperpod_task_view_restriction.research.governance")
             + RESTRICTION)
    sandbox.reset_calls()
    verdict = tf.plan_json(["-out=binding.tfplan"])
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    assert_not_evaluated_at_plan(tf, "binding.tfplan", "WKL-1")
    calls = sandbox.calls_by_caller().get(BINDING.split(".")[0], {})
    assert "sagemaker.ListTags" not in calls, calls

    tf.write(config())
    quotas = [q for q in sandbox.client("sagemaker").list_compute_quotas(ClusterArn=CLUSTER_ARN)[
        "ComputeQuotaSummaries"] if q["Status"] not in ("Deleting", "Deleted")]
    sandbox.reset_calls()
    tf.plan_json()
    calls = sandbox.calls_by_caller().get(BINDING.split(".")[0], {})
    assert calls.get("sagemaker.ListTags") == len(quotas) > 0, calls


def test_wkl_1_no_tenant_for_the_contracts_namespace(tf, sandbox):
    tf.write(config())
    refuses(tf, sandbox, "WKL-1", "tenants", 'namespace "hyperpod-ns-research" has no tenant')


def test_wkl_1_a_referenced_tenant_satisfies_it_at_any_parallelism(tf):
    """Tenant and binding reference the allocation, as the docs teach (WKL-3 judged at plan): no diagnostic at all.
    CLU-2 is not evaluated at plan in the checklist (no task view restriction is referenced, and no other team of the
    allocation shares the cluster): judged beside it, no other project is on the cluster now, so it holds, and apply
    counts what exists then."""
    tf.write(config(allocation=True, extra="tenants = [hyperpod_tenant.research.governance]")
             + tenant(allocation=True))
    for parallelism in (1, 10):
        verdict = tf.plan_json([f"-parallelism={parallelism}", "-out=binding.tfplan"])
        assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
        assert_not_evaluated_at_plan(tf, "binding.tfplan", "CLU-2")


def test_wkl_1_an_unreferenced_tenant_planned_alongside_does_not_count(tf):
    """No hidden memory between resources: the tenant counts only when the binding references it (or it exists); the
    allocation both reference, which lists research's share, is not a tenant either. WKL-1 is refused (nothing on
    the cluster is research's tenant yet); CLU-2, with no restriction referenced, is not evaluated in the checklist and
    holds beside it (no other project is on the cluster)."""
    tf.write(config(allocation=True) + tenant(allocation=True))
    for parallelism in (1, 10):
        verdict = tf.plan_json([f"-parallelism={parallelism}", "-out=binding.tfplan"])
        assert verdict.rules_by_address() == {BINDING: [("WKL-1", "refused")]}, verdict.describe()
        verdict.assert_rule("WKL-1", BINDING, 'resource "hyperpod_unified_studio_project_binding"')
        assert_not_evaluated_at_plan(tf, "binding.tfplan", "CLU-2")


# ---- nested nulls and what DataZone refuses, at validate (issue 14) --------------------------------------------------
def raw_member(body: str) -> str:
    return f"\n  member {{\n    {body}\n  }}\n"


@pytest.mark.parametrize("body, attribute", [
    ('name        = null\n    designation = "PROJECT_OWNER"', "name"),
    (f'name        = "{RESEARCH_LEADS}"\n    designation = null', "designation"),
    ('name        = "   "\n    designation = "PROJECT_OWNER"', "name"),
    ('name        = "bell\\u0007"\n    designation = "PROJECT_OWNER"', "name"),
    ('kind        = "user"\n    name        = "alice smith"\n    designation = "PROJECT_OWNER"', "name"),
])
def test_a_member_datazone_would_refuse_fails_validate_at_its_path(tf, body, attribute):
    tf.write(provider() + contract_resource("research")
             + binding(members=()).replace("\n  \n}", raw_member(body) + "\n}"))
    verdict = tf.validate_json()
    assert not verdict.valid, verdict.describe()
    (error,) = [d for d in verdict.errors if d.address == BINDING or d.address is None]
    assert verdict.line(error).strip().startswith(attribute), verdict.describe()
    assert (verdict.line(error).strip(), error.summary) != ("", ""), verdict.describe()


@pytest.mark.parametrize("extra, attribute", [
    ('connection_name = "caf\u00e9-on-the-cluster"', "connection_name"),
])
def test_connection_names_datazone_refuses_fail_validate(tf, extra, attribute):
    tf.write(provider() + contract_resource("research") + binding(extra=extra))
    verdict = tf.validate_json()
    assert not verdict.valid, verdict.describe()
    (error,) = verdict.errors
    assert verdict.line(error).strip().startswith(attribute), verdict.describe()


def test_a_description_with_a_control_character_fails_validate(tf):
    tf.write(provider() + contract_resource("research") + binding(description="Research\\u0000 training"))
    verdict = tf.validate_json()
    assert not verdict.valid, verdict.describe()
    (error,) = verdict.errors
    assert verdict.line(error).strip().startswith("description"), verdict.describe()


def test_member_blocks_unknown_at_plan_are_judged_at_apply(tf, research_tenant):
    """`dynamic "member"` over a value known only at apply: the members are unknown, never read as none (PRJ-1 was
    planned from zero members, then applied from one: inconsistent final plan)."""
    dynamic = f'''
  dynamic "member" {{
    for_each = terraform_data.unknown.id != "" ? ["{RESEARCH_LEADS}"] : []
    content {{
      name        = member.value
      designation = "PROJECT_OWNER"
    }}
  }}
'''
    tf.write(config(members=(), extra=dynamic) + 'resource "terraform_data" "unknown" {}\n')
    verdict = tf.plan_json()
    assert not verdict.errors, verdict.describe()
    tf.apply()
    assert [m["name"] for m in resources(tf)[BINDING]["member"]] == [RESEARCH_LEADS]
    tf.assert_no_changes()


@pytest.mark.parametrize("fact", ["cluster_name", "lifecycle_state", "contract"])
def test_a_contract_with_a_fact_nulled_fails_the_plan_at_contract(tf, research_tenant, fact):
    tf.write(config().replace("contract         = hyperpod_connection_contract.research.governance",
                              f"contract         = merge(hyperpod_connection_contract.research.governance, "
                              f"{{ {fact} = null }})"))
    tf.apply("-target=hyperpod_connection_contract.research")
    verdict = tf.plan_json()
    assert verdict.rc == 1, verdict.describe()
    (error,) = [d for d in verdict.errors if d.address == BINDING]
    assert verdict.line(error).strip().startswith("contract"), verdict.describe()
