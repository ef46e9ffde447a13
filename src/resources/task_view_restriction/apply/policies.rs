//! EKS `access_policy` mode: the access policy associations on the project role's entry. Each wanted one is
//! associated (all at once, each recorded if it succeeded); one recorded and no longer wanted is removed.

use super::super::model::{RestrictionAssociation, component_policy_arn};
use super::applier::RestrictionApplier;
use crate::aws::eks_access as access;
use crate::component::{Component, ComponentKind};
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;

impl RestrictionApplier<'_> {
    pub(super) async fn policies(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        let wanted = self.config.associations(&self.partition);
        self.associate(cluster, &wanted).await?;
        let keep: Vec<Component> = wanted.iter().map(RestrictionAssociation::component).collect();
        let stale: Vec<Component> = (self.components.of_kind(ComponentKind::AccessPolicy))
            .map(|(component, _)| component)
            .filter(|component| !keep.contains(component))
            .collect();
        for key in stale {
            let policy = component_policy_arn(&self.partition, &key).unwrap_or_default();
            access::disassociate_access_policy(&self.client.eks, cluster, &self.config.project_role_arn, &policy)
                .await
                .map_err(|err| failed(&format!("Removing {policy} failed"), err))?;
            self.components.remove(&key);
        }
        Ok(())
    }

    /// Independent of each other: all at once, each recorded if it succeeded.
    async fn associate(&mut self, cluster: &str, wanted: &[RestrictionAssociation]) -> Result<(), Diagnostics> {
        let eks = &self.client.eks;
        let principal = &self.config.project_role_arn;
        let associated = futures::future::join_all(wanted.iter().map(|association| async move {
            access::associate_access_policy(
                eks,
                cluster,
                principal,
                &association.policy_arn,
                &association.namespaces,
            )
            .await
            .map_err(|err| failed(&format!("Associating {} failed", association.policy_arn), err))
        }))
        .await;
        let mut failures = Diagnostics::new();
        for (association, result) in wanted.iter().zip(associated) {
            match result {
                Ok(()) => {
                    self.components.insert(&association.component(), association.scope());
                }
                Err(diagnostics) => failures.extend(diagnostics),
            }
        }
        if failures.has_errors() {
            return Err(failures);
        }
        Ok(())
    }
}
