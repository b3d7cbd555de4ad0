//! `git beads serve`: the board in the browser. A front end like the CLI: it calls
//! `ops` and renders its answers, as HTML pages (every store value escaped by
//! `html::esc`) and as JSON built from the `wire` types.
//!
//! One HTTP/1 server on a current-thread tokio runtime. The store is opened once and
//! used by one request at a time, off the runtime's thread; a task reads
//! `refs/beads/main` once a tick and tells the open pages (server-sent events) when it
//! moved, and they fetch their live parts again. Writes are form posts made as the
//! person (their git identity), one `ops` call (one commit) each, guarded by the
//! server's CSRF token and a same-origin check.

mod assets;
mod board;
mod html;
mod live;
mod pages;
mod write;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::{get, post};

use crate::ops::{KeptStore, OpError, Store};

pub use board::{Board, BoardQuery, Card, Column, ColumnKind, board};

/// How `serve` listens and what it allows.
#[derive(Clone, Debug)]
pub struct Options {
    /// The address to listen on (loopback unless told otherwise).
    pub host: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// Refuse every write.
    pub read_only: bool,
    /// The token every request must carry (required off loopback).
    pub token: Option<String>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A non-loopback address without a token would open the store to the network.
    #[error("{host} is not a loopback address, so the board needs a token")]
    TokenRequired {
        /// The address asked for.
        host: IpAddr,
    },
    /// The address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address and port.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The runtime or the server failed.
    #[error("the web server failed")]
    Server(#[source] std::io::Error),
    /// The store could not be read.
    #[error(transparent)]
    Op(#[from] OpError),
}

/// What every request shares.
pub(crate) struct Shared {
    /// The store, one user at a time, kept between requests while that is safe.
    store: Mutex<KeptStore>,
    /// The CSRF token every write must carry.
    csrf: String,
    /// The access token, when one is required.
    token: Option<String>,
    /// Whether writes are refused.
    read_only: bool,
    /// The commit `refs/beads/main` was at when last looked at.
    head: tokio::sync::watch::Sender<String>,
}

/// The shared state as handlers get it.
pub(crate) type App = Arc<Shared>;

impl Shared {
    /// Runs `f` on the store, kept or opened anew (see [`KeptStore::refreshed`]; when
    /// opening it anew fails, the store kept), off the runtime's thread.
    async fn with_store<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&Store) -> T + Send + 'static,
    ) -> T {
        let app = Arc::clone(self);
        let run = move || {
            let mut kept = app
                .store
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let _ = kept.refreshed();
            f(kept.store())
        };
        match tokio::task::spawn_blocking(run).await {
            Ok(v) => v,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}

/// The routes of the board.
fn router(app: App) -> Router {
    Router::new()
        .route("/", get(pages::board_page))
        .route("/bead/{id}", get(pages::bead_page))
        .route("/agents", get(pages::agents_page))
        .route("/session/{id}", get(pages::session_page))
        .route("/molecules", get(pages::molecules_page))
        .route("/mail", get(pages::mail_page))
        .route("/mail/{id}", get(pages::thread_page))
        .route("/log", get(pages::log_page))
        .route("/api/board", get(pages::board_json))
        .route("/api/bead/{id}", get(pages::bead_json))
        .route("/api/agents", get(pages::agents_json))
        .route("/api/log", get(pages::log_json))
        .route("/events", get(live::events))
        .route("/assets/{name}", get(assets::asset))
        .route("/create", post(write::create))
        .route("/bead/{id}/{action}", post(write::act))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            write::guard_token,
        ))
        .with_state(app)
}

/// A fresh random token (hex), from the system's random source.
fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let from_os = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if from_os.is_err() {
        // No /dev/urandom: the standard library's per-process random hash keys.
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Serves the board of `store` until the process is stopped. `ready` is told the URL
/// once the server listens (with the token in it, when one is required).
pub fn serve(store: Store, opts: Options, ready: impl FnOnce(&str)) -> Result<(), ServeError> {
    if !opts.host.is_loopback() && opts.token.is_none() {
        return Err(ServeError::TokenRequired { host: opts.host });
    }
    let head = crate::ops::head_commit(&store)?;
    let app: App = Arc::new(Shared {
        store: Mutex::new(KeptStore::new(store)),
        csrf: random_token(),
        token: opts.token.clone(),
        read_only: opts.read_only,
        head: tokio::sync::watch::Sender::new(head),
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(ServeError::Server)?;
    runtime.block_on(async move {
        let addr = std::net::SocketAddr::new(opts.host, opts.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: addr.to_string(),
                source,
            })?;
        let bound = listener.local_addr().map_err(ServeError::Server)?;
        let url = match &opts.token {
            Some(t) => format!("http://{bound}/?token={}", html::url_part(t)),
            None => format!("http://{bound}/"),
        };
        ready(&url);
        tokio::spawn(live::watch(Arc::clone(&app)));
        axum::serve(listener, router(app))
            .await
            .map_err(ServeError::Server)
    })
}
