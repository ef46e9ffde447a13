//! `hyperpod_unified_studio_project_binding` schema: the project, cluster and contract it binds, the groups that
//! collaborate in the project, and, computed at plan time, where the connection lives and the reviewer's checklist.

use super::model::{members_of, same_member};
use crate::names::ENTITY_NAME;
use crate::protocol::deadline::Operation;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{elements, object};
use crate::protocol::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, Schema};
use crate::protocol::validators::{LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};
use crate::resources::validators::IsArn;
use std::time::Duration;

pub const TYPE_NAME: &str = "hyperpod_unified_studio_project_binding";

/// DataZone `DomainId`.
pub const DOMAIN_ID: &str = "dzd[-_][a-zA-Z0-9_-]{1,36}";
/// DataZone `ProjectId` and `EnvironmentId`.
pub const RESOURCE_ID: &str = "[a-zA-Z0-9_-]{1,36}";
/// CloudFormation's pattern for connection names (the API model gives none); at most 64 characters. Its `\w` is
/// Java's, ASCII only: spelled out, since Rust's `\w` also matches non-ASCII letters AWS refuses.
pub const CONNECTION_NAME: &str = r"[A-Za-z0-9_][A-Za-z0-9_.-]*";
pub const MEMBER_KINDS: [&str; 2] = ["group", "user"];
/// `UserDesignation` without `USER_CREATED_DESIGNATION`, which needs a custom designation this resource does not
/// manage.
pub const DESIGNATIONS: [&str; 5] = [
    "PROJECT_OWNER",
    "PROJECT_CONTRIBUTOR",
    "PROJECT_CATALOG_VIEWER",
    "PROJECT_CATALOG_CONSUMER",
    "PROJECT_CATALOG_STEWARD",
];

fn computed(name: &'static str, description: &str) -> Attribute {
    Attribute::string(name).computed().describe(description)
}

fn member_block() -> Block {
    Block::new(
        "A project membership the binding manages: a group (PRJ-1 warns about users) and its designation. Refresh \
         reads each back; one deleted or changed out of band shows in the next plan and apply restores it. \
         Memberships are project-wide: a member that another binding of the project (on another cluster) declares \
         too stays while either declares it. Each binding records what it declares in an SSM parameter, \
         `/hyperpod-governance/project-members/<domain>/<project>/<cluster>`, removed with it.",
    )
    .attribute(
        Attribute::string("kind")
            .default_value(Value::String("group".into()))
            .describe("`group` (default) or `user`.")
            .validate(OneOf(&MEMBER_KINDS)),
    )
    .attribute(
        Attribute::string("name")
            .required()
            .describe(
                "The group as Unified Studio knows it (its name, IAM Identity Center group ID or DataZone group \
                 profile ID), or the user (Identity Center user name, user profile ID or IAM ARN). Resolved to the \
                 DataZone profile at plan time, which is how the project lists its members: a name that names no \
                 profile in the domain is refused here (a warning at plan, an error at apply). State keeps the name as written.",
            )
            .validate(LengthBetween { min: 1, max: 1024 }),
    )
    .attribute(
        Attribute::string("designation")
            .required()
            .describe("The member's designation in the project. A change deletes and re-creates the membership.")
            .validate(OneOf(&DESIGNATIONS)),
    )
}

pub fn schema() -> Schema {
    let block = Block::new(
        "The HyperPod connection of one SageMaker Unified Studio project: a DataZone connection of type `HYPERPOD` in \
         the project's tooling environment, plus the project memberships of the groups that use it. It is created \
         only when the control layers agree, checked at plan time: an approved, unexpired contract for this project \
         and cluster (PRJ-3, LIF-3), the contract's project role, which is the project's tooling-environment user \
         role (PRJ-4), a task view restriction for every project once the cluster is shared (CLU-2), a tenant for \
         every namespace of the contract (WKL-1), and groups rather than users (PRJ-1). `passed_checks` lists the \
         rules that passed, `findings` every other one with its detail. Other HyperPod connections of the project to the same cluster \
         exist without a contract: the plan warns about them.",
    )
    .attribute(
        Attribute::string("id")
            .computed()
            .use_state_for_unknown()
            .describe("`<domain_id>/<connection_id>`, also the import ID."),
    )
    .attribute(
        Attribute::new("contract", crate::resources::connection_contract::governance_type())
            .write_only()
            .required()
            .describe("The contract's facts: `hyperpod_connection_contract.<name>.governance`."),
    )
    .attribute(
        Attribute::new("task_view_restriction", crate::resources::references::restriction_type())
            .write_only()
            .optional()
            .describe(
                "The project's task view restriction on this cluster, \
                 `hyperpod_task_view_restriction.<name>.governance` (CLU-2): required once other projects or teams \
                 use the cluster, unless a namespace-scoped access entry for the project role already exists.",
            ),
    )
    .attribute(
        Attribute::new("allocation", crate::resources::cluster_allocation::governance_type())
            .write_only()
            .optional()
            .describe(
                "The cluster's documented split, `hyperpod_cluster_allocation.<name>.governance` (CLU-2): its teams \
                 count as the cluster's other teams on the first plan. Unset: teams planned beside this binding are \
                 not seen, so an unrestricted project alone in live state is not evaluated at plan (a warning) and \
                 is evaluated at apply. A value written by hand is held to the allocation's own rules, each problem \
                 an error at its path.",
            ),
    )
    .attribute(
        Attribute::new("tenants", Type::list(crate::resources::references::tenant_type()))
            .write_only()
            .optional()
            .describe(
                "The tenants of the contract's namespaces, `[hyperpod_tenant.<name>.governance]` (WKL-1): every \
                 namespace of the contract has a tenant, referenced here or live, before Studio users reach it.",
            ),
    )
    .attribute(
        Attribute::string("project_id")
            .required()
            .requires_replace()
            .describe(
                "The Unified Studio project; must be the contract's (PRJ-3). The connection lives in the project's \
                 tooling environment, so another project replaces it.",
            )
            .validate(Matches::new(RESOURCE_ID, "1 to 36 letters, digits, `_` and `-`")),
    )
    .attribute(
        Attribute::string("cluster_name")
            .required()
            .requires_replace()
            .describe(
                "The HyperPod cluster; must be the contract's (PRJ-3). DataZone cannot change a connection's cluster, \
                 so another one replaces it.",
            )
            .validate(Matches::new(
                ENTITY_NAME,
                "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit",
            )),
    )
    .attribute(
        Attribute::string("project_role_arn")
            .required()
            .describe(
                "The project role Studio users act as; must be the contract's and the project's tooling-environment \
                 user role (PRJ-4). Not sent to AWS: a change is checked, then recorded.",
            )
            .validate(IsArn),
    )
    .attribute(
        Attribute::string("domain_id")
            .optional_computed()
            .requires_replace()
            .describe("The Unified Studio domain; defaults to the contract's and must equal it.")
            .validate(Matches::new(DOMAIN_ID, "a domain ID such as `dzd_abc123`")),
    )
    .attribute(
        Attribute::string("connection_name")
            .optional_computed()
            .requires_replace()
            .describe(
                "The connection's name; defaults to `hyperpod-<cluster_name>-<project_id>` (names are unique in a domain). DataZone cannot rename a connection.",
            )
            .validate(Matches::new(
                CONNECTION_NAME,
                "letters, digits, `_`, `.` and `-`, starting with a letter, digit or `_`",
            ))
            .validate(LengthBetween { min: 1, max: 64 }),
    )
    .attribute(
        Attribute::string("description")
            .optional()
            .describe(
                "The connection's description, as Studio shows it. Changed in place; removing it replaces the \
                 connection (DataZone cannot clear a description).",
            )
            .validate(LengthBetween { min: 1, max: 128 }),
    )
    .attribute(computed("connection_id", "The DataZone connection's ID.").use_state_for_unknown())
    .attribute(computed(
        "environment_id",
        "The project's tooling environment, where the connection lives; resolved at plan time. When the project's \
         tooling environment changes, the connection is replaced.",
    ))
    .attribute(computed(
        "cluster_arn",
        "The cluster's ARN: known at plan time, read back from the connection.",
    ))
    .attribute(computed(
        "orchestrator",
        "`EKS` or `SLURM`: known at plan time, read back from the connection.",
    ))
    .attributes(crate::resources::checklist::attributes())
    .block(NestedBlock::list("member", member_block()))
    .timeouts(&[Operation::Create, Operation::Delete], Duration::from_mins(10));
    // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
    Schema { version: 1, block }
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema {
        version: 0,
        attributes: vec![
            IdentityAttribute {
                name: "domain_id",
                ty: Type::String,
                description: "The Unified Studio domain.".to_string(),
                required_for_import: true,
            },
            IdentityAttribute {
                name: "connection_id",
                ty: Type::String,
                description: "The DataZone connection's ID.".to_string(),
                required_for_import: true,
            },
        ],
    }
}

pub fn identity(domain_id: &str, connection_id: &str) -> Value {
    object([
        ("domain_id", Value::String(domain_id.to_string())),
        ("connection_id", Value::String(connection_id.to_string())),
    ])
}

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `contract`, `task_view_restriction` and `tenants` are write-only, so their stored copies are dropped.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `contract`, \
                 `task_view_restriction` and `tenants` become write-only",
        upgrade: upgrade_state,
    }];

fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    Ok(())
}

/// DataZone's `UserIdentifier` without its `.*` wrapping (read whole, as the service does): an Identity Center user
/// ID (a UUID, optionally behind a 10-hex-digit store prefix), a user name, or an IAM ARN.
const USER_IDENTIFIER: &str = r"^(([0-9a-f]{10}-)?[A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12}|[a-zA-Z_0-9+=,.@-]+|arn:aws:iam::\d{12}:.+)$";

fn member_diagnostics(index: usize, member: &Value, diagnostics: &mut Diagnostics) {
    let at = |field: &str| AttributePath::attr("member").index(index).push_attr(field);
    // A null name or designation is reported by the schema walk ("Missing required argument"), once.
    let Some(Value::String(name)) = member.get_attr("name") else {
        return;
    };
    let user = matches!(member.get_attr("kind"), Some(Value::String(kind)) if kind == "user");
    if name.trim().is_empty() {
        diagnostics.push(Diagnostic::invalid_value(
            at("name"),
            format!("{name:?}"),
            "a member's name cannot be blank",
            "use the group's or user's identifier",
        ));
    } else if crate::protocol::validators::has_control_character(name) {
        // The schema walk reports it (every string), once.
    } else if user && !regex::Regex::new(USER_IDENTIFIER).map_or(true, |pattern| pattern.is_match(name)) {
        diagnostics.push(Diagnostic::invalid_value(
            at("name"),
            format!("{name:?}"),
            "DataZone accepts a user as an Identity Center user ID, a user name of letters, digits and `_+=,.@-`, \
             or an IAM ARN",
            "use the user's Identity Center ID, user profile name or IAM ARN",
        ));
    }
}

/// What `terraform validate` rejects beyond the schema's validators and the schema walk (which reports nulls and
/// control characters everywhere): the limits DataZone enforces on what the binding sends (botocore `datazone` model:
/// `CreateConnection`, `CreateProjectMembership`), so apply never fails on input the plan accepted; and a member
/// listed twice; a capacity handoff written by hand (`allocation`, `tenants`) held to the rules of the resource it
/// stands for (`handoff::unreadable_capacity`). Every problem at its attribute path.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    diagnostics.extend(crate::resources::handoff::unreadable_capacity(config));
    for (index, member) in elements(config, "member").iter().enumerate() {
        member_diagnostics(index, member, diagnostics);
    }
    // Control characters in the name or the description: the schema walk (protocol/validators.rs) reports them.
    let Some(members) = members_of(config) else { return };
    for (index, member) in members.iter().enumerate() {
        if members[..index].iter().any(|earlier| same_member(earlier, member)) {
            diagnostics.push(Diagnostic::invalid_value(
                crate::governance::paths::binding::member(index),
                format!("{:?} again", member.name),
                "a member can be listed once (a project membership has one designation)",
                "remove the repeated member block, keeping the designation you want",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text};

    fn paths_of(config: &Value) -> Vec<String> {
        let mut diagnostics = Diagnostics::new();
        validate(config, &mut diagnostics);
        diagnostics.0.iter().map(|d| d.path.to_string()).collect()
    }

    fn member(kind: &str, name: Value) -> Value {
        object([
            ("kind", text(kind)),
            ("name", name),
            ("designation", text("PROJECT_OWNER")),
        ])
    }

    #[test]
    fn blank_and_malformed_names_are_named_at_their_path_once() {
        let config = object([
            ("description", text("ok\tfine")),
            (
                "member",
                Value::List(vec![
                    member("group", text("  ")),
                    // A control character is the schema walk's finding, not reported here a second time.
                    member("user", text("bell\u{7}")),
                    member("user", text("alice smith")),
                    member("user", text("arn:aws:iam::123456789012:user/alice")),
                    member("group", text("Research Leads")),
                ]),
            ),
        ]);
        assert_eq!(paths_of(&config), ["member[0].name", "member[2].name"]);
    }

    #[test]
    fn a_member_listed_twice_fails_validation() {
        let config = object([(
            "member",
            Value::List(vec![member_of("PROJECT_OWNER"), member_of("PROJECT_CONTRIBUTOR")]),
        )]);
        let mut diagnostics = Diagnostics::new();
        validate(&config, &mut diagnostics);
        assert_eq!(diagnostics.0.len(), 1);
        assert_eq!(diagnostics.0[0].path.to_string(), "member[1].name");
    }

    fn member_of(designation: &str) -> Value {
        object([
            ("kind", text("group")),
            ("name", text("research-leads")),
            ("designation", text(designation)),
        ])
    }
}
