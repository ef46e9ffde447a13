# The research contract's teams over the last 14 whole UTC days, judged against its monitoring signals. The figures
# come from the Kueue metrics the amazon-cloudwatch-observability add-on publishes (`kueue_container_insights`).
data "hyperpod_team_usage" "research" {
  contract = hyperpod_connection_contract.research.governance
  signals  = hyperpod_connection_contract.research.monitoring.signal
  teams    = ["research", "production"]

  # A guarantee used under 30 % for the whole window: the reservation no longer reflects demand.
  threshold {
    signal  = "team-utilization"
    measure = "guarantee_utilization"
    below   = 0.30
    meaning = "reserved capacity no longer reflects demand"
  }

  # A team that runs on borrowed capacity most of the time needs a larger guarantee, or production waits.
  threshold {
    signal  = "borrowed-capacity"
    measure = "borrowed"
    above   = 8
  }

  threshold {
    signal  = "team-utilization"
    measure = "preempted_tasks"
    above   = 10
    meaning = "the team is starved by preemption"
  }
}

# Findings are data, not errors: a check block shows them on every plan without blocking it, each with the signal's
# owner and response from the contract.
check "usage_against_intent" {
  assert {
    condition = length(data.hyperpod_team_usage.research.findings) == 0
    error_message = join("\n", [
      for f in data.hyperpod_team_usage.research.findings :
      "${f.team}: ${f.meaning} (${f.measure} ${f.observed} ${f.comparison} ${f.threshold}); ${f.owner}: ${f.response}"
    ])
  }
}

# Guaranteed vs used vs borrowed accelerators per team, e.g. { research = { guaranteed = 8, used = 6.7, ... } }.
output "team_usage" {
  value = {
    for team in data.hyperpod_team_usage.research.usage : team.team => {
      guaranteed  = team.guaranteed
      used        = team.used
      peak        = team.peak
      borrowed    = team.borrowed
      utilization = team.guarantee_utilization
      preempted   = team.preempted_tasks
    }
  }
}
