//! EKS destroy: what `components` names and nothing else. The RBAC objects go; an access entry the restriction made
//! goes whole; of an adopted one only the policy associations, the contract's mark and the groups it added.

use super::super::model::{CONTRACT_TAG, component_path, component_policy_arn, contract_mark};
use super::applier::RestrictionApplier;
use crate::aws::eks_access::{self as access, AccessEntryRecord};
use crate::component::{Component, ComponentKind};
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;

impl RestrictionApplier<'_> {
    pub(super) async fn remove_eks(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        self.delete_objects(cluster).await?;
        if self.components.contains(&Component::ProjectAccessEntry) {
            access::delete_access_entry(&self.client.eks, cluster, &self.config.project_role_arn)
                .await
                .map_err(|err| failed("Deleting the project role's access entry failed", err))?;
            self.components.clear();
            return Ok(());
        }
        let policies: Vec<(Component, String)> = (self.components.iter())
            .filter_map(|(component, _)| Some((component.clone(), component_policy_arn(&self.partition, &component)?)))
            .collect();
        for (key, policy) in policies {
            access::disassociate_access_policy(&self.client.eks, cluster, &self.config.project_role_arn, &policy)
                .await
                .map_err(|err| failed(&format!("Removing {policy} failed"), err))?;
            self.components.remove(&key);
        }
        self.release_entry(cluster).await?;
        self.components.clear();
        Ok(())
    }

    /// The recorded Kubernetes objects.
    async fn delete_objects(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        let paths: Vec<(Component, String)> = (self.components.iter())
            .filter_map(|(component, _)| Some((component.clone(), component_path(&component)?)))
            .collect();
        if paths.is_empty() {
            return Ok(());
        }
        let kube = self.kube(cluster).await?;
        for (key, path) in paths {
            kube.delete(&path)
                .await
                .map_err(|err| failed(&format!("Deleting {key} failed"), err))?;
            self.components.remove(&key);
        }
        Ok(())
    }

    /// An adopted entry: the contract's mark off and the groups the restriction added out. One read serves both.
    async fn release_entry(&self, cluster: &str) -> Result<(), Diagnostics> {
        let ours: Vec<String> = (self.components.of_kind(ComponentKind::AccessEntryGroup))
            .filter_map(|(component, _)| component.name().map(str::to_string))
            .collect();
        let mark = self.components.get(&contract_mark()).cloned();
        if mark.is_none() && ours.is_empty() {
            return Ok(());
        }
        let principal = &self.config.project_role_arn;
        let live = match access::describe_access_entry(&self.client.eks, cluster, principal).await {
            Ok(live) => live,
            Err(err) if err.is_not_found() => return Ok(()),
            Err(err) => return Err(failed("Reading the project role's access entry failed", err)),
        };
        // Someone re-tagged it since: their mark now, left as it is.
        if mark.is_some() && live.tags.get(CONTRACT_TAG) == mark.as_ref() {
            self.unmark(&live).await?;
        }
        if !ours.is_empty() {
            let groups: Vec<String> = live
                .kubernetes_groups
                .into_iter()
                .filter(|g| !ours.contains(g))
                .collect();
            match access::update_access_entry_groups(&self.client.eks, cluster, principal, &groups).await {
                Ok(()) => {}
                // Deleted since the read: nothing of ours is left on it.
                Err(err) if err.is_not_found() => {}
                Err(err) => return Err(failed("Updating the project role's access entry failed", err)),
            }
        }
        Ok(())
    }

    /// Takes the contract's mark off an adopted entry.
    async fn unmark(&self, live: &AccessEntryRecord) -> Result<(), Diagnostics> {
        let mut wanted = live.tags.clone();
        wanted.remove(CONTRACT_TAG);
        match access::update_tags(&self.client.eks, &live.arn, &live.tags, &wanted).await {
            Ok(()) => Ok(()),
            Err(err) if err.is_not_found() => Ok(()),
            Err(err) => Err(failed("Untagging the project role's access entry failed", err)),
        }
    }
}
