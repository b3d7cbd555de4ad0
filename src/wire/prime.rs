//! The JSON of `prime` and of an agent's hook: types of their own, apart from what
//! [`crate::ops::prime`] returns, so either can change without the other.

use serde::Serialize;

use super::MoleculeState;
use crate::model::{
    Agent, Bead, BeadId, BudgetLeft, CrashNote, EndReason, Session, SkippedFile, Timestamp,
};
use crate::ops::{
    Broken, Fresh, FreshAfter, HandoffNote, HookItem, InboxEntry, LogEntry, MailSummary,
    PreviousSession, ResumedFrom,
};

/// One bead on a hook, with its molecule's progress when it is one.
#[derive(Serialize)]
pub struct HookEntry<'a> {
    /// The bead, in the fields of its document.
    pub bead: &'a Bead,
    /// Its progress, when it is a molecule (left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<MoleculeState<'a>>,
}

impl<'a> From<&'a HookItem> for HookEntry<'a> {
    fn from(item: &'a HookItem) -> Self {
        HookEntry {
            bead: &item.bead,
            progress: item.progress.as_ref().map(MoleculeState::from),
        }
    }
}

/// Each bead on a hook, in order.
pub fn hook_entries(items: &[HookItem]) -> Vec<HookEntry<'_>> {
    items.iter().map(HookEntry::from).collect()
}

/// How the previous session ended.
#[derive(Serialize)]
pub struct Previous<'a> {
    /// Its id.
    pub id: &'a BeadId,
    /// How it ended (`null` while it is still marked running).
    pub end: Option<&'a EndReason>,
    /// When it ended.
    pub ended_at: Option<Timestamp>,
    /// Its model.
    pub model: Option<&'a str>,
    /// Where it stood when it crashed.
    pub crash: Option<&'a CrashNote>,
}

impl<'a> From<&'a PreviousSession> for Previous<'a> {
    fn from(p: &'a PreviousSession) -> Self {
        Previous {
            id: &p.id,
            end: p.end.as_ref(),
            ended_at: p.ended_at,
            model: p.model.as_deref(),
            crash: p.crash.as_ref(),
        }
    }
}

/// The note a handoff left.
#[derive(Serialize)]
pub struct Handoff<'a> {
    /// The session that left it.
    pub from: &'a BeadId,
    /// When.
    pub at: Option<Timestamp>,
    /// What it says.
    pub note: &'a str,
}

impl<'a> From<&'a HandoffNote> for Handoff<'a> {
    fn from(h: &'a HandoffNote) -> Self {
        Handoff {
            from: &h.from,
            at: h.at,
            note: &h.note,
        }
    }
}

/// The session a resumed one came from.
#[derive(Serialize)]
pub struct ResumedSession<'a> {
    /// The session resumed.
    pub session: &'a BeadId,
    /// When the snapshot put back was taken, if there was one.
    pub snapshot_at: Option<Timestamp>,
    /// Files that snapshot left out for being too large.
    pub skipped: &'a [SkippedFile],
    /// What the resumed session changed in the beads after that snapshot, oldest
    /// first.
    pub after_snapshot: Vec<LaterChange<'a>>,
}

impl<'a> From<&'a ResumedFrom> for ResumedSession<'a> {
    fn from(r: &'a ResumedFrom) -> Self {
        ResumedSession {
            session: &r.session,
            snapshot_at: r.snapshot_at,
            skipped: &r.skipped,
            after_snapshot: r.after_snapshot.iter().map(LaterChange::from).collect(),
        }
    }
}

/// One store commit a resumed session made after its snapshot.
#[derive(Serialize)]
pub struct LaterChange<'a> {
    /// The store commit.
    pub commit: &'a str,
    /// When.
    pub time: Timestamp,
    /// The first line of its message (what it did: `close bd-a1: …`).
    pub subject: &'a str,
}

impl<'a> From<&'a LogEntry> for LaterChange<'a> {
    fn from(e: &'a LogEntry) -> Self {
        LaterChange {
            commit: &e.commit,
            time: e.time,
            subject: e.message.lines().next().unwrap_or_default(),
        }
    }
}

/// One unread message, in short.
#[derive(Serialize)]
pub struct MailLine<'a> {
    /// The message id.
    pub id: &'a str,
    /// The sender.
    pub from: &'a str,
    /// The subject.
    pub subject: &'a str,
    /// The priority.
    pub priority: u8,
    /// The thread it belongs to.
    pub thread: &'a str,
    /// When it was sent, microseconds since the epoch.
    pub sent_us: i64,
    /// Each recipient and its marks, sorted by recipient.
    pub delivery: Vec<MailMarks<'a>>,
}

impl<'a> From<&'a MailSummary> for MailLine<'a> {
    fn from(m: &'a MailSummary) -> Self {
        MailLine {
            id: &m.id,
            from: &m.from,
            subject: &m.subject,
            priority: m.priority,
            thread: &m.thread,
            sent_us: m.sent_us,
            delivery: m
                .delivery
                .iter()
                .map(|d| MailMarks {
                    agent: &d.agent,
                    read: d.read,
                    acked: d.acked,
                    archived: d.archived,
                })
                .collect(),
        }
    }
}

/// One line of an inbox: the message in short, and whether the reader read it.
#[derive(Serialize)]
pub struct InboxLine<'a> {
    /// The message.
    #[serde(flatten)]
    pub message: MailLine<'a>,
    /// Whether the reader has read it.
    pub read: bool,
}

impl<'a> From<&'a InboxEntry> for InboxLine<'a> {
    fn from(e: &'a InboxEntry) -> Self {
        InboxLine {
            message: MailLine::from(&e.summary),
            read: e.read,
        }
    }
}

/// One recipient's marks on a message.
#[derive(Serialize)]
pub struct MailMarks<'a> {
    /// The recipient.
    pub agent: &'a str,
    /// Whether it read it.
    pub read: bool,
    /// Whether it acknowledged it.
    pub acked: bool,
    /// Whether it archived it.
    pub archived: bool,
}

/// A document read around because it does not parse.
#[derive(Serialize)]
pub struct Unreadable<'a> {
    /// Its path in the store's tree.
    pub path: &'a str,
    /// Why it does not parse.
    pub error: &'a str,
}

/// Each document of `broken`, as the JSON names it.
pub fn unreadable(broken: &[Broken]) -> Vec<Unreadable<'_>> {
    broken
        .iter()
        .map(|b| Unreadable {
            path: &b.path,
            error: &b.error,
        })
        .collect()
}

/// What a fresh session needs, as `prime` prints it.
#[derive(Serialize)]
pub struct PrimeReport<'a> {
    /// The agent acting here, in the fields of its document.
    pub agent: Option<&'a Agent>,
    /// Its running session, in the fields of its document.
    pub session: Option<&'a Session>,
    /// The handoff note from the previous session.
    pub handoff: Option<Handoff<'a>>,
    /// How the previous session ended.
    pub previous: Option<Previous<'a>>,
    /// The work on the hook.
    pub hook: Vec<HookEntry<'a>>,
    /// What is left of the session's budget.
    pub budget_left: Option<&'a BudgetLeft>,
    /// The session the running one resumes.
    pub resumed: Option<ResumedSession<'a>>,
    /// How many messages the agent has not read.
    pub unread_mail: usize,
    /// The most urgent unread messages.
    pub mail: Vec<MailLine<'a>>,
    /// The store's commit this was read from.
    pub store_commit: &'a str,
    /// How many store commits the running session and the sessions it resumes made.
    pub evidence: Option<usize>,
    /// Ready work, when no agent is acting.
    pub ready: &'a [String],
    /// The documents read around because they do not parse.
    pub broken: Vec<Unreadable<'a>>,
    /// The last turn, when it cost more than `beads.freshAfter`.
    pub fresh: Option<FreshTurn>,
}

/// A turn that cost more than `beads.freshAfter`: the signal to start a fresh session.
#[derive(Serialize)]
pub struct FreshTurn {
    /// Its tokens.
    pub tokens: u64,
    /// Its spend, in dollars.
    pub spend: f64,
    /// The ceiling in tokens, when `beads.freshAfter` counts tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_tokens: Option<u64>,
    /// The ceiling in dollars, when `beads.freshAfter` counts spend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_spend: Option<f64>,
}

impl From<&Fresh> for FreshTurn {
    fn from(f: &Fresh) -> Self {
        let (after_tokens, after_spend) = match f.after {
            FreshAfter::Tokens(t) => (Some(t), None),
            FreshAfter::Spend(d) => (None, Some(d)),
        };
        FreshTurn {
            tokens: f.line.tokens,
            spend: f.line.spend,
            after_tokens,
            after_spend,
        }
    }
}

impl<'a> From<&'a crate::ops::Prime> for PrimeReport<'a> {
    fn from(p: &'a crate::ops::Prime) -> Self {
        PrimeReport {
            agent: p.agent.as_ref(),
            session: p.session.as_ref(),
            handoff: p.handoff.as_ref().map(Handoff::from),
            previous: p.previous.as_ref().map(Previous::from),
            hook: hook_entries(&p.hook),
            budget_left: p.budget_left.as_ref(),
            resumed: p.resumed.as_ref().map(ResumedSession::from),
            unread_mail: p.unread_mail,
            mail: p.mail.iter().map(MailLine::from).collect(),
            store_commit: &p.store_commit,
            evidence: p.evidence,
            ready: &p.ready,
            broken: unreadable(&p.broken),
            fresh: p.fresh.as_ref().map(FreshTurn::from),
        }
    }
}
