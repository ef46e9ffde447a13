"""What a reviewer scrolls through: examples/quickstart planned against the local sandbox (as `make demo` does), then
`terraform show -no-color` of the saved plan measured: lines, the widest line, lines wider than 140 columns, and
lines per resource type. Targets (reported, not asserted): at most 700 lines, no line wider than 140 columns.
Writes bench/out/plan_lines.json and bench/out/plan_lines.md. Run by bench/run.sh with the venv's python."""
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "acceptance-tests"))
sys.path.insert(0, str(REPO / "acceptance-tests" / "suites"))

from harness import Sandbox, Terraform, current_fixture  # noqa: E402
from hcl import days_ago  # noqa: E402

MAX_LINES, MAX_COLUMNS = 700, 140
PLAN_FILE = "quickstart.tfplan"
# `  # hyperpod_tenant.research will be created`, `  # module.m.hyperpod_tenant.x["k"] must be replaced`
RESOURCE_HEADER = re.compile(r"^  # (?:module\.\S+?\.)?([a-z0-9_]+)\.\S+ (?:will|must)")


def measure(text: str) -> dict:
    """Line counts of a rendered plan: total, widest, over the column limit, and by resource type (a resource's lines
    run from its `# address will be …` header to the next one; what precedes the first is `(header)`, what follows
    the last resource's closing brace — the summary and outputs — `(summary)`)."""
    lines = text.splitlines()
    by_type, current = Counter(), "(header)"
    for line in lines:
        header = RESOURCE_HEADER.match(line)
        if header:
            current = header.group(1)
        elif line.startswith("Plan:") or line.startswith("Changes to Outputs:"):
            current = "(summary)"
        by_type[current] += 1
    widths = [len(line) for line in lines]
    return {"lines": len(lines), "widest": max(widths, default=0),
            "over_columns": sum(1 for w in widths if w > MAX_COLUMNS),
            "by_type": dict(sorted(by_type.items(), key=lambda kv: -kv[1]))}


def quickstart_plan(sandbox: Sandbox) -> str:
    fixture = current_fixture()
    tf = Terraform(Path(tempfile.mkdtemp(prefix="bench-plan-lines-")), sandbox.env())
    example = REPO / "examples" / "quickstart"
    for source in example.glob("*.tf"):
        shutil.copy(source, tf.dir)
    tf.write_file("terraform.tfvars.json",
                  json.dumps({**fixture.tfvars_for(example), "last_reviewed": days_ago(10)}, indent=2))
    tf.init()
    tf.run("plan", "-input=false", "-no-color", f"-out={PLAN_FILE}")
    text = tf.run("show", "-no-color", PLAN_FILE).stdout
    shutil.rmtree(tf.dir.parent, ignore_errors=True)
    return text


def markdown(result: dict) -> str:
    verdict = lambda ok: "MET" if ok else "MISSED"  # noqa: E731
    lines = ["## examples/quickstart: `terraform show` of its plan", "",
             f"* {verdict(result['lines'] <= MAX_LINES)}: {result['lines']} lines (target ≤ {MAX_LINES})",
             f"* {verdict(result['over_columns'] == 0)}: widest line {result['widest']} columns; "
             f"{result['over_columns']} lines wider than {MAX_COLUMNS}", "",
             "| resource type | lines |", "|---|---|"]
    lines += [f"| {kind} | {count} |" for kind, count in result["by_type"].items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    out = REPO / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    sandbox = Sandbox.start()
    try:
        result = measure(quickstart_plan(sandbox))
    finally:
        sandbox.stop()
    (out / "plan_lines.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "plan_lines.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
