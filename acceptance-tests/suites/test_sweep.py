"""The sweeper (`make sweep`, tools/sweep.py) after a killed run: a tagged test configuration is applied and never
destroyed (its state is thrown away, as a killed run's is), next to untagged look-alikes of every kind made with
boto3 and Kubernetes calls. The sweep removes exactly the run's leftovers: afterwards the account is as it was
before the apply, look-alikes included.

The configuration is the research team's whole onboarding on the fixture's cluster: a contract, the scheduling
policy, a tenant (workload role, compute quota, Kubernetes objects, Pod Identity association, access entries, KMS
grant), its task view restriction (an access entry, Roles and a cluster-scoped probe grant), the project binding (a
DataZone connection named with the test prefix, and memberships of the fixture's test groups) and a domain-unit
policy grant to a test group.
"""
import json
import os
import subprocess
import sys
import time

import pytest

from harness.kube import Kube
from harness.sandbox import ACCEPTANCE_DIR
from harness.tags import tag_map
from hcl import contract_resource, provider

pytestmark = [pytest.mark.provider,
              pytest.mark.sandbox_only(reason="compares the sandbox's inventory before and after; makes untagged "
                                              "look-alikes of every kind")]

MANAGED_BY = {"app.kubernetes.io/managed-by": "terraform-provider-hyperpod"}
TRAINING_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy"
POLICY_TYPE = "CREATE_PROJECT_FROM_PROJECT_PROFILE"
KINDS = {"iam role", "compute quota", "cluster scheduler config", "eks access entry", "eks pod identity association",
         "kms grant", "kubernetes object", "datazone connection", "datazone membership", "datazone policy grant"}


def onboarding(fx) -> str:
    """The research team's onboarding, every name and id from the fixture."""
    eks, research, dz = fx.clusters.eks, fx.project("research"), fx.datazone
    leads, scientists, admins = dz.groups[0], dz.groups[1], dz.groups[-1]
    role = fx.role_arn
    contract = contract_resource(
        "research", name=f"{fx.test_prefix}-research", domain_unit_id=dz.domain_unit_id, project_id=research.id,
        account_id=fx.account_id, cluster_name=eks.name, project_role_arn=fx.project_role_arn("research"),
        access_role_arn=role(fx.roles.connection_access), cidrs=f'["{fx.approved_public_cidr}"]',
        scope='eks_namespaces = ["hyperpod-ns-research"]')
    return provider(f'region = "{fx.region}"') + contract + f"""
resource "hyperpod_scheduling_policy" "capacity" {{
  cluster_name = "{eks.name}"
  fair_share   = true

  priority_class {{
    name   = "research"
    weight = 10
  }}
}}

resource "hyperpod_tenant" "research" {{
  contract          = hyperpod_connection_contract.research.governance
  scheduling_policy = hyperpod_scheduling_policy.capacity.governance
  team              = "research"
  priority_class    = "research"

  quota {{
    instance_type = "{eks.instance_groups.training.instance_type}"
    count         = 1
  }}

  viewer_groups           = ["{fx.roles.research_viewers}"]
  viewer_principal_arns   = ["{role(fx.roles.research_viewers)}"]
  operator_groups         = ["{fx.roles.research_operators}"]
  operator_principal_arns = ["{role(fx.roles.research_operators)}"]

  workload {{
    service_account = "research-jobs"
  }}

  data {{
    kms_keys = ["{fx.kms_key_arn()}"]
  }}
}}

resource "hyperpod_task_view_restriction" "research" {{
  contract = hyperpod_connection_contract.research.governance
  mode     = "rbac"  # Roles in the team's namespace and a cluster-scoped probe grant
  tenants  = [hyperpod_tenant.research.governance]
}}

resource "hyperpod_unified_studio_project_binding" "research" {{
  contract              = hyperpod_connection_contract.research.governance
  project_id            = "{research.id}"
  cluster_name          = "{eks.name}"
  project_role_arn      = "{fx.project_role_arn("research")}"
  connection_name       = "{fx.test_prefix}-research"
  task_view_restriction = hyperpod_task_view_restriction.research.governance
  tenants               = [hyperpod_tenant.research.governance]

  member {{
    name        = "{leads}"
    designation = "PROJECT_OWNER"
  }}
  member {{
    name        = "{scientists}"
    designation = "PROJECT_CONTRIBUTOR"
  }}
}}

resource "hyperpod_domain_unit_policy_grant" "projects" {{
  domain_id           = "{dz.domain_id}"
  domain_unit_id      = "{dz.domain_unit_id}"
  project_profile_ids = ["{dz.project_profile_id}"]

  principal {{
    group_id = "{admins}"
  }}
}}
"""


def settled(sm, quota_id: str) -> None:
    deadline = time.monotonic() + 15
    while sm.describe_compute_quota(ComputeQuotaId=quota_id)["Status"] != "Created":
        assert time.monotonic() < deadline, "the look-alike quota did not settle"
        time.sleep(0.2)


def look_alikes(sandbox, fx, kube) -> None:
    """One object of every kind the sweeper deletes, made outside the tests' configurations: untagged, or tagged
    with the test tag's key but another value, or named without the prefix, or with a member that is no test group."""
    iam, sm, eks, kms, dz = (sandbox.client(s) for s in ("iam", "sagemaker", "eks", "kms", "datazone"))
    (key, value), = tag_map(fx).items()
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["sts:AssumeRole", "sts:TagSession"],
                                                     "Principal": {"Service": "pods.eks.amazonaws.com"}}]}
    role = iam.create_role(RoleName="hyperpod-lookalike", AssumeRolePolicyDocument=json.dumps(trust),
                           Tags=[{"Key": key, "Value": value + "-not"}])["Role"]["Arn"]
    iam.put_role_policy(RoleName="hyperpod-lookalike", PolicyName="inline", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}]}))
    eks_cluster = fx.clusters.eks.eks_cluster_name
    quota = sm.create_compute_quota(
        Name="production-quota", ClusterArn=fx.cluster_arn("eks"), ComputeQuotaTarget={"TeamName": "production"},
        ComputeQuotaConfig={"ComputeQuotaResources": [
            {"InstanceType": fx.clusters.eks.instance_groups.inference.instance_type, "Count": 1}]},
        Tags=[{"Key": "team", "Value": "production"}])["ComputeQuotaId"]
    settled(sm, quota)
    sm.create_cluster_scheduler_config(Name="legacy-policy", ClusterArn=fx.cluster_arn("legacy"),
                                       SchedulerConfig={"FairShare": "Enabled"})
    eks.create_access_entry(clusterName=eks_cluster, principalArn=role, tags={"team": "production"})
    eks.associate_access_policy(clusterName=eks_cluster, principalArn=role, policyArn=TRAINING_POLICY,
                                accessScope={"type": "namespace", "namespaces": ["hyperpod-ns-production"]})
    eks.create_pod_identity_association(clusterName=eks_cluster, namespace="hyperpod-ns-production",
                                        serviceAccount="production-jobs", roleArn=role)
    kms.create_grant(KeyId=fx.kms_key_arn(), GranteePrincipal=role, Operations=["Decrypt"], Name="production-data")
    # Labelled as the provider's, but in a namespace no tagged quota names; and unlabelled in research's own.
    status, body = kube.post("/api/v1/namespaces/hyperpod-ns-production/serviceaccounts",
                             {"metadata": {"name": "production-tools", "labels": MANAGED_BY}})
    assert status == 201, body
    status, body = kube.post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                             {"metadata": {"name": "hyperpod-studio-probes-other-group", "labels": MANAGED_BY},
                              "rules": []})
    assert status == 201, body
    research = fx.project("research")
    dz.create_connection(domainIdentifier=fx.datazone.domain_id, name="hyperpod-lookalike",
                         environmentIdentifier=fx.project("production").tooling_environment_id,
                         props={"hyperPodProperties": {"clusterName": fx.clusters.eks.name}})
    operator = fx.role_arn(fx.clusters.eks.admin_role_name)  # a user DataZone knows, and no test principal
    dz.create_project_membership(domainIdentifier=fx.datazone.domain_id, projectIdentifier=research.id,
                                 member={"userIdentifier": operator}, designation="PROJECT_CONTRIBUTOR")
    dz.add_policy_grant(domainIdentifier=fx.datazone.domain_id, entityType="DOMAIN_UNIT",
                        entityIdentifier=fx.datazone.domain_unit_id, policyType=POLICY_TYPE,
                        principal={"user": {"userIdentifier": operator}},
                        detail={"createProjectFromProjectProfile": {"projectProfiles": [fx.datazone.project_profile_id],
                                                                    "includeChildDomainUnits": False}})


def sweep(sandbox, *args) -> subprocess.CompletedProcess:
    """tools/sweep.py as `make sweep` runs it (there with --delete), against this sandbox and the run's fixture."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["HYPERPOD_SANDBOX_URL"] = sandbox.url
    return subprocess.run([sys.executable, "tools/sweep.py", *args], cwd=ACCEPTANCE_DIR, env=env,
                          capture_output=True, text=True, timeout=300)


def listed_kinds(output: str) -> set:
    return {kind for kind in KINDS for line in output.splitlines() if line.strip().startswith(kind + " ")
            or line.strip().startswith("deleted " + kind + " ")}


def test_sweep_removes_a_killed_runs_leftovers_and_nothing_else(tf, sandbox, fx, tmp_path):
    kube = Kube(sandbox, tmp_path, fx.clusters.eks.eks_cluster_name)
    look_alikes(sandbox, fx, kube)
    before = sandbox.inventory()

    tf.write(onboarding(fx))
    tf.apply()
    (tf.dir / "terraform.tfstate").unlink()  # killed: nothing will destroy what it made
    applied = sandbox.inventory()
    assert applied != before

    dry = sweep(sandbox)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert listed_kinds(dry.stdout) == KINDS, dry.stdout  # the run left one of each, and each is listed
    assert sandbox.inventory() == applied, "a dry run deleted something"
    assert "/clusterroles/hyperpod-studio-probes-" in dry.stdout, dry.stdout  # cluster-scoped ones too
    for look_alike in ("hyperpod-lookalike", "production-quota", "legacy-policy", "production-tools",
                       "production-data", "other-group"):
        assert look_alike not in dry.stdout, dry.stdout

    swept = sweep(sandbox, "--delete")
    assert swept.returncode == 0, swept.stdout + swept.stderr
    assert listed_kinds(swept.stdout) == KINDS, swept.stdout
    deadline = time.monotonic() + 30  # quotas and scheduler configs go through Deleting
    while (after := sandbox.inventory()) != before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert after == before  # the run's objects are gone, every look-alike is still there

    again = sweep(sandbox)
    assert again.returncode == 0 and "0 leftover(s)" in again.stdout, again.stdout


def test_sweep_refuses_a_fixture_of_another_account(sandbox, fx, tmp_path):
    """The guard holds for the sweeper too: a fixture whose account is not the caller's sweeps nothing."""
    caller = sandbox.client("sts").get_caller_identity()["Account"]
    other = f"{(int(caller) + 1) % 10**12:012d}"
    path = tmp_path / "other.json"
    path.write_text(json.dumps({**fx.raw(), "account_id": other}))
    run = sweep(sandbox, "--delete", "--fixture", str(path))
    assert run.returncode == 2, run.stdout + run.stderr
    assert (f"sweep: refusing to run: the credentials are account {caller} (arn:aws:sts::{caller}:user/moto), but "
            f"the fixture's account_id is {other}") in run.stderr
    assert "deleted" not in run.stdout
