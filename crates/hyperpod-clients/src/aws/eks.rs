//! EKS reads and the Kubernetes API bearer token: `find_cluster` describes the cluster a HyperPod cluster is
//! orchestrated by, `token` makes the `k8s-aws-v1.` token `aws eks get-token` makes (a presigned STS
//! `GetCallerIdentity` URL that binds the caller to the cluster name).

use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sdk_eks::Client;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SignatureLocation, SigningSettings, sign};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use aws_types::SdkConfig;
use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::{AwsError, api_error, not_found_as};

/// SigV4 query encoding: RFC 3986's unreserved characters stay, every other byte is percent-encoded.
const SIGV4_QUERY: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

pub const EKS_CLUSTER: &str = "EKS cluster";

/// The prefix of an EKS bearer token.
pub const TOKEN_PREFIX: &str = "k8s-aws-v1.";
/// The header that binds a token to one cluster; it is signed, so a token for one cluster fails on another.
pub const CLUSTER_ID_HEADER: &str = "x-k8s-aws-id";
/// How long a token is valid, as `aws eks get-token` makes them (EKS accepts at most 15 minutes).
pub const TOKEN_LIFETIME: Duration = Duration::from_mins(1);

/// An EKS cluster as `DescribeCluster` returns it, reduced to what talking to its Kubernetes API needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EksClusterDescription {
    pub name: String,
    pub arn: String,
    /// The API server URL; may carry a path prefix (the sandbox serves `https://127.0.0.1:<port>/clusters/<name>`).
    pub endpoint: String,
    /// The PEM of the cluster's CA (decoded from `certificateAuthority.data`); empty while the cluster is creating.
    pub certificate_authority_pem: String,
    /// `API`, `API_AND_CONFIG_MAP` or `CONFIG_MAP`.
    pub authentication_mode: Option<String>,
    pub endpoint_public: bool,
    pub endpoint_private: bool,
    pub public_access_cidrs: Vec<String>,
    /// The Kubernetes version, e.g. `1.31` (LIF-2 records it as the orchestrator's version).
    pub version: String,
}

/// Describes an EKS cluster by name (not ARN: `DescribeCluster` takes the name).
pub async fn find_cluster(client: &Client, name: &str) -> Result<EksClusterDescription, AwsError> {
    let output = client
        .describe_cluster()
        .name(name)
        .send()
        .await
        .map_err(|err| api_error("DescribeCluster", err))
        .map_err(|err| not_found_as(EKS_CLUSTER, name, err))?;
    let cluster = output.cluster().ok_or_else(|| AwsError::NotFound {
        kind: EKS_CLUSTER,
        id: name.to_string(),
    })?;
    let certificate_authority_pem = match cluster.certificate_authority().and_then(|c| c.data()) {
        Some(data) if !data.is_empty() => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|err| invalid_response(name, format!("certificateAuthority.data is not base64: {err}")))?;
            String::from_utf8(bytes)
                .map_err(|_| invalid_response(name, "certificateAuthority.data is not a PEM document".to_string()))?
        }
        _ => String::new(),
    };
    let vpc = cluster.resources_vpc_config();
    Ok(EksClusterDescription {
        name: cluster.name().unwrap_or(name).to_string(),
        arn: cluster.arn().unwrap_or_default().to_string(),
        endpoint: cluster.endpoint().unwrap_or_default().to_string(),
        certificate_authority_pem,
        authentication_mode: cluster
            .access_config()
            .and_then(|a| a.authentication_mode())
            .map(|m| m.as_str().to_string()),
        endpoint_public: vpc.is_some_and(aws_sdk_eks::types::VpcConfigResponse::endpoint_public_access),
        endpoint_private: vpc.is_some_and(aws_sdk_eks::types::VpcConfigResponse::endpoint_private_access),
        public_access_cidrs: vpc.map(|v| v.public_access_cidrs().to_vec()).unwrap_or_default(),
        version: cluster.version().unwrap_or_default().to_string(),
    })
}

/// An installed EKS add-on's version and status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstalledAddon {
    pub name: String,
    pub version: String,
    pub status: String,
}

/// Describes an add-on; `Ok(None)` when the cluster does not have it installed.
pub async fn find_addon(
    client: &Client,
    cluster_name: &str,
    addon_name: &str,
) -> Result<Option<InstalledAddon>, AwsError> {
    let output = match client
        .describe_addon()
        .cluster_name(cluster_name)
        .addon_name(addon_name)
        .send()
        .await
    {
        Ok(output) => output,
        Err(err) => {
            let err = api_error("DescribeAddon", err);
            return if crate::aws::is_not_found_error(&err) {
                Ok(None)
            } else {
                Err(err)
            };
        }
    };
    Ok(output.addon().map(|addon| InstalledAddon {
        name: addon.addon_name().unwrap_or(addon_name).to_string(),
        version: addon.addon_version().unwrap_or_default().to_string(),
        status: addon.status().map(|s| s.as_str().to_string()).unwrap_or_default(),
    }))
}

fn invalid_response(name: &str, message: String) -> AwsError {
    AwsError::Api {
        operation: "DescribeCluster",
        code: "InvalidResponse".into(),
        message: format!("EKS cluster {name:?}: {message}"),
    }
}

/// The STS endpoint tokens are presigned for, resolved as the STS client resolves it: `endpoints.sts`, else
/// `AWS_ENDPOINT_URL_STS` / `AWS_ENDPOINT_URL` / the profile's `endpoint_url`, else the regional endpoint.
pub async fn sts_endpoint(config: &SdkConfig, override_url: Option<&str>) -> Result<String, AwsError> {
    use aws_sdk_sts::config::endpoint::{DefaultResolver, Params, ResolveEndpoint};

    let params = Params::builder()
        .set_region(config.region().map(|r| r.as_ref().to_string()))
        .use_fips(config.use_fips().unwrap_or(false))
        .use_dual_stack(config.use_dual_stack().unwrap_or(false))
        .set_endpoint(override_url.map(str::to_string).or_else(|| custom_sts_endpoint(config)))
        .build()
        .map_err(|err| endpoint_error(err.to_string()))?;
    let endpoint = DefaultResolver::new()
        .resolve_endpoint(&params)
        .await
        .map_err(|err| endpoint_error(err.to_string()))?;
    Ok(endpoint.url().to_string())
}

/// The custom endpoint the STS client would use, by the rule of `aws_sdk_sts::config::Builder::from(&SdkConfig)`
/// (whose result has no getter for it): an explicit `endpoint_url` wins, then `AWS_ENDPOINT_URL_STS` or the
/// profile's `services` section, then `AWS_ENDPOINT_URL` / the profile's `endpoint_url`.
fn custom_sts_endpoint(config: &SdkConfig) -> Option<String> {
    if config.get_origin("endpoint_url").is_client_config() {
        return config.endpoint_url().map(str::to_string);
    }
    let key = aws_types::service_config::ServiceConfigKey::builder()
        .service_id("STS")
        .env("AWS_ENDPOINT_URL")
        .profile("endpoint_url")
        .build()
        .ok()?;
    config
        .service_config()
        .and_then(|service| service.load_config(key))
        .or_else(|| config.endpoint_url().map(str::to_string))
}

fn endpoint_error(message: String) -> AwsError {
    AwsError::Api {
        operation: "ResolveEndpoint",
        code: "EndpointResolution".into(),
        message: format!("could not resolve the STS endpoint for EKS tokens: {message}"),
    }
}

/// What signing EKS tokens needs, taken from the provider's SDK configuration (assumed role included).
#[derive(Clone)]
pub struct TokenSource {
    pub credentials: Option<SharedCredentialsProvider>,
    pub region: String,
    /// The STS endpoint the presigned URL names (see `sts_endpoint`).
    pub sts_endpoint: String,
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSource")
            .field("region", &self.region)
            .field("sts_endpoint", &self.sts_endpoint)
            .finish_non_exhaustive()
    }
}

impl TokenSource {
    /// `sts_override` is the provider's `endpoints.sts`.
    pub async fn from_config(config: &SdkConfig, sts_override: Option<&str>) -> Result<Self, AwsError> {
        Ok(Self {
            credentials: config.credentials_provider(),
            region: config.region().map(|r| r.as_ref().to_string()).unwrap_or_default(),
            sts_endpoint: sts_endpoint(config, sts_override).await?,
        })
    }
}

/// A bearer token for `cluster_name`'s Kubernetes API, signed with the provider's credentials at `now`
/// (`SystemTime::now()` outside tests). Valid for `TOKEN_LIFETIME`: get one per operation.
pub async fn token(source: &TokenSource, cluster_name: &str, now: SystemTime) -> Result<String, AwsError> {
    let provider = source.credentials.as_ref().ok_or_else(|| AwsError::Api {
        operation: "GetToken",
        code: "NoCredentials".into(),
        message: "no AWS credentials are configured".to_string(),
    })?;
    let credentials = provider.provide_credentials().await.map_err(|err| AwsError::Api {
        operation: "GetToken",
        code: "CredentialsError".into(),
        message: super::error::error_chain(&err),
    })?;
    presign_token(&credentials, &source.region, &source.sts_endpoint, cluster_name, now)
}

/// The token itself, deterministic in its inputs: `k8s-aws-v1.` + unpadded base64url of
/// `GET <sts>/?Action=GetCallerIdentity&Version=2011-06-15` presigned (SigV4 query auth, service `sts`, signed
/// headers `host;x-k8s-aws-id`, `X-Amz-Expires=60`).
pub fn presign_token(
    credentials: &Credentials,
    region: &str,
    sts_endpoint: &str,
    cluster_name: &str,
    now: SystemTime,
) -> Result<String, AwsError> {
    let signing_error = |message: String| AwsError::Api {
        operation: "GetToken",
        code: "SigningError".into(),
        message,
    };
    let base = sts_endpoint.trim_end_matches('/');
    let url = format!("{base}/?Action=GetCallerIdentity&Version=2011-06-15");
    let identity: Identity = credentials.clone().into();
    let mut settings = SigningSettings::default();
    settings.signature_location = SignatureLocation::QueryParams;
    settings.expires_in = Some(TOKEN_LIFETIME);
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("sts")
        .time(now)
        .settings(settings)
        .build()
        .map_err(|err| signing_error(err.to_string()))?
        .into();
    let request = SignableRequest::new(
        "GET",
        url.as_str(),
        [(CLUSTER_ID_HEADER, cluster_name)].into_iter(),
        SignableBody::Bytes(&[]),
    )
    .map_err(|err| signing_error(err.to_string()))?;
    let (instructions, _signature) = sign(request, &params)
        .map_err(|err| signing_error(err.to_string()))?
        .into_parts();
    let mut presigned = url;
    for (name, value) in instructions.params() {
        presigned.push('&');
        presigned.extend(utf8_percent_encode(name, SIGV4_QUERY));
        presigned.push('=');
        presigned.extend(utf8_percent_encode(value, SIGV4_QUERY));
    }
    Ok(format!(
        "{TOKEN_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(presigned)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPOCH_2024: u64 = 1_704_067_200; // 2024-01-01T00:00:00Z

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
    }

    fn credentials(session_token: Option<&str>) -> Credentials {
        Credentials::new(
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            session_token.map(str::to_string),
            None,
            "test",
        )
    }

    fn decode(token: &str) -> String {
        let body = token.strip_prefix(TOKEN_PREFIX).expect("k8s-aws-v1. prefix");
        assert!(!body.contains(['=', '+', '/']), "unpadded base64url: {body}");
        String::from_utf8(base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap()
    }

    #[test]
    fn token_is_a_presigned_get_caller_identity_url() {
        let endpoint = "https://sts.us-west-2.amazonaws.com";
        let token = presign_token(
            &credentials(None),
            "us-west-2",
            endpoint,
            "ml-capacity-eks",
            at(EPOCH_2024),
        )
        .unwrap();
        // Golden value, checked independently against the sandbox's verifier (the SigV4 of `aws eks get-token`).
        assert_eq!(
            decode(&token),
            "https://sts.us-west-2.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15\
             &X-Amz-Algorithm=AWS4-HMAC-SHA256\
             &X-Amz-Credential=AKIDEXAMPLE%2F20240101%2Fus-west-2%2Fsts%2Faws4_request\
             &X-Amz-Date=20240101T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id\
             &X-Amz-Signature=65022062e43532709f69b4a3b29365fbe8c8021e7c3bd92e53a55eddf6c66ee4"
        );
        // Same inputs, same token; another cluster or another second, another signature.
        let again = presign_token(
            &credentials(None),
            "us-west-2",
            endpoint,
            "ml-capacity-eks",
            at(EPOCH_2024),
        );
        assert_eq!(again.unwrap(), token);
        let other = presign_token(&credentials(None), "us-west-2", endpoint, "other", at(EPOCH_2024)).unwrap();
        assert_ne!(other, token);
    }

    #[test]
    fn session_tokens_and_custom_endpoints_are_carried() {
        let token = presign_token(
            &credentials(Some("session/token+x")),
            "us-west-2",
            "http://127.0.0.1:4599/",
            "ml-capacity-eks",
            at(EPOCH_2024),
        )
        .unwrap();
        let url = decode(&token);
        assert!(
            url.starts_with("http://127.0.0.1:4599/?Action=GetCallerIdentity&Version=2011-06-15&"),
            "{url}"
        );
        assert!(url.contains("&X-Amz-Security-Token=session%2Ftoken%2Bx"), "{url}");
        assert!(url.contains("&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id&"), "{url}");
    }

    #[tokio::test]
    async fn sts_endpoint_follows_overrides_and_regions() {
        let config = SdkConfig::builder()
            .region(aws_types::region::Region::new("eu-west-1"))
            .behavior_version(aws_config::BehaviorVersion::latest())
            .build();
        assert_eq!(
            sts_endpoint(&config, None).await.unwrap(),
            "https://sts.eu-west-1.amazonaws.com"
        );
        assert_eq!(
            sts_endpoint(&config, Some("http://127.0.0.1:4599")).await.unwrap(),
            "http://127.0.0.1:4599"
        );
        let config = config.to_builder().endpoint_url("http://localhost:1234").build();
        assert_eq!(sts_endpoint(&config, None).await.unwrap(), "http://localhost:1234");
    }
}
