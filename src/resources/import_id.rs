//! Import IDs of the form `<a>/<b>` (a cluster and a team, a cluster and a role, a domain and a connection), and
//! the identity objects that carry the same two parts.

use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::object::{object, string, text};
use crate::protocol::resource::ImportTarget;
use crate::protocol::schema::{IdentityAttribute, IdentitySchema};
use crate::protocol::value::{Type, Value};

/// An identity of two required string parts, `(name, description)` each, in import-ID order.
pub fn identity_schema(parts: [(&'static str, &str); 2]) -> IdentitySchema {
    IdentitySchema {
        version: 0,
        attributes: parts
            .iter()
            .map(|(name, description)| IdentityAttribute {
                name,
                ty: Type::String,
                description: description.to_string(),
                required_for_import: true,
            })
            .collect(),
    }
}

/// The identity value of the two parts.
pub fn identity(keys: [&str; 2], values: [&str; 2]) -> Value {
    object([(keys[0], text(values[0])), (keys[1], text(values[1]))])
}

/// The two parts of `target`: split at the first `/` of an ID (the second part may hold more, e.g. an ARN), or the
/// identity attributes `keys`. `example` is shown when the ID is malformed.
pub fn two_parts(
    target: &ImportTarget,
    type_name: &str,
    keys: [&str; 2],
    example: &str,
) -> Result<(String, String), Diagnostics> {
    match target {
        ImportTarget::Id(id) => match id.trim().split_once('/') {
            Some((first, second)) if !first.is_empty() && !second.is_empty() => {
                Ok((first.to_string(), second.to_string()))
            }
            _ => Err(Diagnostics::error(
                AttributePath::root(),
                "Invalid import ID",
                format!(
                    "Import {type_name} as `<{}>/<{}>`, e.g. `{example}`; got {id:?}.",
                    keys[0], keys[1]
                ),
            )),
        },
        ImportTarget::Identity(identity) => Ok((
            string(identity, keys[0]).unwrap_or_default(),
            string(identity, keys[1]).unwrap_or_default(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_at_the_first_slash_and_bad_ones_say_the_form() {
        let target = ImportTarget::Id("ml-capacity/arn:aws:iam::1:role/a/b".into());
        let (cluster, role) = two_parts(&target, "t", ["cluster_name", "role"], "c/r").unwrap_or_default();
        assert_eq!(
            (cluster.as_str(), role.as_str()),
            ("ml-capacity", "arn:aws:iam::1:role/a/b")
        );
        let err = two_parts(
            &ImportTarget::Id("nothing".into()),
            "t",
            ["cluster_name", "team"],
            "c/t",
        );
        assert!(err.is_err_and(|d| d.0[0].detail.contains("`<cluster_name>/<team>`")));
    }
}
