//! What `ConfigureProvider` hands every resource, data source and list resource: the cloud clients, and the provider
//! block's own options, which the clients know nothing of. It lives below the resources: the provider module builds
//! it and registers the resources; a resource never imports the provider module.

use std::collections::BTreeMap;
use std::ops::Deref;

use crate::aws::AwsClient;

pub struct HyperpodClient {
    pub aws: AwsClient,
    /// The provider's `default_tags`, merged under every taggable resource's own tags.
    pub default_tags: BTreeMap<String, String>,
    /// Governance warnings fail the plan (provider `strict`; a resource may also opt in).
    pub strict: bool,
}

/// The clients are what resources use most (`client.sagemaker`, `client.reads`...): they read through.
impl Deref for HyperpodClient {
    type Target = AwsClient;

    fn deref(&self) -> &AwsClient {
        &self.aws
    }
}
