//! `docs/guides/permissions.md`: the provider's least-privilege IAM policy, whole and per resource, and the
//! Kubernetes RBAC it needs, rendered from the table in `aws::permissions`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use terraform_provider_hyperpod::permissions::{self, CALLERS, Caller, Kind, Permission};

use super::markdown::{fenced, front_matter_in, heading, page};

pub const DESCRIPTION: &str = "The IAM permissions and Kubernetes RBAC the provider needs: one least-privilege policy for the whole provider \
     and one per resource and data source, generated from the code.";

const INTRO: &str = "\
Every AWS operation the provider can call, per resource, data source and function, as IAM policies you can attach
to the role Terraform runs as. The list is generated from one table in the provider's code
(`src/permissions.rs`). A unit test fails when the code sends an AWS operation the table does not list, and an
acceptance test runs the examples against the sandbox and fails when a resource calls anything outside its policy,
or when an action in its policy is never exercised (the few that only a path the tests cannot take needs say why
below).

- **`sts:GetCallerIdentity`** is called once when the provider is configured. AWS allows it to every principal, so
  no policy grants it.
- **`assume_role`**: the credentials the provider starts with need `sts:AssumeRole` on that role, and the role's
  trust policy must allow them. Grant the policies below to the assumed role.
- **Implied permissions** are checked by AWS on another call, never called on their own: `iam:PassRole` when a
  Pod Identity association names the tenant's workload role (limited below to `pods.eks.amazonaws.com` with
  `iam:PassedToService`), `sagemaker:AddTags` and `iam:TagRole` when a compute quota, scheduler config or role is
  created with tags.
- **Resources.** The policies allow each action on `\"Resource\": \"*\"`. Narrow them to your clusters, the tenant
  roles, KMS keys and the DataZone domain if your organization requires it; the actions are what matters here.
- **Functions** compute locally and need no permission.
";

const KUBERNETES: &str = "\
## Kubernetes RBAC

Tenants and task view restrictions also write Kubernetes objects on EKS clusters, through the Kubernetes API as
the same AWS principal (its EKS access entry maps it to Kubernetes groups). That principal needs this ClusterRole,
bound to one of its groups. Kubernetes lets a principal create a Role or ClusterRole only with permissions it holds
itself, or with the `escalate` verb on roles, and bind one only with `bind`: the tenant's viewer and operator roles
and the restriction's viewer role grant read access to pods, jobs and logs and HyperPod's task resources, so either
hold those or add `escalate` and `bind` on `roles` and `clusterroles`. Discovery (`/api`, `/apis`) and `/version`
are allowed to every authenticated user.
";

/// The guide's sections.
pub fn render() -> String {
    let title = "Permissions";
    let mut sections = vec![
        front_matter_in(title, "Guides", DESCRIPTION),
        heading(title, INTRO),
        summary(),
        whole_provider(),
        KUBERNETES.to_string(),
        fenced("yaml", &cluster_role()),
        "## Per resource, data source and function\n".to_string(),
    ];
    sections.extend(CALLERS.iter().map(caller_section));
    sections.push(machine_readable());
    page(&sections)
}

fn summary() -> String {
    let mut out = String::from("## Summary\n\n| Caller | Kind | IAM actions | Kubernetes RBAC |\n|---|---|---|---|\n");
    for caller in CALLERS {
        let granted = caller.permissions().iter().filter(|p| p.granted).count();
        let rbac = caller.kubernetes.len();
        let _ = writeln!(
            out,
            "| [`{}`](#{}) | {} | {} | {} |",
            caller.name,
            anchor(caller.name),
            caller.kind.label(),
            if granted == 0 {
                "none".to_string()
            } else {
                granted.to_string()
            },
            if rbac == 0 {
                "none".to_string()
            } else {
                format!("{rbac} resources")
            },
        );
    }
    out
}

fn whole_provider() -> String {
    let policy = permissions::provider_policy().map(|p| pretty(&p)).unwrap_or_default();
    format!(
        "## The whole provider\n\nEverything every resource and data source may call: attach this to the role \
         Terraform runs as to use all of the provider.\n\n{}",
        fenced("json", &policy)
    )
}

fn caller_section(caller: &Caller) -> String {
    let mut out = format!("### {}\n\n", caller.name);
    let what = match caller.kind {
        Kind::Provider => "The provider's configure step, before any resource.".to_string(),
        Kind::Function => "A provider function: it computes locally and calls no AWS API.".to_string(),
        kind => format!(
            "The {} `{}`: what its plan, apply, refresh and import may call.",
            kind.label(),
            caller.name
        ),
    };
    let _ = writeln!(out, "{what}\n");
    let permissions = caller.permissions();
    if permissions.is_empty() {
        return out;
    }
    out.push_str("| Action | What for | Not exercised by the acceptance tests because |\n|---|---|---|\n");
    for permission in &permissions {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            permission.action,
            what_for(permission),
            permission.unexercised.unwrap_or("").replace('|', "\\|")
        );
    }
    if let Some(policy) = caller.policy() {
        out.push('\n');
        out.push_str(&fenced("json", &pretty(&policy)));
    }
    if !caller.kubernetes.is_empty() {
        out.push_str("\nKubernetes RBAC:\n\n| API group | Resource | Verbs | What for |\n|---|---|---|---|\n");
        for rbac in caller.kubernetes {
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {} |",
                if rbac.api_group.is_empty() {
                    "\"\" (core)"
                } else {
                    rbac.api_group
                },
                rbac.resource,
                rbac.verbs.join(", "),
                rbac.why
            );
        }
    }
    out
}

fn what_for(permission: &Permission) -> String {
    let mut text = permission.why.replace('|', "\\|");
    if let (false, Some(by)) = (permission.called, permission.implied_by) {
        let _ = write!(text, " (checked on `{by}`; not a call of its own)");
    }
    if !permission.granted {
        text.push_str(" (no permission needed)");
    }
    text
}

/// One ClusterRole with every verb any caller needs, per API group and resource.
fn cluster_role() -> String {
    let mut rules: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for caller in CALLERS {
        for rbac in caller.kubernetes {
            rules
                .entry((rbac.api_group, rbac.resource))
                .or_default()
                .extend(rbac.verbs.iter().copied());
        }
    }
    let order = ["get", "list", "create", "update", "patch", "delete"];
    let mut out = String::from(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: terraform-provider-hyperpod\nrules:\n",
    );
    for ((group, resource), verbs) in rules {
        let verbs: Vec<String> = order
            .iter()
            .filter(|verb| verbs.contains(*verb))
            .map(|verb| format!("\"{verb}\""))
            .collect();
        let _ = writeln!(
            out,
            "  - apiGroups: [\"{group}\"]\n    resources: [\"{resource}\"]\n    verbs: [{}]",
            verbs.join(", ")
        );
    }
    out
}

fn machine_readable() -> String {
    format!(
        "## Machine-readable table\n\nThe same table as data, for tools (and for the acceptance test that compares \
         it with the calls each resource makes): per caller, each action, whether the provider calls it or AWS \
         checks it on another call, whether a policy grants it, and why the tests do not exercise it if they do not; \
         and the Kubernetes RBAC.\n\n{}",
        fenced("json", &pretty(&permissions::as_json()))
    )
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The registry's heading anchor: lower case, `.` dropped.
fn anchor(heading: &str) -> String {
    heading.to_ascii_lowercase().replace('.', "")
}
