//! `TargetVersion` of `UpdateComputeQuota` and `UpdateClusterSchedulerConfig`. AWS documents it only as "Target
//! version" (API reference, SDK models, CLI help); no AWS example or tool shows its value. Two readings fit: the
//! version being replaced (optimistic concurrency, like an ETag: the sandbox's default) or the version the update
//! creates (current + 1). Both are handled without doubling calls: updates send the reading that last worked in this
//! provider process (`current` until one fails), and a `ConflictException` after which a re-read shows the version
//! unchanged and the resource settled cannot be a concurrent write (a write bumps the version), so it is the other
//! reading: switch and retry at once. A changed version is a concurrent write, rebased as before.

use std::sync::atomic::{AtomicBool, Ordering};

use super::scheduler_status::SchedulerStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// `TargetVersion` = the version the update replaces.
    Current,
    /// `TargetVersion` = the version the update creates.
    Next,
}

impl Reading {
    /// The `TargetVersion` to send for an update of a resource now at `current`.
    pub fn target(self, current: i32) -> i32 {
        match self {
            Reading::Current => current,
            Reading::Next => current.saturating_add(1),
        }
    }
}

/// The reading in use; one per provider process, shared by both APIs (they are one service's one convention).
#[derive(Debug, Default)]
pub struct Learned {
    next: AtomicBool,
}

impl Learned {
    pub const fn new() -> Self {
        Self {
            next: AtomicBool::new(false),
        }
    }

    pub fn reading(&self) -> Reading {
        if self.next.load(Ordering::Relaxed) {
            Reading::Next
        } else {
            Reading::Current
        }
    }

    /// After a `ConflictException` for an update sent with `used` against version `sent_against`: `reread_version`
    /// and `reread_settled` are what a re-read found. Returns true when the conflict can only be the reading (same
    /// version, nothing in flight): the other reading is then in use (unless a parallel update switched it already)
    /// and the caller retries at once. False: a concurrent write; re-read and rebase.
    pub fn conflict_was_reading(
        &self,
        used: Reading,
        sent_against: i32,
        reread_version: i32,
        reread_settled: bool,
    ) -> bool {
        if reread_version != sent_against || !reread_settled {
            return false;
        }
        let (from, to) = match used {
            Reading::Current => (false, true),
            Reading::Next => (true, false),
        };
        // A parallel update may have learned the same thing first; either way the retry uses the other reading.
        let _ = self
            .next
            .compare_exchange(from, to, Ordering::Relaxed, Ordering::Relaxed);
        true
    }
}

/// The provider process's reading.
pub static LEARNED: Learned = Learned::new();

/// What an update loop does after a `ConflictException` and a re-read (`now_version`, `now_status`): when the
/// conflict was the reading, nothing (the retry uses the other one at once); when it was a concurrent write, back off
/// before rebasing on the re-read version. `what` names the object in logs ("compute quota").
pub async fn after_conflict(
    what: &str,
    id: &str,
    used: Reading,
    sent_against: i32,
    now_version: i32,
    now_status: &SchedulerStatus,
    attempt: usize,
) {
    if LEARNED.conflict_was_reading(used, sent_against, now_version, now_status.is_settled()) {
        tracing::info!(what, id, ?used, "TargetVersion is read the other way; retrying with it");
    } else {
        tracing::warn!(what, id, attempt, "changed concurrently; re-reading its version");
        tokio::time::sleep(std::time::Duration::from_millis(500 * attempt as u64)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_the_reading() {
        assert_eq!(Reading::Current.target(3), 3);
        assert_eq!(Reading::Next.target(3), 4);
        assert_eq!(Reading::Next.target(i32::MAX), i32::MAX);
    }

    #[test]
    fn a_conflict_on_an_unchanged_settled_version_switches_the_reading() {
        let learned = Learned::new();
        assert_eq!(learned.reading(), Reading::Current);
        assert!(learned.conflict_was_reading(Reading::Current, 2, 2, true));
        assert_eq!(learned.reading(), Reading::Next);
        // Sticky: the next update uses it straight away; a later mismatch switches back.
        assert!(learned.conflict_was_reading(Reading::Next, 5, 5, true));
        assert_eq!(learned.reading(), Reading::Current);
    }

    #[test]
    fn a_concurrent_write_is_not_taken_for_the_reading() {
        let learned = Learned::new();
        assert!(
            !learned.conflict_was_reading(Reading::Current, 2, 3, true),
            "someone wrote version 3"
        );
        assert!(
            !learned.conflict_was_reading(Reading::Current, 2, 2, false),
            "a write is in flight"
        );
        assert_eq!(learned.reading(), Reading::Current);
    }

    #[test]
    fn parallel_updates_learning_the_same_thing_switch_once() {
        let learned = Learned::new();
        assert!(learned.conflict_was_reading(Reading::Current, 1, 1, true));
        assert!(
            learned.conflict_was_reading(Reading::Current, 7, 7, true),
            "the retry still uses Next"
        );
        assert_eq!(learned.reading(), Reading::Next);
    }
}
