//! The service end to end with a resource of its own: what one RPC leaves in the private data reaches the next.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tonic::Request;

use super::ProviderService;
use crate::convert::{decode, encode};
use crate::diagnostics::Diagnostics;
use crate::plan::PlannedChange;
use crate::plugin::PluginProvider;
use crate::proto::tfplugin6 as pb;
use crate::proto::tfplugin6::provider_server::Provider as _;
use crate::resource::{Applied, DataSource, Function, ImportTarget, OperationContext, Resource};
use crate::schema::{Attribute, Block, Schema};
use crate::signals::Signals;
use crate::value::Value;

/// What each create was handed as deferred checks, in order.
type Handed = Arc<Mutex<Vec<Vec<String>>>>;

/// A resource whose plan defers the checks its `defer` argument names, and whose create records the checks apply
/// handed it.
struct Deferring {
    schema: Schema,
    handed: Handed,
}

#[async_trait]
impl Resource<()> for Deferring {
    fn type_name(&self) -> &'static str {
        "test_deferring"
    }
    fn schema(&self) -> &Schema {
        &self.schema
    }
    async fn modify_plan(&self, (): &(), change: &mut PlannedChange) -> Result<(), Diagnostics> {
        if let Some(Value::String(names)) = change.config.get_attr("defer") {
            change.deferred_checks = names.split(',').map(str::to_string).collect();
        }
        Ok(())
    }
    async fn create(&self, (): &(), planned: &Value, context: &OperationContext) -> Applied {
        self.handed
            .lock()
            .expect("not poisoned")
            .push(context.deferred_checks.clone());
        Applied::ok(planned.clone())
    }
    async fn read(&self, (): &(), current: &Value, _: &OperationContext) -> Result<Option<Value>, Diagnostics> {
        Ok(Some(current.clone()))
    }
    async fn update(&self, (): &(), _: &Value, planned: &Value, context: &OperationContext) -> Applied {
        self.create(&(), planned, context).await
    }
    async fn delete(&self, (): &(), _: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        Ok(())
    }
    async fn import(&self, (): &(), _: ImportTarget) -> Result<Value, Diagnostics> {
        Err(Diagnostics::new())
    }
}

struct TestProvider {
    schema: Schema,
    resource: Arc<Deferring>,
}

#[async_trait]
impl PluginProvider for TestProvider {
    type Client = ();
    fn schema(&self) -> &Schema {
        &self.schema
    }
    async fn configure(&self, _: &Value, _: &str) -> Result<((), Diagnostics), Diagnostics> {
        Ok(((), Diagnostics::new()))
    }
    fn resources(&self) -> Vec<Arc<dyn Resource<()>>> {
        vec![self.resource.clone()]
    }
    fn data_sources(&self) -> Vec<Arc<dyn DataSource<()>>> {
        Vec::new()
    }
    fn functions(&self) -> Vec<Arc<dyn Function>> {
        Vec::new()
    }
}

fn service() -> (ProviderService<TestProvider>, Handed) {
    let handed = Handed::default();
    let resource = Deferring {
        schema: Schema {
            version: 0,
            block: Block::new("test").attribute(Attribute::string("defer").optional()),
        },
        handed: handed.clone(),
    };
    let provider = TestProvider {
        schema: Schema {
            version: 0,
            block: Block::new("provider"),
        },
        resource: Arc::new(resource),
    };
    (ProviderService::new(provider, Signals::default()), handed)
}

/// Plans and applies a create of `test_deferring` with `defer`; returns the private data apply kept.
async fn plan_and_apply(service: &ProviderService<TestProvider>, defer: Option<&str>) -> Vec<u8> {
    let ty = service.provider.resources()[0].schema().value_type();
    let config = Value::object([("defer", defer.map_or(Value::Null, |d| Value::String(d.to_string())))]);
    let config = encode(&config, &ty).expect("encodes");
    let planned = service
        .plan_resource_change(Request::new(pb::plan_resource_change::Request {
            type_name: "test_deferring".into(),
            prior_state: Some(encode(&Value::Null, &ty).expect("encodes")),
            proposed_new_state: Some(config.clone()),
            config: Some(config.clone()),
            ..Default::default()
        }))
        .await
        .expect("plans")
        .into_inner();
    assert!(planned.diagnostics.is_empty(), "{:?}", planned.diagnostics);
    let applied = service
        .apply_resource_change(Request::new(pb::apply_resource_change::Request {
            type_name: "test_deferring".into(),
            prior_state: Some(encode(&Value::Null, &ty).expect("encodes")),
            planned_state: planned.planned_state,
            config: Some(config),
            planned_private: planned.planned_private,
            ..Default::default()
        }))
        .await
        .expect("applies")
        .into_inner();
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    let state = decode(applied.new_state.as_ref(), &ty).expect("decodes");
    assert!(!state.is_null());
    applied.private
}

#[tokio::test]
async fn the_checks_a_plan_defers_reach_apply_and_are_not_kept_with_the_state() {
    let (service, handed) = service();
    service
        .configure_provider(Request::new(pb::configure_provider::Request {
            config: Some(encode(&Value::object::<&str>([]), &service.provider.schema().value_type()).expect("encodes")),
            ..Default::default()
        }))
        .await
        .expect("configures");
    let kept = plan_and_apply(&service, Some("WKL-3,CLU-2")).await;
    let nothing = plan_and_apply(&service, None).await;
    assert_eq!(
        *handed.lock().expect("not poisoned"),
        [vec!["WKL-3".to_string(), "CLU-2".to_string()], Vec::new()]
    );
    // Made at apply: nothing of the record stays with the state for the next plan to find.
    assert!(crate::deferred::recorded_deferred(&kept).is_empty());
    assert!(kept.is_empty() && nothing.is_empty());
}
