"""hyperpod_task_view_restriction through a real Terraform against the sandbox.

What a user relies on: in `access_policy` mode the project role's EKS access entry carries the HyperPod Studio
policies scoped to the project's namespaces plus the cluster-scoped probe policy, and a destroy leaves the account as
it found it; an entry Studio's "Manage access" made first is adopted (destroy leaves it, with its groups, and removes
only our policies); updates are in place; an association removed out of band shows in the plan and apply restores
it; `rbac` mode binds a Kubernetes group to a viewer Role per namespace instead of access policies, and switching back
removes the objects and the group; import by `<cluster>/<project role ARN>` (an imported entry counts as adopted); on
Slurm the project role's `SSMSessionRunAs` tag, guarded by CLU-7 (Session Manager Run As) and CLU-8 (ssm:StartSession
only on the cluster); one refusal per rule the restriction judges (a warning at plan, whose summary says apply refuses
the change, then apply's error before the restriction writes anything), with the rule ID and the attribute path, read
from `terraform plan -json` so each diagnostic is known to be the restriction's (Terraform's text output folds
warnings of the same summary from different resources into one).

Regressions these tests pinned and the provider fixed: the contract's defaults for `project_role_arn` and
`namespaces`, the contract's `approved_public_cidrs` in the restriction's CLU-5, no EKS policies on a Slurm
restriction, and import by the `id` attribute (`<cluster>/<role name>`).
"""
import json
import re
import shutil
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from example_vars import write_example_variables
from harness import Diagnostic, flat, statuses
from harness.kube import Kube
from harness.terraform import REFUSED_AT_APPLY
from hcl import (
    ACCOUNT,
    CIDR,
    CLUSTER,
    CONTRACT_FIELDS,
    EKS_CLUSTER as EKS,
    FX,
    OTHER_CIDR,
    REGION,
    ROLE,
    SLURM_CLUSTER,
    contract,
    days_ago,
    provider,
)

pytestmark = pytest.mark.provider

SLURM_ARN = FX.cluster_arn("slurm")
ADDRESS = "hyperpod_task_view_restriction.research"
RESEARCH_ROLE = FX.project_role_arn("research")
RESEARCH_ROLE_NAME = FX.project("research").role_name
NS = "hyperpod-ns-research"
TRAINING, INFERENCE, SPACE = (f"AmazonSagemakerHyperpod{p}Policy" for p in ("Training", "Inference", "Space"))
SPACE_TEMPLATE, USER_CLUSTER = "AmazonSagemakerHyperpodSpaceTemplatePolicy", "AmazonSagemakerHyperpodUserClusterPolicy"
DEFAULT_POLICIES = {TRAINING: [NS], INFERENCE: [NS], SPACE: [NS], USER_CLUSTER: "cluster"}
# The default kubernetes_group of the research project role: hyperpod-studio-<role name>, lowercased to a valid
# group name (src/resources/task_view_restriction/model.rs, default_group).
GROUP = "hyperpod-studio-" + re.sub(r"[^a-z0-9.-]", "-", RESEARCH_ROLE_NAME.lower()).strip("-")
RBAC = "/apis/rbac.authorization.k8s.io/v1"
VIEWER, PROBES = "hyperpod-studio-viewer", f"hyperpod-studio-probes-{GROUP}"
RBAC_PATHS = {"Role": f"{RBAC}/namespaces/default/roles/{VIEWER}",
              "RoleBinding": f"{RBAC}/namespaces/default/rolebindings/{VIEWER}",
              "ClusterRole": f"{RBAC}/clusterroles/{PROBES}",
              "ClusterRoleBinding": f"{RBAC}/clusterrolebindings/{PROBES}"}
# The defaults the contract should supply, spelled out: see test_project_role_and_namespaces_default_to_the_contracts.
ROLE_AND_NAMESPACES = f'project_role_arn = "{RESEARCH_ROLE}"\n  namespaces       = ["{NS}"]'


def policy_arn(name: str) -> str:
    return f"arn:aws:eks::aws:cluster-access-policy/{name}"


# ---- HCL -----------------------------------------------------------------------------------------------------------
def restriction(body: str = ROLE_AND_NAMESPACES, facts: str = "hyperpod_connection_contract.research.governance"
                ) -> str:
    """The research restriction; `facts`: the expression its `contract` takes."""
    return f'\nresource "hyperpod_task_view_restriction" "research" {{\n  contract = {facts}\n  {body}\n}}\n'


def config(body: str = ROLE_AND_NAMESPACES, **contract_overrides) -> str:
    """The research contract on the EKS cluster (hcl.CONTRACT_FIELDS + overrides) and its restriction."""
    return contract(**contract_overrides) + restriction(body)


# ---- EKS as it is --------------------------------------------------------------------------------------------------
def live_policies(sandbox, principal: str = RESEARCH_ROLE, cluster: str = EKS) -> dict:
    """policy name -> "cluster" or its namespaces, as EKS holds the principal's associations."""
    found = sandbox.client("eks").list_associated_access_policies(clusterName=cluster, principalArn=principal)
    return {p["policyArn"].rsplit("/", 1)[1]: "cluster" if p["accessScope"]["type"] == "cluster"
            else p["accessScope"]["namespaces"] for p in found["associatedAccessPolicies"]}


def access_entry(sandbox, principal: str = RESEARCH_ROLE) -> dict | None:
    try:
        return sandbox.client("eks").describe_access_entry(clusterName=EKS, principalArn=principal)["accessEntry"]
    except ClientError as e:
        if e.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise


@pytest.fixture
def no_entry_left(tf, sandbox):
    """Deletes the project role's access entry afterwards (a real account is not reset between tests)."""
    yield
    if access_entry(sandbox) is not None:
        sandbox.client("eks").delete_access_entry(clusterName=EKS, principalArn=RESEARCH_ROLE)


# ---- state and plans -----------------------------------------------------------------------------------------------
def values(tf, address: str = ADDRESS) -> dict:
    (found,) = [r["values"] for r in tf.show_json()["values"]["root_module"]["resources"] if r["address"] == address]
    return found


def recorded_policies(state: dict) -> dict:
    """The `access_policy/<name>` components in live_policies' shape."""
    return {key.rsplit("/", 1)[1]: "cluster" if scope == "cluster" else scope.removeprefix("namespace:").split(",")
            for key, scope in state["components"].items() if key.startswith("access_policy/")}


def recorded_objects(state: dict) -> set:
    """The kinds of the Kubernetes objects in `components`, each value the short digest of its content."""
    objects = {key: value for key, value in state["components"].items() if key.startswith("kubernetes/")}
    assert all(re.fullmatch(r"[0-9a-f]{8}", value) for value in objects.values()), objects
    return {key.split("/")[1] for key in objects}


# An adopted entry carries the contract's name as the restriction's mark (what `terraform query` reads as governed).
ADOPTED_MARK = {"entry_tag/hyperpod:contract": CONTRACT_FIELDS["name"]}


def policy_components(policies: dict) -> dict:
    """`components` of associations: `access_policy/<policy name>` -> `cluster` or `namespace:<namespaces>`."""
    return {f"access_policy/{name}": "cluster" if scope == "cluster" else f"namespace:{','.join(scope)}"
            for name, scope in policies.items()}


def plan_diagnostics(tf, address: str = ADDRESS) -> tuple[int, list]:
    """(exit code, the diagnostics of `address`) of `terraform plan -json`: each names its resource."""
    result = tf.run("plan", "-json", "-input=false", check=False, ok_codes=(0, 1))
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.rc, [m["diagnostic"] for m in messages
                       if m.get("type") == "diagnostic" and m["diagnostic"].get("address") == address]


def in_state(tf, address: str = ADDRESS) -> bool:
    return any(r["address"] == address for r in tf.show_json().get("values", {}).get("root_module", {}).get(
        "resources", []))


def finding(tf, rule: str, path: str, observed: str = "", severity: str = "refused") -> dict:
    """The restriction's one diagnostic of `rule` at plan: its kind, the attribute path it names (the detail starts
    with it) and the observed value. No rule fails the plan: a "refused" finding is a warning saying apply refuses the
    change, and apply then fails with it on the restriction, saying nothing was written, and records no restriction
    (what else the configuration holds, the contract, is applied); a "warning" is only that."""
    rc, diagnostics = plan_diagnostics(tf)
    found = [d for d in diagnostics if d["summary"].startswith(f"[{rule}]")]
    assert len(found) == 1, diagnostics
    (diagnostic,) = found
    assert (rc, Diagnostic.from_json(diagnostic).kind) == (0, severity), diagnostics
    assert flat(diagnostic["detail"]).startswith(f"{path}: "), diagnostic
    assert flat(observed) in flat(diagnostic["detail"]), diagnostic
    if severity == "refused":
        applied = tf.apply_json()
        errors = [d for d in applied.errors if d.address == ADDRESS]
        assert applied.rc == 1 and [d.rule for d in errors] == [rule], applied.describe()
        (error,) = errors
        assert flat(error.detail).startswith(f"{path}: ") and flat(observed) in flat(error.detail), error
        assert REFUSED_AT_APPLY in flat(error.detail), error
        assert not in_state(tf), "a refused create records no restriction"
    return diagnostic


# ---- a. access-policy mode -------------------------------------------------------------------------------------------
@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_access_policy_mode_scopes_the_studio_policies_and_destroy_leaves_the_account_as_it_was(tf, sandbox):
    before = sandbox.inventory()
    assert access_entry(sandbox) is None
    tf.write(config())
    tf.apply()

    assert live_policies(sandbox) == DEFAULT_POLICIES
    assert access_entry(sandbox)["kubernetesGroups"] == []
    state = values(tf)
    assert (state["id"], state["cluster_name"], state["orchestrator"], state["project_role_arn"], state["namespaces"],
            state["mode"]) == (f"{CLUSTER}/{RESEARCH_ROLE_NAME}", CLUSTER, "eks", RESEARCH_ROLE, [NS], "access_policy")
    assert state["components"] == {"access_entry": RESEARCH_ROLE, **policy_components(DEFAULT_POLICIES)}
    assert recorded_policies(state) == DEFAULT_POLICIES
    assert recorded_objects(state) == set() and state["private_data_conf"] is None
    checks = statuses(state)
    assert set(checks) == {"CLU-9", "CLU-3", "CLU-4", "CLU-5", "LIF-3", "WKL-12"}, state
    assert {rule: checks[rule] for rule in ("CLU-9", "CLU-3", "CLU-4", "LIF-3")} == dict.fromkeys(
        ("CLU-9", "CLU-3", "CLU-4", "LIF-3"), "passed"), state  # CLU-5: test_clu_5_passes_when_...
    tf.assert_no_changes()

    tf.destroy()
    assert access_entry(sandbox) is None
    assert sandbox.inventory() == before


def test_project_role_and_namespaces_default_to_the_contracts(tf, sandbox, no_entry_left):
    tf.write(config(body=""))  # the documented example: only `contract`
    plan = tf.plan()
    assert "known after apply" not in flat(plan.stdout).split(f"{ADDRESS} will be created")[1], plan.stdout
    tf.apply()
    state = values(tf)
    assert (state["project_role_arn"], state["namespaces"]) == (RESEARCH_ROLE, [NS])
    assert live_policies(sandbox) == DEFAULT_POLICIES
    tf.assert_no_changes()


@pytest.mark.sandbox_only(reason="compares the sandbox inventory")
def test_an_entry_studio_made_is_adopted_and_destroy_leaves_it_with_its_groups(tf, sandbox):
    # As Studio's "Manage access" makes it: the project role mapped to a group, no policies yet.
    sandbox.client("eks").create_access_entry(clusterName=EKS, principalArn=RESEARCH_ROLE,
                                              kubernetesGroups=["studio-users"])
    studio = access_entry(sandbox)
    before = sandbox.inventory()
    tf.write(config())
    tf.apply()

    assert live_policies(sandbox) == DEFAULT_POLICIES
    assert access_entry(sandbox)["kubernetesGroups"] == ["studio-users"]
    assert access_entry(sandbox)["tags"].get("hyperpod:contract") == CONTRACT_FIELDS["name"]
    components = values(tf)["components"]
    assert "access_entry" not in components
    assert components == policy_components(DEFAULT_POLICIES) | ADOPTED_MARK
    tf.assert_no_changes()

    tf.destroy()
    entry = access_entry(sandbox)
    assert entry is not None, "destroy deleted the access entry Studio made"
    assert (entry["kubernetesGroups"], entry["createdAt"]) == (["studio-users"], studio["createdAt"])
    assert live_policies(sandbox) == {}
    assert sandbox.inventory() == before


# ---- b. updates and drift ------------------------------------------------------------------------------------------
def test_dropping_a_policy_and_adding_space_templates_updates_in_place(tf, sandbox, no_entry_left):
    tf.write(config())
    tf.apply()
    created = access_entry(sandbox)["createdAt"]

    tf.write(config(ROLE_AND_NAMESPACES + f'\n  access_policies = ["{TRAINING}", "{SPACE}"]\n'
                                          "  space_templates = true"))
    plan = tf.plan(extra=["-out=update.tfplan"])
    text = flat(plan.stdout)
    assert plan.rc == 2
    assert f"{ADDRESS} will be updated in-place" in text and "0 to add, 1 to change, 0 to destroy" in text, plan.stdout
    tf.apply("update.tfplan")

    wanted = {TRAINING: [NS], SPACE: [NS], SPACE_TEMPLATE: ["jupyter-k8s-shared"], USER_CLUSTER: "cluster"}
    assert live_policies(sandbox) == wanted
    assert access_entry(sandbox)["createdAt"] == created  # the same entry
    state = values(tf)
    assert state["components"] == {"access_entry": RESEARCH_ROLE, **policy_components(wanted)}
    assert recorded_policies(state) == wanted
    tf.assert_no_changes()


def test_a_policy_disassociated_out_of_band_shows_in_the_plan_and_apply_restores_it(tf, sandbox, no_entry_left):
    tf.write(config())
    tf.apply()
    sandbox.client("eks").disassociate_access_policy(clusterName=EKS, principalArn=RESEARCH_ROLE,
                                                     policyArn=policy_arn(TRAINING))
    assert TRAINING not in live_policies(sandbox)

    plan = tf.plan()
    text = flat(plan.stdout)
    assert plan.rc == 2
    assert f"{ADDRESS} will be updated in-place" in text and "0 to add, 1 to change, 0 to destroy" in text, plan.stdout
    assert f'+ "access_policy/{TRAINING}" = "namespace:{NS}"' in text, plan.stdout
    tf.apply()
    assert live_policies(sandbox) == DEFAULT_POLICIES
    tf.assert_no_changes()


# ---- c. RBAC mode --------------------------------------------------------------------------------------------------
RBAC_SCOPE = 'eks_namespaces = ["hyperpod-ns-research", "default"]'
RBAC_MODE = f'project_role_arn = "{RESEARCH_ROLE}"\n  namespaces       = ["default"]\n  mode             = "rbac"'


def test_rbac_mode_binds_a_group_and_switching_back_removes_it(tf, sandbox, no_entry_left, tmp_path):
    # `default`: a namespace that exists in the sandbox's Kubernetes API, inside the contract's scope (CLU-9)
    tf.write(config(RBAC_MODE, scope=RBAC_SCOPE))
    tf.apply()

    kube = Kube(sandbox, tmp_path, EKS)
    live = {kind: kube.get(path) for kind, path in RBAC_PATHS.items()}
    assert {kind: status for kind, (status, _) in live.items()} == dict.fromkeys(RBAC_PATHS, 200), live
    subjects = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": GROUP}]
    assert live["RoleBinding"][1]["subjects"] == subjects and live["ClusterRoleBinding"][1]["subjects"] == subjects
    assert live["RoleBinding"][1]["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                 "name": VIEWER}
    verbs = {verb for rule in live["Role"][1]["rules"] for verb in rule["verbs"]}
    assert verbs == {"get", "list", "watch"}, live["Role"][1]  # a viewer: nothing that acts
    assert access_entry(sandbox)["kubernetesGroups"] == [GROUP]
    assert live_policies(sandbox) == {}  # no HyperPod access policies in RBAC mode
    state = values(tf)
    assert state["kubernetes_group"] == GROUP
    assert recorded_objects(state) == set(RBAC_PATHS)
    assert {key for key in state["components"] if key.startswith("kubernetes/")} == {
        "kubernetes/Role/default/hyperpod-studio-viewer", "kubernetes/RoleBinding/default/hyperpod-studio-viewer",
        f"kubernetes/ClusterRole/-/{PROBES}", f"kubernetes/ClusterRoleBinding/-/{PROBES}"}
    tf.assert_no_changes()

    tf.write(config(RBAC_MODE.replace('"rbac"', '"access_policy"'), scope=RBAC_SCOPE))
    tf.apply()
    kube = Kube(sandbox, tmp_path, EKS)  # a fresh token
    assert {kind: kube.get(path)[0] for kind, path in RBAC_PATHS.items()} == dict.fromkeys(RBAC_PATHS, 404)
    assert access_entry(sandbox)["kubernetesGroups"] == []
    assert live_policies(sandbox) == {TRAINING: ["default"], INFERENCE: ["default"], SPACE: ["default"],
                                      USER_CLUSTER: "cluster"}
    assert recorded_objects(values(tf)) == set()
    tf.assert_no_changes()

    tf.destroy()
    assert access_entry(sandbox) is None


def test_an_adopted_entry_given_the_group_gets_back_its_own_groups_and_tags_at_destroy_in_one_read(tf, sandbox):
    # Studio's "Manage access" made the entry; RBAC mode adds the restriction's group to it and marks it.
    sandbox.client("eks").create_access_entry(clusterName=EKS, principalArn=RESEARCH_ROLE,
                                              kubernetesGroups=["studio-users"])
    studio = access_entry(sandbox)
    tf.write(config(RBAC_MODE, scope=RBAC_SCOPE))
    tf.apply()
    entry = access_entry(sandbox)
    assert sorted(entry["kubernetesGroups"]) == sorted(["studio-users", GROUP])
    assert entry["tags"].get("hyperpod:contract") == CONTRACT_FIELDS["name"]
    tf.assert_no_changes()

    sandbox.reset_calls()
    tf.destroy("-refresh=false")
    calls = sandbox.calls_by_caller().get("hyperpod_task_view_restriction", {})
    # One read of the entry serves both the mark to take off and the groups to keep; its policies are not read.
    assert calls.get("eks.DescribeAccessEntry") == 1, calls
    assert "eks.ListAssociatedAccessPolicies" not in calls, calls
    entry = access_entry(sandbox)
    assert (entry["kubernetesGroups"], entry["createdAt"]) == (["studio-users"], studio["createdAt"])
    assert "hyperpod:contract" not in entry["tags"]


# ---- d. import -------------------------------------------------------------------------------------------------------
IMPORT_ID = f"{CLUSTER}/{RESEARCH_ROLE}"
IMPORT_BLOCKS = {
    "id": f'\nimport {{\n  to = {ADDRESS}\n  id = "{IMPORT_ID}"\n}}\n',
    "identity": (f'\nimport {{\n  to = {ADDRESS}\n  identity = {{\n    cluster_name     = "{CLUSTER}"\n'
                 f'    project_role_arn = "{RESEARCH_ROLE}"\n  }}\n}}\n'),
}


@pytest.mark.parametrize("how", ["terraform import", "import block with id", "import block with identity"])
def test_import_by_cluster_and_role_adopts_the_entry(tf, sandbox, no_entry_left, how):
    tf.write(config())
    tf.apply()
    created = access_entry(sandbox)["createdAt"]
    tf.run("state", "rm", ADDRESS)
    if how == "terraform import":
        tf.import_(ADDRESS, IMPORT_ID)
        assert values(tf)["project_role_arn"] == RESEARCH_ROLE
    else:
        tf.write(config() + IMPORT_BLOCKS[how.rsplit(" ", 1)[1]])

    plan = tf.plan()
    text = flat(plan.stdout)
    # What an import can name is the principal: the rest comes from the configuration, in place.
    assert plan.rc == 2 and "0 to add" in text and "0 to destroy" in text, plan.stdout
    assert f"{ADDRESS} will be updated in-place" in text, plan.stdout
    if how != "terraform import":
        assert "1 to import" in text, plan.stdout
    tf.apply()
    tf.assert_no_changes()
    assert access_entry(sandbox)["createdAt"] == created  # found, not recreated
    assert live_policies(sandbox) == DEFAULT_POLICIES
    # The adoption rule: an imported entry counts as one the restriction did not create (docs/resources/
    # task_view_restriction.md, Import), so destroy removes only the policies it associated and leaves the entry.
    state = values(tf)
    assert state["id"] == f"{CLUSTER}/{RESEARCH_ROLE_NAME}"
    assert state["components"] == policy_components(DEFAULT_POLICIES) | ADOPTED_MARK
    tf.destroy()
    entry = access_entry(sandbox)
    assert entry is not None and entry["createdAt"] == created
    assert live_policies(sandbox) == {}
    assert "hyperpod:contract" not in entry.get("tags", {}), "destroy left the adopted entry's mark"


# ---- e. Slurm ------------------------------------------------------------------------------------------------------
SLURM_SCOPE = 'slurm {\n    accounts   = ["research"]\n    partitions = ["gpu"]\n  }'
SLURM_RESTRICTION = (f'project_role_arn = "{RESEARCH_ROLE}"\n  namespaces       = []\n\n'
                     '  slurm {\n    os_user = "research"\n  }')
PREFERENCES = "SSM-SessionManagerRunShell"


def slurm_config() -> str:
    """The research contract on the Slurm cluster (as test_tenant's slurm_example) and a restriction running the
    project role's sessions as OS user `research`."""
    return config(SLURM_RESTRICTION, cluster_name=SLURM_CLUSTER, orchestrator="slurm", scope=SLURM_SCOPE)


def enable_run_as(sandbox) -> None:
    """Session Manager preferences with Run As on, saved as the AWS docs' CLI procedure does (UpdateDocument of
    $LATEST), then made the default version, which GetDocument without a version returns."""
    ssm = sandbox.client("ssm")
    content = json.loads(ssm.get_document(Name=PREFERENCES)["Content"])
    assert content["inputs"]["runAsEnabled"] is False  # the seed (sandbox/seed_data/ssm.json)
    content["inputs"]["runAsEnabled"] = True
    version = ssm.update_document(Name=PREFERENCES, Content=json.dumps(content),
                                  DocumentVersion="$LATEST")["DocumentDescription"]["DocumentVersion"]
    ssm.update_document_default_version(Name=PREFERENCES, DocumentVersion=version)


def start_session_policy(sandbox, resources: list) -> None:
    policy = {"Version": "2012-10-17", "Statement": [{"Sid": "StudioSessions", "Effect": "Allow",
                                                      "Action": "ssm:StartSession", "Resource": resources}]}
    sandbox.client("iam").put_role_policy(RoleName=RESEARCH_ROLE_NAME, PolicyName="studio-sessions",
                                          PolicyDocument=json.dumps(policy))


def role_tags(sandbox) -> dict:
    tags = sandbox.client("iam").list_role_tags(RoleName=RESEARCH_ROLE_NAME)["Tags"]
    return {t["Key"]: t["Value"] for t in tags}


@pytest.mark.sandbox_only(reason="changes the account's Session Manager preferences; compares the inventory")
def test_slurm_run_as_tag_guarded_by_clu_7_and_clu_8(tf, sandbox):
    tf.write(slurm_config())
    finding(tf, "CLU-7", "slurm.os_user", "runAsEnabled = false")

    enable_run_as(sandbox)
    start_session_policy(sandbox, ["*"])  # the seeded role has no ssm:StartSession: give it one on every node
    finding(tf, "CLU-8", "project_role_arn", 'allows ssm:StartSession on ["*"]')

    start_session_policy(sandbox, [SLURM_ARN, f"arn:aws:ssm:{REGION}:{ACCOUNT}:document/{PREFERENCES}"])
    tags_before, before = role_tags(sandbox), sandbox.inventory()
    tf.apply()
    assert role_tags(sandbox) == {**tags_before, "SSMSessionRunAs": "research"}
    state = values(tf)
    assert (state["orchestrator"], state["cluster_arn"]) == ("slurm", SLURM_ARN)
    assert state["components"] == {"role_tag/SSMSessionRunAs": "research"}
    assert any(line.startswith("PrivateData=") and "jobs" in line.split("=", 1)[1].split(",")
               for line in state["private_data_conf"].splitlines()), state["private_data_conf"]
    assert recorded_objects(state) == set()  # access policies: test_a_slurm_restriction_claims_no_...
    tf.assert_no_changes()

    tf.destroy()
    assert role_tags(sandbox) == tags_before  # the tag, and only it, is gone
    assert sandbox.inventory() == before


@pytest.mark.sandbox_only(reason="changes the account's Session Manager preferences")
def test_a_slurm_restriction_claims_no_eks_access_policies(tf, sandbox):
    enable_run_as(sandbox)
    tf.write(slurm_config())
    tf.plan(extra=["-out=slurm.tfplan"])
    (change,) = [c["change"] for c in tf.show_json("slurm.tfplan")["resource_changes"] if c["address"] == ADDRESS]
    assert recorded_policies(change["after"]) == {}


# ---- f. one refusal per rule -----------------------------------------------------------------------------------------
def test_clu_3_cluster_wide_view_policy_on_the_project_role(tf, sandbox, no_entry_left):
    eks = sandbox.client("eks")
    eks.create_access_entry(clusterName=EKS, principalArn=RESEARCH_ROLE)
    eks.associate_access_policy(clusterName=EKS, principalArn=RESEARCH_ROLE, accessScope={"type": "cluster"},
                                policyArn=policy_arn("AmazonEKSViewPolicy"))
    tf.write(config())
    finding(tf, "CLU-3", "project_role_arn", f"{policy_arn('AmazonEKSViewPolicy')} is associated with {RESEARCH_ROLE}")
    assert live_policies(sandbox) == {"AmazonEKSViewPolicy": "cluster"}  # the refused apply wrote nothing


def test_clu_5_endpoint_public_to_an_unapproved_range_is_a_warning(tf):
    tf.write(config(cidrs=f'["{OTHER_CIDR}"]'))
    finding(tf, "CLU-5", "approved_public_cidrs", f"the EKS endpoint is public to {CIDR}", severity="warning")


def test_clu_5_passes_when_the_contract_approves_the_endpoints_range(tf):
    tf.write(config())  # hcl.CONTRACT_FIELDS approve the fixture's CIDR, the endpoint's only public range
    rc, diagnostics = plan_diagnostics(tf)
    assert rc == 0 and not [d for d in diagnostics if d["summary"].startswith("[CLU-5]")], diagnostics


def handed_over(tf, **overrides) -> str:
    """The research contract's `governance` facts as another configuration hands them over (a terraform_remote_state
    output): planned for the EKS cluster, with `overrides`, in governance.json; the HCL expression that reads them."""
    tf.write(contract())
    tf.plan(extra=["-out=contract.tfplan"])
    (change,) = [c["change"] for c in tf.show_json("contract.tfplan")["resource_changes"]
                 if c["address"] == "hyperpod_connection_contract.research"]
    tf.write_file("governance.json", json.dumps({**change["after"]["governance"], **overrides}))
    return 'jsondecode(file("${path.module}/governance.json"))'


def config_map_cluster(sandbox, name: str = "configmap-capacity") -> None:
    """A HyperPod cluster on an EKS cluster whose authentication mode admits no access entries (CONFIG_MAP)."""
    access = {"authenticationMode": "CONFIG_MAP", "bootstrapClusterCreatorAdminPermissions": True}
    eks = sandbox.client("eks").create_cluster(name=f"{name}-eks", roleArn=f"{ROLE}/{name}-eks-cluster-role",
                                               resourcesVpcConfig={"subnetIds": ["subnet-1"]}, accessConfig=access)
    group = {"InstanceGroupName": "workers", "InstanceCount": 1,
             "InstanceType": FX.clusters.eks.instance_groups.inference.instance_type,
             "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lifecycle/lc/", "OnCreate": "on_create.sh"},
             "ExecutionRole": f"{ROLE}/{name}-node-role"}
    sandbox.client("sagemaker").create_cluster(ClusterName=name, InstanceGroups=[group],
                                               Orchestrator={"Eks": {"ClusterArn": eks["cluster"]["arn"]}})


@pytest.mark.sandbox_only(reason="creates an EKS and a HyperPod cluster")
def test_clu_4_eks_cluster_without_access_entries(tf, sandbox):
    config_map_cluster(sandbox)
    # With its contract in the same configuration, the contract's own CLU-4 refuses it (a warning at plan, apply's
    # error), and the restriction, which waits for the contract, is never applied.
    tf.write(config(cluster_name="configmap-capacity"))
    contract_address = "hyperpod_connection_contract.research"
    rc, diagnostics = plan_diagnostics(tf, contract_address)
    assert rc == 0 and [Diagnostic.from_json(d).kind for d in diagnostics
                        if d["summary"].startswith("[CLU-4]")] == ["refused"], diagnostics
    applied = tf.apply_json()
    assert applied.rc == 1 and [(d.rule, d.address) for d in applied.errors] == [("CLU-4", contract_address)], \
        applied.describe()
    assert REFUSED_AT_APPLY in flat(applied.errors[0].detail), applied.describe()
    assert not in_state(tf, contract_address) and not in_state(tf) and access_entry(sandbox) is None
    # With the contract managed elsewhere, the restriction's own CLU-4 refuses it.
    tf.write(provider() + restriction(facts=handed_over(tf, cluster_name="configmap-capacity")))
    finding(tf, "CLU-4", "project_role_arn", 'authenticationMode "CONFIG_MAP"')


@pytest.mark.parametrize("namespaces, observed", [
    (f'["{NS}", "hyperpod-ns-production"]', "hyperpod-ns-production"),  # another team's namespace
    ('["kube-system"]', "kube-system"),
    ("[]", "no namespaces"),
])
def test_clu_9_a_restriction_grants_only_namespaces_of_its_contract(tf, sandbox, namespaces, observed):
    tf.write(config(f'project_role_arn = "{RESEARCH_ROLE}"\n  namespaces       = {namespaces}'))
    finding(tf, "CLU-9", "namespaces", observed)
    tf.plan_json().assert_rule("CLU-9", ADDRESS, "namespaces")
    assert access_entry(sandbox) is None  # nothing was written


def test_clu_9_a_restriction_is_for_its_contracts_project_role(tf, sandbox):
    tf.write(config(f'project_role_arn = "{FX.project_role_arn("production")}"\n  namespaces       = ["{NS}"]'))
    finding(tf, "CLU-9", "project_role_arn", FX.project("production").role_name)
    tf.plan_json().assert_rule("CLU-9", ADDRESS, "project_role_arn")


def test_import_by_the_id_attribute_as_documented(tf, sandbox, no_entry_left):
    tf.write(config())
    tf.apply()
    tf.run("state", "rm", ADDRESS)
    imported = tf.import_(ADDRESS, f"{CLUSTER}/{RESEARCH_ROLE_NAME}", check=False)
    if imported.rc == 0:
        plan = tf.plan()
        assert "must be replaced" not in plan.stdout and "0 to destroy" in flat(plan.stdout), plan.stdout
    else:
        assert "Invalid import ID" in flat(imported.stderr), imported.stderr


def test_lif_3_revoked_contract(tf):
    tf.write(config(extra='  lifecycle_state = "revoked"'))
    finding(tf, "LIF-3", "contract", "revoked")


# ---- g. convergence: unknown inputs, partial failures, duplicates (issue 14) -----------------------------------------
# terraform_data's id is known only once it is created: a value built from it is unknown at plan.
MADE_LATER = '\nresource "terraform_data" "later" {}\n'
LATER = 'replace("{value}#${terraform_data.later.id}", "/#.*/", "")'


def later(value: str) -> str:
    """An HCL expression that is `value` once applied, unknown at plan."""
    return LATER.replace("{value}", value)


def inconsistent(text: str) -> bool:
    return "inconsistent" in flat(text).lower() and "provider" in flat(text).lower()


@pytest.mark.parametrize("body, value", [
    (RBAC_MODE.replace('"rbac"', later("rbac")), "rbac"),
    (f'{ROLE_AND_NAMESPACES}\n  access_policies  = [{later(TRAINING)}]', TRAINING),
], ids=["mode", "access_policies"])
@pytest.mark.parametrize("when", ["create", "update"])
def test_an_input_known_only_at_apply_is_planned_unknown_and_applied_consistently(tf, sandbox, no_entry_left,
                                                                                body, value, when):
    """`mode` or `access_policies` from a resource created in the same apply, on a new restriction or on one
    applied before with the defaults: everything derived from it is unknown in the plan (an update must not keep
    the prior's computed values), the plan warns that the rules depending on it are checked at apply, the apply
    succeeds (no "inconsistent result") with what the value asks for, and the next plan is empty."""
    if when == "update":
        tf.write(config(body.split("\n  mode")[0].split("\n  access_policies")[0], scope=RBAC_SCOPE))
        tf.apply()
    tf.write(config(body, scope=RBAC_SCOPE) + MADE_LATER)
    tf.plan(extra=["-out=later.tfplan"])
    (change,) = [c["change"] for c in tf.show_json("later.tfplan")["resource_changes"] if c["address"] == ADDRESS]
    unknown = change["after_unknown"]
    for name in ("components",):
        assert unknown.get(name) is True, (name, change["after"].get(name), unknown.get(name))
    # No rule reads them: every rule is judged at plan, and says so.
    assert statuses(change["after"]) == {
        "CLU-9": "passed", "CLU-3": "passed", "CLU-4": "passed", "CLU-5": "passed", "LIF-3": "passed",
        "WKL-12": "passed"}, change
    verdict = tf.plan_json()
    deferred = [d for d in verdict.warnings if d.address == ADDRESS and "not checked at plan" in d.summary]
    if value == "rbac":  # whether rbac mode's namespaces exist waits for the mode: a warning, judged at apply
        assert len(deferred) == 1 and "`mode`" in deferred[0].detail, verdict.describe()
    else:
        assert not verdict.errors and not deferred, verdict.describe()
    applied = tf.apply(check=False)
    assert applied.rc == 0 and not inconsistent(applied.stderr), applied.stdout + applied.stderr
    state = values(tf)
    if value == "rbac":
        assert access_entry(sandbox)["kubernetesGroups"] == [GROUP]
        assert live_policies(sandbox) == {}
        assert recorded_objects(state) == set(RBAC_PATHS)
    else:
        assert live_policies(sandbox) == {TRAINING: [NS], USER_CLUSTER: "cluster"}
    assert set(statuses(state).values()) <= {"passed", "warning", "not_applicable"}, state
    tf.assert_no_changes()


def test_retrying_after_an_association_failed_converges(tf, sandbox, no_entry_left):
    """AssociateAccessPolicy fails once: the apply fails having created the entry (recorded in state, so nothing is
    orphaned); the next apply completes what is missing, without an inconsistent result, and the plan after is
    empty; destroy removes the entry the restriction created."""
    tf.write(config())
    sandbox.fault("AssociateAccessPolicy", code="ServerException", status=500, count=None)
    failed = tf.apply(check=False)
    assert failed.rc == 1 and not inconsistent(failed.stderr), failed.stderr
    sandbox.clear_faults()
    assert access_entry(sandbox) is not None  # created before the association failed
    assert "access_entry" in values(tf)["components"]
    retried = tf.apply(check=False)
    assert retried.rc == 0 and not inconsistent(retried.stderr), retried.stdout + retried.stderr
    assert live_policies(sandbox) == DEFAULT_POLICIES
    assert values(tf)["components"] == {"access_entry": RESEARCH_ROLE, **policy_components(DEFAULT_POLICIES)}
    tf.assert_no_changes()
    tf.destroy()
    assert access_entry(sandbox) is None


def test_a_duplicate_access_policy_is_refused_at_validate_at_its_element(tf):
    tf.write(config(f'{ROLE_AND_NAMESPACES}\n  access_policies  = [\n    "{TRAINING}",\n    "{TRAINING}",\n  ]'))
    verdict = tf.validate_json()
    errors = [d for d in verdict.errors if d.address == ADDRESS or d.address is None]
    assert verdict.valid is False and len(errors) == 1, verdict.describe()
    (error,) = errors
    # The range is the duplicate (second) element's: its line, not the first's.
    lines = (tf.dir / error.filename).read_text().splitlines()
    assert lines[error.start_line - 1].strip() == f'"{TRAINING}",' and lines[error.start_line - 2].strip() == \
        f'"{TRAINING}",', verdict.describe()


# ---- h. the quickstart in rbac mode (issue 14) -----------------------------------------------------------------------
QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def quickstart(tf, restriction_settings: str = "", extra: str = "") -> None:
    """examples/quickstart as it is (reviewed ten days ago, as test_verdict copies it), with `restriction_settings`
    added to its `hyperpod_task_view_restriction.team` and `extra` HCL appended."""
    for source in QUICKSTART.glob("*.tf"):
        shutil.copyfile(source, tf.dir / source.name)
    tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, QUICKSTART)
    access = (tf.dir / "access.tf").read_text()
    assert QUICKSTART_TENANTS in access
    tf.write_file("access.tf", access.replace(QUICKSTART_TENANTS, QUICKSTART_TENANTS + restriction_settings, 1)
                  + extra)


QUICKSTART_TENANTS = "  tenants = [local.tenants[each.key].governance]\n"
TEAM_RESTRICTION = 'hyperpod_task_view_restriction.team["{team}"]'


def team_namespaces(sandbox, tmp_path) -> dict:
    """team -> the HTTP status of its viewer Role in hyperpod-ns-<team>."""
    kube = Kube(sandbox, tmp_path, EKS)
    return {team: kube.get(f"{RBAC}/namespaces/hyperpod-ns-{team}/roles/{VIEWER}")[0]
            for team in ("production", "research")}


def test_rbac_mode_in_the_quickstart_converges_in_one_apply_at_any_parallelism(tf, sandbox, tmp_path):
    """Each team's restriction references its tenant (`tenants`, as the quickstart does), so Terraform applies the
    tenant, which has HyperPod create hyperpod-ns-<team>, before the restriction writes its Roles there: one apply
    converges even one resource at a time, and the next plan is empty."""
    quickstart(tf, '  mode    = "rbac"\n')
    tf.init()
    applied = tf.apply("-parallelism=1", check=False)
    assert applied.rc == 0, applied.stdout + applied.stderr
    assert team_namespaces(sandbox, tmp_path) == {"production": 200, "research": 200}
    tf.assert_no_changes()


def test_rbac_mode_into_a_namespace_nothing_creates_is_refused_naming_the_tenant(tf, sandbox):
    """Without the reference the namespaces do not exist yet and nothing the restriction waits for creates them:
    the plan warns on each restriction that apply refuses it, at `tenants` (absent: the resource block), naming the
    team whose tenant to reference; applying the restrictions (and what they wait for: `-target`, so no tenant makes
    the namespaces meanwhile) refuses each with the same finding, and nothing of them is written."""
    quickstart(tf, '  mode    = "rbac"\n')
    access = (tf.dir / "access.tf").read_text()
    tf.write_file("access.tf", access.replace(QUICKSTART_TENANTS, "", 1))
    tf.init()
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    block = 'resource "hyperpod_task_view_restriction" "team"'
    for team in ("production", "research"):
        address = TEAM_RESTRICTION.format(team=team)
        (refusal,) = [d for d in verdict.diagnostics if d.address == address and d.kind != "warning"]
        assert refusal.kind == "refused", verdict.describe()
        assert f"hyperpod-ns-{team}" in refusal.summary and f'team = "{team}"' in flat(refusal.detail), refusal
        assert verdict.line(refusal).strip().startswith(block), verdict.describe()
    applied = tf.apply_json(["-target=hyperpod_task_view_restriction.team"])
    assert applied.rc == 1, applied.describe()
    for team in ("production", "research"):
        address = TEAM_RESTRICTION.format(team=team)
        (error,) = [d for d in applied.errors if d.address == address]
        assert f"hyperpod-ns-{team}" in error.summary and f'team = "{team}"' in flat(error.detail), error
        assert REFUSED_AT_APPLY in flat(error.detail) and applied.line(error).strip().startswith(block), \
            applied.describe()
        assert not in_state(tf, address)
    assert access_entry(sandbox) is None


def test_rbac_mode_checks_the_namespaces_again_at_apply_before_writing(tf, sandbox, tmp_path):
    """A namespace that existed at plan and is gone at apply: Terraform plans the change again at apply, that plan
    refuses it, and apply fails with that refusal before the restriction writes anything (no access entry, no Role),
    naming the namespace; it never waits."""
    kube = Kube(sandbox, tmp_path, EKS)
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "studio-scratch"}}
    assert kube.post("/api/v1/namespaces", namespace)[0] in (200, 201)
    body = RBAC_MODE.replace('["default"]', '["studio-scratch"]')
    tf.write(config(body, scope='eks_namespaces = ["hyperpod-ns-research", "studio-scratch"]'))
    tf.plan(extra=["-out=rbac.tfplan"])
    assert kube.delete("/api/v1/namespaces/studio-scratch")[0] in (200, 202)
    applied = tf.apply_json(["rbac.tfplan"])
    assert applied.rc == 1, applied.describe()
    (error,) = [d for d in applied.errors if d.address == ADDRESS]
    assert "studio-scratch" in error.summary and REFUSED_AT_APPLY in flat(error.detail), applied.describe()
    assert applied.errors == [error], applied.describe()
    assert access_entry(sandbox) is None


# ---- i. an interrupted create is adopted; someone else's object is not (issue 14) ------------------------------------
OWNER_TAG = {"hyperpod:task-view-restriction": f"{CLUSTER}/{RESEARCH_ROLE_NAME}"}


def test_what_a_killed_create_left_is_adopted_as_its_own_and_destroy_removes_it(tf, sandbox, tmp_path):
    """As a create killed after EKS and Kubernetes accepted its writes leaves them: the access entry with the
    restriction's ownership tag (its id) and group, a policy association and the RBAC objects with the provider's
    label. The next apply adopts them as the restriction's own (the entry is recorded, so destroy deletes it),
    converges in one apply, and destroy leaves nothing."""
    tf.write(config(RBAC_MODE, scope=RBAC_SCOPE))
    tf.apply()  # what the killed apply would have written, then forgotten from state
    entry = access_entry(sandbox)
    assert entry["tags"].items() >= OWNER_TAG.items(), entry["tags"]
    tf.run("state", "rm", ADDRESS)

    plan = tf.plan()
    assert plan.rc == 2 and "1 to add" in flat(plan.stdout), plan.stdout
    applied = tf.apply(check=False)
    assert applied.rc == 0 and not inconsistent(applied.stderr), applied.stdout + applied.stderr
    assert values(tf)["components"]["access_entry"] == RESEARCH_ROLE
    assert access_entry(sandbox)["createdAt"] == entry["createdAt"]  # adopted, not recreated
    tf.assert_no_changes()
    tf.destroy()
    assert access_entry(sandbox) is None
    kube = Kube(sandbox, tmp_path, EKS)
    assert {kind: kube.get(path)[0] for kind, path in RBAC_PATHS.items()} == dict.fromkeys(RBAC_PATHS, 404)


def test_an_rbac_object_of_the_same_name_that_is_not_ours_is_refused(tf, sandbox, no_entry_left, tmp_path):
    kube = Kube(sandbox, tmp_path, EKS)
    theirs = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": VIEWER, "namespace": "default"},
              "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}
    assert kube.post(f"{RBAC}/namespaces/default/roles", theirs)[0] in (200, 201)
    tf.write(config(RBAC_MODE, scope=RBAC_SCOPE))
    applied = tf.apply_json()
    assert applied.rc == 1, applied.describe()
    (error,) = [d for d in applied.errors if d.address == ADDRESS]
    assert "not this provider's" in error.summary and VIEWER in error.summary, applied.describe()
    status, live = kube.get(RBAC_PATHS["Role"])
    assert status == 200 and live["rules"] == theirs["rules"]  # left as it was


# ---- j. what AWS and Kubernetes refuse is refused at validate or plan (issue 14) -------------------------------------
@pytest.mark.parametrize("setting, observed", [
    (f'project_role_arn = "arn:aws:sts::{ACCOUNT}:assumed-role/{RESEARCH_ROLE_NAME}/s"\n'
     f'  namespaces       = ["{NS}"]', "assumed-role"),
    (f'project_role_arn = "{ROLE}/{"r" * 65}"\n  namespaces       = ["{NS}"]', "r" * 65),
    (f'{ROLE_AND_NAMESPACES}\n  kubernetes_group = "{"g" * 231}"', "231 characters"),
    (f'{ROLE_AND_NAMESPACES}\n  kubernetes_group = "studio..viewers"', "studio..viewers"),
], ids=["session-arn", "role-name-65", "group-too-long-for-the-probe-role", "group-not-a-dns-name"])
def test_a_value_aws_or_kubernetes_refuses_is_refused_at_validate(tf, setting, observed):
    tf.write(config(setting))
    verdict = tf.validate_json()
    errors = [d for d in verdict.errors if d.address in (ADDRESS, None)]
    assert verdict.valid is False and len(errors) == 1, verdict.describe()
    attribute = setting.split("\n")[-1].split("=")[0].strip() if "kubernetes_group" in setting else "project_role_arn"
    assert verdict.line(errors[0]).strip().startswith(attribute), verdict.describe()
    assert observed in flat(errors[0].detail), verdict.describe()


@pytest.mark.parametrize("namespaces, index", [('["hyperpod-ns-research", "Research_NS"]', 1),
                                               ('["hyperpod-ns-research", "hyperpod-ns-research"]', 1)],
                         ids=["not-a-dns-label", "duplicate"])
def test_a_namespace_kubernetes_refuses_or_a_duplicate_is_refused_at_its_element(tf, namespaces, index):
    items = json.loads(namespaces)
    listed = "[\n" + "".join(f'    "{item}",\n' for item in items) + "  ]"
    tf.write(config(f'project_role_arn = "{RESEARCH_ROLE}"\n  namespaces = {listed}'))
    verdict = tf.validate_json()
    errors = [d for d in verdict.errors if d.address in (ADDRESS, None)]
    assert verdict.valid is False and len(errors) == 1, verdict.describe()
    assert verdict.line(errors[0]).strip() == f'"{items[index]}",', verdict.describe()
    lines = (tf.dir / errors[0].filename).read_text().splitlines()
    assert lines[errors[0].start_line - 1 - index].strip() == f'"{items[0]}",'  # the element at `index`, not before


@pytest.mark.parametrize("fact", ["cluster_account_id", "cluster_name", "cluster_region", "contract",
                                  "lifecycle_state", "orchestrator", "project_role_arn", "eks_namespaces"])
def test_a_contract_object_missing_a_fact_is_refused_at_plan_at_contract(tf, sandbox, fact):
    """A hand-built `contract` (here `merge`d with a null fact) is known at plan: an error there, at `contract`,
    naming the fact, never "the inputs are still unknown" at apply."""
    tf.write(contract() + restriction(body="", facts=f'merge(hyperpod_connection_contract.research.governance, '
                                                      f'{{ {fact} = null }})'))
    verdict = tf.plan_json()
    errors = [d for d in verdict.errors if d.address == ADDRESS]
    assert verdict.rc == 1 and len(errors) == 1, verdict.describe()
    assert verdict.line(errors[0]).strip().startswith("contract"), verdict.describe()
    assert fact in flat(errors[0].detail), verdict.describe()
    assert access_entry(sandbox) is None
