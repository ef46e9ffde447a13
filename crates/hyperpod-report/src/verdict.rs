//! The verdict of a report, its one-line summary and the exit code that carries it.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Every evaluated rule passed, is excepted or does not apply; nothing deferred, skipped or warned.
    #[default]
    Compliant,
    /// Compliant, but with warnings, skipped checks or rules judged at apply.
    Attention,
    /// A failed rule, an error diagnostic, or a plan that stopped.
    NotCompliant,
}

/// Exit code for input the report could not read.
pub const UNREADABLE: u8 = 3;

impl Level {
    pub fn exit_code(self) -> u8 {
        match self {
            Level::Compliant => 0,
            Level::NotCompliant => 1,
            Level::Attention => 2,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Level::Compliant => "compliant",
            Level::Attention => "attention",
            Level::NotCompliant => "not_compliant",
        }
    }

    /// The heading's words.
    pub fn words(self) -> &'static str {
        match self {
            Level::Compliant => "compliant",
            Level::Attention => "compliant, needs attention",
            Level::NotCompliant => "not compliant",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub level: Level,
    /// One line, icon first.
    pub summary: String,
}
