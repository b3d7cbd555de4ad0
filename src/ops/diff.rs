//! Two states of the store compared (bd's `diff`): the beads one has and the other
//! lacks, and those that changed. A state is named by a revision of the store (bd's
//! `HEAD~2` names the store's own head) or by a moment (the store as it was then).

use chrono::{NaiveDate, NaiveTime};

use super::Result;
use super::error::HistoryError;
use super::history::ChangeKind;
use crate::model::{Bead, BeadId, Status};
use crate::store::{DocChange, Head, ObjectId, Store, refs};

/// One bead that differs between the two states.
#[derive(Clone, Debug)]
pub struct BeadDiff {
    /// The bead.
    pub id: BeadId,
    /// Added (absent or a tombstone before), removed (absent or a tombstone after) or
    /// modified.
    pub kind: ChangeKind,
    /// The bead before, unless it was added.
    pub old: Option<Bead>,
    /// The bead after, unless it was removed.
    pub new: Option<Bead>,
}

/// Two states of the store compared.
#[derive(Clone, Debug)]
pub struct StoreDiff {
    /// The commit of the first state (`None`: before the store began).
    pub from: Option<String>,
    /// The commit of the second.
    pub to: Option<String>,
    /// The beads that differ, by id.
    pub beads: Vec<BeadDiff>,
}

/// What changed in the beads from state `from` to state `to` of the store; each a
/// revision naming a store commit, or a date (`2026-12-01`, midnight UTC) or an RFC
/// 3339 time naming the store as it was then.
pub fn diff_states(store: &Store, from: &str, to: &str) -> Result<StoreDiff> {
    let head = store.require_head()?;
    let old = state(store, &head, from)?;
    let new = state(store, &head, to)?;
    let changes = store.diff(old.map(|h| h.tree), new.map(|h| h.tree))?;
    let mut beads = Vec::new();
    for change in &changes {
        if let Some(d) = bead_diff(store, change)? {
            beads.push(d);
        }
    }
    beads.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(StoreDiff {
        from: old.map(|h| h.commit.to_string()),
        to: new.map(|h| h.commit.to_string()),
        beads,
    })
}

/// How one changed document of the tree shows as a bead: a tombstone counts as no
/// bead, as bd deletes the row.
fn bead_diff(store: &Store, change: &DocChange) -> Result<Option<BeadDiff>> {
    let Some(id) = refs::bead_id_of_path(&change.path).and_then(|i| BeadId::parse(i).ok()) else {
        return Ok(None);
    };
    let read = |blob: Option<ObjectId>| -> Result<Option<Bead>> {
        let bead = blob.map(|b| store.bead_in_blob(&id, b)).transpose()?;
        Ok(bead.filter(|b: &Bead| b.status != Status::Deleted))
    };
    let (old, new) = (read(change.old)?, read(change.new)?);
    let kind = match (&old, &new) {
        (None, None) => return Ok(None),
        (None, Some(_)) => ChangeKind::Added,
        (Some(_), None) => ChangeKind::Removed,
        (Some(_), Some(_)) => ChangeKind::Modified,
    };
    Ok(Some(BeadDiff { id, kind, old, new }))
}

/// The state of the store `given` names; `None` for a moment before the store began.
fn state(store: &Store, head: &Head, given: &str) -> Result<Option<Head>> {
    if let Some(time) = moment(given) {
        return Ok(store.state_at(head, time)?);
    }
    let spec = match given.strip_prefix("HEAD") {
        // bd's HEAD is the store's head, not the code's.
        Some(rest) if rest.is_empty() || rest.starts_with(['~', '^', '@']) => {
            format!("{}{rest}", refs::MAIN.as_str())
        }
        _ => given.to_owned(),
    };
    let unknown = || HistoryError::UnknownRevision(given.to_owned());
    let commit = store.git().resolve_commit(&spec).map_err(|_| unknown())?;
    match store.state_of(commit)? {
        Some(h) => Ok(Some(h)),
        None => Err(HistoryError::NotAStoreCommit(given.to_owned()).into()),
    }
}

/// The moment a date (`2026-12-01`: its first second, UTC) or an RFC 3339 time names,
/// in seconds since the epoch.
fn moment(given: &str) -> Option<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(given) {
        return Some(t.timestamp());
    }
    let day = NaiveDate::parse_from_str(given, "%Y-%m-%d").ok()?;
    Some(day.and_time(NaiveTime::MIN).and_utc().timestamp())
}

#[cfg(test)]
mod tests {
    use super::moment;

    #[test]
    fn dates_and_times_name_moments_and_revisions_do_not() {
        assert_eq!(moment("1970-01-02"), Some(86_400));
        assert_eq!(moment("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(moment("1970-01-01T00:00:10Z"), Some(10));
        for rev in ["HEAD~1", "2026", "abc123", "2026-13-01", "refs/beads/main"] {
            assert_eq!(moment(rev), None, "{rev}");
        }
    }
}
