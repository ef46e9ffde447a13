//! The grant's planned state: `governance`, known at plan time wherever the arguments are, and a principal that
//! names another profile replaces the grant (the block is outside the schema's requires-replace).

use super::super::model::governance;
use super::super::schema::PolicyGrantModel;
use super::GrantPlanInputs;
use super::gather::PrincipalChange;
use crate::protocol::model::Field;
use crate::protocol::plan::PlannedChange;

/// Fills `governance` of the planned value `planned` decodes, and replaces the grant for a new principal.
pub fn predict(inputs: &GrantPlanInputs, planned: &PolicyGrantModel, change: &mut PlannedChange) {
    PolicyGrantModel::GOVERNANCE.set(&mut change.planned, &Field::Known(governance(planned)));
    if inputs.principal_change == PrincipalChange::Replaced {
        change.requires_replace.push(PolicyGrantModel::PRINCIPAL.path());
    }
}
