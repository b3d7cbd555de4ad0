//! Giving beads new ids: one bead (`rename`), or every bead of the store's prefix
//! (`rename-prefix`), every link to them following: dependencies, agents' hooks, the
//! variables of molecules, the text of mail and sessions, and the wisps of this
//! machine.

use std::collections::BTreeMap;

use super::molecule::VARIABLES_KEY;
use super::permit;
use super::{BeadError, Result, now, require, write};
use crate::model::{
    Actor, Agent, AgentName, Bead, BeadId, BeadType, Capability, Message, Prefix, Session, Status,
    Timestamp, retarget_text,
};
use crate::store::{Store, Tx, refs};

/// Key in a renamed bead's tombstone `extra` of the id it goes by now.
pub const RENAMED_TO: &str = "renamed_to";

/// What `rename` did.
#[derive(Clone, Debug)]
pub struct Renamed {
    /// The bead under its new id.
    pub bead: Bead,
    /// The id it had.
    pub old: BeadId,
    /// The beads whose links to it were rewritten, sorted.
    pub relinked: Vec<BeadId>,
    /// The agents and messages that named it and now name the new id.
    pub followed: Followed,
}

/// The documents other than beads of `refs/beads/main` that named a moved bead and
/// now name its new id.
#[derive(Clone, Debug, Default)]
pub struct Followed {
    /// The agents whose hooks held it, sorted.
    pub agents: Vec<AgentName>,
    /// The messages whose subject or body named it, sorted.
    pub messages: Vec<BeadId>,
    /// The sessions whose handoff note or crash note named it, sorted.
    pub sessions: Vec<BeadId>,
    /// The wisps (beads of this machine's wisp ref) whose dependencies or variables
    /// named it, sorted.
    pub wisps: Vec<BeadId>,
}

/// Gives bead `old` the id `new`, in one commit: the bead moves to `new`, every
/// dependency on `old` (parents included) now names `new`, and `old` stays behind as
/// a tombstone that says where the bead went (`delete_reason` "renamed to NEW",
/// `extra.renamed_to`), so that `show OLD` still answers and a clone that syncs later
/// sees the old id deleted rather than finding it gone. `new` must be free (no bead
/// and no tombstone has it). The wisps of this machine that named `old` follow in a
/// commit of their own ref right after (see [`follow_wisps`]).
pub fn rename(store: &Store, actor: &Actor, old: &BeadId, new: &BeadId) -> Result<Renamed> {
    permit(actor, Capability::Update)?;
    let moves = BTreeMap::from([(old.clone(), new.clone())]);
    let mut renamed = write(store, actor, |tx| {
        let bead = require(tx, old)?;
        if bead.status == Status::Deleted {
            return Err(BeadError::Deleted(old.clone()).into());
        }
        if old == new || tx.bead_exists(new)? {
            return Err(BeadError::Taken(new.clone()).into());
        }
        let (relinked, followed) = move_beads(tx, actor, &moves)?;
        tx.set_message(format!("rename: {old} → {new}"));
        Ok(Renamed {
            bead: require(tx, new)?,
            old: old.clone(),
            relinked,
            followed,
        })
    })?;
    renamed.followed.wisps = follow_wisps(store, actor, &moves)?;
    Ok(renamed)
}

/// What `rename-prefix` did.
#[derive(Clone, Debug)]
pub struct PrefixRenamed {
    /// The prefix the store had.
    pub old: Prefix,
    /// The prefix it has.
    pub new: Prefix,
    /// How many beads got a new id.
    pub renamed: usize,
    /// The agents and messages that named a moved bead and now name its new id.
    pub followed: Followed,
}

/// Gives the store the prefix `new`, in one commit: every live bead whose id has the
/// old prefix gets the same id with the new one (`bd-a1.2` → `kw-a1.2`), every
/// dependency follows, and each old id stays as a tombstone saying where its bead
/// went (as [`rename`] leaves it). Beads of other prefixes (imported from elsewhere)
/// keep theirs. Refused, changing nothing, when a new id is taken already. The wisps
/// follow as they do after [`rename`].
pub fn rename_prefix(store: &Store, actor: &Actor, new: &Prefix) -> Result<PrefixRenamed> {
    permit(actor, Capability::Update)?;
    let (mut renamed, moves) = write(store, actor, |tx| {
        let mut meta = tx.meta()?;
        let old = meta.prefix.clone();
        if old == *new {
            let unchanged = PrefixRenamed {
                old,
                new: new.clone(),
                renamed: 0,
                followed: Followed::default(),
            };
            return Ok((unchanged, BTreeMap::new()));
        }
        let head = format!("{}-", old.as_str());
        let mut moves = BTreeMap::new();
        for s in tx.index()?.rows() {
            let Some(rest) = s.id().strip_prefix(&head) else {
                continue;
            };
            if s.status() == Status::Deleted {
                continue;
            }
            let from = BeadId::parse(s.id())?;
            let to = BeadId::parse(&format!("{}-{rest}", new.as_str()))?;
            moves.insert(from, to);
        }
        for to in moves.values() {
            if tx.bead_exists(to)? {
                return Err(BeadError::Taken(to.clone()).into());
            }
        }
        let (_, followed) = move_beads(tx, actor, &moves)?;
        meta.prefix = new.clone();
        tx.put_meta(&meta)?;
        tx.set_message(format!("rename-prefix: {old} → {new}"));
        let renamed = PrefixRenamed {
            old,
            new: new.clone(),
            renamed: moves.len(),
            followed,
        };
        Ok((renamed, moves))
    })?;
    renamed.followed.wisps = follow_wisps(store, actor, &moves)?;
    Ok(renamed)
}

/// Moves each bead `from` → `to` of `moves` (leaving a tombstone at `from`) and points
/// every dependency on a moved bead at its new id, and the variables of molecules that
/// name one; returns the beads not moved that changed, sorted, and the other documents
/// that followed ([`follow`]).
fn move_beads(
    tx: &mut Tx<'_>,
    actor: &Actor,
    moves: &BTreeMap<BeadId, BeadId>,
) -> Result<(Vec<BeadId>, Followed)> {
    let at = now();
    let relinked = relink(tx, actor, moves, at)?;
    for (from, to) in moves {
        let mut bead = require(tx, from)?;
        bead.relink(moves);
        let tomb = tombstone(bead.clone(), to, actor, at);
        bead.id = to.clone();
        bead.touch(&actor.id, at);
        tx.put_bead(&bead)?;
        tx.put_bead(&tomb)?;
    }
    Ok((relinked, follow(tx, actor, moves, at)?))
}

/// Points every dependency of the beads not moved on a moved bead at its new id, and
/// the variables of molecules that name one; returns the beads that changed, sorted.
fn relink(
    tx: &mut Tx<'_>,
    actor: &Actor,
    moves: &BTreeMap<BeadId, BeadId>,
    at: Timestamp,
) -> Result<Vec<BeadId>> {
    let touched: Vec<BeadId> = tx
        .index()?
        .rows()
        .filter(|s| {
            s.kind() == BeadType::Molecule
                || s.dependencies()
                    .any(|d| BeadId::parse(d.id()).is_ok_and(|id| moves.contains_key(&id)))
        })
        .filter_map(|s| BeadId::parse(s.id()).ok())
        .filter(|id| !moves.contains_key(id))
        .collect();
    let mut relinked = Vec::new();
    for id in touched {
        let mut bead = require(tx, &id)?;
        let before = bead.clone();
        bead.relink(moves);
        retarget_variables(&mut bead, moves);
        if bead != before {
            bead.touch(&actor.id, at);
            tx.put_bead(&bead)?;
            relinked.push(id);
        }
    }
    relinked.sort();
    Ok(relinked)
}

/// Points the wisps of this machine (its local-only ref, which sync never pushes)
/// that name a moved bead at its new id, in one commit of that ref; returns the wisps
/// that changed. A ref of its own cannot change in the commit of `refs/beads/main`:
/// this runs right after it, and a rename cut short between the two leaves the wisps
/// naming the old id, whose tombstone says where the bead went.
fn follow_wisps(
    store: &Store,
    actor: &Actor,
    moves: &BTreeMap<BeadId, BeadId>,
) -> Result<Vec<BeadId>> {
    if moves.is_empty() || store.view_of(refs::WISPS)?.head().is_none() {
        return Ok(Vec::new());
    }
    let (wisps, _) = store.transact_on(refs::WISPS, actor, |tx| {
        let wisps = relink(tx, actor, moves, now())?;
        if let Some((from, to)) = moves.first_key_value() {
            let more = moves.len() - 1;
            let others = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            tx.set_message(format!("rename: wisps follow {from} → {to}{others}"));
        }
        Ok::<_, super::OpError>(wisps)
    })?;
    Ok(wisps)
}

/// Points the values of a molecule's variables (in `extra`) that name a moved bead at
/// its new id.
fn retarget_variables(bead: &mut Bead, moves: &BTreeMap<BeadId, BeadId>) {
    let Some(serde_json::Value::Object(vars)) = bead.extra.get_mut(VARIABLES_KEY) else {
        return;
    };
    for value in vars.values_mut() {
        if let Some(text) = value.as_str().and_then(|v| retarget_text(v, moves)) {
            *value = serde_json::Value::String(text);
        }
    }
}

/// Points the other documents that name a moved bead at its new id: the hooks of
/// agents, the subject and body of messages, and the handoff and crash notes of
/// sessions. A document that does not parse is left as it is (`doctor` reports it).
fn follow(
    tx: &mut Tx<'_>,
    actor: &Actor,
    moves: &BTreeMap<BeadId, BeadId>,
    at: Timestamp,
) -> Result<Followed> {
    let mut followed = Followed::default();
    for path in tx.list_docs(refs::AGENTS_DIR)? {
        let Ok(Some(mut agent)) = tx.doc::<Agent>(&path) else {
            continue;
        };
        if !agent.hook.iter().any(|id| moves.contains_key(id)) {
            continue;
        }
        let mut hook: Vec<BeadId> = Vec::with_capacity(agent.hook.len());
        for id in &agent.hook {
            let id = moves.get(id).unwrap_or(id);
            if !hook.contains(id) {
                hook.push(id.clone());
            }
        }
        agent.hook = hook;
        agent.updated_at = at;
        agent.updated_by = actor.id.clone();
        tx.put_doc(&path, &agent)?;
        followed.agents.push(agent.name);
    }
    for path in tx.list_docs(refs::MAIL_DIR)? {
        let Ok(Some(mut m)) = tx.doc::<Message>(&path) else {
            continue;
        };
        let subject = retarget_text(&m.subject, moves);
        let body = retarget_text(&m.body, moves);
        if subject.is_none() && body.is_none() {
            continue;
        }
        m.subject = subject.unwrap_or(m.subject);
        m.body = body.unwrap_or(m.body);
        m.updated_at = at;
        m.updated_by = actor.id.clone();
        tx.put_doc(&path, &m)?;
        followed.messages.push(m.id);
    }
    for path in tx.list_docs(refs::SESSIONS_DIR)? {
        let Ok(Some(mut s)) = tx.doc::<Session>(&path) else {
            continue;
        };
        let handoff = s.handoff.as_deref().and_then(|t| retarget_text(t, moves));
        let step = s
            .crash
            .as_ref()
            .and_then(|c| c.step.as_deref())
            .and_then(|t| retarget_text(t, moves));
        if handoff.is_none() && step.is_none() {
            continue;
        }
        s.handoff = handoff.or(s.handoff);
        if let (Some(c), Some(step)) = (s.crash.as_mut(), step) {
            c.step = Some(step);
        }
        s.updated_at = at;
        s.updated_by = actor.id.clone();
        tx.put_doc(&path, &s)?;
        followed.sessions.push(s.id);
    }
    followed.agents.sort();
    followed.messages.sort();
    followed.sessions.sort();
    Ok(followed)
}

/// What stays at a moved bead's old id: a tombstone naming the new one.
fn tombstone(mut bead: Bead, to: &BeadId, actor: &Actor, at: Timestamp) -> Bead {
    bead.status = Status::Deleted;
    bead.deleted_at = Some(at);
    bead.deleted_by = Some(actor.id.clone());
    bead.delete_reason = Some(format!("renamed to {to}"));
    bead.dependencies.clear();
    bead.external.clear();
    bead.extra
        .insert(RENAMED_TO.into(), serde_json::Value::String(to.to_string()));
    bead.touch(&actor.id, at);
    bead
}
