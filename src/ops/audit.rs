//! bd's audit log (`audit record|label`): entries of agents' interactions kept in the
//! store, one document each under `audit/`, never changed once written. A label is an
//! entry of its own that names the entry it judges. Since every entry is a path of
//! its own, two clones that append at once add different paths, and sync's tree
//! merge keeps both: nothing to merge line by line, nothing lost.

use super::Result;
use super::core::write;
use super::error::HistoryError;
use crate::model::{AUDIT_ID_PREFIX, Actor, AuditEntry, audit_id_ok, check_line};
use crate::store::{Store, refs};

/// The kind of a label entry.
pub const LABEL_KIND: &str = "label";

/// Appends `entry` to the audit log in one commit and returns it as recorded: a new
/// `int-` id unless it has one, the time now unless it has one, the acting identity
/// unless it names an actor. An id already recorded is refused (entries are never
/// replaced).
pub fn record_audit(store: &Store, actor: &Actor, mut entry: AuditEntry) -> Result<AuditEntry> {
    if entry.kind.is_empty() {
        return Err(HistoryError::NoKind.into());
    }
    check_line("kind", &entry.kind)?;
    if entry.id.is_empty() {
        entry.id = new_id()?;
    } else if !audit_id_ok(&entry.id) {
        return Err(HistoryError::BadAuditId(entry.id).into());
    }
    entry.created_at.get_or_insert_with(chrono::Utc::now);
    if entry.actor.is_empty() {
        entry.actor = actor.id.clone();
    }
    let path = refs::audit_path(&entry.id);
    write(store, actor, |tx| {
        if tx.doc::<AuditEntry>(&path)?.is_some() {
            return Err(HistoryError::AuditTaken(entry.id.clone()).into());
        }
        let what = match entry.kind.as_str() {
            LABEL_KIND => format!("label {} {}", entry.parent_id, entry.label),
            kind => kind.to_owned(),
        };
        tx.set_message(format!("audit: record {} ({what})", entry.id));
        Ok(tx.put_doc(&path, &entry)?)
    })?;
    Ok(entry)
}

/// Appends a label entry judging entry `parent` (which must be recorded) with `label`
/// and an optional `reason`.
pub fn label_audit(
    store: &Store,
    actor: &Actor,
    parent: &str,
    label: &str,
    reason: &str,
) -> Result<AuditEntry> {
    if label.is_empty() {
        return Err(HistoryError::NoLabel.into());
    }
    check_line("label", label)?;
    let head = store.require_head()?;
    let known = audit_id_ok(parent)
        && store
            .read_path(head.tree, &refs::audit_path(parent))?
            .is_some();
    if !known {
        return Err(HistoryError::NoAuditEntry(parent.to_owned()).into());
    }
    let entry = AuditEntry {
        kind: LABEL_KIND.into(),
        parent_id: parent.into(),
        label: label.into(),
        reason: reason.into(),
        ..AuditEntry::default()
    };
    record_audit(store, actor, entry)
}

/// A fresh id as bd makes one: `int-` and 128 random bits in hex.
fn new_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| HistoryError::Random(e.to_string()))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{AUDIT_ID_PREFIX}{hex}"))
}
