//! Agents' signing keys: made at `agent create` and at `agent key rotate`, each
//! endorsed by the signature of whoever gave it, so that the delegation chain is a
//! chain of signatures.

use super::{Result, now};
use crate::model::{Actor, AgentKey, AgentName, ENDORSE_NAMESPACE, endorsement_payload};
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
