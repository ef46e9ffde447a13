"""Admin fixtures: account contents beyond the seed, added on request (`POST /_sandbox/fixtures/<name>`) and gone at
the next reset. They add only what a real capacity account could hold; no AWS behaviour changes.

`teams` (bench/scale.py): `count` more Unified Studio teams, each a copy of the seed's research team under its own
name `<prefix><n>` (n = 1..count, zero-padded to 3 digits): the Tooling user role `datazone_usr_role_<team>`,
`<team>-viewers` and `<team>-operators` (the seed's research roles renamed, the project tag retargeted), a DataZone
project `<team>` like `research` (same domain unit and profile, a Tooling environment carrying that role), the
team's groups `<team>-leads`, ... (group profiles, as the seed has `research-*` ones), and one
instance group `<prefix>-capacity` on `cluster` with `instances_per_team` x count `instance_type` instances, so one
guaranteed quota per team fits (WKL-3). Ids derive from the names, so they are the same after every reset.
"""
import copy
import hashlib
import json
import re
from pathlib import Path

from . import datazone, iam, sagemaker, seed

TEMPLATE_TEAM = "research"  # the seeded team every fixture team copies
_PREFIX = re.compile(r"[a-z][a-z0-9-]{0,19}")
MAX_TEAMS = 1000


def teams(body: dict, seed_path: Path) -> dict:
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
    account = seed.load_account(seed_path)
    names = [f"{prefix}{n:03d}" for n in range(1, count + 1)]

    iam_seed = json.loads((seed_path / "iam.json").read_text())
    domain, project = _template_project(json.loads((seed_path / "datazone.json").read_text()))
    # The instance group first: its checks (cluster, instance type, the prefix not used yet) refuse a bad or repeated
    # request before anything is written.
    group = sagemaker.add_instance_group(account, body.get("cluster", "ml-capacity"), {
        "InstanceGroupName": f"{prefix}-capacity", "InstanceType": body.get("instance_type", "ml.g5.xlarge"),
        "InstanceCount": per_team * count})
    roles = iam.apply_seed({"accounts": {"account_id": {"roles": [
        role for team in names for role in _team_roles(iam_seed, team)]}}}, account)["roles"]
    projects = datazone.add_projects(account, domain, [_project(project, team, roles) for team in names])
    # Members of a team's binding are its groups: DataZone keeps memberships by group profile, so they must exist.
    template = f"{TEMPLATE_TEAM}-"
    groups = [g["groupName"][len(template):] for d in json.loads((seed_path / "datazone.json").read_text())["domains"]
              if d["id"] == domain for g in d.get("groupProfiles", []) if g["groupName"].startswith(template)]
    datazone.add_group_profiles(account, domain, [f"{team}-{group}" for team in names for group in groups])
    return {"teams": {team: {"project_id": projects[team]["id"],
                             "project_role_arn": projects[team]["userRoleArn"],
                             "viewer_role_arn": roles[f"{team}-viewers"],
                             "operator_role_arn": roles[f"{team}-operators"]} for team in names},
            "instance_group": group}


def _stable_id(*parts: str) -> str:
    """A DataZone-shaped id (14 lowercase hex characters) derived from names, so it survives resets."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:14]


def _team_roles(iam_seed: dict, team: str) -> list:
    """The seed's research roles (Tooling user role, viewers, operators) renamed for `team`."""
    wanted = {f"datazone_usr_role_{TEMPLATE_TEAM}", f"{TEMPLATE_TEAM}-viewers", f"{TEMPLATE_TEAM}-operators"}
    seeded = [r for r in iam_seed["accounts"]["account_id"]["roles"] if r["RoleName"] in wanted]
    if len(seeded) != len(wanted):
        raise ValueError(f"the seed lacks the {TEMPLATE_TEAM} team's roles the fixture copies: {sorted(wanted)}")
    roles = []
    for template in seeded:
        role = copy.deepcopy(template)
        role["RoleName"] = template["RoleName"].replace(TEMPLATE_TEAM, team)
        role["Description"] = template.get("Description", "").replace(TEMPLATE_TEAM, team)
        for tag in role.get("Tags", []):
            if tag["Key"] == "AmazonDataZoneProject":
                tag["Value"] = _stable_id(team, "project")
        roles.append(role)
    return roles


def _template_project(datazone_seed: dict) -> tuple[str, dict]:
    """(domain id, the seed's research project) of the seeded domain holding it."""
    for domain in datazone_seed["domains"]:
        for project in domain.get("projects", []):
            if project["name"] == TEMPLATE_TEAM:
                return domain["id"], project
    raise ValueError(f"the seed has no DataZone project {TEMPLATE_TEAM!r} for the fixture to copy")


def _project(template: dict, team: str, roles: dict) -> dict:
    """The research project again, for `team`, its Tooling environment carrying the team's user role."""
    project = copy.deepcopy(template)
    project.update(id=_stable_id(team, "project"), name=team, description=f"Team {team} (sandbox fixture)")
    for env in project.get("environments", []):
        env["id"] = _stable_id(team, env["configuration"])
        if env.get("userRoleArn"):
            env["userRoleArn"] = roles[f"datazone_usr_role_{team}"]
    return project
