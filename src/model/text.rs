//! Validation of the free-form strings a user hands in (titles, labels, names), and the
//! escaping of what data holds before it reaches a terminal.

use std::borrow::Cow;
use std::fmt::Write;

/// Why a piece of text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// The text is empty or only white space.
    #[error("{what} is empty")]
    Empty {
        /// What the text was meant to be ("title", "label", ...).
        what: &'static str,
    },
    /// The text holds a control character where none may stand.
    #[error("{what} {value:?} contains a control character")]
    Control {
        /// What the text was meant to be.
        what: &'static str,
        /// The offending text.
        value: String,
    },
    /// The text is longer than allowed.
    #[error("{what} is {len} bytes long, the limit is {max}")]
    TooLong {
        /// What the text was meant to be.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The limit in bytes.
        max: usize,
    },
    /// The text holds a character that is not allowed in it.
    #[error("{what} {value:?} contains {ch:?}, which is not allowed there")]
    Forbidden {
        /// What the text was meant to be.
        what: &'static str,
        /// The offending text.
        value: String,
        /// The first character not allowed.
        ch: char,
    },
}

/// The longest title accepted, in bytes.
pub const MAX_TITLE: usize = 1024;
/// The longest description, comment or note accepted, in bytes.
pub const MAX_TEXT: usize = 1024 * 1024;
/// The longest label or name accepted, in bytes.
pub const MAX_NAME: usize = 256;

fn check_len(what: &'static str, value: &str, max: usize) -> Result<(), TextError> {
    if value.len() > max {
        return Err(TextError::TooLong {
            what,
            len: value.len(),
            max,
        });
    }
    Ok(())
}

/// Whether `value` shows nothing: white space and characters of no width (the zero
/// width space and joiners, the soft hyphen, the byte order mark, the bidi marks) only.
fn blank(value: &str) -> bool {
    value.chars().all(|c| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
                    | '\u{2066}'..='\u{206f}' | '\u{feff}'
            )
    })
}

fn check_single_line(what: &'static str, value: &str, max: usize) -> Result<(), TextError> {
    if blank(value) {
        return Err(TextError::Empty { what });
    }
    check_len(what, value, max)?;
    if value.chars().any(char::is_control) {
        return Err(TextError::Control {
            what,
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// Checks a bead title: one line, not empty, no control characters.
pub fn check_title(value: &str) -> Result<(), TextError> {
    check_single_line("title", value, MAX_TITLE)
}

/// Checks a label: one line, not empty, no control characters, no commas (they separate labels).
pub fn check_label(value: &str) -> Result<(), TextError> {
    check_single_line("label", value, MAX_NAME)?;
    if let Some(ch) = value.chars().find(|c| *c == ',' || c.is_whitespace()) {
        return Err(TextError::Forbidden {
            what: "label",
            value: value.to_owned(),
            ch,
        });
    }
    Ok(())
}

/// Checks a person's or agent's name as it appears in `assignee` or `author`.
pub fn check_name(what: &'static str, value: &str) -> Result<(), TextError> {
    check_single_line(what, value, MAX_NAME)
}

/// Checks one line of text that is not a title (a message's subject): not empty, no
/// control characters, at most `MAX_TITLE` bytes.
pub fn check_line(what: &'static str, value: &str) -> Result<(), TextError> {
    check_single_line(what, value, MAX_TITLE)
}

/// Checks a title that may hold line breaks (a tombstone's, kept as it was deleted):
/// not empty, at most `MAX_TITLE` bytes, no control characters but line breaks and tabs.
pub fn check_title_lines(value: &str) -> Result<(), TextError> {
    if blank(value) {
        return Err(TextError::Empty { what: "title" });
    }
    check_lines("title", value, MAX_TITLE)
}

/// Checks multi-line text (a description, a comment): control characters other than
/// newline and tab are refused, and so is text over `MAX_TEXT`.
pub fn check_text(what: &'static str, value: &str) -> Result<(), TextError> {
    check_lines(what, value, MAX_TEXT)
}

/// Checks text of several lines of at most `max` bytes.
fn check_lines(what: &'static str, value: &str, max: usize) -> Result<(), TextError> {
    check_len(what, value, max)?;
    if value
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        return Err(TextError::Control {
            what,
            value: value.chars().take(60).collect(),
        });
    }
    Ok(())
}

/// `noun` in the number that suits `n`: "step" for 1, "steps" otherwise ("dependency"
/// becomes "dependencies", "match" "matches"). `noun` is a regular English singular.
pub fn plural(n: u64, noun: &str) -> std::borrow::Cow<'_, str> {
    if n == 1 {
        return noun.into();
    }
    let consonant_y = noun
        .strip_suffix('y')
        .filter(|stem| !stem.ends_with(|c: char| "aeiou".contains(c)) && !stem.is_empty());
    if let Some(stem) = consonant_y {
        format!("{stem}ies").into()
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{noun}es").into()
    } else {
        format!("{noun}s").into()
    }
}

/// A count and its noun in the number that suits it: "1 document", "3 documents"
/// (see [`plural`]). Every count a person reads is written through it.
pub fn count(n: impl TryInto<u64> + Copy + std::fmt::Display, noun: &str) -> String {
    let k = n.try_into().unwrap_or(u64::MAX);
    format!("{n} {}", plural(k, noun))
}

/// What a piece of terminal output keeps of the layout characters in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One line: tabs stay, a newline is escaped like any other control.
    Line,
    /// Text of several lines: tabs and newlines stay.
    Lines,
}

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls, DEL, and the
/// bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
fn is_unsafe(c: char, layout: Layout) -> bool {
    match c {
        '\t' => false,
        '\n' => layout == Layout::Line,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        c => c.is_control(),
    }
}

/// Whether `text` may need escaping: a quick look at its bytes that every clean ASCII
/// text passes, so that printing thousands of titles costs one scan of each.
fn may_need_escape(text: &str) -> bool {
    // Controls below 0x20 and DEL; 0xc2 starts the C1 controls (U+0080–U+009F); 0xe2
    // starts the bidi characters (U+2000–U+2FFF).
    // A fold without a short cut, so that the compiler checks many bytes at once.
    text.bytes().fold(false, |found, b| {
        found | (b < 0x20) | (b == 0x7f) | (b == 0xc2) | (b == 0xe2)
    })
}

/// Escapes what in `text` a terminal would obey rather than show: ESC becomes `\e`,
/// a newline `\n` (in a [`Layout::Line`]), a carriage return `\r`, the other C0
/// controls and DEL `\x07` and the like, C1 controls (the 8-bit CSI U+009B among them)
/// and the bidi overrides and isolates `\u{202e}` and the like. Text with none of them
/// comes back borrowed.
pub fn escape_controls(text: &str, layout: Layout) -> Cow<'_, str> {
    if !may_need_escape(text) || !text.chars().any(|c| is_unsafe(c, layout)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text, layout);
    Cow::Owned(out)
}

/// Appends `text` to `out`, escaped as [`escape_controls`] does.
pub fn push_escaped(out: &mut String, text: &str, layout: Layout) {
    if !may_need_escape(text) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        if !is_unsafe(c, layout) {
            out.push(c);
            continue;
        }
        // Writing to a String cannot fail.
        let _ = match c {
            '\u{1b}' => write!(out, "\\e"),
            '\n' => write!(out, "\\n"),
            '\r' => write!(out, "\\r"),
            c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
            c => write!(out, "\\u{{{:x}}}", c as u32),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(count(1, "document"), "1 document");
        assert_eq!(count(0, "document"), "0 documents");
        assert_eq!(count(2usize, "tool call"), "2 tool calls");
        assert_eq!(count(3, "dependency"), "3 dependencies");
        assert_eq!(count(1, "dependency"), "1 dependency");
        assert_eq!(count(2, "day"), "2 days");
        assert_eq!(count(2, "match"), "2 matches");
    }

    #[test]
    fn titles() {
        assert!(check_title("Fix the login page").is_ok());
        assert!(matches!(check_title("  "), Err(TextError::Empty { .. })));
        // What shows nothing is empty too; text beside it is not.
        for blank in ["\u{200b}", "\u{202e}", " \u{feff}\u{2060} ", "\u{ad}"] {
            assert!(
                matches!(check_title(blank), Err(TextError::Empty { .. })),
                "{blank:?}"
            );
            assert!(matches!(
                check_name("assignee", blank),
                Err(TextError::Empty { .. })
            ));
        }
        assert!(check_title("a\u{200b}b").is_ok());
        assert!(matches!(
            check_title("a\nb"),
            Err(TextError::Control { .. })
        ));
        assert!(matches!(
            check_title(&"x".repeat(MAX_TITLE + 1)),
            Err(TextError::TooLong { .. })
        ));
    }

    #[test]
    fn labels() {
        assert!(check_label("area:cli").is_ok());
        assert!(check_label("a,b").is_err());
        assert!(check_label("a b").is_err());
        assert!(check_label("bell\u{7}").is_err());
    }

    #[test]
    fn text() {
        assert!(check_text("description", "line one\n\tline two\r\n").is_ok());
        assert!(check_text("description", "esc\u{1b}[31m").is_err());
    }

    #[test]
    fn escapes() {
        let line = |t| escape_controls(t, Layout::Line).into_owned();
        assert!(matches!(
            escape_controls("Fix the café\tnow", Layout::Line),
            Cow::Borrowed(_)
        ));
        assert_eq!(line("\u{1b}[31mred\u{1b}[0m"), "\\e[31mred\\e[0m");
        assert_eq!(line("\u{1b}]0;owned\u{7}"), "\\e]0;owned\\x07");
        assert_eq!(line("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(line("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(line("del\u{7f} cr\r nl\n"), "del\\x7f cr\\r nl\\n");
        assert_eq!(line("© «quoted» — fine"), "© «quoted» — fine");
        assert_eq!(
            escape_controls("one\n\ttwo\u{7}", Layout::Lines),
            "one\n\ttwo\\x07"
        );
    }
}
