//! Shared plumbing for suites (and the `bench_plugin` example) that run the provider binary the way Terraform does:
//! go-plugin's environment, a Terraform-like client certificate, the handshake line, and a tonic client speaking
//! mutual TLS over the announced Unix socket.
//!
//! Each test crate uses a different subset of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use terraform_provider_hyperpod::protocol::proto::plugin::grpc_controller_client::GrpcControllerClient;
use terraform_provider_hyperpod::protocol::proto::tfplugin6::provider_client::ProviderClient;
use tonic::transport::{Channel, Endpoint};

/// go-plugin's handshake cookie for Terraform providers, spelled out here rather than taken from the crate so a typo
/// there cannot hide itself.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// How long the plugin gets to print its handshake line.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a client connection (Unix connect, TLS and HTTP/2 handshakes) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The provider binary: Cargo's path for integration tests, else the sibling of `target/<profile>/examples/`.
pub fn provider_binary() -> PathBuf {
    if let Some(path) = option_env!("CARGO_BIN_EXE_terraform-provider-hyperpod") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the current executable's path");
    exe.parent()
        .and_then(Path::parent)
        .map(|profile_dir| profile_dir.join("terraform-provider-hyperpod"))
        .expect("an example lives in target/<profile>/examples/")
}

/// A client certificate and key like the ones Terraform (go-plugin `generateCert`) makes for every plugin: self-signed
/// ECDSA P-521, CN and DNS name `localhost`, organisation HashiCorp, CA flag set, EKU clientAuth and serverAuth.
pub struct ClientIdentity {
    pub certificate_pem: String,
    pub certificate_der: CertificateDer<'static>,
    key_pkcs8_der: Vec<u8>,
}

impl ClientIdentity {
    pub fn terraform_like() -> Self {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
            SerialNumber,
        };
        let key_pair =
            KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).expect("a P-521 key (rcgen's aws_lc_rs backend)");
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).expect("certificate params");
        params.distinguished_name.push(DnType::CommonName, "localhost");
        params.distinguished_name.push(DnType::OrganizationName, "HashiCorp");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyCertSign,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth, ExtendedKeyUsagePurpose::ServerAuth];
        // go-plugin draws a random 128-bit serial; the nanosecond clock and pid are random enough for a test.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let mut serial = (nanos ^ (u128::from(std::process::id()) << 64)).to_be_bytes();
        serial[0] &= 0x7f; // a positive INTEGER
        params.serial_number = Some(SerialNumber::from_slice(&serial));
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::seconds(30);
        params.not_after = now + time::Duration::hours(262_980);
        let certificate = params.self_signed(&key_pair).expect("self-signed certificate");
        Self {
            certificate_pem: certificate.pem(),
            certificate_der: certificate.der().clone(),
            key_pkcs8_der: key_pair.serialize_der(),
        }
    }

    fn private_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_pkcs8_der.clone()))
    }
}

/// The fields of go-plugin's handshake line `CORE|APP|NETWORK|ADDR|PROTOCOL|SERVERCERT`.
#[derive(Debug, Clone)]
pub struct Handshake {
    pub core_version: u32,
    pub app_version: u32,
    pub network: String,
    pub address: String,
    pub protocol: String,
    /// DER of the server certificate (base64 without padding on the line); empty when TLS is off.
    pub server_certificate_der: Vec<u8>,
}

impl Handshake {
    /// Parses the line as go-plugin's client does; the certificate must be unpadded standard base64.
    pub fn parse(line: &str) -> Result<Self, String> {
        use base64::Engine;
        let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('|').collect();
        let [core, app, network, address, protocol, certificate] = fields[..] else {
            return Err(format!(
                "expected 6 '|'-separated fields, got {}: {line:?}",
                fields.len()
            ));
        };
        let number = |field: &str, what: &str| {
            field
                .parse::<u32>()
                .map_err(|err| format!("{what} {field:?} is not a number: {err}"))
        };
        let server_certificate_der = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(certificate)
            .map_err(|err| format!("server certificate is not unpadded base64: {err}"))?;
        Ok(Self {
            core_version: number(core, "core protocol version")?,
            app_version: number(app, "app protocol version")?,
            network: network.to_string(),
            address: address.to_string(),
            protocol: protocol.to_string(),
            server_certificate_der,
        })
    }
}

/// The command Terraform would run: go-plugin's environment, stdin closed, stdout and stderr piped. Provider log
/// settings inherited from the caller are dropped so output stays predictable.
pub fn terraform_command(binary: &Path, client_certificate_pem: Option<&str>) -> Command {
    let mut command = Command::new(binary);
    command
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_MIN_PORT", "10000")
        .env("PLUGIN_MAX_PORT", "25000")
        .env_remove("PLUGIN_CLIENT_CERT")
        .env_remove("TF_LOG")
        .env_remove("TF_LOG_PROVIDER")
        .env_remove("TF_LOG_PROVIDER_HYPERPOD")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(pem) = client_certificate_pem {
        command.env("PLUGIN_CLIENT_CERT", pem);
    }
    command
}

/// Drains a pipe on its own thread into a shared buffer, so the child never blocks on a full pipe.
fn drain_into(mut pipe: impl Read + Send + 'static, buffer: Arc<Mutex<Vec<u8>>>) {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            buffer.lock().expect("pipe buffer lock").extend_from_slice(&chunk[..n]);
        }
    });
}

/// A running provider process, past its handshake. Killed on drop if still running.
pub struct PluginProcess {
    child: Child,
    exit_status: Option<ExitStatus>,
    pub identity: ClientIdentity,
    pub handshake_line: String,
    pub handshake: Handshake,
    /// From just before spawning to having read the handshake line.
    pub handshake_elapsed: Duration,
    stdout_after_handshake: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl PluginProcess {
    /// Spawns the provider binary with a fresh Terraform-like client certificate and waits for the handshake.
    pub fn spawn() -> Self {
        Self::spawn_binary(&provider_binary(), ClientIdentity::terraform_like())
    }

    pub fn spawn_binary(binary: &Path, identity: ClientIdentity) -> Self {
        let command = terraform_command(binary, Some(&identity.certificate_pem));
        Self::start(command, identity).unwrap_or_else(|err| panic!("{err}"))
    }

    /// Starts `command` and reads the first stdout line as the handshake.
    pub fn start(mut command: Command, identity: ClientIdentity) -> Result<Self, String> {
        let started = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|err| format!("cannot spawn {command:?}: {err}"))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        drain_into(child.stderr.take().expect("piped stderr"), stderr.clone());

        let stdout_after_handshake = Arc::new(Mutex::new(Vec::new()));
        let (line_sender, line_receiver) = mpsc::channel();
        let rest = stdout_after_handshake.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let result = reader.read_line(&mut line).map(|_| line);
            let _ = line_sender.send(result);
            let mut remainder = Vec::new();
            let _ = reader.read_to_end(&mut remainder);
            rest.lock().expect("stdout buffer lock").extend(remainder);
        });

        let failure = |child: &mut Child, why: String| {
            let _ = child.kill();
            let status = child.wait();
            std::thread::sleep(Duration::from_millis(50)); // let the stderr drain catch up
            let stderr = String::from_utf8_lossy(&stderr.lock().expect("stderr lock")).to_string();
            format!("plugin handshake failed: {why} (exit: {status:?}); stderr:\n{stderr}")
        };
        let handshake_line = match line_receiver.recv_timeout(HANDSHAKE_TIMEOUT) {
            Ok(Ok(line)) if !line.is_empty() => line,
            Ok(Ok(_)) => {
                return Err(failure(&mut child, "stdout closed before the handshake line".into()));
            }
            Ok(Err(err)) => return Err(failure(&mut child, format!("reading stdout: {err}"))),
            Err(_) => {
                return Err(failure(
                    &mut child,
                    format!("no handshake line within {HANDSHAKE_TIMEOUT:?}"),
                ));
            }
        };
        let handshake_elapsed = started.elapsed();
        let handshake = match Handshake::parse(&handshake_line) {
            Ok(handshake) => handshake,
            Err(err) => return Err(failure(&mut child, err)),
        };
        Ok(Self {
            child,
            exit_status: None,
            identity,
            handshake_line: handshake_line.trim_end().to_string(),
            handshake,
            handshake_elapsed,
            stdout_after_handshake,
            stderr,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn socket_path(&self) -> PathBuf {
        PathBuf::from(&self.handshake.address)
    }

    /// Connects as Terraform would, presenting `identity`'s certificate, or none at all.
    pub async fn connect(&self, identity: Option<&ClientIdentity>) -> Result<Channel, tonic::transport::Error> {
        let tls = client_tls_config(&self.handshake.server_certificate_der, identity);
        let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
        let socket = self.socket_path();
        Endpoint::from_static("http://localhost")
            .connect_timeout(CONNECT_TIMEOUT)
            .connect_with_connector(tower::service_fn(move |_: tonic::codegen::http::Uri| {
                let connector = connector.clone();
                let socket = socket.clone();
                async move {
                    let stream = tokio::net::UnixStream::connect(&socket).await?;
                    let stream = connector
                        .connect(ServerName::try_from("localhost").expect("a DNS name"), stream)
                        .await?;
                    Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
                }
            }))
            .await
    }

    /// Connects with the certificate announced in `PLUGIN_CLIENT_CERT`; panics if that fails.
    pub async fn connect_announced(&self) -> Channel {
        self.connect(Some(&self.identity)).await.unwrap_or_else(|err| {
            panic!(
                "connecting with the announced certificate: {err:?}; stderr:\n{}",
                self.stderr_text()
            )
        })
    }

    pub async fn provider_client(&self) -> ProviderClient<Channel> {
        ProviderClient::new(self.connect_announced().await).max_decoding_message_size(256 * 1024 * 1024)
    }

    /// Sends `GRPCController.Shutdown` and hangs up, as go-plugin's client does on `Close`.
    pub async fn request_shutdown(&self, channel: Channel) -> Result<(), tonic::Status> {
        let mut controller = GrpcControllerClient::new(channel);
        controller
            .shutdown(terraform_provider_hyperpod::protocol::proto::plugin::Empty {})
            .await
            .map(|_| ())
    }

    /// The exit status, if the process has exited; polls without blocking.
    pub fn try_exit_status(&mut self) -> Option<ExitStatus> {
        if self.exit_status.is_none() {
            self.exit_status = self.child.try_wait().expect("polling the plugin process");
        }
        self.exit_status
    }

    /// Waits (asynchronously, so client connections keep being driven) up to `timeout` for the process to exit.
    pub async fn wait_for_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_exit_status() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Shutdown over `channel`, then the time until the process exited (None if not within `timeout`).
    pub async fn shutdown(
        &mut self,
        channel: Channel,
        timeout: Duration,
    ) -> (Result<(), tonic::Status>, Option<(ExitStatus, Duration)>) {
        let started = Instant::now();
        let reply = self.request_shutdown(channel).await;
        let exit = self
            .wait_for_exit(timeout.saturating_sub(started.elapsed()))
            .await
            .map(|status| (status, started.elapsed()));
        (reply, exit)
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("stderr lock")).to_string()
    }

    /// Whatever the process printed on stdout after the handshake line (it should print nothing).
    pub fn stdout_after_handshake(&self) -> String {
        String::from_utf8_lossy(&self.stdout_after_handshake.lock().expect("stdout lock")).to_string()
    }

    /// Resident set size from /proc/<pid>/status, in KiB.
    pub fn vm_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for PluginProcess {
    fn drop(&mut self) {
        if self.try_exit_status().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The client half of go-plugin's AutoMTLS: trust exactly the certificate from the handshake line, for `localhost`,
/// and present `identity`'s certificate when given.
pub fn client_tls_config(server_certificate_der: &[u8], identity: Option<&ClientIdentity>) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = Arc::new(PinnedServerVerifier {
        pinned: CertificateDer::from(server_certificate_der.to_vec()),
        algorithms: provider.signature_verification_algorithms,
    });
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS protocol versions")
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match identity {
        Some(identity) => builder
            .with_client_auth_cert(vec![identity.certificate_der.clone()], identity.private_key())
            .expect("client certificate and key"),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    config
}

/// Go's client adds the announced certificate to its root pool; WebPKI refuses a CA certificate as end entity, so the
/// equivalent here is to pin it byte for byte, check it names `localhost`, and verify handshake signatures with it.
#[derive(Debug)]
struct PinnedServerVerifier {
    pinned: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinnedServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() != self.pinned.as_ref() {
            return Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer));
        }
        let certificate = webpki::EndEntityCert::try_from(end_entity)
            .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadEncoding))?;
        certificate
            .verify_is_valid_for_subject_name(server_name)
            .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::NotValidForName))?;
        Ok(ServerCertVerified::assertion())
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

/// Median and 95th percentile (nearest rank) of `samples`, which it sorts.
pub fn median_p95(samples: &mut [f64]) -> (f64, f64) {
    assert!(!samples.is_empty(), "no samples");
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let median = if n % 2 == 1 {
        samples[n / 2]
    } else {
        f64::midpoint(samples[n / 2 - 1], samples[n / 2])
    };
    let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
    (median, samples[rank - 1])
}
