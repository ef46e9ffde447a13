//! Comparing IAM identities by ARN: roles are the same role when account and role name agree, whatever their path
//! (role names are unique per account and case-insensitive, so `role/service-role/x` and `role/X` are one role).

use hyperpod_model::ids::{AccountId, Arn};

/// Why `text` is not an IAM role ARN (`arn:<partition>:iam::<12 digits>:role/<path/>name`), if it is not.
pub fn role_arn_problem(text: &str) -> Option<String> {
    match Arn::parse(text) {
        Err(err) => Some(err),
        Ok(arn) if arn.service != "iam" || !arn.resource.starts_with("role/") || arn.resource.len() <= 5 => Some(
            format!("{text:?} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)"),
        ),
        Ok(arn) => AccountId::parse(&arn.account).err(),
    }
}

/// `(account, lowercase role name)` of a role ARN or an STS assumed-role ARN (`assumed-role/<role>/<session>`).
pub fn role_identity(text: &str) -> Option<(String, String)> {
    let arn = Arn::parse(text.trim()).ok()?;
    let name = match arn.service.as_str() {
        "iam" => arn.resource.strip_prefix("role/")?.rsplit('/').next()?,
        "sts" => arn.resource.strip_prefix("assumed-role/")?.split('/').next()?,
        _ => return None,
    };
    (!name.is_empty()).then(|| (arn.account.clone(), name.to_ascii_lowercase()))
}

/// The role name of a role ARN, without its path (`role/service-role/x` → `x`).
pub fn role_name(text: &str) -> Option<&str> {
    let (_, resource) = text.trim().split_once(":role/")?;
    resource.rsplit('/').next().filter(|name| !name.is_empty())
}

/// Whether two ARNs name the same role; unparseable ARNs are compared as text.
pub fn same_role(a: &str, b: &str) -> bool {
    match (role_identity(a), role_identity(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a.trim() == b.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_arns_are_validated() {
        assert!(role_arn_problem("arn:aws:iam::111122223333:role/team/x").is_none());
        assert!(role_arn_problem("arn:aws:iam::111122223333:role/").is_some());
        assert!(role_arn_problem("arn:aws:iam::1111:role/x").is_some());
        assert!(role_arn_problem("arn:aws:iam::111122223333:user/x").is_some());
        assert!(role_arn_problem("arn:aws:sts::111122223333:assumed-role/x/s").is_some());
    }

    #[test]
    fn roles_compare_by_account_and_name() {
        let role = "arn:aws:iam::111122223333:role/service-role/Project";
        assert!(same_role(role, "arn:aws:iam::111122223333:role/project"));
        assert!(same_role(role, "arn:aws:sts::111122223333:assumed-role/Project/alice"));
        assert!(!same_role(role, "arn:aws:iam::444455556666:role/Project"));
        assert!(!same_role(role, "arn:aws:iam::111122223333:role/other"));
        assert!(same_role("not-an-arn", " not-an-arn "));
        assert_eq!(role_identity("arn:aws:iam::111122223333:user/alice"), None);
    }
}
