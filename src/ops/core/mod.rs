//! The bead core: the primitives every use case builds on. New ids, the one loop
//! that changes beads and the claim of a bead, the actor's authority, transactions,
//! reading and querying the beads, the project's words and settings. It uses the
//! store, the merge and the model, and ops' errors; it calls no feature room
//! (workflows, agents, remote): what follows a change there is the caller's policy,
//! handed down (see [`change::change_each_in`]).

pub(crate) mod change;
pub(crate) mod config;
pub(crate) mod ids;
pub(crate) mod query;

use super::error::{AgentError, BeadError, OpError, SessionError, StoreError};
use crate::model::{self, Actor, Bead, BeadId, Capability, Prefix};
use crate::store::{self, Broken, Meta, Store, Tx, View};

/// The result type of every operation.
pub type Result<T> = std::result::Result<T, OpError>;

/// Fails unless `actor` may do `cap`, and unless its session is over budget: then it
/// may only do what needs no capability (report usage, hand off, end the session).
pub(crate) fn permit(actor: &Actor, cap: Capability) -> Result<()> {
    if let (Some(agent), Some(session)) = (&actor.agent, &actor.session)
        && !actor.over_budget.is_empty()
    {
        return Err(SessionError::BudgetSpent {
            id: session.clone(),
            agent: agent.clone(),
            over: actor.over_budget.clone(),
        }
        .into());
    }
    if actor.may(cap) {
        return Ok(());
    }
    Err(AgentError::NotPermitted {
        actor: actor.id.clone(),
        capability: cap,
        has: actor
            .authority
            .as_ref()
            .map(|a| a.capabilities.iter().copied().collect())
            .unwrap_or_default(),
    }
    .into())
}

/// Refuses `after` when it breaks a rule of the document validator
/// ([`model::bead_problems`]) that `before`, the document it replaces, did not break
/// already: a change never makes a document worse, and never has to mend what it did
/// not touch (a document from a remote is kept as it is, and `doctor` flags it).
pub(crate) fn check_bead(before: Option<&Bead>, after: &Bead) -> Result<()> {
    let old = before.map(model::bead_problems).unwrap_or_default();
    refuse_new(&old, model::bead_problems(after))
}

/// Fails with the first of `found` that is not among `old`.
pub(crate) fn refuse_new(old: &[model::Invalid], found: Vec<model::Invalid>) -> Result<()> {
    match found.into_iter().find(|p| !old.contains(p)) {
        Some(p) => Err(p.into()),
        None => Ok(()),
    }
}

/// The identity of the person using this repository, as git resolves it.
pub fn whoami(store: &Store) -> Result<Actor> {
    Ok(store.identity()?)
}

/// The store's meta document at its current head.
pub fn meta(store: &Store) -> Result<Meta> {
    let head = store.require_head()?;
    Ok(store.meta(&head)?)
}

/// The prefix a new store in this repository gets unless told otherwise.
pub(crate) fn default_prefix(store: &Store) -> Prefix {
    Prefix::from_repo_name(&store.repo_name())
}

pub(crate) use store::now;

/// Reads bead `id` inside a transaction, or fails with [`BeadError::NotFound`].
pub(crate) fn require(tx: &View<'_>, id: &BeadId) -> Result<Bead> {
    tx.bead(id)?
        .ok_or_else(|| BeadError::NotFound(id.clone()).into())
}

/// A document read for a view that does not parse is set aside in `broken` (`None`);
/// every other answer, and every other error, passes through.
pub(crate) fn or_broken<T>(read: Result<T>, broken: &mut Vec<Broken>) -> Result<Option<T>> {
    match read {
        Ok(doc) => Ok(Some(doc)),
        Err(OpError::Store(StoreError::Document { path, source })) => {
            broken.push(Broken {
                path,
                error: source.to_string(),
            });
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Runs `op` as one atomic change of the store (see [`Store::transact`]) and returns its value.
pub(crate) fn write<T>(
    store: &Store,
    actor: &Actor,
    op: impl FnMut(&mut Tx<'_>) -> Result<T>,
) -> Result<T> {
    Ok(store.transact(actor, op)?.0)
}
