"""The provider's documented least privilege (docs/guides/permissions.md, generated from src/permissions.rs)
against the calls it actually makes: the quickstart is planned, applied, planned again, its tenants and scheduling
policy imported, and destroyed against the sandbox, which counts every AWS and Kubernetes call per caller (the
resource, data source or `provider` step named in the x-hyperpod-caller header the provider sends).

Both directions, per caller:
* every call it made is in its policy (else a user with the documented policy gets AccessDenied);
* every action of its policy was exercised (a call seen, or for a permission AWS checks on another call, that call
  seen), unless the table says why no scenario can take that path; so the policy does not grant more than it needs.
Kubernetes requests are checked one way (each is in the caller's RBAC), and each RBAC resource must be used.
"""
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import test_task_view_restriction as restriction
import test_team_usage as team_usage
from example_vars import write_example_variables
from harness import Terraform
from hcl import days_ago

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "guides" / "permissions.md"
QUICKSTART = REPO / "examples" / "quickstart"
KUBERNETES = "kubernetes."
# Kubernetes requests every authenticated user may make (system:discovery, system:public-info-viewer).
KUBERNETES_PUBLIC = {"kubernetes.get.discovery", "kubernetes.get.version"}

pytestmark = [pytest.mark.provider,
              pytest.mark.sandbox_only(reason="reads the sandbox's per-caller call counters")]


def documented_table() -> dict:
    """The machine-readable table at the end of the guide: {caller: {kind, actions: {...}, kubernetes: [...]}}."""
    text = GUIDE.read_text()
    section = text[text.index("## Machine-readable table"):]
    match = re.search(r"```json\n(.*?)\n```", section, re.S)
    assert match, f"{GUIDE}: no JSON block under 'Machine-readable table'"
    return json.loads(match.group(1))


def merge(total: dict, counts: dict) -> None:
    for caller, operations in counts.items():
        for operation, n in operations.items():
            total.setdefault(caller, {}).setdefault(operation, 0)
            total[caller][operation] += n


def as_action(operation: str) -> str:
    """"sagemaker.DescribeCluster" (the sandbox's counter) -> "sagemaker:DescribeCluster" (IAM)."""
    service, name = operation.split(".", 1)
    return f"{service}:{name}"


def compare(table: dict, observed: dict) -> list[str]:
    """Every way the table and the calls disagree, one line each; [] when they agree."""
    problems = []
    for caller, operations in sorted(observed.items()):
        if caller == "":
            continue  # not the provider's: the test's own boto3 calls
        entry = table.get(caller)
        if entry is None:
            problems.append(f"{caller}: made calls {sorted(operations)} but the table has no such caller")
            continue
        rbac = {(rule["resource"], verb) for rule in entry["kubernetes"] for verb in rule["verbs"]}
        for operation, n in sorted(operations.items()):
            if operation.startswith(KUBERNETES):
                if operation in KUBERNETES_PUBLIC:
                    continue
                _, verb, resource = operation.split(".", 2)
                if (resource, verb) not in rbac:
                    problems.append(f"{caller}: made {n} Kubernetes `{verb} {resource}` request(s) outside its RBAC")
            elif as_action(operation) not in entry["actions"]:
                problems.append(f"{caller}: called {as_action(operation)} {n}x, which its policy does not allow")
    # Every action of the table was exercised by some caller: reads that one resource made are shared with the
    # others of the same run (aws/shared_reads.rs), so which caller makes a shared read depends on the order.
    seen = {as_action(op) for operations in observed.values() for op in operations if not op.startswith(KUBERNETES)}
    expected: dict[str, tuple[str, dict]] = {}
    for caller, entry in sorted(table.items()):
        for action, facts in entry["actions"].items():
            if not facts["unexercised"]:
                expected.setdefault(action, (caller, facts))
    for action, (caller, facts) in sorted(expected.items()):
        if not ((facts["called"] and action in seen) or facts["implied_by"] in seen):
            also = f" nor {facts['implied_by']}" if facts["implied_by"] else ""
            problems.append(f"{caller}: {action} is in its policy but no scenario called it{also} (exercise it, "
                            "remove it, or mark it unexercised with the reason)")
    # And a reason given for not exercising an action must still hold.
    for caller, entry in sorted(table.items()):
        for action, facts in sorted(entry["actions"].items()):
            if facts["unexercised"] and action in seen and action not in expected:
                problems.append(f"{caller}: {action} is marked unexercised ({facts['unexercised']}) but a scenario "
                                "called it: drop the mark")
    for caller, entry in sorted(table.items()):
        used = {op.split(".", 2)[2] for op in observed.get(caller, {})
                if op.startswith(KUBERNETES) and op not in KUBERNETES_PUBLIC}
        for rule in entry["kubernetes"]:
            if rule["resource"] not in used:
                problems.append(f"{caller}: its RBAC lists {rule['resource']} but no scenario touched them")
    return problems


def quickstart(tf: Terraform) -> None:
    for source in sorted(QUICKSTART.glob("*.tf")):
        shutil.copy(source, tf.dir / source.name)
    # Reviewed ten days ago, so the quickstart's contracts never go overdue (LIF-1) under the test.
    (tf.dir / "terraform.tfvars").write_text(f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, QUICKSTART)


# Edits that take the update paths: a quota's weight, the policy's description and tags, a connection's
# description, and the provider's default tags (removed from every role, quota, config and association).
UPDATES = {
    "tenants.tf": [("fair_share_weight  = 90", "fair_share_weight  = 80")],
    "main.tf": [('description           = "Spaces first; production first among tasks and bursts into idle research '
                 'capacity"',
                 'description           = "Spaces first"'),
                ('"cost-center" = "ml-platform"', ""),
                ('"managed-by" = "terraform"', "")],
    "access.tf": [("capacity\"\n", "capacity (updated)\"\n")],
}


def managed_policy_on_project_role(sandbox) -> None:
    """A customer managed policy on the research project role, so the contract's PRJ-2 reads managed policies too."""
    iam = sandbox.client("iam")
    document = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject",
                                                        "Resource": "arn:aws:s3:::research-data/*"}]}
    arn = iam.create_policy(PolicyName="research-data-read", PolicyDocument=json.dumps(document))["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=restriction.RESEARCH_ROLE_NAME, PolicyArn=arn)


def quickstart_scenario(tf: Terraform, sandbox) -> None:
    """The quickstart's plan, apply, second plan, an update of each kind, re-import of its scheduling policy and of
    its tenants without KMS keys (the import paths list what they find), refresh-only plan, and destroy."""
    managed_policy_on_project_role(sandbox)
    quickstart(tf)
    tf.init()
    tf.plan()
    tf.apply()
    tf.plan()
    for name, edits in UPDATES.items():
        text = (tf.dir / name).read_text()
        for old, new in edits:
            assert old in text, f"examples/quickstart/{name} no longer has {old!r}: update UPDATES"
            text = text.replace(old, new)
        (tf.dir / name).write_text(text)
    tf.apply()
    state = tf.show_json()["values"]["root_module"]["resources"]
    cluster = next(r["values"]["name"] for r in state if r["type"] == "hyperpod_cluster")
    for resource in state:
        # An imported tenant does not find the KMS grants it made (their IDs are only in state): import the others.
        if resource["type"] == "hyperpod_tenant" and ":key/" not in json.dumps(resource["values"].get("data")):
            values = resource["values"]
            tf.run("state", "rm", resource["address"])
            tf.import_(resource["address"], f"{cluster}/{values['team']}")
        elif resource["type"] == "hyperpod_scheduling_policy":
            tf.run("state", "rm", resource["address"])
            tf.import_(resource["address"], cluster)
    tf.plan(["-refresh-only"])
    tf.destroy()


def rbac_restriction_scenario(tf: Terraform) -> None:
    """A task view restriction in rbac mode (Kubernetes Role, RoleBinding, ClusterRole, ClusterRoleBinding and the
    access entry's groups), switched to access_policy mode and back, then destroyed (test_task_view_restriction)."""
    rbac = restriction.config(restriction.RBAC_MODE, scope=restriction.RBAC_SCOPE)
    tf.write(rbac)
    tf.apply()
    tf.write(restriction.config(restriction.RBAC_MODE.replace('"rbac"', '"access_policy"'),
                                scope=restriction.RBAC_SCOPE))
    tf.apply()
    tf.write(rbac)
    tf.apply()
    tf.destroy()


def slurm_restriction_scenario(tf: Terraform, sandbox) -> None:
    """A Slurm restriction: Session Manager preferences read, the project role tagged and untagged."""
    restriction.enable_run_as(sandbox)
    restriction.start_session_policy(sandbox, [restriction.SLURM_ARN,
                                               f"arn:aws:ssm:{restriction.REGION}:{restriction.ACCOUNT}"
                                               f":document/{restriction.PREFERENCES}"])
    tf.write(restriction.slurm_config())
    tf.apply()
    tf.destroy()


def usage_scenario(tf: Terraform) -> None:
    """The team usage data source over the seeded Kueue metrics (test_team_usage): CloudWatch GetMetricData."""
    profiles, _ = team_usage.seed_profiles()
    team_usage.apply_contract(tf)
    tf.write(team_usage.config([team["team"] for team in profiles.values()]))
    tf.apply()
    tf.destroy()


@pytest.fixture(scope="module")
def observed(sandbox, tmp_path_factory) -> Iterator[dict]:
    """Calls per caller over every scenario, each from the sandbox's seed."""
    total: dict[str, dict[str, int]] = {}
    scenarios = {"quickstart": lambda tf: quickstart_scenario(tf, sandbox), "rbac": rbac_restriction_scenario,
                 "slurm": lambda tf: slurm_restriction_scenario(tf, sandbox), "usage": usage_scenario}
    for name, scenario in scenarios.items():
        sandbox.reset()
        scenario(Terraform(tmp_path_factory.mktemp(name), sandbox.env()))
        merge(total, sandbox.calls_by_caller())
    yield total


def test_every_call_is_permitted_and_every_permission_is_used(observed):
    problems = compare(documented_table(), observed)
    assert not problems, "docs/guides/permissions.md (src/permissions.rs) against the calls made:\n  " \
                         + "\n  ".join(problems) + "\n\nobserved per caller:\n" + json.dumps(observed, indent=1)


def test_the_comparison_fails_when_an_action_is_missing_or_unused(observed):
    """The check itself can fail both ways: drop an action a tenant called, and add one nobody calls."""
    table = documented_table()
    assert "eks:DescribeAddon" in table["hyperpod_connection_contract"]["actions"]
    del table["hyperpod_connection_contract"]["actions"]["eks:DescribeAddon"]
    table["hyperpod_tenant"]["actions"]["sagemaker:DeleteCluster"] = {
        "called": True, "implied_by": None, "granted": True, "unexercised": None}
    problems = compare(table, observed)
    assert any(p.startswith("hyperpod_connection_contract: called eks:DescribeAddon") for p in problems), problems
    assert any(p.startswith("hyperpod_tenant: sagemaker:DeleteCluster is in its policy") for p in problems), problems
    assert len(problems) == 2, problems
