//! Sync plumbing: remotes and their tracking refs, the user's own `git` for the
//! network (`git fetch`, `git push`, `git config`, as subprocesses with argument
//! vectors, never a shell), checking what a remote sent before anything is merged,
//! and writing merge results.
//!
//! The network goes through the `git` binary so that SSH config, credential
//! helpers, proxies and `insteadOf` rules behave exactly as they do for code.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Output, Stdio};

use gix::ObjectId;
use gix::object::tree::EntryKind as TreeKind;

use super::lock::WriteLock;
use super::{Head, RefPush, Store, StoreError, codec, git_err, io_err, refs};
use crate::model::Actor;

/// The deepest tree a remote may send: the store's own layout is three levels deep;
/// this leaves room for other kinds of documents while refusing pathological input.
const MAX_DEPTH: usize = 32;

/// The setting that makes git send objects without looking for deltas against each
/// other. Deltas make a pack smaller, at the price of searching for them where it is
/// made and resolving them where it is received: for a remote on the same machine,
/// reached through a pipe, that is all cost (and the next `git gc` on either side
/// makes the deltas anyway).
const NO_DELTAS: &str = "pack.window=0";

/// The environment variable set for every `git` that git-beads runs, so that hooks
/// can tell a git-beads sync from a user's own fetch or push.
pub const SYNC_ENV: &str = "GIT_BEADS_SYNC";

/// What went wrong talking to a remote.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// A remote name that git-beads refuses to pass on.
    #[error(
        "{0:?} is not a usable remote name (letters, digits, '.', '_' and '-', not starting with '-' or '.')"
    )]
    BadName(String),
    /// The remote is not configured in this repository.
    #[error("no remote named {0:?} is configured")]
    NoSuchRemote(String),
    /// No remote is configured at all.
    #[error("this repository has no remote to sync with")]
    NoRemote,
    /// The `git` binary could not be run.
    #[error("could not run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// A `git` command failed.
    #[error("git {what} failed{}{}", .code.map(|c| format!(" (exit {c})")).unwrap_or_default(), detail(.stderr))]
    Git {
        /// What was being done (`fetch from origin`).
        what: String,
        /// The exit code, if git exited.
        code: Option<i32>,
        /// What git said on stderr (empty when it talked to the terminal directly).
        stderr: String,
    },
    /// The remote refused the push (a hook, a protected ref, a full disk).
    #[error("{remote} rejected the push of {}: {reason}{}", refs::MAIN, detail(.stderr))]
    Rejected {
        /// The remote.
        remote: String,
        /// The reason git reported.
        reason: String,
        /// What the remote said.
        stderr: String,
    },
    /// What the remote holds under its beads refs is not a store git-beads can merge.
    #[error("the beads on {remote} are damaged: {detail}")]
    Garbage {
        /// The remote.
        remote: String,
        /// What is wrong, naming the path or ref.
        detail: String,
    },
}

fn detail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let tail = &lines[lines.len().saturating_sub(6)..];
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {}", tail.join(" / "))
    }
}

/// What git says when it lost a race for a ref with another git process: for a lock
/// (here, or on the remote), or with a push that changed a ref while it was read.
const LOST_RACE: [&str; 6] = [
    "failed to update ref",
    "failed to lock",
    "cannot lock",
    "unable to update local ref",
    "some local refs could not be updated",
    "did not send all necessary objects",
];

impl RemoteError {
    /// Whether git failed because it lost a race with another git process (a ref
    /// lock, a ref that moved while it was read): the same command may work again.
    pub(crate) fn raced(&self) -> bool {
        match self {
            RemoteError::Git { stderr, .. } => LOST_RACE.iter().any(|r| stderr.contains(r)),
            _ => false,
        }
    }
}

/// How a push ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pushed {
    /// The remote now has the commit (or already had it).
    Done,
    /// The remote moved since it was fetched: fetch, merge and try again. Carries
    /// the reason git gave.
    Stale(String),
}

/// What `git push --porcelain` said about the update of ref `dst`: `None` when it
/// printed no line for it, `Some(Err(reason))` when the remote refused it for another
/// reason than having moved.
pub(super) fn push_outcome(stdout: &str, dst: &str) -> Option<Result<Pushed, String>> {
    // Porcelain lines: <flag> TAB <from>:<to> TAB <summary> [(<reason>)].
    let line = stdout.lines().find(|l| {
        l.split('\t')
            .nth(1)
            .is_some_and(|spec| spec.ends_with(&format!(":{dst}")))
    })?;
    if !line.starts_with('!') {
        return Some(Ok(Pushed::Done));
    }
    let summary = line.split('\t').nth(2).unwrap_or_default();
    let reason = summary
        .split_once('(')
        .map(|(_, r)| r.trim_end_matches(')'))
        .unwrap_or(summary)
        .to_owned();
    // "[rejected] (stale info)": the lease failed. A remote that lost a race for its
    // ref lock reports "failed to update ref" or "failed to lock": it moved too.
    // In an atomic push, the refs that were not the cause say "atomic push failed"
    // (a lease) or "atomic transaction failed" (the remote's side).
    let raced = LOST_RACE.iter().any(|r| reason.contains(r)) || reason.contains("atomic");
    Some(if summary.starts_with("[rejected]") || raced {
        Ok(Pushed::Stale(reason))
    } else {
        Err(reason)
    })
}

/// The largest file a worktree snapshot in a remote's store may hold.
const MAX_SNAPSHOT_FILE: u64 = 1024 * 1024 * 1024;

/// What a tree entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// A directory.
    Tree,
    /// A file (a document, or a file of a snapshot).
    Blob,
    /// An executable file (in a snapshot).
    Executable,
    /// A symbolic link (in a snapshot).
    Link,
    /// A submodule's commit (in a snapshot).
    Submodule,
}

/// One entry of a tree: what it is and its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    /// What it is.
    pub kind: EntryKind,
    /// Its object.
    pub id: ObjectId,
}

impl Entry {
    fn of(kind: TreeKind, id: ObjectId) -> Entry {
        let kind = match kind {
            TreeKind::Tree => EntryKind::Tree,
            TreeKind::Blob => EntryKind::Blob,
            TreeKind::BlobExecutable => EntryKind::Executable,
            TreeKind::Link => EntryKind::Link,
            TreeKind::Commit => EntryKind::Submodule,
        };
        Entry { kind, id }
    }

    /// Whether it is a file whose content is a document (or any file).
    pub(crate) fn is_file(&self) -> bool {
        matches!(self.kind, EntryKind::Blob | EntryKind::Executable)
    }
}

impl From<EntryKind> for TreeKind {
    fn from(kind: EntryKind) -> TreeKind {
        match kind {
            EntryKind::Tree => TreeKind::Tree,
            EntryKind::Blob => TreeKind::Blob,
            EntryKind::Executable => TreeKind::BlobExecutable,
            EntryKind::Link => TreeKind::Link,
            EntryKind::Submodule => TreeKind::Commit,
        }
    }
}

/// Checks a remote name before it is used on a command line, in a refspec and in
/// a ref name (`refs/beads/remotes/<name>/main`, so no Windows device name either).
pub fn check_remote_name(name: &str) -> Result<(), RemoteError> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with(['-', '.'])
        && !name.ends_with(['.'])
        && !name.ends_with(".lock")
        && !name.contains("..")
        && !crate::model::is_device_name(name)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(RemoteError::BadName(name.to_owned()))
    }
}

/// Where a check of a remote's tree stands: the remote that sent it and the
/// directory being checked.
struct Spot<'a> {
    remote: &'a str,
    base: &'a str,
}

impl Spot<'_> {
    /// The error that refuses the remote's tree.
    fn garbage(&self, detail: String) -> StoreError {
        RemoteError::Garbage {
            remote: self.remote.to_owned(),
            detail,
        }
        .into()
    }

    /// The path of entry `name` of this directory, as messages show it.
    fn shown(&self, name: &str) -> String {
        if self.base.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", self.base)
        }
    }

    /// The name of `entry`, once it is a safe one (UTF-8, no path separators, not
    /// `.git`), not seen before in this directory, and its mode a usual one.
    fn checked_name<'e>(
        &self,
        entry: &gix::objs::tree::EntryRef<'e>,
        seen: &mut HashSet<&'e str>,
    ) -> Result<&'e str, StoreError> {
        let Ok(name) = std::str::from_utf8(entry.filename) else {
            return Err(self.garbage(format!(
                "{} holds a name that is not UTF-8: {:?}",
                self.shown(""),
                entry.filename
            )));
        };
        let bad_name = name.is_empty()
            || name == "."
            || name == ".."
            || name.eq_ignore_ascii_case(".git")
            || name.contains(['/', '\\', '\0']);
        if bad_name {
            return Err(self.garbage(format!(
                "the tree holds an unsafe path {:?}",
                self.shown(name)
            )));
        }
        if !seen.insert(name) {
            return Err(self.garbage(format!("the tree holds {:?} twice", self.shown(name))));
        }
        if gix::object::tree::EntryMode::from(entry.mode.kind()) != entry.mode {
            return Err(self.garbage(format!(
                "{} has the unusual mode {:o}",
                self.shown(name),
                entry.mode
            )));
        }
        Ok(name)
    }
}

/// How many times a fetch is tried again when the remote's refs moved under it.
const FETCH_RACE_RETRIES: usize = 2;

impl Store {
    /// Runs `git ARGS`; with `talk`, git's stderr (progress, prompts, remote
    /// messages) goes straight to ours, else it is captured for error messages.
    fn run_git(&self, args: &[String], talk: bool) -> Result<Output, RemoteError> {
        let mut cmd = self.git().command();
        cmd.args(args).stdout(Stdio::piped()).stderr(if talk {
            Stdio::inherit()
        } else {
            Stdio::piped()
        });
        cmd.output().map_err(RemoteError::Spawn)
    }

    /// The fetch refspecs of remote `name` as git's config has them now.
    fn fetch_refspecs(&self, name: &str) -> Result<Vec<String>, RemoteError> {
        let out = self.run_git(
            &[
                "config".into(),
                "--get-all".into(),
                format!("remote.{name}.fetch"),
            ],
            false,
        )?;
        // Exit 1 means "no such key": a remote without fetch refspecs.
        if !out.status.success() && out.status.code() != Some(1) {
            return Err(git_failure(format!("config of remote {name}"), &out));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect())
    }

    /// Adds the beads fetch refspecs to remote `name` unless it has them, so that a
    /// plain `git fetch` brings its beads refs into the tracking refs. What `git
    /// push` does is unchanged. Returns whether anything was added.
    pub(crate) fn setup_remote(&self, name: &str) -> Result<bool, StoreError> {
        self.git().check_remote(name)?;
        let have = self.fetch_refspecs(name)?;
        let mut added = false;
        for spec in refs::fetch_refspecs(name) {
            if have.contains(&spec) {
                continue;
            }
            let out = self.run_git(
                &[
                    "config".into(),
                    "--add".into(),
                    format!("remote.{name}.fetch"),
                    spec,
                ],
                false,
            )?;
            if !out.status.success() {
                return Err(git_failure(format!("config of remote {name}"), &out).into());
            }
            added = true;
        }
        Ok(added)
    }

    /// Fetches remote `name`'s beads refs into its tracking refs and returns the
    /// commit its store is at (`None` when the remote has no beads).
    ///
    /// Only the tracking namespace is written: the refspecs name it as their only
    /// destination, tags are not followed, FETCH_HEAD is not touched, and tracking
    /// refs of refs the remote no longer has are pruned. The remote's claim refs come
    /// by a second fetch, and only when its store moved (its main or a replica ref)
    /// since the last fetch: listing a thousand claims held across a fleet made an
    /// idle sync take twice as long or more. A claim made while the remote's store
    /// stays still shows here once it moves; a claim or a close of this clone asks
    /// the remote itself ([`Store::fetch_beads_now`]). The store commit the remote's
    /// travelling index describes comes each time (it is already here), and the index
    /// itself only while this clone has none of its own ([`Store::lacks_index`]).
    pub(crate) fn fetch_beads(
        &self,
        name: &str,
        talk: bool,
    ) -> Result<Option<ObjectId>, StoreError> {
        self.fetch_beads_within(name, talk, None)
    }

    /// [`Store::fetch_beads`], giving up after `timeout` (then git is stopped and may
    /// not prompt on the terminal, so a hook never hangs on it) unless git talks to
    /// the terminal, where a person can stop it.
    pub(crate) fn fetch_beads_within(
        &self,
        name: &str,
        talk: bool,
        timeout: Option<std::time::Duration>,
    ) -> Result<Option<ObjectId>, StoreError> {
        self.check_fetch(name)?;
        let before = self.store_tracking(name)?;
        let mut refspecs = refs::fetch_refspecs(name).to_vec();
        refspecs.push(refs::index_of_refspec(name));
        if self.lacks_index() {
            refspecs.push(refs::index_files_refspec(name));
        }
        self.fetch_refs(name, talk, timeout, true, refspecs)?;
        if self.store_tracking(name)? != before {
            self.fetch_refs(
                name,
                false,
                timeout,
                false,
                vec![refs::claims_refspec(name)],
            )?;
        }
        // The fetch is done: failing to tidy up after it must not fail it.
        let _ = self.housekeep();
        self.tracking_head(name)
    }

    /// [`Store::fetch_beads`] for a command waiting on the answer (a claim, a close
    /// confirmed by a remote): every claim ref comes in the same fetch, and git skips
    /// its automatic maintenance afterwards, a process more, which the next sync's
    /// fetch runs.
    pub(crate) fn fetch_beads_now(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        self.check_fetch(name)?;
        let mut refspecs = refs::fetch_refspecs(name).to_vec();
        refspecs.push(refs::claims_refspec(name));
        self.fetch_refs(name, false, None, false, refspecs)?;
        let _ = self.housekeep();
        self.tracking_head(name)
    }

    /// Fetches every claim ref of remote `name` into its tracking refs (pruning those
    /// gone there).
    pub(crate) fn fetch_claims(&self, name: &str) -> Result<(), StoreError> {
        self.check_fetch(name)?;
        self.fetch_refs(name, false, None, false, vec![refs::claims_refspec(name)])
    }

    /// Checks remote `name` before a fetch from it, and clears what a killed fetch
    /// left: a fetch killed while updating a tracking ref (its main, notes, a
    /// replica's, a claim's) leaves git's `.lock` beside it, and every later fetch
    /// would fail on it.
    fn check_fetch(&self, name: &str) -> Result<(), StoreError> {
        self.git().check_remote(name)?;
        self.clear_stale_ref_locks_under(&format!("{}{name}/", refs::TRACKING_PREFIX))
    }

    /// Where remote `name`'s store was when last fetched: its main and replica refs.
    fn store_tracking(&self, name: &str) -> Result<Vec<(String, ObjectId)>, StoreError> {
        let mut refs = self.refs_under(&refs::tracking_main(name), "tracked main")?;
        refs.extend(self.tracked_replicas(name)?);
        Ok(refs)
    }

    /// Fetches `refspecs` from remote `name`, giving up after `timeout` unless git
    /// talks to the terminal; git's automatic maintenance runs after only when
    /// `maintain`.
    fn fetch_refs(
        &self,
        name: &str,
        talk: bool,
        timeout: Option<std::time::Duration>,
        maintain: bool,
        refspecs: Vec<String>,
    ) -> Result<(), StoreError> {
        let mut args: Vec<String> = [
            // git checks every object it receives, as `transfer.fsckObjects` would:
            // [`Store::check_remote_tree`] sees only the tip, and a tree holding
            // `.git` or `../x` deeper in the remote's history would otherwise come
            // into this store's history (and be refused by every strict remote it
            // is pushed to after).
            "-c",
            "fetch.fsckObjects=true",
            // What comes stays a pack, never loose objects (a sync's few would be
            // below git's limit each time, and pile up until git's auto-gc): the
            // store's housekeeping then merges it with the others.
            "-c",
            "fetch.unpackLimit=1",
            "fetch",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-recurse-submodules",
            "--prune",
        ]
        .map(String::from)
        .to_vec();
        if !maintain {
            args.splice(0..0, ["-c".to_owned(), "maintenance.auto=false".to_owned()]);
        }
        if !talk {
            args.push("--quiet".into());
        }
        // The remote's side runs here too: told not to look for deltas, its
        // `upload-pack` sends the objects as they are stored, and this side has none
        // to resolve (a fetch of 10 000 changed beads from a store of 100 000: 1.5 s
        // of processor time with deltas, 0.6 s without). A command configured for
        // the remote is left as it is.
        if self.is_local(name, gix::remote::Direction::Fetch)
            && self
                .git()
                .config_string(&format!("remote.{name}.uploadpack"))
                .is_none()
        {
            args.push(format!("--upload-pack=git -c {NO_DELTAS} upload-pack"));
        }
        args.push(name.into());
        args.extend(refspecs);
        let fetch = || -> Result<std::process::Output, StoreError> {
            Ok(match timeout.filter(|_| !talk) {
                None => self.run_git(&args, talk)?,
                Some(limit) => {
                    self.git()
                        .run_within(&args, limit, &format!("fetch from {name}"))?
                }
            })
        };
        let mut out = fetch()?;
        // A ref that another clone moved between the remote's advertisement and this
        // side's request is "not our ref" to the remote: a fetch again sees it anew.
        for _ in 0..FETCH_RACE_RETRIES {
            if out.status.success() || !String::from_utf8_lossy(&out.stderr).contains("not our ref")
            {
                break;
            }
            out = fetch()?;
        }
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("fsck error") {
            let what = stderr
                .lines()
                .find_map(|l| l.strip_prefix("error: object "))
                .unwrap_or("an object failed git's checks");
            return Err(RemoteError::Garbage {
                remote: name.to_owned(),
                detail: format!("git refused what it sent: {}", what.trim()),
            }
            .into());
        }
        Err(git_failure(format!("fetch from {name}"), &out).into())
    }

    /// The commit remote `name`'s claim ref of bead `id` held when last fetched.
    pub(crate) fn tracked_claim(
        &self,
        name: &str,
        id: &crate::model::BeadId,
    ) -> Result<Option<ObjectId>, StoreError> {
        Ok(self
            .ref_head(&refs::tracking_claim(name, id.as_str()))?
            .map(|h| h.commit))
    }

    /// Points the tracking ref of remote `name`'s claim ref of bead `id` at `commit`
    /// (after this clone's push created it there), so that a close or release here
    /// knows, without asking the remote, that there is a claim ref to delete.
    pub(crate) fn set_tracked_claim(
        &self,
        name: &str,
        id: &crate::model::BeadId,
        commit: ObjectId,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        check_remote_name(name)?;
        let tracking = refs::tracking_claim(name, id.as_str());
        let now = self.ref_head(&tracking)?.map(|h| h.commit);
        // A concurrent fetch may win this race; its value is as good.
        let _ = self.move_ref(&tracking, now, commit, actor, "claim: update tracking ref")?;
        Ok(())
    }

    /// The claim refs of remote `name` as last fetched: bead id and commit.
    pub(crate) fn tracked_claims(&self, name: &str) -> Result<Vec<(String, ObjectId)>, StoreError> {
        self.refs_under(&refs::tracking_claims(name), "tracked claims")
    }

    /// Remote `name`'s replica refs as last fetched: each replica id with its commit,
    /// this clone's own among them.
    pub(crate) fn tracked_replicas(
        &self,
        name: &str,
    ) -> Result<Vec<(String, ObjectId)>, StoreError> {
        self.refs_under(&refs::tracking_replicas(name), "tracked replicas")
    }

    /// The refs under `prefix` that point at an object: each name after the prefix,
    /// with its target.
    fn refs_under(&self, prefix: &str, what: &str) -> Result<Vec<(String, ObjectId)>, StoreError> {
        let context = || format!("list the {what}");
        let platform = self.repo.references().map_err(git_err(context()))?;
        let found = platform.prefixed(prefix).map_err(git_err(context()))?;
        let mut out = Vec::new();
        for r in found.flatten() {
            let full = r.name().as_bstr().to_string();
            if let (Some(rest), Some(id)) = (full.strip_prefix(prefix), r.target().try_id()) {
                out.push((rest.to_owned(), id.to_owned()));
            }
        }
        Ok(out)
    }

    /// This clone's replica id (`r-` and ten base36 digits), the name of its replica
    /// ref on every remote: made up once and kept in the local git-beads directory
    /// (never in the store, which every clone shares). A file that does not hold an
    /// id is replaced by a new one: an id only names where this clone's pushes go.
    pub(crate) fn replica_id(&self) -> Result<String, StoreError> {
        let path = self.local_dir().join("replica");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let id = text.trim();
            let valid = id.len() == 12
                && id.starts_with("r-")
                && id[2..]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase());
            if valid {
                return Ok(id.to_owned());
            }
        }
        let prefix = crate::model::Prefix::parse("r").expect("a valid prefix");
        let seed = format!(
            "{}:{:?}",
            self.common_dir().display(),
            std::time::SystemTime::now()
        );
        let id = crate::model::BeadId::generate(&prefix, seed.as_bytes(), 10).to_string();
        std::fs::create_dir_all(self.local_dir()).map_err(io_err("create the beads directory"))?;
        super::replace_file(&path, format!("{id}\n").as_bytes(), true)
            .map_err(io_err(format!("write {}", path.display())))?;
        Ok(id)
    }

    /// Writes (without moving any ref) a commit on `head` whose tree holds `bead`'s
    /// document as given: what a claim ref points at.
    pub(crate) fn commit_bead(
        &self,
        head: &Head,
        bead: &crate::model::Bead,
        actor: &Actor,
        message: &str,
    ) -> Result<ObjectId, StoreError> {
        let path = refs::bead_path(&bead.id);
        let doc = codec::encode(bead).map_err(|source| StoreError::Encode {
            what: path.clone(),
            source,
        })?;
        let blob = self.write_blob(doc.as_bytes())?;
        let edits = BTreeMap::from([(
            path,
            Some(Entry {
                kind: EntryKind::Blob,
                id: blob,
            }),
        )]);
        let tree = self.write_tree_edits(head.tree, &edits)?;
        self.write_commit(tree, &[head.commit], actor, message)
    }

    /// The commit remote `name`'s store was at when last fetched, checked to be a
    /// commit (`None` when it had no beads).
    pub(crate) fn tracking_head(&self, name: &str) -> Result<Option<ObjectId>, StoreError> {
        let tracking = refs::tracking_main(name);
        let Some(r) = self
            .repo
            .try_find_reference(tracking.as_str())
            .map_err(git_err(format!("read {tracking}")))?
        else {
            return Ok(None);
        };
        let garbage = |detail: String| RemoteError::Garbage {
            remote: name.to_owned(),
            detail,
        };
        let Some(id) = r.target().try_id().map(ToOwned::to_owned) else {
            return Err(garbage(format!("{} is a symbolic ref", refs::MAIN)).into());
        };
        let kind = self
            .repo
            .find_header(id)
            .map_err(git_err(format!("read object {id}")))?
            .kind();
        if kind != gix::object::Kind::Commit {
            return Err(garbage(format!("{} points at a {kind}, not a commit", refs::MAIN)).into());
        }
        Ok(Some(id))
    }

    /// Points remote `name`'s tracking ref at `commit` (after a successful push), if
    /// it can: the push is done either way, and the next fetch sets the ref.
    pub(crate) fn set_tracking(
        &self,
        name: &str,
        commit: ObjectId,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        check_remote_name(name)?;
        let tracking = refs::tracking_main(name);
        let now = self.ref_head(&tracking)?.map(|h| h.commit);
        if now != Some(commit) {
            // A concurrent plain `git fetch` may win this race, or hold the ref's lock
            // at this moment: its value is as good, and failing here would fail a
            // sync whose push went through.
            let _ = self.move_ref(&tracking, now, commit, actor, "push: update tracking ref");
        }
        Ok(())
    }

    /// Pushes `updates` to remote `name` in one atomic `git push`: each with its lease
    /// (the ref must still be where it was fetched), and either all of them or none.
    /// Returns how each went, in order. The user's pre-push hooks are for code and are
    /// not run for beads. Unless git talks to the terminal, a `timeout` stops it once it
    /// runs out (a failed push: the remote has all of it or none).
    pub(crate) fn push_beads(
        &self,
        name: &str,
        updates: &[RefPush],
        talk: bool,
        timeout: Option<std::time::Duration>,
    ) -> Result<Vec<Pushed>, StoreError> {
        self.push_refs(name, updates, &[], talk, timeout)
    }

    /// [`Store::push_beads`] of `updates`, with each of `forced` (a ref and the commit
    /// it is to hold) pushed whatever the remote holds there, in the same push.
    pub(crate) fn push_refs(
        &self,
        name: &str,
        updates: &[RefPush],
        forced: &[(&str, ObjectId)],
        talk: bool,
        timeout: Option<std::time::Duration>,
    ) -> Result<Vec<Pushed>, StoreError> {
        self.git().check_remote(name)?;
        let mut args: Vec<String> = Vec::new();
        if self.is_local(name, gix::remote::Direction::Push) {
            // Without deltas git sends the objects as the merge already packed them
            // (see [`NO_DELTAS`]): a push of 10 000 merged beads took 2.3 s with
            // deltas, 0.7 s without.
            args.extend(["-c".into(), NO_DELTAS.into()]);
        }
        args.extend(
            [
                "push",
                "--porcelain",
                "--no-verify",
                "--no-follow-tags",
                "--recurse-submodules=no",
            ]
            .map(String::from),
        );
        if updates.len() + forced.len() > 1 {
            args.push("--atomic".into());
        }
        if !talk {
            args.push("--quiet".into());
        }
        for u in updates {
            let expected = u.expected.map(|e| e.to_string()).unwrap_or_default();
            args.push(format!("--force-with-lease={}:{expected}", u.name));
        }
        args.push(name.into());
        for u in updates {
            let new = u.new.map(|n| n.to_string()).unwrap_or_default();
            args.push(format!("{new}:{}", u.name));
        }
        for (forced, new) in forced {
            args.push(format!("+{new}:{forced}"));
        }
        let out = match timeout.filter(|_| !talk) {
            Some(limit) => self
                .git()
                .run_within(&args, limit, &format!("push to {name}"))?,
            None => self.run_git(&args, talk)?,
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let mut pushed = Vec::with_capacity(updates.len());
        for u in updates {
            pushed.push(match push_outcome(&stdout, &u.name) {
                Some(Ok(p)) => p,
                Some(Err(reason)) => {
                    return Err(RemoteError::Rejected {
                        remote: name.to_owned(),
                        reason,
                        stderr,
                    }
                    .into());
                }
                None if out.status.success() => Pushed::Done,
                None => return Err(git_failure(format!("push to {name}"), &out).into()),
            });
        }
        Ok(pushed)
    }

    /// Whether every URL git uses for remote `name` in `direction` is a repository
    /// on this machine (a path or a `file://` URL, after `insteadOf` rewrites).
    fn is_local(&self, name: &str, direction: gix::remote::Direction) -> bool {
        let Ok(remote) = self.repo.find_remote(name) else {
            return false;
        };
        let mut urls = remote.urls(direction).peekable();
        urls.peek().is_some() && urls.all(|u| u.scheme == gix::url::Scheme::File)
    }

    /// Checks a tree a remote sent before anything is merged from it: every entry
    /// has a plain name (no `..`, no `/`, UTF-8), is a blob no larger than a document
    /// may be or a tree not too deep, and nothing else (no symlinks, no submodules).
    /// Subtrees equal to those at the same place in `trusted` (a tree of the local
    /// history) are skipped, so the cost follows the size of what changed.
    pub(crate) fn check_remote_tree(
        &self,
        remote: &str,
        tree: ObjectId,
        trusted: Option<ObjectId>,
    ) -> Result<(), StoreError> {
        self.check_tree_at(remote, tree, trusted, "", 0)
    }

    /// Checks the tree of a commit a remote offers as a store head before anything
    /// is merged from it: it passes [`Store::check_remote_tree`] and holds a store
    /// (its `meta.yaml`).
    pub(crate) fn check_remote_store(
        &self,
        remote: &str,
        tree: ObjectId,
        trusted: Option<ObjectId>,
    ) -> Result<(), StoreError> {
        self.check_remote_tree(remote, tree, trusted)?;
        let has_meta = self
            .tree_entries(tree)?
            .get(refs::META_PATH)
            .is_some_and(Entry::is_file);
        if !has_meta {
            return Err(Spot { remote, base: "" }.garbage(format!(
                "its tree {tree} has no {}: it is not a git-beads store",
                refs::META_PATH
            )));
        }
        Ok(())
    }

    fn check_tree_at(
        &self,
        remote: &str,
        tree: ObjectId,
        trusted: Option<ObjectId>,
        base: &str,
        depth: usize,
    ) -> Result<(), StoreError> {
        let spot = Spot { remote, base };
        if depth > MAX_DEPTH {
            return Err(spot.garbage(format!(
                "{base} is nested more than {MAX_DEPTH} levels deep"
            )));
        }
        if Some(tree) == trusted {
            return Ok(());
        }
        let trusted_entries = match trusted {
            Some(t) => self.tree_entries(t)?,
            None => BTreeMap::new(),
        };
        let object = self
            .repo
            .find_tree(tree)
            .map_err(|e| spot.garbage(format!("tree {tree} at {base:?} cannot be read: {e}")))?;
        let decoded = object
            .decode()
            .map_err(|e| spot.garbage(format!("tree {tree} at {base:?} does not decode: {e}")))?;
        // Worktree snapshots are trees of a worktree's files as they are: symbolic
        // links, submodules and files larger than a document belong there.
        let in_snapshot =
            base == refs::SNAPSHOTS_DIR || base.starts_with(&format!("{}/", refs::SNAPSHOTS_DIR));
        let mut seen = HashSet::new();
        for entry in &decoded.entries {
            let name = spot.checked_name(entry, &mut seen)?;
            let kind = entry.mode.kind();
            let id = entry.oid.to_owned();
            if trusted_entries.get(name) == Some(&Entry::of(kind, id)) {
                continue;
            }
            match kind {
                TreeKind::Tree => {
                    let trusted_sub = trusted_entries
                        .get(name)
                        .filter(|e| e.kind == EntryKind::Tree)
                        .map(|e| e.id);
                    self.check_tree_at(remote, id, trusted_sub, &spot.shown(name), depth + 1)?;
                }
                TreeKind::Blob | TreeKind::BlobExecutable | TreeKind::Link
                    if kind != TreeKind::Link || in_snapshot =>
                {
                    let limit = if in_snapshot {
                        MAX_SNAPSHOT_FILE
                    } else {
                        codec::MAX_DOCUMENT as u64
                    };
                    self.check_blob(&spot, name, id, limit)?;
                }
                TreeKind::Commit if in_snapshot => {}
                TreeKind::Link => {
                    return Err(spot.garbage(format!(
                        "{} is a symbolic link, not a document",
                        spot.shown(name)
                    )));
                }
                _ => {
                    return Err(spot.garbage(format!(
                        "{} is a submodule, not a document",
                        spot.shown(name)
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks that the entry `name` of the tree at `spot` is a blob of at most `limit`
    /// bytes.
    fn check_blob(
        &self,
        spot: &Spot<'_>,
        name: &str,
        id: ObjectId,
        limit: u64,
    ) -> Result<(), StoreError> {
        let header = self
            .repo
            .find_header(id)
            .map_err(|e| spot.garbage(format!("{} cannot be read: {e}", spot.shown(name))))?;
        if header.kind() != gix::object::Kind::Blob {
            return Err(spot.garbage(format!(
                "{} is a {}, not a blob",
                spot.shown(name),
                header.kind()
            )));
        }
        if header.size() > limit {
            return Err(spot.garbage(format!(
                "{} is {} bytes, larger than the {limit} byte limit",
                spot.shown(name),
                header.size(),
            )));
        }
        Ok(())
    }

    /// The entries of a tree by name, with their kind (names that are not UTF-8 are
    /// left out: git-beads never writes them, and a remote that sends them is refused).
    pub(crate) fn tree_entries(
        &self,
        tree: ObjectId,
    ) -> Result<BTreeMap<String, Entry>, StoreError> {
        let object = self
            .repo
            .find_tree(tree)
            .map_err(git_err(format!("read tree {tree}")))?;
        let decoded = object
            .decode()
            .map_err(git_err(format!("decode tree {tree}")))?;
        Ok(decoded
            .entries
            .iter()
            .filter_map(|e| {
                let name = std::str::from_utf8(e.filename).ok()?;
                Some((name.to_owned(), Entry::of(e.mode.kind(), e.oid.to_owned())))
            })
            .collect())
    }

    /// Writes the tree `base` with `edits` applied: each path gets the entry given
    /// (a subtree is put in place whole), or is removed when `None`.
    pub(crate) fn write_tree_edits(
        &self,
        base: ObjectId,
        edits: &BTreeMap<String, Option<Entry>>,
    ) -> Result<ObjectId, StoreError> {
        let mut editor = self
            .repo
            .edit_tree(base)
            .map_err(git_err(format!("edit tree {base}")))?;
        for (path, entry) in edits {
            match entry {
                Some(e) => {
                    editor
                        .upsert(path.as_str(), e.kind.into(), e.id)
                        .map_err(git_err(format!("place {path} in the tree")))?;
                }
                None => {
                    editor
                        .remove(path.as_str())
                        .map_err(git_err(format!("remove {path} from the tree")))?;
                }
            }
        }
        Ok(editor
            .write()
            .map_err(git_err("write the merged tree"))?
            .detach())
    }

    /// A commit graph for the merge-base questions of one piece of work (see
    /// [`Ancestry`]).
    pub(crate) fn ancestry(&self) -> Ancestry<'_> {
        Ancestry {
            repo: &self.repo,
            graph: self.repo.revision_graph(None),
        }
    }

    /// The tree of a commit.
    pub(crate) fn commit_tree(&self, commit: ObjectId) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo
            .find_commit(commit)
            .map_err(git_err(format!("read commit {commit}")))?
            .tree_id()
            .map_err(git_err(format!("read the tree of {commit}")))?
            .detach())
    }

    /// Another handle on this repository, for another thread: it sees the objects
    /// this one holds in memory (a copy of them, taken now), and what it writes stays
    /// in its own memory or goes to disk as this one's would.
    pub(crate) fn for_thread(&self) -> Store {
        Store {
            repo: self.repo.clone(),
            pin: self.pin,
        }
    }

    /// Writes a blob and returns its id.
    pub(crate) fn write_blob(&self, bytes: &[u8]) -> Result<ObjectId, StoreError> {
        Ok(self
            .repo
            .write_blob(bytes)
            .map_err(git_err("write a blob"))?
            .detach())
    }

    /// Moves `refs/beads/main` under the write lock: `decide` sees the current head
    /// and returns a value and, optionally, the commit to move to (which must have
    /// the current head among its ancestors or be a merge with it) and the reflog
    /// message. Local writers are kept out meanwhile, so the ref moves from exactly
    /// the head `decide` saw.
    pub(crate) fn advance_main<T, E>(
        &self,
        actor: &Actor,
        decide: impl FnOnce(Option<Head>) -> Result<(T, Option<(ObjectId, String)>), E>,
    ) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let _lock = self.write_lock()?;
        self.clear_stale_ref_lock(refs::MAIN.as_str())?;
        let head = self.head()?;
        let (value, target) = decide(head)?;
        if let Some((commit, message)) = target
            && Some(commit) != head.map(|h| h.commit)
            && !self.move_ref(
                refs::MAIN.as_str(),
                head.map(|h| h.commit),
                commit,
                actor,
                &message,
            )?
        {
            return Err(StoreError::Contended(refs::MAIN.to_string()).into());
        }
        Ok(value)
    }

    /// Serializes whole syncs of this repository (all worktrees): held from the
    /// fetch to the push, separate from the write lock so local writers go on.
    pub(crate) fn sync_lock(&self) -> Result<WriteLock, StoreError> {
        let path: PathBuf = self.local_dir().join("sync.lock");
        WriteLock::acquire(&path).map_err(io_err(format!("lock {}", path.display())))
    }
}

fn git_failure(what: String, out: &Output) -> RemoteError {
    RemoteError::Git {
        what,
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The commit graph that merge-base questions walk, kept for all the questions of one
/// piece of work (a sync asks dozens, over the same criss-cross history of replica
/// heads): each commit is read and parsed once however many questions walk through
/// it, where a graph per question read the shared history again each time. Commits
/// are immutable, so what the graph holds stays true; it only reads what is on disk
/// (or in the store's memory) when it is made or asked.
pub(crate) struct Ancestry<'s> {
    repo: &'s gix::Repository,
    graph: gix::revwalk::Graph<
        's,
        's,
        gix::revwalk::graph::Commit<gix::revision::plumbing::merge_base::Flags>,
    >,
}

impl Ancestry<'_> {
    /// The merge bases of `one` and a merge of all of `others` (as `git merge-base
    /// ONE OTHER...`): several after criss-cross merges, none for unrelated histories.
    pub(crate) fn merge_bases_with_all(
        &mut self,
        one: ObjectId,
        others: &[ObjectId],
    ) -> Result<Vec<ObjectId>, StoreError> {
        Ok(self
            .repo
            .merge_bases_many_with_graph(one, others, &mut self.graph)
            .map_err(|e| git_err(format!("find the merge base of {one} and {others:?}"))(e))?
            .into_iter()
            .map(|id| id.detach())
            .collect())
    }

    /// The merge bases of two commits.
    pub(crate) fn merge_bases(
        &mut self,
        a: ObjectId,
        b: ObjectId,
    ) -> Result<Vec<ObjectId>, StoreError> {
        self.merge_bases_with_all(a, &[b])
    }

    /// Whether `commit` is in the history of `head` (or is `head`).
    pub(crate) fn contains(
        &mut self,
        head: ObjectId,
        commit: ObjectId,
    ) -> Result<bool, StoreError> {
        Ok(commit == head || self.merge_bases(commit, head)? == [commit])
    }

    /// Of `commits`, each once and in their order, those not in the history of
    /// another of them: the heads a merge of all of them needs as parents.
    pub(crate) fn independent(
        &mut self,
        commits: &[ObjectId],
    ) -> Result<Vec<ObjectId>, StoreError> {
        let mut unique: Vec<ObjectId> = Vec::with_capacity(commits.len());
        for c in commits {
            if !unique.contains(c) {
                unique.push(*c);
            }
        }
        if unique.len() < 2 {
            return Ok(unique);
        }
        let mut out = Vec::with_capacity(unique.len());
        for c in &unique {
            let others: Vec<ObjectId> = unique.iter().filter(|o| *o != c).copied().collect();
            if self.merge_bases_with_all(*c, &others)? != [*c] {
                out.push(*c);
            }
        }
        Ok(out)
    }

    /// For each of `commits`, whether it is in the history of `head` (or is `head`).
    pub(crate) fn in_history(
        &mut self,
        head: ObjectId,
        commits: &[ObjectId],
    ) -> Result<Vec<bool>, StoreError> {
        commits.iter().map(|c| self.contains(head, *c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_names() {
        for ok in ["origin", "up-stream", "a.b", "x_1"] {
            assert!(check_remote_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "a/b",
            "a..b",
            "a b",
            "x.lock",
            "a:b",
            "a*",
            "é",
            "--upload-pack=x",
            "aux",
            "CON.x",
        ] {
            assert!(check_remote_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn error_detail_keeps_the_last_lines() {
        let e = RemoteError::Git {
            what: "fetch from origin".into(),
            code: Some(128),
            stderr: "fatal: one\n\nfatal: two\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "git fetch from origin failed (exit 128): fatal: one / fatal: two"
        );
    }
}
