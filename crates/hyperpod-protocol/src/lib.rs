//! The Terraform plugin protocol layer: handshake, transport security, the tfplugin6 service, values, schemas and
//! diagnostics. It knows nothing about AWS or governance (it shares only the model crate's attribute paths); the
//! provider plugs in through the traits in `plugin` and `resource`.

// `#[derive(Model)]` names `::hyperpod_protocol`, this crate's tests included.
extern crate self as hyperpod_protocol;

pub mod caller;
pub mod convert;
pub mod deadline;
pub mod decode;
pub mod deferred;
pub mod diagnostics;
pub mod digest;
pub mod handshake;
pub mod host;
pub mod list;
#[cfg(test)]
mod list_tests;
pub mod model;
pub mod object;
pub mod plan;
pub mod plugin;
pub mod private_data;
pub mod provider;
pub mod refusal;
pub mod resource;
pub mod schema;
pub mod serve;
pub mod signals;
pub mod state_upgrade;
pub mod tls;
pub mod validators;
pub mod value;

/// Code generated from `proto/` by `build.rs`.
pub mod proto {
    #![allow(clippy::all, clippy::pedantic, missing_docs)]
    pub mod tfplugin6 {
        tonic::include_proto!("tfplugin6");
    }
    pub mod plugin {
        tonic::include_proto!("plugin");
    }
}
