//! Validators for AWS-shaped values (ARNs, account IDs, regions, CIDRs, rule IDs), shared by the provider block and
//! the resources. They check form only; whether the thing exists is a plan-time check against AWS.

use std::str::FromStr;
use std::sync::OnceLock;

use crate::governance::RuleId;
use crate::ids::{AccountId, Arn, RegionName};
use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::schema::Validator;
use crate::protocol::validators::each_string;
use crate::protocol::value::Value;

pub struct IsRegion;
impl Validator for IsRegion {
    fn description(&self) -> String {
        "A region name such as `us-west-2`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        if let Value::String(text) = value
            && let Err(problem) = RegionName::parse(text)
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                &problem,
                "use a region name such as \"us-west-2\"",
            ));
        }
    }
}

pub struct IsArn;
impl Validator for IsArn {
    fn description(&self) -> String {
        "A full ARN, e.g. `arn:aws:iam::123456789012:role/terraform`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        // A single ARN, or each element of a list of them.
        each_string(value, |text| {
            if let Err(problem) = Arn::parse(text) {
                diagnostics.push(Diagnostic::invalid_value(
                    path.clone(),
                    format!("{text:?}"),
                    &problem,
                    "use a full ARN such as \"arn:aws:iam::123456789012:role/name\"",
                ));
            }
        });
    }
}

pub struct IsUrl;
impl Validator for IsUrl {
    fn description(&self) -> String {
        "An `http://` or `https://` URL.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        if let Value::String(text) = value
            && !(text.starts_with("https://") || text.starts_with("http://"))
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "the value is not a URL",
                "use a URL such as \"https://sagemaker.us-west-2.amazonaws.com\"",
            ));
        }
    }
}

pub struct AccountIds;
impl Validator for AccountIds {
    fn description(&self) -> String {
        "Each a 12-digit account ID.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        // Set elements have no index Terraform can point at, so the diagnostic names the set and the element.
        each_string(value, |text| {
            if let Err(problem) = AccountId::parse(text) {
                diagnostics.push(Diagnostic::invalid_value(
                    path.clone(),
                    format!("{text:?}"),
                    &problem,
                    "use the 12-digit account ID",
                ));
            }
        });
    }
}

pub struct IsAccountId;
impl Validator for IsAccountId {
    fn description(&self) -> String {
        "A 12-digit account ID.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        if let Value::String(text) = value
            && let Err(problem) = AccountId::parse(text)
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                &problem,
                "use the 12-digit account ID",
            ));
        }
    }
}

/// Each element of a list of strings is an IPv4 or IPv6 CIDR block.
pub struct IsCidr;
impl Validator for IsCidr {
    fn description(&self) -> String {
        "Each an IPv4 or IPv6 CIDR block, e.g. `203.0.113.0/24`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        each_string(value, |text| {
            if crate::governance::Cidr::parse(text).is_err() {
                diagnostics.push(Diagnostic::invalid_value(
                    path.clone(),
                    format!("{text:?}"),
                    "the value is not a CIDR block",
                    "write an address and prefix length, e.g. \"203.0.113.0/24\"",
                ));
            }
        });
    }
}

/// A rule ID from the governance catalog, e.g. `WKL-8`.
pub struct RuleIds;
impl Validator for RuleIds {
    fn description(&self) -> String {
        "A rule ID from the governance catalog, e.g. `WKL-8`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        if let Value::String(text) = value
            && RuleId::from_str(text).is_err()
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                "no rule has this ID",
                "use an ID from the rule catalog (docs/index.md), e.g. \"WKL-8\"",
            ));
        }
    }
}

/// What AWS accepts as tags on the objects the provider writes (IAM, SageMaker, EKS and KMS models agree): at most
/// 50, keys of 1 to 128 and values of at most 256 characters from the tag character set, and no key starting with
/// `aws:` (reserved by AWS, in any case). Each problem is reported at its element, `tags["aws:x"]`.
pub struct AwsTags;

/// AWS's tag count limit per resource (`TagList`/`TagMap` max in the service models).
pub const MAX_TAGS: usize = 50;
/// `TagKey`: 1–128 characters. `TagValue`: 0–256.
pub const MAX_TAG_KEY: usize = 128;
pub const MAX_TAG_VALUE: usize = 256;

/// Whether every character is in the IAM and SageMaker models' TagKey/TagValue set, `[\p{L}\p{Z}\p{N}_.:/=+\-@]`
/// (EKS and KMS accept at least these). Spelled with `char` properties, as the crate's regex has no general
/// categories: `is_alphanumeric` also admits the few combining marks Unicode counts as alphabetic.
fn tag_characters(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_alphanumeric() || (c.is_whitespace() && !c.is_control()) || "_.:/=+-@".contains(c))
}

/// The problems AWS would have with one tag, as (problem, fix) pairs: empty when it is fine.
pub fn tag_problems(key: &str, value: &str) -> Vec<(String, &'static str)> {
    let mut problems = Vec::new();
    let key_length = key.chars().count();
    if !(1..=MAX_TAG_KEY).contains(&key_length) {
        problems.push((
            format!("a tag key has 1 to {MAX_TAG_KEY} characters, this one {key_length}"),
            "shorten the key",
        ));
    }
    if key.get(..4).is_some_and(|prefix| prefix.eq_ignore_ascii_case("aws:")) {
        problems.push((
            "tag keys starting with \"aws:\" are reserved for AWS".to_string(),
            "use a key without the aws: prefix",
        ));
    }
    if !tag_characters(key) {
        problems.push((
            "the key has a character AWS does not accept in tags".to_string(),
            "use letters, digits, spaces and _ . : / = + - @ only",
        ));
    }
    let value_length = value.chars().count();
    if value_length > MAX_TAG_VALUE {
        problems.push((
            format!("a tag value has at most {MAX_TAG_VALUE} characters, this one {value_length}"),
            "shorten the value",
        ));
    }
    if !tag_characters(value) {
        problems.push((
            "the value has a character AWS does not accept in tags".to_string(),
            "use letters, digits, spaces and _ . : / = + - @ only",
        ));
    }
    problems
}

impl Validator for AwsTags {
    fn description(&self) -> String {
        format!(
            "At most {MAX_TAGS} tags; keys of 1 to {MAX_TAG_KEY} and values of at most {MAX_TAG_VALUE} letters, \
             digits, spaces and `_ . : / = + - @`; no key starting with `aws:`."
        )
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::Map(tags) = value else { return };
        if tags.len() > MAX_TAGS {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{} tags", tags.len()),
                &format!("AWS accepts at most {MAX_TAGS} tags on an object"),
                "remove tags (the provider's default_tags count too)",
            ));
        }
        for (key, tag) in tags {
            let Value::String(text) = tag else { continue };
            for (problem, fix) in tag_problems(key, text) {
                diagnostics.push(Diagnostic::invalid_value(
                    path.key(key),
                    format!("{key:?} = {text:?}"),
                    &problem,
                    fix,
                ));
            }
        }
    }
}

/// A number of at most `max` (the service model's bound, e.g. SageMaker's 10,000,000 vCPU or GiB in a quota).
pub struct AtMost(pub f64);
impl Validator for AtMost {
    fn description(&self) -> String {
        format!("At most {}.", self.0)
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::Number(number) = value else { return };
        if number.as_f64() > self.0 {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                number.as_str(),
                &format!("AWS accepts at most {}", self.0),
                &format!("use an amount of at most {}", self.0),
            ));
        }
    }
}

/// A list of at most `n` elements (the service model's list bound, e.g. 15 absolute borrow limits).
pub struct ListAtMost(pub i64);
impl Validator for ListAtMost {
    fn description(&self) -> String {
        format!("At most {} entries.", self.0)
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let (Value::List(items) | Value::Set(items)) = value else {
            return;
        };
        if items.len() as i64 > self.0 {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{} entries", items.len()),
                &format!("AWS accepts at most {}", self.0),
                &format!("write at most {} entries (one per instance type)", self.0),
            ));
        }
    }
}

/// Each element of a list of strings, with its index, for validators that point at the element.
fn each_element(value: &Value, path: &AttributePath, mut f: impl FnMut(AttributePath, &str)) {
    if let Value::List(items) = value {
        for (index, item) in items.iter().enumerate() {
            if let Value::String(text) = item {
                f(path.index(index), text);
            }
        }
    }
}

/// Kubernetes group names as EKS access entries and RBAC subjects take them: not empty, and not `system:`
/// (EKS refuses groups in the reserved `system:` namespace).
pub struct KubernetesGroups;
impl Validator for KubernetesGroups {
    fn description(&self) -> String {
        "Each a non-empty group name not starting with `system:`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        each_element(value, path, |at, text| {
            let problem = if text.trim().is_empty() {
                "a Kubernetes group name cannot be empty"
            } else if text.starts_with("system:") {
                "groups starting with \"system:\" are reserved for Kubernetes; EKS refuses them in access entries"
            } else if text.chars().any(char::is_control) {
                "a group name cannot contain control characters"
            } else {
                return;
            };
            diagnostics.push(Diagnostic::invalid_value(
                at,
                format!("{text:?}"),
                problem,
                "name the group, e.g. \"research-viewers\"",
            ));
        });
    }
}

/// An IAM policy document as AWS parses one: JSON, an object with a `Statement`, printable characters only, and
/// at most `max` characters (STS's session policy: 2048; IAM inline policies: 10,240 for a role in all).
pub struct IamPolicyDocument {
    pub max: usize,
}
impl Validator for IamPolicyDocument {
    fn description(&self) -> String {
        format!(
            "An IAM policy document (JSON with a `Statement`) of at most {} characters.",
            self.max
        )
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        let mut fail = |observed: String, problem: &str| {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                observed,
                problem,
                "write the policy with jsonencode({ Version = \"2012-10-17\", Statement = [...] })",
            ));
        };
        let length = text.chars().count();
        if length > self.max {
            fail(
                format!("{length} characters"),
                &format!("AWS accepts a policy of at most {} characters", self.max),
            );
            return;
        }
        // policyDocumentType: tab, newline, carriage return and U+0020–U+00FF.
        if let Some(bad) = text
            .chars()
            .find(|c| !matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{ff}'))
        {
            fail(
                format!("the character {bad:?}"),
                "AWS accepts only printable Latin-1 characters in a policy",
            );
            return;
        }
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(document)) if document.contains_key("Statement") => {}
            Ok(_) => fail(
                truncated(text),
                "the document is JSON but not an IAM policy (an object with a \"Statement\")",
            ),
            Err(err) => fail(truncated(text), &format!("the document is not JSON ({err})")),
        }
    }
}

fn truncated(text: &str) -> String {
    let head: String = text.chars().take(60).collect();
    if head.len() < text.len() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// S3 bucket names (general purpose buckets): 3–63 lowercase letters, digits, dots and hyphens, starting and
/// ending with a letter or digit. A name that is not one makes an IAM policy that grants nothing.
pub struct S3BucketNames;
impl Validator for S3BucketNames {
    fn description(&self) -> String {
        "Each an S3 bucket name: 3 to 63 lowercase letters, digits, `.` and `-`.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        static BUCKET: OnceLock<regex::Regex> = OnceLock::new();
        let bucket = BUCKET.get_or_init(|| {
            regex::Regex::new(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$").unwrap_or_else(|err| panic!("{err}"))
        });
        each_element(value, path, |at, text| {
            if !bucket.is_match(text) || text.contains("..") {
                diagnostics.push(Diagnostic::invalid_value(
                    at,
                    format!("{text:?}"),
                    "the value is not an S3 bucket name",
                    "use the bucket's name (3 to 63 lowercase letters, digits, `.` and `-`), not its ARN or URL",
                ));
            }
        });
    }
}

/// KMS key ARNs (`arn:<partition>:kms:<region>:<account>:key/<id>`): CreateGrant takes a key ID or key ARN, never
/// an alias.
pub struct KmsKeyArns;
impl Validator for KmsKeyArns {
    fn description(&self) -> String {
        "Each a KMS key ARN, `arn:aws:kms:<region>:<account>:key/<key id>` (not an alias).".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        each_element(value, path, |at, text| {
            let is_key = Arn::parse(text).ok().is_some_and(|arn| {
                arn.service == "kms"
                    && arn
                        .resource
                        .strip_prefix("key/")
                        .is_some_and(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            });
            if !is_key {
                diagnostics.push(Diagnostic::invalid_value(
                    at,
                    format!("{text:?}"),
                    "the value is not a KMS key ARN (KMS grants take a key, not an alias)",
                    "use the key's ARN, e.g. \"arn:aws:kms:us-west-2:123456789012:key/1a2b3c4d-...\"",
                ));
            }
        });
    }
}

/// IAM principal ARNs as EKS, STS and IAM policies take them: `arn:<partition>:iam::<account>:role/<path/name>`
/// (or `user/`, unless `roles_only`), the name in IAM's character set; and, in a list, each principal once.
pub struct IamPrincipalArns {
    pub roles_only: bool,
}
impl IamPrincipalArns {
    fn problem(&self, text: &str) -> Option<&'static str> {
        let Ok(arn) = Arn::parse(text) else {
            return Some("the value is not an ARN");
        };
        let name = arn
            .resource
            .strip_prefix("role/")
            .or_else(|| (!self.roles_only).then(|| arn.resource.strip_prefix("user/")).flatten());
        match name {
            _ if arn.service != "iam" => Some("the ARN is not an IAM principal's"),
            None if self.roles_only => Some("the ARN is not an IAM role's"),
            None => Some("the ARN is not an IAM role's or user's"),
            Some(name)
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_+=,.@/-".contains(c)) =>
            {
                Some("the name has characters IAM does not allow (letters, digits and _ + = , . @ / - only)")
            }
            Some(_) => None,
        }
    }
}
impl Validator for IamPrincipalArns {
    fn description(&self) -> String {
        if self.roles_only {
            "An IAM role ARN, `arn:aws:iam::<account>:role/<name>`.".to_string()
        } else {
            "Each an IAM role or user ARN, listed once.".to_string()
        }
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let fix = "use the principal's ARN, e.g. \"arn:aws:iam::123456789012:role/research-viewers\"";
        if let Value::String(text) = value
            && let Some(problem) = self.problem(text)
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("{text:?}"),
                problem,
                fix,
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        each_element(value, path, |at, text| {
            if let Some(problem) = self.problem(text) {
                diagnostics.push(Diagnostic::invalid_value(at, format!("{text:?}"), problem, fix));
            } else if !seen.insert(text.to_string()) {
                diagnostics.push(Diagnostic::invalid_value(
                    at,
                    format!("{text:?}"),
                    "the principal is listed twice (EKS keeps one access entry per principal)",
                    "list each principal once",
                ));
            }
        });
    }
}

/// A list with at least one element (Kubernetes refuses a Role rule without verbs).
pub struct NotEmpty;
impl Validator for NotEmpty {
    fn description(&self) -> String {
        "At least one element.".to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        if let Value::List(items) | Value::Set(items) = value
            && items.is_empty()
        {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                "[]",
                "the list cannot be empty",
                "list at least one element, or leave the argument out for its default",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::object::text;

    fn errors_of(validator: &dyn Validator, value: &Value) -> Vec<String> {
        let mut diagnostics = Diagnostics::new();
        validator.validate(&AttributePath::attr("tags"), value, &mut diagnostics);
        diagnostics.iter().map(|d| d.path.to_string()).collect()
    }

    fn tags(pairs: &[(&str, &str)]) -> Value {
        Value::Map(pairs.iter().map(|(k, v)| (k.to_string(), text(*v))).collect())
    }

    #[test]
    fn tags_are_judged_per_element_as_aws_judges_them() {
        assert!(
            errors_of(
                &AwsTags,
                &tags(&[("team", "research"), ("cost-center", "ML/42 @ x=y+z:é")])
            )
            .is_empty()
        );
        assert_eq!(
            errors_of(&AwsTags, &tags(&[("aws:x", "v"), ("AWS:y", "v"), ("ok", "v")])).len(),
            2
        );
        let long_key = "k".repeat(129);
        assert_eq!(errors_of(&AwsTags, &tags(&[(&long_key, "v")])).len(), 1);
        assert_eq!(errors_of(&AwsTags, &tags(&[("k", &"v".repeat(257))])).len(), 1);
        assert!(errors_of(&AwsTags, &tags(&[("k", &"v".repeat(256))])).is_empty());
        assert_eq!(errors_of(&AwsTags, &tags(&[("a#b", "v"), ("c", "bell\u{7}")])).len(), 2);
        assert_eq!(errors_of(&AwsTags, &tags(&[("", "v")])).len(), 1);
        let many: Vec<(String, String)> = (0..51).map(|i| (format!("k{i}"), "v".to_string())).collect();
        let many = Value::Map(many.into_iter().map(|(k, v)| (k, text(v))).collect());
        assert_eq!(errors_of(&AwsTags, &many), ["tags"]);
    }

    #[test]
    fn policy_documents_groups_buckets_and_keys() {
        let policy = |s: &str| errors_of(&IamPolicyDocument { max: 2048 }, &text(s)).len();
        assert_eq!(policy(r#"{"Version":"2012-10-17","Statement":[]}"#), 0);
        assert_eq!(policy("{not json"), 1);
        assert_eq!(policy(r#"{"a":1}"#), 1);
        assert_eq!(policy(&format!(r#"{{"Statement":"{}"}}"#, "x".repeat(2100))), 1);
        let list = |items: &[&str]| Value::List(items.iter().map(|s| text(*s)).collect());
        assert_eq!(
            errors_of(&KubernetesGroups, &list(&["ok", "", "system:masters"])).len(),
            2
        );
        assert_eq!(
            errors_of(&S3BucketNames, &list(&["research-data", "Research_Data", "ab"])).len(),
            2
        );
        assert_eq!(
            errors_of(
                &KmsKeyArns,
                &list(&[
                    "arn:aws:kms:us-west-2:123456789012:key/1a2b",
                    "arn:aws:kms:us-west-2:123456789012:alias/x"
                ])
            )
            .len(),
            1
        );
    }
}
