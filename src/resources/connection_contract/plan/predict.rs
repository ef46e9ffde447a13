//! The contract's planned state: `id` (its name), the review status and next review date, the approval
//! (`approved_facts`, `changed_facts`), the checklist and `governance`, what dependents reference. What an unknown
//! argument decides is unknown, and every derived attribute is while the whole contract waits for apply.

use super::super::model::{DERIVED, governance_value};
use super::ContractPlanInputs;
use super::judge::{ContractJudgement, ContractVerdict};
use crate::protocol::object::{text, text_map};
use crate::protocol::plan::set_attr;
use crate::protocol::value::Value;

pub fn predict(inputs: &ContractPlanInputs, verdict: &ContractVerdict, value: &mut Value) {
    if let Some(name) = &inputs.config.name {
        set_attr(value, "id", text(name));
    }
    let judged = match verdict {
        ContractVerdict::Judged(judged) => judged,
        ContractVerdict::Deferred(_) => {
            for name in DERIVED {
                set_attr(value, name, Value::Unknown);
            }
            return;
        }
    };
    let status = if judged.status_known {
        text(judged.status.as_str())
    } else {
        Value::Unknown
    };
    set_attr(value, "review_status", status.clone());
    set_attr(value, "next_review_date", text(judged.next_review.to_string()));
    // Facts read with stand-ins for values unknown until apply are not recorded: apply records them.
    if inputs.config.unknown.is_empty() {
        set_attr(value, "approved_facts", text_map(&judged.approved));
        // Null when nothing changed, like `findings`: a plan shows the attribute only when it has something to say.
        let changed = if judged.changed.is_empty() {
            Value::Null
        } else {
            text_map(&judged.changed)
        };
        set_attr(value, "changed_facts", changed);
    } else {
        set_attr(value, "approved_facts", Value::Unknown);
        set_attr(value, "changed_facts", Value::Unknown);
    }
    crate::resources::checklist::set(value, &judged.report);
    set_attr(value, "governance", governance(inputs, judged, status));
}

/// `governance`: the contract's facts, those an unknown argument decides unknown, and the review status as planned.
fn governance(inputs: &ContractPlanInputs, judged: &ContractJudgement, status: Value) -> Value {
    let Some(contract) = &inputs.config.contract else {
        return Value::Unknown;
    };
    let mut governance = governance_value(contract, judged.status.as_str(), &judged.excepted);
    for partial in &inputs.config.unknown {
        // The domain unit is not among the facts dependents read.
        if partial.name != "domain_unit_id" {
            set_attr(&mut governance, partial.name, Value::Unknown);
        }
    }
    set_attr(&mut governance, "review_status", status);
    governance
}
