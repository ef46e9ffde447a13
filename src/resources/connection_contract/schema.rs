//! `hyperpod_connection_contract` schema: every field of the connection contract, plus what the provider derives
//! from it at plan time (review status, the reviewer's checklist, the facts dependents check against).

use super::model::contract_from_value;
use crate::findings::ToDiagnostics;
use crate::protocol::diagnostics::{Diagnostics, Severity};
use crate::protocol::model::Model;
use crate::protocol::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, Nesting, Schema};
use crate::protocol::validators::{EachOneOf, IsDate, LengthBetween, Matches, OneOf};
use crate::protocol::value::{Type, Value};
use crate::resources::governance_objects::ContractGovernance;
use crate::resources::validators::RuleIds;

pub const TYPE_NAME: &str = "hyperpod_connection_contract";

pub const ORCHESTRATORS: [&str; 2] = ["eks", "slurm"];
pub const LIFECYCLE_STATES: &[&str] = crate::governance::LifecycleState::NAMES;
pub const DATA_CLASSIFICATIONS: [&str; 4] = ["public", "internal", "confidential", "restricted"];
pub const WORKLOAD_TYPES: [&str; 5] = ["training", "fine-tuning", "inference", "interactive", "batch"];

fn strings() -> Type {
    Type::List(Box::new(Type::String))
}

fn string_set() -> Type {
    Type::Set(Box::new(Type::String))
}

/// Free text; blank values are CON-1 findings (with the rule ID), so no validator here.
fn required_text(name: &'static str, description: &str) -> Attribute {
    Attribute::string(name).required().describe(description)
}

fn single(name: &'static str, block: Block) -> NestedBlock {
    NestedBlock::single(name, block).required()
}

pub fn schema() -> Schema {
    let owners = Block::new("The three accountable owners; a contract without them cannot back a binding (LIF-3).")
        .attribute(required_text("business", "Owner of the business purpose."))
        .attribute(required_text(
            "operations",
            "Owner of day-to-day operation and incidents.",
        ))
        .attribute(required_text("cost", "Owner of the capacity's cost."));
    let unified_studio = Block::new("Where the project lives in SageMaker Unified Studio (Amazon DataZone).")
        .attribute(
            Attribute::string("domain_id")
                .required()
                .describe("Domain ID, e.g. `dzd_abc123`."),
        )
        .attribute(
            Attribute::string("domain_unit_id")
                .required()
                .describe("Domain unit the project must belong to (ORG-1)."),
        )
        .attribute(Attribute::string("project_id").required().describe("Project ID."));
    let cluster = Block::new("The HyperPod cluster the project may use, in the central capacity account.")
        .attribute(
            Attribute::string("account_id")
                .required()
                .describe("Capacity account, 12 digits (ORG-3)."),
        )
        .attribute(
            Attribute::string("region")
                .required()
                .describe("Region of the cluster (ORG-3)."),
        )
        .attribute(Attribute::string("name").required().describe("Cluster name."))
        .attribute(
            Attribute::string("orchestrator")
                .required()
                .describe("The cluster's orchestrator, checked against the real cluster (CLU-1).")
                .validate(OneOf(&ORCHESTRATORS)),
        );
    let slurm = Block::new("The Slurm access scope (Slurm clusters only; CON-2).")
        .attribute(
            Attribute::new("accounts", strings())
                .optional()
                .describe("Slurm accounts the project may use."),
        )
        .attribute(
            Attribute::new("partitions", strings())
                .optional()
                .describe("Slurm partitions the project may use."),
        );
    let scheduling = Block::new("The scheduling policy the project works under, and who owns exceptions to it.")
        .attribute(required_text(
            "policy",
            "The policy in words, e.g. \"borrow idle capacity at low priority\".",
        ))
        .attribute(required_text(
            "exception_owner",
            "Who decides exceptions to the policy.",
        ));
    let signal = Block::new("A monitored signal: what is watched, who owns it, what happens when it fires (CON-3).")
        .attribute(required_text("name", "Signal name, e.g. `team-utilization`."))
        .attribute(required_text("owner", "Who owns the signal."))
        .attribute(required_text("response", "What the owner does when the signal fires."));
    let monitoring =
        Block::new("The observability feedback loop for this connection.").block(NestedBlock::list("signal", signal));
    let review = Block::new("The review schedule and the current approval.")
        .attribute(
            Attribute::number("interval_days")
                .required()
                .describe("Days between reviews, 1 to 730 (LIF-1).")
                .validate(crate::protocol::validators::WholeNumber),
        )
        .attribute(
            Attribute::string("last_reviewed")
                .required()
                .describe("Date of the last review, `YYYY-MM-DD`.")
                .validate(IsDate),
        )
        .attribute(required_text(
            "approved_by",
            "The accountable administrator who approved the contract; not the identity running the apply (LIF-4).",
        ));
    let exception = Block::new(
        "An owned, dated exception to one rule (EXC-1); an expired exception waives nothing, and is refused at apply.",
    )
    .attribute(
        Attribute::string("rule")
            .required()
            .describe("Rule ID, e.g. `WKL-8`.")
            .validate(RuleIds),
    )
    .attribute(required_text("owner", "Who owns the exception."))
    .attribute(
        Attribute::string("expires")
            .required()
            .describe("Expiry date, `YYYY-MM-DD`.")
            .validate(IsDate),
    )
    .attribute(required_text("reason", "Why the exception is needed."));

    let governance = governance_attributes();

    Schema {
        // 1 (0.3.0): handoffs write-only, the checklist split, composition once (`STATE_UPGRADERS`).
        version: 1,
        block: Block::new(
            "The connection contract: the governance record a reviewer approves for one Unified Studio project's use \
             of one HyperPod cluster. It creates no AWS object; it lives in state and in version control. At plan \
             time it is checked against the live account (cluster, orchestrator, project, project role and its \
             permissions, approver); `passed_checks` and `findings` read like the reviewer's checklist. Resources that \
             depend on it take `governance`, which is known at plan time.",
        )
        .attribute(
            Attribute::string("id")
                .computed()
                .use_state_for_unknown()
                .describe("The contract's name, also its ID."),
        )
        .attribute(
            Attribute::string("name")
                .required()
                .requires_replace()
                .describe("Contract name; objects other resources create carry it in the `hyperpod:contract` tag.")
                .validate(Matches::new(
                    "[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?",
                    "letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit",
                ))
                .validate(LengthBetween { min: 1, max: 128 }),
        )
        .attribute(
            Attribute::string("project_role_arn")
                .required()
                .describe("The project role (PRJ-2, PRJ-4)."),
        )
        .attribute(
            Attribute::string("access_role_arn")
                .required()
                .describe("The role the HyperPod connection uses (PRJ-2)."),
        )
        .attribute(
            Attribute::new("approved_workload_types", string_set())
                .required()
                .describe("Workload types the project may run.")
                .validate(EachOneOf(&WORKLOAD_TYPES)),
        )
        .attribute(
            Attribute::string("data_classification")
                .required()
                .describe("Highest classification of data the workloads touch.")
                .validate(OneOf(&DATA_CLASSIFICATIONS)),
        )
        .attribute(
            Attribute::new("eks_namespaces", strings())
                .optional()
                .describe("EKS namespaces the project's tenants may use (EKS clusters only; CON-2, WKL-1)."),
        )
        .attribute(required_text(
            "support",
            "Support expectations: who to call, response times.",
        ))
        .attribute(required_text(
            "decommission",
            "How and when the connection is taken down.",
        ))
        .attribute(
            Attribute::new("approved_account_ids", strings())
                .optional()
                .describe("Consumer and data accounts whose roles tenants may reach (ORG-2)."),
        )
        .attribute(
            Attribute::new("approved_public_cidrs", strings())
                .optional()
                .describe("CIDRs from which the EKS API endpoint may be public (CLU-5)."),
        )
        .attribute(
            Attribute::new(
                "organization",
                crate::resources::domain_unit_policy_grant::governance_type(),
            )
            .write_only()
            .optional()
            .describe(
                "The organization grant the project's creation rests on: \
                     `hyperpod_domain_unit_policy_grant.<name>.governance`. ORG-1 then also checks that the grant \
                     covers the project's domain unit and approves the profile the project was created from.",
            ),
        )
        .attribute(
            Attribute::string("lifecycle_state")
                .default_value(Value::String("approved".into()))
                .describe("`approved`, or `revoked` to withdraw the connection (LIF-3).")
                .validate(OneOf(LIFECYCLE_STATES)),
        )
        .attribute(
            Attribute::bool("strict")
                .optional()
                .describe("Governance warnings on this contract are refused at apply like errors. Defaults to the provider's `strict`."),
        )
        .attribute(Attribute::string("review_status").computed().describe(
            "`current`, `due_soon` (within 14 days), `overdue`, `review_required` (a material change since the last \
             approval, LIF-2) or `revoked`.",
        ))
        .attribute(
            Attribute::string("next_review_date")
                .computed()
                .describe("`last_reviewed` plus the interval."),
        )
        .attribute(
            Attribute::new("approved_facts", Type::Map(Box::new(Type::String)))
                .computed()
                .describe(
                    "The live facts the contract was approved against, recorded at creation and at each re-approval (a new \
                     `review.last_reviewed` or `approved_by`): `cluster` (its ARN), `instance_group/<name>` \
                     (`<type> × <count>`), `orchestrator` (`EKS <version>` or `Slurm`), `project/domain_unit` (the \
                     domain unit that owns the project), `monitoring/addon` and `monitoring/node_role/<role>`. \
                     The contract's own arguments are compared with the contract as last applied. Every plan compares them with the account (LIF-2).",
                ),
        )
        .attribute(Attribute::new("changed_facts", Type::Map(Box::new(Type::String))).computed().describe(
            "The approved facts that differ now, with their current value (`(absent)`: gone); null when none does. \
             Set ⇒ `review_status` is `review_required` until re-approval.",
        ))
        .attributes(crate::resources::checklist::attributes())
        .attribute(
            Attribute::nested("governance", Nesting::Single, governance)
                .computed()
                .describe("The facts dependent resources check against; known at plan time."),
        )
        .block(single("owners", owners))
        .block(single("unified_studio", unified_studio))
        .block(single("cluster", cluster))
        .block(NestedBlock::single("slurm", slurm))
        .block(single("scheduling", scheduling))
        .block(single("monitoring", monitoring))
        .block(single("review", review))
        .block(NestedBlock::list("exception", exception)),
    }
}

/// The `governance` attribute's fields, from [`ContractGovernance`].
pub fn governance_attributes() -> Vec<Attribute> {
    ContractGovernance::block().attributes
}

pub fn identity_schema() -> IdentitySchema {
    IdentitySchema {
        version: 0,
        attributes: vec![IdentityAttribute {
            name: "name",
            ty: Type::String,
            description: "The contract's name.".to_string(),
            required_for_import: true,
        }],
    }
}

/// What `terraform validate` checks beyond the attributes' validators: the configuration-only rules, so a malformed
/// contract is caught without credentials.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    // Only the record's well-formedness (CON-1..3): it depends on nothing but the text, so it never starts failing on
    // its own, and Terraform refuses a configuration that fails it for every command, as with any provider's
    // attribute validators. What depends on the date (EXC-1's expiry, LIF-1) or the account is judged at plan and
    // enforced at apply, never here: Terraform validates before every plan, `terraform destroy`'s included
    // (`docs/design/where-rules-run.md`). Errors only: a warning here would be shown again by the plan.
    if let Some(contract) = contract_from_value(config) {
        let report: crate::governance::Report = [
            crate::governance::contract::con_1(&contract),
            crate::governance::contract::con_2(&contract),
            crate::governance::contract::con_3(&contract),
        ]
        .into_iter()
        .collect();
        let errors = report
            .diagnostics(false)
            .0
            .into_iter()
            .filter(|d| d.severity == Severity::Error);
        diagnostics.0.extend(errors);
    }
}

/// The type of `governance`, which dependents take as their `contract` argument.
pub fn governance_type() -> Type {
    Attribute::nested("governance", Nesting::Single, governance_attributes()).value_type()
}

/// Schema version 1 (0.3.0): the `checks` list becomes `passed_checks`, `not_applicable_checks` and `findings`;
/// `organization` is write-only, so its stored copy is dropped.
pub const STATE_UPGRADERS: [crate::protocol::state_upgrade::StateUpgrader; 1] =
    [crate::protocol::state_upgrade::StateUpgrader {
        from: 0,
        change: "`checks` becomes `passed_checks`, `not_applicable_checks` and `findings`; `organization` becomes \
                 write-only",
        upgrade: upgrade_state,
    }];

fn upgrade_state(state: &mut crate::protocol::state_upgrade::RawState) -> Result<(), String> {
    crate::resources::checklist::upgrade_state(state)?;
    crate::resources::handoff::drop_copies(state, &schema().block);
    Ok(())
}
