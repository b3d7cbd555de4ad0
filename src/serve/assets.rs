//! The board's assets, embedded in the binary: one stylesheet, one script.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The stylesheet.
const CSS: &str = include_str!("assets/board.css");

/// The script: live updates over server-sent events.
const JS: &str = include_str!("assets/board.js");

/// `/assets/NAME`.
pub(super) async fn asset(Path(name): Path<String>) -> Response {
    let (kind, body) = match name.as_str() {
        "board.css" => ("text/css; charset=utf-8", CSS),
        "board.js" => ("text/javascript; charset=utf-8", JS),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}
