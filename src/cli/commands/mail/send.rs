//! `git beads mail send`.

use crate::cli::commands::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{AgentName, BeadId};
use crate::ops::{self, NewMessage};
use crate::wire;

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
    #[arg(long, value_parser = BeadId::parse_message)]
    pub reply_to: Option<BeadId>,
}

/// Runs `mail send`: prints the new message's id.
pub fn run(ctx: &Ctx, a: SendArgs, out: &mut Out) -> Result<(), CliError> {
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
    out.line(m.id.as_str())
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
