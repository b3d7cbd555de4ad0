//! Provenance notes: which agent, session, model, bead and molecule step made a code
//! commit, as a YAML note under `refs/notes/beads`; showing it; and sharing the
//! notes with remotes, merged per commit without losing any.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::agent::load;
use super::molecule;
use super::session_doc::load_session;
use super::{ListFilter, OpError, ProvenanceError, Result};
use crate::model::{
    Actor, AgentName, Authority, BeadId, BeadType, Provenance, Status, count, note_documents,
    union_note_documents,
};
use crate::store::{MAX_NOTE, ObjectId, Pushed, RefPush, Store, StoreError, codec, refs};

/// The config git-beads sets so that notes follow their commits through
/// `git commit --amend` and `git rebase`: (key, value, multi-valued).
pub(crate) const NOTES_CONFIG: &[(&str, &str, bool)] = &[
    ("notes.rewriteRef", refs::NOTES.as_str(), true),
    ("notes.rewrite.amend", "true", false),
    ("notes.rewrite.rebase", "true", false),
];

/// Configures git to carry provenance notes over to rewritten commits (amend and
/// rebase copy them, joined with any note already there). Returns the keys changed.
pub fn configure_notes(store: &Store) -> Result<Vec<String>> {
    let mut changed = Vec::new();
    for (key, value, multi) in NOTES_CONFIG {
        let did = if *multi {
            store.git().add_config_value(key, value)?
        } else {
            store.git().set_config(key, value)?
        };
        if did {
            changed.push((*key).to_owned());
        }
    }
    Ok(changed)
}

/// Whether git is configured to carry provenance notes through amend and rebase.
pub fn notes_configured(store: &Store) -> Result<bool> {
    for (key, value, _) in NOTES_CONFIG {
        if !store.git().config_values(key)?.iter().any(|v| v == value) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What the session `actor` runs is doing now, as a provenance record; `None` when
/// it names no session, or one that is not open or is another agent's.
pub(crate) fn current_provenance(store: &Store, actor: &Actor) -> Result<Option<Provenance>> {
    let (Some(name), Some(sid)) = (&actor.agent, &actor.session) else {
        return Ok(None);
    };
    let view = store.view()?;
    let agent = load(&view, name)?;
    let session = load_session(&view, sid)?;
    if !session.is_open() || session.agent != *name {
        return Ok(None);
    }
    let mut beads: Vec<BeadId> = agent.hook.clone();
    let in_progress = super::list(
        store,
        &ListFilter {
            statuses: vec![Status::InProgress],
            assignee: Some(name.to_string()),
            ..ListFilter::default()
        },
    )?;
    for s in in_progress.beads() {
        if let Ok(id) = BeadId::parse(s.id())
            && !beads.contains(&id)
        {
            beads.push(id);
        }
    }
    let mut rec = Provenance {
        agent: name.clone(),
        session: sid.clone(),
        model: session.model.clone(),
        beads,
        molecule: None,
        step: None,
        position: None,
        store: view.head().map(|h| h.commit.to_string()),
    };
    for id in &agent.hook {
        let Some(bead) = view.bead(id)? else {
            continue;
        };
        if bead.kind != BeadType::Molecule || bead.status.is_done() {
            continue;
        }
        if let Some(p) = molecule::progress(&view, &bead)? {
            rec.step = p
                .steps
                .iter()
                .find(|s| !s.status.is_done())
                .map(|s| s.id.clone());
            rec.position = Some(p.position());
            rec.molecule = Some(p.molecule);
            break;
        }
    }
    Ok(Some(rec))
}

fn encode_record(rec: &Provenance) -> Result<String> {
    codec::encode(rec).map_err(|source| {
        OpError::Store(StoreError::Encode {
            what: "provenance note".into(),
            source,
        })
    })
}

/// Attaches the provenance of the session `actor` runs here to the commit HEAD now
/// points at (the post-commit hook). Nothing happens without a running session,
/// during a rebase (git copies the original commits' notes to the rebased ones), or
/// on an amend whose replaced commit's note already says the same (git copies it).
/// A record already on the commit is not added twice. Returns the record written.
pub fn record_commit(store: &Store, actor: &Actor) -> Result<Option<(ObjectId, Provenance)>> {
    if store.git().rebase_in_progress() {
        return Ok(None);
    }
    let Some(commit) = store.git().head_commit()? else {
        return Ok(None);
    };
    let Some(rec) = current_provenance(store, actor)? else {
        return Ok(None);
    };
    let text = encode_record(&rec)?;
    let doc = text.trim().to_owned();
    if let Some(old) = store.git().amended_from()?
        && let Some(note) = store.note(refs::NOTES.as_str(), old)?
        && note_documents(&String::from_utf8_lossy(&note)).contains(&doc)
    {
        return Ok(None);
    }
    let message = format!("notes: provenance of {commit} (session {})", rec.session);
    let written = add_records(store, actor, &[(commit, doc)], &message)?;
    Ok(written.then_some((commit, rec)))
}

/// Adds each record (commit, YAML document) to its commit's note, in one commit of
/// `refs/notes/beads` made by `actor`: after what the note holds, and not when it
/// holds that record already. Returns whether anything was written.
fn add_records(
    store: &Store,
    actor: &Actor,
    records: &[(ObjectId, String)],
    message: &str,
) -> Result<bool> {
    add_records_unless(store, actor, records, message, |old, doc| {
        note_documents(old).iter().any(|d| d == doc)
    })
}

/// [`add_records`], skipping a record wherever `holds(note, record)` says the
/// commit's note (as it stands in the notes ref, or with this call's earlier records
/// added) has it already.
fn add_records_unless(
    store: &Store,
    actor: &Actor,
    records: &[(ObjectId, String)],
    message: &str,
    holds: impl Fn(&str, &str) -> bool,
) -> Result<bool> {
    store.advance_notes(actor, |store, head| -> Result<_> {
        let mut texts: BTreeMap<ObjectId, String> = BTreeMap::new();
        for (commit, doc) in records {
            let old = match texts.get(commit) {
                Some(t) => Some(t.clone()),
                None => match head {
                    Some(h) => store
                        .note_in(h.tree, *commit)?
                        .map(|n| String::from_utf8_lossy(&n).into_owned()),
                    None => None,
                },
            };
            let new_text = match old {
                Some(old) if holds(&old, doc) => continue,
                Some(old) => {
                    // Keep what is there as it is, and add this record after it.
                    let mut t = old.trim_end().to_owned();
                    t.push_str("\n\n");
                    t.push_str(&crate::model::join_note_documents(&[doc]));
                    t
                }
                None => crate::model::join_note_documents(&[doc]),
            };
            texts.insert(*commit, new_text);
        }
        if texts.is_empty() {
            return Ok((false, None));
        }
        let mut edits = BTreeMap::new();
        for (commit, text) in &texts {
            edits.insert(*commit, Some(store.write_blob(text.as_bytes())?));
        }
        let tree = store.write_notes_tree(head.map(|h| h.tree), &edits)?;
        let parents: Vec<ObjectId> = head.map(|h| h.commit).into_iter().collect();
        let note_commit = store.write_commit(tree, &parents, actor, message)?;
        Ok((true, Some((note_commit, message.to_owned()))))
    })
}

/// Whether the note `text` holds a record of the session that the record `doc` is
/// of (a `doc` that does not decode is looked for as it is).
fn same_session_record(text: &str, doc: &str) -> bool {
    let session = |d: &str| {
        codec::decode::<Provenance>(d.as_bytes())
            .ok()
            .map(|r| (r.agent, r.session))
    };
    let docs = note_documents(text);
    match session(doc) {
        Some(s) => docs.iter().any(|d| session(d).as_ref() == Some(&s)),
        None => docs.iter().any(|d| d == doc),
    }
}

/// Forgets what prepare-commit-msg of an earlier version left for its post-commit
/// shim (see [`fold_commit_notes`]).
pub fn forget_pending_commit(store: &Store) -> Result<()> {
    Ok(store.clear_commit_pending()?)
}

/// Writes the provenance notes of the commits made in sessions since the last
/// fold, all in one commit of `refs/notes/beads`, and returns how many commits were
/// looked at. The commits are found in git's own records (every worktree's HEAD
/// reflog, see `store::commit_log`), and a commit was made in a session when its
/// message's trailers say so (`Beads-Agent:` and `Beads-Session:`, which the
/// prepare-commit-msg hook adds): no hook has to start a process for a note. Commits
/// queued by the post-commit shim of earlier versions are folded too.
///
/// Each record says what its session was doing at that commit: every git-beads
/// command folds before it reads or changes anything, so the store is still as it
/// was then. A commit whose session has ended meanwhile (ending a session folds
/// first), or whose agent or session cannot be read, gets no note; one whose note
/// has a record of its session already (git copied it there on an amend or a
/// rebase, or a fold was killed after writing it) keeps its note as it is. Where the
/// fold stopped is saved only once the notes are durably in the notes ref.
pub fn fold_commit_notes(store: &Store) -> Result<usize> {
    let mut looked = 0;
    if store.has_queued_commits() {
        looked += store.take_queued_commits(|queued| -> Result<()> {
            let made: Vec<_> = queued
                .iter()
                .map(|q| (q.commit, q.agent.clone(), q.session.clone()))
                .collect();
            write_session_records(store, &made)
        })?;
    }
    // Without a store no session made a commit, and nothing is written.
    if store.has_unfolded_reflogs() && super::has_store(store)? {
        looked += store.take_logged_commits(|commits| -> Result<()> {
            let mut made = Vec::new();
            for commit in commits {
                let Some(message) = store.commit_message(*commit)? else {
                    continue;
                };
                for (agent, session) in crate::model::session_trailers(&message) {
                    if let (Ok(agent), Ok(session)) = (agent.parse(), BeadId::parse(session)) {
                        made.push((*commit, agent, session));
                    }
                }
            }
            write_session_records(store, &made)
        })?;
    }
    Ok(looked)
}

/// Adds to each commit of `made` (commit, agent, session) the record of what its
/// session is doing now, in one commit of the notes ref; a session that is not open
/// (or cannot be read) adds nothing, and a note with a record of that session
/// already is left as it is.
fn write_session_records(store: &Store, made: &[(ObjectId, AgentName, BeadId)]) -> Result<()> {
    let mut records = Vec::new();
    let mut author = None;
    // Each session's record, worked out once however many commits it made.
    let mut docs: BTreeMap<(&AgentName, &BeadId), Option<String>> = BTreeMap::new();
    for (commit, agent, session) in made {
        let actor = Actor::agent(agent, Some(session.clone()), Authority::default());
        let doc = match docs.get(&(agent, session)) {
            Some(doc) => doc.clone(),
            None => {
                // A session that cannot be read leaves its commits without a note,
                // rather than keeping every later command from folding.
                let doc = match current_provenance(store, &actor) {
                    Ok(Some(rec)) => Some(encode_record(&rec)?.trim().to_owned()),
                    _ => None,
                };
                docs.insert((agent, session), doc.clone());
                doc
            }
        };
        let Some(doc) = doc else {
            continue;
        };
        records.push((*commit, doc));
        author.get_or_insert(actor);
    }
    let Some(author) = author else {
        return Ok(());
    };
    let message = match records.as_slice() {
        [(commit, _)] => format!(
            "notes: provenance of {commit} (session {})",
            author
                .session
                .as_ref()
                .map(BeadId::as_str)
                .unwrap_or_default()
        ),
        _ => format!("notes: provenance of {}", count(records.len(), "commit")),
    };
    add_records_unless(store, &author, &records, &message, same_session_record)?;
    Ok(())
}

/// A commit's provenance, as `git beads provenance` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct CommitProvenance {
    /// The commit.
    pub commit: String,
    /// The records of its note that parse, in the note's order.
    pub records: Vec<Provenance>,
    /// Documents of its note that are not provenance records (written by hand or by
    /// a newer git-beads), as text.
    pub other: Vec<String>,
    /// The note's text as stored (`None` when the commit has no note).
    pub note: Option<String>,
}

/// The provenance note of the commit `spec` names (`HEAD`, a branch, an id).
pub fn provenance(store: &Store, spec: &str) -> Result<CommitProvenance> {
    let commit = store
        .git()
        .resolve_commit(spec)
        .map_err(|e| ProvenanceError::NoCommit {
            spec: spec.to_owned(),
            error: e.to_string(),
        })?;
    let note = store
        .note(refs::NOTES.as_str(), commit)?
        .map(|n| String::from_utf8_lossy(&n).into_owned());
    let mut records = Vec::new();
    let mut other = Vec::new();
    for doc in note.as_deref().map(note_documents).unwrap_or_default() {
        match codec::decode::<Provenance>(doc.as_bytes()) {
            Ok(rec) => records.push(rec),
            Err(_) => other.push(doc),
        }
    }
    Ok(CommitProvenance {
        commit: commit.to_string(),
        records,
        other,
        note,
    })
}

/// What happened to the provenance notes when they were shared with a remote.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NotesSync {
    /// How many commits' notes came in from the remote (new or changed).
    pub fetched: usize,
    /// How many commits had different notes on both sides, now joined into one.
    pub joined: usize,
    /// Whether the remote now has the local notes.
    pub pushed: bool,
}

/// Merges the notes remote `remote` last sent (its tracking ref, fetched by `git
/// fetch` or a sync) into `refs/notes/beads`, without the network: a note changed
/// on one side takes that side; two different notes on one commit are joined, each
/// distinct record once (so identical notes stay one). Both sides' histories are
/// kept, in a merge commit, so the result can be pushed as a fast-forward.
pub(crate) fn merge_notes(store: &Store, actor: &Actor, remote: &str) -> Result<NotesSync> {
    let tracking = refs::tracking_notes(remote);
    let Some(theirs) = store.ref_head(&tracking)? else {
        return Ok(NotesSync::default());
    };
    // What a remote sent is checked before it is taken in, as its beads are: a notes
    // tree holding `../x`, `.git`, links or huge blobs would be kept, and pushed on
    // to every other remote (which may well refuse it, and all notes with it).
    let mut ancestry = store.ancestry();
    let trusted = match store.notes_head()? {
        Some(ours) => match ancestry.merge_bases(ours.commit, theirs.commit)?.first() {
            Some(b) => Some(store.commit_tree(*b)?),
            None => None,
        },
        None => None,
    };
    store.check_remote_tree(remote, theirs.tree, trusted)?;
    store.advance_notes(actor, |store, head| -> Result<_> {
        let mut report = NotesSync::default();
        let Some(ours) = head else {
            report.fetched = store.notes_in(theirs.tree)?.len();
            let msg = format!("notes: adopt the provenance notes of {remote}");
            return Ok((report, Some((theirs.commit, msg))));
        };
        if ours.commit == theirs.commit {
            return Ok((report, None));
        }
        let bases = ancestry.merge_bases(ours.commit, theirs.commit)?;
        if bases.contains(&theirs.commit) {
            return Ok((report, None));
        }
        let base_tree = match bases.first() {
            Some(b) => Some(store.commit_tree(*b)?),
            None => None,
        };
        let base = match base_tree {
            Some(t) => store.notes_in(t)?,
            None => BTreeMap::new(),
        };
        let mine = store.notes_in(ours.tree)?;
        let their = store.notes_in(theirs.tree)?;
        if bases == [ours.commit] {
            report.fetched = count_changed(&mine, &their);
            let msg = format!("notes: fast-forward to the provenance notes of {remote}");
            return Ok((report, Some((theirs.commit, msg))));
        }
        let mut edits: BTreeMap<ObjectId, Option<ObjectId>> = BTreeMap::new();
        let commits: BTreeSet<&ObjectId> = mine.keys().chain(their.keys()).collect();
        for c in commits {
            let (l, t, b) = (mine.get(c), their.get(c), base.get(c));
            let merged = if l == t || t == b {
                continue;
            } else if l == b {
                t.copied()
            } else {
                match (l, t) {
                    (Some(l), Some(t)) => {
                        report.joined += 1;
                        Some(join_blobs(store, *l, *t)?)
                    }
                    // Removed on one side, changed on the other: the change stays.
                    (Some(x), None) | (None, Some(x)) => Some(*x),
                    (None, None) => None,
                }
            };
            if merged.as_ref() != l {
                report.fetched += 1;
                edits.insert(*c, merged);
            }
        }
        let tree = store.write_notes_tree(Some(ours.tree), &edits)?;
        let msg = format!(
            "notes: merge the provenance notes of {remote}\n\n{} came in, {} joined.\n",
            count(report.fetched, "note"),
            report.joined
        );
        let commit = store.write_commit(tree, &[ours.commit, theirs.commit], actor, &msg)?;
        Ok((report, Some((commit, msg))))
    })
}

fn count_changed(a: &BTreeMap<ObjectId, ObjectId>, b: &BTreeMap<ObjectId, ObjectId>) -> usize {
    b.iter().filter(|(c, n)| a.get(*c) != Some(*n)).count()
}

/// Joins two different notes of one commit: every distinct record once, in an order
/// that does not depend on which side is which. A note too large or not text is not
/// joined: the one with the greater blob id stays (the same on every clone).
fn join_blobs(store: &Store, a: ObjectId, b: ObjectId) -> Result<ObjectId> {
    let readable = |id: ObjectId| -> Result<Option<String>> {
        if store.blob_size(id)? > MAX_NOTE {
            return Ok(None);
        }
        Ok(String::from_utf8(store.read_blob(id)?).ok())
    };
    match (readable(a)?, readable(b)?) {
        (Some(x), Some(y)) => Ok(store.write_blob(union_note_documents(&x, &y).as_bytes())?),
        _ => Ok(a.max(b)),
    }
}

/// Pushes `refs/notes/beads` to remote `remote` with a lease on what was last
/// fetched from it; when the remote moved meanwhile, fetches, merges and tries again
/// (a few times). Each git process gets what is left until `deadline`, and is
/// stopped (an error) when that runs out. Returns whether the remote now has the
/// local notes.
pub(crate) fn push_notes(
    store: &Store,
    actor: &Actor,
    remote: &str,
    talk: bool,
    deadline: Option<std::time::Instant>,
) -> Result<NotesSync> {
    let left = || deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
    let mut report = NotesSync::default();
    for round in 0..3 {
        if round > 0 {
            store.fetch_beads_within(remote, talk, left())?;
            let more = merge_notes(store, actor, remote)?;
            report.fetched += more.fetched;
            report.joined += more.joined;
        }
        let Some(local) = store.notes_head()? else {
            report.pushed = true;
            return Ok(report);
        };
        let expected = store
            .ref_head(&refs::tracking_notes(remote))?
            .map(|h| h.commit);
        if expected == Some(local.commit) {
            report.pushed = true;
            return Ok(report);
        }
        let update = RefPush {
            name: refs::NOTES.to_string(),
            expected,
            new: Some(local.commit),
        };
        match store.git().push_refs(remote, &[update], left())?.first() {
            Some(Pushed::Done) => {
                store.set_notes_tracking(remote, local.commit, actor)?;
                report.pushed = true;
                return Ok(report);
            }
            Some(Pushed::Stale(_)) | None => {}
        }
    }
    Ok(report)
}

/// Shares the provenance notes with remote `remote` after a sync fetched them: merges
/// what came in and, unless `pull_only`, pushes the result.
pub fn sync_notes(
    store: &Store,
    actor: &Actor,
    remote: &str,
    pull_only: bool,
    talk: bool,
    deadline: Option<std::time::Instant>,
) -> Result<NotesSync> {
    let merged = merge_notes(store, actor, remote)?;
    if pull_only {
        return Ok(merged);
    }
    let pushed = push_notes(store, actor, remote, talk, deadline)?;
    Ok(NotesSync {
        fetched: merged.fetched + pushed.fetched,
        joined: merged.joined + pushed.joined,
        pushed: pushed.pushed,
    })
}
