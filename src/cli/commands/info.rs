//! `git beads info` and `where`: where the store is and what it holds; `types` and
//! `statuses`: the words a bead's type and status take.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{BeadType, Status};
use crate::ops;
use crate::wire;

/// Arguments of `info` and `where`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Accepted for bd's tools; the store has no schema beyond its documents.
    #[arg(long)]
    pub schema: bool,
}

/// Runs `info` (`short`: `where`, the path alone).
pub fn run(ctx: &Ctx, _args: Args, out: &mut Out, short: bool) -> Result<(), CliError> {
    let info = ops::store_info(&ctx.store)?;
    if out.json {
        return out.json(&wire::Info {
            database_path: &info.common_dir,
            mode: "git",
            store_ref: info.store_ref,
            head: &info.head,
            prefix: &info.prefix,
            format: info.format,
            issue_count: info.beads,
        });
    }
    out.line(info.common_dir.display().to_string())?;
    if !short {
        out.line(format!("store   {} at {}", info.store_ref, info.head))?;
        out.line(format!("prefix  {}", info.prefix))?;
        out.line(format!("beads   {}", info.beads))?;
    }
    Ok(())
}

/// Arguments of `types` and `statuses`.
#[derive(clap::Args, Debug)]
pub struct WordsArgs {}

/// What a word of the project's own means.
const CUSTOM_MEANING: &str = "The project's own (config: types.custom, status.custom).";

/// What a type is for.
fn type_meaning(t: BeadType) -> &'static str {
    match t {
        BeadType::Task => "A piece of work.",
        BeadType::Bug => "Something broken.",
        BeadType::Feature => "Something new.",
        BeadType::Epic => "A large piece of work made of children (never ready itself).",
        BeadType::Chore => "Upkeep.",
        BeadType::Decision => "A decision and why it was made (an ADR).",
        BeadType::Spike => "A time-boxed investigation.",
        BeadType::Story => "A piece of user-visible behaviour.",
        BeadType::Milestone => "A point that a set of work reaches.",
        BeadType::MergeRequest => "A request to merge work.",
        BeadType::Convoy => "A group of beads travelling together.",
        BeadType::Molecule => "A workflow poured from a formula (never ready itself).",
        BeadType::Agent => "An agent record, as bd stores them.",
        BeadType::Message => "A message, as bd stores them.",
        BeadType::Event => "Something that happened.",
        BeadType::Gate => "A gate a workflow waits on.",
        BeadType::Rig => "A rig (a bd/Gas Town workspace record).",
        BeadType::Role => "A role (a bd/Gas Town record).",
        BeadType::Custom(_) => CUSTOM_MEANING,
    }
}

/// What a status means.
fn status_meaning(s: Status) -> &'static str {
    match s {
        Status::Open => "Not started; ready when nothing blocks it.",
        Status::InProgress => "Someone is working on it.",
        Status::Blocked => "Waiting on something outside the dependency graph.",
        Status::Deferred => "Put off on purpose (defer, undefer).",
        Status::Hooked => "On an agent's hook: its next session must work on it.",
        Status::Pinned => "Kept in view permanently.",
        Status::Closed => "Done.",
        Status::Deleted => "A tombstone: deleted, kept so that the deletion syncs.",
        Status::Custom(_) => CUSTOM_MEANING,
    }
}

/// Runs `types`: the built-in types, then the project's own (`types.custom`).
pub fn types(ctx: &Ctx, _args: WordsArgs, out: &mut Out) -> Result<(), CliError> {
    let words = ops::vocabulary(&ctx.store)?;
    let doc = wire::Types {
        core_types: BeadType::ALL
            .iter()
            .map(|t| wire::Word {
                name: t.as_str(),
                description: type_meaning(*t),
            })
            .collect(),
        custom_types: words.types.iter().map(BeadType::as_str).collect(),
    };
    if out.json {
        return out.json(&doc);
    }
    for w in &doc.core_types {
        out.line(format!("{:<14} {}", w.name, w.description))?;
    }
    for t in &doc.custom_types {
        out.line(format!("{t:<14} {CUSTOM_MEANING}"))?;
    }
    Ok(())
}

/// Runs `statuses`: the built-in statuses, then the project's own (`status.custom`),
/// each with its category.
pub fn statuses(ctx: &Ctx, _args: WordsArgs, out: &mut Out) -> Result<(), CliError> {
    let words = ops::vocabulary(&ctx.store)?;
    let doc = wire::Statuses {
        built_in_statuses: Status::ALL
            .iter()
            .map(|s| wire::StatusWord {
                name: s.as_str(),
                category: s.builtin_category().as_str(),
                description: Some(status_meaning(*s)),
            })
            .collect(),
        custom_statuses: words
            .statuses
            .iter()
            .map(|(s, c)| wire::StatusWord {
                name: s.as_str(),
                category: c.as_str(),
                description: None,
            })
            .collect(),
    };
    if out.json {
        return out.json(&doc);
    }
    for w in doc.built_in_statuses.iter().chain(&doc.custom_statuses) {
        let meaning = w.description.unwrap_or(CUSTOM_MEANING);
        out.line(format!("{:<14} [{:<11}] {meaning}", w.name, w.category))?;
    }
    Ok(())
}
