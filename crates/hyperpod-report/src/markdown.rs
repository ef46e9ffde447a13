//! The report as GitHub-flavoured Markdown for a pull-request comment: the verdict line first, the diagram, then
//! the details. Rule links are reference-style (`[WKL-3][wkl-3]`, defined once at the end) so table rows stay short.
//! Text from the plan is escaped; lines are wrapped at 140 columns where the content allows (tables excepted).

use std::collections::BTreeSet;

use super::mermaid;
use super::model::GovernanceReport;
use super::rules::{Rule, Section, Status};

const WIDTH: usize = 140;

pub fn render(report: &GovernanceReport) -> String {
    let mut out = Out::default();
    out.line(&format!(
        "## {}: {}",
        text(&report.options.title),
        report.verdict.level.words()
    ));
    out.blank();
    // One line, unwrapped: the verdict a reviewer (or `head -3`) reads first.
    out.line(&report.verdict.summary);
    out.blank();
    out.line("```mermaid");
    out.raw(&mermaid::diagram(report));
    out.line("```");

    contracts(&mut out, report);
    tenants(&mut out, report);
    destroyed(&mut out, report);
    exceptions_in_use(&mut out, report);
    needs_attention(&mut out, report);

    out.blank();
    out.line(&format!(
        "<sub>terraform-provider-hyperpod report {} · Terraform {}plan</sub>",
        text(&report.options.version),
        report
            .terraform_version
            .as_deref()
            .map_or(String::new(), |version| format!("{} ", text(version)))
    ));
    link_definitions(
        &mut out,
        report.results.iter().map(|r| &r.rule),
        &report.options.rules_url,
    );
    out.0
}

/// Each connection contract with the resources it governs, then those tied to none.
fn contracts(out: &mut Out, report: &GovernanceReport) {
    out.blank();
    out.line("### Connection contracts");
    out.blank();
    if report.contracts.is_empty() {
        out.line("No connection contract in this plan.");
    } else {
        let legend: Vec<String> = Status::ALL
            .iter()
            .filter(|status| report.statuses().contains(status))
            .map(|status| format!("{} {}", status.icon(), status.words()))
            .collect();
        out.line(&legend.join(" · "));
    }
    for contract in &report.contracts {
        out.blank();
        out.line(&format!(
            "#### {} — project {} on cluster {}",
            text(&contract.name),
            text(&contract.project_id),
            text(&contract.cluster)
        ));
        group(out, report, &contract.resources);
    }
    let others = report.unassociated();
    if !others.is_empty() {
        out.blank();
        out.line("#### Not tied to a contract in this plan");
        group(out, report, &others);
    }
}

/// One row per tenant: its team, namespace, share, priority and who sees and operates it.
fn tenants(out: &mut Out, report: &GovernanceReport) {
    out.blank();
    out.line("### Tenants");
    out.blank();
    if report.tenants.is_empty() {
        out.line("No tenant in this plan.");
    } else {
        out.line("| team | namespace | guaranteed | sharing | priority (weight) | viewers | operators |");
        out.line("|---|---|---|---|---|---|---|");
        for t in &report.tenants {
            let icon = report.status_of(&t.address).map_or("", Status::icon);
            out.line(&format!(
                "| {icon} {} | {} | {} | {} | {} | {} | {} |",
                cell(&t.team),
                cell(&t.namespace),
                cell(&t.guaranteed),
                cell(&t.sharing),
                cell(&t.priority),
                cell(&t.viewers),
                cell(&t.operators)
            ));
        }
    }
}

/// What the plan destroys or replaces, and why.
fn destroyed(out: &mut Out, report: &GovernanceReport) {
    out.blank();
    out.line("### Destroyed or replaced");
    out.blank();
    if report.destroyed.is_empty() {
        out.line("Nothing is destroyed or replaced.");
    }
    for item in &report.destroyed {
        out.wrapped(
            &format!(
                "{} is {}: {}",
                code(&item.address),
                if item.action == "replace" {
                    "replaced"
                } else {
                    "destroyed"
                },
                text(&item.reason)
            ),
            "- ",
            "  ",
        );
    }
}

/// The rules that pass only by an exception, each with its reason.
fn exceptions_in_use(out: &mut Out, report: &GovernanceReport) {
    let excepted = report.excepted();
    if !excepted.is_empty() {
        out.blank();
        out.line("### Exceptions in use");
        out.blank();
        for result in excepted {
            out.wrapped(
                &format!(
                    "{} {} {}: {}",
                    result.status.icon(),
                    link(&result.rule),
                    code(&result.address),
                    text(result.detail.as_deref().unwrap_or_default())
                ),
                "- ",
                "  ",
            );
        }
    }
}

/// What a reviewer must look at: failures, warnings and what could not be checked.
fn needs_attention(out: &mut Out, report: &GovernanceReport) {
    let attention = report.attention();
    if !attention.is_empty() {
        out.blank();
        out.line("### Needs attention");
        out.blank();
        for item in &attention {
            let mut head = vec![item.status.icon().to_string()];
            head.extend(item.rule.as_ref().map(link));
            if !item.address.is_empty() {
                head.push(code(&item.address));
            }
            head.extend(item.attribute.as_deref().map(code));
            out.wrapped(&format!("{}: {}", head.join(" "), text(&item.detail)), "- ", "  ");
        }
    }
}

/// The reference definitions `[wkl-3]: <base>#wkl-3` of every linked rule, once each, at the end of a document.
pub(crate) fn link_definitions<'a>(out: &mut Out, rules: impl Iterator<Item = &'a Rule>, base: &str) {
    let rules: BTreeSet<&Rule> = rules.collect();
    let definitions: Vec<String> = rules
        .iter()
        .filter_map(|rule| {
            Some(format!(
                "[{}]: {}",
                rule.anchor()?,
                rule.link(base)?.replace(' ', "%20")
            ))
        })
        .collect();
    if !definitions.is_empty() {
        out.blank();
        for definition in &definitions {
            out.line(definition);
        }
    }
}

/// A contract's (or the unassociated resources') layer table, the resources it covers, and what waits for apply.
fn group(out: &mut Out, report: &GovernanceReport, addresses: &[String]) {
    out.blank();
    out.line("| layer | rules |");
    out.line("|---|---|");
    let rules = report.worst_rules(addresses);
    for section in Section::ALL {
        let cells: Vec<String> = rules
            .iter()
            .filter(|r| r.rule.section() == section)
            .map(|r| format!("{} {}", r.status.icon(), link(&r.rule)))
            .collect();
        let cells = if cells.is_empty() {
            "—".to_string()
        } else {
            cells.join(" ")
        };
        out.line(&format!("| {} | {} |", section.heading(), cells));
    }
    out.blank();
    let listed: Vec<String> = addresses.iter().map(|a| code(a)).collect();
    out.wrapped(&format!("Resources: {}.", listed.join(", ")), "", "");
    for address in report.deferred_in(addresses) {
        out.blank();
        out.wrapped(
            &format!(
                "{} {}: every rule is judged at apply (a value it reads is known only then).",
                Status::Deferred.icon(),
                code(address)
            ),
            "",
            "",
        );
    }
}

/// `[WKL-3][wkl-3]`, or the bare ID of a rule the catalog does not know.
pub(crate) fn link(rule: &Rule) -> String {
    match rule.anchor() {
        Some(anchor) => format!("[{}][{anchor}]", rule.id()),
        None => text(rule.id()),
    }
}

/// Plain text from the plan, escaped so it stays text on GitHub and in Python-Markdown.
pub fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let chars: Vec<char> = raw.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        // An underscore inside a word (`approved_account_ids`) is never emphasis, on GitHub or in Python-Markdown.
        let inside_word = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
        match c {
            '_' if inside_word(i.checked_sub(1).and_then(|p| chars.get(p))) && inside_word(chars.get(i + 1)) => {
                out.push(c);
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A code span that holds any text: a fence longer than any run of backticks inside, pipes escaped for tables.
pub fn code(raw: &str) -> String {
    let clean: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('|', "\\|");
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{clean}{fence}")
    } else {
        format!("{fence} {clean} {fence}")
    }
}

/// A table cell: escaped text.
fn cell(raw: &str) -> String {
    text(raw)
}

/// Markdown being written: lines without trailing spaces, at most one blank line in a row.
#[derive(Default)]
pub(crate) struct Out(pub(crate) String);

impl Out {
    pub(crate) fn line(&mut self, line: &str) {
        self.0.push_str(line.trim_end());
        self.0.push('\n');
    }

    pub(crate) fn raw(&mut self, block: &str) {
        self.0.push_str(block);
        if !block.ends_with('\n') {
            self.0.push('\n');
        }
    }

    pub(crate) fn blank(&mut self) {
        if !self.0.is_empty() && !self.0.ends_with("\n\n") {
            self.0.push('\n');
        }
    }

    /// Wraps at spaces to `WIDTH` columns; a word longer than that stays whole. Spaces inside code spans are
    /// not broken at, so a code span never spans lines.
    pub(crate) fn wrapped(&mut self, paragraph: &str, first: &str, rest: &str) {
        let mut line = first.to_string();
        let mut empty = true;
        for word in words(paragraph) {
            let width = line.chars().count() + 1 + word.chars().count();
            if !empty && width > WIDTH {
                self.line(&line);
                line = rest.to_string();
                empty = true;
            }
            if !empty {
                line.push(' ');
            }
            line.push_str(&word);
            empty = false;
        }
        self.line(&line);
    }
}

/// Words separated by spaces, with a code span kept as one word.
fn words(paragraph: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut fence: Option<usize> = None;
    let chars: Vec<char> = paragraph.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' && (i == 0 || chars[i - 1] != '\\' || fence.is_some()) {
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            fence = match fence {
                None => Some(run),
                Some(open) if open == run => None,
                open => open,
            };
            current.extend(std::iter::repeat_n('`', run));
            i += run;
            continue;
        }
        if c == ' ' && fence.is_none() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
        i += 1;
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_code_spans_survive_any_name() {
        assert_eq!(
            text("a_b _c_ *c* [d](e) <f> x|y \\"),
            "a_b \\_c\\_ \\*c\\* \\[d\\](e) &lt;f&gt; x\\|y \\\\"
        );
        assert_eq!(code(r#"hyperpod_tenant.t["a"]"#), r#"`hyperpod_tenant.t["a"]`"#);
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(code("a|b"), "`a\\|b`");
    }

    #[test]
    fn wrapping_keeps_code_spans_whole_and_lines_within_the_width() {
        let mut out = Out::default();
        let long = format!("{} `a b c d` {}", "word ".repeat(40), "tail ".repeat(10));
        out.wrapped(&long, "- ", "  ");
        for line in out.0.lines() {
            assert!(line.chars().count() <= WIDTH, "{line}");
        }
        assert!(out.0.contains("`a b c d`"), "{}", out.0);
        assert!(out.0.lines().skip(1).all(|line| line.starts_with("  ")));
    }
}
