"""hyperpod_connection_contract through a real Terraform against the fixture's capacity account: create,
empty second plan, update, import, the reviewer's checklist, and one failing plan per rule the contract enforces
(rule ID and attribute path in the output)."""
import pytest

from harness import checklist, flat
from hcl import (
    CIDR,
    CONSUMER_ACCOUNT,
    CONTRACT_FIELDS,
    FX,
    OTHER_CIDR,
    PROVIDER_REGION,
    RESEARCH,
    SLURM_CLUSTER,
    contract,
    days_ago,
    exception,
)

pytestmark = pytest.mark.provider

ADDR = "hyperpod_connection_contract.research"
NAME = CONTRACT_FIELDS["name"]  # research-on-<cluster>


def state(tf):
    for resource in tf.show_json()["values"]["root_module"]["resources"]:
        if resource["address"] == ADDR:
            return resource["values"]
    raise AssertionError(f"{ADDR} not in state")


def checks(values) -> dict | None:
    return checklist(values)



def test_create_records_the_checklist_and_a_second_plan_is_empty(tf):
    tf.write(contract())
    plan = tf.plan()
    # Known at plan time, so dependents planned in the same run can check against it.
    assert flat(f'contract = "{NAME}"') in flat(plan.stdout)
    assert flat('review_status = "current"') in flat(plan.stdout)
    tf.apply()
    values = state(tf)
    assert values["id"] == NAME
    assert values["review_status"] == "current"
    rows = checks(values)
    for rule in ("CON-1", "CON-2", "CON-3", "ORG-1", "ORG-3", "PRJ-2", "PRJ-4", "CLU-1", "EXC-1", "LIF-1", "LIF-2",
                 "LIF-4"):
        assert rows[rule]["status"] == "passed", rows[rule]
    assert values["governance"]["eks_namespaces"] == ["hyperpod-ns-research"]
    assert values["governance"]["project_role_arn"] == FX.project_role_arn("research")
    result = tf.plan()
    assert result.rc == 0, result.stdout


def test_update_in_place_and_material_change_requires_review(tf):
    tf.write(contract())
    tf.apply()
    tf.write(contract(support="ml-platform on-call, 24x7"))
    plan = tf.plan()
    assert "will be updated in-place" in plan.stdout
    tf.apply()
    assert state(tf)["support"] == "ml-platform on-call, 24x7"
    assert state(tf)["review_status"] == "current"  # support is not a material change
    # A new access role is material (LIF-2): a warning, and the status stays review_required until re-approval.
    tf.write(contract(support="ml-platform on-call, 24x7", access_role_arn=FX.project_role_arn("research")))
    plan = tf.plan()
    assert "[LIF-2]" in flat(plan.stdout + plan.stderr)
    tf.apply()
    assert state(tf)["review_status"] == "review_required"
    plan = tf.plan()
    assert "[LIF-2]" in flat(plan.stdout + plan.stderr)
    tf.write(contract(support="ml-platform on-call, 24x7", access_role_arn=FX.project_role_arn("research"),
                      last_reviewed=days_ago(0), approved_by="ciso@example.com"))
    tf.apply()
    assert state(tf)["review_status"] == "current"


def test_import_by_name_then_apply_fills_the_record(tf):
    tf.write(contract())
    tf.import_(ADDR, NAME)
    plan = tf.plan()
    assert "will be updated in-place" in plan.stdout
    tf.apply()
    assert state(tf)["review_status"] == "current"
    assert tf.plan().rc == 0


def test_con_1_malformed_account_id(tf):
    tf.write(contract(account_id="12345"))
    tf.plan_invalid("CON-1", "cluster.account_id", '"12345"')


def test_con_2_slurm_contract_with_eks_namespaces(tf):
    tf.write(contract(cluster_name=SLURM_CLUSTER, orchestrator="slurm"))
    tf.plan_invalid("CON-2", "eks_namespaces")


def test_con_3_signal_without_owner(tf):
    tf.write(contract(signal_owner=""))
    tf.plan_invalid("CON-3", "monitoring.signal[0].owner")


def test_org_1_project_outside_the_domain_unit(tf):
    tf.write(contract(domain_unit_id=FX.datazone.root_domain_unit_id))
    tf.plan_refuses("ORG-1", "unified_studio.domain_unit_id", FX.datazone.domain_unit_id)


def test_org_3_cluster_missing_from_the_capacity_account(tf):
    tf.write(contract(cluster_name="no-such-cluster"))
    tf.plan_refuses("ORG-3", "cluster.name", "no-such-cluster")


def test_clu_1_orchestrator_differs_from_the_cluster(tf):
    tf.write(contract(orchestrator="slurm", scope='slurm {\n    accounts = ["research"]\n  }'))
    tf.plan_refuses("CLU-1", "cluster.orchestrator")


def test_prj_2_lifecycle_permissions_on_the_project_role(tf):
    tf.write(contract(project_role_arn=FX.role_arn(FX.roles.overprivileged_project)))
    result = tf.plan_refuses("PRJ-2", "project_role_arn", FX.roles.overprivileged_project)
    text = flat(result.stderr)
    assert "AmazonSageMakerFullAccess" in text or "sagemaker:CreateCluster" in text


def test_prj_2_fix_says_to_detach_an_aws_managed_policy(tf):
    tf.write(contract(project_role_arn=FX.role_arn(FX.roles.overprivileged_project)))
    findings = [d for d in tf.plan_json().diagnostics if d.rule == "PRJ-2"]
    managed = [d for d in findings if "managed policy arn:aws:iam::aws:policy/" in d.detail]
    assert managed, [d.detail for d in findings]
    for diagnostic in managed:
        assert "detach the AWS managed policy" in flat(diagnostic.detail), diagnostic.detail
        assert "remove these actions from that statement" not in diagnostic.detail


def test_the_contracts_well_formedness_runs_at_validate_and_what_depends_on_the_date_at_plan(tf):
    """`terraform validate` (no credentials, no AWS call) judges the contract's own well-formedness, CON-1 here, with
    `lifecycle_state` left to its default. An expired exception (EXC-1) depends on the date, so validate never judges
    it: Terraform validates before every plan, `terraform destroy`'s included, and a rule that starts failing with
    time must not stop a destroy. The plan refuses it instead, once."""
    tf.write(contract(account_id="12345", extra=exception("WKL-8", expires=days_ago(1))))
    verdict = tf.validate_json()
    assert not verdict.valid, verdict.describe()
    assert [d.rule for d in verdict.diagnostics] == ["CON-1"], verdict.describe()
    assert verdict.line(verdict.errors[0]).strip().startswith("account_id"), verdict.describe()
    tf.write(contract(extra=exception("WKL-8", expires=days_ago(1))))
    assert tf.validate_json().valid
    planned = tf.plan_json()
    assert planned.rc == 2, planned.describe()
    planned.assert_rule("EXC-1", ADDR, "expires")


def test_prj_4_project_role_is_not_the_projects_tooling_role(tf):
    tf.write(contract(project_role_arn=FX.project_role_arn("production")))
    tf.plan_refuses("PRJ-4", "project_role_arn", FX.project("production").role_name)


def test_lif_4_approver_is_the_identity_running_the_apply(tf, sandbox):
    caller = sandbox.client("sts").get_caller_identity()["Arn"]  # whoever runs the apply, sandbox or real account
    tf.write(contract(approved_by=caller))
    tf.plan_refuses("LIF-4", "review.approved_by")


def test_exc_1_expired_exception(tf):
    tf.write(contract(extra=exception("WKL-8", expires=days_ago(1))))
    tf.plan_refuses("EXC-1", "exception[0].expires")


def test_lif_1_overdue_is_a_warning_and_under_strict_a_refusal_reported_once(tf):
    """Overdue: a warning, once (validate never judges the date). Under the contract's own strict, the change that
    sets it is refused at apply. Under the provider's strict the contract is unchanged: the plan says its next change
    is refused, and applies nothing; LIF-1 is still reported once on its attribute."""
    tf.write(contract(last_reviewed=days_ago(200)))
    verdict = tf.plan_json()
    assert verdict.rules_by_address() == {ADDR: [("LIF-1", "warning")]}, verdict.describe()
    tf.apply()
    assert state(tf)["review_status"] == "overdue"
    tf.write(contract(last_reviewed=days_ago(200), extra="  strict = true"))
    tf.plan_refuses("LIF-1", "review.last_reviewed")
    tf.write(contract(last_reviewed=days_ago(200), provider_settings=PROVIDER_REGION + "\n  strict = true"))
    strict = tf.plan_json()
    assert strict.rc == 0, strict.describe()
    assert strict.rules_by_address() == {ADDR: [("LIF-1", "refused-later")]}, strict.describe()
    strict.assert_rule("LIF-1", ADDR, "last_reviewed", severity="refused-later")


def test_what_could_not_be_verified_is_a_warning_not_a_silent_pass(tf, sandbox):
    # The contract names another capacity account: with these credentials the cluster cannot be checked.
    tf.write(contract(account_id="111122223333"))
    plan = tf.plan()
    assert plan.rc == 2
    text = flat(plan.stdout + plan.stderr)
    assert "[ORG-3]" in text and "(not checked)" in text
    assert "not the contract's capacity account 111122223333" in text
    tf.apply()
    assert checks(state(tf))["ORG-3"]["status"] == "skipped"


def test_clu_5_public_endpoint_outside_the_approved_cidrs(tf):
    tf.write(contract(cidrs="[]"))
    plan = tf.plan()
    assert plan.rc == 2  # a warning: the plan goes ahead
    assert "[CLU-5]" in flat(plan.stdout + plan.stderr)
    assert f"the EKS endpoint is public to {CIDR}" in flat(plan.stdout + plan.stderr)
    tf.write(contract(cidrs="[]", extra="  strict = true"))
    tf.plan_refuses("CLU-5", "approved_public_cidrs", CIDR)


# The EKS cluster's observability add-on is compliant (v2.4.0); the local seed keeps a legacy HyperPod cluster (the
# fixture's clusters.legacy) on an EKS cluster with the add-on at v2.3.0-eksbuild.1, for OBS-1.
LEGACY_CLUSTER, LEGACY_EKS = FX.clusters.legacy.name, FX.clusters.legacy.eks_cluster_name


@pytest.mark.sandbox_only(reason="the legacy cluster with an old add-on exists only in the sandbox's seed")
def test_obs_1_observability_addon_older_than_2_4_0(tf, sandbox):
    tf.write(contract(name=f"research-on-{LEGACY_CLUSTER}", cluster_name=LEGACY_CLUSTER))
    plan = tf.plan()
    assert plan.rc == 2  # a warning: the plan goes ahead
    assert "[OBS-1]" in flat(plan.stdout + plan.stderr)
    assert "v2.3.0-eksbuild.1" in flat(plan.stdout + plan.stderr)
    eks = sandbox.client("eks")
    eks.update_addon(clusterName=LEGACY_EKS, addonName="amazon-cloudwatch-observability",
                     addonVersion="v2.4.0-eksbuild.1")
    # The legacy cluster's node role lacks the CloudWatch agent's policy as well: each prerequisite is named.
    addr = "hyperpod_connection_contract.research"
    role_arn = sandbox.client("sagemaker").describe_cluster(ClusterName=LEGACY_CLUSTER)["InstanceGroups"][0][
        "ExecutionRole"]
    diag = tf.plan_json().assert_rule("OBS-1", addr, "signal", severity="warning")
    assert "CloudWatchAgentServerPolicy" in diag.detail and "v2.3.0" not in diag.detail, diag.detail
    sandbox.client("iam").attach_role_policy(RoleName=role_arn.rsplit("/", 1)[1],
                                             PolicyArn="arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy")
    plan = tf.plan()
    assert "[OBS-1]" not in flat(plan.stdout + plan.stderr)
    tf.apply()
    assert checks(state(tf))["OBS-1"]["status"] == "passed"


@pytest.mark.sandbox_only(reason="injects AccessDenied")
def test_unreadable_role_is_reported_as_not_checked(tf, sandbox):
    sandbox.fault("ListAttachedRolePolicies", "error", code="AccessDenied", status=403, count=50, service="iam")
    tf.write(contract())
    plan = tf.plan()
    text = flat(plan.stdout + plan.stderr)
    assert "[PRJ-2]" in text and "(not checked)" in text and "AccessDenied" in text


def test_review_functions(tf):
    tf.write("""
terraform {
  required_providers {
    hyperpod = { source = "hyperpod-governance/hyperpod" }
  }
}

output "due" {
  value = provider::hyperpod::next_review_date("2026-11-01", 90)
}

output "status" {
  value = provider::hyperpod::review_status("2026-11-01", 90, "2027-01-25T00:00:00Z")
}
""")
    tf.apply()
    assert tf.output("due") == "2027-01-30"
    assert tf.output("status") == "due_soon"


# ---- values unknown at plan (issue 14) -----------------------------------------------------------------------------
UNKNOWN_CIDRS = f"""
resource "terraform_data" "cidrs" {{
  input = ["{CIDR}"]
}}
"""


def test_unknown_public_cidrs_plan_clu_5_unchecked_and_apply_judges_it(tf):
    """`approved_public_cidrs` known only after apply: CLU-5 is planned with an unknown status and reported as not
    checked (never a guessed `failed` warning), the rules that do not read it are judged at plan, and apply judges
    CLU-5 before writing: no inconsistent result, the applied checklist says `passed`, a second plan is empty."""
    tf.write(contract(cidrs="terraform_data.cidrs.output") + UNKNOWN_CIDRS)
    verdict = tf.plan_json()
    assert verdict.rc == 2, verdict.describe()
    assert not verdict.errors, verdict.describe()
    # Only the rules reading the CIDRs wait (CLU-5, and CON-1 for their form), reported at the unknown attribute.
    deferred = [d for d in verdict.warnings if d.address == ADDR]
    assert sorted(d.rule for d in deferred) == ["CLU-5", "CON-1"], verdict.describe()
    assert all("not checked at plan" in d.summary for d in deferred), verdict.describe()
    for rule in ("CLU-5", "CON-1"):
        verdict.assert_rule(rule, ADDR, "approved_public_cidrs", severity="warning")
    tf.plan(extra=["-out=unknown.tfplan"])
    (change,) = [c["change"] for c in tf.show_json("unknown.tfplan")["resource_changes"] if c["address"] == ADDR]
    # A rule waits for apply: the whole checklist is known after apply (the diagnostics above name what waits).
    assert all(change["after_unknown"].get(name) is True
               for name in ("passed_checks", "not_applicable_checks", "findings")), change
    tf.apply("unknown.tfplan")
    assert checks(state(tf))["CLU-5"]["status"] == "passed"
    assert tf.plan().rc == 0


def test_unknown_public_cidrs_that_break_clu_5_are_judged_at_apply(tf):
    """CIDRs known only at apply that do not cover the public endpoint: apply judges CLU-5 (a warning) and records
    `warning`, consistent with the plan's unknown status."""
    tf.write(contract(cidrs="terraform_data.cidrs.output") + UNKNOWN_CIDRS.replace(CIDR, OTHER_CIDR))
    result = tf.apply()
    assert "[CLU-5]" in flat(result.stdout + result.stderr), result.stdout
    assert checks(state(tf))["CLU-5"]["status"] == "warning"
    assert tf.plan().rc == 0


def test_unknown_project_role_defers_only_the_rules_that_read_it(tf):
    """A project role known only after apply (PRJ-2 used to be planned `skipped`, then applied `passed`)."""
    role = FX.project_role_arn("research")
    tf.write(contract(project_role_arn="${terraform_data.role.output}")
             + f'resource "terraform_data" "role" {{\n  input = "{role}"\n}}\n')
    verdict = tf.plan_json()
    assert not verdict.errors, verdict.describe()
    assert {d.rule for d in verdict.warnings if d.address == ADDR} == {"CON-1", "PRJ-2", "PRJ-4"}, verdict.describe()
    tf.apply()
    rows = checks(state(tf))
    assert [rows[r]["status"] for r in ("CON-1", "PRJ-2", "PRJ-4")] == ["passed"] * 3, rows
    assert state(tf)["governance"]["project_role_arn"] == role
    assert tf.plan().rc == 0


def test_unknown_material_argument_on_update_waits_for_apply_to_say_review_required(tf):
    """Updating a material argument (approved_account_ids) to a value known only at apply: LIF-2 and the review
    status are unknown at plan, and apply says `review_required`."""
    tf.write(contract())
    tf.apply()
    tf.write(contract(extra="  approved_account_ids = terraform_data.accounts.output")
             + f'resource "terraform_data" "accounts" {{\n  input = ["{CONSUMER_ACCOUNT}"]\n}}\n')
    verdict = tf.plan_json()
    assert not verdict.errors, verdict.describe()
    tf.apply()
    assert state(tf)["review_status"] == "review_required"
    assert checks(state(tf))["LIF-2"]["status"] == "warning"


@pytest.mark.parametrize("field, value", [
    ("domain_id", FX.datazone.domain_id), ("project_id", RESEARCH.id), ("domain_unit_id", FX.datazone.domain_unit_id)])
def test_unknown_domain_or_project_defers_the_rules_reading_them(tf, field, value):
    """The project's ids known only after apply: ORG-1 and PRJ-4 were planned `skipped` and applied `passed`
    (inconsistent final plan). Now they are planned unknown and judged at apply; a second plan is empty."""
    unknown = f'terraform_data.unknown.id != "" ? "{value}" : "{value}"'
    config = contract().replace(f'{field} = "{value}"', f"{field} = {unknown}")
    config = config.replace(f'{field}      = "{value}"', f"{field}      = {unknown}")
    config = config.replace(f'{field}     = "{value}"', f"{field}     = {unknown}")
    assert unknown in config
    tf.write(config + 'resource "terraform_data" "unknown" {}\n')
    verdict = tf.plan_json()
    assert not verdict.errors, verdict.describe()
    assert "ORG-1" in {d.rule for d in verdict.warnings if d.address == ADDR}, verdict.describe()
    tf.apply()
    assert checks(state(tf))["ORG-1"]["status"] == "passed"
    assert tf.plan().rc == 0
