//! The cloud clients: AWS (configured SDK clients, `find_*` / `wait_*` helpers per service, typed errors) and an EKS
//! cluster's Kubernetes API (a JSON client, paths, namespace helpers). They know nothing of Terraform or the
//! governance engine: waits are cancelled through a tokio `watch` of "stop", and the name a request is made for
//! comes from a function the caller supplies (`caller`).

pub mod aws;
pub mod caller;
pub mod deadline;
pub mod kubernetes;

/// Cancels a wait: the receiving end of a `watch` that turns `true` when the operation must stop (the provider wires
/// it to Terraform's StopProvider). A waiter returns its `Stopped` error as soon as it sees `true`.
pub type Stop = tokio::sync::watch::Receiver<bool>;
