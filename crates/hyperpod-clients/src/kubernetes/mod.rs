//! Thin Kubernetes API layer for resources that create objects in an EKS cluster: a JSON client that trusts only
//! the cluster's CA and sends an EKS bearer token (`aws::eks::token`), typed errors carrying the API's `Status`
//! reason and message, path helpers (`paths`) and namespace reads and waits (`namespaces`).
//!
//! One HTTP/1.1 connection per request: a resource makes a handful of calls, and tokens live 60 seconds, so a
//! client is built per operation (`KubeClient::new` with a fresh token) rather than kept.

pub mod namespaces;
pub mod objects;
pub mod paths;

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;

use crate::caller::{CALLER_HEADER, CallerName};
use crate::deadline::{Moment, OperationDeadline};

pub use namespaces::{find_namespace, wait_namespace};

/// How long one request may take, connection and TLS handshake included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of a non-Status error body is kept in a message.
const MAX_BODY_IN_MESSAGE: usize = 512;

#[derive(Debug, thiserror::Error)]
pub enum KubeError {
    /// The cluster's endpoint or CA cannot be used (not https, no host, no certificate in the PEM).
    #[error("the Kubernetes API endpoint of the cluster cannot be used: {0}")]
    Config(String),
    #[error("could not reach the Kubernetes API at {endpoint}: {message}")]
    Transport { endpoint: String, message: String },
    /// 401: the token was refused (expired, for another cluster, or the principal has no access entry).
    #[error("the Kubernetes API refused the credentials for {method} {path} (Unauthorized): {message}")]
    Unauthorized {
        method: String,
        path: String,
        message: String,
    },
    /// 403: authenticated, but the access policies do not allow this.
    #[error("{method} {path} is forbidden: {message}")]
    Forbidden {
        method: String,
        path: String,
        message: String,
    },
    /// 409 on create.
    #[error("{path} already exists: {message}")]
    AlreadyExists { path: String, message: String },
    /// 409 on replace: the object changed since it was read (stale `metadata.resourceVersion`).
    #[error("{path} was changed by someone else (Conflict): {message}")]
    Conflict { path: String, message: String },
    /// Any other non-success status, with the `Status` reason (`NotFound`, `Invalid`, ...) and message.
    #[error("{method} {path} failed: HTTP {code} {reason}: {message}")]
    Api {
        method: String,
        path: String,
        code: u16,
        reason: String,
        message: String,
    },
    #[error("{method} {path}: the response is not JSON: {message}")]
    Decode {
        method: String,
        path: String,
        message: String,
    },
    #[error("timed out after {waited:?} waiting for {kind} {name:?} to become {target}; it is still {status}")]
    Timeout {
        kind: &'static str,
        name: String,
        target: &'static str,
        status: String,
        waited: Duration,
    },
    #[error("interrupted while waiting for {kind} {name:?} (last status {status})")]
    Stopped {
        kind: &'static str,
        name: String,
        status: String,
    },
    /// The operation's deadline (`timeouts`) passed before the request was sent or before its answer arrived.
    #[error("{method} {path}: {passed}")]
    DeadlinePassed {
        method: String,
        path: String,
        passed: crate::deadline::DeadlinePassed,
    },
}

impl KubeError {
    /// The HTTP status, for API errors.
    pub fn code(&self) -> Option<u16> {
        match self {
            Self::Unauthorized { .. } => Some(401),
            Self::Forbidden { .. } => Some(403),
            Self::AlreadyExists { .. } | Self::Conflict { .. } => Some(409),
            Self::Api { code, .. } => Some(*code),
            _ => None,
        }
    }
    pub fn is_not_found(&self) -> bool {
        self.code() == Some(404)
    }
}

/// The parts of a `Status` object an error keeps.
#[derive(Debug, Default, serde::Deserialize)]
struct Status {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

/// A client for one cluster's API. Its `Debug` output leaves the token out.
#[derive(Clone)]
pub struct KubeClient {
    scheme_authority: String,
    /// The endpoint's path prefix without a trailing slash (`/clusters/<name>` in the sandbox, usually empty).
    prefix: String,
    host: String,
    port: u16,
    server_name: ServerName<'static>,
    tls: tokio_rustls::TlsConnector,
    authorization: String,
    caller: CallerName,
    deadline: OperationDeadline,
}

impl std::fmt::Debug for KubeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeClient")
            .field("endpoint", &format!("{}{}", self.scheme_authority, self.prefix))
            .field("authorization", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl KubeClient {
    /// `endpoint` is the cluster's `https://` API URL (a path prefix is kept), `ca_pem` the PEM of its CA (the only
    /// trusted root), `token` the bearer token.
    pub fn new(endpoint: &str, ca_pem: &str, token: &str) -> Result<Self, KubeError> {
        let uri: Uri = endpoint
            .trim_end_matches('/')
            .parse()
            .map_err(|err| KubeError::Config(format!("{endpoint:?} is not a URL: {err}")))?;
        if uri.scheme_str() != Some("https") {
            return Err(KubeError::Config(format!("{endpoint:?} is not an https:// URL")));
        }
        let authority = uri
            .authority()
            .ok_or_else(|| KubeError::Config(format!("{endpoint:?} has no host")))?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = authority.port_u16().unwrap_or(443);
        let server_name = ServerName::try_from(host.clone())
            .map_err(|err| KubeError::Config(format!("{host:?} is not a valid server name: {err}")))?;
        let mut roots = rustls::RootCertStore::empty();
        let certificates = pem_certificates(ca_pem)?;
        let (added, _ignored) = roots.add_parsable_certificates(certificates);
        if added == 0 {
            return Err(KubeError::Config(
                "the cluster's certificate authority holds no usable certificate".to_string(),
            ));
        }
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|err| KubeError::Config(err.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Self {
            scheme_authority: format!("https://{authority}"),
            prefix: uri.path().trim_end_matches('/').to_string(),
            host,
            port,
            server_name,
            tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
            authorization: format!("Bearer {token}"),
            caller: CallerName::default(),
            deadline: OperationDeadline::default(),
        })
    }

    /// Names each request's caller with `caller` (`CALLER_HEADER`), as the AWS clients do.
    pub fn with_caller(self, caller: CallerName) -> Self {
        Self { caller, ..self }
    }

    /// Holds each request to the current operation's deadline (`deadline`), as the AWS clients do.
    pub fn with_deadline(self, deadline: OperationDeadline) -> Self {
        Self { deadline, ..self }
    }

    /// The object at `path`, or `None` on 404.
    pub async fn get(&self, path: &str) -> Result<Option<Value>, KubeError> {
        match self.request(Method::GET, path, None).await {
            Ok(value) => Ok(Some(value)),
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// POSTs `body` to the collection at `path`; 409 is `AlreadyExists`. Returns the created object.
    pub async fn create(&self, path: &str, body: &Value) -> Result<Value, KubeError> {
        self.request(Method::POST, path, Some(body))
            .await
            .map_err(|err| on_conflict(err, |path, message| KubeError::AlreadyExists { path, message }))
    }

    /// PUTs `body` to the object at `path`; 409 (a stale `metadata.resourceVersion`) is `Conflict`. Without a
    /// resourceVersion in `body` the replace is unconditional.
    pub async fn replace(&self, path: &str, body: &Value) -> Result<Value, KubeError> {
        self.request(Method::PUT, path, Some(body))
            .await
            .map_err(|err| on_conflict(err, |path, message| KubeError::Conflict { path, message }))
    }

    /// DELETEs the object at `path`; an object already gone (404) is success.
    pub async fn delete(&self, path: &str) -> Result<(), KubeError> {
        match self.request(Method::DELETE, path, None).await {
            Ok(_) => Ok(()),
            Err(err) if err.is_not_found() => Ok(()),
            Err(err) => Err(err),
        }
    }

    async fn request(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, KubeError> {
        let late = |passed| KubeError::DeadlinePassed {
            method: method.to_string(),
            path: path.to_string(),
            passed,
        };
        self.deadline.check(Moment::BeforeSending).map_err(late)?;
        let answer = self.exchange(&method, path, body).await;
        self.deadline.check(Moment::OnReturn).map_err(late)?;
        answer
    }

    async fn exchange(&self, method: &Method, path: &str, body: Option<&Value>) -> Result<Value, KubeError> {
        let target = format!("{}{}", self.prefix, path);
        let transport = |message: String| KubeError::Transport {
            endpoint: self.scheme_authority.clone(),
            message,
        };
        let mut builder = Request::builder()
            .method(method.clone())
            .uri(target.as_str())
            .header(hyper::header::HOST, self.host_header())
            .header(hyper::header::ACCEPT, "application/json")
            .header(hyper::header::USER_AGENT, "terraform-provider-hyperpod")
            .header(hyper::header::AUTHORIZATION, self.authorization.as_str());
        // The resource the request is made for, as on AWS calls: the sandbox counts Kubernetes requests per caller
        // too (the RBAC each resource needs, in docs/guides/permissions.md).
        if let Some(name) = self.caller.current() {
            builder = builder.header(CALLER_HEADER, name);
        }
        let payload = match body {
            Some(value) => {
                builder = builder.header(hyper::header::CONTENT_TYPE, "application/json");
                Bytes::from(serde_json::to_vec(value).map_err(|err| transport(err.to_string()))?)
            }
            None => Bytes::new(),
        };
        let request = builder
            .body(Full::new(payload))
            .map_err(|err| transport(err.to_string()))?;
        let exchange = async {
            let tcp = tokio::net::TcpStream::connect((self.host.as_str(), self.port))
                .await
                .map_err(|err| transport(err.to_string()))?;
            let tls = self
                .tls
                .connect(self.server_name.clone(), tcp)
                .await
                .map_err(|err| transport(format!("TLS: {err}")))?;
            let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
                .await
                .map_err(|err| transport(err.to_string()))?;
            let driver = tokio::spawn(async move {
                let _ = connection.await;
            });
            let response = sender
                .send_request(request)
                .await
                .map_err(|err| transport(err.to_string()))?;
            let status = response.status();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|err| transport(err.to_string()))?
                .to_bytes();
            driver.abort();
            Ok::<_, KubeError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| transport(format!("no response within {REQUEST_TIMEOUT:?}")))??;
        tracing::debug!(%method, path = target.as_str(), status = status.as_u16(), "kubernetes request");
        if status.is_success() {
            if bytes.is_empty() {
                return Ok(Value::Null);
            }
            return serde_json::from_slice(&bytes).map_err(|err| KubeError::Decode {
                method: method.to_string(),
                path: path.to_string(),
                message: err.to_string(),
            });
        }
        Err(status_error(method, path, status, &bytes))
    }

    fn host_header(&self) -> String {
        self.scheme_authority.trim_start_matches("https://").to_string()
    }
}

fn status_error(method: &Method, path: &str, status: StatusCode, bytes: &[u8]) -> KubeError {
    let parsed: Option<Status> = serde_json::from_slice(bytes).ok();
    let (reason, message) = match parsed {
        Some(s) if !s.reason.is_empty() || !s.message.is_empty() => (s.reason, s.message),
        _ => {
            let text = String::from_utf8_lossy(bytes);
            let mut text = text.trim().to_string();
            if text.len() > MAX_BODY_IN_MESSAGE {
                let mut end = MAX_BODY_IN_MESSAGE;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                text.push('…');
            }
            (status.canonical_reason().unwrap_or("").replace(' ', ""), text)
        }
    };
    let (method, path) = (method.to_string(), path.to_string());
    match status.as_u16() {
        401 => KubeError::Unauthorized { method, path, message },
        403 => KubeError::Forbidden { method, path, message },
        code => KubeError::Api {
            method,
            path,
            code,
            reason,
            message,
        },
    }
}

/// The DER certificates of a PEM bundle (`-----BEGIN CERTIFICATE-----` blocks; other blocks are skipped).
fn pem_certificates(pem: &str) -> Result<Vec<CertificateDer<'static>>, KubeError> {
    const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
    const END: &str = "-----END CERTIFICATE-----";
    let mut out = Vec::new();
    let mut rest = pem;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start + BEGIN.len()..];
        let end = after
            .find(END)
            .ok_or_else(|| KubeError::Config("the certificate authority PEM is truncated".to_string()))?;
        let body: String = after[..end].chars().filter(|c| !c.is_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|err| KubeError::Config(format!("the certificate authority PEM is not base64: {err}")))?;
        out.push(CertificateDer::from(der));
        rest = &after[end + END.len()..];
    }
    if out.is_empty() {
        return Err(KubeError::Config(
            "the certificate authority holds no PEM certificate".to_string(),
        ));
    }
    Ok(out)
}

/// A 409 means "already exists" for a create and "stale resourceVersion" for a replace; `typed` says which.
fn on_conflict(err: KubeError, typed: impl FnOnce(String, String) -> KubeError) -> KubeError {
    match err {
        KubeError::Api {
            code: 409,
            path,
            message,
            ..
        } => typed(path, message),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_bodies_become_typed_errors() {
        let body = br#"{"kind":"Status","status":"Failure","reason":"NotFound","message":"namespaces \"x\" not found","code":404}"#;
        let err = status_error(&Method::GET, "/api/v1/namespaces/x", StatusCode::NOT_FOUND, body);
        assert!(err.is_not_found());
        assert!(err.to_string().contains("NotFound"), "{err}");
        assert!(err.to_string().contains(r#"namespaces "x" not found"#), "{err}");
        let err = status_error(&Method::GET, "/api/v1/namespaces", StatusCode::UNAUTHORIZED, b"{}");
        assert!(matches!(err, KubeError::Unauthorized { .. }));
        let err = status_error(&Method::GET, "/", StatusCode::BAD_GATEWAY, "x".repeat(2000).as_bytes());
        assert!(err.to_string().len() < 700);
    }

    #[test]
    fn pem_bundles_are_parsed_and_bad_ones_refused() {
        let pem = "junk\n-----BEGIN CERTIFICATE-----\nAAEC\nAw==\n-----END CERTIFICATE-----\n\
                   -----BEGIN CERTIFICATE-----\nBAU=\n-----END CERTIFICATE-----\n";
        let certs = pem_certificates(pem).unwrap();
        assert_eq!(certs.len(), 2);
        assert_eq!(certs[0].as_ref(), &[0, 1, 2, 3]);
        assert!(pem_certificates("").is_err());
        assert!(pem_certificates("-----BEGIN CERTIFICATE-----\nAAEC").is_err());
    }

    #[test]
    fn endpoints_must_be_https_and_the_token_stays_out_of_debug() {
        let ca = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        let pem = ca.cert.pem();
        assert!(matches!(
            KubeClient::new("http://127.0.0.1:1/clusters/x", &pem, "secret-token"),
            Err(KubeError::Config(_))
        ));
        let client = KubeClient::new("https://127.0.0.1:8443/clusters/x/", &pem, "secret-token").unwrap();
        assert_eq!(client.prefix, "/clusters/x");
        assert_eq!(client.host_header(), "127.0.0.1:8443");
        let debug = format!("{client:?}");
        assert!(!debug.contains("secret-token"), "{debug}");
    }
}
