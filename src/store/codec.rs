//! The only user of YAML: canonical encoding and careful decoding of store documents.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::doc;

mod carry;
mod emit;

pub use carry::{field_names, keep_unknown};

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
    /// The document nests flow collections (`[`, `{`) deeper than [`MAX_FLOW_DEPTH`].
    #[error("document nests more than {MAX_FLOW_DEPTH} levels of [ or {{ collections")]
    TooDeep,
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
///
/// Most documents are written by a writer of our own that gives serde_norway's text
/// for them in a fraction of the time; serde_norway writes the rest.
pub fn encode<T: Serialize>(value: &T) -> Result<String, CodecError> {
    let text = match emit::to_string(value) {
        Some(text) => text,
        None => serde_yaml::to_string(value)?,
    };
    // What could not be decoded again is never written: a document over the limit
    // would be stored, acknowledged, and unreadable.
    if text.len() > MAX_DOCUMENT {
        return Err(CodecError::TooLarge(text.len()));
    }
    Ok(text)
}

/// Converts a value to the generic YAML tree that the merge of unknown documents
/// works on (equal to what [`decode_doc`] of its canonical encoding gives).
pub fn to_value<T: Serialize>(value: &T) -> Result<doc::Value, CodecError> {
    Ok(from_yaml(serde_yaml::to_value(value)?))
}

/// Decodes a YAML document into the generic tree, keys in the order they were read.
pub fn decode_doc(bytes: &[u8]) -> Result<doc::Value, CodecError> {
    decode::<serde_yaml::Value>(bytes).map(from_yaml)
}

/// The generic tree of a YAML value, node for node.
fn from_yaml(value: serde_yaml::Value) -> doc::Value {
    use serde_yaml::Value as Y;
    match value {
        Y::Null => doc::Value::Null,
        Y::Bool(b) => doc::Value::Bool(b),
        Y::Number(n) => doc::Value::Number(match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => doc::Number::PosInt(u),
            (None, Some(i)) => doc::Number::NegInt(i),
            (None, None) => doc::Number::Float(n.as_f64().unwrap_or(f64::NAN)),
        }),
        Y::String(s) => doc::Value::String(s),
        Y::Sequence(s) => doc::Value::Sequence(s.into_iter().map(from_yaml).collect()),
        Y::Mapping(m) => doc::Value::Mapping(
            m.into_iter()
                .map(|(k, v)| (from_yaml(k), from_yaml(v)))
                .collect(),
        ),
        Y::Tagged(t) => doc::Value::Tagged(Box::new(doc::Tagged {
            tag: t.tag.to_string(),
            value: from_yaml(t.value),
        })),
    }
}

/// Decodes a YAML document, refusing oversized, non-UTF-8 or too deeply nested
/// input up front.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    if bytes.len() > MAX_DOCUMENT {
        return Err(CodecError::TooLarge(bytes.len()));
    }
    let text = std::str::from_utf8(bytes)?;
    if flow_too_deep(bytes) {
        return Err(CodecError::TooDeep);
    }
    Ok(serde_yaml::from_str(text)?)
}

/// The deepest nesting of flow collections (`[…]`, `{…}`) a document may have.
///
/// The YAML parser reads the whole document before the decoder's own depth limit
/// (128 levels of any nesting) applies, and its time grows with the square of the
/// flow depth: 400 KB of `{a: ` took 40 s, 16 MB would take hours. Nothing deeper
/// than this could be decoded anyway, so refusing it up front loses nothing.
pub const MAX_FLOW_DEPTH: usize = 128;

/// Whether `text` opens more than [`MAX_FLOW_DEPTH`] flow collections inside each
/// other, found by a linear scan that knows where YAML lets a collection start:
/// anywhere inside a flow collection, and at the start of a node outside one
/// (after indentation, `- `, `: `, `? `, an anchor or a tag), never inside quoted
/// scalars, block scalars (`|`, `>`) or comments. It counts no more than the
/// parser would, so a document it passes is never refused for what it is not.
fn flow_too_deep(text: &[u8]) -> bool {
    let n = text.len();
    let blank_after = |j: usize| j >= n || matches!(text[j], b' ' | b'\t' | b'\n' | b'\r');
    let to_line_end = |mut j: usize| {
        while j < n && text[j] != b'\n' {
            j += 1;
        }
        j
    };
    let (mut depth, mut i) = (0usize, 0usize);
    let mut node_start = true;
    let mut line_indent = 0;
    let mut line_start_at = 0;
    // Inside a block scalar: the indentation of the line that started it (-1 when
    // the scalar is the whole document: then every line is its content).
    let mut block_scalar: Option<isize> = None;
    let mut line_start = true;
    while i < n {
        if line_start {
            line_start = false;
            let mut j = i;
            while j < n && text[j] == b' ' {
                j += 1;
            }
            let indent = j - i;
            if let Some(parent) = block_scalar {
                let blank = j >= n || matches!(text[j], b'\n' | b'\r');
                if blank || indent as isize > parent {
                    i = to_line_end(j) + 1;
                    line_start = true;
                    continue;
                }
                block_scalar = None;
            }
            line_indent = indent;
            line_start_at = i;
            node_start = true;
            i = j;
            continue;
        }
        let c = text[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b'#' if i == 0 || matches!(text[i - 1], b' ' | b'\t') => {
                i = to_line_end(i);
                continue;
            }
            b'\'' | b'"' if node_start => {
                // A quoted scalar, perhaps over several lines.
                let mut j = i + 1;
                while j < n {
                    if c == b'"' && text[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if text[j] == c {
                        if c == b'\'' && j + 1 < n && text[j + 1] == b'\'' {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j += 1;
                }
                i = j + 1;
                node_start = false;
                continue;
            }
            b'[' | b'{' if depth > 0 || node_start => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return true;
                }
                node_start = true;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                node_start = false;
            }
            b',' if depth > 0 => node_start = true,
            b':' if depth > 0 || blank_after(i + 1) => node_start = true,
            b'-' | b'?' if node_start && depth == 0 && blank_after(i + 1) => {}
            b'|' | b'>' if node_start && depth == 0 => {
                let line = &text[line_start_at..i];
                let root = matches!(line.trim_ascii(), b"" | b"---");
                block_scalar = Some(if root { -1 } else { line_indent as isize });
                i = to_line_end(i);
                continue;
            }
            b'&' | b'!' if node_start => {
                while i < n && !matches!(text[i], b' ' | b'\t' | b'\n') {
                    i += 1;
                }
                continue;
            }
            b' ' | b'\t' | b'\r' => {}
            _ => node_start = false,
        }
        i += 1;
    }
    false
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
        let mut huge = sample();
        huge.description = "x".repeat(MAX_DOCUMENT);
        assert!(matches!(encode(&huge), Err(CodecError::TooLarge(_))));
        let deep_maps = format!("{}x{}", "{a: ".repeat(100_000), "}".repeat(100_000));
        assert!(matches!(
            decode::<serde_yaml::Value>(deep_maps.as_bytes()),
            Err(CodecError::TooDeep)
        ));
    }

    #[test]
    fn the_depth_scan_counts_only_real_collections() {
        let opens = "[".repeat(MAX_FLOW_DEPTH + 5);
        let deep = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
        assert!(!flow_too_deep(deep(MAX_FLOW_DEPTH).as_bytes()));
        assert!(flow_too_deep(deep(MAX_FLOW_DEPTH + 1).as_bytes()));
        assert!(flow_too_deep(format!("a:\n  - {opens}").as_bytes()));
        assert!(flow_too_deep(format!("a: &x !!seq {opens}").as_bytes()));
        // Brackets in text are not collections, wherever text may hold them.
        for doc in [
            format!("title: a {opens}\n"),
            format!("title: '{opens}'\n"),
            format!("title: \"{opens}\\\" {opens}\"\n"),
            format!("description: |-\n  {opens}\n\n  {opens}\nnext: 1\n"),
            format!("- >\n  {opens}\n"),
            format!("|\n{opens}\n"),
            format!("a: 1 # {opens}\n"),
            format!("['it''s {opens}']"),
        ] {
            assert!(!flow_too_deep(doc.as_bytes()), "{doc}");
        }
        // And what the codec writes always passes.
        let mut b = sample();
        b.description = format!("{opens}\n{opens}\n");
        b.title = opens.clone();
        b.labels.insert(opens.clone());
        let text = encode(&b).expect("encodes");
        assert_eq!(decode::<Bead>(text.as_bytes()).expect("decodes"), b);
    }
}
