//! What `ConfigureProvider` hands every resource, data source and list resource: the cloud clients, and the provider
//! block's own options, which the clients know nothing of. It lives below the resources: the provider module builds
//! it and registers the resources; a resource never imports the provider module.

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

use crate::aws::AwsClient;

pub struct HyperpodClient {
    pub aws: AwsClient,
    /// The provider's `default_tags`, merged under every taggable resource's own tags.
    pub default_tags: BTreeMap<String, String>,
    /// Governance warnings are refused at apply like errors (provider `strict`; a contract may also opt in).
    pub strict: bool,
    /// Work this process does one at a time per object (a project's membership removals).
    pub locks: KeyedLocks,
}

/// Async locks by key, made on first use and kept for the process (they are few: one per object that needs one).
#[derive(Default)]
pub struct KeyedLocks(Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

impl KeyedLocks {
    pub fn of(&self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        locks.entry(key.to_string()).or_default().clone()
    }
}

/// The clients are what resources use most (`client.sagemaker`, `client.reads`...): they read through.
impl Deref for HyperpodClient {
    type Target = AwsClient;

    fn deref(&self) -> &AwsClient {
        &self.aws
    }
}

/// The plugin protocol's deadline of the current create, update or delete (its `timeouts`), for the clients.
pub fn operation_deadline() -> hyperpod_clients::deadline::OperationDeadline {
    hyperpod_clients::deadline::OperationDeadline(|| {
        crate::protocol::deadline::current().map(|deadline| deadline.at.into_std())
    })
}
