//! EXC-1: the exceptions themselves. A valid exception (owned, unexpired) turns its rule's failure into `excepted`
//! with the exception named (`Report::with_exceptions`); an invalid one waives nothing and fails here.

use time::Date;

use super::catalog::RuleId;
use super::contract::blank;
use super::finding::{Check, Finding};
use super::model::Contract;
use super::paths::contract as path;

/// EXC-1: every exception names an owner and an unexpired expiry date, and none waives EXC-1.
pub fn exc_1(contract: &Contract, today: Date) -> Check {
    let rule = RuleId::Exc1;
    let mut findings = Vec::new();
    for (index, exception) in contract.exceptions.iter().enumerate() {
        let waived = exception.rule.id();
        if blank(&exception.owner) {
            findings.push(Finding {
                path: path::exception(index, "owner"),
                observed: format!("the {waived} exception has owner {:?}", exception.owner),
                problem: "an exception without an owner has nobody accountable for it".into(),
                fix: "name the person or team accountable for the exception".into(),
                ..Finding::of(rule)
            });
        }
        if exception.expires < today {
            findings.push(Finding {
                path: path::exception(index, "expires"),
                observed: format!("the {waived} exception expired on {}", exception.expires),
                problem: "an expired exception no longer waives the rule".into(),
                fix: "fix what the exception covered and remove it, or renew it with a new owner-approved expiry date"
                    .into(),
                ..Finding::of(rule)
            });
        }
        if exception.rule == RuleId::Exc1 {
            findings.push(Finding {
                path: path::exception(index, "rule"),
                observed: "EXC-1".into(),
                problem: "the exception rule itself cannot be waived".into(),
                fix: "remove this exception".into(),
                ..Finding::of(rule)
            });
        }
    }
    let detail = match contract.exceptions.len() {
        0 => "no exceptions".to_string(),
        n => format!("{n} exception(s), each owned and unexpired"),
    };
    Check::from_findings(rule, findings, detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{contract, date, exc_1_contract, exception, today};

    #[test]
    fn exc_1_passes_owned_unexpired_exceptions() {
        assert!(exc_1(&contract(), today()).is_passed());
        let mut owned = contract();
        owned.exceptions.push(exception(RuleId::Wkl8, "network-team", today()));
        assert!(exc_1(&owned, today()).is_passed(), "valid through its expiry day");
    }

    #[test]
    fn exc_1_fails_ownerless_expired_and_self_waiving_exceptions() {
        let mut broken = exc_1_contract(); // a CLU-5 exception that expired on 2026-05-31
        broken.exceptions.push(exception(RuleId::Wkl8, " ", date(2026, 9, 1)));
        broken
            .exceptions
            .push(exception(RuleId::Exc1, "network-team", date(2026, 9, 1)));
        let check = exc_1(&broken, today());
        let paths: Vec<String> = check.findings().iter().map(|f| f.path.to_string()).collect();
        assert_eq!(
            paths,
            ["exception[0].expires", "exception[1].owner", "exception[2].rule"]
        );
        assert!(
            check.findings()[0]
                .observed
                .contains("CLU-5 exception expired on 2026-05-31")
        );
    }
}
