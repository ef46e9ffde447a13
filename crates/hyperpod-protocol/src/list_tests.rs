//! The list-resource RPCs (GetProviderSchema, GetMetadata, ValidateListResourceConfig, ListResource) against a fake
//! provider with one resource `fake_thing` (identity `name`) and its list resource (config `prefix`).

use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt as _;
use tonic::Request;

use super::convert::{decode, encode};
use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::list::{ListRequest, ListResource, Listed};
use super::object::{object, string, text};
use super::plan::set_attr;
use super::plugin::PluginProvider;
use super::proto::tfplugin6 as pb;
use super::proto::tfplugin6::provider_server::Provider as _;
use super::provider::ProviderService;
use super::resource::{Applied, DataSource, Function, ImportTarget, OperationContext, Resource};
use super::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, Schema};
use super::signals::Signals;
use super::value::{Type, Value};

const THING: &str = "fake_thing";

struct Thing {
    schema: Schema,
    identity: IdentitySchema,
}

impl Default for Thing {
    fn default() -> Self {
        Self {
            schema: Schema {
                version: 0,
                block: Block::new("A thing.")
                    .attribute(Attribute::string("name").required())
                    .attribute(Attribute::string("size").optional())
                    .attribute(Attribute::string("secret").optional().write_only())
                    .attribute(Attribute::string("id").computed()),
            },
            identity: IdentitySchema {
                version: 0,
                attributes: vec![IdentityAttribute {
                    name: "name",
                    ty: Type::String,
                    description: "The name.".into(),
                    required_for_import: true,
                }],
            },
        }
    }
}

#[async_trait]
impl Resource<()> for Thing {
    fn type_name(&self) -> &'static str {
        THING
    }
    fn schema(&self) -> &Schema {
        &self.schema
    }
    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }
    async fn create(&self, (): &(), planned: &Value, _: &OperationContext) -> Applied {
        Applied::ok(planned.clone())
    }
    /// Fills in what import leaves out, as a refresh does.
    async fn read(&self, (): &(), current: &Value, _: &OperationContext) -> Result<Option<Value>, Diagnostics> {
        let mut state = current.clone();
        let name = string(current, "name").unwrap_or_default();
        set_attr(&mut state, "size", text("large"));
        set_attr(&mut state, "id", text(format!("id-{name}")));
        Ok(Some(state))
    }
    async fn update(&self, (): &(), _: &Value, planned: &Value, _: &OperationContext) -> Applied {
        Applied::ok(planned.clone())
    }
    async fn delete(&self, (): &(), _: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        Ok(())
    }
    async fn import(&self, (): &(), target: ImportTarget) -> Result<Value, Diagnostics> {
        let ImportTarget::Identity(identity) = target else {
            return Err(Diagnostics::error(AttributePath::root(), "by identity only", ""));
        };
        let mut state = self.schema.block.null_value();
        set_attr(&mut state, "name", text(string(&identity, "name").unwrap_or_default()));
        // A write-only argument never reaches a result, whatever an import returns.
        set_attr(&mut state, "secret", text("hunter2"));
        Ok(state)
    }
    fn identity(&self, state: &Value) -> Option<Value> {
        Some(object([("name", text(string(state, "name")?))]))
    }
}

struct ThingList {
    schema: Schema,
}

impl Default for ThingList {
    fn default() -> Self {
        Self {
            schema: Schema {
                version: 0,
                block: Block::new("Finds things.").attribute(Attribute::string("prefix").required()),
            },
        }
    }
}

#[async_trait]
impl ListResource<()> for ThingList {
    fn type_name(&self) -> &'static str {
        THING
    }
    fn schema(&self) -> &Schema {
        &self.schema
    }
    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        if string(config, "prefix").as_deref() == Some("bad") {
            diagnostics.push(Diagnostic::error(
                AttributePath::attr("prefix"),
                "Bad prefix",
                "not that one",
            ));
        }
    }
    async fn list(&self, (): &(), request: &ListRequest) -> Result<Vec<Listed>, Diagnostics> {
        let prefix = string(&request.config, "prefix").unwrap_or_default();
        if prefix == "denied" {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Listing failed",
                "access denied",
            ));
        }
        Ok(["a", "b", "c"]
            .iter()
            .map(|n| Listed {
                identity: object([("name", text(format!("{prefix}{n}")))]),
                display_name: format!("{prefix}{n} (not governed)"),
                resource_object: None,
            })
            .collect())
    }
}

struct Fake;

#[async_trait]
impl PluginProvider for Fake {
    type Client = ();
    fn schema(&self) -> &Schema {
        static SCHEMA: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| Schema {
            version: 0,
            block: Block::new("Fake."),
        })
    }
    async fn configure(&self, _: &Value, _: &str) -> Result<((), Diagnostics), Diagnostics> {
        Ok(((), Diagnostics::new()))
    }
    fn resources(&self) -> Vec<Arc<dyn Resource<()>>> {
        vec![Arc::new(Thing::default())]
    }
    fn data_sources(&self) -> Vec<Arc<dyn DataSource<()>>> {
        Vec::new()
    }
    fn functions(&self) -> Vec<Arc<dyn Function>> {
        Vec::new()
    }
    fn list_resources(&self) -> Vec<Arc<dyn ListResource<()>>> {
        vec![Arc::new(ThingList::default())]
    }
}

fn config(prefix: &str) -> pb::DynamicValue {
    let ty = ThingList::default().schema.value_type();
    encode(&object([("prefix", text(prefix))]), &ty).expect("encodes")
}

async fn service(configured: bool) -> ProviderService<Fake> {
    let service = ProviderService::new(Fake, Signals::default());
    if configured {
        let config = encode(&Fake.schema().block.null_value(), &Fake.schema().value_type()).expect("encodes");
        let response = service
            .configure_provider(Request::new(pb::configure_provider::Request {
                config: Some(config),
                ..Default::default()
            }))
            .await
            .expect("configures")
            .into_inner();
        assert!(response.diagnostics.is_empty(), "{:?}", response.diagnostics);
    }
    service
}

async fn list(
    service: &ProviderService<Fake>,
    type_name: &str,
    prefix: &str,
    include: bool,
    limit: i64,
) -> Vec<pb::list_resource::Event> {
    let stream = service
        .list_resource(Request::new(pb::list_resource::Request {
            type_name: type_name.into(),
            config: Some(config(prefix)),
            include_resource_object: include,
            limit,
        }))
        .await
        .expect("a stream, errors inside it")
        .into_inner();
    stream.map(|event| event.expect("no transport error")).collect().await
}

fn identity_name(event: &pb::list_resource::Event) -> String {
    let data = event.identity.as_ref().and_then(|i| i.identity_data.as_ref());
    let identity = decode(data, &Thing::default().identity.value_type()).expect("decodes");
    string(&identity, "name").unwrap_or_default()
}

#[tokio::test]
async fn the_schema_and_metadata_announce_the_list_resource_and_leave_the_rest_as_before() {
    let service = service(false).await;
    let schema = service
        .get_provider_schema(Request::new(pb::get_provider_schema::Request {}))
        .await
        .expect("schema")
        .into_inner();
    let list = &schema.list_resource_schemas[THING];
    let names: Vec<&str> = list
        .block
        .as_ref()
        .map(|b| b.attributes.iter().map(|a| a.name.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["prefix"]);
    assert!(schema.resource_schemas.contains_key(THING));
    let capabilities = schema.server_capabilities.expect("capabilities");
    assert!(
        !capabilities.generate_resource_config,
        "config generation stays Terraform's own"
    );
    let metadata = service
        .get_metadata(Request::new(pb::get_metadata::Request {}))
        .await
        .expect("metadata")
        .into_inner();
    let listed: Vec<&str> = metadata.list_resources.iter().map(|l| l.type_name.as_str()).collect();
    assert_eq!(listed, [THING]);
}

#[tokio::test]
async fn validate_reports_the_list_resources_own_checks_at_their_attribute() {
    let service = service(false).await;
    let validate = |prefix: &'static str| {
        service.validate_list_resource_config(Request::new(pb::validate_list_resource_config::Request {
            type_name: THING.into(),
            config: Some(config(prefix)),
            ..Default::default()
        }))
    };
    let good = validate("ok-").await.expect("answers").into_inner();
    assert!(good.diagnostics.is_empty(), "{:?}", good.diagnostics);
    let bad = validate("bad").await.expect("answers").into_inner();
    assert_eq!(bad.diagnostics.len(), 1);
    assert_eq!(bad.diagnostics[0].summary, "Bad prefix");
    assert!(bad.diagnostics[0].attribute.is_some(), "at `prefix`");
}

#[tokio::test]
async fn each_result_carries_its_identity_and_display_name_and_the_stream_stops_at_the_limit() {
    let service = service(true).await;
    let events = list(&service, THING, "x-", false, 2).await;
    let names: Vec<String> = events.iter().map(identity_name).collect();
    assert_eq!(names, ["x-a", "x-b"]);
    assert_eq!(events[0].display_name, "x-a (not governed)");
    assert!(
        events
            .iter()
            .all(|e| e.resource_object.is_none() && e.diagnostic.is_empty())
    );
    assert_eq!(list(&service, THING, "x-", false, 100).await.len(), 3);
}

#[tokio::test]
async fn with_include_resource_each_object_is_what_import_then_read_record_without_write_only_values() {
    let service = service(true).await;
    let events = list(&service, THING, "x-", true, 100).await;
    let ty = Thing::default().schema.value_type();
    let object = decode(events[1].resource_object.as_ref(), &ty).expect("decodes");
    assert_eq!(string(&object, "name").as_deref(), Some("x-b"));
    assert_eq!(string(&object, "size").as_deref(), Some("large"), "read filled it in");
    assert_eq!(string(&object, "id").as_deref(), Some("id-x-b"));
    assert_eq!(
        object.get_attr("secret"),
        Some(&Value::Null),
        "write-only values never leave"
    );
}

#[tokio::test]
async fn failures_are_one_event_with_the_error_and_no_identity() {
    let configured = service(true).await;
    for (service, type_name, prefix, summary) in [
        (&configured, THING, "denied", "Listing failed"),
        (&configured, THING, "bad", "Bad prefix"),
        (&configured, "fake_other", "x", "Unknown list resource type"),
    ] {
        let events = list(service, type_name, prefix, false, 100).await;
        assert_eq!(events.len(), 1, "{type_name} {prefix}");
        assert!(events[0].identity.is_none());
        assert_eq!(events[0].diagnostic[0].summary, summary);
    }
    let unconfigured = service(false).await;
    let events = list(&unconfigured, THING, "x", false, 100).await;
    assert_eq!(events[0].diagnostic[0].summary, "Provider not configured");
}
