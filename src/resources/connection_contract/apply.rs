//! Apply: the contract has no AWS object. Create and update record the planned value; what was unknown at plan
//! (references to resources created in the same apply) is gathered and judged now, and only that is filled in.
//! Delete forgets it.

use crate::client::HyperpodClient;
use crate::protocol::object::unknowns_to_null;
use crate::protocol::resource::Applied;
use crate::protocol::value::Value;
use crate::resources::checklist::fill_unknowns;

/// Writes the planned record; values unknown at plan are judged now. `prior` is the state (`None` on create).
pub async fn record(client: &HyperpodClient, planned: &Value, prior: Option<&Value>) -> Applied {
    if planned.is_wholly_known() {
        return Applied::ok(planned.clone());
    }
    let mut value = planned.clone();
    match super::plan::resolve(client, &mut value, prior).await {
        Ok(warnings) => Applied {
            state: Some(unknowns_to_null(fill_unknowns(planned, &value))),
            diagnostics: warnings,
        },
        Err(errors) => Applied::failed(None, errors),
    }
}
