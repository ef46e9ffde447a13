"""hyperpod_tenant through a real Terraform against the sandbox, written from the tenant spec: the post's example (two
contracts, the cluster's scheduling policy, tenants production and research on the EKS cluster) composes exactly what
its state records and its destroy leaves the account as it found it; a fault at each composition step fails the
apply and the next apply converges; an update in place while another team's quota is edited; out-of-band deletions
and changes show in the plan and apply restores them, also when everything of the tenants disappeared; import by
`<cluster>/<team>`; one refusal per rule (rule ID and attribute path: a warning at plan, whose summary says apply
refuses the change, then apply's error before the tenant writes anything; no rule fails a plan), a lender referenced
in `borrows_from` satisfies WKL-5 whatever the order and parallelism; a rule that waits for a value known only at
apply warns at plan and is judged at apply before anything is written; a Slurm tenant's accounting artefacts; an IAM
role of the workload role's name is never taken over.

The example is the 0.3 shape (no cluster allocation: WKL-3 is not evaluated at plan, a warning per tenant) unless
a test asks for the shape the docs teach since issue 30: `example(allocation=True)` adds a
`hyperpod_cluster_allocation` whose teams are the tenants' quotas and sets `allocation` on both tenants.

"Nothing orphaned" is the sandbox inventory (`GET /_sandbox/inventory`, docs/sandbox.md) flattened to names:
`inventory_keys`.  The task view restrictions CLU-2 demands are EKS access entries made here with boto3 (the
restriction resource does not exist yet).
"""
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from harness import Diagnostic, PlanVerdict, flat, statuses
from harness.kube import Kube
from harness.terraform import REFUSED_AT_APPLY
from hcl import (
    ACCOUNT,
    ALLOCATION_REF,
    CLUSTER,
    EKS_CLUSTER as EKS,
    FX,
    PROVIDER_REGION,
    REGION,
    ROLE,
    SLURM_CLUSTER,
    cluster_allocation,
    contract_resource,
    days_ago,
    days_ahead,
    exception,
    provider,
)

pytestmark = pytest.mark.provider

P5 = FX.clusters.eks.instance_groups.training.instance_type
G5 = FX.clusters.eks.instance_groups.inference.instance_type
# The example's quotas fill the training group exactly: production guarantees all but 3 of its instances (5 of the
# local seed's 8), research 2, and research's update 3 (WKL-3 holds); research asking for 4 overcommits it by one.
P5_COUNT = FX.clusters.eks.instance_groups.training.count
PRODUCTION_P5 = P5_COUNT - 3
assert PRODUCTION_P5 >= 1 and FX.clusters.eks.instance_groups.inference.count >= 2, \
    "the tenant suite needs at least 4 training and 2 inference instances on the EKS cluster"
CONSUMER_ROLE = FX.consumer_role_arn()
KEY = FX.kms_key_arn()
WORKLOAD_ROLE = f"hyperpod-{CLUSTER}-research"  # the default workload role name: hyperpod-<cluster>-<team>
TRAINING_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy"
RESEARCH = "hyperpod_tenant.research"
NETPOL = "/apis/networking.k8s.io/v1/namespaces/hyperpod-ns-research/networkpolicies/hyperpod-tenant-default-deny"
EGRESS = NETPOL.replace("hyperpod-tenant-default-deny", "hyperpod-tenant-allow-egress")
VIEWER_BINDING = ("/apis/rbac.authorization.k8s.io/v1/namespaces/hyperpod-ns-research/rolebindings/"
                  "hyperpod-tenant-viewer")
PRODUCTION = "hyperpod_tenant.production"

CONTRACTS = {  # hcl.contract_resource overrides, per team (the fixture's projects and their Tooling roles)
    "production": {"name": f"production-on-{CLUSTER}", "project_id": FX.project("production").id,
                   "project_role_arn": FX.project_role_arn("production"),
                   "scope": 'eks_namespaces = ["hyperpod-ns-production"]'},
    "research": {"name": f"research-on-{CLUSTER}", "project_id": FX.project("research").id,
                 "project_role_arn": FX.project_role_arn("research"),
                 "scope": 'eks_namespaces       = ["hyperpod-ns-research"]\n'
                          f'  approved_account_ids = ["{FX.consumer_account_id}", "{FX.data_account_id}"]'},
}


# ---- HCL -----------------------------------------------------------------------------------------------------------
def workload(service_account="research-jobs", target=None, extra="") -> str:
    target_line = f'\n    target_role_arn = "{target}"' if target else ""
    return f'workload {{\n    service_account = "{service_account}"{target_line}\n    {extra}\n  }}'


def viewers(team: str) -> str:
    """The team's viewer role (fixture.roles.<team>_viewers)."""
    return FX.role_arn(FX.roles[f"{team}_viewers"])


def operators(team: str) -> str:
    return FX.role_arn(FX.roles[f"{team}_operators"])


def access(team: str, viewer_groups: str = "") -> str:
    """Kubernetes groups `<team>-task-viewers` / `-operators`, mapped from the team's viewer and operator roles."""
    return (f'viewer_groups           = ["{viewer_groups or f"{team}-task-viewers"}"]\n'
            f'  viewer_principal_arns   = ["{viewers(team)}"]\n'
            f'  operator_groups         = ["{team}-task-operators"]\n'
            f'  operator_principal_arns = ["{operators(team)}"]')


TENANTS: dict[str, dict[str, Any]] = {  # the post's example; each value an HCL fragment of the tenant block
    "production": {"team": "production", "quota": ((P5, PRODUCTION_P5), (G5, 2)),
                   "sharing": 'sharing {\n    strategy = "Lend"\n  }',
                   "settings": 'preempt_team_tasks = "LowerPriority"\n  priority_class     = "production"',
                   "access": access("production"), "network": "", "workload": workload("production-jobs"),
                   "data": "", "extra": ""},
    "research": {"team": "research", "quota": ((P5, 2),),
                 "sharing": 'sharing {\n    strategy     = "LendAndBorrow"\n    borrow_limit = 50\n  }\n\n'
                            '  borrows_from = [hyperpod_tenant.production.governance]',
                 "settings": 'preempt_team_tasks = "Never"\n  priority_class     = "research"',
                 "access": access("research"), "network": "", "workload": workload(target=CONSUMER_ROLE),
                 "data": f'data {{\n    kms_keys = ["{KEY}"]\n  }}', "extra": ""},
}


def tenant(label: str, allocation: bool = False, **overrides) -> str:
    """The tenant block; `allocation`: it references the cluster allocation (`allocation = ALLOCATION_REF`)."""
    f = {**TENANTS[label], **overrides}
    quota = "\n  ".join(f'quota {{\n    instance_type = "{t}"\n    count         = {n}\n  }}' for t, n in f["quota"])
    lines = [f"contract          = hyperpod_connection_contract.{label}.governance",
             "scheduling_policy = hyperpod_scheduling_policy.capacity.governance",
             f"allocation        = {ALLOCATION_REF}" if allocation else "", f'team              = "{f["team"]}"',
             quota, f["sharing"], f["settings"], f["access"], f["network"], f["workload"], f["data"], f["extra"]]
    body = "\n\n  ".join(line for line in lines if line)
    return f'\nresource "hyperpod_tenant" "{label}" {{\n  {body}\n}}\n'


def scheduling_policy(fair_share: bool = True) -> str:
    classes = "".join(f'\n  priority_class {{\n    name   = "{name}"\n    weight = {weight}\n  }}\n'
                      for name, weight in (("production", 90), ("research", 10)))
    return (f'\nresource "hyperpod_scheduling_policy" "capacity" {{\n  cluster_name = "{CLUSTER}"\n'
            f'  fair_share   = {str(fair_share).lower()}\n{classes}}}\n')


def example(production=None, research=None, research_contract=None, fair_share=True, allocation=False) -> str:
    """The post's example; `production`/`research`: tenant overrides, `research_contract`: contract overrides.
    `allocation`: as the docs teach it since issue 30, with a `hyperpod_cluster_allocation` whose teams are exactly
    the tenants' quotas (after the overrides), referenced by both tenants; without it, the 0.3 shape (WKL-3 is not
    evaluated at plan: a warning per tenant)."""
    overrides = {"production": production or {}, "research": research or {}}
    split = ""
    if allocation:
        merged = {label: {**TENANTS[label], **overrides[label]} for label in overrides}
        split = cluster_allocation({f["team"]: f["quota"] for f in merged.values()})
    return (provider() + contract_resource("production", **CONTRACTS["production"])
            + contract_resource("research", **{**CONTRACTS["research"], **(research_contract or {})})
            + scheduling_policy(fair_share) + split + tenant("production", allocation, **overrides["production"])
            + tenant("research", allocation, **overrides["research"]))


def slurm_example(sharing: str = "", allocation: bool = False) -> str:
    """The research team on the Slurm cluster: a Slurm contract and tenant (no AWS writes); `allocation`: with the
    Slurm cluster's allocation, listing research with no guaranteed quota (as its tenant asks for none), referenced
    by the tenant."""
    contract = contract_resource("research", cluster_name=SLURM_CLUSTER, orchestrator="slurm",
                                 scope='slurm {\n    accounts   = ["research"]\n    partitions = ["gpu"]\n  }')
    split = cluster_allocation({"research": ()}, cluster_name=SLURM_CLUSTER) if allocation else ""
    reference = f"\n  allocation = {ALLOCATION_REF}" if allocation else ""
    return provider() + contract + split + f"""
resource "hyperpod_tenant" "research" {{
  contract = hyperpod_connection_contract.research.governance{reference}
  team     = "research"
  {sharing}

  slurm {{
    partitions   = ["gpu"]
    qos_priority = 100
    preempt_qos  = ["research"]
    fairshare    = 10
    max_wall     = "24:00:00"
    users        = ["alice"]
    private_data = ["jobs", "usage", "users"]
  }}
}}
"""


# ---- task view restrictions (CLU-2), made with boto3 ------------------------------------------------------------
def project_role(team: str) -> str:
    return FX.project_role_arn(team)


def restrict(sandbox, team: str) -> None:
    """A task view restriction for the team's project role: an access entry with only a namespace-scoped policy."""
    eks = sandbox.client("eks")
    eks.create_access_entry(clusterName=EKS, principalArn=project_role(team))
    eks.associate_access_policy(clusterName=EKS, principalArn=project_role(team), policyArn=TRAINING_POLICY,
                                accessScope={"type": "namespace", "namespaces": [f"hyperpod-ns-{team}"]})


def unrestrict(sandbox, team: str) -> None:
    try:
        sandbox.client("eks").delete_access_entry(clusterName=EKS, principalArn=project_role(team))
    except ClientError as e:
        if e.response["Error"]["Code"] != "ResourceNotFoundException":
            raise


@pytest.fixture
def restricted(tf, sandbox):
    """Both project roles restricted (after `tf` reset the sandbox); removed again afterwards."""
    for team in ("production", "research"):
        restrict(sandbox, team)
    yield
    for team in ("production", "research"):
        unrestrict(sandbox, team)


# ---- state and plans ------------------------------------------------------------------------------------------------
def resources(tf) -> dict:
    """address -> values of every resource in state."""
    return {r["address"]: r["values"] for r in tf.show_json()["values"]["root_module"]["resources"]}


def tenants(state: dict) -> list:
    return [values for address, values in state.items() if address.startswith("hyperpod_tenant.")]


def block(values: dict, name: str) -> dict:
    """A single nested block's values (rendered as an object, or as a list of one), {} when absent."""
    value = values.get(name)
    if isinstance(value, list):
        return value[0] if value else {}
    return value or {}


def refused_at_apply(applied: PlanVerdict, rule: str, address: str, attribute: str) -> Diagnostic:
    """A failed `tf.apply_json()`'s one error of `rule` on `address`, pointing at `attribute` (assert_rule among the
    errors: an apply's output repeats its plans' refusal warnings), saying that nothing of the change was written."""
    assert applied.rc == 1, applied.describe()
    error = replace(applied, diagnostics=applied.errors).assert_rule(rule, address, attribute, severity="error")
    assert REFUSED_AT_APPLY in flat(error.detail), applied.describe()
    return error




# ---- the inventory as names -------------------------------------------------------------------------------------
def _iam_keys(inv) -> set:
    keys = set()
    for account, roles in inv["iam_roles"].items():
        for name, role in roles.items():
            keys.add(f"iam_role {account} {name}")
            keys |= {f"iam_policy {account} {name} {policy}" for policy in role["inline_policies"]}
    return keys


def _sagemaker_keys(inv) -> set:
    return ({f"compute_quota {q['cluster']} {q['name']} {q['team']}" for q in inv["sagemaker"]["compute_quotas"]}
            | {f"scheduler_config {c['cluster']} {c['name']}" for c in inv["sagemaker"]["scheduler_configs"]})


def _eks_keys(inv) -> set:
    keys = set()
    for cluster, eks in inv["eks"].items():
        for principal, entry in eks["access_entries"].items():
            keys.add(f"access_entry {cluster} {principal} {','.join(entry['kubernetes_groups'])}")
            keys |= {f"access_policy {cluster} {principal} {arn} {scope['type']} {','.join(scope['namespaces'])}"
                     for arn, scope in entry["policies"].items()}
        keys |= {f"pod_identity {cluster} {ns_sa}" for ns_sa in eks["pod_identity_associations"]}
    return keys


def inventory_keys(inv) -> set:
    """Every object of an inventory as one name: the unit of "created" and "left behind"."""
    kms = {f"kms_grant {key} {g['name']} {g['grantee']}" for key, grants in inv["kms_grants"].items() for g in grants}
    kube = {f"kubernetes {cluster} {name}" for cluster, objects in inv["kubernetes"].items() for name in objects}
    return _iam_keys(inv) | _sagemaker_keys(inv) | _eks_keys(inv) | kms | kube


def assert_inventory_settles(sandbox, expected: dict, timeout: float = 15.0):
    """The inventory becomes `expected` (deletions SageMaker finishes asynchronously may take a moment)."""
    deadline = time.monotonic() + timeout
    while (inv := sandbox.inventory()) != expected and time.monotonic() < deadline:
        time.sleep(0.25)
    left, missing = inventory_keys(inv) - inventory_keys(expected), inventory_keys(expected) - inventory_keys(inv)
    assert (left, missing) == (set(), set()), f"left behind: {sorted(left)}; missing: {sorted(missing)}"
    assert inv == expected


# ---- what the state says it composed, in the same names ---------------------------------------------------------
def component_keys(component: str, values: dict) -> set:
    team, cluster = values["team"], values["cluster_name"]
    role, ns = f"hyperpod-{cluster}-{team}", f"hyperpod-ns-{team}"
    kind, _, rest = component.partition("/")
    if component == "iam_role":
        return {f"iam_role {ACCOUNT} {role}"}
    if kind == "iam_policy":
        return {f"iam_policy {ACCOUNT} {role} {rest}"}
    if component == "compute_quota":  # HyperPod makes the team namespace with the quota
        return {f"compute_quota {cluster} {team}-quota {team}", f"kubernetes {EKS} Namespace/{ns}"}
    if kind == "kubernetes":
        return {f"kubernetes {EKS} {rest.split('/')[0]}/{ns}/{rest.split('/')[1]}"}
    if component == "pod_identity_association":
        return {f"pod_identity {EKS} {ns}/{block(values, 'workload')['service_account']}"}
    if kind == "access_entry":
        return set()  # with its groups and policy, from the tenant's arguments (access_entry_keys)
    if kind == "kms_grant":
        grantee = block(values, "data").get("grantee_role_arn") or f"{ROLE}/{role}"
        return {f"kms_grant {rest} hyperpod-tenant/{cluster}/{team} {grantee}"}
    raise AssertionError(f"component {component!r} is not one the spec lists")


def access_entry_keys(values: dict) -> set:
    """The entries the tenant's arguments ask for: operators get the edit policy, viewers (not operators) the view
    policy, on the tenant namespace."""
    keys = set()
    policy = "arn:aws:eks::aws:cluster-access-policy/AmazonEKS{}Policy"
    operators = values.get("operator_principal_arns") or []
    entries = [(p, values.get("operator_groups") or [], policy.format("Edit")) for p in operators]
    entries += [(p, values.get("viewer_groups") or [], policy.format("View"))
                for p in values.get("viewer_principal_arns") or [] if p not in operators]
    for principal, groups, policy_arn in entries:
        assert f"access_entry/{principal}" in values["components"], values["components"]
        keys.add(f"access_entry {EKS} {principal} {','.join(sorted(groups))}")
        keys.add(f"access_policy {EKS} {principal} {policy_arn} namespace {values['namespace']}")
    return keys


def assert_lists_match_components(values: dict):
    """`kms_grants` names the same grants as `components`; a Kubernetes object's value is `<namespace>@<digest>` and
    an access entry's `<EKS view or edit policy name>@<digest>`."""
    components = values["components"]
    for component, value in components.items():
        kind = component.partition("/")[0]
        if kind == "kubernetes":
            assert re.fullmatch(rf"{values['namespace']}@[0-9a-f]{{8}}", value), (component, value)
        if kind == "access_entry":
            assert re.fullmatch(r"AmazonEKS(View|Edit)Policy@[0-9a-f]{8}", value), (component, value)
    assert {f"kms_grant/{key}" for key in values["kms_grants"]} == {c for c in components if c.startswith("kms_grant/")}
    assert all(values["kms_grants"].values()) and all(components.values())


def composed_keys(state: dict) -> set:
    """Everything the configuration's state says exists: each tenant's components, and the scheduling policy."""
    keys = {f"scheduler_config {CLUSTER} {state['hyperpod_scheduling_policy.capacity']['name']}"}
    for values in tenants(state):
        assert_lists_match_components(values)
        keys |= access_entry_keys(values)
        for component in values["components"]:
            keys |= component_keys(component, values)
    return keys


# ---- a. the post's example ----------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_the_posts_example_creates_exactly_its_components_and_destroy_leaves_the_seed(tf, sandbox):
    seed = sandbox.inventory()
    for team in ("production", "research"):
        restrict(sandbox, team)
    before = sandbox.inventory()
    tf.write(example())
    tf.apply()
    tf.assert_no_changes()

    state, after = resources(tf), sandbox.inventory()
    assert inventory_keys(before) - inventory_keys(after) == set()
    assert inventory_keys(after) - inventory_keys(before) == composed_keys(state)
    research = state[RESEARCH]
    assert (research["id"], research["cluster_name"], research["namespace"]) == (
        f"{CLUSTER}/research", CLUSTER, "hyperpod-ns-research")
    assert {"iam_policy/hyperpod-tenant-target", "iam_policy/hyperpod-tenant-data", f"kms_grant/{KEY}",
            "kubernetes/NetworkPolicy/hyperpod-tenant-default-deny"} <= set(research["components"])
    assert not [rule for values in tenants(state) for rule, status in statuses(values).items() if status == "failed"]
    assert_live_objects(sandbox, after)

    tf.destroy()
    assert_inventory_settles(sandbox, before)
    for team in ("production", "research"):
        unrestrict(sandbox, team)
    assert_inventory_settles(sandbox, seed)


def quota_config(sandbox, team: str) -> dict:
    sm = sandbox.client("sagemaker")
    (summary,) = [q for q in sm.list_compute_quotas()["ComputeQuotaSummaries"] if q["Name"] == f"{team}-quota"]
    return summary["ComputeQuotaConfig"]


def describe_quota(sandbox, team: str) -> dict:
    """DescribeComputeQuota of the team's quota once it has settled (Created or Updated): config, target, version."""
    sm = sandbox.client("sagemaker")
    (summary,) = [q for q in sm.list_compute_quotas()["ComputeQuotaSummaries"] if q["Name"] == f"{team}-quota"]
    deadline = time.monotonic() + 15
    while (quota := sm.describe_compute_quota(ComputeQuotaId=summary["ComputeQuotaId"]))["Status"] not in (
            "Created", "Updated") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert quota["Status"] in ("Created", "Updated"), quota
    return quota


def edit_quota_out_of_band(sandbox, team: str, **request) -> dict:
    """UpdateComputeQuota as the console or another pipeline sends it (TargetVersion from the version it read), with
    `request` (ComputeQuotaConfig, ComputeQuotaTarget, ActivationState); the quota as it settles, one version on."""
    current = describe_quota(sandbox, team)
    sandbox.client("sagemaker").update_compute_quota(ComputeQuotaId=current["ComputeQuotaId"],
                                                     TargetVersion=sandbox.target_version(current["ComputeQuotaVersion"]),
                                                     **request)
    edited = describe_quota(sandbox, team)
    assert edited["ComputeQuotaVersion"] == current["ComputeQuotaVersion"] + 1, edited
    return edited


def assert_live_objects(sandbox, inv: dict):
    """What the example asked for, as SageMaker, EKS, IAM and Kubernetes hold it."""
    research, production = quota_config(sandbox, "research"), quota_config(sandbox, "production")
    assert (research["ComputeQuotaResources"], research["ResourceSharingConfig"], research["PreemptTeamTasks"]) == (
        [{"InstanceType": P5, "Count": 2}], {"Strategy": "LendAndBorrow", "BorrowLimit": 50}, "Never")
    assert (production["ComputeQuotaResources"], production["ResourceSharingConfig"]["Strategy"],
            production["PreemptTeamTasks"]) == ([{"InstanceType": P5, "Count": PRODUCTION_P5},
                                                  {"InstanceType": G5, "Count": 2}],
                                                "Lend", "LowerPriority")
    association = inv["eks"][EKS]["pod_identity_associations"]["hyperpod-ns-research/research-jobs"]
    assert (association["role_arn"], association["target_role_arn"]) == (
        f"{ROLE}/{WORKLOAD_ROLE}", CONSUMER_ROLE)
    tags = inv["iam_roles"][ACCOUNT][WORKLOAD_ROLE]["tags"]
    assert {k: tags.get(k) for k in ("hyperpod:contract", "hyperpod:tenant", "hyperpod:cluster")} == {
        "hyperpod:contract": f"research-on-{CLUSTER}", "hyperpod:tenant": "research", "hyperpod:cluster": CLUSTER}
    deny = inv["kubernetes"][EKS]["NetworkPolicy/hyperpod-ns-research/hyperpod-tenant-default-deny"]
    assert {k: deny["metadata"]["labels"].get(k) for k in ("app.kubernetes.io/managed-by",
                                                           "hyperpod.governance/tenant")} == {
        "app.kubernetes.io/managed-by": "terraform-provider-hyperpod", "hyperpod.governance/tenant": "research"}


# ---- b. a fault at each composition step -----------------------------------------------------------------------
STEP_FAULTS = {  # operation -> (service, code, HTTP status): refusals the SDKs do not retry
    "CreateRole": ("iam", "AccessDenied", 403),
    "PutRolePolicy": ("iam", "AccessDenied", 403),
    "CreateComputeQuota": ("sagemaker", "AccessDeniedException", 400),
    "kubernetes.create.networkpolicies": ("kubernetes", "Forbidden", 403),
    "CreatePodIdentityAssociation": ("eks", "AccessDeniedException", 403),
    "CreateAccessEntry": ("eks", "AccessDeniedException", 403),
    "AssociateAccessPolicy": ("eks", "AccessDeniedException", 403),
    "CreateGrant": ("kms", "AccessDeniedException", 400),
}


@pytest.mark.sandbox_only(reason="injects faults")
@pytest.mark.parametrize("operation", list(STEP_FAULTS))
def test_a_failed_step_fails_the_apply_and_the_next_apply_converges(tf, sandbox, restricted, operation):
    before = sandbox.inventory()
    tf.write(example())
    service, code, status = STEP_FAULTS[operation]
    message = f"sandbox fault: {operation} denied"
    sandbox.fault(operation, code=code, status=status, message=message, count=None, service=service)
    failed = tf.apply(check=False)
    assert failed.rc == 1, failed.stdout
    assert flat(message) in flat(failed.stderr), failed.stderr
    assert sandbox.calls()[operation if service == "kubernetes" else f"{service}.{operation}"] >= 1
    sandbox.clear_faults()
    tf.apply()
    tf.assert_no_changes()
    tf.destroy()
    assert_inventory_settles(sandbox, before)


# ---- c. updates and drift ------------------------------------------------------------------------------------------
def test_out_of_band_deletions_show_in_the_plan_and_apply_restores_them(tf, sandbox, restricted, tmp_path):
    tf.write(example())
    tf.apply()
    eks = sandbox.client("eks")
    (association,) = eks.list_pod_identity_associations(clusterName=EKS, namespace="hyperpod-ns-research",
                                                        serviceAccount="research-jobs")["associations"]
    eks.delete_pod_identity_association(clusterName=EKS, associationId=association["associationId"])
    assert Kube(sandbox, tmp_path, EKS).delete(NETPOL)[0] == 200

    plan = tf.plan()
    assert plan.rc == 2
    text = flat(plan.stdout)
    assert "pod_identity_association" in text and "hyperpod-tenant-default-deny" in text, plan.stdout
    assert flat(f"{RESEARCH} will be updated in-place") in text, plan.stdout
    tf.apply()
    restored = eks.list_pod_identity_associations(clusterName=EKS, namespace="hyperpod-ns-research",
                                                  serviceAccount="research-jobs")["associations"]
    assert len(restored) == 1
    assert eks.describe_pod_identity_association(clusterName=EKS, associationId=restored[0]["associationId"])[
        "association"]["targetRoleArn"] == CONSUMER_ROLE
    assert Kube(sandbox, tmp_path, EKS).get(NETPOL)[0] == 200  # a fresh token: the first may have expired
    tf.assert_no_changes()


RESEARCH_CHANGED = {  # research's in-place update: more guaranteed capacity, more borrowing, a weight, egress, viewers
    "quota": ((P5, 3),),  # PRODUCTION_P5 + 3 = the instances of the training group (WKL-3 holds)
    "sharing": 'sharing {\n    strategy     = "LendAndBorrow"\n    borrow_limit = 100\n  }',
    "extra": "fair_share_weight = 20",
    "network": 'network_policy {\n    egress_cidrs = ["10.20.0.0/16"]\n  }',
    "access": access("research", viewer_groups="research-task-analysts"),
}


@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_update_in_place_while_another_teams_quota_is_edited(tf, sandbox, restricted, tmp_path):
    tf.write(example())
    tf.apply()
    before, inv_before = resources(tf)[RESEARCH], sandbox.inventory()
    research_version = describe_quota(sandbox, "research")["ComputeQuotaVersion"]
    # Someone edits production's quota in the console: its version moves, its state shows the edit (20 -> null).
    edit_quota_out_of_band(sandbox, "production", ComputeQuotaTarget={"TeamName": "production", "FairShareWeight": 20})

    tf.write(example(research=RESEARCH_CHANGED))
    plan = tf.plan(extra=["-out=update.tfplan"])
    text = flat(plan.stdout)
    assert plan.rc == 2
    assert f"{RESEARCH} will be updated in-place" in text, plan.stdout
    assert f"{PRODUCTION} will be updated in-place" in text and "fair_share_weight = 20 -> null" in text, plan.stdout
    assert "0 to add, 2 to change, 0 to destroy" in text, plan.stdout
    assert "must be replaced" not in text, plan.stdout
    # ...and edits it again after the plan: the update must send the version it reads, not the one it planned with.
    moved = edit_quota_out_of_band(sandbox, "production", ActivationState="Disabled")
    tf.apply("update.tfplan")

    research, production = describe_quota(sandbox, "research"), describe_quota(sandbox, "production")
    assert research["ComputeQuotaId"] == before["compute_quota_id"]  # updated, not replaced
    assert research["ComputeQuotaVersion"] > research_version
    config = research["ComputeQuotaConfig"]
    assert (config["ComputeQuotaResources"], config["ResourceSharingConfig"], config["PreemptTeamTasks"],
            research["ComputeQuotaTarget"]["FairShareWeight"]) == (
        [{"InstanceType": P5, "Count": 3}], {"Strategy": "LendAndBorrow", "BorrowLimit": 100}, "Never", 20)
    # Production's quota is what its configuration says again: both edits repaired, on top of the moved version.
    assert production["ComputeQuotaVersion"] > moved["ComputeQuotaVersion"]
    assert (production["ComputeQuotaTarget"].get("FairShareWeight", 0), production["ActivationState"],
            production["ComputeQuotaConfig"]["ComputeQuotaResources"],
            production["ComputeQuotaConfig"]["ResourceSharingConfig"]["Strategy"]) == (
        0, "Enabled", [{"InstanceType": P5, "Count": PRODUCTION_P5}, {"InstanceType": G5, "Count": 2}], "Lend")

    kube = Kube(sandbox, tmp_path, EKS)
    status, egress = kube.get(EGRESS)
    assert status == 200, egress
    assert (egress["spec"]["policyTypes"], egress["spec"]["egress"]) == (
        ["Egress"], [{"to": [{"ipBlock": {"cidr": "10.20.0.0/16"}}]}])
    status, binding = kube.get(VIEWER_BINDING)
    assert status == 200, binding
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                                    "name": "research-task-analysts"}]
    entry = sandbox.client("eks").describe_access_entry(clusterName=EKS, principalArn=viewers("research"))
    assert entry["accessEntry"]["kubernetesGroups"] == ["research-task-analysts"]

    # Nothing else came or went: the same role, association and grant; one new NetworkPolicy, the viewers' groups.
    after = resources(tf)[RESEARCH]
    assert {k: after[k] for k in ("workload_role_arn", "pod_identity_association_id", "kms_grants")} == {
        k: before[k] for k in ("workload_role_arn", "pod_identity_association_id", "kms_grants")}
    assert after["components"]["kubernetes/NetworkPolicy/hyperpod-tenant-allow-egress"].startswith(
        "hyperpod-ns-research@")
    keys_before, keys_after = inventory_keys(inv_before), inventory_keys(sandbox.inventory())
    entry = f"access_entry {EKS} {viewers('research')}"
    assert keys_after - keys_before == {
        f"kubernetes {EKS} NetworkPolicy/hyperpod-ns-research/hyperpod-tenant-allow-egress",
        f"{entry} research-task-analysts"}
    assert keys_before - keys_after == {f"{entry} research-task-viewers"}
    tf.assert_no_changes()


def test_out_of_band_changes_show_in_the_plan_and_apply_restores_them(tf, sandbox, restricted, tmp_path):
    tf.write(example())
    tf.apply()
    config = describe_quota(sandbox, "research")["ComputeQuotaConfig"]
    edit_quota_out_of_band(sandbox, "research", ComputeQuotaConfig={**config, "PreemptTeamTasks": "LowerPriority"})
    kube = Kube(sandbox, tmp_path, EKS)
    status, deny = kube.get(NETPOL)
    assert status == 200, deny
    deny["spec"]["policyTypes"] = ["Ingress"]  # egress no longer denied
    status, body = kube.put(NETPOL, deny)
    assert status == 200, body

    plan = tf.plan(extra=["-out=drift.tfplan"])
    text = flat(plan.stdout)
    assert plan.rc == 2
    assert f"{RESEARCH} will be updated in-place" in text and "0 to add, 1 to change, 0 to destroy" in text, plan.stdout
    assert 'preempt_team_tasks = "LowerPriority" -> "Never"' in text, plan.stdout
    # The drifted object is named by its component, whose content digest moves back to what the tenant writes.
    (change,) = [c["change"] for c in tf.show_json("drift.tfplan")["resource_changes"] if c["address"] == RESEARCH]
    key = "kubernetes/NetworkPolicy/hyperpod-tenant-default-deny"
    moved = {k for k in change["after"]["components"] if change["before"]["components"].get(k)
             != change["after"]["components"][k]}
    assert moved == {key}, change
    # ... and a warning says which object drifted and how.
    verdict = tf.plan_json()
    [drift] = [d for d in verdict.warnings if d.address == RESEARCH and d.rule is None]
    assert drift.summary == "NetworkPolicy hyperpod-ns-research/hyperpod-tenant-default-deny changed outside Terraform"
    assert drift.detail.startswith('spec is {"podSelector":{},"policyTypes":["Ingress"]} live, '
                                   '{"podSelector":{},"policyTypes":["Ingress","Egress"]} as written'), drift
    tf.apply("drift.tfplan")

    assert describe_quota(sandbox, "research")["ComputeQuotaConfig"]["PreemptTeamTasks"] == "Never"
    status, deny = Kube(sandbox, tmp_path, EKS).get(NETPOL)  # a fresh token: the first may have expired
    assert status == 200, deny
    assert deny["spec"]["policyTypes"] == ["Ingress", "Egress"]
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="resets the sandbox under the state")
def test_when_everything_disappeared_the_plan_creates_it_again(tf, sandbox, restricted):
    tf.write(example())
    tf.apply()
    sandbox.reset()  # every object the tenants and the policy made is gone, and the restrictions with them
    for team in ("production", "research"):
        restrict(sandbox, team)
    before = sandbox.inventory()

    plan = tf.plan()
    text = flat(plan.stdout)
    assert plan.rc == 2
    for address in (RESEARCH, PRODUCTION, "hyperpod_scheduling_policy.capacity"):
        assert f"{address} will be created" in text, plan.stdout
    assert "Plan: 3 to add, 0 to change, 0 to destroy" in text, plan.stdout  # the contracts: unchanged
    tf.apply()
    tf.assert_no_changes()
    assert inventory_keys(sandbox.inventory()) - inventory_keys(before) == composed_keys(resources(tf))


# ---- d. import -------------------------------------------------------------------------------------------------------
IMPORT_BLOCK = f"""
import {{
  to = {RESEARCH}
  id = "{CLUSTER}/research"
}}
"""


@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
@pytest.mark.parametrize("how", ["terraform import", "import block"])
def test_import_by_cluster_and_team(tf, sandbox, restricted, how):
    tf.write(example())
    tf.apply()
    before = sandbox.inventory()
    tf.run("state", "rm", RESEARCH)
    if how == "terraform import":
        tf.import_(RESEARCH, f"{CLUSTER}/research")
        assert resources(tf)[RESEARCH]["id"] == f"{CLUSTER}/research"
    else:
        tf.write(example() + IMPORT_BLOCK)
    plan = tf.plan()
    text = flat(plan.stdout)
    # Only what AWS cannot hold (the contract and policy facts passed in) may be filled in, in place.
    assert plan.rc == 0 or ("0 to add" in text and "0 to destroy" in text), plan.stdout
    if how == "import block":
        assert "1 to import" in text, plan.stdout
    tf.apply()
    tf.assert_no_changes()
    assert sandbox.inventory() == before  # found, not recreated


# ---- e. one refusal per rule -----------------------------------------------------------------------------------------
def test_org_2_target_role_in_an_unapproved_account(tf, restricted):
    tf.write(example(research={"workload": workload(target=FX.role_arn(FX.consumer_role_name, "999999999999"))}))
    tf.plan_refuses("ORG-2", "workload.target_role_arn", "999999999999")


def test_clu_2_is_the_bindings_rule_not_the_tenants(tf, sandbox):
    """A tenant does not onboard a project into Studio: CLU-2 is judged on the binding (test_project_binding.py), so a
    project without a restriction is never reported on its tenants. The tenants reference the cluster allocation, as
    the docs teach (without it each would warn that WKL-3 is not evaluated at plan): no diagnostic at all."""
    restrict(sandbox, "production")  # none for research's project role
    tf.write(example(allocation=True))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()


def test_clu_6_target_role_is_the_project_role(tf, restricted):
    tf.write(example(research={"workload": workload(target=project_role("research"))}))
    tf.plan_refuses("CLU-6", "workload.target_role_arn", FX.project("research").role_name)


def test_wkl_1_team_outside_the_contracts_namespaces(tf, restricted):
    tf.write(example(research={"team": "finance"}))
    tf.plan_refuses("WKL-1", "team", "hyperpod-ns-finance")


def test_wkl_2_sharing_on_a_slurm_cluster(tf):
    tf.write(slurm_example(sharing='sharing {\n    strategy = "Lend"\n  }'))
    tf.plan_refuses("WKL-2", "sharing.strategy")


def test_wkl_3_two_new_tenants_overcommit_the_p5_group_on_the_first_plan(tf, restricted):
    tf.write(example(research={"quota": ((P5, 4),)}))  # PRODUCTION_P5 + 4 > the group; research borrows
    tf.plan_refuses("WKL-3", "quota[0].count", P5)
    tf.plan_json().assert_rule("WKL-3", RESEARCH, "count")


def test_wkl_4_priority_class_missing_from_the_cluster_policy(tf, restricted):
    tf.write(example(research={"settings": 'preempt_team_tasks = "Never"\n  priority_class     = "urgent"'}))
    tf.plan_refuses("WKL-4", "priority_class", "urgent")


def test_wkl_5_borrow_limit_without_lend_and_borrow(tf, restricted):
    tf.write(example(research={"sharing": 'sharing {\n    strategy     = "Lend"\n    borrow_limit = 50\n  }'}))
    tf.plan_refuses("WKL-5", "sharing.borrow_limit")


def test_wkl_5_a_borrower_with_no_lender_yet_is_not_refused(tf, restricted):
    """production does not lend and research borrows: SageMaker accepts a borrower with nothing to borrow yet (it
    borrows once a team lends), so WKL-5 is evaluated and passed on research, with no diagnostic of its own."""
    tf.write(example(production={"sharing": 'sharing {\n    strategy = "DontLend"\n  }'},
                     research={"sharing": 'sharing {\n    strategy = "LendAndBorrow"\n  }'}))
    verdict = tf.plan_json(["-out=wkl5.tfplan"])
    assert verdict.rc == 2 and not [d for d in verdict.diagnostics if d.rule == "WKL-5"], verdict.describe()
    planned = {c["address"]: c["change"]["after"] for c in tf.show_json("wkl5.tfplan")["resource_changes"]}
    assert "WKL-5" in planned[RESEARCH]["passed_checks"].split(), planned[RESEARCH]["passed_checks"]


def test_wkl_5_a_lender_in_borrows_from_satisfies_the_borrower_at_any_parallelism(tf, restricted):
    """research references production (`borrows_from`): Terraform plans the lender first, so the verdict is the same
    at any -parallelism, every time, with no wait. (Both reference the allocation, so WKL-3 too is judged at plan.)"""
    tf.write(example(allocation=True))  # production lends, research borrows; neither exists yet
    for parallelism in (1, 10):
        for run in range(1, 4):
            verdict = tf.plan_json([f"-parallelism={parallelism}"])
            assert verdict.rc == 2 and not verdict.diagnostics, f"plan {run}: {verdict.describe()}"


def test_wkl_5_without_borrows_from_the_borrower_plans_clean_whatever_the_order(tf, restricted):
    """Without the reference, production planned in the same run is not seen as research's lender, and it need not
    be: a borrower with no lender yet is accepted (issue 40). The verdict is the same at every parallelism (no hidden
    memory between resources), and research applies alone (`-target`)."""
    research_sharing = 'sharing {\n    strategy     = "LendAndBorrow"\n    borrow_limit = 50\n  }'
    tf.write(example(research={"sharing": research_sharing}, allocation=True))
    for parallelism in (1, 2, 10):
        verdict = tf.plan_json([f"-parallelism={parallelism}"])
        assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    tf.apply(f"-target={RESEARCH}")
    assert RESEARCH in resources(tf)


def test_wkl_5_a_borrowed_from_tenant_must_lend(tf, restricted):
    """production does not lend: WKL-5 refuses research (and nothing else) once, at `borrows_from` (the tenant it
    borrows from does not lend); apply refuses research with it, after production (which it waits for) was created."""
    tf.write(example(production={"sharing": 'sharing {\n    strategy = "DontLend"\n  }'}, allocation=True))
    verdict = tf.plan_json()
    assert verdict.rc == 2, verdict.describe()
    assert [(d.rule, d.kind, d.address) for d in verdict.diagnostics] == [("WKL-5", "refused", RESEARCH)], \
        verdict.describe()
    (line,) = [verdict.line(d).strip() for d in verdict.diagnostics]
    assert line.startswith("borrows_from"), line
    applied = tf.apply_json()
    assert applied.rc == 1 and [(d.rule, d.address) for d in applied.errors] == [("WKL-5", RESEARCH)], \
        applied.describe()
    assert all(REFUSED_AT_APPLY in flat(d.detail) for d in applied.errors), applied.describe()
    assert applied.line(applied.errors[0]).strip().startswith("borrows_from")
    assert RESEARCH not in resources(tf) and PRODUCTION in resources(tf)


def test_a_rule_waiting_for_an_apply_time_value_warns_and_is_judged_before_any_write(tf, sandbox, restricted):
    """ORG-2 needs the target role's account. Taken from a resource created in the same apply it is unknown at plan:
    the plan warns that ORG-2 is not checked; the apply judges it with the known value before the tenant writes
    anything (the sandbox inventory gains no tenant object); under strict those warnings are refusals (still no
    error: no rule fails a plan). The tenants reference the allocation, so WKL-3 is judged at plan and every warning
    is about a value known only at apply."""
    # terraform_data's id is known only once it is created: the ARN built from it is unknown at plan.
    made_later = '\nresource "terraform_data" "consumer_role" {\n  input = "consumer"\n}\n'
    unapproved = FX.role_arn(FX.consumer_role_name, "999999999999")
    research = {"workload": workload(extra=f'target_role_arn = replace("{unapproved}'
                                           '#${terraform_data.consumer_role.id}", "/#.*/", "")')}
    tf.write(example(research=research, allocation=True) + made_later)
    verdict = tf.plan_json()
    assert verdict.rc == 2, verdict.describe()
    deferred = [d for d in verdict.diagnostics if d.severity == "warning" and d.address == RESEARCH]
    assert deferred and all("not checked at plan" in d.summary for d in deferred), verdict.describe()
    assert {"ORG-2"} <= {rule for d in deferred for rule in d.summary[1:d.summary.index("]")].split(", ")}
    strict_config = example(research=research, allocation=True).replace(
        PROVIDER_REGION, PROVIDER_REGION + "\n  strict = true", 1)
    tf.write(strict_config + made_later)
    strict = tf.plan_json()
    assert strict.rc == 2 and not strict.errors, strict.describe()
    refused = [d for d in strict.diagnostics if d.address == RESEARCH and "not checked at plan" in d.summary]
    assert refused and all(d.kind == "refused" for d in refused), strict.describe()
    assert {"ORG-2"} <= {d.rule for d in refused}, strict.describe()
    tf.write(example(research=research, allocation=True) + made_later)
    before = sandbox.inventory()
    result = tf.apply(check=False)
    assert result.rc == 1 and "[ORG-2]" in flat(result.stderr), result.stdout + result.stderr
    after = sandbox.inventory()
    keys = inventory_keys(after) - inventory_keys(before)
    assert not [k for k in keys if "research" in k], keys  # production may exist; nothing of research does


@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_an_apply_time_check_sees_what_an_earlier_resource_of_the_same_apply_wrote(tf, sandbox, restricted):
    """research references neither production nor an allocation (the 0.3 shape: WKL-3 is not evaluated at plan, a
    warning on each tenant), its target role is known only at apply, and it waits for production (depends_on). In
    the apply, production's own checks read the cluster first; then production creates its quota. research's checks
    must see that quota, not the cluster as read before it: PRODUCTION_P5 + 4 training instances exceed the group,
    so WKL-3 fails on research, counting production's quota, before research writes anything."""
    made_later = '\nresource "terraform_data" "consumer_role" {\n  input = "consumer"\n}\n'
    target = f'target_role_arn = replace("{CONSUMER_ROLE}#${{terraform_data.consumer_role.id}}", "/#.*/", "")'
    research = {"quota": ((P5, 4),), "sharing": 'sharing {\n    strategy = "DontLend"\n  }',
                "workload": workload(extra=target), "extra": "depends_on = [hyperpod_tenant.production]"}
    tf.write(example(research=research) + made_later)
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    wkl_3 = [d for d in verdict.diagnostics if d.rule == "WKL-3"]
    assert sorted(d.address for d in wkl_3) == [PRODUCTION, RESEARCH], verdict.describe()
    assert all(d.summary.endswith("(not evaluated at plan)") for d in wkl_3), verdict.describe()
    before = sandbox.inventory()
    applied = tf.apply_json()
    assert applied.rc == 1, applied.describe()
    # The apply's output repeats the plan's warnings; its one error is WKL-3 on research, at its count.
    (error,) = applied.errors
    assert (error.rule, error.address) == ("WKL-3", RESEARCH), applied.describe()
    assert applied.line(error).strip().startswith("count"), applied.describe()
    assert f"(production {PRODUCTION_P5} instances, research 4 instances)" in error.detail, error.detail
    keys = inventory_keys(sandbox.inventory()) - inventory_keys(before)
    assert [k for k in keys if "production" in k], keys  # production was applied first
    assert not [k for k in keys if "research" in k], keys


def test_wkl_6_weight_while_fair_share_is_off_is_a_warning(tf, restricted):
    settings = TENANTS["research"]["settings"] + "\n  fair_share_weight  = 10"
    tf.write(example(research={"settings": settings}, fair_share=False))
    plan = tf.plan()
    assert plan.rc == 2
    text = flat(plan.stdout + plan.stderr)
    assert "[WKL-6]" in text and "fair_share_weight" in text, text


def test_wkl_7_viewer_verbs_that_act(tf, restricted):
    tf.write(example(research={"extra": 'viewer_verbs = ["get", "list", "create"]'}))
    tf.plan_refuses("WKL-7", "viewer_verbs", "create")


NO_DEFAULT_DENY = 'network_policy {\n    default_deny = false\n  }'


def test_wkl_8_no_default_deny_unless_the_contract_has_an_exception(tf, restricted):
    tf.write(example(research={"network": NO_DEFAULT_DENY}))
    tf.plan_refuses("WKL-8", "network_policy.default_deny")
    tf.write(example(research={"network": NO_DEFAULT_DENY},
                     research_contract={"extra": exception("WKL-8", expires=days_ahead(30))}))
    plan = tf.plan(check=False)
    assert plan.rc == 2, plan.stderr


def test_wkl_9_session_policy_with_session_tags(tf, restricted):
    policy = ('session_policy = jsonencode({ Version = "2012-10-17", Statement = [{ Effect = "Allow", '
              f'Action = "s3:GetObject", Resource = "arn:aws:s3:::{FX.data_bucket}/*" }}] }})')
    tf.write(example(research={"workload": workload(target=CONSUMER_ROLE, extra=policy)}))
    tf.plan_refuses("WKL-9", "workload.disable_session_tags")


def test_wkl_10_no_viewer_or_operator_groups(tf, restricted):
    tf.write(example(research={"access": ""}))
    tf.plan_refuses("WKL-10", "operator_groups")


def test_wkl_11_data_granted_to_the_project_role(tf, restricted):
    data = f'data {{\n    kms_keys         = ["{KEY}"]\n    grantee_role_arn = "{project_role("research")}"\n  }}'
    tf.write(example(research={"data": data}))
    tf.plan_refuses("WKL-11", "data.grantee_role_arn", FX.project("research").role_name)


def test_exc_1_expired_exception(tf, restricted):
    tf.write(example(research={"network": NO_DEFAULT_DENY},
                     research_contract={"extra": exception("WKL-8", expires=days_ago(1))}))
    tf.plan_refuses("EXC-1", "exception[0].expires")


def test_lif_3_revoked_contract(tf, restricted):
    tf.write(example(research_contract={"extra": '  lifecycle_state = "revoked"'}))
    tf.plan_refuses("LIF-3", "contract", "revoked")


# ---- f. Slurm ------------------------------------------------------------------------------------------------------
def test_slurm_tenant_renders_its_accounting_artefacts_and_writes_nothing(tf, sandbox):
    before = None if sandbox.real else sandbox.inventory()
    # With the Slurm cluster's allocation (research guaranteed nothing), as on EKS: without it WKL-3 is not
    # evaluated at plan. The allocation writes only its claim on the cluster (one allocation per cluster).
    tf.write(slurm_example(allocation=True))
    # Judged by Slurm's controls (users, QoS, fair share): no Kubernetes groups asked for, no diagnostic at all.
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    tf.apply()
    tf.assert_no_changes()
    artefacts = resources(tf)[RESEARCH]["slurm_artefacts"]
    assert any("add account research" in line for line in artefacts["sacctmgr_commands"]), artefacts
    assert "PrivateData=" in artefacts["slurm_conf"], artefacts
    if before is not None:
        after = sandbox.inventory()
        claims = {name for parameters in after["ssm_parameters"].values() for name in parameters
                  if name.startswith("/hyperpod-governance/cluster-allocations/")}
        assert claims == {f"/hyperpod-governance/cluster-allocations/{SLURM_CLUSTER}"}, after["ssm_parameters"]
        for parameters in after["ssm_parameters"].values():
            for name in claims & set(parameters):
                del parameters[name]
        after["ssm_parameters"] = {account: p for account, p in after["ssm_parameters"].items() if p}
        assert after == before  # no other AWS write


# ---- g. ownership --------------------------------------------------------------------------------------------------
def iam_role_snapshot(sandbox, name: str) -> dict:
    """Everything of an IAM role a takeover would change: trust, tags, inline and attached policies."""
    iam = sandbox.client("iam")
    role = iam.get_role(RoleName=name)["Role"]
    return {"arn": role["Arn"], "trust": role["AssumeRolePolicyDocument"], "tags": role.get("Tags", []),
            "description": role.get("Description"), "inline": iam.list_role_policies(RoleName=name)["PolicyNames"],
            "attached": iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]}


@pytest.fixture
def foreign_role(tf, sandbox):
    """An IAM role of research's default workload role name that the provider did not create (no tenant tags)."""
    name = WORKLOAD_ROLE
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                     "Principal": {"Service": "ec2.amazonaws.com"}}]}
    iam = sandbox.client("iam")
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust), Description="someone else's",
                    Tags=[{"Key": "owner", "Value": "platform"}])
    yield name
    for policy in iam.list_role_policies(RoleName=name)["PolicyNames"]:  # none, unless the test failed
        iam.delete_role_policy(RoleName=name, PolicyName=policy)
    for policy in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]:
        iam.detach_role_policy(RoleName=name, PolicyArn=policy["PolicyArn"])
    iam.delete_role(RoleName=name)


def live_quota_ids(sandbox, team: str) -> set:
    """IDs of the team's compute quotas (`<team>-quota`) on the cluster that are not deleted."""
    sm = sandbox.client("sagemaker")
    return {q["ComputeQuotaId"] for q in sm.list_compute_quotas()["ComputeQuotaSummaries"]
            if q["Name"] == f"{team}-quota" and q["Status"] != "Deleted"}


def instance_status(tf, address: str) -> str | None:
    """The state's status of a single-instance resource (`tainted`, or None)."""
    kind, name = address.split(".")
    (resource,) = [r for r in tf.state_json()["resources"] if (r["type"], r["name"]) == (kind, name)]
    (instance,) = resource["instances"]
    return instance.get("status")


def test_an_existing_role_of_the_workload_role_name_is_never_taken_over(tf, sandbox, restricted, foreign_role):
    name = foreign_role
    theirs = iam_role_snapshot(sandbox, name)

    tf.write(example())
    failed = tf.apply(check=False)
    assert failed.rc == 1, failed.stdout
    text = flat(failed.stderr)
    assert f"with {RESEARCH}," in text and "workload_role_name" in text and "not this tenant's" in text, failed.stderr
    assert f'"{name}"' in text, failed.stderr
    # Refused before the first write (the role is checked before the quota claims capacity): nothing of research
    # was composed, so nothing is recorded and no quota exists.
    assert RESEARCH not in resources(tf)
    assert live_quota_ids(sandbox, "research") == set()
    assert iam_role_snapshot(sandbox, name) == theirs
    tf.destroy()  # production, the policy and the contracts
    assert iam_role_snapshot(sandbox, name) == theirs

    tf.write(example(research={"extra": 'workload_role_name = "research-workload"'}))
    tf.apply()
    tf.assert_no_changes()
    research = resources(tf)[RESEARCH]
    assert (research["workload_role_name"], research["workload_role_arn"]) == (
        "research-workload", f"{ROLE}/research-workload")
    association = sandbox.client("eks").describe_pod_identity_association(
        clusterName=EKS, associationId=research["pod_identity_association_id"])["association"]
    assert association["roleArn"] == f"{ROLE}/research-workload"
    assert iam_role_snapshot(sandbox, name) == theirs
    tf.destroy()
    assert iam_role_snapshot(sandbox, name) == theirs
    with pytest.raises(ClientError, match="NoSuchEntity"):
        sandbox.client("iam").get_role(RoleName="research-workload")


@pytest.mark.sandbox_only(reason="makes the tenant's workload role a cluster admin out of band")
def test_a_rule_broken_since_apply_warns_and_never_blocks_destroy(tf, sandbox, restricted):
    """The post's example applied; then someone makes research's workload role a cluster admin out of band, so the
    tenant breaks CLU-6 with its configuration unchanged. The plan writes nothing of it: its warning says apply refuses
    the tenant's next change (not this plan's), and `terraform destroy` (whose refresh is a full plan) goes through; a
    change to the tenant is refused (a refusal at plan, apply's error before anything of it is written)."""
    tf.write(example())
    tf.apply()
    workload_role = resources(tf)[RESEARCH]["workload_role_arn"]
    eks = sandbox.client("eks")
    eks.create_access_entry(clusterName=EKS, principalArn=workload_role)
    eks.associate_access_policy(clusterName=EKS, principalArn=workload_role,
                                policyArn="arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
                                accessScope={"type": "cluster"})
    verdict = tf.plan_json()
    assert verdict.rc == 0, verdict.describe()  # no changes
    clu_6 = [d for d in verdict.diagnostics if d.rule == "CLU-6"]
    assert [d.address for d in clu_6] == [RESEARCH] and clu_6[0].kind == "refused-later", verdict.describe()
    assert not verdict.errors, verdict.describe()
    # The next change to the tenant is judged in full: refused.
    tf.write(example(research={"settings": TENANTS["research"]["settings"] + "\n  fair_share_weight  = 5"}))
    changed = tf.plan_json()
    assert changed.rc == 2 and not changed.errors, changed.describe()
    assert [(d.rule, d.address) for d in changed.refusals] == [("CLU-6", RESEARCH)], changed.describe()
    before = resources(tf)[RESEARCH]
    applied = tf.apply_json()
    assert applied.rc == 1 and [(d.rule, d.address) for d in applied.errors] == [("CLU-6", RESEARCH)], \
        applied.describe()
    assert REFUSED_AT_APPLY in flat(applied.errors[0].detail), applied.describe()
    assert resources(tf)[RESEARCH] == before, "the refused change wrote nothing"
    assert describe_quota(sandbox, "research")["ComputeQuotaTarget"].get("FairShareWeight", 0) == 0
    tf.write(example())
    tf.destroy()
    assert tf.run("state", "list").stdout.strip() == "", "everything was destroyed"
    eks.delete_access_entry(clusterName=EKS, principalArn=workload_role)


# ---- h. a create interrupted after AWS accepted it (issue 14) -----------------------------------------------------
def _session_processes(sid: int) -> dict:
    """pid -> command name (`comm`, 15 characters at most) of every live process of session `sid`."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        if int(rest[3]) == sid:  # after the command: state, ppid, pgrp, session
            found[int(stat.parent.name)] = comm
    return found


def apply_killing_the_provider_after(tf, sandbox, operation: str, service: str, appears) -> None:
    """`terraform apply` with the provider process killed (SIGKILL) while `operation` is in flight: the sandbox holds
    the call for a moment, handles it after the kill (AWS accepted it, the provider never recorded it), Terraform
    reports the plugin's crash and keeps the state of everything else. `appears(inventory)` says when the object the
    call made exists."""
    key = operation if service == "kubernetes" else f"{service}.{operation}"
    seen = sandbox.calls().get(key, 0)
    sandbox.fault(operation, "latency", ms=3000, count=1, service=service)
    log = tf.dir / f"killed-{operation}.log"
    with open(log, "w") as out:  # a file, not a pipe: nobody reads the output until the apply ends
        proc = subprocess.Popen([tf.binary, "apply", "-auto-approve", "-input=false", "-no-color"], cwd=tf.dir,
                                env=tf.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while sandbox.calls().get(key, 0) <= seen:
            assert proc.poll() is None and time.monotonic() < deadline, \
                f"{operation} was never called: {log.read_text()}"
            time.sleep(0.05)
        providers = [pid for pid, comm in _session_processes(proc.pid).items() if comm.startswith("terraform-prov")]
        assert providers, _session_processes(proc.pid)
        for pid in providers:
            os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, log.read_text()
    sandbox.clear_faults()
    deadline = time.monotonic() + 30
    while not appears(sandbox.inventory()):
        assert time.monotonic() < deadline, f"{operation} made nothing"
        time.sleep(0.25)


KILLED_CREATES = {  # operation -> (service, whether the inventory shows what production's call made)
    "CreateRole": ("iam", lambda inv: f"hyperpod-{CLUSTER}-production" in inv["iam_roles"][ACCOUNT]),
    "PutRolePolicy": ("iam", lambda inv: True),
    "CreateComputeQuota": ("sagemaker", lambda inv: any(q["name"] == "production-quota"
                                                        for q in inv["sagemaker"]["compute_quotas"])),
    "kubernetes.create.serviceaccounts": ("kubernetes", lambda inv: any(
        name.startswith("ServiceAccount/hyperpod-ns-production/") for name in inv["kubernetes"][EKS])),
    "CreatePodIdentityAssociation": ("eks", lambda inv: "hyperpod-ns-production/production-jobs"
                                     in inv["eks"][EKS]["pod_identity_associations"]),
    "CreateAccessEntry": ("eks", lambda inv: viewers("production") in inv["eks"][EKS]["access_entries"]
                          or operators("production") in inv["eks"][EKS]["access_entries"]),
    "AssociateAccessPolicy": ("eks", lambda inv: True),
    "CreateGrant": ("kms", lambda inv: any(g for grants in inv["kms_grants"].values() for g in grants)),
}


@pytest.mark.sandbox_only(reason="kills the provider mid-call and compares the sandbox inventory")
@pytest.mark.parametrize("operation", list(KILLED_CREATES))
def test_a_create_killed_after_aws_accepted_it_is_adopted_by_the_next_apply(tf, sandbox, restricted, operation):
    """The provider is killed while a tenant's create call is in flight (production's, the first tenant applied;
    research's for CreateGrant, the only tenant with data keys): AWS made the object, no state names it. The next
    apply recognises it as the tenant's own (tags, or a deterministic grant name) and adopts it: no conflict, the
    second plan is empty, and destroy leaves the account as it found it."""
    before = sandbox.inventory()
    tf.write(example())
    service, appears = KILLED_CREATES[operation]
    apply_killing_the_provider_after(tf, sandbox, operation, service, appears)
    tf.apply()
    tf.assert_no_changes()
    tf.destroy()
    assert_inventory_settles(sandbox, before)


def foreign_quota(sandbox, team: str, tags: list) -> str:
    """A compute quota of the tenant's name that this configuration did not create; returns its id."""
    sm = sandbox.client("sagemaker")
    cluster_arn = sm.describe_cluster(ClusterName=CLUSTER)["ClusterArn"]
    created = sm.create_compute_quota(Name=f"{team}-quota", ClusterArn=cluster_arn,
                                      ComputeQuotaConfig={"ComputeQuotaResources": []},
                                      ComputeQuotaTarget={"TeamName": team}, Tags=tags)
    describe_quota(sandbox, team)
    return created["ComputeQuotaId"]


@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_a_compute_quota_of_the_tenants_name_not_provably_its_own_is_refused_with_its_import_id(tf, sandbox,
                                                                                              restricted):
    """A quota named `research-quota` whose tags do not name this tenant (someone else's, or another cluster's
    tenant): the plan warns at `team` that apply refuses research, apply fails there, the diagnostic gives the import
    ID, and nothing of research is written."""
    quota_id = foreign_quota(sandbox, "research", [{"Key": "hyperpod:tenant", "Value": "research"},
                                                   {"Key": "hyperpod:cluster", "Value": "other-cluster"}])
    before = sandbox.inventory()
    tf.write(example())
    planned = tf.plan_json()
    assert planned.rc == 2 and not planned.errors, planned.describe()
    (warned,) = [d for d in planned.refusals if d.address == RESEARCH]
    assert planned.line(warned).strip().startswith("team") and quota_id in warned.detail, planned.describe()
    verdict = tf.apply_json()
    assert verdict.rc == 1, verdict.describe()
    (refusal,) = [d for d in verdict.errors if d.address == RESEARCH]
    assert verdict.line(refusal).strip().startswith("team"), verdict.describe()
    assert quota_id in refusal.detail and f"{CLUSTER}/research" in refusal.detail, refusal.detail
    assert REFUSED_AT_APPLY in flat(refusal.detail), refusal.detail
    keys = inventory_keys(sandbox.inventory()) - inventory_keys(before)
    assert not [k for k in keys if "research" in k], keys
    assert describe_quota(sandbox, "research")["ComputeQuotaId"] == quota_id


# ---- i. bad input is refused at validate, at its path (issue 14) --------------------------------------------------
def assert_invalid_at(verdict, *lines: str) -> None:
    """The configuration is invalid: for each of `lines` a plain (rule-less) error points at a source line that starts
    with it (an attribute, `"aws:x" =` a map element, ...), and no error points anywhere else."""
    assert verdict.rc == 1, verdict.describe()
    where = [(verdict.line(d) or "").strip() for d in verdict.errors]
    for start in lines:
        assert any(line.startswith(start) for line in where), f"expected an error at {start!r}\n{verdict.describe()}"
    assert all(d.rule is None and any(line.startswith(s) for s in lines)
               for d, line in zip(verdict.errors, where, strict=True)), verdict.describe()


TAG_CASES = {  # name -> (tags HCL, the lines the errors point at)
    "aws prefix": ('{\n    "aws:x" = "v"\n    "AWS:Owner" = "v"\n    ok = "v"\n  }', ('"aws:x"', '"AWS:Owner"')),
    "long key": ('{\n    "' + "k" * 129 + '" = "v"\n  }', ('"' + "k" * 129,)),
    "long value": ('{\n    big = "' + "v" * 257 + '"\n  }', ("big",)),
    "characters": ('{\n    "a#b" = "v"\n    good = "x!"\n  }', ('"a#b"', "good")),
    "control": ('{\n    ctl = "a\\u0007b"\n  }', ("ctl",)),
    "empty key": ('{\n    "" = "v"\n  }', ('""',)),
    "too many": ("{ for i in range(51) : \"k${i}\" => \"v\" }", ("tags",)),
}


@pytest.mark.parametrize("case", list(TAG_CASES))
def test_tags_aws_refuses_fail_validate_at_the_element(tf, case):
    tags, lines = TAG_CASES[case]
    tf.write(example(research={"extra": f"tags = {tags}"}))
    assert_invalid_at(tf.validate_json(), *lines)


def test_scheduling_policy_tags_are_checked_as_aws_checks_them(tf):
    policy = scheduling_policy().replace("fair_share   = true",
                                         'fair_share   = true\n  tags = {\n    "aws:x" = "v"\n  }')
    tf.write(provider() + policy)
    assert_invalid_at(tf.validate_json(), '"aws:x"')


@pytest.mark.parametrize("case,extra,lines", [
    ("team too long", {"team": "r" * 41}, ("team",)),
    ("role name characters", {"extra": 'workload_role_name = "research workload!"'}, ("workload_role_name",)),
    ("empty group", {"access": access("research").replace('["research-task-viewers"]', '[""]')}, ("viewer_groups",)),
    ("system group", {"access": access("research", viewer_groups="system:masters")}, ("viewer_groups",)),
    ("null strategy", {"sharing": 'sharing {\n    strategy = null\n  }'}, ("strategy",)),
    ("null instance type", {"quota": (), "extra": "quota {\n    instance_type = null\n    count = 1\n  }"},
     ("instance_type",)),
    ("null service account", {"workload": 'workload {\n    service_account = null\n  }'}, ("service_account",)),
    ("null group", {"access": access("research").replace('["research-task-operators"]', '["a", null]')},
     ("operator_groups",)),
    ("session policy not json", {"workload": workload(extra='session_policy = "{not json"')}, ("session_policy",)),
    ("session policy not a policy", {"workload": workload(extra='session_policy = jsonencode({ a = 1 })')},
     ("session_policy",)),
    ("session policy too long", {"workload": workload(extra='session_policy = jsonencode({ Version = "2012-10-17", '
                                                          'Statement = [{ Effect = "Allow", Action = "s3:GetObject",'
                                                          ' Resource = [for i in range(100) : "arn:aws:s3:::'
                                                          f'{FX.data_bucket}/${{i}}/*"] }}] }})')},
     ("session_policy",)),
    ("bucket name", {"data": 'data {\n    buckets = ["Research_Data"]\n  }'}, ("buckets",)),
    ("huge vcpu", {"quota": (), "extra": f"quota {{\n    instance_type = \"{P5}\"\n    vcpu = 1e8\n  }}"},
     ("vcpu",)),
    ("count and accelerators", {"quota": (), "extra": f"quota {{\n    instance_type = \"{P5}\"\n    "
                                "count = 1\n    accelerators = 8\n  }"}, ("accelerators",)),
    ("instance type twice", {"quota": ((P5, 1), (P5, 1))}, ("instance_type",)),
    ("no verbs", {"extra": "viewer_verbs = []"}, ("viewer_verbs",)),
    ("principal twice", {"access": access("research").replace(f'["{viewers("research")}"]',
                                                            f'["{viewers("research")}", "{viewers("research")}"]')},
     ("viewer_principal_arns",)),
    ("principal characters", {"access": access("research").replace(f'{viewers("research")}"]',
                                                                 f'{viewers("research")}é"]')},
     ("viewer_principal_arns",)),
    ("target role characters", {"workload": workload(target=CONSUMER_ROLE + "\\t")}, ("target_role_arn",)),
    ("kms key characters", {"data": f'data {{\n    kms_keys = ["arn:aws:kms:{REGION}:{ACCOUNT}:key/ké"]\n  }}'},
     ("kms_keys",)),
    ("kms alias", {"data": f'data {{\n    kms_keys = ["arn:aws:kms:{REGION}:{ACCOUNT}:alias/research"]\n  }}'},
     ("kms_keys",)),
])
def test_input_aws_or_kubernetes_would_refuse_fails_validate_at_its_path(tf, case, extra, lines):
    tf.write(example(research=extra))
    assert_invalid_at(tf.validate_json(), *lines)


# ---- j. values known only at apply (issue 14) ---------------------------------------------------------------------
MADE_LATER = '\nresource "terraform_data" "later" {\n  input = "x"\n}\n'


def known_at_apply(text: str) -> str:
    """An HCL expression equal to `text` whose value is unknown until terraform_data.later is created."""
    return f'replace("{text}#${{terraform_data.later.id}}", "/#.*/", "")'


@pytest.mark.parametrize("case", ["target_role_arn", "workload_role_name", "tags", "kms_keys", "scheduling_policy"])
def test_a_tenant_whose_inputs_are_known_only_at_apply_applies_consistently(tf, sandbox, restricted, case):
    """Whatever depends on a value unknown at plan is planned unknown: the apply succeeds with no "inconsistent
    result" (a target policy appearing in `components`, a role name planned as the default), and the next plan is
    empty."""
    research = {
        "target_role_arn": {"workload": workload(extra=f"target_role_arn = {known_at_apply(CONSUMER_ROLE)}")},
        "workload_role_name": {"extra": f"workload_role_name = {known_at_apply('research-workload')}"},
        "tags": {"extra": f'tags = {{ owner = {known_at_apply("research-team")} }}'},
        "kms_keys": {"data": f"data {{\n    kms_keys = [{known_at_apply(KEY)}]\n  }}"},
        "scheduling_policy": {},
    }[case]
    config = example(research=research) + MADE_LATER
    if case == "scheduling_policy":
        config = config.replace("scheduling_policy = hyperpod_scheduling_policy.capacity.governance",
                                'scheduling_policy = terraform_data.later.id != "" ? '
                                "hyperpod_scheduling_policy.capacity.governance : null")
    tf.write(config)
    applied = tf.apply_json()
    assert applied.rc == 0 and not applied.errors, applied.describe()
    tf.assert_no_changes()


# ---- i. handoffs are write-only (issue 16) --------------------------------------------------------------------------
HANDOFFS = ("contract", "scheduling_policy", "borrows_from")


def tenant_changes(plan_json: dict) -> dict:
    """address -> change of every tenant in a plan's `terraform show -json`."""
    return {c["address"]: c["change"] for c in plan_json["resource_changes"] if c["type"] == "hyperpod_tenant"}


def test_handoffs_render_as_write_only_and_are_null_in_plan_and_state(tf, restricted):
    """The contract, policy and lenders a tenant takes are write-only: the plan renders each as `(write-only
    attribute)` (not the 30 lines of a contract's governance), planned and applied state hold null, and what the
    tenant composes from them (its facts for others, its tags) is there instead."""
    tf.write(example())
    plan = tf.plan(extra=["-out=create.tfplan"])
    text = flat(plan.stdout)
    # Terraform renders every write-only argument so, set or not (production has no borrows_from).
    for name in HANDOFFS:
        assert text.count(f"+ {name} = (write-only attribute)") == 2, plan.stdout
    planned = tenant_changes(tf.show_json("create.tfplan"))
    assert set(planned) == {PRODUCTION, RESEARCH}
    for address, change in planned.items():
        assert {name: change["after"][name] for name in HANDOFFS} == dict.fromkeys(HANDOFFS), address
        assert change["after"]["tags_all"]["hyperpod:contract"] == CONTRACTS[address.split(".")[1]]["name"]
    tf.apply("create.tfplan")

    state = resources(tf)
    for address in (PRODUCTION, RESEARCH):
        values = state[address]
        assert {name: values[name] for name in HANDOFFS} == dict.fromkeys(HANDOFFS), address
        team = address.split(".")[1]
        assert values["governance"]["cluster_name"] == CLUSTER and values["governance"]["project_id"] == (
            CONTRACTS[team]["project_id"]), values["governance"]
    raw = [r for r in tf.state_json()["resources"] if r["type"] == "hyperpod_tenant"]
    assert {i["schema_version"] for r in raw for i in r["instances"]} == {1}
    tf.assert_no_changes()  # a refresh derives nothing from the handoffs it no longer has


def test_a_contract_change_shows_as_the_change_of_what_the_tenant_composes(tf, restricted):
    """Renaming research's contract changes the `hyperpod:contract` tag research's objects carry: the plan updates
    the tenant in place and shows the tag, though neither plan nor state holds the contract."""
    tf.write(example())
    tf.apply()
    renamed = f"research-renamed-on-{CLUSTER}"
    tf.write(example(research_contract={"name": renamed}))
    plan = tf.plan(extra=["-out=rename.tfplan"])
    text = flat(plan.stdout)
    assert plan.rc == 2
    assert f"{RESEARCH} will be updated in-place" in text, plan.stdout
    assert f'~ "hyperpod:contract" = "research-on-{CLUSTER}" -> "{renamed}"' in text, plan.stdout
    assert f"{PRODUCTION} will be" not in text, plan.stdout
    change = tenant_changes(tf.show_json("rename.tfplan"))[RESEARCH]
    assert change["actions"] == ["update"]
    assert change["after"]["tags_all"]["hyperpod:contract"] == renamed
    assert change["before"]["contract"] is None and change["after"]["contract"] is None
    tf.apply("rename.tfplan")
    assert resources(tf)[RESEARCH]["tags_all"]["hyperpod:contract"] == renamed
    tf.assert_no_changes()


def test_a_contract_change_that_breaks_an_unchanged_tenant_is_refused(tf, restricted):
    """The contract stops listing research's namespace. Nothing research composes moves (same tags, same facts), so
    its planned value equals its state; yet its contract did change since it was applied (the provider keeps a
    digest of the write-only arguments in private state), so WKL-1 refuses this change (apply refuses this change)
    instead of only its next one, as for an unchanged resource
    (test_a_rule_broken_since_apply_warns_and_never_blocks_destroy); apply fails with it and research's state stays
    as it was."""
    tf.write(example())
    tf.apply()
    before = resources(tf)[RESEARCH]
    scope = CONTRACTS["research"]["scope"].replace("hyperpod-ns-research", "hyperpod-ns-research-other")
    tf.write(example(research_contract={"scope": scope}))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    verdict.assert_rule("WKL-1", RESEARCH, "team")
    applied = tf.apply_json()
    error = refused_at_apply(applied, "WKL-1", RESEARCH, "team")
    assert applied.errors == [error], applied.describe()
    assert resources(tf)[RESEARCH] == before


@pytest.mark.sandbox_only(reason="makes the workload role propagate slowly; counts the provider's calls")
@pytest.mark.parametrize("window", ["4 reads", "4 seconds"])
def test_a_workload_role_still_propagating_is_waited_for_not_failed(tf, sandbox, window):
    """IAM is eventually consistent ("Changes that I make are not always immediately visible", the IAM user guide):
    research's new workload role stays invisible to IAM's reads and to the services that check principals for
    `window` after CreateRole (sandbox fault `eventual_consistency`). The apply waits it out (PutRolePolicy, the Pod
    Identity association, the access entry are retried) and succeeds; the next plan is empty."""
    fields = {"count": 4} if window == "4 reads" else {"count": None, "seconds": 4}
    tf.write(example())
    sandbox.reset_calls()
    sandbox.fault(mode="eventual_consistency", role_name=f"hyperpod-{CLUSTER}-research", **fields)
    applied = tf.apply_json()
    assert applied.rc == 0 and not applied.errors, applied.describe()
    calls = sandbox.calls_by_caller().get("hyperpod_tenant", {})
    assert calls.get("iam.PutRolePolicy", 0) > 2, calls  # two tenants' policies, and research's retried
    tf.assert_no_changes()
