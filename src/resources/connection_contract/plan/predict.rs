//! The contract's planned state: `id` (its name), the review status and next review date, the approval
//! (`approved_facts`, `changed_facts`), the checklist and `governance`, what dependents reference. What an unknown
//! argument decides is unknown, and every derived attribute is while the whole contract waits for apply.

use super::super::model::{DERIVED, governance_of};
use super::super::schema::ContractModel;
use super::ContractPlanInputs;
use super::judge::{ContractJudgement, ContractVerdict};
use crate::protocol::model::Field;
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;
use crate::resources::checklist::ChecklistAttributes;
use crate::resources::governance_objects::ContractGovernance;

pub fn predict(inputs: &ContractPlanInputs, verdict: &ContractVerdict, value: &mut Value) {
    if let Some(name) = &inputs.config.name {
        ContractModel::ID.set(value, &Field::Known(name.clone()));
    }
    let judged = match verdict {
        ContractVerdict::Judged(judged) => judged,
        ContractVerdict::Deferred(_) => {
            for name in DERIVED.iter() {
                set_attr(value, name, Value::Unknown);
            }
            return;
        }
    };
    let status = if judged.status_known {
        Field::Known(judged.status.as_str().to_string())
    } else {
        Field::Unknown
    };
    ContractModel::REVIEW_STATUS.set(value, &status);
    ContractModel::NEXT_REVIEW_DATE.set(value, &Field::Known(judged.next_review.to_string()));
    // Facts read with stand-ins for values unknown until apply are not recorded: apply records them.
    let (approved, changed) = if inputs.config.unknown.is_empty() {
        // Null when nothing changed, like `findings`: a plan shows the attribute only when it has something to say.
        let changed = (!judged.changed.is_empty()).then(|| judged.changed.clone());
        (Field::Known(judged.approved.clone()), changed.into())
    } else {
        (Field::Unknown, Field::Unknown)
    };
    ContractModel::APPROVED_FACTS.set(value, &approved);
    ContractModel::CHANGED_FACTS.set(value, &changed);
    ChecklistAttributes::of(&judged.report.checklist()).write(value);
    ContractModel::GOVERNANCE.set(value, &governance(inputs, judged, status));
}

/// `governance`: the contract's facts, those an unknown argument decides unknown, and the review status as planned.
fn governance(
    inputs: &ContractPlanInputs,
    judged: &ContractJudgement,
    status: Field<String>,
) -> Field<ContractGovernance> {
    let Some(contract) = &inputs.config.contract else {
        return Field::Unknown;
    };
    let mut governance = governance_of(contract, judged.status.as_str(), &judged.excepted);
    for unknown_fact in inputs.config.unknown.iter().filter_map(|partial| partial.unknown_fact) {
        unknown_fact(&mut governance);
    }
    governance.review_status = status;
    Field::Known(governance)
}
