"""Day two (issue 39): every change a platform team makes to a governed team after the first apply converges, and
`terraform destroy` is never blocked by a governance rule.

Each transition starts from an applied configuration in the shape the docs teach (suites/day_two.py: per team a
contract, tenant, task view restriction and binding, per cluster a scheduling policy and allocation, every handoff
referenced), plans the change as expected (the replacements it needs, the diagnostics it owes the reviewer), applies
it once, plans again with no change, and reads the sandbox inventory to prove that nothing of the moved, renamed or
removed team is left where it was: compute quotas, roles, namespaces and their Kubernetes objects, Pod Identity
associations, access entries and their policies, connections and memberships. Transitions whose order of operations
Terraform may vary run at `-parallelism=1` and at the default.
"""
import os
from dataclasses import replace

import pytest

from day_two import CLUSTERS, Team, World, holdings, memberships
from harness import PlanVerdict, Terraform
from hcl import FX, days_ago
from test_capacity import (
    SIBLING_SHARE,
    apply_at_once,
    configuration as capacity_configuration,
    quota_teams,
    releasing_held_creates,
    settled,
)

pytestmark = pytest.mark.provider

P5 = FX.clusters.eks.instance_groups.training.instance_type
P5_COUNT = FX.clusters.eks.instance_groups.training.count
PARALLELISMS = [pytest.param(("-parallelism=1",), id="parallelism-1"), pytest.param((), id="default")]
RESEARCH = Team("research", "research", "eks", ((P5, 2),))
PRODUCTION = Team("production", "production", "eks", ((P5, P5_COUNT - 3),))


def legacy_type(sandbox) -> tuple[str, int]:
    """The legacy cluster's one instance group: (type, count)."""
    cluster = sandbox.client("sagemaker").describe_cluster(ClusterName=CLUSTERS["legacy"].name)
    (group,) = cluster["InstanceGroups"]
    return group["InstanceType"], group["CurrentCount"]


def plan(tf, world: World, parallelism=()) -> tuple[PlanVerdict, dict]:
    """Writes `world` and plans it to a file: the verdict and address -> actions."""
    tf.write(world.hcl())
    verdict = tf.plan_json(["-out=day-two.tfplan", *parallelism])
    assert verdict.rc in (0, 2), verdict.describe()
    changes = tf.show_json("day-two.tfplan").get("resource_changes", [])
    return verdict, {c["address"]: c["change"]["actions"] for c in changes if c["change"]["actions"] != ["no-op"]}


def apply_and_settle(tf, parallelism=()) -> None:
    """Applies the plan file once, then the next plan is empty."""
    applied = tf.apply_json([*parallelism, "day-two.tfplan"])
    assert applied.rc == 0 and not applied.errors, applied.describe() + "".join(
        f"\n{d.address}: {d.summary}: {d.detail}" for d in applied.errors)
    again = tf.plan_json(list(parallelism))
    assert again.rc == 0, f"the plan after the apply is not empty:\n{again.describe()}\n{again.result}"


def converge(tf, world: World, parallelism=()) -> PlanVerdict:
    """Plans `world` (no refusal, no error) and applies it; the next plan is empty."""
    verdict, _ = plan(tf, world, parallelism)
    assert not verdict.errors and not verdict.refusals, verdict.describe()
    apply_and_settle(tf, parallelism)
    return verdict


def rules(verdict: PlanVerdict) -> dict:
    """{address: [(rule, kind)]} of the diagnostics that name a rule (the legacy cluster's observability add-on is
    older than OBS-1 asks: its contracts warn, which is the legacy cluster's truth, not this suite's subject)."""
    return {address: [entry for entry in entries if entry[0] != "OBS-1"]
            for address, entries in verdict.rules_by_address().items()
            if any(entry[0] != "OBS-1" for entry in entries)}


# ---- move ----------------------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
@pytest.mark.parametrize("parallelism", PARALLELISMS)
def test_a_team_moved_to_another_cluster_is_replaced_and_nothing_of_it_stays_on_the_old_one(tf, sandbox,
                                                                                            parallelism):
    """research's contract now names the legacy cluster (its tenant, restriction and binding reference that
    cluster's policy and allocation): a compute quota cannot move, so the plan replaces the tenant, the restriction
    and the binding (and the contract, whose name is its identity), with no diagnostic; one apply moves everything,
    the next plan is empty, and the old cluster keeps nothing of research: no quota, role, namespace object, Pod
    Identity association, access policy or access entry of its project role, no connection."""
    converge(tf, World([PRODUCTION, RESEARCH]), parallelism)
    assert holdings(sandbox.inventory(), "research", "eks", "research"), "applied: research is on the EKS cluster"
    legacy = legacy_type(sandbox)
    moved = World([PRODUCTION, RESEARCH.on("legacy", ((legacy[0], 1),))])
    verdict, changes = plan(tf, moved, parallelism)
    assert rules(verdict) == {} and not verdict.refusals, verdict.describe()
    replaced = ["delete", "create"]
    for kind in ("hyperpod_tenant", "hyperpod_task_view_restriction", "hyperpod_unified_studio_project_binding",
                 "hyperpod_connection_contract"):
        assert changes.get(f"{kind}.research") == replaced, changes
    apply_and_settle(tf, parallelism)
    inventory = sandbox.inventory()
    assert holdings(inventory, "research", "eks", "research") == []
    moved_in = holdings(inventory, "research", "legacy", "research")
    assert any(h.startswith("compute quota") for h in moved_in) and any(
        h.startswith("datazone connection") for h in moved_in), moved_in
    assert holdings(inventory, "production", "eks", "production"), "production stays where it was"


# ---- rename --------------------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
@pytest.mark.parametrize("parallelism", PARALLELISMS)
def test_a_renamed_team_is_replaced_without_counting_its_own_old_quota_and_leaves_nothing_of_the_old_name(
        tf, sandbox, parallelism):
    """research becomes research-ml (same resources, its contract's namespace and the allocation's row renamed):
    the tenant is replaced. WKL-3 judges the state the change leads to, so the old quota, which this change
    destroys, is not counted beside the new one (P5_COUNT - 3 + 2 + 2 would overcommit): no diagnostic. One apply;
    the next plan is empty; nothing of `research` is left on the cluster (quota, role, namespace objects, Pod
    Identity association, access policies on its namespace)."""
    world = World([PRODUCTION, RESEARCH])
    converge(tf, world, parallelism)
    renamed = World([PRODUCTION, Team("research-ml", "research", "eks", RESEARCH.quota, label="research")])
    verdict, changes = plan(tf, renamed, parallelism)
    assert rules(verdict) == {} and not verdict.refusals, verdict.describe()
    assert changes["hyperpod_tenant.research"] == ["delete", "create"], changes
    apply_and_settle(tf, parallelism)
    inventory = sandbox.inventory()
    assert holdings(inventory, "research", "eks") == []
    assert any(h.startswith("compute quota") for h in holdings(inventory, "research-ml", "eks")), \
        holdings(inventory, "research-ml", "eks")


# ---- remove --------------------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
@pytest.mark.parametrize("parallelism", PARALLELISMS)
def test_a_team_removed_with_its_tenant_in_one_change_applies_at_once(tf, sandbox, parallelism):
    """research leaves: its row goes from the allocation and its contract, tenant, restriction and binding from the
    configuration, in one change. The allocation's planned capacity does not depend on the live quota this change
    destroys, so one apply converges (no inconsistent final plan), and nothing of research is left, its project's
    connection and access entry included."""
    converge(tf, World([PRODUCTION, RESEARCH]), parallelism)
    verdict, changes = plan(tf, World([PRODUCTION]), parallelism)
    assert rules(verdict) == {} and not verdict.refusals, verdict.describe()
    assert changes["hyperpod_tenant.research"] == ["delete"] and changes[
        "hyperpod_cluster_allocation.eks"] == ["update"], changes
    apply_and_settle(tf, parallelism)
    assert holdings(sandbox.inventory(), "research", "eks", "research") == []


@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
def test_a_tenant_removed_while_its_team_stays_listed_leaves_its_share_reserved_and_nothing_else(tf, sandbox):
    """research's tenant, restriction and binding go, its row stays in the allocation (a reserve) and its contract
    stays: the plan destroys the three, changes nothing else, applies once, and research holds nothing on the
    cluster any more."""
    converge(tf, World([PRODUCTION, RESEARCH]))
    reserved = World([PRODUCTION, Team("research", "research", "eks", RESEARCH.quota, tenant=False, binding=False)])
    verdict, changes = plan(tf, reserved)
    assert rules(verdict) == {} and not verdict.refusals, verdict.describe()
    assert changes == {f"{kind}.research": ["delete"] for kind in (
        "hyperpod_tenant", "hyperpod_task_view_restriction", "hyperpod_unified_studio_project_binding")}, changes
    apply_and_settle(tf)
    assert holdings(sandbox.inventory(), "research", "eks", "research") == []


# ---- a project on two clusters -------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
@pytest.mark.parametrize("parallelism", PARALLELISMS)
def test_dropping_one_of_a_projects_two_bindings_keeps_the_membership_the_other_declares(tf, sandbox, parallelism):
    """production works on both clusters: two contracts, tenants, restrictions and bindings, both bindings declaring
    its owner group PROJECT_OWNER. Dropping the legacy half removes that binding's connection and nothing the other
    binding still declares: the membership stays, the next plan is empty; then dropping the second removes it."""
    legacy = legacy_type(sandbox)
    both = World([PRODUCTION, Team("production", "production", "legacy", ((legacy[0], 1),),
                                   label="production_legacy")])
    converge(tf, both, parallelism)
    owners = memberships(sandbox.inventory(), "production")
    assert len(owners) == 1 and owners[0].endswith(":PROJECT_OWNER"), owners
    verdict, changes = plan(tf, World([PRODUCTION]), parallelism)
    assert rules(verdict) == {} and not verdict.refusals, verdict.describe()
    assert changes["hyperpod_unified_studio_project_binding.production_legacy"] == ["delete"], changes
    apply_and_settle(tf, parallelism)
    inventory = sandbox.inventory()
    assert memberships(inventory, "production") == owners, "the membership the remaining binding declares stays"
    assert holdings(inventory, "production", "legacy", "production") == []
    # The last binding of the project takes the membership with it.
    tf.destroy(*parallelism)
    assert memberships(sandbox.inventory(), "production") == []


# ---- drift ---------------------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="raises a quota out of band; switches the sandbox's capacity reading")
def test_a_quota_raised_out_of_band_that_overcommits_the_cluster_is_named_and_restored(tf, sandbox):
    """research's quota raised outside Terraform until the training group is overcommitted (AWS accepting it, the
    reading where that can happen): the plan restores the configured quota and names the live overcommit (WKL-3,
    a warning at research's quota entry, saying it was set outside Terraform); one apply restores it and the next
    plan is empty."""
    converge(tf, World([PRODUCTION, RESEARCH]))
    sandbox.admin("PUT", "settings", {"quota_capacity": "accept"})
    try:
        sm = sandbox.client("sagemaker")
        arn = sm.describe_cluster(ClusterName=FX.clusters.eks.name)["ClusterArn"]
        (quota,) = [q for q in sm.list_compute_quotas(ClusterArn=arn)["ComputeQuotaSummaries"]
                    if q["ComputeQuotaTarget"]["TeamName"] == "research" and q["Status"] not in ("Deleting", "Deleted")]
        described = sm.describe_compute_quota(ComputeQuotaId=quota["ComputeQuotaId"])
        overcommit = P5_COUNT - PRODUCTION.quota[0][1] + 2  # two more than the group leaves research
        config = dict(described["ComputeQuotaConfig"],
                      ComputeQuotaResources=[{"InstanceType": P5, "Count": overcommit}])
        sm.update_compute_quota(ComputeQuotaId=quota["ComputeQuotaId"], ComputeQuotaConfig=config,
                                TargetVersion=sandbox.target_version(described["ComputeQuotaVersion"]))
        tf.write(World([PRODUCTION, RESEARCH]).hcl())
        verdict = tf.plan_json(["-out=day-two.tfplan"])
        assert verdict.rc == 2, verdict.describe()
        drift = verdict.assert_rule("WKL-3", "hyperpod_tenant.research", "count", severity="warning")
        assert drift.summary.endswith("(live, set outside Terraform)") and f"{overcommit} instances" in drift.detail, \
            drift
        assert rules(verdict) == {"hyperpod_tenant.research": [("WKL-3", "warning")]}, verdict.describe()
        apply_and_settle(tf)
    finally:
        sandbox.admin("PUT", "settings", {"quota_capacity": None})


# ---- destroy is never blocked --------------------------------------------------------------------------------------
def revoked(world: World) -> World:
    """research's contract revoked: the documented way to withdraw a connection (LIF-3 on what it backs)."""
    return World([replace(t, lifecycle_state="revoked") if t.name == "research" else t for t in world.teams])


def share_changed(world: World) -> World:
    """The allocation gives research one more instance than its tenant asks (WKL-3 at the tenant's quota)."""
    rows = {team.name: team.quota for team in world.teams}
    rows["research"] = ((P5, 3),)
    return World(world.teams, allocated={"eks": rows})


def team_dropped(world: World) -> World:
    """research dropped from the allocation while its tenant stays (WKL-3 at the tenant's allocation)."""
    return World(world.teams, allocated={"eks": {"production": PRODUCTION.quota}})


def space_class_removed(world: World) -> World:
    """The spaces' priority class removed from the cluster's scheduling policy (WKL-12 at research's spaces)."""
    return replace(world, space_class=False)


def interactive_unapproved(world: World) -> World:
    """`interactive` removed from research's contract while research runs spaces (WKL-12)."""
    return World([replace(t, workload_types='["training"]') if t.name == "research" else t for t in world.teams],
                 allocated=world.allocated)


BREAKERS = {  # name -> (the change, the rule it breaks on research)
    "revoked": (revoked, "LIF-3"), "share changed": (share_changed, "WKL-3"), "team dropped": (team_dropped, "WKL-3"),
    "space class removed": (space_class_removed, "WKL-12"),
    "interactive unapproved": (interactive_unapproved, "WKL-12")}


@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
@pytest.mark.parametrize("breaker", list(BREAKERS))
def test_destroy_succeeds_whatever_a_rule_now_says(tf, sandbox, breaker):
    """The configuration applied, then changed so that a rule fails on research: the plan shows the refusal (a
    warning; apply would refuse the change), and `terraform destroy`, whose refresh is a full plan of that
    configuration, removes everything without -refresh=false. research runs interactive spaces, so that WKL-12 can
    break too."""
    world = World([PRODUCTION, replace(RESEARCH, spaces=True)])
    converge(tf, world)
    breaks, rule = BREAKERS[breaker]
    verdict, _ = plan(tf, breaks(world))
    assert verdict.refusals and all((d.address or "").endswith(".research") for d in verdict.refusals), \
        verdict.describe()
    assert rule in {d.rule for d in verdict.refusals}, verdict.describe()
    destroyed = tf.destroy(check=False)
    assert destroyed.rc == 0, destroyed.stdout + destroyed.stderr
    inventory = sandbox.inventory()
    assert holdings(inventory, "research", "eks", "research") == []
    assert holdings(inventory, "production", "eks", "production") == []
    assert memberships(inventory, "research") == memberships(inventory, "production") == []


@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
def test_destroy_succeeds_with_an_overdue_review_under_strict(tf, sandbox):
    """strict = true in the provider, and a contract whose review is overdue (LIF-1): the plan refuses nothing of
    an unchanged configuration (it says the next change would be refused) and destroy goes through."""
    converge(tf, World([PRODUCTION, RESEARCH]))
    text = World([PRODUCTION, RESEARCH], provider_settings=f'region = "{FX.region}"\n  strict = true').hcl()
    overdue = text.replace(f'last_reviewed = "{days_ago(10)}"', f'last_reviewed = "{days_ago(400)}"')
    assert overdue != text
    tf.write(overdue)
    verdict = tf.plan_json()
    assert "LIF-1" in {d.rule for d in verdict.diagnostics} and not verdict.errors, verdict.describe()
    destroyed = tf.destroy(check=False)
    assert destroyed.rc == 0, destroyed.stdout + destroyed.stderr
    assert holdings(sandbox.inventory(), "research", "eks", "research") == []


@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
def test_destroy_succeeds_after_a_create_refused_at_apply(tf, sandbox):
    """research's workload target role is known only at apply (made by terraform_data in the same apply) and names
    an account its contract does not approve: the plan could not judge ORG-2, apply refuses the tenant before it
    writes anything, the rest is applied. `terraform destroy` then plans the refused tenant as a create in its
    refresh, and still goes through."""
    made_later = '\nresource "terraform_data" "target" {\n  input = "consumer"\n}\n'
    unapproved = FX.role_arn(FX.consumer_role_name, "999999999999")
    workload = (f'workload {{\n    service_account = "research-jobs"\n'
                f'    target_role_arn = replace("{unapproved}#${{terraform_data.target.id}}", "/#.*/", "")\n  }}')
    world = World([PRODUCTION, RESEARCH])
    tf.write(world.hcl().replace('workload {\n    service_account = "research-jobs"\n  }', workload) + made_later)
    applied = tf.apply_json()
    assert applied.rc == 1 and [(d.rule, d.address) for d in applied.errors] == [
        ("ORG-2", "hyperpod_tenant.research")], applied.describe()
    destroyed = tf.destroy(check=False)
    assert destroyed.rc == 0, destroyed.stdout + destroyed.stderr
    assert holdings(sandbox.inventory(), "research", "eks", "research") == []
    assert holdings(sandbox.inventory(), "production", "eks", "production") == []


# ---- import --------------------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="creates the objects to import outside Terraform")
def test_objects_made_outside_terraform_under_other_names_import_and_converge(tf, sandbox):
    """The legacy cluster's scheduler config made in the console as `console-policy`, research's compute quota as
    `console-research` and its HyperPod connection as `studio-research`: imported (import blocks) into a
    configuration that leaves their names unset, the plan imports them and replaces nothing, one apply converges,
    and the next plan is empty."""
    legacy = legacy_type(sandbox)
    research = Team("research", "research", "legacy", ((legacy[0], 1),))
    sm, dz = sandbox.client("sagemaker"), sandbox.client("datazone")
    legacy_arn = sm.describe_cluster(ClusterName=CLUSTERS["legacy"].name)["ClusterArn"]
    sm.create_cluster_scheduler_config(
        Name="console-policy", ClusterArn=legacy_arn,
        SchedulerConfig={"PriorityClasses": [{"Name": "production", "Weight": 90}, {"Name": "research", "Weight": 10}],
                         "FairShare": "Enabled"})
    sm.create_compute_quota(Name="console-research", ClusterArn=legacy_arn,
                            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": legacy[0], "Count": 1}],
                                                "ResourceSharingConfig": {"Strategy": "Lend"},
                                                "PreemptTeamTasks": "LowerPriority"},
                            ComputeQuotaTarget={"TeamName": "research"})
    project = FX.project("research")
    connection = dz.create_connection(domainIdentifier=FX.datazone.domain_id,
                                      environmentIdentifier=project.tooling_environment_id, name="studio-research",
                                      props={"hyperPodProperties": {"clusterName": CLUSTERS["legacy"].name}})
    imports = f"""
import {{
  to = hyperpod_scheduling_policy.legacy
  id = "{CLUSTERS["legacy"].name}"
}}
import {{
  to = hyperpod_tenant.research
  id = "{CLUSTERS["legacy"].name}/research"
}}
import {{
  to = hyperpod_unified_studio_project_binding.research
  id = "{FX.datazone.domain_id}/{connection["connectionId"]}"
}}
"""
    world = World([research], extra=imports)
    verdict, changes = plan(tf, world)
    assert not verdict.errors and not verdict.refusals, verdict.describe()
    assert not [a for a, actions in changes.items() if "delete" in actions], changes
    apply_and_settle(tf)
    state = {r["address"]: r["values"] for r in tf.show_json()["values"]["root_module"]["resources"]}
    assert state["hyperpod_scheduling_policy.legacy"]["name"] == "console-policy"
    assert state["hyperpod_unified_studio_project_binding.research"]["connection_name"] == "studio-research"


# ---- a saved plan, and pipelines at once ---------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="creates another pipeline's quota between plan and apply")
def test_a_saved_plan_applies_after_another_pipeline_changed_the_clusters_quotas(tf, sandbox):
    """`terraform plan -out` of a configuration whose allocation changes (research's row added), then another
    pipeline creates a team's quota on the cluster, then `terraform apply` of the saved plan: nothing it planned
    depended on that quota, so it applies (no inconsistent final plan), and the next plan is empty."""
    converge(tf, World([PRODUCTION]))
    plan(tf, World([PRODUCTION], allocated={"eks": {"production": PRODUCTION.quota, "research": RESEARCH.quota}}))
    sm = sandbox.client("sagemaker")
    sm.create_compute_quota(Name="other-pipeline", ClusterArn=sm.describe_cluster(
        ClusterName=FX.clusters.eks.name)["ClusterArn"],
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": P5, "Count": 1}]},
        ComputeQuotaTarget={"TeamName": "other"})
    apply_and_settle(tf)


RACES = int(os.environ.get("HYPERPOD_RACES", "20"))


@pytest.mark.sandbox_only(reason="reads the sandbox inventory; switches the sandbox's capacity reading; holds calls")
def test_races_of_two_roots_always_end_with_one_survivor_and_wkl_3_on_the_other(tf, sandbox, tmp_path):
    """Two root modules (two states), each with a tenant and no allocation (one cluster has one allocation), each team
    guaranteed SIBLING_SHARE of the training group: each fits alone, not together. Both `terraform apply` at once,
    RACES times, under both readings of whether SageMaker refuses an overcommitting quota (and, accepting, with both
    creates held until both are made, so only the claim check can decide). Every race ends with exactly one survivor
    and a WKL-3 error on the other tenant, never an inconsistent final plan or result; then the losing root's
    `terraform destroy` (its refresh plans the refused tenant again) and the winner's both succeed, and no quota of
    either team is left before the next race."""
    roots = {"alpha": tf, "beta": Terraform(tmp_path / "beta", sandbox.env())}
    for team, root in roots.items():
        root.write(capacity_configuration({team: [(P5, "count", SIBLING_SHARE)]}, with_allocation=False))

    readings = ("refuse", "accept", "accept")  # the second accept without a hold: timing decides who looks first
    outcomes = []
    try:
        for race in range(RACES):
            reading = readings[race % len(readings)]
            held = race % len(readings) == 1
            sandbox.admin("PUT", "settings", {"quota_capacity": reading})
            if held:
                sandbox.fault("CreateComputeQuota", "hold", count=2)
            verdicts, report, winner, loser = apply_at_once(roots, releasing_held_creates(sandbox) if held else None)
            report = f"race {race} ({reading}{', held' if held else ''}):\n{report}"
            assert [(d.rule, d.address) for d in verdicts[loser].errors] == [
                ("WKL-3", f"hyperpod_tenant.{loser}")], report
            outcomes.append(winner)
            for root in (roots[loser], roots[winner]):
                destroyed = root.destroy(check=False)
                assert destroyed.rc == 0, f"{report}\n{destroyed.stdout}{destroyed.stderr}"
            assert settled(lambda: not quota_teams(sandbox) & set(roots)), report
            sandbox.clear_faults()
    finally:
        sandbox.admin("PUT", "settings", {"quota_capacity": None})
    assert len(outcomes) == RACES


POSTCONDITION = """
  lifecycle {
    postcondition {
      condition     = alltrue([for f in coalesce(self.findings, []) : f.status != "failed"])
      error_message = join("\\n", [
        for f in coalesce(self.findings, []) : "${f.rule}: ${f.detail}" if f.status == "failed"
      ])
    }
  }
"""


@pytest.mark.sandbox_only(reason="reads the sandbox inventory")
def test_a_postcondition_on_the_findings_fails_the_plan_and_still_never_blocks_destroy(tf, sandbox):
    """The pattern docs/design/where-rules-run.md offers to teams whose pipeline needs `terraform plan` itself to
    fail on a violation: a postcondition on the tenant's planned findings. Revoking research's contract makes the
    plan fail there, naming LIF-3; `terraform destroy`, whose refresh is the same plan, goes through (Terraform
    downgrades check rules there, which it cannot do for a provider's error)."""
    research = replace(RESEARCH, extra_tenant=POSTCONDITION)
    converge(tf, World([PRODUCTION, research]))
    tf.write(revoked(World([PRODUCTION, research])).hcl())
    failed = tf.plan_json()
    assert failed.rc == 1, failed.describe()
    (postcondition,) = failed.errors
    assert postcondition.summary == "Resource postcondition failed" and "LIF-3" in postcondition.detail, \
        failed.describe()
    assert "self.findings" in (failed.line(postcondition) or ""), failed.describe()  # the tenant's postcondition
    destroyed = tf.destroy(check=False)
    assert destroyed.rc == 0, destroyed.stdout + destroyed.stderr
    assert holdings(sandbox.inventory(), "research", "eks", "research") == []
