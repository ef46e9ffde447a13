//! Newtypes for AWS identifiers, validated once where they enter the provider.

use std::fmt;

/// A 12-digit AWS account ID.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccountId(String);

impl AccountId {
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(text.to_string()))
        } else {
            Err(format!("{text:?} is not an AWS account ID (12 digits)"))
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An ARN split into its parts: `arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arn {
    pub partition: String,
    pub service: String,
    pub region: String,
    pub account: String,
    pub resource: String,
}

impl Arn {
    pub fn parse(text: &str) -> Result<Self, String> {
        let parts: Vec<&str> = text.splitn(6, ':').collect();
        match parts.as_slice() {
            ["arn", partition, service, region, account, resource]
                if !partition.is_empty() && !service.is_empty() && !resource.is_empty() =>
            {
                Ok(Self {
                    partition: partition.to_string(),
                    service: service.to_string(),
                    region: region.to_string(),
                    account: account.to_string(),
                    resource: resource.to_string(),
                })
            }
            _ => Err(format!(
                "{text:?} is not an ARN (arn:partition:service:region:account:resource)"
            )),
        }
    }
    /// The last path segment of `text`'s resource when it is an ARN (`arn:aws:eks:...:cluster/ml` → `ml`), else
    /// `text` itself: a name given where an ARN may stand.
    pub fn resource_id_of(text: &str) -> String {
        Self::parse(text).map_or_else(|_| text.to_string(), |arn| arn.resource_id().to_string())
    }
    /// The last path segment of the resource, e.g. the id in `cluster/abc123def456`.
    pub fn resource_id(&self) -> &str {
        self.resource.rsplit(['/', ':']).next().unwrap_or(&self.resource)
    }
    /// `arn:<partition>:iam::<account>:role/<name>`.
    pub fn iam_role(partition: &str, account: &str, name: &str) -> String {
        format!("arn:{partition}:iam::{account}:role/{name}")
    }
    /// `arn:<partition>:eks::aws:cluster-access-policy/<name>`: an EKS access policy (AWS owns them all).
    pub fn eks_access_policy(partition: &str, name: &str) -> String {
        format!("arn:{partition}:eks::aws:cluster-access-policy/{name}")
    }
}

impl fmt::Display for Arn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "arn:{}:{}:{}:{}:{}",
            self.partition, self.service, self.region, self.account, self.resource
        )
    }
}

/// A region name such as `us-west-2`; the partition follows from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionName(String);

impl RegionName {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.split('-');
        let well_formed = parts.clone().count() >= 3
            && parts
                .next()
                .is_some_and(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_lowercase()))
            && text
                .rsplit('-')
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if well_formed {
            Ok(Self(text.to_string()))
        } else {
            Err(format!("{text:?} is not an AWS region name such as \"us-west-2\""))
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    pub fn partition(&self) -> &'static str {
        if self.0.starts_with("cn-") {
            "aws-cn"
        } else if self.0.starts_with("us-gov-") {
            "aws-us-gov"
        } else if self.0.starts_with("us-iso-") {
            "aws-iso"
        } else if self.0.starts_with("us-isob-") {
            "aws-iso-b"
        } else {
            "aws"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_ids_are_twelve_digits() {
        assert!(AccountId::parse("123456789012").is_ok());
        assert!(AccountId::parse("12345678901").is_err());
        assert!(AccountId::parse("12345678901a").is_err());
    }

    #[test]
    fn arns_split_and_rejoin() {
        let arn = Arn::parse("arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef123456").unwrap();
        assert_eq!(arn.service, "sagemaker");
        assert_eq!(arn.resource_id(), "abcdef123456");
        assert_eq!(
            arn.to_string(),
            "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef123456"
        );
        let role = Arn::parse("arn:aws:iam::123456789012:role/team/sub/x").unwrap();
        assert_eq!(role.region, "");
        assert_eq!(role.resource_id(), "x");
        assert!(Arn::parse("not-an-arn").is_err());
    }

    #[test]
    fn regions_and_partitions() {
        assert_eq!(RegionName::parse("us-west-2").unwrap().partition(), "aws");
        assert_eq!(RegionName::parse("cn-north-1").unwrap().partition(), "aws-cn");
        assert_eq!(RegionName::parse("us-gov-west-1").unwrap().partition(), "aws-us-gov");
        assert!(RegionName::parse("uswest2").is_err());
        assert!(RegionName::parse("US-WEST-2").is_err());
    }
}
