//! Slurm: the project role's `SSMSessionRunAs` tag, so its Session Manager sessions run as the restriction's OS
//! user; destroy removes it only while it still holds the restriction's value.

use super::super::model::{RUN_AS_TAG, role_name, run_as_tag};
use super::super::schema::RestrictionModel;
use super::applier::RestrictionApplier;
use crate::aws::iam;
use crate::protocol::diagnostics::Diagnostics;
use crate::resources::failed;

impl RestrictionApplier<'_> {
    pub(super) async fn apply_slurm(&mut self) -> Result<(), Diagnostics> {
        let Some(user) = self.config.slurm_os_user.clone() else {
            return Err(Diagnostics::error(
                RestrictionModel::SLURM.path(),
                "Missing slurm block",
                "A Slurm task view restriction needs `slurm { os_user = \"...\" }`: the OS user the project role's \
                 sessions run as.",
            ));
        };
        let name = role_name(&self.config.project_role_arn).to_string();
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
        self.components.insert(&run_as_tag(), user);
        Ok(())
    }

    pub(super) async fn remove_slurm(&mut self) -> Result<(), Diagnostics> {
        let Some(user) = self.components.get(&run_as_tag()).cloned() else {
            return Ok(());
        };
        let name = role_name(&self.config.project_role_arn).to_string();
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
        self.components.remove(&run_as_tag());
        Ok(())
    }
}
