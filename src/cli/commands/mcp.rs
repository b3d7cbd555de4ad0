//! `git beads mcp`: serve this repository's store to an agent over MCP (stdio).

use crate::cli::commands::session;
use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::mcp::{self, PrimeFailed, Server};

/// Arguments of `mcp`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `mcp`: serves MCP on stdin and stdout until stdin closes.
pub fn run(ctx: &Ctx, _a: Args, _out: &mut Out) -> Result<(), CliError> {
    let dir = ctx
        .store
        .workdir()
        .map_or_else(std::env::current_dir, |d| Ok(d.to_owned()))?;
    let server = Server::new(dir, ctx.as_agent.clone(), ctx.as_person, ctx.actor.clone())
        .with_prime(Box::new(prime_text));
    server.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

/// What `git beads prime` prints for the acting agent, as a harness hook shows it
/// (documents that do not parse are named in the text): the server's prime tool
/// text and prime resource.
fn prime_text(call: &mcp::Ctx) -> Result<String, PrimeFailed> {
    let ctx = Ctx::new(
        call.store.clone(),
        call.as_agent.clone(),
        call.as_person,
        call.actor.clone(),
    );
    let mut out = Out::new(false, true);
    out.capture();
    match session::print_prime(&ctx, &mut out, true) {
        Ok(()) => Ok(out.take_captured()),
        Err(e) => Err(PrimeFailed {
            kind: match e.kind {
                Kind::Conflict => "conflict",
                Kind::Store => "store",
                Kind::Denied => "denied",
                Kind::NotFound => "not_found",
                Kind::Refused => "refused",
                Kind::User | Kind::Usage => "invalid",
            },
            message: e.message,
        }),
    }
}
