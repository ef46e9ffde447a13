//! Builds the AWS clients from the provider block, the way the AWS provider does: the SDK's default chain
//! (environment, shared files, SSO, process credentials, IMDS; `AWS_ENDPOINT_URL[_<SERVICE>]`), then an optional
//! assumed role, then per-service endpoint overrides; the caller identity is checked once.

use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::sts::AssumeRoleProvider;
use aws_credential_types::provider::SharedCredentialsProvider;
use aws_runtime::env_config::file::{EnvConfigFileKind as ProfileFileKind, EnvConfigFiles as ProfileFiles};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextMut;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use aws_types::SdkConfig;
use aws_types::region::Region;

use super::ids::{AccountId, RegionName};
use super::{AwsClient, AwsError, api_error};
use crate::caller::{CALLER_HEADER, CallerName};
use crate::deadline::{Moment, OperationDeadline};

/// Adds `CALLER_HEADER` (the name `caller` answers) to every AWS request. After signing: it is not part of the
/// signature, so it changes nothing AWS checks.
#[derive(Debug)]
struct CallerHeader(CallerName);

impl Intercept for CallerHeader {
    fn name(&self) -> &'static str {
        "CallerHeader"
    }

    fn modify_before_transmit(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(name) = self.0.current() {
            // A name that is not a valid header value (never one of ours) is left out rather than failing the call.
            let _ = context.request_mut().headers_mut().try_insert(CALLER_HEADER, name);
        }
        Ok(())
    }
}

/// Holds every AWS call to the current operation's deadline (`deadline`): not sent once it has passed, failed when the
/// answer arrives after it. Outside the retry loop: a call out of time is not retried.
#[derive(Debug)]
struct DeadlineCheck(OperationDeadline);

impl Intercept for DeadlineCheck {
    fn name(&self) -> &'static str {
        "DeadlineCheck"
    }

    fn read_before_execution(
        &self,
        _: &aws_smithy_runtime_api::client::interceptors::context::BeforeSerializationInterceptorContextRef<'_>,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Ok(self.0.check(Moment::BeforeSending)?)
    }

    fn read_after_execution(
        &self,
        _: &aws_smithy_runtime_api::client::interceptors::context::FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Ok(self.0.check(Moment::OnReturn)?)
    }
}

#[derive(Clone, Debug, Default)]
pub struct AssumeRole {
    pub role_arn: String,
    pub session_name: Option<String>,
    pub external_id: Option<String>,
    pub duration: Option<Duration>,
}

/// Per-service endpoint overrides (`endpoints {}`); unset ones follow `AWS_ENDPOINT_URL[_<SERVICE>]`.
#[derive(Clone, Debug, Default)]
pub struct Endpoints {
    pub iam: Option<String>,
    pub sts: Option<String>,
    pub kms: Option<String>,
    pub sagemaker: Option<String>,
    pub datazone: Option<String>,
    pub eks: Option<String>,
    pub ssm: Option<String>,
    pub cloudwatch: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct AwsSettings {
    pub region: Option<RegionName>,
    pub profile: Option<String>,
    pub shared_config_files: Vec<String>,
    pub shared_credentials_files: Vec<String>,
    pub assume_role: Option<AssumeRole>,
    pub endpoints: Endpoints,
    pub max_retries: Option<u32>,
    /// `adaptive` also slows the client down when AWS throttles it (a client-side rate limiter).
    pub adaptive_retry: Option<bool>,
    pub allowed_account_ids: Vec<AccountId>,
    pub forbidden_account_ids: Vec<AccountId>,
    /// Names the resource or data source each request is made for (`caller`).
    pub caller: CallerName,
    /// The current operation's deadline (`deadline`).
    pub deadline: OperationDeadline,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "no AWS region is configured: set `region` in the provider block, AWS_REGION in the environment, or a \
         region in the shared config profile"
    )]
    NoRegion,
    #[error("{0:?} is not a valid region name")]
    BadRegion(String),
    #[error("could not confirm the AWS identity (sts:GetCallerIdentity): {0}")]
    Identity(AwsError),
    #[error(
        "the credentials belong to account {account}, which is not in allowed_account_ids {allowed:?}; use \
         credentials for an allowed account or change allowed_account_ids"
    )]
    AccountNotAllowed { account: String, allowed: Vec<String> },
    #[error(
        "the credentials belong to account {account}, which is listed in forbidden_account_ids; use credentials \
         for another account"
    )]
    AccountForbidden { account: String },
}

/// Loads the SDK configuration and checks who we are; fails fast with a diagnostic-ready error.
pub async fn connect(settings: &AwsSettings) -> Result<AwsClient, ConfigError> {
    let base = load_base(settings).await;
    let region_name = base
        .region()
        .map(|r| r.as_ref().to_string())
        .ok_or(ConfigError::NoRegion)?;
    let region = RegionName::parse(&region_name).map_err(|_| ConfigError::BadRegion(region_name.clone()))?;
    let config = match &settings.assume_role {
        Some(role) => with_assumed_role(&base, role).await,
        None => base,
    };

    let mut sts_config = aws_sdk_sts::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.sts {
        sts_config = sts_config.endpoint_url(url);
    }
    let sts = aws_sdk_sts::Client::from_conf(sts_config.build());
    let identity = sts
        .get_caller_identity()
        .send()
        .await
        .map_err(|err| ConfigError::Identity(api_error("GetCallerIdentity", err)))?;
    let account = identity.account().unwrap_or_default().to_string();
    let account_id = AccountId::parse(&account).map_err(|message| {
        ConfigError::Identity(AwsError::Api {
            operation: "GetCallerIdentity",
            code: "InvalidAccount".into(),
            message,
        })
    })?;
    check_account(&account_id, settings)?;
    tracing::info!(account = %account_id, region = region.as_str(), "configured AWS");

    let mut sagemaker_config = aws_sdk_sagemaker::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.sagemaker {
        sagemaker_config = sagemaker_config.endpoint_url(url);
    }
    let mut datazone_config = aws_sdk_datazone::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.datazone {
        datazone_config = datazone_config.endpoint_url(url);
    }
    let mut iam_config = aws_sdk_iam::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.iam {
        iam_config = iam_config.endpoint_url(url);
    }
    let mut eks_config = aws_sdk_eks::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.eks {
        eks_config = eks_config.endpoint_url(url);
    }
    let mut ssm_config = aws_sdk_ssm::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.ssm {
        ssm_config = ssm_config.endpoint_url(url);
    }
    let mut cloudwatch_config = aws_sdk_cloudwatch::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.cloudwatch {
        cloudwatch_config = cloudwatch_config.endpoint_url(url);
    }
    let mut kms_config = aws_sdk_kms::config::Builder::from(&config)
        .interceptor(CallerHeader(settings.caller))
        .interceptor(DeadlineCheck(settings.deadline));
    if let Some(url) = &settings.endpoints.kms {
        kms_config = kms_config.endpoint_url(url);
    }
    let eks_tokens = super::eks::TokenSource::from_config(&config, settings.endpoints.sts.as_deref())
        .await
        .map_err(ConfigError::Identity)?;
    Ok(AwsClient {
        sagemaker: aws_sdk_sagemaker::Client::from_conf(sagemaker_config.build()),
        datazone: aws_sdk_datazone::Client::from_conf(datazone_config.build()),
        iam: aws_sdk_iam::Client::from_conf(iam_config.build()),
        eks: aws_sdk_eks::Client::from_conf(eks_config.build()),
        kms: aws_sdk_kms::Client::from_conf(kms_config.build()),
        ssm: aws_sdk_ssm::Client::from_conf(ssm_config.build()),
        cloudwatch: aws_sdk_cloudwatch::Client::from_conf(cloudwatch_config.build()),
        eks_tokens,
        account_id,
        region,
        caller_arn: identity.arn().unwrap_or_default().to_string(),
        reads: crate::aws::shared_reads::SharedReads::default(),
    })
}

fn check_account(account: &AccountId, settings: &AwsSettings) -> Result<(), ConfigError> {
    if !settings.allowed_account_ids.is_empty() && !settings.allowed_account_ids.contains(account) {
        return Err(ConfigError::AccountNotAllowed {
            account: account.to_string(),
            allowed: settings.allowed_account_ids.iter().map(ToString::to_string).collect(),
        });
    }
    if settings.forbidden_account_ids.contains(account) {
        return Err(ConfigError::AccountForbidden {
            account: account.to_string(),
        });
    }
    Ok(())
}

async fn load_base(settings: &AwsSettings) -> SdkConfig {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Some(region) = &settings.region {
        loader = loader.region(Region::new(region.as_str().to_string()));
    }
    if let Some(profile) = &settings.profile {
        loader = loader.profile_name(profile);
    }
    if !settings.shared_config_files.is_empty() || !settings.shared_credentials_files.is_empty() {
        let mut files = ProfileFiles::builder();
        // A kind the user did not list keeps its default location, as in the AWS provider.
        if settings.shared_config_files.is_empty() {
            files = files.include_default_config_file(true);
        }
        if settings.shared_credentials_files.is_empty() {
            files = files.include_default_credentials_file(true);
        }
        for path in &settings.shared_config_files {
            files = files.with_file(ProfileFileKind::Config, expand_home(path));
        }
        for path in &settings.shared_credentials_files {
            files = files.with_file(ProfileFileKind::Credentials, expand_home(path));
        }
        loader = loader.profile_files(files.build());
    }
    if settings.max_retries.is_some() || settings.adaptive_retry.is_some() {
        let mode = match settings.adaptive_retry {
            Some(true) => RetryConfig::adaptive(),
            _ => RetryConfig::standard(),
        };
        loader = loader.retry_config(match settings.max_retries {
            Some(retries) => mode.with_max_attempts(retries + 1),
            None => mode,
        });
    }
    loader.load().await
}

async fn with_assumed_role(base: &SdkConfig, role: &AssumeRole) -> SdkConfig {
    let mut builder = AssumeRoleProvider::builder(&role.role_arn).session_name(
        role.session_name
            .clone()
            .unwrap_or_else(|| "terraform-provider-hyperpod".to_string()),
    );
    if let Some(external_id) = &role.external_id {
        builder = builder.external_id(external_id);
    }
    if let Some(duration) = role.duration {
        builder = builder.session_length(duration);
    }
    let provider = builder.configure(base).build().await;
    base.to_builder()
        .credentials_provider(SharedCredentialsProvider::new(provider))
        .build()
}

fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(id: &str) -> AccountId {
        AccountId::parse(id).unwrap()
    }

    #[test]
    fn allowed_and_forbidden_accounts() {
        let mut settings = AwsSettings::default();
        assert!(check_account(&account("123456789012"), &settings).is_ok());
        settings.allowed_account_ids = vec![account("111122223333")];
        let err = check_account(&account("123456789012"), &settings).unwrap_err();
        assert!(err.to_string().contains("not in allowed_account_ids"));
        settings.allowed_account_ids.clear();
        settings.forbidden_account_ids = vec![account("123456789012")];
        assert!(matches!(
            check_account(&account("123456789012"), &settings),
            Err(ConfigError::AccountForbidden { .. })
        ));
    }

    #[test]
    fn home_is_expanded_in_shared_file_paths() {
        let home = std::env::var("HOME").unwrap_or_default();
        assert_eq!(expand_home("~/.aws/config"), format!("{home}/.aws/config"));
        assert_eq!(expand_home("/etc/aws"), "/etc/aws");
    }
}
