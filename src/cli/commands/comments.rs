//! `git beads comments` and `git beads comment`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `comments`: show a bead's comments, or `comments add`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CommentsArgs {
    /// The bead whose comments to show.
    pub id: Option<BeadId>,
    /// Add a comment.
    #[command(subcommand)]
    pub add: Option<CommentsCommand>,
}

/// The verbs of `comments`.
#[derive(clap::Subcommand, Debug)]
pub enum CommentsCommand {
    /// Add a comment to a bead.
    Add(AddArgs),
}

/// Arguments of `comments add` and `comment`.
#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// The bead.
    pub id: BeadId,
    /// The comment.
    pub text: String,
    /// Who wrote it (default: you).
    #[arg(long)]
    pub author: Option<String>,
}

/// Runs `comments`.
pub fn comments(ctx: &Ctx, args: CommentsArgs, out: &mut Out) -> Result<(), CliError> {
    if let Some(CommentsCommand::Add(a)) = args.add {
        return add(ctx, a, out);
    }
    let Some(id) = args.id else {
        return Err(CliError::new(
            crate::cli::error::Kind::Usage,
            "name a bead: `git beads comments ID` or `git beads comments add ID TEXT`",
        ));
    };
    let bead = ops::show(&ctx.store, std::slice::from_ref(&id))?.remove(0);
    if out.json {
        return out.json_list(&wire::Comments::new(&id, &bead.comments));
    }
    for c in &bead.comments {
        out.line(format!(
            "[{}] {}:",
            c.created_at.format("%Y-%m-%d %H:%M"),
            c.author
        ))?;
        for l in c.text.lines() {
            out.line(format!("  {l}"))?;
        }
    }
    if bead.comments.is_empty() {
        out.note(format!("{id} has no comments"));
    }
    Ok(())
}

/// Runs `comment` / `comments add`.
pub fn add(ctx: &Ctx, a: AddArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let comment = ops::add_comment(&ctx.store, &actor, &a.id, &a.text, a.author.as_deref())?;
    super::touched(ctx, &a.id);
    if out.json {
        return out.json(&wire::CommentAdded::new(&a.id, &comment));
    }
    out.note(format!("commented on {}", a.id));
    Ok(())
}
