//! `git beads session snapshot`.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops;
use crate::wire;

/// Runs `session snapshot`.
pub fn run(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let (s, snap) = ops::snapshot(&ctx.store, &ctx.actor()?)?;
    if out.json {
        return out.json(&wire::Snapped {
            session: &s,
            snapshot: snap.as_ref(),
        });
    }
    match snap {
        Some(x) => out.note(format!(
            "snapshot {} of session {}: tree {}{}",
            x.n,
            s.id,
            x.tree,
            if x.skipped.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} over the size cap left out",
                    count(x.skipped.len(), "file")
                )
            }
        )),
        None => out.note("nothing changed since the last snapshot"),
    }
    Ok(())
}
