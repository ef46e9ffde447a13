//! Slurm tenants: AWS has no API for Slurm accounting, so the provider renders it deterministically — the account
//! and association hierarchy, a QoS with priority, preemption and limits, fair-share and partition access as
//! `sacctmgr` commands, plus the `slurm.conf` settings that make them bind — for the cluster's lifecycle scripts.

use super::{SlurmAccountConfig, TenantConfig};

/// What the resource exposes as `slurm_artefacts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmArtefacts {
    pub account: String,
    pub sacctmgr_commands: Vec<String>,
    pub slurm_conf: String,
}

pub use super::super::schema::DEFAULT_PRIVATE_DATA;

/// `organization` is the parent account (the contract's name keeps the hierarchy per connection).
pub fn render(spec: &TenantConfig, organization: &str) -> SlurmArtefacts {
    let defaults = SlurmAccountConfig::default();
    let slurm = spec.slurm.as_ref().unwrap_or(&defaults);
    let account = spec.team.clone();
    let qos = format!("{account}-qos");
    let parent = sanitize(organization);
    let mut commands = vec![
        format!("sacctmgr -i add account {parent} Description=\"hyperpod connection contract {organization}\""),
        format!(
            "sacctmgr -i add account {account} Parent={parent} Fairshare={} Description=\"hyperpod tenant {account}\"",
            slurm.fairshare.unwrap_or(1)
        ),
    ];
    commands.push(format!("sacctmgr -i add qos {qos}"));
    commands.push(format!(
        "sacctmgr -i modify qos {qos} set {}",
        qos_settings(spec, slurm).join(" ")
    ));
    commands.push(format!(
        "sacctmgr -i modify account {account} set QOS={qos} DefaultQOS={qos}"
    ));
    for user in &slurm.users {
        let partitions = if slurm.partitions.is_empty() {
            String::new()
        } else {
            format!(" Partition={}", slurm.partitions.join(","))
        };
        commands.push(format!(
            "sacctmgr -i add user {user} Account={account} DefaultAccount={account}{partitions}"
        ));
    }
    SlurmArtefacts {
        slurm_conf: slurm_conf(slurm, &account),
        account,
        sacctmgr_commands: commands,
    }
}

/// The QoS: priority, the quota as group TRES limits (nodes and GPUs), wall time and preemption.
fn qos_settings(spec: &TenantConfig, slurm: &SlurmAccountConfig) -> Vec<String> {
    let mut settings = vec![format!("Priority={}", slurm.qos_priority.unwrap_or(0))];
    let gpus: i64 = spec.quota.iter().filter_map(|q| q.accelerators).sum();
    let nodes: i64 = spec.quota.iter().filter_map(|q| q.count).sum();
    let mut limits = Vec::new();
    if nodes > 0 {
        limits.push(format!("node={nodes}"));
    }
    if gpus > 0 {
        limits.push(format!("gres/gpu={gpus}"));
    }
    if !limits.is_empty() {
        settings.push(format!("GrpTRES={}", limits.join(",")));
    }
    if let Some(wall) = &slurm.max_wall {
        settings.push(format!("MaxWall={wall}"));
    }
    if !slurm.preempt_qos.is_empty() {
        settings.push(format!("Preempt={}", slurm.preempt_qos.join(",")));
        settings.push("PreemptMode=requeue".to_string());
    }
    settings
}

/// The `slurm.conf` settings that make the accounting bind, and the partitions' access.
fn slurm_conf(slurm: &SlurmAccountConfig, account: &str) -> String {
    let private_data: Vec<&str> = if slurm.private_data.is_empty() {
        DEFAULT_PRIVATE_DATA.to_vec()
    } else {
        slurm.private_data.iter().map(String::as_str).collect()
    };
    let mut conf = vec![
        "# hyperpod_tenant: accounting that binds the associations, QoS and limits above".to_string(),
        "AccountingStorageEnforce=associations,limits,qos,safe".to_string(),
        "PriorityType=priority/multifactor".to_string(),
        "PriorityWeightFairshare=10000".to_string(),
        "PriorityWeightQOS=10000".to_string(),
        "PreemptType=preempt/qos".to_string(),
        "PreemptMode=REQUEUE".to_string(),
        format!("PrivateData={}", private_data.join(",")),
    ];
    for partition in &slurm.partitions {
        conf.push(format!(
            "# partition {partition}: add AllowAccounts={account} (and the other tenants' accounts) to its PartitionName line"
        ));
    }
    conf.join("\n") + "\n"
}

/// Slurm account names: lowercase letters, digits, `-` and `_`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::QuotaShare;

    fn spec() -> TenantConfig {
        let mut spec = crate::resources::tenant::model::manifests::tests::spec();
        spec.workload = None;
        spec.quota = vec![QuotaShare {
            instance_type: "ml.p5.48xlarge".into(),
            count: Some(2),
            accelerators: Some(16),
            ..QuotaShare::default()
        }];
        spec.slurm = Some(SlurmAccountConfig {
            partitions: vec!["gpu".into()],
            users: vec!["alice".into()],
            qos_priority: Some(100),
            preempt_qos: vec!["scavenger".into()],
            fairshare: Some(10),
            max_wall: Some("24:00:00".into()),
            private_data: Vec::new(),
        });
        spec
    }

    #[test]
    fn renders_the_account_hierarchy_qos_and_users() {
        let artefacts = render(&spec(), "Research on Slurm");
        assert_eq!(artefacts.account, "research");
        let commands = artefacts.sacctmgr_commands.join("\n");
        assert!(commands.contains("add account research-on-slurm "), "{commands}");
        assert!(commands.contains("add account research Parent=research-on-slurm Fairshare=10"));
        assert!(commands.contains(
            "modify qos research-qos set Priority=100 GrpTRES=node=2,gres/gpu=16 MaxWall=24:00:00 Preempt=scavenger"
        ));
        assert!(commands.contains("add user alice Account=research DefaultAccount=research Partition=gpu"));
        assert!(artefacts.slurm_conf.contains("PrivateData=jobs,usage,users\n"));
        assert!(
            artefacts
                .slurm_conf
                .contains("AccountingStorageEnforce=associations,limits,qos")
        );
    }

    #[test]
    fn rendering_is_deterministic() {
        assert_eq!(render(&spec(), "c"), render(&spec(), "c"));
    }
}
