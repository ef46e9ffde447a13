//! EKS `rbac` mode: the Kubernetes objects the restriction writes, each recorded with its content's digest; one
//! recorded and no longer wanted (rbac mode left, a namespace dropped) is deleted.

use super::super::model::{component_path, object_component, object_value};
use super::super::schema::RestrictionModel;
use super::applier::RestrictionApplier;
use crate::component::{Component, ComponentKind};
use crate::kubernetes::objects::{self, MANAGED_BY, MANAGED_BY_LABEL, Object};
use crate::kubernetes::{KubeClient, KubeError};
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;

impl RestrictionApplier<'_> {
    /// Writes the wanted objects and deletes the stale ones; `kube` is the client the namespace check opened.
    pub(super) async fn objects(&mut self, cluster: &str, kube: Option<KubeClient>) -> Result<(), Diagnostics> {
        let manifests = self.config.manifests();
        let has_objects = !manifests.is_empty() || self.components.of_kind(ComponentKind::Kubernetes).next().is_some();
        if !has_objects {
            return Ok(());
        }
        let kube = match kube {
            Some(kube) => kube,
            None => self.kube(cluster).await?,
        };
        for object in &manifests {
            let recorded = self.components.contains(&object_component(object));
            write_object(&kube, object, recorded).await?;
            self.components
                .insert(&object_component(object), object_value(&object.body));
        }
        let keep: Vec<Component> = manifests.iter().map(object_component).collect();
        let stale: Vec<(Component, String)> = (self.components.iter())
            .filter(|(component, _)| !keep.contains(component))
            .filter_map(|(component, _)| Some((component.clone(), component_path(&component)?)))
            .collect();
        for (key, path) in stale {
            kube.delete(&path)
                .await
                .map_err(|err| failed(&format!("Deleting {key} failed"), err))?;
            self.components.remove(&key);
        }
        Ok(())
    }
}

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
        if live.is_some() && !is_ours(live.as_ref()) {
            return Err(someone_elses(object));
        }
    }
    objects::apply(kube, object, &[MANAGED_BY_LABEL], true)
        .await
        .map_err(applying)
}

/// Whether a live object carries the provider's managed-by label.
fn is_ours(live: Option<&serde_json::Value>) -> bool {
    live.and_then(|live| live.pointer("/metadata/labels"))
        .and_then(|labels| labels.get(MANAGED_BY_LABEL))
        .and_then(serde_json::Value::as_str)
        == Some(MANAGED_BY)
}

fn someone_elses(object: &Object) -> Diagnostics {
    Diagnostics::error(
        RestrictionModel::MODE.path(),
        format!("{} already exists and is not this provider's", object.describe()),
        format!(
            "mode: rbac mode writes {} ({}), and an object of that name exists without the label \
             `{MANAGED_BY_LABEL}: {MANAGED_BY}`, so it is someone else's and is left as it is. Delete it, or label \
             it to hand it over to this restriction, then apply again.",
            object.describe(),
            object.path()
        ),
    )
}
