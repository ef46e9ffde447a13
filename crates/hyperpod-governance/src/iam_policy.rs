//! Static evaluation of IAM identity policies for PRJ-2: which forbidden actions (cluster lifecycle and governance
//! writes, `shared/research/aws-apis.md` §5) a role's policies allow, and in which statement.
//!
//! Deliberately conservative, since a missed grant is worse than a reviewed one: an Allow counts whatever its
//! Resource and Condition say (a grant on some cluster is still a lifecycle grant); a Deny clears an action only when
//! it is unconditional and covers every resource (`"Resource": "*"`). Permission boundaries and SCPs, which could
//! only narrow the grants, are not read.

use serde_json::Value;

use super::model::{PolicyDocument, RolePermissions};
use hyperpod_model::ids::Arn;

/// Cluster lifecycle actions (§5, LIFECYCLE): a project-facing role never holds them.
pub const LIFECYCLE_ACTIONS: &[&str] = &[
    "sagemaker:CreateCluster",
    "sagemaker:UpdateCluster",
    "sagemaker:DeleteCluster",
    "sagemaker:UpdateClusterSoftware",
    "sagemaker:BatchAddClusterNodes",
    "sagemaker:BatchDeleteClusterNodes",
    "sagemaker:BatchRebootClusterNodes",
    "sagemaker:BatchReplaceClusterNodes",
    "sagemaker:MoveClusterNodes",
    "sagemaker:StartClusterHealthCheck",
    "sagemaker:AttachClusterNodeVolume",
    "sagemaker:DetachClusterNodeVolume",
    "sagemaker:AttachClusterNodeNetworkInterface",
    "sagemaker:CreateClusterExtension",
    "sagemaker:UpdateClusterExtension",
    "sagemaker:DeleteClusterExtension",
];

/// Governance writes (§5, GOVERNANCE, plus the EKS access grants §5 also flags: a role that can create access
/// entries or associate access policies can grant itself cluster admin).
pub const GOVERNANCE_WRITE_ACTIONS: &[&str] = &[
    "sagemaker:CreateComputeQuota",
    "sagemaker:UpdateComputeQuota",
    "sagemaker:DeleteComputeQuota",
    "sagemaker:CreateClusterSchedulerConfig",
    "sagemaker:UpdateClusterSchedulerConfig",
    "sagemaker:DeleteClusterSchedulerConfig",
    "eks:CreateAccessEntry",
    "eks:AssociateAccessPolicy",
];

/// The AWS managed policy that grants `sagemaker:*`; judged by its ARN, whether or not its document was read.
pub const SAGEMAKER_FULL_ACCESS: &str = "AmazonSageMakerFullAccess";

pub fn forbidden_actions() -> impl Iterator<Item = &'static str> {
    LIFECYCLE_ACTIONS.iter().chain(GOVERNANCE_WRITE_ACTIONS).copied()
}

/// IAM action matching: case-insensitive, `*` any run of characters, `?` one character.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let text: Vec<char> = text.to_lowercase().chars().collect();
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and how much text it has swallowed so far: backtrack there on a mismatch.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Allow,
    Deny,
}

/// `Action` (the listed patterns) or `NotAction` (everything except them); the same for `Resource`/`NotResource`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Patterns {
    Listed(Vec<String>),
    AllExcept(Vec<String>),
}

impl Patterns {
    fn matches_action(&self, action: &str) -> bool {
        match self {
            Patterns::Listed(patterns) => patterns.iter().any(|p| wildcard_match(p, action)),
            Patterns::AllExcept(patterns) => !patterns.iter().any(|p| wildcard_match(p, action)),
        }
    }
    fn covers_every_resource(&self) -> bool {
        matches!(self, Patterns::Listed(patterns) if patterns.iter().any(|p| p == "*"))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// `Sid "X"`, or `Statement[i]` when it has no Sid.
    pub label: String,
    pub effect: Effect,
    pub actions: Patterns,
    pub resources: Patterns,
    pub conditional: bool,
}

fn strings(value: &Value, what: &str) -> Result<Vec<String>, String> {
    match value {
        Value::String(text) => Ok(vec![text.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or(format!("{what} holds a non-string"))
            })
            .collect(),
        _ => Err(format!("{what} is neither a string nor a list of strings")),
    }
}

fn patterns(statement: &Value, listed: &str, except: &str) -> Result<Option<Patterns>, String> {
    match (statement.get(listed), statement.get(except)) {
        (Some(_), Some(_)) => Err(format!("a statement has both {listed} and {except}")),
        (Some(value), None) => Ok(Some(Patterns::Listed(strings(value, listed)?))),
        (None, Some(value)) => Ok(Some(Patterns::AllExcept(strings(value, except)?))),
        (None, None) => Ok(None),
    }
}

/// Parses a policy document: `Statement` as one object or a list; the document itself may be a JSON string.
pub fn parse_policy(document: &Value) -> Result<Vec<Statement>, String> {
    if let Value::String(text) = document {
        let parsed: Value = serde_json::from_str(text).map_err(|err| format!("the policy is not JSON: {err}"))?;
        return parse_policy(&parsed);
    }
    let statements = match document.get("Statement") {
        Some(Value::Array(items)) => items.iter().collect::<Vec<_>>(),
        Some(item @ Value::Object(_)) => vec![item],
        _ => return Err("the policy has no Statement".to_string()),
    };
    statements
        .into_iter()
        .enumerate()
        .map(|(index, statement)| {
            let label = match statement.get("Sid").and_then(Value::as_str) {
                Some(sid) if !sid.is_empty() => format!("Sid {sid:?}"),
                _ => format!("Statement[{index}]"),
            };
            let effect = match statement.get("Effect").and_then(Value::as_str) {
                Some(effect) if effect.eq_ignore_ascii_case("allow") => Effect::Allow,
                Some(effect) if effect.eq_ignore_ascii_case("deny") => Effect::Deny,
                _ => return Err(format!("{label} has no Effect of Allow or Deny")),
            };
            let actions = patterns(statement, "Action", "NotAction")?
                .ok_or_else(|| format!("{label} has neither Action nor NotAction"))?;
            // A missing Resource is invalid in an identity policy; as an empty list it clears nothing in a Deny.
            let resources = patterns(statement, "Resource", "NotResource")?.unwrap_or(Patterns::Listed(Vec::new()));
            let conditional = statement
                .get("Condition")
                .is_some_and(|condition| !condition.is_null() && condition.as_object().is_none_or(|c| !c.is_empty()));
            Ok(Statement {
                label,
                effect,
                actions,
                resources,
                conditional,
            })
        })
        .collect()
}

/// One statement that allows forbidden actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// `inline policy "name"` or `managed policy arn:…`.
    pub policy: String,
    pub statement: String,
    pub actions: Vec<&'static str>,
    /// The managed policy's ARN (`None` for an inline policy): what the fix can change depends on who owns it.
    pub managed_arn: Option<String>,
}

impl Grant {
    /// An AWS managed policy (account `aws`): it cannot be edited, only detached.
    pub fn is_aws_managed(&self) -> bool {
        self.managed_arn
            .as_deref()
            .and_then(|arn| Arn::parse(arn).ok())
            .is_some_and(|arn| arn.account == "aws")
    }
}

/// What evaluating a role found: the grants, and the policies that could not be read or parsed (so a clean result
/// with unreadable policies is "not verified", not "passed").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluation {
    pub grants: Vec<Grant>,
    pub unreadable: Vec<String>,
}

fn is_full_access(policy: &PolicyDocument) -> bool {
    policy
        .managed_arn
        .as_deref()
        .and_then(|arn| Arn::parse(arn).ok())
        .is_some_and(|arn| {
            arn.service == "iam" && arn.account == "aws" && arn.resource == format!("policy/{SAGEMAKER_FULL_ACCESS}")
        })
}

fn policy_label(policy: &PolicyDocument) -> String {
    match &policy.managed_arn {
        Some(arn) => format!("managed policy {arn}"),
        None => format!("inline policy {:?}", policy.name),
    }
}

/// The forbidden actions the role's policies allow, by statement, after unconditional all-resource Denies.
pub fn forbidden_grants(role: &RolePermissions) -> Evaluation {
    let (statements, unreadable) = role_statements(role);
    let mut evaluation = Evaluation {
        unreadable,
        ..Evaluation::default()
    };
    for action in forbidden_actions() {
        if !denied_everywhere(&statements, action) {
            record_allowing_statements(&mut evaluation.grants, &statements, action);
        }
    }
    evaluation
}

/// A statement with the policy it is in: that policy's label and its managed ARN (`None` when inline).
type SourcedStatement = (String, Option<String>, Statement);

/// Every statement of the role's policies, and why the policies that could not be read or parsed were not.
fn role_statements(role: &RolePermissions) -> (Vec<SourcedStatement>, Vec<String>) {
    let mut statements: Vec<SourcedStatement> = Vec::new();
    let mut unreadable = Vec::new();
    for policy in &role.policies {
        let label = policy_label(policy);
        let managed = policy.managed_arn.clone();
        if is_full_access(policy) {
            // Judged by its ARN: AWS can change the document, and it may not have been read.
            statements.push((label, managed, full_access_statement()));
            continue;
        }
        if policy.document.is_null() {
            unreadable.push(format!("{label}: its document was not read"));
            continue;
        }
        match parse_policy(&policy.document) {
            Ok(parsed) => statements.extend(
                parsed
                    .into_iter()
                    .map(|statement| (label.clone(), managed.clone(), statement)),
            ),
            Err(err) => unreadable.push(format!("{label}: {err}")),
        }
    }
    (statements, unreadable)
}

/// What AmazonSageMakerFullAccess is judged to allow, whatever its current document says.
fn full_access_statement() -> Statement {
    Statement {
        label: format!("{SAGEMAKER_FULL_ACCESS} grants sagemaker:*"),
        effect: Effect::Allow,
        actions: Patterns::Listed(vec!["sagemaker:*".into()]),
        resources: Patterns::Listed(vec!["*".into()]),
        conditional: false,
    }
}

/// Whether an unconditional Deny on every resource takes `action` away, whatever the Allows say.
fn denied_everywhere(statements: &[SourcedStatement], action: &str) -> bool {
    statements.iter().any(|(_, _, s)| {
        s.effect == Effect::Deny
            && !s.conditional
            && s.actions.matches_action(action)
            && s.resources.covers_every_resource()
    })
}

/// Adds `action` to the grant of every Allow statement that matches it, recording the statement's grant first when
/// it has none yet.
fn record_allowing_statements(grants: &mut Vec<Grant>, statements: &[SourcedStatement], action: &'static str) {
    for (policy, managed_arn, statement) in statements
        .iter()
        .filter(|(_, _, s)| s.effect == Effect::Allow && s.actions.matches_action(action))
    {
        match grants
            .iter_mut()
            .find(|grant| &grant.policy == policy && grant.statement == statement.label)
        {
            Some(grant) => grant.actions.push(action),
            None => grants.push(Grant {
                policy: policy.clone(),
                statement: statement.label.clone(),
                actions: vec![action],
                managed_arn: managed_arn.clone(),
            }),
        }
    }
}

#[cfg(test)]
#[path = "iam_policy_tests.rs"]
mod tests;
