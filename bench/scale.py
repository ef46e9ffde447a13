"""Scale benchmark: N governed teams on one sandbox HyperPod cluster, against a floor of plain Terraform.

For each N in BENCH_SCALE_N the sandbox is reset and grown by its `teams` fixture (N projects with their roles, and
room on the fixture's EKS cluster for one guaranteed quota each); then one configuration, written as a user would
(for_each over a map of teams, like examples/quickstart), gives each team a connection contract, a tenant, a task view
restriction and a Unified Studio project binding next to the shared grant, cluster data source and scheduling policy.
Its phases (fresh plan, apply of that plan, no-change plan with refresh, destroy) are timed, their AWS and Kubernetes
calls counted by the sandbox, and the provider's peak RSS read from /proc. The floor is the same graph as
`terraform_data` resources (same inputs, same references), its phases interleaved with the provider's, alternating
which goes first, so machine noise hits both. Then the quickstart's apply runs with and without latency on every
sandbox call, to count the round trips it makes one after another.

Writes bench/out/scale.json (everything) and bench/out/scale.md (tables, targets MET/MISSED). Targets are reported,
never asserted: the script fails only if a run breaks (a command fails, or a plan has an error diagnostic).
Knobs: BENCH_SCALE_N ("5 20 80 200"), BENCH_SCALE_PHASES (phases to report; the ones before them run too),
BENCH_SCALE_LATENCY_MS (100; 0 skips the latency runs), HYPERPOD_PROVIDER_DIR (the provider binary's dir).
Run with the venv's python (Terraform, moto): `make bench-scale`.
"""
import datetime
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "acceptance-tests"))
sys.path.insert(0, str(REPO / "acceptance-tests" / "suites"))

from harness import Sandbox, Terraform, current_fixture, provider_binary  # noqa: E402
from hcl import days_ago  # noqa: E402

OUT = REPO / "bench" / "out"
PHASES = ("fresh_plan", "apply", "no_change_plan", "destroy")
PLAN_FILE = "bench.tfplan"
TIMEOUT_S = 4 * 3600  # a slow provider at N=200 is a result, not a hang
BINARY = "terraform-provider-hyperpod"
FX = current_fixture()  # the sandbox's names and ids (HYPERPOD_FIXTURE; default the local seed's)
ACCOUNT, REGION, CLUSTER = FX.account_id, FX.region, FX.clusters.eks.name
DOMAIN, UNIT, PROFILE = FX.datazone.domain_id, FX.datazone.domain_unit_id, FX.datazone.project_profile_id
INSTANCE_TYPE = "ml.g5.xlarge"  # the fixture's instance group: one guaranteed instance per team
TARGETS = {  # phase -> calls per tenant (marginal, beyond a per-cluster constant)
    "no_change_plan": 25,
    "fresh_plan": 12,
    "apply": 40,
}
NO_CHANGE_DRIFT = 0.10  # calls per tenant at the largest N within 10 % of N=20
NO_CHANGE_FLOOR_RATIO, RATIO_AT_N = 5.0, 80
PLAN_LINES_PER_TEAM = 150  # `terraform show` of the fresh plan, marginal lines per team


# ---- the configuration: one graph, two flavours -------------------------------------------------------------------
# kind -> (provider block type, label, one per team). The floor names each kind's terraform_data after the kind.
KINDS = {
    "cluster": ("data.hyperpod_cluster", "capacity", False),
    "grant": ("hyperpod_domain_unit_policy_grant", "hyperpod_projects", False),
    "policy": ("hyperpod_scheduling_policy", "capacity", False),
    "allocation": ("hyperpod_cluster_allocation", "capacity", False),
    "contract": ("hyperpod_connection_contract", "team", True),
    "restriction": ("hyperpod_task_view_restriction", "team", True),
    "tenant": ("hyperpod_tenant", "team", True),
    "binding": ("hyperpod_unified_studio_project_binding", "team", True),
}

VARIABLES = """
variable "teams" {
  description = "Per team: its Unified Studio project, the project's Tooling user role, viewer and operator roles."
  type = map(object({
    project_id        = string
    project_role_arn  = string
    viewer_role_arn   = string
    operator_role_arn = string
  }))
}

variable "last_reviewed" {
  type = string
}

variable "instance_type" {
  type = string
}
"""

PROVIDER = f"""
terraform {{
  required_providers {{
    hyperpod = {{ source = "hyperpod-governance/hyperpod" }}
  }}
}}

provider "hyperpod" {{
  region              = "{REGION}"
  allowed_account_ids = ["{ACCOUNT}"]

  default_tags {{
    tags = {{ "managed-by" = "terraform" }}
  }}
}}
"""


def q(text: str) -> str:
    """An HCL string literal (JSON's quoting is HCL's; `${...}` stays an interpolation)."""
    return json.dumps(text)


class Flavor:
    """How the graph is written: the provider's resources, or the floor's terraform_data with the same values as
    `input` objects and the same references (to `.output`)."""

    def __init__(self, floor: bool):
        self.floor = floor

    def ref(self, kind: str, attr: str = "governance") -> str:
        block_type, label, per_team = KINDS[kind]
        key = "[each.key]" if per_team else ""
        if self.floor:
            return f"terraform_data.{kind}{key}.output" + ("" if attr == "governance" else f".{attr}")
        return f"{block_type}.{label}{key}.{attr}"

    def allocation_share(self) -> str:
        """What a tenant is handed of the cluster's allocation. The provider hands it the allocation's `governance`,
        a write-only argument: Terraform evaluates it, the provider judges WKL-3 with it, and neither state nor plan
        keeps it (the tenant keeps its own quota). terraform_data has no write-only input, and the whole allocation
        (every team's share) in every tenant's `input` would make the floor's state, and its cost, grow with N x N:
        the floor's tenant takes its own team's share, through the same reference."""
        if self.floor:
            return f"{self.ref('allocation')}.teams[each.key]"
        return self.ref("allocation")

    def namespaces(self) -> str:
        return '["hyperpod-ns-${each.key}"]' if self.floor else "[provider::hyperpod::team_namespace(each.key)]"

    def block(self, kind: str, body: dict) -> str:
        block_type, label, per_team = KINDS[kind]
        meta = {"for_each": "var.teams"} if per_team else {}
        if self.floor:
            return f'resource "terraform_data" "{kind}" {{\n{_body({**meta, "input": _object(body, 1)}, 1)}}}\n'
        keyword, block_type = ("data", block_type[5:]) if block_type.startswith("data.") else ("resource", block_type)
        return f'{keyword} "{block_type}" "{label}" {{\n{_body({**meta, **body}, 1)}}}\n'


def _body(body: dict, depth: int) -> str:
    """Resource body: a str is an attribute's expression, a dict a nested block, a list of dicts repeated blocks."""
    pad, lines = "  " * depth, []
    for name, value in body.items():
        if isinstance(value, str):
            lines.append(f"{pad}{name} = {value}\n")
        else:
            for block in value if isinstance(value, list) else [value]:
                lines.append(f"{pad}{name} {{\n{_body(block, depth + 1)}{pad}}}\n")
    return "".join(lines)


def _object(value, depth: int) -> str:
    """The same body as one HCL object (blocks become objects, repeated blocks a list of them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_object(v, depth) for v in value) + "]"
    pad = "  " * (depth + 1)
    return "{\n" + "".join(f"{pad}{k} = {_object(v, depth + 1)}\n" for k, v in value.items()) + "  " * depth + "}"


def shared(f: Flavor) -> str:
    """The cluster's data source, the organization grant, the scheduling policy and the cluster's allocation, as
    examples/quickstart has."""
    return "\n".join([
        f.block("cluster", {"name": q(CLUSTER)}),
        f.block("grant", {
            "domain_id": q(DOMAIN), "domain_unit_id": q(UNIT),
            "project_profile_ids": f'["{PROFILE}"]',
            "principal": {"domain_unit_id": q(UNIT), "designation": q("OWNER")},
        }),
        f.block("policy", {
            "cluster_name": f.ref("cluster", "name"), "description": q("Training first; interactive work borrows"),
            "fair_share": "true", "idle_resource_sharing": "true",
            "priority_class": [{"name": q("training"), "weight": "60"}, {"name": q("interactive"), "weight": "20"}],
        }),
        # The cluster's documented split (WKL-3 on the first plan): every team's one guaranteed instance.
        f.block("allocation", {
            "cluster_name": f.ref("cluster", "name"),
            "teams": "{ for team, _ in var.teams : team => { quota = [{ instance_type = var.instance_type, count = 1 }] } }",
        }),
    ])


def per_team(f: Flavor) -> str:
    """Each team's contract, task view restriction, tenant and binding, as examples/quickstart writes them."""
    return "\n".join([
        f.block("contract", {
            "name": q(f"${{each.key}}-on-{CLUSTER}"),
            "owners": {"business": q("${each.key}-lead@example.com"), "operations": q("ml-platform-oncall@example.com"),
                       "cost": q("finance-ml@example.com")},
            "unified_studio": {"domain_id": q(DOMAIN), "domain_unit_id": q(UNIT),
                               "project_id": "each.value.project_id"},
            "cluster": {"account_id": q(ACCOUNT), "region": q(REGION), "name": f.ref("cluster", "name"),
                        "orchestrator": q("eks")},
            "project_role_arn": "each.value.project_role_arn",
            "access_role_arn": q(FX.role_arn(FX.roles.connection_access)),
            "approved_workload_types": '["training", "interactive"]',
            "data_classification": q("internal"),
            "eks_namespaces": f.namespaces(),
            "approved_public_cidrs": f'["{FX.approved_public_cidr}"]',
            "organization": f.ref("grant"),
            "scheduling": {"policy": q("guaranteed share; lends idle capacity"),
                           "exception_owner": q("ml-platform-leads@example.com")},
            "monitoring": {"signal": [{"name": q("team-utilization"), "owner": q("${each.key}-leads@example.com"),
                                       "response": q("rebalance quotas at the monthly capacity review")}]},
            "support": q("ml-platform on-call, business hours"),
            "decommission": q("remove the binding, then the tenant; keep data 90 days"),
            "review": {"interval_days": "90", "last_reviewed": "var.last_reviewed",
                       "approved_by": q("security-lead@example.com")},
        }),
        f.block("restriction", {"contract": f.ref("contract")}),
        f.block("tenant", {
            "contract": f.ref("contract"), "scheduling_policy": f.ref("policy"), "allocation": f.allocation_share(),
            "team": "each.key",
            "quota": [{"instance_type": "var.instance_type", "count": "1"}],
            "sharing": {"strategy": q("Lend")},
            "preempt_team_tasks": q("LowerPriority"), "fair_share_weight": "10", "priority_class": q("training"),
            "viewer_groups": '["${each.key}-viewers"]', "viewer_principal_arns": "[each.value.viewer_role_arn]",
            "operator_groups": '["${each.key}-operators"]', "operator_principal_arns": "[each.value.operator_role_arn]",
            "workload": {"service_account": q("${each.key}-jobs")},
        }),
        f.block("binding", {
            "contract": f.ref("contract"), "project_id": "each.value.project_id",
            "cluster_name": f.ref("cluster", "name"), "project_role_arn": f.ref("contract", "project_role_arn"),
            "description": q(f"${{each.key}} on the shared {CLUSTER} capacity"),
            "task_view_restriction": f.ref("restriction"), "tenants": f"[{f.ref('tenant')}]",
            "member": [{"name": q("${each.key}-leads"), "designation": q("PROJECT_OWNER")},
                       {"name": q("${each.key}-scientists"), "designation": q("PROJECT_CONTRIBUTOR")}],
        }),
    ])


def configuration(floor: bool) -> str:
    f = Flavor(floor)
    return ("" if floor else PROVIDER) + VARIABLES + "\n" + shared(f) + "\n" + per_team(f)


def workdir(sandbox: Sandbox, name: str, main_tf: str, tfvars: dict) -> Terraform:
    tf = Terraform(Path(tempfile.mkdtemp(prefix=f"bench-scale-{name}-")), sandbox.env(), timeout=TIMEOUT_S)
    tf.write(main_tf)
    tf.write_file("bench.auto.tfvars.json", json.dumps(tfvars, indent=2))
    tf.init()
    return tf


# ---- measuring ----------------------------------------------------------------------------------------------------
class ProviderRss:
    """Peak RSS of this process's terraform-provider-hyperpod descendants while in the `with` block: polls /proc for
    their VmHWM (the kernel's high-water mark, so a peak between polls is not missed; a process that lives shorter than
    one poll is)."""
    INTERVAL_S = 0.05

    def __init__(self):
        self.peak_kb, self.pids = 0, set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _poll(self):
        while True:
            self._sample()
            if self._stop.wait(self.INTERVAL_S):
                return

    def _sample(self):
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _is_our_provider(int(entry.name)):
                kb = _peak_kb(entry.name)
                if kb:
                    self.pids.add(int(entry.name))
                    self.peak_kb = max(self.peak_kb, kb)


def _is_our_provider(pid: int) -> bool:
    """The provider, started by a Terraform this script started (not another engineer's test run)."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != BINARY[:15]:  # comm keeps 15 characters
            return False
        if Path(os.readlink(f"/proc/{pid}/exe")).name != BINARY:
            return False
        for _ in range(8):  # provider <- terraform (<- the shim) <- this python
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if pid == os.getpid():
                return True
            if pid <= 1:
                return False
    except (OSError, ValueError, IndexError):  # the process ended while being read
        return False
    return False


def _peak_kb(pid: str) -> int:
    """VmHWM (peak resident set, kB) from /proc/<pid>/status; 0 if the process is gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("VmHWM:")), 0)


def timed(action) -> dict:
    """Run `action()` and time it; `detail` is what a plan action returned (a failing command raises)."""
    start = time.perf_counter()
    detail = action()
    return {"wall_s": round(time.perf_counter() - start, 3), "detail": detail if isinstance(detail, dict) else None}


def measured(sandbox: Sandbox, action) -> dict:
    """`timed(action)` plus the sandbox's calls per operation (most first) and the provider's peak RSS."""
    sandbox.reset_calls()
    with ProviderRss() as rss:
        record = timed(action)
    calls = sandbox.calls()
    return {**record, "api_calls": sum(calls.values()), "calls": dict(sorted(calls.items(), key=lambda kv: -kv[1])),
            "peak_rss_mb": round(rss.peak_kb / 1024, 1), "provider_processes": len(rss.pids)}


# ---- phases -------------------------------------------------------------------------------------------------------
def clean_plan(tf: Terraform, extra=(), want_changes: bool | None = None) -> dict:
    """`terraform plan -json` that must have no error diagnostic; returns whether it has changes and its warnings."""
    verdict = tf.plan_json(extra=extra)
    if verdict.errors:
        raise RuntimeError(f"plan in {tf.dir} is not clean:\n{verdict.describe()}")
    changes = verdict.rc == 2
    if want_changes is not None and changes != want_changes:
        raise RuntimeError(f"plan in {tf.dir}: expected {'changes' if want_changes else 'no changes'}, got rc "
                           f"{verdict.rc}\n{verdict.result.stdout[-4000:]}")
    changed = sorted({message["change"]["resource"]["addr"] for message in _json_lines(verdict.result.stdout)
                      if message.get("type") == "planned_change" and message["change"]["action"] != "noop"})
    return {"changes": changes, "warnings": sorted({d.rule or d.summary for d in verdict.warnings}),
            **({"changed": changed[:5], "changed_count": len(changed)} if changes else {})}


def _json_lines(text: str) -> list:
    """The JSON messages of `terraform plan -json` output (other lines skipped)."""
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def phase_action(tf: Terraform, phase: str):
    """What each phase runs. The no-change plan's changes are recorded, not refused: a non-empty re-plan still costs
    what it costs, and the report flags it."""
    return {
        "fresh_plan": lambda: clean_plan(tf, extra=(f"-out={PLAN_FILE}",), want_changes=True),
        "apply": lambda: tf.apply(PLAN_FILE),
        "no_change_plan": lambda: clean_plan(tf),
        "destroy": tf.destroy,
    }[phase]


def run_n(sandbox: Sandbox, n: int, phases: tuple, offset: int) -> dict:
    """All phases for N teams, the floor's and the provider's interleaved, alternating which goes first from phase to
    phase, and (by `offset`, the index of N) from one N to the next for the same phase."""
    sandbox.reset()
    fixture = sandbox.add_teams(n, instance_type=INSTANCE_TYPE)
    tfvars = {"teams": fixture["teams"], "last_reviewed": days_ago(10), "instance_type": INSTANCE_TYPE}
    dirs = {"floor": workdir(sandbox, f"floor-{n}", configuration(floor=True), tfvars),
            "provider": workdir(sandbox, f"provider-{n}", configuration(floor=False), tfvars)}
    results = {}
    for index, phase in enumerate(PHASES[:max(PHASES.index(p) for p in phases) + 1]):
        order = ("floor", "provider") if (index + offset) % 2 == 0 else ("provider", "floor")
        runs = {}
        for side in order:
            print(f"    N={n} {phase} {side}", flush=True)
            action = phase_action(dirs[side], phase)
            runs[side] = measured(sandbox, action) if side == "provider" else timed(action)
        if phase == "fresh_plan":  # read after the timing, before apply uses the plan
            lines = {side: plan_lines(dirs[side]) for side in order}
        if phase in phases:
            results[phase] = {**runs["provider"], "floor_wall_s": runs["floor"]["wall_s"], "first": order[0],
                              "calls_per_tenant": round(runs["provider"]["api_calls"] / n, 2),
                              "ratio": round(runs["provider"]["wall_s"] / max(runs["floor"]["wall_s"], 1e-3), 2)}
            if phase == "fresh_plan":
                results[phase].update(plan_lines=lines["provider"], floor_plan_lines=lines["floor"],
                                      plan_lines_per_team=round(lines["provider"] / n, 1),
                                      floor_plan_lines_per_team=round(lines["floor"] / n, 1))
    for tf in dirs.values():
        shutil.rmtree(tf.dir.parent, ignore_errors=True)
    return results


def plan_lines(tf: Terraform) -> int:
    """Lines of `terraform show -no-color` of the saved fresh plan: what a reviewer scrolls through."""
    return len(tf.run("show", "-no-color", PLAN_FILE).stdout.splitlines())


# ---- the quickstart under latency ---------------------------------------------------------------------------------
def quickstart_apply(sandbox: Sandbox, latency_ms: int) -> dict:
    """examples/quickstart planned (as demo.sh does), then its apply timed with `latency_ms` on every AWS and
    Kubernetes call of the sandbox."""
    sandbox.reset()
    tf = Terraform(Path(tempfile.mkdtemp(prefix="bench-scale-quickstart-")), sandbox.env(), timeout=TIMEOUT_S)
    for source in (REPO / "examples" / "quickstart").glob("*.tf"):
        shutil.copy(source, tf.dir)
    tf.write_file("terraform.tfvars.json", json.dumps({**FX.tfvars_for(REPO / "examples" / "quickstart"),
                                                       "last_reviewed": days_ago(10)}, indent=2))
    tf.init()
    clean_plan(tf, extra=(f"-out={PLAN_FILE}",), want_changes=True)
    if latency_ms:
        sandbox.fault("*", "latency", count=None, ms=latency_ms)  # every AWS call
        sandbox.fault("kubernetes.*", "latency", count=None, ms=latency_ms)  # "*" leaves Kubernetes calls out
    try:
        record = measured(sandbox, lambda: tf.apply(PLAN_FILE))
    finally:
        sandbox.clear_faults()
    shutil.rmtree(tf.dir.parent, ignore_errors=True)
    record.pop("detail")
    return {"latency_ms": latency_ms, **record}


def latency_runs(sandbox: Sandbox, latency_ms: int) -> dict:
    base, slow = quickstart_apply(sandbox, 0), quickstart_apply(sandbox, latency_ms)
    seconds = latency_ms / 1000
    return {"without_latency": base, "with_latency": slow,
            "sequential_round_trips": round(slow["wall_s"] / seconds, 1),
            "round_trips_from_added_wall": round((slow["wall_s"] - base["wall_s"]) / seconds, 1)}


# ---- the report ---------------------------------------------------------------------------------------------------
def per_tenant_slopes(scale: dict, phase: str) -> list:
    """(N1, N2, (calls(N2) - calls(N1)) / (N2 - N1)) for consecutive N: the marginal calls of one more tenant."""
    points = sorted((int(n), r[phase]["api_calls"]) for n, r in scale.items() if phase in r)
    return [(n1, n2, round((c2 - c1) / (n2 - n1), 2)) for (n1, c1), (n2, c2) in zip(points, points[1:])]


def judge(scale: dict) -> list:
    """The targets, each as (MET | MISSED | NOT MEASURED, text)."""
    verdicts = []
    for phase, limit in TARGETS.items():
        slopes = per_tenant_slopes(scale, phase)
        if not slopes:
            verdicts.append(("NOT MEASURED", f"{phase}: ≤ {limit} calls per tenant (needs two N)"))
            continue
        worst = max(s for _, _, s in slopes)
        marginal = ", ".join(f"N {a}→{b}: {s}" for a, b, s in slopes)
        average = ", ".join(f"N={n}: {r[phase]['calls_per_tenant']}" for n, r in scale.items() if phase in r)
        verdicts.append(("MET" if worst <= limit else "MISSED",
                         f"{phase}: ≤ {limit} calls per tenant plus a per-cluster constant; marginal {marginal} "
                         f"(calls/N {average})"))
    sizes = sorted(int(n) for n, r in scale.items() if "no_change_plan" in r)
    if 20 in sizes and sizes[-1] > 20:
        small, large = (scale[str(n)]["no_change_plan"]["calls_per_tenant"] for n in (20, sizes[-1]))
        drift = (large - small) / small
        verdicts.append(("MET" if abs(drift) <= NO_CHANGE_DRIFT else "MISSED",
                         f"no_change_plan: calls/tenant at N={sizes[-1]} ({large}) within 10 % of N=20 ({small}): "
                         f"{drift:+.0%} (the target names N=200)"))
    else:
        verdicts.append(("NOT MEASURED", "no_change_plan: calls/tenant at N=200 within 10 % of N=20"))
    verdicts.append(plan_lines_verdict(scale))
    at = scale.get(str(RATIO_AT_N), {}).get("no_change_plan")
    if at:
        verdicts.append(("MET" if at["ratio"] <= NO_CHANGE_FLOOR_RATIO else "MISSED",
                         f"no_change_plan wall at N={RATIO_AT_N} ≤ {NO_CHANGE_FLOOR_RATIO:g}× floor: "
                         f"{at['wall_s']} s vs {at['floor_wall_s']} s = {at['ratio']}×"))
    else:
        verdicts.append(("NOT MEASURED",
                         f"no_change_plan wall at N={RATIO_AT_N} ≤ {NO_CHANGE_FLOOR_RATIO:g}× floor"))
    return verdicts


def plan_lines_verdict(scale: dict) -> tuple:
    """Lines per team of the fresh plan: the marginal lines of one more team (like calls, beyond the shared grant,
    policy and summary), or lines / N when only one N ran."""
    points = sorted((int(n), r["fresh_plan"]["plan_lines"]) for n, r in scale.items()
                    if "plan_lines" in r.get("fresh_plan", {}))
    if not points:
        return "NOT MEASURED", f"fresh plan: ≤ {PLAN_LINES_PER_TEAM} lines per team (`terraform show`)"
    slopes = [round((l2 - l1) / (n2 - n1), 1) for (n1, l1), (n2, l2) in zip(points, points[1:])]
    worst = max(slopes) if slopes else round(points[0][1] / points[0][0], 1)
    floor = sorted((int(n), r["fresh_plan"]["floor_plan_lines"]) for n, r in scale.items()
                   if "floor_plan_lines" in r.get("fresh_plan", {}))
    floor_slopes = [round((l2 - l1) / (n2 - n1), 1) for (n1, l1), (n2, l2) in zip(floor, floor[1:])]
    pairs = [f"N {a}→{b}" for (a, _), (b, _) in zip(points, points[1:])]
    how = (f"marginal {', '.join(f'{p}: {s}' for p, s in zip(pairs, slopes))}; the terraform_data floor with the "
           f"same inputs: {', '.join(f'{p}: {s}' for p, s in zip(pairs, floor_slopes))}"
           if slopes else f"lines/N at N={points[0][0]}: {worst}")
    return ("MET" if worst <= PLAN_LINES_PER_TEAM else "MISSED",
            f"fresh plan: ≤ {PLAN_LINES_PER_TEAM} lines per team (`terraform show`); {how}")


def markdown(report: dict) -> str:
    scale = report["scale"]
    lines = ["## Scale: N teams on one cluster (provider vs terraform_data floor)", "",
             f"{report['generated_at']}, {report['provider']}, {report['cpus']} CPUs, sandbox transitions "
             f"{report['async_seconds']:g} s.", "",
             "| N | phase | wall s | floor s | ratio | API calls | calls/tenant | peak RSS MB |",
             "|---|---|---|---|---|---|---|---|"]
    for n, phases in scale.items():
        for phase, r in phases.items():
            note = " (changes!)" if (r.get("detail") or {}).get("changes") and phase == "no_change_plan" else ""
            lines.append(f"| {n} | {phase}{note} | {r['wall_s']} | {r['floor_wall_s']} | {r['ratio']} | "
                         f"{r['api_calls']} | {r['calls_per_tenant']} | {r['peak_rss_mb']} |")
    sized = [(n, r["fresh_plan"]) for n, r in scale.items() if "plan_lines" in r.get("fresh_plan", {})]
    if sized:
        lines += ["", "Fresh plan as `terraform show` prints it:", "",
                  "| N | lines | lines/team | floor lines | floor lines/team |", "|---|---|---|---|---|"]
        lines += [f"| {n} | {r['plan_lines']} | {r['plan_lines_per_team']} | {r['floor_plan_lines']} | "
                  f"{r['floor_plan_lines_per_team']} |" for n, r in sized]
    largest = max(scale, key=int, default=None)
    top = (scale.get(largest) or {}).get("no_change_plan")
    if top:
        lines += ["", f"Top operations of the no-change plan at N={largest}:", "", "| operation | calls |", "|---|---|"]
        lines += [f"| {op} | {count} |" for op, count in list(top["calls"].items())[:10]]
    lines += ["", "Targets (reported, not asserted):", ""]
    lines += [f"* {verdict}: {text}" for verdict, text in report["targets"]]
    latency = report.get("latency")
    if latency:
        base, slow = latency["without_latency"], latency["with_latency"]
        lines += ["", f"## examples/quickstart apply, {slow['latency_ms']} ms on every sandbox call", "",
                  "| run | wall s | API calls |", "|---|---|---|",
                  f"| no latency | {base['wall_s']} | {base['api_calls']} |",
                  f"| {slow['latency_ms']} ms latency | {slow['wall_s']} | {slow['api_calls']} |", "",
                  f"Sequential round trips: {latency['sequential_round_trips']} (wall / latency); "
                  f"{latency['round_trips_from_added_wall']} from the wall time latency added."]
    return "\n".join(lines) + "\n"


def write(report: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    report["marginal_calls_per_tenant"] = {phase: per_tenant_slopes(report["scale"], phase) for phase in PHASES}
    report["targets"] = judge(report["scale"])
    (OUT / "scale.json").write_text(json.dumps(report, indent=2) + "\n")
    (OUT / "scale.md").write_text(markdown(report))


def settings() -> tuple[list, tuple, int]:
    sizes = [int(n) for n in os.environ.get("BENCH_SCALE_N", "5 20 80 200").split()]
    phases = tuple(os.environ.get("BENCH_SCALE_PHASES", " ".join(PHASES)).split())
    if not sizes or any(n < 1 for n in sizes):
        raise SystemExit("BENCH_SCALE_N: one or more positive integers, e.g. \"5 20\"")
    if not phases or set(phases) - set(PHASES):
        raise SystemExit(f"BENCH_SCALE_PHASES: one or more of {' '.join(PHASES)}")
    return sizes, phases, int(os.environ.get("BENCH_SCALE_LATENCY_MS", "100"))


def main() -> int:
    sizes, phases, latency_ms = settings()
    if not provider_binary().is_file():
        raise SystemExit(f"no provider binary at {provider_binary()} (HYPERPOD_PROVIDER_DIR): make build")
    report = {"generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "provider": str(provider_binary()), "cpus": os.cpu_count(),
              "async_seconds": float(os.environ.get("HYPERPOD_SANDBOX_ASYNC_SECONDS", "1.0")),
              "scale": {}}
    sandbox = Sandbox.start()
    failed = None
    try:
        for offset, n in enumerate(sizes):
            print(f"==> N={n}", flush=True)
            report["scale"][str(n)] = run_n(sandbox, n, phases, offset)
            write(report)
        if latency_ms:
            print(f"==> examples/quickstart apply with and without {latency_ms} ms latency", flush=True)
            report["latency"] = latency_runs(sandbox, latency_ms)
    except Exception as e:  # noqa: BLE001 - a broken run: keep what was measured, say what broke, exit 1
        failed = e
        report["error"] = str(e)
    finally:
        sandbox.stop()
    write(report)
    print((OUT / "scale.md").read_text())
    if failed:
        print(f"bench/scale.py: a run broke: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
