//! Sync: sharing the store through ordinary git remotes, merging without loss.
//!
//! `sync` = fetch the remote's beads refs into tracking refs, three-way merge the
//! remote's store into the local one (per document, per field, see
//! [`crate::merge`]), commit the merge with both parents, push with a lease, and go
//! around again if the remote moved meanwhile. `pull` and `push` are the halves.

use serde::Serialize;

use super::tree_merge::{KeptDoc, RENUMBERED_FROM, merge_trees};
use super::{OpError, Result, SyncError, now, write};
use crate::model::{Actor, Bead, BeadId, Prefix, count};
use crate::store::{
    Ancestry, Head, ObjectId, Pushed, RefPush, RemoteError, Store, StoreError, codec, refs,
};

/// How long one `sync` may take in all (its fetches, merges and pushes, and the
/// rounds while the remote keeps moving), unless `beads.syncTimeout` says otherwise.
const DEFAULT_BUDGET_SECS: u64 = 60;

/// How long one sync may take before it stops: `beads.syncTimeout`, else
/// [`DEFAULT_BUDGET_SECS`].
pub(super) fn budget(store: &Store) -> std::time::Duration {
    let secs = store
        .git()
        .config_string(crate::settings::SYNC_TIMEOUT)
        .and_then(|v| crate::model::parse_duration(v.trim()).ok())
        .unwrap_or(DEFAULT_BUDGET_SECS);
    std::time::Duration::from_secs(secs)
}

/// The time one sync has, from when it starts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    /// How long it is (`beads.syncTimeout`).
    limit: std::time::Duration,
    /// When it is spent: no fetch, merge or push starts after it, but the push that
    /// publishes the local head on the clone's own replica ref.
    deadline: std::time::Instant,
    /// When merging stops: the deadline, or earlier in a test that makes a merge run
    /// out of time without making the fetch before it run out too.
    merge_by: std::time::Instant,
}

impl Budget {
    /// A budget of `limit` from now.
    pub(super) fn new(limit: std::time::Duration) -> Budget {
        let deadline = std::time::Instant::now() + limit;
        Budget {
            limit,
            deadline,
            merge_by: deadline,
        }
    }

    /// When the budget is spent.
    pub(super) fn deadline(&self) -> std::time::Instant {
        self.deadline
    }

    /// What is left of it before `until` (`None`: nothing).
    fn left_until(until: std::time::Instant) -> Option<std::time::Duration> {
        until
            .checked_duration_since(std::time::Instant::now())
            .filter(|d| !d.is_zero())
    }

    /// Whether the time for merging is over: what a sync has not merged by then
    /// waits for the next one.
    fn merging_over(&self) -> bool {
        std::time::Instant::now() >= self.merge_by
    }

    /// What is left of it (`None`: nothing).
    fn left(&self) -> Option<std::time::Duration> {
        Budget::left_until(self.deadline)
    }

    /// Until when a sync out of time may still publish its local head: the deadline,
    /// but at least half the budget from now. That push is never contended (no other
    /// clone pushes that ref), so only a slow machine or remote makes it take long;
    /// a loaded machine gets it done instead of failing the sync.
    fn late(&self) -> std::time::Instant {
        self.deadline
            .max(std::time::Instant::now() + self.limit / 2)
    }
}

/// Something a long sync reports while it works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncEvent {
    /// Fetching from the remote.
    Fetching {
        /// The remote.
        remote: String,
    },
    /// Merging documents changed on both sides.
    Merging {
        /// How many are done.
        done: usize,
        /// How many there are.
        total: usize,
    },
    /// Pushing to the remote.
    Pushing {
        /// The remote.
        remote: String,
    },
    /// The remote moved while this sync worked: going around again.
    Retrying {
        /// The round about to start (2 for the first retry).
        round: usize,
    },
}

/// Which halves of a sync to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// Fetch, merge, push.
    Sync,
    /// Fetch and merge.
    Pull,
    /// Push what is here, refusing to overwrite what the remote has that is not.
    Push,
}

/// How to sync.
#[derive(Clone, Debug)]
pub struct SyncOptions {
    /// The remote (default: the branch's upstream remote, else `origin`).
    pub remote: Option<String>,
    /// Which halves.
    pub mode: SyncMode,
    /// Let git talk to the terminal (progress, prompts) instead of capturing it.
    pub talk: bool,
}

/// What happened to the local store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Nothing to bring in: the remote has no beads, or nothing this store lacks.
    UpToDate,
    /// The local store had nothing; it now is the remote's.
    Adopted,
    /// The local store moved forward to the remote's.
    FastForward,
    /// The two stores were merged in a merge commit.
    Merged,
}

/// What a sync did.
#[derive(Clone, Debug, Serialize)]
pub struct SyncReport {
    /// The remote.
    pub remote: String,
    /// How many documents the remote had changed that were brought in.
    pub fetched: usize,
    /// How many documents changed on both sides were merged field by field.
    pub merged: usize,
    /// How many losing values the merge recorded in `conflicts:` lists.
    pub conflicts: usize,
    /// Whether the remote now has this store's state.
    pub pushed: bool,
    /// How many documents the push made by this sync changed on the remote (`None`:
    /// this sync pushed nothing, the remote had this state already or was not asked).
    pub sent: Option<usize>,
    /// What happened to the local store (the last round that changed it).
    pub outcome: Outcome,
    /// The commit the local store is at, if it exists.
    pub head: Option<String>,
    /// How many rounds it took (more than one when the remote moved meanwhile).
    pub rounds: usize,
    /// Whether the remote's fetch refspecs were added now.
    pub configured: bool,
    /// Documents that could not be merged field by field, kept whole.
    pub kept: Vec<KeptDoc>,
    /// The replica ref this sync pushed to because `refs/beads/main` was moving under
    /// it (`None`: it moved `refs/beads/main`, or pushed nothing); the next sync of any
    /// clone folds it into `refs/beads/main`.
    pub replica: Option<String>,
    /// The fetched heads the local store does not hold yet, by the remote's ref
    /// (`refs/beads/main`, `refs/beads/replicas/<id>`): the sync ran out of time
    /// before it merged them, published its own head, and left them for the next
    /// sync, which merges them. Empty when it merged everything it fetched.
    pub waiting: Vec<String>,
}

impl SyncReport {
    /// A report of nothing done yet with `remote`.
    pub(super) fn empty(remote: &str, configured: bool) -> SyncReport {
        SyncReport {
            remote: remote.to_owned(),
            fetched: 0,
            merged: 0,
            conflicts: 0,
            pushed: false,
            sent: None,
            outcome: Outcome::UpToDate,
            head: None,
            rounds: 0,
            configured,
            kept: Vec::new(),
            replica: None,
            waiting: Vec::new(),
        }
    }
}

/// Picks and checks the remote: the one named, else the default.
pub(crate) fn pick_remote(store: &Store, remote: Option<&str>) -> Result<String> {
    let name = match remote {
        Some(r) => r.to_owned(),
        None => store
            .git()
            .default_remote()
            .ok_or(StoreError::Remote(RemoteError::NoRemote))?,
    };
    store.git().check_remote(&name)?;
    Ok(name)
}

/// Adds the beads fetch refspecs to remote `name` (see `Store::setup_remote`);
/// returns whether anything was added.
pub fn setup_remote(store: &Store, name: &str) -> Result<bool> {
    Ok(store.setup_remote(name)?)
}

/// Adds the beads fetch refspecs to every remote; returns the remotes that got them now.
pub fn setup_remotes(store: &Store) -> Result<Vec<String>> {
    let mut added = Vec::new();
    for name in store.git().remote_names() {
        // A remote whose name git-beads will not pass on is left alone.
        if crate::store::check_remote_name(&name).is_err() {
            continue;
        }
        if store.setup_remote(&name)? {
            added.push(name);
        }
    }
    Ok(added)
}

/// On a repository without a store, adopts the store of `remote` (default: the
/// default remote) if it has one, fetching it first, so that a fresh clone joins
/// the shared history instead of starting an unrelated one. A `prefix` that
/// differs from the remote store's is refused before anything changes. Returns the
/// remote adopted from, if any.
pub fn adopt(
    store: &Store,
    actor: &Actor,
    remote: Option<&str>,
    prefix: Option<&Prefix>,
    talk: bool,
) -> Result<Option<String>> {
    if store.head()?.is_some() {
        return Ok(None);
    }
    let name = match remote {
        Some(r) => r.to_owned(),
        None => match store.git().default_remote() {
            Some(r) => r,
            None => return Ok(None),
        },
    };
    store.git().check_remote(&name)?;
    let main = store.fetch_beads(&name, talk)?;
    let replicas = store.tracked_replicas(&name)?;
    // A remote whose first pushes all went to replica refs has no main yet.
    let Some(theirs) = main.or_else(|| replicas.first().map(|(_, c)| *c)) else {
        return Ok(None);
    };
    let tree = store.commit_tree(theirs)?;
    store.check_remote_store(&name, tree, None)?;
    if let Some(prefix) = prefix {
        let meta = store.meta(&Head {
            commit: theirs,
            tree,
        })?;
        if meta.prefix != *prefix {
            return Err(SyncError::PrefixMismatch {
                remote: name,
                theirs: meta.prefix,
                ours: prefix.clone(),
            }
            .into());
        }
    }
    let adopted = store.advance_main(actor, |head| -> Result<_> {
        match head {
            Some(_) => Ok((false, None)),
            None => Ok((
                true,
                Some((theirs, format!("adopt the beads store of {name}"))),
            )),
        }
    })?;
    if adopted {
        // The adopted head is the remote's main (or its first replica head): what
        // else it sent is merged on top of it.
        let mut report = SyncReport::empty(&name, false);
        integrate_remote(store, actor, &name, None, &mut report)?;
    }
    Ok(adopted.then_some(name))
}

/// Merges into the local store everything `remote` sent: `theirs` (its
/// `refs/beads/main`, as fetched) and its replica refs as last fetched, in one pass.
pub(super) fn integrate_remote(
    store: &Store,
    actor: &Actor,
    remote: &str,
    theirs: Option<ObjectId>,
    report: &mut SyncReport,
) -> Result<()> {
    let replicas = store.tracked_replicas(remote)?;
    let heads = fetched_heads(theirs, &replicas);
    let mut ancestry = store.ancestry();
    integrate(
        store,
        &mut ancestry,
        actor,
        remote,
        &heads,
        report,
        &mut |_| {},
        None,
    )
}

/// The commits a fetch brought: the remote's `refs/beads/main` (if it has one), then
/// each replica ref's head: the work of clones that published there while
/// `refs/beads/main` was moving.
fn fetched_heads(theirs: Option<ObjectId>, replicas: &[(String, ObjectId)]) -> Vec<ObjectId> {
    theirs
        .into_iter()
        .chain(replicas.iter().map(|(_, c)| *c))
        .collect()
}

/// Syncs the store with a remote (or only pulls, or only pushes; see [`SyncMode`]).
///
/// The local store only ever moves to a complete merge (or forward to the
/// remote's state): anything that fails — the network, a remote whose beads are
/// damaged, a push the remote rejects — leaves it where it was or at that merge.
pub fn sync(
    store: &Store,
    actor: &Actor,
    opts: &SyncOptions,
    progress: &mut dyn FnMut(SyncEvent),
) -> Result<SyncReport> {
    sync_within(store, actor, opts, progress, Budget::new(budget(store)))
}

/// What a remote said in git's stderr: its own lines (`remote: …`), each once,
/// without git's prefix, and without empty ones.
fn remote_words(stderr: &str) -> Vec<String> {
    let mut said: Vec<String> = Vec::new();
    for line in stderr.lines() {
        let mut words = line.trim_end();
        while let Some(rest) = words.strip_prefix("remote:") {
            words = rest.trim_start();
        }
        if words.len() == line.trim_end().len() || words.is_empty() {
            continue;
        }
        if !said.iter().any(|s| s == words) {
            said.push(words.to_owned());
        }
    }
    said
}

/// How a push of a sync ended.
enum Push {
    /// Every ref of it went through.
    Done,
    /// A ref had moved on the remote: the reason git gave.
    Stale(String),
    /// The budget ran out first.
    Late,
}

/// [`sync`] within `budget`, which bounds everything it does: each git process gets
/// what is left of it, a merge stops between two heads or two merge bases, and the
/// claim refs it would delete after its push are left for the next sync.
///
/// A sync (or pull) that runs out of time after its fetch does not fail: it
/// publishes the local head on the clone's own replica ref (see [`publish_late`])
/// and reports in [`SyncReport::waiting`] the heads it fetched and did not merge,
/// which the next sync merges. Out of time before that (a slow or unreachable
/// remote), or in a push (which publishes nothing of its own), it fails with
/// [`SyncError::OutOfTime`].
pub(super) fn sync_within(
    store: &Store,
    actor: &Actor,
    opts: &SyncOptions,
    progress: &mut dyn FnMut(SyncEvent),
    budget: Budget,
) -> Result<SyncReport> {
    // Syncing is a capability like any other: an agent needs it to pull or push.
    super::permit(actor, crate::model::Capability::Sync)?;
    let remote = pick_remote(store, opts.remote.as_deref())?;
    let _sync = store.sync_lock()?;
    let configured = store.setup_remote(&remote)?;
    let mut report = SyncReport::empty(&remote, configured);
    let me = store.replica_id()?;
    // Every merge-base question of the sync walks one commit graph: the questions of
    // its merge and those of the push after it cover the same history.
    let mut ancestry = store.ancestry();
    // A time budget, not a count of rounds: a round goes around again only when this
    // clone's own replica ref moved under its push (another clone folded it), with a
    // randomized pause. It bounds the whole sync: each git process gets what is left
    // of it, and a merge of many heads stops between two of them. What was merged
    // when it runs out stays in the local store.
    let left = || budget.left();
    let out_of_time = |step: &'static str, rounds: usize| -> OpError {
        SyncError::OutOfTime {
            remote: remote.clone(),
            step,
            rounds,
            budget: budget.limit.as_secs(),
        }
        .into()
    };
    let mut theirs = None;
    // Where the local store was before this sync merged anything into it.
    let started = store.head()?.map(|h| h.commit);
    for round in 1.. {
        if round > 1 && !paused(round, &budget, progress) {
            break;
        }
        report.rounds = round;
        progress(SyncEvent::Fetching {
            remote: remote.clone(),
        });
        theirs = fetch_within(store, &remote, opts.talk, budget.deadline)
            .ok_or_else(|| out_of_time("fetching", round))??;
        let replicas = store.tracked_replicas(&remote)?;
        if opts.mode == SyncMode::Push {
            refuse_behind(store, &mut ancestry, theirs, &remote)?;
        } else {
            let heads = fetched_heads(theirs, &replicas);
            let expired = || out_of_time("merging", round);
            let until = Deadline {
                at: budget.merge_by,
                expired: &expired,
            };
            let merged = integrate(
                store,
                &mut ancestry,
                actor,
                &remote,
                &heads,
                &mut report,
                progress,
                Some(until),
            );
            match merged {
                Err(OpError::Sync(SyncError::OutOfTime { .. })) => break,
                other => other?,
            }
        }
        let local = store.head()?;
        report.head = local.map(|h| h.commit.to_string());
        if opts.mode == SyncMode::Pull {
            return Ok(report);
        }
        let Some(local) = local else {
            return Err(OpError::Store(StoreError::NotInitialized));
        };
        // Every replica ref the local store holds is folded into `refs/beads/main` by
        // the same atomic push that moves it there, and deleted.
        let folded = folded_replicas(&mut ancestry, local.commit, &replicas)?;
        if Some(local.commit) == theirs && folded.is_empty() {
            report.pushed = true;
            publish_index(store, &remote, actor, &left);
            drop_finished_claims(store, &remote, left)?;
            return Ok(report);
        }
        if budget.merging_over() {
            break;
        }
        progress(SyncEvent::Pushing {
            remote: remote.clone(),
        });
        let mut updates = vec![RefPush {
            name: refs::MAIN.to_string(),
            expected: theirs,
            new: Some(local.commit),
        }];
        updates.extend(folded);
        let mut sent = true;
        let merged = Some(local.commit) != started;
        let push =
            |updates: &[RefPush]| push_within(store, &remote, updates, opts.talk, &left, merged);
        match push(&updates)? {
            Push::Done => store.set_tracking(&remote, local.commit, actor)?,
            Push::Late if opts.mode == SyncMode::Push => {
                return Err(out_of_time("pushing", round));
            }
            Push::Stale(reason) if opts.mode == SyncMode::Push => {
                return Err(SyncError::Moved { remote, reason }.into());
            }
            Push::Late => break,
            // Others are moving `refs/beads/main` at this moment: publish to this
            // clone's own replica ref instead, which nobody else pushes.
            Push::Stale(_) => {
                let replica = refs::replica_ref(&me);
                let own = replicas.iter().find(|(id, _)| *id == me).map(|(_, c)| *c);
                match publish_own(&push, &replica, own, local.commit)? {
                    None => sent = false,
                    Some(Push::Done) => {}
                    Some(Push::Late) => break,
                    // Another clone folded it meanwhile: fetch and go around.
                    Some(Push::Stale(_)) => continue,
                }
                report.replica = Some(replica);
            }
        }
        if sent {
            report.sent = Some(documents_sent(store, theirs, local.tree)?);
        }
        report.pushed = true;
        publish_index(store, &remote, actor, &left);
        drop_finished_claims(store, &remote, left)?;
        return Ok(report);
    }
    if opts.mode == SyncMode::Push {
        return Err(out_of_time("pushing", report.rounds));
    }
    publish_late(
        store,
        &mut ancestry,
        opts,
        &me,
        theirs,
        &budget,
        &mut report,
    )?;
    Ok(report)
}

/// Waits before round `round` of a sync, as [`retry_pause`] says, telling
/// `progress`; false (and no wait) when the pause would end past the budget.
fn paused(round: usize, budget: &Budget, progress: &mut dyn FnMut(SyncEvent)) -> bool {
    let pause = retry_pause(round);
    if std::time::Instant::now() + pause > budget.deadline {
        return false;
    }
    progress(SyncEvent::Retrying { round });
    std::thread::sleep(pause);
    true
}

/// Publishes the local head `local` on this clone's own replica ref `replica` (which
/// holds `own` as fetched) with `push`; `None` when it holds `local` already.
fn publish_own(
    push: &dyn Fn(&[RefPush]) -> Result<Push>,
    replica: &str,
    own: Option<ObjectId>,
    local: ObjectId,
) -> Result<Option<Push>> {
    if own == Some(local) {
        return Ok(None);
    }
    let mine = RefPush {
        name: replica.to_owned(),
        expected: own,
        new: Some(local),
    };
    push(&[mine]).map(Some)
}

/// Fails with [`SyncError::Behind`] when the local store lacks the fetched head
/// `theirs` of `remote`: a push alone would drop what the remote has.
fn refuse_behind(
    store: &Store,
    ancestry: &mut Ancestry<'_>,
    theirs: Option<ObjectId>,
    remote: &str,
) -> Result<()> {
    let local = store.require_head()?;
    match theirs {
        Some(t) if !ancestry.contains(local.commit, t)? => {
            Err(SyncError::Behind(remote.to_owned()).into())
        }
        _ => Ok(()),
    }
}

/// The deletions of the replica refs (as fetched) that the local store at `local`
/// holds: the push that moves `refs/beads/main` there folds them in.
fn folded_replicas(
    ancestry: &mut Ancestry<'_>,
    local: ObjectId,
    replicas: &[(String, ObjectId)],
) -> Result<Vec<RefPush>> {
    let heads: Vec<_> = replicas.iter().map(|(_, c)| *c).collect();
    let held = ancestry.in_history(local, &heads)?;
    Ok(replicas
        .iter()
        .zip(held)
        .filter(|(_, held)| *held)
        .map(|((id, head), _)| RefPush {
            name: refs::replica_ref(id),
            expected: Some(*head),
            new: None,
        })
        .collect())
}

/// Publishes the store's index beside it on `remote`, signed by `actor`'s key, when
/// the one there is missing or has fallen behind (see [`Store::index_stale`]), so that
/// a fresh clone reads at once. Only the first clone to find it behind publishes: the
/// push leases `index/of` where it was fetched. Whatever goes wrong here, the sync went
/// as it went, so it is not said.
fn publish_index(
    store: &Store,
    remote: &str,
    actor: &Actor,
    left: &dyn Fn() -> Option<std::time::Duration>,
) {
    let publish = || -> Result<()> {
        // Without a key nothing is published: no clone would take it.
        let signer = store.or_unsigned(store.signer_for(actor))?;
        let (Some(head), Some(_), Some(_)) = (store.head()?, left(), signer) else {
            return Ok(());
        };
        let of = store.ref_head(&refs::tracking_index_of(remote))?;
        if let Some(of) = &of
            && (of.commit == head.commit || !store.index_stale(of.tree, &head)?)
        {
            return Ok(());
        }
        let Some(index) = store.write_travelling_index(&head, actor)? else {
            return Ok(());
        };
        // The lease is on `index/of`, which every sync fetches; the index itself only a
        // clone without one fetches, so the push replaces it whatever it holds.
        let of_now = RefPush {
            name: refs::INDEX_OF.to_string(),
            expected: of.map(|h| h.commit),
            new: Some(head.commit),
        };
        let files = refs::INDEX_FILES.as_str();
        let Some(time) = left() else {
            return Ok(());
        };
        let pushed = store.push_refs(remote, &[of_now], &[(files, index)], false, Some(time));
        if let Ok(pushed) = pushed
            && stale(pushed).is_none()
        {
            // Tracked as the remote now has them, so that the index's objects stay
            // reachable here.
            for (name, now) in [
                (refs::tracking_index_of(remote), head.commit),
                (refs::tracking_index_files(remote), index),
            ] {
                let was = store.ref_head(&name)?.map(|h| h.commit);
                store.move_ref(&name, was, now, actor, "push: update tracking ref")?;
            }
        }
        Ok(())
    };
    let _ = publish();
}

/// Pushes `updates` to `remote` in the time `left` gives; a rejection is
/// [`SyncError::Refused`] (saying whether this sync `merged` anything first).
fn push_within(
    store: &Store,
    remote: &str,
    updates: &[RefPush],
    talk: bool,
    left: &dyn Fn() -> Option<std::time::Duration>,
    merged: bool,
) -> Result<Push> {
    let Some(time) = left() else {
        return Ok(Push::Late);
    };
    match store.push_beads(remote, updates, talk, Some(time)) {
        Err(_) if left().is_none() => Ok(Push::Late),
        Err(StoreError::Remote(RemoteError::Rejected {
            remote,
            reason,
            stderr,
        })) => Err(SyncError::Refused {
            remote,
            reason,
            said: remote_words(&stderr),
            merged,
        }
        .into()),
        other => Ok(stale(other?).map_or(Push::Done, Push::Stale)),
    }
}

/// How many documents a push of the local tree `ours` sent: those that differ from
/// the fetched head `theirs` (all of them when nothing was fetched).
fn documents_sent(store: &Store, theirs: Option<ObjectId>, ours: ObjectId) -> Result<usize> {
    let their_tree = theirs.map(|t| store.commit_tree(t)).transpose()?;
    Ok(store.diff(their_tree, Some(ours))?.len())
}

/// Fetches `remote`'s beads in the time left until `until` (see
/// [`Store::fetch_beads`]): `None` once it runs out. A fetch that lost a race (for a ref lock here, or with a
/// push on the remote changing the refs it was sending) is tried again while time is
/// left, a few times.
fn fetch_within(
    store: &Store,
    remote: &str,
    talk: bool,
    until: std::time::Instant,
) -> Option<Result<Option<ObjectId>>> {
    const TRIES: usize = 4;
    for attempt in 1.. {
        let time = Budget::left_until(until)?;
        match store.fetch_beads_within(remote, talk, Some(time)) {
            Err(_) if Budget::left_until(until).is_none() => return None,
            Err(StoreError::Remote(e)) if e.raced() && attempt < TRIES => {
                std::thread::sleep(retry_pause(attempt + 1));
            }
            other => return Some(other.map_err(OpError::from)),
        }
    }
    None
}

/// What a sync does once out of time after its fetch (its merge stopped, or no time
/// was left to push): it publishes the local head on this clone's own replica ref,
/// until [`Budget::late`], and names in `report.waiting` the heads it fetched that
/// the local store does not hold, which the next sync merges. Nothing it fetched is
/// lost meanwhile: the remote deletes a replica ref only once `refs/beads/main` holds
/// its work, and the next sync fetches both again. A pull only names them.
///
/// The push is a fast-forward of a ref no other clone pushes; only a fold (another
/// clone's push to `refs/beads/main` that deletes it, with a lease) can move it
/// meanwhile, and then this fetches again and pushes with what the remote has now.
fn publish_late(
    store: &Store,
    ancestry: &mut Ancestry<'_>,
    opts: &SyncOptions,
    me: &str,
    theirs: Option<ObjectId>,
    budget: &Budget,
    report: &mut SyncReport,
) -> Result<()> {
    let remote = report.remote.clone();
    let until = budget.late();
    let left = || Budget::left_until(until);
    let out_of_time = |rounds: usize| -> OpError {
        SyncError::OutOfTime {
            remote: remote.clone(),
            step: "pushing",
            rounds,
            budget: budget.limit.as_secs(),
        }
        .into()
    };
    let local = store.head()?;
    report.head = local.map(|h| h.commit.to_string());
    if opts.mode != SyncMode::Pull {
        let local = local.ok_or(OpError::Store(StoreError::NotInitialized))?;
        let replica = refs::replica_ref(me);
        loop {
            let replicas = store.tracked_replicas(&remote)?;
            let own = replicas.iter().find(|(id, _)| id == me).map(|(_, c)| *c);
            if own == Some(local.commit) {
                break;
            }
            let time = left().ok_or_else(|| out_of_time(report.rounds))?;
            let mine = RefPush {
                name: replica.clone(),
                expected: own,
                new: Some(local.commit),
            };
            let pushed = match store.push_beads(&remote, &[mine], opts.talk, Some(time)) {
                Err(_) if left().is_none() => return Err(out_of_time(report.rounds)),
                other => stale(other?),
            };
            if pushed.is_none() {
                report.sent = Some(documents_sent(store, theirs, local.tree)?);
                break;
            }
            report.rounds += 1;
            fetch_within(store, &remote, opts.talk, until)
                .ok_or_else(|| out_of_time(report.rounds))??;
        }
        report.pushed = true;
        report.replica = Some(replica);
    }
    let main = store.tracking_head(&remote)?;
    let others = store.tracked_replicas(&remote)?;
    let named: Vec<(String, ObjectId)> = main
        .map(|m| (refs::MAIN.to_string(), m))
        .into_iter()
        .chain(
            others
                .into_iter()
                .filter(|(id, _)| id != me)
                .map(|(id, c)| (refs::replica_ref(&id), c)),
        )
        .collect();
    let heads: Vec<_> = named.iter().map(|(_, c)| *c).collect();
    let held = match local {
        Some(l) => ancestry.in_history(l.commit, &heads)?,
        None => vec![false; heads.len()],
    };
    report.waiting = named
        .into_iter()
        .zip(held)
        .filter(|(_, held)| !held)
        .map(|((name, _), _)| name)
        .collect();
    Ok(())
}

/// Deletes on `remote` the claim refs of finished claims (see
/// [`super::claim_refs::drop_finished_claims`]) in the time the sync has `left`: once it
/// runs out, or when git lost a race for a ref, they stay, and the next sync of any
/// clone deletes them. The store is in
/// step by then; a claim ref left behind only claims a bead that is no longer held.
fn drop_finished_claims(
    store: &Store,
    remote: &str,
    left: impl Fn() -> Option<std::time::Duration>,
) -> Result<()> {
    let Some(time) = left() else {
        return Ok(());
    };
    match super::claim_refs::drop_finished_claims(store, remote, Some(time)) {
        Err(_) if left().is_none() => Ok(()),
        // Another git held a ref it needed: the next sync deletes them.
        Err(OpError::Store(StoreError::Remote(e))) if e.raced() => Ok(()),
        other => other.map(|_| ()),
    }
}

/// What `remote prune` did.
#[derive(Clone, Debug, Serialize)]
pub struct RemotePruned {
    /// The remote.
    pub remote: String,
    /// The replica refs deleted there: their work was in its `refs/beads/main`.
    pub removed: Vec<String>,
    /// The replica refs left there: work not in its `refs/beads/main` yet (a sync of
    /// any clone folds it), or a ref that moved while this ran.
    pub kept: Vec<String>,
}

/// Deletes on `remote` (default: the default remote) the replica refs whose work its
/// `refs/beads/main` already holds, each with its lease, so a ref a clone pushes again
/// meanwhile stays. Only the remote changes: the local store is left as it is.
pub fn prune_remote(store: &Store, remote: Option<&str>) -> Result<RemotePruned> {
    let remote = pick_remote(store, remote)?;
    let main = store.fetch_beads(&remote, false)?;
    let replicas = store.tracked_replicas(&remote)?;
    let heads: Vec<_> = replicas.iter().map(|(_, c)| *c).collect();
    let held = match main {
        Some(main) => store.ancestry().in_history(main, &heads)?,
        None => vec![false; heads.len()],
    };
    let mut pruned = RemotePruned {
        remote: remote.clone(),
        removed: Vec::new(),
        kept: Vec::new(),
    };
    let mut deletions = Vec::new();
    for ((id, head), held) in replicas.into_iter().zip(held) {
        if held {
            deletions.push(RefPush {
                name: refs::replica_ref(&id),
                expected: Some(head),
                new: None,
            });
        } else {
            pruned.kept.push(refs::replica_ref(&id));
        }
    }
    if deletions.is_empty() {
        return Ok(pruned);
    }
    // One push, not atomic: a replica ref that moved keeps only itself.
    let outcomes = store.git().push_refs(&remote, &deletions, None)?;
    for (push, outcome) in deletions.into_iter().zip(outcomes) {
        match outcome {
            Pushed::Done => pruned.removed.push(push.name),
            Pushed::Stale(_) => pruned.kept.push(push.name),
        }
    }
    Ok(pruned)
}

/// Why a push did not go through: `None` when every ref of it did.
pub(super) fn stale(pushed: Vec<Pushed>) -> Option<String> {
    pushed.into_iter().find_map(|p| match p {
        Pushed::Done => None,
        Pushed::Stale(reason) => Some(reason),
    })
}

/// How long to wait before round `round` (2 or more) of a sync whose push lost the
/// race: growing from about 20 ms to about a second, at a random point of that
/// span. Clones that keep pushing in step would otherwise keep losing to each
/// other (seen with twenty processes syncing two clones, and with a fleet of clones
/// sharing one remote).
fn retry_pause(round: usize) -> std::time::Duration {
    use std::hash::{BuildHasher, Hasher};
    let span_ms = (20u64 << round.saturating_sub(2).min(6)).min(1000);
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_usize(round);
    let jitter = h.finish() % span_ms;
    std::time::Duration::from_millis(span_ms / 2 + jitter)
}

/// When a merge must stop, and the error it stops with: the sync's budget.
#[derive(Clone, Copy)]
pub(super) struct Deadline<'a> {
    /// When the time is up.
    at: std::time::Instant,
    /// What the sync says when it is.
    expired: &'a dyn Fn() -> OpError,
}

impl Deadline<'_> {
    /// Whether the time is up.
    fn passed(&self) -> bool {
        std::time::Instant::now() >= self.at
    }

    /// The error to stop with, once the time is up.
    fn check(&self) -> Result<()> {
        if self.passed() {
            return Err((self.expired)());
        }
        Ok(())
    }
}

/// Brings the commits `heads` (fetched from `remote`) into the local store: adopt,
/// fast-forward, or merge all of them in one pass and one commit whose parents are
/// the local head and every head not already in the history of another, under the
/// write lock. The cost follows what the heads changed, not how many there are: heads
/// the local store holds are dropped first, and each other is merged once against its
/// merge base with everything merged before it (as `git merge-base` sees a merge of
/// several commits), so a change two heads share is not seen twice. `ancestry`
/// answers its merge-base questions.
#[allow(clippy::too_many_arguments)]
pub(super) fn integrate(
    store: &Store,
    ancestry: &mut Ancestry<'_>,
    actor: &Actor,
    remote: &str,
    heads: &[ObjectId],
    report: &mut SyncReport,
    progress: &mut dyn FnMut(SyncEvent),
    deadline: Option<Deadline<'_>>,
) -> Result<()> {
    let before = store.head()?;
    let ours = before.map(|h| h.commit);
    let all: Vec<ObjectId> = ours.into_iter().chain(heads.iter().copied()).collect();
    let parents = ancestry.independent(&all)?;
    let news: Vec<ObjectId> = parents
        .iter()
        .filter(|c| Some(**c) != ours)
        .copied()
        .collect();
    if news.is_empty() {
        return Ok(());
    }
    // Check what the remote sent before anything is merged from it; what it shares
    // with the local history was checked when it first came in.
    for theirs in &news {
        let trusted = match ours {
            Some(h) => match ancestry.merge_bases(h, *theirs)?.first() {
                Some(b) => Some(store.commit_tree(*b)?),
                None => None,
            },
            None => None,
        };
        store.check_remote_store(remote, store.commit_tree(*theirs)?, trusted)?;
        if store.git().config_bool(crate::settings::REQUIRE_SIGNED) == Some(true) {
            super::verify::require_verified(store, remote, ours, *theirs)?;
        }
    }
    let step = store.advance_main(actor, |head| -> Result<_> {
        // Only this sync moves the store to a remote's commits (the sync lock), but a
        // local write may have moved it since: the parents are worked out again.
        let parents = match head {
            Some(h) if Some(h.commit) != ours => {
                ancestry.independent(&[&[h.commit][..], &news].concat())?
            }
            _ => parents,
        };
        let Some((&first, rest)) = parents.split_first() else {
            return Ok((Step::new(Outcome::UpToDate), None));
        };
        let first_tree = store.commit_tree(first)?;
        let Some(head) = head else {
            if rest.is_empty() {
                let mut step = Step::new(Outcome::Adopted);
                step.fetched = store.diff(None, Some(first_tree))?.len();
                return Ok((
                    step,
                    Some((first, format!("sync: adopt the beads store of {remote}"))),
                ));
            }
            return merge_heads(
                store, ancestry, actor, remote, None, &parents, progress, deadline,
            );
        };
        if rest.is_empty() {
            if first == head.commit {
                return Ok((Step::new(Outcome::UpToDate), None));
            }
            let mut step = Step::new(Outcome::FastForward);
            step.fetched = store.diff(Some(head.tree), Some(first_tree))?.len();
            return Ok((
                step,
                Some((first, format!("sync: fast-forward to {remote}"))),
            ));
        }
        merge_heads(
            store,
            ancestry,
            actor,
            remote,
            Some(head.tree),
            &parents,
            progress,
            deadline,
        )
    })?;
    // A later round that finds nothing new does not hide what an earlier one did.
    if step.outcome != Outcome::UpToDate {
        report.outcome = step.outcome;
    }
    report.fetched += step.fetched;
    report.merged += step.merged;
    report.conflicts += step.conflicts;
    report.kept.extend(step.kept);
    if let Some(before) = before
        && matches!(step.outcome, Outcome::Merged | Outcome::FastForward)
    {
        follow_renumbering(store, actor, &before)?;
    }
    Ok(())
}

/// Merges the commits `parents` (two or more, none in the history of another) into
/// one commit with all of them as parents: the first one's tree, with each other
/// merged into it in turn. `local` is the tree of the local store's head, from which
/// what came in is counted. Once `deadline` passes, the heads not merged yet are left
/// for the next sync: the commit has as parents those merged. If it passes before the
/// first two are merged, nothing is written and the merge stops with the deadline's
/// error.
#[allow(clippy::too_many_arguments)]
fn merge_heads(
    store: &Store,
    ancestry: &mut Ancestry<'_>,
    actor: &Actor,
    remote: &str,
    local: Option<ObjectId>,
    parents: &[ObjectId],
    progress: &mut dyn FnMut(SyncEvent),
    deadline: Option<Deadline<'_>>,
) -> Result<(Step, Option<(ObjectId, String)>)> {
    // A merge of thousands of documents writes as many objects: they go to disk as
    // one pack (synced), before the ref moves to the merge.
    let mut buffered = store.buffered();
    let mut tree = buffered.commit_tree(parents[0])?;
    let mut step = Step::new(Outcome::Merged);
    let mut merged_heads = parents.len();
    for (i, theirs) in parents.iter().enumerate().skip(1) {
        if i > 1 && deadline.is_some_and(|d| d.passed()) {
            merged_heads = i;
            break;
        }
        let bases = ancestry.merge_bases_with_all(*theirs, &parents[..i])?;
        let base = match virtual_base(&buffered, ancestry, &bases, 0, deadline) {
            // Out of time: what is merged so far is a merge of two heads or more.
            Err(OpError::Sync(SyncError::OutOfTime { .. })) if i > 1 => {
                merged_heads = i;
                break;
            }
            other => other?,
        };
        let their_tree = buffered.commit_tree(*theirs)?;
        let merged = merge_trees(&buffered, base, tree, their_tree, &mut |done, total| {
            progress(SyncEvent::Merging { done, total })
        })?;
        tree = merged.tree;
        step.merged += merged.merged;
        step.conflicts += merged.conflicts;
        step.kept.extend(merged.kept);
    }
    let parents = &parents[..merged_heads];
    step.fetched = buffered.diff(local, Some(tree))?.len();
    let mut message = format!("sync: merge the beads of {remote}\n\n");
    if parents.len() > 2 {
        message.push_str(&format!(
            "{} merged at once.\n",
            count(parents.len(), "head")
        ));
    }
    message.push_str(&format!(
        "{} came in, {} merged field by field, {} recorded.\n",
        count(step.fetched, "document"),
        step.merged,
        count(step.conflicts, "conflict")
    ));
    for k in &step.kept {
        message.push_str(&format!(
            "Kept {} whole ({}); the other version is at {}.\n",
            k.path, k.reason, k.other_version
        ));
    }
    let commit = buffered.write_commit(tree, parents, actor, &message)?;
    store.write_buffered(&mut buffered)?;
    Ok((step, Some((commit, message))))
}

/// After the store moved on from `before`: finds the beads this clone minted that a
/// merge (here or on another clone) renumbered, keeps their old ids as aliases of
/// the new ones, and points the dependencies this clone wrote against an old id at
/// the new one, in one commit.
///
/// A renumbered bead is one that came in with `extra.renumbered_from`; it is this
/// clone's when the store at `before` held the old id with the same creation record
/// (time and creator), the thing the tree merge tells two mintings apart by.
fn follow_renumbering(store: &Store, actor: &Actor, before: &Head) -> Result<()> {
    let after = store.require_head()?;
    let mut found = Vec::new();
    for change in store.diff(Some(before.tree), Some(after.tree))? {
        let (None, Some(blob)) = (change.old, change.new) else {
            continue;
        };
        let Some(id) = refs::bead_id_of_path(&change.path).and_then(|i| BeadId::parse(i).ok())
        else {
            continue;
        };
        if id.parent().is_none() {
            continue;
        }
        // Most children that come in were never renumbered: look before decoding.
        let bytes = store.read_blob(blob)?;
        if !bytes
            .windows(RENUMBERED_FROM.len())
            .any(|w| w == RENUMBERED_FROM.as_bytes())
        {
            continue;
        }
        let Ok(bead) = codec::decode::<Bead>(&bytes) else {
            continue;
        };
        let Some(old) = bead
            .extra
            .get(RENUMBERED_FROM)
            .and_then(|v| v.as_str())
            .and_then(|v| BeadId::parse(v).ok())
        else {
            continue;
        };
        let ours = store.read_bead(before.tree, &old)?;
        if ours
            .is_some_and(|o| (o.created_at, &o.created_by) == (bead.created_at, &bead.created_by))
        {
            found.push((old, id));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    store.add_aliases(&found)?;
    let index = store.index_parts(&after, &[crate::store::Part::Beads])?;
    let mut dependents: Vec<(BeadId, &BeadId, &BeadId)> = Vec::new();
    for row in index.rows() {
        for (old, new) in &found {
            if row.dependencies().any(|d| d.id() == old.as_str())
                && let Ok(id) = BeadId::parse(row.id())
            {
                dependents.push((id, old, new));
            }
        }
    }
    let mut follow = Vec::new();
    for (id, old, new) in dependents {
        let wrote = store
            .read_bead(before.tree, &id)?
            .is_some_and(|b| b.dependencies.iter().any(|d| d.id == *old));
        if wrote {
            follow.push((id, old, new));
        }
    }
    if follow.is_empty() {
        return Ok(());
    }
    write(store, actor, |tx| {
        let mut message = String::from("sync: dependencies follow renumbered beads\n\n");
        for (id, old, new) in &follow {
            let Some(mut bead) = tx.bead(id)? else {
                continue;
            };
            bead.relink(&std::collections::BTreeMap::from([(
                (*old).clone(),
                (*new).clone(),
            )]));
            bead.touch(&actor.id, now());
            tx.put_bead(&bead)?;
            message.push_str(&format!("{id}: {old} is {new} now.\n"));
        }
        tx.set_message(message);
        Ok(())
    })?;
    Ok(())
}

struct Step {
    outcome: Outcome,
    fetched: usize,
    merged: usize,
    conflicts: usize,
    kept: Vec<KeptDoc>,
}

impl Step {
    fn new(outcome: Outcome) -> Step {
        Step {
            outcome,
            fetched: 0,
            merged: 0,
            conflicts: 0,
            kept: Vec::new(),
        }
    }
}

/// The tree to merge against: the merge base's, or after criss-cross merges (several
/// bases) the merge of the bases themselves, as git's recursive strategy does, one
/// level deep: the bases are merged against their first own base, not against a
/// virtual base again. Clones that publish to replica refs while others do make
/// criss-cross histories with many bases, and merging every level (k bases, k - 1
/// merges at each of several levels) grew as k to that power: a sync of 20 clones
/// spent minutes there. An older base only makes the merge see more changes on both
/// sides, which it records as conflicts; it never loses one.
///
/// Merging the bases is what a merge of heads with many of them spends its time on:
/// `deadline` is checked before each, and the merge stops with its error.
fn virtual_base(
    store: &Store,
    ancestry: &mut Ancestry<'_>,
    bases: &[ObjectId],
    depth: usize,
    deadline: Option<Deadline<'_>>,
) -> Result<Option<ObjectId>> {
    let Some((first, rest)) = bases.split_first() else {
        return Ok(None);
    };
    let mut tree = store.commit_tree(*first)?;
    if depth >= 1 {
        return Ok(Some(tree));
    }
    for other in rest {
        if let Some(d) = deadline {
            d.check()?;
        }
        let bases = ancestry.merge_bases(*first, *other)?;
        let sub = virtual_base(store, ancestry, &bases, depth + 1, deadline)?;
        let other_tree = store.commit_tree(*other)?;
        tree = merge_trees(store, sub, tree, other_tree, &mut |_, _| {})?.tree;
    }
    Ok(Some(tree))
}

/// Clears the `conflicts:` of bead `id` (only those of `field` when given), in one
/// commit. Returns the bead and how many entries went.
pub fn resolve(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    field: Option<&str>,
) -> Result<(Bead, usize)> {
    write(store, actor, |tx| {
        let mut bead = super::require(tx, id)?;
        let before = bead.conflicts.len();
        bead.conflicts
            .retain(|c| field.is_some_and(|f| c.field != f));
        let removed = before - bead.conflicts.len();
        if removed > 0 {
            bead.touch(&actor.id, now());
            tx.put_bead(&bead)?;
            tx.set_message(format!(
                "resolve {id}: {} cleared",
                count(removed, "conflict")
            ));
        }
        Ok((bead, removed))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::tree_merge::{TreeMerge, canonical_bead, exact_bead, merge_trees_on};
    use super::*;
    use crate::model::{Comment, Status, doc};
    use crate::store::git_for_tests as git;
    use crate::store::{Entry, EntryKind};

    /// A small deterministic generator (xorshift), so every run merges the same set.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn repo() -> (tempfile::TempDir, Store) {
        Store::temp_for_tests()
    }

    fn at(seconds: i64) -> crate::model::Timestamp {
        chrono::DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("a time")
    }

    /// One side's change of a bead: mostly what commands do (the canonical document),
    /// sometimes a document git-beads would not write (keys in another order, an
    /// unknown field, YAML that does not parse), to take every path of the merge.
    fn edit(rng: &mut Rng, bead: &Bead, side: &str, tick: i64) -> Vec<u8> {
        let mut b = bead.clone();
        match rng.below(8) {
            0 => b.title = format!("{side} title {tick}"),
            1 => {
                b.labels.insert(format!("{side}-{}", rng.below(3)));
            }
            2 => {
                b.labels.pop_first();
            }
            3 => b.notes = format!("{}{side} line {tick}\n", b.notes),
            4 => b.priority = rng.below(5) as u8,
            5 => {
                b.status = Status::Closed;
                b.closed_at = Some(at(tick));
                b.close_reason = Some(format!("{side} done"));
            }
            6 => b.comments.push(Comment {
                id: format!("{side}-{tick}"),
                author: side.into(),
                created_at: at(tick),
                text: format!("{side} says {tick}"),
            }),
            _ => b.description = format!("{side}\n{}", b.description),
        }
        b.touch(side, at(tick + rng.below(3) as i64));
        let text = codec::encode(&b).expect("encodes");
        match rng.below(40) {
            0 => {
                let value = codec::to_value(&b).expect("converts");
                let mut pairs: Vec<_> = value.as_mapping().expect("a mapping").iter().collect();
                pairs.reverse();
                let reversed: doc::Mapping = pairs
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                codec::encode(&reversed).expect("encodes").into_bytes()
            }
            1 => format!("{text}from_{side}: {tick}\n").into_bytes(),
            2 => b"title: [unclosed\n".to_vec(),
            _ => text.into_bytes(),
        }
    }

    /// A base tree of `n` beads and two sides that each change some of them.
    fn three_trees(store: &Store, n: usize, seed: u64) -> (ObjectId, ObjectId, ObjectId) {
        let mut rng = Rng(seed);
        let empty = store.empty_tree();
        let beads: Vec<Bead> = (0..n)
            .map(|k| {
                let id = BeadId::parse(&format!("bd-t{k}")).expect("an id");
                let mut b = Bead::new(id, format!("bead {k}"), "base", at(0));
                b.description = "one\ntwo\n".into();
                b.labels.insert("base".into());
                b
            })
            .collect();
        let tree = |edits: Vec<(&Bead, Vec<u8>)>| {
            let edits: BTreeMap<String, Option<Entry>> = edits
                .into_iter()
                .map(|(b, bytes)| {
                    let id = store.write_blob(&bytes).expect("writes");
                    let kind = EntryKind::Blob;
                    (refs::bead_path(&b.id), Some(Entry { kind, id }))
                })
                .collect();
            store.write_tree_edits(empty, &edits).expect("writes")
        };
        let base = tree(
            beads
                .iter()
                .map(|b| (b, codec::encode(b).expect("encodes").into_bytes()))
                .collect(),
        );
        let mut side = |name: &str| {
            let docs = beads
                .iter()
                .enumerate()
                .map(|(k, b)| match rng.below(4) {
                    0 => (b, codec::encode(b).expect("encodes").into_bytes()),
                    _ => (b, edit(&mut rng, b, name, k as i64)),
                })
                .collect();
            tree(docs)
        };
        let ours = side("alice");
        let theirs = side("bob");
        (base, ours, theirs)
    }

    fn summary(m: &TreeMerge) -> (ObjectId, usize, usize, Vec<KeptDoc>) {
        (m.tree, m.merged, m.conflicts, m.kept.clone())
    }

    #[test]
    fn a_merge_out_of_time_stops_before_it_writes_anything() {
        let (_dir, store) = repo();
        let actor = Actor::person("tester", "t@example.com");
        let (base, ours, theirs) = three_trees(&store, 20, 11);
        let commit = |tree: ObjectId, parents: &[ObjectId]| {
            store
                .write_commit(tree, parents, &actor, "test")
                .expect("writes")
        };
        let b = commit(base, &[]);
        let (x, y) = (commit(ours, &[b]), commit(theirs, &[b]));
        // Two merges of the same two commits criss-cross: a merge of them has two
        // merge bases, which it merges first (the virtual base).
        let (left, right) = (commit(ours, &[x, y]), commit(theirs, &[x, y]));
        let mut ancestry = store.ancestry();
        assert_eq!(ancestry.merge_bases(left, right).expect("bases").len(), 2);
        let expired = || -> OpError {
            SyncError::OutOfTime {
                remote: "origin".into(),
                step: "merging",
                rounds: 1,
                budget: 0,
            }
            .into()
        };
        let merge = |ancestry: &mut Ancestry<'_>, at| {
            let deadline = Deadline {
                at,
                expired: &expired,
            };
            let heads = [left, right];
            merge_heads(
                &store,
                ancestry,
                &actor,
                "origin",
                None,
                &heads,
                &mut |_| {},
                Some(deadline),
            )
        };
        match merge(&mut ancestry, std::time::Instant::now()) {
            Err(OpError::Sync(SyncError::OutOfTime { .. })) => {}
            Err(e) => panic!("a merge out of time failed otherwise: {e}"),
            Ok(_) => panic!("a merge went on past its deadline"),
        }
        let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
        let (step, made) = merge(&mut ancestry, later).expect("merges in time");
        let (merged, _) = made.expect("a merge commit");
        assert_eq!(step.outcome, Outcome::Merged);
        let held = ancestry.in_history(merged, &[left, right]).expect("walks");
        assert_eq!(held, [true, true]);
    }

    /// A sync of `store` with `origin` within `budget`.
    fn sync_by(store: &Store, actor: &Actor, budget: Budget) -> Result<SyncReport> {
        let opts = SyncOptions {
            remote: None,
            mode: SyncMode::Sync,
            talk: false,
        };
        sync_within(store, actor, &opts, &mut |_| {}, budget)
    }

    #[test]
    fn a_sync_out_of_time_while_merging_publishes_its_head_and_the_next_merges_the_rest() {
        let dir = crate::store::temp_dir_for_tests();
        let remote = dir.path().join("remote.git");
        git(dir.path(), &["init", "-q", "--bare", "remote.git"]);
        let actor = Actor::person("tester", "t@example.com");
        let plenty = || Budget::new(std::time::Duration::from_secs(3600));
        let bead = |title: String| crate::ops::NewBead {
            title,
            ..Default::default()
        };
        let clone = |name: &str| {
            let path = dir.path().join(name);
            git(dir.path(), &["init", "-q", name]);
            let url = remote.to_str().expect("a UTF-8 path");
            git(&path, &["remote", "add", "origin", url]);
            Store::discover(&path).expect("opens")
        };
        let a = clone("a");
        let prefix = Prefix::parse("bd").expect("a prefix");
        super::super::init(&a, &actor, Some(prefix)).expect("init");
        sync_by(&a, &actor, plenty()).expect("a's first sync");
        // Three clones publish a bead each on their own replica ref, as a sync does
        // while others move `refs/beads/main`.
        let others: Vec<Store> = ["b", "c", "d"].into_iter().map(clone).collect();
        for other in &others {
            sync_by(other, &actor, plenty()).expect("adopts");
        }
        let mut theirs = Vec::new();
        for (name, other) in ["b", "c", "d"].into_iter().zip(&others) {
            let new = bead(format!("from {name}"));
            theirs.push(super::super::create(other, &actor, new).expect("create").id);
            let head = other.require_head().expect("a head").commit;
            let replica = refs::replica_ref(&other.replica_id().expect("an id"));
            let mine = RefPush {
                name: replica,
                expected: None,
                new: Some(head),
            };
            let pushed = other.push_beads("origin", &[mine], false, None);
            assert_eq!(stale(pushed.expect("pushes")), None);
        }
        let new = bead("from a".into());
        let mine = super::super::create(&a, &actor, new).expect("create").id;
        let main_before = a.tracking_head("origin").expect("reads");

        // Merging is over before it starts: the first of the three heads is merged
        // (a merge stops between two heads), the other two wait.
        let mut late = plenty();
        late.merge_by = std::time::Instant::now();
        let report = sync_by(&a, &actor, late).expect("a sync out of time succeeds");
        let head = a.require_head().expect("a head").commit;
        let own = refs::replica_ref(&a.replica_id().expect("an id"));
        assert_eq!(report.replica.as_deref(), Some(own.as_str()), "{report:?}");
        assert!(report.pushed, "{report:?}");
        assert_eq!(report.waiting.len(), 2, "{report:?}");
        assert!(
            report
                .waiting
                .iter()
                .all(|r| r.starts_with("refs/beads/replicas/"))
        );
        // The remote holds the local head on this clone's replica ref; its
        // `refs/beads/main` did not move.
        a.fetch_beads("origin", false).expect("fetches");
        assert_eq!(a.tracking_head("origin").expect("reads"), main_before);
        let published = a.tracked_replicas("origin").expect("reads");
        let me = a.replica_id().expect("an id");
        let published = published.iter().find(|(id, _)| *id == me).map(|(_, c)| *c);
        assert_eq!(published, Some(head));
        let shown = |ids: &[BeadId]| super::super::show(&a, ids).map(|b| b.len());
        assert_eq!(shown(std::slice::from_ref(&mine)).expect("a's own bead"), 1);
        let merged = theirs
            .iter()
            .filter(|id| shown(std::slice::from_ref(id)).is_ok());
        assert_eq!(merged.count(), 1, "one of the three heads merged");

        // The next sync, in time, merges what waited and folds every replica ref.
        let report = sync_by(&a, &actor, plenty()).expect("the next sync");
        assert!(report.waiting.is_empty(), "{report:?}");
        assert_eq!(report.replica, None, "{report:?}");
        assert_eq!(shown(&theirs).expect("every bead"), 3);
        a.fetch_beads("origin", false).expect("fetches");
        let head = a.require_head().expect("a head").commit;
        assert_eq!(a.tracking_head("origin").expect("reads"), Some(head));
        assert!(a.tracked_replicas("origin").expect("reads").is_empty());
    }

    #[test]
    fn parallel_merge_is_the_sequential_merge() {
        let (_dir, store) = repo();
        for seed in [7, 1234, 99_991] {
            let (base, ours, theirs) = three_trees(&store, 600, seed);
            let mut events = Vec::new();
            let one = merge_trees_on(&store, Some(base), ours, theirs, 1, &mut |d, t| {
                events.push((d, t))
            })
            .expect("merges");
            assert!(one.merged > 200, "{} merged", one.merged);
            assert!(!one.kept.is_empty(), "some documents are kept whole");
            assert!(one.conflicts > 0);
            let mut parallel_events = Vec::new();
            let four = merge_trees_on(&store, Some(base), ours, theirs, 4, &mut |d, t| {
                parallel_events.push((d, t))
            })
            .expect("merges");
            assert_eq!(summary(&one), summary(&four), "seed {seed}");
            assert_eq!(events, parallel_events);
            let swapped = merge_trees_on(&store, Some(base), theirs, ours, 4, &mut |_, _| {})
                .expect("merges");
            assert_eq!(one.tree, swapped.tree, "seed {seed}: symmetric");
        }
    }

    #[test]
    fn canonical_documents_are_the_exact_ones_without_the_generic_tree() {
        let (_dir, store) = repo();
        let (base, ours, theirs) = three_trees(&store, 300, 42);
        let (mut canonical, mut other) = (0, 0);
        for tree in [base, ours, theirs] {
            for (path, blob) in store.list_docs(tree, refs::BEADS_DIR).expect("lists") {
                let id = BeadId::parse(refs::bead_id_of_path(&path).expect("a bead path"))
                    .expect("an id");
                let bytes = store.read_blob(blob).expect("reads");
                let exact = codec::decode_doc(&bytes)
                    .ok()
                    .and_then(|v| exact_bead(&id, &v, &bytes));
                match canonical_bead(&id, &bytes) {
                    Some(bead) => {
                        canonical += 1;
                        assert_eq!(Some(bead), exact, "{path}");
                    }
                    None => other += 1,
                }
            }
        }
        assert!(
            canonical > 500 && other > 5,
            "{canonical} canonical, {other} not"
        );
    }
}
