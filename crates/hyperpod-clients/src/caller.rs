//! Which resource, data source or provider step a request is made for. AWS ignores the name; the sandbox counts calls
//! per caller with it, which is how the acceptance tests compare each resource's calls with its documented policy.
//! The clients do not know where the name comes from: whoever builds them passes a function that answers it for the
//! current task (the provider passes the plugin protocol's per-RPC caller).

/// The request header that carries the name, on AWS and Kubernetes requests alike.
pub const CALLER_HEADER: &str = "x-hyperpod-caller";

/// Answers the current task's caller name, if it has one. The default names no caller (tests, tools).
#[derive(Clone, Copy, Debug)]
pub struct CallerName(pub fn() -> Option<String>);

impl CallerName {
    pub fn current(&self) -> Option<String> {
        (self.0)()
    }
}

impl Default for CallerName {
    fn default() -> Self {
        Self(|| None)
    }
}
