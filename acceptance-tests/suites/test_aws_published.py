"""What AWS itself publishes for HyperPod task governance and Studio access, written in HCL as the provider's docs
teach, against the sandbox: each setup plans with zero diagnostics at both parallelisms, applies, plans empty next,
and the objects read back from the sandbox equal AWS's request field by field. Each test names its source; every
difference from AWS's request is named beside it (`Differences`) with why, and nothing else may differ.

* AWS's two-team setup (awslabs Task Governance page; the HyperPod CLI walkthrough): two teams that lend to each other,
  `LendAndBorrow` with a borrow limit, on the first plan: the cluster allocation records who lends (WKL-5), so no
  tenant names the other in `borrows_from` (a cycle). The HCL is examples/aws-two-teams, which the rules guide shows.
* The developer guide's GPU-partition quota: MIG slices of an A100 instance type, lending and borrowing.
* A team's share alone: no `workload` block, no IAM role, service account or Pod Identity association (a workload
  added later and removed again converges).
* One effective configuration, one verdict: SageMaker's default sharing written out or left out, a borrower with no
  lender yet (nothing to borrow until one lends) plan clean alike.
* Studio access as AWS's add-user page grants it (the space policies alone, no cluster-scoped user policy) and as the
  "restrict task view" page does (the team namespace plus the template namespace and the cluster-scoped user policy).
* Quota-shaped entries are checked alike at plan: an absolute borrow limit of an instance type the cluster has no
  group of is refused at its entry (WKL-5), the same entry twice is invalid at `terraform validate`, and an
  allocation whose teams overcommit the cluster is refused at the entry of the team admitted last (WKL-3), whether
  or not that team has a tenant yet.

Each test's docstring names the page it transcribes; the requests are quoted from AWS's pages (AWS_SCHEDULER_CONFIG,
aws_quota and the tests' `request`s).
"""
import shutil
from pathlib import Path

import pytest

from example_vars import write_example_variables
from hcl import CLUSTER, EKS_CLUSTER as EKS, FX, contract_resource, days_ago, provider
from test_task_view_restriction import live_policies

pytestmark = pytest.mark.provider

REPO = Path(__file__).resolve().parents[2]
TWO_TEAMS = REPO / "examples" / "aws-two-teams"
AWSLABS = "https://awslabs.github.io/ai-on-sagemaker-hyperpod/docs/add-ons/Task%20Governance/Task%20Governance%20for%20Training"
CLI_WALKTHROUGH = ("https://github.com/aws/sagemaker-hyperpod-cli/blob/main/examples/end_to_end_walkthrough/"
                   "00-getting-started/00-setup.md")
GPU_PARTITION = ("https://docs.aws.amazon.com/sagemaker/latest/dg/"
                 "sagemaker-hyperpod-eks-operate-console-ui-governance-policies-compute-allocation.html")
ADD_USER = "https://docs.aws.amazon.com/sagemaker/latest/dg/add-user.html"
RESTRICT_TASK_VIEW = ("https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-studio-setup-eks.html"
                      "#sagemaker-hyperpod-studio-setup-eks-restrict-tasks-view")

GROUPS = FX.clusters.eks.instance_groups
G5, P4D = GROUPS.inference.instance_type, GROUPS.partitioned.instance_type
assert G5 == "ml.g5.8xlarge" and GROUPS.inference.count == 4, "AWS's page splits 4 ml.g5.8xlarge between two teams"
assert P4D == "ml.p4d.24xlarge" and GROUPS.partitioned.partition_config == "all-1g.5gb"

# The cluster policy both pages create (create-cluster-scheduler-config), as the request's SchedulerConfig.
AWS_SCHEDULER_CONFIG = {
    "Name": "example-cluster-scheduler-config",
    "SchedulerConfig": {
        "PriorityClasses": [{"Name": "inference", "Weight": 90}, {"Name": "experimentation", "Weight": 80},
                            {"Name": "fine-tuning", "Weight": 50}, {"Name": "training", "Weight": 70}],
        "FairShare": "Enabled",
    },
}


def aws_quota(name: str, team: str, instance_type: str, count: int, borrow_limit: int) -> dict:
    """The create-compute-quota request both two-team pages publish, as the API takes it."""
    return {
        "Name": name,
        "ComputeQuotaConfig": {
            "ComputeQuotaResources": [{"InstanceType": instance_type, "Count": count}],
            "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": borrow_limit},
            "PreemptTeamTasks": "LowerPriority",
        },
        "ActivationState": "Enabled",
        "ComputeQuotaTarget": {"TeamName": team, "FairShareWeight": 0},
    }


# What SageMaker fills in that no request sets (DescribeComputeQuota): the ratio-based amounts of a whole-instance or
# MIG entry ("SageMaker AI automatically allocates ratio-based values for those parameters",
# ComputeQuotaResourceConfig in the API reference).
FILLED_BY_SAGEMAKER = frozenset({"Accelerators", "VCpu", "MemoryInGiB"})


def leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, path + (index,))
    else:
        yield path, node


def at(node, path):
    for step in path:
        if isinstance(node, dict):
            if step not in node:
                return KeyError
            node = node[step]
        elif isinstance(step, int) and isinstance(node, list) and step < len(node):
            node = node[step]
        else:
            return KeyError
    return node


def assert_as_requested(live: dict, request: dict, differences: dict, filled: frozenset[str] = frozenset()):
    """Every field of AWS's `request` is in `live` with its value, but for `differences` ({path: (value the
    provider's object has, why)}); and `live` holds nothing under the request's top-level fields the request did not
    set but the `filled` fields the service derives (by their last name)."""
    for path, wanted in leaves(request):
        expected = differences[path][0] if path in differences else wanted
        assert at(live, path) == expected, (path, at(live, path), expected)
    requested = {path for path, _ in leaves(request)}
    for path, value in leaves({key: live[key] for key in request if key in live}):
        if path in requested or path in differences:
            continue
        assert path[-1] in filled and isinstance(path[-2], int), f"{path} = {value!r} is not in AWS's request"
    for path, (value, _why) in differences.items():
        if path not in requested:
            assert at(live, path) == value, (path, at(live, path), value)


def quotas(sandbox) -> dict:
    """team -> DescribeComputeQuota, for every compute quota on the cluster."""
    sm = sandbox.client("sagemaker")
    described = [sm.describe_compute_quota(ComputeQuotaId=q["ComputeQuotaId"])
                 for q in sm.list_compute_quotas()["ComputeQuotaSummaries"] if q["Status"] != "Deleted"]
    return {q["ComputeQuotaTarget"]["TeamName"]: q for q in described}


def scheduler_config(sandbox) -> dict:
    sm = sandbox.client("sagemaker")
    (summary,) = [c for c in sm.list_cluster_scheduler_configs()["ClusterSchedulerConfigSummaries"]
                  if c["Status"] != "Deleted"]
    return sm.describe_cluster_scheduler_config(ClusterSchedulerConfigId=summary["ClusterSchedulerConfigId"])


def plans_clean_applies_and_converges(tf) -> dict:
    """Zero diagnostics at -parallelism=1 and 10 (ours and Terraform's), apply, an empty next plan; the state's
    resources by address. Initialises the working dir once (init again would look the provider in state up)."""
    if not (tf.dir / "terraform.tfstate").exists():
        tf.init()
    for parallelism in (1, 10):
        verdict = tf.plan_json([f"-parallelism={parallelism}"])
        assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    tf.apply()
    tf.assert_no_changes()
    return {r["address"]: r["values"] for r in tf.show_json()["values"]["root_module"]["resources"]}


def two_teams(tf, **variables) -> None:
    """examples/aws-two-teams with the fixture's names and `variables`."""
    shutil.copytree(TWO_TEAMS, tf.dir, dirs_exist_ok=True)
    write_example_variables(tf, TWO_TEAMS)
    lines = [f'last_reviewed = "{days_ago(10)}"']
    for name, value in variables.items():
        rendered = "[" + ", ".join(f'"{v}"' for v in value) + "]" if isinstance(value, list) else (
            f'"{value}"' if isinstance(value, str) else str(value))
        lines.append(f"{name} = {rendered}")
    tf.write_file("terraform.tfvars", "\n".join(lines) + "\n")


def test_awslabs_two_teams_that_lend_to_each_other_plan_clean_and_read_back_as_aws_wrote_them(tf, sandbox):
    """https://awslabs.github.io/ai-on-sagemaker-hyperpod/docs/add-ons/Task%20Governance/Task%20Governance%20for%20Training
    (AWSLABS): Team-A-Quota-Allocation and Team-B-Quota-Allocation, 2 x ml.g5.8xlarge each (the cluster's 4),
    LendAndBorrow 50 %, FairShareWeight 0; the example-cluster-scheduler-config policy. Not differences: the
    provider tags the quota (governance tags, not part of DescribeComputeQuota) and adds each team's contract and
    RBAC; no workload identity is made."""
    two_teams(tf)
    state = plans_clean_applies_and_converges(tf)
    live = quotas(sandbox)
    assert set(live) == {"team-a", "team-b"}
    for team, name in (("team-a", "Team-A-Quota-Allocation"), ("team-b", "Team-B-Quota-Allocation")):
        assert_as_requested(live[team], aws_quota(name, team, "ml.g5.8xlarge", 2, 50), {}, FILLED_BY_SAGEMAKER)
        assert "Description" not in live[team], live[team]
        tenant = state[f'hyperpod_tenant.team["{team}"]']
        # The checklist says why it is clean: WKL-5 evaluated and passed.
        assert "WKL-5" in tenant["passed_checks"].split(), tenant["passed_checks"]
        assert tenant["workload_role_arn"] is None and "iam_role" not in tenant["components"], tenant["components"]
    assert_as_requested(scheduler_config(sandbox), AWS_SCHEDULER_CONFIG, {})


def test_the_hyperpod_cli_walkthrough_two_teams_plan_clean_and_read_back_as_aws_wrote_them(tf, sandbox):
    """https://github.com/aws/sagemaker-hyperpod-cli/blob/main/examples/end_to_end_walkthrough/00-getting-started/00-setup.md
    (CLI_WALKTHROUGH): Team-A and Team-B, 1 x ml.g5.12xlarge each, LendAndBorrow 100 %, FairShareWeight 0."""
    two_teams(tf, quota_names=["Team-A", "Team-B"], instances_per_team=1, borrow_limit=100)
    plans_clean_applies_and_converges(tf)
    live = quotas(sandbox)
    substituted = {("ComputeQuotaConfig", "ComputeQuotaResources", 0, "InstanceType"): (
        G5, "the sandbox's cluster has no ml.g5.12xlarge group; the walkthrough's only instance type, substituted")}
    for team, name in (("team-a", "Team-A"), ("team-b", "Team-B")):
        assert_as_requested(live[team], aws_quota(name, team, "ml.g5.12xlarge", 1, 100), substituted,
                            FILLED_BY_SAGEMAKER)


def one_team(team: str, allocation_row: str, *blocks: str) -> str:
    """Provider, a contract of the research project for `team`, the cluster allocation with the team's
    `allocation_row`, and the tenant (`hyperpod_tenant.<team with _>`) with `blocks` and the team's groups."""
    label = team.replace("-", "_")
    contract = contract_resource(label, name=f"{team}-on-{CLUSTER}", scope=f'eks_namespaces = ["hyperpod-ns-{team}"]')
    allocation = (f'\nresource "hyperpod_cluster_allocation" "capacity" {{\n  cluster_name = "{CLUSTER}"\n'
                  f"  teams = {{\n    {team} = {allocation_row}\n  }}\n}}\n")
    lines = [f"contract   = hyperpod_connection_contract.{label}.governance",
             "allocation = hyperpod_cluster_allocation.capacity.governance",
             f'team       = "{team}"', *blocks,
             f'viewer_groups   = ["{team}-viewers"]\n  operator_groups = ["{team}-operators"]']
    body = "\n\n  ".join(lines)
    return provider() + contract + allocation + f'\nresource "hyperpod_tenant" "{label}" {{\n  {body}\n}}\n'


def test_the_developer_guides_gpu_partition_quota_plans_clean_and_reads_back_as_aws_wrote_it(tf, sandbox):
    """https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance-policies-compute-allocation.html
    (GPU_PARTITION, "Allocating GPU partition quota"): fractional-gpu-quota, 4 x mig-1g.5gb on ml.p4d.24xlarge,
    LendAndBorrow 100 %. The published request is a fragment without --cluster-arn and --compute-quota-target (both
    required by CreateComputeQuota): the test gives the team "gpu-team"."""
    partition = '{ type = "mig-1g.5gb", count = 4 }'
    tf.write(one_team(
        "gpu-team",
        f'{{ quota = [{{ instance_type = "{P4D}", accelerator_partition = {partition} }}],'
        ' sharing = { strategy = "LendAndBorrow", borrow_limit = 100 } }',
        'compute_quota_name = "fractional-gpu-quota"\n  compute_quota_description = ""',
        f'quota {{\n    instance_type         = "{P4D}"\n    accelerator_partition = {partition}\n  }}',
        'sharing {\n    strategy     = "LendAndBorrow"\n    borrow_limit = 100\n  }'))
    plans_clean_applies_and_converges(tf)
    request = {
        "Name": "fractional-gpu-quota",
        "ComputeQuotaConfig": {
            "ComputeQuotaResources": [
                {"InstanceType": P4D, "AcceleratorPartition": {"Count": 4, "Type": "mig-1g.5gb"}},
            ],
            "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 100},
        },
    }
    differences = {
        ("ComputeQuotaConfig", "PreemptTeamTasks"): (
            "LowerPriority", "the provider sends SageMaker's default, PreemptTeamTasks = LowerPriority, explicitly"),
        ("ComputeQuotaTarget", "TeamName"): ("gpu-team", "the fragment sets no target; the API requires one"),
        ("ActivationState",): ("Enabled", "the provider sends SageMaker's default, Enabled, explicitly"),
    }
    assert_as_requested(quotas(sandbox)["gpu-team"], request, differences, FILLED_BY_SAGEMAKER)


def test_a_lone_borrower_and_sagemakers_default_sharing_written_out_or_not_plan_clean_alike(tf, sandbox):
    """A team that borrows with nobody lending yet is accepted by SageMaker (nothing to borrow until a team lends):
    zero diagnostics, WKL-5 passed; and its sharing left out (SageMaker's default, LendAndBorrow 50 %) is the same
    verdict as written out, whether the allocation records it or not."""
    quota = f'quota {{\n    instance_type = "{G5}"\n    count         = 1\n  }}'
    default = 'sharing {\n    strategy     = "LendAndBorrow"\n    borrow_limit = 50\n  }'
    plain_row = f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}] }}'
    recorded_row = (f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}],'
                    ' sharing = { strategy = "LendAndBorrow" } }')
    verdicts = []
    for row in (plain_row, recorded_row):
        for blocks in ((quota,), (quota, default)):
            tf.write(one_team("solo", row, *blocks))
            tf.init()
            verdict = tf.plan_json(["-out=solo.tfplan"])
            assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
            planned = next(c["change"]["after"] for c in tf.show_json("solo.tfplan")["resource_changes"]
                           if c["address"] == "hyperpod_tenant.solo")
            verdicts.append((planned["passed_checks"], planned["findings"]))
    assert len(set(map(str, verdicts))) == 1, verdicts
    assert "WKL-5" in verdicts[0][0].split()


def test_an_allocation_that_records_other_sharing_than_the_tenants_is_refused_at_the_tenants_sharing(tf):
    """WKL-5: the tenant's sharing must be its allocation entry's (strategy and effective borrow limit)."""
    row = f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}], sharing = {{ strategy = "Lend" }} }}'
    tf.write(one_team("solo", row,
                      f'quota {{\n    instance_type = "{G5}"\n    count         = 1\n  }}',
                      'sharing {\n    strategy = "LendAndBorrow"\n  }'))
    tf.init()
    verdict = tf.plan_json()
    assert verdict.rules_by_address() == {"hyperpod_tenant.solo": [("WKL-5", "refused")]}, verdict.describe()
    diag = verdict.assert_rule("WKL-5", "hyperpod_tenant.solo", 'strategy = "LendAndBorrow"')
    assert diag.detail.startswith("sharing.strategy: "), diag.detail


def test_quota_shaped_entries_are_checked_alike_at_plan(tf):
    """An absolute borrow limit of an instance type the cluster has no group of is refused at its entry (WKL-5), as a
    quota entry of that type is (WKL-3); SageMaker refuses both (ValidationException)."""
    tf.write(one_team("solo", f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}] }}',
                      f'quota {{\n    instance_type = "{G5}"\n    count         = 1\n  }}',
                      'sharing {\n    strategy = "LendAndBorrow"\n    absolute_borrow_limit = [\n'
                      '      { instance_type = "ml.g6.48xlarge", count = 1 },\n    ]\n  }'))
    tf.init()
    verdict = tf.plan_json()
    assert verdict.rules_by_address() == {"hyperpod_tenant.solo": [("WKL-5", "refused")]}, verdict.describe()
    diag = verdict.assert_rule("WKL-5", "hyperpod_tenant.solo", "{ instance_type")
    assert diag.detail.startswith("sharing.absolute_borrow_limit[0].instance_type: "), diag.detail
    # The same entry twice is invalid before any AWS call (terraform validate).
    tf.write(one_team("solo", f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}] }}',
                      f'quota {{\n    instance_type = "{G5}"\n    count         = 1\n  }}',
                      'sharing {\n    strategy = "LendAndBorrow"\n    absolute_borrow_limit = [\n'
                      f'      {{ instance_type = "{G5}", count = 1 }},\n'
                      f'      {{ instance_type = "{G5}", count = 2 }},\n    ]\n  }}'))
    validated = tf.validate_json()
    assert validated.valid is False, validated.describe()
    (error,) = validated.errors
    assert "another entry already" in error.detail, validated.describe()
    assert (validated.line(error) or "").strip().startswith(f'{{ instance_type = "{G5}", count = 2 }}'), \
        validated.describe()


def test_an_allocation_that_overcommits_the_cluster_is_refused_before_the_overflowing_team_has_a_tenant(tf):
    """5 of the cluster's 4 ml.g5.8xlarge guaranteed (alpha 2, zeta 3), no tenant of either yet: WKL-3 refuses the
    allocation at zeta's entry (teams are admitted by name, as the tenants' WKL-3 admits them), and apply fails with
    it before anything is recorded. (A tenant whose quota is that entry defers to the allocation: test_capacity.)"""
    rows = f'alpha = {{ quota = [{{ instance_type = "{G5}", count = 2 }}] }}\n    ' \
           f'zeta  = {{ quota = [{{ instance_type = "{G5}", count = 3 }}] }}'
    tf.write(provider() + f'\nresource "hyperpod_cluster_allocation" "capacity" {{\n  cluster_name = "{CLUSTER}"\n'
             f"  teams = {{\n    {rows}\n  }}\n}}\n")
    tf.init()
    verdict = tf.plan_json()
    address = "hyperpod_cluster_allocation.capacity"
    assert verdict.rules_by_address() == {address: [("WKL-3", "refused")]}, verdict.describe()
    diag = next(d for d in verdict.diagnostics if d.rule == "WKL-3")
    assert diag.detail.startswith('teams["zeta"].quota[0].count: '), diag.detail
    applied = tf.apply_json()
    assert applied.rc == 1 and [d.rule for d in applied.errors] == ["WKL-3"], applied.describe()


def test_a_workload_identity_added_later_and_removed_again_converges(tf, sandbox):
    """A team's share alone, then with a workload block (role, service account, association appear), then without
    (they go): each step applies and plans empty."""
    quota = f'quota {{\n    instance_type = "{G5}"\n    count         = 1\n  }}'
    row = f'{{ quota = [{{ instance_type = "{G5}", count = 1 }}] }}'
    iam = sandbox.client("iam")
    role = f"hyperpod-{CLUSTER}-solo"

    def roles() -> set:
        return {r["RoleName"] for r in iam.list_roles()["Roles"]}

    tf.write(one_team("solo", row, quota))
    plans_clean_applies_and_converges(tf)
    assert role not in roles()
    tf.write(one_team("solo", row, quota, 'workload {\n    service_account = "solo-jobs"\n  }'))
    state = plans_clean_applies_and_converges(tf)
    assert role in roles()
    assert {"iam_role", "pod_identity_association"} <= set(state["hyperpod_tenant.solo"]["components"])
    tf.write(one_team("solo", row, quota))
    state = plans_clean_applies_and_converges(tf)
    assert role not in roles()
    assert not sandbox.client("eks").list_pod_identity_associations(clusterName=EKS)["associations"]
    assert state["hyperpod_tenant.solo"]["workload_role_arn"] is None


def restriction_hcl(body: str) -> str:
    return (provider() + contract_resource("research") +
            f'\nresource "hyperpod_task_view_restriction" "research" {{\n'
            f"  contract = hyperpod_connection_contract.research.governance\n  {body}\n}}\n")


def test_studio_spaces_access_as_the_add_user_page_grants_it(tf, sandbox):
    """https://docs.aws.amazon.com/sagemaker/latest/dg/add-user.html (ADD_USER):
    "AmazonSagemakerHyperpodSpacePolicy - scoped to namespace DS should create spaces in;
    AmazonSagemakerHyperpodSpaceTemplatePolicy - scoped to "jupyter-k8s-shared" namespace", and nothing else."""
    tf.write(restriction_hcl('access_policies     = ["AmazonSagemakerHyperpodSpacePolicy"]\n'
                             "  space_templates     = true\n  user_cluster_policy = false"))
    plans_clean_applies_and_converges(tf)
    assert live_policies(sandbox) == {"AmazonSagemakerHyperpodSpacePolicy": ["hyperpod-ns-research"],
                                      "AmazonSagemakerHyperpodSpaceTemplatePolicy": ["jupyter-k8s-shared"]}
    # The template namespace is the cluster's to say (the Spaces add-on may keep them elsewhere).
    tf.write(restriction_hcl('access_policies          = ["AmazonSagemakerHyperpodSpacePolicy"]\n'
                             "  space_templates          = true\n"
                             '  space_template_namespace = "jupyter-k8s-system"\n  user_cluster_policy      = false'))
    plans_clean_applies_and_converges(tf)
    assert live_policies(sandbox) == {"AmazonSagemakerHyperpodSpacePolicy": ["hyperpod-ns-research"],
                                      "AmazonSagemakerHyperpodSpaceTemplatePolicy": ["jupyter-k8s-system"]}


def test_the_restrict_task_view_page_scopes_every_policy_as_aws_does(tf, sandbox):
    """https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-studio-setup-eks.html (RESTRICT_TASK_VIEW):
    Training, Inference and Space scoped to the team namespace, SpaceTemplate to
    jupyter-k8s-shared, UserCluster to the cluster ("We recommend that you attach all of the policies")."""
    tf.write(restriction_hcl("space_templates = true"))
    plans_clean_applies_and_converges(tf)
    namespace = ["hyperpod-ns-research"]
    assert live_policies(sandbox) == {"AmazonSagemakerHyperpodTrainingPolicy": namespace,
                                      "AmazonSagemakerHyperpodInferencePolicy": namespace,
                                      "AmazonSagemakerHyperpodSpacePolicy": namespace,
                                      "AmazonSagemakerHyperpodSpaceTemplatePolicy": ["jupyter-k8s-shared"],
                                      "AmazonSagemakerHyperpodUserClusterPolicy": "cluster"}
