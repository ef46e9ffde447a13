//! The provider block: schema, validation (no I/O) and parsing into `Settings` (AWS settings and own options).

use std::collections::BTreeMap;

use crate::aws::config::{AssumeRole, AwsSettings, Endpoints};
use crate::aws::ids::{AccountId, RegionName};
use crate::caller::CallerName;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::model::{Attr, Field, Model, Set};
use crate::protocol::schema::Schema;
use crate::protocol::validators::{IntBetween, IsDuration, OneOf, parse_duration};
use crate::protocol::value::Value;
use crate::resources::validators::{AccountIds, IsArn, IsRegion, IsUrl};

/// Governs shared Amazon SageMaker HyperPod capacity for SageMaker Unified Studio projects. Credentials and region
/// follow the AWS SDK's default chain, like the AWS provider.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct ProviderModel {
    /// AWS region of the HyperPod capacity account. Defaults to `AWS_REGION` or the profile's region.
    #[tf(optional, validate = IsRegion)]
    pub region: Field<String>,
    /// Named profile from the shared config and credentials files.
    #[tf(optional)]
    pub profile: Field<String>,
    /// Paths of shared config files. Defaults to `~/.aws/config`.
    #[tf(optional)]
    pub shared_config_files: Field<Vec<String>>,
    /// Paths of shared credentials files. Defaults to `~/.aws/credentials`.
    #[tf(optional)]
    pub shared_credentials_files: Field<Vec<String>>,
    /// Account IDs the credentials must belong to; configuration fails for any other account. Conflicts with
    /// `forbidden_account_ids`.
    #[tf(optional, validate = AccountIds)]
    pub allowed_account_ids: Field<Set<String>>,
    /// Account IDs the credentials must not belong to. Conflicts with `allowed_account_ids`.
    #[tf(optional, validate = AccountIds)]
    pub forbidden_account_ids: Field<Set<String>>,
    /// How many times a throttled or failed AWS call is retried. Defaults to the SDK's standard mode (2).
    #[tf(optional, validate = IntBetween { min: 0, max: 25 })]
    pub max_retries: Field<i64>,
    /// How throttled AWS calls are retried: `standard`, or `adaptive`, which also paces the provider's calls while
    /// AWS throttles them (for large applies on a busy account). Defaults to `AWS_RETRY_MODE`, then the shared
    /// config's `retry_mode`, then `standard`.
    #[tf(optional, validate = OneOf(RetryMode::NAMES))]
    pub retry_mode: Field<String>,
    /// Refuse governance warnings at apply like errors (rules of severity W such as an overdue review, LIF-1; checks
    /// that could not be read or evaluated at plan), for pipelines that must not apply a change with open findings.
    /// A plan never fails on a rule, strict or not: `terraform destroy` refreshes with a plan
    /// (docs/design/where-rules-run.md). Defaults to `false`.
    #[tf(optional)]
    pub strict: Field<bool>,
    #[tf(block = single)]
    pub assume_role: Field<AssumeRoleBlock>,
    #[tf(block = single, max_items = 1)]
    pub endpoints: Field<EndpointsBlock>,
    #[tf(block = single)]
    pub default_tags: Field<DefaultTagsBlock>,
}

/// A role to assume with the base credentials before any call.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct AssumeRoleBlock {
    /// The role to assume.
    #[tf(required, validate = IsArn)]
    pub role_arn: Field<String>,
    /// Session name. Defaults to `terraform-provider-hyperpod`.
    #[tf(optional)]
    pub session_name: Field<String>,
    /// External ID the role's trust policy requires.
    #[tf(optional)]
    pub external_id: Field<String>,
    /// Session length. Defaults to 1 hour.
    #[tf(optional, validate = IsDuration)]
    pub duration: Field<String>,
}

/// Custom endpoint URLs, one per AWS service. Unset services follow `AWS_ENDPOINT_URL_<SERVICE>`, then
/// `AWS_ENDPOINT_URL`.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct EndpointsBlock {
    /// Endpoint URL for Amazon CloudWatch.
    #[tf(optional, validate = IsUrl)]
    pub cloudwatch: Field<String>,
    /// Endpoint URL for Amazon DataZone (SageMaker Unified Studio).
    #[tf(optional, validate = IsUrl)]
    pub datazone: Field<String>,
    /// Endpoint URL for Amazon EKS.
    #[tf(optional, validate = IsUrl)]
    pub eks: Field<String>,
    /// Endpoint URL for AWS IAM.
    #[tf(optional, validate = IsUrl)]
    pub iam: Field<String>,
    /// Endpoint URL for AWS KMS.
    #[tf(optional, validate = IsUrl)]
    pub kms: Field<String>,
    /// Endpoint URL for Amazon SageMaker.
    #[tf(optional, validate = IsUrl)]
    pub sagemaker: Field<String>,
    /// Endpoint URL for AWS Systems Manager.
    #[tf(optional, validate = IsUrl)]
    pub ssm: Field<String>,
    /// Endpoint URL for AWS STS.
    #[tf(optional, validate = IsUrl)]
    pub sts: Field<String>,
}

/// Tags added to every taggable object the provider creates; a resource's own `tags` win.
#[derive(Model, Clone, Debug, Default, PartialEq)]
pub struct DefaultTagsBlock {
    /// Tags as key/value pairs.
    #[tf(optional)]
    pub tags: Field<BTreeMap<String, String>>,
}

hyperpod_model::api_names! {
    /// `retry_mode`'s values; `adaptive` also paces the provider's calls.
    RetryMode {
        Standard = "standard",
        Adaptive = "adaptive",
    }
}

pub fn schema() -> Schema {
    Schema {
        version: 0,
        block: ProviderModel::block(),
    }
}

/// Cross-attribute checks that need no AWS.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    let set = |attr: Attr<ProviderModel, Field<Set<String>>>| attr.get(config).is_ok_and(|ids| ids != Field::Null);
    if set(ProviderModel::ALLOWED_ACCOUNT_IDS) && set(ProviderModel::FORBIDDEN_ACCOUNT_IDS) {
        diagnostics.push(Diagnostic::error(
            ProviderModel::FORBIDDEN_ACCOUNT_IDS.path(),
            "Conflicting attributes",
            "allowed_account_ids and forbidden_account_ids cannot both be set. Fix: keep one of them.",
        ));
    }
}

/// Parses a validated provider block. Unknown values (e.g. from resources not yet created) count as unset.
/// The provider block: how to reach AWS, and the provider's own options.
pub struct Settings {
    pub aws: AwsSettings,
    /// Merged under every taggable resource's own tags.
    pub default_tags: BTreeMap<String, String>,
    /// Governance warnings are refused at apply like errors (a contract may also opt in).
    pub strict: bool,
}

pub fn parse(config: &Value) -> Result<Settings, Diagnostics> {
    let model = ProviderModel::decode(config)?;
    let mut diagnostics = Diagnostics::new();
    let region = model.region.known().and_then(|r| {
        RegionName::parse(&r)
            .map_err(|e| diagnostics.push(Diagnostic::error(ProviderModel::REGION.path(), "Invalid region", e)))
            .ok()
    });
    let allowed_account_ids = account_ids(
        model.allowed_account_ids,
        ProviderModel::ALLOWED_ACCOUNT_IDS.path(),
        &mut diagnostics,
    );
    let forbidden_account_ids = account_ids(
        model.forbidden_account_ids,
        ProviderModel::FORBIDDEN_ACCOUNT_IDS.path(),
        &mut diagnostics,
    );
    let assume_role = model.assume_role.known().and_then(|role| {
        Some(AssumeRole {
            role_arn: role.role_arn.known()?,
            session_name: role.session_name.known(),
            external_id: role.external_id.known(),
            duration: role.duration.known().and_then(|d| parse_duration(&d)),
        })
    });
    let endpoints = model.endpoints.known().unwrap_or_default();
    let settings = AwsSettings {
        region,
        profile: model.profile.known(),
        shared_config_files: model.shared_config_files.known().unwrap_or_default(),
        shared_credentials_files: model.shared_credentials_files.known().unwrap_or_default(),
        assume_role,
        endpoints: Endpoints {
            iam: endpoints.iam.known(),
            sts: endpoints.sts.known(),
            kms: endpoints.kms.known(),
            sagemaker: endpoints.sagemaker.known(),
            datazone: endpoints.datazone.known(),
            eks: endpoints.eks.known(),
            ssm: endpoints.ssm.known(),
            cloudwatch: endpoints.cloudwatch.known(),
        },
        max_retries: model.max_retries.known().and_then(|n| u32::try_from(n).ok()),
        adaptive_retry: (model.retry_mode.known())
            .and_then(|mode| RetryMode::parse(&mode))
            .map(|mode| mode == RetryMode::Adaptive),
        allowed_account_ids,
        forbidden_account_ids,
        // The plugin protocol names the resource or data source of the RPC a request is made for.
        caller: CallerName(crate::protocol::caller::current),
        deadline: crate::client::operation_deadline(),
    };
    diagnostics.into_result(Settings {
        aws: settings,
        strict: model.strict.known().unwrap_or(false),
        default_tags: (model.default_tags.known())
            .and_then(|d| d.tags.known())
            .unwrap_or_default(),
    })
}

/// The account IDs of a set attribute; each that is not one is an error at the attribute.
fn account_ids(ids: Field<Set<String>>, at: AttributePath, diagnostics: &mut Diagnostics) -> Vec<AccountId> {
    let ids = ids.known().map(|Set(ids)| ids).unwrap_or_default();
    ids.iter()
        .filter_map(|id| {
            AccountId::parse(id)
                .map_err(|e| diagnostics.push(Diagnostic::error(at.clone(), "Invalid account ID", e)))
                .ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::{object, text};

    fn config(pairs: &[(&str, Value)]) -> Value {
        let schema = schema();
        let mut attributes: Vec<(&str, Value)> = schema
            .block
            .attributes
            .iter()
            .map(|a| (a.name, Value::Null))
            .chain(schema.block.blocks.iter().map(|b| (b.name, Value::Null)))
            .collect();
        for (name, value) in pairs {
            attributes.retain(|(n, _)| n != name);
            attributes.push((name, value.clone()));
        }
        object(attributes)
    }

    #[test]
    fn parses_every_setting() {
        let value = config(&[
            ("region", text("us-west-2")),
            ("profile", text("capacity")),
            ("max_retries", crate::protocol::object::int(5)),
            ("retry_mode", text("adaptive")),
            ("allowed_account_ids", Value::Set(vec![text("123456789012")])),
            (
                "assume_role",
                object([
                    ("role_arn", text("arn:aws:iam::123456789012:role/tf")),
                    ("session_name", Value::Null),
                    ("external_id", text("x")),
                    ("duration", text("30m")),
                ]),
            ),
            (
                "endpoints",
                crate::protocol::model::Known::encode_known(&EndpointsBlock {
                    sagemaker: Field::Known("http://127.0.0.1:4599".into()),
                    ..EndpointsBlock::default()
                }),
            ),
            (
                "default_tags",
                object([("tags", Value::Map([("team".to_string(), text("ml"))].into()))]),
            ),
        ]);
        let Settings {
            aws: settings,
            default_tags,
            ..
        } = parse(&value).unwrap();
        assert_eq!(settings.region.unwrap().as_str(), "us-west-2");
        assert_eq!(settings.max_retries, Some(5));
        assert_eq!(settings.adaptive_retry, Some(true));
        assert_eq!(settings.allowed_account_ids[0].as_str(), "123456789012");
        let role = settings.assume_role.unwrap();
        assert_eq!(role.duration, Some(std::time::Duration::from_mins(30)));
        assert_eq!(settings.endpoints.sagemaker.as_deref(), Some("http://127.0.0.1:4599"));
        assert_eq!(default_tags["team"], "ml");
    }

    #[test]
    fn rejects_bad_values_with_paths() {
        let mut diagnostics = Diagnostics::new();
        let value = config(&[
            ("region", text("mars")),
            ("allowed_account_ids", Value::Set(vec![text("12")])),
        ]);
        schema()
            .block
            .validate(&value, &AttributePath::root(), &mut diagnostics);
        let paths: Vec<String> = diagnostics.iter().map(|d| d.path.to_string()).collect();
        assert!(paths.contains(&"region".to_string()), "{paths:?}");
        assert!(paths.contains(&"allowed_account_ids".to_string()), "{paths:?}");
    }

    #[test]
    fn allowed_and_forbidden_conflict() {
        let mut diagnostics = Diagnostics::new();
        let ids = Value::Set(vec![text("123456789012")]);
        validate(
            &config(&[("allowed_account_ids", ids.clone()), ("forbidden_account_ids", ids)]),
            &mut diagnostics,
        );
        assert!(diagnostics.has_errors());
    }
}
