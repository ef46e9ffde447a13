//! `hyperpod_task_view_restriction` schema: declared in crate `hyperpod-declarations` (`task_view_restriction.rs`:
//! the attributes with their validators and docs text, the identity, and what AWS and Kubernetes accept of what the
//! restriction sends, checked at validate).

// The declaration (its structs, `schema()`, identity, name limits and validators) is in crate
// `hyperpod-declarations` (`task_view_restriction.rs`), below the provider and the report alike.
pub use hyperpod_declarations::task_view_restriction::*;
