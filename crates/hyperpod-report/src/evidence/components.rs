//! Every object a governed resource composed, from its `components` (and its id attributes), with the ARN built
//! from the contract's partition, account and region. A Kubernetes object has no ARN: its API path stands in. An
//! object AWS gives no ARN of its own (an inline policy, a KMS grant, an access policy association) is located by
//! the ARN of what holds it. The component keys are the model crate's (`hyperpod_model::component`).

use crate::plan::{PlanField, ResourceChange};
use hyperpod_clients::kubernetes::objects::object_path;
use hyperpod_declarations::domain_unit_policy_grant::{self, PolicyGrantModel};
use hyperpod_declarations::project_binding::{self, BindingModel};
use hyperpod_declarations::task_view_restriction::{self, RestrictionModel};
use hyperpod_declarations::tenant::{self, TenantModel};
use hyperpod_model::component::{Component as Key, ObjectKey, ObjectScope, digested_id};
use hyperpod_model::ids::{Arn, RegionName};

/// Where the contract's objects live.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub partition: Option<String>,
    pub account: Option<String>,
    pub region: Option<String>,
    pub cluster: Option<String>,
}

impl Place {
    /// The partition from the project role's ARN (what the account itself says), else from the region's name.
    pub fn new(cluster: &Cluster, project_role_arn: Option<String>) -> Place {
        let partition = project_role_arn
            .and_then(|arn| Arn::parse(&arn).ok())
            .map(|arn| arn.partition)
            .or_else(|| {
                let region = RegionName::parse(cluster.region.as_deref()?).ok()?;
                Some(region.partition().to_string())
            });
        Place {
            partition,
            account: cluster.account_id.clone(),
            region: cluster.region.clone(),
            cluster: cluster.name.clone(),
        }
    }

    /// `arn:<partition>:<service>:<region>:<account>:<resource>`, when all three are recorded.
    fn arn(&self, service: &str, regional: bool, resource: &str) -> Option<String> {
        let region = if regional { self.region.as_deref()? } else { "" };
        Some(format!(
            "arn:{}:{service}:{region}:{}:{resource}",
            self.partition.as_deref()?,
            self.account.as_deref()?
        ))
    }

    fn role_arn(&self, name: &str) -> Option<String> {
        Some(Arn::iam_role(
            self.partition.as_deref()?,
            self.account.as_deref()?,
            name,
        ))
    }
}

/// How to find a composed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Locator {
    Arn(String),
    /// A Kubernetes object: its path on the cluster's API server.
    ApiPath(String),
    /// An object without an ARN of its own, on (inside, or of) the object with this ARN.
    On(String),
    /// Not derivable from state; the words say how the object is identified.
    Unlocated(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposedObject {
    /// The resource that composed it.
    pub address: String,
    /// The `components` key, or the id attribute it comes from.
    pub key: String,
    /// What it is, in words: `IAM role`.
    pub kind: &'static str,
    /// The value state records for it (a name, an ID, or a name with the digest of its content).
    pub value: String,
    pub locator: Locator,
}

/// The composed objects of one governed resource, in key order.
pub fn of(resource: &ResourceChange, place: &Place) -> Vec<ComposedObject> {
    let text = |name: &str| resource.after.get(&[name]).as_text();
    let component = |key: &str, kind: &'static str, value: String, locator: Locator| ComposedObject {
        address: resource.address.clone(),
        key: key.to_string(),
        kind,
        value,
        locator,
    };
    let unlocated = |why: &str| Locator::Unlocated(why.to_string());
    match resource.resource_type.as_str() {
        // A binding and a grant record no `components`: what they create is named by its ID (the binding's
        // environment is the project's own, not the binding's).
        project_binding::TYPE_NAME => text(BindingModel::CONNECTION_ID.name())
            .map(|id| {
                component(
                    BindingModel::CONNECTION_ID.name(),
                    "DataZone connection",
                    id,
                    unlocated("DataZone names it by domain and ID"),
                )
            })
            .into_iter()
            .collect(),
        domain_unit_policy_grant::TYPE_NAME => text(PolicyGrantModel::GRANT_ID.name())
            .map(|id| {
                component(
                    PolicyGrantModel::GRANT_ID.name(),
                    "DataZone policy grant",
                    id,
                    unlocated("DataZone names it by domain, entity and ID"),
                )
            })
            .into_iter()
            .collect(),
        kind => {
            let recorded = match kind {
                tenant::TYPE_NAME => TenantModel::COMPONENTS.name(),
                task_view_restriction::TYPE_NAME => RestrictionModel::COMPONENTS.name(),
                _ => return Vec::new(),
            };
            let PlanField::Known(serde_json::Value::Object(components)) = resource.after.get(&[recorded]) else {
                return Vec::new();
            };
            components
                .iter()
                .map(|(key, value)| {
                    let value = match value {
                        serde_json::Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    let (kind, locator) = locate(resource, key, &value, place);
                    component(key, kind, value, locator)
                })
                .collect()
        }
    }
}

fn locate(resource: &ResourceChange, key: &str, value: &str, place: &Place) -> (&'static str, Locator) {
    let at = Locating {
        resource,
        value,
        place,
        cluster: place.cluster.as_deref().unwrap_or("?"),
    };
    match (Key::parse(key), resource.resource_type.as_str()) {
        (Some(Key::Kubernetes(object)), _) => at.kubernetes_object(object),
        (Some(key), tenant::TYPE_NAME) => at.tenant_component(&key),
        (Some(key), task_view_restriction::TYPE_NAME) => at.restriction_component(&key),
        _ => ("component", unlocated_unknown()),
    }
}

/// One recorded component of a resource, and where the resource's contract places it.
struct Locating<'a> {
    resource: &'a ResourceChange,
    value: &'a str,
    place: &'a Place,
    cluster: &'a str,
}

impl Locating<'_> {
    fn text(&self, name: &str) -> Option<String> {
        self.resource.after.get(&[name]).as_text()
    }

    /// Older states recorded the role's ARN where newer ones record its name.
    fn role(&self, name: &str) -> Option<String> {
        if name.starts_with("arn:") {
            Some(name.to_string())
        } else {
            self.place.role_arn(name)
        }
    }

    /// A tenant's keys leave out its namespace (`<Kind>/<name>`); a restriction's name it (`<Kind>/<namespace or
    /// ->/<name>`).
    fn kubernetes_object(&self, object: ObjectKey) -> (&'static str, Locator) {
        let object = match object.scope {
            ObjectScope::Implied => {
                let namespace =
                    (self.text(TenantModel::NAMESPACE.name())).unwrap_or_else(|| digested_id(self.value).to_string());
                ObjectKey::placed(&object.kind, Some(&namespace), &object.name)
            }
            _ => object,
        };
        (
            "Kubernetes object",
            object_path(&object).map_or_else(
                || Locator::Unlocated("a Kubernetes kind this version does not know".into()),
                Locator::ApiPath,
            ),
        )
    }

    fn tenant_component(&self, key: &Key) -> (&'static str, Locator) {
        let (value, place, cluster) = (self.value, self.place, self.cluster);
        match key {
            Key::IamRole => ("IAM role", or_missing(self.role(value))),
            Key::ComputeQuota => (
                "SageMaker compute quota",
                or_missing(
                    self.text(TenantModel::COMPUTE_QUOTA_ARN.name())
                        .or_else(|| place.arn("sagemaker", true, &format!("compute-quota/{value}"))),
                ),
            ),
            Key::PodIdentityAssociation => (
                "EKS Pod Identity association",
                or_missing(place.arn("eks", true, &format!("podidentityassociation/{cluster}/{value}"))),
            ),
            Key::IamPolicy(_) => (
                "IAM inline policy",
                (self.role(digested_id(value).split('/').next().unwrap_or_default())).map_or_else(missing, Locator::On),
            ),
            Key::AccessEntry(principal) => (
                "EKS access entry",
                Locator::Unlocated(format!("EKS names it by cluster {cluster} and principal {principal}")),
            ),
            Key::KmsGrant(key_arn) => ("KMS grant", Locator::On(key_arn.clone())),
            _ => ("component", unlocated_unknown()),
        }
    }

    fn restriction_component(&self, key: &Key) -> (&'static str, Locator) {
        match key {
            Key::ProjectAccessEntry => (
                "EKS access entry",
                Locator::Unlocated(format!(
                    "EKS names it by cluster {} and principal {}",
                    self.cluster, self.value
                )),
            ),
            Key::AccessPolicy(name) => (
                "EKS access policy association",
                (self.place.partition.as_deref())
                    .map(|partition| Arn::eks_access_policy(partition, name))
                    .map_or_else(missing, Locator::On),
            ),
            Key::RoleTag(_) => (
                "IAM role tag",
                self.text(RestrictionModel::PROJECT_ROLE_ARN.name())
                    .map_or_else(missing, Locator::On),
            ),
            _ => ("component", unlocated_unknown()),
        }
    }
}

fn missing() -> Locator {
    Locator::Unlocated("the contract records no partition, account or region to build it".into())
}

fn or_missing(arn: Option<String>) -> Locator {
    arn.map_or_else(missing, Locator::Arn)
}

fn unlocated_unknown() -> Locator {
    Locator::Unlocated("a component this version of the report does not know".into())
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    pub name: Option<String>,
    pub account_id: Option<String>,
    pub region: Option<String>,
    pub orchestrator: Option<String>,
}
