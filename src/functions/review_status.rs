//! `provider::hyperpod::review_status(last_reviewed, interval_days, as_of)` and
//! `provider::hyperpod::next_review_date(last_reviewed, interval_days)`: a contract's review schedule for HCL
//! authors (dashboards, outputs, `check` blocks) without date arithmetic in modules. Functions must be pure, so the
//! reference time is an argument: pass `plantimestamp()`.

use crate::governance::{Review, schedule_status};
use crate::protocol::object::integer;
use crate::protocol::resource::{Function, FunctionError};
use crate::protocol::schema::{FunctionParameter, FunctionSignature};
use crate::protocol::validators::parse_date;
use crate::protocol::value::{Type, Value};

fn last_reviewed_parameter() -> FunctionParameter {
    FunctionParameter {
        name: "last_reviewed",
        ty: Type::String,
        description: "Date of the last review, `YYYY-MM-DD` (the contract's `review.last_reviewed`).".to_string(),
    }
}

fn interval_parameter() -> FunctionParameter {
    FunctionParameter {
        name: "interval_days",
        ty: Type::Number,
        description: "Days between reviews (the contract's `review.interval_days`), 1 to 730.".to_string(),
    }
}

/// The review schedule from the first two arguments, or the error naming the argument at fault.
fn review_from(arguments: &[Value]) -> Result<Review, FunctionError> {
    let last_reviewed = match arguments.first() {
        Some(Value::String(text)) => parse_date(text).ok_or_else(|| FunctionError {
            text: format!("last_reviewed {text:?} is not a date; write YYYY-MM-DD"),
            argument: Some(0),
        })?,
        _ => return Err(argument_error(0, "last_reviewed must be a string")),
    };
    let wrapper = crate::protocol::object::object([("n", arguments.get(1).cloned().unwrap_or(Value::Null))]);
    let interval_days = integer(&wrapper, "n")
        .filter(|days| (1..=730).contains(days))
        .ok_or_else(|| argument_error(1, "interval_days must be a whole number from 1 to 730"))?;
    Ok(Review {
        interval_days,
        last_reviewed,
        approved_by: String::new(),
    })
}

fn argument_error(index: usize, text: &str) -> FunctionError {
    FunctionError {
        text: text.to_string(),
        argument: Some(index),
    }
}

pub struct ReviewStatusFunction {
    signature: FunctionSignature,
}

impl Default for ReviewStatusFunction {
    fn default() -> Self {
        Self {
            signature: FunctionSignature {
                summary: "Where a contract's review schedule stands.".to_string(),
                description: "Returns `current`, `due_soon` (due within 14 days) or `overdue` for a review schedule \
                              as of a timestamp, e.g. `provider::hyperpod::review_status(\"2026-11-01\", 90, \
                              plantimestamp())`. The contract's own `review_status` also knows `review_required` and \
                              `revoked`."
                    .to_string(),
                parameters: vec![
                    last_reviewed_parameter(),
                    interval_parameter(),
                    FunctionParameter {
                        name: "as_of",
                        ty: Type::String,
                        description: "The reference time, an RFC 3339 timestamp such as `plantimestamp()`, or a date."
                            .to_string(),
                    },
                ],
                return_type: Type::String,
            },
        }
    }
}

impl Function for ReviewStatusFunction {
    fn name(&self) -> &'static str {
        "review_status"
    }
    fn signature(&self) -> &FunctionSignature {
        &self.signature
    }
    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        let review = review_from(arguments)?;
        let as_of = match arguments.get(2) {
            // RFC 3339 timestamps start with the date; the date is all the schedule needs.
            Some(Value::String(text)) => text.get(..10).and_then(parse_date).ok_or_else(|| {
                argument_error(
                    2,
                    "as_of must be an RFC 3339 timestamp (e.g. plantimestamp()) or YYYY-MM-DD",
                )
            })?,
            _ => return Err(argument_error(2, "as_of must be a string")),
        };
        Ok(Value::String(schedule_status(&review, as_of).as_str().to_string()))
    }
}

pub struct NextReviewDate {
    signature: FunctionSignature,
}

impl Default for NextReviewDate {
    fn default() -> Self {
        Self {
            signature: FunctionSignature {
                summary: "When a contract is next due for review.".to_string(),
                description: "Returns `last_reviewed` plus `interval_days` as `YYYY-MM-DD`.".to_string(),
                parameters: vec![last_reviewed_parameter(), interval_parameter()],
                return_type: Type::String,
            },
        }
    }
}

impl Function for NextReviewDate {
    fn name(&self) -> &'static str {
        "next_review_date"
    }
    fn signature(&self) -> &FunctionSignature {
        &self.signature
    }
    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        Ok(Value::String(review_from(arguments)?.next_review_date().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::int;

    fn s(text: &str) -> Value {
        Value::String(text.to_string())
    }

    #[test]
    fn schedule_status_as_of_a_timestamp() {
        let function = ReviewStatusFunction::default();
        let call = |as_of: &str| function.call(&[s("2026-11-01"), int(90), s(as_of)]).ok();
        assert_eq!(call("2026-11-30T01:02:03Z"), Some(s("current")));
        assert_eq!(call("2027-01-25T00:00:00Z"), Some(s("due_soon")));
        assert_eq!(call("2027-02-01"), Some(s("overdue")));
        let err = function
            .call(&[s("2026-13-01"), int(90), s("2026-11-30")])
            .err()
            .unwrap();
        assert_eq!(err.argument, Some(0));
        let err = function
            .call(&[s("2026-11-01"), int(0), s("2026-11-30")])
            .err()
            .unwrap();
        assert_eq!(err.argument, Some(1));
        let err = function.call(&[s("2026-11-01"), int(90), s("soon")]).err().unwrap();
        assert_eq!(err.argument, Some(2));
    }

    #[test]
    fn next_review_date_adds_the_interval() {
        let function = NextReviewDate::default();
        assert_eq!(function.call(&[s("2026-11-01"), int(90)]).ok(), Some(s("2027-01-30")));
    }
}
