//! Agents' signing keys: made at `agent create`, replaced by `agent key rotate`, each
//! endorsed by the signature of whoever gave it, so that the delegation chain is a
//! chain of signatures.

use super::agent::{descends_from, load_active, save};
use super::{AgentChange, AgentError, Result, now, write};
use crate::model::{Actor, Agent, AgentKey, AgentName, ENDORSE_NAMESPACE, endorsement_payload};
use crate::store::{Signer, Store};

/// A new key pair for agent `name`, in memory, and its entry for the agent's
/// document: endorsed by `actor`'s key when it has one.
pub(crate) fn new_key(
    store: &Store,
    actor: &Actor,
    name: &AgentName,
) -> Result<(Signer, AgentKey)> {
    let key = store.new_agent_key(name)?;
    let public = key.public_key().unwrap_or_default();
    // Only an ssh key endorses (an SSHSIG in its own namespace); one that cannot be
    // used leaves the key unendorsed, as a commit it cannot sign is left unsigned.
    let endorser = store
        .or_unsigned(store.signer_for(actor))?
        .and_then(|e| e.public_key().map(|k| (e, k)));
    let endorsement = match &endorser {
        Some((e, _)) => store.or_unsigned(
            e.sign(ENDORSE_NAMESPACE, &endorsement_payload(name, &public))
                .map(Some),
        )?,
        None => None,
    };
    let entry = AgentKey {
        key: public,
        since: now(),
        retired_at: None,
        endorsed_by: actor.id.clone(),
        endorser_key: endorsement.as_ref().and(endorser.map(|(_, k)| k)),
        endorsement,
    };
    Ok((key, entry))
}

/// Gives agent `name` a new key and retires the ones it had: commits they sign from
/// now on are not the agent's. Only a person, the agent itself or an agent above it
/// may. The private key replaces the old one under the git dir once the store
/// records it.
pub fn rotate_agent_key(store: &Store, actor: &Actor, name: &AgentName) -> Result<Agent> {
    let (key, entry) = new_key(store, actor, name)?;
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
