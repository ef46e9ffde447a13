"""What the acceptance suites need from an account, named in one file: the fixture.

Every suite and assertion reads names and ids from here, never a literal: the same suites run against the local
sandbox (which serves the fixture of its seed, `GET /_sandbox/fixture`) and against a real sandbox account
(`HYPERPOD_FIXTURE=<file>`; docs/guides/acceptance-testing.md).  `fixtures/local.json` is the local seed's fixture;
`fixtures/renamed.json` seeds the sandbox under other names and ids to prove that nothing is pinned.

Access is by attribute (`fx.clusters.eks.name`) or key (`fx["clusters"]["eks"]["name"]`); a missing key is a
KeyError naming its path, so a fixture file that lacks a value fails the test that needs it, loudly.  Derived
values (ARNs) are methods, so a fixture never states one fact twice.
"""
import json
from pathlib import Path

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"
LOCAL = FIXTURES_DIR / "local.json"


class Node:
    """A read-only view of a JSON object, by attribute or key; `path` names it in errors."""

    def __init__(self, data: dict, path: str = "fixture"):
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_path", path)

    def __getitem__(self, key: str):
        try:
            value = self._data[key]
        except KeyError:
            raise KeyError(f"{self._path}.{key} is not in the fixture") from None
        return Node(value, f"{self._path}.{key}") if isinstance(value, dict) else value

    def __getattr__(self, key: str):
        if key.startswith("__"):
            raise AttributeError(key)
        return self[key]

    def __setattr__(self, key, value):
        raise AttributeError("the fixture is read-only")

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def get(self, key: str, default=None):
        return self[key] if key in self._data else default

    def keys(self):
        return self._data.keys()

    def items(self):
        return ((key, self[key]) for key in self._data)

    def raw(self) -> dict:
        return json.loads(json.dumps(self._data))


class Fixture(Node):
    """The whole fixture, plus the ARNs derived from it."""

    def __init__(self, data: dict):
        super().__init__(data, "fixture")

    @classmethod
    def load(cls, path: Path | str) -> "Fixture":
        return cls(json.loads(Path(path).read_text()))

    # ARNs -----------------------------------------------------------------------------------------------------
    def role_arn(self, name: str, account_id: str | None = None) -> str:
        return f"arn:aws:iam::{account_id or self.account_id}:role/{name}"

    def project(self, team: str) -> Node:
        return self.datazone.projects[team]

    def project_role_arn(self, team: str) -> str:
        return self.role_arn(self.project(team).role_name)

    def cluster_arn(self, kind: str = "eks") -> str:
        return f"arn:aws:sagemaker:{self.region}:{self.account_id}:cluster/{self.clusters[kind].id}"

    def eks_cluster_arn(self, kind: str = "eks") -> str:
        return f"arn:aws:eks:{self.region}:{self.account_id}:cluster/{self.clusters[kind].eks_cluster_name}"

    def kms_key_arn(self) -> str:
        return f"arn:aws:kms:{self.region}:{self.account_id}:key/{self.kms_key_id}"

    def consumer_role_arn(self) -> str:
        return self.role_arn(self.consumer_role_name, self.consumer_account_id)

    def data_role_arn(self) -> str:
        return self.role_arn(self.data_role_name, self.data_account_id)

    # The examples' variables -------------------------------------------------------------------------------------
    def example_variables(self) -> dict:
        """Values of the variables the examples (examples/quickstart, module, misgoverned) take for what they name in
        the account; their defaults are the local seed's, so `terraform apply` in an example works on the local
        sandbox as it is. `teams` is keyed by the fixture's team (production, research)."""
        eks = self.clusters.eks
        return {
            "region": self.region,
            "capacity_account_id": self.account_id,
            "cluster_name": eks.name,
            "domain_id": self.datazone.domain_id,
            "domain_unit_id": self.datazone.domain_unit_id,
            "project_profile_id": self.datazone.project_profile_id,
            "teams": {team: {"project_id": project.id,
                             "project_role_name": project.role_name,
                             "viewer_role_name": self.roles[f"{team}_viewers"],
                             "operator_role_name": self.roles[f"{team}_operators"],
                             "owner_group": project.owner_group,
                             "contributor_group": project.contributor_group}
                      for team, project in self.datazone.projects.items()},
            "connection_access_role_name": self.roles.connection_access,
            "approved_public_cidr": self.approved_public_cidr,
            "consumer_account_id": self.consumer_account_id,
            "consumer_role_name": self.consumer_role_name,
            "kms_key_id": self.kms_key_id,
            "instance_types": {use: group.instance_type for use, group in eks.instance_groups.items()},
        }

    def tfvars_for(self, example: Path | str) -> dict:
        """example_variables() restricted to those the configuration in `example` declares (Terraform warns about a
        value for an undeclared variable): write it as `terraform.tfvars.json` next to the copied example."""
        import re
        declared = {name for tf in Path(example).glob("*.tf")
                    for name in re.findall(r'^variable\s+"([^"]+)"', tf.read_text(), re.MULTILINE)}
        return {name: value for name, value in self.example_variables().items() if name in declared}


def selected_path() -> Path:
    """The fixture of this run: HYPERPOD_FIXTURE, else the local sandbox's seed (fixtures/local.json).  A relative
    path is taken from the acceptance-tests directory, so `HYPERPOD_FIXTURE=fixtures/renamed.json` works anywhere."""
    import os
    value = os.environ.get("HYPERPOD_FIXTURE")
    if not value:
        return LOCAL
    path = Path(value)
    return path if path.is_absolute() else FIXTURES_DIR.parent / path


_CURRENT: dict = {}


def current() -> Fixture:
    """The run's fixture, read once: suites may use it at import time (HCL templates) as well as through `fx`."""
    path = selected_path()
    if path not in _CURRENT:
        _CURRENT[path] = Fixture.load(path)
    return _CURRENT[path]
