//! `hyperpod_team_usage` declared once (`#[derive(Model)]`, docs/design/typed-values.md): its schema, the typed
//! configuration read, and the value read returns.

use crate::protocol::model::{Field, Model};
use crate::protocol::validators::{IntBetween, OneOf};
use crate::protocol::value::Number;
use crate::resources::governance_objects::ContractGovernance;

/// Reads each team's use of its guaranteed capacity over a window, from the Kueue metrics that the
/// amazon-cloudwatch-observability EKS add-on publishes to CloudWatch, and reports findings for the contract's
/// monitoring signals against the thresholds you set.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TeamUsageModel {
    /// The contract whose cluster is read: `hyperpod_connection_contract.<name>.governance`. Its cluster must be
    /// EKS-orchestrated.
    #[tf(required)]
    pub contract: Field<ContractGovernance>,
    /// The contract's monitoring signals: `hyperpod_connection_contract.<name>.monitoring.signal`.
    #[tf(required, nested)]
    pub signals: Field<Vec<SignalModel>>,
    /// Teams to read. Default: the teams of the contract's `eks_namespaces` (`hyperpod-ns-<team>`).
    #[tf(optional)]
    pub teams: Field<Vec<String>>,
    /// The Kueue resource the guarantee is counted in. Default `nvidia.com/gpu`.
    #[tf(optional)]
    pub resource: Field<String>,
    /// Whole UTC days read, ending at the start of today (UTC). Default 14.
    #[tf(optional, validate = IntBetween { min: 1, max: 90 })]
    pub window_days: Field<i64>,
    /// The EKS cluster behind the contract's HyperPod cluster: Container Insights' `ClusterName`.
    #[tf(computed)]
    pub eks_cluster_name: Field<String>,
    /// Window start (RFC 3339, UTC).
    #[tf(computed)]
    pub start_time: Field<String>,
    /// Window end, exclusive (RFC 3339, UTC).
    #[tf(computed)]
    pub end_time: Field<String>,
    /// Each team's figures over the window, in `teams` order. Null where no datapoint.
    #[tf(computed, nested)]
    pub usage: Field<Vec<TeamUsageFigures>>,
    /// Each team and threshold whose measure crossed its bound, in team then threshold order.
    #[tf(computed, nested)]
    pub findings: Field<Vec<UsageFindingModel>>,
    #[tf(block)]
    pub threshold: Field<Vec<ThresholdBlock>>,
}

/// A contract monitoring signal.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SignalModel {
    /// Signal name.
    #[tf(required)]
    pub name: Field<String>,
    /// Who owns the signal.
    #[tf(required)]
    pub owner: Field<String>,
    /// What the owner does when it fires.
    #[tf(required)]
    pub response: Field<String>,
}

/// One team's figures.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TeamUsageFigures {
    /// Team name.
    #[tf(computed)]
    pub team: Field<String>,
    /// The team's Kueue ClusterQueue, `hyperpod-ns-<team>-clusterqueue`.
    #[tf(computed)]
    pub cluster_queue: Field<String>,
    /// Mean nominal quota (`kueue_cluster_queue_nominal_quota`) of `resource`: the guarantee.
    #[tf(computed)]
    pub guaranteed: Field<Number>,
    /// Mean usage (`kueue_cluster_queue_resource_usage`) of `resource` by admitted tasks.
    #[tf(computed)]
    pub used: Field<Number>,
    /// Highest hourly maximum of that usage.
    #[tf(computed)]
    pub peak: Field<Number>,
    /// Mean of each hour's usage beyond the guarantee.
    #[tf(computed)]
    pub borrowed: Field<Number>,
    /// Mean of each hour's guarantee left unused: capacity the team lent or left idle (Container Insights does not
    /// publish lending per queue).
    #[tf(computed)]
    pub unused_guarantee: Field<Number>,
    /// `used / guaranteed`; null when the guarantee is zero.
    #[tf(computed)]
    pub guarantee_utilization: Field<Number>,
    /// Mean of `kueue_pending_workloads`: tasks waiting for admission.
    #[tf(computed)]
    pub pending_tasks: Field<Number>,
    /// Highest hourly maximum of `kueue_pending_workloads`.
    #[tf(computed)]
    pub pending_tasks_peak: Field<Number>,
    /// Evictions by preemption over the window (`kueue_evicted_workloads_total`, `Reason = Preempted`, summed).
    #[tf(computed)]
    pub preempted_tasks: Field<Number>,
    /// Hours of the window with a nominal-quota datapoint.
    #[tf(computed)]
    pub hours_observed: Field<i64>,
}

/// A finding.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct UsageFindingModel {
    /// The contract signal the threshold reports to.
    #[tf(computed)]
    pub signal: Field<String>,
    /// Team name.
    #[tf(computed)]
    pub team: Field<String>,
    /// The measure that crossed its bound.
    #[tf(computed)]
    pub measure: Field<String>,
    /// The team's value of the measure.
    #[tf(computed)]
    pub observed: Field<Number>,
    /// `below` or `above`.
    #[tf(computed)]
    pub comparison: Field<String>,
    /// The bound it crossed.
    #[tf(computed)]
    pub threshold: Field<Number>,
    /// What crossing it means (the threshold's `meaning`).
    #[tf(computed)]
    pub meaning: Field<String>,
    /// The signal's owner, from the contract.
    #[tf(computed)]
    pub owner: Field<String>,
    /// The signal's response, from the contract.
    #[tf(computed)]
    pub response: Field<String>,
}

/// A bound on one measure, reported to one of the contract's monitoring signals.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ThresholdBlock {
    /// Name of a signal in `signals`: its owner and response go with the finding.
    #[tf(required)]
    pub signal: Field<String>,
    #[tf(required, validate = OneOf(&Measure::NAMES), description = Measure::description())]
    pub measure: Field<String>,
    /// A finding when the measure is below this.
    #[tf(optional)]
    pub below: Field<Number>,
    /// A finding when the measure is above this.
    #[tf(optional)]
    pub above: Field<Number>,
    /// What a finding means, e.g. "reserved capacity no longer reflects demand".
    #[tf(optional)]
    pub meaning: Field<String>,
}

/// A figure a threshold may compare: one of the usage attributes, named as the attribute is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    GuaranteeUtilization,
    Used,
    Peak,
    Borrowed,
    UnusedGuarantee,
    PendingTasks,
    PendingTasksPeak,
    PreemptedTasks,
}

type Usage = TeamUsageFigures;

impl Measure {
    /// Every measure with its name (the `usage` attribute it compares) and what crossing it means by default.
    pub const ALL: [(Measure, &'static str, &'static str); 8] = [
        (
            Measure::GuaranteeUtilization,
            Usage::GUARANTEE_UTILIZATION.name(),
            "the team's use of its guaranteed capacity (mean used / mean guaranteed)",
        ),
        (
            Measure::Used,
            Usage::USED.name(),
            "the capacity the team's admitted tasks held, on average",
        ),
        (
            Measure::Peak,
            Usage::PEAK.name(),
            "the most capacity the team's admitted tasks held in any hour",
        ),
        (
            Measure::Borrowed,
            Usage::BORROWED.name(),
            "the capacity the team held beyond its guarantee, on average",
        ),
        (
            Measure::UnusedGuarantee,
            Usage::UNUSED_GUARANTEE.name(),
            "the guaranteed capacity the team left to others, on average",
        ),
        (
            Measure::PendingTasks,
            Usage::PENDING_TASKS.name(),
            "the team's tasks waiting for admission, on average",
        ),
        (
            Measure::PendingTasksPeak,
            Usage::PENDING_TASKS_PEAK.name(),
            "the most tasks the team had waiting in any hour",
        ),
        (
            Measure::PreemptedTasks,
            Usage::PREEMPTED_TASKS.name(),
            "the team's tasks evicted by preemption over the window",
        ),
    ];

    /// The names a threshold's `measure` may take.
    pub const NAMES: [&'static str; 8] = {
        let mut names = [""; 8];
        let mut index = 0;
        while index < names.len() {
            names[index] = Measure::ALL[index].1;
            index += 1;
        }
        names
    };

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, known, _)| *known == name)
            .map(|(measure, _, _)| *measure)
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(measure, _, _)| *measure == self)
            .map_or("", |(_, name, _)| name)
    }

    /// What crossing the measure means when the threshold does not say.
    pub fn what(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(measure, _, _)| *measure == self)
            .map_or("", |(_, _, what)| what)
    }

    /// The `measure` argument's description: every measure and what it is.
    pub fn description() -> String {
        let each: Vec<String> = Self::ALL
            .iter()
            .map(|(_, name, what)| format!("`{name}` ({what})"))
            .collect();
        format!("What to compare: {}.", each.join(", "))
    }
}
