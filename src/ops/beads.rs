//! Operations that change beads. Each is one store transaction: one commit.

use std::collections::BTreeSet;

use super::core::change::{Ended, require_live};
use super::{
    BeadError, Edited, OpError, Result, check_bead, fresh_id, next_child, now, permit, write,
};
use crate::model::{
    Actor, Bead, BeadId, BeadType, Capability, Comment, DepKind, DepTarget, Dependency, Prefix,
    Status, check_label,
};
use crate::store::refs::{self, RefName};
use crate::store::{FORMAT, Index, Meta, Store, Tx, View};

/// Creates the store if it does not exist. Idempotent: on an existing store it
/// changes nothing and reports the prefix in use (a different `prefix` is refused).
/// Returns the prefix and whether the store was created now.
pub fn init(store: &Store, actor: &Actor, prefix: Option<Prefix>) -> Result<(Prefix, bool)> {
    write(store, actor, |tx| {
        if tx.head().is_some() {
            let meta = tx.meta()?;
            // Without a prefix asked for, the store's own is the answer (it may have
            // come from a remote, or differ from the one the directory name suggests).
            if let Some(prefix) = prefix.as_ref().filter(|p| **p != meta.prefix) {
                return Err(BeadError::PrefixMismatch {
                    stored: meta.prefix,
                    asked: prefix.clone(),
                }
                .into());
            }
            return Ok((meta.prefix, false));
        }
        let prefix = prefix
            .clone()
            .unwrap_or_else(|| super::default_prefix(store));
        tx.put_meta(&Meta {
            format: FORMAT,
            prefix: prefix.clone(),
        })?;
        tx.set_message(format!("init: beads store with prefix {prefix}"));
        Ok((prefix, true))
    })
}

/// What a new bead should be.
#[derive(Clone, Debug, Default)]
pub struct NewBead {
    /// The title (required).
    pub title: String,
    /// Long text.
    pub description: String,
    /// The type (task when unset).
    pub kind: Option<BeadType>,
    /// The status (open when unset).
    pub status: Option<Status>,
    /// The priority (2 when unset).
    pub priority: Option<u8>,
    /// Who works on it.
    pub assignee: Option<String>,
    /// Labels.
    pub labels: Vec<String>,
    /// The parent: the new bead becomes its next child (`<parent>.<n>`).
    pub parent: Option<BeadId>,
    /// Dependencies on existing beads.
    pub dependencies: Vec<Dependency>,
    /// Notes.
    pub notes: String,
    /// bd's fields kept in `extra` (`design`, `acceptance_criteria`, `external_ref`,
    /// `due_at`, `defer_until`, `estimated_minutes`).
    pub fields: Vec<(String, serde_json::Value)>,
    /// The id to give it instead of a fresh one (it must be free, and have the store's
    /// prefix or one of the `allowed_prefixes` setting unless `any_prefix`).
    pub id: Option<BeadId>,
    /// Take [`NewBead::id`] whatever its prefix (bd's `create --force`).
    pub any_prefix: bool,
    /// Make it a wisp (bd's ephemeral bead): kept on this machine's wisp ref, which
    /// sync never pushes, with an id `<prefix>-wisp-<hash>` unless [`NewBead::id`]
    /// names one.
    pub ephemeral: bool,
}

/// Creates a bead and returns it.
pub fn create(store: &Store, actor: &Actor, new: NewBead) -> Result<Bead> {
    permit(actor, Capability::Create)?;
    let stage = |main: Option<&View<'_>>, tx: &mut Tx<'_>| {
        let bead = new_bead(main.unwrap_or(tx), tx, actor, &new)?;
        tx.put_bead(&bead)?;
        tx.set_message(format!("create {}: {}", bead.id, bead.title));
        Ok::<_, OpError>(bead)
    };
    if new.ephemeral {
        // Reading main first also refuses a wisp before `init`.
        let main = store.view()?;
        return Ok(store
            .transact_on(refs::WISPS, actor, |tx| stage(Some(&main), tx))?
            .0);
    }
    write(store, actor, |tx| stage(None, tx))
}

/// The bead [`create`] would make, checked the same way, without making it.
pub fn create_preview(store: &Store, actor: &Actor, new: NewBead) -> Result<Bead> {
    permit(actor, Capability::Create)?;
    let main = store.view()?;
    let here = match new.ephemeral {
        true => store.view_of(refs::WISPS)?,
        false => store.view()?,
    };
    new_bead(&main, &here, actor, &new)
}

/// Refuses an id that has neither the store's prefix nor one the `allowed_prefixes`
/// setting (a comma list) names, as bd refuses it without `--force`. A prefix is
/// matched whole, so `hq-cv-1` may have the prefix `hq` or `hq-cv`.
fn check_prefix(tx: &View<'_>, prefix: &crate::model::Prefix, id: &BeadId) -> Result<()> {
    let has = |p: &str| {
        id.as_str()
            .strip_prefix(p)
            .is_some_and(|rest| rest.starts_with('-'))
    };
    if has(prefix.as_str()) {
        return Ok(());
    }
    let settings = tx.settings()?;
    let allowed = settings.get("allowed_prefixes").map(String::as_str);
    let mut others = allowed.unwrap_or_default().split(',').map(str::trim);
    if others.any(|p| !p.is_empty() && has(p)) {
        return Ok(());
    }
    Err(BeadError::ForeignPrefix {
        id: id.clone(),
        prefix: prefix.clone(),
    }
    .into())
}

/// The bead `new` asks for, to be written where `here` reads (the wisp ref for an
/// ephemeral bead, else `refs/beads/main`, which `main` reads; the same view then).
/// Its parent and dependencies may be on either.
pub(super) fn new_bead(
    main: &View<'_>,
    here: &View<'_>,
    actor: &Actor,
    new: &NewBead,
) -> Result<Bead> {
    let tx = main;
    let meta = tx.meta()?;
    let live = |id: &BeadId| match here.bead_exists(id)? {
        true => require_live(here, id),
        false => require_live(main, id),
    };
    let id = match (&new.id, &new.parent) {
        (Some(id), _) => {
            if !new.any_prefix {
                check_prefix(tx, &meta.prefix, id)?;
            }
            if tx.bead_exists(id)? || here.bead_exists(id)? {
                return Err(BeadError::Taken(id.clone()).into());
            }
            id.clone()
        }
        (None, _) if new.ephemeral => {
            super::molecule::wisp_id(main, here, &meta.prefix, &new.title, actor)?
        }
        (None, Some(parent)) => {
            live(parent)?;
            next_child(tx, parent)?
        }
        (None, None) => fresh_id(tx, &meta.prefix, &new.title, actor)?,
    };
    if let Some(parent) = new
        .parent
        .as_ref()
        .filter(|_| new.id.is_some() || new.ephemeral)
    {
        live(parent)?;
    }
    let mut bead = Bead::new(id, new.title.clone(), &actor.id, now());
    bead.description = new.description.clone();
    bead.notes = new.notes.clone();
    set_fields(&mut bead, &new.fields);
    bead.kind = new.kind.unwrap_or(BeadType::Task);
    bead.status = new.status.unwrap_or(Status::Open);
    super::config::check_words(tx, &[bead.kind], &[bead.status])?;
    bead.priority = new.priority.unwrap_or(2);
    bead.assignee = new.assignee.clone();
    bead.labels = new.labels.iter().cloned().collect();
    if let Some(parent) = &new.parent {
        bead.add_dependency(Dependency {
            id: parent.clone(),
            kind: DepKind::ParentChild,
        });
    }
    for dep in &new.dependencies {
        if dep.id == bead.id {
            return Err(BeadError::SelfDependency(dep.id.clone()).into());
        }
        live(&dep.id)?;
        bead.add_dependency(dep.clone());
    }
    if new.ephemeral {
        let key = super::molecule::EPHEMERAL_KEY;
        bead.extra.insert(key.into(), serde_json::Value::Bool(true));
    }
    check_bead(None, &bead)?;
    Ok(bead)
}

/// Applies `change` to each of `ids` in one commit and returns the beads as changed.
fn change_each(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    verb: &str,
    change: impl FnMut(&mut Bead) -> Result<()>,
) -> Result<Vec<Edited>> {
    let on = super::molecule::ref_for_close(store, ids)?;
    change_each_on(store, actor, on, ids, verb, change)
}

/// [`change_each`] on store ref `on`. Only the beads `change` changes are written; when
/// none is, nothing is committed. A molecule whose last unfinished step this finishes
/// is closed in the same commit, however the step was finished, and finished work
/// leaves the hook of the agent it was slung to.
fn change_each_on(
    store: &Store,
    actor: &Actor,
    on: RefName,
    ids: &[BeadId],
    verb: &str,
    mut change: impl FnMut(&mut Bead) -> Result<()>,
) -> Result<Vec<Edited>> {
    let (beads, _) = store.transact_on(on, actor, |tx| {
        change_each_in(store, tx, actor, ids, verb, &mut change)
    })?;
    Ok(beads)
}

/// The transaction of [`change_each_on`], on whatever state `tx` reads (see
/// [`core::change::change_each_in`](super::core::change::change_each_in)), with what
/// follows when beads finish: [`after_finish`].
pub(super) fn change_each_in(
    store: &Store,
    tx: &mut Tx<'_>,
    actor: &Actor,
    ids: &[BeadId],
    verb: &str,
    change: &mut dyn FnMut(&mut Bead) -> Result<()>,
) -> Result<Vec<Edited>> {
    super::core::change::change_each_in(store, tx, actor, ids, verb, change, &after_finish)
}

/// What follows, in the same commit, when a change finishes beads: a molecule whose
/// last unfinished step finished is closed, bonds waiting on the finished work go
/// on, and finished or released work leaves the hook of the agent it was slung to.
/// Returns the lines the commit message adds.
fn after_finish(
    store: &Store,
    tx: &mut Tx<'_>,
    actor: &Actor,
    ended: Ended,
) -> Result<Vec<String>> {
    let Ended { mut finished, left } = ended;
    let closed = super::molecule::advance(tx, actor, &finished)?;
    let mut notes: Vec<String> = closed
        .iter()
        .map(|m| {
            let why = m.close_reason.as_deref().unwrap_or_default();
            format!("molecule {} closed: {why}", m.id)
        })
        .collect();
    finished.extend(closed);
    notes.extend(super::bond::after_finished(store, tx, actor, &finished)?);
    finished.extend(left);
    notes.extend(super::session::release_finished(tx, actor, &finished)?);
    Ok(notes)
}

/// What `update` should change; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// New title.
    pub title: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New notes.
    pub notes: Option<String>,
    /// New status.
    pub status: Option<Status>,
    /// New priority.
    pub priority: Option<u8>,
    /// New type.
    pub kind: Option<BeadType>,
    /// New assignee; `Some("")` clears it.
    pub assignee: Option<String>,
    /// Labels to add.
    pub add_labels: Vec<String>,
    /// Labels to remove.
    pub remove_labels: Vec<String>,
    /// Claim it: in_progress and assigned to the actor, failing if someone else holds it.
    pub claim: bool,
    /// Text to add at the end of the notes, on a line of its own.
    pub append_notes: Option<String>,
    /// The labels it is to have, instead of the ones it has.
    pub set_labels: Option<Vec<String>>,
    /// bd's fields kept in `extra` (as for [`NewBead::fields`]); `null` or an empty
    /// string removes one.
    pub fields: Vec<(String, serde_json::Value)>,
    /// Edits of bd's metadata object, in order: a key set to a value, or removed
    /// (`None`).
    pub metadata: Vec<(String, Option<serde_json::Value>)>,
    /// A new parent (`Some(None)` removes the parent).
    pub parent: Option<Option<BeadId>>,
}

impl Changes {
    /// Whether anything beyond a claim is asked for.
    fn edits_fields(&self) -> bool {
        self.title.is_some()
            || self.description.is_some()
            || self.notes.is_some()
            || self.status.is_some()
            || self.priority.is_some()
            || self.kind.is_some()
            || self.assignee.is_some()
            || !self.add_labels.is_empty()
            || !self.remove_labels.is_empty()
            || self.append_notes.is_some()
            || self.set_labels.is_some()
            || !self.fields.is_empty()
            || !self.metadata.is_empty()
            || self.parent.is_some()
    }
}

/// What the changed document cannot tell: a label to remove that no bead can have, and
/// a deletion asked for as a status (the rest is checked on the changed document).
fn check_changes(c: &Changes) -> Result<()> {
    for l in &c.remove_labels {
        check_label(l)?;
    }
    if c.status == Some(Status::Deleted) {
        return Err(BeadError::DeleteByStatus.into());
    }
    Ok(())
}

/// Changes fields of beads, in one commit; asked for the values they already have,
/// it writes nothing.
pub fn update(store: &Store, actor: &Actor, ids: &[BeadId], c: Changes) -> Result<Vec<Edited>> {
    check_changes(&c)?;
    super::config::check_words(&store.view()?, c.kind.as_slice(), c.status.as_slice())?;
    if c.claim {
        permit(actor, Capability::Claim)?;
    }
    if c.edits_fields() {
        permit(actor, Capability::Update)?;
    }
    // A status set to closed closes, and one set away from it reopens: what `close`
    // and `reopen` need (and what `verify` judges such a change by).
    if c.status == Some(Status::Closed) {
        permit(actor, Capability::Close)?;
    }
    if let Some(Some(parent)) = &c.parent {
        let head = store.require_head()?;
        if store.read_bead(head.tree, parent)?.is_none() {
            return Err(BeadError::NotFound(parent.clone()).into());
        }
        if ids.contains(parent) {
            return Err(BeadError::SelfDependency(parent.clone()).into());
        }
        // A parent is a blocking link, refused as `dep add` refuses it when it
        // would close a cycle.
        let view = store.view()?;
        for id in ids {
            if let Some(path) = blocking_path(&view, parent, id)? {
                return Err(BeadError::Cycle(path).into());
            }
        }
    }
    let verb = if c.claim { "claim" } else { "update" };
    change_each(store, actor, ids, verb, |bead| {
        if c.claim {
            super::core::change::claim(bead, actor)?;
        }
        if let Some(t) = &c.title {
            bead.title = t.clone();
        }
        if let Some(d) = &c.description {
            bead.description = d.clone();
        }
        if let Some(n) = &c.notes {
            bead.notes = n.clone();
        }
        if let Some(s) = c.status {
            if bead.status == Status::Closed && s != Status::Closed {
                permit(actor, Capability::Close)?;
            }
            set_status(bead, s);
        }
        if let Some(p) = c.priority {
            bead.priority = p;
        }
        if let Some(k) = c.kind {
            bead.kind = k;
        }
        if let Some(a) = &c.assignee {
            bead.assignee = Some(a.clone()).filter(|a| !a.is_empty());
        }
        for l in &c.add_labels {
            bead.labels.insert(l.clone());
        }
        for l in &c.remove_labels {
            bead.labels.remove(l);
        }
        if let Some(labels) = &c.set_labels {
            bead.labels = labels.iter().cloned().collect();
        }
        if let Some(more) = &c.append_notes {
            if !bead.notes.is_empty() && !bead.notes.ends_with('\n') {
                bead.notes.push('\n');
            }
            bead.notes.push_str(more);
        }
        set_fields(bead, &c.fields);
        edit_metadata(bead, &c.metadata)?;
        if let Some(parent) = &c.parent {
            bead.dependencies.retain(|d| d.kind != DepKind::ParentChild);
            if let Some(p) = parent {
                bead.add_dependency(Dependency {
                    id: p.clone(),
                    kind: DepKind::ParentChild,
                });
            }
        }
        Ok(())
    })
}

/// Sets bd's fields that a bead keeps in `extra`; an empty value removes one.
fn set_fields(bead: &mut Bead, fields: &[(String, serde_json::Value)]) {
    for (k, v) in fields {
        if v.is_null() || v.as_str() == Some("") {
            bead.extra.remove(k);
        } else {
            bead.extra.insert(k.clone(), v.clone());
        }
    }
}

/// Where a bead keeps bd's metadata object.
const METADATA: &str = "metadata";

/// Applies `edits` to bd's metadata object of `bead` (made when it has none; removed
/// when no key is left). Metadata that is not an object is refused, as bd refuses it.
fn edit_metadata(bead: &mut Bead, edits: &[(String, Option<serde_json::Value>)]) -> Result<()> {
    if edits.is_empty() {
        return Ok(());
    }
    let mut map = match bead.extra.remove(METADATA) {
        None | Some(serde_json::Value::Null) => serde_json::Map::new(),
        Some(serde_json::Value::Object(map)) => map,
        Some(other) => {
            bead.extra.insert(METADATA.into(), other);
            return Err(BeadError::MetadataNotObject(bead.id.clone()).into());
        }
    };
    for (k, v) in edits {
        match v {
            Some(v) => map.insert(k.clone(), v.clone()),
            None => map.remove(k),
        };
    }
    if !map.is_empty() {
        bead.extra.insert(METADATA.into(), map.into());
    }
    Ok(())
}

/// Sets the status of `bead`, with its close time and reason as the status asks.
pub(super) fn set_status(bead: &mut Bead, status: Status) {
    if status == Status::Closed && bead.status != Status::Closed {
        bead.closed_at = Some(now());
    }
    if status != Status::Closed {
        bead.closed_at = None;
        bead.close_reason = None;
    }
    bead.status = status;
}

/// Closes beads, with an optional reason; a bead already closed is left as it is.
/// Closing the last unfinished step of a molecule closes the molecule in the same
/// commit, and what closes leaves its agent's hook; wisp steps are closed on the wisp
/// ref (see [`super::locate`]). Only this clone's store changes: claim refs a remote
/// holds for them go at its next sync (or at once with [`close_on`]).
pub fn close(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    reason: Option<&str>,
) -> Result<Vec<Edited>> {
    let how = Closing {
        reason,
        ..Closing::default()
    };
    close_with_output(store, actor, ids, &how)
}

/// Where a bead keeps the session that closed it (bd's field).
const CLOSED_BY_SESSION: &str = "closed_by_session";

/// How beads are closed: why, what they produced, in which session.
#[derive(Clone, Copy, Debug, Default)]
pub struct Closing<'a> {
    /// Why (bd's close reason).
    pub reason: Option<&'a str>,
    /// What the work produced (a step's output, the list its `on_complete` bonds a
    /// formula for each item of).
    pub output: Option<&'a serde_json::Value>,
    /// The harness session that closed them (bd's `closed_by_session`).
    pub session: Option<&'a str>,
}

/// [`close`], as `how` says: the reason, the output and the session are recorded on
/// each bead closed.
pub fn close_with_output(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    how: &Closing<'_>,
) -> Result<Vec<Edited>> {
    permit(actor, Capability::Close)?;
    let on = super::molecule::ref_for_close(store, ids)?;
    change_each_on(store, actor, on, ids, "close", closing(how))
}

/// What closing does to one bead.
pub(super) fn closing<'a>(how: &'a Closing<'a>) -> impl FnMut(&mut Bead) -> Result<()> + 'a {
    move |bead| {
        if bead.status == Status::Closed {
            return Ok(());
        }
        set_status(bead, Status::Closed);
        bead.close_reason = how.reason.map(str::to_owned);
        if let Some(o) = how.output {
            bead.extra.insert(super::bond::OUTPUT_KEY.into(), o.clone());
        }
        if let Some(s) = how.session.filter(|s| !s.is_empty()) {
            bead.extra.insert(CLOSED_BY_SESSION.into(), s.into());
        }
        Ok(())
    }
}

/// Reopens closed beads; a bead already open is left as it is. A reason is added to
/// its comments, as bd records it.
pub fn reopen(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    reason: Option<&str>,
) -> Result<Vec<Edited>> {
    permit(actor, Capability::Close)?;
    change_each(store, actor, ids, "reopen", |bead| {
        if bead.status == Status::Open {
            return Ok(());
        }
        set_status(bead, Status::Open);
        if let Some(r) = reason {
            let at = now();
            bead.comments.push(Comment {
                id: comment_id(bead, &actor.id, at),
                author: actor.id.clone(),
                created_at: at,
                text: format!("Reopened: {r}"),
            });
        }
        Ok(())
    })
}

/// Returns in-progress (or hooked) beads to the ready pool: open, with no assignee,
/// off the holder's hook, and a comment saying who released them from whom, and why.
/// A bead nobody holds is refused, and then nothing changes. Only this clone's store
/// changes: claim refs a remote holds for them go at its next sync (or at once with
/// [`release_on`]).
pub fn release(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    reason: Option<&str>,
) -> Result<Vec<Edited>> {
    permit(actor, Capability::Claim)?;
    change_each(store, actor, ids, "release", releasing(actor, reason))
}

/// What releasing does to one bead.
pub(super) fn releasing<'a>(
    actor: &'a Actor,
    reason: Option<&'a str>,
) -> impl FnMut(&mut Bead) -> Result<()> + 'a {
    let at = now();
    move |bead| {
        let held = matches!(bead.status, Status::InProgress | Status::Hooked);
        let Some(holder) = bead.assignee.take().filter(|_| held) else {
            return Err(BeadError::NotHeld {
                id: bead.id.clone(),
                status: bead.status,
            }
            .into());
        };
        set_status(bead, Status::Open);
        let text = match reason {
            Some(r) => format!("released from {holder} by {}: {r}", actor.id),
            None => format!("released from {holder} by {}", actor.id),
        };
        bead.comments.push(Comment {
            id: comment_id(bead, &actor.id, at),
            author: actor.id.clone(),
            created_at: at,
            text,
        });
        Ok(())
    }
}

/// Deletes beads: each becomes a tombstone that keeps its content and syncs as a
/// deletion, and leaves its agent's hook.
pub fn delete(
    store: &Store,
    actor: &Actor,
    ids: &[BeadId],
    reason: Option<&str>,
) -> Result<Vec<Edited>> {
    permit(actor, Capability::Delete)?;
    change_each(store, actor, ids, "delete", deleting(actor, reason))
}

/// What deleting does to one bead: it becomes a tombstone, saying who and why.
pub(super) fn deleting<'a>(
    actor: &'a Actor,
    reason: Option<&'a str>,
) -> impl FnMut(&mut Bead) -> Result<()> + 'a {
    move |bead| {
        bead.status = Status::Deleted;
        bead.deleted_at = Some(now());
        bead.deleted_by = Some(actor.id.clone());
        bead.delete_reason = reason.map(str::to_owned);
        Ok(())
    }
}

/// What [`delete`] would delete, changing nothing (bd's delete preview): the beads
/// as they are, refused for the same reasons a delete is (an unknown or already
/// deleted bead, an actor without the right).
pub fn delete_preview(store: &Store, actor: &Actor, ids: &[BeadId]) -> Result<Vec<Bead>> {
    permit(actor, Capability::Delete)?;
    let beads = super::show(store, ids)?;
    match beads.iter().find(|b| b.status == Status::Deleted) {
        Some(gone) => Err(BeadError::Deleted(gone.id.clone()).into()),
        None => Ok(beads),
    }
}

/// Adds a comment to a bead and returns it.
pub fn add_comment(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    text: &str,
    author: Option<&str>,
) -> Result<Comment> {
    permit(actor, Capability::Comment)?;
    if text.trim().is_empty() {
        return Err(BeadError::EmptyComment.into());
    }
    let author = author.unwrap_or(&actor.id);
    let mut added = None;
    change_each(
        store,
        actor,
        std::slice::from_ref(id),
        "comment on",
        |bead| {
            let at = now();
            let comment = Comment {
                id: comment_id(bead, author, at),
                author: author.to_owned(),
                created_at: at,
                text: text.to_owned(),
            };
            bead.comments.push(comment.clone());
            added = Some(comment);
            Ok(())
        },
    )?;
    added.ok_or_else(|| BeadError::NoComment.into())
}

/// A short id for a comment, unique within its bead and across clones.
pub(super) fn comment_id(bead: &Bead, author: &str, at: crate::model::Timestamp) -> String {
    let taken: BTreeSet<&str> = bead.comments.iter().map(|c| c.id.as_str()).collect();
    let prefix = Prefix::parse("c").unwrap_or_else(|_| unreachable!("c is a valid prefix"));
    loop {
        let seed = format!(
            "{}\0{author}\0{}",
            bead.id,
            at.timestamp_nanos_opt().unwrap_or_default()
        );
        let id = BeadId::generate(&prefix, seed.as_bytes(), 8);
        let short = id.as_str().trim_start_matches("c-").to_owned();
        if !taken.contains(short.as_str()) {
            return short;
        }
    }
}

/// Adds a label to a bead (unchanged when it has it already).
pub fn add_label(store: &Store, actor: &Actor, id: &BeadId, label: &str) -> Result<Edited> {
    let mut edited = update(
        store,
        actor,
        std::slice::from_ref(id),
        Changes {
            add_labels: vec![label.to_owned()],
            ..Changes::default()
        },
    )?;
    Ok(edited.remove(0))
}

/// Removes a label from a bead (unchanged when it does not have it).
pub fn remove_label(store: &Store, actor: &Actor, id: &BeadId, label: &str) -> Result<Edited> {
    let mut edited = update(
        store,
        actor,
        std::slice::from_ref(id),
        Changes {
            remove_labels: vec![label.to_owned()],
            ..Changes::default()
        },
    )?;
    Ok(edited.remove(0))
}

/// Makes `id` depend on `on`: a bead of the store, or an item of another project
/// (`external:<project>:<id>`, taken on trust: nothing here can see that project). A
/// dependency on itself, on its own parent or ancestor (bd's deadlock), on an unknown
/// bead, or one that would close a cycle of blocking kinds is refused; one that is
/// there already writes nothing.
pub fn add_dependency(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    on: &DepTarget,
    kind: DepKind,
) -> Result<Edited> {
    add_dependency_in(store, None, actor, (id, on, kind))
}

/// Makes `id` depend on `on`, a bead of another rig's store `rig` (a town's: see
/// [`super::routed_store`]), as bd records a dependency across prefixes: by its id,
/// in `id`'s store alone. `on` must be a live bead of `rig`; no cycle through the
/// other store is looked for.
pub fn add_rig_dependency(
    store: &Store,
    rig: &Store,
    actor: &Actor,
    (id, on, kind): (&BeadId, &BeadId, DepKind),
) -> Result<Edited> {
    let on = DepTarget::Bead(on.clone());
    add_dependency_in(store, Some(rig), actor, (id, &on, kind))
}

/// [`add_dependency`], a bead `on` looked for in `rig` when given, else here.
fn add_dependency_in(
    store: &Store,
    rig: Option<&Store>,
    actor: &Actor,
    (id, on, kind): (&BeadId, &DepTarget, DepKind),
) -> Result<Edited> {
    permit(actor, Capability::Update)?;
    if let DepTarget::Bead(on) = on
        && id == on
    {
        return Err(BeadError::SelfDependency(id.clone()).into());
    }
    if let DepTarget::Bead(on) = on
        && id.as_str().starts_with(&format!("{on}."))
    {
        return Err(BeadError::DependsOnAncestor {
            id: id.clone(),
            ancestor: on.clone(),
        }
        .into());
    }
    write(store, actor, |tx| depend_in(tx, rig, actor, (id, on, kind)))
}

/// The transaction of [`add_dependency_in`], on whatever `tx` reads.
pub(super) fn depend_in(
    tx: &mut Tx<'_>,
    rig: Option<&Store>,
    actor: &Actor,
    (id, on, kind): (&BeadId, &DepTarget, DepKind),
) -> Result<Edited> {
    let mut bead = require_live(tx, id)?;
    match (on, rig) {
        (DepTarget::Bead(on), Some(rig)) => require_live(&rig.view()?, on).map(drop)?,
        (DepTarget::Bead(on), None) => {
            require_live(tx, on)?;
            if kind.is_blocking()
                && let Some(path) = blocking_path(tx, on, id)?
            {
                return Err(BeadError::Cycle(path).into());
            }
        }
        (DepTarget::External(_), _) => {}
    }
    if !bead.add_target(on, kind) {
        return Ok(Edited {
            bead,
            changed: false,
        });
    }
    bead.touch(&actor.id, now());
    tx.put_bead(&bead)?;
    tx.set_message(format!("dep add: {id} {} {on} ({kind})", kind.relation()));
    Ok(Edited {
        bead,
        changed: true,
    })
}

/// Closes `id` as replaced by `by`, in one commit: bd's `duplicate --of` (`kind`
/// duplicates) and `supersede --with` (`kind` supersedes). `id` gets the `kind`
/// dependency on `by` and is closed with `reason`; a bead closed already keeps its
/// reason.
pub fn close_replaced(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    by: &BeadId,
    kind: DepKind,
    reason: &str,
) -> Result<Edited> {
    permit(actor, Capability::Update)?;
    permit(actor, Capability::Close)?;
    if id == by {
        return Err(BeadError::SelfDependency(id.clone()).into());
    }
    write(store, actor, |tx| {
        let mut bead = require_live(tx, id)?;
        require_live(tx, by)?;
        let linked = bead.add_dependency(Dependency {
            id: by.clone(),
            kind,
        });
        let closing = bead.status != Status::Closed;
        if closing {
            set_status(&mut bead, Status::Closed);
            bead.close_reason = Some(reason.to_owned());
        }
        let changed = linked || closing;
        if changed {
            bead.touch(&actor.id, now());
            tx.put_bead(&bead)?;
            tx.set_message(format!("close: {id} {} {by}", kind.relation()));
        }
        Ok(Edited { bead, changed })
    })
}

/// Links `a` and `b` both ways with `related` (bd's `dep relate`), in one commit.
pub fn relate(store: &Store, actor: &Actor, a: &BeadId, b: &BeadId) -> Result<Vec<Edited>> {
    permit(actor, Capability::Update)?;
    if a == b {
        return Err(BeadError::SelfDependency(a.clone()).into());
    }
    write(store, actor, |tx| {
        let mut edited = Vec::with_capacity(2);
        for (this, other) in [(a, b), (b, a)] {
            let mut bead = require_live(tx, this)?;
            let changed = bead.add_dependency(Dependency {
                id: other.clone(),
                kind: DepKind::Related,
            });
            if changed {
                bead.touch(&actor.id, now());
                tx.put_bead(&bead)?;
            }
            edited.push(Edited { bead, changed });
        }
        tx.set_message(format!("dep relate: {a} {b}"));
        Ok(edited)
    })
}

/// A path of blocking dependencies from `from` to `to`, if there is one, starting at `to`.
fn blocking_path(tx: &View<'_>, from: &BeadId, to: &BeadId) -> Result<Option<Vec<BeadId>>> {
    let index = tx.index()?;
    Ok(path_through(from, to, |id| indexed_blockers(index, id)))
}

/// The beads the blocking dependencies of `id` name, as `index` holds them.
pub(super) fn indexed_blockers(index: &Index, id: &BeadId) -> Vec<BeadId> {
    index.get(id.as_str()).map_or_else(Vec::new, |s| {
        (s.dependencies())
            .filter(|d| d.kind.is_blocking())
            .filter_map(|d| BeadId::parse(d.id()).ok())
            .collect()
    })
}

/// A path from `from` to `to` along what `blockers` gives for each bead it reaches (the
/// beads a bead's blocking dependencies name), if there is one, starting at `to`: the
/// cycle a blocking dependency of `to` on `from` would close.
pub(super) fn path_through(
    from: &BeadId,
    to: &BeadId,
    mut blockers: impl FnMut(&BeadId) -> Vec<BeadId>,
) -> Option<Vec<BeadId>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![vec![from.clone()]];
    while let Some(path) = stack.pop() {
        let Some(last) = path.last() else { continue };
        if last == to {
            return Some(std::iter::once(to.clone()).chain(path).collect());
        }
        if !seen.insert(last.clone()) {
            continue;
        }
        for next in blockers(last) {
            let mut longer = path.clone();
            longer.push(next);
            stack.push(longer);
        }
    }
    None
}

/// Removes the dependency of `id` on `on` (of `kind`, or of every kind).
pub fn remove_dependency(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    on: &DepTarget,
    kind: Option<DepKind>,
) -> Result<Bead> {
    permit(actor, Capability::Update)?;
    write(store, actor, |tx| undepend_in(tx, actor, id, on, kind))
}

/// The transaction of [`remove_dependency`], on whatever `tx` reads.
pub(super) fn undepend_in(
    tx: &mut Tx<'_>,
    actor: &Actor,
    id: &BeadId,
    on: &DepTarget,
    kind: Option<DepKind>,
) -> Result<Bead> {
    let mut bead = require_live(tx, id)?;
    if bead.remove_target(on, kind) == 0 {
        return Err(BeadError::NoSuchDependency {
            id: id.clone(),
            on: on.clone(),
        }
        .into());
    }
    bead.touch(&actor.id, now());
    tx.put_bead(&bead)?;
    tx.set_message(format!("dep remove {id} {on}"));
    Ok(bead)
}

/// Closes every epic whose children are all closed (`epic close-eligible`); returns
/// what was closed (or would be, with `dry_run`).
pub fn close_eligible_epics(store: &Store, actor: &Actor, dry_run: bool) -> Result<Vec<BeadId>> {
    let ids: Vec<BeadId> = super::epic_status(store)?
        .0
        .into_iter()
        .filter(super::EpicProgress::eligible)
        .filter_map(|e| BeadId::parse(&e.epic.id).ok())
        .collect();
    if !dry_run && !ids.is_empty() {
        close(store, actor, &ids, Some("all children closed"))?;
    }
    Ok(ids)
}
