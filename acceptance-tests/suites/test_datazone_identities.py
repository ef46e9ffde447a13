"""DataZone identities through a real Terraform: project binding members and policy grant principals as DataZone keeps
them. DataZone resolves a membership's or a grant principal's user / group identifier to its user / group *profile
ID* and lists it by that ID (AWS's own CloudFormation handler resolves with GetUserProfile / GetGroupProfile and
matches ListProjectMemberships on the profile ID); it refuses identities it has no profile of and a second membership
of the same profile. The sandbox does the same (sandbox/datazone.py), so these tests hold the provider to it:

* members and principals named by group name, profile ID, Identity Center user name or IAM ARN are kept by profile ID
  in DataZone, state keeps what the configuration says, and the next plan is empty;
* a name that names no profile is refused at its attribute: the plan warns that apply refuses the change (what
  names a profile is the account's to say, and no such finding may fail a plan: `terraform destroy` refreshes with
  one), and apply returns it as an error before anything of the resource is written; when the name was unknown at
  plan, apply refuses it the same way; two members naming the same profile are refused at the second;
* drift: a membership whose designation was changed out of band shows in the plan and apply restores it; a member the
  project already has with another designation is taken over;
* a grant principal respelled to the same profile (its ID for its name) is recorded in place, never replaced.
"""
import pytest

from harness import flat
from harness.fixture import current
from harness.terraform import REFUSED_AT_APPLY
from hcl import contract_resource, provider
from test_domain_unit_policy_grant import ADDR, ADMIN_ROLE, GROUP_NAME, grant, live_grants, profile_id, state
from test_project_binding import (
    BINDING,
    DOMAIN,
    RESEARCH,
    binding,
    connections,
    memberships,
    research_tenant,
    resources,
)

pytestmark = pytest.mark.provider
_ = research_tenant  # a fixture, used by name

FX = current()
# The research team's groups and the other team's leads (fixture `datazone.groups`: research leads, scientists,
# analysts, production leads, ...), an Identity Center user and an IAM role with a user profile in the domain.
LEADS, SCIENTISTS, ANALYSTS, OTHER_LEADS = FX.datazone.groups[:4]
SSO_USER = FX.datazone.sso_user
UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"  # profile-ID shaped, names no one


def config(members) -> str:
    return provider() + contract_resource("research") + binding(members=members)


def raw_memberships(sandbox, project=RESEARCH) -> dict:
    """(kind, profile ID) -> designation, exactly as ListProjectMemberships answers."""
    members = sandbox.client("datazone").list_project_memberships(domainIdentifier=DOMAIN,
                                                                  projectIdentifier=project)["members"]
    return {(kind, detail[f"{kind}Id"]): m["designation"]
            for m in members for kind, detail in m["memberDetails"].items()}


def errors_at(verdict, address: str) -> list[tuple[str, str]]:
    """(source line the error points at, detail) of each error on `address`."""
    return [(verdict.line(d).strip(), flat(d.detail)) for d in verdict.errors if d.address == address]


def refusals_at(verdict, address: str) -> list[tuple[str, str]]:
    """(source line the refusal points at, detail) of each refusal on `address`: a plan's warning that apply refuses
    the change."""
    return [(verdict.line(d).strip(), flat(d.detail)) for d in verdict.refusals if d.address == address]


def refused_at_apply(tf, address: str) -> list[tuple[str, str]]:
    """Apply the configuration, which must fail; the errors on `address` as `errors_at`, each saying it was refused
    before anything was written."""
    applied = tf.apply_json()
    assert applied.rc == 1, applied.describe()
    found = errors_at(applied, address)
    assert found and all(REFUSED_AT_APPLY in detail for _, detail in found), applied.describe()
    return found


# ---- project binding members ---------------------------------------------------------------------------------------
def test_members_are_kept_by_profile_id_and_state_keeps_what_was_written(tf, sandbox, research_tenant):
    before, scientists = raw_memberships(sandbox), profile_id(sandbox, SCIENTISTS)
    members = ((LEADS, "PROJECT_OWNER"), (scientists, "PROJECT_CONTRIBUTOR"),
               (SSO_USER, "PROJECT_CATALOG_VIEWER", "user"), (ADMIN_ROLE, "PROJECT_CONTRIBUTOR", "user"))
    tf.write(config(members))
    tf.apply()
    assert raw_memberships(sandbox) == {
        **before, ("group", profile_id(sandbox, LEADS)): "PROJECT_OWNER", ("group", scientists): "PROJECT_CONTRIBUTOR",
        ("user", profile_id(sandbox, SSO_USER)): "PROJECT_CATALOG_VIEWER",
        ("user", profile_id(sandbox, ADMIN_ROLE)): "PROJECT_CONTRIBUTOR"}
    assert [m["name"] for m in resources(tf)[BINDING]["member"]] == [m[0] for m in members]
    tf.assert_no_changes()  # refresh matches the members on their profile IDs: none drops out
    tf.destroy()
    assert raw_memberships(sandbox) == before


def test_a_member_that_names_no_profile_is_refused_at_its_name(tf, sandbox, research_tenant):
    """The plan succeeds and warns at each unknown name that apply refuses the change; apply returns the same
    refusals as errors and writes nothing of the binding (no connection, no membership, nothing in state)."""
    before = (raw_memberships(sandbox), connections(sandbox))
    tf.write(config(((LEADS, "PROJECT_OWNER"), ("nobody-at-all", "PROJECT_CONTRIBUTOR"),
                     (UNKNOWN_ID, "PROJECT_CONTRIBUTOR"), ("bob@example.com", "PROJECT_OWNER", "user"))))
    names = [f'name        = "{name}"' for name in ("nobody-at-all", UNKNOWN_ID, "bob@example.com")]
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    found = refusals_at(verdict, BINDING)
    assert [line for line, _ in found] == names, verdict.describe()
    assert all(f"no DataZone {kind} profile of that name or ID exists in domain {DOMAIN}" in detail
               for (_, detail), kind in zip(found, ("group", "group", "user"), strict=True)), verdict.describe()
    refused = refused_at_apply(tf, BINDING)
    assert [line for line, _ in refused] == names, refused
    assert all(f"no DataZone {kind} profile of that name or ID exists in domain {DOMAIN}" in detail
               for (_, detail), kind in zip(refused, ("group", "group", "user"), strict=True)), refused
    assert (raw_memberships(sandbox), connections(sandbox)) == before
    assert BINDING not in resources(tf)


def test_a_member_known_only_at_apply_that_names_no_one_fails_before_anything_is_written(
        tf, sandbox, research_tenant):
    before = (raw_memberships(sandbox), connections(sandbox))
    unknown_member = '''
  member {
    name        = terraform_data.who.output
    designation = "PROJECT_CONTRIBUTOR"
  }
'''
    tf.write(provider() + contract_resource("research")
             + binding(members=((LEADS, "PROJECT_OWNER"),), extra=unknown_member)
             + 'resource "terraform_data" "who" {\n  input = "nobody-at-all"\n}\n')
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    ((line, detail),) = refused_at_apply(tf, BINDING)
    assert line.startswith("name") and f"no DataZone group profile of that name or ID exists in domain {DOMAIN}" \
        in detail, detail
    assert (raw_memberships(sandbox), connections(sandbox)) == before, "nothing of the binding was written"
    assert BINDING not in resources(tf)


def test_two_members_naming_the_same_group_are_refused_at_the_second(tf, sandbox, research_tenant):
    """Both names resolve to one profile (the account says so): the plan warns at the second that apply refuses the
    change, and apply refuses it there, writing nothing of the binding."""
    before = (raw_memberships(sandbox), connections(sandbox))
    leads = profile_id(sandbox, LEADS)
    tf.write(config(((LEADS, "PROJECT_OWNER"), (leads, "PROJECT_CONTRIBUTOR"))))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    ((line, detail),) = refusals_at(verdict, BINDING)
    assert line == f'name        = "{leads}"' and "as member[0]" in detail, verdict.describe()
    ((line, detail),) = refused_at_apply(tf, BINDING)
    assert line == f'name        = "{leads}"' and "as member[0]" in detail, detail
    assert (raw_memberships(sandbox), connections(sandbox)) == before
    assert BINDING not in resources(tf)


def test_a_membership_changed_out_of_band_shows_in_the_plan_and_apply_restores_it(tf, sandbox, research_tenant):
    tf.write(config(((LEADS, "PROJECT_OWNER"), (SCIENTISTS, "PROJECT_CONTRIBUTOR"))))
    tf.apply()
    dz, leads = sandbox.client("datazone"), profile_id(sandbox, LEADS)
    dz.delete_project_membership(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH, member={"groupIdentifier": leads})
    dz.create_project_membership(domainIdentifier=DOMAIN, projectIdentifier=RESEARCH, member={"groupIdentifier": leads},
                                 designation="PROJECT_CATALOG_VIEWER")
    plan = tf.plan()
    text = flat(plan.stdout)
    assert plan.rc == 2 and f"{BINDING} will be updated in-place" in text, plan.stdout
    assert flat('~ designation = "PROJECT_CATALOG_VIEWER" -> "PROJECT_OWNER"') in text, plan.stdout
    tf.apply()
    assert memberships(sandbox)[("group", LEADS)] == "PROJECT_OWNER"
    tf.assert_no_changes()


def test_a_member_the_project_has_with_another_designation_is_taken_over(tf, sandbox, research_tenant):
    """DataZone refuses a second membership of the same profile and has no update: the takeover the plan announces
    deletes the membership and creates it with the configured designation."""
    before = memberships(sandbox)
    sandbox.client("datazone").create_project_membership(
        domainIdentifier=DOMAIN, projectIdentifier=RESEARCH,
        member={"groupIdentifier": profile_id(sandbox, LEADS)}, designation="PROJECT_CATALOG_VIEWER")
    tf.write(config(((LEADS, "PROJECT_OWNER"),)))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    (warning,) = [d for d in verdict.warnings if d.address == BINDING and d.summary == "Existing project member"]
    assert "changing it to PROJECT_OWNER" in flat(warning.detail), verdict.describe()
    tf.apply()
    assert memberships(sandbox) == {**before, ("group", LEADS): "PROJECT_OWNER"}
    tf.assert_no_changes()


# ---- policy grant principals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("principal, attribute", [
    ('group_id = "nobody-at-all"', "group_id"),
    (f'group_id = "{UNKNOWN_ID}"', "group_id"),
    ('user_id = "bob@example.com"', "user_id"),
    (f'user_id = "{ADMIN_ROLE}-gone"', "user_id"),
], ids=["group-name", "group-id", "user-name", "user-arn"])
def test_a_principal_that_names_no_profile_is_refused_at_its_attribute(tf, sandbox, principal, attribute):
    """The plan warns at the principal's attribute that apply refuses the change; apply refuses it there and adds no
    grant."""
    before = live_grants(sandbox)
    tf.write(grant(principal=principal))
    verdict = tf.plan_json()
    assert verdict.rc == 2 and not verdict.errors, verdict.describe()
    ((line, detail),) = refusals_at(verdict, ADDR)
    kind = attribute.split("_")[0]
    assert line == principal and f"no DataZone {kind} profile of that name or ID exists" in detail, verdict.describe()
    ((line, detail),) = refused_at_apply(tf, ADDR)
    assert line == principal and f"no DataZone {kind} profile of that name or ID exists" in detail, detail
    assert live_grants(sandbox) == before
    assert tf.show_json().get("values") is None, "nothing of the grant is in state"


def test_a_principal_known_only_at_apply_that_names_no_one_adds_nothing(tf, sandbox):
    before = live_grants(sandbox)
    tf.write(grant(principal="group_id = terraform_data.who.output")
             + 'resource "terraform_data" "who" {\n  input = "nobody-at-all"\n}\n')
    ((line, detail),) = refused_at_apply(tf, ADDR)
    assert line.startswith("group_id") and "no DataZone group profile" in detail, detail
    assert live_grants(sandbox) == before


def test_a_principal_respelled_as_the_same_profile_is_recorded_in_place(tf, sandbox):
    """A grant to a group by profile ID, then by the group's name: the same grant (DataZone lists it by the ID either
    way), so the plan changes state in place and keeps the grant; another group replaces it."""
    admins = profile_id(sandbox, GROUP_NAME)
    tf.write(grant(principal=f'group_id = "{admins}"'))
    tf.apply()
    first = state(tf)["grant_id"]
    [live] = [g for g in live_grants(sandbox) if g["grantId"] == first]
    assert live["principal"] == {"group": {"groupIdentifier": admins}}
    tf.assert_no_changes()
    tf.write(grant(principal=f'group_id = "{GROUP_NAME}"'))
    plan = tf.plan()
    text = flat(plan.stdout)
    assert "0 to add, 1 to change, 0 to destroy" in text and "must be replaced" not in text, plan.stdout
    tf.apply()
    assert (state(tf)["grant_id"], state(tf)["principal"]["group_id"]) == (first, GROUP_NAME)
    assert first in [g["grantId"] for g in live_grants(sandbox)]
    tf.assert_no_changes()
    tf.write(grant(principal=f'group_id = "{OTHER_LEADS}"'))
    assert "must be replaced" in flat(tf.plan().stdout)


@pytest.mark.sandbox_only(reason="injects a fault to show no membership is deleted")
def test_a_member_respelled_as_the_same_profile_keeps_its_membership(tf, sandbox, research_tenant):
    """A member's name replaced by its group's profile ID: the same membership, so the update records the new
    spelling and neither deletes nor re-creates it (a DeleteProjectMembership would fail here)."""
    tf.write(config(((LEADS, "PROJECT_OWNER"),)))
    tf.apply()
    before = raw_memberships(sandbox)
    leads = profile_id(sandbox, LEADS)
    tf.write(config(((leads, "PROJECT_OWNER"),)))
    plan = tf.plan()
    assert plan.rc == 2 and f"{BINDING} will be updated in-place" in flat(plan.stdout), plan.stdout
    sandbox.fault("DeleteProjectMembership", code="AccessDeniedException", status=403, count=10, service="datazone",
                  message="sandbox fault: the membership must not be deleted")
    tf.apply()
    sandbox.clear_faults()
    assert raw_memberships(sandbox) == before
    assert [m["name"] for m in resources(tf)[BINDING]["member"]] == [leads]
    tf.assert_no_changes()
