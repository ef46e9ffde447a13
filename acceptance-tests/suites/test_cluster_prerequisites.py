"""What a cluster must have before tenants and a scheduling policy go on it, and the update APIs' `TargetVersion`,
through a real Terraform against the sandbox (issue 15):

* CLU-10: the EKS cluster's task-governance add-on (`amazon-sagemaker-hyperpod-taskgovernance`) is ACTIVE. Without
  it a tenant (at `contract`, whose cluster puts it there) and a scheduling policy (at `cluster_name`) are refused: the
  plan warns that apply refuses the change (no rule fails a plan), and apply fails with CLU-10 before the resource
  writes anything; when the cluster is known only at apply, apply refuses it before the first write all the same.
  The sandbox refuses task governance without the add-on too (ValidationException), so the rule is what the user sees
  first, not AWS's error.
* `TargetVersion`: AWS documents only "Target version"; the sandbox enforces either reading
  (`PUT /_sandbox/settings {"target_version": "current"|"next"}`), and the provider updates under both: one update
  call when the reading is the one it tries first, one retry (after a re-read) when not.
"""
import pytest

from harness.terraform import REFUSED_AT_APPLY
from hcl import provider
from test_tenant import P5, example, refused_at_apply, restrict

pytestmark = pytest.mark.provider

TG = "amazon-sagemaker-hyperpod-taskgovernance"
POLICY = "hyperpod_scheduling_policy.capacity"
RESEARCH, PRODUCTION = "hyperpod_tenant.research", "hyperpod_tenant.production"
NO_ADDON = "removes the task-governance add-on from a seeded EKS cluster (an account's shared cluster must keep it)"


def policy(cluster_name: str, weights=(90, 10), unknown: bool = False) -> str:
    """The scheduling policy alone; `unknown`: its cluster name is known only at apply (behind a terraform_data)."""
    name = f'terraform_data.later.id != "" ? "{cluster_name}" : "none"' if unknown else f'"{cluster_name}"'
    later = 'resource "terraform_data" "later" {\n  input = "x"\n}\n' if unknown else ""
    classes = "".join(f'\n  priority_class {{\n    name   = "{team}"\n    weight = {weight}\n  }}\n'
                      for team, weight in zip(("production", "research"), weights, strict=False))
    return provider() + later + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = {name}
  fair_share   = true
{classes}}}
"""


def remove_addon(sandbox, eks_cluster: str) -> None:
    sandbox.client("eks").delete_addon(clusterName=eks_cluster, addonName=TG)


def live_quotas(sandbox) -> list:
    """The names of the compute quotas that are not deleted."""
    summaries = sandbox.client("sagemaker").list_compute_quotas()["ComputeQuotaSummaries"]
    return [q["Name"] for q in summaries if q["Status"] not in ("Deleted", "Deleting")]


def live_policies(sandbox, cluster_name: str) -> list:
    sm = sandbox.client("sagemaker")
    arn = sm.describe_cluster(ClusterName=cluster_name)["ClusterArn"]
    summaries = sm.list_cluster_scheduler_configs(ClusterArn=arn)["ClusterSchedulerConfigSummaries"]
    return [s for s in summaries if s["Status"] not in ("Deleted", "Deleting")]


# ---- CLU-10 ----------------------------------------------------------------------------------------------------------
def test_with_the_addon_active_the_rule_passes(tf, fx):
    tf.write(policy(fx.clusters.eks.name))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()


@pytest.mark.sandbox_only(reason=NO_ADDON)
def test_a_scheduling_policy_plan_needs_the_addon(tf, fx, sandbox):
    remove_addon(sandbox, fx.clusters.eks.eks_cluster_name)
    tf.write(policy(fx.clusters.eks.name))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()  # a refusal never fails the plan
    diag = verdict.assert_rule("CLU-10", POLICY, "cluster_name")
    assert TG in diag.detail and fx.clusters.eks.eks_cluster_name in diag.detail, verdict.describe()
    assert [d.rule for d in verdict.refusals] == ["CLU-10"], verdict.describe()
    applied = tf.apply_json()
    assert applied.rc == 1, applied.describe()
    error = refused_at_apply(applied, "CLU-10", POLICY, "cluster_name")
    assert TG in error.detail, applied.describe()
    assert [d.rule for d in applied.errors] == ["CLU-10"], applied.describe()
    assert live_policies(sandbox, fx.clusters.eks.name) == []  # nothing written


def tenants_without_policy() -> str:
    """The post's two tenants and their contracts, without the scheduling policy (whose own CLU-10 refusal would leave
    its `governance` unknown at plan, so the tenants that reference it would be judged only at apply)."""
    settings = 'preempt_team_tasks = "Never"'
    config = example(production={"settings": settings}, research={"settings": settings})
    start = config.index('\nresource "hyperpod_scheduling_policy"')
    end = config.index('\nresource "hyperpod_tenant"')
    config = config[:start] + config[end:]
    return config.replace("scheduling_policy = hyperpod_scheduling_policy.capacity.governance", "")


@pytest.mark.sandbox_only(reason=NO_ADDON)
def test_a_tenant_plan_needs_the_addon(tf, fx, sandbox):
    tf.write(tenants_without_policy())
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()  # with the add-on, nothing to say
    remove_addon(sandbox, fx.clusters.eks.eks_cluster_name)
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()  # a refusal never fails the plan
    for address in (PRODUCTION, RESEARCH):
        diag = verdict.assert_rule("CLU-10", address, "contract")
        assert TG in diag.detail and fx.clusters.eks.eks_cluster_name in diag.detail, verdict.describe()
    assert {d.rule for d in verdict.refusals} == {"CLU-10"}, verdict.describe()
    # Apply refuses production; research, which borrows from it (borrows_from), is never applied after that.
    applied = tf.apply_json()
    error = refused_at_apply(applied, "CLU-10", PRODUCTION, "contract")
    assert TG in error.detail and applied.errors == [error], applied.describe()
    assert live_quotas(sandbox) == []  # neither tenant wrote anything (its quota is its first write)


@pytest.mark.sandbox_only(reason=NO_ADDON + "; counts the provider's calls")
def test_a_cluster_known_only_at_apply_is_checked_before_the_first_write(tf, fx, sandbox):
    remove_addon(sandbox, fx.clusters.eks.eks_cluster_name)
    tf.write(policy(fx.clusters.eks.name, unknown=True))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()  # the cluster is unknown: nothing to judge yet
    sandbox.reset_calls()
    applied = tf.apply_json()  # Terraform plans the policy again with its cluster known: that plan refuses it
    assert applied.rc == 1, applied.describe()
    diag = [d for d in applied.errors if d.rule == "CLU-10"]
    assert len(diag) == 1 and diag[0].address == POLICY and TG in diag[0].detail, applied.describe()
    assert REFUSED_AT_APPLY in diag[0].detail and applied.errors == diag, applied.describe()
    calls = sandbox.calls_by_caller().get("hyperpod_scheduling_policy", {})
    assert calls.get("eks.DescribeAddon") == 1, calls
    assert "sagemaker.CreateClusterSchedulerConfig" not in calls, calls
    assert live_policies(sandbox, fx.clusters.eks.name) == []


# ---- TargetVersion under both readings -------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="switches the sandbox's TargetVersion reading; counts the provider's calls")
@pytest.mark.parametrize("reading, update_calls", [("current", 1), ("next", 2)])
def test_scheduling_policy_updates_under_either_target_version_reading(tf, fx, sandbox, reading, update_calls):
    sandbox.admin("PUT", "settings", {"target_version": reading})
    tf.write(policy(fx.clusters.eks.name))
    tf.apply()
    tf.write(policy(fx.clusters.eks.name, weights=(80, 20)))
    sandbox.reset_calls()
    tf.apply()
    calls = sandbox.calls_by_caller()["hyperpod_scheduling_policy"]
    assert calls["sagemaker.UpdateClusterSchedulerConfig"] == update_calls, calls
    (summary,) = live_policies(sandbox, fx.clusters.eks.name)
    described = sandbox.client("sagemaker").describe_cluster_scheduler_config(
        ClusterSchedulerConfigId=summary["ClusterSchedulerConfigId"])
    assert described["ClusterSchedulerConfigVersion"] == 2
    assert {c["Name"]: c["Weight"] for c in described["SchedulerConfig"]["PriorityClasses"]} == \
        {"production": 80, "research": 20}
    verdict = tf.plan_json()
    assert verdict.rc == 0, verdict.describe()  # converged: nothing left to change


@pytest.mark.sandbox_only(reason="switches the sandbox's TargetVersion reading; counts the provider's calls")
def test_a_tenant_quota_update_under_the_next_reading(tf, sandbox):
    sandbox.admin("PUT", "settings", {"target_version": "next"})
    for team in ("production", "research"):
        restrict(sandbox, team)  # CLU-2's task view restrictions, as test_tenant makes them
    tf.write(example())
    tf.apply()
    tf.write(example(research={"quota": ((P5, 3),)}))
    sandbox.reset_calls()
    tf.apply()
    calls = sandbox.calls_by_caller()["hyperpod_tenant"]
    assert calls["sagemaker.UpdateComputeQuota"] == 2, calls  # the first tries "current", the retry "next"
    sm = sandbox.client("sagemaker")
    (quota,) = [q for q in sm.list_compute_quotas()["ComputeQuotaSummaries"]
                if q["Name"].startswith("research") and q["Status"] not in ("Deleted", "Deleting")]
    described = sm.describe_compute_quota(ComputeQuotaId=quota["ComputeQuotaId"])
    assert described["ComputeQuotaVersion"] == 2
    assert described["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["Count"] == 3
    verdict = tf.plan_json()
    assert verdict.rc == 0, verdict.describe()
