//! `git beads init`.

use std::io::IsTerminal;

use crate::cli::{
    Ctx,
    error::CliError,
    output::{self, Out},
};
use crate::model::Prefix;
use crate::ops;
use crate::wire;

/// Arguments of `init`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The prefix of new ids (default: derived from the repository's name).
    #[arg(short, long, value_parser = Prefix::parse)]
    pub prefix: Option<Prefix>,
    /// bd's: never ask. git-beads init asks nothing; taken so bd's tools run unchanged.
    #[arg(long)]
    pub non_interactive: bool,
    /// bd's: write no AGENTS.md or harness settings. git-beads init writes none
    /// (`git beads setup` does).
    #[arg(long)]
    pub skip_agents: bool,
    /// bd's: install no git hooks. git-beads init installs none (`git beads hooks
    /// install` does).
    #[arg(long)]
    pub skip_hooks: bool,
    /// bd's Dolt server mode. git-beads runs no server (the store is refs of this
    /// repository); it says so and goes on.
    #[arg(long)]
    pub server: bool,
    /// bd's Dolt server port: taken, and said to be unused.
    #[arg(long = "server-port", value_name = "PORT")]
    pub server_port: Option<u16>,
    /// bd's Dolt server host: taken, and said to be unused.
    #[arg(long = "server-host", value_name = "HOST")]
    pub server_host: Option<String>,
    /// bd's token to destroy and recreate a database. git-beads never destroys a store
    /// (its history stays in git): it says so, and the store here stays as it is.
    #[arg(long = "destroy-token", value_name = "TOKEN")]
    pub destroy_token: Option<String>,
    /// bd's re-initialization over an existing database: as `--destroy-token`,
    /// nothing is destroyed; an existing store stays.
    #[arg(long)]
    pub force: bool,
}

impl Args {
    /// One line for each of bd's server and re-initialization flags given, saying
    /// what it means here.
    fn bd_notes(&self) -> Vec<&'static str> {
        let mut notes = Vec::new();
        if self.server || self.server_port.is_some() || self.server_host.is_some() {
            notes.push(
                "--server, --server-port, --server-host: git-beads runs no server; the store is refs of this repository",
            );
        }
        if self.destroy_token.is_some() || self.force {
            notes.push(
                "--force, --destroy-token: git-beads destroys no store; an existing one stays as it is",
            );
        }
        notes
    }
}

/// Runs `init`: sets up every remote so that `git fetch` brings beads, adopts the
/// default remote's store when this repository has none (a fresh clone), and
/// otherwise creates a new store (in a repository `git init` made where there was
/// none, as bd does). What it did goes to stdout, as bd's confirmation does.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    for note in args.bd_notes() {
        out.note(note);
    }
    let talk = !out.is_quiet() && std::io::stderr().is_terminal();
    let done = ops::initialize(&ctx.store, &actor, args.prefix, talk)?;
    if let Some(e) = &done.remote_unreachable {
        output::warn(format!(
            "warning: could not look for beads on the remote: {e}"
        ));
    }
    let prefix = &done.prefix;
    if out.json {
        return out.json(&wire::Initialized {
            prefix: prefix.as_str(),
            created: done.created,
            adopted: done.adopted.as_deref(),
            remotes_configured: &done.remotes_configured,
        });
    }
    for r in &done.remotes_configured {
        out.note(format!("`git fetch {r}` now brings its beads too"));
    }
    // bd's own words first: tools that run `bd init` look for them.
    out.line(if let Some(remote) = &done.adopted {
        format!(
            "✓ bd initialized from git remote! (adopted the store of {remote}, prefix {prefix})"
        )
    } else if done.created {
        format!("✓ bd initialized successfully! (the store is refs/beads/main, prefix {prefix})")
    } else {
        format!("the beads store already exists (prefix {prefix})")
    })
}
