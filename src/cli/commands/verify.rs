//! `git beads verify`: who signed each commit of the store, and whether that key
//! could act as the commit's author at that point of history.

use std::path::PathBuf;

use crate::cli::error::{CliError, Kind};
use crate::cli::{Ctx, output::Out};
use crate::ops::{self, Trust};
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

/// Runs `verify`; exits 3 when a commit was forged or over-reached (with
/// `beads.requireSigned`, when any commit does not verify). An unsigned history is
/// not a forged one: the summary says how far verify vouches for it. Lists the
/// commits that fail, and where some commits verify, those nothing vouches for.
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
        // In a history partly signed, the commits nothing vouches for stand out and
        // are listed; in one nobody signs, the summary counts them.
        let listed: Vec<_> = if found.count(Trust::Good) > 0 {
            found.failures().collect()
        } else {
            found.refused().collect()
        };
        for c in listed {
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
    let total = found.commits.len();
    let mut summary = format!("{} of {total} commits verify", found.count(Trust::Good));
    for (verdict, what) in [
        (Trust::Unsigned, "unsigned"),
        (Trust::Unendorsed, "signed by agent keys nobody endorsed"),
        (
            Trust::Unchecked,
            "signed with gpg or gpgsm (see git verify-commit)",
        ),
    ] {
        let n = found.count(verdict);
        if n > 0 {
            summary.push_str(&format!("; {n} {what}"));
        }
    }
    out.note(summary);
    let refused = found.refused().count();
    if refused > 0 {
        let mut e = CliError::new(
            Kind::Conflict,
            format!("{refused} of {total} commits do not verify"),
        );
        if found.required {
            e = e.hint(
                "beads.requireSigned is set: every commit must be signed by a key verify trusts",
            );
        }
        return Err(e);
    }
    if found.count(Trust::Unsigned) + found.count(Trust::Unendorsed) > 0 {
        out.note(
            "hint: an unsigned commit is not a forged one, but nothing vouches for it; to sign \
             yours: git config gpg.format ssh && git config user.signingKey \
             ~/.ssh/id_ed25519.pub (agents made after that sign with endorsed keys)",
        );
    }
    Ok(())
}
