//! SageMaker's `SchedulerResourceStatus`: the status of a compute quota, of a cluster scheduler config and of each of
//! a config's components (`StatusDetails`), as a type. The provider decides on its variants (a write failed, a write
//! is in flight), never on how a status's name ends.

use aws_sdk_sagemaker::types::SchedulerResourceStatus;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SchedulerStatus {
    Creating,
    CreateFailed,
    CreateRollbackFailed,
    Created,
    Updating,
    UpdateFailed,
    UpdateRollbackFailed,
    Updated,
    Deleting,
    DeleteFailed,
    DeleteRollbackFailed,
    Deleted,
    /// No status reported (a value built before SageMaker answered).
    #[default]
    Unreported,
    /// A status SageMaker added after this provider was built: kept as read, neither failed nor in flight.
    Other(String),
}

impl SchedulerStatus {
    const NAMED: [(SchedulerStatus, &'static str); 12] = [
        (Self::Creating, "Creating"),
        (Self::CreateFailed, "CreateFailed"),
        (Self::CreateRollbackFailed, "CreateRollbackFailed"),
        (Self::Created, "Created"),
        (Self::Updating, "Updating"),
        (Self::UpdateFailed, "UpdateFailed"),
        (Self::UpdateRollbackFailed, "UpdateRollbackFailed"),
        (Self::Updated, "Updated"),
        (Self::Deleting, "Deleting"),
        (Self::DeleteFailed, "DeleteFailed"),
        (Self::DeleteRollbackFailed, "DeleteRollbackFailed"),
        (Self::Deleted, "Deleted"),
    ];

    /// The status of its API name (as SageMaker sends it, or as state recorded it); empty is `Unreported`.
    pub fn parse(name: &str) -> Self {
        if name.is_empty() {
            return Self::Unreported;
        }
        Self::NAMED
            .iter()
            .find(|(_, known)| *known == name)
            .map_or_else(|| Self::Other(name.to_string()), |(status, _)| status.clone())
    }

    /// The API name (empty when unreported): what state records and messages show.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Unreported => "",
            Self::Other(name) => name,
            known => Self::NAMED
                .iter()
                .find(|(status, _)| status == known)
                .map_or("", |(_, name)| name),
        }
    }

    /// The last write ended in a failure (`CreateFailed`, `UpdateRollbackFailed`, ...): what it asked for is not in
    /// effect, so the next apply writes it again.
    pub fn is_failed(&self) -> bool {
        matches!(
            self,
            Self::CreateFailed
                | Self::CreateRollbackFailed
                | Self::UpdateFailed
                | Self::UpdateRollbackFailed
                | Self::DeleteFailed
                | Self::DeleteRollbackFailed
        )
    }

    /// A create or an update is in flight: the object's version may be about to change.
    pub fn is_being_written(&self) -> bool {
        matches!(self, Self::Creating | Self::Updating)
    }

    /// No write is in flight (not creating, updating or deleting).
    pub fn is_settled(&self) -> bool {
        !self.is_being_written() && *self != Self::Deleting
    }
}

impl From<Option<&SchedulerResourceStatus>> for SchedulerStatus {
    fn from(status: Option<&SchedulerResourceStatus>) -> Self {
        status.map_or(Self::Unreported, |status| Self::parse(status.as_str()))
    }
}

impl std::fmt::Display for SchedulerStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every status the SDK knows has a variant of its own: a status added to the API fails here, not as `Other`
    /// somewhere a failure should have been seen.
    #[test]
    fn every_status_of_the_api_is_named_and_reads_back() {
        for name in SchedulerResourceStatus::values() {
            let status = SchedulerStatus::parse(name);
            assert!(!matches!(status, SchedulerStatus::Other(_)), "{name}");
            assert_eq!(status.as_str(), *name);
            assert_eq!(
                SchedulerStatus::from(Some(&SchedulerResourceStatus::from(*name))),
                status
            );
            assert_eq!(status.is_failed(), name.ends_with("Failed"), "{name}");
        }
        assert_eq!(SchedulerStatus::parse(""), SchedulerStatus::Unreported);
        assert_eq!(SchedulerStatus::parse("Paused").as_str(), "Paused");
        assert!(!SchedulerStatus::parse("Paused").is_failed());
        assert!(SchedulerStatus::Created.is_settled() && SchedulerStatus::UpdateFailed.is_settled());
        assert!(!SchedulerStatus::Updating.is_settled() && !SchedulerStatus::Deleting.is_settled());
    }
}
