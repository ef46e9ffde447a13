//! The vocabulary the layers share, below all of them: AWS account IDs, regions and ARNs, validated once where they
//! enter (the governance engine and the cloud clients), attribute paths (the engine's findings and the plugin
//! protocol's diagnostics), the tags the provider writes, the names HyperPod derives, a quota entry and its units, the scope of an EKS access policy, the keys of a
//! resource's `components`, and SageMaker's quota settings (sharing strategy, preemption, activation). No I/O, no dependencies.

pub mod access_scope;
pub mod component;
pub mod ids;
pub mod names;
pub mod path;
pub mod quota;
pub mod quota_settings;
pub mod tags;
