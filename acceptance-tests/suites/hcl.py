"""HCL the Terraform suites share: the provider header and connection contracts that are valid against the run's
fixture (harness/fixture.py: its domain, unit, the research and production projects with their Tooling user roles,
the EKS cluster), and the fixture's names the suites use most, under short names.  Nothing here is a literal id:
the same templates are valid against the local seed, the renamed seed and a real sandbox account."""
import datetime
import json
import re

from harness import current_fixture
from harness.fixture import LOCAL

FX = current_fixture()
ACCOUNT = FX.account_id
REGION = FX.region
ROLE = f"arn:aws:iam::{ACCOUNT}:role"
CLUSTER = FX.clusters.eks.name  # the HyperPod EKS cluster the suites govern
EKS_CLUSTER = FX.clusters.eks.eks_cluster_name
SLURM_CLUSTER = FX.clusters.slurm.name
DOMAIN = FX.datazone.domain_id
UNIT = FX.datazone.domain_unit_id
ROOT_UNIT = FX.datazone.root_domain_unit_id
PROFILE = FX.datazone.project_profile_id
RESEARCH = FX.project("research")  # .id, .name, .role_name, .tooling_environment_id
PRODUCTION = FX.project("production")
# The Identity Center groups of the domain, by the part each plays in the suites: each project's owner and
# contributor group, and the others by their place in fixture.datazone.groups (a renamed fixture renames in place).
RESEARCH_LEADS, RESEARCH_SCIENTISTS = RESEARCH.owner_group, RESEARCH.contributor_group
PRODUCTION_LEADS, PRODUCTION_SCIENTISTS = PRODUCTION.owner_group, PRODUCTION.contributor_group
RESEARCH_ANALYSTS, PLATFORM_LEADS, PLATFORM_ADMINS = (FX.datazone.groups[i] for i in (2, 5, 6))
CIDR = FX.approved_public_cidr  # the EKS endpoint is public to this range
# A documentation range the endpoint is not public to, whatever the fixture's CIDR is.
OTHER_CIDR = next(c for c in ("198.51.100.0/24", "192.0.2.0/24") if c != CIDR)
CONSUMER_ACCOUNT = FX.consumer_account_id
PROVIDER_REGION = f'region = "{REGION}"'


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, path + (index,))
    elif isinstance(node, str):
        yield path, node


def as_run_fixture(text: str) -> str:
    """`text` recorded against the local seed (a state file, a log), with each of the local fixture's names and ids
    replaced by the run's fixture's value at the same place: whole words, longest first, so ARNs and derived names
    (`<cluster>-policy`) follow.  The identity when the run's fixture is the local one."""
    local_fixture = json.loads(LOCAL.read_text())
    local, run = dict(_leaves(local_fixture)), dict(_leaves(FX.raw()))
    # A value that is also a word the suites use as a key (the project named "research" after its team) is not
    # replaced: "research" also names the team, its namespace and its priority class, which no fixture renames.
    words = {key for path in local for key in path if isinstance(key, str)}
    # Unchanged values map to themselves, so a longer one (the EKS cluster's name) is never cut into by a shorter
    # one it contains (the HyperPod cluster's name).
    mapping = {value: run[path] for path, value in local.items() if path in run and value not in words}
    if all(key == value for key, value in mapping.items()):
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(mapping, key=len, reverse=True)))
                         + r")(?![A-Za-z0-9_])")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def days_ago(days: int) -> str:
    return (datetime.date.today() - datetime.timedelta(days=days)).isoformat()


def days_ahead(days: int) -> str:
    return days_ago(-days)


def provider(settings: str = PROVIDER_REGION) -> str:
    """`terraform { required_providers }` and the provider block."""
    return f"""
terraform {{
  required_providers {{
    hyperpod = {{ source = "hyperpod-governance/hyperpod" }}
  }}
}}

provider "hyperpod" {{
  {settings}
}}
"""


CONTRACT_FIELDS = {  # the research team's contract for the EKS cluster; each value is an HCL fragment's content
    "name": f"research-on-{CLUSTER}",
    "domain_unit_id": UNIT,
    "project_id": RESEARCH.id,
    "account_id": ACCOUNT,
    "cluster_name": CLUSTER,
    "orchestrator": "eks",
    "project_role_arn": FX.project_role_arn("research"),
    "access_role_arn": FX.role_arn(FX.roles.connection_access),
    "workload_types": '["training", "interactive"]',  # approved_workload_types ("interactive": spaces, WKL-12)
    "scope": 'eks_namespaces = ["hyperpod-ns-research"]',
    "cidrs": f'["{CIDR}"]',  # the EKS endpoint is public to this range
    "signal_owner": "research-leads@example.com",
    "support": "ml-platform on-call, business hours",
    "interval_days": 90,
    "last_reviewed": None,  # 10 days ago
    "approved_by": "security-lead@example.com",
    "extra": "",
}


def contract_resource(label: str = "research", **overrides) -> str:
    """One `hyperpod_connection_contract` block; `overrides` replace CONTRACT_FIELDS."""
    fields = {**CONTRACT_FIELDS, **overrides}
    fields["last_reviewed"] = fields["last_reviewed"] or days_ago(10)
    return f"""
resource "hyperpod_connection_contract" "{label}" {{
  name = "{fields["name"]}"

  owners {{
    business   = "head-of-research@example.com"
    operations = "ml-platform-oncall@example.com"
    cost       = "finance-ml@example.com"
  }}

  unified_studio {{
    domain_id      = "{DOMAIN}"
    domain_unit_id = "{fields["domain_unit_id"]}"
    project_id     = "{fields["project_id"]}"
  }}

  cluster {{
    account_id   = "{fields["account_id"]}"
    region       = "{REGION}"
    name         = "{fields["cluster_name"]}"
    orchestrator = "{fields["orchestrator"]}"
  }}

  project_role_arn        = "{fields["project_role_arn"]}"
  access_role_arn         = "{fields["access_role_arn"]}"
  approved_workload_types = {fields["workload_types"]}
  data_classification     = "internal"
  approved_public_cidrs   = {fields["cidrs"]}
  {fields["scope"]}

  scheduling {{
    policy          = "borrow idle capacity at low priority"
    exception_owner = "ml-platform-leads@example.com"
  }}

  monitoring {{
    signal {{
      name     = "team-utilization"
      owner    = "{fields["signal_owner"]}"
      response = "rebalance quotas at the monthly review"
    }}
  }}

  support      = "{fields["support"]}"
  decommission = "remove the binding, then the tenant; archive data for 90 days"

  review {{
    interval_days = {fields["interval_days"]}
    last_reviewed = "{fields["last_reviewed"]}"
    approved_by   = "{fields["approved_by"]}"
  }}
{fields["extra"]}
}}
"""


def contract(provider_settings: str = PROVIDER_REGION, **overrides) -> str:
    """A whole configuration: the provider and the research contract (`hyperpod_connection_contract.research`)."""
    return provider(provider_settings) + contract_resource("research", **overrides)


def exception(rule: str, expires: str, owner: str = "ml-platform-leads@example.com",
              reason: str = "legacy jobs need open egress") -> str:
    """A contract `exception` block (for `extra`)."""
    return f"""
  exception {{
    rule    = "{rule}"
    owner   = "{owner}"
    expires = "{expires}"
    reason  = "{reason}"
  }}"""


ALLOCATION_REF = "hyperpod_cluster_allocation.capacity.governance"


def cluster_allocation(teams: dict, cluster_name: str = CLUSTER) -> str:
    """`hyperpod_cluster_allocation.capacity`, the cluster's documented split of its guaranteed capacity (issue 30);
    teams: {team: ((instance type, count), ...)}, whole instances, as the tenants' `quota` blocks give them (a team
    whose tenant asks for no quota, as on Slurm, is listed with none). Tenants and bindings reference it as
    `allocation = ALLOCATION_REF`."""
    rows = []
    for team, quota in teams.items():
        entries = ", ".join(f'{{ instance_type = "{t}", count = {n} }}' for t, n in quota)
        rows.append(f"    {team} = {{ quota = [{entries}] }}")
    body = "\n".join(rows)
    return (f'\nresource "hyperpod_cluster_allocation" "capacity" {{\n  cluster_name = "{cluster_name}"\n'
            f'  teams = {{\n{body}\n  }}\n}}\n')
