"""Every example under examples/ is formatted (`terraform fmt` through our Terraform) and valid against the built
provider, every resource, data source and function the provider's schema lists has its examples, and the module
example (examples/module) applies against the sandbox, plans empty and destroys cleanly.

Validation needs no AWS (`terraform validate` does not configure the provider), so only the module test uses the
sandbox. The resource examples reference each other as registry docs examples do (the tenant's uses
`hyperpod_connection_contract.research.governance`), so they are validated together: provider.tf plus every
resource's `resource*.tf` in one directory, where every reference must resolve. Each `import-by-identity.tf` and
`import.sh` must name a resource its `resource.tf` declares, and is validated as an import block in that directory.
"""
import json
import re
import shutil
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import Terraform, flat
from hcl import ACCOUNT, CLUSTER, days_ago

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PROVIDER_TF = EXAMPLES / "provider" / "provider.tf"
RESOURCES = EXAMPLES / "resources"
LIST_RESOURCES = EXAMPLES / "list-resources"
# Directories of snippets that need the provider's required_providers (registry docs examples): one dir per name.
SNIPPET_KINDS = {"data-sources": "data-source.tf", "functions": "function.tf"}
DEV_OVERRIDES = "Provider development overrides are in effect"


def _dirs(parent: Path) -> list[Path]:
    return sorted(p for p in parent.iterdir() if p.is_dir()) if parent.is_dir() else []


def _resource_types() -> list[str]:
    return [d.name for d in _dirs(RESOURCES)]


def _standalone() -> list[Path]:
    """Whole configurations: examples/<name>/ other than the per-kind trees (provider, quickstart, misgoverned,
    module, ...); files such as bench_plugin.rs, and directories without a .tf file (ci: a workflow and a script),
    are not configurations."""
    return [d for d in _dirs(EXAMPLES) if d.name not in ("resources", "list-resources") and d.name not in SNIPPET_KINDS
            and any(d.glob("*.tf"))]


def _snippets() -> list[Path]:
    return [d for kind in SNIPPET_KINDS for d in _dirs(EXAMPLES / kind)]


def _id(path: Path) -> str:
    return str(path.relative_to(EXAMPLES))


def workdir(tmp_path: Path, name: str = "validate") -> Terraform:
    """A Terraform working dir with dev_overrides for the built provider and no AWS settings at all."""
    return Terraform(tmp_path / name, {})


def validate(tf: Terraform) -> dict:
    """`terraform init` (modules), then `terraform validate -json`: valid, and no diagnostic but the dev_overrides
    warning."""
    tf.init()
    result = json.loads(tf.run("validate", "-json", "-no-color", check=False).stdout)
    diagnostics = [d for d in result["diagnostics"] if d["summary"] != DEV_OVERRIDES]
    assert result["valid"] and not diagnostics, json.dumps(result["diagnostics"], indent=2)
    return result


def copy_files(source: Path, target: Path, prefix: str = "") -> None:
    for path in sorted(source.iterdir()):
        if path.is_file() and path.suffix == ".tf":
            shutil.copy(path, target / f"{prefix}{path.name}")


def combined_resources(tf: Terraform) -> None:
    """provider.tf and every resource's resource*.tf (the files the docs pages show), under distinct names."""
    shutil.copy(PROVIDER_TF, tf.dir / "provider.tf")
    for resource_type in _resource_types():
        for path in sorted((RESOURCES / resource_type).glob("resource*.tf")):
            shutil.copy(path, tf.dir / f"{resource_type}--{path.name}")


def declared(resource_type: str) -> set[str]:
    """The addresses `<type>.<name>` the resource's resource*.tf declares."""
    text = "".join(p.read_text() for p in sorted((RESOURCES / resource_type).glob("resource*.tf")))
    return {f"{t}.{n}" for t, n in re.findall(r'^resource\s+"([\w-]+)"\s+"([\w-]+)"', text, re.M)}


def import_block(resource_type: str) -> tuple[str, dict]:
    """The `to` address and the identity attributes of import-by-identity.tf."""
    text = (RESOURCES / resource_type / "import-by-identity.tf").read_text()
    (to,) = re.findall(r"^\s*to\s*=\s*([\w.\-\[\]\"]+)\s*$", text, re.M)
    body = re.search(r"identity\s*=\s*\{(.*?)\}", text, re.S)
    assert body, f"{resource_type}/import-by-identity.tf has no identity = {{ ... }}"
    return to, dict(re.findall(r'^\s*(\w+)\s*=\s*"([^"]*)"', body.group(1), re.M))


def import_command(resource_type: str) -> tuple[str, str]:
    """The address and the ID of the `terraform import <address> <id>` line in import.sh."""
    lines = [line for line in (RESOURCES / resource_type / "import.sh").read_text().splitlines()
             if line.strip().startswith("terraform import")]
    assert len(lines) == 1, f"{resource_type}/import.sh: expected one `terraform import` line, found {lines}"
    words = lines[0].split()
    assert len(words) == 4, f"{resource_type}/import.sh: expected `terraform import <address> <id>`: {lines[0]}"
    return words[2], words[3]


# ---- formatting -----------------------------------------------------------------------------------------------------

def test_examples_are_formatted(tmp_path):
    """`terraform fmt -check -recursive -diff examples/`, through the Terraform the tests use (no provider needed)."""
    tf = workdir(tmp_path, "fmt")
    result = tf.run("fmt", "-check", "-recursive", "-diff", "-no-color", str(EXAMPLES), check=False)
    assert result.rc == 0, \
        f"unformatted examples (run terraform fmt -recursive examples/):\n{result.stdout}{result.stderr}"


# ---- validation -----------------------------------------------------------------------------------------------------

@pytest.mark.provider
@pytest.mark.parametrize("example", _standalone(), ids=_id)
def test_configuration_example_validates(tmp_path, example):
    """A whole configuration (provider, quickstart, misgoverned, module, ...) as it is, with its local modules."""
    tf = workdir(tmp_path)
    shutil.copytree(example, tf.dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    validate(tf)


@pytest.mark.provider
@pytest.mark.parametrize("example", _snippets(), ids=_id)
def test_data_source_and_function_example_validates(tmp_path, example):
    """A data source or function example next to the provider and resource examples it may reference (the usage data
    source reads `hyperpod_connection_contract.research`), as the docs pages show them."""
    tf = workdir(tmp_path)
    combined_resources(tf)
    copy_files(example, tf.dir, prefix="example--")
    validate(tf)


@pytest.mark.provider
def test_resource_examples_validate_together(tmp_path):
    """Every resource example in one configuration: each reference to another example's resource must resolve."""
    tf = workdir(tmp_path)
    combined_resources(tf)
    validate(tf)


@pytest.mark.provider
@pytest.mark.parametrize("resource_type", _resource_types())
def test_import_by_identity_example(tmp_path, resource_type):
    """import-by-identity.tf imports into a resource its resource.tf declares, and its identity fits the identity
    schema (validated next to all resource examples)."""
    to, identity = import_block(resource_type)
    assert to in declared(resource_type), f"import-by-identity.tf imports into {to}, not declared in resource.tf " \
                                          f"(declared: {sorted(declared(resource_type))})"
    assert identity, f"{resource_type}/import-by-identity.tf: no identity attributes"
    tf = workdir(tmp_path)
    combined_resources(tf)
    shutil.copy(RESOURCES / resource_type / "import-by-identity.tf", tf.dir / "import.tf")
    validate(tf)


@pytest.mark.provider
@pytest.mark.parametrize("resource_type", _resource_types())
def test_import_sh_example(tmp_path, resource_type):
    """import.sh's `terraform import <address> <id>` names a resource its resource.tf declares, the same one the
    identity example imports, with an ID made of the identity's values; as an import block it validates."""
    address, import_id = import_command(resource_type)
    assert address in declared(resource_type), f"import.sh imports into {address}, not declared in resource.tf " \
                                               f"(declared: {sorted(declared(resource_type))})"
    to, identity = import_block(resource_type)
    assert address == to, f"import.sh imports into {address}, import-by-identity.tf into {to}"
    for attribute, value in identity.items():
        assert value in import_id, f"import ID {import_id!r} does not name the identity's {attribute} = {value!r}"
    tf = workdir(tmp_path)
    combined_resources(tf)
    tf.write_file("import.tf", f'import {{\n  to = {address}\n  id = "{import_id}"\n}}\n')
    validate(tf)


@pytest.mark.provider
def test_query_examples_validate_together(tmp_path):
    """Every list resource example (`examples/list-resources/<type>/list-resource.tfquery.hcl`) next to the provider
    example: `terraform validate -query` checks each `list` block against the provider's list resource schemas."""
    tf = workdir(tmp_path)
    shutil.copy(PROVIDER_TF, tf.dir / "provider.tf")
    queries = sorted(LIST_RESOURCES.glob("*/list-resource.tfquery.hcl"))
    assert queries, "no list resource examples"
    for path in queries:
        shutil.copy(path, tf.dir / f"{path.parent.name}.tfquery.hcl")
    tf.init()
    result = json.loads(tf.run("validate", "-query", "-json", "-no-color", check=False).stdout)
    diagnostics = [d for d in result["diagnostics"] if d["summary"] != DEV_OVERRIDES]
    assert result["valid"] and not diagnostics, json.dumps(result["diagnostics"], indent=2)


# ---- completeness ----------------------------------------------------------------------------------------------------

@pytest.mark.provider
def test_every_schema_entry_has_its_examples(tmp_path):
    """Every resource (resource.tf, import.sh, and import-by-identity.tf when it has an identity schema), list resource
    (list-resource.tfquery.hcl), data source (data-source.tf) and function (function.tf) of `terraform providers schema
    -json` has its example directory, and no example directory is left over from something the provider no longer
    has."""
    tf = workdir(tmp_path, "schema")
    shutil.copy(PROVIDER_TF, tf.dir / "provider.tf")
    (schema,) = tf.schema_json()["provider_schemas"].values()
    expected = {}
    for name in schema.get("resource_schemas", {}):
        files = ["resource.tf", "import.sh"]
        if name in schema.get("resource_identity_schemas", {}):
            files.append("import-by-identity.tf")
        expected[f"resources/{name}"] = files
    for name in schema.get("data_source_schemas", {}):
        expected[f"data-sources/{name}"] = ["data-source.tf"]
    for name in schema.get("functions", {}):
        expected[f"functions/{name}"] = ["function.tf"]
    for name in schema.get("list_resource_schemas", {}):
        expected[f"list-resources/{name}"] = ["list-resource.tfquery.hcl"]
    assert expected, "the provider schema lists nothing"

    missing = [f"examples/{d}/{f}" for d, files in sorted(expected.items()) for f in files
               if not (EXAMPLES / d / f).is_file()]
    assert not missing, "examples missing for what the provider schema lists:\n  " + "\n  ".join(missing)
    present = {_id(d) for kind in ("resources", "list-resources", *SNIPPET_KINDS) for d in _dirs(EXAMPLES / kind)}
    leftover = sorted(present - set(expected))
    assert not leftover, f"example directories for nothing in the provider schema: {leftover}"


# ---- the module example against the sandbox --------------------------------------------------------------------------

@pytest.mark.provider
def test_module_example_applies_plans_empty_and_destroys(tf, sandbox):
    """examples/module (the root and modules/governed-project), given the fixture's names as its variables, applies,
    the next plan is empty, and destroy leaves the sandbox as it found it (compared on the sandbox's inventory; a
    real account has none)."""
    shutil.copytree(EXAMPLES / "module", tf.dir, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    # The example's review date is fixed; keep the contracts current whenever the test runs.
    tf.write_file("terraform.tfvars", f'last_reviewed = "{days_ago(10)}"\n')
    write_example_variables(tf, EXAMPLES / "module")
    before = None if sandbox.real else sandbox.inventory()

    tf.init()
    plan = tf.plan(extra=["-out=module.tfplan"])
    assert "Plan: 11 to add, 0 to change, 0 to destroy." in flat(plan.stdout), plan.stdout
    for team in ("production", "research"):
        for kind in ("connection_contract", "task_view_restriction", "tenant", "unified_studio_project_binding"):
            assert f"module.{team}.hyperpod_{kind}.this will be created" in plan.stdout, plan.stdout
    tf.apply("module.tfplan")

    teams = tf.output("teams")
    assert set(teams) == {"production", "research"}
    for name, team in teams.items():
        assert team["namespace"] == f"hyperpod-ns-{name}"
        assert team["workload_role_arn"] == f"arn:aws:iam::{ACCOUNT}:role/hyperpod-{CLUSTER}-{name}"
        assert team["contract"]["name"] == f"{name}-on-{CLUSTER}"
        assert team["contract"]["review_status"] == "current"
        assert team["connection_id"]
    state = tf.show_json()["values"]["root_module"]
    modules = {m["address"]: m for m in state["child_modules"]}
    research_tenant = next(r["values"] for r in modules["module.research"]["resources"]
                           if r["type"] == "hyperpod_tenant")
    # No absolute borrow limits written and none live: none recorded.
    assert research_tenant["sharing"] == {"strategy": "LendAndBorrow", "borrow_limit": 50,
                                          "absolute_borrow_limit": None}
    assert {"iam_role", "compute_quota", "pod_identity_association"} <= set(research_tenant["components"])

    tf.assert_no_changes()
    tf.destroy()
    if not sandbox.real:
        assert sandbox.inventory() == before
