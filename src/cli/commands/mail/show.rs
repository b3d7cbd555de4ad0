//! `git beads mail read|peek|ack|archive|thread`: the verbs that show messages.

use super::IdArgs;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, Message};
use crate::ops::{self, Mark};
use crate::wire;

/// Runs `mail read`: shows the message and marks it read.
pub fn read(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    one(
        out,
        &ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Read)?,
    )
}

/// Runs `mail peek`: shows the message without marking it.
pub fn peek(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    one(out, &ops::peek(&ctx.store, &a.id)?)
}

/// Runs `mail ack`: says which message it acknowledged (the whole message with
/// --json).
pub fn ack(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    let message = ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Ack)?;
    done(out, "acknowledged", &message)
}

/// Runs `mail archive`: says which message it archived (the whole message with
/// --json).
pub fn archive(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    let message = ops::mark(&ctx.store, &ctx.actor()?, &a.id, Mark::Archive)?;
    done(out, "archived", &message)
}

/// What a verb that marks a message prints: the message under --json, else one line
/// of talk naming it (the reader has read it already).
fn done(out: &mut Out, what: &str, m: &Message) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::OneMessage { message: m });
    }
    out.note(format!("{what} {} from {}: {}", m.id, m.from, m.subject));
    Ok(())
}

/// Prints messages one line each, as `mail inbox` lists them (the whole messages as
/// JSON with --json).
pub(super) fn listed(out: &mut Out, messages: &[Message]) -> Result<(), CliError> {
    if out.json {
        return out.json_list(&wire::Messages { messages });
    }
    for m in messages {
        out.line(format!(
            "{:<16} P{} {} from {}: {}",
            m.id,
            m.priority,
            m.sent_at.format("%Y-%m-%d %H:%M"),
            m.from,
            m.subject
        ))?;
    }
    out.note(crate::model::count(messages.len(), "message"));
    Ok(())
}

/// Runs `mail thread`.
pub fn thread(ctx: &Ctx, a: IdArgs, out: &mut Out) -> Result<(), CliError> {
    many(out, &ops::thread(&ctx.store, &a.id)?)
}

fn one(out: &mut Out, message: &Message) -> Result<(), CliError> {
    if out.json {
        return out.json(&wire::OneMessage { message });
    }
    print_message(out, message)
}

/// Prints messages, a blank line between them.
pub(super) fn many(out: &mut Out, messages: &[Message]) -> Result<(), CliError> {
    if out.json {
        return out.json_list(&wire::Messages { messages });
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
