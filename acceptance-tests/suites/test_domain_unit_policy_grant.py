"""hyperpod_domain_unit_policy_grant through a real Terraform against the fixture's Unified Studio domain
(its root unit, the ML platform unit, the HyperPod project profile): create with each
kind of principal, empty second plan and the grant as DataZone lists it; replacement when a profile changes; import
by ID and by identity; a grant removed out of band is added again; destroy removes it; refusals with the attribute
path (what the domain does not hold: the plan warns that apply refuses the change, since no such finding may fail a
plan, and apply refuses it before adding anything); invalid configuration fails the plan."""
import pytest
from botocore.exceptions import ClientError

from harness import checklist, flat
from harness.terraform import REFUSED, REFUSED_AT_APPLY
from hcl import DOMAIN, FX, PLATFORM_ADMINS, PROFILE, RESEARCH_LEADS, ROOT_UNIT, UNIT, provider
from test_project_binding import profile_names

pytestmark = pytest.mark.provider

ADDR = "hyperpod_domain_unit_policy_grant.training"
ML_UNIT = UNIT
POLICY_TYPE = "CREATE_PROJECT_FROM_PROJECT_PROFILE"

# A group with a profile in the domain, and an IAM role with a user profile (fixture `datazone`).
GROUP_NAME, ADMIN_ROLE = PLATFORM_ADMINS, FX.role_arn(FX.datazone.user_role_name)
GROUP = f'group_id = "{GROUP_NAME}"'
USER = f'user_id = "{ADMIN_ROLE}"'
UNIT_OWNERS = f'domain_unit_id = "{ROOT_UNIT}"\n    designation    = "OWNER"'


def grant(profiles=(PROFILE,), principal=GROUP, unit=ML_UNIT, extra="") -> str:
    listed = ", ".join(f'"{p}"' for p in profiles)
    return provider() + f"""
resource "hyperpod_domain_unit_policy_grant" "training" {{
  domain_id           = "{DOMAIN}"
  domain_unit_id      = "{unit}"
  project_profile_ids = [{listed}]
{extra}
  principal {{
    {principal}
  }}
}}
"""


def state(tf):
    for resource in tf.show_json()["values"]["root_module"]["resources"]:
        if resource["address"] == ADDR:
            return resource["values"]
    raise AssertionError(f"{ADDR} not in state")


def live_grants(sandbox, unit=ML_UNIT):
    dz = sandbox.client("datazone")
    return dz.list_policy_grants(domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=unit,
                                 policyType=POLICY_TYPE)["grantList"]


_ADDED: list = []  # (principal, grant id) of the grants add_grant made in the running test


def profile_id(sandbox, name: str) -> str:
    """The profile ID of a group name, user name or IAM ARN: DataZone keeps and lists grant principals by it."""
    (found,) = [i for i, n in profile_names(sandbox).items() if n == name]
    return found


def add_grant(sandbox, profiles=(PROFILE,), principal=None):
    dz = sandbox.client("datazone")
    principal = principal or {"group": {"groupIdentifier": profile_id(sandbox, GROUP_NAME)}}
    grant_id = dz.add_policy_grant(
        domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ML_UNIT, policyType=POLICY_TYPE,
        principal=principal,
        detail={"createProjectFromProjectProfile": {"projectProfiles": list(profiles),
                                                    "includeChildDomainUnits": False}},
    )["grantId"]
    _ADDED.append((principal, grant_id))
    return grant_id


@pytest.fixture(autouse=True)
def remove_added_grants(sandbox):
    """Grants a test added outside Terraform are removed after it on a real account (the sandbox's reset removes
    them locally); one the test imported is gone already, with its destroy."""
    _ADDED.clear()
    yield
    if sandbox.real:
        dz = sandbox.client("datazone")
        for principal, grant_id in _ADDED:
            try:
                dz.remove_policy_grant(domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ML_UNIT,
                                       policyType=POLICY_TYPE, principal=principal, grantIdentifier=grant_id)
            except ClientError:
                pass


@pytest.fixture
def training_profile(sandbox):
    """A second approved project profile, "HyperPod training" (the sandbox's reset removes it)."""
    dz = sandbox.client("datazone")
    created = dz.create_project_profile(domainIdentifier=DOMAIN, name="HyperPod training",
                                        domainUnitIdentifier=ML_UNIT)
    yield created["id"]
    if sandbox.real:
        dz.delete_project_profile(domainIdentifier=DOMAIN, identifier=created["id"])


def test_schema_documents_the_grant_and_org_1(tf):
    tf.write(provider())
    schema = tf.schema_json()["provider_schemas"]["registry.terraform.io/hyperpod-governance/hyperpod"]
    block = schema["resource_schemas"]["hyperpod_domain_unit_policy_grant"]["block"]
    assert "ORG-1" in block["description"]
    for name, attribute in block["attributes"].items():
        assert attribute.get("description"), f"{name} has no description"
    principal = block["block_types"]["principal"]
    assert (principal["nesting_mode"], principal["min_items"], principal["max_items"]) == ("single", 1, 1)
    identity = schema["resource_identity_schemas"]["hyperpod_domain_unit_policy_grant"]["attributes"]
    assert all(identity[name]["required_for_import"] for name in ("domain_id", "domain_unit_id", "grant_id"))


@pytest.mark.parametrize("principal,expected", [
    # DataZone lists a group or user principal by its profile ID, whatever the request named it by.
    (GROUP, lambda sandbox: {"group": {"groupIdentifier": profile_id(sandbox, GROUP_NAME)}}),
    (USER, lambda sandbox: {"user": {"userIdentifier": profile_id(sandbox, ADMIN_ROLE)}}),
    (UNIT_OWNERS, lambda _: {"domainUnit": {"domainUnitDesignation": "OWNER", "domainUnitIdentifier": ROOT_UNIT}}),
], ids=["group", "user", "domain-unit-owners"])
def test_create_then_empty_plan_and_the_grant_is_listed(tf, sandbox, principal, expected):
    tf.write(grant(principal=principal))
    plan = tf.plan()
    assert plan.rc == 2
    # The organization facts are known before anything exists.
    assert flat(f'+ governance = {{ + domain_id = "{DOMAIN}" + domain_unit_id = "{ML_UNIT}" '
                f'+ include_child_domain_units = false') in flat(plan.stdout)
    tf.apply()
    values = state(tf)
    assert values["id"] == f"{DOMAIN}/{ML_UNIT}/{values['grant_id']}"
    assert values["governance"] == {"domain_id": DOMAIN, "domain_unit_id": ML_UNIT, "project_profile_ids": [PROFILE],
                                    "include_child_domain_units": False}
    [live] = live_grants(sandbox)
    assert live["grantId"] == values["grant_id"]
    assert live["principal"] == expected(sandbox)
    recorded = next(v for k, v in values["principal"].items() if k != "designation" and v)
    assert f'"{recorded}"' in principal, "state keeps the principal as the configuration names it"
    assert live["detail"] == {"createProjectFromProjectProfile": {"projectProfiles": [PROFILE],
                                                                  "includeChildDomainUnits": False}}
    tf.assert_no_changes()


def test_a_changed_profile_replaces_the_grant(tf, sandbox, training_profile):
    tf.write(grant())
    tf.apply()
    first = state(tf)["grant_id"]
    tf.write(grant(profiles=(PROFILE, training_profile), extra="  include_child_domain_units = true"))
    plan = tf.plan()
    assert flat("must be replaced") in flat(plan.stdout)
    assert flat("# forces replacement") in flat(plan.stdout)
    tf.apply()
    second = state(tf)
    assert second["grant_id"] != first
    [live] = live_grants(sandbox)
    assert live["grantId"] == second["grant_id"]
    assert live["detail"]["createProjectFromProjectProfile"] == {"projectProfiles": [PROFILE, training_profile],
                                                                 "includeChildDomainUnits": True}
    tf.assert_no_changes()
    # A new principal is a new grant too.
    tf.write(grant(profiles=(PROFILE, training_profile), principal=USER,
                   extra="  include_child_domain_units = true"))
    assert flat("must be replaced") in flat(tf.plan().stdout)
    tf.apply()
    [live] = live_grants(sandbox)
    assert "user" in live["principal"] and live["grantId"] != second["grant_id"]
    tf.assert_no_changes()


def test_import_by_id_then_the_principal_is_recorded_as_configured(tf, sandbox):
    """Import reads the principal as DataZone lists it, by profile ID; the configuration names the group: the same
    grant, so the plan records the name in place (no replacement), and then is empty."""
    grant_id = add_grant(sandbox)
    tf.write(grant())
    tf.import_(ADDR, f"{DOMAIN}/{ML_UNIT}/{grant_id}")
    values = state(tf)
    assert (values["grant_id"], values["project_profile_ids"]) == (grant_id, [PROFILE])
    assert values["principal"]["group_id"] == profile_id(sandbox, GROUP_NAME)
    plan = tf.plan()
    assert flat("0 to add, 1 to change, 0 to destroy") in flat(plan.stdout), plan.stdout
    tf.apply()
    assert (state(tf)["grant_id"], state(tf)["principal"]["group_id"]) == (grant_id, GROUP_NAME)
    tf.assert_no_changes()


def test_import_block_by_identity(tf, sandbox):
    grant_id = add_grant(sandbox)
    tf.write(grant() + f"""
import {{
  to       = {ADDR}
  identity = {{
    domain_id      = "{DOMAIN}"
    domain_unit_id = "{ML_UNIT}"
    grant_id       = "{grant_id}"
  }}
}}
""")
    plan = tf.plan()
    # The principal is recorded as configured (DataZone lists it by profile ID): in place, nothing replaced.
    assert flat("1 to import, 0 to add, 1 to change, 0 to destroy") in flat(plan.stdout), plan.stdout
    tf.apply()
    assert state(tf)["grant_id"] == grant_id
    assert len(live_grants(sandbox)) == 1


def test_import_of_a_missing_grant_says_so(tf):
    tf.write(grant())
    result = tf.import_(ADDR, f"{DOMAIN}/{ML_UNIT}/AAAAAAAAAA", check=False)
    assert result.rc == 1
    assert flat("has no CREATE_PROJECT_FROM_PROJECT_PROFILE grant") in flat(result.stderr)


def test_a_grant_removed_out_of_band_is_added_again(tf, sandbox):
    tf.write(grant())
    tf.apply()
    first = state(tf)["grant_id"]
    sandbox.client("datazone").remove_policy_grant(
        domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=ML_UNIT, policyType=POLICY_TYPE,
        principal={"group": {"groupIdentifier": profile_id(sandbox, GROUP_NAME)}}, grantIdentifier=first)
    assert live_grants(sandbox) == []
    plan = tf.plan()
    assert plan.rc == 2
    assert flat("will be created") in flat(plan.stdout)
    tf.apply()
    [live] = live_grants(sandbox)
    assert live["grantId"] == state(tf)["grant_id"] != first
    tf.assert_no_changes()


def test_destroy_removes_the_grant_and_leaves_others(tf, sandbox):
    other = add_grant(sandbox, principal={"group": {"groupIdentifier": profile_id(sandbox, RESEARCH_LEADS)}})
    tf.write(grant())
    tf.apply()
    assert len(live_grants(sandbox)) == 2
    tf.destroy()
    assert [g["grantId"] for g in live_grants(sandbox)] == [other]


def test_an_identical_unmanaged_grant_is_refused_with_the_import_id(tf, sandbox):
    """Someone else's identical grant: the plan warns (only AddPolicyGrant's idempotency token can tell it from this
    resource's own grant left by a killed apply, which is adopted: suites/test_kill.py), the apply is refused with
    its import ID, and nothing is added."""
    grant_id = add_grant(sandbox)
    tf.write(grant())
    tf.init()
    import_id = f"{DOMAIN}/{ML_UNIT}/{grant_id}"
    plan = tf.plan_json()
    assert plan.rc == 2 and not plan.errors, plan.describe()
    [warning] = [d for d in plan.warnings if d.address == ADDR]
    assert warning.summary == "An identical grant exists" and import_id in flat(warning.detail)
    applied = tf.apply_json()
    assert applied.rc == 1
    [error] = applied.errors
    assert (error.address, error.summary) == (ADDR, "The grant already exists")
    assert flat(f"terraform import {ADDR.split('.')[0]}.<name> {import_id}") in flat(error.detail)
    assert [g["grantId"] for g in live_grants(sandbox)] == [grant_id]


def plan_fails_at(tf, path: str, *texts: str):
    result = tf.plan(check=False)
    assert result.rc == 1, result.stdout
    text = flat(result.stderr)
    assert f"{path}:" in text, result.stderr
    for needle in texts:
        assert flat(needle) in text, result.stderr
    return text


def refused_at(tf, sandbox, path: str, *texts: str):
    """The plan succeeds and warns that apply refuses the grant, naming `path` and each of `texts`; apply then fails
    with the same error, saying nothing was written, and adds no grant (none listed, none in state)."""
    before = live_grants(sandbox)
    result = tf.plan(check=False)
    assert result.rc == 2, result.stdout + result.stderr
    text = flat(result.stdout)
    assert flat(REFUSED) in text and f"{path}:" in text, result.stdout
    for needle in texts:
        assert flat(needle) in text, result.stdout
    applied = tf.apply(check=False)
    refused = flat(applied.stderr)
    assert applied.rc == 1 and "Error:" in refused and flat(REFUSED_AT_APPLY) in refused, \
        applied.stdout + applied.stderr
    assert f"{path}:" in refused, applied.stderr
    for needle in texts:
        assert flat(needle) in refused, applied.stderr
    assert live_grants(sandbox) == before
    assert tf.show_json().get("values") is None, "nothing of the grant is in state"


def test_unknown_domain_unit_is_refused(tf, sandbox):
    tf.write(grant(unit="nosuchunit0001"))
    refused_at(tf, sandbox, "domain_unit_id", '"nosuchunit0001"',
               f"no domain unit of that ID exists in domain {DOMAIN}")


def test_unknown_project_profile_is_refused_and_names_the_existing_ones(tf, sandbox):
    name = sandbox.client("datazone").get_project_profile(domainIdentifier=DOMAIN, identifier=PROFILE)["name"]
    tf.write(grant(profiles=(PROFILE, "nosuchprofile1")))
    refused_at(tf, sandbox, "project_profile_ids[1]", '"nosuchprofile1"', "no project profile of that ID exists",
               f"{PROFILE} ({name})")


def test_unknown_principal_domain_unit_is_refused(tf, sandbox):
    tf.write(grant(principal='domain_unit_id = "nosuchunit0001"\n    designation    = "OWNER"'))
    refused_at(tf, sandbox, "principal.domain_unit_id", '"nosuchunit0001"')


def test_two_principals_fail_validation(tf):
    tf.write(grant(principal=f"{GROUP}\n    {USER}"))
    plan_fails_at(tf, "principal.user_id", "Conflicting principals", "group_id, user_id")


# ---- ORG-1: a contract that names the grant its project's creation rests on ---------------------------------------
def contract_on_grant(unit: str, include_children: bool = False, profiles=(PROFILE,)) -> str:
    from hcl import contract_resource
    listed = ", ".join(f'"{p}"' for p in profiles)
    children = "\n  include_child_domain_units = true" if include_children else ""
    return provider() + f"""
resource "hyperpod_domain_unit_policy_grant" "training" {{
  domain_id           = "{DOMAIN}"
  domain_unit_id      = "{unit}"
  project_profile_ids = [{listed}]{children}

  principal {{
    {GROUP}
  }}
}}
""" + contract_resource("research", extra="  organization = hyperpod_domain_unit_policy_grant.training.governance")


CONTRACT = "hyperpod_connection_contract.research"


def addresses(tf) -> list[str]:
    """The addresses in state."""
    return [r["address"] for r in (tf.show_json().get("values") or {}).get("root_module", {}).get("resources", [])]


def org_1_row(tf) -> dict:
    for resource in tf.show_json()["values"]["root_module"]["resources"]:
        if resource["address"] == CONTRACT:
            return checklist(resource["values"])["ORG-1"]
    raise AssertionError("no contract in state")


def test_org_1_passes_when_the_grant_covers_the_projects_unit_and_profile(tf):
    tf.write(contract_on_grant(ML_UNIT))
    tf.apply()
    row = org_1_row(tf)
    assert row["status"] == "passed", row
    tf.assert_no_changes()


def test_org_1_a_grant_on_the_parent_covers_the_project_only_with_child_units(tf):
    tf.write(contract_on_grant(ROOT_UNIT))
    tf.plan_refuses("ORG-1", "organization.domain_unit_id", f'the grant covers "{ROOT_UNIT}" only')
    assert CONTRACT not in addresses(tf), "apply wrote nothing of the contract"
    tf.write(contract_on_grant(ROOT_UNIT, include_children=True))
    tf.apply()
    assert org_1_row(tf)["status"] == "passed"


def test_org_1_the_project_was_created_from_an_approved_profile(tf, training_profile):
    tf.write(contract_on_grant(ML_UNIT, profiles=(training_profile,)))
    tf.plan_refuses("ORG-1", "organization.project_profile_ids", PROFILE)
    assert CONTRACT not in addresses(tf), "apply wrote nothing of the contract"
