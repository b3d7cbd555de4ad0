//! The MCP server's tools: one table, from which both the argument schemas that
//! `tools/list` shows and the checks that `tools/call` makes are derived. Each tool
//! makes the `ops` calls its command makes and answers with the document that
//! command prints under `--json` (the same wire types).

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Ctx, PrimeFailed};
use crate::model::{BeadId, DepKind, Status, parse_dep, parse_type};
use crate::ops::{self, Changes, ErrorKind, MailError, OpError, SessionError};
use crate::wire;

/// Why a tool failed, with the kind an agent acts on.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The operation failed.
    #[error(transparent)]
    Op(#[from] OpError),
    /// An argument has the right JSON type but a value the tool refuses.
    #[error("{0}")]
    Invalid(String),
    /// The answer could not be put into JSON.
    #[error("the answer could not be encoded: {0}")]
    Encode(#[from] serde_json::Error),
    /// The renderer of the prime text failed (the prime resource is `prime`'s text).
    #[error("{}", .0.message)]
    Prime(PrimeFailed),
    /// The tool panicked (a bug); the server goes on.
    #[error("the tool failed unexpectedly (a bug in git-beads); nothing more is known")]
    Panicked,
}

impl ToolError {
    /// What kind of failure: `not_found`, `conflict` (a claim held by someone else),
    /// `denied` (a capability the actor lacks), `budget` (a session over budget),
    /// `invalid` (input refused), `store` (the store could not be read or written) or
    /// `internal`.
    pub fn kind(&self) -> &'static str {
        let op = match self {
            ToolError::Op(e) => e,
            ToolError::Invalid(_) => return "invalid",
            ToolError::Prime(e) => return e.kind,
            ToolError::Encode(_) | ToolError::Panicked => return "internal",
        };
        match op.kind() {
            _ if matches!(
                op,
                OpError::Session(
                    SessionError::OverBudget { .. } | SessionError::BudgetSpent { .. }
                )
            ) =>
            {
                "budget"
            }
            ErrorKind::NotFound => "not_found",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Denied => "denied",
            ErrorKind::Store => "store",
            ErrorKind::Refused => "refused",
        }
    }
}

/// What a tool answers: its [`Answer`], or why it failed.
type Outcome = Result<Answer, ToolError>;

/// A tool's answer: the document its command prints under `--json`, as JSON text
/// (written once, straight from the wire type, and put into the result as it is), and
/// the same text escaped for the result's text block.
pub struct Answer {
    /// The document.
    pub doc: Box<str>,
    /// The document escaped as the body of a JSON string (no quotes around it).
    pub text: Vec<u8>,
}

impl Answer {
    /// The answer with document `doc`, escaped here.
    pub fn of(doc: Box<str>) -> Answer {
        let mut text = Vec::with_capacity(doc.len() + doc.len() / 4);
        wire::json_string_body(&mut text, &doc);
        Answer { doc, text }
    }
}

/// The JSON type of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    /// A string.
    Text,
    /// An array of strings.
    Texts,
    /// A whole number, 0 or more.
    Count,
    /// A priority, 0 (critical) … 4 (backlog).
    Priority,
    /// A number, 0 or more.
    Amount,
    /// true or false.
    Flag,
}

/// One argument of a tool.
struct Param {
    name: &'static str,
    ty: Ty,
    required: bool,
    doc: &'static str,
}

const fn req(name: &'static str, ty: Ty, doc: &'static str) -> Param {
    Param {
        name,
        ty,
        required: true,
        doc,
    }
}

const fn opt(name: &'static str, ty: Ty, doc: &'static str) -> Param {
    Param {
        name,
        ty,
        required: false,
        doc,
    }
}

/// One tool: its name, what it does, its arguments and how it runs.
pub struct Tool {
    name: &'static str,
    doc: &'static str,
    read_only: bool,
    /// Whether its answer is a function of its arguments and the store's head
    /// alone: no clock, no local state (bindings, aliases, ledgers), no actor.
    pure: bool,
    params: &'static [Param],
    run: fn(&Ctx, &Args<'_>) -> Outcome,
}

/// A tool's arguments, checked against its parameters.
pub struct Args<'a>(&'a Map<String, Value>);

/// How an id argument is read: as a message's, or as any bead-shaped id.
type IdParser = fn(&str) -> Result<BeadId, crate::model::IdError>;

impl Args<'_> {
    /// The arguments as JSON text: what tells one call of a tool from another.
    pub fn key(&self) -> String {
        Value::Object(self.0.clone()).to_string()
    }

    /// A string argument (`None` when left out or null).
    fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// A required string argument (checked present before the tool runs).
    fn required(&self, name: &str) -> &str {
        self.text(name).unwrap_or_default()
    }

    /// A string argument, owned.
    fn string(&self, name: &str) -> Option<String> {
        self.text(name).map(str::to_owned)
    }

    /// An array of strings (empty when left out).
    fn texts(&self, name: &str) -> Vec<String> {
        self.0
            .get(name)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(Into::into).collect())
            .unwrap_or_default()
    }

    /// A whole number.
    fn count(&self, name: &str) -> Option<u64> {
        self.0.get(name).and_then(Value::as_u64)
    }

    /// A priority (checked to be 0 … 4).
    fn priority(&self, name: &str) -> Option<u8> {
        self.count(name).and_then(|p| u8::try_from(p).ok())
    }

    /// A number.
    fn amount(&self, name: &str) -> Option<f64> {
        self.0.get(name).and_then(Value::as_f64)
    }

    /// A flag (false when left out).
    fn flag(&self, name: &str) -> bool {
        self.0.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// A bead named by argument `name`: an id, or one without its prefix where that
    /// is unambiguous.
    fn bead(&self, ctx: &Ctx, name: &str) -> Result<Option<BeadId>, ToolError> {
        self.text(name)
            .map(|given| ops::resolve_id(&ctx.store, given))
            .transpose()
            .map_err(Into::into)
    }

    /// A required bead argument (see [`Args::bead`]).
    fn required_bead(&self, ctx: &Ctx, name: &str) -> Result<BeadId, ToolError> {
        Ok(ops::resolve_id(&ctx.store, self.required(name))?)
    }

    /// A message or molecule id, read by `parse` ([`BeadId::parse_message`],
    /// [`BeadId::parse`]): parsed, not looked up among the beads.
    fn id(&self, name: &str, parse: IdParser) -> Result<Option<BeadId>, ToolError> {
        self.text(name)
            .map(parse)
            .transpose()
            .map_err(|e| OpError::from(e).into())
    }

    /// A required message or molecule id (see [`Args::id`]).
    fn required_id(&self, name: &str, parse: IdParser) -> Result<BeadId, ToolError> {
        Ok(parse(self.required(name)).map_err(OpError::from)?)
    }

    /// A bead type, its short names (`feat`, `mr`) taken as the CLI takes them.
    fn kind(&self, name: &str) -> Result<Option<crate::model::BeadType>, ToolError> {
        self.text(name)
            .map(parse_type)
            .transpose()
            .map_err(ToolError::Invalid)
    }

    /// A word argument parsed as `T` (a status, a dependency kind).
    fn word<T>(&self, name: &str) -> Result<Option<T>, ToolError>
    where
        T: std::str::FromStr,
        T::Err: Into<OpError>,
    {
        self.text(name)
            .map(str::parse::<T>)
            .transpose()
            .map_err(|e| e.into().into())
    }
}

impl Tool {
    /// Checks `args` against the parameters: no unknown names, the right JSON types,
    /// the required ones there. A null counts as left out.
    pub fn check<'a>(&self, args: &'a Map<String, Value>) -> Result<Args<'a>, String> {
        for (name, value) in args {
            let Some(p) = self.params.iter().find(|p| p.name == name) else {
                return Err(format!("unknown argument {name:?}"));
            };
            if value.is_null() {
                continue;
            }
            let fits = match p.ty {
                Ty::Text => value.is_string(),
                Ty::Texts => value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string)),
                Ty::Count => value.is_u64(),
                Ty::Priority => value.as_u64().is_some_and(|p| p <= 4),
                Ty::Amount => value.as_f64().is_some_and(|n| n.is_finite() && n >= 0.0),
                Ty::Flag => value.is_boolean(),
            };
            if !fits {
                return Err(format!("{name} must be {}", what(p.ty)));
            }
        }
        if let Some(p) = self
            .params
            .iter()
            .find(|p| p.required && args.get(p.name).is_none_or(Value::is_null))
        {
            return Err(format!("{} is required", p.name));
        }
        Ok(Args(args))
    }

    /// Runs the tool with checked arguments.
    pub fn run(&self, ctx: &Ctx, args: &Args<'_>) -> Outcome {
        (self.run)(ctx, args)
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether its answer is a function of its arguments and the store's head alone,
    /// so that while the head has not moved, the same call has the same answer.
    pub fn pure(&self) -> bool {
        self.pure
    }

    /// The tool as `tools/list` describes it, with the JSON schema of its arguments.
    fn describe(&self) -> Value {
        let mut properties = Map::new();
        for p in self.params {
            let mut schema = match p.ty {
                Ty::Text => json!({"type": "string"}),
                Ty::Texts => json!({"type": "array", "items": {"type": "string"}}),
                Ty::Count => json!({"type": "integer", "minimum": 0}),
                Ty::Priority => json!({"type": "integer", "minimum": 0, "maximum": 4}),
                Ty::Amount => json!({"type": "number", "minimum": 0}),
                Ty::Flag => json!({"type": "boolean"}),
            };
            schema["description"] = json!(p.doc);
            properties.insert(p.name.into(), schema);
        }
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect();
        json!({
            "name": self.name,
            "description": self.doc,
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": self.read_only},
        })
    }
}

/// How an argument of type `ty` is described in an error.
fn what(ty: Ty) -> &'static str {
    match ty {
        Ty::Text => "a string",
        Ty::Texts => "an array of strings",
        Ty::Count => "a whole number, 0 or more",
        Ty::Priority => "a priority: 0 (critical) … 4 (backlog)",
        Ty::Amount => "a number, 0 or more",
        Ty::Flag => "true or false",
    }
}

/// Every tool, as `tools/list` describes them.
pub fn list() -> Vec<Value> {
    TOOLS.iter().map(Tool::describe).collect()
}

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// What `git beads prime` prints for the acting agent, as a harness hook shows it
/// (documents that do not parse are named in the text).
pub fn prime_text(ctx: &Ctx) -> Result<String, ToolError> {
    let render = ctx.prime.as_ref().ok_or_else(|| {
        ToolError::Prime(PrimeFailed {
            kind: "internal",
            message: "this server was given no renderer of the prime text".into(),
        })
    })?;
    render(ctx).map_err(ToolError::Prime)
}

/// An object document as `--json` prints it.
fn object<T: Serialize>(body: &T) -> Outcome {
    Ok(Answer::of(wire::versioned(body)?.into()))
}

/// A list document as `--json` prints it (a bare array).
fn array<T: Serialize>(list: &T) -> Outcome {
    Ok(Answer::of(serde_json::value::to_raw_value(list)?.into()))
}

/// Beads in full, as `show --json` prints them.
fn beads(ctx: &Ctx, beads: Vec<crate::model::Bead>) -> Outcome {
    let detailed = ops::detail(&ctx.store, beads)?;
    array(&wire::Beads::detailed(&detailed))
}

const ID: Param = req(
    "id",
    Ty::Text,
    "The bead's id (its prefix may be left out).",
);

/// The filters the listing tools share (see [`selected`]).
const BY_PRIORITY: Param = opt("priority", Ty::Priority, "Only beads of this priority.");
const BY_ASSIGNEE: Param = opt("assignee", Ty::Text, "Only beads assigned to this name.");
const UNASSIGNED: Param = opt("unassigned", Ty::Flag, "Only beads assigned to nobody.");
const BY_LABELS: Param = opt("labels", Ty::Texts, "Only beads carrying all these labels.");

/// The two ends of a dependency (`dep_add`, `dep_remove`).
const DEPENDENT: Param = req("id", Ty::Text, "The dependent bead.");
const DEPENDS_ON: Param = req(
    "depends_on",
    Ty::Text,
    "The bead it depends on, or another project's item as external:<project>:<id>.",
);

const TOOLS: &[Tool] = &[
    Tool {
        name: "prime",
        doc: "What a fresh session needs: who you are, the work on your hook, how the \
              last session ended, your unread mail and budget left (`git beads prime --json`).",
        read_only: true,
        pure: false,
        params: &[],
        run: prime,
    },
    Tool {
        name: "ready",
        doc: "Open work that nothing unfinished blocks, most important first \
              (`git beads ready --json`).",
        read_only: true,
        pure: true,
        params: &[
            opt(
                "limit",
                Ty::Count,
                "At most this many (default 100, 0: all).",
            ),
            opt("type", Ty::Text, "Only beads of this type."),
            BY_PRIORITY,
            BY_ASSIGNEE,
            UNASSIGNED,
            BY_LABELS,
        ],
        run: ready,
    },
    Tool {
        name: "list",
        doc: "Beads by status, priority, type, assignee or labels, most important first; \
              open work when no status is given (`git beads list --json`).",
        read_only: true,
        pure: true,
        params: &[
            opt(
                "status",
                Ty::Text,
                "open, in_progress, blocked, deferred, hooked, pinned, closed.",
            ),
            BY_PRIORITY,
            opt("issue_type", Ty::Text, "Only beads of this type."),
            BY_ASSIGNEE,
            UNASSIGNED,
            BY_LABELS,
            opt(
                "labels_any",
                Ty::Texts,
                "Only beads carrying at least one of these labels.",
            ),
            opt(
                "query",
                Ty::Text,
                "Only beads whose id, title or description contains this text.",
            ),
            opt(
                "limit",
                Ty::Count,
                "At most this many (default 20, 0: all).",
            ),
        ],
        run: list_beads,
    },
    Tool {
        name: "search",
        doc: "Beads whose id, title or description contains the text, closed ones too \
              (`git beads search TEXT --json`).",
        read_only: true,
        pure: true,
        params: &[
            req("query", Ty::Text, "The text (case-insensitive)."),
            opt(
                "limit",
                Ty::Count,
                "At most this many (default 50, 0: all).",
            ),
        ],
        run: search,
    },
    Tool {
        name: "blocked",
        doc: "Unfinished beads that wait on others, each with what blocks it \
              (`git beads blocked --json`).",
        read_only: true,
        pure: true,
        params: &[],
        run: blocked,
    },
    Tool {
        name: "stats",
        doc: "How many beads by status, ready and blocked ones, the mean lead time \
              (`git beads stats --json`).",
        read_only: true,
        pure: true,
        params: &[],
        run: stats,
    },
    Tool {
        name: "comments",
        doc: "A bead's comments, oldest first (`git beads comments ID --json`).",
        read_only: true,
        pure: false,
        params: &[ID],
        run: comments,
    },
    Tool {
        name: "claim",
        doc: "Claim a bead atomically: in_progress and assigned to you; fails with kind \
              conflict when someone else holds it. Without an id, claims the next ready \
              bead (an empty list when nothing is ready).",
        read_only: false,
        pure: false,
        params: &[opt(
            "id",
            Ty::Text,
            "The bead to claim (default: the next ready one).",
        )],
        run: claim,
    },
    Tool {
        name: "show",
        doc: "A bead in full, with what it depends on and how many depend on it \
              (`git beads show ID --json`).",
        read_only: true,
        pure: false,
        params: &[ID],
        run: show,
    },
    Tool {
        name: "create",
        doc: "Create a bead (`git beads create --json`).",
        read_only: false,
        pure: false,
        params: &[
            req("title", Ty::Text, "One line."),
            opt("description", Ty::Text, "Long text."),
            opt(
                "type",
                Ty::Text,
                "task (default), bug, feature, epic, chore, …",
            ),
            opt(
                "priority",
                Ty::Priority,
                "0 (critical) … 4 (backlog); default 2.",
            ),
            opt("assignee", Ty::Text, "Who works on it."),
            opt("labels", Ty::Texts, "Labels."),
            opt("parent", Ty::Text, "Make it the next child of this bead."),
            opt(
                "deps",
                Ty::Texts,
                "Dependencies: ID (blocks) or KIND:ID (related:bd-a1).",
            ),
        ],
        run: create,
    },
    Tool {
        name: "update",
        doc: "Change fields of a bead (`git beads update ID --json`).",
        read_only: false,
        pure: false,
        params: &[
            ID,
            opt("title", Ty::Text, "New title."),
            opt("description", Ty::Text, "New description."),
            opt("notes", Ty::Text, "New notes."),
            opt(
                "append_notes",
                Ty::Text,
                "Add to the end of the notes, on a line of their own.",
            ),
            opt(
                "status",
                Ty::Text,
                "open, in_progress, blocked, deferred, hooked, pinned, closed.",
            ),
            opt("priority", Ty::Priority, "New priority."),
            opt("type", Ty::Text, "New type."),
            opt("assignee", Ty::Text, "New assignee (\"\" clears it)."),
            opt("add_labels", Ty::Texts, "Labels to add."),
            opt("remove_labels", Ty::Texts, "Labels to remove."),
        ],
        run: update,
    },
    Tool {
        name: "close",
        doc: "Close a bead (`git beads close ID --json`).",
        read_only: false,
        pure: false,
        params: &[ID, opt("reason", Ty::Text, "Why.")],
        run: close,
    },
    Tool {
        name: "comment",
        doc: "Add a comment to a bead (`git beads comment ID TEXT --json`).",
        read_only: false,
        pure: false,
        params: &[ID, req("text", Ty::Text, "The comment.")],
        run: comment,
    },
    Tool {
        name: "dep_add",
        doc: "Make a bead depend on another (`git beads dep add ID DEPENDS_ON --json`).",
        read_only: false,
        pure: false,
        params: &[
            DEPENDENT,
            DEPENDS_ON,
            opt(
                "type",
                Ty::Text,
                "blocks (default), parent-child, related, discovered-from, duplicates, \
                 supersedes, replies-to.",
            ),
        ],
        run: dep_add,
    },
    Tool {
        name: "dep_remove",
        doc: "Remove a dependency of a bead on another (`git beads dep remove ID \
              DEPENDS_ON --json`).",
        read_only: false,
        pure: false,
        params: &[
            DEPENDENT,
            DEPENDS_ON,
            opt(
                "type",
                Ty::Text,
                "Only a dependency of this kind (default: any).",
            ),
        ],
        run: dep_remove,
    },
    Tool {
        name: "reopen",
        doc: "Reopen closed beads (`git beads reopen ID… --json`).",
        read_only: false,
        pure: false,
        params: &[
            req(
                "issue_ids",
                Ty::Texts,
                "The beads (their prefix may be left out).",
            ),
            opt("reason", Ty::Text, "Why, kept as a comment."),
        ],
        run: reopen,
    },
    Tool {
        name: "mail_send",
        doc: "Send mail to agents, @role or @all; to yourself for a note to your next \
              session (`git beads mail send --json`).",
        read_only: false,
        pure: false,
        params: &[
            req("to", Ty::Texts, "Agent names, @role or @all."),
            req("subject", Ty::Text, "The subject."),
            opt("body", Ty::Text, "The body."),
            opt("priority", Ty::Priority, "0 (urgent) … 4; default 2."),
            opt("reply_to", Ty::Text, "The message this answers."),
        ],
        run: mail_send,
    },
    Tool {
        name: "mail_inbox",
        doc: "Your mail, unread first (`git beads mail inbox --json`).",
        read_only: true,
        pure: false,
        params: &[opt("all", Ty::Flag, "Archived messages too.")],
        run: mail_inbox,
    },
    Tool {
        name: "mail_read",
        doc: "A message in full, marked read (`git beads mail read ID --json`).",
        read_only: false,
        pure: false,
        params: &[req("id", Ty::Text, "The message id (msg-…).")],
        run: mail_read,
    },
    Tool {
        name: "mail_reply",
        doc: "Reply to a message, in its thread (`git beads mail reply ID --json`).",
        read_only: false,
        pure: false,
        params: &[
            req("id", Ty::Text, "The message id (msg-…)."),
            req("body", Ty::Text, "The reply."),
        ],
        run: mail_reply,
    },
    Tool {
        name: "handoff",
        doc: "Leave a note for your next session and end this one; the work on your hook \
              stays for it (`git beads handoff -m NOTE --json`).",
        read_only: false,
        pure: false,
        params: &[req("message", Ty::Text, "The note for the next session.")],
        run: handoff,
    },
    Tool {
        name: "mol_current",
        doc: "Where you stand in your molecule: the steps to work now \
              (`git beads mol current --json`).",
        read_only: true,
        pure: false,
        params: &[opt(
            "id",
            Ty::Text,
            "The molecule (default: the one on your hook).",
        )],
        run: mol_current,
    },
    Tool {
        name: "mol_progress",
        doc: "A molecule's steps and how far they are (`git beads mol progress ID --json`).",
        read_only: true,
        pure: false,
        params: &[req("id", Ty::Text, "The molecule or wisp.")],
        run: mol_progress,
    },
    Tool {
        name: "session_usage",
        doc: "Report what this session spent; fails with kind budget once it is over \
              budget (`git beads session usage --json`).",
        read_only: false,
        pure: false,
        params: &[
            opt("turn", Ty::Flag, "This closes a turn."),
            opt("tokens", Ty::Count, "Tokens used."),
            opt("spend", Ty::Amount, "Dollars spent."),
            opt("tool_calls", Ty::Count, "Tool calls made."),
        ],
        run: session_usage,
    },
];

fn prime(ctx: &Ctx, _: &Args<'_>) -> Outcome {
    let p = ops::prime(&ctx.store, &ctx.acting()?)?;
    object(&wire::Primed {
        prime: wire::PrimeReport::from(&p),
    })
}

/// The filter the listing tools share: a type (argument `kind`), a priority, an
/// assignee or nobody, labels, at most `limit` (default `most`).
fn selected(a: &Args<'_>, kind: &str, most: u64) -> Result<ops::ListFilter, ToolError> {
    let limit = a.count("limit").unwrap_or(most);
    Ok(ops::ListFilter {
        kinds: a.kind(kind)?.into_iter().collect(),
        priorities: a.priority("priority").into_iter().collect(),
        assignee: a.string("assignee"),
        unassigned: a.flag("unassigned"),
        labels: a.texts("labels"),
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        ..ops::ListFilter::default()
    })
}

fn ready(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let filter = selected(a, "type", 100)?;
    let listing = ops::ready(&ctx.store, &filter)?;
    ROW_TEXTS.with_borrow_mut(|texts| texts.listing(&listing))
}

thread_local! {
    /// The text of the rows this thread (the server's one) listed last.
    static ROW_TEXTS: RefCell<RowTexts> = RefCell::new(RowTexts::default());
}

/// How many rows' text [`RowTexts`] keeps at most: a few pages.
const KEPT_ROWS: usize = 1024;

/// The JSON text of beads listed before (each escaped for the text block too, as an
/// [`Answer`] of its own), by their row in the table they were read from, each with
/// the dependent count it was written with. A server lists mostly the same beads call
/// after call: after a write, only the beads it changed (which are read from beside
/// the table, and never kept here) and those whose dependent count moved are written
/// again. A row of the same table (see [`ops::TableStamp`]) is the same bytes, so its
/// text can only be stale through its dependent count, which is part of the key; a
/// new table drops every text kept.
#[derive(Default)]
pub struct RowTexts {
    table: Option<ops::TableStamp>,
    rows: HashMap<usize, (usize, Answer)>,
}

impl RowTexts {
    /// `listing` as `--json` prints it (a bare array of [`wire::Summary`]), with the
    /// texts of the rows kept reused, and those of the rows of its table kept.
    pub fn listing(&mut self, listing: &ops::Listing) -> Outcome {
        let stamp = listing.table_stamp();
        if self.table.as_ref() != Some(&stamp) {
            self.rows.clear();
            self.table = Some(stamp);
        }
        let dependents = listing.dependents();
        let mut made = Vec::new();
        let mut texts = Vec::with_capacity(listing.beads().len());
        for s in listing.beads() {
            let count = dependents.count(&s);
            let write = || -> Result<Answer, ToolError> {
                let doc = serde_json::to_string(&wire::Summary::new(s, dependents))?;
                Ok(Answer::of(doc.into()))
            };
            texts.push(match s.table_row() {
                Some(r) if self.rows.get(&r).is_some_and(|(was, _)| *was == count) => Ok(r),
                Some(r) if self.rows.contains_key(&r) || self.rows.len() < KEPT_ROWS => {
                    self.rows.insert(r, (count, write()?));
                    Ok(r)
                }
                _ => {
                    made.push(write()?);
                    Err(made.len() - 1)
                }
            });
        }
        let rows: Vec<&Answer> = texts
            .iter()
            .map(|t| match *t {
                Ok(r) => &self.rows[&r].1,
                Err(k) => &made[k],
            })
            .collect();
        Ok(joined(&rows))
    }
}

/// The answer that is the JSON array of the documents of `rows`, in their order: their
/// texts joined, escaped text to escaped text (escaping goes byte by byte, so the
/// escape of the whole is the escapes of its parts, joined).
fn joined(rows: &[&Answer]) -> Answer {
    let (docs, texts) = rows.iter().fold((2, 2), |(d, t), a| {
        (d + a.doc.len() + 1, t + a.text.len() + 1)
    });
    let mut doc = String::with_capacity(docs);
    let mut text = Vec::with_capacity(texts);
    doc.push('[');
    text.push(b'[');
    for (k, row) in rows.iter().enumerate() {
        if k > 0 {
            doc.push(',');
            text.push(b',');
        }
        doc.push_str(&row.doc);
        text.extend_from_slice(&row.text);
    }
    doc.push(']');
    text.push(b']');
    Answer {
        doc: doc.into(),
        text,
    }
}

fn list_beads(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let filter = ops::ListFilter {
        statuses: a.word::<Status>("status")?.into_iter().collect(),
        labels_any: a.texts("labels_any"),
        ..selected(a, "issue_type", 20)?
    };
    let listing = match a.text("query") {
        Some(text) => ops::search(&ctx.store, text, &filter)?,
        None => ops::list(&ctx.store, &filter)?,
    };
    ROW_TEXTS.with_borrow_mut(|texts| texts.listing(&listing))
}

fn search(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let limit = a.count("limit").unwrap_or(50);
    let filter = ops::ListFilter {
        all: true,
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        ..ops::ListFilter::default()
    };
    let listing = ops::search(&ctx.store, a.required("query"), &filter)?;
    ROW_TEXTS.with_borrow_mut(|texts| texts.listing(&listing))
}

fn blocked(ctx: &Ctx, _: &Args<'_>) -> Outcome {
    let blocked = ops::blocked(&ctx.store, None)?;
    let mut document = Vec::new();
    wire::write_blocked(&mut document, &blocked).map_err(serde_json::Error::io)?;
    let text =
        String::from_utf8(document).map_err(|e| serde_json::Error::io(std::io::Error::other(e)))?;
    Ok(Answer::of(text.into()))
}

fn stats(ctx: &Ctx, _: &Args<'_>) -> Outcome {
    object(&wire::Stats::from(&ops::stats(&ctx.store)?))
}

fn comments(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let id = a.required_bead(ctx, "id")?;
    let bead = ops::show(&ctx.store, std::slice::from_ref(&id))?.remove(0);
    array(&wire::Comments::new(&id, &bead.comments))
}

fn dep_remove(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let (actor, id, on, kind) = edge(ctx, a)?;
    let bead = ops::remove_dependency(&ctx.store, &actor, &id, &on, kind)?;
    object(&wire::OneBead {
        bead: wire::Bead::plain(&bead),
    })
}

/// The dependency `dep_add` and `dep_remove` name, and who acts on it.
fn edge(
    ctx: &Ctx,
    a: &Args<'_>,
) -> Result<
    (
        crate::model::Actor,
        BeadId,
        crate::model::DepTarget,
        Option<DepKind>,
    ),
    ToolError,
> {
    let actor = ctx.acting()?;
    let id = a.required_bead(ctx, "id")?;
    let on = ops::resolve_target(&ctx.store, a.required("depends_on"))?;
    Ok((actor, id, on, a.word::<DepKind>("type")?))
}

fn reopen(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let ids = (a.texts("issue_ids").iter())
        .map(|given| ops::resolve_id(&ctx.store, given))
        .collect::<Result<Vec<_>, _>>()?;
    let edited = ops::reopen(&ctx.store, &actor, &ids, a.text("reason"))?;
    beads(ctx, edited.into_iter().map(|e| e.bead).collect())
}

fn claim(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let remote = ops::claim_remote(&ctx.store, None, false)?;
    let Some(id) = a.bead(ctx, "id")? else {
        let next = ops::ListFilter::default();
        let bead = match &remote {
            Some(remote) => ops::ready_claim_on(&ctx.store, &actor, &next, remote)?,
            None => ops::ready_claim(&ctx.store, &actor, &next)?,
        };
        return beads(ctx, bead.into_iter().collect());
    };
    let changes = Changes {
        claim: true,
        ..Changes::default()
    };
    let edited = match &remote {
        Some(remote) => vec![ops::update_on(&ctx.store, &actor, &id, changes, remote)?],
        None => ops::update(&ctx.store, &actor, &[id], changes)?,
    };
    beads(ctx, edited.into_iter().map(|e| e.bead).collect())
}

fn show(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let id = a.required_bead(ctx, "id")?;
    beads(ctx, ops::show(&ctx.store, &[id])?)
}

fn create(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let dependencies = a
        .texts("deps")
        .iter()
        .map(|d| parse_dep(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ToolError::Invalid)?;
    let new = ops::NewBead {
        title: a.required("title").to_owned(),
        description: a.string("description").unwrap_or_default(),
        kind: a.kind("type")?,
        priority: Some(a.priority("priority").unwrap_or(2)),
        assignee: a.string("assignee"),
        labels: a.texts("labels"),
        parent: a.bead(ctx, "parent")?,
        dependencies,
        ..ops::NewBead::default()
    };
    let bead = ops::create(&ctx.store, &actor, new)?;
    let detailed = ops::detail(&ctx.store, vec![bead])?;
    object(&wire::OneBead {
        bead: wire::Bead::detailed(&detailed[0]),
    })
}

fn update(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let id = a.required_bead(ctx, "id")?;
    let changes = Changes {
        title: a.string("title"),
        description: a.string("description"),
        notes: a.string("notes"),
        append_notes: a.string("append_notes"),
        status: a.word::<Status>("status")?,
        priority: a.priority("priority"),
        kind: a.kind("type")?,
        assignee: a.string("assignee"),
        add_labels: a.texts("add_labels"),
        remove_labels: a.texts("remove_labels"),
        ..Changes::default()
    };
    let edited = ops::update(&ctx.store, &actor, &[id], changes)?;
    beads(ctx, edited.into_iter().map(|e| e.bead).collect())
}

fn close(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let id = a.required_bead(ctx, "id")?;
    let edited = match ops::claim_remote(&ctx.store, None, false)? {
        Some(remote) => {
            let how = ops::Closing {
                reason: a.text("reason"),
                ..ops::Closing::default()
            };
            ops::close_on(&ctx.store, &actor, &[id], &how, &remote)?
        }
        None => ops::close(&ctx.store, &actor, &[id], a.text("reason"))?,
    };
    beads(ctx, edited.into_iter().map(|e| e.bead).collect())
}

fn comment(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let actor = ctx.acting()?;
    let id = a.required_bead(ctx, "id")?;
    let c = ops::add_comment(&ctx.store, &actor, &id, a.required("text"), None)?;
    object(&wire::CommentAdded::new(&id, &c))
}

fn dep_add(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let (actor, id, on, kind) = edge(ctx, a)?;
    let edited = ops::add_dependency(
        &ctx.store,
        &actor,
        &id,
        &on,
        kind.unwrap_or(DepKind::Blocks),
    )?;
    object(&wire::OneBead {
        bead: wire::Bead::plain(&edited.bead),
    })
}

fn mail_send(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let new = ops::NewMessage {
        to: a.texts("to"),
        subject: a.required("subject").to_owned(),
        body: a.string("body").unwrap_or_default(),
        priority: a.priority("priority"),
        reply_to: a.id("reply_to", BeadId::parse_message)?,
        ..ops::NewMessage::default()
    };
    let m = ops::send(&ctx.store, &ctx.acting()?, new)?;
    object(&wire::OneMessage { message: &m })
}

fn mail_inbox(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let agent = ctx
        .acting()?
        .agent
        .ok_or(OpError::Mail(MailError::NoMailbox))?;
    let entries = ops::inbox(&ctx.store, &agent, a.flag("all"))?;
    object(&wire::Inbox {
        agent: &agent,
        unread: entries.iter().filter(|e| !e.read).count(),
        messages: entries.iter().map(wire::InboxLine::from).collect(),
    })
}

fn mail_read(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let id = a.required_id("id", BeadId::parse_message)?;
    let m = ops::mark(&ctx.store, &ctx.acting()?, &id, ops::Mark::Read)?;
    object(&wire::OneMessage { message: &m })
}

fn mail_reply(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let id = a.required_id("id", BeadId::parse_message)?;
    let m = ops::reply(&ctx.store, &ctx.acting()?, &id, a.required("body"))?;
    object(&wire::OneMessage { message: &m })
}

fn handoff(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let s = ops::handoff(&ctx.store, &ctx.acting()?, a.required("message"))?;
    object(&wire::OneSession { session: &s })
}

fn mol_current(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let id = a.id("id", BeadId::parse)?;
    let c = ops::current(&ctx.store, &ctx.acting()?, id.as_ref())?;
    array(&wire::MolCurrents(vec![wire::MolCurrent::from(&c)]))
}

fn mol_progress(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let p = ops::molecule_progress(&ctx.store, &a.required_id("id", BeadId::parse)?)?;
    object(&wire::MoleculeProgress {
        progress: wire::MoleculeState::from(&p),
    })
}

fn session_usage(ctx: &Ctx, a: &Args<'_>) -> Outcome {
    let report = ops::UsageReport {
        turn: a.flag("turn"),
        tokens: a.count("tokens").unwrap_or(0),
        spend: a.amount("spend").unwrap_or(0.0),
        tool_calls: a.count("tool_calls").unwrap_or(0),
    };
    let s = ops::record_usage(&ctx.store, &ctx.acting()?, report)?;
    object(&wire::OneSession { session: &s })
}
