//! `git beads batch`: bd's batch of writes, read from stdin or a file, one a line,
//! made in one transaction (one commit), or none with the bad line named.
//!
//! The grammar is bd's: `close ID [REASON…]`, `update ID KEY=VALUE…` (status,
//! priority, title, assignee), `create TYPE PRIORITY TITLE…`, `dep add FROM TO
//! [TYPE]`, `dep remove FROM TO`; blank lines and `#` comments are skipped; tokens
//! are split on blanks, and a double-quoted token may hold blanks (`\"` and `\\`
//! inside it are a quote and a backslash).

use std::path::PathBuf;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadType, DepKind, Status};
use crate::ops::{self, BatchLine, BatchOp};
use crate::wire::{BatchResult, Batched};

/// Arguments of `batch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the lines from this file instead of stdin.
    #[arg(short, long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only read and check the lines, and say what would run; write nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// The commit's subject (default: `batch: N operations`).
    #[arg(short, long)]
    pub message: Option<String>,
}

/// Runs `batch`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    let text = super::read_text(a.file.as_deref().unwrap_or(std::path::Path::new("-")))?;
    let lines = parse(&text).map_err(CliError::user)?;
    if a.dry_run {
        if out.json {
            return out.json(&Batched {
                dry_run: true,
                operations: lines.len(),
                status: None,
                results: None,
            });
        }
        for l in &lines {
            out.line(format!("line {}: {}", l.line, l.text))?;
        }
        return out.line(format!(
            "{} operations parsed (dry-run, nothing executed)",
            lines.len()
        ));
    }
    let done = match lines.is_empty() {
        true => Vec::new(),
        false => ops::batch(&ctx.store, &ctx.actor()?, &lines, a.message.as_deref())?,
    };
    if out.json {
        return out.json(&Batched {
            dry_run: false,
            operations: done.len(),
            status: Some("ok"),
            results: (!done.is_empty()).then(|| {
                done.iter()
                    .map(|d| BatchResult {
                        line: d.line,
                        op: d.op,
                        target: &d.target,
                    })
                    .collect()
            }),
        });
    }
    if done.is_empty() {
        return out.line("batch: 0 operations (no-op)");
    }
    out.line(format!("batch: {} operations committed", done.len()))?;
    for d in &done {
        out.line(format!("  line {}: {} {}", d.line, d.op, d.target))?;
    }
    Ok(())
}

/// Reads every line of `text` into its operation; the first bad line is an error
/// that names it, before anything runs.
fn parse(text: &str) -> Result<Vec<BatchLine>, String> {
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let tokens = tokens(trimmed).map_err(|e| format!("line {line}: {e}"))?;
        let op = operation(&tokens).map_err(|e| format!("line {line} ({trimmed}): {e}"))?;
        lines.push(BatchLine {
            line,
            text: trimmed.to_owned(),
            op,
        });
    }
    Ok(lines)
}

/// Splits a line into tokens at blanks; a double-quoted token may hold blanks.
fn tokens(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut has) = (false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '\\') if matches!(chars.peek(), Some('"' | '\\')) => {
                cur.extend(chars.next());
            }
            (true, '"') => quoted = false,
            (true, c) => cur.push(c),
            (false, '"') => (quoted, has) = (true, true),
            (false, ' ' | '\t') => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (false, c) => {
                cur.push(c);
                has = true;
            }
        }
    }
    if quoted {
        return Err("unterminated quoted string".into());
    }
    if has {
        out.push(cur);
    }
    Ok(out)
}

/// The operation a line's tokens ask for.
fn operation(tokens: &[String]) -> Result<BatchOp, String> {
    let words: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let priority = |p: &str| super::parse_priority(p);
    match words.as_slice() {
        ["close", id, reason @ ..] => Ok(BatchOp::Close {
            id: (*id).to_owned(),
            reason: match reason {
                [] => "Closed".to_owned(),
                words => words.join(" "),
            },
        }),
        ["close"] => Err("close requires <id>".into()),
        ["update", id, kvs @ ..] if !kvs.is_empty() => update(id, kvs),
        ["update", ..] => Err("update requires <id> and at least one key=value".into()),
        ["create", kind, p, title @ ..] if !title.is_empty() => {
            let title = title.join(" ");
            if title.trim().is_empty() {
                return Err("create: title cannot be empty".into());
            }
            Ok(BatchOp::Create {
                kind: kind
                    .parse::<BeadType>()
                    .map_err(|e| format!("create: {e}"))?,
                priority: priority(p).map_err(|e| format!("create: {e}"))?,
                title,
            })
        }
        ["create", ..] => Err("create requires <type> <priority> <title>".into()),
        ["dep", "add", from, to, kind @ ..] if kind.len() <= 1 => Ok(BatchOp::DepAdd {
            from: (*from).to_owned(),
            to: (*to).to_owned(),
            kind: match kind {
                [k] => k.parse::<DepKind>().map_err(|e| format!("dep add: {e}"))?,
                _ => DepKind::Blocks,
            },
        }),
        ["dep", "add", ..] => Err("dep add requires <from-id> <to-id> [type]".into()),
        ["dep", "remove" | "rm", from, to] => Ok(BatchOp::DepRemove {
            from: (*from).to_owned(),
            to: (*to).to_owned(),
        }),
        ["dep", "remove" | "rm", ..] => Err("dep remove requires <from-id> <to-id>".into()),
        ["dep", verb, ..] => Err(format!("unknown dep subcommand {verb:?} (want add|remove)")),
        ["dep"] => Err("'dep' requires a subcommand (add|remove)".into()),
        [other, ..] => Err(format!(
            "unsupported batch command {other:?} (supported: close, update, create, dep add, dep remove)"
        )),
        [] => Err("empty line".into()),
    }
}

/// An `update` line's `KEY=VALUE` pairs.
fn update(id: &str, kvs: &[&str]) -> Result<BatchOp, String> {
    let (mut status, mut priority, mut title, mut assignee) = (None, None, None, None);
    for kv in kvs {
        let Some((key, value)) = kv.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(format!("update: expected key=value, got {kv:?}"));
        };
        match key.trim() {
            "status" => {
                status = Some(
                    value
                        .parse::<Status>()
                        .map_err(|e| format!("update: {e}"))?,
                );
            }
            "priority" => {
                priority = Some(super::parse_priority(value).map_err(|e| format!("update: {e}"))?);
            }
            "title" if value.trim().is_empty() => {
                return Err("update: title cannot be empty".into());
            }
            "title" => title = Some(value.to_owned()),
            "assignee" => assignee = Some(value.to_owned()),
            other => {
                return Err(format!(
                    "update: unsupported key {other:?} (allowed: status, priority, title, assignee)"
                ));
            }
        }
    }
    Ok(BatchOp::Update {
        id: id.to_owned(),
        status,
        priority,
        title,
        assignee,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_split_as_bd_splits_them() {
        let t = tokens(r#"close bd-1  "two words" "a \"q\" \\ b" x"#).expect("tokens");
        assert_eq!(t, ["close", "bd-1", "two words", r#"a "q" \ b"#, "x"]);
        assert_eq!(tokens(r#"""#), Err("unterminated quoted string".into()));
        assert_eq!(tokens(r#"a "" b"#).expect("tokens"), ["a", "", "b"]);
    }

    #[test]
    fn bad_lines_are_named() {
        let err = parse("# c\n\nclose bd-1\nfrobnicate x\n").expect_err("bad");
        assert!(
            err.starts_with("line 4 (frobnicate x): unsupported"),
            "{err}"
        );
        assert!(parse("update bd-1 colour=red").is_err());
        assert!(parse("create task 9 X").is_err());
        assert!(parse("dep add a b nonsense").is_err());
        let ok = parse("dep rm a b\ncreate bug 0 Two words").expect("ok");
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1].line, 2);
    }
}
