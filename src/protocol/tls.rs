//! go-plugin AutoMTLS, server side.
//!
//! Terraform hands the plugin its client certificate in `PLUGIN_CLIENT_CERT` (self-signed ECDSA P-521 with the CA flag
//! set) and expects the plugin to answer with its own self-signed certificate for `localhost` on the handshake line.
//! A WebPKI verifier rejects Terraform's certificate ("CA used as end entity"), so instead of trusting it as a root we
//! pin it: the client must present exactly that certificate, and its handshake signature is verified with its key.
//! Client authentication is mandatory; there is no optional mode.

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, SignatureScheme};

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("PLUGIN_CLIENT_CERT holds no PEM certificate")]
    NoClientCertificate,
    #[error("PLUGIN_CLIENT_CERT is not valid PEM: {0}")]
    BadPem(String),
    #[error("could not generate the server certificate: {0}")]
    CertGeneration(#[from] rcgen::Error),
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The server's certificate and TLS configuration for one plugin process.
pub struct ServerTls {
    /// DER of the server certificate; goes on the handshake line.
    pub certificate_der: Vec<u8>,
    pub config: Arc<rustls::ServerConfig>,
}

fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Parses the first certificate from a PEM bundle such as `PLUGIN_CLIENT_CERT`.
pub fn parse_client_certificate(pem: &str) -> Result<CertificateDer<'static>, TlsError> {
    use rustls::pki_types::pem::PemObject;
    match CertificateDer::pem_slice_iter(pem.as_bytes()).next() {
        Some(Ok(cert)) => Ok(cert),
        Some(Err(err)) => Err(TlsError::BadPem(err.to_string())),
        None => Err(TlsError::NoClientCertificate),
    }
}

/// Builds a self-signed `localhost` certificate (as go-plugin does) and a server config that accepts only `client`.
pub fn server_tls(client: CertificateDer<'static>) -> Result<ServerTls, TlsError> {
    let (certificate_der, key) = self_signed_localhost()?;
    let provider = crypto_provider();
    let verifier = Arc::new(PinnedClientVerifier {
        pinned: client,
        algorithms: provider.signature_verification_algorithms,
    });
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![CertificateDer::from(certificate_der.clone())], key)?;
    // gRPC clients (grpc-go included) insist on negotiating HTTP/2 through ALPN.
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(ServerTls {
        certificate_der,
        config: Arc::new(config),
    })
}

/// A self-signed certificate for `localhost`, valid for server and client auth, with its PKCS#8 key.
pub fn self_signed_localhost() -> Result<(Vec<u8>, PrivateKeyDer<'static>), TlsError> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};
    let key_pair = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
    let mut params = CertificateParams::new(vec!["localhost".to_string()])?;
    params.distinguished_name.push(DnType::CommonName, "localhost");
    params.distinguished_name.push(DnType::OrganizationName, "HashiCorp");
    // go-plugin's client loads this certificate as its root of trust, so it must be a CA that signs itself.
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
        KeyUsagePurpose::KeyCertSign,
    ];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::seconds(30);
    params.not_after = now + time::Duration::days(365 * 30);
    let certificate = params.self_signed(&key_pair)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_pair.serialize_der()));
    Ok((certificate.der().to_vec(), key))
}

/// Accepts exactly one client certificate, byte for byte, and checks the peer proves possession of its key.
#[derive(Debug)]
struct PinnedClientVerifier {
    pinned: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for PinnedClientVerifier {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            tracing::warn!("refused a plugin client whose certificate is not the one Terraform announced");
            Err(rustls::Error::InvalidCertificate(
                CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }

    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }
}
