//! `git beads remember`, `recall`, `memories` and `forget`: bd's memories, kept in
//! the key-value store under `memory.` (so in the store's history, and shared by
//! sync).

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::ops::memory;
use crate::wire::{Memories, MemoryForgotten, MemoryFound, MemoryStored};

/// Arguments of `remember`.
#[derive(clap::Args, Debug)]
pub struct RememberArgs {
    /// The insight to keep.
    pub insight: String,
    /// Its key (made from the insight's first words when not given); a memory of
    /// that key is replaced.
    #[arg(long)]
    pub key: Option<String>,
}

/// Arguments of `recall` and `forget`.
#[derive(clap::Args, Debug)]
pub struct KeyArgs {
    /// The memory's key (`memories` lists them).
    pub key: String,
}

/// Arguments of `memories`.
#[derive(clap::Args, Debug)]
pub struct MemoriesArgs {
    /// Only memories whose key or text holds this (ignoring case).
    pub search: Option<String>,
}

/// The text of a memory on one line of at most `max` bytes, as bd shows it.
fn shortened(text: &str, max: usize) -> String {
    let line = text.replace('\n', " ");
    if line.len() <= max {
        return line;
    }
    let mut end = max - 3;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &line[..end])
}

/// Runs `remember`.
pub fn remember(ctx: &Ctx, a: RememberArgs, out: &mut Out) -> Result<(), CliError> {
    if a.insight.trim().is_empty() {
        return Err(CliError::user("memory content cannot be empty"));
    }
    let key = a.key.unwrap_or_else(|| memory::memory_key(&a.insight));
    if key.is_empty() {
        return Err(CliError::user(
            "could not make a key of the insight; give one with --key",
        ));
    }
    let done = memory::remember(&ctx.store, &ctx.actor()?, &key, &a.insight)?;
    let verb = if done.updated {
        "Updated"
    } else {
        "Remembered"
    };
    if out.json {
        return out.json(&MemoryStored {
            key: &done.key,
            value: &a.insight,
            action: &verb.to_lowercase(),
        });
    }
    out.line(format!("{verb} [{key}]: {}", shortened(&a.insight, 80)))
}

/// Runs `recall`: the memory's text; exits 1 when there is none, as bd does.
pub fn recall(ctx: &Ctx, a: KeyArgs, out: &mut Out) -> Result<(), CliError> {
    let value = memory::recall(&ctx.store, &a.key)?;
    if out.json {
        out.json(&MemoryFound {
            key: &a.key,
            value: value.as_deref().unwrap_or_default(),
            found: value.is_some(),
        })?;
    }
    match value {
        Some(v) if !out.json => out.line(v),
        Some(_) => Ok(()),
        None => Err(no_memory(&a.key)),
    }
}

/// Runs `forget`; exits 1 when there is no such memory, as bd does.
pub fn forget(ctx: &Ctx, a: KeyArgs, out: &mut Out) -> Result<(), CliError> {
    let Some(was) = memory::forget(&ctx.store, &ctx.actor()?, &a.key)? else {
        if out.json {
            out.json(&MemoryForgotten {
                key: &a.key,
                deleted: None,
                found: Some("false"),
            })?;
        }
        return Err(no_memory(&a.key));
    };
    if out.json {
        return out.json(&MemoryForgotten {
            key: &a.key,
            deleted: Some("true"),
            found: None,
        });
    }
    out.line(format!("Forgot [{}]: {}", a.key, shortened(&was, 80)))
}

/// Runs `memories`.
pub fn memories(ctx: &Ctx, a: MemoriesArgs, out: &mut Out) -> Result<(), CliError> {
    let search = a.search.as_deref().map(str::to_lowercase);
    let found = memory::memories(&ctx.store, search.as_deref())?;
    if out.json {
        // A bare object of keys and texts, as bd prints it.
        return out.json_list(&Memories(&found));
    }
    if found.is_empty() {
        return out.line(match &search {
            Some(s) => format!("No memories matching {s:?}"),
            None => "No memories stored. Use 'git beads remember \"insight\"' to add one.".into(),
        });
    }
    out.line(match &search {
        Some(s) => format!("Memories matching {s:?}:"),
        None => format!("Memories ({}):", found.len()),
    })?;
    out.line("")?;
    for (k, v) in &found {
        out.line(format!("  {k}"))?;
        out.line(format!("    {}", shortened(v, 120)))?;
        out.line("")?;
    }
    Ok(())
}

/// bd's answer when a key names no memory.
fn no_memory(key: &str) -> CliError {
    CliError::new(Kind::NotFound, format!("no memory with key {key:?}"))
}

/// The memories as `prime` hands them to a new session, as bd injects them: a
/// section of each key and its text, nothing when there are none (unless `always`,
/// for `prime --memories-only`, which then says there are none).
pub(crate) fn print_for_prime(ctx: &Ctx, out: &mut Out, always: bool) -> Result<(), CliError> {
    let found = memory::memories(&ctx.store, None)?;
    if found.is_empty() {
        if always {
            out.line("# Persistent memories")?;
            out.line("")?;
            out.line("No memories stored. Use `git beads remember \"insight\"` to add one.")?;
        }
        return Ok(());
    }
    out.line("")?;
    out.line(format!("## Persistent memories ({})", found.len()))?;
    out.line("")?;
    out.line(
        "Kept by `git beads remember`; change one with `git beads remember --key KEY \"text\"`, \
         search with `git beads memories WORD`, remove with `git beads forget KEY`.",
    )?;
    for (k, v) in &found {
        out.line("")?;
        out.line(format!("### {k}"))?;
        for l in v.lines() {
            out.line(l)?;
        }
    }
    Ok(())
}
