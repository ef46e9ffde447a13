//! The keys of a resource's `components` map: which object a tenant or a task view restriction made, adopted or
//! marked. State stores them as text (`kubernetes/Role/viewer`, `kms_grant/<key ARN>`); everything else handles a
//! [`Component`], so a key is formatted in one place ([`Component::key`]) and read in one ([`Component::parse`]).

use std::collections::BTreeMap;
use std::fmt;

/// One entry of `components`, by what it names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// `iam_role`: the tenant's workload role (valued with its name).
    IamRole,
    /// `iam_policy/<name>`: an inline policy on the tenant's workload role.
    IamPolicy(String),
    /// `compute_quota`: the tenant's SageMaker compute quota.
    ComputeQuota,
    /// `pod_identity_association`: the tenant's EKS Pod Identity association.
    PodIdentityAssociation,
    /// `access_entry/<principal ARN>`: an EKS access entry the tenant governs.
    AccessEntry(String),
    /// `access_entry`: the project role's EKS access entry, created by a task view restriction.
    ProjectAccessEntry,
    /// `access_entry_group/<group>`: a Kubernetes group a restriction added to the project role's access entry.
    AccessEntryGroup(String),
    /// `access_policy/<policy name>`: an EKS access policy association a restriction made.
    AccessPolicy(String),
    /// `entry_tag/<tag key>`: a tag a restriction put on an access entry it adopted.
    EntryTag(String),
    /// `role_tag/<tag key>`: a tag a restriction put on the project role.
    RoleTag(String),
    /// `kms_grant/<key ARN>`: a KMS grant the tenant made for its workload role.
    KmsGrant(String),
    /// `kubernetes/<Kind>/…`: a Kubernetes object.
    Kubernetes(ObjectKey),
}

/// What kind of object a [`Component`] names, without its name: to pick the components of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentKind {
    IamRole,
    IamPolicy,
    ComputeQuota,
    PodIdentityAssociation,
    AccessEntry,
    ProjectAccessEntry,
    AccessEntryGroup,
    AccessPolicy,
    EntryTag,
    RoleTag,
    KmsGrant,
    Kubernetes,
}

/// A Kubernetes object a resource wrote.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub kind: String,
    pub scope: ObjectScope,
    pub name: String,
}

/// Where a Kubernetes object lives, as its key says it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectScope {
    /// `kubernetes/<Kind>/<name>`: the tenant's own namespace, which the key leaves out (it is the tenant's).
    Implied,
    /// `kubernetes/<Kind>/<namespace>/<name>`.
    Namespace(String),
    /// `kubernetes/<Kind>/-/<name>`: cluster-scoped.
    Cluster,
}

impl ObjectKey {
    /// An object in the tenant's namespace (`kubernetes/<Kind>/<name>`).
    pub fn in_tenant_namespace(kind: &str, name: &str) -> Self {
        Self {
            kind: kind.to_string(),
            scope: ObjectScope::Implied,
            name: name.to_string(),
        }
    }

    /// An object in `namespace`, or cluster-scoped when there is none (`kubernetes/<Kind>/<namespace or ->/<name>`).
    pub fn placed(kind: &str, namespace: Option<&str>, name: &str) -> Self {
        Self {
            kind: kind.to_string(),
            scope: namespace.map_or(ObjectScope::Cluster, |n| ObjectScope::Namespace(n.to_string())),
            name: name.to_string(),
        }
    }

    /// The namespace the key names; `None` when cluster-scoped or implied.
    pub fn namespace(&self) -> Option<&str> {
        match &self.scope {
            ObjectScope::Namespace(namespace) => Some(namespace),
            ObjectScope::Implied | ObjectScope::Cluster => None,
        }
    }
}

const KUBERNETES: &str = "kubernetes";
const CLUSTER_SCOPE: &str = "-";

/// The fixed keys and the prefixes of the named ones: the one table both [`Component::key`] and
/// [`Component::parse`] read.
const FIXED: [(&str, Component); 4] = [
    ("iam_role", Component::IamRole),
    ("compute_quota", Component::ComputeQuota),
    ("pod_identity_association", Component::PodIdentityAssociation),
    ("access_entry", Component::ProjectAccessEntry),
];
type Named = fn(String) -> Component;
const NAMED: [(&str, ComponentKind, Named); 7] = [
    ("iam_policy", ComponentKind::IamPolicy, Component::IamPolicy),
    ("access_entry", ComponentKind::AccessEntry, Component::AccessEntry),
    (
        "access_entry_group",
        ComponentKind::AccessEntryGroup,
        Component::AccessEntryGroup,
    ),
    ("access_policy", ComponentKind::AccessPolicy, Component::AccessPolicy),
    ("entry_tag", ComponentKind::EntryTag, Component::EntryTag),
    ("role_tag", ComponentKind::RoleTag, Component::RoleTag),
    ("kms_grant", ComponentKind::KmsGrant, Component::KmsGrant),
];

impl Component {
    pub fn kind(&self) -> ComponentKind {
        match self {
            Self::IamRole => ComponentKind::IamRole,
            Self::IamPolicy(_) => ComponentKind::IamPolicy,
            Self::ComputeQuota => ComponentKind::ComputeQuota,
            Self::PodIdentityAssociation => ComponentKind::PodIdentityAssociation,
            Self::AccessEntry(_) => ComponentKind::AccessEntry,
            Self::ProjectAccessEntry => ComponentKind::ProjectAccessEntry,
            Self::AccessEntryGroup(_) => ComponentKind::AccessEntryGroup,
            Self::AccessPolicy(_) => ComponentKind::AccessPolicy,
            Self::EntryTag(_) => ComponentKind::EntryTag,
            Self::RoleTag(_) => ComponentKind::RoleTag,
            Self::KmsGrant(_) => ComponentKind::KmsGrant,
            Self::Kubernetes(_) => ComponentKind::Kubernetes,
        }
    }

    /// The name after the kind's prefix (`iam_policy/<name>` → `<name>`); `None` for the fixed keys and objects.
    pub fn name(&self) -> Option<&str> {
        match self {
            Self::IamPolicy(name)
            | Self::AccessEntry(name)
            | Self::AccessEntryGroup(name)
            | Self::AccessPolicy(name)
            | Self::EntryTag(name)
            | Self::RoleTag(name)
            | Self::KmsGrant(name) => Some(name),
            Self::IamRole
            | Self::ComputeQuota
            | Self::PodIdentityAssociation
            | Self::ProjectAccessEntry
            | Self::Kubernetes(_) => None,
        }
    }

    /// The Kubernetes object it names, if it names one.
    pub fn into_object(self) -> Option<ObjectKey> {
        match self {
            Self::Kubernetes(object) => Some(object),
            _ => None,
        }
    }

    /// The key `components` stores it under.
    pub fn key(&self) -> String {
        self.to_string()
    }

    /// The component a stored key names; `None` for a key this version does not know.
    pub fn parse(key: &str) -> Option<Self> {
        if let Some((_, fixed)) = FIXED.iter().find(|(fixed, _)| *fixed == key) {
            return Some(fixed.clone());
        }
        let (prefix, rest) = key.split_once('/')?;
        if prefix == KUBERNETES {
            return ObjectKey::parse(rest).map(Self::Kubernetes);
        }
        let (_, _, named) = NAMED.iter().find(|(named, _, _)| *named == prefix)?;
        (!rest.is_empty()).then(|| named(rest.to_string()))
    }
}

impl ObjectKey {
    /// `<Kind>/<name>` or `<Kind>/<namespace or ->/<name>` (Kubernetes names hold no `/`).
    fn parse(rest: &str) -> Option<Self> {
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.iter().any(|part| part.is_empty()) {
            return None;
        }
        match parts[..] {
            [kind, name] => Some(Self::in_tenant_namespace(kind, name)),
            [kind, CLUSTER_SCOPE, name] => Some(Self::placed(kind, None, name)),
            [kind, namespace, name] => Some(Self::placed(kind, Some(namespace), name)),
            _ => None,
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { kind, scope, name } = self;
        match scope {
            ObjectScope::Implied => write!(f, "{KUBERNETES}/{kind}/{name}"),
            ObjectScope::Namespace(namespace) => write!(f, "{KUBERNETES}/{kind}/{namespace}/{name}"),
            ObjectScope::Cluster => write!(f, "{KUBERNETES}/{kind}/{CLUSTER_SCOPE}/{name}"),
        }
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Self::Kubernetes(object) = self {
            return object.fmt(f);
        }
        if let Some((key, _)) = FIXED.iter().find(|(_, fixed)| fixed == self) {
            return f.write_str(key);
        }
        let kind = self.kind();
        let (prefix, _, _) = NAMED.iter().find(|(_, named, _)| *named == kind).ok_or(fmt::Error)?;
        write!(f, "{prefix}/{}", self.name().unwrap_or_default())
    }
}

/// The name or ID of a component's value written with the digest of its content
/// (`hyperpod-ns-research@1a2b3c4d` → `hyperpod-ns-research`); a value without a digest is its own ID.
pub fn digested_id(value: &str) -> &str {
    value.rsplit_once('@').map_or(value, |(id, _)| id)
}

/// A resource's `components`, read and written by [`Component`]; stored as text keys. A key this version does not
/// read is carried through untouched (an older or newer provider wrote it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Components(BTreeMap<String, String>);

impl Components {
    pub fn new() -> Self {
        Self::default()
    }

    /// The map as state stores it.
    pub fn from_stored(stored: BTreeMap<String, String>) -> Self {
        Self(stored)
    }

    pub fn stored(&self) -> &BTreeMap<String, String> {
        &self.0
    }

    pub fn get(&self, component: &Component) -> Option<&String> {
        self.0.get(&component.key())
    }

    pub fn contains(&self, component: &Component) -> bool {
        self.0.contains_key(&component.key())
    }

    pub fn insert(&mut self, component: &Component, value: String) {
        self.0.insert(component.key(), value);
    }

    pub fn remove(&mut self, component: &Component) -> Option<String> {
        self.0.remove(&component.key())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The components this version reads, with their values.
    pub fn iter(&self) -> impl Iterator<Item = (Component, &String)> {
        (self.0.iter()).filter_map(|(key, value)| Some((Component::parse(key)?, value)))
    }

    /// The components of `kind`, with their values.
    pub fn of_kind(&self, kind: ComponentKind) -> impl Iterator<Item = (Component, &String)> {
        self.iter().filter(move |(component, _)| component.kind() == kind)
    }

    /// Keeps what `keep` holds to; a key this version does not read is kept.
    pub fn retain(&mut self, keep: impl Fn(&Component, &String) -> bool) {
        (self.0).retain(|key, value| Component::parse(key).is_none_or(|component| keep(&component, value)));
    }

    pub fn extend(&mut self, other: Components) {
        self.0.extend(other.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<Component> {
        vec![
            Component::IamRole,
            Component::IamPolicy("hyperpod-tenant-target".into()),
            Component::ComputeQuota,
            Component::PodIdentityAssociation,
            Component::AccessEntry("arn:aws:iam::111122223333:role/project".into()),
            Component::ProjectAccessEntry,
            Component::AccessEntryGroup("hyperpod-viewers".into()),
            Component::AccessPolicy("AmazonSagemakerHyperpodUserClusterPolicy".into()),
            Component::EntryTag("hyperpod:contract".into()),
            Component::RoleTag("SSMSessionRunAs".into()),
            Component::KmsGrant("arn:aws:kms:us-east-1:111122223333:key/k".into()),
            Component::Kubernetes(ObjectKey::in_tenant_namespace("Role", "viewer")),
            Component::Kubernetes(ObjectKey::placed("Role", Some("team-a"), "viewer")),
            Component::Kubernetes(ObjectKey::placed("ClusterRole", None, "probes")),
        ]
    }

    #[test]
    fn every_component_reads_back_from_its_key() {
        for component in every_kind() {
            assert_eq!(
                Component::parse(&component.key()),
                Some(component.clone()),
                "{component}"
            );
        }
    }

    #[test]
    fn keys_are_the_ones_states_already_hold() {
        let keys: Vec<String> = every_kind().iter().map(Component::key).collect();
        assert_eq!(
            keys,
            [
                "iam_role",
                "iam_policy/hyperpod-tenant-target",
                "compute_quota",
                "pod_identity_association",
                "access_entry/arn:aws:iam::111122223333:role/project",
                "access_entry",
                "access_entry_group/hyperpod-viewers",
                "access_policy/AmazonSagemakerHyperpodUserClusterPolicy",
                "entry_tag/hyperpod:contract",
                "role_tag/SSMSessionRunAs",
                "kms_grant/arn:aws:kms:us-east-1:111122223333:key/k",
                "kubernetes/Role/viewer",
                "kubernetes/Role/team-a/viewer",
                "kubernetes/ClusterRole/-/probes",
            ]
        );
    }

    #[test]
    fn a_key_this_version_does_not_read_is_kept_but_not_listed() {
        let stored = BTreeMap::from([
            ("kms_grant/k".to_string(), "g".to_string()),
            ("ssm_document/x".to_string(), "d".to_string()),
        ]);
        let mut components = Components::from_stored(stored.clone());
        assert_eq!(components.iter().count(), 1);
        components.retain(|_, _| false);
        assert_eq!(components.stored().keys().collect::<Vec<_>>(), ["ssm_document/x"]);
    }

    #[test]
    fn a_key_this_version_does_not_know_is_none() {
        for key in [
            "",
            "iam_roles",
            "kubernetes/Role",
            "kubernetes//x",
            "kms_grant/",
            "ssm_document/x",
        ] {
            assert_eq!(Component::parse(key), None, "{key}");
        }
    }
}
