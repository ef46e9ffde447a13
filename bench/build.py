"""Cold build benchmark: `cargo build --release --locked --timings` of the whole workspace into an empty target dir,
as a fresh CI machine runs it. Records the wall time, CPU time and peak memory of the build, the stripped binary's
size, and from cargo's timings report (UNIT_DATA) the time of every crate: the slowest ones, the AWS SDK's share,
and the crates compiled in more than one version.

Writes bench/out/build.json (everything), bench/out/build.md (tables, the target MET/MISSED) and
bench/out/build-timings.html (cargo's report). The target is reported, never asserted: the script fails only if the
build does. Knobs: BENCH_BUILD_TARGET_DIR (default: a temporary dir, removed afterwards), BENCH_BUILD_JOBS (cargo -j;
default: all cores). Standard library only: `python3 bench/build.py` or `make bench-build`.
"""
import datetime
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
TARGET_S = 6 * 60  # issue 33: a cold release build of at most 6 minutes on a 2-core machine
BINARY = "terraform-provider-hyperpod"


def units(timings_html: str) -> list[dict]:
    """cargo's per-unit timings (name, version, mode, duration in seconds) from its HTML report."""
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", timings_html, re.S)
    if found is None:
        raise SystemExit("bench/build.py: no UNIT_DATA in cargo's timings report (a new cargo format?)")
    return json.loads(found.group(1))


def build(target_dir: Path) -> dict:
    command = ["cargo", "build", "--release", "--locked", "--timings"]
    if os.environ.get("BENCH_BUILD_JOBS"):
        command += ["-j", os.environ["BENCH_BUILD_JOBS"]]
    env = {**os.environ, "CARGO_TARGET_DIR": str(target_dir)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"bench/build.py: {' '.join(command)} exited {done.returncode}")
    report = (target_dir / "cargo-timings" / "cargo-timing.html").read_text()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "build-timings.html").write_text(report)
    binary = target_dir / "release" / BINARY
    return {
        "command": " ".join(command),
        "wall_s": round(wall, 1),
        "user_s": round(after.ru_utime - before.ru_utime, 1),
        "system_s": round(after.ru_stime - before.ru_stime, 1),
        "peak_rss_mb": round(after.ru_maxrss / 1024),  # the largest child (rustc or a build script), in KiB on Linux
        "binary_mb": round(binary.stat().st_size / 1e6, 1),
        "units": units(report),
    }


def summary(result: dict) -> dict:
    crates: dict[str, float] = {}
    versions: dict[str, set] = {}
    for unit in result["units"]:
        crates[unit["name"]] = crates.get(unit["name"], 0.0) + unit["duration"]
        versions.setdefault(unit["name"], set()).add(unit["version"])
    slowest = sorted(crates.items(), key=lambda item: -item[1])[:15]
    sdk = sum(d for name, d in crates.items() if name.startswith("aws-sdk-"))
    return {
        "crate_seconds_total": round(sum(crates.values()), 1),
        "aws_sdk_seconds": round(sdk, 1),
        "slowest": [(name, round(d, 1)) for name, d in slowest],
        "duplicate_versions": sorted((name, sorted(v)) for name, v in versions.items() if len(v) > 1),
    }


def markdown(result: dict, facts: dict) -> str:
    met = "MET" if result["wall_s"] <= TARGET_S else "MISSED"
    lines = [
        f"# Cold release build ({facts['date']}, {facts['cpus']} CPUs, {facts['rustc']})",
        "",
        f"`{result['command']}` into an empty target dir.",
        "",
        "| wall | target | CPU (user + system) | peak RSS | binary (stripped) | crate time, summed | AWS SDK crates |",
        "|---|---|---|---|---|---|---|",
        f"| {result['wall_s'] / 60:.1f} min ({result['wall_s']} s) | ≤ {TARGET_S // 60} min: {met} | "
        f"{result['user_s'] + result['system_s']:.0f} s | {result['peak_rss_mb']} MB | {result['binary_mb']} MB | "
        f"{result['summary']['crate_seconds_total']} s | {result['summary']['aws_sdk_seconds']} s |",
        "",
        "Slowest crates (seconds of compile, summed over their units):",
        "",
        "| crate | s |",
        "|---|---|",
        *[f"| {name} | {seconds} |" for name, seconds in result["summary"]["slowest"]],
        "",
        "Crates in more than one version: "
        + (", ".join(f"{name} ({', '.join(v)})" for name, v in result["summary"]["duplicate_versions"]) or "none"),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    chosen = os.environ.get("BENCH_BUILD_TARGET_DIR")
    target_dir = Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="hyperpod-bench-build-"))
    if chosen and target_dir.exists():
        shutil.rmtree(target_dir)  # a cold build: nothing reused
    try:
        result = build(target_dir)
    finally:
        if not chosen:
            shutil.rmtree(target_dir, ignore_errors=True)
    result["summary"] = summary(result)
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    facts = {"date": datetime.date.today().isoformat(), "cpus": os.cpu_count(), "rustc": rustc}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "build.json").write_text(json.dumps({**facts, **result}, indent=1) + "\n")
    (OUT / "build.md").write_text(markdown(result, facts))
    print(markdown(result, facts))


if __name__ == "__main__":
    main()
