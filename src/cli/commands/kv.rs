//! `git beads kv set|get|clear|list`: bd's key-value store, kept among the project's
//! settings in the store (so in its history, and shared by sync).

use super::config::{KeyArgs, SetArgs};
use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::ops::kv;
use crate::wire::{KvCleared, KvPair, KvPairs};

/// The verbs of `kv`.
#[derive(clap::Subcommand, Debug)]
pub enum KvCommand {
    /// Set a key to a value (one commit, shared by sync).
    Set(SetArgs),
    /// Print a key's value; exits 1 when it is not set, as bd does.
    Get(KeyArgs),
    /// Remove a key.
    Clear(KeyArgs),
    /// List every pair (`--json`: one object of keys and values, as bd prints it).
    List,
}

/// Runs `kv`.
pub fn run(ctx: &Ctx, cmd: KvCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        KvCommand::Set(a) => {
            kv::set(&ctx.store, &ctx.actor()?, &a.key, &a.value)?;
            if out.json {
                return out.json(&KvPair {
                    key: &a.key,
                    value: &a.value,
                    found: None,
                });
            }
            let value = crate::model::escape_controls(&a.value, crate::model::Layout::Line);
            out.line(format!("Set {} = {value}", a.key))
        }
        KvCommand::Get(a) => {
            let value = kv::get(&ctx.store, &a.key)?;
            if out.json {
                out.json(&KvPair {
                    key: &a.key,
                    value: value.as_deref().unwrap_or_default(),
                    found: Some(value.is_some()),
                })?;
            }
            match value {
                Some(v) if !out.json => out.line(v),
                Some(_) => Ok(()),
                None => Err(CliError::new(
                    Kind::NotFound,
                    format!("{} (not set)", a.key),
                )),
            }
        }
        KvCommand::Clear(a) => {
            kv::clear(&ctx.store, &ctx.actor()?, &a.key)?;
            if out.json {
                return out.json(&KvCleared {
                    key: &a.key,
                    deleted: "true",
                });
            }
            out.line(format!("Cleared {}", a.key))
        }
        KvCommand::List => {
            let pairs = kv::list(&ctx.store)?;
            if out.json {
                // A bare object of keys and values: Gas Town decodes it as a map of
                // strings, which a schema_version beside them would break.
                return out.json_list(&KvPairs(&pairs));
            }
            if pairs.is_empty() {
                out.note("no key-value pairs set");
            }
            for (k, v) in &pairs {
                out.line(format!("{k} = {v}"))?;
            }
            Ok(())
        }
    }
}
