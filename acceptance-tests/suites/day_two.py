"""The governed configuration the day-two suite changes (suites/test_day_two.py): teams on the fixture's two EKS
clusters, each with its contract, tenant, task view restriction and Studio binding, and per cluster in use its
scheduling policy and capacity allocation, in the shape the docs teach (every handoff referenced); and the inventory
of what a team has on a cluster, to prove that nothing of a moved, renamed or removed team is left.

Names: a team's resources are labelled by `Team.label` (`research`, `production_legacy`), a cluster's by its kind
(`eks`, `legacy`: `hyperpod_scheduling_policy.eks`, `hyperpod_cluster_allocation.legacy`).
"""
from dataclasses import dataclass, field, replace

from hcl import ACCOUNT, FX, contract_resource, provider

CLUSTERS = {"eks": FX.clusters.eks, "legacy": FX.clusters.legacy}
TRAINING_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonSagemakerHyperpodTrainingPolicy"


@dataclass(frozen=True)
class Team:
    """One team on one cluster: `name` is the tenant's team (its namespace `hyperpod-ns-<name>`), `project` the
    fixture's project it belongs to (`research`, `production`), `cluster` a key of CLUSTERS, `quota` its guaranteed
    share as ((instance type, count), ...)."""
    name: str
    project: str
    cluster: str
    quota: tuple
    label: str = ""
    # What the configuration writes of it: a tenant (else only the allocation lists it), a restriction, a binding.
    tenant: bool = True
    binding: bool = True
    members: tuple = ()
    lifecycle_state: str = "approved"
    extra_tenant: str = ""
    # Interactive spaces on one of its quota's instances, at the policy's SPACE_CLASS (WKL-12), and the contract's
    # approved workload types (HCL; empty: hcl.py's default, training and interactive).
    spaces: bool = False
    workload_types: str = ""

    @property
    def address(self) -> str:
        return self.label or self.name

    def on(self, cluster: str, quota: tuple) -> "Team":
        return replace(self, cluster=cluster, quota=quota)


@dataclass
class World:
    """A whole configuration. `allocated`: each cluster's allocation rows ({cluster: {team: quota}}); by default the
    quotas of the teams on it."""
    teams: list[Team]
    allocated: dict = field(default_factory=dict)
    provider_settings: str = f'region = "{FX.region}"'
    extra: str = ""
    # Whether a cluster's policy has the spaces' class where a team on it runs spaces.
    space_class: bool = True

    def clusters(self) -> list[str]:
        used = {team.cluster for team in self.teams} | set(self.allocated)
        return [kind for kind in CLUSTERS if kind in used]

    def rows(self, cluster: str) -> dict:
        if cluster in self.allocated:
            return self.allocated[cluster]
        return {team.name: team.quota for team in self.teams if team.cluster == cluster}

    def hcl(self) -> str:
        text = provider(self.provider_settings)
        for cluster in self.clusters():
            spaces = self.space_class and any(t.spaces for t in self.teams if t.cluster == cluster)
            text += policy(cluster, spaces) + allocation(cluster, self.rows(cluster))
        for team in self.teams:
            text += contract(team)
            if team.tenant:
                text += tenant(team)
            if team.binding:
                text += restriction(team) + binding(team)
        return text + self.extra


def contract_name(team: Team) -> str:
    return f"{team.name}-on-{CLUSTERS[team.cluster].name}"


def contract(team: Team) -> str:
    return contract_resource(
        team.address, name=contract_name(team), project_id=FX.project(team.project).id,
        project_role_arn=FX.project_role_arn(team.project), cluster_name=CLUSTERS[team.cluster].name,
        scope=f'eks_namespaces = ["hyperpod-ns-{team.name}"]',
        extra=f'  lifecycle_state = "{team.lifecycle_state}"' if team.lifecycle_state != "approved" else "",
        **({"workload_types": team.workload_types} if team.workload_types else {}))


SPACE_CLASS = "interactive"  # the spaces' dedicated priority class, the policy's highest weight


def policy(cluster: str, spaces: bool = False) -> str:
    weights = ((SPACE_CLASS, 100),) * spaces + (("production", 90), ("research", 10))
    classes = "".join(f'\n  priority_class {{\n    name   = "{name}"\n    weight = {weight}\n  }}\n'
                      for name, weight in weights)
    return (f'\nresource "hyperpod_scheduling_policy" "{cluster}" {{\n  cluster_name = "{CLUSTERS[cluster].name}"\n'
            f'  fair_share   = true\n{classes}}}\n')


def allocation(cluster: str, rows: dict) -> str:
    lines = []
    for team, quota in rows.items():
        entries = ", ".join(f'{{ instance_type = "{t}", count = {n} }}' for t, n in quota)
        lines.append(f"    {team} = {{ quota = [{entries}] }}")
    body = "\n".join(lines)
    return (f'\nresource "hyperpod_cluster_allocation" "{cluster}" {{\n'
            f'  cluster_name = "{CLUSTERS[cluster].name}"\n  teams = {{\n{body}\n  }}\n}}\n')


def priority_class(team: Team) -> str:
    return "production" if team.project == "production" else "research"


def tenant(team: Team) -> str:
    quota = "\n  ".join(f'quota {{\n    instance_type = "{t}"\n    count         = {n}\n  }}' for t, n in team.quota)
    return f"""
resource "hyperpod_tenant" "{team.address}" {{
  contract          = hyperpod_connection_contract.{team.address}.governance
  scheduling_policy = hyperpod_scheduling_policy.{team.cluster}.governance
  allocation        = hyperpod_cluster_allocation.{team.cluster}.governance
  team              = "{team.name}"

  {quota}

  sharing {{
    strategy = "Lend"
  }}
  preempt_team_tasks = "LowerPriority"
  priority_class     = "{priority_class(team)}"

  viewer_groups   = ["{team.name}-task-viewers"]
  operator_groups = ["{team.name}-task-operators"]

  workload {{
    service_account = "{team.name}-jobs"
  }}
{spaces(team)}{team.extra_tenant}
}}
"""


def spaces(team: Team) -> str:
    if not team.spaces:
        return ""
    instance_type = team.quota[0][0]
    return (f'\n  spaces {{\n    priority_class = "{SPACE_CLASS}"\n'
            f'    guaranteed     = [{{ instance_type = "{instance_type}", count = 1 }}]\n  }}\n')


def restriction(team: Team) -> str:
    return (f'\nresource "hyperpod_task_view_restriction" "{team.address}" {{\n'
            f'  contract = hyperpod_connection_contract.{team.address}.governance\n}}\n')


def binding(team: Team) -> str:
    project = FX.project(team.project)
    members = team.members or ((project.owner_group, "PROJECT_OWNER"),)
    blocks = "".join(f'\n  member {{\n    name        = "{name}"\n    designation = "{designation}"\n  }}\n'
                     for name, designation in members)
    tenants = f"[hyperpod_tenant.{team.address}.governance]" if team.tenant else "[]"
    return f"""
resource "hyperpod_unified_studio_project_binding" "{team.address}" {{
  contract              = hyperpod_connection_contract.{team.address}.governance
  project_id            = "{project.id}"
  cluster_name          = "{CLUSTERS[team.cluster].name}"
  project_role_arn      = "{FX.project_role_arn(team.project)}"
  tenants               = {tenants}
  task_view_restriction = hyperpod_task_view_restriction.{team.address}.governance
  allocation            = hyperpod_cluster_allocation.{team.cluster}.governance
{blocks}
}}
"""


# ---- what a team has on a cluster ----------------------------------------------------------------------------------
def holdings(inventory: dict, team: str, cluster: str, project: str | None = None) -> list[str]:
    """Everything of `team` on cluster `cluster` (a key of CLUSTERS) the sandbox holds: its compute quota, its
    workload role, its namespace and every Kubernetes object in it, its Pod Identity association, access policies
    scoped to its namespace, and, given its `project`, the project's HyperPod connection to the cluster and the
    project role's access entry there. Each as one line, so an assertion shows what is left."""
    spec = CLUSTERS[cluster]
    namespace = f"hyperpod-ns-{team}"
    found = [f"compute quota {q['name']}" for q in inventory["sagemaker"]["compute_quotas"]
             if q["cluster"] == spec.name and q["team"] == team]
    found += [f"iam role {name}" for name in inventory["iam_roles"].get(ACCOUNT, {})
              if name == f"hyperpod-{spec.name}-{team}"]
    objects = inventory["kubernetes"].get(spec.eks_cluster_name, {})
    found += [f"kubernetes {name}" for name in objects
              if name == f"Namespace/{namespace}" or name.split("/")[1:2] == [namespace]]
    eks = inventory["eks"].get(spec.eks_cluster_name, {})
    found += [f"pod identity {key}" for key in eks.get("pod_identity_associations", {})
              if key.startswith(f"{namespace}/")]
    for principal, entry in eks.get("access_entries", {}).items():
        for policy_arn, scope in entry.get("policies", {}).items():
            if namespace in (scope.get("namespaces") or []):
                found.append(f"access policy {policy_arn.rsplit('/', 1)[-1]} of {principal} on {namespace}")
        if project and principal == FX.project_role_arn(project):
            found.append(f"access entry of the project role {principal}")
    if project:
        for domain in inventory["datazone"].values():
            for name, connection in domain.get("connections", {}).items():
                props = (connection.get("props") or {}).get("hyperPodProperties") or {}
                if connection.get("project") == FX.project(project).id and props.get("clusterName") == spec.name:
                    found.append(f"datazone connection {name}")
    return sorted(found)


def memberships(inventory: dict, project: str) -> list[str]:
    """The project's memberships as the inventory names them (`<kind>:<profile id>:<designation>`)."""
    found: list[str] = []
    for domain in inventory["datazone"].values():
        found += domain.get("memberships", {}).get(FX.project(project).id, [])
    return sorted(found)
