//! OBS-1: the observability feedback loop needs its data. HyperPod task-governance metrics in CloudWatch come from
//! the amazon-cloudwatch-observability EKS add-on, from version 2.4.0 (`v2.4.0-eksbuild.1`, Kueue metrics).

use super::catalog::RuleId;
use super::finding::{Check, Finding};
use super::model::{Addon, Fact};
use crate::protocol::diagnostics::AttributePath;

pub const OBSERVABILITY_ADDON: &str = "amazon-cloudwatch-observability";
pub const MINIMUM_VERSION: (u64, u64, u64) = (2, 4, 0);

/// `v2.4.0-eksbuild.1` → (2, 4, 0): the leading `v` and the `-eksbuild.N` suffix are dropped; missing minor or
/// patch parts count as 0.
pub fn parse_addon_version(text: &str) -> Option<(u64, u64, u64)> {
    let core = text.trim().trim_start_matches(['v', 'V']);
    let core = core.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|part| part.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    parts.next().is_none().then_some((major, minor, patch))
}

/// OBS-1 (warning): the add-on is installed, ACTIVE, at 2.4.0 or later. `Known(None)`: not installed. `at` is the
/// attribute of the resource being planned that carries the warning.
pub fn obs_1(addon: &Fact<Option<Addon>>, at: AttributePath) -> Check {
    let rule = RuleId::Obs1;
    let fix = format!(
        "install or update the {OBSERVABILITY_ADDON} EKS add-on to v2.4.0-eksbuild.1 or later with \
         kueue_container_insights enabled"
    );
    let addon = match addon {
        Fact::Unavailable(reason) => return Check::unavailable(rule, reason),
        Fact::Known(None) => {
            let finding = Finding::new(
                rule,
                at,
                "the add-on is not installed",
                "task-governance metrics are not collected",
                fix,
            );
            return Check::from_findings(rule, vec![finding], "");
        }
        Fact::Known(Some(addon)) => addon,
    };
    let mut findings = Vec::new();
    match parse_addon_version(&addon.version) {
        Some(version) if version >= MINIMUM_VERSION => {}
        parsed => findings.push(Finding::new(
            rule,
            at.clone(),
            format!("{} version {:?}", addon.name, addon.version),
            if parsed.is_some() {
                "the add-on is older than 2.4.0, which first collects Kueue metrics"
            } else {
                "the add-on version could not be read"
            },
            fix.clone(),
        )),
    }
    if addon.status != "ACTIVE" {
        findings.push(Finding::new(
            rule,
            at,
            format!("{} status {}", addon.name, addon.status),
            "the add-on is not ACTIVE",
            "check the add-on's health issues (aws eks describe-addon) and repair or reinstall it",
        ));
    }
    Check::from_findings(rule, findings, format!("{} {} is ACTIVE", addon.name, addon.version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::catalog::RuleId;
    use crate::governance::examples::{self, addon};

    #[test]
    fn versions_parse_like_eks_writes_them() {
        assert_eq!(parse_addon_version("v2.4.0-eksbuild.1"), Some((2, 4, 0)));
        assert_eq!(parse_addon_version("v10.1.12-eksbuild.3"), Some((10, 1, 12)));
        assert_eq!(parse_addon_version("2.5"), Some((2, 5, 0)));
        assert_eq!(parse_addon_version("vx.1"), None);
        assert_eq!(parse_addon_version("1.2.3.4"), None);
        assert!(parse_addon_version("v2.10.0-eksbuild.1") > parse_addon_version("v2.4.0-eksbuild.1"));
    }

    #[test]
    fn obs_1_needs_a_recent_active_addon() {
        let at = AttributePath::root();
        assert!(obs_1(&addon("v2.4.0-eksbuild.1", "ACTIVE"), at.clone()).is_passed());
        assert!(obs_1(&addon("v3.0.0-eksbuild.2", "ACTIVE"), at.clone()).is_passed());
        assert_eq!(examples::failing(RuleId::Obs1).findings().len(), 1, "v2.3.9, ACTIVE");
        assert_eq!(
            obs_1(&addon("v2.3.9-eksbuild.1", "DEGRADED"), at.clone())
                .findings()
                .len(),
            2
        );
        assert!(obs_1(&addon("latest", "ACTIVE"), at.clone()).is_failed());
        let missing = obs_1(&Fact::Known(None), at.clone());
        assert_eq!(
            missing.findings()[0].severity,
            crate::protocol::diagnostics::Severity::Warning
        );
        assert!(obs_1(&Fact::Unavailable("AccessDenied on DescribeAddon".into()), at).is_skipped());
    }
}
