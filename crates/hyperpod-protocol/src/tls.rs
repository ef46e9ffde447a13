//! go-plugin AutoMTLS, server side.
//!
//! Terraform hands the plugin its client certificate in `PLUGIN_CLIENT_CERT` (self-signed ECDSA P-521 with the CA flag
//! set) and expects the plugin to answer with its own self-signed certificate for `localhost` on the handshake line.
//! A WebPKI verifier rejects Terraform's certificate ("CA used as end entity"), so instead of trusting it as a root we
//! pin it: the client must present exactly that certificate, and its handshake signature is verified with its key.
//! Client authentication is mandatory; there is no optional mode.

mod ring_crypto;

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
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

/// rustls on *ring* (key exchange, server key, random values: the parts that draw randomness), so that a plugin start
/// never pays for aws-lc's jitter-entropy seeding (see `ring_crypto`). Signature verification stays on aws-lc-rs:
/// *ring* cannot verify ECDSA P-521, the curve of Terraform's client certificate; verification draws no randomness.
/// ring's cipher suites (AEAD, HKDF, the TLS 1.2 PRF) protect the records. ML-KEM hybrids are not offered (ring has
/// none): the channel is a private Unix socket to Terraform's own child process.
fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        signature_verification_algorithms: rustls::crypto::aws_lc_rs::default_provider()
            .signature_verification_algorithms,
        ..rustls::crypto::ring::default_provider()
    })
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
    use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyUsagePurpose};
    let key = ring_crypto::EcdsaP256Key::generate()?;
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
    let certificate = params.self_signed(&key)?;
    Ok((certificate.der().to_vec(), key.private_key_der()))
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

#[cfg(test)]
mod tests {
    //! In-memory handshakes against `server_tls`: both protocol versions and every key-exchange group, with a client
    //! like Terraform's (self-signed ECDSA P-521), so the split provider (ring for randomness, aws-lc-rs for
    //! verification) is exercised end to end.

    use std::io::{Read, Write};

    use rustls::client::danger::{ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::ServerName;
    use rustls::sign::{CertifiedKey, SingleCertAndKey};
    use rustls::{ClientConfig, ClientConnection, NamedGroup, ServerConnection};

    use super::*;

    struct Client {
        certificate: CertificateDer<'static>,
        key: PrivateKeyDer<'static>,
    }

    fn p521_client() -> Client {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let key_pair = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).expect("P-521 key");
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).expect("params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let certificate = params.self_signed(&key_pair).expect("certificate");
        Client {
            certificate: certificate.der().clone(),
            key: PrivateKeyDer::try_from(key_pair.serialize_der()).expect("PKCS#8"),
        }
    }

    /// Trusts exactly the server certificate from the handshake line, as go-plugin's client does.
    #[derive(Debug)]
    struct PinnedServer {
        pinned: Vec<u8>,
        algorithms: WebPkiSupportedAlgorithms,
    }

    impl ServerCertVerifier for PinnedServer {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            _: &[CertificateDer<'_>],
            _: &ServerName<'_>,
            _: &[u8],
            _: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            if end_entity.as_ref() == self.pinned {
                Ok(ServerCertVerified::assertion())
            } else {
                Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer))
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
    }

    /// A client on aws-lc-rs (a different implementation from the server's key exchange) limited to one protocol
    /// version and one group, presenting `certificate` and signing with `key`, whether or not the two match.
    fn client_config(
        server: &ServerTls,
        version: &'static rustls::SupportedProtocolVersion,
        group: NamedGroup,
        certificate: &CertificateDer<'static>,
        key: &PrivateKeyDer<'static>,
    ) -> Arc<ClientConfig> {
        let mut provider = rustls::crypto::aws_lc_rs::default_provider();
        provider.kx_groups.retain(|kx| kx.name() == group);
        let verifier = Arc::new(PinnedServer {
            pinned: server.certificate_der.clone(),
            algorithms: provider.signature_verification_algorithms,
        });
        let signing_key = rustls::crypto::aws_lc_rs::sign::any_ecdsa_type(key).expect("ECDSA key");
        let identity = CertifiedKey::new(vec![certificate.clone()], signing_key);
        let config = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])
            .expect("protocol version")
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_client_cert_resolver(Arc::new(SingleCertAndKey::from(identity)));
        Arc::new(config)
    }

    /// Moves records between the two ends until neither has anything to send; the first error wins.
    fn pump(client: &mut ClientConnection, server: &mut ServerConnection) -> Result<(), rustls::Error> {
        loop {
            let mut moved = false;
            while client.wants_write() {
                let mut records = Vec::new();
                client.write_tls(&mut records).expect("write to a Vec");
                let mut records = &records[..];
                while !records.is_empty() {
                    server.read_tls(&mut records).expect("read from a slice");
                    server.process_new_packets()?;
                }
                moved = true;
            }
            while server.wants_write() {
                let mut records = Vec::new();
                server.write_tls(&mut records).expect("write to a Vec");
                let mut records = &records[..];
                while !records.is_empty() {
                    client.read_tls(&mut records).expect("read from a slice");
                    client.process_new_packets()?;
                }
                moved = true;
            }
            if !moved {
                return Ok(());
            }
        }
    }

    fn connect(
        server: &ServerTls,
        client: Arc<ClientConfig>,
    ) -> Result<(ClientConnection, ServerConnection), rustls::Error> {
        let name = ServerName::try_from("localhost").expect("a DNS name");
        let mut client = ClientConnection::new(client, name)?;
        let mut server = ServerConnection::new(server.config.clone())?;
        pump(&mut client, &mut server)?;
        Ok((client, server))
    }

    #[test]
    fn terraform_like_clients_connect_over_tls12_and_tls13_with_every_group() {
        let client = p521_client();
        let server = server_tls(client.certificate.clone()).expect("server TLS");
        for version in [&rustls::version::TLS12, &rustls::version::TLS13] {
            for group in [NamedGroup::X25519, NamedGroup::secp256r1, NamedGroup::secp384r1] {
                let config = client_config(&server, version, group, &client.certificate, &client.key);
                let (mut client_end, mut server_end) =
                    connect(&server, config).unwrap_or_else(|err| panic!("{version:?} {group:?}: {err}"));
                assert_eq!(server_end.protocol_version(), Some(version.version));
                assert_eq!(
                    server_end
                        .negotiated_key_exchange_group()
                        .map(rustls::crypto::SupportedKxGroup::name),
                    Some(group)
                );
                assert_eq!(
                    server_end.peer_certificates().map(<[_]>::to_vec),
                    Some(vec![client.certificate.clone()])
                );
                client_end.writer().write_all(b"ping").expect("client write");
                pump(&mut client_end, &mut server_end).expect("records");
                let mut received = [0u8; 4];
                server_end.reader().read_exact(&mut received).expect("server read");
                assert_eq!(&received, b"ping", "{version:?} {group:?}");
            }
        }
    }

    #[test]
    fn the_pinned_certificate_without_its_key_is_refused() {
        let pinned = p521_client();
        let impostor = p521_client();
        let server = server_tls(pinned.certificate.clone()).expect("server TLS");
        for version in [&rustls::version::TLS12, &rustls::version::TLS13] {
            let config = client_config(&server, version, NamedGroup::X25519, &pinned.certificate, &impostor.key);
            let refused = connect(&server, config).err();
            assert!(
                matches!(
                    refused,
                    Some(rustls::Error::InvalidCertificate(CertificateError::BadSignature))
                ),
                "{version:?}: {refused:?}"
            );
        }
    }

    #[test]
    fn another_certificate_is_refused() {
        let pinned = p521_client();
        let other = p521_client();
        let server = server_tls(pinned.certificate.clone()).expect("server TLS");
        for version in [&rustls::version::TLS12, &rustls::version::TLS13] {
            let config = client_config(&server, version, NamedGroup::X25519, &other.certificate, &other.key);
            let refused = connect(&server, config).err();
            assert!(
                matches!(
                    refused,
                    Some(rustls::Error::InvalidCertificate(
                        CertificateError::ApplicationVerificationFailure
                    ))
                ),
                "{version:?}: {refused:?}"
            );
        }
    }

    /// The element at the start of `der` (DER has definite lengths only): the whole element, its contents, the rest.
    fn der_element(der: &[u8]) -> (&[u8], &[u8], &[u8]) {
        let (length, header) = match der[1] {
            short if short < 0x80 => (usize::from(short), 2),
            long => {
                let count = usize::from(long & 0x7f);
                let length = der[2..2 + count]
                    .iter()
                    .fold(0, |length, byte| length << 8 | usize::from(*byte));
                (length, 2 + count)
            }
        };
        (
            &der[..header + length],
            &der[header..header + length],
            &der[header + length..],
        )
    }

    #[test]
    fn the_server_certificate_names_localhost_and_its_self_signature_verifies() {
        let (der, key) = self_signed_localhost().expect("certificate");
        let certificate_der = CertificateDer::from(der.clone());
        let certificate = webpki::EndEntityCert::try_from(&certificate_der).expect("parses");
        certificate
            .verify_is_valid_for_subject_name(&ServerName::try_from("localhost").expect("name"))
            .expect("valid for localhost");

        // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
        let (_, fields, _) = der_element(&der);
        let (tbs, _, rest) = der_element(fields);
        let (_, _, rest) = der_element(rest);
        let (_, signature_bits, _) = der_element(rest);
        let provider = crypto_provider();
        let (_, p256) = provider
            .signature_verification_algorithms
            .mapping
            .iter()
            .find(|(scheme, _)| *scheme == SignatureScheme::ECDSA_NISTP256_SHA256)
            .expect("P-256 verification");
        certificate
            .verify_signature(p256[0], tbs, &signature_bits[1..])
            .expect("self-signature verifies with the certificate's key");

        // The key rustls signs handshakes with is the certificate's.
        let signing_key = provider.key_provider.load_private_key(key).expect("loads");
        let spki = signing_key.public_key().expect("SPKI");
        assert!(der.windows(spki.len()).any(|window| window == spki.as_ref()));
    }
}
