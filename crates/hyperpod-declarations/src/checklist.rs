//! The reviewer's checklist every governed resource exposes (`passed_checks`, `not_applicable_checks`,
//! `findings`), declared once; the plan-time conventions around it and the upgrade of 0.2.0's `checks` list are the
//! provider's (`src/resources/checklist.rs`).

use crate::governance::Checklist;
use crate::protocol::model::{Field, FieldType, Model};
use crate::protocol::value::Value;

const UNKNOWN_AT_PLAN: &str = "Known after apply while a rule waits for a value known only then: apply judges it \
                               before writing anything.";

/// The computed checklist attributes, declared once and taken by each governed resource's model in its place
/// (`#[tf(flatten)]`): passed rules by ID on one line, every other outcome with its detail.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ChecklistAttributes {
    #[tf(
        computed,
        description = format!(
            "The IDs of the rules that passed, space-separated, in the order they ran (`\"\"` when none did). \
             {UNKNOWN_AT_PLAN}"
        )
    )]
    pub passed_checks: Field<String>,
    #[tf(
        computed,
        description = format!(
            "The IDs of the rules that do not apply here (an EKS-only rule on a Slurm cluster), space-separated; \
             null when every rule applies. {UNKNOWN_AT_PLAN}"
        )
    )]
    pub not_applicable_checks: Field<String>,
    #[tf(
        computed,
        nested,
        description = format!(
            "Every rule that neither passed nor is not applicable, in the order they ran, with its detail; null when \
             there is none. {UNKNOWN_AT_PLAN}"
        )
    )]
    pub findings: Field<Vec<FindingRow>>,
}

/// One row of `findings`.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct FindingRow {
    /// Rule ID.
    #[tf(computed)]
    pub rule: Field<String>,
    /// `failed`, `warning` (failed at warning severity), `skipped` (a fact could not be read; the plan warns) or
    /// `excepted` (failed, and waived by a valid exception the detail names).
    #[tf(computed)]
    pub status: Field<String>,
    /// What was found and how to fix it, why it was skipped, or the exception that waives it.
    #[tf(computed)]
    pub detail: Field<String>,
}

/// The checklist's attributes, in the order the schema lists them.
pub const NAMES: [&str; 3] = [
    ChecklistAttributes::PASSED_CHECKS.name(),
    ChecklistAttributes::NOT_APPLICABLE_CHECKS.name(),
    ChecklistAttributes::FINDINGS.name(),
];

impl ChecklistAttributes {
    /// The attributes of a checklist; all unknown while a rule is deferred to apply, so apply can fill them in
    /// without contradicting the plan. Null rather than empty where there is nothing to say.
    pub fn of(checklist: &Checklist) -> Self {
        if checklist.deferred {
            return Self::unknown();
        }
        let ids = |ids: &[&str]| ids.join(" ");
        let findings: Vec<FindingRow> = checklist
            .findings
            .iter()
            .map(|row| FindingRow {
                rule: Field::Known(row.rule.to_string()),
                status: Field::Known(row.status.to_string()),
                detail: Field::Known(row.detail.clone()),
            })
            .collect();
        Self {
            passed_checks: Field::Known(ids(&checklist.passed)),
            not_applicable_checks: if checklist.not_applicable.is_empty() {
                Field::Null
            } else {
                Field::Known(ids(&checklist.not_applicable))
            },
            findings: if findings.is_empty() {
                Field::Null
            } else {
                Field::Known(findings)
            },
        }
    }

    /// Every attribute known only at apply.
    pub fn unknown() -> Self {
        Self {
            passed_checks: Field::Unknown,
            not_applicable_checks: Field::Unknown,
            findings: Field::Unknown,
        }
    }

    /// The three attributes as `(name, value)` pairs, for a resource value still written by name.
    pub fn pairs(&self) -> [(&'static str, Value); 3] {
        [
            (NAMES[0], self.passed_checks.encode()),
            (NAMES[1], self.not_applicable_checks.encode()),
            (NAMES[2], self.findings.encode()),
        ]
    }

    /// Writes the three attributes onto a resource value that has them.
    pub fn write(&self, value: &mut Value) {
        Self::PASSED_CHECKS.set(value, &self.passed_checks);
        Self::NOT_APPLICABLE_CHECKS.set(value, &self.not_applicable_checks);
        Self::FINDINGS.set(value, &self.findings);
    }
}

/// The computed checklist attributes of a schema not declared with the derive yet.
pub fn attributes() -> Vec<crate::protocol::schema::Attribute> {
    ChecklistAttributes::block().attributes
}
