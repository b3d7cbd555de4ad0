//! `git beads mcp`: serve this repository's store to an agent over MCP (stdio).

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::mcp::Server;

/// Arguments of `mcp`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `mcp`: serves MCP on stdin and stdout until stdin closes.
pub fn run(ctx: &Ctx, _a: Args, _out: &mut Out) -> Result<(), CliError> {
    let dir = ctx
        .store
        .workdir()
        .map_or_else(std::env::current_dir, |d| Ok(d.to_owned()))?;
    let server = Server::new(dir, ctx.as_agent.clone(), ctx.as_person, ctx.actor.clone());
    server.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}
