//! The `hyperpod` provider: its configuration block and the registry of resources, data sources and functions.

mod settings;

use crate::client::HyperpodClient;

use std::sync::Arc;

use async_trait::async_trait;

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::list::ListResource;
use crate::protocol::plugin::PluginProvider;
use crate::protocol::resource::{DataSource, Function, Resource};
use crate::protocol::schema::Schema;
use crate::protocol::value::Value;

/// The provider's registry address, as users write it in `required_providers`.
pub const PROVIDER_ADDRESS: &str = "registry.terraform.io/hyperpod-governance/hyperpod";

/// Stateless between resources: what one resource knows of another comes from references in HCL or from AWS.
pub struct HyperpodProvider {
    schema: Schema,
}

impl Default for HyperpodProvider {
    fn default() -> Self {
        Self {
            schema: settings::schema(),
        }
    }
}

#[async_trait]
impl PluginProvider for HyperpodProvider {
    type Client = HyperpodClient;

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        settings::validate(config, diagnostics);
    }

    async fn configure(
        &self,
        config: &Value,
        terraform_version: &str,
    ) -> Result<(HyperpodClient, Diagnostics), Diagnostics> {
        tracing::debug!(terraform_version, "configuring the provider");
        let settings = settings::parse(config)?;
        let aws = crate::aws::config::connect(&settings.aws).await.map_err(|err| {
            Diagnostics::from(Diagnostic::error(
                AttributePath::root(),
                "Cannot configure the hyperpod provider",
                err.to_string(),
            ))
        })?;
        let client = HyperpodClient {
            aws,
            default_tags: settings.default_tags,
            strict: settings.strict,
            locks: crate::client::KeyedLocks::default(),
        };
        Ok((client, Diagnostics::new()))
    }

    fn resources(&self) -> Vec<Arc<dyn Resource<HyperpodClient>>> {
        vec![
            Arc::new(crate::resources::cluster_allocation::ClusterAllocationResource::default()),
            Arc::new(crate::resources::connection_contract::ConnectionContractResource::default()),
            Arc::new(crate::resources::domain_unit_policy_grant::DomainUnitPolicyGrantResource::default()),
            Arc::new(crate::resources::scheduling_policy::SchedulingPolicyResource::default()),
            Arc::new(crate::resources::tenant::TenantResource::default()),
            Arc::new(crate::resources::task_view_restriction::TaskViewRestrictionResource::default()),
            Arc::new(crate::resources::project_binding::ProjectBindingResource::default()),
        ]
    }

    fn data_sources(&self) -> Vec<Arc<dyn DataSource<HyperpodClient>>> {
        vec![
            Arc::new(crate::data_sources::cluster::ClusterDataSource::default()),
            Arc::new(crate::data_sources::team_usage::TeamUsageDataSource::default()),
        ]
    }

    fn list_resources(&self) -> Vec<Arc<dyn ListResource<HyperpodClient>>> {
        vec![
            Arc::new(crate::resources::tenant::TenantList::default()),
            Arc::new(crate::resources::task_view_restriction::RestrictionList::default()),
            Arc::new(crate::resources::project_binding::BindingList::default()),
            Arc::new(crate::resources::domain_unit_policy_grant::GrantList::default()),
        ]
    }

    fn functions(&self) -> Vec<Arc<dyn Function>> {
        vec![
            Arc::new(crate::functions::review_status::NextReviewDate::default()),
            Arc::new(crate::functions::review_status::ReviewStatusFunction::default()),
            Arc::new(crate::functions::team_namespace::TeamNamespace::default()),
        ]
    }
}
