//! `git beads mail send|inbox|read|peek|reply|thread|ack|archive|search`.

use super::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, BeadId, Message};
use crate::ops::{self, Mark, NewMessage};
use crate::wire;

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

/// Arguments of `mail send`.
#[derive(clap::Args, Debug)]
pub struct SendArgs {
    /// Recipients: agent names, `@role`, `@all`.
    #[arg(required = true)]
    pub to: Vec<String>,
    /// The subject.
    #[arg(short, long)]
    pub subject: String,
    /// The body.
    #[arg(short = 'm', long = "message", conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the body from a file (`-` for stdin).
    #[arg(long)]
    pub body_file: Option<std::path::PathBuf>,
    /// 0 (urgent) … 4 (routine).
    #[arg(short, long, value_parser = parse_priority)]
    pub priority: Option<u8>,
    /// Copy an agent (repeatable).
    #[arg(long)]
    pub cc: Vec<AgentName>,
    /// The message this answers.
    #[arg(long)]
    pub reply_to: Option<BeadId>,
}

/// Arguments of `mail inbox`.
#[derive(clap::Args, Debug)]
pub struct InboxArgs {
    /// Include archived messages.
    #[arg(long)]
    pub all: bool,
}

/// Arguments naming one message.
#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The message.
    pub id: BeadId,
}

/// Arguments of `mail reply`.
#[derive(clap::Args, Debug)]
pub struct ReplyArgs {
    /// The message to answer.
    pub id: BeadId,
    /// The body.
    #[arg(short = 'm', long = "message")]
    pub body: String,
}

/// Arguments of `mail search`.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The text (case-insensitive).
    pub text: String,
}

fn me(ctx: &Ctx) -> Result<AgentName, CliError> {
    ctx.actor()?.agent.ok_or_else(|| {
        CliError::user("mail belongs to agents and no agent is acting here")
            .hint("pass --as AGENT, set GIT_BEADS_AGENT, or `git beads agent bind NAME`")
    })
}

fn read_body(a: &SendArgs) -> Result<String, CliError> {
    let (source, input): (String, Box<dyn std::io::Read>) = match (&a.body, &a.body_file) {
        (Some(b), _) => return Ok(b.clone()),
        (None, None) => return Ok(String::new()),
        (None, Some(p)) if p.as_os_str() == "-" => ("stdin".into(), Box::new(std::io::stdin())),
        (None, Some(p)) => (
            p.display().to_string(),
            Box::new(
                std::fs::File::open(p)
                    .map_err(|e| CliError::user(format!("could not read {}: {e}", p.display())))?,
            ),
        ),
    };
    // Read no more than a body may hold (and one byte to tell): `/dev/zero` or an
    // endless pipe must end in an error, not in memory running out.
    let limit = crate::ops::MAX_DOCUMENT as u64;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(input, limit + 1), &mut bytes)
        .map_err(|e| CliError::user(format!("could not read {source}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(CliError::user(format!(
            "the body in {source} is larger than the {limit} byte limit"
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| CliError::user(format!("the body in {source} is not UTF-8 text")))
}

/// Runs `mail`.
pub fn run(ctx: &Ctx, cmd: MailCommand, out: &mut Out) -> Result<(), CliError> {
    let message = match cmd {
        MailCommand::Send(a) => {
            let body = read_body(&a)?;
            let m = ops::send(
                &ctx.store,
                &ctx.actor()?,
                NewMessage {
                    to: a.to,
                    cc: a.cc,
                    subject: a.subject,
                    body,
                    priority: a.priority,
                    reply_to: a.reply_to,
                },
            )?;
            if out.json {
                return out.json(&wire::OneMessage { message: &m });
            }
            return out.line(m.id.as_str());
        }
        MailCommand::Inbox(a) => {
            let agent = me(ctx)?;
            let entries = ops::inbox(&ctx.store, &agent, a.all)?;
            let unread = entries.iter().filter(|e| !e.read).count();
            if out.json {
                return out.json(&wire::Inbox {
                    agent: &agent,
                    unread,
                    messages: &entries,
                });
            }
            for e in &entries {
                let m = &e.summary;
                out.line(format!(
                    "{} {:<16} P{} {} from {}: {}",
                    if e.read { " " } else { "*" },
                    m.id,
                    m.priority,
                    m.sent_at().format("%Y-%m-%d %H:%M"),
                    m.from,
                    m.subject
                ))?;
            }
            out.note(format!("{unread} unread of {}", entries.len()));
            return Ok(());
        }
        MailCommand::Read(a) => ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Read)?,
        MailCommand::Peek(a) => ops::peek(&ctx.store, &a.id)?,
        MailCommand::Ack(a) => ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Ack)?,
        MailCommand::Archive(a) => ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Archive)?,
        MailCommand::Reply(a) => {
            let m = ops::reply(&ctx.store, &ctx.actor()?, &a.id, &a.body)?;
            if out.json {
                return out.json(&wire::OneMessage { message: &m });
            }
            return out.line(m.id.as_str());
        }
        MailCommand::Thread(a) => return many(out, &ops::thread(&ctx.store, &a.id)?),
        MailCommand::Search(a) => {
            return many(out, &ops::search_mail(&ctx.store, &me(ctx)?, &a.text)?);
        }
    };
    if out.json {
        return out.json(&wire::OneMessage { message: &message });
    }
    print_message(out, &message)
}

fn many(out: &mut Out, messages: &[Message]) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::Messages { messages });
    }
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.line("")?;
        }
        print_message(out, m)?;
    }
    Ok(())
}

fn print_message(out: &mut Out, m: &Message) -> Result<(), CliError> {
    let to: Vec<&str> = m.delivery.keys().map(AgentName::as_str).collect();
    out.line(format!(
        "{}  P{}  {}",
        m.id,
        m.priority,
        m.sent_at.format("%Y-%m-%d %H:%M")
    ))?;
    out.line(format!("From: {}", m.from))?;
    out.line(format!("To: {}", to.join(", ")))?;
    if let Some(r) = &m.reply_to {
        out.line(format!("In reply to: {r}"))?;
    }
    out.line(format!("Subject: {}", m.subject))?;
    if !m.body.is_empty() {
        out.line("")?;
        for l in m.body.lines() {
            out.line(l)?;
        }
    }
    Ok(())
}
