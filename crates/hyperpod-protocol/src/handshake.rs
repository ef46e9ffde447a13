//! The go-plugin handshake: the environment Terraform sets for its plugins and the line the plugin answers with.

/// go-plugin's magic cookie for Terraform providers; Terraform sets it on every plugin it starts.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/// go-plugin core protocol version.
pub const CORE_PROTOCOL_VERSION: u32 = 1;
/// The plugin protocol this provider speaks (tfplugin6).
pub const PLUGIN_PROTOCOL_VERSION: u32 = 6;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    #[error(
        "This binary is a plugin for Terraform and OpenTofu. It is not meant to be run directly.\n\
         Declare it in a configuration's required_providers block and run `terraform init`; \
         to debug it, start it with --debug and follow the instructions it prints."
    )]
    NotLaunchedByTerraform,
    #[error(
        "Terraform offered plugin protocol versions {offered:?}, but this provider speaks only protocol 6 \
         (Terraform 1.0 or newer, or OpenTofu)."
    )]
    UnsupportedProtocol { offered: String },
}

/// What Terraform asked of this plugin process.
#[derive(Debug, PartialEq, Eq)]
pub struct PluginEnvironment {
    /// PEM of Terraform's client certificate; `None` when Terraform runs with plugin TLS disabled.
    pub client_certificate_pem: Option<String>,
}

/// Checks the magic cookie and negotiates protocol 6 from `PLUGIN_PROTOCOL_VERSIONS`.
pub fn negotiate(env: impl Fn(&str) -> Option<String>) -> Result<PluginEnvironment, HandshakeError> {
    if env(MAGIC_COOKIE_KEY).as_deref() != Some(MAGIC_COOKIE_VALUE) {
        return Err(HandshakeError::NotLaunchedByTerraform);
    }
    if let Some(offered) = env("PLUGIN_PROTOCOL_VERSIONS") {
        let speaks_ours = offered
            .split(',')
            .any(|version| version.trim().parse::<u32>() == Ok(PLUGIN_PROTOCOL_VERSION));
        if !speaks_ours {
            return Err(HandshakeError::UnsupportedProtocol { offered });
        }
    }
    let client_certificate_pem = env("PLUGIN_CLIENT_CERT").filter(|pem| !pem.trim().is_empty());
    Ok(PluginEnvironment { client_certificate_pem })
}

/// `CORE|APP|NETWORK|ADDR|PROTOCOL|SERVERCERT`; the certificate is base64 DER without padding, empty without TLS.
pub fn handshake_line(socket_path: &str, server_certificate_der: Option<&[u8]>) -> String {
    use base64::Engine;
    let certificate = server_certificate_der
        .map(|der| base64::engine::general_purpose::STANDARD_NO_PAD.encode(der))
        .unwrap_or_default();
    format!("{CORE_PROTOCOL_VERSION}|{PLUGIN_PROTOCOL_VERSION}|unix|{socket_path}|grpc|{certificate}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |key| map.get(key).cloned()
    }

    #[test]
    fn refuses_to_run_without_the_magic_cookie() {
        assert_eq!(negotiate(env_of(&[])), Err(HandshakeError::NotLaunchedByTerraform));
        let wrong = env_of(&[(MAGIC_COOKIE_KEY, "nope")]);
        assert_eq!(negotiate(wrong), Err(HandshakeError::NotLaunchedByTerraform));
    }

    #[test]
    fn negotiates_protocol_six_in_any_order() {
        for offered in ["5,6", "6,5", "6", " 6 "] {
            let env = env_of(&[
                (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
                ("PLUGIN_PROTOCOL_VERSIONS", offered),
            ]);
            assert!(negotiate(env).is_ok(), "{offered}");
        }
        let env = env_of(&[
            (MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE),
            ("PLUGIN_PROTOCOL_VERSIONS", "4,5"),
        ]);
        assert!(matches!(
            negotiate(env),
            Err(HandshakeError::UnsupportedProtocol { .. })
        ));
    }

    #[test]
    fn picks_up_the_client_certificate() {
        let env = env_of(&[(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE), ("PLUGIN_CLIENT_CERT", "PEM")]);
        assert_eq!(negotiate(env).unwrap().client_certificate_pem.as_deref(), Some("PEM"));
    }

    #[test]
    fn handshake_line_has_six_fields_and_unpadded_base64() {
        let line = handshake_line("/tmp/x/plugin.sock", Some(&[1, 2, 3, 4]));
        assert_eq!(line, "1|6|unix|/tmp/x/plugin.sock|grpc|AQIDBA");
        assert_eq!(handshake_line("/s", None), "1|6|unix|/s|grpc|");
    }
}
