//! `git beads import FILE`: imports an export of the beads `bd` tracker, or git-beads'
//! own YAML export, as one commit.

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;

use super::Format;
use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
use crate::model::count;
use crate::ops::{self, ImportOptions, ImportProgress};
use crate::wire;

/// Arguments of `import`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The file to import (`-` reads stdin).
    pub file: PathBuf,
    /// The format of the file.
    #[arg(short, long, value_enum, default_value = "bd-jsonl")]
    pub format: Format,
    /// Import the good records and list the bad lines, instead of importing nothing.
    #[arg(long)]
    pub skip_bad: bool,
}

/// What to import from, read as the import goes.
struct Input {
    /// Its name, for messages.
    name: String,
    reader: Box<dyn BufRead>,
    /// Its size in bytes, when known.
    size: Option<u64>,
}

fn open_input(file: &PathBuf) -> Result<Input, CliError> {
    if file.as_os_str() == "-" {
        return Ok(Input {
            name: "<stdin>".to_owned(),
            reader: Box::new(BufReader::new(std::io::stdin())),
            size: None,
        });
    }
    let name = file.display().to_string();
    let opened = std::fs::File::open(file)
        .map_err(|e| CliError::user(format!("cannot read {name}: {e}")))?;
    let size = opened.metadata().ok().map(|m| m.len());
    Ok(Input {
        name,
        reader: Box::new(BufReader::new(opened)),
        size,
    })
}

/// Shows progress on stderr when it is a terminal, at most once per percent (of the
/// input's size when it is known, else every thousand records).
struct Meter {
    on: bool,
    size: Option<u64>,
    last: Option<u64>,
}

impl Meter {
    fn show(&mut self, p: ImportProgress) {
        if !self.on {
            return;
        }
        let step = match self.size {
            Some(size) if size > 0 => p.read * 100 / size,
            _ => p.records as u64 / 1000,
        };
        if self.last == Some(step) {
            return;
        }
        self.last = Some(step);
        let mut err = std::io::stderr();
        let _ = match self.size {
            Some(size) if size > 0 => {
                write!(
                    err,
                    "\rimporting: {} ({step}%)\x1b[K",
                    count(p.records, "record")
                )
            }
            _ => write!(err, "\rimporting: {}\x1b[K", count(p.records, "record")),
        };
        let _ = err.flush();
    }

    fn clear(&self) {
        if self.on && self.last.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}

/// Runs `import`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let Input {
        name: source,
        reader: mut input,
        size,
    } = open_input(&args.file)?;
    let options = ImportOptions {
        format: args.format.into(),
        skip_bad: args.skip_bad,
        source: source.clone(),
    };
    let mut meter = Meter {
        on: !out.is_quiet() && std::io::stderr().is_terminal(),
        size,
        last: None,
    };
    let result = ops::import(&ctx.store, &actor, &mut input, &options, &mut |p| {
        meter.show(p)
    });
    meter.clear();
    let report = result?;
    for b in &report.bad {
        output::warn(format!(
            "warning: {source}:{}: skipped: {}",
            b.line, b.error
        ));
    }
    if out.json {
        return out.json(&wire::Imported::new(
            &source,
            options.format.as_str(),
            &report,
        ));
    }
    out.note(format!(
        "imported {} from {source}: {} added, {} updated, {} unchanged{}{}",
        count(report.records, "record"),
        report.added,
        report.updated,
        report.unchanged,
        match report.kept_newer.len() {
            0 => String::new(),
            n => format!(", {n} kept (changed here since)"),
        },
        match report.bad.len() {
            0 => String::new(),
            n => format!(", {} skipped", count(n, "bad line")),
        }
    ));
    if report.unmapped_dependencies > 0 {
        out.note(format!(
            "{} without an equivalent here (a target that is not a bead id, or an \
             unknown kind): kept in each bead's extra.bd_dependencies",
            count(report.unmapped_dependencies, "dependency")
        ));
    }
    if report.commit.is_none() {
        out.note("nothing changed");
    }
    Ok(())
}
