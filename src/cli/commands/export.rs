//! `git beads export`: writes every bead out, as the beads `bd` tracker's JSONL or as
//! git-beads' own YAML.

use std::path::PathBuf;

use super::Format;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::count;
use crate::ops;
use crate::wire;

/// Arguments of `export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The format.
    #[arg(short, long, value_enum, default_value = "bd-jsonl")]
    pub format: Format,
    /// Write to FILE (replaced atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `export`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let format = crate::ops::DataFormat::from(args.format);
    if out.json && args.output.is_none() {
        return Err(CliError::user(
            "export writes its data to stdout; with --json, name a file with -o FILE",
        ));
    }
    let export = ops::export(&ctx.store, format)?;
    out.warn_broken(&export.broken);
    match &args.output {
        None if export.text.is_empty() => Ok(()),
        None => out.verbatim(export.text.trim_end_matches('\n')),
        Some(path) => {
            ops::replace_file(path, export.text.as_bytes(), true)
                .map_err(|e| CliError::user(format!("could not write {}: {e}", path.display())))?;
            if out.json {
                return out.json(&wire::Exported {
                    format: format.as_str(),
                    path,
                    beads: export.beads,
                    broken: wire::unreadable(&export.broken),
                });
            }
            out.note(format!(
                "exported {} to {}",
                count(export.beads, "bead"),
                path.display()
            ));
            Ok(())
        }
    }
}
