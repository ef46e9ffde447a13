//! Validators for AWS-shaped values (ARNs, account IDs, regions, CIDRs, rule IDs), shared by the provider block and
//! the resources. They check form only; whether the thing exists is a plan-time check against AWS.

use std::str::FromStr;

use crate::aws::ids::{AccountId, Arn, RegionName};
use crate::governance::RuleId;
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
