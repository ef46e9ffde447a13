//! When the current operation must be done (the provider passes Terraform's `timeouts`), answered per task like
//! `caller`. A call is not started once it has passed, and a call that returns after it fails: nothing is decided on
//! an answer that came back too late, and an operation out of time stops at its next call.

use std::time::{Duration, Instant};

/// Answers the current task's deadline, if it has one. The default has none (reads, tests, tools).
#[derive(Clone, Copy, Debug)]
pub struct OperationDeadline(pub fn() -> Option<Instant>);

impl Default for OperationDeadline {
    fn default() -> Self {
        Self(|| None)
    }
}

/// Which side of a call the deadline was found passed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    BeforeSending,
    OnReturn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: the operation's timeout ran out {late:?} earlier", match moment {
    Moment::BeforeSending => "not sent",
    Moment::OnReturn => "answered too late",
})]
pub struct DeadlinePassed {
    pub moment: Moment,
    pub late: Duration,
}

impl OperationDeadline {
    /// `Err` once the current task's deadline has passed.
    pub fn check(&self, moment: Moment) -> Result<(), DeadlinePassed> {
        match (self.0)() {
            Some(at) if Instant::now() >= at => Err(DeadlinePassed {
                moment,
                late: Instant::now().saturating_duration_since(at),
            }),
            _ => Ok(()),
        }
    }
}

/// The `DeadlinePassed` somewhere in an error's chain of causes (the SDK wraps what an interceptor returns).
pub fn find_in(err: &(dyn std::error::Error + 'static)) -> Option<DeadlinePassed> {
    let mut current = Some(err);
    while let Some(cause) = current {
        if let Some(passed) = cause.downcast_ref::<DeadlinePassed>() {
            return Some(*passed);
        }
        current = cause.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_fails_the_check_and_is_found_inside_a_wrapping_error() {
        let none = OperationDeadline::default();
        assert_eq!(none.check(Moment::BeforeSending), Ok(()));
        let passed = OperationDeadline(|| Instant::now().checked_sub(Duration::from_secs(1)));
        let err = passed.check(Moment::OnReturn).unwrap_err();
        assert_eq!(err.moment, Moment::OnReturn);
        assert!(err.late >= Duration::from_secs(1));
        let future = OperationDeadline(|| Some(Instant::now() + Duration::from_mins(1)));
        assert_eq!(future.check(Moment::BeforeSending), Ok(()));

        #[derive(Debug, thiserror::Error)]
        #[error("dispatch failure")]
        struct Wrapper(#[source] DeadlinePassed);
        assert_eq!(find_in(&Wrapper(err)), Some(err));
        assert_eq!(find_in(&std::io::Error::other("refused")), None);
    }
}
