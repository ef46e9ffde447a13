//! Apply: the tenant's workload IAM role (Pod Identity trust, tagged with the contract) and its inline policies.
//! A role of its name that is not the tenant's is refused before the quota claims anything.

use super::super::model::components::{role_policies, trust_policy};
use super::super::model::ownership::foreign_role;
use super::composer::{Composer, PROPAGATION, failed};
use crate::aws::wait::retry_propagation;
use crate::aws::{ErrorCode, iam};
use crate::component::{Component, ComponentKind};
use crate::protocol::diagnostics::Diagnostics;

impl Composer<'_> {
    /// Before the first write of a create: a role of the workload role's name that is not this tenant's fails the
    /// apply now, before the quota claims capacity, so nothing of the tenant is left to clean up.
    pub(super) async fn refuse_foreign_role(&self) -> Result<(), Diagnostics> {
        if self.components.contains_key(&Component::IamRole) {
            return Ok(());
        }
        match iam::find_role(&self.client.iam, &self.target.role_name).await {
            Ok(role) if !self.tagged_as_ours(&role.tags) => Err(foreign_role(&self.target.role_name).into()),
            Ok(_) => Ok(()),
            Err(err) if err.is_not_found() => Ok(()),
            Err(err) => Err(failed("Reading the tenant workload role failed", err)),
        }
    }

    pub(super) async fn ensure_role(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        if self.components.contains_key(&Component::IamRole) {
            let role = match iam::find_role(&self.client.iam, &target.role_name).await {
                Ok(role) => Some(role),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading the tenant workload role failed", err)),
            };
            if let Some(role) = role {
                if role.tags != target.tags {
                    iam::set_role_tags(&self.client.iam, &target.role_name, &role.tags, &target.tags)
                        .await
                        .map_err(|err| failed("Tagging the tenant workload role failed", err))?;
                }
                return Ok(());
            }
            self.components.remove(&Component::IamRole);
        }
        let description = format!("hyperpod_tenant {} on {}", target.config.team, target.cluster_name);
        let created = iam::create_role(
            &self.client.iam,
            &target.role_name,
            &trust_policy(),
            &description,
            &target.tags,
        )
        .await;
        match created {
            Ok(_) => {
                self.components.insert(&Component::IamRole, target.role_name.clone());
                Ok(())
            }
            Err(err) if err.is(ErrorCode::EntityAlreadyExists) => {
                // Created moments ago by an interrupted apply, it may not be readable yet (IAM is eventually
                // consistent): read it through propagation.
                let role = retry_propagation("the workload role", PROPAGATION, || {
                    iam::find_role(&self.client.iam, &target.role_name)
                })
                .await
                .map_err(|err| failed("Reading the existing workload role failed", err))?;
                if !self.tagged_as_ours(&role.tags) {
                    return Err(foreign_role(&target.role_name).into());
                }
                // Ours from an earlier, interrupted apply: adopt it.
                self.components.insert(&Component::IamRole, target.role_name.clone());
                Ok(())
            }
            Err(err) => Err(failed("Creating the tenant workload role failed", err)),
        }
    }

    /// Deletes the workload role and its inline policies, if the tenant has one.
    pub(super) async fn remove_role(&self) -> Result<(), Diagnostics> {
        if self.components.contains_key(&Component::IamRole) {
            // delete_role removes the inline policies first.
            iam::delete_role(&self.client.iam, &self.target.role_name)
                .await
                .map_err(|err| failed("Deleting the tenant workload role failed", err))?;
            self.components
                .retain(|c| !matches!(c.kind(), ComponentKind::IamRole | ComponentKind::IamPolicy));
        }
        Ok(())
    }

    pub(super) async fn ensure_role_policies(&mut self) -> Result<(), Diagnostics> {
        let target = self.target;
        let wanted = role_policies(&target.config, &target.partition);
        for (name, document) in &wanted {
            // The role may have been created moments ago: IAM answers NoSuchEntity until it propagates (AWS's
            // guidance, "Changes that I make are not always immediately visible"; terraform-provider-aws waits 2
            // minutes too). PutRolePolicy replaces the document, so a retry is safe.
            retry_propagation("the workload role", PROPAGATION, || {
                iam::put_role_policy(&self.client.iam, &target.role_name, name, document)
            })
            .await
            .map_err(|err| failed(&format!("Writing the workload role's {name} policy failed"), err))?;
            self.components
                .insert(&Component::IamPolicy(name.clone()), target.role_name.clone());
        }
        let stale: Vec<Component> = (self.components.of_kind(ComponentKind::IamPolicy).into_iter())
            .map(|(component, _)| component)
            .filter(|component| !wanted.contains_key(component.name().unwrap_or_default()))
            .collect();
        for component in stale {
            let name = component.name().unwrap_or_default();
            iam::delete_role_policy(&self.client.iam, &target.role_name, name)
                .await
                .map_err(|err| failed(&format!("Removing the workload role's {name} policy failed"), err))?;
            self.components.remove(&component);
        }
        Ok(())
    }
}
