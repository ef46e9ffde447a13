//! Which resource, data source or function an RPC is running for, as a task-local the layers below may read (the
//! AWS clients name it in a request header so calls can be attributed; see `aws::permissions`). The protocol layer
//! only names the caller; it knows nothing about what the name is used for.

use std::future::Future;

tokio::task_local! {
    static CALLER: String;
}

/// The caller name of the provider's own configure step.
pub const PROVIDER: &str = "provider";

/// The caller name of a data source: `data.<type>`, as Terraform addresses it.
pub fn data_source(type_name: &str) -> String {
    format!("data.{type_name}")
}

/// Runs `future` with `caller` as the current caller.
pub async fn scope<F: Future>(caller: impl Into<String>, future: F) -> F::Output {
    CALLER.scope(caller.into(), future).await
}

/// The current caller, if this task runs inside a `scope`.
pub fn current() -> Option<String> {
    CALLER.try_with(Clone::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_caller_is_visible_inside_its_scope_only() {
        assert_eq!(current(), None);
        let inner = scope("hyperpod_tenant", async { current() }).await;
        assert_eq!(inner.as_deref(), Some("hyperpod_tenant"));
        assert_eq!(
            scope(data_source("hyperpod_cluster"), async { current() })
                .await
                .as_deref(),
            Some("data.hyperpod_cluster")
        );
        assert_eq!(current(), None);
    }
}
