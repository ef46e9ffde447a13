//! `hyperpod_domain_unit_policy_grant`: a DataZone `CREATE_PROJECT_FROM_PROJECT_PROFILE` policy grant on a domain
//! unit (`AddPolicyGrant` / `ListPolicyGrants` / `RemovePolicyGrant`), the organization layer's "who may create
//! projects where, from which profiles". Grants are immutable: every argument forces replacement.

mod list;
mod model;
mod schema;

pub use list::GrantList;
pub use schema::governance_type;

use std::collections::HashSet;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::aws::AwsError;
use crate::aws::ErrorCode;
use crate::aws::datazone_grants::{
    self as grants, GrantPrincipal, ProjectProfile, add_project_profile_grant, find_domain, find_domain_unit,
    find_project_profile, find_project_profile_grant, list_project_profile_grants, list_project_profiles,
    remove_project_profile_grant,
};
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{nested, string, text, unknowns_to_null};
use crate::protocol::plan::{PlannedChange, set_attr};
use crate::protocol::resource::{Applied, ImportTarget, OperationContext, Resource};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::value::Value;
use aws_sdk_datazone::Client as DataZoneClient;
use model::{GrantSpec, flatten, governance_value, grant_resource_id, next_client_token, parse_resource_id};

pub const TYPE_NAME: &str = "hyperpod_domain_unit_policy_grant";
/// How many answers naming a removed grant `add` follows before giving up (each removal of a grant of the same terms
/// since its token was first used costs one).
const MAX_STALE_TOKENS: usize = 8;
/// The arguments; any change to one is a new grant.
const ARGUMENTS: [&str; 5] = [
    "domain_id",
    "domain_unit_id",
    "project_profile_ids",
    "include_child_domain_units",
    "principal",
];

pub struct DomainUnitPolicyGrantResource {
    schema: Schema,
    identity: IdentitySchema,
    /// Grant IDs this provider process has seen in Terraform's state. A replacement is planned as a create with no
    /// prior state; this tells the grant being replaced from a foreign identical one that would block the create.
    managed_ids: Mutex<HashSet<String>>,
}

impl Default for DomainUnitPolicyGrantResource {
    fn default() -> Self {
        Self {
            schema: schema::schema(),
            identity: schema::identity_schema(),
            managed_ids: Mutex::new(HashSet::new()),
        }
    }
}

fn path(name: &str) -> AttributePath {
    AttributePath::attr(name)
}

/// `domain_id`, `domain_unit_id` and `grant_id` of a state, falling back to the `id` for the parts missing.
fn grant_ids(state: &Value) -> Option<(String, String, String)> {
    let from_id = string(state, "id").and_then(|id| parse_resource_id(&id));
    let part = |name: &str, index: usize| {
        string(state, name).or_else(|| {
            from_id.as_ref().map(|(domain, unit, grant)| match index {
                0 => domain.clone(),
                1 => unit.clone(),
                _ => grant.clone(),
            })
        })
    };
    Some((part("domain_id", 0)?, part("domain_unit_id", 1)?, part("grant_id", 2)?))
}

fn could_not_verify(path: AttributePath, what: &str, err: &AwsError) -> Diagnostic {
    Diagnostic::warning(
        path,
        format!("Could not verify {what}"),
        format!("{err}. The plan goes on; apply fails if it does not exist."),
    )
}

/// The grant has exactly the terms the configuration asks for.
fn same_terms(grant: &grants::ProfileGrant, spec: &GrantSpec) -> bool {
    grant.same_terms(
        &spec.principal,
        &spec.project_profile_ids,
        spec.include_child_domain_units,
    )
}

/// The principal as DataZone keeps and lists it: a group's or user's identifier (a name, an IAM ARN or an ID, as the
/// configuration spells it) resolved to its profile ID; a domain unit's owners as they are. `NotFound` when the
/// identifier names no profile.
async fn resolve_principal(
    client: &HyperpodClient,
    domain_id: &str,
    principal: &GrantPrincipal,
) -> Result<GrantPrincipal, AwsError> {
    Ok(match principal {
        GrantPrincipal::Group(identifier) => {
            GrantPrincipal::Group(client.group_profile_id(domain_id, identifier).await?)
        }
        GrantPrincipal::User(identifier) => GrantPrincipal::User(client.user_profile_id(domain_id, identifier).await?),
        other => other.clone(),
    })
}

/// Where a principal is configured: `principal.group_id` or `principal.user_id`.
fn principal_path(principal: &GrantPrincipal) -> AttributePath {
    let name = match principal {
        GrantPrincipal::User(_) => "user_id",
        GrantPrincipal::DomainUnitOwners(_) => "domain_unit_id",
        _ => "group_id",
    };
    path("principal").push_attr(name)
}

/// The finding for a principal that could not be resolved: an error when it names no profile, else `None` (the
/// caller decides: a warning at plan, an error at apply).
fn unresolved_principal(domain_id: &str, principal: &GrantPrincipal, err: &AwsError) -> Option<Diagnostic> {
    if !err.is_not_found() {
        return None;
    }
    let (kind, id, search) = match principal {
        GrantPrincipal::User(id) => ("user", id, "search-user-profiles --user-type DATAZONE_SSO_USER"),
        GrantPrincipal::Group(id) => ("group", id, "search-group-profiles --group-type DATAZONE_SSO_GROUP"),
        _ => return None,
    };
    Some(Diagnostic::invalid_value(
        principal_path(principal),
        format!("{id:?}"),
        &format!("no DataZone {kind} profile of that name or ID exists in domain {domain_id}"),
        &format!(
            "use the {kind}'s name or ID as Unified Studio knows it (`aws datazone {search} --domain-identifier \
             {domain_id}`)"
        ),
    ))
}

/// The configured principal as the user spelled it, when it names the principal DataZone reports (by profile ID):
/// state keeps what the configuration says, so a grant read back is no change.
async fn as_configured(
    client: &HyperpodClient,
    domain_id: &str,
    live: &GrantPrincipal,
    configured: Option<GrantPrincipal>,
) -> Option<GrantPrincipal> {
    let configured = configured?;
    if configured == *live {
        return Some(configured);
    }
    let same_kind = matches!(
        (&configured, live),
        (GrantPrincipal::Group(_), GrantPrincipal::Group(_)) | (GrantPrincipal::User(_), GrantPrincipal::User(_))
    );
    if !same_kind {
        return None;
    }
    match resolve_principal(client, domain_id, &configured).await {
        Ok(resolved) if resolved == *live => Some(configured),
        Ok(_) => None,
        // Not found: the configured name names no one now; the live principal shows (and the plan replaces it).
        Err(err) if err.is_not_found() => None,
        // Unreadable now: keep what was recorded rather than report drift that may not be there.
        Err(_) => Some(configured),
    }
}

impl DomainUnitPolicyGrantResource {
    fn remember(&self, grant_id: &str) {
        if let Ok(mut ids) = self.managed_ids.lock() {
            ids.insert(grant_id.to_string());
        }
    }

    fn is_managed(&self, grant_id: &str) -> bool {
        self.managed_ids.lock().is_ok_and(|ids| ids.contains(grant_id))
    }

    /// The plan-time checks against the domain: the domain unit, the principal's domain unit and every profile exist,
    /// and whether an identical grant exists outside this state (a warning: the apply adopts it only if it is this
    /// resource's own). Errors fail the plan; what cannot be read is a warning.
    async fn check(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        let planned = &change.planned;
        let Some(domain_id) = string(planned, "domain_id") else {
            return Ok(()); // unknown until another resource is applied: apply reports what is missing
        };
        let dz = &client.datazone;
        let unit_id = string(planned, "domain_unit_id");
        let principal_unit = nested(planned, "principal").and_then(|p| string(p, "domain_unit_id"));
        let profiles: Vec<(usize, String)> = match planned.get_attr("project_profile_ids") {
            Some(Value::List(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(index, item)| item.as_str().map(|id| (index, id.to_string())))
                .collect(),
            _ => Vec::new(),
        };
        let (unit, owner_unit, found_profiles) = tokio::join!(
            async {
                match &unit_id {
                    Some(unit) => Some(find_domain_unit(dz, &domain_id, unit).await),
                    None => None,
                }
            },
            async {
                match &principal_unit {
                    Some(unit) if Some(unit) != unit_id.as_ref() => Some(find_domain_unit(dz, &domain_id, unit).await),
                    _ => None,
                }
            },
            futures::future::join_all(profiles.iter().map(|(_, id)| find_project_profile(dz, &domain_id, id))),
        );

        let mut errors = Diagnostics::new();
        let mut warnings = Diagnostics::new();
        let place = format!("in account {} region {}", client.account_id, client.region.as_str());
        match (&unit_id, unit) {
            (Some(unit_id), Some(Err(err))) if err.is_not_found() => {
                // Is it the unit that is missing, or the whole domain?
                match find_domain(dz, &domain_id).await {
                    Err(err) if err.is_not_found() => {
                        return Err(Diagnostic::invalid_value(
                            path("domain_id"),
                            format!("{domain_id:?}"),
                            &format!("no Unified Studio domain of that ID exists {place}"),
                            "check the ID (`aws datazone list-domains`), or the provider's account and region",
                        )
                        .into());
                    }
                    _ => errors.push(Diagnostic::invalid_value(
                        path("domain_unit_id"),
                        format!("{unit_id:?}"),
                        &format!("no domain unit of that ID exists in domain {domain_id}"),
                        &format!(
                            "use the ID of an existing domain unit (`aws datazone list-domain-units-for-parent \
                             --domain-identifier {domain_id} --parent-domain-unit-identifier <root domain unit>`)"
                        ),
                    )),
                }
            }
            (_, Some(Err(err))) => warnings.push(could_not_verify(path("domain_unit_id"), "the domain unit", &err)),
            _ => {}
        }
        let owner_path = path("principal").push_attr("domain_unit_id");
        match (&principal_unit, owner_unit) {
            (Some(owner), Some(Err(err))) if err.is_not_found() => errors.push(Diagnostic::invalid_value(
                owner_path,
                format!("{owner:?}"),
                &format!("no domain unit of that ID exists in domain {domain_id}"),
                "name an existing domain unit whose owners may create projects",
            )),
            (_, Some(Err(err))) => warnings.push(could_not_verify(owner_path, "the principal's domain unit", &err)),
            _ => {}
        }
        // The principal's profile: DataZone refuses a grant to a user or group it has no profile of.
        let configured_principal = model::principal_from_value(planned);
        let mut resolved_principal = None;
        if let Some(principal) = &configured_principal {
            match resolve_principal(client, &domain_id, principal).await {
                Ok(resolved) => resolved_principal = Some(resolved),
                Err(err) => match unresolved_principal(&domain_id, principal, &err) {
                    Some(error) => errors.push(error),
                    None => warnings.push(could_not_verify(principal_path(principal), "the principal", &err)),
                },
            }
        }
        let mut known_profiles: Option<Result<Vec<ProjectProfile>, AwsError>> = None;
        for ((index, id), found) in profiles.iter().zip(found_profiles) {
            let item_path = path("project_profile_ids").index(*index);
            match found {
                Ok(profile) if !profile.is_enabled() => warnings.push(Diagnostic::warning(
                    item_path,
                    "Disabled project profile",
                    format!(
                        "project_profile_ids[{index}]: project profile {id} ({}) is {}: no project can be created \
                         from it until it is enabled, whatever this grant allows.",
                        profile.name,
                        profile.status.as_deref().unwrap_or("disabled")
                    ),
                )),
                Ok(_) => {}
                Err(err) if err.is_not_found() => {
                    if known_profiles.is_none() {
                        known_profiles = Some(list_project_profiles(dz, &domain_id).await);
                    }
                    let fix = match &known_profiles {
                        Some(Ok(all)) if !all.is_empty() => format!(
                            "use the ID of one of the domain's project profiles: {}",
                            all.iter()
                                .map(|p| format!("{} ({})", p.id, p.name))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        _ => format!(
                            "use the ID of an existing project profile (`aws datazone list-project-profiles \
                             --domain-identifier {domain_id}`)"
                        ),
                    };
                    errors.push(Diagnostic::invalid_value(
                        item_path,
                        format!("{id:?}"),
                        &format!("no project profile of that ID exists in domain {domain_id}"),
                        &fix,
                    ));
                }
                Err(err) => warnings.push(could_not_verify(item_path, "the project profile", &err)),
            }
        }

        // An identical grant not in this state: either this resource's own, added by an apply that was killed before
        // Terraform recorded it (the apply adopts it: same idempotency token), or someone else's (the apply is
        // refused with its import ID). Only DataZone can tell, at AddPolicyGrant: say so now.
        if errors.is_empty()
            && change.prior.is_none()
            && let Some(written) = GrantSpec::from_value(planned)
            && let Some(principal) = resolved_principal
        {
            let spec = GrantSpec { principal, ..written };
            match list_project_profile_grants(dz, &spec.domain_id, &spec.domain_unit_id).await {
                Ok(existing) => {
                    let same = existing
                        .iter()
                        .find(|grant| !self.is_managed(&grant.grant_id) && same_terms(grant, &spec));
                    if let Some(grant) = same {
                        let id = grant_resource_id(&spec.domain_id, &spec.domain_unit_id, &grant.grant_id);
                        warnings.push(Diagnostic::warning(
                            AttributePath::root(),
                            "An identical grant exists",
                            format!(
                                "Domain unit {} already has this grant (ID {}): same principal, profiles and \
                                 child-unit scope. If an earlier apply of this resource added it and was interrupted \
                                 before recording it, the apply adopts it; otherwise the apply fails. To manage it \
                                 here, import it: `terraform import {TYPE_NAME}.<name> {id}`, or an `import` block \
                                 with `id = \"{id}\"`.",
                                spec.domain_unit_id, grant.grant_id
                            ),
                        ));
                    }
                }
                Err(err) if err.is_not_found() => {}
                Err(err) => warnings.push(could_not_verify(
                    AttributePath::root(),
                    "that no identical grant exists",
                    &err,
                )),
            }
        }

        if errors.has_errors() {
            errors.extend(warnings);
            return Err(errors);
        }
        change.diagnostics.extend(warnings);
        Ok(())
    }

    /// `AddPolicyGrant` with the grant's own idempotency token; returns the grant's ID. DataZone answers a token
    /// it has seen with its first grant: after an interrupted apply that is the grant to adopt, but if that grant
    /// was removed since, the answer names a grant that is gone, and the next token in the chain is tried.
    /// `written` is the grant as configured (its token comes from that), `sent` the same with the principal resolved
    /// to its profile ID (what DataZone keeps, and what is sent).
    async fn add(&self, dz: &DataZoneClient, written: &GrantSpec, sent: &GrantSpec) -> Result<String, Diagnostics> {
        let spec = sent;
        let mut token = written.client_token();
        for _ in 0..MAX_STALE_TOKENS {
            let added = add_project_profile_grant(
                dz,
                &spec.domain_id,
                &spec.domain_unit_id,
                &spec.principal,
                &spec.project_profile_ids,
                spec.include_child_domain_units,
                &token,
            )
            .await;
            let grant_id = match added {
                Ok(grant_id) => grant_id,
                Err(err) if err.is(ErrorCode::ConflictException) => return Err(self.refused(dz, spec, &err).await),
                Err(err) => return Err(err.diagnostics(AttributePath::root(), "Adding the policy grant failed")),
            };
            match find_project_profile_grant(dz, &spec.domain_id, &spec.domain_unit_id, &grant_id).await {
                Ok(_) => return Ok(grant_id),
                Err(err) if err.is_not_found() => token = next_client_token(&token, &grant_id),
                Err(err) => {
                    return Err(err.diagnostics(AttributePath::root(), "Reading the policy grant just added failed"));
                }
            }
        }
        Err(Diagnostics::error(
            AttributePath::root(),
            "Adding the policy grant failed",
            format!(
                "DataZone answered AddPolicyGrant {MAX_STALE_TOKENS} times with a grant that no longer exists \
                 (grants of these terms were removed as often). Apply again later."
            ),
        ))
    }

    /// AddPolicyGrant conflicted: an identical grant that is not this resource's (another token added it).
    async fn refused(&self, dz: &DataZoneClient, spec: &GrantSpec, err: &AwsError) -> Diagnostics {
        let existing = list_project_profile_grants(dz, &spec.domain_id, &spec.domain_unit_id).await;
        let Some(grant) = existing
            .ok()
            .and_then(|all| all.into_iter().find(|g| same_terms(g, spec)))
        else {
            return err.diagnostics(AttributePath::root(), "Adding the policy grant failed");
        };
        let id = grant_resource_id(&spec.domain_id, &spec.domain_unit_id, &grant.grant_id);
        Diagnostics::error(
            AttributePath::root(),
            "The grant already exists",
            format!(
                "Domain unit {} already has this grant (ID {}): same principal, profiles and child-unit scope, \
                 added outside this resource. Fix: import it instead of adding a second one: `terraform import \
                 {TYPE_NAME}.<name> {id}`, or an `import` block with `id = \"{id}\"`.",
                spec.domain_unit_id, grant.grant_id
            ),
        )
    }

    /// The state of a grant just added: the plan's values, with the IDs.
    fn created_state(planned: &Value, spec: &GrantSpec, grant_id: &str) -> Value {
        let mut state = planned.clone();
        set_attr(
            &mut state,
            "id",
            text(grant_resource_id(&spec.domain_id, &spec.domain_unit_id, grant_id)),
        );
        set_attr(&mut state, "grant_id", text(grant_id));
        let facts = governance_value(&state);
        set_attr(&mut state, "governance", facts);
        unknowns_to_null(state)
    }
}

#[async_trait]
impl Resource<HyperpodClient> for DomainUnitPolicyGrantResource {
    fn type_name(&self) -> &'static str {
        TYPE_NAME
    }

    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn identity_schema(&self) -> Option<&IdentitySchema> {
        Some(&self.identity)
    }

    fn validate(&self, config: &Value, diagnostics: &mut Diagnostics) {
        model::validate_config(config, diagnostics);
    }

    async fn modify_plan(&self, client: &HyperpodClient, change: &mut PlannedChange) -> Result<(), Diagnostics> {
        let facts = governance_value(&change.planned);
        change.set("governance", facts);
        if let Some(grant_id) = change.prior_attr("grant_id").and_then(Value::as_str) {
            self.remember(grant_id);
        }
        // The principal is a block, which the schema's requires-replace does not cover: a new principal is a new
        // grant too.
        // A principal spelled another way that names the same profile (the group's ID after an import, its name in
        // configuration) is the same grant: recorded in place.
        if change.prior.is_some() && change.prior_attr("principal") != Some(change.planned_attr("principal")) {
            let domain_id = string(&change.planned, "domain_id");
            let prior = change.prior.as_ref().and_then(model::principal_from_value);
            let planned = model::principal_from_value(&change.planned);
            // Only a positive answer counts: both resolve, to the same profile (and the domain is unchanged).
            let respelled = match (domain_id, prior, planned) {
                (Some(domain_id), Some(prior), Some(planned))
                    if change.prior_attr("domain_id") == Some(change.planned_attr("domain_id")) =>
                {
                    let (prior, planned) = tokio::join!(
                        resolve_principal(client, &domain_id, &prior),
                        resolve_principal(client, &domain_id, &planned)
                    );
                    matches!((prior, planned), (Ok(a), Ok(b)) if a == b)
                }
                _ => false,
            };
            if !respelled {
                change.requires_replace.push(path("principal"));
            }
        }
        let changed = change.prior.is_none()
            || ARGUMENTS
                .iter()
                .any(|name| change.prior_attr(name) != Some(change.planned_attr(name)));
        if !changed {
            return Ok(()); // nothing to add: no reason to call DataZone
        }
        self.check(client, change).await
    }

    async fn create(&self, client: &HyperpodClient, planned: &Value, _: &OperationContext) -> Applied {
        let Some(spec) = GrantSpec::from_value(planned) else {
            return Diagnostics::error(
                AttributePath::root(),
                "Cannot add the policy grant",
                "The domain, the domain unit, the profiles or the principal are still unknown at apply.",
            )
            .into();
        };
        // The principal's profile before the first write: a name that names no one fails here, with nothing added.
        let sent = match resolve_principal(client, &spec.domain_id, &spec.principal).await {
            Ok(principal) => GrantSpec {
                principal,
                ..spec.clone()
            },
            Err(err) => {
                let error = unresolved_principal(&spec.domain_id, &spec.principal, &err).unwrap_or_else(|| {
                    Diagnostic::error(
                        principal_path(&spec.principal),
                        "Cannot resolve the principal",
                        err.to_string(),
                    )
                });
                return Diagnostics::from(error).into();
            }
        };
        match self.add(&client.datazone, &spec, &sent).await {
            Ok(grant_id) => {
                self.remember(&grant_id);
                Applied::ok(Self::created_state(planned, &spec, &grant_id))
            }
            Err(diagnostics) => diagnostics.into(),
        }
    }

    async fn read(
        &self,
        client: &HyperpodClient,
        current: &Value,
        _: &OperationContext,
    ) -> Result<Option<Value>, Diagnostics> {
        let Some((domain_id, unit_id, grant_id)) = grant_ids(current) else {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Unreadable state",
                format!("The {TYPE_NAME} in state has no domain, domain unit or grant ID."),
            ));
        };
        self.remember(&grant_id);
        match find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id).await {
            Ok(grant) => {
                let mut state = flatten(&grant, &domain_id, &unit_id, current);
                // DataZone reports a user or group by profile ID: state keeps the name the configuration gave.
                let recorded = model::principal_from_value(current);
                if let Some(kept) = as_configured(client, &domain_id, &grant.principal, recorded).await {
                    set_attr(&mut state, "principal", model::principal_value(&kept));
                }
                Ok(Some(state))
            }
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err.diagnostics(AttributePath::root(), "Reading the policy grant failed")),
        }
    }

    async fn update(&self, _: &HyperpodClient, prior: &Value, planned: &Value, _: &OperationContext) -> Applied {
        // Every argument forces replacement, so an update changes nothing in DataZone: keep the IDs.
        let mut state = planned.clone();
        for name in ["id", "grant_id"] {
            set_attr(&mut state, name, prior.get_attr(name).cloned().unwrap_or(Value::Null));
        }
        let facts = governance_value(&state);
        set_attr(&mut state, "governance", facts);
        Applied::ok(unknowns_to_null(state))
    }

    async fn delete(&self, client: &HyperpodClient, prior: &Value, _: &OperationContext) -> Result<(), Diagnostics> {
        let Some((domain_id, unit_id, grant_id)) = grant_ids(prior) else {
            return Ok(()); // nothing was ever added
        };
        // RemovePolicyGrant names the principal as DataZone has it, so read the grant first.
        let grant = match find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id).await {
            Ok(grant) => grant,
            Err(err) if err.is_not_found() => return Ok(()),
            Err(err) => return Err(err.diagnostics(AttributePath::root(), "Reading the policy grant failed")),
        };
        remove_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant)
            .await
            .map_err(|err| err.diagnostics(AttributePath::root(), "Removing the policy grant failed"))
    }

    async fn import(&self, client: &HyperpodClient, target: ImportTarget) -> Result<Value, Diagnostics> {
        let parts = match &target {
            ImportTarget::Id(id) => parse_resource_id(id),
            ImportTarget::Identity(identity) => match (
                string(identity, "domain_id"),
                string(identity, "domain_unit_id"),
                string(identity, "grant_id"),
            ) {
                (Some(domain), Some(unit), Some(grant)) => Some((domain, unit, grant)),
                _ => None,
            },
        };
        let Some((domain_id, unit_id, grant_id)) = parts else {
            return Err(Diagnostics::error(
                AttributePath::root(),
                "Invalid import ID",
                format!(
                    "Import {TYPE_NAME} by `<domain ID>/<domain unit ID>/<grant ID>`, e.g. \
                     `dzd_capacity01/mlplatform0001/AbCdEf0123` (grant IDs: `aws datazone list-policy-grants \
                     --domain-identifier <domain> --entity-type DOMAIN_UNIT --entity-identifier <unit> --policy-type \
                     {}`).",
                    grants::POLICY_TYPE
                ),
            ));
        };
        let grant = find_project_profile_grant(&client.datazone, &domain_id, &unit_id, &grant_id)
            .await
            .map_err(|err| {
                let detail = if err.is_not_found() {
                    format!(
                        "Domain unit {unit_id} of domain {domain_id} has no {} grant {grant_id:?}.",
                        grants::POLICY_TYPE
                    )
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
        self.remember(&grant_id);
        Ok(flatten(&grant, &domain_id, &unit_id, &self.schema.block.null_value()))
    }

    fn identity(&self, state: &Value) -> Option<Value> {
        let (domain_id, unit_id, grant_id) = grant_ids(state)?;
        Some(schema::identity(&domain_id, &unit_id, &grant_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, strings};
    use crate::protocol::plan::plan_with_schema;

    fn config(profiles: &[&str], group: &str) -> Value {
        object([
            ("id", Value::Null),
            ("grant_id", Value::Null),
            ("domain_id", text("dzd_capacity01")),
            ("domain_unit_id", text("mlplatform0001")),
            (
                "project_profile_ids",
                Value::List(profiles.iter().map(|p| text(*p)).collect()),
            ),
            ("include_child_domain_units", Value::Null),
            ("governance", Value::Null),
            (
                "principal",
                object([
                    ("group_id", text(group)),
                    ("user_id", Value::Null),
                    ("domain_unit_id", Value::Null),
                    ("designation", Value::Null),
                ]),
            ),
        ])
    }

    fn applied(config: &Value) -> Value {
        let mut state = config.clone();
        set_attr(&mut state, "include_child_domain_units", Value::Bool(false));
        set_attr(&mut state, "grant_id", text("AbCdEf0123"));
        set_attr(&mut state, "id", text("dzd_capacity01/mlplatform0001/AbCdEf0123"));
        let facts = governance_value(&state);
        set_attr(&mut state, "governance", facts);
        state
    }

    #[test]
    fn every_argument_forces_replacement() {
        let schema = schema::schema();
        for name in ARGUMENTS.iter().filter(|name| **name != "principal") {
            let attribute = schema.block.find_attribute(name).expect("declared");
            assert!(attribute.requires_replace, "{name}");
        }
        assert_eq!(schema.block.blocks[0].name, "principal");
        assert_eq!(
            (schema.block.blocks[0].min_items, schema.block.blocks[0].max_items),
            (1, 1)
        );
        for attribute in &schema.block.attributes {
            assert!(
                !attribute.description.is_empty(),
                "{} has no description",
                attribute.name
            );
        }
        assert!(schema.block.description.contains("ORG-1"));
    }

    #[test]
    fn a_changed_profile_list_replaces_and_an_unchanged_plan_is_empty() {
        let schema = schema::schema();
        let prior = applied(&config(&["hyperpodprof01"], "g"));
        let same = config(&["hyperpodprof01"], "g");
        let change = plan_with_schema(&schema.block, same.clone(), Some(prior.clone()), prior.clone());
        assert!(!change.has_changes());
        let changed = config(&["hyperpodprof01", "trainingprof01"], "g");
        let mut proposed = prior.clone();
        set_attr(
            &mut proposed,
            "project_profile_ids",
            changed.get_attr("project_profile_ids").cloned().unwrap(),
        );
        let change = plan_with_schema(&schema.block, changed, Some(prior), proposed);
        assert_eq!(change.requires_replace, vec![path("project_profile_ids")]);
    }

    #[test]
    fn ids_come_from_the_attributes_or_the_id() {
        let state = applied(&config(&["p"], "g"));
        assert_eq!(
            grant_ids(&state),
            Some(("dzd_capacity01".into(), "mlplatform0001".into(), "AbCdEf0123".into()))
        );
        let mut only_id = state.clone();
        set_attr(&mut only_id, "grant_id", Value::Null);
        assert_eq!(grant_ids(&only_id).map(|(_, _, g)| g), Some("AbCdEf0123".to_string()));
        let resource = DomainUnitPolicyGrantResource::default();
        assert_eq!(
            resource.identity(&state),
            Some(schema::identity("dzd_capacity01", "mlplatform0001", "AbCdEf0123"))
        );
        assert!(strings(&state, "project_profile_ids") == ["p"]);
    }
}
