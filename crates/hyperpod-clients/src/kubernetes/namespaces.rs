//! Namespace reads and waits.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{KubeClient, KubeError, paths};
use crate::Stop;

pub const NAMESPACE: &str = "namespace";

/// The namespace object, or `None` if there is none.
pub async fn find_namespace(client: &KubeClient, name: &str) -> Result<Option<Value>, KubeError> {
    client.get(&paths::namespace(name)).await
}

/// `status.phase` of a namespace object (`Active`, `Terminating`).
pub fn phase(namespace: &Value) -> &str {
    namespace.pointer("/status/phase").and_then(Value::as_str).unwrap_or("")
}

/// Waits until the namespace exists and is `Active` (a namespace still terminating from an earlier delete, or
/// not yet visible, is waited out). Polls quickly at first, then at most every 5 seconds.
pub async fn wait_namespace(
    client: &KubeClient,
    name: &str,
    timeout: Duration,
    stop: &Stop,
) -> Result<Value, KubeError> {
    let started = Instant::now();
    let mut delay = Duration::from_millis(250);
    let mut stop = stop.clone();
    loop {
        let status = match find_namespace(client, name).await? {
            Some(namespace) if phase(&namespace) == "Active" => return Ok(namespace),
            Some(namespace) => phase(&namespace).to_string(),
            None => "absent".to_string(),
        };
        let waited = started.elapsed();
        if waited >= timeout {
            return Err(KubeError::Timeout {
                kind: NAMESPACE,
                name: name.to_string(),
                target: "Active",
                status,
                waited,
            });
        }
        let sleep = delay.min(timeout.saturating_sub(waited));
        tracing::debug!(kind = NAMESPACE, name, %status, ?sleep, "waiting");
        tokio::select! {
            () = tokio::time::sleep(sleep) => {}
            _ = stop.wait_for(|stopped| *stopped) => {
                return Err(KubeError::Stopped { kind: NAMESPACE, name: name.to_string(), status });
            }
        }
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}
