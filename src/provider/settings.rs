//! The provider block: schema, validation (no I/O) and parsing into `Settings` (AWS settings and own options).

use std::collections::BTreeMap;

use crate::aws::config::{AssumeRole, AwsSettings, Endpoints};
use crate::aws::ids::{AccountId, RegionName};
use crate::caller::CallerName;
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::object::{integer, nested, string, string_map, strings};
use crate::protocol::schema::{Attribute, Block, NestedBlock, Schema};
use crate::protocol::validators::{IntBetween, IsDuration, OneOf, parse_duration};
use crate::protocol::value::{Type, Value};
use crate::resources::validators::{AccountIds, IsArn, IsRegion, IsUrl};

const ENDPOINT_SERVICES: [&str; 8] = ["cloudwatch", "datazone", "eks", "iam", "kms", "sagemaker", "ssm", "sts"];

pub fn schema() -> Schema {
    let endpoints = ENDPOINT_SERVICES.iter().fold(
        Block::new("Custom endpoint URLs, one per AWS service. Unset services follow `AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`."),
        |block, service| {
            block.attribute(
                Attribute::string(service)
                    .optional()
                    .describe(format!("Endpoint URL for {}.", service_name(service)))
                    .validate(IsUrl),
            )
        },
    );
    Schema {
        version: 0,
        block: Block::new(
            "Governs shared Amazon SageMaker HyperPod capacity for SageMaker Unified Studio projects. Credentials and \
             region follow the AWS SDK's default chain, like the AWS provider.",
        )
        .attribute(
            Attribute::string("region")
                .optional()
                .describe("AWS region of the HyperPod capacity account. Defaults to `AWS_REGION` or the profile's region.")
                .validate(IsRegion),
        )
        .attribute(Attribute::string("profile").optional().describe("Named profile from the shared config and credentials files."))
        .attribute(
            Attribute::new("shared_config_files", Type::List(Box::new(Type::String)))
                .optional()
                .describe("Paths of shared config files. Defaults to `~/.aws/config`."),
        )
        .attribute(
            Attribute::new("shared_credentials_files", Type::List(Box::new(Type::String)))
                .optional()
                .describe("Paths of shared credentials files. Defaults to `~/.aws/credentials`."),
        )
        .attribute(
            Attribute::new("allowed_account_ids", Type::Set(Box::new(Type::String)))
                .optional()
                .describe("Account IDs the credentials must belong to; configuration fails for any other account. Conflicts with `forbidden_account_ids`.")
                .validate(AccountIds),
        )
        .attribute(
            Attribute::new("forbidden_account_ids", Type::Set(Box::new(Type::String)))
                .optional()
                .describe("Account IDs the credentials must not belong to. Conflicts with `allowed_account_ids`.")
                .validate(AccountIds),
        )
        .attribute(
            Attribute::number("max_retries")
                .optional()
                .describe("How many times a throttled or failed AWS call is retried. Defaults to the SDK's standard mode (2).")
                .validate(IntBetween { min: 0, max: 25 }),
        )
        .attribute(
            Attribute::string("retry_mode")
                .optional()
                .describe(
                    "How throttled AWS calls are retried: `standard`, or `adaptive`, which also paces the provider's \
                     calls while AWS throttles them (for large applies on a busy account). Defaults to \
                     `AWS_RETRY_MODE`, then the shared config's `retry_mode`, then `standard`.",
                )
                .validate(OneOf(&["standard", "adaptive"])),
        )
        .attribute(
            Attribute::bool("strict")
                .optional()
                .describe(
                    "Refuse governance warnings at apply like errors (rules of severity W such as an overdue review, \
                     LIF-1; checks that could not be read or evaluated at plan), for pipelines that must not apply a \
                     change with open findings. A plan never fails on a rule, strict or not: `terraform destroy` \
                     refreshes with a plan (docs/design/where-rules-run.md). Defaults to `false`.",
                ),
        )
        .block(
            NestedBlock::single(
                "assume_role",
                Block::new("A role to assume with the base credentials before any call.")
                    .attribute(Attribute::string("role_arn").required().describe("The role to assume.").validate(IsArn))
                    .attribute(Attribute::string("session_name").optional().describe("Session name. Defaults to `terraform-provider-hyperpod`."))
                    .attribute(Attribute::string("external_id").optional().describe("External ID the role's trust policy requires."))
                    .attribute(
                        Attribute::string("duration")
                            .optional()
                            .describe("Session length. Defaults to 1 hour.")
                            .validate(IsDuration),
                    ),
            ),
        )
        .block(NestedBlock::single("endpoints", endpoints).max_items(1))
        .block(
            NestedBlock::single(
                "default_tags",
                Block::new("Tags added to every taggable object the provider creates; a resource's own `tags` win.").attribute(
                    Attribute::new("tags", Type::Map(Box::new(Type::String)))
                        .optional()
                        .describe("Tags as key/value pairs."),
                ),
            ),
        ),
    }
}

/// How AWS names the service in prose.
fn service_name(service: &str) -> &'static str {
    match service {
        "cloudwatch" => "Amazon CloudWatch",
        "datazone" => "Amazon DataZone (SageMaker Unified Studio)",
        "eks" => "Amazon EKS",
        "iam" => "AWS IAM",
        "kms" => "AWS KMS",
        "sagemaker" => "Amazon SageMaker",
        "ssm" => "AWS Systems Manager",
        _ => "AWS STS",
    }
}

/// Cross-attribute checks that need no AWS.
pub fn validate(config: &Value, diagnostics: &mut Diagnostics) {
    let allowed = config.get_attr("allowed_account_ids").is_some_and(|v| !v.is_null());
    let forbidden = config.get_attr("forbidden_account_ids").is_some_and(|v| !v.is_null());
    if allowed && forbidden {
        diagnostics.push(Diagnostic::error(
            AttributePath::attr("forbidden_account_ids"),
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
    let mut diagnostics = Diagnostics::new();
    let region = string(config, "region").and_then(|r| {
        RegionName::parse(&r)
            .map_err(|e| diagnostics.push(Diagnostic::error(AttributePath::attr("region"), "Invalid region", e)))
            .ok()
    });
    let account_ids = |name: &str, diagnostics: &mut Diagnostics| -> Vec<AccountId> {
        strings(config, name)
            .iter()
            .filter_map(|id| {
                AccountId::parse(id)
                    .map_err(|e| {
                        diagnostics.push(Diagnostic::error(AttributePath::attr(name), "Invalid account ID", e));
                    })
                    .ok()
            })
            .collect()
    };
    let allowed_account_ids = account_ids("allowed_account_ids", &mut diagnostics);
    let forbidden_account_ids = account_ids("forbidden_account_ids", &mut diagnostics);
    let assume_role = nested(config, "assume_role").and_then(|role| {
        Some(AssumeRole {
            role_arn: string(role, "role_arn")?,
            session_name: string(role, "session_name"),
            external_id: string(role, "external_id"),
            duration: string(role, "duration").and_then(|d| parse_duration(&d)),
        })
    });
    let endpoint = |service: &str| nested(config, "endpoints").and_then(|e| string(e, service));
    let settings = AwsSettings {
        region,
        profile: string(config, "profile"),
        shared_config_files: strings(config, "shared_config_files"),
        shared_credentials_files: strings(config, "shared_credentials_files"),
        assume_role,
        endpoints: Endpoints {
            iam: endpoint("iam"),
            sts: endpoint("sts"),
            kms: endpoint("kms"),
            sagemaker: endpoint("sagemaker"),
            datazone: endpoint("datazone"),
            eks: endpoint("eks"),
            ssm: endpoint("ssm"),
            cloudwatch: endpoint("cloudwatch"),
        },
        max_retries: integer(config, "max_retries").and_then(|n| u32::try_from(n).ok()),
        adaptive_retry: string(config, "retry_mode").map(|mode| mode == "adaptive"),
        allowed_account_ids,
        forbidden_account_ids,
        // The plugin protocol names the resource or data source of the RPC a request is made for.
        caller: CallerName(crate::protocol::caller::current),
        deadline: crate::client::operation_deadline(),
    };
    diagnostics.into_result(Settings {
        aws: settings,
        strict: crate::protocol::object::boolean(config, "strict").unwrap_or(false),
        default_tags: nested(config, "default_tags")
            .map(|d| string_map(d, "tags"))
            .unwrap_or_default(),
    })
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
                object(ENDPOINT_SERVICES.iter().map(|s| {
                    (
                        *s,
                        if *s == "sagemaker" {
                            text("http://127.0.0.1:4599")
                        } else {
                            Value::Null
                        },
                    )
                })),
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
