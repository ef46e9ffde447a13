//! Session Manager preferences: the account- and region-wide `SSM-SessionManagerRunShell` document.

use aws_sdk_ssm::Client;

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
