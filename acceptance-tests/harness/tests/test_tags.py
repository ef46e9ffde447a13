"""harness/tags.py: the test tag goes into every configuration's provider block, merged with its own default_tags.
(That Terraform applies the merge is shown end to end by suites/test_sweep.py.)"""
import pytest

from harness.fixture import current
from harness.tags import IMPLICIT_FILE, OVERRIDE_FILE, hcl_map, inject, tag_list, tag_map


@pytest.fixture
def test_tag() -> str:
    return hcl_map(tag_map(current()))


def injected(tmp_path, main_tf: str):
    (tmp_path / "main.tf").write_text(main_tf)
    path = inject(tmp_path)
    return path.name if path else None, path.read_text() if path else None


def test_a_provider_block_without_default_tags_gets_the_test_tag(tmp_path, test_tag):
    name, text = injected(tmp_path, 'provider "hyperpod" {\n  region = "r"\n}\n')
    assert name == OVERRIDE_FILE
    assert f"default_tags {{\n    tags = {test_tag}\n  }}" in text


@pytest.mark.parametrize("own, expr", [
    ('{\n      "managed-by" = "terraform"\n    }', '{\n      "managed-by" = "terraform"\n    }'),
    ("var.tags", "var.tags"),
    ('merge(var.a, { b = "c" })', 'merge(var.a, { b = "c" })'),
])
def test_the_configurations_own_default_tags_are_kept_and_merged(tmp_path, test_tag, own, expr):
    name, text = injected(tmp_path, f'provider "hyperpod" {{\n  region = "r"\n\n  default_tags {{\n    tags = {own}\n'
                                    '  }\n}\n')
    assert name == OVERRIDE_FILE
    assert f"tags = merge({expr}, {test_tag})" in text


def test_an_implicit_provider_gets_a_block_and_a_configuration_without_the_provider_none(tmp_path, test_tag):
    name, text = injected(tmp_path, 'resource "hyperpod_tenant" "x" {}\n')
    assert name == IMPLICIT_FILE and test_tag in text
    assert injected(tmp_path, 'resource "terraform_data" "x" {}\n') == (None, None)
    assert not (tmp_path / IMPLICIT_FILE).exists()  # a stale one from an earlier configuration is removed


def test_an_aliased_block_alone_is_not_the_default_provider(tmp_path):
    name, _ = injected(tmp_path, 'provider "hyperpod" {\n  alias = "b"\n}\nresource "hyperpod_tenant" "x" {}\n')
    assert name == IMPLICIT_FILE


def test_tag_list_is_the_tag_map_in_sagemaker_and_iam_shape():
    (key, value), = tag_map(current()).items()
    assert tag_list(team="x") == [{"Key": key, "Value": value}, {"Key": "team", "Value": "x"}]
