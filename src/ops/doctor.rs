//! `doctor`: checks the store and repairs what it safely can.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::{DoctorError, Result, now};
use crate::model::{
    Actor, Agent, Bead, BeadId, BeadType, DepKind, EndReason, Message, Session, agent_problems,
    count, message_problems, stored_bead_problems,
};
use crate::store::{Head, ObjectId, Store, codec, refs};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The store is wrong and needs a person (or `--fix`).
    Error,
    /// Worth a look; nothing is broken.
    Warning,
    /// For the record: nothing to do.
    Info,
}

crate::model::word_enum!(
    /// The checks `doctor` runs; each finding names the one that found it.
    Check, "check", {
        /// Every document parses.
        Parse = "parse",
        /// Every document's id matches its path.
        Schema = "schema",
        /// Every bead, message and agent keeps the rules commands and imports enforce
        /// (`model::stored_bead_problems` and its siblings).
        Valid = "valid",
        /// Dependencies point at beads the store has.
        Dependencies = "dependencies",
        /// Molecule steps are linked to their molecule.
        Molecules = "molecules",
        /// No blocking dependencies form a cycle.
        Cycles = "cycles",
        /// Hooks hold unfinished work that exists.
        Hooks = "hooks",
        /// No agent claims more authority than its delegation chain gives it.
        Authority = "authority",
        /// Open sessions are the current ones of their agents.
        Sessions = "sessions",
        /// The index cache matches the documents.
        Index = "index",
        /// Every file in the store's tree is a document of some kind.
        Stray = "stray",
        /// Documents set aside under `lost+found/`, which no reader reads.
        LostFound = "lost+found",
        /// Temporary files a killed writer left in the object database's pack
        /// directory (`tmp_pack_*`), which git counts as garbage and never removes.
        Scratch = "temporary-files",
    }
);

/// One thing `doctor` found.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// Which check found it.
    pub check: Check,
    /// How bad it is.
    pub severity: Severity,
    /// The document it is about.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// Whether `--fix` repaired it.
    pub fixed: bool,
}

/// A document `--fix` set aside under `lost+found/` because no reader can read it.
#[derive(Clone, Debug, Serialize)]
pub struct Moved {
    /// Where it was.
    pub from: String,
    /// Where it is now, byte for byte the same.
    pub to: String,
    /// Why it was moved.
    pub reason: String,
}

/// What `doctor` found, and the commit of its repairs if it made any.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Every finding.
    pub findings: Vec<Finding>,
    /// How many documents were checked.
    pub documents: usize,
    /// The documents `--fix` moved to `lost+found/`.
    pub moved: Vec<Moved>,
    /// The commit with the repairs, when `--fix` made one.
    pub fix_commit: Option<String>,
}

impl Report {
    /// Whether errors remain that were not fixed.
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Error && !f.fixed)
    }
}

struct Checker {
    findings: Vec<Finding>,
    /// Documents no reader can read (they do not parse, or name another id than
    /// their path), and where `--fix` would put them.
    unreadable: Vec<Moved>,
}

impl Checker {
    fn add(&mut self, check: Check, severity: Severity, path: &str, message: String) {
        self.findings.push(Finding {
            check,
            severity,
            path: path.to_owned(),
            message,
            fixed: false,
        });
    }

    fn mark_fixed(&mut self, check: Check, which: impl Fn(&Finding) -> bool) {
        for f in self.findings.iter_mut().filter(|f| f.check == check) {
            if which(f) {
                f.fixed = true;
            }
        }
    }
}

impl Checker {
    /// Reports a document no reader can read; `--fix` moves it to `lost+found/`.
    fn unreadable(&mut self, check: Check, path: &str, blob: ObjectId, reason: String) {
        self.unreadable.push(Moved {
            from: path.to_owned(),
            to: refs::lost_found_path(path, &blob.to_string()),
            reason: reason.clone(),
        });
        self.add(check, Severity::Error, path, reason);
    }
}

/// Decodes every document of one kind, reporting the ones that do not parse or whose
/// id does not match their path.
fn parse_all<T: serde::de::DeserializeOwned>(
    store: &Store,
    head: &Head,
    dir: &str,
    c: &mut Checker,
    id_of: impl Fn(&T) -> String,
    id_in_path: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, T)>> {
    let mut out = Vec::new();
    for (path, blob) in store.list_docs(head.tree, dir)? {
        if !path.ends_with(".yaml") {
            c.add(Check::Stray, Severity::Warning, &path, STRAY.to_owned());
            continue;
        }
        match codec::decode::<T>(&store.read_blob(blob)?) {
            Ok(doc) => {
                let id = id_of(&doc);
                if id_in_path(&path).as_deref() != Some(id.as_str()) {
                    c.unreadable(
                        Check::Schema,
                        &path,
                        blob,
                        format!("the document's id is {id}, its path says otherwise"),
                    );
                    continue;
                }
                out.push((path, doc));
            }
            Err(e) => c.unreadable(Check::Parse, &path, blob, e.to_string()),
        }
    }
    Ok(out)
}

/// What a stray file is told.
const STRAY: &str = "no document of any kind: git-beads neither reads nor writes it";

/// The entries at the root of the store's tree that git-beads does not keep there.
fn check_root(store: &Store, head: &Head, c: &mut Checker) -> Result<()> {
    const KNOWN: [&str; 9] = [
        refs::META_PATH,
        refs::CONFIG_PATH,
        refs::BEADS_DIR,
        refs::AGENTS_DIR,
        refs::SESSIONS_DIR,
        refs::MAIL_DIR,
        refs::LOST_FOUND_DIR,
        refs::SNAPSHOTS_DIR,
        refs::AUDIT_DIR,
    ];
    for e in store.decoded_tree(Some(head.tree))?.entries {
        let name = String::from_utf8_lossy(&e.filename);
        // Every command reads the project's settings: one that does not parse stops
        // them all, so `--fix` sets it aside (its values are then the defaults).
        if name == refs::CONFIG_PATH
            && e.mode.is_blob()
            && let Err(err) =
                codec::decode::<crate::model::config::Settings>(&store.read_blob(e.oid)?)
        {
            c.unreadable(Check::Parse, refs::CONFIG_PATH, e.oid, err.to_string());
        }
        if !KNOWN.contains(&name.as_ref()) {
            let slash = if e.mode.is_tree() { "/" } else { "" };
            c.add(
                Check::Stray,
                Severity::Warning,
                &format!("{name}{slash}"),
                STRAY.to_owned(),
            );
        }
    }
    Ok(())
}

/// What is kept under `lost+found/`: for the record, nothing reads it.
fn check_lost_found(store: &Store, head: &Head, c: &mut Checker) -> Result<()> {
    for (path, _) in store.list_docs(head.tree, refs::LOST_FOUND_DIR)? {
        c.add(
            Check::LostFound,
            Severity::Info,
            &path,
            "set aside, byte for byte, by a repair or a sync; no reader reads it".to_owned(),
        );
    }
    Ok(())
}

/// Every document of the store that parses, by kind, each with its path.
struct Documents {
    beads: Vec<(String, Bead)>,
    agents: Vec<(String, Agent)>,
    sessions: Vec<(String, Session)>,
    mail: Vec<(String, Message)>,
}

impl Documents {
    /// How many documents there are, the meta document included.
    fn count(&self) -> usize {
        self.beads.len() + self.agents.len() + self.sessions.len() + self.mail.len() + 1
    }
}

/// Parses every document (the parse and schema checks).
fn read_documents(store: &Store, head: &Head, c: &mut Checker) -> Result<Documents> {
    if let Err(e) = store.meta(head) {
        c.add(
            Check::Parse,
            Severity::Error,
            refs::META_PATH,
            e.to_string(),
        );
    }
    Ok(Documents {
        beads: parse_all(
            store,
            head,
            refs::BEADS_DIR,
            c,
            |b: &Bead| b.id.to_string(),
            |p| refs::bead_id_of_path(p).map(str::to_owned),
        )?,
        agents: parse_all(
            store,
            head,
            refs::AGENTS_DIR,
            c,
            |a: &Agent| a.name.to_string(),
            |p| refs::agent_name_of_path(p).map(str::to_owned),
        )?,
        sessions: parse_all(
            store,
            head,
            refs::SESSIONS_DIR,
            c,
            |s: &Session| s.id.to_string(),
            |p| {
                p.rsplit('/')
                    .next()?
                    .strip_suffix(".yaml")
                    .map(str::to_owned)
            },
        )?,
        mail: parse_all(
            store,
            head,
            refs::MAIL_DIR,
            c,
            |m: &Message| m.id.to_string(),
            |p| refs::mail_id_of_path(p).map(str::to_owned),
        )?,
    })
}

/// Beads, messages and agents that break a rule of the document validator (the valid
/// check).
/// They stay as they are: `--fix` does not rewrite what a person or a remote wrote.
fn check_valid(docs: &Documents, c: &mut Checker) {
    let beads = docs
        .beads
        .iter()
        .map(|(p, b)| (p, b.id.as_str(), stored_bead_problems(b)));
    let mail = docs
        .mail
        .iter()
        .map(|(p, m)| (p, m.id.as_str(), message_problems(m)));
    let agents = docs
        .agents
        .iter()
        .map(|(p, a)| (p, a.name.as_str(), agent_problems(a)));
    for (path, id, problems) in beads.chain(mail).chain(agents) {
        for problem in problems {
            c.add(
                Check::Valid,
                Severity::Error,
                path,
                format!("{id}: {problem}"),
            );
        }
    }
}

/// Dependencies on beads the store lacks, and molecule steps without a link to their
/// molecule (the dependencies and molecules checks).
fn check_dependencies(beads: &[(String, Bead)], by_id: &HashMap<&str, &Bead>, c: &mut Checker) {
    for (path, b) in beads {
        for d in &b.dependencies {
            if !by_id.contains_key(d.id.as_str()) {
                c.add(
                    Check::Dependencies,
                    Severity::Warning,
                    path,
                    format!(
                        "{} depends on {} ({}), which this store does not have",
                        b.id, d.id, d.kind
                    ),
                );
            }
        }
        if let Some(parent) = b.id.parent()
            && let Some(p) = by_id.get(parent.as_str())
            && p.kind == BeadType::Molecule
            && !b
                .dependencies
                .iter()
                .any(|d| d.id == parent && d.kind == DepKind::ParentChild)
        {
            c.add(
                Check::Molecules,
                Severity::Error,
                path,
                format!(
                    "{} is numbered as a step of molecule {parent} but has no parent-child link to it",
                    b.id
                ),
            );
        }
    }
}

/// Cycles of blocking dependencies.
fn check_cycles(beads: &[(String, Bead)], c: &mut Checker) {
    for cycle in blocking_cycles(beads) {
        let path = refs::bead_path(&cycle[0]);
        let ids: Vec<&str> = cycle.iter().map(BeadId::as_str).collect();
        c.add(
            Check::Cycles,
            Severity::Error,
            &path,
            format!("blocking cycle: {} → {}", ids.join(" → "), ids[0]),
        );
    }
}

/// Hook entries for finished or missing work; returns them by agent name.
fn check_hooks(
    agents: &[(String, Agent)],
    by_id: &HashMap<&str, &Bead>,
    c: &mut Checker,
) -> BTreeMap<String, Vec<BeadId>> {
    let mut drop_from_hook: BTreeMap<String, Vec<BeadId>> = BTreeMap::new();
    for (path, a) in agents {
        for h in &a.hook {
            let state = by_id.get(h.as_str()).map(|b| b.status);
            if state.is_none_or(|s| s.is_done()) {
                let what = state
                    .map(|s| format!("is {s}"))
                    .unwrap_or_else(|| "does not exist".into());
                c.add(
                    Check::Hooks,
                    Severity::Error,
                    path,
                    format!("{} has {h} on its hook, which {what}", a.name),
                );
                drop_from_hook
                    .entry(a.name.to_string())
                    .or_default()
                    .push(h.clone());
            }
        }
    }
    drop_from_hook
}

/// Agents whose documents claim more authority than their delegation chain gives.
fn check_authority(
    agents: &[(String, Agent)],
    agent_by_name: &HashMap<&str, &Agent>,
    c: &mut Checker,
) -> Result<()> {
    for (path, a) in agents {
        let usable = super::agent::delegated(
            |n| Ok(agent_by_name.get(n.as_str()).map(|a| (*a).clone())),
            a,
            &a.authority,
        )?;
        if usable != a.authority {
            let parent = a.parent.as_ref().map(|p| p.as_str()).unwrap_or_default();
            c.add(
                Check::Authority,
                Severity::Warning,
                path,
                format!(
                    "{} claims more authority than its delegation chain (from {parent}) gives it; \
                     it acts only with: {}",
                    a.name,
                    usable
                        .capabilities
                        .iter()
                        .map(|c| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
    Ok(())
}

/// Open sessions: running ones, and ones their agent has left; returns the latter.
fn check_sessions(
    sessions: &[(String, Session)],
    agent_by_name: &HashMap<&str, &Agent>,
    c: &mut Checker,
) -> Vec<BeadId> {
    let mut abandoned = Vec::new();
    for (path, s) in sessions.iter().filter(|(_, s)| s.is_open()) {
        let current = agent_by_name
            .get(s.agent.as_str())
            .is_some_and(|a| a.session.as_ref() == Some(&s.id));
        if current {
            c.add(
                Check::Sessions,
                Severity::Warning,
                path,
                format!(
                    "session {} of {} is still running (last heartbeat {})",
                    s.id, s.agent, s.heartbeat_at
                ),
            );
        } else {
            c.add(
                Check::Sessions,
                Severity::Error,
                path,
                format!(
                    "session {} of {} never ended and its agent has moved on",
                    s.id, s.agent
                ),
            );
            abandoned.push(s.id.clone());
        }
    }
    abandoned
}

/// Compares the index cache with one built from scratch; returns whether they agree.
fn check_index(store: &Store, head: &Head, c: &mut Checker) -> Result<bool> {
    let cached = store.index(head)?;
    let fresh = store.index_from_scratch(head)?;
    let index_ok = cached.same_as(&fresh);
    if !index_ok {
        c.add(
            Check::Index,
            Severity::Error,
            "index cache",
            "the index cache does not match the store".into(),
        );
    }
    Ok(index_ok)
}

/// The repairs `--fix` makes in one commit.
struct Repairs<'a> {
    /// Agents' documents, by path.
    agents: &'a [(String, Agent)],
    /// Finished or missing work to drop from each agent's hook.
    hooks: BTreeMap<String, Vec<BeadId>>,
    /// Open sessions their agent has left.
    abandoned: Vec<BeadId>,
    /// Unreadable documents to move to `lost+found/`.
    unreadable: &'a [Moved],
}

impl Repairs<'_> {
    fn is_empty(&self) -> bool {
        self.hooks.is_empty() && self.abandoned.is_empty() && self.unreadable.is_empty()
    }

    /// The commit message: what was repaired, then each document moved and why.
    fn message(&self) -> String {
        let mut what = Vec::new();
        if !self.hooks.is_empty() {
            what.push("drop finished work from hooks".to_owned());
        }
        if !self.abandoned.is_empty() {
            what.push("close abandoned sessions".to_owned());
        }
        if !self.unreadable.is_empty() {
            what.push(format!(
                "move {} no reader can read to lost+found/",
                count(self.unreadable.len(), "document")
            ));
        }
        let mut message = format!("doctor: {}", what.join(", "));
        if !self.unreadable.is_empty() {
            message.push('\n');
        }
        for m in self.unreadable {
            message.push_str(&format!("\n{} -> {}: {}", m.from, m.to, m.reason));
        }
        message
    }
}

/// In one commit, drops finished or missing work from hooks, marks abandoned sessions
/// crashed and moves unreadable documents, byte for byte, to `lost+found/`. Returns
/// the commit, if one was made.
fn repair(store: &Store, actor: &Actor, r: &Repairs<'_>) -> Result<Option<String>> {
    let (agents, hooks, abandoned) = (r.agents, &r.hooks, &r.abandoned);
    let (_, commit) = store.transact(actor, |tx| -> Result<()> {
        let at = now();
        for m in r.unreadable {
            tx.move_doc(&m.from, &m.to)?;
        }
        for (name, gone) in hooks {
            let Some(path) = agents
                .iter()
                .find(|(_, a)| a.name.as_str() == name)
                .map(|(p, _)| p.clone())
            else {
                continue;
            };
            if let Some(mut a) = tx.doc::<Agent>(&path)? {
                a.hook.retain(|h| !gone.contains(h));
                a.updated_at = at;
                a.updated_by = actor.id.clone();
                tx.put_doc(&path, &a)?;
            }
        }
        for id in abandoned {
            let path = refs::session_path(id);
            if let Some(mut s) = tx.doc::<Session>(&path)?.filter(Session::is_open) {
                s.end = Some(EndReason::Crashed);
                s.ended_at = Some(at);
                s.updated_at = at;
                s.updated_by = actor.id.clone();
                tx.put_doc(&path, &s)?;
            }
        }
        tx.set_message(r.message());
        Ok(())
    })?;
    Ok(commit.map(|c| c.to_string()))
}

/// Checks the store: every document parses and matches its schema and path, beads and
/// messages keep the rules commands enforce (flagged, never rewritten),
/// dependencies point at existing beads, no blocking cycles, hooks point at open work,
/// molecule steps belong to their molecule, sessions that never ended, and the index
/// cache against the documents; files that are no document are warnings, and what is
/// kept under `lost+found/` is reported for the record. With `fix`, repairs what is
/// safe in one commit: hook entries for finished or missing work are dropped, open
/// sessions their agent has left are marked crashed, documents no reader can read (they
/// do not parse, or name another id than their path) are moved byte for byte to
/// `lost+found/<path>/<blob>`; and a stale index cache is rebuilt.
pub fn doctor(store: &Store, actor: &Actor, fix: bool) -> Result<Report> {
    let head = *store
        .view()?
        .head()
        .ok_or(crate::store::StoreError::NotInitialized)?;
    let mut c = Checker {
        findings: Vec::new(),
        unreadable: Vec::new(),
    };
    check_root(store, &head, &mut c)?;
    check_lost_found(store, &head, &mut c)?;
    let docs = read_documents(store, &head, &mut c)?;
    check_valid(&docs, &mut c);
    let by_id: HashMap<&str, &Bead> = docs.beads.iter().map(|(_, b)| (b.id.as_str(), b)).collect();
    check_dependencies(&docs.beads, &by_id, &mut c);
    check_cycles(&docs.beads, &mut c);
    let drop_from_hook = check_hooks(&docs.agents, &by_id, &mut c);
    let agent_by_name: HashMap<&str, &Agent> = docs
        .agents
        .iter()
        .map(|(_, a)| (a.name.as_str(), a))
        .collect();
    check_authority(&docs.agents, &agent_by_name, &mut c)?;
    let abandoned = check_sessions(&docs.sessions, &agent_by_name, &mut c);
    let index_ok = check_index(store, &head, &mut c)?;
    let scratch = store.stale_scratch(crate::store::STALE_SCRATCH);
    for path in &scratch {
        c.add(
            Check::Scratch,
            Severity::Warning,
            &path.display().to_string(),
            "a temporary file an interrupted write left; git counts it as garbage".into(),
        );
    }

    let mut fix_commit = None;
    let mut moved = Vec::new();
    if fix {
        for path in scratch {
            if std::fs::remove_file(&path).is_ok() {
                let shown = path.display().to_string();
                c.mark_fixed(Check::Scratch, |f| f.path == shown);
            }
        }
        if !index_ok {
            store.index_rebuild(&head)?;
            c.mark_fixed(Check::Index, |_| true);
        }
        let unreadable = std::mem::take(&mut c.unreadable);
        let repairs = Repairs {
            agents: &docs.agents,
            hooks: drop_from_hook,
            abandoned,
            unreadable: &unreadable,
        };
        if !repairs.is_empty() {
            fix_commit = repair(store, actor, &repairs)?;
            c.mark_fixed(Check::Hooks, |_| true);
            c.mark_fixed(Check::Sessions, |f| f.severity == Severity::Error);
            c.mark_fixed(Check::Parse, |f| {
                unreadable.iter().any(|m| m.from == f.path)
            });
            c.mark_fixed(Check::Schema, |f| {
                unreadable.iter().any(|m| m.from == f.path)
            });
            moved = unreadable;
        }
    }
    Ok(Report {
        findings: c.findings,
        documents: docs.count(),
        moved,
        fix_commit,
    })
}

/// Every cycle of blocking dependencies (each reported once, from its smallest id).
fn blocking_cycles(beads: &[(String, Bead)]) -> BTreeSet<Vec<BeadId>> {
    // Where a bead is found twice, the last copy counts, as for the other checks.
    let at: HashMap<&BeadId, usize> = (beads.iter().enumerate())
        .map(|(k, (_, b))| (&b.id, k))
        .collect();
    let mut roots: Vec<(&BeadId, usize)> = at.iter().map(|(&id, &k)| (id, k)).collect();
    roots.sort();
    crate::model::cycles(
        beads.len(),
        roots.into_iter().map(|(_, k)| k),
        |k| {
            beads[k]
                .1
                .blockers()
                .filter_map(|d| at.get(&d.id).copied())
                .collect()
        },
        |k| beads[k].1.id.clone(),
    )
}

/// Puts the document kept at `lost` (a path under `lost+found/`, as `doctor` lists
/// it) back where it was found, byte for byte, in one commit (for a document a newer
/// git-beads reads, or one fixed since); returns that path. Nothing changes when the
/// place holds a document again.
pub fn restore_lost(store: &Store, actor: &Actor, lost: &str) -> Result<String> {
    let not_lost = || DoctorError::NotLost(lost.to_owned());
    let kept = lost
        .strip_prefix(refs::LOST_FOUND_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .ok_or_else(not_lost)?;
    let (path, blob) = kept.rsplit_once('/').ok_or_else(not_lost)?;
    if path.is_empty() || blob.is_empty() || path.split('/').any(|p| p.is_empty() || p == "..") {
        return Err(not_lost().into());
    }
    store.transact(actor, |tx| -> Result<()> {
        let held = |doc: &str| -> Result<bool> {
            let dir = doc.rsplit_once('/').map_or("", |(d, _)| d);
            Ok(tx.list_docs(dir)?.iter().any(|p| p == doc))
        };
        if !held(lost)? {
            return Err(DoctorError::NoSuchLost(lost.to_owned()).into());
        }
        if held(path)? {
            return Err(DoctorError::Occupied(path.to_owned()).into());
        }
        tx.move_doc(lost, path)?;
        tx.set_message(format!("doctor: bring {path} back from lost+found"));
        Ok(())
    })?;
    Ok(path.to_owned())
}
