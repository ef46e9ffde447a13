"""The release as Terraform users get it: tools/release-local packs the built provider the way .goreleaser.yml does
(zip, SHA256SUMS, detached signature, registry manifest); Terraform installs that zip from a filesystem mirror -- no
dev_overrides -- verifies it against the dependency lock file, and plans the quickstart with it."""
import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

from example_vars import write_example_variables
from harness import PROVIDER_SOURCE, Terraform, flat, provider_binary
from hcl import days_ago

pytestmark = pytest.mark.provider

REPO = Path(__file__).resolve().parents[2]
RELEASE_LOCAL = REPO / "tools" / "release-local"
NAME = "terraform-provider-hyperpod"
ADDRESS = f"registry.terraform.io/{PROVIDER_SOURCE}"
_MANIFEST = tomllib.loads((REPO / "Cargo.toml").read_text())
# The package takes the workspace's version (`version.workspace = true`).
VERSION = _MANIFEST["workspace"]["package"]["version"]
OS = platform.system().lower()
ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine().lower()]
PREFIX = f"{NAME}_{VERSION}"
ZIP = f"{PREFIX}_{OS}_{ARCH}.zip"
EXE = ".exe" if OS == "windows" else ""


def release_local(out: Path, *extra: str, binary: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GPG_FINGERPRINT"}  # always the throwaway key here
    return subprocess.run([str(RELEASE_LOCAL), "--binary", str(binary or provider_binary()), "--out", str(out), *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sums(dist: Path) -> dict:
    """{file name: sha256} from the SHA256SUMS file, checking its `<hex>  <name>` format."""
    entries = {}
    for line in (dist / f"{PREFIX}_SHA256SUMS").read_text().splitlines():
        digest, sep, name = line.partition("  ")
        assert sep and len(digest) == 64 and int(digest, 16) >= 0 and "/" not in name, line
        entries[name] = digest
    return entries


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = release_local(out)
    assert result.returncode == 0, result.stderr
    assert "THROWAWAY" in result.stdout and ZIP in result.stdout, result.stdout
    return out


def lock_file(hashes: list) -> str:
    lines = "".join(f'    "{h}",\n' for h in hashes)
    return f'provider "{ADDRESS}" {{\n  version = "{VERSION}"\n  hashes = [\n{lines}  ]\n}}\n'


def mirrored(root: Path, sandbox_env: dict, zip_path: Path, tf_files: dict | None = None,
             hashes: list | None = None) -> Terraform:
    """A working dir whose CLI config installs this provider only from a filesystem mirror (packed layout) holding
    `zip_path`; the quickstart's .tf files (or `tf_files`) and a lock file pinning VERSION with `hashes`."""
    mirror = root / "mirror"
    (mirror / ADDRESS).mkdir(parents=True)
    shutil.copyfile(zip_path, mirror / ADDRESS / ZIP)
    tf = Terraform(root, sandbox_env, cli_config=f"""\
        provider_installation {{
          filesystem_mirror {{
            path    = "{mirror}"
            include = ["{ADDRESS}"]
          }}
          direct {{
            exclude = ["{ADDRESS}"]
          }}
        }}
        """)
    if tf_files is None:
        for source in sorted((REPO / "examples" / "quickstart").glob("*.tf")):
            shutil.copyfile(source, tf.dir / source.name)
        # Reviewed ten days ago, so the quickstart's contracts never go overdue (LIF-1) under the test.
        (tf.dir / "terraform.tfvars").write_text(f'last_reviewed = "{days_ago(10)}"\n')
        write_example_variables(tf, REPO / "examples" / "quickstart")
    else:
        for name, text in tf_files.items():
            tf.write_file(name, text)
    if hashes is not None:
        (tf.dir / ".terraform.lock.hcl").write_text(lock_file(hashes))
    return tf


def test_layout_and_names(dist):
    assert sorted(p.name for p in dist.iterdir()) == sorted([
        ZIP, f"{PREFIX}_SHA256SUMS", f"{PREFIX}_SHA256SUMS.sig", f"{PREFIX}_manifest.json",
        f"{PREFIX}_signing-key.asc"])


def test_zip_holds_the_versioned_executable(dist):
    with zipfile.ZipFile(dist / ZIP) as zf:
        [entry] = zf.infolist()
        assert entry.filename == f"{NAME}_v{VERSION}{EXE}"
        assert (entry.external_attr >> 16) & 0o777 == 0o755
        assert zf.read(entry) == provider_binary().read_bytes()


def test_checksums_cover_the_zip_and_manifest_and_match(dist):
    entries = sums(dist)
    assert set(entries) == {ZIP, f"{PREFIX}_manifest.json"}
    for name, digest in entries.items():
        assert sha256(dist / name) == digest, name
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "--check", "--strict", f"{PREFIX}_SHA256SUMS"], cwd=dist,
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr


def test_manifest_declares_protocol_6(dist):
    manifest = json.loads((dist / f"{PREFIX}_manifest.json").read_text())
    assert manifest == {"version": 1, "metadata": {"protocol_versions": ["6.0"]}}
    assert (dist / f"{PREFIX}_manifest.json").read_bytes() == (REPO / "terraform-registry-manifest.json").read_bytes()


def test_signature_verifies_with_the_exported_key(dist, tmp_path):
    home = tempfile.mkdtemp(prefix="tfp-verify-")  # short: gpg-agent's socket path has a length limit
    env = {**os.environ, "GNUPGHOME": home}
    try:
        os.chmod(home, 0o700)
        gpg = ["gpg", "--batch", "--status-fd", "1"]
        imported = subprocess.run([*gpg, "--import", str(dist / f"{PREFIX}_signing-key.asc")], env=env,
                                  capture_output=True, text=True)
        assert imported.returncode == 0 and "IMPORT_OK" in imported.stdout, imported.stderr
        sums_file, sig = dist / f"{PREFIX}_SHA256SUMS", dist / f"{PREFIX}_SHA256SUMS.sig"
        assert not sig.read_bytes().startswith(b"-----BEGIN")  # binary, as GoReleaser's --detach-sign writes it
        good = subprocess.run([*gpg, "--verify", str(sig), str(sums_file)], env=env, capture_output=True, text=True)
        assert good.returncode == 0 and "[GNUPG:] GOODSIG" in good.stdout, good.stdout + good.stderr
        tampered = tmp_path / sums_file.name
        tampered.write_text(sums_file.read_text().replace(sums(dist)[ZIP], "0" * 64))
        bad = subprocess.run([*gpg, "--verify", str(sig), str(tampered)], env=env, capture_output=True, text=True)
        assert bad.returncode != 0 and "[GNUPG:] BADSIG" in bad.stdout, bad.stdout + bad.stderr
    finally:
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def test_same_binary_same_zip(dist, tmp_path):
    again = release_local(tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert sha256(tmp_path / "again" / ZIP) == sums(dist)[ZIP]


def test_missing_binary_is_one_line_with_the_fix(tmp_path):
    result = release_local(tmp_path / "out", binary=tmp_path / "nope")
    assert result.returncode != 0 and not (tmp_path / "out").exists()
    assert result.stderr.count("\n") == 1 and "make build" in result.stderr, result.stderr


def test_init_installs_the_release_from_the_mirror(dist, tmp_path):
    digest = sums(dist)[ZIP]
    tf = mirrored(tmp_path, {}, dist / ZIP, hashes=[f"zh:{digest}"])
    assert "dev_overrides" not in tf.cli_config.read_text()
    result = tf.init()
    assert f"- Installed {PROVIDER_SOURCE} v{VERSION}" in result.stdout, result.stdout
    installed = (tf.dir / ".terraform" / "providers" / ADDRESS / VERSION / f"{OS}_{ARCH}" / f"{NAME}_v{VERSION}{EXE}")
    assert installed.is_file() and os.access(installed, os.X_OK)
    assert installed.read_bytes() == provider_binary().read_bytes()
    lock = (tf.dir / ".terraform.lock.hcl").read_text()
    assert f'version = "{VERSION}"' in lock and f'"zh:{digest}"' in lock and '"h1:' in lock


def test_quickstart_plans_with_the_mirror_installed_provider(dist, sandbox, tmp_path):
    sandbox.reset()
    tf = mirrored(tmp_path, sandbox.env(), dist / ZIP, hashes=[f"zh:{sums(dist)[ZIP]}"])
    tf.init()
    result = tf.plan()
    assert result.rc == 2, result.stdout
    assert "hyperpod_scheduling_policy.capacity will be created" in result.stdout
    assert "Provider development overrides are in effect" not in result.stdout + result.stderr


@pytest.mark.parametrize("case", ["wrong lock hash", "tampered zip"])
def test_init_refuses_a_zip_that_does_not_match_the_lock(dist, tmp_path, case):
    digest = sums(dist)[ZIP]
    zip_path = dist / ZIP
    if case == "wrong lock hash":
        digest = hashlib.sha256(b"not the release").hexdigest()
    else:
        zip_path = tmp_path / ZIP
        with zipfile.ZipFile(zip_path, "w") as zf:
            zf.writestr(zipfile.ZipInfo(f"{NAME}_v{VERSION}{EXE}"), b"#!/bin/sh\necho tampered\n")
    tf = mirrored(tmp_path / "tf", {}, zip_path, hashes=[f"zh:{digest}"])
    result = tf.run("init", "-no-color", "-input=false", check=False)
    assert result.rc == 1, result.stdout
    assert flat(f"the current package for {ADDRESS} {VERSION} doesn't match any of the checksums previously "
                "recorded in the dependency lock file") in flat(result.stderr), result.stderr
    assert not (tf.dir / ".terraform" / "providers" / ADDRESS / VERSION).exists()


def test_a_version_not_in_the_mirror_is_refused(dist, tmp_path):
    config = textwrap.dedent(f"""\
        terraform {{
          required_providers {{
            hyperpod = {{ source = "{PROVIDER_SOURCE}", version = "99.0.0" }}
          }}
        }}
        """)
    tf = mirrored(tmp_path, {}, dist / ZIP, tf_files={"main.tf": config})
    result = tf.run("init", "-no-color", "-input=false", check=False)
    assert result.rc == 1
    assert "no available releases match the given constraints 99.0.0" in flat(result.stderr), result.stderr
