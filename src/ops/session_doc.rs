//! A session's document: read, written, and marked ended (which points its agent
//! away from it). The session's life (`session.rs`) and the turns its harness reports
//! (`usage.rs`) both go through it.

use super::agent::{load, save};
use super::{Result, SessionError};
use crate::model::{Actor, BeadId, EndReason, Session, Timestamp};
use crate::store::{Tx, View, refs};

/// Reads session `id`, or fails with [`SessionError::NotFound`].
pub(crate) fn load_session(tx: &View<'_>, id: &BeadId) -> Result<Session> {
    tx.doc(&refs::session_path(id))?
        .ok_or_else(|| SessionError::NotFound(id.clone()).into())
}

/// Stages `s` as its session's document.
pub(crate) fn save_session(tx: &mut Tx<'_>, s: &Session) -> Result<()> {
    Ok(tx.put_doc(&refs::session_path(&s.id), s)?)
}

/// Marks `s` ended and points its agent away from it.
pub(crate) fn finish(
    tx: &mut Tx<'_>,
    actor: &Actor,
    s: &mut Session,
    at: Timestamp,
    reason: EndReason,
    note: Option<&str>,
) -> Result<()> {
    s.end = Some(reason);
    s.ended_at = Some(at);
    s.handoff = note.map(str::to_owned);
    s.store_at_end = tx.head().map(|h| h.commit.to_string());
    let mut a = load(tx, &s.agent)?;
    if a.session.as_ref() == Some(&s.id) {
        a.session = None;
        a.updated_at = at;
        a.updated_by = actor.id.clone();
        save(tx, &a)?;
    }
    Ok(())
}
