"""Admin fixtures: account contents beyond the seed, added on request (`POST /_sandbox/fixtures/<name>`) and gone at
the next reset. They add only what a real capacity account could hold; no AWS behaviour changes.

`teams` (bench/scale.py): `count` more Unified Studio teams, each a copy of the seed's research team (the fixture's
`datazone.projects.research`, whatever it is named) under its own name `<prefix><n>` (n = 1..count, zero-padded to 3
digits): the Tooling user role `datazone_usr_role_<team>`, `<team>-viewers` and `<team>-operators` (copies of the
research project's Tooling role and of the fixture's `roles.research_viewers` / `research_operators`, the project tag
retargeted), a DataZone project `<team>` like research's (same domain unit and profile, a Tooling environment carrying
that role), the team's groups `<team>-leads`, `<team>-scientists`, `<team>-analysts` (group profiles, as the
seed's teams have), and one instance group `<prefix>-capacity` on `cluster` (default: the fixture's EKS cluster) with
`instances_per_team` x count `instance_type` instances, so one guaranteed quota per team fits (WKL-3). Ids derive from
the names, so they are the same after every reset.
"""
import copy
import hashlib
import json
import re
from pathlib import Path

from . import datazone, iam, sagemaker, seed

TEMPLATE_TEAM = "research"  # the fixture's team (datazone.projects.<key>) every added team copies
_PREFIX = re.compile(r"[a-z][a-z0-9-]{0,19}")
MAX_TEAMS = 1000
TEAM_GROUPS = ("leads", "scientists", "analysts")  # each added team's groups, `<team>-<group>`


def teams(body: dict, seed_path: Path, fixture: dict | None = None) -> dict:
    """The `teams` fixture (module docstring); returns per team its project and role ARNs, and the instance group."""
    count = body.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_TEAMS:
        raise ValueError(f"'count' must be an integer from 1 to {MAX_TEAMS}")
    prefix = body.get("prefix", "team")
    if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
        raise ValueError("'prefix' must be 1-20 lowercase letters, digits or hyphens, starting with a letter")
    per_team = body.get("instances_per_team", 1)
    if not isinstance(per_team, int) or isinstance(per_team, bool) or per_team < 1:
        raise ValueError("'instances_per_team' must be a positive integer")
    seed_path = Path(seed_path)
    fixture = fixture if fixture is not None else seed.derive_fixture(seed_path)
    account = seed.load_account(seed_path)
    names = [f"{prefix}{n:03d}" for n in range(1, count + 1)]

    iam_seed = json.loads((seed_path / "iam.json").read_text())
    template = _template(fixture)
    domain, project = _template_project(json.loads((seed_path / "datazone.json").read_text()), template["project"])
    # The instance group first: its checks (cluster, instance type, the prefix not used yet) refuse a bad or repeated
    # request before anything is written.
    group = sagemaker.add_instance_group(account, body.get("cluster", fixture["clusters"]["eks"]["name"]), {
        "InstanceGroupName": f"{prefix}-capacity", "InstanceType": body.get("instance_type", "ml.g5.xlarge"),
        "InstanceCount": per_team * count})
    roles = iam.apply_seed({"accounts": {"account_id": {"roles": [
        role for team in names for role in _team_roles(iam_seed, template, team)]}}}, account)["roles"]
    projects = datazone.add_projects(account, domain, [_project(project, team, roles) for team in names])
    # Members of a team's binding are its groups: DataZone keeps memberships by group profile, so they must exist.
    datazone.add_group_profiles(account, domain, [f"{team}-{group}" for team in names for group in TEAM_GROUPS])
    return {"teams": {team: {"project_id": projects[team]["id"],
                             "project_role_arn": projects[team]["userRoleArn"],
                             "viewer_role_arn": roles[f"{team}-viewers"],
                             "operator_role_arn": roles[f"{team}-operators"]} for team in names},
            "instance_group": group}


def _stable_id(*parts: str) -> str:
    """A DataZone-shaped id (14 lowercase hex characters) derived from names, so it survives resets."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:14]


def _template(fixture: dict) -> dict:
    """The template team's project name and its roles -> the names a new team's copies get (`{team}` filled in)."""
    project = fixture["datazone"]["projects"][TEMPLATE_TEAM]
    return {"project": project["name"],
            "roles": {project["role_name"]: "datazone_usr_role_{team}",
                      fixture["roles"][f"{TEMPLATE_TEAM}_viewers"]: "{team}-viewers",
                      fixture["roles"][f"{TEMPLATE_TEAM}_operators"]: "{team}-operators"}}


def _team_roles(iam_seed: dict, template: dict, team: str) -> list:
    """The seed's research roles (Tooling user role, viewers, operators) renamed for `team`."""
    wanted = template["roles"]
    seeded = [r for r in iam_seed["accounts"]["account_id"]["roles"] if r["RoleName"] in wanted]
    if len(seeded) != len(wanted):
        raise ValueError(f"the seed lacks the {TEMPLATE_TEAM} team's roles the fixture copies: {sorted(wanted)}")
    roles = []
    for seeded_role in seeded:
        role = copy.deepcopy(seeded_role)
        role["RoleName"] = wanted[seeded_role["RoleName"]].format(team=team)
        role["Description"] = seeded_role.get("Description", "").replace(template["project"], team)
        for tag in role.get("Tags", []):
            if tag["Key"] == "AmazonDataZoneProject":
                tag["Value"] = _stable_id(team, "project")
        roles.append(role)
    return roles


def _template_project(datazone_seed: dict, name: str) -> tuple[str, dict]:
    """(domain id, the seed's research project) of the seeded domain holding it."""
    for domain in datazone_seed["domains"]:
        for project in domain.get("projects", []):
            if project["name"] == name:
                return domain["id"], project
    raise ValueError(f"the seed has no DataZone project {name!r} for the fixture to copy")


def _project(template: dict, team: str, roles: dict) -> dict:
    """The research project again, for `team`, its Tooling environment carrying the team's user role."""
    project = copy.deepcopy(template)
    project.update(id=_stable_id(team, "project"), name=team, description=f"Team {team} (sandbox fixture)")
    for env in project.get("environments", []):
        env["id"] = _stable_id(team, env["configuration"])
        if env.get("userRoleArn"):
            env["userRoleArn"] = roles[f"datazone_usr_role_{team}"]
    return project
