//! Apply: the allocation has no AWS object. Create and update record the planned value; what was unknown at plan (a
//! cluster name from a resource created in the same apply) is gathered and judged now, before it is recorded.
//! Delete forgets it.

use crate::client::HyperpodClient;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;

pub async fn record(client: &HyperpodClient, planned: &Value) -> Applied {
    if planned.is_wholly_known() {
        return Applied::ok(planned.clone());
    }
    let mut value = planned.clone();
    match super::plan::resolve(client, &mut value).await {
        Ok(()) => Applied::ok(unknowns_to_null(value)),
        Err(errors) => Applied::failed(None, errors),
    }
}
