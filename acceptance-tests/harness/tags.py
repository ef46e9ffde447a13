"""The test mark: every object a test creates carries the fixture's `test_tag` (and, where AWS has no tags, the
`test_prefix` in its name), so `make sweep` (tools/sweep.py) can find a killed run's leftovers and nothing else.

The harness puts the tag into every configuration it runs: before each Terraform command, `inject(dir)` writes an
override file (`zz_hyperpod_test_tags_override.tf`) whose `provider "hyperpod"` block sets `default_tags`, so suites
need not spell it.  Terraform merges an override file's provider block into the original one of the same name and
alias, but a nested block in an override replaces the original's: a configuration with its own `default_tags { tags
= <expr> }` gets `tags = merge(<expr>, { <test tag> })` (the expression copied as written, so variables and later
edits of the file carry over).  Tests that assert a whole `tags_all` add `tag_map()` to what they expect.  A root
module without a `provider "hyperpod"` block (the provider configured implicitly) gets a plain file declaring the
block with just the tag: an override needs an original to merge into.  `Terraform.test_tags = False` turns it off.
"""
import re
from pathlib import Path

from .fixture import current

OVERRIDE_FILE = "zz_hyperpod_test_tags_override.tf"
IMPLICIT_FILE = "zz_hyperpod_test_tags.tf"
_PROVIDER_BLOCK = re.compile(r'^\s*provider\s+"hyperpod"\s*\{', re.M)
_ALIAS = re.compile(r"^\s*alias\s*=", re.M)
_DEFAULT_TAGS = re.compile(r"^\s*default_tags\s*\{", re.M)
_TAGS_ATTR = re.compile(r"^\s*tags\s*=\s*", re.M)
_USES_PROVIDER = re.compile(r'^\s*(resource|data)\s+"hyperpod_|provider::hyperpod::', re.M)


def tag_map(fixture=None) -> dict:
    """The fixture's test tag as a tag map: {key: value}."""
    tag = (fixture or current()).test_tag
    return {tag.key: tag.value}


def tag_list(fixture=None, **extra) -> list:
    """The test tag (and `extra` tags) as SageMaker, IAM and STS take them: [{"Key": k, "Value": v}], for objects a
    test creates with boto3 (EKS and KMS-style maps: `tag_map()`)."""
    return [{"Key": k, "Value": v} for k, v in {**tag_map(fixture), **extra}.items()]


def hcl_map(tags: dict) -> str:
    return "{ " + ", ".join(f'"{k}" = "{v}"' for k, v in tags.items()) + " }"


def default_tags_hcl(extra: dict | None = None, fixture=None) -> str:
    """A `default_tags` block with the test tag (and `extra` tags), for a provider block that sets its own."""
    return f"default_tags {{\n    tags = {hcl_map({**tag_map(fixture), **(extra or {})})}\n  }}"


def _root_files(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.tf")
                  if p.name not in (OVERRIDE_FILE, IMPLICIT_FILE) and not p.name.endswith("_override.tf"))


def _balanced(text: str, start: int) -> int:
    """The index just past the brace/bracket/paren group or quoted string that opens at `start`, or past the
    expression's first line when it opens none (e.g. `var.tags`, `merge(a, b)` is a paren group after `merge`)."""
    pairs = {"{": "}", "[": "]", "(": ")"}
    stack, i, quoted = [], start, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        elif not stack and ch in "}\n":
            return i
        i += 1
    return i


def _provider_blocks(text: str) -> list[str]:
    """The bodies of every `provider "hyperpod" { ... }` block."""
    bodies = []
    for match in _PROVIDER_BLOCK.finditer(text):
        end = _balanced(text, match.end() - 1)
        bodies.append(text[match.end():end - 1])
    return bodies


def _default_tags_expr(body: str) -> str | None:
    """The `tags` expression of a provider body's `default_tags` block, as written; "" when the block sets none."""
    block = _DEFAULT_TAGS.search(body)
    if not block:
        return None
    inner = body[block.end():_balanced(body, block.end() - 1) - 1]
    attr = _TAGS_ATTR.search(inner)
    if not attr:
        return ""
    start = attr.end()
    stop = start
    while stop < len(inner) and inner[stop] not in "\n":  # the expression: groups may span lines
        stop = _balanced(inner, stop) if inner[stop] in "{[(\"" else stop + 1
    return inner[start:stop].strip()


def inject(directory: Path, fixture=None) -> Path | None:
    """Make the root module in `directory` tag what it creates with the test tag; returns the file written, or None
    when the configuration does not use the provider. Idempotent: run it before each Terraform command, as the
    configuration may have changed since the last."""
    directory = Path(directory)
    for name in (OVERRIDE_FILE, IMPLICIT_FILE):
        (directory / name).unlink(missing_ok=True)
    texts = [p.read_text(errors="replace") for p in _root_files(directory)]
    blocks = [body for text in texts for body in _provider_blocks(text)]
    default_blocks = [body for body in blocks if not _ALIAS.search(body)]
    test = hcl_map(tag_map(fixture))
    if default_blocks:
        own = _default_tags_expr(default_blocks[0])
        tags = f"merge({own}, {test})" if own else test
        path = directory / OVERRIDE_FILE
    elif any(_USES_PROVIDER.search(text) for text in texts):
        tags, path = test, directory / IMPLICIT_FILE
    else:
        return None
    path.write_text("# Written by the acceptance harness (harness/tags.py): the test tag on everything this run "
                    f"creates.\nprovider \"hyperpod\" {{\n  default_tags {{\n    tags = {tags}\n  }}\n}}\n")
    return path
