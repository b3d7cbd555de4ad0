//! The only user of YAML: canonical encoding and careful decoding of store documents.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The largest document the store will decode, in bytes. Anything larger is
/// reported as broken instead of being parsed.
pub const MAX_DOCUMENT: usize = 16 * 1024 * 1024;

/// A document could not be encoded or decoded.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The bytes are not YAML of the expected shape.
    #[error("{0}")]
    Yaml(#[from] serde_yaml::Error),
    /// The bytes are not UTF-8.
    #[error("not valid UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    /// The document is larger than [`MAX_DOCUMENT`].
    #[error("document is {0} bytes, larger than the {MAX_DOCUMENT} byte limit")]
    TooLarge(usize),
    /// The document parses, but names another entity than its path does.
    #[error("its id is {found}, but its path names {expected}")]
    WrongId {
        /// The id inside the document.
        found: String,
        /// The id its path names.
        expected: String,
    },
}

impl CodecError {
    /// Where the YAML parser failed, as a 1-based (line, column), when it says; and
    /// its message without that position (for `file:line:column: message` reports).
    pub fn located(&self) -> (Option<(usize, usize)>, String) {
        let text = self.to_string();
        let CodecError::Yaml(e) = self else {
            return (None, text);
        };
        let Some(at) = e.location() else {
            return (None, text);
        };
        let (line, column) = (at.line(), at.column());
        let message = text.replacen(&format!(" at line {line} column {column}"), "", 1);
        (Some((line, column)), message)
    }
}

/// Encodes a value as its canonical YAML document: keys in declaration order,
/// no anchors, stable formatting, so equal values give byte-identical blobs.
pub fn encode<T: Serialize>(value: &T) -> Result<String, CodecError> {
    Ok(serde_yaml::to_string(value)?)
}

/// Converts a value to the generic YAML tree that the merge of unknown documents
/// works on (equal to what decoding its canonical encoding gives).
pub fn to_value<T: Serialize>(value: &T) -> Result<serde_yaml::Value, CodecError> {
    Ok(serde_yaml::to_value(value)?)
}

/// Decodes a YAML document, refusing oversized or non-UTF-8 input up front.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    if bytes.len() > MAX_DOCUMENT {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let text = std::str::from_utf8(bytes)?;
    Ok(serde_yaml::from_str(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bead, BeadId};

    fn sample() -> Bead {
        let now = chrono::DateTime::from_timestamp(1_700_000_000, 5_000).expect("valid time");
        let mut b = Bead::new(
            BeadId::parse("bd-a1").expect("id"),
            "Title: with colon".into(),
            "me",
            now,
        );
        b.description = "line one\nline two\n".into();
        b.labels.insert("x".into());
        b
    }

    #[test]
    fn round_trips_and_is_canonical() {
        let b = sample();
        let text = encode(&b).expect("encodes");
        assert!(
            text.starts_with("id: bd-a1\ntitle: 'Title: with colon'\n"),
            "{text}"
        );
        let back: Bead = decode(text.as_bytes()).expect("decodes");
        assert_eq!(back, b);
        assert_eq!(encode(&back).expect("encodes"), text);
    }

    #[test]
    fn refuses_bad_input() {
        assert!(decode::<Bead>(b"id: [unclosed").is_err());
        assert!(decode::<Bead>(&[0xff, 0xfe]).is_err());
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
        assert!(decode::<Bead>(bomb.as_bytes()).is_err());
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(decode::<Bead>(deep.as_bytes()).is_err());
    }
}
