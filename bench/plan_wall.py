"""Plan wall time of one tenant against the local sandbox: a tenant refused on its own settings (a borrow limit
with strategy Lend, WKL-5: a refusal, shown as a warning; no rule fails a plan, docs/design/where-rules-run.md) and
the same tenant when it agrees, each planned BENCH_PLANS times after one init. The verdict has no timer in it, so the
refused plan must take no longer than the passing one; writes bench/out/plan.json and bench/out/plan.md. Run by
bench/run.sh with the venv's python (Terraform, moto)."""
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "acceptance-tests"))
sys.path.insert(0, str(REPO / "acceptance-tests" / "suites"))

from harness import Sandbox, Terraform  # noqa: E402
from hcl import contract_resource, provider  # noqa: E402

TENANT = """
resource "hyperpod_tenant" "research" {{
  contract        = hyperpod_connection_contract.research.governance
  team            = "research"
  viewer_groups   = ["research-viewers"]
  operator_groups = ["research-operators"]

  quota {{
    instance_type = "ml.p5.48xlarge"
    count         = 2
  }}

  sharing {{
    strategy     = "{strategy}"
    {limit}
  }}

  workload {{
    service_account = "research-jobs"
  }}
}}
"""
REFUSED = "(apply refuses this change)"
CASES = {  # name: (strategy, limit line, whether the plan refuses the tenant)
    "refused on its own settings (WKL-5)": ("Lend", "borrow_limit = 50", True),
    "agrees": ("Lend", "", False),
}


def main() -> None:
    plans = int(os.environ.get("BENCH_PLANS", "5"))
    out = REPO / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    sandbox = Sandbox.start()
    results = {}
    try:
        for name, (strategy, limit, refused) in CASES.items():
            sandbox.reset()
            tf = Terraform(Path(tempfile.mkdtemp()), sandbox.env())
            tf.write(provider() + contract_resource("research") + TENANT.format(strategy=strategy, limit=limit))
            tf.init()
            times = []
            for _ in range(plans):
                start = time.perf_counter()
                result = tf.plan(check=False)
                times.append(time.perf_counter() - start)
                if result.rc != 2 or (REFUSED in result.stdout + result.stderr) != refused:
                    expected = "with" if refused else "without"
                    raise SystemExit(f"{name}: plan exited {result.rc}, expected 2 {expected} a refusal\n{result.stdout}")
            results[name] = {"median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3),
                             "plans": plans}
    finally:
        sandbox.stop()
    (out / "plan.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = ["| one tenant's `terraform plan` | median | max | plans |", "|---|---|---|---|"]
    lines += [f"| {name} | {r['median_s']} s | {r['max_s']} s | {r['plans']} |" for name, r in results.items()]
    (out / "plan.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
