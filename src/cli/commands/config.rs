//! `git beads config get|set|list|unset`: the project's settings, kept in the store so
//! that sync shares them (bd's `config`). Settings of one machine stay in git config
//! (`git config beads.…`).

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::config::ROLE_KEY;
use crate::ops;
use crate::wire;

/// The verbs of `config`.
#[derive(clap::Subcommand, Debug)]
pub enum ConfigCommand {
    /// Print a setting's value (nothing, and `null` under --json, when it is not set).
    Get(KeyArgs),
    /// Set a setting, for every clone (one commit, shared by sync).
    Set(SetArgs),
    /// List every setting.
    List,
    /// Remove a setting.
    Unset(KeyArgs),
}

/// Arguments of `config get` and `config unset` (and of `kv get` and `kv clear`).
#[derive(clap::Args, Debug)]
pub struct KeyArgs {
    /// The key (a dotted name: `types.custom`, `status.custom`, any of the project's).
    pub key: String,
}

/// Arguments of `config set` (and of `kv set`).
#[derive(clap::Args, Debug)]
pub struct SetArgs {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
}

/// Runs `config`.
pub fn run(ctx: &Ctx, cmd: ConfigCommand, out: &mut Out) -> Result<(), CliError> {
    match cmd {
        ConfigCommand::Get(a) => {
            let value = match a.key.as_str() {
                ROLE_KEY => ops::role(&ctx.store),
                key => ops::setting(&ctx.store, key)?,
            };
            if out.json {
                return out.json(&wire::Setting {
                    key: &a.key,
                    value: value.as_deref(),
                });
            }
            match value {
                Some(v) => out.line(v),
                None => Ok(()),
            }
        }
        ConfigCommand::Set(a) if a.key == ROLE_KEY => {
            ops::set_role(&ctx.store, &a.value)?;
            if out.json {
                return out.json(&wire::Setting {
                    key: &a.key,
                    value: Some(&a.value),
                });
            }
            out.note(format!("set {ROLE_KEY} = {} (in git config)", a.value));
            Ok(())
        }
        ConfigCommand::Set(a) => {
            ops::set_setting(&ctx.store, &ctx.actor()?, &a.key, &a.value)?;
            if out.json {
                return out.json(&wire::Setting {
                    key: &a.key,
                    value: Some(&a.value),
                });
            }
            let value = crate::model::escape_controls(&a.value, crate::model::Layout::Line);
            out.note(format!("set {} = {value}", a.key));
            Ok(())
        }
        ConfigCommand::List => {
            let all = ops::settings(&ctx.store)?;
            if out.json {
                return out.json(&wire::Settings(&all));
            }
            for (key, value) in &all {
                out.line(format!("{key} = {value}"))?;
            }
            Ok(())
        }
        ConfigCommand::Unset(a) => {
            let was = ops::unset_setting(&ctx.store, &ctx.actor()?, &a.key)?;
            if out.json {
                return out.json(&wire::Setting {
                    key: &a.key,
                    value: None,
                });
            }
            out.note(match was {
                true => format!("unset {}", a.key),
                false => format!("{} was not set", a.key),
            });
            Ok(())
        }
    }
}
