"""The examples' variables (examples/*/variables.tf): their defaults are the local seed's fixture, so `make demo` and a
plain `terraform apply` in an example work against the sandbox as it is, and Fixture.example_variables() names them
all, so the acceptance tests (and demo.sh) can point an example at any fixture.

Terraform itself reads the defaults (a configuration of the example's variables.tf and one output; no provider).
"""
import json
import re
import shutil
from pathlib import Path

import pytest

from harness import Terraform
from harness.fixture import LOCAL, Fixture

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
WITH_VARIABLES = sorted(d.name for d in EXAMPLES.iterdir() if (d / "variables.tf").is_file())
# Variables of an example that are no fact of the account (the contracts' review date).
NOT_FROM_THE_FIXTURE = {"last_reviewed"}
# Variables that choose an example's setup rather than name the account: aws-two-teams is AWS's awslabs setup by
# default, the HyperPod CLI walkthrough's with these set (suites/test_aws_published.py).
SETUP_CHOICES = {"aws-two-teams": {"instance_type", "instances_per_team", "borrow_limit", "quota_names", "projects"}}
# The examples that name every seeded object take every variable the fixture sets.
NAMING_EVERYTHING = {"quickstart", "module", "misgoverned"}


def declared(example: Path) -> set[str]:
    return {name for tf in example.glob("*.tf")
            for name in re.findall(r'^variable\s+"([^"]+)"', tf.read_text(), re.MULTILINE)}


def test_the_examples_that_name_seeded_objects_take_variables():
    assert {"quickstart", "module", "misgoverned"} <= set(WITH_VARIABLES)


@pytest.mark.parametrize("example", WITH_VARIABLES)
def test_example_variable_defaults_are_the_local_seed(tmp_path, example):
    names = declared(EXAMPLES / example)
    local = Fixture.load(LOCAL)
    chosen = SETUP_CHOICES.get(example, set())
    account = names - NOT_FROM_THE_FIXTURE - chosen
    assert account <= set(local.example_variables()), \
        "every variable an example takes for the account is one Fixture.example_variables() sets"
    if example in NAMING_EVERYTHING:
        assert account == set(local.example_variables()), "and it takes every one of them"
    tf = Terraform(tmp_path, {})
    shutil.copy(EXAMPLES / example / "variables.tf", tf.dir / "variables.tf")
    tf.write_file("defaults.tf", "output \"defaults\" {\n  value = {\n"
                  + "".join(f"    {name} = var.{name}\n" for name in sorted(names)) + "  }\n}\n")
    tf.run("apply", "-auto-approve", "-input=false", "-no-color")
    defaults = json.loads(tf.run("output", "-json", "defaults").stdout)
    assert {k: v for k, v in defaults.items() if k not in NOT_FROM_THE_FIXTURE | chosen} == \
        local.tfvars_for(EXAMPLES / example)
