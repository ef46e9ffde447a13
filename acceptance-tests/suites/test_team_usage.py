"""data.hyperpod_team_usage through a real Terraform against the sandbox's seeded Kueue metrics: per-team figures
as the seed's hourly profiles give them (computed here from the seed, under the run's fixture names), the findings
for the contract's monitoring signals (an idle guarantee, a team starved by preemption) with the signal's owner and
response, and thresholds that name no signal or no measure refused at their attribute path."""
import json

import pytest

from harness import fixture as harness_fixture
from hcl import PROVIDER_REGION, contract_resource, provider
from sandbox import seed as sandbox_seed

pytestmark = [pytest.mark.provider,
              pytest.mark.sandbox_only(reason="reads the sandbox's seeded CloudWatch series (cloudwatch.json)")]

DATA = "data.hyperpod_team_usage.research"
WINDOW_DAYS = 14
UTILIZATION_OWNER = "capacity-board@example.com"
PREEMPTION = {"name": "team-preemption", "owner": "ml-platform-oncall@example.com",
              "response": "raise the team's priority or guarantee at the next review"}


def seed_profiles():
    """The seed's CloudWatch profiles under the run's fixture names: {profile: team entry}, and the resource."""
    path, _ = sandbox_seed.prepare(harness_fixture.selected_path())
    cluster = json.loads((path / "cloudwatch.json").read_text())["clusters"][0]
    return {team["profile"]: team for team in cluster["teams"]}, cluster["resource"]


@pytest.fixture(scope="module")
def seeded():
    return seed_profiles()


def contract() -> str:
    """The suites' research contract with a second monitoring signal, for preemption."""
    text = contract_resource("research", signal_owner=UTILIZATION_OWNER)
    second = (f'    signal {{\n      name     = "{PREEMPTION["name"]}"\n      owner    = "{PREEMPTION["owner"]}"\n'
              f'      response = "{PREEMPTION["response"]}"\n    }}\n')
    return text.replace("  monitoring {\n", "  monitoring {\n" + second, 1)


def usage(teams, thresholds: str) -> str:
    team_list = ", ".join(f'"{t}"' for t in teams)
    return f"""
data "hyperpod_team_usage" "research" {{
  contract = hyperpod_connection_contract.research.governance
  signals  = hyperpod_connection_contract.research.monitoring.signal
  teams    = [{team_list}]
{thresholds}
}}

output "usage" {{
  value = {DATA}.usage
}}

output "findings" {{
  value = {DATA}.findings
}}

output "window" {{
  value = [{DATA}.start_time, {DATA}.end_time, {DATA}.eks_cluster_name]
}}
"""


THRESHOLDS = """
  threshold {
    signal  = "team-utilization"
    measure = "guarantee_utilization"
    below   = 0.30
    meaning = "reserved capacity no longer reflects demand"
  }

  threshold {
    signal  = "team-preemption"
    measure = "preempted_tasks"
    above   = 10
  }
"""


def expected(team: dict) -> dict:
    """What the window (whole days) gives for a profile of 24 hourly values."""
    nominal, used = team["nominal"], team["usage"]
    mean = sum(used) / 24
    return {
        "team": team["team"],
        "cluster_queue": f"hyperpod-ns-{team['team']}-clusterqueue",
        "guaranteed": nominal,
        "used": mean,
        "peak": max(used),
        "borrowed": sum(max(0, u - nominal) for u in used) / 24,
        "unused_guarantee": sum(max(0, nominal - u) for u in used) / 24,
        "guarantee_utilization": mean / nominal,
        "pending_tasks": sum(team["pending"]) / 24,
        "pending_tasks_peak": max(team["pending"]),
        "preempted_tasks": WINDOW_DAYS * sum(team["preempted"]),
        "hours_observed": WINDOW_DAYS * 24,
    }


def config(teams, thresholds: str = "") -> str:
    return provider(PROVIDER_REGION) + contract() + usage(teams, thresholds or THRESHOLDS)


def apply_contract(tf):
    """The contract exists first: a data source that reads a resource with pending changes waits for apply."""
    tf.write(provider(PROVIDER_REGION) + contract())
    tf.apply()


def test_per_team_figures_and_findings_tied_to_the_contract_signals(tf, seeded):
    profiles, _ = seeded
    teams = [profiles[p]["team"] for p in ("idle", "saturated", "preemption-heavy")]
    apply_contract(tf)
    tf.write(provider(PROVIDER_REGION) + contract() + usage(teams, THRESHOLDS))
    verdict = tf.plan_json()
    assert verdict.errors == [] and verdict.warnings == [], verdict.errors + verdict.warnings
    tf.apply()

    got = {row["team"]: row for row in tf.output("usage")}
    for profile in ("idle", "saturated", "preemption-heavy"):
        want = expected(profiles[profile])
        assert got[want["team"]] == pytest.approx(want), profile

    findings = tf.output("findings")
    idle, heavy = profiles["idle"], profiles["preemption-heavy"]
    assert [(f["team"], f["signal"], f["measure"]) for f in findings] == [
        (idle["team"], "team-utilization", "guarantee_utilization"),
        (heavy["team"], "team-preemption", "preempted_tasks"),
    ]
    utilization, preemption = findings
    assert utilization["owner"] == UTILIZATION_OWNER
    assert utilization["response"] == "rebalance quotas at the monthly review"  # the contract's, not ours
    assert utilization["meaning"] == "reserved capacity no longer reflects demand"
    assert utilization["observed"] == pytest.approx(expected(idle)["guarantee_utilization"])
    assert (utilization["comparison"], utilization["threshold"]) == ("below", 0.3)
    assert preemption["owner"] == PREEMPTION["owner"] and preemption["response"] == PREEMPTION["response"]
    assert preemption["observed"] == WINDOW_DAYS * sum(heavy["preempted"])
    assert (preemption["comparison"], preemption["threshold"]) == ("above", 10)

    start, end, eks_cluster = tf.output("window")
    assert end.endswith("T00:00:00Z") and eks_cluster == harness_fixture.current().clusters.eks.eks_cluster_name
    tf.assert_no_changes()  # the day-aligned window: a second plan reads the same figures


def test_a_threshold_naming_no_contract_signal_is_an_error_at_its_signal(tf, seeded):
    profiles, _ = seeded
    apply_contract(tf)
    bad = THRESHOLDS.replace('signal  = "team-preemption"', 'signal  = "team-starvation"')
    tf.write(provider(PROVIDER_REGION) + contract() + usage([profiles["idle"]["team"]], bad))
    verdict = tf.plan_json()
    assert verdict.rc == 1
    (error,) = verdict.errors
    assert error.address == DATA
    assert verdict.source(error) == '"team-starvation"'
    assert "team-utilization" in error.detail and "team-preemption" in error.detail  # what the contract has


def test_an_unknown_measure_is_an_error_at_its_measure(tf, seeded):
    profiles, _ = seeded
    apply_contract(tf)
    bad = THRESHOLDS.replace('measure = "preempted_tasks"', 'measure = "wait_time_p90"')
    tf.write(provider(PROVIDER_REGION) + contract() + usage([profiles["idle"]["team"]], bad))
    verdict = tf.plan_json()
    assert verdict.rc == 1
    (error,) = verdict.errors
    assert verdict.source(error) == '"wait_time_p90"'


def test_a_team_without_metrics_is_an_error_not_an_idle_team(tf, seeded):
    apply_contract(tf)
    tf.write(provider(PROVIDER_REGION) + contract() + usage(["no-such-team"], THRESHOLDS))
    verdict = tf.plan_json()
    assert verdict.rc == 1
    (error,) = verdict.errors
    assert verdict.source(error) == '["no-such-team"]'
    assert "kueue_cluster_queue_nominal_quota" in error.detail
