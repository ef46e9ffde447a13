"""The kill test: examples/quickstart applied with the provider killed right after each create call AWS (or the
Kubernetes API) accepted, one case per distinct create operation; each time the next apply converges, the plan after
it is empty, and destroy returns the sandbox inventory (IAM roles, compute quotas, scheduler configs, EKS access
entries and Pod Identity associations, KMS grants, Kubernetes objects, DataZone connections, memberships and policy
grants: sandbox/inventory.py) to the seed.

How a kill point is reached: a `hold` fault (sandbox/faults.py) on the operation's first call lets the sandbox
handle it (the object exists) and then holds its response back; once `GET /_sandbox/held` shows it, the provider
plugin of that `terraform apply` (a child of that Terraform process, found through /proc: harness/procs.py) gets
SIGKILL, the held response is released into a closed connection, and Terraform exits with the plugin's death as the
error, writing the state of whatever finished before.  That is the provider killed between AWS accepting a create
and Terraform recording it: the create must be adopted (ownership tags, a client token, or a name the object always
has: a binding's member record) by the next apply.

Which calls are creates (CREATE_OPERATIONS, checked against a clean apply's call counters by
test_the_quickstart_makes_exactly_these_creates, so a new create the provider starts making needs its case): every
call that makes a new object or relation — AWS operations named Create*, Add*, Associate*, Put* (an inline role
policy), Attach*, and Kubernetes `kubernetes.create.*` (POST) and `kubernetes.patch.*` (server-side apply can
create). Updates, tagging and deletes are not: they change what is already recorded.  One case per operation, at
its first call (Terraform's parallelism decides which resource makes it first), not one per call: 16 cases.
"""
import shutil
import time
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import PlanVerdict, TerraformError
from hcl import DOMAIN, PROFILE, UNIT, days_ago, provider
from test_capacity import P5, SIBLING_SHARE, configuration as capacity_configuration, live_quota

pytestmark = [pytest.mark.provider,
              pytest.mark.sandbox_only(reason="holds responses and kills the provider through the sandbox's faults")]

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
CREATE_PREFIXES = ("Create", "Add", "Associate", "Put", "Attach")
# What a clean quickstart apply creates, as the sandbox's call counters name it ("<service>.<operation>").
CREATE_OPERATIONS = [
    "datazone.AddPolicyGrant",
    "datazone.CreateConnection",
    "datazone.CreateProjectMembership",
    "eks.AssociateAccessPolicy",
    "eks.CreateAccessEntry",
    "eks.CreatePodIdentityAssociation",
    "iam.CreateRole",
    "iam.PutRolePolicy",
    "kms.CreateGrant",
    "kubernetes.create.networkpolicies",
    "kubernetes.create.rolebindings",
    "kubernetes.create.roles",
    "kubernetes.create.serviceaccounts",
    "sagemaker.CreateClusterSchedulerConfig",
    "sagemaker.CreateComputeQuota",
    "ssm.PutParameter",
]
HELD_WITHIN = 120.0  # seconds from `terraform apply` to the held call (a clean apply takes ~6 s here)


def is_create(call: str) -> bool:
    service, operation = call.split(".", 1)
    if service == "kubernetes":
        return operation.startswith(("create.", "patch."))
    return operation.startswith(CREATE_PREFIXES)


def fault_target(call: str) -> tuple[str, str]:
    """(service, operation) as a fault names them: AWS "CreateRole" with service "iam"; Kubernetes by full name."""
    service, operation = call.split(".", 1)
    return (service, call) if service == "kubernetes" else (service, operation)


def quickstart(tf) -> None:
    for path in sorted(QUICKSTART.glob("*.tf")):
        shutil.copy(path, tf.dir / path.name)
    # Reviewed ten days ago, so the contracts never go overdue (LIF-1) whenever the test runs.
    tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, QUICKSTART)
    tf.init()


def inventory_diff(before, after, path="") -> list[str]:
    """What differs between two inventories, one line per leaf: "+ path" (only after: orphaned), "- path" (only
    before: deleted), "~ path: before -> after"."""
    if isinstance(before, dict) and isinstance(after, dict):
        lines = []
        for key in sorted(set(before) | set(after), key=str):
            sub = f"{path}/{key}" if path else str(key)
            if key not in before:
                lines.append(f"+ {sub}")
            elif key not in after:
                lines.append(f"- {sub}")
            else:
                lines.extend(inventory_diff(before[key], after[key], sub))
        return lines
    if isinstance(before, list) and isinstance(after, list) and before != after:
        removed = [x for x in before if x not in after]
        added = [x for x in after if x not in before]
        return [f"+ {path}: {x}" for x in added] + [f"- {path}: {x}" for x in removed] or [f"~ {path}: order"]
    return [] if before == after else [f"~ {path}: {before!r} -> {after!r}"]


def errors(result) -> str:
    """The error part of Terraform's output (its stderr), short enough for a failure message."""
    text = result.stderr.strip() or result.stdout.strip()
    return text[-3000:]


def apply_killed_at(tf, sandbox, call: str):
    """`terraform apply` with its provider killed right after the first `call` the sandbox accepted; returns
    Terraform's result (the apply failed: the plugin died)."""
    service, operation = fault_target(call)
    sandbox.fault(operation, "hold", service=service)
    run = tf.start("apply", "-json", "-auto-approve", "-input=false")
    try:
        held = sandbox.wait_held(HELD_WITHIN, while_running=run.running)
        assert [(h["service"], h["operation"]) for h in held] == [(service, operation)], held
        run.kill_provider()
    finally:
        sandbox.release_held()
        killed = run.wait()
    sandbox.clear_faults()
    verdict = PlanVerdict.from_plan_output(killed.rc, killed.stdout, tf.dir, killed.stderr, killed)
    # One such error per resource whose call was in flight when the plugin died.
    # Terraform reports a provider that died mid-request as "Plugin did not respond", as "Request cancelled" for a
    # request (e.g. a validation) it was sending to that provider at the moment it died, and as "Error in function
    # call" for a provider function (the quickstart's team_namespace) it evaluated then. The same configuration
    # applies cleanly afterwards, so none of these is the configuration's fault.
    assert killed.rc == 1 and verdict.errors and {d.summary for d in verdict.errors} <= {
        "Plugin did not respond", "Request cancelled", "Error in function call"}, \
        f"the apply did not end with its provider's death:\n{verdict.describe()}"
    return killed


def test_the_quickstart_makes_exactly_these_creates(tf, sandbox):
    """A clean apply makes exactly CREATE_OPERATIONS' creates (else a case is missing or stale), plans empty and
    destroys to the seed."""
    quickstart(tf)
    seed = sandbox.inventory()
    sandbox.reset_calls()
    tf.apply()
    creates = sorted(call for call in sandbox.calls() if is_create(call))
    assert creates == CREATE_OPERATIONS
    tf.assert_no_changes()
    tf.destroy()
    assert inventory_diff(seed, sandbox.inventory()) == []


STEPS = [("apply after the kill", lambda tf: tf.apply()),  # must converge in one apply
         ("plan after that apply", lambda tf: tf.plan(check=False)),  # must be empty: -detailed-exitcode 0
         ("destroy", lambda tf: tf.destroy())]  # then the inventory must be the seed's


@pytest.mark.parametrize("call", CREATE_OPERATIONS)
def test_killed_right_after_create(tf, sandbox, call):
    """The quickstart, killed right after the first `call` was accepted: the next apply converges, then plans
    empty, and destroy leaves the seed."""
    quickstart(tf)
    seed = sandbox.inventory()
    apply_killed_at(tf, sandbox, call)

    assert inventory_diff(seed, sandbox.inventory()), f"{call}: nothing was created before the kill"

    for step, run_step in STEPS:
        failure = None
        try:
            result = run_step(tf)
        except TerraformError as e:
            failure = errors(e.result)
        else:
            if step.startswith("plan") and result.rc != 0:
                failure = f"not empty (rc {result.rc}):\n{result.stdout[-3000:]}{result.stderr[-2000:]}"
        if failure is not None:
            tf.destroy(check=False)  # what a user would try next: what does it leave behind?
            orphans = inventory_diff(seed, sandbox.inventory())
            pytest.fail(f"{call}: {step} failed:\n{failure}\n\nleft after a destroy:\n  "
                        + "\n  ".join(orphans or ["(nothing)"]), pytrace=False)
    orphans = inventory_diff(seed, sandbox.inventory())
    assert not orphans, f"{call}: destroy left the sandbox different from the seed:\n  " + "\n  ".join(orphans)


GRANT_ONLY = provider() + f"""

resource "hyperpod_domain_unit_policy_grant" "hyperpod_projects" {{
  domain_id           = "{DOMAIN}"
  domain_unit_id      = "{UNIT}"
  project_profile_ids = ["{PROFILE}"]

  principal {{
    domain_unit_id = "{UNIT}"
    designation    = "OWNER"
  }}
}}
"""


def test_a_grant_added_by_a_killed_apply_is_adopted(tf, sandbox):
    """The grant alone (nothing else in flight): DataZone accepted AddPolicyGrant, the provider died before Terraform
    recorded it; the next apply adopts that very grant (no second one, no conflict), plans empty, destroys it."""
    tf.write(GRANT_ONLY)
    tf.init()
    seed = sandbox.inventory()
    apply_killed_at(tf, sandbox, "datazone.AddPolicyGrant")
    dz = sandbox.client("datazone")
    listed = lambda: dz.list_policy_grants(  # noqa: E731
        domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=UNIT,
        policyType="CREATE_PROJECT_FROM_PROJECT_PROFILE")["grantList"]
    [orphan] = listed()
    tf.apply()
    [live] = listed()
    assert live["grantId"] == orphan["grantId"]
    state = tf.show_json()["values"]["root_module"]["resources"][0]["values"]
    assert state["grant_id"] == orphan["grantId"]
    tf.assert_no_changes()
    tf.destroy()
    assert inventory_diff(seed, sandbox.inventory()) == []


# ---- killed inside the claim window ---------------------------------------------------------------------------------
def alpha_quotas(sandbox) -> list[str]:
    """The statuses of alpha's compute quotas on the cluster (deleted ones left out)."""
    listed = sandbox.client("sagemaker").list_compute_quotas()["ComputeQuotaSummaries"]
    return [q["Status"] for q in listed if q["ComputeQuotaTarget"]["TeamName"] == "alpha"
            and q["Status"] != "Deleted"]


@pytest.mark.parametrize("reading", ["refuse", "accept"])
def test_killed_in_the_claim_window_leaves_no_overcommit(tf, sandbox, reading):
    """alpha (a tenant without allocation) is guaranteed SIBLING_SHARE of the training group. While its
    CreateComputeQuota waits, another pipeline creates a quota of the same share for team sideline, so alpha's
    is the later one and the two overcommit the group. Whether SageMaker refuses it is undocumented (readings.py
    `quota_capacity`): under "refuse" the apply fails WKL-3 and nothing of alpha exists; under "accept" the quota
    is created and the provider is killed right after (inside its claim window, before the claim check). Either way
    the next apply ends with WKL-3 on alpha and no quota of alpha (the interrupted claim is withdrawn, not
    left: 12 of 8 instances guaranteed for good), and destroy succeeds and leaves none."""
    sandbox.admin("PUT", "settings", {"quota_capacity": reading})
    tf.write(capacity_configuration({"alpha": [(P5, "count", SIBLING_SHARE)]}, with_allocation=False))
    sandbox.fault("CreateComputeQuota", "latency", ms=4000)  # alpha's create waits ...
    run = tf.start("apply", "-json", "-auto-approve", "-input=false")
    try:
        deadline = time.monotonic() + HELD_WITHIN
        while not sandbox.calls().get("sagemaker.CreateComputeQuota") and run.running():
            assert time.monotonic() < deadline, "alpha's CreateComputeQuota never came"
            time.sleep(0.05)
        live_quota(sandbox, "sideline", [{"InstanceType": P5, "Count": SIBLING_SHARE}])  # ... while this one is made
        sandbox.fault("CreateComputeQuota", "hold", service="sagemaker")
        if reading == "accept":
            held = sandbox.wait_held(HELD_WITHIN, while_running=run.running)
            assert [h["operation"] for h in held] == ["CreateComputeQuota"], held
            run.kill_provider()
    finally:
        sandbox.release_held()
        first = run.wait()
    sandbox.clear_faults()
    assert first.rc == 1, first.stdout[-3000:]
    assert len(alpha_quotas(sandbox)) == (1 if reading == "accept" else 0), alpha_quotas(sandbox)

    second = tf.apply_json()
    assert second.rc == 1, second.describe()
    assert [(d.rule, d.address) for d in second.errors] == [("WKL-3", "hyperpod_tenant.alpha")], \
        second.describe()
    assert alpha_quotas(sandbox) == [], "the interrupted claim must be withdrawn, never kept"
    assert tf.destroy(check=False).rc == 0
    assert alpha_quotas(sandbox) == []
