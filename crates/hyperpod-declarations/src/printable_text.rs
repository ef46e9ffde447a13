//! `PrintableText`: the character set of SageMaker's `EntityDescription` (descriptions of scheduling policies and
//! compute quotas), checked at `terraform validate`.

use crate::protocol::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::protocol::schema::Validator;
use crate::protocol::value::Value;

/// Text SageMaker's `EntityDescription` pattern (`[\p{L}\p{M}\p{Z}\p{S}\p{N}\p{P}]*`) accepts: no control
/// (Cc), format (Cf) or private-use (Co) characters, nor noncharacters. Unassigned code points (Cn) are not
/// checked: that needs Unicode tables this binary does not carry, and AWS's Unicode version is unknown anyway.
/// The first offending character is named by code point, since it is usually invisible (a heredoc's newline).
pub struct PrintableText;

/// Format characters (general category Cf, Unicode 14).
const FORMAT_CHARACTERS: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// True for a character the `EntityDescription` pattern refuses (as far as this binary can tell).
pub fn is_unprintable(c: char) -> bool {
    let code = u32::from(c);
    let private_use = (0xE000..=0xF8FF).contains(&code) || code >= 0xF0000;
    let noncharacter = (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE;
    c.is_control()
        || private_use
        || noncharacter
        || FORMAT_CHARACTERS
            .iter()
            .any(|(first, last)| (*first..=*last).contains(&code))
}

impl Validator for PrintableText {
    fn description(&self) -> String {
        "Letters, marks, spaces, symbols, numbers and punctuation only: no control characters such as newlines or \
         tabs."
            .to_string()
    }
    fn validate(&self, path: &AttributePath, value: &Value, diagnostics: &mut Diagnostics) {
        let Value::String(text) = value else { return };
        // The schema walk already reports the other control characters (every string); one finding per value.
        if crate::protocol::validators::has_control_character(text) {
            return;
        }
        if let Some((position, bad)) = text.chars().enumerate().find(|(_, c)| is_unprintable(*c)) {
            diagnostics.push(Diagnostic::invalid_value(
                path.clone(),
                format!("U+{:04X} at character {}", u32::from(bad), position + 1),
                "SageMaker accepts only letters, marks, spaces, symbols, numbers and punctuation here (no control \
                 or format characters such as newlines, tabs or zero-width spaces)",
                "remove the character, e.g. keep the text on one line (replace a heredoc's newlines with spaces)",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_with_control_or_format_characters_are_refused() {
        let check = |text: &str| {
            let mut diagnostics = Diagnostics::new();
            PrintableText.validate(
                &AttributePath::attr("description"),
                &Value::String(text.into()),
                &mut diagnostics,
            );
            diagnostics.0.first().map(|d| d.detail.clone())
        };
        assert_eq!(check("Équipe ML — priorité 🚀 (50%)"), None);
        assert!(check("two\nlines").is_some_and(|d| d.contains("U+000A at character 4")));
        assert!(check("tab\t").is_some());
        assert!(check("zero\u{200B}width").is_some_and(|d| d.contains("U+200B")));
        assert!(check("private\u{E000}").is_some());
        assert!(check("\u{FFFF}").is_some());
    }
}
