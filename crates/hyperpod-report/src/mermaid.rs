//! The Mermaid diagram (`flowchart LR`): organization (domain unit) → project (connection contract) → cluster →
//! tenant, each node coloured by the worst status of the resources it stands for. Node IDs are synthetic (`n1`,
//! `n2`, …) and every label is quoted with the characters Mermaid reads as syntax written as entity codes, so no
//! name from the plan can break the diagram.

use std::collections::BTreeMap;

use super::model::GovernanceReport;
use super::rules::Status;

/// The diagram's text, without the Markdown fence.
pub fn diagram(report: &GovernanceReport) -> String {
    let mut graph = Graph::default();
    unit_nodes(&mut graph, report);
    let mut clusters: BTreeMap<String, Option<Status>> = BTreeMap::new();
    for (address, cluster) in &report.policies {
        let status = report.status_of(address);
        let entry = clusters.entry(cluster.clone().unwrap_or_default()).or_insert(status);
        *entry = (*entry).max(status);
    }
    for contract in &report.contracts {
        clusters.entry(contract.cluster.clone()).or_insert(None);
    }
    for tenant in &report.tenants {
        if let Some(cluster) = &tenant.cluster {
            clusters.entry(cluster.clone()).or_insert(None);
        }
    }
    project_nodes(&mut graph, report);
    for (cluster, status) in &clusters {
        graph.node(&format!("cluster:{cluster}"), &format!("Cluster {cluster}"), *status);
    }
    tenant_nodes(&mut graph, report);

    edges(&mut graph, report);
    graph.render()
}

/// Domain units: those grants delegate, and those contracts' projects are in.
fn unit_nodes(graph: &mut Graph, report: &GovernanceReport) {
    let unit_of = |unit: &Option<String>| match unit {
        Some(unit) => format!("Domain unit {unit}"),
        None => "Organization".to_string(),
    };
    let mut units: BTreeMap<Option<String>, Option<Status>> = BTreeMap::new();
    for (address, unit) in &report.grants {
        let status = report.status_of(address);
        let entry = units.entry(unit.clone()).or_insert(status);
        *entry = (*entry).max(status);
    }
    for contract in &report.contracts {
        units.entry(contract.domain_unit.clone()).or_insert(None);
    }
    for (unit, status) in &units {
        graph.node(&format!("unit:{unit:?}"), &unit_of(unit), *status);
    }
}

/// One node per contract's project, coloured by the worst verdict of what the connection is made of.
fn project_nodes(graph: &mut Graph, report: &GovernanceReport) {
    for (index, contract) in report.contracts.iter().enumerate() {
        // The project node stands for the connection: the contract, its restriction and binding (tenants have
        // their own nodes).
        let status = contract
            .resources
            .iter()
            .filter(|address| !report.tenants.iter().any(|t| &t.address == *address))
            .filter_map(|address| report.status_of(address))
            .max();
        let label = format!("{}\nproject {}", contract.name, contract.project_id);
        graph.node(&format!("contract:{index}"), &label, status);
    }
}

/// One node per tenant, coloured by its verdict.
fn tenant_nodes(graph: &mut Graph, report: &GovernanceReport) {
    for tenant in &report.tenants {
        let label = if tenant.planned {
            format!("{}\n{}", tenant.team, tenant.namespace)
        } else {
            format!("{}\nnot planned", tenant.team)
        };
        graph.node(
            &format!("tenant:{}", tenant.address),
            &label,
            report.status_of(&tenant.address),
        );
    }
}

/// Unit to project to cluster, and cluster to tenant.
fn edges(graph: &mut Graph, report: &GovernanceReport) {
    for (index, contract) in report.contracts.iter().enumerate() {
        let project = format!("contract:{index}");
        graph.edge(&format!("unit:{:?}", contract.domain_unit), &project);
        graph.edge(&project, &format!("cluster:{}", contract.cluster));
    }
    for tenant in &report.tenants {
        let from = match (&tenant.cluster, tenant.contract) {
            (Some(cluster), _) => format!("cluster:{cluster}"),
            (None, Some(index)) => format!("cluster:{}", report.contracts[index].cluster),
            (None, None) => continue,
        };
        graph.edge(&from, &format!("tenant:{}", tenant.address));
    }
}

#[derive(Default)]
struct Graph {
    /// key → (id, label, status), in the order added.
    nodes: Vec<(String, String, String, Option<Status>)>,
    edges: Vec<(String, String)>,
}

impl Graph {
    fn node(&mut self, key: &str, label: &str, status: Option<Status>) {
        if self.id(key).is_none() {
            let id = format!("n{}", self.nodes.len() + 1);
            self.nodes.push((key.to_string(), id, label.to_string(), status));
        }
    }

    fn id(&self, key: &str) -> Option<&str> {
        self.nodes.iter().find(|node| node.0 == key).map(|node| node.1.as_str())
    }

    fn edge(&mut self, from: &str, to: &str) {
        if let (Some(from), Some(to)) = (self.id(from), self.id(to)) {
            let edge = (from.to_string(), to.to_string());
            if !self.edges.contains(&edge) {
                self.edges.push(edge);
            }
        }
    }

    fn render(&self) -> String {
        let mut out = String::from("flowchart LR\n");
        for (_, id, label, status) in &self.nodes {
            let icon = status.map_or(String::new(), |s| format!("{} ", s.icon()));
            out.push_str(&format!("  {id}[\"{icon}{}\"]\n", label_text(label)));
        }
        for (from, to) in &self.edges {
            out.push_str(&format!("  {from} --> {to}\n"));
        }
        out.push_str("  classDef pass fill:#dcfce7,stroke:#15803d,color:#14532d\n");
        out.push_str("  classDef fail fill:#fee2e2,stroke:#b91c1c,color:#7f1d1d\n");
        out.push_str("  classDef warn fill:#fef3c7,stroke:#b45309,color:#78350f\n");
        out.push_str("  classDef pending fill:#e5e7eb,stroke:#4b5563,color:#1f2937\n");
        for class in ["pass", "fail", "warn", "pending"] {
            let ids: Vec<&str> = self
                .nodes
                .iter()
                .filter(|node| node.3.map(class_of) == Some(class))
                .map(|node| node.1.as_str())
                .collect();
            if !ids.is_empty() {
                out.push_str(&format!("  class {} {class}\n", ids.join(",")));
            }
        }
        out
    }
}

fn class_of(status: Status) -> &'static str {
    match status {
        Status::Failed => "fail",
        Status::Warning => "warn",
        Status::Skipped | Status::Deferred => "pending",
        Status::Passed | Status::Excepted | Status::NotApplicable => "pass",
    }
}

/// A label's text for inside `"…"`: what Mermaid or the Markdown fence around it would read as syntax becomes an
/// entity code (`#35;` style), control characters a space, and `\n` a line break. Other Unicode stays as it is.
pub fn label_text(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        match c {
            '\n' => out.push_str("<br/>"),
            '"' | '#' | '&' | '<' | '>' | '[' | ']' | '(' | ')' | '{' | '}' | '|' | '`' | ';' | '\\' => {
                out.push_str(&format!("#{};", u32::from(c)));
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_escape_what_mermaid_reads_as_syntax_and_keep_unicode() {
        let label = label_text("team \"x\" [a] (b) {c} <d> a|b #1; `e` 研究チーム ü\nline\u{7}");
        assert_eq!(
            label,
            "team #34;x#34; #91;a#93; #40;b#41; #123;c#125; #60;d#62; a#124;b #35;1#59; #96;e#96; 研究チーム ü<br/>line "
        );
        for forbidden in ['"', '[', ']', '(', ')', '{', '}', '<', '>', '|', '`', '\u{7}'] {
            assert!(
                !label.replace("<br/>", "").contains(forbidden),
                "{forbidden:?} in {label}"
            );
        }
    }
}
