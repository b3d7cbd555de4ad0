//! Sessions: each run of an agent, from start to end, and the hook it works from.

use std::collections::BTreeMap;

use serde::Serialize;

use super::agent::{Binding, binding, load, load_active, save, set_binding};
use super::mail::NewMessage;
use super::molecule::{self, Progress};
use super::permit;
use super::session_doc::{finish, load_session, save_session};
use super::usage::{Unflushed, with_local};
use super::{AgentError, BeadError, Result, SessionError, now, write};
use crate::model::{
    Actor, Agent, AgentName, Bead, BeadId, BudgetLeft, Capability, CrashNote, EndReason,
    MAX_SPEND_USD, ModelSwap, Prefix, Session, SkippedFile, Snapshot, Status, Timestamp,
    TokenKinds, Usage, UsageLine, check_name, check_text, parse_duration,
};
use crate::settings;
use crate::store::{Broken, Head, MailSummary, ObjectId, Store, Tx, View, refs};

/// How long a session may go without a heartbeat before it counts as crashed, unless
/// the `beads.sessionTimeout` config key says otherwise.
const DEFAULT_TIMEOUT_SECS: u64 = 30 * 60;

fn timeout_secs(store: &Store) -> u64 {
    store
        .git()
        .config_string(settings::SESSION_TIMEOUT)
        .and_then(|v| parse_duration(v.trim()).ok())
        .unwrap_or(DEFAULT_TIMEOUT_SECS)
}

fn host() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| settings::env(settings::HOSTNAME)?.into_string().ok())
        .unwrap_or_else(|| "unknown".into())
}

fn worktree_id(store: &Store) -> String {
    let dir = store.workdir().unwrap_or_else(|| store.common_dir());
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_owned())
        .display()
        .to_string()
}

fn session_prefix() -> Prefix {
    Prefix::parse("ses").unwrap_or_else(|_| unreachable!("ses is a valid prefix"))
}

/// Where the agent stood in its hooked work, in words, for a crash note.
fn standing(tx: &View<'_>, agent: &Agent) -> Result<Option<String>> {
    for id in &agent.hook {
        if let Some(bead) = tx.bead(id)? {
            if let Some(p) = molecule::progress(tx, &bead)? {
                return Ok(Some(format!(
                    "at {} of {}: {}",
                    p.position(),
                    bead.id,
                    bead.title
                )));
            }
            return Ok(Some(format!(
                "while working on {}: {}",
                bead.id, bead.title
            )));
        }
    }
    Ok(None)
}

/// How to start a session.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    /// The model it runs (default: the agent's).
    pub model: Option<String>,
    /// The harness's own id of the session.
    pub harness_id: Option<String>,
    /// Take over from a live session of the agent elsewhere (marks it superseded).
    pub take_over: bool,
    /// The session this one resumes: if it never ended, it is marked crashed.
    pub resumes: Option<BeadId>,
}

/// Starts a session of `agent` in this worktree: records it, points the agent and the
/// worktree at it, and deals with the agent's previous session — one that never
/// ended here, or whose heartbeat went stale, is marked crashed; one alive elsewhere
/// refuses the start unless `take_over`. A start by the same harness session (a
/// resume or compaction) continues the running session instead.
pub fn start_session(store: &Store, agent: &AgentName, opts: StartOptions) -> Result<Session> {
    if let Some(m) = &opts.model {
        check_name("model", m)?;
    }
    if let Some(h) = &opts.harness_id {
        check_name("harness session id", h)?;
    }
    let here = worktree_id(store);
    let head_agent = super::agent::show_agent(store, agent)?;
    let id = BeadId::generate(
        &session_prefix(),
        format!(
            "{agent}\0{here}\0{}",
            now().timestamp_nanos_opt().unwrap_or_default()
        )
        .as_bytes(),
        10,
    );
    // The turns a session that ran here left in its local ledger go into its record
    // if this start ends it.
    let left = match binding(store)?.and_then(|b| b.session) {
        Some(old) => Some((Unflushed::of(store, &old)?, old)),
        None => None,
    };
    let start = Start {
        actor: Actor::agent(agent, Some(id.clone()), head_agent.authority.clone()),
        agent,
        id,
        here,
        host: host(),
        timeout: timeout_secs(store),
        opts: &opts,
        left: left.as_ref(),
    };
    let session = write(store, &start.actor, |tx| {
        let mut a = load_active(tx, agent)?;
        let at = now();
        if let Some(running) = start.settle_previous(tx, &a, at)? {
            return Ok(running);
        }
        let s = start.new_session(tx, &a, at)?;
        a.session = Some(s.id.clone());
        a.last_session = Some(s.id.clone());
        a.updated_at = at;
        a.updated_by = start.actor.id.clone();
        save(tx, &a)?;
        save_session(tx, &s)?;
        tx.set_message(format!("session start {} for agent {agent}", s.id));
        Ok(s)
    })?;
    // A worktree bound to this agent on purpose stays so; otherwise the binding is
    // the session's, and ends with it.
    let explicit = binding(store)?.is_some_and(|b| b.explicit && b.agent == *agent);
    set_binding(
        store,
        Some(&Binding {
            agent: agent.clone(),
            session: Some(session.id.clone()),
            explicit,
        }),
    )?;
    if let Some((u, old)) = &left
        && *old != session.id
        && !load_session(&store.view()?, old)?.is_open()
    {
        u.done(store, old, None)?;
    }
    super::usage::begin_ledger(store, &session)?;
    Ok(session)
}

/// A session about to start: who, where, and how.
struct Start<'a> {
    /// The new session acting as its agent.
    actor: Actor,
    agent: &'a AgentName,
    /// The new session's id.
    id: BeadId,
    /// The worktree it runs in.
    here: String,
    host: String,
    /// How long a silent session counts as alive, in seconds.
    timeout: u64,
    opts: &'a StartOptions,
    /// The turns only the local ledger has of the session last bound here.
    left: Option<&'a (Unflushed, BeadId)>,
}

impl Start<'_> {
    /// Deals with the previous session of agent `a` if it is still open: returns it
    /// when this start continues it (the same harness session in the same place), else
    /// ends it as crashed (it never ended here, or went silent) or superseded (when
    /// taking over), or refuses the start while it is alive elsewhere.
    fn settle_previous(
        &self,
        tx: &mut Tx<'_>,
        a: &Agent,
        at: Timestamp,
    ) -> Result<Option<Session>> {
        let Some(old_id) = a.session.clone() else {
            return Ok(None);
        };
        let mut old = load_session(tx, &old_id)?;
        if !old.is_open() {
            return Ok(None);
        }
        let same_place = old.worktree == self.here && old.host == self.host;
        if same_place && self.opts.harness_id.is_some() && old.harness_id == self.opts.harness_id {
            old.heartbeat_at = at;
            old.updated_at = at;
            save_session(tx, &old)?;
            tx.set_message(format!(
                "session continue {old_id} for agent {}",
                self.agent
            ));
            return Ok(Some(old));
        }
        let silent = (at - old.heartbeat_at).num_seconds().max(0) as u64;
        let resumed = self.opts.resumes.as_ref() == Some(&old_id);
        let end = if same_place || resumed || silent > self.timeout {
            EndReason::Crashed
        } else if self.opts.take_over {
            EndReason::Superseded
        } else {
            return Err(SessionError::Live {
                agent: self.agent.clone(),
                id: old_id,
                worktree: old.worktree,
                host: old.host,
                silent_secs: silent,
            }
            .into());
        };
        if let Some((u, _)) = self.left.filter(|(_, id)| *id == old_id) {
            u.apply(&mut old);
        }
        if end == EndReason::Crashed {
            old.crash = Some(CrashNote {
                detected_at: at,
                by_session: Some(self.id.clone()),
                last_heartbeat: old.heartbeat_at,
                step: standing(tx, a)?,
            });
        }
        old.end = Some(end);
        old.ended_at = Some(at);
        old.store_at_end = tx.head().map(|h| h.commit.to_string());
        old.updated_at = at;
        old.updated_by = self.actor.id.clone();
        save_session(tx, &old)?;
        Ok(None)
    }

    /// The new session's record, for agent `a`.
    fn new_session(&self, tx: &Tx<'_>, a: &Agent, at: Timestamp) -> Result<Session> {
        let parent_session = match &a.parent {
            Some(p) => load(tx, p)?.session,
            None => None,
        };
        Ok(Session {
            id: self.id.clone(),
            agent: self.agent.clone(),
            worktree: self.here.clone(),
            host: self.host.clone(),
            harness_id: self.opts.harness_id.clone(),
            model: self.opts.model.clone().or_else(|| a.model.clone()),
            models: Vec::new(),
            started_at: at,
            heartbeat_at: at,
            ended_at: None,
            end: None,
            handoff: None,
            crash: None,
            // What it may really use: a document cannot widen its parent's authority.
            authority: super::agent::delegated(
                |n| Ok(tx.doc(&refs::agent_path(n))?),
                a,
                &a.authority,
            )?,
            usage: Usage::default(),
            ledger: Vec::new(),
            store_at_start: tx.head().map(|h| h.commit.to_string()).unwrap_or_default(),
            store_at_end: None,
            previous: a.last_session.clone(),
            resumes: self.opts.resumes.clone(),
            parent_session,
            snapshots: Vec::new(),
            updated_at: at,
            updated_by: self.actor.id.clone(),
            conflicts: Vec::new(),
        })
    }
}

/// The session `actor` runs in this worktree, or an error saying there is none.
fn current_id(actor: &Actor) -> Result<BeadId> {
    actor
        .session
        .clone()
        .ok_or_else(|| SessionError::NoneRunning(actor.id.clone()).into())
}

/// Changes the running session of `actor` with `change`, in one commit.
fn change_session<T>(
    store: &Store,
    actor: &Actor,
    verb: &str,
    mut change: impl FnMut(&mut Tx<'_>, &mut Session, Timestamp) -> Result<T>,
) -> Result<(Session, T)> {
    let id = current_id(actor)?;
    write(store, actor, |tx| {
        let mut s = load_session(tx, &id)?;
        if !s.is_open() {
            return Err(SessionError::Ended(id.clone()).into());
        }
        let at = now();
        let out = change(tx, &mut s, at)?;
        s.heartbeat_at = at;
        s.updated_at = at;
        s.updated_by = actor.id.clone();
        save_session(tx, &s)?;
        tx.set_message(format!("session {verb} {id}"));
        Ok((s, out))
    })
}

/// Ends `actor`'s running session, recording why and the store's commit at the end,
/// with a last snapshot of its worktree.
pub fn end_session(store: &Store, actor: &Actor, reason: EndReason) -> Result<Session> {
    let capture = capture_for_session(store)?;
    let local = Unflushed::of(store, &current_id(actor)?)?;
    let (s, ()) = change_session(store, actor, "end", |tx, s, at| {
        local.apply(s);
        if let Some(c) = &capture {
            stage_snapshot(tx, s, c, at)?;
        }
        finish(tx, actor, s, at, reason, None)
    })?;
    local.done(store, &s.id, Some((reason, Vec::new())))?;
    release_binding(store, &s)?;
    Ok(s)
}

/// Clears the worktree's pointer to a session that ended, and the binding itself
/// when the session made it.
fn release_binding(store: &Store, s: &Session) -> Result<()> {
    if let Some(mut b) = binding(store)?.filter(|b| b.session.as_ref() == Some(&s.id)) {
        b.session = None;
        set_binding(store, b.explicit.then_some(&b))?;
    }
    Ok(())
}

/// Records a sign of life of `actor`'s running session, with a snapshot of its
/// worktree when `beads.snapshotOnHeartbeat` is true.
pub fn heartbeat(store: &Store, actor: &Actor) -> Result<Session> {
    let on = store
        .git()
        .config_string(settings::SNAPSHOT_ON_HEARTBEAT)
        .is_some_and(|v| matches!(v.trim(), "true" | "yes" | "on" | "1"));
    let capture = if on {
        capture_for_session(store)?
    } else {
        None
    };
    let (s, ()) = change_session(store, actor, "heartbeat", |tx, s, at| {
        if let Some(c) = &capture {
            stage_snapshot(tx, s, c, at)?;
        }
        Ok(())
    })?;
    check_budget(&s)?;
    Ok(s)
}

/// Records a model swap: the identity, hook and record continue unchanged.
pub fn swap_model(store: &Store, actor: &Actor, model: &str) -> Result<Session> {
    check_name("model", model)?;
    let (s, ()) = change_session(store, actor, "model", |_, s, at| {
        s.models.push(ModelSwap {
            at,
            from: s.model.clone(),
            to: model.to_owned(),
        });
        s.model = Some(model.to_owned());
        Ok(())
    })?;
    Ok(s)
}

/// What one `session usage` call reports.
#[derive(Clone, Debug, Default)]
pub struct UsageReport {
    /// Whether this closes a turn.
    pub turn: bool,
    /// Tokens used.
    pub tokens: u64,
    /// Dollars spent.
    pub spend: f64,
    /// Tool calls made.
    pub tool_calls: u64,
}

/// Adds a usage line to `actor`'s running session. The usage is recorded either way;
/// when it crosses a budget ceiling the result is [`SessionError::OverBudget`], telling the
/// harness to stop or start a fresh session.
pub fn record_usage(store: &Store, actor: &Actor, u: UsageReport) -> Result<Session> {
    if !(0.0..=MAX_SPEND_USD).contains(&u.spend) {
        return Err(SessionError::Spend(u.spend).into());
    }
    let (s, ()) = change_session(store, actor, "usage", |_, s, at| {
        let line = UsageLine {
            at,
            turn: u.turn,
            tokens: u.tokens,
            spend: u.spend,
            tool_calls: u.tool_calls,
            model: None,
            by_kind: TokenKinds::default(),
            unpriced: false,
        };
        s.usage.add(&line);
        s.ledger.push(line);
        Ok(())
    })?;
    check_budget(&s)?;
    Ok(s)
}

fn check_budget(s: &Session) -> Result<()> {
    let over = s.budget_left(now()).overruns();
    if over.is_empty() {
        return Ok(());
    }
    Err(SessionError::OverBudget {
        id: s.id.clone(),
        agent: s.agent.clone(),
        over,
    }
    .into())
}

/// Sessions, newest first, of one agent or of all.
pub fn list_sessions(store: &Store, agent: Option<&AgentName>) -> Result<Vec<Session>> {
    let view = store.view()?;
    let mut out: Vec<Session> = Vec::new();
    for path in view.list_docs(refs::SESSIONS_DIR)? {
        if let Some(s) = view.doc::<Session>(&path)?
            && agent.is_none_or(|a| &s.agent == a)
        {
            out.push(with_local(store, s)?);
        }
    }
    out.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// One session, with the turns its local ledger has not folded into the store yet.
pub fn show_session(store: &Store, id: &BeadId) -> Result<Session> {
    with_local(store, load_session(&store.view()?, id)?)
}

/// Why a bead in progress counts as stale: its holder is not working on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "why")]
pub enum StaleWhy {
    /// The holder is an agent that has been retired.
    Retired,
    /// The holder is an agent with no session running.
    NoSession,
    /// The agent's session ended (clean, handoff, crashed, budget, superseded).
    Ended {
        /// How it ended.
        end: EndReason,
    },
    /// The agent's session has not sent a heartbeat for longer than the session timeout.
    Silent {
        /// Its last heartbeat.
        since: Timestamp,
    },
    /// The holder is a person (no agent of that name) whose claim is older than the bound.
    OldClaim {
        /// When the bead last changed.
        since: Timestamp,
    },
}

/// A bead in progress whose holder is not working on it (see [`stale`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaleBead {
    /// The bead.
    pub id: BeadId,
    /// Its title.
    pub title: String,
    /// Its status (in_progress or hooked).
    pub status: Status,
    /// Who holds it.
    pub holder: String,
    /// Why it counts as stale.
    #[serde(flatten)]
    pub why: StaleWhy,
}

/// How old a person's claim must be to count as stale, unless told otherwise.
pub const DEFAULT_STALE_SECS: u64 = 24 * 60 * 60;

/// The beads in progress (or hooked) whose holder has no live session, from the
/// store as it is (synced data, the same on every clone that has synced): an agent
/// retired, with no session, or whose session ended or went silent for longer than
/// `beads.sessionTimeout`; or a person whose claim is older than `older_than_secs`.
/// Nothing is released: that is [`super::release`]'s, asked for.
pub fn stale(store: &Store, older_than_secs: u64) -> Result<Vec<StaleBead>> {
    let index = super::query::load_index(store)?;
    let view = store.view()?;
    let at = now();
    let timeout = timeout_secs(store);
    let older = |t: Timestamp, secs: u64| (at - t).num_seconds().max(0) as u64 >= secs;
    let mut out = Vec::new();
    for row in index.rows() {
        let (status, Some(holder)) = (row.status(), row.assignee()) else {
            continue;
        };
        if !matches!(status, Status::InProgress | Status::Hooked) {
            continue;
        }
        let agent = match AgentName::parse(holder) {
            Ok(name) => view.doc::<Agent>(&refs::agent_path(&name))?,
            Err(_) => None,
        };
        let why = match agent {
            None => older(row.updated_at(), older_than_secs).then_some(StaleWhy::OldClaim {
                since: row.updated_at(),
            }),
            Some(a) if a.status == crate::model::AgentStatus::Retired => Some(StaleWhy::Retired),
            // The session running now, else the last one, tells how it stands.
            Some(a) => match a.session.as_ref().or(a.last_session.as_ref()) {
                None => Some(StaleWhy::NoSession),
                Some(id) => {
                    let s = load_session(&view, id)?;
                    match s.end {
                        Some(end) => Some(StaleWhy::Ended { end }),
                        None if older(s.heartbeat_at, timeout) => Some(StaleWhy::Silent {
                            since: s.heartbeat_at,
                        }),
                        None if a.session.is_none() => Some(StaleWhy::NoSession),
                        None => None,
                    }
                }
            },
        };
        if let Some(why) = why {
            out.push(StaleBead {
                id: BeadId::parse(row.id())?,
                title: row.title().to_owned(),
                status,
                holder: holder.to_owned(),
                why,
            });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// Puts bead `id` on `agent`'s hook, atomically: status hooked, assignee the agent.
/// Fails if it is already on another agent's hook or finished.
pub fn sling(store: &Store, actor: &Actor, id: &BeadId, agent: &AgentName) -> Result<Bead> {
    permit(actor, Capability::Sling)?;
    write(store, actor, |tx| {
        let mut target = load_active(tx, agent)?;
        let mut bead = super::require(tx, id)?;
        hook_bead(&mut bead, agent)?;
        let at = now();
        bead.touch(&actor.id, at);
        tx.put_bead(&bead)?;
        if !target.hook.contains(id) {
            target.hook.push(id.clone());
            target.updated_at = at;
            target.updated_by = actor.id.clone();
            save(tx, &target)?;
        }
        tx.set_message(format!("sling {id} to {agent}: {}", bead.title));
        Ok(bead)
    })
}

/// Puts `bead` on `agent`'s hook (status hooked, assignee the agent), unless it
/// cannot go there (see [`check_hookable`]).
pub(crate) fn hook_bead(bead: &mut Bead, agent: &AgentName) -> Result<()> {
    check_hookable(bead, agent)?;
    bead.status = Status::Hooked;
    bead.assignee = Some(agent.to_string());
    Ok(())
}

/// Fails unless `bead` can go on `agent`'s hook: it is unfinished and on no other
/// agent's hook.
pub(crate) fn check_hookable(bead: &Bead, agent: &AgentName) -> Result<()> {
    if bead.status.is_done() {
        return Err(BeadError::Unhookable {
            id: bead.id.clone(),
            status: bead.status,
            agent: agent.clone(),
        }
        .into());
    }
    if bead.status == Status::Hooked
        && let Some(holder) = bead.assignee.as_deref().filter(|h| *h != agent.as_str())
    {
        return Err(BeadError::HookedBy {
            id: bead.id.clone(),
            holder: holder.to_owned(),
        }
        .into());
    }
    Ok(())
}

/// Takes work off `agent`'s hook (`id`, or everything): it goes back to the ready pool.
pub fn unsling(
    store: &Store,
    actor: &Actor,
    agent: &AgentName,
    id: Option<&BeadId>,
) -> Result<Vec<BeadId>> {
    permit(actor, Capability::Sling)?;
    write(store, actor, |tx| {
        let mut a = load(tx, agent)?;
        let taken: Vec<BeadId> = a
            .hook
            .iter()
            .filter(|h| id.is_none_or(|i| i == *h))
            .cloned()
            .collect();
        if taken.is_empty() {
            return Err(match id {
                Some(i) => AgentError::NotOnHook {
                    agent: agent.clone(),
                    id: i.clone(),
                },
                None => AgentError::EmptyHook(agent.clone()),
            }
            .into());
        }
        let at = now();
        for t in &taken {
            if let Some(mut bead) = tx.bead(t)?
                && bead.status == Status::Hooked
            {
                bead.status = Status::Open;
                bead.assignee = None;
                bead.touch(&actor.id, at);
                tx.put_bead(&bead)?;
            }
        }
        a.hook.retain(|h| !taken.contains(h));
        a.updated_at = at;
        a.updated_by = actor.id.clone();
        save(tx, &a)?;
        let list: Vec<&str> = taken.iter().map(BeadId::as_str).collect();
        tx.set_message(format!("unsling {} from {agent}", list.join(", ")));
        Ok(taken)
    })
}

/// Takes `finished` beads off the hooks of the agents they are assigned to, in the
/// transaction that finishes them. Sling assigns a bead to the agent whose hook it
/// goes on, so the assignee names the one agent document to read: no scan. Returns a
/// line for the commit message per hook changed.
pub(crate) fn release_finished(
    tx: &mut Tx<'_>,
    actor: &Actor,
    finished: &[Bead],
) -> Result<Vec<String>> {
    let mut by_agent: BTreeMap<AgentName, Vec<&BeadId>> = BTreeMap::new();
    for b in finished {
        if let Some(name) = b.assignee.as_deref().and_then(|a| AgentName::parse(a).ok()) {
            by_agent.entry(name).or_default().push(&b.id);
        }
    }
    let mut lines = Vec::new();
    for (name, ids) in by_agent {
        let Some(mut agent) = tx.doc::<Agent>(&refs::agent_path(&name))? else {
            continue;
        };
        let taken: Vec<&str> = ids
            .iter()
            .filter(|id| agent.hook.contains(id))
            .map(|id| id.as_str())
            .collect();
        if taken.is_empty() {
            continue;
        }
        agent.hook.retain(|h| !ids.contains(&h));
        agent.updated_at = now();
        agent.updated_by = actor.id.clone();
        save(tx, &agent)?;
        lines.push(format!("off {name}'s hook: {}", taken.join(", ")));
    }
    Ok(lines)
}

/// One piece of work on a hook, with the molecule's progress when it is one.
#[derive(Clone, Debug)]
pub struct HookItem {
    /// The bead.
    pub bead: Bead,
    /// Its progress, when it is a molecule.
    pub progress: Option<Progress>,
}

/// What is on `agent`'s hook, and the documents of hooked beads that do not parse.
fn hook_items(tx: &View<'_>, agent: &Agent) -> Result<(Vec<HookItem>, Vec<Broken>)> {
    let mut items = Vec::new();
    let mut broken = Vec::new();
    for id in &agent.hook {
        let Some(bead) = super::or_broken(super::require(tx, id), &mut broken)? else {
            continue;
        };
        let progress = molecule::progress(tx, &bead)?;
        items.push(HookItem { bead, progress });
    }
    Ok((items, broken))
}

/// What is on `agent`'s hook; a hooked bead whose document does not parse is an error.
pub fn hook(store: &Store, agent: &AgentName) -> Result<Vec<HookItem>> {
    let view = store.view()?;
    let a = load(&view, agent)?;
    let (items, broken) = hook_items(&view, &a)?;
    match broken.into_iter().next() {
        Some(b) => Err(BeadError::Broken {
            path: b.path,
            error: b.error,
        }
        .into()),
        None => Ok(items),
    }
}

/// How the previous session ended, as prime reports it.
#[derive(Clone, Debug)]
pub struct PreviousSession {
    /// Its id.
    pub id: BeadId,
    /// How it ended (`None` if it is still marked running).
    pub end: Option<EndReason>,
    /// When it ended.
    pub ended_at: Option<Timestamp>,
    /// Its model.
    pub model: Option<String>,
    /// Where it stood when it crashed.
    pub crash: Option<CrashNote>,
}

/// A note left by a handoff.
#[derive(Clone, Debug)]
pub struct HandoffNote {
    /// The session that left it.
    pub from: BeadId,
    /// When.
    pub at: Option<Timestamp>,
    /// What it says.
    pub note: String,
}

/// Where a resumed session came from.
#[derive(Clone, Debug)]
pub struct ResumedFrom {
    /// The session resumed.
    pub session: BeadId,
    /// When the snapshot put back was taken, if there was one.
    pub snapshot_at: Option<Timestamp>,
    /// Files that snapshot left out for being too large.
    pub skipped: Vec<SkippedFile>,
    /// What the resumed session changed in the store's beads after that snapshot,
    /// oldest first (the files behind it may be missing from the restored worktree).
    pub after_snapshot: Vec<super::LogEntry>,
}

/// Everything a fresh session needs to know, short enough for an agent's context.
#[derive(Clone, Debug)]
pub struct Prime {
    /// The agent, when one is acting here.
    pub agent: Option<Agent>,
    /// Its running session.
    pub session: Option<Session>,
    /// The handoff note from the previous session, shown first.
    pub handoff: Option<HandoffNote>,
    /// How the previous session ended.
    pub previous: Option<PreviousSession>,
    /// The work on the hook.
    pub hook: Vec<HookItem>,
    /// What is left of the session's budget.
    pub budget_left: Option<BudgetLeft>,
    /// The session the running one resumes, and when its snapshot was taken.
    pub resumed: Option<ResumedFrom>,
    /// How many messages the agent has not read.
    pub unread_mail: usize,
    /// The most urgent unread messages.
    pub mail: Vec<MailSummary>,
    /// The store's commit this was read from.
    pub store_commit: String,
    /// Where the running session stands in its evidence: how many store commits it and
    /// the sessions it resumes have made (see [`session_log`]).
    pub evidence: Option<usize>,
    /// Ready work, when no agent is acting (a person's view).
    pub ready: Vec<String>,
    /// The documents prime read around because they do not parse: everything else is
    /// shown.
    pub broken: Vec<Broken>,
    /// The session's last turn, when it cost more than `beads.freshAfter`.
    pub fresh: Option<super::usage::Fresh>,
}

/// Gathers what a session needs at its start. A store that cannot be read is an
/// error, never an empty answer; a document that does not parse (other than the acting
/// agent's own) is named in [`Prime::broken`] and everything else is shown.
pub fn prime(store: &Store, actor: &Actor) -> Result<Prime> {
    let view = store.view()?;
    let commit = view
        .head()
        .map(|h| h.commit.to_string())
        .unwrap_or_default();
    let Some(name) = &actor.agent else {
        let ready = super::ready(
            store,
            &super::ListFilter {
                limit: 5,
                ..super::ListFilter::default()
            },
        )?;
        return Ok(Prime {
            agent: None,
            session: None,
            handoff: None,
            previous: None,
            hook: Vec::new(),
            budget_left: None,
            resumed: None,
            unread_mail: 0,
            mail: Vec::new(),
            store_commit: commit,
            evidence: None,
            ready: ready
                .beads()
                .map(|s| format!("{} P{} {}", s.id(), s.priority(), s.title()))
                .collect(),
            broken: ready.broken,
            fresh: None,
        });
    };
    let agent = load(&view, name)?;
    let mut broken = Vec::new();
    let session_or_broken = |id: Option<&BeadId>, broken: &mut Vec<Broken>| match id {
        Some(id) => super::or_broken(load_session(&view, id), broken),
        None => Ok(None),
    };
    let session = match session_or_broken(actor.session.as_ref(), &mut broken)? {
        Some(s) => Some(with_local(store, s)?),
        None => None,
    };
    let previous_id = match &session {
        Some(s) => s.previous.clone(),
        None => agent.last_session.clone(),
    };
    let previous = session_or_broken(previous_id.as_ref(), &mut broken)?;
    let handoff = previous.as_ref().and_then(|p| {
        p.handoff.clone().map(|note| HandoffNote {
            from: p.id.clone(),
            at: p.ended_at,
            note,
        })
    });
    let (hook, hooked_broken) = hook_items(&view, &agent)?;
    broken.extend(hooked_broken);
    // The handoff note is shown as such; its copy in the mailbox is not shown again.
    let handoff_mail = handoff
        .as_ref()
        .map(|h| (agent.name.as_str(), handoff_subject(&h.from)));
    let unread = super::mail::unread_but(store, name, 3, |m| {
        handoff_mail
            .as_ref()
            .is_some_and(|(from, subject)| m.from == *from && m.subject == *subject)
    })?;
    broken.extend(unread.broken);
    // What prime shows the session is not told again before its next prompt.
    if let Some(s) = session.as_ref().filter(|s| s.is_open()) {
        super::usage::tell(store, &s.id, unread.top.clone())?;
    }
    let resumes = session.as_ref().and_then(|s| s.resumes.clone());
    let resumed = match session_or_broken(resumes.as_ref(), &mut broken)? {
        Some(old) => {
            let snap = old.snapshots.iter().rev().find(|x| !x.pruned);
            Some(ResumedFrom {
                after_snapshot: match (snap, view.head()) {
                    (Some(snap), Some(head)) => changed_after(store, head, &old.id, snap)?,
                    _ => Vec::new(),
                },
                session: old.id.clone(),
                snapshot_at: snap.map(|x| x.at),
                skipped: snap.map(|x| x.skipped.clone()).unwrap_or_default(),
            })
        }
        None => None,
    };
    let evidence = match (&session, view.head()) {
        (Some(s), Some(head)) => {
            let (chain, first) = resume_chain(&view, &s.id)?;
            let from = first.timestamp() - CLOCK_SKEW_SECS;
            Some(store.count_commits_of_sessions(head, &chain, from)?)
        }
        _ => None,
    };
    Ok(Prime {
        fresh: session.as_ref().and_then(|s| super::usage::fresh(store, s)),
        evidence,
        resumed,
        unread_mail: unread.count,
        mail: unread.top,
        budget_left: session.as_ref().map(|s| s.budget_left(now())),
        previous: previous.map(|p| PreviousSession {
            id: p.id,
            end: p.end,
            ended_at: p.ended_at,
            model: p.model,
            crash: p.crash,
        }),
        agent: Some(agent),
        session,
        handoff,
        hook,
        store_commit: commit,
        ready: Vec::new(),
        broken,
    })
}

/// The store commits of session `id` after its snapshot `snap` was taken that changed
/// beads (a bead it closed, a step it finished), oldest first: the files behind them
/// may be missing from a worktree restored from that snapshot. A snapshot whose store
/// commit this clone lacks names none.
fn changed_after(
    store: &Store,
    head: &Head,
    id: &BeadId,
    snap: &Snapshot,
) -> Result<Vec<super::LogEntry>> {
    let Some(since) = ObjectId::from_hex(snap.store_commit.as_bytes())
        .ok()
        .filter(|c| store.has_object(*c))
    else {
        return Ok(Vec::new());
    };
    let mut out: Vec<super::LogEntry> = store
        .commits_of_sessions(head, Some(since), &[id.to_string()])?
        .into_iter()
        .map(super::history::entry_without_diffs)
        .filter(|e| {
            e.changes
                .iter()
                .any(|c| refs::bead_id_of_path(&c.path).is_some())
        })
        .collect();
    out.reverse();
    Ok(out)
}

/// The subject of the mail a handoff of session `id` sends to the agent itself.
fn handoff_subject(id: &BeadId) -> String {
    format!("handoff from session {id}")
}

/// Hands off: in one commit, leaves `note` for the agent's next session (on the session
/// record and as mail to itself), keeps the hook, and ends the running session with
/// reason `handoff`.
pub fn handoff(store: &Store, actor: &Actor, note: &str) -> Result<Session> {
    if note.trim().is_empty() {
        return Err(SessionError::EmptyHandoff.into());
    }
    check_text("handoff note", note)?;
    let capture = capture_for_session(store)?;
    let local = Unflushed::of(store, &current_id(actor)?)?;
    let (s, ()) = change_session(store, actor, "handoff", |tx, s, at| {
        local.apply(s);
        if let Some(c) = &capture {
            stage_snapshot(tx, s, c, at)?;
        }
        finish(tx, actor, s, at, EndReason::Handoff, Some(note))?;
        let to = std::iter::once(s.agent.clone()).collect();
        let mail = NewMessage {
            to: vec![s.agent.to_string()],
            subject: handoff_subject(&s.id),
            body: note.to_owned(),
            priority: Some(1),
            ..NewMessage::default()
        };
        super::mail::stage(tx, actor, &mail, to)?;
        Ok(())
    })?;
    local.done(store, &s.id, Some((EndReason::Handoff, Vec::new())))?;
    release_binding(store, &s)?;
    Ok(s)
}

const DEFAULT_MAX_FILE: u64 = 10 * 1024 * 1024;
const DEFAULT_KEEP: usize = 5;

fn parse_size(v: &str) -> Option<u64> {
    let v = v.trim().to_ascii_lowercase();
    let (num, mult) = match v.chars().last()? {
        'k' => (&v[..v.len() - 1], 1024),
        'm' => (&v[..v.len() - 1], 1024 * 1024),
        'g' => (&v[..v.len() - 1], 1024 * 1024 * 1024),
        _ => (v.as_str(), 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// Captures this worktree for the session running here; `None` for a repository
/// without a worktree.
fn capture_for_session(store: &Store) -> Result<Option<crate::store::Capture>> {
    if store.workdir().is_none() {
        return Ok(None);
    }
    let cap = store
        .git()
        .config_string(settings::SNAPSHOT_MAX_FILE)
        .and_then(|v| parse_size(&v))
        .unwrap_or(DEFAULT_MAX_FILE);
    Ok(Some(store.capture_worktree(cap)?))
}

/// Records a snapshot on `s` and keeps its tree in the store, unless the worktree is
/// exactly as the last snapshot had it. Returns whether one was added.
fn stage_snapshot(
    tx: &mut Tx<'_>,
    s: &mut Session,
    c: &crate::store::Capture,
    at: Timestamp,
) -> Result<bool> {
    let base = c.base.map(|b| b.to_string());
    let tree = c.tree.to_string();
    if s.snapshots
        .last()
        .is_some_and(|last| last.tree == tree && last.base == base)
    {
        return Ok(false);
    }
    let n = s.snapshots.last().map_or(1, |l| l.n + 1);
    tx.put_subtree(&refs::snapshot_path(&s.id, n), Some(c.tree));
    s.snapshots.push(Snapshot {
        n,
        at,
        base,
        tree,
        store_commit: tx.head().map(|h| h.commit.to_string()).unwrap_or_default(),
        skipped: c
            .skipped
            .iter()
            .map(|(path, size)| SkippedFile {
                path: path.clone(),
                size: *size,
            })
            .collect(),
        pruned: false,
    });
    Ok(true)
}

/// Snapshots the worktree of `actor`'s running session. Returns the session and the
/// new snapshot, or `None` when nothing changed since the last one (then nothing is
/// written at all).
pub fn snapshot(store: &Store, actor: &Actor) -> Result<(Session, Option<Snapshot>)> {
    let id = current_id(actor)?;
    let capture = capture_for_session(store)?.ok_or(SessionError::NoWorktree)?;
    write(store, actor, |tx| {
        let mut s = load_session(tx, &id)?;
        if !s.is_open() {
            return Err(SessionError::Ended(id.clone()).into());
        }
        let at = now();
        if !stage_snapshot(tx, &mut s, &capture, at)? {
            return Ok((s, None));
        }
        s.heartbeat_at = at;
        s.updated_at = at;
        s.updated_by = actor.id.clone();
        save_session(tx, &s)?;
        let snap = s.snapshots.last().cloned();
        tx.set_message(format!("session snapshot {id}"));
        Ok((s, snap))
    })
}

/// Where a resumed session now runs.
#[derive(Clone, Debug, Serialize)]
pub struct Resumed {
    /// The new session.
    pub session: Session,
    /// The session it resumes.
    pub from: BeadId,
    /// The snapshot whose files were put back, if there was one.
    pub snapshot: Option<Snapshot>,
    /// The worktree it runs in.
    pub worktree: std::path::PathBuf,
}

/// Resumes session `id` (on this clone or another): in `worktree` (created when it does
/// not exist, at the snapshot's base commit when this clone has it, else at HEAD with
/// the snapshot's full tree) or in the current one, puts back the last snapshot's files,
/// binds the agent there and starts a new session that records the one it resumes.
/// A worktree with uncommitted changes is refused unless `force`.
pub fn resume(
    store: &Store,
    id: &BeadId,
    worktree: Option<&std::path::Path>,
    force: bool,
) -> Result<Resumed> {
    let old = show_session(store, id)?;
    let snap = old.snapshots.iter().rev().find(|s| !s.pruned).cloned();
    let target_path = match worktree {
        Some(p) if !p.exists() => {
            let base = snap
                .as_ref()
                .and_then(|s| s.base.as_deref())
                .and_then(|b| ObjectId::from_hex(b.as_bytes()).ok())
                .filter(|b| store.has_object(*b));
            let at = match base {
                Some(b) => b,
                None => store.git().head_commit()?.ok_or(SessionError::NoCommit)?,
            };
            store.add_worktree(p, at)?;
            p.to_owned()
        }
        Some(p) => p.to_owned(),
        None => store
            .workdir()
            .map(std::path::Path::to_owned)
            .ok_or(SessionError::NoWorktree)?,
    };
    let target = Store::discover(&target_path)?;
    if let Some(s) = &snap {
        if target.worktree_is_dirty()? && !force {
            return Err(SessionError::Dirty(target_path).into());
        }
        let tree =
            gix::ObjectId::from_hex(s.tree.as_bytes()).map_err(|e| SessionError::BadSnapshot {
                id: id.clone(),
                n: s.n,
                error: e.to_string(),
            })?;
        target.restore_worktree(tree)?;
    }
    let session = start_session(
        &target,
        &old.agent,
        StartOptions {
            model: old.model.clone(),
            resumes: Some(id.clone()),
            ..StartOptions::default()
        },
    )?;
    Ok(Resumed {
        session,
        from: id.clone(),
        snapshot: snap,
        worktree: target_path,
    })
}

/// Prunes old snapshots from the store's tree, keeping the newest `keep` per agent
/// (default `beads.snapshotKeep`, else 5). Their records stay on the sessions, marked
/// pruned. Returns how many were pruned.
pub fn gc(store: &Store, actor: &Actor, keep: Option<usize>) -> Result<usize> {
    let keep = keep
        .or_else(|| {
            store
                .git()
                .config_string(settings::SNAPSHOT_KEEP)?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(DEFAULT_KEEP);
    write(store, actor, |tx| {
        let mut by_agent: std::collections::BTreeMap<AgentName, Vec<(Timestamp, BeadId, u32)>> =
            Default::default();
        for path in tx.list_docs(refs::SESSIONS_DIR)? {
            if let Some(s) = tx.doc::<Session>(&path)? {
                for snap in s.snapshots.iter().filter(|x| !x.pruned) {
                    by_agent.entry(s.agent.clone()).or_default().push((
                        snap.at,
                        s.id.clone(),
                        snap.n,
                    ));
                }
            }
        }
        let mut pruned = 0;
        for (_, mut snaps) in by_agent {
            snaps.sort();
            let excess = snaps.len().saturating_sub(keep);
            for (_, sid, n) in snaps.into_iter().take(excess) {
                let mut s = load_session(tx, &sid)?;
                if let Some(x) = s.snapshots.iter_mut().find(|x| x.n == n) {
                    x.pruned = true;
                }
                save_session(tx, &s)?;
                tx.put_subtree(&refs::snapshot_path(&sid, n), None);
                pruned += 1;
            }
        }
        tx.set_message(format!(
            "gc: prune {pruned} old snapshots (keeping {keep} per agent)"
        ));
        Ok(pruned)
    })
}

/// Every store change made by session `id` and the sessions it resumes (following the
/// resume chain back), newest first, each with its evidence: who signed it and how
/// `verify` judges it, at its place in the whole store's chain (so this reads the
/// whole history, as `verify` does).
pub fn session_log(store: &Store, id: &BeadId) -> Result<Vec<super::LogEntry>> {
    let view = store.view()?;
    let (chain, _) = resume_chain(&view, id)?;
    let head = store.require_head()?;
    let mut entries: Vec<super::LogEntry> = store
        .commits_of_sessions(&head, None, &chain)?
        .into_iter()
        .map(super::history::entry_without_diffs)
        .collect();
    if entries.is_empty() {
        return Ok(entries);
    }
    let judged: std::collections::HashMap<String, super::CommitCheck> =
        super::verify::verify_commits(store, head.commit, None)?
            .commits
            .into_iter()
            .map(|c| (c.commit.to_string(), c))
            .collect();
    for e in &mut entries {
        e.evidence = judged.get(&e.commit).map(|c| super::Evidence {
            verdict: c.verdict,
            signer: c.signer.clone(),
        });
    }
    Ok(entries)
}

/// Session `id` and the sessions it resumes, following the chain back (a loop, or one
/// longer than a thousand, is cut), and when the first of them started.
fn resume_chain(view: &View<'_>, id: &BeadId) -> Result<(Vec<String>, Timestamp)> {
    let mut chain = Vec::new();
    let mut first = now();
    let mut next = Some(id.clone());
    while let Some(sid) = next {
        if chain.contains(&sid.to_string()) || chain.len() > 1000 {
            break;
        }
        let s = load_session(view, &sid)?;
        chain.push(sid.to_string());
        first = first.min(s.started_at);
        next = s.resumes;
    }
    Ok((chain, first))
}

/// How far another host's clock may lag: a session's commits are looked for back to
/// this long before the first session of its chain started.
const CLOCK_SKEW_SECS: i64 = 3600;
