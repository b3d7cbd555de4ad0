//! Agents: create, change, retire, bind to a worktree, and resolve who is acting.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{AgentChange, AgentError, Result, now, permit, refuse_new, write};
use crate::model::{
    Actor, Agent, AgentKey, AgentName, AgentStatus, Authority, BeadId, Budget, Capability,
    Decision, Session, agent_problems,
};
use crate::store::{Store, Tx, View, refs};

/// Which agent the current worktree's commands act as (per-worktree, never pushed):
/// the one a person bound it to on purpose (`agent bind`, `worktree add`, an agent's
/// branch), which outlives sessions, or the one whose session started here, until
/// that session ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// The agent bound to this worktree.
    pub agent: AgentName,
    /// The session running here, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<BeadId>,
    /// Whether the worktree was bound on purpose; otherwise a session start bound
    /// it, and the binding ends with that session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub explicit: bool,
}

/// Why a command acts as whom it acts as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActingBecause {
    /// The caller named the agent (`--as`, `GIT_BEADS_AGENT`, bd's actor).
    Named,
    /// The worktree is bound to the agent on purpose.
    Bound,
    /// The agent's session runs in this worktree (its binding ends with it).
    Session,
    /// Nothing names an agent: the person, by their git identity.
    Person,
    /// The caller asked to act as the person (`--as-person`).
    AsPerson,
}

/// Who a command acts as, and why.
#[derive(Clone, Debug)]
pub struct Acting {
    /// The actor.
    pub actor: Actor,
    /// Why.
    pub because: ActingBecause,
}

/// The agent and session bound to the current worktree, if any.
pub fn binding(store: &Store) -> Result<Option<Binding>> {
    Ok(store.read_worktree_state(refs::WORKTREE_BINDING)?)
}

pub(crate) fn set_binding(store: &Store, binding: Option<&Binding>) -> Result<()> {
    Ok(store.write_worktree_state(refs::WORKTREE_BINDING, binding)?)
}

/// Reads agent `name` at the current head.
pub fn show_agent(store: &Store, name: &AgentName) -> Result<Agent> {
    let head = store.require_head()?;
    store
        .read_doc(head.tree, &refs::agent_path(name))?
        .ok_or_else(|| AgentError::NotFound(name.clone()).into())
}

/// Every agent, sorted by name.
pub fn list_agents(store: &Store) -> Result<Vec<Agent>> {
    let head = store.require_head()?;
    let mut out = Vec::new();
    for (path, _) in store.list_docs(head.tree, refs::AGENTS_DIR)? {
        if let Some(agent) = store.read_doc::<Agent>(head.tree, &path)? {
            out.push(agent);
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

pub(crate) fn load(tx: &View<'_>, name: &AgentName) -> Result<Agent> {
    tx.doc(&refs::agent_path(name))?
        .ok_or_else(|| AgentError::NotFound(name.clone()).into())
}

pub(crate) fn load_active(tx: &View<'_>, name: &AgentName) -> Result<Agent> {
    active(load(tx, name)?)
}

/// `agent`, unless it is retired.
fn active(agent: Agent) -> Result<Agent> {
    if agent.status == AgentStatus::Retired {
        return Err(AgentError::Retired(agent.name).into());
    }
    Ok(agent)
}

pub(crate) fn save(tx: &mut Tx<'_>, agent: &Agent) -> Result<()> {
    Ok(tx.put_doc(&refs::agent_path(&agent.name), agent)?)
}

/// Who acts, as a command line names it: bd's actor name `actor` (`--actor`), else
/// [`who_acts`] with `as_agent` (`--as`) and `as_person` (`--as-person`).
pub fn acting_given(
    store: &Store,
    actor: Option<&str>,
    as_agent: Option<&AgentName>,
    as_person: bool,
) -> Result<Acting> {
    match actor {
        Some(name) => Ok(Acting {
            actor: acting_as_named(store, name)?,
            because: ActingBecause::Named,
        }),
        None => who_acts(store, as_agent, as_person),
    }
}

/// The identity bd's `--actor NAME` stands for: the agent of that name when there is
/// one, otherwise the person's git identity recorded under that name.
pub fn acting_as_named(store: &Store, name: &str) -> Result<Actor> {
    if let Ok(agent) = AgentName::parse(name) {
        let head = store.require_head()?;
        if store
            .read_doc::<Agent>(head.tree, &refs::agent_path(&agent))?
            .is_some()
        {
            return acting(store, Some(&agent), false);
        }
    }
    crate::model::check_name("actor", name)?;
    let mut me = super::whoami(store)?;
    me.id = name.to_owned();
    Ok(me)
}

/// Resolves who is acting: the person's git identity when `as_person`, else
/// `explicit` (from `--as` or `GIT_BEADS_AGENT`), else the agent bound to this
/// worktree, else the person's git identity. An agent acts under the authority of its
/// session in this worktree when one runs (fixed when it started), else under its own.
pub fn acting(store: &Store, explicit: Option<&AgentName>, as_person: bool) -> Result<Actor> {
    Ok(who_acts(store, explicit, as_person)?.actor)
}

/// [`acting`], with why: `explicit` (named by the caller) first, then the worktree's
/// binding (on purpose, or by a session running here), then the person. A binding
/// a session made whose session is no longer running binds nothing.
pub fn who_acts(store: &Store, explicit: Option<&AgentName>, as_person: bool) -> Result<Acting> {
    let person = |because| {
        Ok(Acting {
            actor: super::whoami(store)?,
            because,
        })
    };
    if as_person {
        return person(ActingBecause::AsPerson);
    }
    let bound = binding(store)?;
    let name = match (explicit, &bound) {
        (Some(n), _) => n.clone(),
        (None, Some(b)) => b.agent.clone(),
        (None, None) => return person(ActingBecause::Person),
    };
    let head = store.require_head()?;
    let agent: Agent = store
        .read_doc(head.tree, &refs::agent_path(&name))?
        .ok_or_else(|| AgentError::UnknownActor(name.clone()))?;
    let session_id = (bound.as_ref())
        .filter(|b| b.agent == name)
        .and_then(|b| b.session.clone())
        .filter(|s| agent.session.as_ref() == Some(s));
    let session: Option<Session> = match &session_id {
        Some(id) => store.read_doc(head.tree, &refs::session_path(id))?,
        None => None,
    };
    let session = session.filter(Session::is_open);
    let because = match (explicit, &bound) {
        (Some(_), _) => ActingBecause::Named,
        (None, Some(b)) if b.explicit => ActingBecause::Bound,
        (None, _) if session.is_some() => ActingBecause::Session,
        // A session's binding ends with the session, even one that crashed.
        (None, _) => return person(ActingBecause::Person),
    };
    if explicit.is_none() && agent.status == AgentStatus::Retired {
        return Err(AgentError::BoundRetired(name).into());
    }
    let agent = active(agent)?;
    let over_budget = session
        .as_ref()
        .map(|s| s.budget_left(now()).overruns())
        .unwrap_or_default();
    let authority = session
        .as_ref()
        .map(|s| s.authority.clone())
        .unwrap_or_else(|| agent.authority.clone());
    let authority = delegated(
        |n| Ok(store.read_doc(head.tree, &refs::agent_path(n))?),
        &agent,
        &authority,
    )?;
    Ok(Acting {
        actor: Actor {
            over_budget,
            ..Actor::agent(&name, session.map(|s| s.id), authority)
        },
        because,
    })
}

/// The authority `agent` may really use, starting from `own` (its own, or its
/// session's): narrowed by the authority of every agent up its delegation chain.
///
/// Delegation only narrows, and a document cannot change that: an agent whose
/// capabilities or budget exceed its parent's (edited by hand, merged in, or pushed
/// by a hostile remote) acts only within its parent's, and an agent whose chain is
/// broken — a parent that does not exist, or a chain that loops — may do nothing.
pub(crate) fn delegated(
    read: impl Fn(&AgentName) -> Result<Option<Agent>>,
    agent: &Agent,
    own: &Authority,
) -> Result<Authority> {
    let mut out = own.clone();
    let mut seen = BTreeSet::from([agent.name.clone()]);
    let mut next = agent.parent.clone();
    while let Some(p) = next {
        let parent = match read(&p)? {
            Some(parent) if seen.insert(p) => parent,
            _ => return Ok(Authority::default()),
        };
        out = Authority {
            capabilities: out
                .capabilities
                .intersection(&parent.authority.capabilities)
                .copied()
                .collect(),
            budget: min_budget(&out.budget, &parent.authority.budget),
        };
        next = parent.parent;
    }
    Ok(out)
}

/// What a new agent should be.
#[derive(Clone, Debug, Default)]
pub struct NewAgent {
    /// Its name.
    pub name: Option<AgentName>,
    /// Its role.
    pub role: Option<String>,
    /// Its parent (default: the acting agent, if an agent is acting).
    pub parent: Option<AgentName>,
    /// Its default model.
    pub model: Option<String>,
    /// Its capabilities (default: its parent's, or all for a top-level agent).
    pub capabilities: Option<BTreeSet<Capability>>,
    /// Its budget (ceilings it leaves open are inherited from its parent).
    pub budget: Option<Budget>,
}

/// Checks that `wanted` narrows the authority of `parent` (named `who`), never widens it.
fn check_narrows(wanted: &Authority, who: &str, parent: &Authority) -> Result<()> {
    let extra: Vec<Capability> = wanted
        .capabilities
        .difference(&parent.capabilities)
        .copied()
        .collect();
    if !extra.is_empty() {
        return Err(AgentError::WiderCapabilities {
            parent: who.to_owned(),
            extra,
        }
        .into());
    }
    let wider = wanted.budget.widenings(&parent.budget);
    if !wider.is_empty() {
        return Err(AgentError::LargerBudget {
            parent: who.to_owned(),
            wider,
        }
        .into());
    }
    Ok(())
}

/// Whether `name` is `ancestor` or lies below it in the delegation chain.
pub(crate) fn descends_from(tx: &View<'_>, name: &AgentName, ancestor: &AgentName) -> Result<bool> {
    let mut cur = Some(name.clone());
    let mut hops = 0;
    while let Some(n) = cur {
        if &n == ancestor {
            return Ok(true);
        }
        hops += 1;
        if hops > 64 {
            break;
        }
        cur = tx
            .doc::<Agent>(&refs::agent_path(&n))?
            .and_then(|a| a.parent);
    }
    Ok(false)
}

/// Creates an agent. Its authority can only narrow its parent's. It gets a key pair
/// of its own: the public key, endorsed by the creator, goes into its document, the
/// private key under the git dir (see `ops::keys`).
pub fn create_agent(store: &Store, actor: &Actor, new: NewAgent) -> Result<Agent> {
    let name = new.name.clone().ok_or(AgentError::NoName)?;
    if actor.agent.is_some() {
        permit(actor, Capability::Spawn)?;
    }
    let (key, key_entry) = super::keys::new_key(store, actor, &name)?;
    let agent = write(store, actor, |tx| {
        if tx.doc::<Agent>(&refs::agent_path(&name))?.is_some() {
            return Err(AgentError::Exists(name.clone()).into());
        }
        let parent_name = new.parent.clone().or_else(|| actor.agent.clone());
        if let (Some(me), Some(p)) = (&actor.agent, &parent_name)
            && !descends_from(tx, p, me)?
        {
            return Err(AgentError::NotBelow {
                actor: me.clone(),
                change: AgentChange::Create,
                target: Some(p.clone()),
            }
            .into());
        }
        let parent = parent_name
            .as_ref()
            .map(|p| load_active(tx, p))
            .transpose()?;
        let base = parent
            .as_ref()
            .map(|p| p.authority.clone())
            .unwrap_or_else(Authority::all);
        let authority = Authority {
            capabilities: new.capabilities.clone().unwrap_or(base.capabilities),
            budget: new.budget.clone().unwrap_or_default().inherit(&base.budget),
        };
        if let Some(p) = &parent {
            check_narrows(&authority, p.name.as_str(), &p.authority)?;
        }
        if let Some(acting) = &actor.authority {
            check_narrows(&authority, &actor.id, acting)?;
        }
        let at = now();
        let agent = Agent {
            name: name.clone(),
            role: new.role.clone(),
            parent: parent_name,
            model: new.model.clone(),
            status: AgentStatus::Active,
            authority,
            hook: Vec::new(),
            session: None,
            last_session: None,
            created_at: at,
            created_by: actor.id.clone(),
            updated_at: at,
            updated_by: actor.id.clone(),
            decisions: Vec::new(),
            keys: vec![AgentKey {
                since: at,
                ..key_entry.clone()
            }],
            conflicts: Vec::new(),
        };
        refuse_new(&[], agent_problems(&agent))?;
        save(tx, &agent)?;
        tx.set_message(format!("agent create {name}"));
        Ok(agent)
    })?;
    store.save_agent_key(&name, &key)?;
    Ok(agent)
}

/// What `agent update` should change; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct AgentChanges {
    /// New role.
    pub role: Option<String>,
    /// New default model.
    pub model: Option<String>,
    /// New capabilities (replacing the old set).
    pub capabilities: Option<BTreeSet<Capability>>,
    /// New budget (replacing the old one; open ceilings inherit from the parent).
    pub budget: Option<Budget>,
    /// Apply an authority change to the running session too (otherwise it applies
    /// from the agent's next session on).
    pub apply_now: bool,
}

/// Changes an agent. An authority change is recorded as a decision; it applies from
/// the next session on unless `apply_now`; it may never widen the parent's authority,
/// and it narrows every descendant that would otherwise exceed it.
pub fn update_agent(
    store: &Store,
    actor: &Actor,
    name: &AgentName,
    c: AgentChanges,
) -> Result<Agent> {
    write(store, actor, |tx| {
        if let Some(me) = &actor.agent {
            permit(actor, Capability::Spawn)?;
            if me == name || !descends_from(tx, name, me)? {
                return Err(AgentError::NotBelow {
                    actor: me.clone(),
                    change: AgentChange::Update,
                    target: None,
                }
                .into());
            }
        }
        let mut agent = load(tx, name)?;
        let at = now();
        let had = agent_problems(&agent);
        if let Some(r) = &c.role {
            agent.role = Some(r.clone());
        }
        if let Some(m) = &c.model {
            agent.model = Some(m.clone());
        }
        refuse_new(&had, agent_problems(&agent))?;
        let mut authority = agent.authority.clone();
        if let Some(caps) = &c.capabilities {
            authority.capabilities = caps.clone();
        }
        if let Some(b) = &c.budget {
            let parent_budget = match &agent.parent {
                Some(p) => load(tx, p)?.authority.budget,
                None => Budget::default(),
            };
            authority.budget = b.inherit(&parent_budget);
        }
        if authority != agent.authority {
            if let Some(p) = &agent.parent {
                check_narrows(&authority, p.as_str(), &load(tx, p)?.authority)?;
            }
            let what = describe_change(&agent.authority, &authority);
            let applied_to = if c.apply_now {
                agent.session.clone()
            } else {
                None
            };
            if let Some(sid) = &applied_to {
                let path = refs::session_path(sid);
                if let Some(mut s) = tx.doc::<Session>(&path)? {
                    s.authority = authority.clone();
                    s.updated_at = at;
                    s.updated_by = actor.id.clone();
                    tx.put_doc(&path, &s)?;
                }
            }
            agent.decisions.push(Decision {
                at,
                by: actor.id.clone(),
                what,
                applied_to,
            });
            agent.authority = authority;
            narrow_descendants(tx, &agent, actor, at)?;
        }
        agent.updated_at = at;
        agent.updated_by = actor.id.clone();
        save(tx, &agent)?;
        tx.set_message(format!("agent update {name}"));
        Ok(agent)
    })
}

fn describe_change(old: &Authority, new: &Authority) -> String {
    let mut parts = Vec::new();
    let added: Vec<&str> = new
        .capabilities
        .difference(&old.capabilities)
        .map(|c| c.as_str())
        .collect();
    let removed: Vec<&str> = old
        .capabilities
        .difference(&new.capabilities)
        .map(|c| c.as_str())
        .collect();
    if !added.is_empty() {
        parts.push(format!("grant {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("revoke {}", removed.join(", ")));
    }
    if old.budget != new.budget {
        parts.push(format!("budget {:?} → {:?}", old.budget, new.budget));
    }
    parts.join("; ")
}

/// Keeps every descendant of `agent` within its authority after a change.
fn narrow_descendants(
    tx: &mut Tx<'_>,
    agent: &Agent,
    actor: &Actor,
    at: crate::model::Timestamp,
) -> Result<()> {
    for path in tx.list_docs(refs::AGENTS_DIR)? {
        let Some(mut child) = tx.doc::<Agent>(&path)? else {
            continue;
        };
        if child.parent.as_ref() != Some(&agent.name) {
            continue;
        }
        let narrowed = Authority {
            capabilities: child
                .authority
                .capabilities
                .intersection(&agent.authority.capabilities)
                .copied()
                .collect(),
            budget: min_budget(&child.authority.budget, &agent.authority.budget),
        };
        if narrowed != child.authority {
            child.decisions.push(Decision {
                at,
                by: actor.id.clone(),
                what: format!(
                    "narrowed with parent {}: {}",
                    agent.name,
                    describe_change(&child.authority, &narrowed)
                ),
                applied_to: None,
            });
            child.authority = narrowed;
            child.updated_at = at;
            child.updated_by = actor.id.clone();
            save(tx, &child)?;
            narrow_descendants(tx, &child, actor, at)?;
        }
    }
    Ok(())
}

fn min_budget(a: &Budget, b: &Budget) -> Budget {
    fn min<T: PartialOrd + Copy>(x: Option<T>, y: Option<T>) -> Option<T> {
        match (x, y) {
            (Some(x), Some(y)) => Some(if y < x { y } else { x }),
            (x, y) => x.or(y),
        }
    }
    Budget {
        tokens: min(a.tokens, b.tokens),
        spend: min(a.spend, b.spend),
        tool_calls: min(a.tool_calls, b.tool_calls),
        wall_secs: min(a.wall_secs, b.wall_secs),
    }
}

/// Retires an agent: it keeps its record and history but starts no more sessions.
pub fn retire_agent(store: &Store, actor: &Actor, name: &AgentName) -> Result<Agent> {
    write(store, actor, |tx| {
        if let Some(me) = &actor.agent
            && (me == name || !descends_from(tx, name, me)?)
        {
            return Err(AgentError::NotBelow {
                actor: me.clone(),
                change: AgentChange::Retire,
                target: None,
            }
            .into());
        }
        let mut agent = load_active(tx, name)?;
        agent.status = AgentStatus::Retired;
        agent.updated_at = now();
        agent.updated_by = actor.id.clone();
        save(tx, &agent)?;
        tx.set_message(format!("agent retire {name}"));
        Ok(agent)
    })
}

/// Binds the current worktree to agent `name` (per-worktree state, never pushed).
pub fn bind(store: &Store, name: &AgentName) -> Result<Binding> {
    active(show_agent(store, name)?)?;
    let keep_session = binding(store)?
        .filter(|b| &b.agent == name)
        .and_then(|b| b.session);
    let b = Binding {
        agent: name.clone(),
        session: keep_session,
        explicit: true,
    };
    set_binding(store, Some(&b))?;
    Ok(b)
}

/// Removes the current worktree's binding.
pub fn unbind(store: &Store) -> Result<()> {
    set_binding(store, None)
}

/// Gives agent `name` a new key and retires the ones it had: commits they sign from
/// now on are not the agent's. Only a person, the agent itself or an agent above it
/// may. The private key replaces the old one under the git dir once the store
/// records it.
pub fn rotate_agent_key(store: &Store, actor: &Actor, name: &AgentName) -> Result<Agent> {
    let (key, entry) = super::keys::new_key(store, actor, name)?;
    let agent = write(store, actor, |tx| {
        if let Some(me) = &actor.agent
            && me != name
            && !descends_from(tx, name, me)?
        {
            return Err(AgentError::NotBelow {
                actor: me.clone(),
                change: AgentChange::Update,
                target: None,
            }
            .into());
        }
        let mut agent = load_active(tx, name)?;
        let at = now();
        for old in agent.keys.iter_mut().filter(|k| k.retired_at.is_none()) {
            old.retired_at = Some(at);
        }
        agent.keys.push(AgentKey {
            since: at,
            ..entry.clone()
        });
        agent.updated_at = at;
        agent.updated_by = actor.id.clone();
        save(tx, &agent)?;
        tx.set_message(format!("agent key rotate {name}"));
        Ok(agent)
    })?;
    store.save_agent_key(name, &key)?;
    Ok(agent)
}
