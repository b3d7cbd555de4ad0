//! `git beads serve`: the board in the browser.

use std::net::IpAddr;

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;
use crate::serve;

/// Arguments of `serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The port to listen on (0: any free port).
    #[arg(long, default_value = "7433")]
    pub port: u16,
    /// The address to listen on; one that is not loopback needs --token.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The token every request must carry (in the printed URL, then a cookie).
    #[arg(long, env = "GIT_BEADS_SERVE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Open the board in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Refuse every write from the page.
    #[arg(long)]
    pub read_only: bool,
}

/// Runs `serve` until the process is stopped: prints the URL on stdout once it listens.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    // The server owns a store of its own, opened where this one was.
    let dir = ctx.store.workdir().unwrap_or(ctx.store.common_dir());
    let store = ops::discover(dir)?;
    let opts = serve::Options {
        host: a.host,
        port: a.port,
        read_only: a.read_only,
        token: a.token,
    };
    let mut printed = Ok(());
    let result = serve::serve(store, opts, |url| {
        printed = out.line(url).and_then(|()| out.flush());
        out.note(format!("serving the board at {url} (Ctrl-C stops it)"));
        if a.open {
            open_browser(url, out);
        }
    });
    printed?;
    Ok(result?)
}

/// Opens `url` in the desktop's browser; says so when it cannot.
fn open_browser(url: &str, out: &Out) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        out.note(format!(
            "cannot open a browser ({opener}: {e}); open {url} yourself"
        ));
    }
}
