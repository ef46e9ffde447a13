//! `terraform-provider-hyperpod report evidence [options] STATE_JSON`: the arguments, the reading of the state and
//! the writing of the documents (the only I/O of the evidence), and the exit code.

use std::path::{Path, PathBuf};

use super::model::Evidence;
use super::state::{self, State};
use super::{json, markdown};
use crate::model::Options;
use crate::rules::DEFAULT_RULES_URL;
use crate::verdict::UNREADABLE;
use crate::words::{Format, Word, format, words};

pub const USAGE: &str = "\
Usage: terraform-provider-hyperpod report evidence [--format markdown|json] [--out-dir DIR] [--rules-url URL]
                                                   [--title TEXT] STATE_JSON

Writes the governance evidence of each connection contract in a state: its owners, approval and review dates, the
facts it was approved against and their current values, every rule's last verdict on it and on the tenants,
bindings, restrictions and grants it governs, and every object those composed, with its ARN (a Kubernetes object:
its API path).

  STATE_JSON         the output of `terraform show -json` (or `tofu show -json`) without a plan file; `-` reads stdin
  --format FORMAT    markdown (default) or json
  --out-dir DIR      one document per contract, DIR/<contract name>.md (or .json), creating DIR; the files written
                     are listed on stdout. Without it, one document with a section per contract goes to stdout
  --rules-url URL    base of rule links (default: the registry's governance-rules guide); `<URL>#wkl-3`
  --title TEXT       the heading (default: HyperPod governance evidence)

Exit code: 0 every contract's review is current and no rule failed, 1 a rule failed, 2 none failed but a review is
not current, a fact changed since approval, or a rule warned or was not checked, 3 the state could not be read or a
document could not be written.
";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvidenceArguments {
    pub state: String,
    pub format: Format,
    pub out_dir: Option<String>,
    pub rules_url: String,
    pub title: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvidenceCommand {
    Help,
    Evidence(EvidenceArguments),
}

/// What one invocation writes: its exit code, stdout, stderr, and the documents for `--out-dir` (path, text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvidenceOutcome {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
    pub files: Vec<(PathBuf, String)>,
}

impl EvidenceOutcome {
    fn unreadable(problem: String) -> EvidenceOutcome {
        EvidenceOutcome {
            code: UNREADABLE,
            stderr: problem,
            ..EvidenceOutcome::default()
        }
    }
}

/// The arguments after `report evidence`.
pub fn parse_arguments(arguments: &[String]) -> Result<EvidenceCommand, String> {
    let mut state = None;
    let mut format = Format::Markdown;
    let mut out_dir = None;
    let mut rules_url = DEFAULT_RULES_URL.to_string();
    let mut title = "HyperPod governance evidence".to_string();
    for word in words(arguments, &["--format", "--out-dir", "--rules-url", "--title"])? {
        match word {
            Word::Positional(argument) => {
                if state.replace(argument.clone()).is_some() {
                    return Err(format!("one STATE_JSON only (got another: {argument})"));
                }
            }
            Word::Flag(name) if name == "-h" || name == "--help" => return Ok(EvidenceCommand::Help),
            Word::Flag(other) => return Err(format!("unknown option {other}")),
            Word::Valued(name, value) => match name.as_str() {
                "--out-dir" => out_dir = Some(value),
                "--rules-url" => rules_url = value,
                "--title" => title = value,
                _ => format = self::format(&value)?,
            },
        }
    }
    let state = state.ok_or("STATE_JSON is missing (use - for stdin)")?;
    Ok(EvidenceCommand::Evidence(EvidenceArguments {
        state,
        format,
        out_dir,
        rules_url,
        title,
    }))
}

/// The evidence of one invocation. `read` reads a file by name, `-` meaning stdin; nothing is written here.
pub fn run(arguments: &[String], read: impl Fn(&str) -> std::io::Result<String>) -> EvidenceOutcome {
    let arguments = match parse_arguments(arguments) {
        Ok(EvidenceCommand::Help) => {
            return EvidenceOutcome {
                stdout: USAGE.to_string(),
                ..EvidenceOutcome::default()
            };
        }
        Ok(EvidenceCommand::Evidence(arguments)) => arguments,
        Err(problem) => return EvidenceOutcome::unreadable(format!("report evidence: {problem}\n\n{USAGE}")),
    };
    let state = match read_state(&read, &arguments.state) {
        Ok(state) => state,
        Err(unreadable) => return unreadable,
    };
    let evidence = Evidence::build(
        &state,
        Options {
            title: arguments.title,
            rules_url: arguments.rules_url,
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
    );
    let (render, extension): (fn(&Evidence) -> String, &str) = match arguments.format {
        Format::Markdown => (markdown::render, "md"),
        Format::Json => (json::render, "json"),
    };
    let code = evidence.level.exit_code();
    let Some(dir) = arguments.out_dir else {
        return EvidenceOutcome {
            code,
            stdout: render(&evidence),
            ..EvidenceOutcome::default()
        };
    };
    one_file_per_contract(&evidence, Path::new(&dir), (render, extension), code)
}

/// The state `path` names (`-` for stdin), or the outcome saying why it cannot be read.
fn read_state(read: &impl Fn(&str) -> std::io::Result<String>, path: &str) -> Result<State, EvidenceOutcome> {
    let name = if path == "-" { "stdin" } else { path };
    let text = read(path)
        .map_err(|err| EvidenceOutcome::unreadable(format!("report evidence: {name}: cannot read it: {err}\n")))?;
    state::parse(&text).map_err(|err| EvidenceOutcome::unreadable(format!("report evidence: {name}: {err}\n")))
}

/// One document per contract, to be written under `dir` by the caller; their paths go to stdout.
fn one_file_per_contract(
    evidence: &Evidence,
    dir: &Path,
    (render, extension): (fn(&Evidence) -> String, &str),
    code: u8,
) -> EvidenceOutcome {
    let names = file_names(evidence.contracts.iter().map(|c| c.name.as_str()));
    let files: Vec<(PathBuf, String)> = names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            (
                dir.join(format!("{name}.{extension}")),
                render(&evidence.of_contract(index)),
            )
        })
        .collect();
    EvidenceOutcome {
        code,
        stdout: files.iter().fold(String::new(), |mut listed, (path, _)| {
            listed.push_str(&format!("{}\n", path.display()));
            listed
        }),
        stderr: String::new(),
        files,
    }
}

/// A file name per contract: its name with anything but letters, digits, `-`, `_` and `.` replaced by `-` (a name
/// from a hand-edited state cannot leave the directory), and `-2`, `-3`… after a name already taken.
pub fn file_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut taken: Vec<String> = Vec::new();
    for name in names {
        let mut clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        if clean.is_empty() || clean.starts_with('.') {
            clean.insert(0, '-');
        }
        let mut candidate = clean.clone();
        let mut n = 1;
        while taken.contains(&candidate) {
            n += 1;
            candidate = format!("{clean}-{n}");
        }
        taken.push(candidate);
    }
    taken
}

/// Writes the documents of `outcome` (creating their directory), then its stdout and stderr; the exit code, or 3 when
/// a document could not be written.
pub fn write(mut outcome: EvidenceOutcome) -> EvidenceOutcome {
    for (path, content) in &outcome.files {
        let written = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir),
            _ => Ok(()),
        }
        .and_then(|()| std::fs::write(path, content));
        if let Err(err) = written {
            return EvidenceOutcome::unreadable(format!(
                "report evidence: {}: cannot write it: {err}\n",
                path.display()
            ));
        }
    }
    outcome.files.clear();
    outcome
}
