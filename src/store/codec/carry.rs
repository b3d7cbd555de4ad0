//! What a document holds beyond the fields of its type, carried into the document
//! that replaces it: entries a newer git-beads, another tool or a hand edit put
//! there, which decoding into the type leaves out and encoding it would drop.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// The names of the fields `T` reads, as serde's derive lists them for a struct (none
/// for a type that is no struct).
pub fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    /// A deserializer that only asks for the fields of the struct it is given.
    struct Names<'n>(&'n mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only the names were asked for"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
            enum identifier ignored_any
        }
    }

    let mut names: &'static [&'static str] = &[];
    // The error is the point: the names are read on the way to it.
    let _ = T::deserialize(Names(&mut names));
    names
}

/// Appends to `text` (a document just encoded, a block mapping) the entries of
/// `before` (the document it replaces) whose keys are not in `known`, byte for byte
/// and in their order. Only a document of plain top-level keys in block style, as
/// git-beads writes them, is read so; from any other, nothing is carried.
pub fn keep_unknown(before: &[u8], known: &[&str], text: &mut Vec<u8>) {
    let Ok(before) = std::str::from_utf8(before) else {
        return;
    };
    let Some(entries) = entries(before) else {
        return;
    };
    for (key, entry) in entries {
        if known.contains(&key) {
            continue;
        }
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text.extend_from_slice(entry.as_bytes());
        if !entry.ends_with('\n') {
            text.push(b'\n');
        }
    }
}

/// The top-level entries of a block mapping, each as its key and its text (the key's
/// line and the lines that continue it: indented ones, a sequence's `- ` items, blank
/// lines and comments); `None` for a document of any other shape.
fn entries(doc: &str) -> Option<Vec<(&str, &str)>> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    let mut at = 0;
    for line in doc.split_inclusive('\n') {
        let continues = line.starts_with([' ', '#', '\n', '\r'])
            || line.starts_with("- ")
            || line.trim_end() == "-";
        if !continues {
            out.push((plain_key(line)?, at));
        }
        at += line.len();
    }
    let mut entries = Vec::with_capacity(out.len());
    for (k, &(key, start)) in out.iter().enumerate() {
        let end = out.get(k + 1).map_or(doc.len(), |&(_, next)| next);
        entries.push((key, &doc[start..end]));
    }
    Some(entries)
}

/// The key of a top-level line `key: …` (or `key:` ending the line) whose key is a
/// plain word: ASCII letters, digits, `_`, `-` and `.`, not starting with `-` or `.`.
fn plain_key(line: &str) -> Option<&str> {
    let (key, rest) = line.split_once(':')?;
    let plain = key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    let starts = key
        .bytes()
        .next()
        .is_some_and(|b| !matches!(b, b'-' | b'.'));
    (plain && starts && (rest.is_empty() || rest.starts_with([' ', '\n', '\r']))).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_names_are_the_ones_serde_reads() {
        let bead = field_names::<crate::model::Bead>();
        for name in ["id", "title", "type", "dependencies", "extra", "comments"] {
            assert!(bead.contains(&name), "{name} in {bead:?}");
        }
        assert!(
            !bead.contains(&"kind"),
            "the name in the document, not in Rust"
        );
        assert!(field_names::<String>().is_empty());
    }

    fn carried(before: &str, text: &str) -> String {
        let mut text = text.as_bytes().to_vec();
        keep_unknown(before.as_bytes(), &["id", "type", "labels"], &mut text);
        String::from_utf8(text).expect("utf-8")
    }

    #[test]
    fn entries_under_unknown_keys_are_carried_byte_for_byte() {
        let before = "id: a\nfuture: |-\n  two\n\n  lines\nlabels:\n- x\nnested:\n  k: [1, 2]\n- not: this\n";
        assert_eq!(
            carried(before, "id: a\ntype: task\n"),
            "id: a\ntype: task\nfuture: |-\n  two\n\n  lines\nnested:\n  k: [1, 2]\n- not: this\n"
        );
        assert_eq!(carried("id: a\nextra.x: 1", "id: a"), "id: a\nextra.x: 1\n");
    }

    #[test]
    fn documents_of_other_shapes_carry_nothing() {
        for before in [
            "{id: a, future: 1}\n",
            "---\nid: a\nfuture: 1\n",
            "id: a\n'quoted key': 1\n",
            "id: a\nurl:http://x\n",
            "- id: a\n",
        ] {
            assert_eq!(carried(before, "id: a\n"), "id: a\n", "{before:?}");
        }
    }
}
