//! `git beads session resume`.

use super::prime::print_prime;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::BeadId;
use crate::ops;
use crate::wire;

/// Arguments of `session resume`.
#[derive(clap::Args, Debug)]
pub struct ResumeArgs {
    /// The session to resume.
    #[arg(value_parser = BeadId::parse_session)]
    pub id: BeadId,
    /// The worktree to resume in (created when it does not exist; default: this one).
    #[arg(long)]
    pub worktree: Option<std::path::PathBuf>,
    /// Overwrite a worktree that has uncommitted changes.
    #[arg(long)]
    pub force: bool,
}

/// Runs `session resume`, then prints what `prime` prints there.
pub fn run(ctx: &Ctx, a: ResumeArgs, out: &mut Out) -> Result<(), CliError> {
    let r = ops::resume(&ctx.store, &a.id, a.worktree.as_deref(), a.force)?;
    if out.json {
        return out.json(&wire::Resumed::from(&r));
    }
    out.note(format!(
        "resumed {} as session {} in {}",
        r.from,
        r.session.id,
        r.worktree.display()
    ));
    let there = Ctx::new(
        ops::discover(&r.worktree)?,
        Some(r.session.agent.clone()),
        false,
        None,
    );
    print_prime(&there, out, false)
}
