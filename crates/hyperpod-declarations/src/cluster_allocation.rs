//! `hyperpod_cluster_allocation` schema.

use crate::names::ENTITY_NAME;
use std::collections::BTreeMap;

use crate::governance_objects::{AllocationGovernance, SharingRecord};
use crate::protocol::model::{Field, Known, Model};
use crate::protocol::schema::{IdentitySchema, Schema};
use crate::protocol::validators::Matches;
use crate::protocol::value::Type;
use crate::quota_entry::QuotaEntry;

pub const TYPE_NAME: &str = "hyperpod_cluster_allocation";

/// `hyperpod_cluster_allocation.<name>.governance` (`AllocationGovernance`).
pub fn governance_type() -> Type {
    <AllocationGovernance as Known>::terraform_type()
}

/// The documented split of one HyperPod cluster's guaranteed capacity: every team's share, in one place the
/// reviewer reads. One allocation per cluster: it claims the cluster in a Parameter Store parameter
/// (`/hyperpod-governance/cluster-allocations/<cluster>`, recording its teams), and a second allocation of the
/// cluster, in this configuration or another, is refused at `cluster_name` (WKL-3). Each `hyperpod_tenant` of the
/// cluster references it (`allocation = hyperpod_cluster_allocation.<name>.governance`), so WKL-3 counts every
/// team planned in the configuration on the first plan, whatever order Terraform plans them in; each project
/// binding references it too, so CLU-2 sees the cluster's other teams. Where the shares overcommit an instance
/// type, teams are admitted by name and the allocation is refused at the entry of the team that does not fit
/// (WKL-3; that team's tenant defers to it). `capacity` shows each instance type's total beside what the instance
/// groups hold.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AllocationModel {
    /// The cluster's name, known at plan time. Also the import ID: import takes over the cluster's claim with the
    /// teams it records.
    #[tf(computed)]
    pub id: Field<String>,
    /// Name of the HyperPod cluster (EKS or Slurm) whose capacity this divides. Checked at plan.
    #[tf(required, requires_replace, validate = cluster_name())]
    pub cluster_name: Field<String>,
    /// ARN of the HyperPod cluster, resolved at plan time.
    #[tf(computed)]
    pub cluster_arn: Field<String>,
    /// Every team's guaranteed share, by team name (the tenant's `team`, `hyperpod-ns-<team>`). A team's tenant
    /// must ask for exactly this quota (WKL-3); a team listed here but without a tenant yet still holds its share.
    #[tf(required, nested = map)]
    pub teams: Field<BTreeMap<String, Field<TeamShare>>>,
    /// Per instance type: what the instance groups hold and each team's guaranteed share in the unit it was given
    /// (live quotas of teams not listed too), e.g. `8 instances (64 accelerators, 1536 vCPU, 16384 GiB): production
    /// 5 instances, research 2 instances`.
    #[tf(computed)]
    pub capacity: Field<BTreeMap<String, Field<String>>>,
    /// The facts tenants and bindings check against, known at plan time: pass it as their `allocation`.
    #[tf(computed)]
    pub governance: Field<AllocationGovernance>,
}

/// One team's entry in `teams`.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct TeamShare {
    /// The team's guaranteed capacity, one entry per instance type (`count`, or `accelerators`, `vcpu`,
    /// `memory_gib`): what its `hyperpod_tenant` writes in its `quota` blocks.
    #[tf(required, nested)]
    pub quota: Field<Vec<QuotaEntry>>,
    /// How the team shares idle capacity (`ResourceSharingConfig`): who lends is part of the cluster's capacity
    /// picture, so two teams that lend to each other plan on the first plan, without naming each other in
    /// `borrows_from`. The team's tenant must share exactly so, its default spelled out or not (WKL-5). Unset: the
    /// allocation records nothing of the team's sharing.
    #[tf(nested = single)]
    pub sharing: Field<SharingRecord>,
}

fn cluster_name() -> Matches {
    Matches::new(
        ENTITY_NAME,
        "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
    )
}

pub fn schema() -> Schema {
    // 1 (0.4.0): `governance.teams` holds each team's entries, not one line of text per team (`STATE_UPGRADERS`).
    Schema {
        version: 1,
        block: AllocationModel::block(),
    }
}

/// The allocation's identity: its cluster.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AllocationIdentity {
    /// The HyperPod cluster's name.
    #[tf(required)]
    pub cluster_name: Field<String>,
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema::of(0, &AllocationIdentity::block())
}
