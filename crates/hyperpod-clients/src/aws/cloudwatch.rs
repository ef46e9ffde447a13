//! CloudWatch metrics: `get_metric_series` runs GetMetricData for a set of metric/statistic queries over one window
//! and returns each query's datapoints, following NextToken and splitting at the API's 500 queries per call.
//!
//! The SDK speaks Smithy RPC v2 CBOR to CloudWatch (`POST /service/GraniteServiceVersion20100801/operation/…`); the
//! sandbox answers the same protocol.

use std::collections::BTreeMap;

use aws_sdk_cloudwatch::Client;
use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat, ScanBy, StatusCode};
use aws_smithy_types::DateTime;

use super::{AwsError, api_error};

/// GetMetricData's limit on `MetricDataQueries` per request.
const MAX_QUERIES_PER_CALL: usize = 500;

/// One metric and statistic at one period: a GetMetricData `MetricStat` query.
#[derive(Clone, Debug)]
pub struct MetricQuery {
    /// Unique within a call: `^[a-z][a-zA-Z0-9_]*$`.
    pub id: String,
    pub namespace: &'static str,
    pub metric_name: &'static str,
    pub dimensions: Vec<(&'static str, String)>,
    /// `Average`, `Sum`, `Maximum`, …
    pub stat: &'static str,
    /// Seconds; a multiple of 60.
    pub period: i32,
}

/// A query's datapoints, oldest first: (epoch seconds, value).
pub type Series = Vec<(i64, f64)>;

/// Every query's datapoints in `[start, end)` (epoch seconds), keyed by query id. A query without data has an empty
/// series. A result that CloudWatch marks `Forbidden` or `InternalError` fails the whole read: partial figures would
/// read as low usage.
pub async fn get_metric_series(
    client: &Client,
    queries: &[MetricQuery],
    start: i64,
    end: i64,
) -> Result<BTreeMap<String, Series>, AwsError> {
    let mut series: BTreeMap<String, Series> = queries.iter().map(|q| (q.id.clone(), Vec::new())).collect();
    for chunk in queries.chunks(MAX_QUERIES_PER_CALL) {
        let mut next_token: Option<String> = None;
        loop {
            let output = client
                .get_metric_data()
                .set_metric_data_queries(Some(chunk.iter().map(to_sdk).collect()))
                .start_time(DateTime::from_secs(start))
                .end_time(DateTime::from_secs(end))
                .scan_by(ScanBy::TimestampAscending)
                .set_next_token(next_token.take())
                .send()
                .await
                .map_err(|err| api_error("GetMetricData", err))?;
            for result in output.metric_data_results() {
                let id = result.id().unwrap_or_default();
                if let Some(status @ (StatusCode::Forbidden | StatusCode::InternalError)) = result.status_code() {
                    let messages: Vec<&str> = result.messages().iter().filter_map(|m| m.value()).collect();
                    return Err(AwsError::Api {
                        operation: "GetMetricData",
                        code: status.as_str().into(),
                        message: format!("query {id}: {}", messages.join("; ")),
                    });
                }
                let points = series.entry(id.to_string()).or_default();
                points.extend(
                    result
                        .timestamps()
                        .iter()
                        .map(DateTime::secs)
                        .zip(result.values().iter().copied()),
                );
            }
            match output.next_token() {
                Some(token) if !token.is_empty() => next_token = Some(token.to_string()),
                _ => break,
            }
        }
    }
    for points in series.values_mut() {
        points.sort_by_key(|(at, _)| *at);
    }
    Ok(series)
}

fn to_sdk(query: &MetricQuery) -> MetricDataQuery {
    let dimensions = query
        .dimensions
        .iter()
        .map(|(name, value)| Dimension::builder().name(*name).value(value).build())
        .collect();
    let metric = Metric::builder()
        .namespace(query.namespace)
        .metric_name(query.metric_name)
        .set_dimensions(Some(dimensions))
        .build();
    MetricDataQuery::builder()
        .id(&query.id)
        .metric_stat(
            MetricStat::builder()
                .metric(metric)
                .period(query.period)
                .stat(query.stat)
                .build(),
        )
        .return_data(true)
        .build()
}
