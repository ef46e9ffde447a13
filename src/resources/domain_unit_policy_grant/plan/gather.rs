//! What the grant's plan reads, as one `GrantPlanInputs`: the configuration; whether a principal spelled otherwise
//! than in state names the same profile; and, when the plan adds a grant, what DataZone has of what it names: the
//! domain unit (and, when that is missing, the domain), the principal's domain unit, the principal's profile, every
//! project profile (and, when one is missing, the domain's profiles), and on create the unit's grants this state
//! does not hold. A read that cannot follow from the ones before (nothing in a domain that does not exist; no grants
//! once a name is missing) is not made. A plan that changes nothing of the grant reads nothing.

use super::super::model::{GrantConfig, GrantTerms, SeenGrants, principal_of};
use super::super::schema::{GrantPrincipalBlock, PolicyGrantModel};
use crate::aws::AwsError;
use crate::aws::datazone_grants::{
    GrantPrincipal, ProfileGrant, ProjectProfile, find_domain, find_domain_unit, find_project_profile,
    list_project_profile_grants, list_project_profiles,
};
use crate::client::HyperpodClient;
use crate::protocol::model::Field;

/// Everything the grant's judge and predict read, as one value a test can build by hand.
#[derive(Clone, Debug)]
pub struct GrantPlanInputs {
    /// The planned value, typed.
    pub config: GrantConfig,
    pub is_create: bool,
    pub principal_change: PrincipalChange,
    /// The provider's account and region, where the domain is looked for.
    pub account_id: String,
    pub region: String,
    /// What DataZone has of what the grant names: read when the plan adds a grant and the domain is known.
    pub domain: Option<GrantDomainReads>,
}

/// How the planned principal stands to the recorded one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrincipalChange {
    /// As recorded, or nothing is recorded (a create).
    Same,
    /// Spelled another way (a group's ID after an import, its name in configuration) that names the same profile:
    /// the same grant, recorded in place.
    Respelled,
    /// Another principal: a new grant.
    Replaced,
}

/// One DataZone read: what it found, that nothing of that ID exists, or why it could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataZoneLookup<T> {
    Found(T),
    Missing,
    Unreadable(String),
}

impl<T> DataZoneLookup<T> {
    fn of(result: Result<T, AwsError>) -> Self {
        match result {
            Ok(found) => Self::Found(found),
            Err(err) if err.is_not_found() => Self::Missing,
            Err(err) => Self::Unreadable(err.to_string()),
        }
    }

    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Missing)
    }
}

/// What DataZone has of the domain unit, the principal and the profiles a grant names.
#[derive(Clone, Debug)]
pub struct GrantDomainReads {
    /// `domain_unit_id`, when known.
    pub unit: Option<DataZoneLookup<()>>,
    /// The domain itself does not exist (read only when the unit is missing; nothing else is read then).
    pub domain_missing: bool,
    /// `principal.domain_unit_id`, when known and another unit than `domain_unit_id`.
    pub owner_unit: Option<DataZoneLookup<()>>,
    /// The principal resolved to the profile DataZone keeps, when it is known.
    pub principal: Option<DataZoneLookup<GrantPrincipal>>,
    /// Each known project profile, in the order of `GrantConfig::project_profile_ids`.
    pub profiles: Vec<DataZoneLookup<ProjectProfile>>,
    /// The domain's project profiles, to name them: read when a listed one is missing (`None` when not read, or
    /// unreadable).
    pub domain_profiles: Option<Vec<ProjectProfile>>,
    /// The unit's grants this provider process has not seen in state: read on create, once every name above was
    /// found and the whole grant is known.
    pub unit_grants: Option<DataZoneLookup<Vec<ProfileGrant>>>,
}

impl GrantDomainReads {
    /// Whether a name the grant gives was not found (apply refuses the grant).
    fn anything_missing(&self) -> bool {
        self.unit.as_ref().is_some_and(DataZoneLookup::is_missing)
            || self.owner_unit.as_ref().is_some_and(DataZoneLookup::is_missing)
            || self.principal.as_ref().is_some_and(DataZoneLookup::is_missing)
            || self.profiles.iter().any(DataZoneLookup::is_missing)
    }
}

/// The plan's reads, for the planned value (`planned`) and the prior state (`prior`, `None` on create), decoded.
pub async fn gather(
    client: &HyperpodClient,
    seen: &SeenGrants,
    is_create: bool,
    prior: Option<&PolicyGrantModel>,
    planned: &PolicyGrantModel,
) -> GrantPlanInputs {
    if let Some(Field::Known(grant_id)) = prior.map(|prior| &prior.grant_id) {
        seen.remember(grant_id);
    }
    let config = GrantConfig::of(planned);
    let principal_change = principal_change(client, prior, planned).await;
    let domain = match &config.domain_id {
        Some(domain_id) if adds_grant(prior, planned) => {
            Some(domain_reads(client, seen, &config, domain_id, is_create).await)
        }
        _ => None, // nothing to add (no reason to call DataZone), or the domain is unknown until apply
    };
    GrantPlanInputs {
        config,
        is_create,
        principal_change,
        account_id: client.account_id.to_string(),
        region: client.region.as_str().to_string(),
        domain,
    }
}

/// The principal as DataZone keeps and lists it: a group's or user's identifier (a name, an IAM ARN or an ID, as the
/// configuration spells it) resolved to its profile ID; a domain unit's owners as they are. `Missing` when the
/// identifier names no profile.
pub async fn principal_profile(
    client: &HyperpodClient,
    domain_id: &str,
    principal: &GrantPrincipal,
) -> DataZoneLookup<GrantPrincipal> {
    DataZoneLookup::of(match principal {
        GrantPrincipal::Group(identifier) => client
            .group_profile_id(domain_id, identifier)
            .await
            .map(GrantPrincipal::Group),
        GrantPrincipal::User(identifier) => client
            .user_profile_id(domain_id, identifier)
            .await
            .map(GrantPrincipal::User),
        other => Ok(other.clone()),
    })
}

/// The principal is a block, which the schema's requires-replace does not cover: a new principal is a new grant
/// too, unless both spellings resolve to the same profile (only a positive answer counts, in an unchanged domain).
async fn principal_change(
    client: &HyperpodClient,
    prior: Option<&PolicyGrantModel>,
    planned: &PolicyGrantModel,
) -> PrincipalChange {
    let Some(prior) = prior else {
        return PrincipalChange::Same;
    };
    if prior.principal == planned.principal {
        return PrincipalChange::Same;
    }
    let same_domain = prior.domain_id == planned.domain_id;
    let domain_id = planned.domain_id.as_known().cloned();
    let respelled = match (domain_id, principal_of(prior), principal_of(planned)) {
        (Some(domain_id), Some(prior), Some(planned)) if same_domain => {
            let (prior, planned) = tokio::join!(
                principal_profile(client, &domain_id, &prior),
                principal_profile(client, &domain_id, &planned)
            );
            matches!((prior, planned), (DataZoneLookup::Found(a), DataZoneLookup::Found(b)) if a == b)
        }
        _ => false,
    };
    if respelled {
        PrincipalChange::Respelled
    } else {
        PrincipalChange::Replaced
    }
}

/// Whether the plan adds a grant: a create, or a changed argument (grants are immutable).
fn adds_grant(prior: Option<&PolicyGrantModel>, planned: &PolicyGrantModel) -> bool {
    fn arguments(grant: &PolicyGrantModel) -> GrantArguments<'_> {
        (
            &grant.domain_id,
            &grant.domain_unit_id,
            &grant.project_profile_ids,
            &grant.include_child_domain_units,
            &grant.principal,
        )
    }
    prior.is_none_or(|prior| arguments(prior) != arguments(planned))
}

/// What identifies a grant's terms: a change to any of these is a new grant.
type GrantArguments<'a> = (
    &'a Field<String>,
    &'a Field<String>,
    &'a Field<Vec<Field<String>>>,
    &'a Field<bool>,
    &'a Field<GrantPrincipalBlock>,
);

async fn domain_reads(
    client: &HyperpodClient,
    seen: &SeenGrants,
    config: &GrantConfig,
    domain_id: &str,
    is_create: bool,
) -> GrantDomainReads {
    let mut reads = named_objects(client, config, domain_id).await;
    if reads.unit.as_ref().is_some_and(DataZoneLookup::is_missing) {
        // Is it the unit that is missing, or the whole domain?
        reads.domain_missing = matches!(find_domain(&client.datazone, domain_id).await, Err(err) if err.is_not_found());
        if reads.domain_missing {
            return reads;
        }
    }
    // The principal's profile: DataZone refuses a grant to a user or group it has no profile of.
    if let Some(principal) = &config.principal {
        reads.principal = Some(principal_profile(client, domain_id, principal).await);
    }
    if reads.profiles.iter().any(DataZoneLookup::is_missing) {
        reads.domain_profiles = list_project_profiles(&client.datazone, domain_id).await.ok();
    }
    if let (true, false, Some(terms), Some(DataZoneLookup::Found(principal))) =
        (is_create, reads.anything_missing(), &config.terms, &reads.principal)
    {
        let terms = GrantTerms {
            principal: principal.clone(),
            ..terms.clone()
        };
        reads.unit_grants = Some(unit_grants(client, seen, &terms).await);
    }
    reads
}

/// The domain unit, the principal's domain unit and every project profile, read at once.
async fn named_objects(client: &HyperpodClient, config: &GrantConfig, domain_id: &str) -> GrantDomainReads {
    let dz = &client.datazone;
    let unit_id = &config.domain_unit_id;
    let (unit, owner_unit, profiles) = tokio::join!(
        async {
            match unit_id {
                Some(unit) => Some(find_domain_unit(dz, domain_id, unit).await),
                None => None,
            }
        },
        async {
            match &config.principal_unit {
                Some(unit) if Some(unit) != unit_id.as_ref() => Some(find_domain_unit(dz, domain_id, unit).await),
                _ => None,
            }
        },
        futures::future::join_all(
            config
                .project_profile_ids
                .iter()
                .map(|(_, id)| find_project_profile(dz, domain_id, id))
        ),
    );
    GrantDomainReads {
        unit: unit.map(|found| DataZoneLookup::of(found.map(|_| ()))),
        domain_missing: false,
        owner_unit: owner_unit.map(|found| DataZoneLookup::of(found.map(|_| ()))),
        principal: None,
        profiles: profiles.into_iter().map(DataZoneLookup::of).collect(),
        domain_profiles: None,
        unit_grants: None,
    }
}

/// The unit's grants, but those this provider process has seen in Terraform's state (the one a replacement
/// replaces).
async fn unit_grants(
    client: &HyperpodClient,
    seen: &SeenGrants,
    terms: &GrantTerms,
) -> DataZoneLookup<Vec<ProfileGrant>> {
    let found = list_project_profile_grants(&client.datazone, &terms.domain_id, &terms.domain_unit_id).await;
    DataZoneLookup::of(found.map(|grants| {
        grants
            .into_iter()
            .filter(|grant| !seen.contains(&grant.grant_id))
            .collect()
    }))
}
