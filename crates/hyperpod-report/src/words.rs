//! Command-line words, as both subcommands (`report`, `report evidence`) read them: positional arguments, flags and
//! options with a value, and the `--format` they share.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

/// One command-line word or option, after `--name=value` and `--name value` are told apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Positional(String),
    Flag(String),
    Valued(String, String),
}

/// The words of `arguments`; the options named in `valued` take a value (`--name=value` or `--name value`), a word
/// after `--` or a lone `-` is positional.
pub fn words(arguments: &[String], valued: &[&str]) -> Result<Vec<Word>, String> {
    let mut out = Vec::new();
    let mut rest = arguments.iter();
    let mut options_done = false;
    while let Some(argument) = rest.next() {
        let (name, inline) = match argument.split_once('=') {
            Some((name, value)) if argument.starts_with("--") => (name, Some(value.to_string())),
            _ => (argument.as_str(), None),
        };
        out.push(match name {
            _ if options_done || name == "-" || !name.starts_with('-') => Word::Positional(argument.clone()),
            "--" => {
                options_done = true;
                continue;
            }
            _ if valued.contains(&name) => Word::Valued(
                name.to_string(),
                inline
                    .or_else(|| rest.next().cloned())
                    .ok_or_else(|| format!("{name} needs a value"))?,
            ),
            _ => Word::Flag(name.to_string()),
        });
    }
    Ok(out)
}

/// `--format`'s value.
pub fn format(value: &str) -> Result<Format, String> {
    match value {
        "markdown" | "md" => Ok(Format::Markdown),
        "json" => Ok(Format::Json),
        other => Err(format!("--format is markdown or json, not {other:?}")),
    }
}
