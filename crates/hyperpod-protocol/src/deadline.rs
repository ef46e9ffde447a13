//! How long the current create, update or delete may take: the resource's `timeouts` block, or the default its schema
//! declares (`Block::timeouts`). It is a task-local the layers below may read, like `caller`: the clients refuse to
//! start a call, and fail a call that returns, once it has passed. The protocol layer only sets it; as a last resort it
//! abandons an operation that outlives it by `GRACE` (a call that hangs), which leaves what a killed provider leaves
//! (`OperationContext::run`).

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::object::nested;
use super::value::Value;

tokio::task_local! {
    static DEADLINE: Deadline;
}

/// The block's name in HCL and in state (`Block::timeouts` declares it; its attributes are `Operation::name`s).
pub const BLOCK: &str = "timeouts";

/// How long an operation may outlive its deadline before the protocol layer abandons it: time for it to notice (a
/// waiter polls at most every 10 s; a call is refused or fails on return) and report what it has written.
pub const GRACE: Duration = Duration::from_secs(15);

/// The operations a `timeouts` block can time; each is named in HCL as `name()` (`timeouts { create = "…" }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Update => "update",
            Self::Delete => "delete",
        }
    }
}

/// What a resource's `timeouts` block governs (`Block::timeouts`): its operations, and how long each may take when
/// not configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    pub operations: &'static [Operation],
    pub default: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The operation, and so the `timeouts` argument, that set it.
    pub operation: Operation,
    /// The time the operation was given.
    pub limit: Duration,
    /// On tokio's clock (the std clock outside tests).
    pub at: Instant,
}

impl Deadline {
    pub fn starting_now(operation: Operation, limit: Duration) -> Self {
        Self {
            operation,
            limit,
            at: Instant::now() + limit,
        }
    }

    /// The deadline of `operation` for a resource with `timeouts`: the value configured in `state`'s `timeouts`
    /// block, else the declared default. `None` when the resource declares no timeout for the operation.
    pub fn for_operation(timeouts: &Timeouts, operation: Operation, state: &Value) -> Option<Self> {
        if !timeouts.operations.contains(&operation) {
            return None;
        }
        let configured = nested(state, BLOCK)
            .and_then(|block| super::object::string(block, operation.name()))
            .and_then(|text| super::validators::parse_duration(&text));
        Some(Self::starting_now(operation, configured.unwrap_or(timeouts.default)))
    }

    pub fn time_left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    pub fn has_passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// What a user reads when an operation ran out of time, and how to give it more.
    pub fn explanation(&self) -> String {
        format!(
            "The {operation} did not finish within its timeout of {limit}: set `timeouts {{ {operation} = \"…\" }}` \
             to allow more time.",
            operation = self.operation.name(),
            limit = humantime(self.limit),
        )
    }
}

/// `20m`, `1m30s`, `2s`, `500ms`: how a `timeouts` value is written.
pub fn humantime(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        return format!("{millis}ms");
    }
    let seconds = duration.as_secs();
    let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let mut text = String::new();
    if hours > 0 {
        text.push_str(&format!("{hours}h"));
    }
    if minutes > 0 {
        text.push_str(&format!("{minutes}m"));
    }
    if rest > 0 || text.is_empty() {
        text.push_str(&format!("{rest}s"));
    }
    text
}

/// Runs `future` with `deadline` as the current deadline (none: as it is).
pub async fn scope<F: Future>(deadline: Option<Deadline>, future: F) -> F::Output {
    match deadline {
        Some(deadline) => DEADLINE.scope(deadline, future).await,
        None => future.await,
    }
}

/// The current deadline, if this task runs inside a `scope` that set one.
pub fn current() -> Option<Deadline> {
    DEADLINE.try_with(|deadline| *deadline).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::object;

    fn timeouts() -> Timeouts {
        Timeouts {
            operations: &[Operation::Create, Operation::Delete],
            default: Duration::from_mins(10),
        }
    }

    fn state(create: Option<&str>) -> Value {
        let block = object([(
            "create",
            create.map_or(Value::Null, |text| Value::String(text.to_string())),
        )]);
        object([("timeouts", block)])
    }

    #[test]
    fn the_configured_timeout_wins_over_the_default_and_undeclared_operations_have_none() {
        let configured = Deadline::for_operation(&timeouts(), Operation::Create, &state(Some("2s"))).unwrap();
        assert_eq!(configured.limit, Duration::from_secs(2));
        let defaulted = Deadline::for_operation(&timeouts(), Operation::Create, &state(None)).unwrap();
        assert_eq!(defaulted.limit, Duration::from_mins(10));
        let no_block =
            Deadline::for_operation(&timeouts(), Operation::Delete, &object([("timeouts", Value::Null)])).unwrap();
        assert_eq!(no_block.limit, Duration::from_mins(10));
        assert_eq!(
            Deadline::for_operation(&timeouts(), Operation::Update, &state(Some("2s"))),
            None
        );
    }

    #[tokio::test]
    async fn the_deadline_is_visible_inside_its_scope_only() {
        assert_eq!(current(), None);
        let deadline = Deadline::starting_now(Operation::Create, Duration::from_secs(2));
        assert_eq!(scope(Some(deadline), async { current() }).await, Some(deadline));
        assert_eq!(scope(None, async { current() }).await, None);
        assert_eq!(current(), None);
    }

    #[test]
    fn durations_read_as_timeouts_are_written() {
        assert_eq!(humantime(Duration::from_mins(20)), "20m");
        assert_eq!(humantime(Duration::from_secs(90)), "1m30s");
        assert_eq!(humantime(Duration::from_secs(2)), "2s");
        assert_eq!(humantime(Duration::from_millis(500)), "500ms");
        assert_eq!(humantime(Duration::from_hours(1)), "1h");
    }
}
