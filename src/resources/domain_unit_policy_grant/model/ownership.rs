//! Which grants are this resource's own. DataZone grants carry no tags: `AddPolicyGrant`'s idempotency token, derived
//! from the grant's terms, is how an apply killed after DataZone accepted a grant adopts it on the next apply (DataZone
//! answers a token it has seen with that grant). And the grants seen in state (`SeenGrants`): how the plan of a
//! replacement tells the grant being replaced from a foreign identical one.

use std::collections::{BTreeSet, HashSet};
use std::sync::Mutex;

use super::GrantTerms;
use crate::aws::datazone_grants::GrantPrincipal;

/// Prefix of the `clientToken`s this resource sends with `AddPolicyGrant`.
const TOKEN_PREFIX: &str = "hyperpod-grant-";

impl GrantTerms {
    /// The `AddPolicyGrant` idempotency token of this grant: derived from its terms (domain, unit, principal, the
    /// set of profiles, child-unit scope), so an apply that was killed after DataZone accepted the grant sends the
    /// same token on the next apply, and DataZone answers with that grant instead of a conflict. A grant added by
    /// anyone else carries another token, so it is still refused.
    pub fn client_token(&self) -> String {
        let principal = match &self.principal {
            GrantPrincipal::Group(id) => format!("group:{id}"),
            GrantPrincipal::User(id) => format!("user:{id}"),
            GrantPrincipal::DomainUnitOwners(id) => format!("domain-unit-owners:{id}"),
            GrantPrincipal::Other(description) => format!("other:{description}"),
        };
        let profiles: BTreeSet<&str> = self.project_profile_ids.iter().map(String::as_str).collect();
        let terms = format!(
            "hyperpod_domain_unit_policy_grant\n{}\n{}\n{principal}\n{}\n{}",
            self.domain_id,
            self.domain_unit_id,
            profiles.into_iter().collect::<Vec<_>>().join(","),
            self.include_child_domain_units
        );
        token_of(&terms)
    }
}

/// The token to use after `token` was answered with `stale_grant_id`, a grant that no longer exists: DataZone
/// replays a token's first answer, so a grant removed since (destroyed, or out of band) needs a new token, and
/// deriving it from the stale ID keeps it the same on every apply.
pub fn next_client_token(token: &str, stale_grant_id: &str) -> String {
    token_of(&format!("{token}\n{stale_grant_id}"))
}

/// `hyperpod-grant-` and 32 hex digits of the text's SHA-256 (ClientToken: 1..128 printable ASCII characters).
fn token_of(text: &str) -> String {
    format!("{TOKEN_PREFIX}{}", &crate::digest::sha256_hex(text.as_bytes())[..32])
}

/// Grant IDs this provider process has seen in Terraform's state. A replacement is planned as a create with no prior
/// state; this tells the grant being replaced from a foreign identical one that would block the create.
#[derive(Default)]
pub struct SeenGrants {
    ids: Mutex<HashSet<String>>,
}

impl SeenGrants {
    pub fn remember(&self, grant_id: &str) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.insert(grant_id.to_string());
        }
    }

    pub fn contains(&self, grant_id: &str) -> bool {
        self.ids.lock().is_ok_and(|ids| ids.contains(grant_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(principal: GrantPrincipal, profiles: &[&str], children: bool) -> GrantTerms {
        GrantTerms {
            domain_id: "dzd_capacity01".to_string(),
            domain_unit_id: "mlplatform0001".to_string(),
            project_profile_ids: profiles.iter().map(std::string::ToString::to_string).collect(),
            include_child_domain_units: children,
            principal,
        }
    }

    #[test]
    fn the_client_token_follows_the_terms_and_fits_datazone() {
        let owners = || GrantPrincipal::DomainUnitOwners("mlplatform0001".to_string());
        let token = spec(owners(), &["a", "b"], false).client_token();
        assert!(token.starts_with(TOKEN_PREFIX) && token.len() == TOKEN_PREFIX.len() + 32);
        assert!(token.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        // The same grant (profiles are a set) gives the same token; any other term another one.
        assert_eq!(spec(owners(), &["b", "a", "a"], false).client_token(), token);
        for other in [
            spec(owners(), &["a"], false),
            spec(owners(), &["a", "b"], true),
            spec(GrantPrincipal::Group("mlplatform0001".to_string()), &["a", "b"], false),
            spec(GrantPrincipal::User("mlplatform0001".to_string()), &["a", "b"], false),
        ] {
            assert_ne!(other.client_token(), token);
        }
        let next = next_client_token(&token, "AbCdEf0123");
        assert!(next.starts_with(TOKEN_PREFIX) && next != token);
        assert_eq!(next_client_token(&token, "AbCdEf0123"), next);
        assert_ne!(next_client_token(&token, "AbCdEf0124"), next);
    }
}
