//! A YAML writer that writes, byte for byte, what serde_norway writes for the shapes
//! the store's documents have, or says it is not sure.
//!
//! serde_norway hands every value to libyaml's emitter, which spends most of a
//! document deciding how to write each string; a pour encodes a thousand documents,
//! and that was most of its work. This writer makes the same decisions for the
//! common case directly: block mappings and sequences, empty ones as `{}` and `[]`,
//! integers, booleans, nulls, and strings written plain, single-quoted or as a
//! literal block. It follows libyaml's emitter step for step (the same indentation,
//! column and whitespace state, the same analysis of each string), so its text is
//! what serde_norway would give. Whatever it does not write (a string libyaml would
//! double-quote, one that might read as a number, a float, a tagged enum, a key
//! that is not a short scalar) makes it give up, and the caller asks serde_norway.

use std::fmt::Display;

use serde::ser::{self, Serialize};

/// The text serde_norway would write for `value`, or `None` when this writer is not
/// sure of it.
pub(super) fn to_string<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let mut e = Emitter {
        out: String::with_capacity(512),
        indent: -1,
        indents: Vec::with_capacity(8),
        column: 0,
        whitespace: true,
        indention: true,
        at: At::Root,
    };
    value.serialize(&mut e).ok()?;
    // The document's implicit end.
    e.write_indent();
    Some(e.out)
}

/// Gave up: serde_norway decides.
#[derive(Debug)]
pub(super) struct Unsure;

impl std::fmt::Display for Unsure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not written by the fast writer")
    }
}

impl std::error::Error for Unsure {}

impl ser::Error for Unsure {
    fn custom<T: Display>(_: T) -> Unsure {
        Unsure
    }
}

/// Where the node being written stands (libyaml's root, mapping and simple-key
/// contexts).
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Root,
    Key,
    Value,
    Item,
}

/// How serde_norway asks for a string to be written.
enum Asked {
    /// As libyaml likes (plain when it may be).
    Any,
    /// Quoted, because plain it would read as something else.
    Quoted,
    /// As a literal block: it has a line break.
    Literal,
}

/// libyaml's emitter state, for block collections and unwrapped scalars.
struct Emitter {
    out: String,
    indent: i32,
    indents: Vec<i32>,
    /// Characters on the current line (libyaml counts characters, not bytes).
    column: usize,
    whitespace: bool,
    indention: bool,
    at: At,
}

/// The best indentation serde_norway leaves libyaml at.
const INDENT: i32 = 2;

/// The longest key libyaml writes as a simple key (`key: value`), in bytes.
const MAX_SIMPLE_KEY: usize = 128;

impl Emitter {
    fn put(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.out.push(' ');
            self.column += 1;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, s: &str, need_space: bool, is_space: bool, is_indention: bool) {
        if need_space && !self.whitespace {
            self.put(" ");
        }
        self.put(s);
        self.whitespace = is_space;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if !indentless {
            self.indent += INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    /// A scalar libyaml is asked to write plain (numbers, booleans, null).
    fn plain(&mut self, text: &str) -> Result<(), Unsure> {
        self.string(text, Some(Asked::Any))
    }

    /// A string as serde_norway writes it; `asked` when the caller knows the style
    /// serde_norway asks for.
    fn string(&mut self, s: &str, asked: Option<Asked>) -> Result<(), Unsure> {
        let a = analyze(s).ok_or(Unsure)?;
        let asked = match asked {
            Some(asked) => asked,
            None => asked_for(s, &a)?,
        };
        let key = self.at == At::Key;
        if key && (a.multiline || s.len() > MAX_SIMPLE_KEY) {
            return Err(Unsure);
        }
        self.increase_indent(true, false);
        match asked {
            Asked::Literal if a.block && !key => self.literal(s)?,
            Asked::Any if a.block_plain => {
                if !self.whitespace && !s.is_empty() {
                    self.put(" ");
                }
                self.out.push_str(s);
                self.column += a.chars;
                self.whitespace = false;
                self.indention = false;
            }
            Asked::Any | Asked::Quoted if a.single_quoted => self.single_quoted(s),
            _ => return Err(Unsure),
        }
        self.pop_indent();
        Ok(())
    }

    fn single_quoted(&mut self, s: &str) {
        self.write_indicator("'", true, false, false);
        for (i, part) in s.split('\'').enumerate() {
            if i > 0 {
                self.put("''");
            }
            self.put(part);
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, s: &str) -> Result<(), Unsure> {
        // `+` keeps trailing blank lines, and leaves the stream open-ended: libyaml then
        // ends the stream with `...`. serde_norway decides those.
        if s.ends_with("\n\n") || s == "\n" {
            return Err(Unsure);
        }
        self.write_indicator("|", true, false, false);
        if s.starts_with([' ', '\n']) {
            self.write_indicator("2", false, false, false);
        }
        if !s.ends_with('\n') {
            self.write_indicator("-", false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for line in s.split_inclusive('\n') {
            let (text, ends) = match line.strip_suffix('\n') {
                Some(t) => (t, true),
                None => (line, false),
            };
            if !text.is_empty() {
                if breaks {
                    self.write_indent();
                }
                self.put(text);
                self.indention = false;
            }
            if ends {
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                breaks = false;
            }
        }
        Ok(())
    }

    fn empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    /// Starts a block mapping of `len` entries (`{}` when none).
    fn mapping(&mut self, len: Option<usize>) -> Result<Collection<'_>, Unsure> {
        let len = len.ok_or(Unsure)?;
        if self.at == At::Key {
            return Err(Unsure);
        }
        if len == 0 {
            self.empty("{", "}");
        } else {
            self.increase_indent(false, false);
        }
        Ok(Collection {
            e: self,
            len,
            seen: 0,
        })
    }

    /// Starts a block sequence of `len` items (`[]` when none).
    fn sequence(&mut self, len: Option<usize>) -> Result<Collection<'_>, Unsure> {
        let len = len.ok_or(Unsure)?;
        if self.at == At::Key {
            return Err(Unsure);
        }
        if len == 0 {
            self.empty("[", "]");
        } else {
            let indentless = self.at == At::Value && !self.indention;
            self.increase_indent(false, indentless);
        }
        Ok(Collection {
            e: self,
            len,
            seen: 0,
        })
    }
}

/// How serde_norway asks for `s` (analysed as `a`) to be written: quoted when plain
/// it would read as null, a boolean or a number; a literal block when it has a line
/// break. `Unsure` for what might read as a number (serde_norway's number grammar is
/// not copied).
fn asked_for(s: &str, a: &Analysis) -> Result<Asked, Unsure> {
    if a.multiline {
        return Ok(Asked::Literal);
    }
    if matches!(
        s,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
    ) {
        return Ok(Asked::Quoted);
    }
    let numeric_start = s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'));
    let number_alphabet = || {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'_'))
    };
    if numeric_start && number_alphabet() {
        return Err(Unsure);
    }
    Ok(Asked::Any)
}

/// What libyaml's analysis of a scalar allows, for block context.
struct Analysis {
    /// Characters (libyaml's columns).
    chars: usize,
    multiline: bool,
    block_plain: bool,
    single_quoted: bool,
    block: bool,
}

/// Whether libyaml counts `c` printable (others make it double-quote the string).
fn printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{feff}'
}

/// libyaml's `yaml_emitter_analyze_scalar`, for strings whose only line break is
/// `\n`; `None` for any other string (a character it would escape, `\r`, U+2028 or
/// U+2029). One pass over the bytes: only ASCII characters are indicators, spaces or
/// breaks, so a character of several bytes is checked for printability and otherwise
/// counts as an ordinary character.
fn analyze(s: &str) -> Option<Analysis> {
    let b = s.as_bytes();
    let mut indicators = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut break_space, mut space_break) = (false, false, false);
    let (mut edge_blank, mut trailing_space) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_space = true;
    let mut chars = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x80 {
            if c & 0xc0 == 0x80 {
                continue;
            }
            chars += 1;
            let ch = s.get(i..)?.chars().next()?;
            if !printable(ch) || matches!(ch, '\u{2028}' | '\u{2029}') {
                return None;
            }
            (previous_space, previous_break, preceded_by_space) = (false, false, false);
            continue;
        }
        chars += 1;
        if !(c == b'\n' || (b' '..=b'~').contains(&c)) {
            return None;
        }
        let followed_by_space = matches!(b.get(i + 1), None | Some(b' ' | b'\n'));
        let (first, last) = (i == 0, i + 1 == b.len());
        if first {
            indicators |= matches!(
                c,
                b'#' | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            );
            indicators |= matches!(c, b'?' | b':' | b'-') && followed_by_space;
        } else {
            indicators |= c == b':' && followed_by_space;
            indicators |= c == b'#' && preceded_by_space;
        }
        match c {
            b' ' => {
                edge_blank |= first || last;
                trailing_space |= last;
                break_space |= previous_break;
                (previous_space, previous_break) = (true, false);
            }
            b'\n' => {
                line_breaks = true;
                edge_blank |= first || last;
                space_break |= previous_space;
                (previous_space, previous_break) = (false, true);
            }
            _ => (previous_space, previous_break) = (false, false),
        }
        preceded_by_space = matches!(c, b' ' | b'\n');
    }
    Some(Analysis {
        chars,
        multiline: line_breaks,
        block_plain: !(edge_blank || break_space || space_break || line_breaks || indicators),
        single_quoted: !(break_space || space_break),
        // libyaml allows no block for the empty string.
        block: !(b.is_empty() || trailing_space || space_break),
    })
}

/// Whether libyaml writes `key` plain as a simple key and serde_norway asks for no
/// quotes: lowercase ASCII letters, digits and `_`, starting with a letter or `_`, at
/// most [`MAX_SIMPLE_KEY`] long, and none of the words that read as null or a boolean.
fn plain_word(key: &str) -> bool {
    let b = key.as_bytes();
    matches!(b.first(), Some(b'a'..=b'z' | b'_'))
        && b.len() <= MAX_SIMPLE_KEY
        && b.iter()
            .all(|c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'_'))
        && !matches!(key, "null" | "true" | "false")
}

/// A block mapping or sequence being written.
struct Collection<'a> {
    e: &'a mut Emitter,
    len: usize,
    seen: usize,
}

impl Collection<'_> {
    fn entry_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), Unsure> {
        self.seen += 1;
        if self.seen > self.len {
            return Err(Unsure);
        }
        self.e.write_indent();
        self.e.at = At::Key;
        key.serialize(&mut *self.e)
    }

    /// A struct's field name: a plain word (see [`plain_word`]) is written as the
    /// analysis of a string would write it, without analysing it; a bead's dozen field
    /// names are most of the strings of its document.
    fn field_key(&mut self, key: &'static str) -> Result<(), Unsure> {
        if !plain_word(key) {
            return self.entry_key(key);
        }
        self.seen += 1;
        if self.seen > self.len {
            return Err(Unsure);
        }
        let e = &mut *self.e;
        e.write_indent();
        e.at = At::Key;
        if !e.whitespace {
            e.put(" ");
        }
        e.out.push_str(key);
        e.column += key.len();
        e.whitespace = false;
        e.indention = false;
        Ok(())
    }

    fn entry_value<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), Unsure> {
        self.e.write_indicator(":", false, false, false);
        self.e.at = At::Value;
        value.serialize(&mut *self.e)
    }

    fn item<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), Unsure> {
        self.seen += 1;
        if self.seen > self.len {
            return Err(Unsure);
        }
        self.e.write_indent();
        self.e.write_indicator("-", true, false, true);
        self.e.at = At::Item;
        value.serialize(&mut *self.e)
    }

    /// Ends the collection; serde's length must have been the truth (libyaml looks
    /// ahead to see whether a collection is empty).
    fn end(self) -> Result<(), Unsure> {
        if self.seen != self.len {
            return Err(Unsure);
        }
        if self.len > 0 {
            self.e.pop_indent();
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Emitter {
    type Ok = ();
    type Error = Unsure;
    type SerializeSeq = Collection<'a>;
    type SerializeTuple = Collection<'a>;
    type SerializeTupleStruct = Collection<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Unsure>;
    type SerializeMap = Collection<'a>;
    type SerializeStruct = Collection<'a>;
    type SerializeStructVariant = ser::Impossible<(), Unsure>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsure> {
        self.plain(if v { "true" } else { "false" })
    }

    fn serialize_i8(self, v: i8) -> Result<(), Unsure> {
        self.serialize_i64(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<(), Unsure> {
        self.serialize_i64(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<(), Unsure> {
        self.serialize_i64(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result<(), Unsure> {
        self.plain(&v.to_string())
    }

    fn serialize_i128(self, v: i128) -> Result<(), Unsure> {
        self.plain(&v.to_string())
    }

    fn serialize_u8(self, v: u8) -> Result<(), Unsure> {
        self.serialize_u64(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<(), Unsure> {
        self.serialize_u64(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<(), Unsure> {
        self.serialize_u64(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<(), Unsure> {
        self.plain(&v.to_string())
    }

    fn serialize_u128(self, v: u128) -> Result<(), Unsure> {
        self.plain(&v.to_string())
    }

    fn serialize_f32(self, _: f32) -> Result<(), Unsure> {
        Err(Unsure)
    }

    fn serialize_f64(self, _: f64) -> Result<(), Unsure> {
        Err(Unsure)
    }

    fn serialize_char(self, _: char) -> Result<(), Unsure> {
        Err(Unsure)
    }

    fn serialize_str(self, v: &str) -> Result<(), Unsure> {
        self.string(v, None)
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsure> {
        Err(Unsure)
    }

    fn serialize_none(self) -> Result<(), Unsure> {
        self.plain("null")
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsure> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Unsure> {
        self.plain("null")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsure> {
        self.plain("null")
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsure> {
        self.string(variant, None)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsure> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsure> {
        Err(Unsure)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Collection<'a>, Unsure> {
        self.sequence(len)
    }

    fn serialize_tuple(self, len: usize) -> Result<Collection<'a>, Unsure> {
        self.sequence(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Collection<'a>, Unsure> {
        self.sequence(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsure> {
        Err(Unsure)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Collection<'a>, Unsure> {
        self.mapping(len)
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Collection<'a>, Unsure> {
        self.mapping(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsure> {
        Err(Unsure)
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Unsure> {
        let s = value.to_string();
        // serde_norway may read a leading `!` as a tag here.
        if s.starts_with('!') {
            return Err(Unsure);
        }
        self.string(&s, None)
    }
}

/// A sequence's items, for the serde traits that write one.
macro_rules! items {
    ($($t:ident::$f:ident),+) => {$(
        impl ser::$t for Collection<'_> {
            type Ok = ();
            type Error = Unsure;

            fn $f<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsure> {
                self.item(value)
            }

            fn end(self) -> Result<(), Unsure> {
                Collection::end(self)
            }
        }
    )+};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl ser::SerializeMap for Collection<'_> {
    type Ok = ();
    type Error = Unsure;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsure> {
        self.entry_key(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsure> {
        self.entry_value(value)
    }

    fn end(self) -> Result<(), Unsure> {
        Collection::end(self)
    }
}

impl ser::SerializeStruct for Collection<'_> {
    type Ok = ();
    type Error = Unsure;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsure> {
        self.field_key(key)?;
        self.entry_value(value)
    }

    fn end(self) -> Result<(), Unsure> {
        Collection::end(self)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;
    use serde_json::Value as Json;

    use super::to_string;
    use crate::model::bd::BdRecord;
    use crate::model::{Bead, BeadId, Comment, DepKind, Dependency};

    /// Whether the writer gave serde_norway's text for `value` (`true`), or left it to
    /// serde_norway (`false`); a different text fails the test.
    fn same<T: serde::Serialize>(value: &T) -> Result<bool, TestCaseError> {
        let theirs = serde_yaml::to_string(value);
        match to_string(value) {
            Some(ours) => {
                let theirs = theirs.map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(ours, theirs);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Pieces that make YAML quote, escape, fold or misread a string.
    const HOSTILE: &[&str] = &[
        "",
        " ",
        "  ",
        "\n",
        "\n\n",
        " \n",
        "\n ",
        ": ",
        ":",
        "#",
        " #",
        "'",
        "''",
        "\"",
        "-",
        "- ",
        "--- ",
        "---",
        "...",
        "?",
        "? ",
        "!",
        "!tag",
        "&a",
        "*a",
        "|",
        ">",
        "%",
        "@",
        "`",
        ",",
        "[",
        "]",
        "{",
        "}",
        "\t",
        "\r",
        "\r\n",
        "\u{85}",
        "\u{2028}",
        "\u{2029}",
        "\u{feff}",
        "\u{a0}",
        "\u{7f}",
        "\u{0}",
        "\u{1b}",
        "\u{fffe}",
        "é",
        "日本",
        "😀",
        "true",
        "False",
        "NULL",
        "null",
        "~",
        "yes",
        "no",
        "on",
        "1",
        "0",
        "-1",
        "+1",
        "012",
        "0x1F",
        "0o7",
        "0b1",
        "1e5",
        "1.5",
        ".5",
        "5.",
        ".inf",
        "-.inf",
        ".nan",
        "inf",
        "nan",
        "1_000",
        "2026-01-01",
        "2026-01-01T00:00:00Z",
        "12:30",
        "a",
        "key",
        "x y",
        "\\",
        "\\n",
    ];

    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => prop::sample::select(HOSTILE).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            2 => "[a-z0-9 ]{0,6}",
        ];
        prop::collection::vec(piece, 0..6).prop_map(|p| p.concat())
    }

    fn json() -> impl Strategy<Value = Json> {
        let leaf = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            any::<i64>().prop_map(Json::from),
            any::<u64>().prop_map(Json::from),
            (-1e6f64..1e6).prop_map(Json::from),
            hostile().prop_map(Json::String),
        ];
        leaf.prop_recursive(4, 24, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
                prop::collection::btree_map(hostile(), inner, 0..4)
                    .prop_map(|m| Json::Object(m.into_iter().collect())),
            ]
        })
    }

    fn bead() -> impl Strategy<Value = Bead> {
        let comment =
            (hostile(), hostile(), 0i64..4_000_000_000).prop_map(|(author, text, t)| Comment {
                id: "c1".into(),
                author,
                created_at: chrono::DateTime::from_timestamp(t, 0).unwrap_or_default(),
                text,
            });
        (
            (hostile(), hostile(), hostile(), prop::option::of(hostile())),
            prop::collection::btree_set(hostile(), 0..4),
            prop::collection::vec(comment, 0..3),
            prop::collection::btree_map(hostile(), json(), 0..3),
            (
                prop::option::of(hostile()),
                0u8..5,
                any::<bool>(),
                0u32..2_000_000,
            ),
        )
            .prop_map(
                |((title, description, notes, assignee), labels, comments, extra, rest)| {
                    let (close_reason, priority, blocks, nanos) = rest;
                    let now = chrono::DateTime::from_timestamp(1_700_000_000, nanos * 500)
                        .unwrap_or_default();
                    let mut b = Bead::new(BeadId::parse("bd-a1").expect("id"), title, "me", now);
                    b.description = description;
                    b.notes = notes;
                    b.assignee = assignee;
                    b.labels = labels;
                    b.comments = comments;
                    b.extra = extra;
                    b.close_reason = close_reason;
                    b.priority = priority;
                    if blocks {
                        b.add_dependency(Dependency {
                            id: BeadId::parse("bd-b2").expect("id"),
                            kind: DepKind::Blocks,
                        });
                    }
                    b
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn strings_are_written_as_serde_norway_writes_them(s in hostile()) {
            same(&s)?;
            same(&vec![s.clone(), s.clone()])?;
            same(&std::collections::BTreeMap::from([(s.clone(), s.clone())]))?;
            same(&vec![vec![s.clone()], vec![]])?;
        }

        #[test]
        fn trees_are_written_as_serde_norway_writes_them(v in json()) {
            same(&v)?;
            let tree = crate::store::codec::to_value(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            same(&tree)?;
            same(&serde_json::json!({ "a": v.clone(), "b": [v.clone(), {"c": v}] }))?;
        }

        #[test]
        fn beads_are_written_as_serde_norway_writes_them(b in bead()) {
            same(&b)?;
            // Every key written is a field's: nothing of it passes for an entry of
            // another writer's, carried into the next document.
            let text = crate::store::codec::encode(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut carried = Vec::new();
            super::super::keep_unknown(text.as_bytes(), super::super::field_names::<Bead>(), &mut carried);
            prop_assert!(carried.is_empty(), "{}", String::from_utf8_lossy(&carried));
        }
    }

    #[test]
    fn plain_documents_take_the_fast_way() -> Result<(), TestCaseError> {
        let now = chrono::DateTime::from_timestamp(1_700_000_000, 5_000).unwrap_or_default();
        let mut b = Bead::new(
            BeadId::parse("bd-a1").expect("id"),
            "A: title".into(),
            "me",
            now,
        );
        b.description = "Step one.\n\n  indented\nlast line\n".into();
        b.labels.insert("true".into());
        b.labels.insert("it's".into());
        assert!(
            same(&b)?,
            "a bead with ordinary text is written by the fast writer"
        );
        assert!(!same(&1.5f64)?, "floats are left to serde_norway");
        assert!(
            !same(&"12")?,
            "what may read as a number is left to serde_norway"
        );
        assert!(
            !same(&"a\tb")?,
            "what libyaml escapes is left to serde_norway"
        );
        Ok(())
    }

    #[test]
    fn field_names_are_written_as_serde_norway_writes_them() -> Result<(), TestCaseError> {
        #[derive(serde::Serialize)]
        struct Words {
            r#true: u8,
            null: u8,
            r#false: u8,
            y: u8,
            _x: u8,
            a1_b: u8,
            #[serde(rename = "True")]
            cap: u8,
            #[serde(rename = "a b")]
            spaced: u8,
            #[serde(rename = "x-y")]
            dashed: u8,
            #[serde(rename = "#x")]
            hash: u8,
            #[serde(rename = "é")]
            accented: u8,
        }
        let w = Words {
            r#true: 1,
            null: 2,
            r#false: 3,
            y: 4,
            _x: 5,
            a1_b: 6,
            cap: 7,
            spaced: 8,
            dashed: 9,
            hash: 10,
            accented: 11,
        };
        assert!(same(&w)?, "field names are written by the fast writer");
        Ok(())
    }

    /// Every record of bd's own tracker (the copy in tests/, and the large export
    /// beside the repository when it is there), as a bead.
    #[test]
    fn real_beads_are_written_as_serde_norway_writes_them() -> Result<(), TestCaseError> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = [
            root.join("tests/fixtures/bd-issues-704.jsonl"),
            root.join("../shared/fixtures/bd-issues-5722.jsonl"),
        ];
        let (mut fast, mut all) = (0, 0);
        for file in files.iter().filter(|f| f.exists()) {
            let text = std::fs::read_to_string(file).expect("fixture reads");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let bead = BdRecord::parse(line).and_then(|r| r.to_bead());
                let Ok(bead) = bead else { continue };
                all += 1;
                fast += usize::from(same(&bead)?);
            }
        }
        assert!(all >= 700, "{all} beads read");
        assert!(
            fast * 10 >= all * 9,
            "{fast} of {all} written by the fast writer"
        );
        Ok(())
    }
}
