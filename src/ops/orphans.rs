//! Open work the code says is done (bd's `orphans`): beads still open or in progress
//! that a commit on HEAD names in its subject, as `(bd-a1)`.

use std::collections::BTreeMap;

use super::Result;
use super::core::meta;
use super::query::{ListFilter, list};
use crate::model::Status;
use crate::store::Store;

/// A bead still open that a commit of the code names.
#[derive(Clone, Debug)]
pub struct Orphan {
    /// The bead's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its status (open or in progress).
    pub status: Status,
    /// The newest commit naming it, abbreviated.
    pub commit: String,
    /// That commit's subject.
    pub subject: String,
}

/// The beads open or in progress that a commit on HEAD names in its subject, as bd
/// finds them (`(PREFIX-ID)`, the store's prefix), by id: each with the newest such
/// commit. `labels` and `labels_any` narrow the beads as `list`'s filters do.
pub fn orphans(store: &Store, labels: &[String], labels_any: &[String]) -> Result<Vec<Orphan>> {
    let filter = ListFilter {
        statuses: vec![Status::Open, Status::InProgress],
        labels: labels.to_vec(),
        labels_any: labels_any.to_vec(),
        ..ListFilter::default()
    };
    let listing = list(store, &filter)?;
    let open: BTreeMap<&str, _> = listing.beads().map(|b| (b.id(), b)).collect();
    if open.is_empty() {
        return Ok(Vec::new());
    }
    let opening = format!("({}-", meta(store)?.prefix.as_str().trim_end_matches('-'));
    let mut found: BTreeMap<&str, Orphan> = BTreeMap::new();
    for commit in store.head_subjects_with(&opening)? {
        for id in named_ids(&commit.subject, &opening) {
            let Some((&key, bead)) = open.get_key_value(id) else {
                continue;
            };
            found.entry(key).or_insert_with(|| Orphan {
                id: key.to_owned(),
                title: bead.title().to_owned(),
                status: bead.status(),
                commit: commit.short_id.clone(),
                subject: commit.subject.clone(),
            });
        }
    }
    Ok(found.into_values().collect())
}

/// The ids `subject` names in parentheses after `opening` (`(bd-`), as bd's pattern
/// `\(bd-[a-z0-9.]+\)` finds them.
fn named_ids<'s>(subject: &'s str, opening: &str) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut rest = subject;
    while let Some(at) = rest.find(opening) {
        let id_start = at + 1;
        let tail = &rest[at + opening.len()..];
        let len = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.'))
            .unwrap_or(tail.len());
        if len > 0 && tail[len..].starts_with(')') {
            out.push(&rest[id_start..at + opening.len() + len]);
        }
        rest = &rest[at + opening.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::named_ids;

    #[test]
    fn ids_are_found_in_parentheses_as_bd_finds_them() {
        let s = "fix (bd-a1) and (bd-b2.1), not bd-c3, (bd-D4) or (bd-e5 x) (bd-)(bd-f6)";
        assert_eq!(named_ids(s, "(bd-"), ["bd-a1", "bd-b2.1", "bd-f6"]);
        assert!(named_ids("nothing here", "(bd-").is_empty());
    }
}
