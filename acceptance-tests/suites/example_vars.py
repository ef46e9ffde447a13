"""The examples' input variables from the run's fixture: every example that names objects of the account takes them
as variables whose defaults are the local seed's (examples/*), and the suites that run an example pass the fixture's
values, so the examples run against the renamed seed and a real sandbox account too.

`example_variables(directory)` reads which variables the example declares and returns the fixture's value for each
one it knows; `write_example_variables(tf, directory)` writes them as `terraform.tfvars.json` into the working dir
(next to any `terraform.tfvars` a test writes; Terraform loads both).  A variable the fixture does not know keeps the
example's default, and one without a default fails here, by name."""
import json
import re
from pathlib import Path

from harness import current_fixture

_VARIABLE = re.compile(r'^variable\s+"([^"]+)"\s*\{', re.MULTILINE)
_NO_DEFAULT_OK = {"last_reviewed"}  # variables a test sets itself


def declared(directory: Path) -> dict[str, str]:
    """name -> the text of its block, for every `variable` the example's *.tf files declare."""
    found = {}
    for source in sorted(Path(directory).glob("*.tf")):
        text = source.read_text()
        for match in _VARIABLE.finditer(text):
            end = text.find("\n}", match.end())
            found[match.group(1)] = text[match.start():end + 2]
    return found


def fixture_values(fx=None) -> dict:
    """Every variable name the examples use for an object of the account, with the fixture's value."""
    fx = fx or current_fixture()
    dz = fx.datazone
    values = {
        "region": fx.region,
        "capacity_account_id": fx.account_id,
        "account_id": fx.account_id,
        "consumer_account_id": fx.consumer_account_id,
        "data_account_id": fx.data_account_id,
        "cluster_name": fx.clusters.eks.name,
        "eks_cluster_name": fx.clusters.eks.eks_cluster_name,
        "slurm_cluster_name": fx.clusters.slurm.name,
        "domain_id": dz.domain_id,
        "domain_unit_id": dz.domain_unit_id,
        "root_domain_unit_id": dz.root_domain_unit_id,
        "project_profile_id": dz.project_profile_id,
        "connection_access_role_name": fx.roles.connection_access,
        "access_role_name": fx.roles.connection_access,
        "consumer_role_name": fx.consumer_role_name,
        "consumer_role_arn": fx.consumer_role_arn(),
        "data_role_name": fx.data_role_name,
        "data_bucket": fx.data_bucket,
        "kms_key_id": fx.kms_key_id,
        "kms_key_arn": fx.kms_key_arn(),
        "approved_public_cidrs": [fx.approved_public_cidr],
        "approved_public_cidr": fx.approved_public_cidr,
    }
    teams = {}
    for team, project in dz.projects.items():
        values[f"{team}_project_id"] = project.id
        values[f"{team}_project_role_name"] = project.role_name
        values[f"{team}_project_role_arn"] = fx.project_role_arn(team)
        viewers, operators = fx.roles.get(f"{team}_viewers"), fx.roles.get(f"{team}_operators")
        for kind, role in (("viewers", viewers), ("operators", operators)):
            if role is not None:
                values[f"{team}_{kind}_role_name"] = role
                values[f"{team}_{kind}_role_arn"] = fx.role_arn(role)
        teams[team] = {"project_id": project.id, "project_role_name": project.role_name,
                       "project_role_arn": fx.project_role_arn(team),
                       **({"viewer_role_name": viewers, "viewer_role_arn": fx.role_arn(viewers)} if viewers else {}),
                       **({"operator_role_name": operators, "operator_role_arn": fx.role_arn(operators)}
                          if operators else {})}
    values["teams"] = teams
    values["projects"] = {team: project.id for team, project in dz.projects.items()}
    return values


def example_variables(directory: Path, fx=None) -> dict:
    """The fixture's value of each variable the example at `directory` declares (and the fixture knows)."""
    known = fixture_values(fx)
    chosen = {}
    for name, block in declared(directory).items():
        if name in known:
            chosen[name] = known[name]
        elif "default" not in block and name not in _NO_DEFAULT_OK:
            raise KeyError(f"{directory}: variable {name!r} has no default and the fixture has no value for it")
    return chosen


def write_example_variables(tf, directory: Path, fx=None) -> dict:
    """Write the fixture's values of the example's variables to terraform.tfvars.json in tf's working dir."""
    chosen = example_variables(directory, fx)
    tf.write_file("terraform.tfvars.json", json.dumps(chosen, indent=2) + "\n")
    return chosen
