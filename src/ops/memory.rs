//! bd's memories (`remember`, `recall`, `memories`, `forget`): insights kept in the
//! key-value store under `memory.`, where bd keeps them (`kv.memory.<key>` among the
//! settings), so they are in the store's history and shared by sync.

use std::collections::BTreeMap;

use super::{Result, kv};
use crate::model::Actor;
use crate::store::Store;

/// Where among the key-value pairs a memory's key goes (bd's `memoryPrefix`).
const PREFIX: &str = "memory.";

/// What [`remember`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remembered {
    /// The memory's key.
    pub key: String,
    /// Whether a memory of that key was there already (and is replaced).
    pub updated: bool,
}

/// The key bd makes of an insight: its first eight words, lowercase, runs of other
/// characters than ASCII letters and digits made one `-`, at most 60 bytes. Empty
/// when the insight has no letter or digit.
pub fn memory_key(insight: &str) -> String {
    let lower = insight.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty())
        .take(8)
        .collect();
    let mut slug = words.join("-");
    if slug.len() > 60 {
        slug.truncate(60);
        slug.truncate(slug.trim_end_matches('-').len());
    }
    slug
}

/// Keeps `insight` under `key` (one commit; none when it is there already).
pub fn remember(store: &Store, actor: &Actor, key: &str, insight: &str) -> Result<Remembered> {
    let stored = format!("{PREFIX}{key}");
    let updated = kv::get(store, &stored)?.is_some_and(|v| !v.is_empty());
    kv::set(store, actor, &stored, insight)?;
    Ok(Remembered {
        key: key.to_owned(),
        updated,
    })
}

/// The memory kept under `key`, if there is one.
pub fn recall(store: &Store, key: &str) -> Result<Option<String>> {
    Ok(kv::get(store, &format!("{PREFIX}{key}"))?.filter(|v| !v.is_empty()))
}

/// Removes the memory under `key` (one commit); returns what it held, or `None`
/// when there was none (and nothing is written).
pub fn forget(store: &Store, actor: &Actor, key: &str) -> Result<Option<String>> {
    let Some(value) = recall(store, key)? else {
        return Ok(None);
    };
    kv::clear(store, actor, &format!("{PREFIX}{key}"))?;
    Ok(Some(value))
}

/// Every memory, by key; with `search`, only those whose key or text holds it
/// (ignoring case).
pub fn memories(store: &Store, search: Option<&str>) -> Result<BTreeMap<String, String>> {
    let needle = search.map(str::to_lowercase).unwrap_or_default();
    Ok(kv::list(store)?
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(PREFIX)?.to_owned(), v)))
        .filter(|(k, v)| {
            needle.is_empty()
                || k.to_lowercase().contains(&needle)
                || v.to_lowercase().contains(&needle)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::memory_key;

    #[test]
    fn keys_are_made_as_bd_makes_them() {
        assert_eq!(
            memory_key("Always run tests with -race flag!"),
            "always-run-tests-with-race-flag"
        );
        assert_eq!(memory_key("a b c d e f g h i j"), "a-b-c-d-e-f-g-h");
        assert_eq!(memory_key("¿?"), "");
        let long = memory_key(&"abcdefghij ".repeat(8));
        assert!(long.len() <= 60 && !long.ends_with('-'), "{long}");
    }
}
