//! What the report says about a rule: its catalog entry (layer, title) from `governance::catalog`, the report
//! section it belongs to, its status vocabulary, and its link into docs/guides/governance-rules.md.

use hyperpod_governance::catalog::{Layer, RuleId};

/// Where rule links point unless `--rules-url` says otherwise: the registry's page of
/// docs/guides/governance-rules.md, whose `### WKL-3` sections give the anchors.
pub const DEFAULT_RULES_URL: &str =
    "https://registry.terraform.io/providers/hyperpod-governance/hyperpod/latest/docs/guides/governance-rules";

/// A rule ID as the plan or a diagnostic names it. An ID this build's catalog does not know (a plan made by a newer
/// provider) is kept, never dropped: a failure must not disappear because its rule is new.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    Known(RuleId),
    Other(String),
}

impl Rule {
    pub fn parse(text: &str) -> Rule {
        match text.parse::<RuleId>() {
            Ok(rule) => Rule::Known(rule),
            Err(_) => Rule::Other(text.trim().to_string()),
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Rule::Known(rule) => rule.id(),
            Rule::Other(id) => id,
        }
    }

    pub fn title(&self) -> Option<&'static str> {
        match self {
            Rule::Known(rule) => Some(rule.title()),
            Rule::Other(_) => None,
        }
    }

    pub fn section(&self) -> Section {
        match self {
            Rule::Known(rule) => match rule.layer() {
                Layer::Organization => Section::Organization,
                Layer::Project => Section::Project,
                Layer::Cluster => Section::Cluster,
                Layer::Workload => Section::Workload,
                Layer::Contract | Layer::Exceptions | Layer::Observability | Layer::Lifecycle => Section::Contract,
            },
            Rule::Other(_) => Section::Contract,
        }
    }

    /// The section anchor GitHub and the registry give `### WKL-3`; `None` for a rule the catalog does not know.
    pub fn anchor(&self) -> Option<String> {
        match self {
            Rule::Known(rule) => Some(rule.id().to_ascii_lowercase()),
            Rule::Other(_) => None,
        }
    }

    /// `<base>#wkl-3`; a base that already ends in `#` is not given a second one.
    pub fn link(&self, base: &str) -> Option<String> {
        self.anchor()
            .map(|anchor| format!("{}#{anchor}", base.trim_end_matches('#')))
    }
}

/// The rows of a contract's table: the four control layers, and the contract's own rules with exceptions,
/// observability and lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    Organization,
    Project,
    Cluster,
    Workload,
    Contract,
}

impl Section {
    pub const ALL: [Section; 5] = [
        Section::Organization,
        Section::Project,
        Section::Cluster,
        Section::Workload,
        Section::Contract,
    ];

    pub fn heading(self) -> &'static str {
        match self {
            Section::Organization => "Organization",
            Section::Project => "Project",
            Section::Cluster => "Cluster",
            Section::Workload => "Workload",
            Section::Contract => "Contract & lifecycle",
        }
    }

    /// The key of the JSON output's `layers` object.
    pub fn key(self) -> &'static str {
        match self {
            Section::Organization => "organization",
            Section::Project => "project",
            Section::Cluster => "cluster",
            Section::Workload => "workload",
            Section::Contract => "contract",
        }
    }
}

/// A rule's outcome on one resource, ordered from best to worst so "the worst status" is `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    NotApplicable,
    Passed,
    Excepted,
    /// Waits for a value known only at apply; apply judges it before the resource writes anything.
    Deferred,
    /// A fact could not be read, so the rule was not checked.
    Skipped,
    Warning,
    Failed,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Passed,
        Status::Excepted,
        Status::NotApplicable,
        Status::Deferred,
        Status::Skipped,
        Status::Warning,
        Status::Failed,
    ];

    /// A `findings` row's status (BRIEF decision 1). A status this build does not know is a warning: it is
    /// neither a pass nor silently dropped.
    pub fn of_finding(status: &str) -> Status {
        match status {
            "failed" => Status::Failed,
            "skipped" => Status::Skipped,
            "excepted" => Status::Excepted,
            _ => Status::Warning,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Status::NotApplicable => "not_applicable",
            Status::Passed => "passed",
            Status::Excepted => "excepted",
            Status::Deferred => "deferred",
            Status::Skipped => "skipped",
            Status::Warning => "warning",
            Status::Failed => "failed",
        }
    }

    pub fn icon(self) -> &'static str {
        match self {
            Status::NotApplicable => "➖",
            Status::Passed => "✅",
            Status::Excepted => "☑️",
            Status::Deferred => "⏳",
            Status::Skipped => "❔",
            Status::Warning => "⚠️",
            Status::Failed => "❌",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Status::NotApplicable => "does not apply",
            Status::Passed => "passed",
            Status::Excepted => "excepted",
            Status::Deferred => "judged at apply",
            Status::Skipped => "not checked",
            Status::Warning => "warning",
            Status::Failed => "failed",
        }
    }

    /// What a reviewer must look at: everything but a pass, an exception or a rule that does not apply.
    pub fn needs_attention(self) -> bool {
        self >= Status::Deferred
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_point_at_the_rule_s_section_of_the_rules_guide() {
        let rule = Rule::parse("WKL-3");
        assert_eq!(rule, Rule::Known(RuleId::Wkl3));
        assert_eq!(rule.anchor().as_deref(), Some("wkl-3"));
        assert_eq!(
            rule.link(DEFAULT_RULES_URL).as_deref(),
            Some(
                "https://registry.terraform.io/providers/hyperpod-governance/hyperpod/latest/docs/guides/\
                 governance-rules#wkl-3"
            )
        );
        // A relative base works the same; a trailing '#' is not doubled.
        assert_eq!(
            Rule::parse("clu-10")
                .link("docs/guides/governance-rules.md#")
                .as_deref(),
            Some("docs/guides/governance-rules.md#clu-10")
        );
        // A rule the catalog does not know keeps its ID and has no link.
        let other = Rule::parse("WKL-99");
        assert_eq!(other.id(), "WKL-99");
        assert_eq!(other.link(DEFAULT_RULES_URL), None);
        assert_eq!(other.section(), Section::Contract);
    }

    #[test]
    fn every_catalog_rule_has_a_section_and_its_anchor_matches_the_guide_heading() {
        for rule in RuleId::ALL {
            let wrapped = Rule::Known(*rule);
            // The guide's heading is `### <ID>`; GitHub's anchor of it is the lower-cased ID.
            assert_eq!(wrapped.anchor(), Some(rule.id().to_lowercase()));
            let expected = match &rule.id()[..3] {
                "ORG" => Section::Organization,
                "PRJ" => Section::Project,
                "CLU" => Section::Cluster,
                "WKL" => Section::Workload,
                _ => Section::Contract,
            };
            assert_eq!(wrapped.section(), expected, "{rule}");
        }
    }

    #[test]
    fn statuses_order_from_best_to_worst() {
        assert!(Status::Failed > Status::Warning && Status::Warning > Status::Skipped);
        assert!(Status::Skipped > Status::Deferred && Status::Deferred > Status::Excepted);
        assert!(Status::Excepted > Status::Passed && Status::Passed > Status::NotApplicable);
        assert_eq!(Status::of_finding("excepted"), Status::Excepted);
        assert_eq!(Status::of_finding("something new"), Status::Warning);
    }
}
