//! DataZone user and group profiles: the identities project memberships and policy grants name.
//!
//! DataZone keeps a membership or a grant principal under the member's *profile ID*, whatever identifier the request
//! named it by: ListProjectMemberships answers `memberDetails.user.userId` / `group.groupId`, ListPolicyGrants the
//! principal's `userIdentifier` / `groupIdentifier`, both as profile IDs. AWS's own CloudFormation handler for
//! `AWS::DataZone::ProjectMembership` resolves the identifier with GetUserProfile / GetGroupProfile and matches the
//! memberships on that ID; so does this provider.
//!
//! What AWS accepts as an identifier is documented loosely (a profile ID, an IAM ARN, an Identity Center ID; whether a
//! group *name* is one is not said). Resolution therefore asks only what is certain: an ID-shaped identifier (or a
//! user's IAM ARN) is read with Get*Profile; a name is looked up with Search*Profiles and matched exactly.

use aws_sdk_datazone::Client;
use aws_sdk_datazone::types::{GroupSearchType, UserProfileDetails, UserSearchType};

use super::{AwsError, api_error, not_found_as};

pub const USER_PROFILE: &str = "DataZone user profile";
pub const GROUP_PROFILE: &str = "DataZone group profile";

/// DataZone's `UserProfileId` / `GroupProfileId` (also the shape of Identity Center user and group IDs): a UUID,
/// optionally behind a 10-hex-digit identity store prefix.
pub fn is_profile_id(identifier: &str) -> bool {
    let hex = |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_hexdigit());
    let parts: Vec<&str> = identifier.split('-').collect();
    let uuid =
        |p: &[&str]| p.len() == 5 && hex(p[0], 8) && hex(p[1], 4) && hex(p[2], 4) && hex(p[3], 4) && hex(p[4], 12);
    match parts.len() {
        5 => uuid(&parts),
        6 => {
            parts[0].len() == 10
                && parts[0]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                && uuid(&parts[1..])
        }
        _ => false,
    }
}

fn is_iam_arn(identifier: &str) -> bool {
    identifier.starts_with("arn:") && identifier.contains(":iam::")
}

/// The profile ID of the user `identifier` names: a user profile ID or Identity Center user ID (GetUserProfile), an
/// IAM ARN (GetUserProfile), else an Identity Center user name (SearchUserProfiles, exact match). No such user is
/// the typed `NotFound`.
pub async fn resolve_user(client: &Client, domain_id: &str, identifier: &str) -> Result<String, AwsError> {
    if is_profile_id(identifier) || is_iam_arn(identifier) {
        let output = client
            .get_user_profile()
            .domain_identifier(domain_id)
            .user_identifier(identifier)
            .send()
            .await
            .map_err(|err| api_error("GetUserProfile", err))
            .map_err(|err| not_found_as(USER_PROFILE, identifier, err))?;
        return output.id().map(str::to_string).ok_or_else(|| AwsError::NotFound {
            kind: USER_PROFILE,
            id: identifier.to_string(),
        });
    }
    let mut pages = client
        .search_user_profiles()
        .domain_identifier(domain_id)
        .user_type(UserSearchType::DatazoneSsoUser)
        .search_text(identifier)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        let page = page.map_err(|err| api_error("SearchUserProfiles", err))?;
        let found = page.items().iter().find(|user| match user.details() {
            Some(UserProfileDetails::Sso(sso)) => sso.username() == Some(identifier),
            _ => false,
        });
        if let Some(id) = found.and_then(|user| user.id()) {
            return Ok(id.to_string());
        }
    }
    Err(AwsError::NotFound {
        kind: USER_PROFILE,
        id: identifier.to_string(),
    })
}

/// The profile ID of the group `identifier` names: a group profile ID or Identity Center group ID (GetGroupProfile),
/// else a group name (SearchGroupProfiles over Identity Center groups, then IAM-role-backed ones; exact match). No
/// such group is the typed `NotFound`.
pub async fn resolve_group(client: &Client, domain_id: &str, identifier: &str) -> Result<String, AwsError> {
    if is_profile_id(identifier) {
        let output = client
            .get_group_profile()
            .domain_identifier(domain_id)
            .group_identifier(identifier)
            .send()
            .await
            .map_err(|err| api_error("GetGroupProfile", err))
            .map_err(|err| not_found_as(GROUP_PROFILE, identifier, err))?;
        return output.id().map(str::to_string).ok_or_else(|| AwsError::NotFound {
            kind: GROUP_PROFILE,
            id: identifier.to_string(),
        });
    }
    for group_type in [GroupSearchType::DatazoneSsoGroup, GroupSearchType::IamRoleSessionGroup] {
        let mut pages = client
            .search_group_profiles()
            .domain_identifier(domain_id)
            .group_type(group_type)
            .search_text(identifier)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|err| api_error("SearchGroupProfiles", err))?;
            let found = page.items().iter().find(|group| group.group_name() == Some(identifier));
            if let Some(id) = found.and_then(|group| group.id()) {
                return Ok(id.to_string());
            }
        }
    }
    Err(AwsError::NotFound {
        kind: GROUP_PROFILE,
        id: identifier.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_ids_are_told_from_names_and_arns() {
        for id in [
            "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
            "9067a1b2c3-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
            "0F1E2D3C-4B5A-6978-8A9B-0C1D2E3F4A5B",
        ] {
            assert!(is_profile_id(id), "{id}");
        }
        for not_id in [
            "research-leads",
            "alice@example.com",
            "arn:aws:iam::123456789012:role/Admin",
            "0f1e2d3c-4b5a-6978-8a9b",
            "9067A1B2C3-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
            "zzzzzzzz-4b5a-6978-8a9b-0c1d2e3f4a5b",
            "",
        ] {
            assert!(!is_profile_id(not_id), "{not_id}");
        }
        assert!(is_iam_arn("arn:aws:iam::123456789012:role/Admin"));
        assert!(!is_iam_arn("alice@example.com"));
    }
}
