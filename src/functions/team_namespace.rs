//! `provider::hyperpod::team_namespace(team)`: the Kubernetes namespace HyperPod task governance creates for a team.

use crate::protocol::resource::{Function, FunctionError};
use crate::protocol::schema::{FunctionParameter, FunctionSignature};
use crate::protocol::validators::Matches;
use crate::protocol::value::{Type, Value};

pub struct TeamNamespace {
    signature: FunctionSignature,
    team_name: Matches,
}

impl Default for TeamNamespace {
    fn default() -> Self {
        Self {
            signature: FunctionSignature {
                summary: "The namespace HyperPod creates for a team.".to_string(),
                description: "Returns `hyperpod-ns-<team>`, the Kubernetes namespace that HyperPod task governance \
                              creates with a team's compute quota, after checking the team name is one SageMaker \
                              accepts."
                    .to_string(),
                parameters: vec![FunctionParameter {
                    name: "team",
                    ty: Type::String,
                    description: "Team name: 1 to 40 lowercase letters, digits and hyphens.".to_string(),
                }],
                return_type: Type::String,
            },
            // SageMaker's `TeamName` (the model also caps it at 40 characters; the pattern alone does not).
            team_name: Matches::new(crate::names::TEAM_NAME, "1 to 40 lowercase letters, digits and hyphens"),
        }
    }
}

impl Function for TeamNamespace {
    fn name(&self) -> &'static str {
        "team_namespace"
    }

    fn signature(&self) -> &FunctionSignature {
        &self.signature
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        match arguments.first() {
            Some(Value::String(team)) if team.len() <= 40 && self.team_name.is_match(team) => {
                Ok(Value::String(crate::names::team_namespace(team)))
            }
            Some(Value::String(team)) => Err(FunctionError {
                text: format!(
                    "{team:?} is not a valid team name: use 1 to 40 lowercase letters, digits and hyphens, starting \
                     and ending with a letter or digit"
                ),
                argument: Some(0),
            }),
            _ => Err(FunctionError {
                text: "team must be a string".to_string(),
                argument: Some(0),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_namespace_and_refuses_bad_names() {
        let function = TeamNamespace::default();
        assert_eq!(
            function.call(&[Value::String("research".into())]).ok(),
            Some(Value::String("hyperpod-ns-research".into()))
        );
        let err = function.call(&[Value::String("Research_Team".into())]).err().unwrap();
        assert_eq!(err.argument, Some(0));
        assert!(function.call(&[Value::String("a".repeat(41))]).is_err());
    }
}
