//! `git beads diff FROM TO`: bd's changes in the beads between two states of the
//! store, each a revision of `refs/beads/main` or a moment.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Layout, escape_controls};
use crate::ops::{self, ChangeKind};
use crate::wire::{self, FieldChange};

/// Arguments of `diff`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The first state: a revision naming a store commit (`HEAD~3`, as in bd, is the
    /// store's head three commits back; `refs/beads/main@{1}`, a commit id), or a date
    /// (`2026-12-01`, its first second UTC) or RFC 3339 time: the store as it was then.
    pub from: String,
    /// The second state, as FROM.
    pub to: String,
}

/// Fields a person does not need to read in a diff: they change with every write.
const QUIET: &[&str] = &[
    "updated_at",
    "updated_by",
    "dependency_count",
    "comment_count",
];

/// Fields shown by name alone: their text is long.
const LONG: &[&str] = &[
    "title",
    "description",
    "notes",
    "design",
    "acceptance_criteria",
];

/// Runs `diff`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let diff = ops::diff_states(&ctx.store, &args.from, &args.to)?;
    let doc = wire::Diff::new(&diff)?;
    if out.json {
        return out.json_list(&doc);
    }
    let (from, to) = (&args.from, &args.to);
    if diff.beads.is_empty() {
        return out.line(format!("No changes between {from} and {to}"));
    }
    out.line("")?;
    out.line(format!(
        "📊 Changes from {from} to {to} ({} issues affected)",
        diff.beads.len()
    ))?;
    out.line("")?;
    let sections = [
        (ChangeKind::Added, "+", "Added"),
        (ChangeKind::Modified, "~", "Modified"),
        (ChangeKind::Removed, "-", "Removed"),
    ];
    for (kind, mark, title) in sections {
        let entries: Vec<_> = (diff.beads.iter().zip(&doc.0))
            .filter(|(d, _)| d.kind == kind)
            .collect();
        if entries.is_empty() {
            continue;
        }
        out.line(format!("{mark} {title} ({}):", entries.len()))?;
        for (d, entry) in entries {
            let line = match d.new.as_ref().or(d.old.as_ref()) {
                Some(b) if kind != ChangeKind::Modified => {
                    format!("{}: {}", d.id, escape_controls(&b.title, Layout::Line))
                }
                _ => match changes_text(&entry.changes) {
                    Some(text) => format!("{} ({text})", d.id),
                    None => d.id.to_string(),
                },
            };
            out.line(format!("  {mark} {line}"))?;
        }
        out.line("")?;
    }
    Ok(())
}

/// The changed fields as bd lists them: `title, status: open -> closed, priority: P2
/// -> P1`, a short value shown old -> new, a long text by name.
fn changes_text(changes: &[FieldChange]) -> Option<String> {
    let parts: Vec<String> = changes
        .iter()
        .filter(|c| !QUIET.contains(&c.field.as_str()))
        .map(|c| {
            let (old, new) = (scalar(&c.old), scalar(&c.new));
            match (old, new) {
                (Some(o), Some(n)) if !LONG.contains(&c.field.as_str()) => {
                    if c.field == "priority" {
                        format!("priority: P{o} -> P{n}")
                    } else {
                        format!("{}: {o} -> {n}", c.field)
                    }
                }
                _ => c.field.clone(),
            }
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A JSON value short enough to show on the line: a number, a word, a short string
/// (`-` for none).
fn scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => Some("-".into()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::String(s) if s.chars().count() <= 40 && !s.contains('\n') => {
            Some(escape_controls(s, Layout::Line).into_owned())
        }
        _ => None,
    }
}
