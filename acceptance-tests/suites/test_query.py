"""`terraform query` (tfplugin6 ListResource, `.tfquery.hcl` `list` blocks) through a real Terraform against the
sandbox.

What a user relies on: the inventory finds the compute quotas of a cluster (`hyperpod_tenant`), the access entries that
give a project role HyperPod Studio policies (`hyperpod_task_view_restriction`) and the domain's HyperPod connections
(`hyperpod_unified_studio_project_binding`), and each result's display name says whether a contract governs it: what
the provider composed carries its marks (tags; for a connection, a tenant of its project on its cluster) and is
"governed", what was made out of band is "not governed". `-generate-config-out` writes an `import` block (by identity)
and a resource block for each result; once the user adds the `contract` a generated block cannot know (a write-only
reference to a `hyperpod_connection_contract`), the plan imports each object and shows exactly what governing it adds
(see the notes on `test_generated_configuration_imports_what_was_found`).
"""
import json
import re

import pytest

from harness import Terraform
from hcl import (
    ALLOCATION_REF,
    CLUSTER,
    DOMAIN,
    FX,
    PROFILE,
    ROOT_UNIT,
    UNIT,
    cluster_allocation,
    contract_resource,
    provider,
)
from test_project_binding import (
    PRODUCTION,
    PRODUCTION_TOOLING,
    RESTRICTION,
    TENANT,
    config as binding_config,
    connect,
    group_id,
)
from test_tenant import restrict

pytestmark = pytest.mark.provider

ADHOC_TEAM = f"{FX.test_prefix}-adhoc"  # a team whose quota is made outside Terraform
ADHOC_CONNECTION = f"{FX.test_prefix}-production-adhoc"
PRODUCTION_ROLE = FX.project("production").role_name
RESEARCH_ROLE = FX.project("research").role_name
G5 = FX.clusters.eks.instance_groups.inference.instance_type
CONTRACT_NAME = f"research-on-{CLUSTER}"  # hcl.CONTRACT_FIELDS["name"]

# The research contract, its tenant, restriction and binding: what the provider composes (governed).
MANAGED = binding_config(extra="tenants = [hyperpod_tenant.research.governance]\n"
                               "  task_view_restriction = hyperpod_task_view_restriction.research.governance"
                         ) + TENANT + RESTRICTION

QUERY = f"""
list "hyperpod_tenant" "quotas" {{
  provider = hyperpod
  config {{
    cluster_name = "{CLUSTER}"
  }}
}}

list "hyperpod_task_view_restriction" "task_views" {{
  provider = hyperpod
  config {{
    cluster_name = "{CLUSTER}"
  }}
}}

list "hyperpod_unified_studio_project_binding" "connections" {{
  provider = hyperpod
  config {{
    domain_id = "{DOMAIN}"
  }}
}}
"""


def out_of_band(sandbox) -> str:
    """A compute quota, a HyperPod connection and an access entry with a HyperPod policy, made with boto3 as a
    console user would (no contract, no provider tags); returns the connection's id."""
    sm = sandbox.client("sagemaker")
    sm.create_compute_quota(Name=f"{ADHOC_TEAM}-quota", ClusterArn=FX.cluster_arn("eks"),
                            ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": G5, "Count": 1}]},
                            ComputeQuotaTarget={"TeamName": ADHOC_TEAM})
    restrict(sandbox, "production")  # the production role's entry, AmazonSagemakerHyperpodTrainingPolicy
    return connect(sandbox, PRODUCTION, PRODUCTION_TOOLING, ADHOC_CONNECTION)


def query_json(tf, *extra) -> dict:
    """`terraform query -json`: list address -> [list_resource_found], with no error diagnostic."""
    result = tf.run("query", "-json", "-no-color", *extra, check=False)
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    errors = [m for m in messages if m.get("@level") == "error"]
    assert result.rc == 0 and not errors, f"query failed (rc {result.rc}):\n{result.stdout}\n{result.stderr}"
    found: dict[str, list] = {}
    for message in messages:
        if message.get("type") == "list_resource_found":
            item = message["list_resource_found"]
            found.setdefault(item["address"], []).append(item)
        elif message.get("type") == "list_complete":
            found.setdefault(message["list_complete"]["address"], [])
    return found


def query_dir(tmp_path, sandbox, name: str = "query") -> Terraform:
    """A second working directory with only the provider and the query file, initialised."""
    query = Terraform(tmp_path / name, sandbox.env())
    query.write(provider())
    query.write_file("inventory.tfquery.hcl", QUERY)
    query.init()
    return query


def labels(results: list) -> set:
    return {r["display_name"] for r in results}


def test_query_lists_what_was_made_out_of_band_as_not_governed_and_what_the_provider_composed_as_governed(
        tf, sandbox, tmp_path):
    tf.write(MANAGED)
    tf.init()
    tf.apply()
    connection_id = out_of_band(sandbox)

    found = query_json(query_dir(tmp_path, sandbox))

    quotas = found["list.hyperpod_tenant.quotas"]
    assert labels(quotas) == {f"{ADHOC_TEAM} (not governed)", f"research (governed by contract {CONTRACT_NAME})"}, \
        quotas
    (adhoc,) = [r for r in quotas if r["display_name"].startswith(ADHOC_TEAM)]
    assert adhoc["identity"] == {"cluster_name": CLUSTER, "team": ADHOC_TEAM}
    assert adhoc["resource_type"] == "hyperpod_tenant" and "resource_object" not in adhoc, adhoc

    task_views = found["list.hyperpod_task_view_restriction.task_views"]
    assert labels(task_views) == {f"{PRODUCTION_ROLE} (not governed)",
                                  f"{RESEARCH_ROLE} (governed by contract {CONTRACT_NAME})"}, task_views
    (production,) = [r for r in task_views if r["display_name"].startswith(PRODUCTION_ROLE)]
    assert production["identity"] == {"cluster_name": CLUSTER,
                                      "project_role_arn": FX.project_role_arn("production")}

    connections = found["list.hyperpod_unified_studio_project_binding.connections"]
    assert labels(connections) == {f"{ADHOC_CONNECTION} (not governed)",
                                   f"hyperpod-{CLUSTER}-{FX.project('research').id} "
                                   f"(governed by contract {CONTRACT_NAME})"}, connections
    (adhoc_connection,) = [r for r in connections if r["display_name"].startswith(ADHOC_CONNECTION)]
    assert adhoc_connection["identity"] == {"domain_id": DOMAIN, "connection_id": connection_id}



def blocks(text: str) -> dict:
    """The generated file's top-level blocks: (kind, labels) -> body, `import` blocks keyed by their `to`."""
    found = {}
    for match in re.finditer(r'^(resource|import)\b([^{]*)\{\n(.*?)^\}', text, re.S | re.M):
        kind, labels, body = match.group(1), match.group(2), match.group(3)
        if kind == "import":
            (to,) = re.findall(r"^\s*to\s*=\s*(\S+)", body, re.M)
            found[("import", to)] = body
        else:
            found[("resource", ".".join(re.findall(r'"([^"]+)"', labels)))] = body
    return found


def test_generated_configuration_imports_what_was_found_and_asks_for_the_contract(tf, sandbox, tmp_path):
    """`-generate-config-out` writes an import block by identity and a resource block for each object found (only
    out-of-band objects exist here). A generated block cannot know its contract (write-only, a reference to a
    `hyperpod_connection_contract` no live object names), nor a binding's project role (DataZone does not return it
    for a connection made outside a binding): the plan of the file as written asks for exactly those, at their
    lines, and nothing else."""
    connection_id = out_of_band(sandbox)
    query = query_dir(tmp_path, sandbox)
    query.run("query", "-generate-config-out=generated.tf", "-no-color")
    found = blocks((query.dir / "generated.tf").read_text())
    tenant, restriction, binding = ("hyperpod_tenant.quotas_0", "hyperpod_task_view_restriction.task_views_0",
                                    "hyperpod_unified_studio_project_binding.connections_0")
    assert set(found) == {(kind, address) for address in (tenant, restriction, binding)
                          for kind in ("resource", "import")}, sorted(found)
    assert f'team         = "{ADHOC_TEAM}"' in found[("import", tenant)]
    assert f'connection_id = "{connection_id}"' in found[("import", binding)]
    assert f'project_role_arn = "{FX.project_role_arn("production")}"' in found[("import", restriction)]
    assert re.search(rf'team\s+= "{ADHOC_TEAM}"', found[("resource", tenant)])
    assert re.search(rf'instance_type = "{re.escape(G5)}"', found[("resource", tenant)])
    assert re.search(rf'connection_name\s+= "{ADHOC_CONNECTION}"', found[("resource", binding)])

    verdict = query.plan_json()
    assert verdict.rc == 1, verdict.describe()
    missing = sorted((d.address, d.snippet["code"].split("=")[0].strip()) for d in verdict.errors)
    assert missing == sorted([(binding, "contract"), (binding, "project_role_arn"), (restriction, "contract"),
                              (tenant, "contract")]), verdict.describe()
    assert all(d.summary == "Missing required argument" for d in verdict.errors), verdict.describe()


RESEARCH_CONNECTION = f"hyperpod-{CLUSTER}-{FX.project('research').id}"  # a binding's default connection name


def adopt(generated: str, filled: dict) -> str:
    """The generated file completed with what only a person can say: `filled` (attribute -> HCL) replaces the `null`s
    Terraform wrote for them; and the tenant's workload identity, which a bare quota lacks (the tenant composes
    it)."""
    for attribute, value in filled.items():
        def fill(m: re.Match, value: str = value) -> str:
            return f"{m.group(1)} {value}"
        generated = re.sub(rf"^(\s*{attribute}\s*=) null$", fill, generated, flags=re.M)
    return re.sub(r'^(resource "hyperpod_tenant" "\w+" \{)$',
                  lambda m: m.group(1) + '\n  workload {\n    service_account = "research-jobs"\n  }', generated,
                  flags=re.M)


def changes(tf) -> dict:
    """address -> (actions, importing) of a saved plan."""
    plan = tf.show_json("tfplan")
    return {c["address"]: (c["change"]["actions"], "importing" in c["change"])
            for c in plan.get("resource_changes", [])}


def test_adopting_what_query_found_under_a_contract_plans_the_imports_then_nothing(tf, sandbox, tmp_path):
    """The inventory's purpose: the research project's quota, access entry and connection, made by hand, are found
    as not governed and generated; given what only a person can say (the contract; the cluster's documented split,
    a `hyperpod_cluster_allocation` listing research's quota as found, for the tenant and the binding; the controls
    a tenant requires), the plan creates the allocation, imports each and updates it in place (the provider's marks,
    what the tenant composes), never replacing it. Once applied, the next plan is empty with no diagnostic, and the
    inventory lists all three as governed."""
    share = ((FX.clusters.eks.instance_groups.training.instance_type, 2),)  # research's quota, made by hand
    sm = sandbox.client("sagemaker")
    quota = sm.create_compute_quota(
        Name="research-quota", ClusterArn=FX.cluster_arn("eks"),
        ComputeQuotaConfig={"ComputeQuotaResources": [{"InstanceType": t, "Count": n} for t, n in share]},
        ComputeQuotaTarget={"TeamName": "research"})["ComputeQuotaId"]
    restrict(sandbox, "research")
    connection_id = connect(sandbox, FX.project("research").id, FX.project("research").tooling_environment_id,
                            RESEARCH_CONNECTION)
    query = query_dir(tmp_path, sandbox)
    query.run("query", "-generate-config-out=generated.tf", "-no-color")
    generated = (query.dir / "generated.tf").read_text()
    (query.dir / "generated.tf").write_text(adopt(generated, {
        "contract": "hyperpod_connection_contract.research.governance",
        "allocation": ALLOCATION_REF,  # the tenant's (WKL-3) and the binding's, which has no task_view_restriction
        "project_role_arn": f'"{FX.project_role_arn("research")}"',  # only the binding's is null
        "viewer_groups": '["research-task-viewers"]',  # WKL-10: a quota is never the only control
        "operator_groups": '["research-task-operators"]',
    }))
    query.write(provider() + contract_resource("research") + cluster_allocation({"research": share}))

    verdict = query.plan_json(["-out=tfplan"])
    assert verdict.rc == 2 and not verdict.diagnostics, verdict.describe()
    tenant, restriction, binding = ("hyperpod_tenant.quotas_0", "hyperpod_task_view_restriction.task_views_0",
                                    "hyperpod_unified_studio_project_binding.connections_0")
    assert changes(query) == {"hyperpod_connection_contract.research": (["create"], False),
                              "hyperpod_cluster_allocation.capacity": (["create"], False),
                              tenant: (["update"], True), restriction: (["update"], True),
                              binding: (["update"], True)}
    query.apply("tfplan")
    after = query.plan_json()
    assert after.rc == 0 and not after.diagnostics, after.describe()

    state = {r["address"]: r["values"] for r in query.show_json()["values"]["root_module"]["resources"]}
    assert state[tenant]["compute_quota_id"] == quota and state[binding]["connection_id"] == connection_id, state
    found = query_json(query)
    assert f"research (governed by contract {CONTRACT_NAME})" in labels(found["list.hyperpod_tenant.quotas"])
    assert f"{RESEARCH_ROLE} (governed by contract {CONTRACT_NAME})" in labels(
        found["list.hyperpod_task_view_restriction.task_views"])
    assert f"{RESEARCH_CONNECTION} (governed by contract {CONTRACT_NAME})" in labels(
        found["list.hyperpod_unified_studio_project_binding.connections"])


POLICY_TYPE = "CREATE_PROJECT_FROM_PROJECT_PROFILE"
GRANTS_QUERY = "".join(f"""
list "hyperpod_domain_unit_policy_grant" "{name}" {{
  provider = hyperpod
  config {{
    domain_id      = "{DOMAIN}"
    domain_unit_id = "{unit}"
  }}
}}
""" for name, unit in (("platform", UNIT), ("root", ROOT_UNIT)))


def add_grant(sandbox, unit: str, include_children: bool) -> str:
    """A project-creation grant on `unit` for the fixture's profile to the research owners' group, made by hand."""
    group = group_id(sandbox, FX.project("research").owner_group)
    return sandbox.client("datazone").add_policy_grant(
        domainIdentifier=DOMAIN, entityType="DOMAIN_UNIT", entityIdentifier=unit, policyType=POLICY_TYPE,
        principal={"group": {"groupIdentifier": group}},
        detail={"createProjectFromProjectProfile": {"projectProfiles": [PROFILE],
                                                    "includeChildDomainUnits": include_children}})["grantId"]


@pytest.mark.sandbox_only(reason="adds grants outside Terraform, leaving them to the sandbox's reset")
def test_a_grant_is_governed_when_a_governed_project_rests_on_it_and_imports_with_no_change(tf, sandbox, tmp_path):
    """The research project lives in the platform unit, made from the fixture's profile. A grant of that profile on
    that unit, or on its parent including child units, is what the project's creation rests on: governed once a
    tenant onboards the project, not before. A grant on the parent without child units never is. The generated
    blocks are complete: the plan imports each grant and changes nothing."""
    group = group_id(sandbox, FX.project("research").owner_group)
    on_unit, on_root, on_root_and_children = (add_grant(sandbox, UNIT, False), add_grant(sandbox, ROOT_UNIT, False),
                                              add_grant(sandbox, ROOT_UNIT, True))
    query = Terraform(tmp_path / "grants", sandbox.env())
    query.write(provider())
    query.write_file("grants.tfquery.hcl", GRANTS_QUERY)
    query.init()

    def found() -> dict:
        results = query_json(query)
        return {r["identity"]["grant_id"]: r["display_name"]
                for address in ("list.hyperpod_domain_unit_policy_grant.platform",
                                "list.hyperpod_domain_unit_policy_grant.root") for r in results[address]}

    name, children = f"group {group}: {PROFILE}", f"group {group}: {PROFILE} (and child units)"
    assert found() == {on_unit: f"{name} (not governed)", on_root: f"{name} (not governed)",
                       on_root_and_children: f"{children} (not governed)"}
    tf.write(MANAGED)
    tf.init()
    tf.apply()
    governed = f"(governed by contract {CONTRACT_NAME})"
    assert found() == {on_unit: f"{name} {governed}", on_root: f"{name} (not governed)",
                       on_root_and_children: f"{children} {governed}"}

    query.run("query", "-generate-config-out=generated.tf", "-no-color")
    verdict = query.plan_json(["-out=tfplan"])
    assert not verdict.diagnostics, verdict.describe()
    assert changes(query) == {f"hyperpod_domain_unit_policy_grant.{label}_{n}": (["no-op"], True)
                              for label, n in (("platform", 0), ("root", 0), ("root", 1))}
