//! A status waiter with explicit pending, target and failure states, a timeout and cancellation by StopProvider.

use std::future::Future;
use std::time::{Duration, Instant};

use super::AwsError;
use crate::Stop;

/// Retrying through IAM propagation is a wait of its own kind; it lives in `retry`.
pub use super::retry::{is_propagation_error, retry_propagation};

pub struct WaitSpec<'a> {
    pub kind: &'static str,
    pub id: &'a str,
    /// States that mean "keep waiting".
    pub pending: &'a [&'a str],
    /// States that mean "done".
    pub target: &'a [&'a str],
    pub timeout: Duration,
    /// How long after a write the object cannot have settled yet: the first read waits that long, instead of
    /// reading a state that is sure to be pending.
    pub settles_after: Duration,
}

/// SageMaker's task-governance objects (compute quotas, scheduler configs) take a few seconds after any write.
const SCHEDULER_RESOURCE_SETTLES_AFTER: Duration = Duration::from_secs(1);

/// Something a waiter can poll: its status and, for failure states, the service's reason.
pub trait HasStatus {
    fn status(&self) -> &str;
    fn failure_reason(&self) -> Option<&str>;
}

/// Polls `describe` until the status is a target state. Any state that is neither pending nor target is a failure
/// and surfaces the service's failure reason. Polls quickly at first, then back off to at most every 10 seconds.
pub async fn wait_for_status<T, F, Fut>(spec: WaitSpec<'_>, stop: &Stop, mut describe: F) -> Result<T, AwsError>
where
    T: HasStatus,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, AwsError>>,
{
    let started = Instant::now();
    let mut delay = Duration::from_millis(250);
    let mut stop = stop.clone();
    if !spec.settles_after.is_zero() {
        tokio::select! {
            () = tokio::time::sleep(spec.settles_after.min(spec.timeout)) => {}
            _ = stop.wait_for(|stopped| *stopped) => {
                return Err(AwsError::Stopped { kind: spec.kind, id: spec.id.to_string(), status: "unknown".to_string() });
            }
        }
    }
    loop {
        let current = describe().await?;
        let status = current.status().to_string();
        if spec.target.contains(&status.as_str()) {
            return Ok(current);
        }
        if !spec.pending.contains(&status.as_str()) {
            return Err(AwsError::Failed {
                kind: spec.kind,
                id: spec.id.to_string(),
                reason: current
                    .failure_reason()
                    .unwrap_or("the service gave no failure reason")
                    .to_string(),
                status,
            });
        }
        let waited = started.elapsed();
        if waited >= spec.timeout {
            return Err(AwsError::Timeout {
                kind: spec.kind,
                id: spec.id.to_string(),
                target: spec.target.join(" or "),
                status,
                waited,
            });
        }
        let sleep = delay.min(spec.timeout.saturating_sub(waited));
        tracing::debug!(kind = spec.kind, id = spec.id, %status, ?sleep, "waiting");
        tokio::select! {
            () = tokio::time::sleep(sleep) => {}
            _ = stop.wait_for(|stopped| *stopped) => {
                return Err(AwsError::Stopped { kind: spec.kind, id: spec.id.to_string(), status });
            }
        }
        delay = (delay * 2).min(Duration::from_secs(10));
    }
}

/// SageMaker's task-governance objects (cluster scheduler configs, compute quotas) share one status enum
/// (`SchedulerResourceStatus`): waits for a create or update to settle; failure states surface `FailureReason`.
pub async fn wait_scheduler_resource_ready<T, F, Fut>(
    kind: &'static str,
    id: &str,
    timeout: Duration,
    stop: &Stop,
    describe: F,
) -> Result<T, AwsError>
where
    T: HasStatus,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, AwsError>>,
{
    let spec = WaitSpec {
        kind,
        id,
        pending: &["Creating", "Updating"],
        target: &["Created", "Updated"],
        timeout,
        settles_after: SCHEDULER_RESOURCE_SETTLES_AFTER,
    };
    wait_for_status(spec, stop, describe).await
}

/// Waits until a task-governance object is gone (`describe` reports `Deleted` as not found).
pub async fn wait_scheduler_resource_deleted<T, F, Fut>(
    kind: &'static str,
    id: &str,
    timeout: Duration,
    stop: &Stop,
    describe: F,
) -> Result<(), AwsError>
where
    T: HasStatus,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, AwsError>>,
{
    let spec = WaitSpec {
        kind,
        id,
        pending: &["Deleting", "Created", "Updated", "Creating", "Updating"],
        target: &[],
        timeout,
        settles_after: SCHEDULER_RESOURCE_SETTLES_AFTER,
    };
    match wait_for_status(spec, stop, describe).await {
        Ok(_) => Ok(()),
        Err(err) if err.is_not_found() => Ok(()),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Snapshot(&'static str, Option<&'static str>);
    impl HasStatus for Snapshot {
        fn status(&self) -> &str {
            self.0
        }
        fn failure_reason(&self) -> Option<&str> {
            self.1
        }
    }

    fn stop() -> (tokio::sync::watch::Sender<bool>, Stop) {
        tokio::sync::watch::channel(false)
    }

    fn spec(timeout: Duration) -> WaitSpec<'static> {
        WaitSpec {
            kind: "thing",
            id: "t-1",
            pending: &["Creating"],
            target: &["Created"],
            timeout,
            settles_after: Duration::ZERO,
        }
    }

    #[tokio::test]
    async fn waits_through_pending_states() {
        let (_sender, stop) = stop();
        let calls = Cell::new(0);
        let result = wait_for_status(spec(Duration::from_mins(1)), &stop, || {
            calls.set(calls.get() + 1);
            let status = if calls.get() < 3 { "Creating" } else { "Created" };
            async move { Ok::<_, AwsError>(Snapshot(status, None)) }
        })
        .await;
        assert!(result.is_ok());
        assert_eq!(calls.get(), 3);
    }

    #[tokio::test]
    async fn failure_states_surface_the_reason() {
        let (_sender, stop) = stop();
        let result = wait_for_status(spec(Duration::from_mins(1)), &stop, || async {
            Ok::<_, AwsError>(Snapshot("CreateFailed", Some("quota exceeded")))
        })
        .await;
        let err = result.err().unwrap();
        assert!(err.to_string().contains("CreateFailed"));
        assert!(err.to_string().contains("quota exceeded"));
    }

    #[tokio::test]
    async fn times_out_with_the_last_status() {
        let (_sender, stop) = stop();
        let result = wait_for_status(spec(Duration::from_millis(400)), &stop, || async {
            Ok::<_, AwsError>(Snapshot("Creating", None))
        })
        .await;
        assert!(matches!(result, Err(AwsError::Timeout { .. })));
    }

    #[tokio::test]
    async fn stop_provider_interrupts_the_wait() {
        let (sender, stop) = stop();
        sender.send_replace(true);
        let result = wait_for_status(spec(Duration::from_mins(10)), &stop, || async {
            Ok::<_, AwsError>(Snapshot("Creating", None))
        })
        .await;
        assert!(matches!(result, Err(AwsError::Stopped { .. })));
    }
}
