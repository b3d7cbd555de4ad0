//! The documents about the workforce: agents and their hooks, sessions and prime,
//! mail, formulas and molecules.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::agent::{AGENT_FIELDS, MESSAGE_FIELDS, agent, agents, message, messages};
use super::bead::{bead, beads};
use super::prime::{HookEntry, InboxLine, PrimeReport};
use super::session::{SESSION_FIELDS, session, sessions};
use super::{Doc, Documented, Field, Shape};
use crate::model::Status;
use crate::model::{Agent, AgentName, Bead, BeadId, Formula, Message, Problem, Session, Snapshot};
use crate::ops::{FoundFormula, Origin, Progress, StepState};

/// One agent, its fields beside `schema_version`: `agent create|show|update|retire|bind`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct OneAgent<'a> {
    /// The agent.
    #[serde(serialize_with = "agent")]
    pub agent: &'a Agent,
}

impl Documented for OneAgent<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "agent create, show, update, retire, bind",
        fields: AGENT_FIELDS,
    };
}

/// Every agent, a bare array: `agent list`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Agents<'a> {
    /// The agents.
    #[serde(serialize_with = "agents")]
    pub agents: &'a [Agent],
}

impl Documented for Agents<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf("agents, each as agent show prints it"),
        commands: "agent list",
        fields: &[],
    };
}

/// What `sling` put on a hook.
#[derive(Serialize)]
pub struct Slung<'a> {
    /// The bead, as it is now.
    #[serde(serialize_with = "bead")]
    pub bead: &'a Bead,
    /// The agent whose hook it is on.
    pub agent: &'a AgentName,
}

impl Documented for Slung<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "sling",
        fields: &[Field::new("bead"), Field::new("agent")],
    };
}

/// What `unsling` took off a hook.
#[derive(Serialize)]
pub struct Unslung<'a> {
    /// The agent.
    pub agent: &'a AgentName,
    /// The beads taken off.
    pub removed: &'a [BeadId],
}

impl Documented for Unslung<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "unsling",
        fields: &[Field::new("agent"), Field::new("removed")],
    };
}

/// The work on an agent's hook: `hook AGENT`.
#[derive(Serialize)]
pub struct Hook<'a> {
    /// The agent.
    pub agent: &'a AgentName,
    /// Each bead on the hook, with its molecule's progress when it is one.
    pub hook: Vec<HookEntry<'a>>,
}

impl Documented for Hook<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "hook AGENT",
        fields: &[
            Field::new("agent"),
            Field::noted("hook", ": [{bead, progress}]"),
        ],
    };
}

/// One session, its fields beside `schema_version`: `session
/// show|end|heartbeat|model|usage`, `handoff`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct OneSession<'a> {
    /// The session.
    #[serde(serialize_with = "session")]
    pub session: &'a Session,
}

impl Documented for OneSession<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "session show, end, heartbeat, model, usage, handoff",
        fields: SESSION_FIELDS,
    };
}

/// Sessions, a bare array: `session list`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Sessions<'a> {
    /// The sessions.
    #[serde(serialize_with = "sessions")]
    pub sessions: &'a [Session],
}

impl Documented for Sessions<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf("sessions, each as session show prints it"),
        commands: "session list",
        fields: &[],
    };
}

/// What `session snapshot` took.
#[derive(Serialize)]
pub struct Snapped<'a> {
    /// The session.
    #[serde(serialize_with = "session")]
    pub session: &'a Session,
    /// The snapshot, `null` when nothing changed.
    pub snapshot: Option<&'a Snapshot>,
}

impl Documented for Snapped<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "session snapshot",
        fields: &[
            Field::new("session"),
            Field::noted("snapshot", "(null when nothing changed)"),
        ],
    };
}

/// Where `session resume` resumed a session.
#[derive(Serialize)]
pub struct Resumed<'a> {
    /// The new session.
    #[serde(serialize_with = "session")]
    pub session: &'a Session,
    /// The session it resumes.
    pub from: &'a BeadId,
    /// The snapshot whose files were put back, if there was one.
    pub snapshot: Option<&'a Snapshot>,
    /// The worktree it runs in.
    pub worktree: &'a Path,
}

impl<'a> From<&'a crate::ops::Resumed> for Resumed<'a> {
    fn from(r: &'a crate::ops::Resumed) -> Self {
        Resumed {
            session: &r.session,
            from: &r.from,
            snapshot: r.snapshot.as_ref(),
            worktree: &r.worktree,
        }
    }
}

impl Documented for Resumed<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "session resume",
        fields: &[
            Field::new("session"),
            Field::new("from"),
            Field::new("snapshot"),
            Field::new("worktree"),
        ],
    };
}

/// What a fresh session needs, its fields beside `schema_version`: `prime`,
/// `session start`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Primed<'a> {
    /// Who it is, its hook, how the last session ended, its mail.
    pub prime: PrimeReport<'a>,
}

impl Documented for Primed<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "prime, session start",
        fields: &[
            Field::noted("agent", "as agent show prints it, null when no agent acts"),
            Field::noted(
                "session",
                "as session show prints it, null outside a session",
            ),
            Field::noted(
                "resumed",
                ": {session, snapshot_at, skipped, after_snapshot: [{commit, time, subject}]}, \
                 after_snapshot being what the resumed session changed in the beads after \
                 its snapshot",
            ),
            Field::new("handoff"),
            Field::new("previous"),
            Field::noted("hook", ": [{bead, progress}]"),
            Field::new("budget_left"),
            Field::new("unread_mail"),
            Field::new("mail"),
            Field::new("store_commit"),
            Field::noted(
                "evidence",
                "the store commits of the running session and the sessions it resumes",
            ),
            Field::noted("ready", "ready work, when no agent acts"),
            Field::noted(
                "broken",
                ": [{path, error}], the documents read around because they do not parse",
            ),
            Field::noted(
                "fresh",
                ": {tokens, spend, after_tokens | after_spend}, when the last turn cost more \
                 than beads.freshAfter",
            ),
        ],
    };
}

/// One message, its fields beside `schema_version`:
/// `mail send|reply|read|peek|ack|archive`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct OneMessage<'a> {
    /// The message.
    #[serde(serialize_with = "message")]
    pub message: &'a Message,
}

impl Documented for OneMessage<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mail send, reply, read, peek, ack, archive",
        fields: MESSAGE_FIELDS,
    };
}

/// An agent's inbox: `mail inbox`.
#[derive(Serialize)]
pub struct Inbox<'a> {
    /// The agent.
    pub agent: &'a AgentName,
    /// How many messages it has not read.
    pub unread: usize,
    /// The messages.
    pub messages: Vec<InboxLine<'a>>,
}

impl Documented for Inbox<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mail inbox",
        fields: &[
            Field::new("agent"),
            Field::new("unread"),
            Field::new("messages"),
        ],
    };
}

/// Messages, a bare array: `mail thread`, `mail search`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Messages<'a> {
    /// The messages.
    #[serde(serialize_with = "messages")]
    pub messages: &'a [Message],
}

impl Documented for Messages<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf("messages, each as mail read prints it"),
        commands: "mail thread, mail search",
        fields: &[],
    };
}

/// A formula as `formula list` describes it.
#[derive(Serialize)]
pub struct FormulaEntry<'a> {
    name: &'a str,
    version: u32,
    description: &'a str,
    file: &'a str,
    origin: Origin,
    steps: usize,
    variables: Vec<&'a str>,
    valid: bool,
    problems: &'a [Problem],
}

impl<'a> From<&'a FoundFormula> for FormulaEntry<'a> {
    fn from(f: &'a FoundFormula) -> Self {
        FormulaEntry {
            name: &f.formula.name,
            version: f.formula.version,
            description: &f.formula.description,
            file: &f.file,
            origin: f.origin,
            steps: f.formula.steps.len(),
            variables: f.formula.variables.keys().map(String::as_str).collect(),
            valid: f.problems.is_empty(),
            problems: &f.problems,
        }
    }
}

/// What `formula list` found.
#[derive(Serialize)]
pub struct Formulas<'a> {
    /// The formulas in use, by name.
    pub formulas: Vec<FormulaEntry<'a>>,
    /// Formulas hidden by one of the same name found first.
    pub shadowed: Vec<FormulaEntry<'a>>,
    /// Files that could not be read as formulas.
    pub unreadable: &'a [Problem],
    /// The directories searched, in order.
    pub searched: &'a [String],
}

impl Documented for Formulas<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "formula list",
        fields: &[
            Field::new("formulas"),
            Field::new("shadowed"),
            Field::new("unreadable"),
            Field::new("searched"),
        ],
    };
}

/// A formula found and cooked: `mol seed` (bd's `{"status": "ok", "formula": …}`).
#[derive(Serialize)]
pub struct FormulaSeeded<'a> {
    /// Always `ok` (a formula that is not accessible is an error).
    pub status: &'static str,
    /// The formula, as given.
    pub formula: &'a str,
}

impl Documented for FormulaSeeded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol seed",
        fields: &[Field::new("status"), Field::new("formula")],
    };
}

/// One formula: `formula show`.
#[derive(Serialize)]
pub struct FormulaShown<'a> {
    /// The formula.
    pub formula: &'a Formula,
    /// The file it was read from.
    pub file: &'a str,
    /// Where that file is.
    pub origin: Origin,
    /// Whether it has no problems.
    pub valid: bool,
    /// Its problems.
    pub problems: &'a [Problem],
}

impl Documented for FormulaShown<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "formula show",
        fields: &[
            Field::new("formula"),
            Field::new("file"),
            Field::new("origin"),
            Field::new("valid"),
            Field::new("problems"),
        ],
    };
}

/// What `formula validate` checked.
#[derive(Serialize)]
pub struct FormulaChecked<'a> {
    /// Whether every file checked is a valid formula.
    pub valid: bool,
    /// The files checked.
    pub checked: &'a [String],
    /// The problems found.
    pub problems: &'a [Problem],
}

impl Documented for FormulaChecked<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "formula validate",
        fields: &[
            Field::new("valid"),
            Field::new("checked"),
            Field::new("problems"),
        ],
    };
}

/// How far a molecule has come: the `progress` of `mol progress`, `mol current`
/// and a hook entry, and each item of `mol list`.
#[derive(Serialize)]
pub struct MoleculeState<'a> {
    /// The molecule bead.
    pub molecule: &'a BeadId,
    /// Its title.
    pub title: &'a str,
    /// Its status.
    pub status: Status,
    /// Whether it is a wisp (left out when it is not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wisp: bool,
    /// Steps done.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// The number (1-based) of the first unfinished step; `null` when all are done.
    pub at_step: Option<usize>,
    /// The steps that can be worked now.
    pub current: &'a [BeadId],
    /// Every step, in order.
    pub steps: Vec<StepLine<'a>>,
    /// The steps of its formula not poured as beads (left out when there are none).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub checklist: &'a [crate::ops::ChecklistItem],
}

impl<'a> From<&'a Progress> for MoleculeState<'a> {
    fn from(p: &'a Progress) -> Self {
        MoleculeState {
            molecule: &p.molecule,
            title: &p.title,
            status: p.status,
            wisp: p.wisp,
            done: p.done,
            total: p.total,
            at_step: p.at_step,
            current: &p.current,
            steps: p.steps.iter().map(StepLine::from).collect(),
            checklist: &p.checklist,
        }
    }
}

/// One step of a molecule and where it stands.
#[derive(Serialize)]
pub struct StepLine<'a> {
    /// The step bead.
    pub id: &'a BeadId,
    /// Its title.
    pub title: &'a str,
    /// Its status.
    pub status: Status,
    /// Whether it can be worked now.
    pub ready: bool,
    /// The step's id in its formula (left out when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<&'a str>,
    /// What to do, for a step that is ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// How to tell it is done, for a step that is ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<&'a str>,
}

impl<'a> From<&'a StepState> for StepLine<'a> {
    fn from(s: &'a StepState) -> Self {
        StepLine {
            id: &s.id,
            title: &s.title,
            status: s.status,
            ready: s.ready,
            step: s.step.as_deref(),
            description: s.description.as_deref(),
            acceptance: s.acceptance.as_deref(),
        }
    }
}

/// Where a molecule stands, its fields beside `schema_version`: `mol progress`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct MoleculeProgress<'a> {
    /// Its progress.
    pub progress: MoleculeState<'a>,
}

impl Documented for MoleculeProgress<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol progress",
        fields: &[
            Field::new("molecule"),
            Field::new("title"),
            Field::new("status"),
            Field::optional_noted("wisp", "true for a wisp, else left out"),
            Field::new("done"),
            Field::new("total"),
            Field::noted("at_step", "1-based, null when all are done"),
            Field::new("current"),
            Field::noted(
                "steps",
                ": [{id, title, status, ready, step, description, acceptance}]",
            ),
        ],
    };
}

/// Where a molecule stands, as bd's `mol current --json` prints each of its bare
/// array (bd's `MoleculeProgress`), with git-beads' `position` beside.
#[derive(Serialize)]
pub struct MolCurrent<'a> {
    /// The molecule bead.
    pub molecule_id: &'a BeadId,
    /// Its title.
    pub molecule_title: &'a str,
    /// Who the molecule is assigned to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignee: Option<&'a str>,
    /// The step in progress (the first one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_step: Option<super::Bead<'a>>,
    /// The first ready step not yet in progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_step: Option<super::Bead<'a>>,
    /// Every step, in step order.
    pub steps: Vec<StepStatus<'a>>,
    /// Steps done.
    pub completed: usize,
    /// Steps in all.
    pub total: usize,
    /// Where it stands, in words.
    pub position: &'a str,
}

/// One step of [`MolCurrent`]: the bead and bd's word for where it stands.
#[derive(Serialize)]
pub struct StepStatus<'a> {
    /// The step bead.
    pub issue: super::Bead<'a>,
    /// `done`, `current` (in progress), `ready`, `blocked` or `pending`.
    pub status: &'static str,
    /// Whether it is in progress.
    pub is_current: bool,
}

impl<'a> From<&'a crate::ops::Current> for MolCurrent<'a> {
    fn from(c: &'a crate::ops::Current) -> Self {
        let steps: Vec<StepStatus<'a>> = (c.all_steps.iter())
            .zip(&c.progress.steps)
            .map(|(b, s)| StepStatus {
                issue: super::Bead::plain(b),
                status: match s.status {
                    st if st.is_done() => "done",
                    Status::InProgress => "current",
                    Status::Blocked => "blocked",
                    _ if s.ready => "ready",
                    _ => "pending",
                },
                is_current: s.status == Status::InProgress,
            })
            .collect();
        let first = |word: &str| {
            let at = steps.iter().position(|s| s.status == word)?;
            Some(super::Bead::plain(&c.all_steps[at]))
        };
        MolCurrent {
            molecule_id: &c.molecule.id,
            molecule_title: &c.molecule.title,
            assignee: c.molecule.assignee.as_deref(),
            current_step: first("current"),
            next_step: first("ready"),
            steps,
            completed: c.progress.done,
            total: c.progress.total,
            position: &c.position,
        }
    }
}

/// bd's `mol current --json`: a bare array of [`MolCurrent`] (one molecule here).
#[derive(Serialize)]
#[serde(transparent)]
pub struct MolCurrents<'a>(pub Vec<MolCurrent<'a>>);

impl Documented for MolCurrents<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "mol current",
        fields: &[
            Field::new("molecule_id"),
            Field::new("molecule_title"),
            Field::optional("assignee"),
            Field::optional_noted("current_step", ": the step in progress, as show prints it"),
            Field::optional_noted("next_step", ": the first ready step, as show prints it"),
            Field::noted("steps", ": [{issue, status, is_current}]"),
            Field::new("completed"),
            Field::new("total"),
            Field::noted("position", ": where it stands, in words (git-beads)"),
        ],
    };
}

/// Every molecule, a bare array: `mol list`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Molecules<'a> {
    /// Each molecule's progress.
    pub molecules: Vec<MoleculeState<'a>>,
}

impl Documented for Molecules<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf("molecules' progress, each as mol progress prints it"),
        commands: "mol list",
        fields: &[],
    };
}

/// What `mol pour` (or `mol wisp`) made.
#[derive(Serialize)]
pub struct Poured<'a> {
    /// The molecule bead.
    #[serde(serialize_with = "bead")]
    pub molecule: &'a Bead,
    /// The step beads, in step order.
    #[serde(serialize_with = "beads")]
    pub steps: &'a [Bead],
    /// The store ref it was written to.
    #[serde(rename = "ref")]
    pub store_ref: &'a str,
    /// The molecules poured with it and bonded to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<Poured<'a>>,
    /// Step ids its formula's overlay names that the formula does not have.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub stale_overrides: &'a [String],
}

impl<'a> From<&'a crate::ops::Poured> for Poured<'a> {
    fn from(p: &'a crate::ops::Poured) -> Self {
        Poured {
            molecule: &p.molecule,
            steps: &p.steps,
            store_ref: p.store_ref.as_str(),
            attached: p.attached.iter().map(Poured::from).collect(),
            stale_overrides: &p.stale_overrides,
        }
    }
}

impl Documented for Poured<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol pour, mol wisp",
        fields: &[
            Field::new("molecule"),
            Field::noted("steps", "none when its steps stay in its checklist"),
            Field::new("ref"),
            Field::optional_noted(
                "attached",
                "the molecules poured with it (--attach), each of this shape, when any",
            ),
            Field::optional_noted(
                "stale_overrides",
                "step ids its overlay names that are not its steps, when any",
            ),
        ],
    };
}

/// What `mol bond` did (bd's bond result).
#[derive(Serialize)]
pub struct Bonded<'a> {
    /// The molecule the bond is part of.
    pub result_id: &'a str,
    /// Always `compound_molecule`.
    pub result_type: &'static str,
    /// `sequential`, `parallel` or `conditional`.
    pub bond_type: &'static str,
    /// The bead that took the dependency (the molecule poured, or the second bead).
    pub bonded: &'a str,
    /// How many beads were poured.
    pub spawned: usize,
    /// The molecule poured, when a formula was bonded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poured: Option<Poured<'a>>,
    /// The store ref written.
    #[serde(rename = "ref")]
    pub store_ref: &'a str,
}

impl<'a> From<&'a crate::ops::Bonded> for Bonded<'a> {
    fn from(b: &'a crate::ops::Bonded) -> Self {
        Bonded {
            result_id: b.result.as_str(),
            result_type: "compound_molecule",
            bond_type: b.kind.as_str(),
            bonded: b.bonded.as_str(),
            spawned: b.poured.as_ref().map_or(0, |p| p.steps.len() + 1),
            poured: b.poured.as_ref().map(Poured::from),
            store_ref: b.store_ref.as_str(),
        }
    }
}

impl Documented for Bonded<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol bond",
        fields: &[
            Field::noted("result_id", "the molecule bonded onto"),
            Field::noted("result_type", "compound_molecule"),
            Field::noted("bond_type", "sequential or parallel"),
            Field::noted("bonded", "the bead that took the dependency"),
            Field::noted("spawned", "how many beads were poured"),
            Field::optional_noted("poured", "the molecule poured, as mol pour prints it"),
            Field::new("ref"),
        ],
    };
}

/// What `mol squash` made.
#[derive(Serialize)]
pub struct Squashed<'a> {
    /// The one-bead summary.
    #[serde(serialize_with = "bead")]
    pub summary: &'a Bead,
    /// The molecule (or wisp) squashed.
    pub from: &'a BeadId,
    /// Whether it was a wisp.
    pub wisp: bool,
    /// How many steps it had.
    pub steps: usize,
}

impl<'a> From<&'a crate::ops::Squashed> for Squashed<'a> {
    fn from(s: &'a crate::ops::Squashed) -> Self {
        Squashed {
            summary: &s.summary,
            from: &s.from,
            wisp: s.wisp,
            steps: s.steps,
        }
    }
}

impl Documented for Squashed<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol squash",
        fields: &[
            Field::new("summary"),
            Field::new("from"),
            Field::new("wisp"),
            Field::new("steps"),
        ],
    };
}

/// What `mol burn` discarded.
#[derive(Serialize)]
pub struct Burned<'a> {
    /// The wisp.
    pub molecule: &'a BeadId,
    /// Its title.
    pub title: &'a str,
    /// How many steps went with it.
    pub steps: usize,
}

impl<'a> From<&'a crate::ops::Burned> for Burned<'a> {
    fn from(b: &'a crate::ops::Burned) -> Self {
        Burned {
            molecule: &b.molecule,
            title: &b.title,
            steps: b.steps,
        }
    }
}

impl Documented for Burned<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol burn",
        fields: &[
            Field::new("molecule"),
            Field::new("title"),
            Field::new("steps"),
        ],
    };
}

/// What `mol wisp list` prints: bd's wisps, their count, and how many are old (not
/// changed for a day).
#[derive(Serialize)]
pub struct WispList<'a> {
    /// The wisps.
    pub wisps: Vec<WispItem<'a>>,
    /// How many.
    pub count: usize,
    /// How many are old.
    #[serde(skip_serializing_if = "is_zero")]
    pub old_count: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One wisp of [`WispList`], with bd's fields.
#[derive(Serialize)]
pub struct WispItem<'a> {
    id: &'a BeadId,
    title: &'a str,
    status: Status,
    priority: u8,
    #[serde(rename = "type")]
    kind: crate::model::BeadType,
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    labels: &'a std::collections::BTreeSet<String>,
    created_at: &'a crate::model::Timestamp,
    updated_at: &'a crate::model::Timestamp,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    old: bool,
}

impl<'a> WispList<'a> {
    /// The list of `wisps`; those not changed since a day before `now` are old.
    pub fn new(wisps: &'a [Bead], now: crate::model::Timestamp) -> Self {
        let day = chrono::Duration::hours(24);
        let wisps: Vec<WispItem<'a>> = wisps
            .iter()
            .map(|b| WispItem {
                id: &b.id,
                title: &b.title,
                status: b.status,
                priority: b.priority,
                kind: b.kind,
                labels: &b.labels,
                created_at: &b.created_at,
                updated_at: &b.updated_at,
                old: now - b.updated_at > day,
            })
            .collect();
        WispList {
            count: wisps.len(),
            old_count: wisps.iter().filter(|w| w.old).count(),
            wisps,
        }
    }
}

impl Documented for WispList<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol wisp list",
        fields: &[
            Field::noted(
                "wisps",
                ": [{id, title, status, priority, type, labels, created_at, updated_at, old}]",
            ),
            Field::new("count"),
            Field::optional("old_count"),
        ],
    };
}

/// What a deletion of closed beads prints, in bd's words (`purge`, `prune`): how many
/// went (`purged_count`, `pruned_count`), or, in a dry run, would (`purge_count`,
/// `prune_count`), with the dependencies, labels and comments (bd's events) that go
/// with them; only the count and bd's sentence when there were none.
#[derive(Serialize)]
pub struct SweptCounts {
    /// A dry run.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// The count, under the command's own key.
    #[serde(flatten)]
    pub count: BTreeMap<&'static str, usize>,
    /// Their dependencies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<usize>,
    /// Their labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<usize>,
    /// Their comments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<usize>,
    /// Pinned beads left alone.
    #[serde(skip_serializing_if = "is_zero")]
    pub pinned_skipped: usize,
    /// When there was nothing to delete: bd's sentence saying so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'static str>,
}

/// The keys and the sentence of one command's [`SweptCounts`]: the count's key when
/// done, its key in a dry run, and the sentence when there was nothing.
pub type SweptWords = (&'static str, &'static str, &'static str);

impl SweptCounts {
    /// The answer for `swept`, done or (`dry_run`) previewed, in `words`.
    pub fn new(swept: &crate::ops::Swept, dry_run: bool, words: SweptWords) -> SweptCounts {
        let (done, dry, nothing) = words;
        let n = swept.beads.len();
        let pinned_skipped = swept.pinned_skipped;
        if n == 0 {
            return SweptCounts {
                dry_run: false,
                count: BTreeMap::from([(done, 0)]),
                dependencies: None,
                labels: None,
                events: None,
                pinned_skipped,
                message: Some(nothing),
            };
        }
        SweptCounts {
            dry_run,
            count: BTreeMap::from([(if dry_run { dry } else { done }, n)]),
            dependencies: Some(swept.dependencies),
            labels: Some(swept.labels),
            events: Some(swept.events),
            pinned_skipped,
            message: None,
        }
    }
}

/// What `purge` prints (see [`SweptCounts`]).
#[derive(Serialize)]
#[serde(transparent)]
pub struct Purged(pub SweptCounts);

impl Purged {
    /// bd's sentence when there is nothing to purge.
    pub const NOTHING: &'static str = "No closed ephemeral beads to purge";

    /// The answer for `swept`, done or (`dry_run`) previewed.
    pub fn new(swept: &crate::ops::Swept, dry_run: bool) -> Purged {
        let words = ("purged_count", "purge_count", Self::NOTHING);
        Purged(SweptCounts::new(swept, dry_run, words))
    }
}

impl Documented for Purged {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "purge",
        fields: &[
            Field::optional("dry_run"),
            Field::optional("purged_count"),
            Field::optional("purge_count"),
            Field::optional("dependencies"),
            Field::optional("labels"),
            Field::optional("events"),
            Field::optional("pinned_skipped"),
            Field::optional("message"),
        ],
    };
}

/// What `mol wisp gc` prints (bd's `WispGCResult`): the wisps cleaned, or, in a dry
/// run, the candidates.
#[derive(Serialize)]
pub struct WispsCleaned<'a> {
    /// Their ids.
    pub cleaned_ids: Vec<&'a BeadId>,
    /// How many were cleaned (none in a dry run).
    pub cleaned_count: usize,
    /// How many would be (in a dry run).
    #[serde(skip_serializing_if = "is_zero")]
    pub candidates: usize,
    /// A dry run.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

impl<'a> WispsCleaned<'a> {
    /// The answer for `swept`, done or (`dry_run`) previewed.
    pub fn new(swept: &'a crate::ops::Swept, dry_run: bool) -> Self {
        let n = swept.beads.len();
        WispsCleaned {
            cleaned_ids: swept.beads.iter().map(|b| &b.id).collect(),
            cleaned_count: if dry_run { 0 } else { n },
            candidates: if dry_run { n } else { 0 },
            dry_run,
        }
    }
}

impl Documented for WispsCleaned<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "mol wisp gc",
        fields: &[
            Field::new("cleaned_ids"),
            Field::new("cleaned_count"),
            Field::optional("candidates"),
            Field::optional("dry_run"),
        ],
    };
}
