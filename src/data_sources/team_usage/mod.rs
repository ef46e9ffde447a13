//! `hyperpod_team_usage`: each team's use of its guarantee over a window, from the Kueue metrics Container Insights
//! publishes to CloudWatch, and findings for the contract's monitoring signals against the user's thresholds.
//!
//! The window is whole UTC days ending at the start of the current UTC day, so every plan of a day reads the same
//! datapoints and agrees (CloudWatch keeps 1-hour datapoints for 455 days).

mod figures;
mod model;

use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use crate::aws::sagemaker::ClusterOrchestrator;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::Orchestrator;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::{DataSource, OperationContext};
use crate::protocol::schema::Schema;
use crate::protocol::value::{Number, Value};
use crate::resources::governance_objects::ContractGovernance;
use figures::{Bound, Measure, TeamFigures, Threshold, UsageSignal};
use model::{SignalModel, TeamUsageFigures, TeamUsageModel, ThresholdBlock, UsageFindingModel};

pub use figures::NAMESPACE;

const DAY: i64 = 86_400;
const DEFAULT_WINDOW_DAYS: i64 = 14;
const DEFAULT_RESOURCE: &str = "nvidia.com/gpu";

pub struct TeamUsageDataSource {
    schema: Schema,
}

impl Default for TeamUsageDataSource {
    fn default() -> Self {
        Self {
            schema: Schema {
                version: 0,
                block: TeamUsageModel::block(),
            },
        }
    }
}

#[async_trait]
impl DataSource<HyperpodClient> for TeamUsageDataSource {
    fn type_name(&self) -> &'static str {
        "hyperpod_team_usage"
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        let usage = match TeamUsageModel::decode(config) {
            Ok(usage) => usage,
            Err(problems) => return diagnostics.extend(problems),
        };
        if let Some(orchestrator) = contract_orchestrator(&usage.contract)
            && orchestrator.parse() != Ok(Orchestrator::Eks)
        {
            diagnostics.push(Diagnostic::invalid_value(
                TeamUsageModel::CONTRACT.path(),
                format!("a contract on a {orchestrator} cluster"),
                "Container Insights publishes Kueue metrics only for EKS-orchestrated HyperPod clusters",
                "pass the governance of a contract on an EKS-orchestrated cluster",
            ));
        }
        // Unknown until the contract is planned: checked at read.
        let signal_names: Option<Vec<String>> = match &usage.signals {
            Field::Known(signals) => signals.iter().map(|s| s.name.as_known().cloned()).collect(),
            _ => None,
        };
        for (index, entry) in usage.threshold.as_known().into_iter().flatten().enumerate() {
            check_threshold(
                entry,
                TeamUsageModel::THRESHOLD.path().index(index),
                signal_names.as_deref(),
                diagnostics,
            );
        }
    }

    async fn read(&self, client: &HyperpodClient, config: &Value, _: &OperationContext) -> Result<Value, Diagnostics> {
        let mut usage = TeamUsageModel::decode(config)?;
        let signals: Vec<UsageSignal> = (usage.signals.as_known().into_iter().flatten())
            .map(|s: &SignalModel| UsageSignal {
                name: s.name.as_known().cloned().unwrap_or_default(),
                owner: s.owner.as_known().cloned().unwrap_or_default(),
                response: s.response.as_known().cloned().unwrap_or_default(),
            })
            .collect();
        let mut diagnostics = Diagnostics::new();
        let names: Vec<String> = signals.iter().map(|s| s.name.clone()).collect();
        let thresholds: Vec<Threshold> = (usage.threshold.as_known().into_iter().flatten())
            .enumerate()
            .filter_map(|(index, entry)| {
                check_threshold(
                    entry,
                    TeamUsageModel::THRESHOLD.path().index(index),
                    Some(names.as_slice()),
                    &mut diagnostics,
                )
            })
            .collect();
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        let teams = teams(&usage)?;
        let cluster_name = contract_cluster_name(&usage.contract).unwrap_or_default();
        let eks_cluster = eks_cluster_name(client, &cluster_name).await?;
        let resource = (usage.resource.as_known().cloned()).unwrap_or_else(|| DEFAULT_RESOURCE.to_string());
        let window_days = usage.window_days.as_known().copied().unwrap_or(DEFAULT_WINDOW_DAYS);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let end = now - now.rem_euclid(DAY);
        let start = end - window_days * DAY;

        let queries: Vec<_> = teams
            .iter()
            .enumerate()
            .flat_map(|(n, team)| figures::queries(n, &eks_cluster, team, &resource))
            .collect();
        let series = crate::aws::cloudwatch::get_metric_series(&client.cloudwatch, &queries, start, end)
            .await
            .map_err(|err| {
                err.diagnostics(
                    TeamUsageModel::CONTRACT.path(),
                    "Reading the teams' Kueue metrics failed",
                )
            })?;
        let measured: Vec<(String, TeamFigures)> = teams
            .iter()
            .enumerate()
            .map(|(n, team)| (team.clone(), figures::figures(n, &series)))
            .collect();
        let window = Window {
            start,
            end,
            resource: &resource,
            eks_cluster: &eks_cluster,
        };
        unobserved_teams(&usage, &measured, &window)?;
        let findings = figures::findings(&measured, &thresholds, &signals);
        // Arguments come back as configured (Terraform refuses a data source that changes them); defaults show in
        // the computed attributes.
        usage.eks_cluster_name = Field::Known(eks_cluster.clone());
        usage.start_time = Field::Known(rfc3339(start));
        usage.end_time = Field::Known(rfc3339(end));
        usage.usage = Field::Known(measured.iter().map(|(team, f)| team_figures(team, f)).collect());
        usage.findings = Field::Known(findings.iter().map(finding).collect());
        Ok(usage.encode())
    }
}

/// The window read and where: what a missing datapoint's error names.
struct Window<'a> {
    start: i64,
    end: i64,
    resource: &'a str,
    eks_cluster: &'a str,
}

/// An error naming the teams CloudWatch has no nominal-quota datapoint for: their usage cannot be judged.
fn unobserved_teams(
    usage: &TeamUsageModel,
    measured: &[(String, TeamFigures)],
    window: &Window<'_>,
) -> Result<(), Diagnostics> {
    let unobserved: Vec<&str> = measured
        .iter()
        .filter(|(_, f)| f.hours_observed == 0)
        .map(|(team, _)| team.as_str())
        .collect();
    if unobserved.is_empty() {
        return Ok(());
    }
    let Window {
        start,
        end,
        resource,
        eks_cluster,
    } = window;
    let at = if usage.teams == Field::Null {
        TeamUsageModel::CONTRACT.path()
    } else {
        TeamUsageModel::TEAMS.path()
    };
    Err(Diagnostic::invalid_value(
        at,
        format!("{unobserved:?}"),
        &format!(
            "CloudWatch has no `{}` datapoint for these teams' ClusterQueues (ClusterName {eks_cluster:?}, \
             Resource {resource:?}) in namespace {NAMESPACE} between {} and {}: their usage cannot be judged",
            figures::NOMINAL_QUOTA,
            rfc3339(*start),
            rfc3339(*end)
        ),
        "check the team names and `resource`; enable Kueue metrics with `kueue_container_insights = true` in \
         the amazon-cloudwatch-observability add-on (v2.4.0-eksbuild.1 or later)",
    )
    .into())
}

/// The contract's `governance.orchestrator` (`eks`, `slurm`), when known.
fn contract_orchestrator(contract: &Field<ContractGovernance>) -> Option<String> {
    contract.as_known()?.orchestrator.as_known().cloned()
}

/// The contract's `governance.cluster_name`, when known.
fn contract_cluster_name(contract: &Field<ContractGovernance>) -> Option<String> {
    contract.as_known()?.cluster_name.as_known().cloned()
}

/// A threshold block's problems, at its path; the threshold when it has none. `signals` is None while unknown.
fn check_threshold(
    entry: &ThresholdBlock,
    at: AttributePath,
    signals: Option<&[String]>,
    diagnostics: &mut Diagnostics,
) -> Option<Threshold> {
    let signal = entry.signal.as_known();
    if let (Some(signal), Some(signals)) = (signal, signals)
        && !signals.contains(signal)
    {
        diagnostics.push(Diagnostic::invalid_value(
            at.push_attr(ThresholdBlock::SIGNAL.name()),
            format!("{signal:?}"),
            &format!("the contract has no monitoring signal of that name (it has {signals:?})"),
            "name one of the contract's `monitoring { signal { name } }`, or add the signal to the contract",
        ));
    }
    let number = |bound: &Field<Number>| bound.as_known().map(Number::as_f64);
    let bound = match (number(&entry.below), number(&entry.above)) {
        (Some(below), None) => Some(Bound::Below(below)),
        (None, Some(above)) => Some(Bound::Above(above)),
        (below, _) => {
            let both = below.is_some();
            let unknown = [&entry.below, &entry.above].iter().any(|v| **v == Field::Unknown);
            if !unknown {
                diagnostics.push(Diagnostic::invalid_value(
                    at.clone(),
                    if both {
                        "both `below` and `above`"
                    } else {
                        "neither `below` nor `above`"
                    },
                    "a threshold is one bound on one measure",
                    "set exactly one of `below` and `above` (write two threshold blocks for a band)",
                ));
            }
            None
        }
    };
    let measure = entry.measure.as_known().and_then(|m| Measure::parse(m))?;
    Some(Threshold {
        signal: signal?.clone(),
        measure,
        bound: bound?,
        meaning: entry.meaning.as_known().cloned(),
    })
}

/// `teams`, else the teams of the contract's `hyperpod-ns-<team>` namespaces.
fn teams(usage: &TeamUsageModel) -> Result<Vec<String>, Diagnostics> {
    if usage.teams != Field::Null {
        return Ok(usage.teams.as_known().cloned().unwrap_or_default());
    }
    let namespaces = (usage.contract.as_known()).and_then(|contract| contract.eks_namespaces.as_known());
    let teams: Vec<String> = (namespaces.into_iter().flatten())
        .filter_map(|ns| crate::names::team_of_namespace(ns).map(str::to_string))
        .collect();
    if teams.is_empty() {
        return Err(Diagnostic::invalid_value(
            TeamUsageModel::TEAMS.path(),
            "no teams",
            "the contract lists no `hyperpod-ns-<team>` namespace, so there is no team to read",
            "set `teams`, or list the teams' namespaces in the contract's `eks_namespaces`",
        )
        .into());
    }
    Ok(teams)
}

/// Container Insights names the EKS cluster; the contract names the HyperPod cluster in front of it.
async fn eks_cluster_name(client: &HyperpodClient, cluster_name: &str) -> Result<String, Diagnostics> {
    let cluster = client.cluster(cluster_name).await.map_err(|err| {
        err.diagnostics(
            TeamUsageModel::CONTRACT.path(),
            "Reading the contract's HyperPod cluster failed",
        )
    })?;
    match &cluster.orchestrator {
        ClusterOrchestrator::Eks { eks_cluster_arn } => {
            Ok(eks_cluster_arn.rsplit('/').next().unwrap_or_default().to_string())
        }
        ClusterOrchestrator::Slurm => Err(Diagnostic::invalid_value(
            TeamUsageModel::CONTRACT.path(),
            format!("{cluster_name:?} (Slurm)"),
            "Container Insights publishes Kueue metrics only for EKS-orchestrated HyperPod clusters",
            "pass the governance of a contract on an EKS-orchestrated cluster",
        )
        .into()),
    }
}

fn number(value: Option<f64>) -> Field<Number> {
    value.and_then(Number::from_f64).into()
}

fn team_figures(team: &str, f: &TeamFigures) -> TeamUsageFigures {
    TeamUsageFigures {
        team: Field::Known(team.to_string()),
        cluster_queue: Field::Known(figures::cluster_queue(team)),
        guaranteed: number(f.guaranteed),
        used: number(f.used),
        peak: number(f.peak),
        borrowed: number(f.borrowed),
        unused_guarantee: number(f.unused_guarantee),
        guarantee_utilization: number(f.guarantee_utilization),
        pending_tasks: number(f.pending_tasks),
        pending_tasks_peak: number(f.pending_tasks_peak),
        preempted_tasks: number(f.preempted_tasks),
        hours_observed: Field::Known(f.hours_observed),
    }
}

fn finding(f: &figures::UsageFinding) -> UsageFindingModel {
    UsageFindingModel {
        signal: Field::Known(f.signal.clone()),
        team: Field::Known(f.team.clone()),
        measure: Field::Known(f.measure.name().to_string()),
        observed: number(Some(f.observed)),
        comparison: Field::Known(f.comparison.to_string()),
        threshold: number(Some(f.threshold)),
        meaning: Field::Known(f.meaning.clone()),
        owner: Field::Known(f.owner.clone()),
        response: Field::Known(f.response.clone()),
    }
}

/// RFC 3339 of a whole-day epoch (the window's bounds are midnights UTC).
fn rfc3339(epoch: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(epoch)
        .map(|t| format!("{}T00:00:00Z", t.date()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threshold(signal: &str, measure: &str, below: Option<f64>, above: Option<f64>) -> ThresholdBlock {
        ThresholdBlock {
            signal: Field::Known(signal.into()),
            measure: Field::Known(measure.into()),
            below: number(below),
            above: number(above),
            meaning: Field::Null,
        }
    }

    #[test]
    fn a_threshold_naming_no_contract_signal_is_an_error_at_its_signal() {
        let mut diagnostics = Diagnostics::new();
        let signals = ["team-utilization".to_string()];
        let at = AttributePath::attr("threshold").index(1);
        check_threshold(
            &threshold("team-starvation", "preempted_tasks", None, Some(10.0)),
            at.clone(),
            Some(&signals[..]),
            &mut diagnostics,
        );
        assert!(diagnostics.has_errors());
        let diagnostic = diagnostics.iter().next().expect("one diagnostic");
        assert_eq!(diagnostic.path, at.push_attr("signal"));
        assert!(diagnostic.detail.contains("team-utilization"), "{}", diagnostic.detail);
    }

    #[test]
    fn a_threshold_is_exactly_one_bound() {
        for (below, above) in [(None, None), (Some(0.3), Some(0.9))] {
            let mut diagnostics = Diagnostics::new();
            let at = AttributePath::attr("threshold").index(0);
            let entry = threshold("s", "used", below, above);
            assert!(check_threshold(&entry, at.clone(), Some(&["s".to_string()][..]), &mut diagnostics).is_none());
            assert_eq!(diagnostics.iter().next().map(|d| d.path.clone()), Some(at));
        }
        let mut diagnostics = Diagnostics::new();
        let entry = threshold("s", "used", Some(0.3), None);
        let found = check_threshold(&entry, AttributePath::root(), None, &mut diagnostics);
        assert_eq!(found.map(|t| t.bound), Some(Bound::Below(0.3)));
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn teams_default_to_the_contracts_team_namespaces() {
        let usage = |namespaces: Vec<&str>| TeamUsageModel {
            contract: Field::Known(ContractGovernance {
                eks_namespaces: Field::Known(namespaces.into_iter().map(str::to_string).collect()),
                ..ContractGovernance::default()
            }),
            ..TeamUsageModel::default()
        };
        let some = usage(vec!["hyperpod-ns-research", "kube-system"]);
        assert_eq!(teams(&some).ok(), Some(vec!["research".to_string()]));
        assert!(teams(&usage(vec![])).is_err());
    }
}
