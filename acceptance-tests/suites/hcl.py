"""HCL the Terraform suites share: the provider header and connection contracts that are valid against the
sandbox's seed (domain dzd_capacity01, unit mlplatform0001, projects research000001 / production0001 with their
Tooling user roles, cluster ml-capacity)."""
import datetime

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role"


def days_ago(days: int) -> str:
    return (datetime.date.today() - datetime.timedelta(days=days)).isoformat()


def days_ahead(days: int) -> str:
    return days_ago(-days)


def provider(settings: str = 'region = "us-west-2"') -> str:
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


CONTRACT_FIELDS = {  # the research team's contract for ml-capacity; each value is an HCL fragment's content
    "name": "research-on-ml-capacity",
    "domain_unit_id": "mlplatform0001",
    "project_id": "research000001",
    "account_id": ACCOUNT,
    "cluster_name": "ml-capacity",
    "orchestrator": "eks",
    "project_role_arn": f"{ROLE}/datazone_usr_role_research",
    "access_role_arn": f"{ROLE}/hyperpod-connection-access",
    "scope": 'eks_namespaces = ["hyperpod-ns-research"]',
    "cidrs": '["203.0.113.0/24"]',  # the seeded EKS endpoint is public to this range
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
    domain_id      = "dzd_capacity01"
    domain_unit_id = "{fields["domain_unit_id"]}"
    project_id     = "{fields["project_id"]}"
  }}

  cluster {{
    account_id   = "{fields["account_id"]}"
    region       = "us-west-2"
    name         = "{fields["cluster_name"]}"
    orchestrator = "{fields["orchestrator"]}"
  }}

  project_role_arn        = "{fields["project_role_arn"]}"
  access_role_arn         = "{fields["access_role_arn"]}"
  approved_workload_types = ["training", "interactive"]
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


def contract(provider_settings: str = 'region = "us-west-2"', **overrides) -> str:
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
