//! `git beads audit record|label`: bd's append-only log of agents' interactions (LLM
//! calls, tool calls) and labels on them, kept in the store (`audit/`), so that sync
//! shares it and its history is the store's.

use std::io::Read;

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::model::AuditEntry;
use crate::ops;
use crate::wire::{AuditLabelled, AuditRecorded};

/// The verbs of `audit`.
#[derive(clap::Subcommand, Debug)]
pub enum AuditCommand {
    /// Append an interaction entry; prints its id.
    ///
    /// With `--stdin`, or with input piped and no field given, the entry is read from
    /// stdin as bd's JSON object (`kind`, `model`, `prompt`, `response`, `issue_id`,
    /// `tool_name`, `exit_code`, `error`, `extra` …; `id` and `created_at` when the
    /// caller has them). The entry is one commit in the store, never changed after.
    Record(RecordArgs),
    /// Append a label entry judging a recorded entry (`good`, `bad` …); prints its id.
    Label(LabelArgs),
}

/// Arguments of `audit record`.
#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Entry kind (llm_call, tool_call, or a word of your own).
    #[arg(long, default_value = "")]
    pub kind: String,
    /// Model name (llm_call).
    #[arg(long, default_value = "")]
    pub model: String,
    /// Prompt text (llm_call).
    #[arg(long, default_value = "")]
    pub prompt: String,
    /// Response text (llm_call).
    #[arg(long, default_value = "")]
    pub response: String,
    /// The bead it concerns.
    #[arg(long = "issue-id", default_value = "")]
    pub issue_id: String,
    /// Tool name (tool_call).
    #[arg(long = "tool-name", default_value = "")]
    pub tool_name: String,
    /// Exit code (tool_call; negative: none).
    #[arg(
        long = "exit-code",
        default_value = "-1",
        allow_negative_numbers = true
    )]
    pub exit_code: i64,
    /// Error text (llm_call, tool_call).
    #[arg(long, default_value = "")]
    pub error: String,
    /// Read the entry from stdin as a JSON object.
    #[arg(long)]
    pub stdin: bool,
}

/// Arguments of `audit label`.
#[derive(clap::Args, Debug)]
pub struct LabelArgs {
    /// The entry judged.
    pub entry_id: String,
    /// The label (`good`, `bad` …).
    #[arg(long, default_value = "")]
    pub label: String,
    /// Why.
    #[arg(long, default_value = "")]
    pub reason: String,
}

/// Runs `audit`.
pub fn run(ctx: &Ctx, cmd: AuditCommand, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    match cmd {
        AuditCommand::Record(a) => {
            let mut entry = match a.stdin || (stdin_piped() && a.names_nothing()) {
                true => from_stdin()?,
                false => a.entry(),
            };
            // As bd: the acting identity, whatever the input says.
            entry.actor = actor.id.clone();
            let entry = ops::record_audit(&ctx.store, &actor, entry)?;
            if out.json {
                return out.json(&AuditRecorded {
                    id: &entry.id,
                    kind: &entry.kind,
                });
            }
            out.line(&entry.id)
        }
        AuditCommand::Label(a) => {
            let entry = ops::label_audit(&ctx.store, &actor, &a.entry_id, &a.label, &a.reason)?;
            if out.json {
                return out.json(&AuditLabelled {
                    id: &entry.id,
                    parent_id: &entry.parent_id,
                    label: &entry.label,
                });
            }
            out.line(&entry.id)
        }
    }
}

impl RecordArgs {
    /// Whether no field of the entry was given (bd then reads piped input).
    fn names_nothing(&self) -> bool {
        [
            &self.kind,
            &self.model,
            &self.prompt,
            &self.response,
            &self.issue_id,
            &self.tool_name,
            &self.error,
        ]
        .iter()
        .all(|s| s.is_empty())
            && self.exit_code < 0
    }

    /// The entry the flags describe.
    fn entry(self) -> AuditEntry {
        AuditEntry {
            kind: self.kind,
            issue_id: self.issue_id,
            model: self.model,
            prompt: self.prompt,
            response: self.response,
            tool_name: self.tool_name,
            error: self.error,
            exit_code: (self.exit_code >= 0).then_some(self.exit_code),
            ..AuditEntry::default()
        }
    }
}

/// Whether stdin is a pipe or a file rather than a terminal or `/dev/null` (bd's
/// test: not a character device).
fn stdin_piped() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
        return false;
    };
    std::fs::File::from(fd)
        .metadata()
        .is_ok_and(|m| !m.file_type().is_char_device())
}

/// The entry piped in as bd's JSON object.
fn from_stdin() -> Result<AuditEntry, CliError> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::new(Kind::User, format!("failed to read stdin: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| CliError::new(Kind::User, format!("invalid JSON on stdin: {e}")))
}
