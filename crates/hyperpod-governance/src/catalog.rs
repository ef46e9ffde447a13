//! The rule catalog (`shared/design/governance-model.md`, "Rule catalog"): every rule's ID, layer, one-line text,
//! default severity and what it needs. This is the one place a rule's text lives; diagnostics, the checklist and
//! the docs all read it from here. IDs never change meaning once published: add rules, never renumber.

use std::fmt;
use std::str::FromStr;

/// How a broken rule is reported: an error is refused at apply (a warning at plan, never a failed plan), a warning
/// is shown (refused too under `strict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingSeverity {
    Error,
    Warning,
}

/// The control layer a rule belongs to (the catalog's `layer` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    Contract,
    Organization,
    Project,
    Cluster,
    Workload,
    Exceptions,
    Observability,
    Lifecycle,
}

/// Which facts a rule needs (the catalog's `needs` column): configuration only, an AWS read during plan, or
/// either (a referenced resource's configuration when it is in the same run, else a live read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Needs {
    Config,
    Live,
    ConfigOrLive,
}

// The macro keeps the enum, `ALL` and every rule's text in one table, so a rule cannot be added to one and
// forgotten in another.
macro_rules! catalog {
    ($($variant:ident => $id:literal, $layer:ident, $severity:ident, $needs:ident, $title:literal;)+) => {
        /// A rule of the catalog. `Display` and `FromStr` use the published ID (`WKL-2`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RuleId {
            $($variant),+
        }

        impl RuleId {
            /// Every rule, in catalog order.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant),+];

            /// The published ID, e.g. `"WKL-2"`.
            pub fn id(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $id),+
                }
            }
            pub fn layer(self) -> Layer {
                match self {
                    $(RuleId::$variant => Layer::$layer),+
                }
            }
            /// The rule in one line, as diagnostics' summaries and the docs show it.
            pub fn title(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $title),+
                }
            }
            /// E (refused at apply) or W (warning; `strict` refuses it too).
            pub fn default_severity(self) -> FindingSeverity {
                match self {
                    $(RuleId::$variant => FindingSeverity::$severity),+
                }
            }
            pub fn needs(self) -> Needs {
                match self {
                    $(RuleId::$variant => Needs::$needs),+
                }
            }
        }
    };
}

catalog! {
    Con1 => "CON-1", Contract, Error, Config,
        "Every contract field is present and well-formed (ARNs parse, account IDs have 12 digits, regions are valid)";
    Con2 => "CON-2", Contract, Error, Config,
        "The access scope matches the orchestrator: EKS ⇒ namespaces, Slurm ⇒ accounts or partitions, never both";
    Con3 => "CON-3", Contract, Error, Config,
        "Every monitored signal has an owner and a response";
    Org1 => "ORG-1", Organization, Error, Live,
        "The Unified Studio project belongs to the contract's domain unit";
    Org2 => "ORG-2", Organization, Error, Config,
        "A cross-account target role lives in an account the contract approves as a consumer or data account";
    Org3 => "ORG-3", Organization, Error, Live,
        "The cluster lives in the contract's capacity account and region";
    Prj1 => "PRJ-1", Project, Warning, Config,
        "Project memberships and cluster access go to groups, not individual users";
    Prj2 => "PRJ-2", Project, Error, Live,
        "The project role and the connection's access role hold no cluster lifecycle or governance-write permission";
    Prj3 => "PRJ-3", Project, Error, Config,
        "A project binding needs an approved, unexpired contract for the same project and cluster";
    Prj4 => "PRJ-4", Project, Error, Live,
        "The binding's project role is the contract's project role and the project's tooling-environment user role";
    Clu1 => "CLU-1", Cluster, Error, Live,
        "The contract's orchestrator is the cluster's real orchestrator";
    Clu2 => "CLU-2", Cluster, Error, Config,
        "A project is not onboarded on a cluster other projects or teams use without a task view restriction";
    Clu3 => "CLU-3", Cluster, Error, Live,
        "No cluster-scoped AmazonEKS{View,Edit,Admin,ClusterAdmin}Policy is associated with a restricted principal";
    Clu4 => "CLU-4", Cluster, Error, Live,
        "The EKS cluster's authentication mode admits access entries (API or API_AND_CONFIG_MAP)";
    Clu5 => "CLU-5", Cluster, Warning, Live,
        "The EKS API endpoint is private, or public only from the contract's approved CIDRs";
    Clu6 => "CLU-6", Cluster, Error, Config,
        "Workload roles are neither the project role nor a cluster-admin role";
    Clu7 => "CLU-7", Cluster, Error, Live,
        "A Slurm task view restriction needs Session Manager Run As enabled (account-wide: checked, never flipped)";
    Clu8 => "CLU-8", Cluster, Error, Live,
        "A Slurm-restricted project role starts Session Manager sessions only on its own cluster's nodes";
    Clu9 => "CLU-9", Cluster, Error, Config,
        "A task view restriction is for its contract's project role and grants only namespaces in the contract's scope";
    Clu10 => "CLU-10", Cluster, Error, Live,
        "The EKS cluster has the task-governance add-on (amazon-sagemaker-hyperpod-taskgovernance) ACTIVE before tenants or a scheduling policy are created";
    Wkl1 => "WKL-1", Workload, Error, Config,
        "A tenant's namespace is inside its contract's namespace scope, and a bound contract's namespaces have tenants";
    Wkl2 => "WKL-2", Workload, Error, Config,
        "Lend/borrow is not used on a Slurm cluster (Slurm has no lend/borrow model)";
    Wkl3 => "WKL-3", Workload, Error, Live,
        "Guaranteed quotas per instance type, summed over tenants, fit the cluster's instance groups";
    Wkl4 => "WKL-4", Workload, Error, ConfigOrLive,
        "A tenant's priority class exists in the cluster's scheduling policy";
    Wkl5 => "WKL-5", Workload, Error, Config,
        "Borrow limits (1-500 %) are set only with LendAndBorrow, a tenant borrows only from teams that lend, and a team shares as its cluster allocation entry records";
    Wkl6 => "WKL-6", Workload, Warning, ConfigOrLive,
        "A fair-share weight has no effect while the cluster policy disables fair share";
    Wkl7 => "WKL-7", Workload, Error, Config,
        "The viewer grant has only get/list/watch; acting needs the separate operator grant";
    Wkl8 => "WKL-8", Workload, Error, Config,
        "Every EKS tenant namespace has a default-deny NetworkPolicy (opting out needs an owned, dated exception)";
    Wkl9 => "WKL-9", Workload, Error, Config,
        "A Pod Identity session policy requires disable_session_tags = true";
    Wkl10 => "WKL-10", Workload, Error, Config,
        "A quota is never the only control: a tenant names who may see and act (EKS groups, Slurm users)";
    Wkl11 => "WKL-11", Workload, Error, Config,
        "Tenant data (buckets, KMS keys) is granted to the tenant workload role, never to the project role";
    Wkl12 => "WKL-12", Workload, Error, ConfigOrLive,
        "Interactive spaces run only under a contract that approves interactive workloads, at a dedicated priority \
         class of the cluster's scheduling policy, within the team's guaranteed quota, and never on borrowed capacity";
    Exc1 => "EXC-1", Exceptions, Error, Config,
        "Every exception names an owner and an expiry, and no exception has expired";
    Obs1 => "OBS-1", Observability, Warning, Live,
        "EKS metrics views need the amazon-cloudwatch-observability add-on at version 2.4.0 or later, ACTIVE, and \
         CloudWatchAgentServerPolicy on every worker node role";
    Lif1 => "LIF-1", Lifecycle, Warning, Config,
        "The contract is not past its review date";
    Lif2 => "LIF-2", Lifecycle, Warning, Live,
        "A material change to the contract, or to the live facts it was approved against, is re-approved (new \
         last_reviewed or approved_by) before it is relied on";
    Lif3 => "LIF-3", Lifecycle, Error, Config,
        "A revoked contract, or one without an accountable owner, does not back a binding or tenant";
    Lif4 => "LIF-4", Lifecycle, Error, Live,
        "The approver is recorded and is not the identity running the apply";
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for RuleId {
    type Err = String;
    /// Accepts the published ID in any case (`wkl-2` too), since people type them into exception blocks.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        RuleId::ALL
            .iter()
            .copied()
            .find(|rule| rule.id().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| format!("{text:?} is not a rule ID of the catalog (e.g. \"WKL-8\")"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_catalog_has_every_published_rule_once_in_order() {
        let ids: Vec<&str> = RuleId::ALL.iter().map(|rule| rule.id()).collect();
        let expected: Vec<String> = [("CON", 3), ("ORG", 3), ("PRJ", 4), ("CLU", 10), ("WKL", 12)]
            .into_iter()
            .chain([("EXC", 1), ("OBS", 1), ("LIF", 4)])
            .flat_map(|(prefix, count)| (1..=count).map(move |n| format!("{prefix}-{n}")))
            .collect();
        assert_eq!(ids, expected);
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        let mut sorted = RuleId::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, RuleId::ALL, "variant order is catalog order");
    }

    #[test]
    fn ids_round_trip_and_parse_case_insensitively() {
        for rule in RuleId::ALL {
            assert_eq!(rule.id().parse::<RuleId>(), Ok(*rule));
            assert_eq!(rule.to_string(), rule.id());
            assert!(!rule.title().is_empty() && !rule.title().ends_with('.'));
        }
        assert_eq!(" wkl-8 ".parse::<RuleId>(), Ok(RuleId::Wkl8));
        assert!("WKL-99".parse::<RuleId>().is_err());
    }

    #[test]
    fn severities_layers_and_needs_follow_the_catalog() {
        let warnings: Vec<&str> = RuleId::ALL
            .iter()
            .filter(|rule| rule.default_severity() == FindingSeverity::Warning)
            .map(|rule| rule.id())
            .collect();
        assert_eq!(warnings, ["PRJ-1", "CLU-5", "WKL-6", "OBS-1", "LIF-1", "LIF-2"]);
        assert_eq!(RuleId::Exc1.layer(), Layer::Exceptions);
        assert_eq!(RuleId::Wkl4.needs(), Needs::ConfigOrLive);
        assert_eq!(RuleId::Prj2.needs(), Needs::Live);
        assert_eq!(RuleId::Org2.needs(), Needs::Config);
    }
}
