//! `terraform-provider-hyperpod report [options] PLAN_JSON`: the arguments, the reading of the files (the only
//! I/O of the report), and the exit code.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use super::evidence::cli as evidence;
use super::model::{GovernanceReport, Options};
use super::rules::DEFAULT_RULES_URL;
use super::verdict::UNREADABLE;
use super::words::{Format, Word, format, words};
use super::{json, log, markdown, plan};

/// The first argument after `report` that asks for the evidence of a state instead of the report of a plan.
pub const EVIDENCE: &str = "evidence";

pub const USAGE: &str = "\
Usage: terraform-provider-hyperpod report [--format markdown|json] [--log PLAN_LOG] [--rules-url URL]
                                          [--title TEXT] PLAN_JSON

Writes the governance report of a plan: the verdict, each connection contract's rules by layer, what each tenant
gets, what is destroyed or replaced, and what needs attention.

  PLAN_JSON          the output of `terraform show -json <planfile>` (or `tofu show -json`); `-` reads stdin
  --log PLAN_LOG     the JSON lines `terraform plan -json` printed: diagnostics, and the resources whose plan failed
  --format FORMAT    markdown (default; for a pull-request comment) or json
  --rules-url URL    base of rule links (default: the registry's governance-rules guide); `<URL>#wkl-3`
  --title TEXT       the heading (default: HyperPod governance)

Exit code: 0 compliant, 1 not compliant, 2 compliant but needs attention, 3 the input could not be read.

`terraform-provider-hyperpod report evidence --help`: the evidence of each contract in a state, for audits.
";

/// Whether the provider binary was started as `… report …` rather than as Terraform's plugin.
pub fn is_subcommand(first_argument: Option<&std::ffi::OsStr>) -> bool {
    first_argument.is_some_and(|first| first == "report")
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportArguments {
    pub plan: String,
    pub log: Option<String>,
    pub format: Format,
    pub rules_url: String,
    pub title: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportCommand {
    Help,
    Report(ReportArguments),
}

/// The arguments after `report`.
pub fn parse_arguments(arguments: &[String]) -> Result<ReportCommand, String> {
    let mut plan = None;
    let mut log = None;
    let mut format = Format::Markdown;
    let mut rules_url = DEFAULT_RULES_URL.to_string();
    let mut title = "HyperPod governance".to_string();
    for word in words(arguments, &["--log", "--rules-url", "--title", "--format"])? {
        match word {
            Word::Positional(argument) => {
                if plan.replace(argument.clone()).is_some() {
                    return Err(format!("one PLAN_JSON only (got another: {argument})"));
                }
            }
            Word::Flag(name) if name == "-h" || name == "--help" => return Ok(ReportCommand::Help),
            Word::Flag(other) => return Err(format!("unknown option {other}")),
            Word::Valued(name, value) => match name.as_str() {
                "--log" => log = Some(value),
                "--rules-url" => rules_url = value,
                "--title" => title = value,
                _ => format = self::format(&value)?,
            },
        }
    }
    let plan = plan.ok_or("PLAN_JSON is missing (use - for stdin)")?;
    Ok(ReportCommand::Report(ReportArguments {
        plan,
        log,
        format,
        rules_url,
        title,
    }))
}

/// The report of one invocation: (exit code, stdout, stderr). `read` reads a file by name, `-` meaning stdin.
pub fn run(arguments: &[String], read: impl Fn(&str) -> std::io::Result<String>) -> (u8, String, String) {
    let arguments = match parse_arguments(arguments) {
        Ok(ReportCommand::Help) => return (0, USAGE.to_string(), String::new()),
        Ok(ReportCommand::Report(arguments)) => arguments,
        Err(problem) => return (UNREADABLE, String::new(), format!("report: {problem}\n\n{USAGE}")),
    };
    let unreadable = |file: &str, what: String| (UNREADABLE, String::new(), format!("report: {file}: {what}\n"));
    let name = |file: &str| {
        if file == "-" {
            "stdin".to_string()
        } else {
            file.to_string()
        }
    };
    let plan = match read(&arguments.plan) {
        Ok(text) => match plan::parse(&text) {
            Ok(plan) => plan,
            Err(err) => return unreadable(&name(&arguments.plan), err.to_string()),
        },
        Err(err) => return unreadable(&name(&arguments.plan), format!("cannot read it: {err}")),
    };
    let diagnostics = match &arguments.log {
        None => None,
        Some(file) => match read(file) {
            Ok(text) => match log::parse(&text) {
                Ok(diagnostics) => Some(diagnostics),
                Err(err) => return unreadable(&name(file), err.to_string()),
            },
            Err(err) => return unreadable(&name(file), format!("cannot read it: {err}")),
        },
    };
    let report = GovernanceReport::build(
        &plan,
        diagnostics.as_deref(),
        Options {
            title: arguments.title,
            rules_url: arguments.rules_url,
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
    );
    let output = match arguments.format {
        Format::Markdown => markdown::render(&report),
        Format::Json => json::render(&report),
    };
    (report.verdict.level.exit_code(), output, String::new())
}

/// A file by name, `-` meaning stdin.
fn read_file(file: &str) -> std::io::Result<String> {
    if file == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    } else {
        std::fs::read_to_string(file)
    }
}

/// The process: arguments from the command line, files from disk or stdin, output to stdout and stderr. `report
/// evidence …` writes the evidence of a state instead (`evidence::cli`).
pub fn main(arguments: Vec<OsString>) -> ExitCode {
    let arguments: Result<Vec<String>, OsString> = arguments.into_iter().map(OsString::into_string).collect();
    let (code, stdout, stderr) = match arguments {
        Ok(arguments) if arguments.first().is_some_and(|first| first == EVIDENCE) => {
            let outcome = evidence::write(evidence::run(&arguments[1..], read_file));
            (outcome.code, outcome.stdout, outcome.stderr)
        }
        Ok(arguments) => run(&arguments, read_file),
        Err(argument) => (
            UNREADABLE,
            String::new(),
            format!("report: an argument is not UTF-8: {}\n", argument.display()),
        ),
    };
    // A closed pipe (`| head`) is not the report's failure; nothing else is left to say then.
    let _ = std::io::stdout().write_all(stdout.as_bytes());
    let _ = std::io::stderr().write_all(stderr.as_bytes());
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &[&str]) -> Vec<String> {
        text.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn arguments_parse_with_and_without_equals() {
        let Ok(ReportCommand::Report(parsed)) = parse_arguments(&args(&[
            "--format=json",
            "--log",
            "plan.log",
            "--rules-url",
            "docs/guides/governance-rules.md",
            "--title=Staging",
            "-",
        ])) else {
            panic!("parsed")
        };
        assert_eq!(parsed.format, Format::Json);
        assert_eq!(parsed.log.as_deref(), Some("plan.log"));
        assert_eq!(parsed.rules_url, "docs/guides/governance-rules.md");
        assert_eq!(parsed.title, "Staging");
        assert_eq!(parsed.plan, "-");
        assert_eq!(parse_arguments(&args(&["--help"])), Ok(ReportCommand::Help));
        assert_eq!(
            parse_arguments(&args(&["--", "--odd-name.json"])).map(|c| matches!(c, ReportCommand::Report(_))),
            Ok(true)
        );
    }

    #[test]
    fn usage_errors_and_unreadable_input_exit_3_naming_the_file() {
        let read = |file: &str| match file {
            "plan.json" => Ok(r#"{"format_version":"1.2","resource_changes":[]}"#.to_string()),
            "bad.json" => Ok("{\"values\": ".to_string()),
            "bad.log" => Ok("Error: not json\n".to_string()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "No such file or directory",
            )),
        };
        for (arguments, says) in [
            (vec!["--bogus", "plan.json"], "unknown option --bogus"),
            (vec!["--format", "html", "plan.json"], "markdown or json"),
            (vec![], "PLAN_JSON is missing"),
            (vec!["a.json", "b.json"], "one PLAN_JSON only"),
            (vec!["--log"], "--log needs a value"),
            (vec!["missing.json"], "missing.json: cannot read it: No such file"),
            (vec!["bad.json"], "bad.json: not JSON"),
            (vec!["--log", "bad.log", "plan.json"], "bad.log: line 1:"),
        ] {
            let (code, stdout, stderr) = run(&args(&arguments), read);
            assert_eq!(code, 3, "{arguments:?}");
            assert_eq!(stdout, "", "{arguments:?}");
            assert!(stderr.contains(says), "{arguments:?}: {stderr}");
        }
        let (code, stdout, _) = run(&args(&["--bogus"]), read);
        assert_eq!((code, stdout.as_str()), (3, ""));
        let (code, stdout, _) = run(&args(&["--help"]), read);
        assert_eq!(code, 0);
        assert!(stdout.starts_with("Usage: terraform-provider-hyperpod report"));
        // An empty plan reads, and is compliant.
        assert_eq!(run(&args(&["plan.json"]), read).0, 0);
    }

    #[test]
    fn only_a_first_argument_of_report_is_the_subcommand() {
        use std::ffi::OsStr;
        assert!(is_subcommand(Some(OsStr::new("report"))));
        for plugin in [None, Some("--debug"), Some("reports"), Some("-report"), Some("")] {
            assert!(!is_subcommand(plugin.map(OsStr::new)), "{plugin:?}");
        }
    }
}
