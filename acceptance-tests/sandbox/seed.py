"""Seed the sandbox like a real capacity account, straight into moto's backends; and the seed's fixture.

The seed is a directory: `account.json` (account ids and region) plus one `<service>.json` per seeded service. Each
service module of the sandbox (`sandbox/<service>.py`) seeds its own part with `apply_seed(data, account) -> summary`;
services are seeded in SERVICE_ORDER, so later ones may refer to earlier ones (a HyperPod cluster to its EKS cluster,
a DataZone environment to its IAM role).

The seed's fixture (harness/fixture.py: what the suites may use, by role) is *derived* from the seed
(`derive_fixture`): ids, ARN parts, instance types and counts, an instance group's MIG layout (`partition_config`: its
`nvidia.com/mig.config` label, for groups that have one), Tooling roles and the like are read from the service files,
and `fixture.json` says only what the seed cannot: which cluster is the suites' "eks" one, which project is "research",
which roles are viewers, the test prefix and tag. So `fixtures/local.json` can be checked against the seed and cannot
go stale (sandbox/tests/test_seed_fixture.py).

`rename(seed, fixture, out)` seeds under another fixture's names and ids (`python -m sandbox --fixture F`): each string
value of the seed's fixture is mapped to the value at the same path of F and every string in the seed is rewritten,
whole tokens only (a token ends at anything but a letter, digit or `_`, so `ml-capacity-node-role` follows
`ml-capacity` but `datazone_usr_role_research` does not follow `research`), longest value first, in one pass: ARNs,
tags, descriptions and derived names all follow. The result must derive exactly F, or the seed cannot be renamed to it
and `rename` says which values differ.
"""
import copy
import json
import re
import tempfile
from pathlib import Path

from .names import MIG_CONFIG_LABEL

DEFAULT_SEED = Path(__file__).with_name("seed_data")
SERVICE_ORDER = ("iam", "kms", "eks", "sagemaker", "datazone", "ssm", "cloudwatch")
FIXTURE_HINTS = "fixture.json"
# Fixture values that are no seed facts: a renamed fixture may set them freely (they are not looked for in the seed).
NOT_IN_SEED = ("name", "test_prefix", "test_tag")
ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


class SeedError(ValueError):
    """The seed and a fixture do not fit together; the message says where."""


def load_account(path: Path = DEFAULT_SEED) -> dict:
    return json.loads((Path(path) / "account.json").read_text())


def apply(path: Path = DEFAULT_SEED) -> dict:
    """Create the seed's resources; returns a summary per service (names -> ARNs/ids) for logs and the admin API."""
    from . import cloudwatch, datazone, eks, iam, kms, sagemaker, ssm  # here: deriving a fixture needs no moto

    modules = {"iam": iam, "kms": kms, "eks": eks, "sagemaker": sagemaker, "datazone": datazone, "ssm": ssm,
               "cloudwatch": cloudwatch}
    path = Path(path)
    account = load_account(path)
    summary = {"account_id": account["account_id"], "region": account["region"]}
    for service in SERVICE_ORDER:
        data_file = path / f"{service}.json"
        if data_file.exists():
            summary[service] = modules[service].apply_seed(json.loads(data_file.read_text()), account)
    return summary


# The seed's fixture -------------------------------------------------------------------------------------------------

def _read(path: Path, name: str) -> dict:
    file = path / name
    return json.loads(file.read_text()) if file.exists() else {}


def derive_fixture(path: Path = DEFAULT_SEED) -> dict:
    """The fixture of the seed at `path` (module docstring): fixture.json's choices, completed from the seed."""
    path = Path(path)
    hints = _read(path, FIXTURE_HINTS)
    if not hints:
        raise SeedError(f"{path} has no {FIXTURE_HINTS}: the seed does not say which of its objects the suites use")
    account = load_account(path)
    iam, kms, eks = _read(path, "iam.json"), _read(path, "kms.json"), _read(path, "eks.json")
    sagemaker, datazone = _read(path, "sagemaker.json"), _read(path, "datazone.json")
    roles = {key: {r["RoleName"]: r for r in spec.get("roles", [])}
             for key, spec in iam.get("accounts", {}).items()}
    hyperpod = {c["ClusterName"]: c for c in sagemaker.get("hyperpod_clusters", [])}
    eks_clusters = {c["name"]: c for c in eks.get("clusters", [])}

    def role(name: str, what: str, account_key: str = "account_id") -> str:
        if name not in roles.get(account_key, {}):
            raise SeedError(f"{what}: the seed has no IAM role {name!r} in {account_key}")
        return name

    fx = {key: copy.deepcopy(hints[key]) for key in NOT_IN_SEED if key in hints}
    fx.update({key: account[key] for key in ("account_id", "region", "consumer_account_id", "data_account_id")})

    clusters = {}
    for kind, hint in hints.get("clusters", {}).items():
        what = f"fixture.clusters.{kind}"
        cluster = hyperpod.get(hint.get("name"))
        if cluster is None:
            raise SeedError(f"{what}.name: the seed has no HyperPod cluster {hint.get('name')!r}")
        entry = {"name": cluster["ClusterName"], "id": cluster["ClusterId"]}
        eks_arn = cluster.get("Orchestrator", {}).get("Eks", {}).get("ClusterArn")
        eks_cluster = None
        if eks_arn:
            entry["eks_cluster_name"] = eks_arn.rsplit("/", 1)[1]
            eks_cluster = eks_clusters.get(entry["eks_cluster_name"])
            if eks_cluster is None:
                raise SeedError(f"{what}: the seed has no EKS cluster {entry['eks_cluster_name']!r}")
        if "instance_groups" in hint:
            groups = {g["InstanceGroupName"]: g for g in cluster.get("InstanceGroups", [])}
            entry["instance_groups"] = {}
            for use, group_hint in hint["instance_groups"].items():
                group = groups.get(group_hint.get("name"))
                if group is None:
                    raise SeedError(f"{what}.instance_groups.{use}.name: {cluster['ClusterName']} has no instance "
                                    f"group {group_hint.get('name')!r}")
                entry["instance_groups"][use] = {"name": group["InstanceGroupName"],
                                                 "instance_type": group["InstanceType"],
                                                 "count": group["InstanceCount"]}
                # its MIG layout (the nvidia.com/mig.config node label), for groups that have one
                labels = (group.get("KubernetesConfig") or {}).get("Labels") or {}
                if MIG_CONFIG_LABEL in labels:
                    entry["instance_groups"][use]["partition_config"] = labels[MIG_CONFIG_LABEL]
        admins = [e["principalArn"] for e in (eks_cluster or {}).get("accessEntries", [])
                  if any(p.get("policyArn") == ADMIN_POLICY for p in e.get("policies", []))]
        if admins:  # the role that administers the EKS cluster (an access entry with the cluster admin policy)
            entry["admin_role_name"] = role(admins[0].rsplit("/", 1)[1], f"{what}.admin_role_name")
        for key, value in hint.items():  # the rest is the fixture's to say (scheduling_policy_writable)
            if key not in ("name", "instance_groups"):
                entry[key] = copy.deepcopy(value)
        clusters[kind] = entry
    eks_hint = hints.get("clusters", {}).get("eks")
    if eks_hint:
        cidrs = eks_clusters[clusters["eks"]["eks_cluster_name"]].get("resourcesVpcConfig", {}) \
            .get("publicAccessCidrs", [])
        if cidrs:
            fx["approved_public_cidr"] = cidrs[0]
    fx["clusters"] = clusters

    if "datazone" in hints:
        fx["datazone"] = _derive_datazone(hints["datazone"], datazone, role)
    if "roles" in hints:
        fx["roles"] = {use: role(name, f"fixture.roles.{use}") for use, name in hints["roles"].items()}
    fx["consumer_role_name"] = _only(roles.get("consumer_account_id", {}), "IAM role in consumer_account_id")
    data_role = _only(roles.get("data_account_id", {}), "IAM role in data_account_id")
    fx["data_role_name"] = data_role
    buckets = sorted({m.group(1) for m in re.finditer(r"arn:aws:s3:::([a-z0-9.-]+)",
                                                       json.dumps(roles["data_account_id"][data_role]))})
    if len(buckets) != 1:
        raise SeedError(f"the data role {data_role} names {len(buckets)} S3 buckets; the fixture needs exactly one")
    fx["data_bucket"] = buckets[0]
    capacity_keys = [k["KeyId"] for k in kms.get("keys", []) if k.get("account", "account_id") == "account_id"]
    fx["kms_key_id"] = _only(capacity_keys, "KMS key in account_id")
    for key, value in hints.items():  # what a helper added to the fixture and the seed cannot say, as written
        fx.setdefault(key, copy.deepcopy(value))
    return fx


def _derive_datazone(hint: dict, datazone: dict, role) -> dict:
    domains = datazone.get("domains", [])
    if len(domains) != 1:
        raise SeedError(f"the seed has {len(domains)} DataZone domains; the fixture names exactly one")
    domain = domains[0]
    projects = {p["name"]: p for p in domain.get("projects", [])}
    found, unit_names, profile_names = {}, set(), set()
    for team, project_hint in hint.get("projects", {}).items():
        project = projects.get(project_hint.get("name"))
        if project is None:
            raise SeedError(f"fixture.datazone.projects.{team}.name: the seed has no project "
                            f"{project_hint.get('name')!r}")
        tooling = [e for e in project.get("environments", []) if e.get("configuration") == "Tooling"]
        if len(tooling) != 1 or not tooling[0].get("userRoleArn"):
            raise SeedError(f"project {project['name']} needs exactly one Tooling environment with a user role")
        found[team] = {
            "id": project["id"], "name": project["name"],
            "role_name": role(tooling[0]["userRoleArn"].rsplit("/", 1)[1], f"fixture.datazone.projects.{team}"),
            "tooling_environment_id": tooling[0]["id"]}
        for key, value in project_hint.items():  # the fixture's choices: owner_group, contributor_group
            found[team].setdefault(key, copy.deepcopy(value))
        unit_names.add(project.get("domainUnit"))
        profile_names.add(project.get("projectProfile"))
    if len(unit_names) != 1 or len(profile_names) != 1:
        raise SeedError("the fixture's projects must share one domain unit and one project profile")
    units = {u["name"]: u["id"] for u in domain.get("domainUnits", [])}
    profiles = {p["name"]: p["id"] for p in domain.get("projectProfiles", [])}
    [unit], [profile] = unit_names, profile_names
    if unit not in units or profile not in profiles:
        raise SeedError(f"the fixture's projects are in domain unit {unit!r} / profile {profile!r}, "
                        "which the seed's domain does not have")
    out = {"domain_id": domain["id"], "root_domain_unit_id": domain["rootDomainUnitId"], "domain_unit_id": units[unit],
           "project_profile_id": profiles[profile], "projects": found}
    # The IAM role DataZone knows as a user (grant and membership tests name a user by it).
    iam_users = [p["arn"] for p in domain.get("userProfiles", []) if p.get("type") == "IAM"]
    if iam_users:
        out["user_role_name"] = role(_only(iam_users, "IAM user profile").rsplit("/", 1)[1],
                                     "fixture.datazone.user_role_name")
    sso_users = [p["username"] for p in domain.get("userProfiles", []) if p.get("type") == "SSO"]
    if sso_users:
        out["sso_user"] = _only(sso_users, "SSO user profile")
    seeded_groups = {g["groupName"] for g in domain.get("groupProfiles", [])}
    unknown = [g for g in hint.get("groups", []) if g not in seeded_groups]
    if unknown:
        raise SeedError(f"fixture.datazone.groups: the seed's domain has no group profile {unknown}")
    for key, value in hint.items():  # the fixture's choices: which groups the suites use, anything added later
        out.setdefault(key, copy.deepcopy(value))
    return out


def _only(items, what: str):
    items = list(items)
    if len(items) != 1:
        raise SeedError(f"the seed has {len(items)} {what}s; the fixture names exactly one")
    return items[0]


# Seeding under another fixture -------------------------------------------------------------------------------------

def value_map(source: dict, target: dict) -> dict[str, str]:
    """{seed value: renamed value} for every string leaf of `source` (the seed's fixture) by its path in `target`.
    Numbers and booleans are not names: they must be equal (the seed is rewritten by names only)."""
    mapping: dict[str, str] = {}
    owner: dict[str, str] = {}  # renamed value -> the path that claimed it, to refuse two objects becoming one

    def walk(src, dst, path):
        if isinstance(src, dict):
            if not isinstance(dst, dict):
                raise SeedError(f"{path} must be an object in the renamed fixture")
            for key, value in src.items():
                if path == "fixture" and key in NOT_IN_SEED:
                    continue
                if key not in dst:
                    raise SeedError(f"{path}.{key} is not in the renamed fixture")
                walk(value, dst[key], f"{path}.{key}")
        elif isinstance(src, list):
            if not isinstance(dst, list) or len(dst) != len(src):
                raise SeedError(f"{path} must be a list of {len(src)} in the renamed fixture")
            for i, (a, b) in enumerate(zip(src, dst, strict=True)):
                walk(a, b, f"{path}[{i}]")
        elif isinstance(src, str):
            if not isinstance(dst, str) or not dst:
                raise SeedError(f"{path} must be a non-empty string in the renamed fixture")
            if mapping.get(src, dst) != dst:
                raise SeedError(f"{path}: the seed has one {src!r} for it and another fixture value, but the renamed "
                                f"fixture names it both {mapping[src]!r} and {dst!r}")
            if owner.get(dst, src) != src:
                raise SeedError(f"{path}: {dst!r} would rename both {owner[dst]!r} and {src!r} (two objects in one)")
            mapping[src], owner[dst] = dst, src
        elif src != dst and not isinstance(src, bool):
            raise SeedError(f"{path} is {src!r} in the seed and {dst!r} in the renamed fixture: only names and ids "
                            "can be renamed")

    walk(source, target, "fixture")
    return {old: new for old, new in mapping.items() if old != new}


def rewriter(mapping: dict[str, str]):
    """A function rewriting every whole-token occurrence of a mapped value in a string, longest value first, once."""
    if not mapping:
        return lambda text: text
    alternatives = "|".join(re.escape(v) for v in sorted(mapping, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")
    return lambda text: pattern.sub(lambda m: mapping[m.group(0)], text)


def _rewrite(value, rewrite):
    if isinstance(value, str):
        return rewrite(value)
    if isinstance(value, list):
        return [_rewrite(v, rewrite) for v in value]
    if isinstance(value, dict):  # values only: keys are the seed's schema, never account contents
        return {k: _rewrite(v, rewrite) for k, v in value.items()}
    return value


def rename(target: dict, seed: Path = DEFAULT_SEED, out: Path | None = None) -> Path:
    """Write the seed at `seed`, renamed to the fixture `target` (module docstring), into `out` (default: a new
    temporary directory); returns `out`. SeedError if the renamed seed would not hold exactly `target`."""
    seed = Path(seed)
    source = derive_fixture(seed)
    rewrite = rewriter(value_map(source, target))
    out = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="hyperpod-seed-"))
    out.mkdir(parents=True, exist_ok=True)
    for file in sorted(seed.glob("*.json")):
        data = _rewrite(json.loads(file.read_text()), rewrite)
        if file.name == FIXTURE_HINTS:
            for key in NOT_IN_SEED:  # the fixture's own, not the seed's
                if key in target:
                    data[key] = copy.deepcopy(target[key])
            _copy_flags(data, target)
        (out / file.name).write_text(json.dumps(data, indent=2) + "\n")
    derived = derive_fixture(out)
    if derived != target:
        raise SeedError("the seed renamed to this fixture would not hold what it says:\n"
                        + "\n".join(_differences(derived, target, "fixture")))
    return out


def _copy_flags(hints, target):
    """Booleans of the fixture (scheduling_policy_writable) are the fixture's choice, not seed facts."""
    if isinstance(hints, dict) and isinstance(target, dict):
        for key, value in hints.items():
            if isinstance(value, bool) and isinstance(target.get(key), bool):
                hints[key] = target[key]
            else:
                _copy_flags(value, target.get(key))


def _differences(got, want, path) -> list[str]:
    if isinstance(got, dict) and isinstance(want, dict):
        lines = []
        for key in list(got) + [k for k in want if k not in got]:
            if key not in want:
                lines.append(f"  {path}.{key}: in the seed ({got[key]!r}), not in the fixture")
            elif key not in got:
                lines.append(f"  {path}.{key}: in the fixture ({want[key]!r}), not derivable from the seed")
            else:
                lines.extend(_differences(got[key], want[key], f"{path}.{key}"))
        return lines
    return [] if got == want else [f"  {path}: the seed gives {got!r}, the fixture says {want!r}"]


def prepare(fixture: Path | str | None = None, seed: Path = DEFAULT_SEED) -> tuple[Path, dict]:
    """(seed directory, effective fixture) for a sandbox: the seed itself and its fixture, or with `fixture` a
    renamed copy of the seed holding that fixture."""
    if fixture is None:
        return Path(seed), derive_fixture(seed)
    target = json.loads(Path(fixture).read_text())
    return rename(target, seed), target
