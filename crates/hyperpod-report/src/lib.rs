//! The governance report of a plan, for pull requests: `terraform-provider-hyperpod report [options] PLAN_JSON`;
//! and the evidence of a state, per contract, for audits: `… report evidence [options] STATE_JSON` (`evidence`).
//!
//! Pure pipeline — parse (`plan`, `log`) → model (`model` the types, `build` the assembly from `checklist`,
//! `associate`, `tenants`, `destroyed`; `verdict`) →
//! render (`markdown`, `json`, `mermaid`); `cli` holds the arguments and the only I/O. Rule metadata (layer,
//! title) comes from `governance::catalog` through `rules`.

pub mod associate;
pub mod build;
pub mod checklist;
pub mod cli;
pub mod destroyed;
pub mod evidence;
pub mod json;
pub mod log;
pub mod markdown;
pub mod mermaid;
pub mod model;
pub mod plan;
pub mod rules;
pub mod tenants;
pub mod terraform_json;
pub mod verdict;
pub mod words;

#[cfg(test)]
mod tests;
