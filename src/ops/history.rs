//! The history of the store, or of one bead, with what changed in each step.

use similar::TextDiff;

use super::Result;
use crate::model::{Bead, BeadId, Timestamp};
use crate::store::{DocChange, ObjectId, Store, refs};

/// One step of the history.
#[derive(Clone, Debug)]
pub struct LogEntry {
    /// The store commit.
    pub commit: String,
    /// Who made it.
    pub author: String,
    /// Their email.
    pub email: String,
    /// When.
    pub time: Timestamp,
    /// The commit message.
    pub message: String,
    /// The documents it changed.
    pub changes: Vec<LogChange>,
    /// How `verify` judged it, where the log was asked for with its evidence (a
    /// session's log).
    pub evidence: Option<Evidence>,
}

/// How `verify` judged one commit of a log: whether its signature makes it the
/// provable act of its author, and the key that signed it.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// The verdict.
    pub verdict: crate::model::Trust,
    /// The key that signed it, if the signature parsed.
    pub signer: Option<String>,
}

/// One document changed by a step.
#[derive(Clone, Debug)]
pub struct LogChange {
    /// The document's path in the store's tree.
    pub path: String,
    /// Whether it was added, modified or removed.
    pub kind: ChangeKind,
    /// A unified diff of the document, when the history of one bead was asked for.
    pub diff: Option<String>,
}

crate::model::word_enum!(
    /// How a step changed a document.
    ChangeKind, "change", {
        /// The document is new.
        Added = "added",
        /// The document changed.
        Modified = "modified",
        /// The document went away.
        Removed = "removed",
    }
);

/// The history of the store (or of bead `id`), newest first, at most `limit` steps.
pub fn log(store: &Store, id: Option<&BeadId>, limit: usize) -> Result<Vec<LogEntry>> {
    let head = store.require_head()?;
    let path = id.map(refs::bead_path);
    let keep = path.clone().map(|p| move |c: &DocChange| c.path == p);
    let keep_ref: Option<&dyn Fn(&DocChange) -> bool> = match &keep {
        Some(f) => Some(f),
        None => None,
    };
    let entries = store.history(&head, keep_ref, limit)?;
    // An id the store has never held is a mistake, not an empty history.
    if let Some(id) = id
        && entries.is_empty()
        && store.read_path(head.tree, &refs::bead_path(id))?.is_none()
    {
        return Err(super::BeadError::NotFound(id.clone()).into());
    }
    entries
        .into_iter()
        .map(|e| {
            let changes = e
                .changes
                .iter()
                .map(|c| {
                    Ok(LogChange {
                        path: c.path.clone(),
                        kind: change_kind(c),
                        diff: if path.is_some() {
                            Some(doc_diff(store, c)?)
                        } else {
                            None
                        },
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(LogEntry {
                commit: e.commit.to_string(),
                author: e.author,
                email: e.email,
                time: Timestamp::from_timestamp(e.time, 0).unwrap_or_default(),
                message: e.message,
                changes,
                evidence: None,
            })
        })
        .collect()
}

/// One state of a bead: the store commit that made it, who made it and when, and
/// the bead as that commit left it (`None` where the commit removed its document).
#[derive(Clone, Debug)]
pub struct BeadVersion {
    /// The store commit.
    pub commit: String,
    /// Who made it.
    pub author: String,
    /// When.
    pub time: Timestamp,
    /// The bead as it was after the commit.
    pub bead: Option<Bead>,
}

/// The states of bead `id` at each commit of the store's history that changed it,
/// newest first, at most `limit` of them (bd's `history`). An id the store has never
/// held has no states: an empty list, as bd answers.
pub fn bead_history(store: &Store, id: &BeadId, limit: usize) -> Result<Vec<BeadVersion>> {
    let head = store.require_head()?;
    let path = refs::bead_path(id);
    let keep = |c: &DocChange| c.path == path;
    let entries = store.history(&head, Some(&keep), limit)?;
    entries
        .into_iter()
        .map(|e| {
            let blob = e.changes.first().and_then(|c| c.new);
            Ok(BeadVersion {
                commit: e.commit.to_string(),
                author: e.author,
                time: Timestamp::from_timestamp(e.time, 0).unwrap_or_default(),
                bead: blob.map(|b| store.bead_in_blob(id, b)).transpose()?,
            })
        })
        .collect()
}

fn doc_diff(store: &Store, c: &DocChange) -> Result<String> {
    let read = |id: Option<ObjectId>| -> Result<String> {
        Ok(match id {
            Some(id) => String::from_utf8_lossy(&store.read_blob(id)?).into_owned(),
            None => String::new(),
        })
    };
    let (old, new) = (read(c.old)?, read(c.new)?);
    Ok(TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(2)
        .to_string())
}

/// A history entry as the log shows it, listing the documents changed without diffs.
pub(crate) fn entry_without_diffs(e: crate::store::HistoryEntry) -> LogEntry {
    LogEntry {
        commit: e.commit.to_string(),
        time: Timestamp::from_timestamp(e.time, 0).unwrap_or_default(),
        changes: e
            .changes
            .iter()
            .map(|c| LogChange {
                path: c.path.clone(),
                kind: change_kind(c),
                diff: None,
            })
            .collect(),
        author: e.author,
        email: e.email,
        message: e.message,
        evidence: None,
    }
}

fn change_kind(c: &DocChange) -> ChangeKind {
    match (c.old, c.new) {
        (None, _) => ChangeKind::Added,
        (_, None) => ChangeKind::Removed,
        _ => ChangeKind::Modified,
    }
}
