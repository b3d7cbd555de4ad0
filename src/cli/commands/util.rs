//! What every command uses: reading bead ids as given (a prefix left out, the bead
//! last touched), printing beads and guides, reading a text file, and the flags and
//! values several commands share (jj keeps the same in its `cli_util.rs`).

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::model::{BeadId, Status};
use crate::ops;

/// The data formats `import` reads and `export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The beads `bd` tracker's JSONL (one issue per line, `.beads/issues.jsonl`).
    BdJsonl,
    /// git-beads' own documents, each introduced by `---`: lossless.
    Yaml,
}

impl From<Format> for crate::ops::DataFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::BdJsonl => crate::ops::DataFormat::BdJsonl,
            Format::Yaml => crate::ops::DataFormat::Yaml,
        }
    }
}

/// Where a claim, or its end, is confirmed: the flags `update --claim`, `ready
/// --claim`, `sling`, `close` and `release` share.
#[derive(clap::Args, Debug, Default)]
pub struct ClaimArgs {
    /// Answer only once REMOTE holds it: a claim there, so no other machine can win the
    /// bead too; a close or release with the bead's claim ref there deleted (default:
    /// the beads.claimRemote config key's remote, if set).
    #[arg(long, value_name = "REMOTE", conflicts_with = "offline")]
    pub remote: Option<String>,
    /// Work on this machine only, even with beads.claimRemote set: another machine may
    /// claim the bead too (a later sync records the contest in conflicts:), and a claim
    /// ref a close or release frees stays on the remote until a sync.
    #[arg(long)]
    pub offline: bool,
}

impl ClaimArgs {
    /// Refuses these flags on a command that claims nothing (`update` without `--claim`,
    /// `ready` without `--claim`), rather than ignoring them.
    pub fn only_with_claim(&self, claim: bool) -> Result<(), CliError> {
        if claim || (self.remote.is_none() && !self.offline) {
            return Ok(());
        }
        Err(CliError::new(
            crate::cli::error::Kind::Usage,
            "--remote and --offline say where a claim is confirmed: they need --claim",
        ))
    }

    /// The remote to confirm a claim on, if any; says so when a claim is offline.
    pub fn remote(&self, ctx: &Ctx, out: &Out) -> Result<Option<String>, CliError> {
        self.remote_or(
            ctx,
            out,
            "claiming offline: another machine may claim it too, and a sync will contest it",
        )
    }

    /// The remote to confirm the end of a claim on (`close`, `release`), if any; says
    /// so when it is offline.
    pub fn finish_remote(&self, ctx: &Ctx, out: &Out) -> Result<Option<String>, CliError> {
        self.remote_or(
            ctx,
            out,
            "offline: only this machine knows; a sync publishes it and frees the claim on the remote",
        )
    }

    fn remote_or(&self, ctx: &Ctx, out: &Out, offline: &str) -> Result<Option<String>, CliError> {
        let remote = ops::claim_remote(&ctx.store, self.remote.as_deref(), self.offline)?;
        if self.offline {
            out.note(offline);
        }
        Ok(remote)
    }
}

/// Parses a priority as `0`…`4` or `P0`…`P4`.
pub fn parse_priority(s: &str) -> Result<u8, String> {
    let digits = s.strip_prefix(['P', 'p']).unwrap_or(s);
    match digits.parse::<u8>() {
        Ok(p) if p <= 4 => Ok(p),
        _ => Err(format!(
            "{s:?} is not a priority (0 = critical … 4 = backlog, or P0 … P4)"
        )),
    }
}

/// Parses one dependency, `ID` or `KIND:ID` (see [`crate::model::parse_dep`]).
pub use crate::model::parse_dep;

/// Prints beads in full as `bd show` does: a bare array, each bead with what it
/// depends on and how many depend on it.
pub(crate) fn print_beads(
    ctx: &Ctx,
    out: &mut Out,
    beads: Vec<crate::model::Bead>,
) -> Result<(), CliError> {
    let detailed = crate::ops::detail(&ctx.store, beads)?;
    out.json_list(&crate::wire::Beads::detailed(&detailed))
}

/// The bead `given` names: an id, or an id without its prefix where unambiguous.
/// Text that cannot be an id is a usage error, as clap reports a malformed value.
pub(crate) fn resolve_id(ctx: &Ctx, given: &str) -> Result<BeadId, CliError> {
    crate::ops::resolve_id(&ctx.store, given).map_err(|e| match e {
        crate::ops::OpError::Id(e) => CliError::new(crate::cli::error::Kind::Usage, e.to_string()),
        e => e.into(),
    })
}

/// Prints a guide (`onboard`, `quickstart`): its text, or `{guide, text}` with --json.
pub(crate) fn print_guide(out: &mut Out, guide: &str, text: &str) -> Result<(), CliError> {
    if out.json {
        return out.json(&crate::wire::Guide { guide, text });
    }
    for line in text.lines() {
        out.line(line)?;
    }
    Ok(())
}

/// What a dependency given as text points at: an item of another project
/// (`external:<project>:<id>`) or a bead (see [`resolve_id`]).
pub(crate) fn resolve_target(ctx: &Ctx, given: &str) -> Result<crate::model::DepTarget, CliError> {
    crate::ops::resolve_target(&ctx.store, given).map_err(|e| match e {
        crate::ops::OpError::Id(e) => CliError::new(crate::cli::error::Kind::Usage, e.to_string()),
        e => e.into(),
    })
}

/// The beads `given` names (see [`resolve_id`]).
pub(crate) fn resolve_ids(ctx: &Ctx, given: &[String]) -> Result<Vec<BeadId>, CliError> {
    given.iter().map(|g| resolve_id(ctx, g)).collect()
}

/// The beads `given` names, or, when it names none, the bead last touched in this
/// worktree (as bd's `show`, `update` and `close` take it).
pub(crate) fn ids_or_last(ctx: &Ctx, given: &[String]) -> Result<Vec<BeadId>, CliError> {
    if !given.is_empty() {
        return resolve_ids(ctx, given);
    }
    match ops::last_touched(&ctx.store)? {
        Some(id) => Ok(vec![id]),
        None => Err(CliError::new(
            Kind::Usage,
            "no bead id given, and no bead was touched in this worktree yet",
        )
        .hint(
            "name the bead; `create`, `show`, `update` and `comment` remember the one they touch",
        )),
    }
}

/// Remembers `id` as the bead last touched here. Best effort, as bd's is: a command
/// that did its work does not fail over this convenience.
pub(crate) fn touched(ctx: &Ctx, id: &BeadId) {
    let _ = ops::touch(&ctx.store, id);
}

/// Reads a text file, or stdin for `-`.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, CliError> {
    use std::io::Read as _;
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::user(format!("cannot read stdin: {e}")))?;
    } else {
        text = std::fs::read_to_string(path)
            .map_err(|e| CliError::user(format!("cannot read {}: {e}", path.display())))?;
    }
    Ok(text)
}

/// `text` cut to `max` characters when it is longer, its last ones then `mark`: bd
/// ends a title cut in a drawing with `…` (`truncateTitle`), a task's in `todo` with
/// `...`.
pub(crate) fn cut_to(text: &str, max: usize, mark: &str) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text
        .chars()
        .take(max.saturating_sub(mark.chars().count()))
        .collect();
    kept + mark
}

/// bd's icon of a status, as its lists and drawings show it.
pub fn status_icon(status: Status) -> &'static str {
    match status {
        Status::Open => "○",
        Status::InProgress => "◐",
        Status::Blocked => "●",
        Status::Closed => "✓",
        Status::Deferred => "❄",
        Status::Pinned => "📌",
        _ => "◇",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DepKind;

    /// Text within the bound stays whole; longer text keeps `max` characters in all,
    /// the mark included, counted in characters, not bytes.
    #[test]
    fn text_is_cut_to_its_bound_with_its_mark() {
        assert_eq!(cut_to("abcdef", 6, "…"), "abcdef");
        assert_eq!(cut_to("abcdefg", 6, "…"), "abcde…");
        assert_eq!(cut_to("abcdefg", 6, "..."), "abc...");
        assert_eq!(cut_to("ééééééé", 6, "…"), "ééééé…");
    }

    #[test]
    fn priorities() {
        assert_eq!(parse_priority("P1"), Ok(1));
        assert_eq!(parse_priority("4"), Ok(4));
        assert!(parse_priority("5").is_err());
        assert!(parse_priority("-1").is_err());
    }

    #[test]
    fn deps() {
        assert_eq!(parse_dep("bd-a1").map(|d| d.kind), Ok(DepKind::Blocks));
        assert_eq!(
            parse_dep(" related:bd-b2").map(|d| d.kind),
            Ok(DepKind::Related)
        );
        assert!(parse_dep("nope:bd-a1").is_err());
        assert!(parse_dep("bd-a1/..").is_err());
    }
}
