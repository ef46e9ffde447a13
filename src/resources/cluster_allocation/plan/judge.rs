//! The allocation's verdict: WKL-3 on each share against the cluster's instance groups (its instance type, the MIG
//! profile its groups are split into), from the engine (`capacity::allocation_entries`,
//! `capacity::allocation_partitions`); what fails is refused at its entry. The counting of every team against the
//! groups is the tenants' WKL-3, which reads this allocation (one report, on the tenant that does not fit); the live
//! quotas of teams it does not list count there, at apply (a tenant's claim), and in the plan's refusal of a tenant
//! they leave no room for.

use super::AllocationPlanInputs;
use crate::governance::capacity::{allocation_entries, allocation_partitions};
use crate::protocol::diagnostics::Diagnostics;

/// Nothing, or the refusals (`Err`).
pub fn judge(inputs: &AllocationPlanInputs) -> Result<(), Diagnostics> {
    let (Some(allocation), Some(cluster)) = (&inputs.config.allocation, &inputs.cluster) else {
        return Ok(());
    };
    let mut findings = allocation_entries(allocation, &cluster.instance_groups);
    // MIG shares against the groups' layouts; an entry already refused (its instance type) is said once.
    for finding in allocation_partitions(allocation, &cluster.instance_groups) {
        if !findings.iter().any(|known| known.path == finding.path) {
            findings.push(finding);
        }
    }
    if findings.is_empty() {
        return Ok(());
    }
    Err(Diagnostics(
        findings
            .iter()
            .map(|finding| crate::findings::finding_diagnostic(finding, false))
            .collect(),
    ))
}
