//! The documents about the repository and the store as a whole: init, history,
//! import and export, sync, hooks, doctor, setup.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::{Doc, Documented, Field, Shape};
use crate::ops::{
    CommitProvenance, DoctorReport, ImportReport, KeptDoc, LogEntry, Moved, NotesSync, Outcome,
    Severity, SyncReport, WorktreeAdded as Added,
};

/// What `init` did.
#[derive(Serialize)]
pub struct Initialized<'a> {
    /// The store's prefix of new ids.
    pub prefix: &'a str,
    /// Whether a new store was created.
    pub created: bool,
    /// The remote whose store this repository adopted, if it did.
    pub adopted: Option<&'a str>,
    /// The remotes whose fetch refspecs were added now.
    pub remotes_configured: &'a [String],
}

impl Documented for Initialized<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "init",
        fields: &[
            Field::new("prefix"),
            Field::new("created"),
            Field::new("adopted"),
            Field::new("remotes_configured"),
        ],
    };
}

/// What `kv set` and `kv get` print: bd's fields (`found` from `get` alone).
#[derive(Serialize)]
pub struct KvPair<'a> {
    /// The key.
    pub key: &'a str,
    /// Its value ("" when it is not set).
    pub value: &'a str,
    /// Whether it is set (`kv get`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<bool>,
}

impl Documented for KvPair<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "kv set, kv get",
        fields: &[
            Field::new("key"),
            Field::new("value"),
            Field::optional("found"),
        ],
    };
}

/// What `kv clear` prints: bd's fields (`deleted` is the string "true" there).
#[derive(Serialize)]
pub struct KvCleared<'a> {
    /// The key.
    pub key: &'a str,
    /// "true".
    pub deleted: &'a str,
}

impl Documented for KvCleared<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "kv clear",
        fields: &[Field::new("key"), Field::new("deleted")],
    };
}

/// What `kv list` prints: one bare object of keys and their values (no
/// `schema_version` among them: bd's callers read it as a map of strings).
#[derive(Serialize)]
#[serde(transparent)]
pub struct KvPairs<'a>(pub &'a std::collections::BTreeMap<String, String>);

impl Documented for KvPairs<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "kv list",
        fields: &[],
    };
}

/// What `migrate` prints: bd's status word and a sentence.
#[derive(Serialize)]
pub struct Migrated<'a> {
    /// `current`: nothing to migrate.
    pub status: &'a str,
    /// What it means here.
    pub message: &'a str,
}

impl Documented for Migrated<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "migrate",
        fields: &[Field::new("status"), Field::new("message")],
    };
}

/// One change a commit made to a document.
#[derive(Serialize)]
pub struct LogChange<'a> {
    path: &'a str,
    change: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
}

/// One commit of the store's history.
#[derive(Serialize)]
pub struct LogCommit<'a> {
    commit: &'a str,
    author: &'a str,
    email: &'a str,
    time: String,
    message: &'a str,
    changes: Vec<LogChange<'a>>,
    /// `session log`: how `verify` judges the commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
    /// `session log`: the public key that signed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    signer: Option<&'a str>,
}

impl<'a> From<&'a LogEntry> for LogCommit<'a> {
    fn from(e: &'a LogEntry) -> Self {
        LogCommit {
            commit: &e.commit,
            author: &e.author,
            email: &e.email,
            time: e.time.to_rfc3339(),
            message: &e.message,
            changes: e
                .changes
                .iter()
                .map(|c| LogChange {
                    path: &c.path,
                    change: c.kind.as_str(),
                    diff: c.diff.as_deref(),
                })
                .collect(),
            verdict: e.evidence.as_ref().map(|v| v.verdict.as_str()),
            signer: e.evidence.as_ref().and_then(|v| v.signer.as_deref()),
        }
    }
}

/// History, a bare array of commits: `log`, `session log`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Log<'a> {
    /// The commits, newest first.
    pub log: Vec<LogCommit<'a>>,
}

impl<'a> Log<'a> {
    /// The document of `entries`.
    pub fn new(entries: &'a [LogEntry]) -> Self {
        Log {
            log: entries.iter().map(LogCommit::from).collect(),
        }
    }
}

impl Documented for Log<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "log, session log",
        fields: &[
            Field::new("commit"),
            Field::new("author"),
            Field::new("email"),
            Field::new("time"),
            Field::new("message"),
            Field::noted("changes", ": [{path, change, diff}]"),
            Field::optional_noted(
                "verdict",
                ": `session log` only, how `verify` judges it (good, unsigned, bad, \
                 unknown-key, rotated-out, retired, over-reaching)",
            ),
            Field::optional_noted(
                "signer",
                ": `session log` only, the public key that signed it",
            ),
        ],
    };
}

/// A line an import could not read.
#[derive(Serialize)]
pub struct BadLine<'a> {
    line: usize,
    error: &'a str,
}

/// What `import` did.
#[derive(Serialize)]
pub struct Imported<'a> {
    source: &'a str,
    format: &'a str,
    records: usize,
    added: usize,
    updated: usize,
    unchanged: usize,
    kept_newer: &'a [String],
    bad: Vec<BadLine<'a>>,
    unmapped_dependencies: usize,
    by_status: &'a BTreeMap<String, usize>,
    by_type: &'a BTreeMap<String, usize>,
    commit: Option<&'a str>,
}

impl<'a> Imported<'a> {
    /// The document of `report`, an import of `source` in `format`.
    pub fn new(source: &'a str, format: &'a str, report: &'a ImportReport) -> Self {
        Imported {
            source,
            format,
            records: report.records,
            added: report.added,
            updated: report.updated,
            unchanged: report.unchanged,
            kept_newer: &report.kept_newer,
            bad: report
                .bad
                .iter()
                .map(|b| BadLine {
                    line: b.line,
                    error: &b.error,
                })
                .collect(),
            unmapped_dependencies: report.unmapped_dependencies,
            by_status: &report.by_status,
            by_type: &report.by_type,
            commit: report.commit.as_deref(),
        }
    }
}

impl Documented for Imported<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "import",
        fields: &[
            Field::new("source"),
            Field::new("format"),
            Field::new("records"),
            Field::new("added"),
            Field::new("updated"),
            Field::new("unchanged"),
            Field::new("kept_newer"),
            Field::noted("bad", ": [{line, error}]"),
            Field::new("unmapped_dependencies"),
            Field::new("by_status"),
            Field::new("by_type"),
            Field::new("commit"),
        ],
    };
}

/// What `export -o FILE` wrote.
#[derive(Serialize)]
pub struct Exported<'a> {
    /// The format written.
    pub format: &'a str,
    /// The file.
    pub path: &'a Path,
    /// How many beads.
    pub beads: usize,
    /// The documents that do not parse (left out).
    pub broken: Vec<super::Unreadable<'a>>,
}

impl Documented for Exported<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "export -o FILE",
        fields: &[
            Field::new("format"),
            Field::new("path"),
            Field::new("beads"),
            Field::new("broken"),
        ],
    };
}

/// What `install-man` installed.
#[derive(Serialize)]
pub struct ManInstalled<'a> {
    /// The directory the pages went to.
    pub dir: &'a Path,
    /// How many pages.
    pub pages: usize,
    /// Whether `man` finds them there (`null` when `man` cannot be run).
    pub found_by_man: Option<bool>,
}

impl Documented for ManInstalled<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "install-man",
        fields: &[
            Field::new("dir"),
            Field::new("pages"),
            Field::new("found_by_man"),
        ],
    };
}

/// What `gc` pruned.
#[derive(Serialize)]
pub struct Pruned {
    /// How many snapshots.
    pub pruned: usize,
}

impl Documented for Pruned {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "gc",
        fields: &[Field::new("pruned")],
    };
}

/// One thing `doctor` found.
#[derive(Serialize)]
pub struct Finding<'a> {
    check: &'a str,
    severity: Severity,
    path: &'a str,
    message: &'a str,
    fixed: bool,
}

/// What `doctor` found.
#[derive(Serialize)]
pub struct Doctor<'a> {
    findings: Vec<Finding<'a>>,
    documents: usize,
    moved: &'a [Moved],
    fix_commit: Option<&'a str>,
}

impl<'a> From<&'a DoctorReport> for Doctor<'a> {
    fn from(r: &'a DoctorReport) -> Self {
        Doctor {
            findings: r
                .findings
                .iter()
                .map(|f| Finding {
                    check: f.check.as_str(),
                    severity: f.severity,
                    path: &f.path,
                    message: &f.message,
                    fixed: f.fixed,
                })
                .collect(),
            documents: r.documents,
            moved: &r.moved,
            fix_commit: r.fix_commit.as_deref(),
        }
    }
}

impl Documented for Doctor<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "doctor",
        fields: &[
            Field::noted(
                "findings",
                ": [{check, severity (error, warning or info), path, message, fixed}]",
            ),
            Field::new("documents"),
            Field::noted(
                "moved",
                ": [{from, to, reason}] (what --fix moved to lost+found/, byte for byte)",
            ),
            Field::new("fix_commit"),
        ],
    };
}

/// What `setup` wrote to a harness' settings (or, with `--check`, found in them).
#[derive(Serialize)]
pub struct Setup<'a> {
    /// The harness (`claude`, `codex`, `gemini`, `agents-md`).
    pub harness: &'a str,
    /// The settings (or instructions) file.
    pub settings: &'a str,
    /// How many hooks (or sections, lines) were added, or with `--check` are missing.
    pub added: usize,
    /// How many of git-beads' own hooks were removed, or with `--check` are stale.
    pub removed: usize,
    /// What differs from what setup writes, in words, one entry per difference.
    pub drift: &'a [String],
    /// What the harness will skip until the user consents (`--trust`), in words.
    pub skipped: &'a [String],
    /// What `--trust` recorded the user's consent for now, in words.
    pub trusted: &'a [String],
}

impl Documented for Setup<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "setup claude, setup codex, setup gemini, setup agents-md",
        fields: &[
            Field::new("harness"),
            Field::new("settings"),
            Field::new("added"),
            Field::new("removed"),
            Field::noted("drift", ": [text]"),
            Field::noted("skipped", ": [text] (until the user trusts it: --trust)"),
            Field::noted("trusted", ": [text] (what --trust recorded)"),
        ],
    };
}

/// How each harness is wired in this worktree (`setup status`).
#[derive(Serialize)]
pub struct SetupStatus<'a> {
    /// One entry per harness.
    pub harnesses: &'a [HarnessStatus],
}

/// One harness in [`SetupStatus`].
#[derive(Serialize)]
pub struct HarnessStatus {
    /// `claude`, `codex` or `gemini`.
    pub harness: &'static str,
    /// Whether its settings in this worktree have git-beads' hooks.
    pub wired: bool,
    /// What it will skip until the user consents (`setup HARNESS --trust`), in words.
    pub skipped: Vec<String>,
}

impl Documented for SetupStatus<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "setup status",
        fields: &[Field::noted(
            "harnesses",
            ": [{harness, wired, skipped: [text]}]",
        )],
    };
}

/// What `sync`, `pull` or `push` did.
#[derive(Serialize)]
pub struct Synced<'a> {
    remote: &'a str,
    fetched: usize,
    merged: usize,
    conflicts: usize,
    pushed: bool,
    sent: Option<usize>,
    outcome: Outcome,
    head: Option<&'a str>,
    rounds: usize,
    configured: bool,
    kept: &'a [KeptDoc],
    replica: Option<&'a str>,
    waiting: &'a [String],
    notes: &'a NotesSync,
}

impl<'a> Synced<'a> {
    /// The document of a sync's `report` and what happened to the notes.
    pub fn new(report: &'a SyncReport, notes: &'a NotesSync) -> Self {
        Synced {
            remote: &report.remote,
            fetched: report.fetched,
            merged: report.merged,
            conflicts: report.conflicts,
            pushed: report.pushed,
            sent: report.sent,
            outcome: report.outcome,
            head: report.head.as_deref(),
            rounds: report.rounds,
            configured: report.configured,
            kept: &report.kept,
            replica: report.replica.as_deref(),
            waiting: &report.waiting,
            notes,
        }
    }
}

impl Documented for Synced<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "sync, pull, push",
        fields: &[
            Field::new("remote"),
            Field::new("fetched"),
            Field::new("merged"),
            Field::new("conflicts"),
            Field::new("pushed"),
            Field::noted(
                "sent",
                ": how many documents this push changed on the remote; null when nothing was pushed now",
            ),
            Field::new("outcome"),
            Field::new("head"),
            Field::new("rounds"),
            Field::new("configured"),
            Field::noted("kept", ": [{path, reason, other_version}]"),
            Field::noted(
                "replica",
                ": the replica ref pushed to because refs/beads/main was moving (the next \
                 sync folds it in); null when refs/beads/main was moved",
            ),
            Field::noted(
                "waiting",
                ": the remote's refs whose fetched heads are not merged yet (the sync ran \
                 out of time, published this clone's head, and left them to the next sync)",
            ),
            Field::noted("notes", ": {fetched, joined, pushed}"),
        ],
    };
}

/// What `remote setup` did.
#[derive(Serialize)]
pub struct RemoteSetup<'a> {
    /// The remote.
    pub remote: &'a str,
    /// Whether its fetch refspec was added now.
    pub added: bool,
}

impl Documented for RemoteSetup<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "remote setup",
        fields: &[Field::new("remote"), Field::new("added")],
    };
}

/// What `remote prune` did.
#[derive(Serialize)]
pub struct RemotePruned<'a> {
    /// The remote.
    pub remote: &'a str,
    /// The replica refs deleted there, already merged into its `refs/beads/main`.
    pub removed: &'a [String],
    /// The replica refs left there: not merged yet, or moved meanwhile.
    pub kept: &'a [String],
}

impl<'a> From<&'a crate::ops::RemotePruned> for RemotePruned<'a> {
    fn from(p: &'a crate::ops::RemotePruned) -> Self {
        RemotePruned {
            remote: &p.remote,
            removed: &p.removed,
            kept: &p.kept,
        }
    }
}

impl Documented for RemotePruned<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "remote prune",
        fields: &[
            Field::new("remote"),
            Field::noted("removed", ": [ref]"),
            Field::noted("kept", ": [ref]"),
        ],
    };
}

/// Who made a commit, its fields beside `schema_version`: `provenance`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Provenance<'a> {
    /// The commit's provenance.
    pub provenance: &'a CommitProvenance,
}

impl Documented for Provenance<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "provenance",
        fields: &[
            Field::new("commit"),
            Field::noted(
                "records",
                ": [{agent, session, model, bead, step, ...}], the note's records that parse",
            ),
            Field::noted(
                "other",
                ": [text], the note's documents that are not records",
            ),
            Field::noted("note", "the note as stored, null when the commit has none"),
        ],
    };
}

/// What `hooks install|uninstall|status` found or did: the hooks' report (the
/// `hooks` room's, which this room may not name) and, for install, the remotes set up.
#[derive(Serialize)]
pub struct Hooks<'a, R> {
    /// The hooks' report.
    #[serde(flatten)]
    pub report: &'a R,
    /// The remotes whose fetch refspecs `hooks install` added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remotes_configured: Option<&'a [String]>,
}

impl<R> Documented for Hooks<'_, R> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "hooks install, uninstall, status",
        fields: &[
            Field::noted("layout", ": {dir, hooks_dir, managers, advice}"),
            Field::noted("hooks", ": [{hook, path, state, change, via, advice}]"),
            Field::new("strict"),
            Field::new("notes_rewrite"),
            Field::new("configured"),
            Field::optional("remotes_configured"),
        ],
    };
}

/// How `worktree add` bound the new worktree.
#[derive(Serialize)]
pub struct WorktreeAdded<'a> {
    /// What was bound, and whether the worktree's hook did it.
    #[serde(flatten)]
    pub added: &'a Added,
}

impl Documented for WorktreeAdded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "worktree add",
        fields: &[
            Field::new("worktree"),
            Field::new("agent"),
            Field::new("bead"),
            Field::new("by"),
            Field::new("branch"),
            Field::new("by_hook"),
        ],
    };
}

/// The version of bd whose commands and `--json` documents git-beads speaks, as
/// `version` reports it.
pub const BD_VERSION: &str = "1.0.5";

/// What `version` prints: bd's fields (`version`, `build`) and git-beads' own version.
#[derive(Serialize)]
pub struct Version<'a> {
    /// The bd version spoken ([`BD_VERSION`]).
    pub version: &'a str,
    /// The build: `git-beads`.
    pub build: &'a str,
    /// git-beads' own version.
    pub git_beads_version: &'a str,
}

impl Documented for Version<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "version",
        fields: &[
            Field::new("version"),
            Field::new("build"),
            Field::new("git_beads_version"),
        ],
    };
}

/// What `rename` prints: the old id, the new one, and the beads whose links to it
/// were rewritten.
#[derive(Serialize)]
pub struct Renamed<'a> {
    /// The id the bead had (a tombstone now, saying where it went).
    pub old_id: &'a str,
    /// The id it has.
    pub new_id: &'a str,
    /// The beads whose dependencies on it (or a molecule's variables) now name the
    /// new id.
    pub relinked: Vec<&'a str>,
    /// The agents whose hooks now name the new id.
    pub agents: Vec<&'a str>,
    /// The messages whose subject or body now name the new id.
    pub messages: Vec<&'a str>,
    /// The sessions whose handoff or crash note now name the new id.
    pub sessions: Vec<&'a str>,
    /// This machine's wisps whose dependencies or variables now name the new id.
    pub wisps: Vec<&'a str>,
}

impl<'a> From<&'a crate::ops::Renamed> for Renamed<'a> {
    fn from(r: &'a crate::ops::Renamed) -> Self {
        Renamed {
            old_id: r.old.as_str(),
            new_id: r.bead.id.as_str(),
            relinked: ids(&r.relinked),
            agents: agent_names(&r.followed),
            messages: ids(&r.followed.messages),
            sessions: ids(&r.followed.sessions),
            wisps: ids(&r.followed.wisps),
        }
    }
}

impl Documented for Renamed<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "rename",
        fields: &[
            Field::new("old_id"),
            Field::new("new_id"),
            Field::noted("relinked", ": [id]"),
            Field::noted("agents", ": [name], whose hooks followed"),
            Field::noted("messages", ": [id], whose subject or body followed"),
            Field::noted("sessions", ": [id], whose handoff or crash note followed"),
            Field::noted("wisps", ": [id], this machine's wisps that followed"),
        ],
    };
}

fn agent_names(f: &crate::ops::Followed) -> Vec<&str> {
    f.agents.iter().map(|a| a.as_str()).collect()
}

fn ids(ids: &[crate::model::BeadId]) -> Vec<&str> {
    ids.iter().map(|id| id.as_str()).collect()
}

/// What `rename-prefix` prints: the old prefix, the new one, how many beads moved.
#[derive(Serialize)]
pub struct PrefixRenamed<'a> {
    /// The prefix the store had.
    pub old_prefix: &'a str,
    /// The prefix it has.
    pub new_prefix: &'a str,
    /// How many beads got a new id.
    pub renamed: usize,
    /// The agents whose hooks now name new ids.
    pub agents: Vec<&'a str>,
    /// The messages whose subject or body now name new ids.
    pub messages: Vec<&'a str>,
    /// The sessions whose handoff or crash note now name new ids.
    pub sessions: Vec<&'a str>,
    /// This machine's wisps whose dependencies or variables now name new ids.
    pub wisps: Vec<&'a str>,
}

impl<'a> From<&'a crate::ops::PrefixRenamed> for PrefixRenamed<'a> {
    fn from(r: &'a crate::ops::PrefixRenamed) -> Self {
        PrefixRenamed {
            old_prefix: r.old.as_str(),
            new_prefix: r.new.as_str(),
            renamed: r.renamed,
            agents: agent_names(&r.followed),
            messages: ids(&r.followed.messages),
            sessions: ids(&r.followed.sessions),
            wisps: ids(&r.followed.wisps),
        }
    }
}

impl Documented for PrefixRenamed<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "rename-prefix",
        fields: &[
            Field::new("old_prefix"),
            Field::new("new_prefix"),
            Field::new("renamed"),
            Field::noted("agents", ": [name], whose hooks followed"),
            Field::noted("messages", ": [id], whose subject or body followed"),
            Field::noted("sessions", ": [id], whose handoff or crash note followed"),
            Field::noted("wisps", ": [id], this machine's wisps that followed"),
        ],
    };
}

/// What `lint` prints: how many beads it checked, and each that lacks sections its
/// type's template expects.
#[derive(Serialize)]
pub struct Lint<'a> {
    /// How many beads were checked.
    pub checked: usize,
    /// How many lack something.
    pub issues: usize,
    /// Each bead that lacks something.
    pub results: Vec<LintResult<'a>>,
}

/// One bead `lint` found lacking.
#[derive(Serialize)]
pub struct LintResult<'a> {
    /// The bead.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Its type.
    pub issue_type: crate::model::BeadType,
    /// The sections it lacks ("Steps to Reproduce", "Acceptance Criteria", …).
    pub missing: &'a [&'static str],
}

impl<'a> From<&'a crate::ops::LintReport> for Lint<'a> {
    fn from(r: &'a crate::ops::LintReport) -> Self {
        Lint {
            checked: r.checked,
            issues: r.findings.len(),
            results: (r.findings.iter())
                .map(|f| LintResult {
                    id: f.id.as_str(),
                    title: &f.title,
                    issue_type: f.kind,
                    missing: &f.missing,
                })
                .collect(),
        }
    }
}

impl Documented for Lint<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "lint",
        fields: &[
            Field::new("checked"),
            Field::new("issues"),
            Field::noted("results", ": [{id, title, issue_type, missing: [section]}]"),
        ],
    };
}

/// What `onboard` and `quickstart` print: the guide's name and its text.
#[derive(Serialize)]
pub struct Guide<'a> {
    /// Which guide: `onboard` or `quickstart`.
    pub guide: &'a str,
    /// The text, as printed without --json.
    pub text: &'a str,
}

impl Documented for Guide<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "onboard, quickstart",
        fields: &[Field::new("guide"), Field::new("text")],
    };
}

/// What `info` prints: where the store is and what it holds (`database_path` is
/// bd's name for where the data lives: here the git dir whose refs hold the store).
#[derive(Serialize)]
pub struct Info<'a> {
    /// The git dir every worktree shares.
    pub database_path: &'a Path,
    /// How the data is kept: `git`.
    pub mode: &'a str,
    /// The ref that holds the store.
    pub store_ref: &'a str,
    /// The commit it points at.
    pub head: &'a str,
    /// The prefix of new ids.
    pub prefix: &'a str,
    /// The format of the store's tree.
    pub format: u32,
    /// How many beads it holds (tombstones aside).
    pub issue_count: usize,
}

impl Documented for Info<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "info, where",
        fields: &[
            Field::new("database_path"),
            Field::new("mode"),
            Field::new("store_ref"),
            Field::new("head"),
            Field::new("prefix"),
            Field::new("format"),
            Field::new("issue_count"),
        ],
    };
}

/// What `whoami` prints: who a command run here would act as, and why.
#[derive(Serialize)]
pub struct Whoami<'a> {
    /// The actor's id (an agent's name, or the person's email).
    pub actor: &'a str,
    /// The name commits are authored under.
    pub name: &'a str,
    /// The email commits are authored under.
    pub email: &'a str,
    /// Whether the actor is an agent.
    pub agent: bool,
    /// The agent's session it acts in, if one runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    /// Why: `as-flag`, `env`, `actor-flag`, `bound`, `session`, `person` or `as-person`.
    pub because: &'a str,
    /// Why, in words.
    pub reason: &'a str,
}

impl Documented for Whoami<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "whoami",
        fields: &[
            Field::new("actor"),
            Field::new("name"),
            Field::new("email"),
            Field::new("agent"),
            Field::optional("session"),
            Field::noted(
                "because",
                "as-flag, env, actor-flag, bound, session, person or as-person",
            ),
            Field::new("reason"),
        ],
    };
}

/// A word and what it means, for `types` and `statuses`.
#[derive(Serialize)]
pub struct Word<'a> {
    /// The word.
    pub name: &'a str,
    /// What it means.
    pub description: &'a str,
}

/// What `types` prints: bd's `core_types`, and `custom_types` when the project has
/// some.
#[derive(Serialize)]
pub struct Types<'a> {
    /// Every built-in type.
    pub core_types: Vec<Word<'a>>,
    /// The project's own types (`types.custom`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_types: Vec<&'a str>,
}

impl Documented for Types<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "types",
        fields: &[
            Field::noted("core_types", ": [{name, description}]"),
            Field::optional_noted(
                "custom_types",
                ": [name], when the project has some (types.custom)",
            ),
        ],
    };
}

/// A status and its category (bd's), for `statuses`.
#[derive(Serialize)]
pub struct StatusWord<'a> {
    /// The status.
    pub name: &'a str,
    /// How beads of it show in the views: `active`, `wip`, `done`, `frozen` or
    /// `unspecified`.
    pub category: &'a str,
    /// What it means (built-in statuses only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
}

/// What `statuses` prints: bd's `built_in_statuses`, and `custom_statuses` when the
/// project has some.
#[derive(Serialize)]
pub struct Statuses<'a> {
    /// Every built-in status.
    pub built_in_statuses: Vec<StatusWord<'a>>,
    /// The project's own statuses (`status.custom`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_statuses: Vec<StatusWord<'a>>,
}

impl Documented for Statuses<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "statuses",
        fields: &[
            Field::noted("built_in_statuses", ": [{name, category, description}]"),
            Field::optional_noted(
                "custom_statuses",
                ": [{name, category}], when the project has some (status.custom)",
            ),
        ],
    };
}

/// One setting of the project, as `config get`, `set` and `unset` print it (bd's
/// shape): its key and value (`null` when it is not set).
#[derive(Serialize)]
pub struct Setting<'a> {
    /// The key.
    pub key: &'a str,
    /// The value, `null` when not set.
    pub value: Option<&'a str>,
}

impl Documented for Setting<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "config get, config set, config unset",
        fields: &[
            Field::new("key"),
            Field::noted("value", "null when not set"),
        ],
    };
}

/// Every setting of the project, as `config list` prints them (bd's shape): one
/// field per key, its value a string.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Settings<'a>(pub &'a crate::model::config::Settings);

impl Documented for Settings<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "config list",
        fields: &[Field::noted("KEY", "one field per setting: its value")],
    };
}

/// What `sql` prints under `--json`: bd's bare array, one object per row with a key
/// per column (in the order of their names, as bd's Go maps print them): text as
/// strings, numbers as numbers, NULL as null.
pub struct SqlRows<'a>(pub &'a crate::ops::SqlAnswer);

impl Serialize for SqlRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for row in &self.0.rows {
            let object: std::collections::BTreeMap<&str, &serde_json::Value> =
                self.0.columns.iter().map(String::as_str).zip(row).collect();
            seq.serialize_element(&object)?;
        }
        seq.end()
    }
}

impl Documented for SqlRows<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf("a row: one key per column of the query"),
        commands: "sql",
        fields: &[],
    };
}
