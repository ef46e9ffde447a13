"""`timeouts` as deadlines: a create, update or delete ends when its timeout runs out, whatever it is doing then.

A call sent before the deadline whose answer arrives after it fails (the sandbox delays the answer with a `latency`
fault), a wait still running at the deadline ends there (the sandbox's transitions are made longer than the timeout),
and what the timed-out operation wrote is adopted or replaced by the next apply: nothing is orphaned, and the plan
after it is empty. Each failure is one "Operation timed out" error on the resource, at `timeouts.<operation>`.
"""
import time

import pytest

from harness import PlanVerdict
from hcl import CLUSTER, provider
from test_scheduling_policy import ADDR, _wait_gone, live_configs, resource_state
from test_tenant import (
    assert_inventory_settles,
    describe_quota,
    example as tenant_example,
    restricted,  # noqa: F401 (the fixture the tenant test uses)
)

pytestmark = [pytest.mark.provider, pytest.mark.sandbox_only(reason="delays the sandbox's answers and transitions")]


def policy(create: str = "10m", delete: str = "10m") -> str:
    return provider() + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = "{CLUSTER}"
  fair_share   = true

  priority_class {{
    name   = "production"
    weight = 90
  }}

  timeouts {{
    create = "{create}"
    delete = "{delete}"
  }}
}}
"""


def timed_out(verdict: PlanVerdict, operation: str):
    """Exactly one "Operation timed out" error, naming the fix; a create's is on the policy, pointing at
    `timeouts { create = … }` (Terraform gives a destroy's diagnostics neither address nor range)."""
    matching = [d for d in verdict.errors if d.summary == "Operation timed out"]
    assert len(matching) == 1, verdict.describe()
    (diag,) = matching
    assert f"The {operation} did not finish within its timeout" in diag.detail, diag.detail
    assert f"timeouts {{ {operation} = " in diag.detail, diag.detail
    if operation != "delete":
        assert diag.address == ADDR, verdict.describe()
        assert (verdict.line(diag) or "").strip().startswith(f"{operation} "), verdict.describe()
    return diag


def apply_out_of_time(tf, create: str) -> None:
    """Apply the policy with `timeouts { create = <create> }`: it fails with the timeout's error, promptly."""
    tf.write(policy(create=create))
    started = time.monotonic()
    verdict = tf.apply_json()
    took = time.monotonic() - started
    assert verdict.rc == 1, verdict.describe()
    timed_out(verdict, "create")
    assert took < 30, f"the failed apply took {took:.1f} s"


def test_a_call_answered_after_the_create_timeout_fails_and_the_next_apply_adopts_what_it_made(tf, sandbox):
    """CreateClusterSchedulerConfig is answered 5 s after it is sent; the create may take 2 s. The apply fails when
    the answer arrives (not at the 10 minutes a waiter allows), with no state; SageMaker made the config, and the
    next apply adopts it by its ownership tag: one config, the same one, and an empty plan."""
    sandbox.fault("CreateClusterSchedulerConfig", "latency", ms=5000, service="sagemaker")
    apply_out_of_time(tf, create="2s")
    made = live_configs(sandbox)
    assert len(made) == 1, made
    assert tf.state_json().get("resources", []) == []

    tf.write(policy())
    tf.apply()
    assert resource_state(tf)["scheduler_config_id"] == made[0]["ClusterSchedulerConfigId"]
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [made[0]["ClusterSchedulerConfigId"]]
    tf.assert_no_changes()
    tf.destroy()
    assert live_configs(sandbox) == []


def test_a_wait_still_running_at_the_create_timeout_ends_there_and_the_next_apply_replaces(tf, sandbox):
    """SageMaker takes 60 s to settle a config; the create may take 3 s. The wait ends at the deadline (well before
    the transition), the config is in state, tainted, and the next apply (with time enough) replaces it: one config
    left, the new one."""
    sandbox.async_seconds(60)
    apply_out_of_time(tf, create="3s")
    instance = tf.state_json()["resources"][0]["instances"][0]
    assert instance["status"] == "tainted"
    failed_id = instance["attributes"]["scheduler_config_id"]
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [failed_id]

    sandbox.async_seconds(None)
    tf.write(policy())
    tf.apply()
    replaced = resource_state(tf)["scheduler_config_id"]
    assert replaced != failed_id
    assert [c["ClusterSchedulerConfigId"] for c in live_configs(sandbox)] == [replaced]
    tf.assert_no_changes()
    tf.destroy()
    assert live_configs(sandbox) == []


def test_a_delete_out_of_time_keeps_the_resource_in_state_and_the_next_destroy_finishes(tf, sandbox):
    """The delete may take 2 s; DeleteClusterSchedulerConfig is answered after 4 s. Destroy fails, the policy stays
    in state (nothing is forgotten). Once SageMaker has finished the deletion, the next destroy (still held to 2 s:
    the timeout is the state's) finishes: gone is success."""
    tf.write(policy(delete="2s"))
    tf.apply()
    sandbox.fault("DeleteClusterSchedulerConfig", "latency", ms=4000, service="sagemaker")
    verdict = tf.destroy_json()
    assert verdict.rc == 1, verdict.describe()
    timed_out(verdict, "delete")
    assert [r["address"] for r in tf.show_json()["values"]["root_module"]["resources"]] == [ADDR]

    _wait_gone(sandbox, resource_state(tf)["scheduler_config_id"], timeout=30)
    tf.destroy()
    assert live_configs(sandbox) == []
    assert tf.state_json().get("resources", []) == []


@pytest.mark.usefixtures("restricted")
def test_a_tenant_whose_quota_is_answered_after_the_create_timeout_is_adopted_by_the_next_apply(tf, sandbox):
    """The tenant's CreateComputeQuota is answered after its 3 s create timeout: that apply fails at the tenant's
    `timeouts`, SageMaker made the quota, and the next apply adopts it (its tags name the tenant): one quota, an
    empty plan, and destroy leaves the account as it found it."""
    before = sandbox.inventory()
    short = {"extra": 'timeouts {\n    create = "3s"\n  }'}
    sandbox.fault("CreateComputeQuota", "latency", ms=6000, service="sagemaker")
    tf.write(tenant_example(production=short))
    verdict = tf.apply_json()
    assert verdict.rc == 1, verdict.describe()
    matching = [d for d in verdict.errors if d.summary == "Operation timed out"]
    assert [d.address for d in matching] == ["hyperpod_tenant.production"], verdict.describe()
    assert (verdict.line(matching[0]) or "").strip().startswith("create "), verdict.describe()
    made = describe_quota(sandbox, "production")

    tf.write(tenant_example())
    tf.apply()
    assert describe_quota(sandbox, "production")["ComputeQuotaId"] == made["ComputeQuotaId"]
    tf.assert_no_changes()
    tf.destroy()
    assert_inventory_settles(sandbox, before)
