//! The provider as the plugin serves it: its own schema and configuration, and the resources, data sources, list
//! resources and functions it registers.

use std::sync::Arc;

use async_trait::async_trait;

use super::diagnostics::Diagnostics;
use super::list::ListResource;
use super::resource::{DataSource, Function, Resource};
use super::schema::Schema;
use super::value::Value;

#[async_trait]
pub trait PluginProvider: Send + Sync + 'static {
    type Client: Send + Sync + 'static;
    fn schema(&self) -> &Schema;
    fn validate(&self, _config: &Value, _diagnostics: &mut Diagnostics) {}
    /// Builds the client from the provider block; warnings ride along with the client.
    async fn configure(
        &self,
        config: &Value,
        terraform_version: &str,
    ) -> Result<(Self::Client, Diagnostics), Diagnostics>;
    fn resources(&self) -> Vec<Arc<dyn Resource<Self::Client>>>;
    fn data_sources(&self) -> Vec<Arc<dyn DataSource<Self::Client>>>;
    fn functions(&self) -> Vec<Arc<dyn Function>>;
    /// What `terraform query` can list; each shares its name with a resource that has an identity schema.
    fn list_resources(&self) -> Vec<Arc<dyn ListResource<Self::Client>>> {
        Vec::new()
    }
}
