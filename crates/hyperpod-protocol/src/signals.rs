//! The plugin's stop signals, shared by the service that receives them (GRPCController.Shutdown, tfplugin6
//! StopProvider, Ctrl-C) and the operations that watch them.

use tokio::sync::watch;

/// Shared stop signals: `shutdown` ends the process (GRPCController.Shutdown, Ctrl-C); `stop` asks running
/// operations to give up (tfplugin6 StopProvider) without ending the process.
#[derive(Clone)]
pub struct Signals {
    shutdown: watch::Sender<bool>,
    stop: watch::Sender<bool>,
}

impl Default for Signals {
    fn default() -> Self {
        Self {
            shutdown: watch::channel(false).0,
            stop: watch::channel(false).0,
        }
    }
}

impl Signals {
    pub fn request_shutdown(&self) {
        self.shutdown.send_replace(true);
    }
    pub fn request_stop(&self) {
        self.stop.send_replace(true);
    }
    /// A receiver that long-running operations (waiters) watch to end early on StopProvider or Shutdown.
    pub fn stop_receiver(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }
    pub async fn shutdown_requested(&self) {
        let mut receiver = self.shutdown.subscribe();
        // An error means the sender is gone, which also means we are shutting down.
        let _ = receiver.wait_for(|requested| *requested).await;
    }
}
