//! `git beads export`: writes every bead out, as the beads `bd` tracker's JSONL or as
//! git-beads' own YAML.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Format;
use crate::cli::{Ctx, error::CliError, output::Out};
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

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
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
        None => out.line(export.text.trim_end_matches('\n')),
        Some(path) => {
            write_atomically(path, &export.text)
                .map_err(|e| CliError::user(format!("could not write {}: {e}", path.display())))?;
            if out.json {
                return out.json(&wire::Exported {
                    format: format.as_str(),
                    path,
                    beads: export.beads,
                    broken: &export.broken,
                });
            }
            out.note(format!(
                "exported {} beads to {}",
                export.beads,
                path.display()
            ));
            Ok(())
        }
    }
}
