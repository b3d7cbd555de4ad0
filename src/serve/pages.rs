//! The pages (server-rendered HTML) and the JSON endpoints beside them. Each page is
//! built from one or a few `ops` calls; its parts marked `data-live` are what an open
//! page fetches again when the store moves.

use std::fmt::Write;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::App;
use super::board::{self, Board, BoardError, BoardQuery, Card, ColumnKind};
use super::html::{
    Fields, age, bar, bead_link, error_body, esc, form, page, session_link, time, url_part,
};
use crate::model::{Agent, Bead, BeadId, BeadType, Session};
use crate::ops::{self, ErrorKind, HookItem, ListFilter, LogEntry, OpError, Store};
use crate::wire;

/// A page that could not be made: its status and what to say.
pub(super) struct Failure {
    status: StatusCode,
    message: String,
}

impl Failure {
    /// A failure with its status.
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// The failure as an error page.
    pub(super) fn page(self, csrf: &str) -> Response {
        (
            self.status,
            Html(page("error", csrf, &error_body(&self.message))),
        )
            .into_response()
    }
}

impl From<OpError> for Failure {
    fn from(e: OpError) -> Failure {
        let status = match e.kind() {
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::Invalid => StatusCode::BAD_REQUEST,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Denied => StatusCode::FORBIDDEN,
            ErrorKind::Store => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorKind::Refused => StatusCode::BAD_GATEWAY,
        };
        Failure::new(status, e.to_string())
    }
}

impl From<BoardError> for Failure {
    fn from(e: BoardError) -> Failure {
        match e {
            BoardError::Query(why) => Failure::new(StatusCode::BAD_REQUEST, why),
            BoardError::Op(e) => e.into(),
        }
    }
}

/// What a page builder gives: the page's title and its body.
type Built = Result<(String, String), Failure>;

/// Builds a page on the store (off the runtime's thread) and wraps it.
async fn html_page(
    app: &App,
    build: impl FnOnce(&Store, &str) -> Built + Send + 'static,
) -> Response {
    let csrf = app.csrf.clone();
    let token = csrf.clone();
    match app.with_store(move |s| build(s, &token)).await {
        Ok((title, body)) => Html(page(&title, &csrf, &body)).into_response(),
        Err(f) => f.page(&csrf),
    }
}

/// Builds a JSON document on the store and sends it.
async fn json_doc(
    app: &App,
    build: impl FnOnce(&Store) -> Result<String, Failure> + Send + 'static,
) -> Response {
    match app.with_store(build).await {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(f) => (f.status, f.message).into_response(),
    }
}

/// A value as JSON text (the wire types always serialize).
fn to_json<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| Failure::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// `/`: the board.
pub(super) async fn board_page(State(app): State<App>, Query(q): Query<BoardQuery>) -> Response {
    html_page(&app, move |store, csrf| {
        let b = board::board(store, &q)?;
        Ok(("board".to_owned(), board_html(&b, &q, csrf)))
    })
    .await
}

/// `/api/board`: the board as JSON.
pub(super) async fn board_json(State(app): State<App>, Query(q): Query<BoardQuery>) -> Response {
    json_doc(&app, move |store| to_json(&board::board(store, &q)?)).await
}

/// The query string of the board with column `grow` showing `n` cards.
fn board_href(q: &BoardQuery, grow: ColumnKind, n: usize) -> String {
    let mut parts = Vec::new();
    for (key, value) in [
        ("label", &q.label),
        ("type", &q.kind),
        ("assignee", &q.assignee),
        ("priority", &q.priority),
        ("q", &q.q),
    ] {
        if !value.is_empty() {
            parts.push(format!("{key}={}", url_part(value)));
        }
    }
    for (param, asked) in q.counts() {
        let shown = if param == grow.param() { n } else { asked };
        if shown != board::PAGE {
            parts.push(format!("{param}={shown}"));
        }
    }
    format!("/?{}", parts.join("&"))
}

/// A `<select>` of `options` (value, label) with `current` chosen.
fn select(name: &str, current: &str, options: &[(String, String)]) -> String {
    let mut out = format!("<select name=\"{}\">", esc(name));
    for (value, label) in options {
        let chosen = if value == current { " selected" } else { "" };
        let _ = write!(
            out,
            "<option value=\"{}\"{chosen}>{}</option>",
            esc(value),
            esc(label)
        );
    }
    out.push_str("</select>");
    out
}

/// The bead types as select options, with "any" first when `any` is given.
fn type_options(any: Option<&str>) -> Vec<(String, String)> {
    any.map(|a| (String::new(), a.to_owned()))
        .into_iter()
        .chain(
            BeadType::ALL
                .iter()
                .map(|t| (t.as_str().to_owned(), t.as_str().to_owned())),
        )
        .collect()
}

/// The priorities as select options, with "any" first when `any` is given.
fn priority_options(any: Option<&str>) -> Vec<(String, String)> {
    any.map(|a| (String::new(), a.to_owned()))
        .into_iter()
        .chain((0..=4).map(|p| (p.to_string(), format!("P{p}"))))
        .collect()
}

/// One card.
fn card_html(out: &mut String, c: &Card) {
    let _ = write!(
        out,
        "<article class=\"card p{p}\" data-id=\"{id}\"><a class=\"title\" href=\"/bead/{href}\">{title}</a>\
         <div class=\"meta\"><span class=\"id\">{id}</span> · {kind} · P{p}",
        p = c.priority,
        id = esc(&c.id),
        href = url_part(&c.id),
        title = esc(&c.title),
        kind = esc(c.issue_type.as_str()),
    );
    if let Some(a) = &c.assignee {
        let _ = write!(out, " · <span class=\"who\">{}</span>", esc(a));
    }
    out.push_str("</div>");
    if !c.labels.is_empty() || !c.blocked_by.is_empty() {
        out.push_str("<div class=\"labels\">");
        for l in &c.labels {
            let _ = write!(out, "<span class=\"label\">{}</span>", esc(l));
        }
        for b in &c.blocked_by {
            let _ = write!(out, "<span class=\"waits\">waits on {}</span>", esc(b));
        }
        out.push_str("</div>");
    }
    out.push_str("</article>");
}

/// The board page's body: filters, the form that creates a bead, the columns.
fn board_html(b: &Board, q: &BoardQuery, csrf: &str) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<form class=\"filters\" method=\"get\" action=\"/\">\
         <input name=\"q\" placeholder=\"search\" value=\"{q}\">\
         <input name=\"label\" placeholder=\"label\" value=\"{label}\">\
         <input name=\"assignee\" placeholder=\"assignee\" value=\"{assignee}\">{kind}{prio}\
         <button>Filter</button> <a href=\"/\">clear</a></form>",
        q = esc(&q.q),
        label = esc(&q.label),
        assignee = esc(&q.assignee),
        kind = select("type", &q.kind, &type_options(Some("any type"))),
        prio = select(
            "priority",
            &q.priority,
            &priority_options(Some("any priority"))
        ),
    );
    out.push_str(&form(
        "/create",
        csrf,
        &format!(
            "<input name=\"title\" placeholder=\"new bead title\" required>{}{}<button>Create</button>",
            select("type", "task", &type_options(None)),
            select("priority", "2", &priority_options(None)),
        ),
    ));
    out.push_str("<div class=\"board\" id=\"board\" data-live>");
    for col in &b.columns {
        let _ = write!(
            out,
            "<section class=\"column\" id=\"col-{key}\"><h2>{title} <span class=\"count\">{total}</span></h2>",
            key = col.name.key(),
            title = col.name.title(),
            total = col.total,
        );
        for c in &col.cards {
            card_html(&mut out, c);
        }
        let left = col.total - col.cards.len();
        if left > 0 {
            let _ = write!(
                out,
                "<a class=\"more\" href=\"{}\">more ({left} not shown)</a>",
                esc(&board_href(q, col.name, col.cards.len() + board::PAGE))
            );
        }
        out.push_str("</section>");
    }
    out.push_str("</div>");
    out
}

/// `/bead/ID`: a bead in full, with what can be done to it.
pub(super) async fn bead_page(State(app): State<App>, Path(given): Path<String>) -> Response {
    html_page(&app, move |store, csrf| {
        let id = ops::resolve_id(store, &given)?;
        let bead = one_bead(store, &id)?;
        let body = bead_html(store, &bead, csrf)?;
        Ok((format!("{} {}", bead.id, bead.title), body))
    })
    .await
}

/// `/api/bead/ID`: the bead as `show --json` prints it.
pub(super) async fn bead_json(State(app): State<App>, Path(given): Path<String>) -> Response {
    json_doc(&app, move |store| {
        let id = ops::resolve_id(store, &given)?;
        let detailed = ops::detail(store, vec![one_bead(store, &id)?])?;
        to_json(&wire::Beads::detailed(&detailed))
    })
    .await
}

/// Bead `id`.
fn one_bead(store: &Store, id: &BeadId) -> Result<Bead, Failure> {
    ops::show(store, std::slice::from_ref(id))?
        .pop()
        .ok_or_else(|| Failure::new(StatusCode::NOT_FOUND, format!("no bead {id}")))
}

/// The actions of a bead page: forms that post to `/bead/ID/ACTION`.
fn bead_actions(b: &Bead, agents: &[Agent], csrf: &str) -> String {
    let at = |action: &str| format!("/bead/{}/{action}", url_part(b.id.as_str()));
    let agent_options: Vec<(String, String)> = agents
        .iter()
        .map(|a| (a.name.to_string(), a.name.to_string()))
        .collect();
    let mut out = String::from("<section class=\"actions\">");
    // An epic holds work; it is not work one claims.
    if b.kind != BeadType::Epic {
        out.push_str(&form(
            &at("claim"),
            csrf,
            "<button name=\"go\" value=\"claim\">Claim</button>",
        ));
    }
    out.push_str(&form(
        &at("close"),
        csrf,
        "<input name=\"text\" placeholder=\"reason\"><button>Close</button>",
    ));
    out.push_str(&form(
        &at("priority"),
        csrf,
        &format!(
            "{}<button>Set priority</button>",
            select("priority", &b.priority.to_string(), &priority_options(None))
        ),
    ));
    out.push_str(&form(
        &at("label"),
        csrf,
        "<input name=\"text\" placeholder=\"label\" required><button name=\"go\" value=\"add\">Add label</button>\
         <button name=\"go\" value=\"remove\">Remove label</button>",
    ));
    if !agent_options.is_empty() {
        out.push_str(&form(
            &at("sling"),
            csrf,
            &format!(
                "{}<button>Sling</button>",
                select("agent", "", &agent_options)
            ),
        ));
    }
    out.push_str(&form(
        &at("comment"),
        csrf,
        "<textarea name=\"text\" placeholder=\"comment\" required></textarea><button>Comment</button>",
    ));
    out.push_str("</section>");
    out
}

/// The body of a bead page.
fn bead_html(store: &Store, b: &Bead, csrf: &str) -> Result<String, Failure> {
    let agents = ops::list_agents(store)?;
    let detailed = ops::detail(store, vec![b.clone()])?;
    let everything = ops::list(
        store,
        &ListFilter {
            all: true,
            ..ListFilter::default()
        },
    )?;
    let history = ops::log(store, Some(&b.id), 20)?;
    let mut out = format!(
        "<h1><span class=\"id\">{}</span> {}</h1>",
        esc(b.id.as_str()),
        esc(&b.title)
    );
    out.push_str(&bead_actions(b, &agents, csrf));
    out.push_str("<div id=\"bead\" data-live>");
    let mut fields = Fields::default();
    fields.add(
        "status",
        format!("<span class=\"status\">{}</span>", esc(b.status.as_str())),
    );
    fields.add("priority", format!("P{}", b.priority));
    fields.add("type", esc(b.kind.as_str()));
    fields.add("assignee", esc(b.assignee.as_deref().unwrap_or("—")));
    fields.add(
        "labels",
        esc(&b.labels.iter().cloned().collect::<Vec<_>>().join(", ")),
    );
    fields.add(
        "created",
        format!("{} by {}", time(&b.created_at), esc(&b.created_by)),
    );
    fields.add(
        "updated",
        format!("{} by {}", time(&b.updated_at), esc(&b.updated_by)),
    );
    if let Some(at) = &b.closed_at {
        let reason = b.close_reason.as_deref().unwrap_or("");
        fields.add("closed", format!("{} {}", time(at), esc(reason)));
    }
    out.push_str(&fields.finish());
    if !b.description.is_empty() {
        let _ = write!(out, "<pre class=\"text\">{}</pre>", esc(&b.description));
    }
    if !b.notes.is_empty() {
        let _ = write!(
            out,
            "<h2>Notes</h2><pre class=\"text\">{}</pre>",
            esc(&b.notes)
        );
    }
    out.push_str("<h2>Depends on</h2><ul class=\"deps\">");
    for d in detailed
        .iter()
        .flat_map(|d| d.bead.dependencies.iter().zip(&d.targets))
    {
        let (dep, target) = d;
        let what = target
            .as_ref()
            .map(|t| {
                format!(
                    " {} <span class=\"status\">{}</span>",
                    esc(&t.title),
                    esc(t.status.as_str())
                )
            })
            .unwrap_or_else(|| " (not in the store)".to_owned());
        let _ = write!(
            out,
            "<li>{} <i>{}</i>{what}</li>",
            bead_link(dep.id.as_str()),
            esc(dep.kind.as_str())
        );
    }
    out.push_str("</ul><h2>Depended on by</h2><ul class=\"deps\">");
    for r in everything.beads() {
        for d in r.dependencies().filter(|d| d.id() == b.id.as_str()) {
            let _ = write!(
                out,
                "<li>{} <i>{}</i> {} <span class=\"status\">{}</span></li>",
                bead_link(r.id()),
                esc(d.kind.as_str()),
                esc(r.title()),
                esc(r.status().as_str())
            );
        }
    }
    out.push_str("</ul>");
    if !b.conflicts.is_empty() {
        out.push_str("<h2>Conflicts</h2><ul class=\"conflicts\">");
        for c in &b.conflicts {
            let resolve = form(
                &format!("/bead/{}/resolve", url_part(b.id.as_str())),
                csrf,
                &format!(
                    "<input type=\"hidden\" name=\"text\" value=\"{}\"><button>Resolve</button>",
                    esc(&c.field)
                ),
            );
            let _ = write!(
                out,
                "<li><b>{}</b>: the losing value <code>{}</code> by {} at {} {resolve}</li>",
                esc(&c.field),
                esc(&c.value.to_string()),
                esc(&c.actor),
                time(&c.at)
            );
        }
        out.push_str("</ul>");
    }
    let _ = write!(out, "<h2>Comments ({})</h2>", b.comments.len());
    for c in &b.comments {
        let _ = write!(
            out,
            "<div class=\"comment\"><div class=\"meta\">{} · {}</div><pre class=\"text\">{}</pre></div>",
            esc(&c.author),
            time(&c.created_at),
            esc(&c.text)
        );
    }
    out.push_str("<h2>History</h2>");
    history_html(&mut out, &history);
    out.push_str("</div>");
    Ok(out)
}

/// Log entries, each with its changes (and their diffs, when there are some).
fn history_html(out: &mut String, entries: &[LogEntry]) {
    out.push_str("<ol class=\"log\">");
    for e in entries {
        let _ = write!(
            out,
            "<li><code>{}</code> {} · <span class=\"who\">{}</span> &lt;{}&gt; · {}",
            esc(e.commit.get(..10).unwrap_or(&e.commit)),
            esc(e.message.lines().next().unwrap_or("")),
            esc(&e.author),
            esc(&e.email),
            time(&e.time)
        );
        for c in &e.changes {
            let _ = write!(
                out,
                "<div class=\"change\">{} <code>{}</code></div>",
                esc(c.kind.as_str()),
                esc(&c.path)
            );
            if let Some(diff) = &c.diff {
                let _ = write!(out, "<pre class=\"diff\">{}</pre>", esc(diff));
            }
        }
        out.push_str("</li>");
    }
    out.push_str("</ol>");
}

/// `/agents`: every agent with its hook, its live session and its past ones.
pub(super) async fn agents_page(State(app): State<App>) -> Response {
    html_page(&app, |store, _| {
        let agents = ops::list_agents(store)?;
        let hooks = agents
            .iter()
            .map(|a| ops::hook(store, &a.name))
            .collect::<Result<Vec<_>, _>>()?;
        let sessions = ops::list_sessions(store, None)?;
        Ok(("agents".to_owned(), agents_html(&agents, &hooks, &sessions)))
    })
    .await
}

/// `/api/agents`: every agent, as `agent list --json` prints them.
pub(super) async fn agents_json(State(app): State<App>) -> Response {
    json_doc(&app, |store| {
        let agents = ops::list_agents(store)?;
        to_json(&wire::Agents { agents: &agents })
    })
    .await
}

/// Bars of what session `s` spent of the budget it runs under.
fn budget_bars(out: &mut String, s: &Session) {
    let budget = &s.authority.budget;
    if let Some(limit) = budget.spend {
        out.push_str(&bar(
            s.usage.spend,
            limit,
            &format!("${:.2} of ${limit:.2}", s.usage.spend),
        ));
    }
    if let Some(limit) = budget.tokens {
        out.push_str(&bar(
            s.usage.tokens as f64,
            limit as f64,
            &format!("{} of {limit} tokens", s.usage.tokens),
        ));
    }
    if budget.spend.is_none() && budget.tokens.is_none() {
        out.push_str("<div class=\"muted\">no budget ceiling</div>");
    }
}

/// The body of the agents page: each agent with what is on its hook (`hooks`, in the
/// agents' order) and its sessions.
fn agents_html(agents: &[Agent], hooks: &[Vec<HookItem>], sessions: &[Session]) -> String {
    let now = chrono::Utc::now();
    let mut out = String::from("<h1>Agents</h1><div id=\"agents\" data-live>");
    if agents.is_empty() {
        out.push_str("<p class=\"muted\">no agents yet</p>");
    }
    for (a, hook) in agents.iter().zip(hooks) {
        let mine: Vec<&Session> = sessions.iter().filter(|s| s.agent == a.name).collect();
        let live = mine
            .iter()
            .find(|s| s.ended_at.is_none() && a.session.as_ref() == Some(&s.id));
        let model = live.and_then(|s| session_model(s)).or(a.model.as_deref());
        let _ = write!(
            out,
            "<section class=\"agent\" id=\"agent-{anchor}\"><h2>{name}</h2><div class=\"meta\">{role} · {status} · model {model}</div>",
            anchor = url_part(a.name.as_str()),
            name = esc(a.name.as_str()),
            role = esc(a.role.as_deref().unwrap_or("no role")),
            status = esc(a.status.as_str()),
            model = esc(model.unwrap_or("—")),
        );
        out.push_str("<h3>Hook</h3><ul>");
        for item in hook {
            let _ = write!(
                out,
                "<li>{} {} <span class=\"status\">{}</span>",
                bead_link(item.bead.id.as_str()),
                esc(&item.bead.title),
                esc(item.bead.status.as_str())
            );
            if let Some(p) = &item.progress {
                out.push_str(&steps_bar(p));
            }
            out.push_str("</li>");
        }
        if hook.is_empty() {
            out.push_str("<li class=\"muted\">empty</li>");
        }
        out.push_str("</ul>");
        match live {
            Some(s) => {
                let _ = write!(out, "<h3>Live session {}</h3>", session_link(s.id.as_str()));
                let mut fields = Fields::default();
                fields.add("model", esc(session_model(s).unwrap_or("—")));
                fields.add("turns", s.usage.turns.to_string());
                fields.add("tokens", s.usage.tokens.to_string());
                fields.add("spend", format!("${:.2}", s.usage.spend));
                fields.add("heartbeat", format!("{} ago", age(&s.heartbeat_at, &now)));
                out.push_str(&fields.finish());
                budget_bars(&mut out, s);
            }
            None => out.push_str("<h3>No live session</h3>"),
        }
        let ended: Vec<&&Session> = mine.iter().filter(|s| s.ended_at.is_some()).collect();
        if !ended.is_empty() {
            out.push_str("<h3>Ended sessions</h3><table class=\"list\"><tr><th>session</th><th>ended</th><th>how</th><th>turns</th><th>spend</th></tr>");
            for s in ended {
                let how = s.end.map_or("—", |e| e.as_str());
                let _ = write!(
                    out,
                    "<tr class=\"end-{how}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.2}</td></tr>",
                    session_link(s.id.as_str()),
                    s.ended_at.as_ref().map(time).unwrap_or_default(),
                    esc(how),
                    s.usage.turns,
                    s.usage.spend
                );
            }
            out.push_str("</table>");
        }
        out.push_str("</section>");
    }
    out.push_str("</div>");
    out
}

/// The model session `s` runs: the one it recorded, else the last its turns named.
fn session_model(s: &Session) -> Option<&str> {
    (s.model.as_deref())
        .or_else(|| s.models.last().map(|m| m.to.as_str()))
        .or_else(|| s.ledger.iter().rev().find_map(|l| l.model.as_deref()))
}

/// `/session/ID`: a session, its ledger as a plot, its model swaps and snapshots.
pub(super) async fn session_page(State(app): State<App>, Path(given): Path<String>) -> Response {
    html_page(&app, move |store, _| {
        let id = BeadId::parse_session(&given)
            .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, e.to_string()))?;
        let s = ops::show_session(store, &id)?;
        let changes = ops::session_log(store, &id)?;
        Ok((format!("session {}", s.id), session_html(&s, &changes)))
    })
    .await
}

/// The ledger of `s` as an SVG plot: running tokens and spend per line, each model
/// swap marked at the first line after it.
fn ledger_svg(s: &Session) -> String {
    const W: f64 = 720.0;
    const H: f64 = 220.0;
    const PAD: f64 = 30.0;
    let lines = &s.ledger;
    if lines.is_empty() {
        return "<p class=\"muted\">no turns recorded yet</p>".to_owned();
    }
    let mut tokens = Vec::with_capacity(lines.len());
    let mut spend = Vec::with_capacity(lines.len());
    let (mut t, mut d) = (0.0, 0.0);
    for l in lines {
        t += l.tokens as f64;
        d += l.spend;
        tokens.push(t);
        spend.push(d);
    }
    let x = |i: usize| PAD + i as f64 * (W - 2.0 * PAD) / (lines.len().max(2) - 1) as f64;
    let y = |v: f64, max: f64| H - PAD - if max > 0.0 { v / max } else { 0.0 } * (H - 2.0 * PAD);
    let points = |vals: &[f64]| {
        let max = vals.last().copied().unwrap_or(0.0);
        vals.iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v, max)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = format!(
        "<svg class=\"plot\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"tokens and spend per turn\">\
         <line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" class=\"axis\"/>\
         <polyline class=\"tokens\" points=\"{tp}\"/><polyline class=\"spend\" points=\"{sp}\"/>\
         <text x=\"{PAD}\" y=\"16\" class=\"tokens\">tokens {t}</text>\
         <text x=\"{mid}\" y=\"16\" class=\"spend\">spend ${d:.2}</text>",
        b = H - PAD,
        r = W - PAD,
        tp = points(&tokens),
        sp = points(&spend),
        mid = W / 2.0,
    );
    for swap in s.models.iter().filter(|m| m.from.is_some()) {
        let i = lines
            .iter()
            .position(|l| l.at >= swap.at)
            .unwrap_or(lines.len() - 1);
        // A label right of the middle runs leftwards from its line, so the plot's
        // edge never clips it.
        let (tx, anchor) = match x(i) > W / 2.0 {
            true => (x(i) - 3.0, "end"),
            false => (x(i) + 3.0, "start"),
        };
        let _ = write!(
            out,
            "<line class=\"swap\" x1=\"{xi:.1}\" y1=\"{PAD}\" x2=\"{xi:.1}\" y2=\"{b}\"/>\
             <text class=\"swap\" x=\"{tx:.1}\" y=\"{ty}\" text-anchor=\"{anchor}\">{m}</text>",
            xi = x(i),
            ty = PAD + 12.0,
            b = H - PAD,
            m = esc(&swap.to),
        );
    }
    let _ = write!(
        out,
        "<text x=\"{PAD}\" y=\"{ty}\" class=\"axis\">turn 1</text><text x=\"{r}\" y=\"{ty}\" class=\"axis\" text-anchor=\"end\">turn {n}</text></svg>",
        ty = H - 10.0,
        r = W - PAD,
        n = lines.len()
    );
    out
}

/// The body of a session page: its fields, budget, ledger plot, model swaps,
/// snapshots and the store changes it made (`changes`).
fn session_html(s: &Session, changes: &[LogEntry]) -> String {
    let mut out = format!(
        "<h1>Session {} of {}</h1><div id=\"session\" data-live>",
        esc(s.id.as_str()),
        esc(s.agent.as_str())
    );
    let mut fields = Fields::default();
    fields.add("model", esc(s.model.as_deref().unwrap_or("—")));
    fields.add("worktree", esc(&s.worktree));
    fields.add("host", esc(&s.host));
    fields.add("started", time(&s.started_at));
    fields.add("heartbeat", time(&s.heartbeat_at));
    if let Some(at) = &s.ended_at {
        fields.add(
            "ended",
            format!("{} ({})", time(at), esc(s.end.map_or("—", |e| e.as_str()))),
        );
    }
    if let Some(c) = &s.crash {
        fields.add(
            "crash",
            format!(
                "found {} at step {}",
                time(&c.detected_at),
                esc(c.step.as_deref().unwrap_or("?"))
            ),
        );
    }
    fields.add(
        "usage",
        format!(
            "{} turns · {} tokens · ${:.2} · {} tool calls",
            s.usage.turns, s.usage.tokens, s.usage.spend, s.usage.tool_calls
        ),
    );
    fields.add(
        "store at start",
        format!("<code>{}</code>", esc(&s.store_at_start)),
    );
    if let Some(end) = &s.store_at_end {
        fields.add("store at end", format!("<code>{}</code>", esc(end)));
    }
    out.push_str(&fields.finish());
    budget_bars(&mut out, s);
    out.push_str("<h2>Ledger</h2>");
    out.push_str(&ledger_svg(s));
    if !s.models.is_empty() {
        out.push_str("<h2>Model swaps</h2><ul>");
        for m in &s.models {
            let _ = write!(
                out,
                "<li>{} {} → {}</li>",
                time(&m.at),
                esc(m.from.as_deref().unwrap_or("—")),
                esc(&m.to)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("<h2>Snapshots</h2>");
    if s.snapshots.is_empty() {
        out.push_str("<p class=\"muted\">none</p>");
    } else {
        out.push_str(
            "<table class=\"list\"><tr><th>n</th><th>at</th><th>tree</th><th>left out</th></tr>",
        );
        for n in &s.snapshots {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                n.n,
                time(&n.at),
                esc(n.tree.get(..10).unwrap_or(&n.tree)),
                n.skipped.len()
            );
        }
        out.push_str("</table>");
    }
    out.push_str("<h2>Store changes</h2>");
    history_html(&mut out, changes);
    out.push_str("</div>");
    out
}

/// A molecule's progress as a bar.
fn steps_bar(p: &ops::Progress) -> String {
    bar(
        p.done as f64,
        p.total as f64,
        &format!("{} of {} steps", p.done, p.total),
    )
}

/// A molecule's steps as a dependency graph (SVG): a column per depth, each step
/// after the steps it needs (its `blocks` dependencies on other steps).
fn steps_graph(steps: &[ops::StepState], beads: &[Bead]) -> String {
    const W: usize = 170;
    const H: usize = 30;
    const GAP_X: usize = 40;
    const GAP_Y: usize = 10;
    let at: std::collections::HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .map(|(i, st)| (st.id.as_str(), i))
        .collect();
    let mut needs = vec![Vec::new(); steps.len()];
    for b in beads {
        if let Some(&i) = at.get(b.id.as_str()) {
            needs[i] = b
                .dependencies
                .iter()
                .filter(|d| d.kind == crate::model::DepKind::Blocks)
                .filter_map(|d| at.get(d.id.as_str()).copied())
                .collect();
        }
    }
    // Longest path from a step that needs nothing; a cycle stops after n rounds.
    let mut depth = vec![0usize; steps.len()];
    for _ in 0..steps.len() {
        for i in 0..steps.len() {
            depth[i] = needs[i].iter().map(|&n| depth[n] + 1).max().unwrap_or(0);
        }
    }
    let mut row_in = vec![0usize; steps.len() + 1];
    let mut pos = Vec::with_capacity(steps.len());
    for &d in &depth {
        pos.push((d * (W + GAP_X), row_in[d] * (H + GAP_Y)));
        row_in[d] += 1;
    }
    let width = (depth.iter().max().map_or(0, |d| d + 1)) * (W + GAP_X);
    let height = row_in.iter().max().copied().unwrap_or(0) * (H + GAP_Y);
    let mut out = format!(
        "<svg class=\"graph\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"steps and what they need\">"
    );
    for (i, ns) in needs.iter().enumerate() {
        for &n in ns {
            let _ = write!(
                out,
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                pos[n].0 + W,
                pos[n].1 + H / 2,
                pos[i].0,
                pos[i].1 + H / 2
            );
        }
    }
    for (st, (x, y)) in steps.iter().zip(&pos) {
        let class = if st.status.is_done() {
            "done"
        } else if st.ready {
            "ready"
        } else {
            "waiting"
        };
        let title: String = st.title.chars().take(22).collect();
        let _ = write!(
            out,
            "<a href=\"/bead/{href}\"><rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{W}\" height=\"{H}\" rx=\"4\"/>\
             <text x=\"{tx}\" y=\"{ty}\">{title}</text></a>",
            href = url_part(st.id.as_str()),
            tx = x + 8,
            ty = y + H / 2 + 4,
            title = esc(&title),
        );
    }
    out.push_str("</svg>");
    out
}

/// `/molecules`: each molecule with its steps as a progress bar.
pub(super) async fn molecules_page(State(app): State<App>) -> Response {
    html_page(&app, |store, _| {
        let mols = ops::list_molecules(store, true)?;
        let step_beads = mols
            .iter()
            .map(|m| {
                let ids: Vec<BeadId> = m.steps.iter().map(|st| st.id.clone()).collect();
                ops::show(store, &ids)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = String::from("<h1>Molecules</h1><div id=\"molecules\" data-live>");
        if mols.is_empty() {
            out.push_str("<p class=\"muted\">no molecules yet</p>");
        }
        for (m, beads) in mols.iter().zip(&step_beads) {
            let _ = write!(
                out,
                "<section class=\"molecule\"><h2>{} {}{}</h2>",
                bead_link(m.molecule.as_str()),
                esc(&m.title),
                if m.wisp { " <i>(wisp)</i>" } else { "" }
            );
            out.push_str(&steps_bar(m));
            out.push_str(&steps_graph(&m.steps, beads));
            out.push_str("<ol class=\"steps\">");
            for st in &m.steps {
                let _ = write!(
                    out,
                    "<li class=\"{cls}\">{} {} <span class=\"status\">{}</span></li>",
                    bead_link(st.id.as_str()),
                    esc(&st.title),
                    esc(st.status.as_str()),
                    cls = if st.ready { "ready" } else { "" },
                );
            }
            out.push_str("</ol></section>");
        }
        out.push_str("</div>");
        Ok(("molecules".to_owned(), out))
    })
    .await
}

/// `/mail`: the inbox of each agent.
pub(super) async fn mail_page(State(app): State<App>) -> Response {
    html_page(&app, |store, _| {
        let agents = ops::list_agents(store)?;
        let mut out = String::from("<h1>Mail</h1><div id=\"mail\" data-live>");
        for a in &agents {
            let inbox = ops::inbox(store, &a.name, true)?;
            let _ = write!(
                out,
                "<section><h2>{} <span class=\"count\">{}</span></h2><table class=\"list\">",
                esc(a.name.as_str()),
                inbox.len()
            );
            for m in &inbox {
                let sent = chrono::DateTime::from_timestamp_micros(m.summary.sent_us)
                    .map(|t| time(&t))
                    .unwrap_or_default();
                let _ = write!(
                    out,
                    "<tr class=\"{}\"><td>{}</td><td><a href=\"/mail/{}\">{}</a></td><td>{sent}</td></tr>",
                    if m.read { "read" } else { "unread" },
                    esc(&m.summary.from),
                    url_part(&m.summary.id),
                    esc(&m.summary.subject),
                );
            }
            out.push_str("</table></section>");
        }
        out.push_str("</div>");
        Ok(("mail".to_owned(), out))
    })
    .await
}

/// `/mail/ID`: the thread of a message.
pub(super) async fn thread_page(State(app): State<App>, Path(given): Path<String>) -> Response {
    html_page(&app, move |store, _| {
        let id = BeadId::parse(&given)
            .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, e.to_string()))?;
        let messages = ops::thread(store, &id)?;
        let mut out = String::from("<h1>Thread</h1><div id=\"thread\" data-live>");
        for m in &messages {
            let _ = write!(
                out,
                "<div class=\"comment\"><div class=\"meta\">{} → {} · {}</div><b>{}</b><pre class=\"text\">{}</pre></div>",
                esc(&m.from),
                esc(&m.to.join(", ")),
                time(&m.sent_at),
                esc(&m.subject),
                esc(&m.body)
            );
        }
        out.push_str("</div>");
        Ok(("thread".to_owned(), out))
    })
    .await
}

/// How many steps the evidence log shows.
const LOG_LIMIT: usize = 100;

/// `/log`: the evidence log, newest first.
pub(super) async fn log_page(State(app): State<App>) -> Response {
    html_page(&app, |store, _| {
        let entries = ops::log(store, None, LOG_LIMIT)?;
        let mut out = String::from("<h1>Evidence log</h1><div id=\"log\" data-live>");
        history_html(&mut out, &entries);
        out.push_str("</div>");
        Ok(("log".to_owned(), out))
    })
    .await
}

/// `/api/log`: the evidence log as `log --json` prints it.
pub(super) async fn log_json(State(app): State<App>) -> Response {
    json_doc(&app, |store| {
        let entries = ops::log(store, None, LOG_LIMIT)?;
        to_json(&wire::Log::new(&entries))
    })
    .await
}
