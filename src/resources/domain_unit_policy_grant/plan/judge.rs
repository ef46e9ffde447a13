//! The grant's verdict, from what DataZone has of what it names: a domain, domain unit, principal or project profile
//! that does not exist is refused at its attribute; a disabled profile, an identical grant outside this state
//! (the apply adopts it only if it is this resource's own), and whatever could not be read are warnings.

use super::super::model::{GrantConfig, GrantTerms, grant_resource_id, principal_path};
use super::super::schema::{GrantPrincipalBlock, PolicyGrantModel, TYPE_NAME};
use super::GrantPlanInputs;
use super::gather::{DataZoneLookup, GrantDomainReads};
use crate::aws::datazone_grants::{GrantPrincipal, ProjectProfile};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};

/// The plan's errors and warnings, kept apart: errors are refusals (with the warnings after them).
#[derive(Default)]
struct Findings {
    errors: Diagnostics,
    warnings: Diagnostics,
}

/// The warnings to show (`Ok`), or the refusals, with the warnings after them.
pub fn judge(inputs: &GrantPlanInputs) -> Result<Diagnostics, Diagnostics> {
    let (Some(reads), Some(domain_id)) = (&inputs.domain, &inputs.config.domain_id) else {
        return Ok(Diagnostics::new());
    };
    if reads.domain_missing {
        return Err(Diagnostic::invalid_value(
            PolicyGrantModel::DOMAIN_ID.path(),
            format!("{domain_id:?}"),
            &format!(
                "no Unified Studio domain of that ID exists in account {} region {}",
                inputs.account_id, inputs.region
            ),
            "check the ID (`aws datazone list-domains`), or the provider's account and region",
        )
        .into());
    }
    let mut findings = Findings::default();
    domain_units(&inputs.config, reads, domain_id, &mut findings);
    principal(&inputs.config, reads, domain_id, &mut findings);
    profiles(&inputs.config, reads, domain_id, &mut findings);
    identical_grant(inputs, reads, &mut findings);
    if findings.errors.has_errors() {
        findings.errors.extend(findings.warnings);
        return Err(findings.errors);
    }
    Ok(findings.warnings)
}

fn could_not_verify(path: AttributePath, what: &str, reason: &str) -> Diagnostic {
    Diagnostic::warning(
        path,
        format!("Could not verify {what}"),
        format!("{reason}. The plan goes on; apply fails if it does not exist."),
    )
}

/// The domain unit, and the domain unit whose owners are granted.
fn domain_units(config: &GrantConfig, reads: &GrantDomainReads, domain_id: &str, findings: &mut Findings) {
    match (&config.domain_unit_id, &reads.unit) {
        (Some(unit_id), Some(DataZoneLookup::Missing)) => findings.errors.push(Diagnostic::invalid_value(
            PolicyGrantModel::DOMAIN_UNIT_ID.path(),
            format!("{unit_id:?}"),
            &format!("no domain unit of that ID exists in domain {domain_id}"),
            &format!(
                "use the ID of an existing domain unit (`aws datazone list-domain-units-for-parent \
                 --domain-identifier {domain_id} --parent-domain-unit-identifier <root domain unit>`)"
            ),
        )),
        (_, Some(DataZoneLookup::Unreadable(reason))) => {
            findings.warnings.push(could_not_verify(
                PolicyGrantModel::DOMAIN_UNIT_ID.path(),
                "the domain unit",
                reason,
            ));
        }
        _ => {}
    }
    let owner_path = PolicyGrantModel::PRINCIPAL
        .path()
        .push_attr(GrantPrincipalBlock::DOMAIN_UNIT_ID.name());
    match (&config.principal_unit, &reads.owner_unit) {
        (Some(owner), Some(DataZoneLookup::Missing)) => findings.errors.push(Diagnostic::invalid_value(
            owner_path,
            format!("{owner:?}"),
            &format!("no domain unit of that ID exists in domain {domain_id}"),
            "name an existing domain unit whose owners may create projects",
        )),
        (_, Some(DataZoneLookup::Unreadable(reason))) => {
            findings
                .warnings
                .push(could_not_verify(owner_path, "the principal's domain unit", reason));
        }
        _ => {}
    }
}

/// The principal's profile: DataZone refuses a grant to a user or group it has no profile of.
fn principal(config: &GrantConfig, reads: &GrantDomainReads, domain_id: &str, findings: &mut Findings) {
    let (Some(principal), Some(found)) = (&config.principal, &reads.principal) else {
        return;
    };
    match found {
        DataZoneLookup::Found(_) => {}
        DataZoneLookup::Missing => match unresolved_principal(domain_id, principal) {
            Some(error) => findings.errors.push(error),
            None => findings.warnings.push(could_not_verify(
                principal_path(principal),
                "the principal",
                "not found",
            )),
        },
        DataZoneLookup::Unreadable(reason) => {
            findings
                .warnings
                .push(could_not_verify(principal_path(principal), "the principal", reason));
        }
    }
}

/// The principal resolved at apply, before the first write: a name that names no one fails here.
pub fn principal_at_apply(
    domain_id: &str,
    principal: &GrantPrincipal,
    found: DataZoneLookup<GrantPrincipal>,
) -> Result<GrantPrincipal, Diagnostics> {
    let reason = match found {
        DataZoneLookup::Found(resolved) => return Ok(resolved),
        DataZoneLookup::Missing => match unresolved_principal(domain_id, principal) {
            Some(error) => return Err(error.into()),
            None => "not found".to_string(),
        },
        DataZoneLookup::Unreadable(reason) => reason,
    };
    Err(Diagnostic::error(principal_path(principal), "Cannot resolve the principal", reason).into())
}

/// The error for a user or group that names no profile in the domain (`None` for the other kinds, which name none).
fn unresolved_principal(domain_id: &str, principal: &GrantPrincipal) -> Option<Diagnostic> {
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

/// Every listed project profile exists (and is enabled, or it creates no project whatever is granted).
fn profiles(config: &GrantConfig, reads: &GrantDomainReads, domain_id: &str, findings: &mut Findings) {
    for ((index, id), found) in config.project_profile_ids.iter().zip(&reads.profiles) {
        let item_path = PolicyGrantModel::PROJECT_PROFILE_IDS.path().index(*index);
        match found {
            DataZoneLookup::Found(profile) if !profile.is_enabled() => findings.warnings.push(Diagnostic::warning(
                item_path,
                "Disabled project profile",
                format!(
                    "project_profile_ids[{index}]: project profile {id} ({}) is {}: no project can be created from \
                     it until it is enabled, whatever this grant allows.",
                    profile.name,
                    profile.status.as_deref().unwrap_or("disabled")
                ),
            )),
            DataZoneLookup::Found(_) => {}
            DataZoneLookup::Missing => findings.errors.push(Diagnostic::invalid_value(
                item_path,
                format!("{id:?}"),
                &format!("no project profile of that ID exists in domain {domain_id}"),
                &profile_fix(domain_id, reads.domain_profiles.as_deref()),
            )),
            DataZoneLookup::Unreadable(reason) => {
                findings
                    .warnings
                    .push(could_not_verify(item_path, "the project profile", reason));
            }
        }
    }
}

/// The fix for a missing profile: the domain's profiles when they could be listed.
fn profile_fix(domain_id: &str, known: Option<&[ProjectProfile]>) -> String {
    match known {
        Some(all) if !all.is_empty() => format!(
            "use the ID of one of the domain's project profiles: {}",
            all.iter()
                .map(|p| format!("{} ({})", p.id, p.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => format!(
            "use the ID of an existing project profile (`aws datazone list-project-profiles --domain-identifier \
             {domain_id}`)"
        ),
    }
}

/// An identical grant not in this state: either this resource's own, added by an apply that was killed before
/// Terraform recorded it (the apply adopts it: same idempotency token), or someone else's (the apply is refused
/// with its import ID). Only DataZone can tell, at AddPolicyGrant: say so now.
fn identical_grant(inputs: &GrantPlanInputs, reads: &GrantDomainReads, findings: &mut Findings) {
    let (Some(terms), Some(DataZoneLookup::Found(principal)), Some(grants)) =
        (&inputs.config.terms, &reads.principal, &reads.unit_grants)
    else {
        return;
    };
    if !findings.errors.is_empty() || !inputs.is_create {
        return;
    }
    let existing = match grants {
        DataZoneLookup::Found(existing) => existing,
        DataZoneLookup::Missing => return,
        DataZoneLookup::Unreadable(reason) => {
            let what = "that no identical grant exists";
            findings
                .warnings
                .push(could_not_verify(AttributePath::root(), what, reason));
            return;
        }
    };
    let resolved = GrantTerms {
        principal: principal.clone(),
        ..terms.clone()
    };
    let Some(grant) = existing.iter().find(|grant| resolved.is_granted_by(grant)) else {
        return;
    };
    let id = grant_resource_id(&resolved.domain_id, &resolved.domain_unit_id, &grant.grant_id);
    findings.warnings.push(Diagnostic::warning(
        AttributePath::root(),
        "An identical grant exists",
        format!(
            "Domain unit {} already has this grant (ID {}): same principal, profiles and child-unit scope. If an \
             earlier apply of this resource added it and was interrupted before recording it, the apply adopts it; \
             otherwise the apply fails. To manage it here, import it: `terraform import {TYPE_NAME}.<name> {id}`, or \
             an `import` block with `id = \"{id}\"`.",
            resolved.domain_unit_id, grant.grant_id
        ),
    ));
}
