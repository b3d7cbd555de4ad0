//! Writes from the page, as the person (their git identity): one `ops` call, one
//! commit, each. A claim, a sling and a close go through `beads.claimRemote` when it
//! is set, as the CLI's do: acknowledged only once that remote holds them. Every post must come from the board's own origin and carry the
//! server's CSRF token; `--read-only` refuses them all. The access token (off
//! loopback) is checked for every request.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::App;
use super::html::url_part;
use super::pages::Failure;
use crate::model::{Actor, AgentName, BeadId, BeadType};
use crate::ops::{self, Changes, NewBead, Store};

/// The name of the cookie that carries the access token.
const TOKEN_COOKIE: &str = "beads_token";

/// What a form may carry; each action reads the fields it needs.
#[derive(Debug, Default, serde::Deserialize)]
pub(super) struct WriteForm {
    /// The server's CSRF token.
    #[serde(default)]
    csrf: String,
    /// A title (create).
    #[serde(default)]
    title: String,
    /// A type (create).
    #[serde(default, rename = "type")]
    kind: String,
    /// A priority (create, priority).
    #[serde(default)]
    priority: String,
    /// Free text: a comment, a close reason, a label, a conflicted field.
    #[serde(default)]
    text: String,
    /// Which button: `add` or `remove` (label).
    #[serde(default)]
    go: String,
    /// An agent (sling).
    #[serde(default)]
    agent: String,
}

/// Compares two secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The value of cookie `name` in `headers`.
fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Lets a request through when no token is required, or when it carries the token
/// (`?token=` once, which sets a cookie, or that cookie).
pub(super) async fn guard_token(State(app): State<App>, req: Request, next: Next) -> Response {
    let Some(token) = app.token.clone() else {
        return next.run(req).await;
    };
    let in_query = req
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter_map(|kv| kv.split_once('='))
        .any(|(k, v)| k == "token" && same_secret(v, &url_part(&token)));
    let in_cookie =
        cookie(req.headers(), TOKEN_COOKIE).is_some_and(|v| same_secret(v, &url_part(&token)));
    if !in_query && !in_cookie {
        return (
            StatusCode::UNAUTHORIZED,
            "this board needs its token: open the URL `git beads serve` printed\n",
        )
            .into_response();
    }
    let mut response = next.run(req).await;
    if in_query && !in_cookie {
        let set = format!(
            "{TOKEN_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
            url_part(&token)
        );
        if let Ok(v) = set.parse() {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    response
}

/// Whether the request comes from a page of this server: its `Origin` (or, without
/// one, its `Referer`) names the host the request was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let ours = format!("http://{host}");
    match headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
        Some(origin) => origin == ours,
        None => headers
            .get(header::REFERER)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|r| r == ours || r.starts_with(&format!("{ours}/"))),
    }
}

/// Where to go after a write: back to the page it came from (same origin only), else
/// `fallback`.
fn back(headers: &HeaderMap, fallback: &str) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    headers
        .get(header::REFERER)
        .and_then(|h| h.to_str().ok())
        .zip(host)
        .and_then(|(r, host)| r.strip_prefix(&format!("http://{host}")).map(str::to_owned))
        .filter(|path| path.starts_with('/'))
        .unwrap_or_else(|| fallback.to_owned())
}

/// Refuses a write that this server does not take: read-only, another origin, or
/// without the CSRF token.
fn refuse(app: &App, headers: &HeaderMap, form: &WriteForm) -> Option<Failure> {
    if app.read_only {
        return Some(Failure::new(
            StatusCode::FORBIDDEN,
            "this board is read-only (served with --read-only)",
        ));
    }
    if !same_origin(headers) {
        return Some(Failure::new(
            StatusCode::FORBIDDEN,
            "a write must come from this board's own pages (Origin or Referer)",
        ));
    }
    if !same_secret(&form.csrf, &app.csrf) {
        return Some(Failure::new(
            StatusCode::FORBIDDEN,
            "the write lacks this board's CSRF token: reload the page",
        ));
    }
    None
}

/// Runs `op` as the person, after the checks, and sends the browser back.
async fn perform(
    app: App,
    headers: HeaderMap,
    form: WriteForm,
    fallback: String,
    op: impl FnOnce(&Store, &Actor, WriteForm) -> Result<Option<String>, Failure> + Send + 'static,
) -> Response {
    if let Some(no) = refuse(&app, &headers, &form) {
        return no.page(&app.csrf);
    }
    let done = app
        .with_store(move |store| {
            let me = ops::acting(store, None, true)?;
            op(store, &me, form)
        })
        .await;
    match done {
        Ok(Some(to)) => Redirect::to(&to).into_response(),
        Ok(None) => Redirect::to(&back(&headers, &fallback)).into_response(),
        Err(f) => f.page(&app.csrf),
    }
}

/// A priority from a form.
fn priority(text: &str) -> Result<u8, Failure> {
    text.parse::<u8>().ok().filter(|p| *p <= 4).ok_or_else(|| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            format!("priority {text:?} is not 0–4"),
        )
    })
}

/// `POST /create`: a new bead; the browser goes to its page.
pub(super) async fn create(
    State(app): State<App>,
    headers: HeaderMap,
    form: axum::Form<WriteForm>,
) -> Response {
    perform(app, headers, form.0, "/".to_owned(), |store, me, f| {
        let kind = match f.kind.as_str() {
            "" => None,
            k => Some(
                k.parse::<BeadType>()
                    .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, e.to_string()))?,
            ),
        };
        let priority = match f.priority.as_str() {
            "" => None,
            p => Some(priority(p)?),
        };
        let bead = ops::create(
            store,
            me,
            NewBead {
                title: f.title,
                kind,
                priority,
                ..NewBead::default()
            },
        )?;
        Ok(Some(format!("/bead/{}", url_part(bead.id.as_str()))))
    })
    .await
}

/// `POST /bead/ID/ACTION`: claim, close, comment, priority, label, sling, resolve.
pub(super) async fn act(
    State(app): State<App>,
    Path((given, action)): Path<(String, String)>,
    headers: HeaderMap,
    form: axum::Form<WriteForm>,
) -> Response {
    let fallback = format!("/bead/{}", url_part(&given));
    perform(app, headers, form.0, fallback, move |store, me, f| {
        let id: BeadId = ops::resolve_id(store, &given)?;
        let ids = std::slice::from_ref(&id);
        match action.as_str() {
            "claim" => {
                let claim = Changes {
                    claim: true,
                    ..Changes::default()
                };
                match ops::claim_remote(store, None, false)? {
                    Some(remote) => {
                        ops::update_on(store, me, &id, claim, &remote)?;
                    }
                    None => {
                        ops::update(store, me, ids, claim)?;
                    }
                }
            }
            "close" => {
                let reason = Some(f.text.trim()).filter(|r| !r.is_empty());
                match ops::claim_remote(store, None, false)? {
                    Some(remote) => {
                        let how = ops::Closing {
                            reason,
                            ..ops::Closing::default()
                        };
                        ops::close_on(store, me, ids, &how, &remote)?
                    }
                    None => ops::close(store, me, ids, reason)?,
                };
            }
            "comment" => {
                ops::add_comment(store, me, &id, &f.text, None)?;
            }
            "priority" => {
                let p = priority(&f.priority)?;
                ops::update(
                    store,
                    me,
                    ids,
                    Changes {
                        priority: Some(p),
                        ..Changes::default()
                    },
                )?;
            }
            "label" if f.go == "remove" => {
                ops::remove_label(store, me, &id, f.text.trim())?;
            }
            "label" => {
                ops::add_label(store, me, &id, f.text.trim())?;
            }
            "sling" => {
                let agent = AgentName::parse(&f.agent)
                    .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, e.to_string()))?;
                match ops::claim_remote(store, None, false)? {
                    Some(remote) => ops::sling_on(store, me, &id, &agent, &remote)?,
                    None => ops::sling(store, me, &id, &agent)?,
                };
            }
            "resolve" => {
                ops::resolve(store, me, &id, Some(f.text.as_str()))?;
            }
            other => {
                return Err(Failure::new(
                    StatusCode::NOT_FOUND,
                    format!("no action {other:?}"),
                ));
            }
        }
        Ok(None)
    })
    .await
}
