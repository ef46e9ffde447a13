//! Where an EKS access policy association applies (the EKS API's `AccessScope`): the whole cluster, or the named
//! namespaces. The clients read it from the API's scope type, the engine judges it (CLU-3, CLU-4), and a restriction
//! records it in `components` in its text form, so a changed scope is drift.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessScope {
    Cluster,
    Namespaces(Vec<String>),
}

impl AccessScope {
    /// Namespaces when there are some, else the cluster (how the provider asks for a scope).
    pub fn of_namespaces(namespaces: &[String]) -> Self {
        if namespaces.is_empty() {
            AccessScope::Cluster
        } else {
            AccessScope::Namespaces(namespaces.to_vec())
        }
    }
}

/// `cluster`, or `namespace:<a>,<b>` (the namespaces in the association's order): what a restriction's `components`
/// records of an association.
impl fmt::Display for AccessScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessScope::Cluster => f.write_str("cluster"),
            AccessScope::Namespaces(namespaces) => write!(f, "namespace:{}", namespaces.join(",")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_reads_as_components_records_it() {
        assert_eq!(AccessScope::Cluster.to_string(), "cluster");
        let namespaces = vec!["a".to_string(), "b".to_string()];
        assert_eq!(AccessScope::of_namespaces(&namespaces).to_string(), "namespace:a,b");
        assert_eq!(AccessScope::of_namespaces(&[]), AccessScope::Cluster);
    }
}
