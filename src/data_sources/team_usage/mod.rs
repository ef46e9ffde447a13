//! `hyperpod_team_usage`: each team's use of its guarantee over a window, from the Kueue metrics Container Insights
//! publishes to CloudWatch, and findings for the contract's monitoring signals against the user's thresholds.
//!
//! The window is whole UTC days ending at the start of the current UTC day, so every plan of a day reads the same
//! datapoints and agrees (CloudWatch keeps 1-hour datapoints for 455 days).

mod figures;

use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use crate::aws::sagemaker::ClusterOrchestrator;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{elements, integer, object, string, strings, text};
use crate::protocol::resource::{DataSource, OperationContext};
use crate::protocol::schema::{Attribute, Block, NestedBlock, Nesting, Schema};
use crate::protocol::validators::{IntBetween, OneOf};
use crate::protocol::value::{Number, Type, Value};
use figures::{Bound, TeamFigures, Threshold, UsageSignal};

pub use figures::{MEASURES, NAMESPACE};

const DAY: i64 = 86_400;
const DEFAULT_WINDOW_DAYS: i64 = 14;
const DEFAULT_RESOURCE: &str = "nvidia.com/gpu";
const MEASURE_NAMES: &[&str] = &[
    "guarantee_utilization",
    "used",
    "peak",
    "borrowed",
    "unused_guarantee",
    "pending_tasks",
    "pending_tasks_peak",
    "preempted_tasks",
];

pub struct TeamUsageDataSource {
    schema: Schema,
}

impl Default for TeamUsageDataSource {
    fn default() -> Self {
        let signal = vec![
            Attribute::string("name").required().describe("Signal name."),
            Attribute::string("owner").required().describe("Who owns the signal."),
            Attribute::string("response")
                .required()
                .describe("What the owner does when it fires."),
        ];
        let number = |name, text: &str| Attribute::number(name).computed().describe(text.to_string());
        let team = vec![
            Attribute::string("team").computed().describe("Team name."),
            Attribute::string("cluster_queue")
                .computed()
                .describe("The team's Kueue ClusterQueue, `hyperpod-ns-<team>-clusterqueue`."),
            number(
                "guaranteed",
                "Mean nominal quota (`kueue_cluster_queue_nominal_quota`) of `resource`: the guarantee.",
            ),
            number(
                "used",
                "Mean usage (`kueue_cluster_queue_resource_usage`) of `resource` by admitted tasks.",
            ),
            number("peak", "Highest hourly maximum of that usage."),
            number("borrowed", "Mean of each hour's usage beyond the guarantee."),
            number(
                "unused_guarantee",
                "Mean of each hour's guarantee left unused: capacity the team lent or left idle (Container Insights \
                 does not publish lending per queue).",
            ),
            number(
                "guarantee_utilization",
                "`used / guaranteed`; null when the guarantee is zero.",
            ),
            number(
                "pending_tasks",
                "Mean of `kueue_pending_workloads`: tasks waiting for admission.",
            ),
            number(
                "pending_tasks_peak",
                "Highest hourly maximum of `kueue_pending_workloads`.",
            ),
            number(
                "preempted_tasks",
                "Evictions by preemption over the window (`kueue_evicted_workloads_total`, `Reason = Preempted`, summed).",
            ),
            number("hours_observed", "Hours of the window with a nominal-quota datapoint."),
        ];
        let finding = vec![
            Attribute::string("signal")
                .computed()
                .describe("The contract signal the threshold reports to."),
            Attribute::string("team").computed().describe("Team name."),
            Attribute::string("measure")
                .computed()
                .describe("The measure that crossed its bound."),
            Attribute::number("observed")
                .computed()
                .describe("The team's value of the measure."),
            Attribute::string("comparison")
                .computed()
                .describe("`below` or `above`."),
            Attribute::number("threshold")
                .computed()
                .describe("The bound it crossed."),
            Attribute::string("meaning")
                .computed()
                .describe("What crossing it means (the threshold's `meaning`)."),
            Attribute::string("owner")
                .computed()
                .describe("The signal's owner, from the contract."),
            Attribute::string("response")
                .computed()
                .describe("The signal's response, from the contract."),
        ];
        let threshold = Block::new("A bound on one measure, reported to one of the contract's monitoring signals.")
            .attribute(
                Attribute::string("signal")
                    .required()
                    .describe("Name of a signal in `signals`: its owner and response go with the finding."),
            )
            .attribute(
                Attribute::string("measure")
                    .required()
                    .describe(format!(
                        "What to compare: {}.",
                        MEASURES
                            .iter()
                            .map(|(name, what)| format!("`{name}` ({what})"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .validate(OneOf(MEASURE_NAMES)),
            )
            .attribute(
                Attribute::number("below")
                    .optional()
                    .describe("A finding when the measure is below this."),
            )
            .attribute(
                Attribute::number("above")
                    .optional()
                    .describe("A finding when the measure is above this."),
            )
            .attribute(
                Attribute::string("meaning")
                    .optional()
                    .describe("What a finding means, e.g. \"reserved capacity no longer reflects demand\"."),
            );
        Self {
            schema: Schema {
                version: 0,
                block: Block::new(
                    "Reads each team's use of its guaranteed capacity over a window, from the Kueue metrics that the \
                     amazon-cloudwatch-observability EKS add-on publishes to CloudWatch, and reports findings for \
                     the contract's monitoring signals against the thresholds you set.",
                )
                .attribute(
                    Attribute::new("contract", crate::resources::connection_contract::governance_type())
                        .required()
                        .describe(
                            "The contract whose cluster is read: `hyperpod_connection_contract.<name>.governance`. \
                             Its cluster must be EKS-orchestrated.",
                        ),
                )
                .attribute(Attribute::nested("signals", Nesting::List, signal).required().describe(
                    "The contract's monitoring signals: `hyperpod_connection_contract.<name>.monitoring.signal`.",
                ))
                .attribute(
                    Attribute::new("teams", Type::List(Box::new(Type::String)))
                        .optional()
                        .describe(
                            "Teams to read. Default: the teams of the contract's `eks_namespaces` \
                             (`hyperpod-ns-<team>`).",
                        ),
                )
                .attribute(
                    Attribute::string("resource")
                        .optional()
                        .describe("The Kueue resource the guarantee is counted in. Default `nvidia.com/gpu`."),
                )
                .attribute(
                    Attribute::number("window_days")
                        .optional()
                        .describe("Whole UTC days read, ending at the start of today (UTC). Default 14.")
                        .validate(IntBetween { min: 1, max: 90 }),
                )
                .attribute(Attribute::string("eks_cluster_name").computed().describe(
                    "The EKS cluster behind the contract's HyperPod cluster: Container Insights' `ClusterName`.",
                ))
                .attribute(
                    Attribute::string("start_time")
                        .computed()
                        .describe("Window start (RFC 3339, UTC)."),
                )
                .attribute(
                    Attribute::string("end_time")
                        .computed()
                        .describe("Window end, exclusive (RFC 3339, UTC)."),
                )
                .attribute(
                    Attribute::nested("usage", Nesting::List, team)
                        .computed()
                        .describe("Each team's figures over the window, in `teams` order. Null where no datapoint."),
                )
                .attribute(
                    Attribute::nested("findings", Nesting::List, finding)
                        .computed()
                        .describe(
                            "Each team and threshold whose measure crossed its bound, in team then threshold order.",
                        ),
                )
                .block(NestedBlock::list("threshold", threshold)),
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
        if let Some(contract) = config.get_attr("contract")
            && let Some(Value::String(orchestrator)) = contract.get_attr("orchestrator")
            && orchestrator != "eks"
        {
            diagnostics.push(Diagnostic::invalid_value(
                AttributePath::attr("contract"),
                format!("a contract on a {orchestrator} cluster"),
                "Container Insights publishes Kueue metrics only for EKS-orchestrated HyperPod clusters",
                "pass the governance of a contract on an EKS-orchestrated cluster",
            ));
        }
        let signal_names: Option<Vec<String>> = match config.get_attr("signals") {
            Some(Value::List(items))
                if items
                    .iter()
                    .all(|s| matches!(s.get_attr("name"), Some(Value::String(_)))) =>
            {
                Some(items.iter().filter_map(|s| string(s, "name")).collect())
            }
            _ => None, // unknown until the contract is planned: checked at read
        };
        for (index, entry) in elements(config, "threshold").iter().enumerate() {
            check_threshold(
                entry,
                AttributePath::attr("threshold").index(index),
                signal_names.as_deref(),
                diagnostics,
            );
        }
    }

    async fn read(&self, client: &HyperpodClient, config: &Value, _: &OperationContext) -> Result<Value, Diagnostics> {
        let contract = config.get_attr("contract").cloned().unwrap_or(Value::Null);
        let signals: Vec<UsageSignal> = elements(config, "signals")
            .iter()
            .map(|s| UsageSignal {
                name: string(s, "name").unwrap_or_default(),
                owner: string(s, "owner").unwrap_or_default(),
                response: string(s, "response").unwrap_or_default(),
            })
            .collect();
        let mut diagnostics = Diagnostics::new();
        let names: Vec<String> = signals.iter().map(|s| s.name.clone()).collect();
        let thresholds: Vec<Threshold> = elements(config, "threshold")
            .iter()
            .enumerate()
            .filter_map(|(index, entry)| {
                check_threshold(
                    entry,
                    AttributePath::attr("threshold").index(index),
                    Some(names.as_slice()),
                    &mut diagnostics,
                )
            })
            .collect();
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        let teams = teams(config, &contract)?;
        let cluster_name = string(&contract, "cluster_name").unwrap_or_default();
        let eks_cluster = eks_cluster_name(client, &cluster_name).await?;
        let resource = string(config, "resource").unwrap_or_else(|| DEFAULT_RESOURCE.to_string());
        let window_days = integer(config, "window_days").unwrap_or(DEFAULT_WINDOW_DAYS);
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
                    AttributePath::attr("contract"),
                    "Reading the teams' Kueue metrics failed",
                )
            })?;
        let measured: Vec<(String, TeamFigures)> = teams
            .iter()
            .enumerate()
            .map(|(n, team)| (team.clone(), figures::figures(n, &series)))
            .collect();
        let unobserved: Vec<&str> = measured
            .iter()
            .filter(|(_, f)| f.hours_observed == 0)
            .map(|(team, _)| team.as_str())
            .collect();
        if !unobserved.is_empty() {
            return Err(Diagnostic::invalid_value(
                AttributePath::attr(if config.get_attr("teams").is_some_and(|t| !t.is_null()) {
                    "teams"
                } else {
                    "contract"
                }),
                format!("{unobserved:?}"),
                &format!(
                    "CloudWatch has no `{}` datapoint for these teams' ClusterQueues (ClusterName {eks_cluster:?}, \
                     Resource {resource:?}) in namespace {NAMESPACE} between {} and {}: their usage cannot be judged",
                    figures::NOMINAL_QUOTA,
                    rfc3339(start),
                    rfc3339(end)
                ),
                "check the team names and `resource`; enable Kueue metrics with `kueue_container_insights = true` in \
                 the amazon-cloudwatch-observability add-on (v2.4.0-eksbuild.1 or later)",
            )
            .into());
        }
        let findings = figures::findings(&measured, &thresholds, &signals);
        // Arguments come back as configured (Terraform refuses a data source that changes them); defaults show in
        // the computed attributes.
        let argument = |name| config.get_attr(name).cloned().unwrap_or(Value::Null);
        Ok(object([
            ("contract", contract),
            ("signals", argument("signals")),
            ("teams", argument("teams")),
            ("resource", argument("resource")),
            ("window_days", argument("window_days")),
            ("threshold", argument("threshold")),
            ("eks_cluster_name", text(&eks_cluster)),
            ("start_time", text(rfc3339(start))),
            ("end_time", text(rfc3339(end))),
            (
                "usage",
                Value::List(measured.iter().map(|(team, f)| team_value(team, f)).collect()),
            ),
            ("findings", Value::List(findings.iter().map(finding_value).collect())),
        ]))
    }
}

/// A threshold block's problems, at its path; the threshold when it has none. `signals` is None while unknown.
fn check_threshold(
    entry: &Value,
    at: AttributePath,
    signals: Option<&[String]>,
    diagnostics: &mut Diagnostics,
) -> Option<Threshold> {
    let signal = string(entry, "signal");
    if let (Some(signal), Some(signals)) = (&signal, signals)
        && !signals.contains(signal)
    {
        diagnostics.push(Diagnostic::invalid_value(
            at.push_attr("signal"),
            format!("{signal:?}"),
            &format!("the contract has no monitoring signal of that name (it has {signals:?})"),
            "name one of the contract's `monitoring { signal { name } }`, or add the signal to the contract",
        ));
    }
    let number = |name| match entry.get_attr(name) {
        Some(Value::Number(n)) => Some(n.as_f64()),
        _ => None,
    };
    let bound = match (number("below"), number("above")) {
        (Some(below), None) => Some(Bound::Below(below)),
        (None, Some(above)) => Some(Bound::Above(above)),
        (below, _) => {
            let both = below.is_some();
            let unknown = [entry.get_attr("below"), entry.get_attr("above")]
                .iter()
                .any(|v| matches!(v, Some(Value::Unknown)));
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
    let measure = string(entry, "measure").filter(|m| figures::is_measure(m))?;
    Some(Threshold {
        signal: signal?,
        measure,
        bound: bound?,
        meaning: string(entry, "meaning"),
    })
}

/// `teams`, else the teams of the contract's `hyperpod-ns-<team>` namespaces.
fn teams(config: &Value, contract: &Value) -> Result<Vec<String>, Diagnostics> {
    if config.get_attr("teams").is_some_and(|t| !t.is_null()) {
        return Ok(strings(config, "teams"));
    }
    let teams: Vec<String> = strings(contract, "eks_namespaces")
        .iter()
        .filter_map(|ns| crate::names::team_of_namespace(ns).map(str::to_string))
        .collect();
    if teams.is_empty() {
        return Err(Diagnostic::invalid_value(
            AttributePath::attr("teams"),
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
            AttributePath::attr("contract"),
            "Reading the contract's HyperPod cluster failed",
        )
    })?;
    match &cluster.orchestrator {
        ClusterOrchestrator::Eks { eks_cluster_arn } => {
            Ok(eks_cluster_arn.rsplit('/').next().unwrap_or_default().to_string())
        }
        ClusterOrchestrator::Slurm => Err(Diagnostic::invalid_value(
            AttributePath::attr("contract"),
            format!("{cluster_name:?} (Slurm)"),
            "Container Insights publishes Kueue metrics only for EKS-orchestrated HyperPod clusters",
            "pass the governance of a contract on an EKS-orchestrated cluster",
        )
        .into()),
    }
}

fn number(value: Option<f64>) -> Value {
    value.and_then(Number::from_f64).map_or(Value::Null, Value::Number)
}

fn team_value(team: &str, f: &TeamFigures) -> Value {
    object([
        ("team", text(team)),
        ("cluster_queue", text(figures::cluster_queue(team))),
        ("guaranteed", number(f.guaranteed)),
        ("used", number(f.used)),
        ("peak", number(f.peak)),
        ("borrowed", number(f.borrowed)),
        ("unused_guarantee", number(f.unused_guarantee)),
        ("guarantee_utilization", number(f.guarantee_utilization)),
        ("pending_tasks", number(f.pending_tasks)),
        ("pending_tasks_peak", number(f.pending_tasks_peak)),
        ("preempted_tasks", number(f.preempted_tasks)),
        ("hours_observed", crate::protocol::object::int(f.hours_observed)),
    ])
}

fn finding_value(f: &figures::UsageFinding) -> Value {
    object([
        ("signal", text(&f.signal)),
        ("team", text(&f.team)),
        ("measure", text(&f.measure)),
        ("observed", number(Some(f.observed))),
        ("comparison", text(f.comparison)),
        ("threshold", number(Some(f.threshold))),
        ("meaning", text(&f.meaning)),
        ("owner", text(&f.owner)),
        ("response", text(&f.response)),
    ])
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

    fn threshold(signal: &str, measure: &str, below: Option<f64>, above: Option<f64>) -> Value {
        let bound = |v: Option<f64>| v.and_then(Number::from_f64).map_or(Value::Null, Value::Number);
        object([
            ("signal", text(signal)),
            ("measure", text(measure)),
            ("below", bound(below)),
            ("above", bound(above)),
            ("meaning", Value::Null),
        ])
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
        let contract = object([(
            "eks_namespaces",
            Value::List(vec![text("hyperpod-ns-research"), text("kube-system")]),
        )]);
        let config = object([("teams", Value::Null)]);
        assert_eq!(teams(&config, &contract).ok(), Some(vec!["research".to_string()]));
        let none = object([("eks_namespaces", Value::List(vec![]))]);
        assert!(teams(&config, &none).is_err());
    }
}
