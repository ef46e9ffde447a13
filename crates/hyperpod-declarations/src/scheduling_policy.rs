//! `hyperpod_scheduling_policy` declaration: the attributes and their validators, the identity schema. The state
//! upgrader and what `terraform validate` checks beyond the validators are the provider's
//! (`resources/scheduling_policy/schema.rs`).

pub use crate::governance_objects::PolicyGovernance;
use std::collections::BTreeMap;
use std::time::Duration;

use crate::names::ENTITY_NAME;
use crate::printable_text::PrintableText;
use crate::protocol::deadline::Operation;
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::validators::{IntBetween, LengthBetween, Matches};
use crate::protocol::value::{Type, Value};

// The resource's one declaration: its schema, its docs and its typed value (configuration, plan and state) come
// from it (`#[derive(Model)]`, docs/design/typed-values.md). Doc comments are the user-facing descriptions.

pub const TYPE_NAME: &str = "hyperpod_scheduling_policy";
/// SageMaker priority class names (DNS-label-like, at most 40 characters).
pub const PRIORITY_CLASS_NAME: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?";
pub const MAX_PRIORITY_CLASSES: i64 = 10;
/// SageMaker `EntityDescription`: at most 1024 characters of letters, marks, separators, symbols, numbers and
/// punctuation — no control characters (newlines and tabs included).
pub const DESCRIPTION_MAX: usize = 1024;
/// SageMaker `TagList`: at most 50 tags per resource.
pub const MAX_TAGS: usize = 50;

fn entity_name() -> Matches {
    Matches::new(
        ENTITY_NAME,
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
    )
}

/// The cluster policy of an EKS-orchestrated HyperPod cluster (a SageMaker *cluster scheduler config*): priority
/// classes, fair share and idle-resource sharing. A cluster has exactly one; import an existing one by cluster name.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct SchedulingPolicyModel {
    /// The cluster's name, known at plan time: a cluster has exactly one scheduling policy. Also the import ID.
    #[tf(computed)]
    pub id: Field<String>,
    /// The scheduler config's ID (`ClusterSchedulerConfigId`, 12 characters).
    #[tf(computed, use_state_for_unknown)]
    pub scheduler_config_id: Field<String>,
    /// The scheduler config's ARN.
    #[tf(computed, use_state_for_unknown)]
    pub arn: Field<String>,
    /// Name of the EKS-orchestrated HyperPod cluster the policy governs. Checked at plan time.
    #[tf(required, requires_replace, validate = entity_name())]
    pub cluster_name: Field<String>,
    /// ARN of the HyperPod cluster, resolved at plan time.
    #[tf(computed, use_state_for_unknown)]
    pub cluster_arn: Field<String>,
    /// Name of the scheduler config. Defaults to `<cluster_name>-policy`.
    #[tf(optional_computed, requires_replace, validate = entity_name())]
    pub name: Field<String>,
    /// What the policy is for; shown in the SageMaker console.
    #[tf(optional, validate = LengthBetween { min: 0, max: DESCRIPTION_MAX }, validate = PrintableText)]
    pub description: Field<String>,
    /// Whether idle capacity is shared by fair-share weight across teams (`FairShare`). When unset, SageMaker's
    /// default applies (documented as enabled) and is recorded.
    #[tf(optional_computed, use_state_for_unknown)]
    pub fair_share: Field<bool>,
    /// Whether unallocated capacity is offered to teams to borrow (`IdleResourceSharing`). When unset, the service
    /// default applies and is recorded.
    #[tf(optional_computed, use_state_for_unknown)]
    pub idle_resource_sharing: Field<bool>,
    /// Tags for the scheduler config. The provider's `default_tags` are added, and so is the ownership tag
    /// `hyperpod-governance:owner` (not shown here or in `tags_all`), so 49 remain.
    #[tf(optional, validate = crate::validators::AwsTags)]
    pub tags: Field<BTreeMap<String, String>>,
    /// All tags on the scheduler config, `default_tags` included (the provider's ownership tag aside).
    #[tf(computed)]
    pub tags_all: Field<BTreeMap<String, String>>,
    /// Version of the scheduler config (`ClusterSchedulerConfigVersion`); every update increments it.
    #[tf(computed)]
    pub version: Field<i64>,
    /// Status reported by SageMaker, e.g. `Created`, with `StatusDetails` folded in: a config reported `Created` or
    /// `Updated` while one of its components ended `*Failed` reads as that component's status. After a write that
    /// ended `*Failed` (e.g. `UpdateFailed`, reported asynchronously) the next plan proposes the write again, and
    /// apply fails with SageMaker's reason.
    #[tf(computed)]
    pub status: Field<String>,
    /// `StatusDetails`: the status of each component of the config (`PriorityClasses`, `FairShare`,
    /// `IdleResourceSharing`), so a partly applied config shows which part failed.
    #[tf(computed)]
    pub status_details: Field<BTreeMap<String, String>>,
    /// The facts a `hyperpod_tenant` checks against (`cluster_name`, `priority_classes`, `fair_share`), known at
    /// plan time: pass it as the tenant's `scheduling_policy`.
    #[tf(computed)]
    pub governance: Field<PolicyGovernance>,
    #[tf(block, max_items = MAX_PRIORITY_CLASSES)]
    pub priority_class: Field<Vec<PriorityClassBlock>>,
    #[tf(timeouts = (&[Operation::Create, Operation::Update, Operation::Delete], Duration::from_mins(10)))]
    pub timeouts: Value,
}

/// A priority class tasks can name. Higher weights are scheduled first and may preempt lower ones.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct PriorityClassBlock {
    /// Priority class name; workloads and team quotas refer to it by this name (rule WKL-4 checks they exist).
    #[tf(
        required,
        validate = Matches::new(
            PRIORITY_CLASS_NAME,
            "lowercase letters, digits and hyphens, starting and ending with a letter or digit",
        ),
        validate = LengthBetween { min: 1, max: 40 }
    )]
    pub name: Field<String>,
    /// Scheduling weight of the class.
    #[tf(required, validate = IntBetween { min: 0, max: 100 })]
    pub weight: Field<i32>,
}

pub fn schema() -> Schema {
    Schema {
        version: 1,
        block: SchedulingPolicyModel::block(),
    }
}

/// The type of `governance`.
pub fn governance_type() -> Type {
    PolicyGovernance::terraform_type()
}

/// What identifies a scheduling policy (`import { identity = { … } }`): its cluster.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct PolicyIdentity {
    /// Name of the HyperPod cluster whose scheduling policy this is.
    #[tf(required)]
    pub cluster_name: Field<String>,
    /// Account of the cluster. Defaults to the provider's account.
    #[tf(optional)]
    pub account_id: Field<String>,
    /// Region of the cluster. Defaults to the provider's region.
    #[tf(optional)]
    pub region: Field<String>,
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &PolicyIdentity::block())
}

/// An identity value from its parts.
pub fn identity(cluster_name: &str, account_id: &str, region: &str) -> Value {
    PolicyIdentity {
        cluster_name: Field::Known(cluster_name.to_string()),
        account_id: Field::Known(account_id.to_string()),
        region: Field::Known(region.to_string()),
    }
    .encode()
}
