//! Session Manager preferences (the account- and region-wide `SSM-SessionManagerRunShell` document), and the
//! Parameter Store parameters the provider keeps its records in.

use std::collections::BTreeMap;

use aws_sdk_ssm::Client;
use aws_sdk_ssm::types::{ParameterType, Tag};

use super::{AwsError, ErrorCode, api_error, is_not_found_error};

pub const PREFERENCES_DOCUMENT: &str = "SSM-SessionManagerRunShell";

/// Whether Run As is enabled. An account that never saved preferences has no document: Run As is then off.
pub async fn find_run_as_enabled(client: &Client) -> Result<bool, AwsError> {
    // Session Manager's documented way to save preferences is UpdateDocument on `$LATEST`; read that version.
    let output = match client
        .get_document()
        .name(PREFERENCES_DOCUMENT)
        .document_version("$LATEST")
        .send()
        .await
    {
        Ok(output) => output,
        Err(err) => {
            let err = api_error("GetDocument", err);
            if is_not_found_error(&err) || err.is(ErrorCode::InvalidDocument) {
                return Ok(false);
            }
            return Err(err);
        }
    };
    let content: serde_json::Value = serde_json::from_str(output.content().unwrap_or("{}")).unwrap_or_default();
    let run_as_enabled = match content.pointer("/inputs/runAsEnabled") {
        Some(serde_json::Value::Bool(enabled)) => *enabled,
        Some(serde_json::Value::String(text)) => text.eq_ignore_ascii_case("true"),
        _ => false,
    };
    Ok(run_as_enabled)
}

/// A Parameter Store parameter: its full name and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: String,
    pub value: String,
}

/// Writes `value` to the `String` parameter `name`: created with `tags`, or overwritten when it exists (SSM takes
/// tags only on a create).
pub async fn put_parameter(
    client: &Client,
    name: &str,
    value: &str,
    tags: &BTreeMap<String, String>,
) -> Result<(), AwsError> {
    if create_parameter(client, name, value, tags).await? {
        return Ok(());
    }
    overwrite_parameter(client, name, value).await
}

/// Creates the `String` parameter `name` with `tags`: `false` (nothing written) when it exists already. SSM's
/// PutParameter without `Overwrite` is the atomic test-and-set: of two callers, one gets ParameterAlreadyExists.
pub async fn create_parameter(
    client: &Client,
    name: &str,
    value: &str,
    tags: &BTreeMap<String, String>,
) -> Result<bool, AwsError> {
    let tags: Vec<Tag> = tags
        .iter()
        .filter_map(|(key, value)| Tag::builder().key(key).value(value).build().ok())
        .collect();
    let created = client
        .put_parameter()
        .name(name)
        .value(value)
        .r#type(ParameterType::String)
        .set_tags((!tags.is_empty()).then_some(tags))
        .send()
        .await;
    match created {
        Ok(_) => Ok(true),
        Err(err) => {
            let err = api_error("PutParameter", err);
            if err.is(ErrorCode::ParameterAlreadyExists) {
                Ok(false)
            } else {
                Err(err)
            }
        }
    }
}

/// Overwrites the existing parameter `name` with `value` (its tags stay).
pub async fn overwrite_parameter(client: &Client, name: &str, value: &str) -> Result<(), AwsError> {
    client
        .put_parameter()
        .name(name)
        .value(value)
        .r#type(ParameterType::String)
        .overwrite(true)
        .send()
        .await
        .map(|_| ())
        .map_err(|err| api_error("PutParameter", err))
}

/// Parameter `name`, or `None` when there is none.
pub async fn find_parameter(client: &Client, name: &str) -> Result<Option<Parameter>, AwsError> {
    match client.get_parameter().name(name).send().await {
        Ok(output) => Ok(output.parameter().and_then(|parameter| {
            Some(Parameter {
                name: parameter.name()?.to_string(),
                value: parameter.value()?.to_string(),
            })
        })),
        Err(err) => {
            let err = api_error("GetParameter", err);
            if is_not_found_error(&err) { Ok(None) } else { Err(err) }
        }
    }
}

/// The parameters directly under `path` (not recursive), every page.
pub async fn parameters_by_path(client: &Client, path: &str) -> Result<Vec<Parameter>, AwsError> {
    let mut pages = client
        .get_parameters_by_path()
        .path(path)
        .recursive(false)
        .into_paginator()
        .send();
    let mut found = Vec::new();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("GetParametersByPath", err))?;
        for parameter in page.parameters() {
            if let (Some(name), Some(value)) = (parameter.name(), parameter.value()) {
                found.push(Parameter {
                    name: name.to_string(),
                    value: value.to_string(),
                });
            }
        }
    }
    Ok(found)
}

/// Deletes parameter `name`; one already gone counts as deleted.
pub async fn delete_parameter(client: &Client, name: &str) -> Result<(), AwsError> {
    match client.delete_parameter().name(name).send().await {
        Ok(_) => Ok(()),
        Err(err) => {
            let err = api_error("DeleteParameter", err);
            if is_not_found_error(&err) { Ok(()) } else { Err(err) }
        }
    }
}
