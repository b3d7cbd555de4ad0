//! Live pages: one task reads `refs/beads/main` once a tick, and every open page
//! listens on `/events` (server-sent events) for the moment it moved.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;

use super::App;

/// How often the ref is read.
const TICK: Duration = Duration::from_millis(250);

/// Reads the ref once a tick while a page listens, and publishes the commit when it
/// changed: with no page open a tick reads nothing. A read that fails (a ref being
/// rewritten) is tried again on the next tick.
pub(super) async fn watch(app: App) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if app.head.receiver_count() == 0 {
            continue;
        }
        if let Ok(head) = app.with_store(crate::ops::head_commit).await {
            app.head.send_if_modified(|old| {
                let moved = *old != head;
                if moved {
                    *old = head;
                }
                moved
            });
        }
    }
}

/// `/events`: a `change` event with the new commit each time the store moves.
pub(super) async fn events(
    State(app): State<App>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = app.head.subscribe();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let head = rx.borrow_and_update().clone();
        Some((Ok(Event::default().event("change").data(head)), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
