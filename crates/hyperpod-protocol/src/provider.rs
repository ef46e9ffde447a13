//! The tfplugin6 `Provider` service: decodes Terraform's requests, calls the provider's resources, data sources and
//! functions, and encodes their answers. Protocol features we do not offer answer `Unimplemented`, which Terraform
//! tolerates because it only calls them when a configuration uses them.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::RwLock;
use tonic::{Request, Response, Status};

use super::caller;
use super::convert::{
    decode, diagnostics_to_proto, encode, function_to_proto, identity_data, identity_schema_to_proto, path_to_proto,
    schema_to_proto,
};
use super::deadline::{self, Deadline, Operation};
use super::deferred;
use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::list::{self, ListRequest, ListResource};
use super::plan::{
    plan_with_schema, private_with_digest, private_with_replaced, take_replaced, with_write_only, without_write_only,
    write_only_digest, write_only_moved,
};
use super::plugin::PluginProvider;
use super::proto::tfplugin6 as pb;
use super::refusal;
use super::resource::{Applied, DataSource, Function, ImportTarget, OperationContext, Resource};
use super::signals::Signals;
use super::value::Value;

type Client<P> = <P as PluginProvider>::Client;
/// The ListResource stream, as tonic's generated trait names it.
type ListStream =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<pb::list_resource::Event, Status>> + Send + 'static>>;

pub struct ProviderService<P: PluginProvider> {
    provider: Arc<P>,
    resources: BTreeMap<&'static str, Arc<dyn Resource<Client<P>>>>,
    data_sources: BTreeMap<&'static str, Arc<dyn DataSource<Client<P>>>>,
    functions: BTreeMap<&'static str, Arc<dyn Function>>,
    list_resources: BTreeMap<&'static str, Arc<dyn ListResource<Client<P>>>>,
    client: Arc<RwLock<Option<Arc<Client<P>>>>>,
    signals: Signals,
    /// Built once: Terraform asks for the schema in every provider process it starts.
    schema_response: pb::get_provider_schema::Response,
}

impl<P: PluginProvider> ProviderService<P> {
    pub fn new(provider: P, signals: Signals) -> Self {
        let resources: BTreeMap<_, _> = provider.resources().into_iter().map(|r| (r.type_name(), r)).collect();
        let data_sources: BTreeMap<_, _> = provider
            .data_sources()
            .into_iter()
            .map(|d| (d.type_name(), d))
            .collect();
        let functions: BTreeMap<_, _> = provider.functions().into_iter().map(|f| (f.name(), f)).collect();
        let list_resources: BTreeMap<_, _> = provider
            .list_resources()
            .into_iter()
            .map(|l| (l.type_name(), l))
            .collect();
        let schema_response = pb::get_provider_schema::Response {
            provider: Some(schema_to_proto(provider.schema())),
            resource_schemas: resources
                .iter()
                .map(|(name, r)| (name.to_string(), schema_to_proto(r.schema())))
                .collect(),
            data_source_schemas: data_sources
                .iter()
                .map(|(name, d)| (name.to_string(), schema_to_proto(d.schema())))
                .collect(),
            functions: functions
                .iter()
                .map(|(name, f)| (name.to_string(), function_to_proto(f.signature())))
                .collect(),
            list_resource_schemas: list_resources
                .iter()
                .map(|(name, l)| (name.to_string(), schema_to_proto(l.schema())))
                .collect(),
            server_capabilities: Some(server_capabilities()),
            ..Default::default()
        };
        Self {
            provider: Arc::new(provider),
            resources,
            data_sources,
            functions,
            list_resources,
            client: Arc::new(RwLock::new(None)),
            signals,
            schema_response,
        }
    }

    /// The tfplugin6 schema response, also used to write the docs.
    pub fn schema_response(&self) -> &pb::get_provider_schema::Response {
        &self.schema_response
    }

    fn context(&self) -> OperationContext {
        OperationContext::stopped_by(self.signals.stop_receiver())
    }

    fn resource(&self, type_name: &str) -> Result<&Arc<dyn Resource<Client<P>>>, Diagnostics> {
        self.resources
            .get(type_name)
            .ok_or_else(|| unknown_type("resource", type_name))
    }

    fn lister(&self, type_name: &str) -> Result<&Arc<dyn ListResource<Client<P>>>, Diagnostics> {
        self.list_resources
            .get(type_name)
            .ok_or_else(|| unknown_type("list resource", type_name))
    }

    /// The state an import of `identity` followed by a refresh records: what `-generate-config-out` writes and the
    /// import it generates then finds.
    async fn imported(
        &self,
        resource: &dyn Resource<Client<P>>,
        client: &Client<P>,
        identity: &Value,
    ) -> Result<Value, Diagnostics> {
        let write_only = resource.schema().block.write_only_names();
        let imported = without_write_only(
            resource
                .import(client, ImportTarget::Identity(identity.clone()))
                .await?,
            &write_only,
        );
        let read = resource.read(client, &imported, &self.context()).await?;
        Ok(without_write_only(read.unwrap_or(imported), &write_only))
    }

    async fn configured_client(&self) -> Result<Arc<Client<P>>, Diagnostics> {
        self.client.read().await.clone().ok_or_else(|| {
            Diagnostics::error(
                AttributePath::root(),
                "Provider not configured",
                "Terraform called the provider before configuring it; this is a bug in the caller.",
            )
        })
    }
}

/// An operation that ran out of time says so first, whatever it was doing. One abandoned after its grace (`None`)
/// returns what a killed provider leaves: a create nothing (the next apply adopts what it wrote), an update or a
/// delete the prior state.
fn out_of_time(outcome: Option<Applied>, deadline: Option<Deadline>, prior: &Value) -> Applied {
    let timed_out = |deadline: Deadline| {
        Diagnostic::error(
            AttributePath::attr(deadline::BLOCK).push_attr(deadline.operation.name()),
            "Operation timed out",
            deadline.explanation(),
        )
    };
    match (outcome, deadline) {
        (Some(applied), Some(deadline)) if deadline.has_passed() && applied.diagnostics.has_errors() => {
            let mut diagnostics = Diagnostics(vec![timed_out(deadline)]);
            diagnostics.extend(applied.diagnostics);
            Applied::failed(applied.state, diagnostics)
        }
        (Some(applied), _) => applied,
        (None, deadline) => {
            let diagnostics = Diagnostics(deadline.map(timed_out).into_iter().collect());
            Applied::failed((!prior.is_null()).then(|| prior.clone()), diagnostics)
        }
    }
}

fn server_capabilities() -> pb::ServerCapabilities {
    pb::ServerCapabilities {
        plan_destroy: true,
        get_provider_schema_optional: true,
        move_resource_state: false,
        generate_resource_config: false,
    }
}

fn unknown_type(kind: &str, type_name: &str) -> Diagnostics {
    Diagnostics::error(
        AttributePath::root(),
        format!("Unknown {kind} type"),
        format!("This provider has no {kind} type {type_name:?}."),
    )
}

// ---- the service ----------------------------------------------------------------------------------------------

#[tonic::async_trait]
impl<P: PluginProvider> pb::provider_server::Provider for ProviderService<P> {
    async fn get_metadata(
        &self,
        _: Request<pb::get_metadata::Request>,
    ) -> Result<Response<pb::get_metadata::Response>, Status> {
        use pb::get_metadata as m;
        Ok(Response::new(m::Response {
            server_capabilities: Some(server_capabilities()),
            resources: self
                .resources
                .keys()
                .map(|n| m::ResourceMetadata {
                    type_name: n.to_string(),
                })
                .collect(),
            data_sources: self
                .data_sources
                .keys()
                .map(|n| m::DataSourceMetadata {
                    type_name: n.to_string(),
                })
                .collect(),
            functions: self
                .functions
                .keys()
                .map(|n| m::FunctionMetadata { name: n.to_string() })
                .collect(),
            list_resources: self
                .list_resources
                .keys()
                .map(|n| m::ListResourceMetadata {
                    type_name: n.to_string(),
                })
                .collect(),
            ..Default::default()
        }))
    }

    async fn get_provider_schema(
        &self,
        _: Request<pb::get_provider_schema::Request>,
    ) -> Result<Response<pb::get_provider_schema::Response>, Status> {
        Ok(Response::new(self.schema_response.clone()))
    }

    async fn get_resource_identity_schemas(
        &self,
        _: Request<pb::get_resource_identity_schemas::Request>,
    ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
        let identity_schemas = self
            .resources
            .iter()
            .filter_map(|(name, r)| {
                r.identity_schema()
                    .map(|s| (name.to_string(), identity_schema_to_proto(s)))
            })
            .collect();
        Ok(Response::new(pb::get_resource_identity_schemas::Response {
            identity_schemas,
            diagnostics: Vec::new(),
        }))
    }

    async fn validate_provider_config(
        &self,
        request: Request<pb::validate_provider_config::Request>,
    ) -> Result<Response<pb::validate_provider_config::Response>, Status> {
        let request = request.into_inner();
        let schema = self.provider.schema();
        let diagnostics = match decode(request.config.as_ref(), &schema.value_type()) {
            Ok(config) => {
                let mut diagnostics = Diagnostics::new();
                schema.block.validate(&config, &AttributePath::root(), &mut diagnostics);
                self.provider.validate(&config, &mut diagnostics);
                diagnostics
            }
            Err(diagnostics) => diagnostics,
        };
        Ok(Response::new(pb::validate_provider_config::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn validate_resource_config(
        &self,
        request: Request<pb::validate_resource_config::Request>,
    ) -> Result<Response<pb::validate_resource_config::Response>, Status> {
        let request = request.into_inner();
        let diagnostics = (|| {
            let resource = self.resource(&request.type_name)?;
            let config = decode(request.config.as_ref(), &resource.schema().value_type())?;
            let mut diagnostics = Diagnostics::new();
            resource
                .schema()
                .block
                .validate(&config, &AttributePath::root(), &mut diagnostics);
            let write_only_allowed = request
                .client_capabilities
                .is_some_and(|capabilities| capabilities.write_only_attributes_allowed);
            if !write_only_allowed {
                write_only_unsupported(&resource.schema().block, &config, &mut diagnostics);
            }
            resource.validate(&config, &mut diagnostics);
            Ok::<_, Diagnostics>(diagnostics)
        })()
        .unwrap_or_else(|diagnostics| diagnostics);
        Ok(Response::new(pb::validate_resource_config::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn validate_data_resource_config(
        &self,
        request: Request<pb::validate_data_resource_config::Request>,
    ) -> Result<Response<pb::validate_data_resource_config::Response>, Status> {
        let request = request.into_inner();
        let diagnostics = (|| {
            let data_source = self
                .data_sources
                .get(request.type_name.as_str())
                .ok_or_else(|| unknown_type("data source", &request.type_name))?;
            let config = decode(request.config.as_ref(), &data_source.schema().value_type())?;
            let mut diagnostics = Diagnostics::new();
            data_source
                .schema()
                .block
                .validate(&config, &AttributePath::root(), &mut diagnostics);
            data_source.validate(&config, &mut diagnostics);
            Ok::<_, Diagnostics>(diagnostics)
        })()
        .unwrap_or_else(|diagnostics| diagnostics);
        Ok(Response::new(pb::validate_data_resource_config::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn upgrade_resource_state(
        &self,
        request: Request<pb::upgrade_resource_state::Request>,
    ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
        let request = request.into_inner();
        let result = (|| {
            let resource = self.resource(&request.type_name)?;
            let json = request.raw_state.map(|raw| raw.json).unwrap_or_default();
            if json.is_empty() {
                return Err(Diagnostics::error(
                    AttributePath::root(),
                    "Unsupported state format",
                    "The state was written in the pre-0.12 flatmap format, which this provider does not read.",
                ));
            }
            let upgraded = resource.upgrade_state(request.version, &json)?;
            encode(&upgraded, &resource.schema().value_type())
        })();
        let (upgraded_state, diagnostics) = split(result);
        Ok(Response::new(pb::upgrade_resource_state::Response {
            upgraded_state,
            diagnostics,
        }))
    }

    async fn upgrade_resource_identity(
        &self,
        request: Request<pb::upgrade_resource_identity::Request>,
    ) -> Result<Response<pb::upgrade_resource_identity::Response>, Status> {
        let request = request.into_inner();
        let result = (|| {
            let resource = self.resource(&request.type_name)?;
            let schema = resource
                .identity_schema()
                .ok_or_else(|| unknown_type("resource identity", &request.type_name))?;
            let json = request.raw_identity.map(|raw| raw.json).unwrap_or_default();
            let identity = Value::decode_json(&json, &schema.value_type()).map_err(|err| {
                Diagnostics::error(AttributePath::root(), "Unreadable resource identity", err.to_string())
            })?;
            Ok(pb::ResourceIdentityData {
                identity_data: Some(encode(&identity, &schema.value_type())?),
            })
        })();
        let (upgraded_identity, diagnostics) = split(result);
        Ok(Response::new(pb::upgrade_resource_identity::Response {
            upgraded_identity,
            diagnostics,
        }))
    }

    async fn configure_provider(
        &self,
        request: Request<pb::configure_provider::Request>,
    ) -> Result<Response<pb::configure_provider::Response>, Status> {
        let request = request.into_inner();
        let diagnostics = caller::scope(caller::PROVIDER, async {
            let config = decode(request.config.as_ref(), &self.provider.schema().value_type())?;
            let (client, warnings) = self.provider.configure(&config, &request.terraform_version).await?;
            *self.client.write().await = Some(Arc::new(client));
            Ok::<_, Diagnostics>(warnings)
        })
        .await
        .unwrap_or_else(|diagnostics| diagnostics);
        Ok(Response::new(pb::configure_provider::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn read_resource(
        &self,
        request: Request<pb::read_resource::Request>,
    ) -> Result<Response<pb::read_resource::Response>, Status> {
        let request = request.into_inner();
        let private = request.private.clone();
        let result = caller::scope(request.type_name.clone(), async {
            let resource = self.resource(&request.type_name)?;
            let ty = resource.schema().value_type();
            let current = decode(request.current_state.as_ref(), &ty)?;
            let client = self.configured_client().await?;
            let mut warnings = Diagnostics::new();
            let new_state = if let Some(state) = resource.read(&client, &current, &self.context()).await? {
                state
            } else {
                warnings.push(Diagnostic::warning(
                    AttributePath::root(),
                    "Object no longer exists",
                    format!(
                        "The {} recorded in state was not found, so it was removed from state; the next apply \
                         creates it again if it is still configured.",
                        request.type_name
                    ),
                ));
                Value::Null
            };
            // Terraform rejects a read that returns a value for a write-only attribute.
            let new_state = without_write_only(new_state, &resource.schema().block.write_only_names());
            let identity = (!new_state.is_null()).then(|| resource.identity(&new_state)).flatten();
            Ok::<_, Diagnostics>((
                encode(&new_state, &ty)?,
                identity_data(identity, resource.identity_schema()),
                warnings,
            ))
        })
        .await;
        let response = match result {
            Ok((new_state, new_identity, warnings)) => pb::read_resource::Response {
                new_state: Some(new_state),
                diagnostics: diagnostics_to_proto(warnings),
                private,
                deferred: None,
                new_identity,
            },
            Err(diagnostics) => pb::read_resource::Response {
                // On error Terraform keeps the prior state; hand it back unchanged.
                new_state: request.current_state,
                diagnostics: diagnostics_to_proto(diagnostics),
                private,
                ..Default::default()
            },
        };
        Ok(Response::new(response))
    }

    async fn plan_resource_change(
        &self,
        request: Request<pb::plan_resource_change::Request>,
    ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
        let request = request.into_inner();
        let result = caller::scope(request.type_name.clone(), async {
            let resource = self.resource(&request.type_name)?;
            let ty = resource.schema().value_type();
            let proposed = decode(request.proposed_new_state.as_ref(), &ty)?;
            if proposed.is_null() {
                // Destroy: nothing to plan but the absence of the object.
                return Ok((
                    encode(&Value::Null, &ty)?,
                    Vec::new(),
                    Diagnostics::new(),
                    None,
                    request.prior_private.clone(),
                ));
            }
            let prior = decode(request.prior_state.as_ref(), &ty)?;
            let config = decode(request.config.as_ref(), &ty)?;
            let prior = (!prior.is_null()).then_some(prior);
            let block = &resource.schema().block;
            let digest = write_only_digest(block, &config);
            // The create half of a replacement: what the first plan kept of the object it replaces.
            let (replaced, prior_private) = take_replaced(&deferred::without_deferred(&request.prior_private));
            let mut change = plan_with_schema(block, config, prior, proposed);
            change.replaced = match (&change.prior, replaced) {
                (None, Some(json)) => Value::from_json(&json, &ty).ok(),
                _ => None,
            };
            change.write_only_changed = !change.write_only.is_empty()
                && change.prior.is_some()
                && write_only_moved(digest.as_deref(), &prior_private);
            let client = self.configured_client().await?;
            resource.modify_plan(&client, &mut change).await?;
            let (diagnostics, refusals) = change.settle(block);
            let identity = change
                .planned
                .is_wholly_known()
                .then(|| resource.identity(&change.planned))
                .flatten();
            let planned_identity = identity_data(identity, resource.identity_schema()).or(request.prior_identity);
            // Apply records the digest of the arguments it ran with (`apply_resource_change`).
            let planned_private = match digest {
                Some(digest) if !change.write_only.is_empty() => private_with_digest(&prior_private, &digest),
                _ => prior_private.clone(),
            };
            // A replacement: Terraform plans its create next, handing it this private data.
            let planned_private = match &change.prior {
                Some(prior) if !change.requires_replace.is_empty() => {
                    prior.to_json(&ty).map_or(planned_private.clone(), |json| {
                        private_with_replaced(&planned_private, &json)
                    })
                }
                _ => planned_private,
            };
            // Apply enforces what this plan refused (`refusal`): Terraform hands it this private data.
            let planned_private = refusal::private_with_refusals(&planned_private, &refusals, &prior_private);
            // Apply makes the checks this plan could not (`deferred`).
            let planned_private = deferred::private_with_deferred(&planned_private, &change.deferred_checks);
            Ok::<_, Diagnostics>((
                encode(&change.planned, &ty)?,
                change.requires_replace.iter().map(path_to_proto).collect(),
                diagnostics,
                planned_identity,
                planned_private,
            ))
        })
        .await;
        let response = match result {
            Ok((planned_state, requires_replace, warnings, planned_identity, planned_private)) => {
                pb::plan_resource_change::Response {
                    planned_state: Some(planned_state),
                    requires_replace,
                    planned_private,
                    diagnostics: diagnostics_to_proto(warnings),
                    planned_identity,
                    ..Default::default()
                }
            }
            Err(diagnostics) => pb::plan_resource_change::Response {
                diagnostics: diagnostics_to_proto(diagnostics),
                ..Default::default()
            },
        };
        Ok(Response::new(response))
    }

    async fn apply_resource_change(
        &self,
        request: Request<pb::apply_resource_change::Request>,
    ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
        let request = request.into_inner();
        let result = caller::scope(request.type_name.clone(), async {
            let resource = self.resource(&request.type_name)?;
            let ty = resource.schema().value_type();
            let prior = decode(request.prior_state.as_ref(), &ty)?;
            let planned = decode(request.planned_state.as_ref(), &ty)?;
            let config = decode(request.config.as_ref(), &ty)?;
            let write_only = resource.schema().block.write_only_names();
            // The plan holds null for write-only arguments: create and update read them from the configuration,
            // merged into the planned value they are given.
            let arguments = with_write_only(&planned, &config, &write_only);
            // What the plan refused is refused now, before the resource writes anything (a destroy never is).
            let refused = if planned.is_null() {
                Diagnostics::new()
            } else {
                refusal::recorded_refusals(&request.planned_private)
            };
            if !refused.is_empty() {
                let kept = if prior.is_null() { Value::Null } else { prior.clone() };
                let identity = (!kept.is_null()).then(|| resource.identity(&kept)).flatten();
                return Ok::<_, Diagnostics>((
                    encode(&kept, &ty)?,
                    identity_data(identity, resource.identity_schema()),
                    Diagnostics(refused.into_iter().map(refusal::apply_error).collect()),
                    refusal::kept_private(&request.planned_private),
                ));
            }
            let client = self.configured_client().await?;
            let (operation, timed) = match (prior.is_null(), planned.is_null()) {
                (_, true) => (Operation::Delete, &prior),
                (true, false) => (Operation::Create, &planned),
                (false, false) => (Operation::Update, &planned),
            };
            let deadline = resource
                .schema()
                .block
                .timeouts
                .as_ref()
                .and_then(|timeouts| Deadline::for_operation(timeouts, operation, timed));
            let (shared, prior, arguments) = (&*client, &prior, &arguments);
            let context = OperationContext {
                deadline,
                // What the plan left to apply (`deferred`): a delete checks nothing.
                deferred_checks: match operation {
                    Operation::Delete => Vec::new(),
                    _ => deferred::recorded_deferred(&request.planned_private),
                },
                ..self.context()
            };
            let outcome = context
                .run(|context| async move {
                    match operation {
                        // A failed delete keeps the object in state (what remains of it), so nothing is forgotten.
                        Operation::Delete => resource.destroy(shared, prior, &context).await,
                        Operation::Create => resource.create(shared, arguments, &context).await,
                        Operation::Update => match resource.update(shared, prior, arguments, &context).await {
                            // A failed update that cannot say what exists keeps the prior state.
                            applied if applied.state.is_none() => {
                                Applied::failed(Some(prior.clone()), applied.diagnostics)
                            }
                            applied => applied,
                        },
                    }
                })
                .await;
            let applied = out_of_time(outcome, deadline, prior);
            let new_state = without_write_only(applied.state.unwrap_or(Value::Null), &write_only);
            resource.after_apply(shared, [prior, &planned, &new_state]);
            let identity = (!new_state.is_null()).then(|| resource.identity(&new_state)).flatten();
            // The arguments this apply ran with (known now, even when the plan did not know them).
            let planned_private = deferred::without_deferred(&refusal::without_refusals(&request.planned_private));
            let private = match write_only_digest(&resource.schema().block, &config) {
                Some(digest) if !write_only.is_empty() && !new_state.is_null() => {
                    private_with_digest(&planned_private, &digest)
                }
                _ => planned_private,
            };
            Ok::<_, Diagnostics>((
                encode(&new_state, &ty)?,
                identity_data(identity, resource.identity_schema()),
                applied.diagnostics,
                private,
            ))
        })
        .await;
        let response = match result {
            Ok((new_state, new_identity, diagnostics, private)) => pb::apply_resource_change::Response {
                new_state: Some(new_state),
                private,
                diagnostics: diagnostics_to_proto(diagnostics),
                legacy_type_system: false,
                new_identity,
            },
            Err(diagnostics) => pb::apply_resource_change::Response {
                new_state: request.prior_state,
                diagnostics: diagnostics_to_proto(diagnostics),
                ..Default::default()
            },
        };
        Ok(Response::new(response))
    }

    async fn import_resource_state(
        &self,
        request: Request<pb::import_resource_state::Request>,
    ) -> Result<Response<pb::import_resource_state::Response>, Status> {
        let request = request.into_inner();
        let result = caller::scope(request.type_name.clone(), async {
            let resource = self.resource(&request.type_name)?;
            let target = match request.identity.and_then(|identity| identity.identity_data) {
                Some(data) => {
                    let schema = resource.identity_schema().ok_or_else(|| {
                        Diagnostics::error(
                            AttributePath::root(),
                            "Import by identity not supported",
                            format!("{} has no resource identity; import it by ID.", request.type_name),
                        )
                    })?;
                    ImportTarget::Identity(decode(Some(&data), &schema.value_type())?)
                }
                None => ImportTarget::Id(request.id.clone()),
            };
            let client = self.configured_client().await?;
            let state = without_write_only(
                resource.import(&client, target).await?,
                &resource.schema().block.write_only_names(),
            );
            let identity = resource.identity(&state);
            Ok::<_, Diagnostics>(pb::import_resource_state::ImportedResource {
                type_name: request.type_name.clone(),
                state: Some(encode(&state, &resource.schema().value_type())?),
                private: Vec::new(),
                identity: identity_data(identity, resource.identity_schema()),
            })
        })
        .await;
        let (imported, diagnostics) = split(result);
        Ok(Response::new(pb::import_resource_state::Response {
            imported_resources: imported.into_iter().collect(),
            diagnostics,
            deferred: None,
        }))
    }

    async fn move_resource_state(
        &self,
        request: Request<pb::move_resource_state::Request>,
    ) -> Result<Response<pb::move_resource_state::Response>, Status> {
        let request = request.into_inner();
        let diagnostics = Diagnostics::error(
            AttributePath::root(),
            "Move not supported",
            format!(
                "{} cannot be moved from {} ({}); remove the old object from state and import it instead.",
                request.target_type_name, request.source_type_name, request.source_provider_address
            ),
        );
        Ok(Response::new(pb::move_resource_state::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
            ..Default::default()
        }))
    }

    async fn read_data_source(
        &self,
        request: Request<pb::read_data_source::Request>,
    ) -> Result<Response<pb::read_data_source::Response>, Status> {
        let request = request.into_inner();
        let result = caller::scope(caller::data_source(&request.type_name), async {
            let data_source = self
                .data_sources
                .get(request.type_name.as_str())
                .ok_or_else(|| unknown_type("data source", &request.type_name))?;
            let ty = data_source.schema().value_type();
            let config = decode(request.config.as_ref(), &ty)?;
            let client = self.configured_client().await?;
            let state = data_source.read(&client, &config, &self.context()).await?;
            encode(&state, &ty)
        })
        .await;
        let (state, diagnostics) = split(result);
        Ok(Response::new(pb::read_data_source::Response {
            state,
            diagnostics,
            deferred: None,
        }))
    }

    async fn validate_list_resource_config(
        &self,
        request: Request<pb::validate_list_resource_config::Request>,
    ) -> Result<Response<pb::validate_list_resource_config::Response>, Status> {
        let request = request.into_inner();
        let diagnostics = self
            .lister(&request.type_name)
            .and_then(|l| list::config(l.as_ref(), request.config.as_ref()))
            .map_or_else(|diagnostics| diagnostics, |(_, diagnostics)| diagnostics);
        Ok(Response::new(pb::validate_list_resource_config::Response {
            diagnostics: diagnostics_to_proto(diagnostics),
        }))
    }

    async fn list_resource(
        &self,
        request: Request<pb::list_resource::Request>,
    ) -> Result<Response<ListStream>, Status> {
        let request = request.into_inner();
        let include_resource = request.include_resource_object;
        let limit = list::limit(request.limit);
        // Listing reads what the resource reads: the calls are attributed to the resource type.
        let events = caller::scope(request.type_name.clone(), async {
            let (lister, resource) = match (self.lister(&request.type_name), self.resource(&request.type_name)) {
                (Ok(lister), Ok(resource)) => (lister, resource),
                (Err(diagnostics), _) | (_, Err(diagnostics)) => return vec![list::failure(diagnostics)],
            };
            let results = async {
                let (config, diagnostics) = list::config(lister.as_ref(), request.config.as_ref())?;
                if diagnostics.has_errors() {
                    return Err(diagnostics);
                }
                let client = self.configured_client().await?;
                let request = ListRequest {
                    config,
                    include_resource,
                    limit,
                };
                let mut results = lister.list(&client, &request).await?;
                results.truncate(limit);
                if include_resource {
                    for listed in results.iter_mut().filter(|l| l.resource_object.is_none()) {
                        listed.resource_object =
                            Some(self.imported(resource.as_ref(), &client, &listed.identity).await?);
                    }
                }
                Ok::<_, Diagnostics>(results)
            }
            .await;
            list::events(resource.as_ref(), results, include_resource, limit)
        })
        .await;
        let stream = futures::stream::iter(events.into_iter().map(Ok::<_, Status>));
        Ok(Response::new(Box::pin(stream)))
    }

    async fn get_functions(
        &self,
        _: Request<pb::get_functions::Request>,
    ) -> Result<Response<pb::get_functions::Response>, Status> {
        Ok(Response::new(pb::get_functions::Response {
            functions: self.schema_response.functions.clone(),
            diagnostics: Vec::new(),
        }))
    }

    async fn call_function(
        &self,
        request: Request<pb::call_function::Request>,
    ) -> Result<Response<pb::call_function::Response>, Status> {
        let request = request.into_inner();
        let function_error = |text: String, argument: Option<usize>| pb::call_function::Response {
            result: None,
            error: Some(pb::FunctionError {
                text,
                function_argument: argument.map(|index| index as i64),
            }),
        };
        let Some(function) = self.functions.get(request.name.as_str()) else {
            return Ok(Response::new(function_error(
                format!("no function named {:?}", request.name),
                None,
            )));
        };
        let signature = function.signature();
        let mut arguments = Vec::with_capacity(request.arguments.len());
        for (index, (argument, parameter)) in request.arguments.iter().zip(&signature.parameters).enumerate() {
            match decode(Some(argument), &parameter.ty) {
                Ok(value) => arguments.push(value),
                Err(_) => {
                    return Ok(Response::new(function_error(
                        format!("argument {:?} could not be decoded", parameter.name),
                        Some(index),
                    )));
                }
            }
        }
        let response = match function.call(&arguments) {
            Ok(result) => match encode(&result, &signature.return_type) {
                Ok(result) => pb::call_function::Response {
                    result: Some(result),
                    error: None,
                },
                Err(_) => function_error("the function produced an unencodable result".to_string(), None),
            },
            Err(err) => function_error(err.text, err.argument),
        };
        Ok(Response::new(response))
    }

    async fn stop_provider(
        &self,
        _: Request<pb::stop_provider::Request>,
    ) -> Result<Response<pb::stop_provider::Response>, Status> {
        self.signals.request_stop();
        Ok(Response::new(pb::stop_provider::Response { error: String::new() }))
    }
}

/// A write-only argument set for a Terraform that cannot take one (before 1.11): it would be stored in state, so
/// it is an error at the argument.
fn write_only_unsupported(block: &super::schema::Block, config: &Value, diagnostics: &mut Diagnostics) {
    for name in block.write_only_names() {
        if config.get_attr(name).is_some_and(|value| !value.is_null()) {
            diagnostics.push(Diagnostic::error(
                AttributePath::attr(name),
                "Write-only argument not supported by this Terraform",
                format!(
                    "`{name}` is a write-only argument: it needs Terraform or OpenTofu 1.11 or later, which keep it out                      of plans and state. Upgrade Terraform or OpenTofu."
                ),
            ));
        }
    }
}

/// Splits a result into the optional value and the diagnostics a response carries.
fn split<T>(result: Result<T, Diagnostics>) -> (Option<T>, Vec<pb::Diagnostic>) {
    match result {
        Ok(value) => (Some(value), Vec::new()),
        Err(diagnostics) => (None, diagnostics_to_proto(diagnostics)),
    }
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
