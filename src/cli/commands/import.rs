//! `git beads import FILE`: imports an export of the beads `bd` tracker, or git-beads'
//! own YAML export, as one commit.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::Format;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops::{self, ImportOptions, ImportProgress, OpError};

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

#[derive(Serialize)]
struct BadJson<'a> {
    line: usize,
    error: &'a str,
}

#[derive(Serialize)]
struct Report<'a> {
    source: &'a str,
    format: &'a str,
    records: usize,
    added: usize,
    updated: usize,
    unchanged: usize,
    kept_newer: &'a [String],
    bad: Vec<BadJson<'a>>,
    unmapped_dependencies: usize,
    by_status: &'a BTreeMap<String, usize>,
    by_type: &'a BTreeMap<String, usize>,
    commit: Option<&'a str>,
}

fn read_input(file: &PathBuf) -> Result<(String, String), CliError> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::user(format!("could not read stdin: {e}")))?;
        return Ok(("<stdin>".to_owned(), text));
    }
    let name = file.display().to_string();
    let bytes =
        std::fs::read(file).map_err(|e| CliError::user(format!("cannot read {name}: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| CliError::user(format!("{name} is not UTF-8 text: {e}")))?;
    Ok((name, text))
}

/// Shows progress on stderr when it is a terminal, at most once per percent.
struct Meter {
    on: bool,
    last: Option<(&'static str, usize)>,
}

impl Meter {
    fn show(&mut self, p: ImportProgress) {
        if !self.on || p.total == 0 {
            return;
        }
        let percent = p.done * 100 / p.total;
        if self.last == Some((p.phase, percent)) {
            return;
        }
        self.last = Some((p.phase, percent));
        let mut err = std::io::stderr();
        let _ = write!(
            err,
            "\r{} {}/{} ({percent}%)\x1b[K",
            p.phase, p.done, p.total
        );
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
    let (source, text) = read_input(&args.file)?;
    let options = ImportOptions {
        format: args.format.into(),
        skip_bad: args.skip_bad,
        source: source.clone(),
    };
    let mut meter = Meter {
        on: !out.is_quiet() && std::io::stderr().is_terminal(),
        last: None,
    };
    let result = ops::import(&ctx.store, &actor, &text, &options, &mut |p| meter.show(p));
    meter.clear();
    let report = result.map_err(|e| {
        let bad_input = matches!(e, OpError::Invalid(_));
        let err = CliError::from(e);
        if bad_input && !args.skip_bad {
            err.hint("--skip-bad imports the other records and lists the bad lines")
        } else {
            err
        }
    })?;
    for b in &report.bad {
        eprintln!("warning: {source}:{}: skipped: {}", b.line, b.error);
    }
    if out.json {
        return out.json(&Report {
            source: &source,
            format: options.format.as_str(),
            records: report.records,
            added: report.added,
            updated: report.updated,
            unchanged: report.unchanged,
            kept_newer: &report.kept_newer,
            bad: report
                .bad
                .iter()
                .map(|b| BadJson {
                    line: b.line,
                    error: &b.error,
                })
                .collect(),
            unmapped_dependencies: report.unmapped_dependencies,
            by_status: &report.by_status,
            by_type: &report.by_type,
            commit: report.commit.as_deref(),
        });
    }
    out.note(format!(
        "imported {} records from {source}: {} added, {} updated, {} unchanged{}{}",
        report.records,
        report.added,
        report.updated,
        report.unchanged,
        match report.kept_newer.len() {
            0 => String::new(),
            n => format!(", {n} kept (changed here since)"),
        },
        match report.bad.len() {
            0 => String::new(),
            n => format!(", {n} bad lines skipped"),
        }
    ));
    if report.unmapped_dependencies > 0 {
        out.note(format!(
            "{} dependencies have no equivalent here (a target that is not a bead id, or an \
             unknown kind); they are kept in each bead's extra.bd_dependencies",
            report.unmapped_dependencies
        ));
    }
    if report.commit.is_none() {
        out.note("nothing changed");
    }
    Ok(())
}
