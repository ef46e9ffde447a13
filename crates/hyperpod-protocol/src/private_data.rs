//! The provider's private data of an object: a JSON object of named entries that Terraform keeps beside the state
//! (or the plan), never shows, and hands back. Each entry belongs to one module: the write-only digest and the
//! replaced object (`plan`), refusals (`refusal`), checks left to apply (`deferred`). Bytes that are not such an
//! object are kept as they are by a removal and dropped by an insertion.

use serde_json::{Map, Value as Json};

fn fields(private: &[u8]) -> Option<Map<String, Json>> {
    serde_json::from_slice(private).ok()
}

fn to_bytes(fields: Map<String, Json>) -> Vec<u8> {
    if fields.is_empty() {
        Vec::new()
    } else {
        Json::Object(fields).to_string().into_bytes()
    }
}

/// `private` with `key` set to `value` (replacing what it held).
pub fn with(private: &[u8], key: &str, value: Json) -> Vec<u8> {
    let mut fields = fields(private).unwrap_or_default();
    fields.insert(key.to_string(), value);
    to_bytes(fields)
}

/// What `private` holds at `key`.
pub fn get(private: &[u8], key: &str) -> Option<Json> {
    fields(private)?.remove(key)
}

/// `private` without `key`, and what it held there; `private` unchanged when it holds nothing there.
pub fn take(private: &[u8], key: &str) -> (Option<Json>, Vec<u8>) {
    let Some(mut fields) = fields(private) else {
        return (None, private.to_vec());
    };
    match fields.remove(key) {
        Some(value) => (Some(value), to_bytes(fields)),
        None => (None, private.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_set_read_and_taken_beside_the_others() {
        let one = with(b"", "a", Json::from(1));
        let both = with(&one, "b", Json::from("x"));
        assert_eq!(get(&both, "a"), Some(Json::from(1)));
        assert_eq!(take(&both, "b"), (Some(Json::from("x")), one.clone()));
        assert_eq!(take(&one, "a"), (Some(Json::from(1)), Vec::new()));
        assert_eq!(take(&one, "z"), (None, one.clone()));
        assert_eq!(take(b"not json", "a"), (None, b"not json".to_vec()));
        assert_eq!(get(b"", "a"), None);
    }
}
