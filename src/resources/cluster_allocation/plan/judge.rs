//! The allocation's verdict: WKL-3 on each share against the cluster's instance groups (its instance type, the MIG
//! profile its groups are split into) and on its teams together (admitted by name), from the engine
//! (`capacity::allocation_entries`, `allocation_partitions`, `allocation_fits`); what fails is refused at its entry,
//! whether or not the team has a tenant yet, and the team's tenant defers to it (one report). The live quotas of teams
//! it does not list count in the tenants' WKL-3, at apply (a tenant's claim), and in the plan's refusal of a tenant
//! they leave no room for.

use super::AllocationPlanInputs;
use crate::governance::capacity::{allocation_entries, allocation_fits, allocation_partitions};
use crate::protocol::diagnostics::Diagnostics;

/// Nothing, or the refusals (`Err`).
pub fn judge(inputs: &AllocationPlanInputs) -> Result<(), Diagnostics> {
    let (Some(allocation), Some(cluster)) = (&inputs.config.allocation, &inputs.cluster) else {
        return Ok(());
    };
    let mut findings = allocation_entries(allocation, &cluster.instance_groups);
    // MIG shares against the groups' layouts, then the teams together; an entry already refused is said once.
    let groups = &cluster.instance_groups;
    for finding in allocation_partitions(allocation, groups)
        .into_iter()
        .chain(allocation_fits(allocation, groups))
    {
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
