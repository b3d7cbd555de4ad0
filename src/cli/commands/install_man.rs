//! `git beads install-man`: puts the manual pages where `man` (and so `git help beads`
//! and `git beads --help`) finds them.

use std::path::PathBuf;

use crate::cli::{
    error::CliError,
    man,
    output::{Out, warn},
};
use crate::wire;

/// Arguments of `install-man`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Install into DIR/man1 instead (DIR is a man directory, as in MANPATH).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// What `man -w git-beads` resolves to, or `None` when `man` cannot be run.
fn man_finds() -> Option<Option<PathBuf>> {
    let out = std::process::Command::new("man")
        .args(["-w", man::MAIN_PAGE])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return Some(None);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next().map(|l| PathBuf::from(l.trim())))
}

/// Runs `install-man`.
pub fn run(args: Args, out: &mut Out) -> Result<(), CliError> {
    let dir = match args.dir {
        Some(d) => d,
        None => man::default_install_dir()
            .map_err(|e| CliError::user(format!("cannot find where this binary lives: {e}")))?,
    };
    let written = man::install(&dir).map_err(|e| {
        CliError::user(format!(
            "could not write the manual pages into {}: {e}",
            dir.join("man1").display()
        ))
        .hint("choose a writable man directory with --dir")
    })?;
    let ours = std::fs::canonicalize(dir.join("man1").join(format!("{}.1", man::MAIN_PAGE))).ok();
    let found = man_finds().map(|found| {
        found
            .and_then(|p| std::fs::canonicalize(p).ok())
            .is_some_and(|p| Some(&p) == ours.as_ref())
    });
    if out.json {
        return out.json(&wire::ManInstalled {
            dir: &dir,
            pages: written.len(),
            found_by_man: found,
        });
    }
    out.note(format!(
        "installed {} manual pages in {}",
        written.len(),
        dir.join("man1").display()
    ));
    match found {
        Some(true) => out.note("`git help beads` and `git beads --help` open them"),
        Some(false) => warn(format!(
            "warning: `man -w {}` does not find them (yet): put the directory of git-beads on \
             PATH, or add {} to MANPATH (export MANPATH=\"{}:$MANPATH\")",
            man::MAIN_PAGE,
            dir.display(),
            dir.display()
        )),
        None => warn("warning: `man` is not installed, so `git help beads` cannot show them"),
    }
    Ok(())
}
