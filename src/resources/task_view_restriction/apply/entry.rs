//! EKS: the Roles' namespaces exist before the first write (rbac mode), and the project role's access entry: ours
//! if we made it; Studio's "Manage access" may have made it first, then it is adopted (left on destroy) and carries
//! the contract's mark. Its Kubernetes groups are the restriction's in rbac mode.

use super::super::model::{CONTRACT_TAG, OWNER_TAG, RestrictionMode, contract_mark};
use super::super::plan::{absent_namespaces, missing_namespace};
use super::applier::RestrictionApplier;
use crate::aws::ErrorCode;
use crate::aws::eks_access::{self as access, AccessEntryRecord};
use crate::component::{Component, ComponentKind};
use crate::kubernetes::KubeClient;
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;

impl RestrictionApplier<'_> {
    /// rbac mode, before anything is written: every namespace the Roles go into exists (a referenced tenant, applied
    /// first, made its own); a missing one fails here, naming the tenant to reference.
    pub(super) async fn namespaces_exist(&self, cluster: &str) -> Result<KubeClient, Diagnostics> {
        let kube = self.kube(cluster).await?;
        let absent = absent_namespaces(&kube, &self.config.namespaces)
            .await
            .map_err(|err| failed("Reading the cluster's namespaces failed", err))?;
        if !absent.is_empty() {
            return Err(Diagnostics(
                absent
                    .iter()
                    .map(|namespace| missing_namespace(namespace, "at apply"))
                    .collect(),
            ));
        }
        Ok(kube)
    }

    /// The access entry, created or adopted, with the restriction's group in rbac mode. Not recorded yet: most
    /// likely absent, so create first (one call); one that exists is adopted.
    pub(super) async fn entry(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        let eks = &self.client.eks;
        let principal = self.config.project_role_arn.clone();
        let rbac = self.config.mode == RestrictionMode::Rbac;
        let group_key = Component::AccessEntryGroup(self.config.kubernetes_group.clone());
        let created = !self.components.contains(&Component::ProjectAccessEntry)
            && match access::create_access_entry(eks, cluster, &principal, &self.groups_at_create(), &self.tags).await {
                Ok(()) => true,
                Err(err) if err.is(ErrorCode::ResourceInUseException) => false,
                Err(err) => return Err(failed("Creating the project role's access entry failed", err)),
            };
        if created {
            self.components
                .insert(&Component::ProjectAccessEntry, principal.clone());
        } else {
            match access::describe_access_entry(eks, cluster, &principal).await {
                Ok(live) => self.adopt(cluster, &live, &group_key).await?,
                Err(err) if err.is_not_found() => {
                    access::create_access_entry(eks, cluster, &principal, &self.groups_at_create(), &self.tags)
                        .await
                        .map_err(|err| failed("Creating the project role's access entry failed", err))?;
                    self.components
                        .insert(&Component::ProjectAccessEntry, principal.clone());
                }
                Err(err) => return Err(failed("Reading the project role's access entry failed", err)),
            }
        }
        if rbac {
            self.components.insert(&group_key, self.config.kubernetes_group.clone());
        } else {
            self.components.remove(&group_key);
        }
        Ok(())
    }

    /// The groups a new entry is created with: the restriction's in rbac mode.
    fn groups_at_create(&self) -> Vec<String> {
        if self.config.mode == RestrictionMode::Rbac {
            vec![self.config.kubernetes_group.clone()]
        } else {
            Vec::new()
        }
    }

    /// An entry that exists: ours if it carries this restriction's owner tag (an interrupted create), adopted
    /// otherwise; its groups brought to what the restriction wants.
    async fn adopt(
        &mut self,
        cluster: &str,
        live: &AccessEntryRecord,
        group_key: &Component,
    ) -> Result<(), Diagnostics> {
        let principal = &self.config.project_role_arn;
        if self.owner.is_some() && live.tags.get(OWNER_TAG) == self.owner.as_ref() {
            self.components
                .insert(&Component::ProjectAccessEntry, principal.clone());
        }
        let groups = self.wanted_groups(&live.kubernetes_groups);
        if groups != live.kubernetes_groups {
            access::update_access_entry_groups(&self.client.eks, cluster, principal, &groups)
                .await
                .map_err(|err| failed("Updating the project role's access entry failed", err))?;
        }
        (self.components)
            .retain(|component, _| component.kind() != ComponentKind::AccessEntryGroup || component == group_key);
        if !self.components.contains(&Component::ProjectAccessEntry) {
            self.mark_adopted_entry(live).await?;
        }
        Ok(())
    }

    /// The entry's groups as the restriction wants them: a group it added earlier and no longer wants (rbac mode
    /// left, another group) goes; in rbac mode its group is there.
    fn wanted_groups(&self, live: &[String]) -> Vec<String> {
        let ours = |g: &String| self.components.contains(&Component::AccessEntryGroup(g.clone()));
        let mut groups: Vec<String> = live
            .iter()
            .filter(|g| !(ours(g) && **g != self.config.kubernetes_group))
            .cloned()
            .collect();
        let rbac = self.config.mode == RestrictionMode::Rbac;
        if rbac && !groups.contains(&self.config.kubernetes_group) {
            groups.push(self.config.kubernetes_group.clone());
        }
        if !rbac {
            groups.retain(|g| !ours(g));
        }
        groups
    }

    /// An adopted entry carries the contract's name (`hyperpod:contract`) like an entry the restriction made, so the
    /// inventory reads it as governed; recorded, so destroy takes the mark off again.
    async fn mark_adopted_entry(&mut self, live: &AccessEntryRecord) -> Result<(), Diagnostics> {
        let Some(contract) = self.tags.get(CONTRACT_TAG).cloned() else {
            return Ok(());
        };
        let mut wanted = live.tags.clone();
        wanted.insert(CONTRACT_TAG.to_string(), contract.clone());
        if wanted != live.tags {
            access::update_tags(&self.client.eks, &live.arn, &live.tags, &wanted)
                .await
                .map_err(|err| failed("Tagging the project role's access entry failed", err))?;
        }
        self.components.insert(&contract_mark(), contract);
        Ok(())
    }
}
