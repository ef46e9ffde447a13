//! Apply: create the connection and the memberships, update the description and the memberships, destroy both.
//! What the plan left unknown is judged and derived first (`plan::resolve`), before any write. Every step records
//! what exists, so a failure leaves state that names the connection and the members made so far.
//!
//! - `connection.rs`: the HyperPod connection (its idempotency token, create and wait, delete and wait).
//! - `members.rs`: the project memberships (resolved to profiles first, then added, replaced or removed).
//! - `declarations.rs`: the memberships each binding declares, so a member two bindings of a project declare stays
//!   while either does.

mod connection;
mod declarations;
mod members;

use super::model::{BindingConfig, members_of, membership, state_after, without_connection};
use super::plan::resolve;
use super::schema::BindingModel;
use crate::aws::datazone_connections::Membership;
use crate::client::HyperpodClient;
use crate::errors::ErrorDiagnostics;
use crate::governance::Member;
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::protocol::model::Field;
use crate::protocol::resource::{Applied, OperationContext};
use crate::protocol::value::Value;
use crate::resources::connection_contract::contract_from_governance;
use crate::resources::governance_objects::ContractArgument;
use connection::BindingApplyTarget;

/// Creates the connection, then the memberships; every member's profile is resolved before the first write.
pub async fn create(client: &HyperpodClient, planned: &Value, context: &OperationContext) -> Applied {
    let value = match resolve(client, planned, None, &context.deferred_checks).await {
        Ok(value) => value,
        Err(diagnostics) => return diagnostics.into(),
    };
    let target = match target(&value) {
        Ok(target) => target,
        Err(diagnostics) => return diagnostics.into(),
    };
    let config = &target.config;
    // Every member's profile before the first write: a name that names no one fails here, with nothing created.
    let profile_ids = match members::resolve(client, &target.domain_id, &config.members).await {
        Ok(ids) => ids,
        Err(diagnostics) => return diagnostics.into(),
    };
    let connection = match connection::create(client, context, &value, &target).await {
        Ok(connection) => connection,
        Err(applied) => return applied,
    };
    let mut added = Vec::new();
    let wanted = wanted_memberships(config, &profile_ids);
    let declarer = declarer(&target.domain_id, config);
    if let Err(diagnostics) = declarer.declare(client, &wanted, &record_tags(client, config)).await {
        return Applied::failed(Some(state_after(&value, Some(&connection), &added)), diagnostics);
    }
    match members::add_all(client, &target.domain_id, config, &profile_ids, &mut added).await {
        Ok(()) => Applied::ok(state_after(&value, Some(&connection), &added)),
        Err(diagnostics) => Applied::failed(Some(state_after(&value, Some(&connection), &added)), diagnostics),
    }
}

/// Where the connection goes, from the resolved value.
fn target(value: &Value) -> Result<BindingApplyTarget, Diagnostics> {
    let (Some(config), Some(environment_id)) =
        (BindingConfig::decode(value), BindingModel::ENVIRONMENT_ID.known(value))
    else {
        return Err(Diagnostics::error(
            BindingModel::ENVIRONMENT_ID.path(),
            "The project's tooling environment is unknown",
            "The HyperPod connection is created in the project's tooling environment, which could not be read; \
             check the provider's DataZone permissions and plan again.",
        ));
    };
    let contract = ContractArgument::CONTRACT.get(value).ok();
    let Some(contract) = contract.as_ref().and_then(contract_from_governance) else {
        return Err(Diagnostics::error(
            ContractArgument::CONTRACT.path(),
            "The contract's facts are unknown",
            "Plan again once the contract is applied.",
        ));
    };
    Ok(BindingApplyTarget {
        domain_id: BindingModel::DOMAIN_ID.known(value).unwrap_or_default(),
        environment_id,
        connection_name: BindingModel::CONNECTION_NAME.known(value).unwrap_or_default(),
        account_id: contract.cluster.account_id,
        region: contract.cluster.region,
        config,
    })
}

/// Description in place; memberships removed, added, or (a new designation) removed and added again. On failure the
/// state keeps the prior arguments, so the next plan still shows what is left to do, with the members that exist.
pub async fn update(client: &HyperpodClient, prior: &Value, planned: &Value, context: &OperationContext) -> Applied {
    let value = match resolve(client, planned, Some(prior), &context.deferred_checks).await {
        Ok(value) => value,
        Err(diagnostics) => return Applied::failed(Some(prior.clone()), diagnostics),
    };
    let Some(config) = BindingConfig::decode(&value) else {
        return Applied::failed(
            Some(prior.clone()),
            Diagnostics::error(
                AttributePath::root(),
                "The binding's arguments are unknown",
                "A value the binding depends on was not known at apply.",
            ),
        );
    };
    let domain_id = BindingModel::DOMAIN_ID.known(prior).unwrap_or_default();
    let mut current = members_of(prior).unwrap_or_default();
    let mut kept = prior.clone();
    let stop = |kept: &Value, current: &[Member], diagnostics: Diagnostics| {
        Applied::failed(Some(state_after(kept, None, current)), diagnostics)
    };
    if let Err(diagnostics) = update_description(client, &mut kept, &config).await {
        return stop(&kept, &current, diagnostics);
    }
    // Every wanted member's profile before the first write.
    let profile_ids = match members::resolve(client, &domain_id, &config.members).await {
        Ok(ids) => ids,
        Err(diagnostics) => return stop(&kept, &current, diagnostics),
    };
    let wanted = wanted_memberships(&config, &profile_ids);
    // What this binding declares now, first: another binding's removal decides on it.
    let declarer = declarer(&domain_id, &config);
    if let Err(diagnostics) = declarer.declare(client, &wanted, &record_tags(client, &config)).await {
        return stop(&kept, &current, diagnostics);
    }
    let lock = declarations::lock(client, &domain_id, &config.project_id);
    let guard = lock.lock().await;
    let others = match declarer.declared_by_others(client).await {
        Ok(others) => others,
        Err(diagnostics) => return stop(&kept, &current, diagnostics),
    };
    let removed = members::remove_unwanted(client, &domain_id, &config, (&wanted, &others), &mut current).await;
    drop(guard);
    let respelled = match removed {
        Ok(respelled) => respelled,
        Err(diagnostics) => return stop(&kept, &current, diagnostics),
    };
    let wanted = (wanted.as_slice(), respelled.as_slice());
    if let Err(diagnostics) = members::add_missing(client, &domain_id, &config, wanted, &mut current).await {
        return stop(&kept, &current, diagnostics);
    }
    Applied::ok(state_after(&value, None, &config.members))
}

/// The connection's description, changed in place and recorded in `kept`. Clearing it is a replacement (planned
/// so), never an update.
async fn update_description(
    client: &HyperpodClient,
    kept: &mut Value,
    config: &BindingConfig,
) -> Result<(), Diagnostics> {
    let Some(description) = &config.description else {
        return Ok(());
    };
    if BindingModel::DESCRIPTION.known(kept).as_ref() == Some(description) {
        return Ok(());
    }
    let domain_id = BindingModel::DOMAIN_ID.known(kept).unwrap_or_default();
    let connection_id = BindingModel::CONNECTION_ID.known(kept).unwrap_or_default();
    let updated = crate::aws::datazone_connections::update_connection_description(
        &client.datazone,
        &domain_id,
        &connection_id,
        description,
    )
    .await;
    if let Err(err) = updated {
        return Err(err.diagnostics(
            BindingModel::DESCRIPTION.path(),
            "Cannot update the HyperPod connection",
        ));
    }
    BindingModel::DESCRIPTION.set(kept, &Field::Known(description.clone()));
    Ok(())
}

/// Removes the connection, then the members the binding manages; what is already gone counts as removed. A failure
/// part-way returns the state of what remains (no connection, the members not yet removed), so the binding stays in
/// state until every part is gone and the next destroy removes the rest.
pub async fn destroy(client: &HyperpodClient, prior: &Value, context: &OperationContext) -> Applied {
    let members = members_of(prior).unwrap_or_default();
    let domain_id = BindingModel::DOMAIN_ID.known(prior).unwrap_or_default();
    let project_id = BindingModel::PROJECT_ID.known(prior).unwrap_or_default();
    let cluster_name = BindingModel::CLUSTER_NAME.known(prior).unwrap_or_default();
    if let Some(connection_id) = BindingModel::CONNECTION_ID.known(prior) {
        let wait = context.time_left();
        if let Err(diagnostics) = connection::delete(client, context, &domain_id, &connection_id, wait).await {
            return Applied::failed(Some(prior.clone()), diagnostics);
        }
    }
    let declarer = declarations::Declarer {
        domain_id: &domain_id,
        project_id: &project_id,
        cluster_name: &cluster_name,
    };
    // One binding of the project at a time: each sees whether the other still declares a member.
    let lock = declarations::lock(client, &domain_id, &project_id);
    let _guard = lock.lock().await;
    let kept = without_connection(prior, &members);
    let others = match declarer.declared_by_others(client).await {
        Ok(others) => others,
        Err(diagnostics) => return Applied::failed(Some(kept), diagnostics),
    };
    if let Err((index, diagnostics)) = members::remove_all(client, (&domain_id, &project_id), &members, &others).await {
        return Applied::failed(Some(without_connection(prior, &members[index..])), diagnostics);
    }
    match declarer.withdraw(client).await {
        Ok(()) => Applied {
            state: None,
            diagnostics: Diagnostics::new(),
        },
        Err(diagnostics) => Applied::failed(Some(without_connection(prior, &[])), diagnostics),
    }
}

/// The memberships `config` wants, its members resolved to `profile_ids` (in the same order).
fn wanted_memberships(config: &BindingConfig, profile_ids: &[String]) -> Vec<Membership> {
    config
        .members
        .iter()
        .zip(profile_ids)
        .map(|(member, id)| membership(member, id))
        .collect()
}

/// Where the binding of `config` declares its members.
fn declarer<'a>(domain_id: &'a str, config: &'a BindingConfig) -> declarations::Declarer<'a> {
    declarations::Declarer {
        domain_id,
        project_id: &config.project_id,
        cluster_name: &config.cluster_name,
    }
}

/// The tags of the binding's member record: the provider's default tags and the project it is of.
fn record_tags(client: &HyperpodClient, config: &BindingConfig) -> std::collections::BTreeMap<String, String> {
    let mut tags = client.default_tags.clone();
    tags.insert(crate::tags::PROJECT.to_string(), config.project_id.clone());
    tags
}

/// The other bindings' checks see this binding's connection and memberships as they now are.
pub fn forget(client: &HyperpodClient, states: [&Value; 3]) {
    for state in states {
        client.reads.forget_connection(
            BindingModel::CONNECTION_ID.known(state).as_deref(),
            BindingModel::PROJECT_ID.known(state).as_deref(),
        );
    }
}
