//! Import by `<domain ID>/<domain unit ID>/<grant ID>` (or identity): the grant as DataZone reports it, if its
//! principal is one this resource can express.

use super::model::{SeenGrants, flatten, grant_ids, parse_resource_id};
use super::schema::{GrantIdentity, PolicyGrantModel, TYPE_NAME, identity as identity_value};
use crate::aws::datazone_grants::{GrantPrincipal, POLICY_TYPE, find_project_profile_grant};
use crate::client::HyperpodClient;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::Model;
use crate::protocol::resource::ImportTarget;
use crate::protocol::value::Value;

pub async fn import(client: &HyperpodClient, seen: &SeenGrants, target: ImportTarget) -> Result<Value, Diagnostics> {
    let Some((domain_id, unit_id, grant_id)) = imported_ids(&target) else {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Invalid import ID",
            format!(
                "Import {TYPE_NAME} by `<domain ID>/<domain unit ID>/<grant ID>`, e.g. \
                 `dzd_capacity01/mlplatform0001/AbCdEf0123` (grant IDs: `aws datazone list-policy-grants \
                 --domain-identifier <domain> --entity-type DOMAIN_UNIT --entity-identifier <unit> --policy-type \
                 {POLICY_TYPE}`)."
            ),
        ));
    };
    let grant = find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id)
        .await
        .map_err(|err| {
            let detail = if err.is_not_found() {
                format!("Domain unit {unit_id} of domain {domain_id} has no {POLICY_TYPE} grant {grant_id:?}.")
            } else {
                err.to_string()
            };
            Diagnostics::error(AttributePath::root(), "Cannot import the policy grant", detail)
        })?;
    if let GrantPrincipal::Other(description) = &grant.principal {
        return Err(Diagnostics::error(
            AttributePath::root(),
            "Cannot import the policy grant",
            format!(
                "Grant {grant_id} is to {description}; {TYPE_NAME} expresses groups, users and domain-unit owners \
                 only. Manage it outside Terraform."
            ),
        ));
    }
    seen.remember(&grant_id);
    Ok(flatten(&grant, &domain_id, &unit_id, &PolicyGrantModel::default()).encode())
}

/// The domain, domain unit and grant an import names.
fn imported_ids(target: &ImportTarget) -> Option<(String, String, String)> {
    match target {
        ImportTarget::Id(id) => parse_resource_id(id),
        ImportTarget::Identity(identity) => {
            let identity = GrantIdentity::decode(identity).ok()?;
            Some((
                identity.domain_id.known()?,
                identity.domain_unit_id.known()?,
                identity.grant_id.known()?,
            ))
        }
    }
}

/// The identity of a recorded grant: its domain, domain unit and ID.
pub fn identity(state: &Value) -> Option<Value> {
    let (domain_id, unit_id, grant_id) = grant_ids(&PolicyGrantModel::decode(state).ok()?)?;
    Some(identity_value(&domain_id, &unit_id, &grant_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, strings, text};
    use crate::protocol::plan::set_attr;

    #[test]
    fn ids_come_from_the_attributes_or_the_id() {
        let state = object([
            ("id", text("dzd_capacity01/mlplatform0001/AbCdEf0123")),
            ("grant_id", text("AbCdEf0123")),
            ("domain_id", text("dzd_capacity01")),
            ("domain_unit_id", text("mlplatform0001")),
            ("project_profile_ids", Value::List(vec![text("p")])),
        ]);
        let decoded = PolicyGrantModel::decode(&state).expect("decodes");
        assert_eq!(
            grant_ids(&decoded),
            Some(("dzd_capacity01".into(), "mlplatform0001".into(), "AbCdEf0123".into()))
        );
        let mut only_id = state.clone();
        set_attr(&mut only_id, "grant_id", Value::Null);
        let only_id = PolicyGrantModel::decode(&only_id).expect("decodes");
        assert_eq!(grant_ids(&only_id).map(|(_, _, g)| g), Some("AbCdEf0123".to_string()));
        assert_eq!(
            identity(&state),
            Some(identity_value("dzd_capacity01", "mlplatform0001", "AbCdEf0123"))
        );
        assert!(strings(&state, "project_profile_ids") == ["p"]);
    }
}
