//! Import by the contract's name (or identity). The contract exists only in configuration and state: import records
//! its name, and the next apply fills in the rest from the configuration (no AWS call).

use super::schema::{ContractIdentity, ContractModel, TYPE_NAME};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::{Field, Model};
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub fn import(null_state: Value, target: ImportTarget) -> Result<Value, Diagnostics> {
    let name = match target {
        ImportTarget::Id(id) => id,
        ImportTarget::Identity(identity) => ContractIdentity::decode(&identity)?.name.known().unwrap_or_default(),
    };
    if name.trim().is_empty() {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Missing import ID",
            format!("Import {TYPE_NAME} by the contract's name."),
        ));
    }
    let mut state = null_state;
    ContractModel::ID.set(&mut state, &Field::Known(name.clone()));
    ContractModel::NAME.set(&mut state, &Field::Known(name));
    Ok(state)
}

/// The identity of a recorded contract: its name.
pub fn identity(state: &Value) -> Option<Value> {
    let name = ContractModel::NAME.known(state)?;
    Some(
        ContractIdentity {
            name: Field::Known(name),
        }
        .encode(),
    )
}
