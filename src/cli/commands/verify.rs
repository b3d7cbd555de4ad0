//! `git beads verify`: who signed each commit of the store, and whether that key
//! could act as the commit's author at that point of history.

use std::path::PathBuf;

use crate::cli::error::{CliError, Kind};
use crate::cli::{Ctx, output::Out};
use crate::ops;
use crate::wire;

/// Arguments of `verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The commits to check: `A..B`, or one revision and every commit it reaches
    /// (default: refs/beads/main).
    pub range: Option<String>,
    /// Write git's allowed-signers file for the store's actors to FILE (for
    /// `gpg.ssh.allowedSignersFile`, so that `git log --show-signature` checks the
    /// same signatures).
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
}

/// Runs `verify`; exits 3 when a commit does not verify.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    if let Some(path) = &args.allowed_signers {
        let text = ops::allowed_signers(&ctx.store)?;
        std::fs::write(path, text).map_err(|e| {
            CliError::new(
                Kind::User,
                format!("could not write {}: {e}", path.display()),
            )
        })?;
        out.note(format!("wrote the allowed signers to {}", path.display()));
    }
    let found = ops::verify(&ctx.store, args.range.as_deref())?;
    if out.json {
        out.json_list(&wire::Verified(&found.commits))?;
    } else {
        for c in found.failures() {
            out.line(format!(
                "{}\t{}\t{}{}\t{}",
                c.commit,
                c.verdict.as_str(),
                c.actor,
                if c.merge { " (merge)" } else { "" },
                c.detail.as_deref().unwrap_or("")
            ))?;
        }
    }
    let failed = found.failures().count();
    out.note(format!(
        "{} of {} commits verify",
        found.commits.len() - failed,
        found.commits.len()
    ));
    if failed > 0 {
        return Err(CliError::new(
            Kind::Conflict,
            format!("{failed} of {} commits do not verify", found.commits.len()),
        ));
    }
    Ok(())
}
