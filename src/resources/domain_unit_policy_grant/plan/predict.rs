//! The grant's planned state: `governance`, known at plan time wherever the arguments are, and a principal that
//! names another profile replaces the grant (the block is outside the schema's requires-replace).

use super::super::model::governance_value;
use super::GrantPlanInputs;
use super::gather::PrincipalChange;
use crate::protocol::diagnostics::AttributePath;
use crate::protocol::plan::PlannedChange;

pub fn predict(inputs: &GrantPlanInputs, change: &mut PlannedChange) {
    let facts = governance_value(&change.planned);
    change.set("governance", facts);
    if inputs.principal_change == PrincipalChange::Replaced {
        change.requires_replace.push(AttributePath::attr("principal"));
    }
}
