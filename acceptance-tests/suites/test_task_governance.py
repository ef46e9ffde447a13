"""Task governance as AWS has it, through a real Terraform against the sandbox: MIG slices in a tenant's quota
(`quota.accelerator_partition`), absolute borrow limits (`sharing.absolute_borrow_limit`), what an update keeps of a
quota edited out of band, StatusDetails of the scheduling policy and a compute quota that failed asynchronously, and
interactive spaces (WKL-12) on the tenant and on the task view restriction.

* MIG slices: the EKS cluster's `partitioned` instance group splits its GPUs by `nvidia.com/mig.config`
  (`all-<profile>`, here 2 instances x 8 A100 x 7 = 112 `mig-1g.5gb` slices, derived from the fixture and the sandbox's
  shapes). Two teams filling them exactly plan clean, one slice more is refused by WKL-3 on the later team at its
  `quota[i].accelerator_partition`; so is a partition of a type without MIG layout, or of a profile the layout does
  not expose, without any allocation; `count`/`accelerators` beside it is a plain plan error there, `vcpu` and
  `memory_gib` may go with it. Apply, state, drift and import round-trip the partition and the absolute limits.
* A refusal never fails the plan (`terraform destroy` refreshes with one): the plan warns that apply refuses the
  change, and apply then fails with the rule before the resource writes anything.
* Absolute borrow limits only with LendAndBorrow (WKL-5 at `sharing.absolute_borrow_limit`), at most 15.
* Nothing set out of band is lost (keep.rs): a partition added to an entry that sets neither count nor accelerators,
  absolute limits and a borrow limit left unset in the sharing block, a whole sharing config of a tenant without
  one: an unrelated update warns "Set outside this configuration: kept" at each, and keeps them; `[]` removes limits.
* StatusDetails: a scheduler-config update whose FairShare component failed fails the apply and is proposed again;
  a compute quota update that failed asynchronously is drift the next apply repairs.
* Spaces: a `spaces` block plans clean under a contract approving `interactive`, at a dedicated class of the policy,
  inside the quota, lending; its Roles gain `workspace.jupyter.org` Workspaces. Each refusal is WKL-12 at its path;
  the task view restriction drops the Studio space policy under a contract that does not approve `interactive`.

Diagnostics are read from `terraform plan -json` (PlanVerdict): rule, address, and the attribute path the range
points at. An attribute left unset has no range of its own (Terraform points at the enclosing block), so where the
path of a "kept" warning matters the configuration writes the attribute as `= null`, which is the same to the
provider (null is unset) and gives Terraform the attribute's line.
"""
import copy
import json
from typing import Any

import pytest

from hcl import ALLOCATION_REF, CLUSTER, EKS_CLUSTER as EKS, FX, contract_resource, provider
from sandbox.sagemaker import _INSTANCE_SHAPES, _MIG_PROFILES, _partition_slices
from test_tenant import CONTRACTS, describe_quota, edit_quota_out_of_band, refused_at_apply

pytestmark = pytest.mark.provider

GROUPS = FX.clusters.eks.instance_groups
P5, G5, P4D = (GROUPS[use].instance_type for use in ("training", "inference", "partitioned"))
LAYOUT = GROUPS.partitioned.partition_config  # the partitioned group's nvidia.com/mig.config
assert LAYOUT.startswith("all-"), "the suite needs a uniform MIG layout (all-<profile>) on the partitioned group"
PROFILE = "mig-" + LAYOUT.removeprefix("all-")  # the slices that layout exposes
# What the partitioned group holds: instances x GPUs x slices of PROFILE per GPU (112 on both fixtures).
SLICES = GROUPS.partitioned.count * _INSTANCE_SHAPES[P4D][0] * _partition_slices(P4D, PROFILE)
assert SLICES >= 16 and SLICES % 2 == 0, SLICES
# A profile the GPUs of the partitioned type offer but its layout does not expose.
UNEXPOSED = "mig-2g.10gb"
assert _partition_slices(P4D, UNEXPOSED) and UNEXPOSED != PROFILE
# A profile the training type's GPUs do offer: a partition of it fails only because no group of that type has a layout.
P5_PROFILE = "mig-" + next(iter(_MIG_PROFILES[P5][1]))
assert not any(GROUPS[use].get("partition_config") for use in ("training", "inference"))
assert GROUPS.inference.count >= 4, "the suite guarantees up to 3 inference instances beside a live lender's one"

RESEARCH, PRODUCTION = "hyperpod_tenant.research", "hyperpod_tenant.production"
POLICY = "hyperpod_scheduling_policy.capacity"
RESTRICTION = "hyperpod_task_view_restriction.research"
KEPT = "Set outside this configuration: kept"
INTERACTIVE_CLASS = "interactive"  # the spaces' priority class, the policy's highest weight
WORKSPACES = ("workspace.jupyter.org", "workspaces")
TRAINING, INFERENCE, SPACE = (f"AmazonSagemakerHyperpod{p}Policy" for p in ("Training", "Inference", "Space"))
TRAINING_ONLY = '["training"]'  # approved_workload_types of a contract that does not approve interactive work


# ---- HCL -----------------------------------------------------------------------------------------------------------
def hcl_value(value) -> str:
    """A Python value as HCL: None is `null`, a (profile, count) pair an accelerator_partition object, a string is
    taken as HCL already (a list or object written by the caller), numbers as written."""
    if value is None:
        return "null"
    if isinstance(value, tuple):
        profile, count = value
        return f'{{ type = "{profile}", count = {count} }}'
    return str(value)


def entry(instance_type: str, **amounts) -> str:
    """One quota-shaped entry on one line: `{ instance_type = "...", count = 1 }` (allocation, borrow limits)."""
    fields = "".join(f", {unit} = {hcl_value(amount)}" for unit, amount in amounts.items())
    return f'{{ instance_type = "{instance_type}"{fields} }}'


def attributes(indent: str, **values) -> str:
    """`name = value` lines, aligned, each on its own line (so a diagnostic at one points at that line)."""
    width = max(map(len, values))
    return "\n".join(f"{indent}{name:<{width}} = {hcl_value(value)}" for name, value in values.items())


def quota(instance_type: str, **amounts) -> str:
    """A tenant's `quota` block; an amount of None is written `= null` (unset, with a line of its own)."""
    return f"quota {{\n{attributes('    ', instance_type=json.dumps(instance_type), **amounts)}\n  }}"


def sharing(strategy: str, **settings) -> str:
    """A `sharing` block; settings as for `quota` (absolute_borrow_limit: an HCL list, see borrow_limits)."""
    return f"sharing {{\n{attributes('    ', strategy=json.dumps(strategy), **settings)}\n  }}"


def borrow_limits(*entries: str) -> str:
    """An `absolute_borrow_limit` list, one entry a line."""
    return "[" + "".join(f"\n      {e}," for e in entries) + "\n    ]"


def spaces(priority_class: str = INTERACTIVE_CLASS, instance_type: str = G5, count: int = 1) -> str:
    """A `spaces` block guaranteeing `count` instances of `instance_type`; the entry's attributes on lines of their
    own (so WKL-12 at spaces.guaranteed[0].count points at the count's line)."""
    return (f'spaces {{\n    priority_class = "{priority_class}"\n    guaranteed = [{{\n'
            f'      instance_type = "{instance_type}"\n      count         = {count}\n    }}]\n  }}')


def contract(team: str, workload_types: str | None = None) -> str:
    """The team's contract (test_tenant's CONTRACTS: the fixture's project and namespace hyperpod-ns-<team>);
    `workload_types`: its approved_workload_types (default: training and interactive)."""
    overrides = {**CONTRACTS[team], **({"workload_types": workload_types} if workload_types else {})}
    return contract_resource(team, **overrides)


def scheduling_policy() -> str:
    """The cluster's policy: the interactive class (highest weight) and one class per team."""
    classes = "".join(f'\n  priority_class {{\n    name   = "{name}"\n    weight = {weight}\n  }}\n'
                      for name, weight in ((INTERACTIVE_CLASS, 100), ("production", 50), ("research", 10)))
    return (f'\nresource "hyperpod_scheduling_policy" "capacity" {{\n  cluster_name = "{CLUSTER}"\n'
            f"  fair_share   = true\n{classes}}}\n")


def allocation(teams: dict) -> str:
    """`hyperpod_cluster_allocation.capacity`; teams: {team: [entry(...), ...]}, exactly the tenants' quotas."""
    rows = "\n".join(f"    {team} = {{ quota = [{', '.join(entries)}] }}" for team, entries in teams.items())
    return (f'\nresource "hyperpod_cluster_allocation" "capacity" {{\n  cluster_name = "{CLUSTER}"\n'
            f"  teams = {{\n{rows}\n  }}\n}}\n")


def tenant(team: str, *blocks: str, allocated: bool = True, extra: str = "") -> str:
    """`hyperpod_tenant.<team>`: its contract, the cluster's policy, the allocation (unless `allocated` is false),
    priority class `<team>`, `blocks` (quota, sharing, spaces), Kubernetes groups and a service account; `extra`:
    more arguments (fair_share_weight, borrows_from)."""
    lines = [f"contract          = hyperpod_connection_contract.{team}.governance",
             "scheduling_policy = hyperpod_scheduling_policy.capacity.governance",
             f"allocation        = {ALLOCATION_REF}" if allocated else "",
             f'team              = "{team}"\n  priority_class    = "{team}"', *blocks, extra,
             f'viewer_groups   = ["{team}-task-viewers"]\n  operator_groups = ["{team}-task-operators"]',
             f'workload {{\n    service_account = "{team}-jobs"\n  }}']
    body = "\n\n  ".join(line for line in lines if line)
    return f'\nresource "hyperpod_tenant" "{team}" {{\n  {body}\n}}\n'


def configuration(*parts: str, teams=("research",), workload_types: str | None = None) -> str:
    """Provider, the contracts of `teams` (research's approving `workload_types`), the policy, then `parts`."""
    contracts = "".join(contract(team, workload_types if team == "research" else None) for team in teams)
    return provider() + contracts + scheduling_policy() + "".join(parts)


# ---- values as Terraform and SageMaker hold them -------------------------------------------------------------------
def share(instance_type: str, **amounts) -> dict:
    """A quota entry (or borrow limit) as the state and the plan hold it: every unit, null unless given."""
    value: dict[str, Any] = {"instance_type": instance_type, "count": None, "accelerators": None, "vcpu": None,
                             "memory_gib": None, "accelerator_partition": None}
    for unit, amount in amounts.items():
        value[unit] = {"type": amount[0], "count": amount[1]} if unit == "accelerator_partition" else amount
    return value


def partition(profile: str, count: int) -> dict:
    """An AcceleratorPartition as SageMaker returns it."""
    return {"Type": profile, "Count": count}


def plan(tf, name: str = "governance.tfplan"):
    """`terraform plan -json -out`: the verdict and address -> change ({} when the plan failed)."""
    verdict = tf.plan_json([f"-out={name}"])
    if verdict.rc == 1:
        return verdict, {}
    return verdict, {c["address"]: c["change"] for c in tf.show_json(name)["resource_changes"]}


def resources(tf) -> dict:
    return {r["address"]: r["values"] for r in tf.show_json()["values"]["root_module"]["resources"]}


def kept_at(verdict) -> list:
    """Each "kept" warning as (address, the source line its range starts on, stripped), sorted."""
    kept = [d for d in verdict.diagnostics if d.summary == KEPT]
    assert all(d.severity == "warning" and d.rule is None for d in kept), verdict.describe()
    return sorted((d.address, verdict.line(d).strip()) for d in kept)


def assert_refused(tf, rule: str, address: str, path: str, line_start: str):
    """The plan succeeds with exactly one diagnostic, the refusal of `rule` on `address` (a warning that apply refuses
    the change), whose detail opens with the attribute path `path` and whose range starts on the line of `line_start`
    (assert_rule: the attribute as written; a block's own path has no range of its own, so Terraform points at the
    enclosing resource); then apply fails with that one error, at the same line, before `address` writes anything (it
    is not in state; what else the configuration holds is applied). Returns the plan's verdict and diagnostic."""
    verdict = tf.plan_json()
    assert verdict.rc == 2, verdict.describe()
    assert verdict.rules_by_address() == {address: [(rule, "refused")]}, verdict.describe()
    diag = verdict.assert_rule(rule, address, line_start)
    assert diag.detail.startswith(f"{path}: "), diag.detail
    applied = tf.apply_json()
    error = refused_at_apply(applied, rule, address, line_start)
    assert error.detail.startswith(f"{path}: ") and applied.errors == [error], applied.describe()
    assert address not in resources(tf), "a refused create writes nothing"
    return verdict, diag


@pytest.fixture
def lender(tf, sandbox):
    """A team that lends (a live quota of one inference instance with Strategy Lend, made with boto3 after `tf`
    reset the sandbox), so a LendAndBorrow tenant passes WKL-5 without another tenant in the configuration (judged
    beside the plan on the live quotas, and again at apply: nothing to say)."""
    sm = sandbox.client("sagemaker")
    sm.create_compute_quota(Name="lender-quota", ClusterArn=sm.describe_cluster(ClusterName=CLUSTER)["ClusterArn"],
                            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": G5, "Count": 1}],
                                                "ResourceSharingConfig": {"Strategy": "Lend"}},
                            ComputeQuotaTarget={"TeamName": "lender"})
    return describe_quota(sandbox, "lender")


# ---- 1. MIG slices in a quota (WKL-3) ------------------------------------------------------------------------------
def test_partitions_that_fill_the_mig_groups_plan_clean_and_one_slice_more_is_refused_by_wkl_3_at_the_partition(tf):
    """production and research each guaranteed half the partitioned group's slices (research beside an inference
    instance, so its partition is quota[1]), the allocation listing both: no diagnostic at all, WKL-3 passed on
    both. One slice more for research: the allocation's split overcommits the partitioned group, so WKL-3 refuses the
    allocation at research's entry (research is the later team), and nothing else (research's tenant, whose quota is
    that entry, defers to it: one report): a warning at plan, then apply's error before anything is written."""
    def config(research_slices: int) -> str:
        shares = {"production": [entry(P4D, accelerator_partition=(PROFILE, SLICES // 2))],
                  "research": [entry(G5, count=1), entry(P4D, accelerator_partition=(PROFILE, research_slices))]}
        return configuration(
            allocation(shares),
            tenant("production", quota(P4D, accelerator_partition=(PROFILE, SLICES // 2))),
            tenant("research", quota(G5, count=1), quota(P4D, accelerator_partition=(PROFILE, research_slices))),
            teams=("production", "research"))

    tf.write(config(SLICES // 2))
    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    for address in (PRODUCTION, RESEARCH):
        assert "WKL-3" in changes[address]["after"]["passed_checks"].split(), changes[address]["after"]
    assert changes[RESEARCH]["after"]["quota"][1] == share(P4D, accelerator_partition=(PROFILE, SLICES // 2))

    tf.write(config(SLICES // 2 + 1))
    assert_refused(tf, "WKL-3", "hyperpod_cluster_allocation.capacity",
                   'teams["research"].quota[1].accelerator_partition', "research")


@pytest.mark.parametrize("instance_type, profile", [(P5, P5_PROFILE), (P4D, UNEXPOSED)],
                         ids=["type without MIG layout", "profile the layout does not expose"])
def test_a_partition_the_instance_groups_cannot_hold_is_refused_by_wkl_3(tf, instance_type, profile):
    """A partition of the training type (whose groups have no MIG layout; the profile is one its GPUs offer), or of
    a profile the partitioned group's layout does not split into: WKL-3 refuses it at the entry's
    accelerator_partition, at plan already, even without an allocation (no other tenant is needed to know it cannot
    fit), and apply fails with it before the tenant writes anything."""
    tf.write(configuration(tenant("research", quota(G5, count=1), quota(instance_type, accelerator_partition=(
        profile, 7)), allocated=False)))
    assert_refused(tf, "WKL-3", RESEARCH, "quota[1].accelerator_partition", "accelerator_partition")


@pytest.mark.parametrize("unit, amount, refused", [("count", 1, True), ("accelerators", 2, True),
                                                   ("vcpu", 24, False), ("memory_gib", 288, False)])
def test_a_partition_goes_with_vcpu_or_memory_never_with_count_or_accelerators(tf, unit, amount, refused):
    """`count` or `accelerators` beside accelerator_partition is a plan error (no rule: the input itself) at
    quota[1].accelerator_partition; `vcpu` or `memory_gib` beside it plan clean (the allocation lists the same
    entry; a refused entry is not listed, as the allocation refuses it too)."""
    amounts = {unit: amount, "accelerator_partition": (PROFILE, 14)}
    shares = allocation({"research": [entry(G5, count=1), entry(P4D, **amounts)]}) if not refused else ""
    tf.write(configuration(shares, tenant("research", quota(G5, count=1), quota(P4D, **amounts),
                                          allocated=not refused)))
    verdict = tf.plan_json()
    if not refused:
        assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
        return
    assert verdict.rc == 1 and [(d.rule, d.address) for d in verdict.errors] == [(None, RESEARCH)], \
        verdict.describe()
    (error,) = verdict.errors
    assert verdict.line(error).strip().startswith("accelerator_partition"), verdict.describe()
    assert error.detail.startswith("quota[1].accelerator_partition: "), error.detail


# ---- 2. absolute borrow limits -------------------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["Lend", "DontLend"])
def test_an_absolute_borrow_limit_without_lend_and_borrow_is_refused_by_wkl_5_at_it(tf, strategy):
    tf.write(configuration(allocation({"research": [entry(G5, count=1)]}), tenant(
        "research", quota(G5, count=1), sharing(strategy, absolute_borrow_limit=borrow_limits(
            entry(P5, accelerators=16))))))
    assert_refused(tf, "WKL-5", RESEARCH, "sharing.absolute_borrow_limit", "absolute_borrow_limit")


def test_at_most_fifteen_absolute_borrow_limits(tf):
    """AWS takes at most 15 AbsoluteBorrowLimits: a sixteenth is invalid at absolute_borrow_limit. (Sixteen distinct
    instance types: an instance type listed twice is an error of its own, at its entry, as in a quota.)"""
    types = [f"ml.p5.{n}xlarge" for n in range(1, 17)]
    limits = [entry(instance_type, accelerators=1) for instance_type in types]
    tf.write(configuration(tenant("research", quota(G5, count=1), sharing(
        "LendAndBorrow", absolute_borrow_limit="[" + ", ".join(limits) + "]"), allocated=False)))
    verdict = tf.validate_json()
    assert verdict.rc == 1 and [(d.rule, d.address) for d in verdict.errors] == [(None, RESEARCH)], \
        verdict.describe()
    (error,) = verdict.errors
    assert verdict.line(error).strip().startswith("absolute_borrow_limit"), verdict.describe()
    assert error.detail.startswith("sharing.absolute_borrow_limit: "), error.detail


# ---- 1 + 2. round trip: apply, state, drift, import ----------------------------------------------------------------
ROUND_TRIP_LIMITS = (entry(P5, accelerators=16), entry(P4D, accelerator_partition=(PROFILE, 7)))


def round_trip_config() -> str:
    """research: an inference instance and 14 slices, borrowing at most 16 training accelerators and 7 slices."""
    research = [entry(G5, count=1), entry(P4D, accelerator_partition=(PROFILE, 14))]
    return configuration(allocation({"research": research}), tenant(
        "research", quota(G5, count=1), quota(P4D, accelerator_partition=(PROFILE, 14)),
        sharing("LendAndBorrow", absolute_borrow_limit=borrow_limits(*ROUND_TRIP_LIMITS))))


def assert_round_trip_live(sandbox):
    """The live quota holds what round_trip_config asks for."""
    config = describe_quota(sandbox, "research")["ComputeQuotaConfig"]
    resources_, sharing_ = config["ComputeQuotaResources"], config["ResourceSharingConfig"]
    assert [r["InstanceType"] for r in resources_] == [G5, P4D], resources_
    assert (resources_[0].get("Count"), resources_[1].get("AcceleratorPartition")) == (
        1, partition(PROFILE, 14)), resources_
    assert "Count" not in resources_[1] and "Accelerators" not in resources_[1], resources_
    assert (sharing_["Strategy"], sharing_.get("AbsoluteBorrowLimits")) == ("LendAndBorrow", [
        {"InstanceType": P5, "Accelerators": 16},
        {"InstanceType": P4D, "AcceleratorPartition": partition(PROFILE, 7)}]), sharing_


ROUND_TRIP_STATE = {
    "quota": [share(G5, count=1), share(P4D, accelerator_partition=(PROFILE, 14))],
    "absolute_borrow_limit": [share(P5, accelerators=16), share(P4D, accelerator_partition=(PROFILE, 7))],
}


def round_trip_state(values: dict) -> dict:
    return {"quota": values["quota"], "absolute_borrow_limit": values["sharing"]["absolute_borrow_limit"]}


@pytest.mark.sandbox_only(reason="edits the quota out of band and lends from a quota made with boto3")
def test_partitions_and_absolute_borrow_limits_round_trip_through_apply_state_and_drift(tf, sandbox, lender):
    """Apply writes AcceleratorPartition and AbsoluteBorrowLimits (a partition among them), the state shows both
    and the next plan is empty; changed out of band (more slices, a higher limit) the refreshed state shows the
    change, the plan updates research back to the configured values, and apply restores them. No plan says anything:
    the lender lends live, so WKL-5 holds."""
    tf.write(round_trip_config())
    applied = tf.apply_json()
    assert applied.rc == 0 and not applied.diagnostics, applied.describe()
    assert_round_trip_live(sandbox)
    assert round_trip_state(resources(tf)[RESEARCH]) == ROUND_TRIP_STATE
    tf.assert_no_changes()

    config = copy.deepcopy(describe_quota(sandbox, "research")["ComputeQuotaConfig"])
    config["ComputeQuotaResources"][1]["AcceleratorPartition"]["Count"] = 21
    config["ResourceSharingConfig"]["AbsoluteBorrowLimits"][0]["Accelerators"] = 24
    edit_quota_out_of_band(sandbox, "research", ComputeQuotaConfig=config)
    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    assert {a: c["actions"] for a, c in changes.items() if c["actions"] != ["no-op"]} == {RESEARCH: ["update"]}
    drifted, planned = changes[RESEARCH]["before"], changes[RESEARCH]["after"]
    assert (drifted["quota"][1]["accelerator_partition"], drifted["sharing"]["absolute_borrow_limit"][0]) == (
        {"type": PROFILE, "count": 21}, share(P5, accelerators=24)), drifted
    assert round_trip_state(planned) == ROUND_TRIP_STATE, planned
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()
    assert_round_trip_live(sandbox)
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="lends from a quota made with boto3")
def test_import_records_the_partition_and_the_absolute_borrow_limits(tf, sandbox, lender):
    """research applied with both, removed from state and imported by `<cluster>/<team>` (test_tenant's idiom): the
    imported state holds the partition and the absolute limits as AWS has them, and what the import could not know
    (the configuration's own arguments) is at most filled in, in place, by the next apply, after which the plan is
    empty and the live quota unchanged."""
    tf.write(round_trip_config())
    tf.apply()
    tf.run("state", "rm", RESEARCH)
    tf.import_(RESEARCH, f"{CLUSTER}/research")
    imported = resources(tf)[RESEARCH]
    assert imported["quota"] == ROUND_TRIP_STATE["quota"], imported["quota"]
    assert (imported["sharing"] or {}).get("absolute_borrow_limit") == ROUND_TRIP_STATE["absolute_borrow_limit"], \
        imported["sharing"]
    verdict, changes = plan(tf)
    assert verdict.rc in (0, 2) and not verdict.errors, verdict.describe()
    assert {a: c["actions"] for a, c in changes.items() if c["actions"] != ["no-op"]} in ({}, {RESEARCH: ["update"]})
    tf.apply("governance.tfplan")
    assert round_trip_state(resources(tf)[RESEARCH]) == ROUND_TRIP_STATE
    assert_round_trip_live(sandbox)
    tf.assert_no_changes()


# ---- 3. what was set out of band is kept ---------------------------------------------------------------------------
KEY_SHARES = {"research": [entry(G5, count=1), entry(P4D, vcpu=24)], "production": [entry(G5, count=1)]}


def keep_config(fair_share_weight: int | None = None, absolute_borrow_limit: str | None = None,
                allocated: bool = True) -> str:
    """research: an inference instance, then (quota[1]) 24 vCPU of the partitioned type, neither count nor
    accelerators, `accelerator_partition = null`; LendAndBorrow with borrow_limit and absolute_borrow_limit null
    (unless `absolute_borrow_limit` is given). production: an inference instance and no sharing block. `allocated`:
    with the allocation listing exactly those quotas (without it, the 0.3 shape: a WKL-3 warning per tenant)."""
    weight = f"fair_share_weight = {fair_share_weight}" if fair_share_weight is not None else ""
    return configuration(
        allocation(KEY_SHARES) if allocated else "",
        tenant("research", quota(G5, count=1), quota(P4D, vcpu=24, accelerator_partition=None),
               sharing("LendAndBorrow", borrow_limit=None, absolute_borrow_limit=absolute_borrow_limit),
               allocated=allocated, extra=weight),
        tenant("production", quota(G5, count=1), allocated=allocated, extra=weight),
        teams=("production", "research"))


KEPT_PARTITION = partition(PROFILE, 7)
KEPT_LIMITS = [{"InstanceType": P5, "Accelerators": 16}]


def edit_out_of_band(sandbox) -> None:
    """As the console does: research gets 7 slices on its partitioned entry, a borrow limit of 80 % and an absolute
    limit of 16 training accelerators; production's quota stops lending (DontLend)."""
    config = copy.deepcopy(describe_quota(sandbox, "research")["ComputeQuotaConfig"])
    p4d = config["ComputeQuotaResources"][1]
    assert p4d["InstanceType"] == P4D and not p4d.get("AcceleratorPartition"), p4d
    p4d.pop("Accelerators", None)  # SageMaker filled 0 from the vCPU; a partition goes without Accelerators
    p4d["AcceleratorPartition"] = KEPT_PARTITION
    config["ResourceSharingConfig"].update(BorrowLimit=80, AbsoluteBorrowLimits=KEPT_LIMITS)
    edit_quota_out_of_band(sandbox, "research", ComputeQuotaConfig=config)
    config = copy.deepcopy(describe_quota(sandbox, "production")["ComputeQuotaConfig"])
    config["ResourceSharingConfig"] = {"Strategy": "DontLend"}
    edit_quota_out_of_band(sandbox, "production", ComputeQuotaConfig=config)


# Where each "kept" warning of the scenario points: production has no sharing block (its `sharing` points at the
# resource), research's attributes are written `= null`.
KEPT_WHERE = sorted([(PRODUCTION, 'resource "hyperpod_tenant" "production" {'),
                     (RESEARCH, "accelerator_partition = null"),  # quota[1].accelerator_partition
                     (RESEARCH, "borrow_limit          = null"),  # sharing.borrow_limit
                     (RESEARCH, "absolute_borrow_limit = null")])  # sharing.absolute_borrow_limit
# ... and the whole verdict: those warnings and, without an allocation, WKL-3's "not evaluated at plan" per tenant
# (research borrows from the lender, which lends live: WKL-5 holds, nothing said).
KEPT_VERDICT = {PRODUCTION: [("WKL-3", "warning"), (None, "warning", KEPT)],
                RESEARCH: [("WKL-3", "warning")] + [(None, "warning", KEPT)] * 3}


@pytest.mark.sandbox_only(reason="edits quotas out of band and lends from a quota made with boto3")
def test_an_unrelated_update_keeps_what_was_set_out_of_band_and_the_state_shows_it(tf, sandbox, lender):
    """The issue's scenario, in the issue's configuration (no allocation). Applied: research's partitioned entry
    with only vCPU, LendAndBorrow without limits; production without a sharing block. Out of band: a partition on
    that entry, a borrow limit and an absolute limit on research, DontLend on production. Then only
    fair_share_weight changes: the plan warns "kept" at quota[1].accelerator_partition, sharing.borrow_limit and
    sharing.absolute_borrow_limit of research and at production's `sharing`, and nothing else; the apply succeeds
    and keeps all four live; the next plan has the partition and the absolute limit in research's planned values
    and plans no change at all."""
    tf.write(keep_config(allocated=False))
    applied = tf.apply_json()
    assert applied.rc == 0 and not applied.errors, applied.describe()
    edit_out_of_band(sandbox)

    tf.write(keep_config(fair_share_weight=10, allocated=False))
    verdict, changes = plan(tf)
    assert verdict.rc == 2, verdict.describe()
    assert kept_at(verdict) == KEPT_WHERE, verdict.describe()
    assert verdict.rules_by_address() == KEPT_VERDICT, verdict.describe()
    assert {a: c["actions"] for a, c in changes.items() if c["actions"] != ["no-op"]} == {
        PRODUCTION: ["update"], RESEARCH: ["update"]}
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()

    research, production = describe_quota(sandbox, "research"), describe_quota(sandbox, "production")
    assert research["ComputeQuotaConfig"]["ComputeQuotaResources"][1]["AcceleratorPartition"] == KEPT_PARTITION
    assert research["ComputeQuotaConfig"]["ResourceSharingConfig"] == {
        "Strategy": "LendAndBorrow", "BorrowLimit": 80, "AbsoluteBorrowLimits": KEPT_LIMITS}, research
    assert production["ComputeQuotaConfig"]["ResourceSharingConfig"] == {"Strategy": "DontLend"}, production
    assert [q["ComputeQuotaTarget"]["FairShareWeight"] for q in (research, production)] == [10, 10]

    verdict, changes = plan(tf, "next.tfplan")
    assert kept_at(verdict) == KEPT_WHERE, verdict.describe()  # still kept, still said
    refreshed, planned = changes[RESEARCH]["before"], changes[RESEARCH]["after"]
    assert (planned["quota"][1]["accelerator_partition"], planned["sharing"]["absolute_borrow_limit"]) == (
        {"type": PROFILE, "count": 7}, [share(P5, accelerators=16)]), {
        "refreshed": (refreshed["quota"][1], refreshed["sharing"]),
        "planned": (planned["quota"][1], planned["sharing"])}
    moving = {a: c["actions"] for a, c in changes.items() if c["actions"] != ["no-op"]}
    assert verdict.rc == 0 and moving == {}, moving


@pytest.mark.sandbox_only(reason="edits the quota out of band and lends from a quota made with boto3")
def test_an_empty_absolute_borrow_limit_removes_limits_set_out_of_band(tf, sandbox, lender):
    """research applied without absolute limits; the console adds some; `absolute_borrow_limit = []` plans them
    away (no "kept" warning for them), the apply removes them from the live quota, and the next plan is empty."""
    tf.write(keep_config())
    tf.apply()
    config = copy.deepcopy(describe_quota(sandbox, "research")["ComputeQuotaConfig"])
    config["ResourceSharingConfig"]["AbsoluteBorrowLimits"] = KEPT_LIMITS
    edit_quota_out_of_band(sandbox, "research", ComputeQuotaConfig=config)

    tf.write(keep_config(absolute_borrow_limit="[]"))
    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()  # nothing kept: the limits go
    change = changes[RESEARCH]
    assert (change["actions"], change["before"]["sharing"]["absolute_borrow_limit"],
            change["after"]["sharing"]["absolute_borrow_limit"]) == (["update"], [share(P5, accelerators=16)], [])
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()
    assert "AbsoluteBorrowLimits" not in describe_quota(sandbox, "research")["ComputeQuotaConfig"][
        "ResourceSharingConfig"]
    tf.assert_no_changes()


# ---- 4. StatusDetails and asynchronous failures --------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="injects a partial failure of the scheduler config")
def test_a_policy_update_whose_component_failed_fails_the_apply_naming_it_and_is_proposed_again(tf, sandbox):
    """The next scheduler-config update settles Updated but with FairShare UpdateFailed: the apply fails on the
    policy, its detail naming the component; the next plan's refresh reads `status` UpdateFailed (the component
    folded in) with `status_details` per component, and proposes the update again; the second apply (fault gone)
    settles Updated in every component, and the plan after it is empty."""
    tf.write(provider() + scheduling_policy())
    tf.apply()
    assert resources(tf)[POLICY]["status_details"] == {"PriorityClasses": "Created", "FairShare": "Created"}
    sandbox.fault("UpdateClusterSchedulerConfig", "partial_failure", component="FairShare",
                  failure_reason="fair share could not be applied")
    tf.write(provider() + scheduling_policy().replace("weight = 100", "weight = 90"))
    failed = tf.apply_json()
    assert failed.rc == 1, failed.describe()
    (error,) = failed.errors
    assert (error.rule, error.address) == (None, POLICY), failed.describe()
    assert "FairShare UpdateFailed" in error.detail and "fair share could not be applied" in error.detail, error.detail

    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    refreshed = changes[POLICY]["before"]
    assert (changes[POLICY]["actions"], refreshed["status"], refreshed["status_details"]) == (
        ["update"], "UpdateFailed", {"PriorityClasses": "Updated", "FairShare": "UpdateFailed"}), changes[POLICY]
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()
    state = resources(tf)[POLICY]
    assert (state["status"], state["status_details"]) == (
        "Updated", {"PriorityClasses": "Updated", "FairShare": "Updated"}), state
    live = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=state["scheduler_config_id"])
    assert (live["Status"], live["StatusDetails"], live["SchedulerConfig"]["PriorityClasses"][0]) == (
        "Updated", {"PriorityClasses": "Updated", "FairShare": "Updated"},
        {"Name": INTERACTIVE_CLASS, "Weight": 90}), live
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="injects an asynchronous failure of the compute quota")
def test_a_quota_update_that_failed_asynchronously_fails_the_apply_and_is_drift_the_next_apply_repairs(tf, sandbox):
    """research's update (more slices, a fair-share weight) is accepted and then settles UpdateFailed: the apply
    fails; the next plan shows components["compute_quota"] recorded as "<id> (UpdateFailed)" planned back to
    "<id>"; the second apply (fault gone) succeeds, the quota is Updated with the configured values, and the next
    plan is empty."""
    def config(slices: int, weight: str = "") -> str:
        return configuration(allocation({"research": [entry(P4D, accelerator_partition=(PROFILE, slices))]}),
                             tenant("research", quota(P4D, accelerator_partition=(PROFILE, slices)), extra=weight))

    tf.write(config(14))
    tf.apply()
    quota_id = resources(tf)[RESEARCH]["compute_quota_id"]
    sandbox.fault("UpdateComputeQuota", "async_failure", failure_reason="the quota could not be applied")
    tf.write(config(21, "fair_share_weight = 10"))
    failed = tf.apply_json()
    assert failed.rc == 1, failed.describe()
    (error,) = failed.errors
    assert (error.rule, error.address) == (None, RESEARCH), failed.describe()
    assert "UpdateFailed" in error.detail and "the quota could not be applied" in error.detail, error.detail

    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    change = changes[RESEARCH]
    assert (change["actions"], change["before"]["components"]["compute_quota"],
            change["after"]["components"]["compute_quota"]) == (["update"], f"{quota_id} (UpdateFailed)", quota_id)
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe()
    live = describe_quota(sandbox, "research")
    assert (live["ComputeQuotaId"], live["Status"], live["ComputeQuotaTarget"]["FairShareWeight"],
            live["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["AcceleratorPartition"]) == (
        quota_id, "Updated", 10, partition(PROFILE, 21)), live
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="injects an asynchronous failure of the compute quota; reads the sandbox's quotas")
@pytest.mark.parametrize("addon_reading", ["create_failed", "refuse"])
def test_a_quota_whose_create_failed_asynchronously_is_reported_and_leaves_no_orphan(tf, sandbox, addon_reading):
    """research's quota is accepted and settles CreateFailed (AWS: "delete the failed policy and create a new one",
    the task-governance troubleshooting page): the apply fails with SageMaker's FailureReason; the next apply ends
    with one Created quota of the team, no failed one left beside it, and an empty plan; destroy leaves no quota.
    Under both readings of what a write without the task-governance add-on answers (the add-on is ACTIVE here, so
    the reading must not matter)."""
    sandbox.admin("PUT", "settings", {"scheduler_before_addon": addon_reading})
    tf.write(configuration(allocation({"research": [entry(G5, count=1)]}), tenant("research", quota(G5, count=1))))
    sandbox.fault("CreateComputeQuota", "async_failure", failure_reason="Kueue is not ready on the cluster")
    failed = tf.apply_json()
    assert failed.rc == 1, failed.describe()
    (error,) = failed.errors
    assert error.address == RESEARCH and "CreateFailed" in error.detail, failed.describe()
    assert "Kueue is not ready on the cluster" in error.detail, error.detail

    def team_quotas():
        listed = sandbox.client("sagemaker").list_compute_quotas()["ComputeQuotaSummaries"]
        return [(q["ComputeQuotaId"], q["Status"]) for q in listed if q["ComputeQuotaTarget"]["TeamName"] == "research"
                and q["Status"] != "Deleted"]

    applied = tf.apply_json()
    assert applied.rc == 0 and not applied.errors, applied.describe()
    assert [status for _, status in team_quotas()] == ["Created"], team_quotas()
    assert team_quotas()[0][0] == resources(tf)[RESEARCH]["compute_quota_id"]
    tf.assert_no_changes()
    tf.destroy()
    assert team_quotas() == [], team_quotas()


@pytest.mark.sandbox_only(reason="injects an asynchronous failure of the compute quota's deletion")
def test_a_quota_whose_delete_failed_asynchronously_fails_the_destroy_and_the_next_destroy_removes_it(tf, sandbox):
    """DeleteComputeQuota is accepted and the quota settles DeleteFailed: the destroy fails with SageMaker's
    FailureReason and the tenant stays in state (nothing forgotten); the next destroy deletes the quota again and
    leaves none."""
    tf.write(configuration(allocation({"research": [entry(G5, count=1)]}), tenant("research", quota(G5, count=1))))
    tf.apply()
    quota_id = resources(tf)[RESEARCH]["compute_quota_id"]
    sandbox.fault("DeleteComputeQuota", "async_failure", failure_reason="Workloads are still running in the queue")
    verdict = tf.destroy_json()
    assert verdict.rc == 1, verdict.describe()
    assert any("DeleteFailed" in d.detail and "Workloads are still running in the queue" in d.detail
               for d in verdict.errors), verdict.describe()
    assert RESEARCH in resources(tf)
    sm = sandbox.client("sagemaker")
    assert sm.describe_compute_quota(ComputeQuotaId=quota_id)["Status"] == "DeleteFailed"

    tf.destroy()
    listed = sm.list_compute_quotas()["ComputeQuotaSummaries"]
    assert [q["ComputeQuotaId"] for q in listed if q["Status"] != "Deleted"] == []


# ---- 5. interactive spaces (WKL-12) --------------------------------------------------------------------------------
SPACES_SHARES = {"research": [entry(G5, count=2)], "production": [entry(G5, count=1)]}


def spaces_config(spaces_block: str = spaces(), research_sharing: str = "", workload_types: str | None = None
                  ) -> str:
    """research: 2 inference instances, `spaces_block`, `research_sharing` (then borrowing from production);
    production: one inference instance, lending, no spaces; both in the allocation."""
    borrows = "borrows_from = [hyperpod_tenant.production.governance]" if research_sharing else ""
    return configuration(
        allocation(SPACES_SHARES),
        tenant("research", quota(G5, count=2), research_sharing, spaces_block, extra=borrows),
        tenant("production", quota(G5, count=1), sharing("Lend")),
        teams=("production", "research"), workload_types=workload_types)


def tenant_roles(sandbox, team: str) -> dict:
    """The tenant's viewer and operator Roles in hyperpod-ns-<team>, as the sandbox's Kubernetes holds them:
    {"viewer": rules, "operator": rules}."""
    objects = sandbox.admin("GET", f"kubernetes/{EKS}")["objects"]
    roles = {o["metadata"]["name"]: o["rules"] for o in objects
             if o["kind"] == "Role" and o["metadata"]["namespace"] == f"hyperpod-ns-{team}"}
    return {who: roles[f"hyperpod-tenant-{who}"] for who in ("viewer", "operator")}


def workspace_rules(rules: list) -> list:
    return [r for r in rules if WORKSPACES[0] in r["apiGroups"] and WORKSPACES[1] in r["resources"]]


@pytest.mark.sandbox_only(reason="reads the sandbox's Kubernetes objects")
def test_spaces_plan_clean_and_give_only_their_tenants_roles_workspaces_with_the_roles_verbs(tf, sandbox):
    """research runs spaces (the interactive class, one of its two inference instances, no sharing block) under a
    contract approving interactive; production does not. The plan has no diagnostic at all; after apply research's
    viewer and operator Roles each have one rule for workspace.jupyter.org workspaces with that Role's verbs, its
    quota lends (Strategy Lend, as no sharing block asks otherwise), and production's Roles have no such rule."""
    tf.write(spaces_config())
    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    assert "WKL-12" in changes[RESEARCH]["after"]["passed_checks"].split(), changes[RESEARCH]["after"]
    applied = tf.apply_json(["governance.tfplan"])
    assert applied.rc == 0 and not applied.diagnostics, applied.describe()

    state = resources(tf)[RESEARCH]
    verbs = {"viewer": state["viewer_verbs"], "operator": state["operator_verbs"]}
    for who, rules in tenant_roles(sandbox, "research").items():
        (rule,) = workspace_rules(rules)
        assert (rule["apiGroups"], rule["resources"], sorted(rule["verbs"])) == (
            [WORKSPACES[0]], [WORKSPACES[1]], sorted(verbs[who])), (who, rules)
    assert describe_quota(sandbox, "research")["ComputeQuotaConfig"]["ResourceSharingConfig"] == {"Strategy": "Lend"}
    assert {who: workspace_rules(rules) for who, rules in tenant_roles(sandbox, "production").items()} == {
        "viewer": [], "operator": []}
    tf.assert_no_changes()


SPACES_REFUSALS = {  # case -> (spaces_config arguments, the path, the start of the line the range is on)
    "contract without interactive": ({"workload_types": TRAINING_ONLY}, "spaces", 'resource "hyperpod_tenant"'),
    "class not in the policy": ({"spaces_block": spaces("notebooks")}, "spaces.priority_class", "priority_class"),
    "the tenant's own class": ({"spaces_block": spaces("research")}, "spaces.priority_class", "priority_class"),
    "guaranteed beyond the quota": ({"spaces_block": spaces(count=3)}, "spaces.guaranteed[0].count", "count"),
    "lend and borrow": ({"research_sharing": sharing("LendAndBorrow")}, "sharing.strategy", "strategy"),
}


@pytest.mark.parametrize("case", list(SPACES_REFUSALS))
def test_spaces_wkl_12_refuses_at_plan_with_the_path(tf, case):
    """Each way spaces can be wrong is refused by WKL-12 on research alone, at its path (the spaces block itself has
    no range of its own: Terraform points at the resource; production, lending, is research's lender in the
    LendAndBorrow case, so WKL-5 holds and WKL-12 is the only finding): a warning at plan, then apply's error before
    research writes anything."""
    arguments, path, line_start = SPACES_REFUSALS[case]
    tf.write(spaces_config(**arguments))
    verdict, diag = assert_refused(tf, "WKL-12", RESEARCH, path, line_start)
    if path == "spaces.guaranteed[0].count":
        assert verdict.source(diag) == "3", verdict.describe()  # the spaces' count, not the quota's


def restriction(body: str = "") -> str:
    return (f'\nresource "hyperpod_task_view_restriction" "research" {{\n'
            f"  contract = hyperpod_connection_contract.research.governance\n  {body}\n}}\n")


@pytest.mark.parametrize("workload_types, policies", [
    (TRAINING_ONLY, [TRAINING, INFERENCE]), ('["training", "interactive"]', [TRAINING, INFERENCE, SPACE])],
    ids=["training only", "interactive"])
def test_the_restrictions_default_grants_the_space_policy_only_under_a_contract_approving_interactive(
        tf, workload_types, policies):
    tf.write(provider() + contract("research", workload_types) + restriction())
    verdict, changes = plan(tf)
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    planned = changes[RESTRICTION]["after"]
    assert (planned["access_policies"], planned["space_templates"]) == (policies, False), planned


@pytest.mark.parametrize("body, attribute", [
    (f'access_policies = ["{TRAINING}", "{SPACE}"]', "access_policies"), ("space_templates = true", "space_templates")],
    ids=["space policy named", "space templates"])
def test_space_access_on_the_restriction_under_a_contract_without_interactive_is_refused_by_wkl_12(tf, body,
                                                                                                   attribute):
    tf.write(provider() + contract("research", TRAINING_ONLY) + restriction(body))
    assert_refused(tf, "WKL-12", RESTRICTION, attribute, attribute)
