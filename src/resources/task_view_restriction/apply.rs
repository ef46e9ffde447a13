//! Apply and destroy: bring the project role's access (EKS) or its Run As tag (Slurm) to what the restriction wants,
//! recording each addition in `components` as it is made; destroy removes exactly those and nothing of an adopted
//! access entry beyond them.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{
    CONTRACT_TAG, CONTRACT_TAG_COMPONENT, ENTRY, OWNER_TAG, RUN_AS_TAG, RestrictionConfig, RestrictionMode,
    component_path, component_policy_arn, object_component, object_value,
};
use crate::aws::ErrorCode;
use crate::aws::eks_access as access;
use crate::aws::iam;
use crate::client::HyperpodClient;
use crate::kubernetes::objects::{self, MANAGED_BY, MANAGED_BY_LABEL, Object};
use crate::kubernetes::{KubeClient, KubeError};
use crate::protocol::diagnostics::{AttributePath, Diagnostics};
use crate::resources::kubernetes_reads::kube_client;

pub struct Applier<'a> {
    pub client: &'a HyperpodClient,
    pub spec: &'a RestrictionConfig,
    pub eks_cluster: Option<String>,
    pub partition: String,
    pub tags: BTreeMap<String, String>,
    /// On create: the restriction's `id`. An existing entry tagged with it is ours (recorded, deleted on destroy):
    /// an earlier apply made it and was killed or failed before saving state. The plan decides the same way.
    pub owner: Option<String>,
    pub components: BTreeMap<String, String>,
}

use crate::resources::failed;

/// Creates or updates one RBAC object. One this restriction has not recorded and that exists already is adopted
/// only if it carries the provider's managed-by label (an earlier apply made it and was interrupted before saving
/// state); anyone else's object of the same name is refused, never overwritten.
async fn write_object(kube: &KubeClient, object: &Object, recorded: bool) -> Result<(), Diagnostics> {
    let applying = |err| failed(&format!("Applying {} failed", object.describe()), err);
    if !recorded {
        // The collection to POST to: the object's path without its name.
        let path = object.path();
        let collection = path
            .rsplit_once('/')
            .map_or(path.as_str(), |(collection, _)| collection);
        match kube.create(collection, &object.body).await {
            Ok(_) => return Ok(()),
            Err(KubeError::AlreadyExists { .. }) => {}
            Err(err) => return Err(applying(err)),
        }
        let live = kube.get(&object.path()).await.map_err(applying)?;
        let ours = live
            .as_ref()
            .and_then(|live| live.pointer("/metadata/labels"))
            .and_then(|labels| labels.get(MANAGED_BY_LABEL))
            .and_then(serde_json::Value::as_str)
            == Some(MANAGED_BY);
        if live.is_some() && !ours {
            return Err(Diagnostics::error(
                AttributePath::attr("mode"),
                format!("{} already exists and is not this provider's", object.describe()),
                format!(
                    "mode: rbac mode writes {} ({}), and an object of that name exists without the label \
                     `{MANAGED_BY_LABEL}: {MANAGED_BY}`, so it is someone else's and is left as it is. Delete it, or \
                     label it to hand it over to this restriction, then apply again.",
                    object.describe(),
                    object.path()
                ),
            ));
        }
    }
    objects::apply(kube, object, &[MANAGED_BY_LABEL], true)
        .await
        .map_err(applying)
}

impl Applier<'_> {
    pub async fn apply(&mut self) -> Result<(), Diagnostics> {
        match self.eks_cluster.clone() {
            Some(cluster) => self.apply_eks(&cluster).await,
            None => self.apply_slurm().await,
        }
    }

    async fn kube(&self, cluster: &str) -> Result<KubeClient, Diagnostics> {
        kube_client(self.client, cluster)
            .await
            .map_err(|err| failed("Cannot reach the cluster's Kubernetes API", err))
    }

    async fn apply_eks(&mut self, cluster: &str) -> Result<(), Diagnostics> {
        let eks = &self.client.eks;
        let principal = self.spec.project_role_arn.clone();
        let rbac = self.spec.mode == RestrictionMode::Rbac;
        let group_key = format!("access_entry_group/{}", self.spec.kubernetes_group);
        // Before the first write: the Roles' namespaces exist (a referenced tenant, applied first, made its own).
        let kube = if rbac { Some(self.kube(cluster).await?) } else { None };
        if let Some(kube) = &kube {
            let absent = super::order::absent(kube, &self.spec.namespaces)
                .await
                .map_err(|err| failed("Reading the cluster's namespaces failed", err))?;
            if !absent.is_empty() {
                return Err(Diagnostics(
                    absent
                        .iter()
                        .map(|namespace| super::order::missing(namespace, "at apply"))
                        .collect(),
                ));
            }
        }
        // The entry: ours if we made it; Studio's "Manage access" may have made it first, then it is adopted. Not
        // recorded yet: most likely absent, so create first (one call); one that exists is adopted below.
        let groups_at_create = if rbac {
            vec![self.spec.kubernetes_group.clone()]
        } else {
            Vec::new()
        };
        let created = !self.components.contains_key(ENTRY)
            && match access::create_access_entry(eks, cluster, &principal, &groups_at_create, &self.tags).await {
                Ok(()) => true,
                Err(err) if err.is(ErrorCode::ResourceInUseException) => false,
                Err(err) => return Err(failed("Creating the project role's access entry failed", err)),
            };
        let existing = if created {
            self.components.insert(ENTRY.to_string(), principal.clone());
            None
        } else {
            Some(access::describe_access_entry(eks, cluster, &principal).await)
        };
        match existing {
            None => {}
            Some(Ok(live)) => {
                if self.owner.is_some() && live.tags.get(OWNER_TAG) == self.owner.as_ref() {
                    self.components.insert(ENTRY.to_string(), principal.clone());
                }
                let mut groups: Vec<String> = live
                    .kubernetes_groups
                    .iter()
                    .filter(|g| {
                        // A group this restriction added earlier and no longer wants (RBAC mode left) goes.
                        !(self.components.contains_key(&format!("access_entry_group/{g}"))
                            && **g != self.spec.kubernetes_group)
                    })
                    .cloned()
                    .collect();
                if rbac && !groups.contains(&self.spec.kubernetes_group) {
                    groups.push(self.spec.kubernetes_group.clone());
                }
                if !rbac {
                    groups.retain(|g| !(self.components.contains_key(&format!("access_entry_group/{g}"))));
                }
                if groups != live.kubernetes_groups {
                    access::update_access_entry_groups(eks, cluster, &principal, &groups)
                        .await
                        .map_err(|err| failed("Updating the project role's access entry failed", err))?;
                }
                self.components
                    .retain(|key, _| !key.starts_with("access_entry_group/") || key == &group_key);
                if !self.components.contains_key(ENTRY) {
                    self.mark_adopted_entry(&live).await?;
                }
            }
            Some(Err(err)) if err.is_not_found() => {
                access::create_access_entry(eks, cluster, &principal, &groups_at_create, &self.tags)
                    .await
                    .map_err(|err| failed("Creating the project role's access entry failed", err))?;
                self.components.insert(ENTRY.to_string(), principal.clone());
            }
            Some(Err(err)) => return Err(failed("Reading the project role's access entry failed", err)),
        }
        if rbac {
            self.components
                .insert(group_key.clone(), self.spec.kubernetes_group.clone());
        } else {
            self.components.remove(&group_key);
        }
        let wanted = self.spec.associations(&self.partition);
        // Independent of each other: all at once, each recorded if it succeeded.
        let associated = futures::future::join_all(wanted.iter().map(|association| {
            let principal = &principal;
            async move {
                access::associate_access_policy(
                    eks,
                    cluster,
                    principal,
                    &association.policy_arn,
                    &association.namespaces,
                )
                .await
                .map_err(|err| failed(&format!("Associating {} failed", association.policy_arn), err))
            }
        }))
        .await;
        let mut failures = Diagnostics::new();
        for (association, result) in wanted.iter().zip(associated) {
            match result {
                Ok(()) => {
                    self.components.insert(association.component(), association.scope());
                }
                Err(diagnostics) => failures.extend(diagnostics),
            }
        }
        if failures.has_errors() {
            return Err(failures);
        }
        let keep: BTreeSet<String> = wanted
            .iter()
            .map(super::model::RestrictionAssociation::component)
            .collect();
        let stale: Vec<String> = self
            .components
            .keys()
            .filter(|key| key.starts_with("access_policy/") && !keep.contains(*key))
            .cloned()
            .collect();
        for key in stale {
            let policy = component_policy_arn(&self.partition, &key).unwrap_or_default();
            access::disassociate_access_policy(eks, cluster, &principal, &policy)
                .await
                .map_err(|err| failed(&format!("Removing {policy} failed"), err))?;
            self.components.remove(&key);
        }
        let manifests = self.spec.manifests();
        let has_objects = !manifests.is_empty() || self.components.keys().any(|k| k.starts_with("kubernetes/"));
        if has_objects {
            let kube = match kube {
                Some(kube) => kube,
                None => self.kube(cluster).await?,
            };
            for object in &manifests {
                let recorded = self.components.contains_key(&object_component(object));
                write_object(&kube, object, recorded).await?;
                self.components
                    .insert(object_component(object), object_value(&object.body));
            }
            let keep: BTreeSet<String> = manifests.iter().map(object_component).collect();
            let stale: Vec<(String, String)> = self
                .components
                .keys()
                .filter(|key| !keep.contains(*key))
                .filter_map(|key| Some((key.clone(), component_path(key)?)))
                .collect();
            for (key, path) in stale {
                kube.delete(&path)
                    .await
                    .map_err(|err| failed(&format!("Deleting {key} failed"), err))?;
                self.components.remove(&key);
            }
        }
        Ok(())
    }

    /// An adopted entry carries the contract's name (`hyperpod:contract`) like an entry the restriction made, so the
    /// inventory reads it as governed; recorded, so destroy takes the mark off again.
    async fn mark_adopted_entry(&mut self, live: &access::AccessEntryRecord) -> Result<(), Diagnostics> {
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
        self.components.insert(CONTRACT_TAG_COMPONENT.to_string(), contract);
        Ok(())
    }

    async fn apply_slurm(&mut self) -> Result<(), Diagnostics> {
        let Some(user) = self.spec.slurm_os_user.clone() else {
            return Err(Diagnostics::error(
                AttributePath::attr("slurm"),
                "Missing slurm block",
                "A Slurm task view restriction needs `slurm { os_user = \"...\" }`: the OS user the project role's \
                 sessions run as.",
            ));
        };
        let name = super::model::role_name(&self.spec.project_role_arn).to_string();
        let role = iam::find_role(&self.client.iam, &name)
            .await
            .map_err(|err| failed("Reading the project role failed", err))?;
        let mut wanted = role.tags.clone();
        wanted.insert(RUN_AS_TAG.to_string(), user.clone());
        if wanted != role.tags {
            iam::set_role_tags(&self.client.iam, &name, &role.tags, &wanted)
                .await
                .map_err(|err| failed("Tagging the project role failed", err))?;
        }
        self.components.insert(format!("role_tag/{RUN_AS_TAG}"), user);
        Ok(())
    }

    /// Destroy: what `components` names, nothing else of an adopted entry.
    pub async fn remove(&mut self) -> Result<(), Diagnostics> {
        let Some(cluster) = self.eks_cluster.clone() else {
            return self.remove_slurm().await;
        };
        let eks = &self.client.eks;
        let principal = self.spec.project_role_arn.clone();
        let paths: Vec<(String, String)> = self
            .components
            .keys()
            .filter_map(|key| Some((key.clone(), component_path(key)?)))
            .collect();
        if !paths.is_empty() {
            let kube = self.kube(&cluster).await?;
            for (key, path) in paths {
                kube.delete(&path)
                    .await
                    .map_err(|err| failed(&format!("Deleting {key} failed"), err))?;
                self.components.remove(&key);
            }
        }
        if self.components.contains_key(ENTRY) {
            access::delete_access_entry(eks, &cluster, &principal)
                .await
                .map_err(|err| failed("Deleting the project role's access entry failed", err))?;
            self.components.clear();
            return Ok(());
        }
        let policies: Vec<(String, String)> = self
            .components
            .keys()
            .filter_map(|key| Some((key.clone(), component_policy_arn(&self.partition, key)?)))
            .collect();
        for (key, policy) in policies {
            access::disassociate_access_policy(eks, &cluster, &principal, &policy)
                .await
                .map_err(|err| failed(&format!("Removing {policy} failed"), err))?;
            self.components.remove(&key);
        }
        let ours: Vec<String> = self
            .components
            .keys()
            .filter_map(|key| key.strip_prefix("access_entry_group/").map(str::to_string))
            .collect();
        let mark = self.components.get(CONTRACT_TAG_COMPONENT).cloned();
        if mark.is_some() || !ours.is_empty() {
            // One read serves both: the mark to take off and the groups to keep.
            let live = match access::describe_access_entry(eks, &cluster, &principal).await {
                Ok(live) => Some(live),
                Err(err) if err.is_not_found() => None,
                Err(err) => return Err(failed("Reading the project role's access entry failed", err)),
            };
            if let Some(live) = live {
                // Someone re-tagged it since: their mark now, left as it is.
                if mark.is_some() && live.tags.get(CONTRACT_TAG) == mark.as_ref() {
                    let mut wanted = live.tags.clone();
                    wanted.remove(CONTRACT_TAG);
                    match access::update_tags(eks, &live.arn, &live.tags, &wanted).await {
                        Ok(()) => {}
                        Err(err) if err.is_not_found() => {}
                        Err(err) => return Err(failed("Untagging the project role's access entry failed", err)),
                    }
                }
                if !ours.is_empty() {
                    let groups: Vec<String> = live
                        .kubernetes_groups
                        .into_iter()
                        .filter(|g| !ours.contains(g))
                        .collect();
                    match access::update_access_entry_groups(eks, &cluster, &principal, &groups).await {
                        Ok(()) => {}
                        // Deleted since the read: nothing of ours is left on it.
                        Err(err) if err.is_not_found() => {}
                        Err(err) => return Err(failed("Updating the project role's access entry failed", err)),
                    }
                }
            }
        }
        self.components.clear();
        Ok(())
    }

    async fn remove_slurm(&mut self) -> Result<(), Diagnostics> {
        let key = format!("role_tag/{RUN_AS_TAG}");
        let Some(user) = self.components.get(&key).cloned() else {
            return Ok(());
        };
        let name = super::model::role_name(&self.spec.project_role_arn).to_string();
        let role = match iam::find_role(&self.client.iam, &name).await {
            Ok(role) => role,
            Err(err) if err.is_not_found() => return Ok(()),
            Err(err) => return Err(failed("Reading the project role failed", err)),
        };
        // Only our value: a tag someone changed since is theirs now.
        if role.tags.get(RUN_AS_TAG) == Some(&user) {
            let mut wanted = role.tags.clone();
            wanted.remove(RUN_AS_TAG);
            iam::set_role_tags(&self.client.iam, &name, &role.tags, &wanted)
                .await
                .map_err(|err| failed("Untagging the project role failed", err))?;
        }
        self.components.remove(&key);
        Ok(())
    }
}
