//! The governance evidence of a state, per connection contract: `terraform-provider-hyperpod report evidence
//! [options] STATE_JSON`.
//!
//! Pure pipeline — parse (`state`) → model (`model`, `components`) → render (`markdown`, `json`); `cli` holds the
//! arguments and the only I/O. Contracts are associated and rules read by the plan report's own helpers
//! (`associate`, `model::checks_from_values`), each state instance taken as a change that changes nothing.

pub mod cli;
pub mod components;
pub mod json;
pub mod markdown;
pub mod model;
pub mod state;

#[cfg(test)]
mod tests;
