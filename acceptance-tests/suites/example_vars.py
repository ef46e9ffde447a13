"""The examples' input variables from the run's fixture: every example that names objects of the account takes them
as variables whose defaults are the local seed's (examples/*/variables.tf), and the suites that run an example pass
the fixture's values (harness.fixture.Fixture.tfvars_for), so the examples run against the renamed seed and a real
sandbox account too."""
import json
from pathlib import Path

from harness import current_fixture


def write_example_variables(tf, directory: Path, fx=None) -> dict:
    """Write the fixture's values of the variables the example at `directory` declares to terraform.tfvars.json in
    tf's working dir (Terraform loads it next to any terraform.tfvars a test writes)."""
    chosen = (fx or current_fixture()).tfvars_for(directory)
    tf.write_file("terraform.tfvars.json", json.dumps(chosen, indent=2) + "\n")
    return chosen
