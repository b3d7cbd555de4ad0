//! `git beads mail send|inbox|read|peek|reply|thread|ack|archive|search`: one file
//! per verb, the verbs that show messages (`read`, `peek`, `ack`, `archive`, `thread`)
//! in one.

mod inbox;
mod reply;
mod search;
mod send;
mod show;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, BeadId};

pub use inbox::InboxArgs;
pub use reply::ReplyArgs;
pub use search::SearchArgs;
pub use send::SendArgs;

/// The verbs of `mail`.
#[derive(clap::Subcommand, Debug)]
pub enum MailCommand {
    /// Send a message to agents (`NAME`), a role (`@role`) or everyone (`@all`).
    Send(SendArgs),
    /// Show your inbox: unread first, then by priority and age.
    Inbox(InboxArgs),
    /// Show a message and mark it read.
    Read(IdArgs),
    /// Show a message without marking it.
    Peek(IdArgs),
    /// Reply to a message's sender, in its thread.
    Reply(ReplyArgs),
    /// Show a message's whole thread.
    Thread(IdArgs),
    /// Acknowledge a message (marks it read too).
    Ack(IdArgs),
    /// Archive a message: it leaves the inbox (`inbox --all` still shows it).
    Archive(IdArgs),
    /// Find messages in your mailbox by text in the subject or body.
    Search(SearchArgs),
}

/// Arguments naming one message.
#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The message.
    #[arg(value_parser = BeadId::parse_message)]
    pub id: BeadId,
}

/// Runs `mail`.
pub fn run(ctx: &Ctx, cmd: MailCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        MailCommand::Send(a) => send::run(ctx, a, out),
        MailCommand::Inbox(a) => inbox::run(ctx, a, out),
        MailCommand::Read(a) => show::read(ctx, a, out),
        MailCommand::Peek(a) => show::peek(ctx, a, out),
        MailCommand::Ack(a) => show::ack(ctx, a, out),
        MailCommand::Archive(a) => show::archive(ctx, a, out),
        MailCommand::Reply(a) => reply::run(ctx, a, out),
        MailCommand::Thread(a) => show::thread(ctx, a, out),
        MailCommand::Search(a) => search::run(ctx, a, out),
    }
}

/// The agent whose mail this is: the acting one.
fn me(ctx: &Ctx) -> Result<AgentName, CliError> {
    ctx.actor()?.agent.ok_or_else(|| {
        CliError::user("mail belongs to agents and no agent is acting here")
            .hint("pass --as AGENT, set GIT_BEADS_AGENT, or `git beads agent bind NAME`")
    })
}
