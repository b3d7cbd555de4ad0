//! The renderer: a table for a person, a versioned JSON document for a program.
//! stdout is data, stderr is talk.
//!
//! Every text line and every note goes out through [`Out`] (or [`warn`]), which
//! escapes the control characters and bidi overrides data may hold
//! ([`model::escape_controls`]), so that a document from a remote cannot move the
//! reader's cursor, retitle the window or reorder what is shown; the colours are
//! `Out`'s own, added after the escaping. JSON, and what [`Out::verbatim`] writes
//! (exports, scripts), stays exact.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};

use serde::Serialize;

use super::error::CliError;
use crate::model::{self, Layout, Status};
use crate::ops::{BeadRow, Broken};
use crate::wire::{JSON_SCHEMA_VERSION, Versioned};

/// Where and how a command writes its results.
pub struct Out {
    /// Print JSON instead of text.
    pub json: bool,
    /// `BD_JSON_ENVELOPE=1`: wrap every document as `{"schema_version":1,"data":…}`.
    envelope: bool,
    quiet: bool,
    color: bool,
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    /// A bead's line as it is put together, reused from one to the next.
    line: String,
    /// What text lines go to instead of stdout, while [`Out::capture`] holds.
    captured: Option<String>,
}

/// Any document, object or array, under `data` (`BD_JSON_ENVELOPE=1`).
#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    schema_version: u32,
    data: &'a T,
}

/// The environment variable that asks for bd's uniform envelope.
pub const ENVELOPE_ENV: &str = "BD_JSON_ENVELOPE";

/// Whether `BD_JSON_ENVELOPE=1` asks for the uniform envelope (as bd reads it).
pub fn envelope_wanted() -> bool {
    std::env::var_os(ENVELOPE_ENV).is_some_and(|v| v == "1")
}

impl Out {
    /// Sets up output; colour only on a terminal and never with `NO_COLOR`.
    pub fn new(json: bool, quiet: bool) -> Out {
        let stdout = std::io::stdout();
        let color = !json && stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Out {
            json,
            envelope: envelope_wanted(),
            quiet,
            color,
            stdout: std::io::BufWriter::new(stdout.lock()),
            line: String::new(),
            captured: None,
        }
    }

    /// Collects the text lines written from now on instead of printing them, until
    /// [`Out::take_captured`] hands them over (a harness that wants them wrapped in JSON).
    pub fn capture(&mut self) {
        self.captured = Some(String::new());
    }

    /// The text lines collected since [`Out::capture`]; printing goes to stdout again.
    pub fn take_captured(&mut self) -> String {
        self.captured.take().unwrap_or_default()
    }

    /// Writes a line of data to stdout, its control characters escaped (a newline
    /// too: text of several lines is printed a line at a time).
    pub fn line(&mut self, text: impl AsRef<str>) -> Result<(), CliError> {
        self.verbatim(&model::escape_controls(text.as_ref(), Layout::Line))
    }

    /// Sends what was written to stdout now (a server prints its URL, then runs).
    pub fn flush(&mut self) -> Result<(), CliError> {
        Ok(self.stdout.flush()?)
    }

    /// Writes `text` and a newline to stdout exactly as they are: for what a program
    /// reads (an export, a completion script), never for data shown to a person.
    pub fn verbatim(&mut self, text: &str) -> Result<(), CliError> {
        if let Some(c) = &mut self.captured {
            c.push_str(text);
            c.push('\n');
            return Ok(());
        }
        self.stdout.write_all(text.as_bytes())?;
        self.stdout.write_all(b"\n")?;
        Ok(())
    }

    /// Silences the talk from here on, as `--quiet` does.
    pub fn hush(&mut self) {
        self.quiet = true;
    }

    /// Whether `--quiet` silences the talk (and progress) on stderr.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Writes talk to stderr, unless `--quiet`, its control characters escaped.
    pub fn note(&self, text: impl AsRef<str>) {
        if !self.quiet {
            warn(text);
        }
    }

    /// Reports documents that do not parse (on stderr, even with `--quiet`: they matter).
    pub fn warn_broken(&self, broken: &[Broken]) {
        for b in broken {
            warn(Out::broken_line(b));
        }
    }

    /// The one line that names a document that does not parse.
    pub fn broken_line(b: &Broken) -> String {
        format!(
            "warning: {} does not parse and was skipped: {}",
            b.path, b.error
        )
    }

    /// Writes an object document: `body`'s fields with `schema_version` beside them
    /// (or `body` under `data` with `BD_JSON_ENVELOPE=1`).
    pub fn json<T: Serialize>(&mut self, body: &T) -> Result<(), CliError> {
        if self.envelope {
            return self.json_list(body);
        }
        let doc = Versioned {
            schema_version: JSON_SCHEMA_VERSION,
            body,
        };
        self.write_json(&doc)
    }

    /// Writes a list document: a bare array, as bd prints lists (or the array under
    /// `data` with `BD_JSON_ENVELOPE=1`).
    pub fn json_list<T: Serialize>(&mut self, list: &T) -> Result<(), CliError> {
        if self.envelope {
            let doc = Envelope {
                schema_version: JSON_SCHEMA_VERSION,
                data: list,
            };
            return self.write_json(&doc);
        }
        self.write_json(list)
    }

    /// Writes a list document whose JSON text `write` puts out itself (a document of
    /// thousands of items, written without building a value per item): a bare array,
    /// or under `data` with `BD_JSON_ENVELOPE=1`, as [`Out::json_list`] writes it.
    /// `write` writes to stdout's file directly, so it buffers what it writes itself.
    pub fn json_list_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), CliError> {
        if self.envelope {
            write!(
                self.stdout,
                "{{\"schema_version\":{JSON_SCHEMA_VERSION},\"data\":"
            )?;
        }
        match unbuffered_stdout() {
            Some(mut file) => {
                self.stdout.flush()?;
                write(&mut file)?;
            }
            None => write(&mut self.stdout)?,
        }
        if self.envelope {
            self.stdout.write_all(b"}")?;
        }
        writeln!(self.stdout)?;
        Ok(())
    }

    fn write_json<T: Serialize>(&mut self, doc: &T) -> Result<(), CliError> {
        serde_json::to_writer(&mut self.stdout, doc)?;
        writeln!(self.stdout)?;
        Ok(())
    }

    /// Flushes stdout.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.stdout.flush()?;
        Ok(())
    }

    /// `text` (escaped) in colour `code` on a terminal.
    fn paint(&self, code: &str, text: &str) -> String {
        let mut painted = String::new();
        self.painted(&mut painted, code, |l| {
            model::push_escaped(l, text, Layout::Line)
        });
        painted
    }

    /// One line per bead: id (in a column `id_width` wide, see [`id_column`]),
    /// priority, status, type, title.
    pub fn summary_line(&mut self, s: &BeadRow<'_>, id_width: usize) -> Result<(), CliError> {
        // Thousands of lines for `ready` or `list --limit 0`, put together in one
        // reused buffer; the data is escaped as it goes in, the colours are added.
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        padded(&mut line, s.id(), id_width);
        line.push(' ');
        let p = s.priority();
        let priority = |l: &mut String| match p {
            0..=9 => {
                l.push('P');
                l.push(char::from(b'0' + p));
            }
            p => {
                // Writing to a String cannot fail.
                let _ = write!(l, "P{p}");
            }
        };
        match p {
            0..=1 => self.painted(&mut line, "31", priority),
            _ => priority(&mut line),
        }
        line.push(' ');
        let status = s.status();
        self.painted(&mut line, status_color(status), |l| {
            padded(l, status.as_str(), 11)
        });
        line.push(' ');
        padded(&mut line, s.kind().as_str(), 8);
        line.push(' ');
        model::push_escaped(&mut line, s.title(), Layout::Line);
        if let Some(a) = s.assignee() {
            line.push_str(" @");
            model::push_escaped(&mut line, a, Layout::Line);
        }
        line.push('\n');
        let written = self.stdout.write_all(line.as_bytes());
        self.line = line;
        Ok(written?)
    }

    /// Appends what `write` puts in `line`, in colour `code` on a terminal.
    fn painted(&self, line: &mut String, code: &str, write: impl FnOnce(&mut String)) {
        if !self.color {
            return write(line);
        }
        line.push_str("\x1b[");
        line.push_str(code);
        line.push('m');
        write(line);
        line.push_str("\x1b[0m");
    }

    /// A bead in full, for `show`: its fields, what it depends on, what depends on it.
    pub fn bead(&mut self, d: &crate::ops::Detailed) -> Result<(), CliError> {
        let b = &d.bead;
        let heading = format!(
            "{}  {}",
            self.paint("1", b.id.as_str()),
            model::escape_controls(&b.title, Layout::Line)
        );
        self.verbatim(&heading)?;
        let status = self.paint(status_color(b.status), b.status.as_str());
        self.verbatim(&format!("  P{} {} · {status}", b.priority, b.kind))?;
        if let Some(a) = &b.assignee {
            self.line(format!("  assignee: {a}"))?;
        }
        if !b.labels.is_empty() {
            let labels: Vec<&str> = b.labels.iter().map(String::as_str).collect();
            self.line(format!("  labels: {}", labels.join(", ")))?;
        }
        self.line(format!(
            "  created {}{} · updated {}{}",
            b.created_at.format("%Y-%m-%d %H:%M"),
            by(&b.created_by),
            b.updated_at.format("%Y-%m-%d %H:%M"),
            by(&b.updated_by)
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
        for (kind, on) in b.all_dependencies() {
            self.line(format!("  depends on {on} ({kind})"))?;
        }
        for (s, kind) in &d.dependents {
            let title = model::escape_controls(&s.title, Layout::Line);
            let (id, status) = (&s.id, s.status);
            self.line(match kind {
                model::DepKind::ParentChild => format!("  child {id} [{status}] {title}"),
                model::DepKind::Blocks => format!("  blocks {id} [{status}] {title}"),
                k => format!("  {id} {} this [{status}] {title}", k.relation()),
            })?;
        }
        for (name, block) in [("description", &b.description), ("notes", &b.notes)] {
            if !block.is_empty() {
                self.line("")?;
                self.line(format!("  {name}:"))?;
                for l in block.lines() {
                    self.line(format!("    {l}"))?;
                }
            }
        }
        if !b.comments.is_empty() {
            self.line("")?;
            self.line("  comments:")?;
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
            self.line("")?;
            self.line("  other fields:")?;
            for (k, v) in &b.extra {
                self.line(format!("    {k}: {v}"))?;
            }
        }
        if !b.conflicts.is_empty() {
            self.line("")?;
            let heading = format!(
                "  {} (resolve with `git beads resolve {}`):",
                self.paint("33", "conflicts"),
                model::escape_controls(b.id.as_str(), Layout::Line)
            );
            self.verbatim(&heading)?;
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
        Status::Custom(_) => "34",
    }
}

/// How wide the id column of [`Out::summary_line`] is for beads of these ids: as wide
/// as the longest (ids are ASCII), and at least 12, so that a list of short ids lines
/// up as it always has.
pub fn id_column<'a>(ids: impl Iterator<Item = &'a str>) -> usize {
    ids.map(str::len).fold(12, usize::max)
}

/// Stdout's file itself (a copy of its descriptor), for a document written in large
/// pieces of its own: stdout's line buffering looks for a newline in every byte that
/// goes through it, a twentieth of the cost of a `blocked --json` of thousands.
#[cfg(unix)]
fn unbuffered_stdout() -> Option<std::fs::File> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    Some(std::fs::File::from(fd))
}

/// Stdout itself, where its file cannot be had (see the Unix version).
#[cfg(not(unix))]
fn unbuffered_stdout() -> Option<std::fs::File> {
    None
}

/// Writes `text` (escaped) left-aligned in `width` characters, as `{:<width}` would.
fn padded(out: &mut String, text: &str, width: usize) {
    let start = out.len();
    model::push_escaped(out, text, Layout::Line);
    let written = &out[start..];
    let chars = match written.is_ascii() {
        true => written.len(),
        false => written.chars().count(),
    };
    let mut pad = width.saturating_sub(chars);
    while pad > 0 {
        const SPACES: &str = "                ";
        let n = pad.min(SPACES.len());
        out.push_str(&SPACES[..n]);
        pad -= n;
    }
}

/// Writes a failure as a JSON object on stderr, as bd does under `--json`:
/// `schema_version` beside `error` and `code` (under `data` with `BD_JSON_ENVELOPE=1`).
pub fn json_error(e: &CliError) {
    let failure = e.to_wire();
    let text = if envelope_wanted() {
        serde_json::to_string(&Envelope {
            schema_version: JSON_SCHEMA_VERSION,
            data: &failure,
        })
    } else {
        serde_json::to_string(&Versioned {
            schema_version: JSON_SCHEMA_VERSION,
            body: &failure,
        })
    };
    match text {
        Ok(text) => to_stderr(&text),
        Err(_) => warn(e.render().trim_end()),
    }
}

/// Writes a warning or other talk to stderr, even with `--quiet`, its control
/// characters escaped (newlines stay).
pub fn warn(text: impl AsRef<str>) {
    to_stderr(&model::escape_controls(text.as_ref(), Layout::Lines));
}

/// Writes one line to stderr; a stderr that is closed or full is not a reason to
/// panic (the exit code still tells the outcome).
fn to_stderr(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// " by WHO", or nothing when nobody is recorded (a bead imported without its author).
fn by(who: &str) -> String {
    if who.is_empty() {
        String::new()
    } else {
        format!(" by {who}")
    }
}
