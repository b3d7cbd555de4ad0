//! The renderers several commands share: a hook item with its molecule checklist
//! (`hook`, `prime`), a molecule step (`mol progress`, `hook`), a budget (`agent show`,
//! `session show`), a session's usage, history (`log`, `session log`). The summary line and the full bead
//! are `Out`'s own (`output.rs`).

use super::{error::CliError, output::Out};
use crate::model::{Budget, Usage, count};
use crate::ops::{ChecklistItem, HookItem, LogEntry, StepState};
use crate::wire;

/// Prints one hook item, with its molecule checklist when it is one.
pub fn hook_item(out: &mut Out, item: &HookItem) -> Result<(), CliError> {
    let b = &item.bead;
    out.line(format!(
        "  {} [{}] P{} {}",
        b.id, b.status, b.priority, b.title
    ))?;
    if let Some(p) = &item.progress {
        out.line(format!(
            "    progress: {}/{} — {}",
            p.done,
            p.total,
            p.position()
        ))?;
        for s in &p.steps {
            out.line(format!("    {}", step_line(s)))?;
            // The step to work on now is spelled out, so that a fresh session can start.
            for l in s.description.iter().flat_map(|d| d.lines()) {
                out.line(format!("          {l}"))?;
            }
            if let Some(a) = &s.acceptance {
                out.line(format!("          acceptance: {a}"))?;
            }
        }
        checklist(out, &p.checklist, "    ")?;
    }
    Ok(())
}

/// A molecule's checklist, the steps that were not poured, each spelled out in full
/// (they are the work itself), every line after `indent`.
pub fn checklist(out: &mut Out, items: &[ChecklistItem], indent: &str) -> Result<(), CliError> {
    for (n, c) in items.iter().enumerate() {
        out.line(format!("{indent}{}. {} ({})", n + 1, c.title, c.step))?;
        for l in c.description.lines() {
            out.line(format!("{indent}      {l}"))?;
        }
    }
    Ok(())
}

/// One line of a molecule's checklist: `[x]` done, `[>]` ready now, `[ ]` waiting.
pub fn step_line(s: &StepState) -> String {
    let mark = if s.status.is_done() {
        "x"
    } else if s.ready {
        ">"
    } else {
        " "
    };
    format!("[{mark}] {} {} ({})", s.id, s.title, s.status)
}

/// A session's usage: "3 turns, 1 token, $0.00, 1 tool call".
pub fn usage_text(u: &Usage) -> String {
    let unknown = if u.unpriced_turns > 0 {
        format!(" (spend unknown for {})", count(u.unpriced_turns, "turn"))
    } else {
        String::new()
    };
    let per_turn = match u.per_turn() {
        Some((tokens, spend)) => format!("; per turn {} tokens, ${spend:.2}", tokens),
        None => String::new(),
    };
    format!(
        "{}, {}, ${:.2}{unknown}, {}{per_turn}",
        count(u.turns, "turn"),
        count(u.tokens, "token"),
        u.spend,
        count(u.tool_calls, "tool call")
    )
}

/// A budget in the same words `--budget` takes.
pub fn budget_text(b: &Budget) -> String {
    let mut parts = Vec::new();
    if let Some(t) = b.tokens {
        parts.push(format!("tokens={t}"));
    }
    if let Some(s) = b.spend {
        parts.push(format!("spend={s}"));
    }
    if let Some(t) = b.tool_calls {
        parts.push(format!("tool-calls={t}"));
    }
    if let Some(w) = b.wall_secs {
        parts.push(format!("wall={w}s"));
    }
    parts.join(",")
}

/// Prints history entries: JSON, or one line per step with its changes or diffs.
pub fn log(out: &mut Out, entries: &[LogEntry]) -> Result<(), CliError> {
    if out.json {
        return out.json_list(&wire::Log::new(entries));
    }
    for e in entries {
        let subject = e.message.lines().next().unwrap_or_default();
        let verdict = e
            .evidence
            .as_ref()
            .map(|v| format!(" [{}]", v.verdict.as_str()))
            .unwrap_or_default();
        out.line(format!(
            "{} {} {} {subject}{verdict}",
            &e.commit[..e.commit.len().min(10)],
            e.time.format("%Y-%m-%d %H:%M"),
            e.author
        ))?;
        for c in &e.changes {
            match &c.diff {
                Some(diff) => {
                    for l in diff.lines().filter(|l| !l.starts_with("@@")) {
                        out.line(format!("    {l}"))?;
                    }
                }
                None => out.line(format!("    {} {}", c.kind, c.path))?,
            }
        }
    }
    Ok(())
}
