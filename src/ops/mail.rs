//! Mail between agents: send, read, reply, acknowledge, archive, search.

use std::collections::{BTreeMap, BTreeSet};

use super::agent::list_agents;
use super::permit;
use super::{AgentError, MailError, Result, now, refuse_new, write};
use crate::model::{
    Actor, Agent, AgentName, AgentStatus, BeadId, Capability, Delivery, Message, Prefix,
    message_problems,
};
use crate::store::{Broken, Index, MailSummary, Part, Store, Tx, refs};

/// What a new message should be.
#[derive(Clone, Debug, Default)]
pub struct NewMessage {
    /// Addresses: agent names, `@role`, `@all`.
    pub to: Vec<String>,
    /// Agents copied.
    pub cc: Vec<AgentName>,
    /// The subject (required).
    pub subject: String,
    /// The text.
    pub body: String,
    /// 0 (urgent) … 4 (routine); 2 when unset.
    pub priority: Option<u8>,
    /// The message this answers.
    pub reply_to: Option<BeadId>,
}

fn message_prefix() -> Prefix {
    Prefix::parse("msg").unwrap_or_else(|_| unreachable!("msg is a valid prefix"))
}

/// Expands addresses into agents: a name, `@role` (every active agent with that role)
/// or `@all` (every active agent but the sender). An address that reaches nobody is
/// an error.
fn expand(agents: &[Agent], to: &[String], sender: &str) -> Result<BTreeSet<AgentName>> {
    let mut out = BTreeSet::new();
    for addr in to {
        let found: Vec<&Agent> = if addr == "@all" {
            agents
                .iter()
                .filter(|a| a.status == AgentStatus::Active && a.name.as_str() != sender)
                .collect()
        } else if let Some(role) = addr.strip_prefix('@') {
            agents
                .iter()
                .filter(|a| a.status == AgentStatus::Active && a.role.as_deref() == Some(role))
                .collect()
        } else {
            let name = AgentName::parse(addr).map_err(AgentError::Input)?;
            agents.iter().filter(|a| a.name == name).collect()
        };
        if found.is_empty() {
            return Err(MailError::UnknownRecipient(addr.clone()).into());
        }
        out.extend(found.into_iter().map(|a| a.name.clone()));
    }
    Ok(out)
}

/// Stages a new message in `tx` and returns it (used by `send` and by `handoff`).
pub(crate) fn stage(
    tx: &mut Tx<'_>,
    actor: &Actor,
    new: &NewMessage,
    to: BTreeSet<AgentName>,
) -> Result<Message> {
    let at = now();
    let seed = format!(
        "{}\0{}\0{}",
        actor.id,
        new.subject,
        at.timestamp_nanos_opt().unwrap_or_default()
    );
    let mut id = BeadId::generate(&message_prefix(), seed.as_bytes(), 10);
    while tx.doc::<Message>(&refs::mail_path(&id))?.is_some() {
        id = BeadId::generate(&message_prefix(), seed.as_bytes(), 12);
    }
    let (thread, reply_to) = match &new.reply_to {
        Some(r) => {
            let original: Message = tx
                .doc(&refs::mail_path(r))?
                .ok_or_else(|| MailError::NotFound(r.clone()))?;
            (original.thread, Some(r.clone()))
        }
        None => (id.clone(), None),
    };
    let delivery: BTreeMap<AgentName, Delivery> = to
        .into_iter()
        .chain(new.cc.iter().cloned())
        .map(|a| (a, Delivery::default()))
        .collect();
    let m = Message {
        id: id.clone(),
        from: actor.id.clone(),
        to: new.to.clone(),
        cc: new.cc.clone(),
        subject: new.subject.clone(),
        body: new.body.clone(),
        priority: new.priority.unwrap_or(2),
        thread,
        reply_to,
        sent_at: at,
        delivery,
        updated_at: at,
        updated_by: actor.id.clone(),
        conflicts: Vec::new(),
    };
    refuse_new(&[], message_problems(&m))?;
    tx.put_doc(&refs::mail_path(&id), &m)?;
    Ok(m)
}

/// What the message document cannot tell: that it is addressed at all (its text and
/// priority are checked on the document, in [`stage`]).
fn check_new(new: &NewMessage) -> Result<()> {
    if new.to.is_empty() {
        return Err(MailError::NoRecipient.into());
    }
    Ok(())
}

/// Sends a message; every address must reach at least one agent.
pub fn send(store: &Store, actor: &Actor, new: NewMessage) -> Result<Message> {
    permit(actor, Capability::Mail)?;
    check_new(&new)?;
    let agents = list_agents(store)?;
    let to = expand(&agents, &new.to, &actor.id)?;
    for c in &new.cc {
        expand(&agents, &[c.to_string()], &actor.id)?;
    }
    write(store, actor, |tx| {
        let m = stage(tx, actor, &new, to.clone())?;
        tx.set_message(format!("mail {} from {}: {}", m.id, m.from, m.subject));
        Ok(m)
    })
}

/// Replies to a message: to its sender (when that is an agent), in its thread.
pub fn reply(store: &Store, actor: &Actor, id: &BeadId, body: &str) -> Result<Message> {
    let original = peek(store, id)?;
    let subject = if original.subject.starts_with("Re: ") {
        original.subject.clone()
    } else {
        format!("Re: {}", original.subject)
    };
    send(
        store,
        actor,
        NewMessage {
            to: vec![original.from.clone()],
            subject,
            body: body.to_owned(),
            priority: Some(original.priority),
            reply_to: Some(id.clone()),
            ..NewMessage::default()
        },
    )
}

/// Reads a message without marking it.
pub fn peek(store: &Store, id: &BeadId) -> Result<Message> {
    let view = store.view()?;
    view.doc(&refs::mail_path(id))?
        .ok_or_else(|| MailError::NotFound(id.clone()).into())
}

/// Which mark `mark` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Read.
    Read,
    /// Acknowledged (which also reads it).
    Ack,
    /// Archived.
    Archive,
}

/// Sets `actor`'s mark on a message it received; marks once set stay set.
pub fn mark(store: &Store, actor: &Actor, id: &BeadId, mark: Mark) -> Result<Message> {
    let me = actor.agent.clone().ok_or(MailError::NoMailbox)?;
    write(store, actor, |tx| {
        let path = refs::mail_path(id);
        let mut m: Message = tx
            .doc(&path)?
            .ok_or_else(|| MailError::NotFound(id.clone()))?;
        let Some(d) = m.delivery.get_mut(&me) else {
            return Err(MailError::NotSentTo {
                id: id.clone(),
                agent: me.clone(),
            }
            .into());
        };
        let at = now();
        let before = d.clone();
        if d.read_at.is_none() && matches!(mark, Mark::Read | Mark::Ack) {
            d.read_at = Some(at);
        }
        if mark == Mark::Ack && d.acked_at.is_none() {
            d.acked_at = Some(at);
        }
        if mark == Mark::Archive && d.archived_at.is_none() {
            d.archived_at = Some(at);
        }
        if *d == before {
            return Ok(m);
        }
        m.updated_at = at;
        m.updated_by = actor.id.clone();
        tx.put_doc(&path, &m)?;
        tx.set_message(format!(
            "mail {} {id}",
            match mark {
                Mark::Read => "read",
                Mark::Ack => "ack",
                Mark::Archive => "archive",
            }
        ));
        Ok(m)
    })
}

/// One line of an inbox.
#[derive(Clone, Debug)]
pub struct InboxEntry {
    /// The message, as the index knows it.
    pub summary: MailSummary,
    /// Whether the reader has read it.
    pub read: bool,
}

fn mailbox<'a>(index: &'a Index, agent: &str, all: bool) -> Vec<(&'a MailSummary, bool)> {
    let mut out: Vec<(&MailSummary, bool)> = index
        .mail()
        .iter()
        .filter_map(|m| m.marks(agent).map(|k| (m, k)))
        .filter(|(_, k)| all || !k.archived)
        .map(|(m, k)| (m, k.read))
        .collect();
    out.sort_by(|(a, ar), (b, br)| {
        (ar, a.priority, a.sent_us, &a.id).cmp(&(br, b.priority, b.sent_us, &b.id))
    });
    out
}

/// `agent`'s inbox from the index: unread first, then by priority, then oldest first;
/// archived messages only with `all`.
pub fn inbox(store: &Store, agent: &AgentName, all: bool) -> Result<Vec<InboxEntry>> {
    let head = store.require_head()?;
    let index = store.index_parts(&head, &[Part::Mail])?;
    Ok(mailbox(&index, agent.as_str(), all)
        .into_iter()
        .map(|(m, read)| InboxEntry {
            summary: m.clone(),
            read,
        })
        .collect())
}

/// An agent's unread mail, as `prime` shows it.
#[derive(Clone, Debug)]
pub struct Unread {
    /// How many messages it has not read.
    pub count: usize,
    /// The most urgent of them.
    pub top: Vec<MailSummary>,
    /// The messages of the store that do not parse (whoever they were for).
    pub broken: Vec<Broken>,
}

/// `agent`'s unread mail: how much, the most urgent `top` messages, and the messages
/// that do not parse.
pub fn unread(store: &Store, agent: &AgentName, top: usize) -> Result<Unread> {
    unread_but(store, agent, top, |_| false)
}

/// [`unread`], leaving out the messages `hide` picks.
pub(crate) fn unread_but(
    store: &Store,
    agent: &AgentName,
    top: usize,
    hide: impl Fn(&MailSummary) -> bool,
) -> Result<Unread> {
    let head = store.require_head()?;
    let index = store.index_parts(&head, &[Part::Mail])?;
    let unread: Vec<&MailSummary> = mailbox(&index, agent.as_str(), false)
        .into_iter()
        .filter(|(m, read)| !read && !hide(m))
        .map(|(m, _)| m)
        .collect();
    Ok(Unread {
        count: unread.len(),
        top: unread.into_iter().take(top).cloned().collect(),
        broken: index.broken().to_vec(),
    })
}

/// Every message of the thread `id` belongs to, oldest first.
pub fn thread(store: &Store, id: &BeadId) -> Result<Vec<Message>> {
    let root = peek(store, id)?.thread;
    let head = store.require_head()?;
    let index = store.index_parts(&head, &[Part::Mail])?;
    let view = store.view()?;
    let mut ids: Vec<(&MailSummary, BeadId)> = index
        .mail()
        .iter()
        .filter(|m| m.thread == root.as_str())
        .filter_map(|m| Some((m, BeadId::parse(&m.id).ok()?)))
        .collect();
    ids.sort_by_key(|(m, _)| (m.sent_us, m.id.clone()));
    ids.into_iter()
        .map(|(_, id)| {
            view.doc(&refs::mail_path(&id))?
                .ok_or_else(|| MailError::NotFound(id.clone()).into())
        })
        .collect()
}

/// Messages in `agent`'s mailbox (archived too) whose subject or body contains `text`.
pub fn search_mail(store: &Store, agent: &AgentName, text: &str) -> Result<Vec<Message>> {
    let needle = text.to_lowercase();
    let view = store.view()?;
    let mut out = Vec::new();
    for e in inbox(store, agent, true)? {
        let Ok(id) = BeadId::parse(&e.summary.id) else {
            continue;
        };
        if let Some(m) = view.doc::<Message>(&refs::mail_path(&id))?
            && (m.subject.to_lowercase().contains(&needle)
                || m.body.to_lowercase().contains(&needle))
        {
            out.push(m);
        }
    }
    Ok(out)
}
