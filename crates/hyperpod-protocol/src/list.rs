//! List resources: what `terraform query` (a `list` block in a `.tfquery.hcl` file, Terraform 1.14 or later) asks
//! of a provider. A list resource shares its name with the managed resource whose instances it finds; each result
//! is that resource's identity (Terraform writes it into an `import` block), a label for people, and, when the
//! query asks for it (`include_resource`, or `-generate-config-out`), the object as an import would record it.
//!
//! Terraform sends the `config` block alone (it wraps the schema given here in a `list` block of its own) and
//! stops reading the stream once it holds `limit` results.

use async_trait::async_trait;

use super::convert::{decode, diagnostics_to_proto, encode, identity_data};
use super::diagnostics::{AttributePath, Diagnostics};
use super::proto::tfplugin6 as pb;
use super::resource::Resource;
use super::schema::Schema;
use super::value::Value;

/// What a query asks for, decoded.
pub struct ListRequest {
    /// The `config` block, an object of the list resource's schema type (all attributes null when the block is
    /// left out).
    pub config: Value,
    /// Whether each result carries its resource object.
    pub include_resource: bool,
    /// At most this many results are read; a lister may stop early.
    pub limit: usize,
}

/// One object found.
pub struct Listed {
    /// An object of the resource's identity schema type.
    pub identity: Value,
    pub display_name: String,
    /// The resource's state for this object (only when `include_resource`).
    pub resource_object: Option<Value>,
}

#[async_trait]
pub trait ListResource<C>: Send + Sync {
    /// The managed resource type the results are instances of.
    fn type_name(&self) -> &'static str;
    /// The `config` block's schema.
    fn schema(&self) -> &Schema;
    /// Cross-attribute checks on the `config` block; no I/O.
    fn validate(&self, _config: &Value, _diagnostics: &mut Diagnostics) {}
    /// The objects found, in a stable order (the same live objects list the same way every time).
    async fn list(&self, client: &C, request: &ListRequest) -> Result<Vec<Listed>, Diagnostics>;
}

/// The limit Terraform sent: it always sends one (100 unless the `list` block says otherwise); a value below 1 is
/// read as no limit rather than as "nothing".
pub(crate) fn limit(requested: i64) -> usize {
    usize::try_from(requested).ok().filter(|l| *l > 0).unwrap_or(usize::MAX)
}

/// Decodes and validates a `config` block against the list resource's schema.
pub(crate) fn config<C>(
    list: &dyn ListResource<C>,
    value: Option<&pb::DynamicValue>,
) -> Result<(Value, Diagnostics), Diagnostics> {
    let schema = list.schema();
    let mut config = decode(value, &schema.value_type())?;
    // A query without a `config` block: Terraform sends an object of nulls, an older one may send null.
    if config.is_null() {
        config = schema.block.null_value();
    }
    let mut diagnostics = Diagnostics::new();
    schema.block.validate(&config, &AttributePath::root(), &mut diagnostics);
    list.validate(&config, &mut diagnostics);
    Ok((config, diagnostics))
}

/// An event carrying only diagnostics: Terraform stops reading at an error and reports it on the `list` block.
pub(crate) fn failure(diagnostics: Diagnostics) -> pb::list_resource::Event {
    pb::list_resource::Event {
        diagnostic: diagnostics_to_proto(diagnostics),
        ..Default::default()
    }
}

/// The stream's events for `results`: one per object, at most `limit`. An error becomes a single event carrying
/// it, which Terraform reports against the `list` block.
pub(crate) fn events<C>(
    resource: &dyn Resource<C>,
    results: Result<Vec<Listed>, Diagnostics>,
    include_resource: bool,
    limit: usize,
) -> Vec<pb::list_resource::Event> {
    let results = match results {
        Ok(results) => results,
        Err(diagnostics) => return vec![failure(diagnostics)],
    };
    let Some(identity_schema) = resource.identity_schema() else {
        return vec![failure(Diagnostics::error(
            AttributePath::root(),
            "List resource without an identity",
            format!(
                "{} has no resource identity, so its objects cannot be listed; this is a bug in the provider.",
                resource.type_name()
            ),
        ))];
    };
    let ty = resource.schema().value_type();
    let mut events = Vec::new();
    for listed in results.into_iter().take(limit) {
        let object = match listed.resource_object.filter(|_| include_resource) {
            Some(object) => match encode(&object, &ty) {
                Ok(encoded) => Some(encoded),
                Err(diagnostics) => {
                    events.push(failure(diagnostics));
                    return events;
                }
            },
            None => None,
        };
        let Some(identity) = identity_data(Some(listed.identity), Some(identity_schema)) else {
            events.push(failure(Diagnostics::error(
                AttributePath::root(),
                "Provider produced an unencodable identity",
                format!(
                    "The identity of {:?} does not match the identity schema.",
                    listed.display_name
                ),
            )));
            return events;
        };
        events.push(pb::list_resource::Event {
            identity: Some(identity),
            display_name: listed.display_name,
            resource_object: object,
            diagnostic: Vec::new(),
        });
    }
    events
}

#[cfg(test)]
mod tests {
    #[test]
    fn terraform_s_limit_is_read_as_at_most_that_many_and_below_one_as_no_limit() {
        assert_eq!(super::limit(100), 100);
        assert_eq!(super::limit(0), usize::MAX);
        assert_eq!(super::limit(-1), usize::MAX);
    }
}
