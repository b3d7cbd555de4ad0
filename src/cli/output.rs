//! The renderer: a table for a person, a versioned JSON document for a program.
//! stdout is data, stderr is talk.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use super::error::CliError;
use crate::model::{Bead, Status};
use crate::ops::{BeadRow, Broken};
use crate::wire::JSON_SCHEMA_VERSION;

/// Where and how a command writes its results.
pub struct Out {
    /// Print JSON instead of text.
    pub json: bool,
    quiet: bool,
    color: bool,
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    /// A bead's line as it is put together, reused from one to the next.
    line: Vec<u8>,
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    schema_version: u32,
    #[serde(flatten)]
    body: &'a T,
}

impl Out {
    /// Sets up output; colour only on a terminal and never with `NO_COLOR`.
    pub fn new(json: bool, quiet: bool) -> Out {
        let stdout = std::io::stdout();
        let color = !json && stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Out {
            json,
            quiet,
            color,
            stdout: std::io::BufWriter::new(stdout.lock()),
            line: Vec::new(),
        }
    }

    /// Writes a line of data to stdout.
    pub fn line(&mut self, text: impl AsRef<str>) -> Result<(), CliError> {
        writeln!(self.stdout, "{}", text.as_ref())?;
        Ok(())
    }

    /// Whether `--quiet` silences the talk (and progress) on stderr.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Writes talk to stderr, unless `--quiet`.
    pub fn note(&self, text: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("{}", text.as_ref());
        }
    }

    /// Reports documents that do not parse (on stderr, even with `--quiet`: they matter).
    pub fn warn_broken(&self, broken: &[Broken]) {
        for b in broken {
            eprintln!(
                "warning: {} does not parse and was skipped: {}",
                b.path, b.error
            );
        }
    }

    /// Writes one JSON document: `body`'s fields plus `schema_version`.
    pub fn json<T: Serialize>(&mut self, body: &T) -> Result<(), CliError> {
        serde_json::to_writer(
            &mut self.stdout,
            &Envelope {
                schema_version: JSON_SCHEMA_VERSION,
                body,
            },
        )?;
        writeln!(self.stdout)?;
        Ok(())
    }

    /// Flushes stdout.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.stdout.flush()?;
        Ok(())
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// One line per bead: id, priority, status, type, title.
    pub fn summary_line(&mut self, s: &BeadRow<'_>) -> Result<(), CliError> {
        if !self.color {
            // The common case (a pipe, an agent reading): thousands of lines for `ready`
            // or `list --limit 0`, written straight out without building strings.
            let line = &mut self.line;
            line.clear();
            padded(line, s.id(), 12);
            match s.priority() {
                p @ 0..=9 => line.extend_from_slice(&[b' ', b'P', b'0' + p, b' ']),
                p => line.extend_from_slice(format!(" P{p} ").as_bytes()),
            }
            padded(line, s.status().as_str(), 11);
            line.push(b' ');
            padded(line, s.kind().as_str(), 8);
            line.push(b' ');
            line.extend_from_slice(s.title().as_bytes());
            if let Some(a) = s.assignee() {
                line.extend_from_slice(b" @");
                line.extend_from_slice(a.as_bytes());
            }
            line.push(b'\n');
            self.stdout.write_all(line)?;
            return Ok(());
        }
        let priority = format!("P{}", s.priority());
        let priority = if s.priority() <= 1 {
            self.paint("31", &priority)
        } else {
            priority
        };
        let status = self.paint(
            status_color(s.status()),
            &format!("{:<11}", s.status().as_str()),
        );
        let assignee = s.assignee().map(|a| format!(" @{a}")).unwrap_or_default();
        let line = format!(
            "{:<12} {priority} {status} {:<8} {}{assignee}",
            s.id(),
            s.kind().as_str(),
            s.title()
        );
        self.line(line)
    }

    /// A bead in full, for `show`.
    pub fn bead(&mut self, b: &Bead) -> Result<(), CliError> {
        let status = self.paint(status_color(b.status), b.status.as_str());
        self.line(format!(
            "{}  {}\n  P{} {} · {status}",
            self.paint("1", b.id.as_str()),
            b.title,
            b.priority,
            b.kind
        ))?;
        if let Some(a) = &b.assignee {
            self.line(format!("  assignee: {a}"))?;
        }
        if !b.labels.is_empty() {
            let labels: Vec<&str> = b.labels.iter().map(String::as_str).collect();
            self.line(format!("  labels: {}", labels.join(", ")))?;
        }
        self.line(format!(
            "  created {} by {} · updated {} by {}",
            b.created_at.format("%Y-%m-%d %H:%M"),
            b.created_by,
            b.updated_at.format("%Y-%m-%d %H:%M"),
            b.updated_by
        ))?;
        if let Some(at) = b.closed_at {
            let reason = b.close_reason.as_deref().unwrap_or("no reason given");
            self.line(format!(
                "  closed {}: {reason}",
                at.format("%Y-%m-%d %H:%M")
            ))?;
        }
        if let Some(at) = b.deleted_at {
            let by = b.deleted_by.as_deref().unwrap_or("?");
            let reason = b.delete_reason.as_deref().unwrap_or("no reason given");
            self.line(format!(
                "  deleted {} by {by}: {reason}",
                at.format("%Y-%m-%d %H:%M")
            ))?;
        }
        for d in &b.dependencies {
            self.line(format!("  depends on {} ({})", d.id, d.kind))?;
        }
        for (name, block) in [("description", &b.description), ("notes", &b.notes)] {
            if !block.is_empty() {
                self.line(format!("\n  {name}:"))?;
                for l in block.lines() {
                    self.line(format!("    {l}"))?;
                }
            }
        }
        if !b.comments.is_empty() {
            self.line("\n  comments:")?;
            for c in &b.comments {
                self.line(format!(
                    "    [{}] {}:",
                    c.created_at.format("%Y-%m-%d %H:%M"),
                    c.author
                ))?;
                for l in c.text.lines() {
                    self.line(format!("      {l}"))?;
                }
            }
        }
        if !b.extra.is_empty() {
            self.line("\n  other fields:")?;
            for (k, v) in &b.extra {
                self.line(format!("    {k}: {v}"))?;
            }
        }
        if !b.conflicts.is_empty() {
            self.line(format!(
                "\n  {} (resolve with `git beads resolve {}`):",
                self.paint("33", "conflicts"),
                b.id
            ))?;
            for c in &b.conflicts {
                self.line(format!(
                    "    {}: lost value {} (set by {} at {})",
                    c.field,
                    c.value,
                    c.actor,
                    c.at.format("%Y-%m-%d %H:%M")
                ))?;
            }
        }
        Ok(())
    }
}

fn status_color(s: Status) -> &'static str {
    match s {
        Status::Open => "32",
        Status::InProgress | Status::Hooked => "36",
        Status::Blocked | Status::Deferred => "33",
        Status::Closed | Status::Deleted => "2",
        Status::Pinned => "35",
    }
}

/// Writes `text` left-aligned in `width` characters, as `{:<width}` would.
fn padded(out: &mut Vec<u8>, text: &str, width: usize) {
    out.extend_from_slice(text.as_bytes());
    let chars = match text.is_ascii() {
        true => text.len(),
        false => text.chars().count(),
    };
    out.resize(out.len() + width.saturating_sub(chars), b' ');
}
