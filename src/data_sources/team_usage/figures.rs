//! The pure half of `hyperpod_team_usage`: which metrics to ask for, the per-team figures from their hourly series,
//! and the findings where a figure crosses a threshold. No I/O.

use std::collections::BTreeMap;

pub use super::model::Measure;
use super::model::ThresholdBlock;
use crate::aws::cloudwatch::{MetricQuery, Series};

/// Where the amazon-cloudwatch-observability add-on (`kueue_container_insights`) publishes Kueue's metrics: the
/// CloudWatch agent's `awsemf/kueueContainerInsights` exporter writes to this namespace, not to `ContainerInsights`.
pub const NAMESPACE: &str = "ContainerInsights/Prometheus";
pub const NOMINAL_QUOTA: &str = "kueue_cluster_queue_nominal_quota";
pub const RESOURCE_USAGE: &str = "kueue_cluster_queue_resource_usage";
pub const PENDING: &str = "kueue_pending_workloads";
pub const EVICTED: &str = "kueue_evicted_workloads_total";
/// The `Reason` dimension value of an eviction by preemption.
pub const PREEMPTED: &str = "Preempted";
/// One datapoint per hour: coarse enough for 500 queries × 14 days, fine enough for a peak.
pub const PERIOD: i32 = 3600;

/// HyperPod task governance's ClusterQueue for a team: `hyperpod-ns-<team>-clusterqueue`.
pub fn cluster_queue(team: &str) -> String {
    format!("{}-clusterqueue", crate::names::team_namespace(team))
}

/// The queries for one team (index `n` keeps query ids unique within the call).
pub fn queries(n: usize, eks_cluster: &str, team: &str, resource: &str) -> Vec<MetricQuery> {
    let queue = cluster_queue(team);
    let with_resource = vec![
        ("ClusterName", eks_cluster.to_string()),
        ("ClusterQueue", queue.clone()),
        ("Resource", resource.to_string()),
    ];
    let per_queue = vec![
        ("ClusterName", eks_cluster.to_string()),
        ("ClusterQueue", queue.clone()),
    ];
    let preempted = vec![
        ("ClusterName", eks_cluster.to_string()),
        ("ClusterQueue", queue),
        ("Reason", PREEMPTED.to_string()),
    ];
    let query = |kind: &str, metric_name, dimensions: &Vec<(&'static str, String)>, stat| MetricQuery {
        id: format!("t{n}_{kind}"),
        namespace: NAMESPACE,
        metric_name,
        dimensions: dimensions.clone(),
        stat,
        period: PERIOD,
    };
    vec![
        query("nominal", NOMINAL_QUOTA, &with_resource, "Average"),
        query("held", RESOURCE_USAGE, &with_resource, "Average"),
        query("held_peak", RESOURCE_USAGE, &with_resource, "Maximum"),
        query("pending", PENDING, &per_queue, "Average"),
        query("pending_peak", PENDING, &per_queue, "Maximum"),
        query("preempted", EVICTED, &preempted, "Sum"),
    ]
}

/// One team's figures over the window. `None` where the metric had no datapoint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeamFigures {
    pub guaranteed: Option<f64>,
    pub used: Option<f64>,
    pub peak: Option<f64>,
    pub borrowed: Option<f64>,
    pub unused_guarantee: Option<f64>,
    pub guarantee_utilization: Option<f64>,
    pub pending_tasks: Option<f64>,
    pub pending_tasks_peak: Option<f64>,
    pub preempted_tasks: Option<f64>,
    /// Hours with a nominal-quota datapoint: how much of the window the figures rest on.
    pub hours_observed: i64,
}

impl TeamFigures {
    pub fn measure(&self, measure: Measure) -> Option<f64> {
        match measure {
            Measure::GuaranteeUtilization => self.guarantee_utilization,
            Measure::Used => self.used,
            Measure::Peak => self.peak,
            Measure::Borrowed => self.borrowed,
            Measure::UnusedGuarantee => self.unused_guarantee,
            Measure::PendingTasks => self.pending_tasks,
            Measure::PendingTasksPeak => self.pending_tasks_peak,
            Measure::PreemptedTasks => self.preempted_tasks,
        }
    }
}

/// The figures from one team's series (keyed by query id as `queries` named them).
pub fn figures(n: usize, series: &BTreeMap<String, Series>) -> TeamFigures {
    let get = |kind: &str| {
        series
            .get(&format!("t{n}_{kind}"))
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let nominal = get("nominal");
    let usage = get("held");
    let guaranteed = mean(nominal);
    let used = mean(usage);
    // Borrowing and lending are not published per queue: an hour's usage beyond its nominal quota was borrowed,
    // nominal quota it left unused was free for others. Hours missing either series count for neither.
    let by_hour: BTreeMap<i64, f64> = nominal.iter().copied().collect();
    let paired: Vec<(f64, f64)> = usage
        .iter()
        .filter_map(|(at, used)| by_hour.get(at).map(|quota| (*used, *quota)))
        .collect();
    let borrowed =
        (!paired.is_empty()).then(|| paired.iter().map(|(u, q)| (u - q).max(0.0)).sum::<f64>() / paired.len() as f64);
    let unused_guarantee =
        (!paired.is_empty()).then(|| paired.iter().map(|(u, q)| (q - u).max(0.0)).sum::<f64>() / paired.len() as f64);
    let guarantee_utilization = match (used, guaranteed) {
        (Some(used), Some(guaranteed)) if guaranteed > 0.0 => Some(used / guaranteed),
        _ => None,
    };
    let preempted = get("preempted");
    TeamFigures {
        guaranteed,
        used,
        peak: maximum(get("held_peak")),
        borrowed,
        unused_guarantee,
        guarantee_utilization,
        pending_tasks: mean(get("pending")),
        pending_tasks_peak: maximum(get("pending_peak")),
        // The agent turns Kueue's cumulative counter into per-interval deltas; no eviction publishes no datapoint,
        // so an empty series is zero once the queue's quota shows the queue was observed.
        preempted_tasks: Some(preempted.iter().map(|(_, v)| v).sum::<f64>()).filter(|_| !nominal.is_empty()),
        hours_observed: nominal.len() as i64,
    }
}

fn mean(points: &[(i64, f64)]) -> Option<f64> {
    (!points.is_empty()).then(|| points.iter().map(|(_, v)| v).sum::<f64>() / points.len() as f64)
}

fn maximum(points: &[(i64, f64)]) -> Option<f64> {
    points.iter().map(|(_, v)| *v).reduce(f64::max)
}

/// A threshold block: the contract signal it reports to, the measure and the bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Threshold {
    pub signal: String,
    pub measure: Measure,
    pub bound: Bound,
    pub meaning: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    Below(f64),
    Above(f64),
}

impl Bound {
    pub fn crossed_by(self, observed: f64) -> bool {
        match self {
            Self::Below(bound) => observed < bound,
            Self::Above(bound) => observed > bound,
        }
    }
    pub fn comparison(self) -> &'static str {
        match self {
            Self::Below(_) => ThresholdBlock::BELOW.name(),
            Self::Above(_) => ThresholdBlock::ABOVE.name(),
        }
    }
    pub fn value(self) -> f64 {
        match self {
            Self::Below(v) | Self::Above(v) => v,
        }
    }
}

/// A contract monitoring signal: who owns it and what they do when it fires.
#[derive(Clone, Debug, PartialEq)]
pub struct UsageSignal {
    pub name: String,
    pub owner: String,
    pub response: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UsageFinding {
    pub signal: String,
    pub team: String,
    pub measure: Measure,
    pub observed: f64,
    pub comparison: &'static str,
    pub threshold: f64,
    pub meaning: String,
    pub owner: String,
    pub response: String,
}

/// Every (team, threshold) whose measure crossed its bound, in team then threshold order. A measure without data
/// (no usage published, a zero guarantee) finds nothing: the team's figures show the null.
pub fn findings(
    teams: &[(String, TeamFigures)],
    thresholds: &[Threshold],
    signals: &[UsageSignal],
) -> Vec<UsageFinding> {
    let mut out = Vec::new();
    for (team, figures) in teams {
        for threshold in thresholds {
            let Some(signal) = signals.iter().find(|s| s.name == threshold.signal) else {
                continue; // refused at plan (validate): a threshold names one of the contract's signals
            };
            let Some(observed) = figures.measure(threshold.measure) else {
                continue;
            };
            if threshold.bound.crossed_by(observed) {
                out.push(UsageFinding {
                    signal: signal.name.clone(),
                    team: team.clone(),
                    measure: threshold.measure,
                    observed,
                    comparison: threshold.bound.comparison(),
                    threshold: threshold.bound.value(),
                    meaning: threshold.meaning.clone().unwrap_or_else(|| default_meaning(threshold)),
                    owner: signal.owner.clone(),
                    response: signal.response.clone(),
                });
            }
        }
    }
    out
}

fn default_meaning(threshold: &Threshold) -> String {
    let what = threshold.measure.what();
    format!("{what} is {} {}", threshold.bound.comparison(), threshold.bound.value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hourly(values: &[f64]) -> Series {
        values.iter().enumerate().map(|(i, v)| (i as i64 * 3600, *v)).collect()
    }

    fn series(entries: &[(&str, Series)]) -> BTreeMap<String, Series> {
        entries
            .iter()
            .map(|(kind, s)| (format!("t0_{kind}"), s.clone()))
            .collect()
    }

    #[test]
    fn borrowing_and_unused_guarantee_come_from_hours_beyond_and_below_the_quota() {
        let figures = figures(
            0,
            &series(&[
                ("nominal", hourly(&[4.0, 4.0, 4.0, 4.0])),
                ("held", hourly(&[6.0, 2.0, 4.0, 0.0])),
                ("held_peak", hourly(&[8.0, 2.0, 4.0, 0.0])),
                ("preempted", vec![(3600, 2.0), (7200, 1.0)]),
            ]),
        );
        assert_eq!(figures.guaranteed, Some(4.0));
        assert_eq!(figures.used, Some(3.0));
        assert_eq!(figures.peak, Some(8.0));
        assert_eq!(figures.borrowed, Some(0.5));
        assert_eq!(figures.unused_guarantee, Some(1.5));
        assert_eq!(figures.guarantee_utilization, Some(0.75));
        assert_eq!(figures.preempted_tasks, Some(3.0));
        assert_eq!(figures.pending_tasks, None);
        assert_eq!(figures.hours_observed, 4);
    }

    #[test]
    fn an_unobserved_queue_has_no_figures_and_finds_nothing() {
        let figures = figures(0, &BTreeMap::new());
        assert_eq!(figures.preempted_tasks, None);
        let threshold = Threshold {
            signal: "s".into(),
            measure: Measure::PreemptedTasks,
            bound: Bound::Above(0.0),
            meaning: None,
        };
        let signal = UsageSignal {
            name: "s".into(),
            owner: "o".into(),
            response: "r".into(),
        };
        assert!(findings(&[("t".into(), figures)], &[threshold], &[signal]).is_empty());
    }

    #[test]
    fn a_finding_carries_the_signal_owner_and_response() {
        let idle = TeamFigures {
            guarantee_utilization: Some(0.1),
            ..Default::default()
        };
        let busy = TeamFigures {
            guarantee_utilization: Some(0.9),
            ..Default::default()
        };
        let threshold = Threshold {
            signal: "team-utilization".into(),
            measure: Measure::GuaranteeUtilization,
            bound: Bound::Below(0.3),
            meaning: Some("reserved capacity no longer reflects demand".into()),
        };
        let signal = UsageSignal {
            name: "team-utilization".into(),
            owner: "capacity-board".into(),
            response: "resize the guarantee".into(),
        };
        let found = findings(&[("idle".into(), idle), ("busy".into(), busy)], &[threshold], &[signal]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].team, "idle");
        assert_eq!(found[0].owner, "capacity-board");
        assert_eq!(found[0].response, "resize the guarantee");
        assert_eq!(found[0].meaning, "reserved capacity no longer reflects demand");
        assert!(!Bound::Below(0.3).crossed_by(0.3), "at the bound is not below it");
    }
}
