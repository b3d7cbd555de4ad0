//! `git beads serve`: the board in the browser. The real binary serves a real store;
//! raw HTTP requests check what the server refuses (a write without the CSRF token,
//! from another origin, on a read-only board, without the access token), and a real
//! headless Chromium driven by playwright-core (tests/board/board.js) checks what a
//! person sees: the columns of a seeded store, a CLI write appearing on the open page,
//! a claim made on the page landing in `git log refs/beads/main` as the person, and a
//! bead titled with HTML shown as text. It also takes the README's screenshots
//! (written to docs/screenshots/ with `GIT_BEADS_UPDATE_SCREENSHOTS=1`).
//!
//! playwright-core is installed under `target/bd-tools/npm` (beside beads-ui) and
//! Chromium is Debian's `/usr/bin/chromium`; `.ci/run` installs both. Where they are
//! missing the browser test says so on stderr and passes, except with `CI=true`.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use common::tools::{npm_package, or_skip};
use common::{Repo, Sandbox, expect_success, write_file};
use serde_json::Value;

/// The pinned version of playwright-core.
const PLAYWRIGHT: &str = "1.65.1";

/// The browser story, in JavaScript.
const STORY: &str = include_str!("board/board.js");

/// Debian's Chromium.
const CHROMIUM: &str = "/usr/bin/chromium";

/// A running `git beads serve`, stopped when dropped.
struct Server {
    child: Child,
    /// The URL it printed.
    url: String,
}

impl Server {
    /// Starts `git-beads serve --port 0 EXTRA…` in `repo` and waits for its URL. The
    /// binary is started itself, not through `git beads`: killing a `git` that runs it
    /// would leave the server running.
    fn start(repo: &Repo, extra: &[&str]) -> Server {
        let mut child = repo
            .command(&common::bin().to_string_lossy())
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("serve prints its URL");
        assert!(line.starts_with("http://127.0.0.1:"), "{line:?}");
        Server {
            child,
            url: line.trim().to_owned(),
        }
    }

    /// `host:port`.
    fn addr(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .expect("an address")
            .to_owned()
    }

    /// Sends one raw HTTP/1.1 request and returns the status and the whole answer.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String) {
        let addr = self.addr();
        let mut stream = TcpStream::connect(&addr).expect("connect");
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if method == "POST" {
            req.push_str(&format!(
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        req.push_str("\r\n");
        req.push_str(body);
        stream.write_all(req.as_bytes()).expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read the answer");
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {answer:?}"));
        (status, answer)
    }

    /// The board's CSRF token, read from its page.
    fn csrf(&self) -> String {
        let (status, page) = self.request("GET", "/", &[], "");
        assert_eq!(status, 200, "{page}");
        let at = page
            .find("name=\"csrf-token\" content=\"")
            .expect("a csrf meta tag")
            + 27;
        page[at..at + 32].to_owned()
    }

    /// A form post with the board's own Origin.
    fn post(&self, path: &str, body: &str) -> (u16, String) {
        let origin = format!("http://{}", self.addr());
        self.request("POST", path, &[("Origin", &origin)], body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The author and subject of the newest store commit.
fn last_store_commit(repo: &Repo) -> String {
    repo.git(&["log", "-1", "--format=%an <%ae> %s", "refs/beads/main"])
        .trim()
        .to_owned()
}

#[test]
fn writes_need_the_csrf_token_and_the_boards_own_origin() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Claim me", &[]);
    let server = Server::start(&repo, &[]);
    let csrf = server.csrf();
    let before = repo.store_head();

    let (status, page) = server.post(&format!("/bead/{id}/claim"), "go=claim");
    assert_eq!(status, 403, "{page}");
    assert!(page.contains("CSRF token"), "{page}");
    // The real token with its last character changed, so it is always wrong.
    let last = if csrf.ends_with('0') { '1' } else { '0' };
    let (status, page) = server.post(
        &format!("/bead/{id}/claim"),
        &format!("csrf={}{last}&go=claim", &csrf[..csrf.len() - 1]),
    );
    assert_eq!(status, 403, "a wrong token: {page}");
    let (status, page) = server.request(
        "POST",
        &format!("/bead/{id}/claim"),
        &[("Origin", "http://evil.example")],
        &format!("csrf={csrf}&go=claim"),
    );
    assert_eq!(status, 403, "another origin: {page}");
    let (status, page) = server.request(
        "POST",
        &format!("/bead/{id}/claim"),
        &[],
        &format!("csrf={csrf}"),
    );
    assert_eq!(status, 403, "no Origin and no Referer: {page}");
    assert_eq!(repo.store_head(), before, "a refused write changes nothing");

    let (status, page) = server.post(
        &format!("/bead/{id}/claim"),
        &format!("csrf={csrf}&go=claim"),
    );
    assert_eq!(status, 303, "{page}");
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        repo.commit_count(&before) + 1,
        "one commit"
    );
    assert!(
        last_store_commit(&repo).starts_with("alice <alice@example.com>"),
        "{}",
        last_store_commit(&repo)
    );
    let bead = repo.bead_json(&id);
    assert_eq!(bead["status"], "in_progress");
    assert_eq!(bead["assignee"], "alice");

    let (status, page) = server.post(
        "/create",
        &format!("csrf={csrf}&title=From+the+page&type=bug&priority=1"),
    );
    assert_eq!(status, 303, "{page}");
    let made = repo.beads_json(&["list", "--title-contains", "From the page"]);
    assert_eq!(made[0]["issue_type"], "bug", "{made}");
    assert_eq!(made[0]["priority"], 1, "{made}");
}

/// Posts `body` (the CSRF token added) to `path` and checks that it made exactly one
/// store commit, authored by alice; returns the bead's JSON afterwards.
fn one_commit(server: &Server, repo: &Repo, csrf: &str, path: &str, body: &str, id: &str) -> Value {
    let before = repo.store_head();
    let (status, page) = server.post(path, &format!("csrf={csrf}&{body}"));
    assert_eq!(status, 303, "{path} {body}: {page}");
    assert_eq!(
        repo.commit_count(&format!("{before}..refs/beads/main")),
        1,
        "{path} {body}: one commit"
    );
    let last = last_store_commit(repo);
    assert!(
        last.starts_with("alice <alice@example.com>"),
        "{path}: {last}"
    );
    repo.bead_json(id)
}

#[test]
fn every_write_from_the_page_is_one_commit_as_the_person() {
    let sb = Sandbox::new();
    let (c1, c2, id) = sb.two_clones_sharing("Contested", &[]);
    c1.beads(&["update", &id, "-p", "1"]);
    c2.beads(&["update", &id, "-p", "4"]);
    c1.sync();
    c2.sync();
    c1.sync();
    c1.beads(&["agent", "create", "nux"]);
    let server = Server::start(&c1, &[]);
    let csrf = server.csrf();
    let at = |action: &str| format!("/bead/{id}/{action}");

    let (status, page) = server.request("GET", &format!("/bead/{id}"), &[], "");
    assert_eq!(status, 200);
    assert!(
        page.contains("Conflicts") && page.contains("Resolve"),
        "{page}"
    );
    let b = one_commit(&server, &c1, &csrf, &at("resolve"), "text=priority", &id);
    assert_eq!(b["conflicts"], Value::Null, "{b}");
    let b = one_commit(
        &server,
        &c1,
        &csrf,
        &at("comment"),
        "text=Looks+%3Cgood%3E",
        &id,
    );
    assert_eq!(b["comments"][0]["text"], "Looks <good>", "{b}");
    assert_eq!(b["comments"][0]["author"], "alice", "{b}");
    let b = one_commit(&server, &c1, &csrf, &at("priority"), "priority=0", &id);
    assert_eq!(b["priority"], 0);
    let b = one_commit(&server, &c1, &csrf, &at("label"), "text=ui&go=add", &id);
    assert_eq!(b["labels"], serde_json::json!(["ui"]));
    let b = one_commit(&server, &c1, &csrf, &at("label"), "text=ui&go=remove", &id);
    assert_eq!(b["labels"], serde_json::json!([]));
    let b = one_commit(&server, &c1, &csrf, &at("sling"), "agent=nux", &id);
    assert_eq!(b["assignee"], "nux", "{b}");
    let hook = c1.beads_json(&["hook", "nux"]);
    assert!(hook.to_string().contains(&id), "{hook}");
    let b = one_commit(&server, &c1, &csrf, &at("close"), "text=done+here", &id);
    assert_eq!(b["status"], "closed");
    assert_eq!(b["close_reason"], "done here");

    let (status, page) = server.post(&at("priority"), &format!("csrf={csrf}&priority=9"));
    assert_eq!(status, 400, "{page}");
    let (status, _) = server.request("GET", "/?priority=9", &[], "");
    assert_eq!(status, 400);
    let (status, _) = server.request("GET", "/bead/bd-nope", &[], "");
    assert_eq!(status, 404);
}

/// With `beads.claimRemote` set, the board's claim and close are the CLI's: a claim
/// someone else holds on the remote is refused (409) and the winner shown here, a claim
/// won is held there as its claim ref, and a close deletes that ref.
#[test]
fn the_boards_claims_and_closes_go_through_the_claim_remote() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let taken = c1.create("Taken elsewhere", &[]);
    let free = c1.create("Free", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.beads(&["update", &taken, "--claim", "--remote", "origin"]);
    c1.git(&["config", "beads.claimRemote", "origin"]);
    let claims = || {
        sb.git(
            &remote,
            &["for-each-ref", "--format=%(refname)", "refs/beads/claims/"],
        )
    };
    let server = Server::start(&c1, &[]);
    let csrf = server.csrf();

    let (status, page) = server.post(&format!("/bead/{taken}/claim"), &format!("csrf={csrf}"));
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("bob"), "{page}");
    assert_eq!(c1.bead_json(&taken)["assignee"], "bob");

    let (status, page) = server.post(&format!("/bead/{free}/claim"), &format!("csrf={csrf}"));
    assert_eq!(status, 303, "{page}");
    assert_eq!(c1.bead_json(&free)["assignee"], "alice");
    assert!(
        claims().contains(&format!("refs/beads/claims/{free}")),
        "{}",
        claims()
    );
    let (status, page) = server.post(
        &format!("/bead/{free}/close"),
        &format!("csrf={csrf}&text=done"),
    );
    assert_eq!(status, 303, "{page}");
    assert_eq!(c1.bead_json(&free)["status"], "closed");
    assert!(
        !claims().contains(&format!("refs/beads/claims/{free}")),
        "{}",
        claims()
    );
}

/// A formula of three steps: two that need the first.
const FORMULA: &str = "name: trio
title: Trio
steps:
  - id: plan
    title: Plan it
  - id: left
    title: Build the left
    needs: [plan]
  - id: right
    title: Build the right
    needs: [plan]
";

/// The body of a raw HTTP answer.
fn body(answer: &str) -> &str {
    answer.split("\r\n\r\n").nth(1).unwrap_or_default()
}

#[test]
fn molecules_mail_and_the_log_have_pages_of_their_own() {
    let (_sb, repo) = Sandbox::with_store();
    let config = repo.path.parent().expect("sandbox").join("config");
    let repo = repo.with_env("XDG_CONFIG_HOME", config);
    repo.formula("trio.yaml", FORMULA);
    let mol = repo.beads(&["mol", "pour", "trio"]).trim().to_owned();
    repo.beads(&["agent", "create", "nux"]);
    repo.beads(&[
        "mail",
        "send",
        "nux",
        "-s",
        "<script>alert(2)</script>",
        "-m",
        "Body & soul",
    ]);
    let server = Server::start(&repo, &[]);

    let (status, page) = server.request("GET", "/molecules", &[], "");
    assert_eq!(status, 200);
    assert!(
        page.contains(&mol) && page.contains("0 of 3 steps"),
        "{page}"
    );
    let graph = &page[page.find("<svg class=\"graph\"").expect("a graph")..];
    let graph = &graph[..graph.find("</svg>").expect("its end")];
    assert_eq!(graph.matches("<line").count(), 2, "two needs: {graph}");
    assert_eq!(graph.matches("<rect class=\"ready\"").count(), 1, "{graph}");

    let (status, page) = server.request("GET", "/mail", &[], "");
    assert_eq!(status, 200);
    let page = body(&page);
    assert!(
        page.contains("&lt;script&gt;alert(2)&lt;/script&gt;"),
        "{page}"
    );
    assert!(!page.contains("<script>alert"), "{page}");
    let at = page.find("href=\"/mail/").expect("a link to the thread") + 12;
    let link = &page[at - 6..at + page[at..].find('"').expect("its end")];
    let (status, thread) = server.request("GET", link, &[], "");
    assert_eq!(status, 200, "{link}");
    assert!(body(&thread).contains("Body &amp; soul"), "{thread}");

    let (status, log) = server.request("GET", "/log", &[], "");
    assert_eq!(status, 200);
    assert!(body(&log).contains("&lt;alice@example.com&gt;"), "{log}");
    let (status, json) = server.request("GET", "/api/log", &[], "");
    assert_eq!(status, 200);
    let entries: Value = serde_json::from_str(body(&json)).expect("JSON");
    assert!(
        entries.as_array().is_some_and(|a| a.len() >= 3),
        "{entries}"
    );
}

/// The ids of column `n` of `/api/board?QUERY`, and how many beads it holds.
fn column_of(server: &Server, query: &str, n: usize) -> (Vec<String>, u64) {
    let (status, answer) = server.request("GET", &format!("/api/board?{query}"), &[], "");
    assert_eq!(status, 200, "{answer}");
    let doc: Value = serde_json::from_str(body(&answer)).expect("JSON");
    let col = &doc["columns"][n];
    let ids = col["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect();
    (ids, col["total"].as_u64().expect("a total"))
}

#[test]
fn the_board_filters_searches_and_pages_its_columns() {
    let (_sb, repo) = Sandbox::with_store();
    for i in 0..55 {
        repo.beads(&["q", &format!("Card number {i}")]);
    }
    let bug = repo.create(
        "A zephyr of a bug",
        &["-t", "bug", "-p", "0", "-l", "ui", "-a", "bob"],
    );
    let server = Server::start(&repo, &[]);

    let (ids, total) = column_of(&server, "", 1);
    assert_eq!((ids.len(), total), (50, 56), "50 cards of 56");
    assert_eq!(ids[0], bug, "highest priority first");
    let (_, page) = server.request("GET", "/", &[], "");
    assert!(
        page.contains("more (6 not shown)") && page.contains("href=\"/?ready=100\""),
        "{page}"
    );
    let (ids, _) = column_of(&server, "ready=100", 1);
    assert_eq!(ids.len(), 56);

    for query in [
        "label=ui",
        "type=bug",
        "assignee=bob",
        "priority=0",
        "q=zephyr",
        "q=ZEPHYR&label=ui",
    ] {
        assert_eq!(
            column_of(&server, query, 1),
            (vec![bug.clone()], 1),
            "{query}"
        );
    }
    assert_eq!(column_of(&server, "q=zephyr&type=task", 1).1, 0);
}

/// The names of the board's columns, left to right, each with the ids of its cards.
fn columns(server: &Server, query: &str) -> Vec<(String, Vec<String>)> {
    let (status, answer) = server.request("GET", &format!("/api/board?{query}"), &[], "");
    assert_eq!(status, 200, "{answer}");
    let doc: Value = serde_json::from_str(body(&answer)).expect("JSON");
    doc["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| {
            let mut ids: Vec<String> = c["cards"]
                .as_array()
                .expect("cards")
                .iter()
                .map(|c| c["id"].as_str().expect("an id").to_owned())
                .collect();
            ids.sort();
            (c["name"].as_str().expect("a name").to_owned(), ids)
        })
        .collect()
}

#[test]
fn each_status_of_the_projects_own_that_ready_leaves_out_has_a_column() {
    let (_sb, repo) = Sandbox::with_store();
    repo.beads(&[
        "config",
        "set",
        "status.custom",
        "in_review:active,qa_testing:wip,on_hold:frozen,archived:done,limbo",
    ]);
    let with = |title: &str, status: &str| {
        let id = repo.create(title, &[]);
        repo.beads(&["update", &id, "--status", status]);
        id
    };
    let open = repo.create("Open", &[]);
    let review = with("Review", "in_review");
    let qa = with("QA", "qa_testing");
    // Waiting on an open bead, it stays in its status's column, not the blocked one.
    let qa_waits = with("QA, waiting", "qa_testing");
    repo.beads(&["dep", "add", &qa_waits, &open]);
    let hold = with("Hold", "on_hold");
    let archived = with("Archived", "archived");
    let limbo = with("Limbo", "limbo");
    let server = Server::start(&repo, &[]);

    let mut in_qa = vec![qa.clone(), qa_waits.clone()];
    in_qa.sort();
    let mut ready = vec![open.clone(), review.clone()];
    ready.sort();
    let expected: Vec<(String, Vec<String>)> = [
        ("epics", vec![]),
        ("ready", ready),
        ("in_progress", vec![]),
        ("qa_testing", in_qa),
        ("on_hold", vec![hold]),
        ("limbo", vec![limbo]),
        ("blocked", vec![]),
        ("closed", vec![]),
        ("archived", vec![archived]),
    ]
    .into_iter()
    .map(|(name, ids)| (name.to_owned(), ids))
    .collect();
    assert_eq!(columns(&server, ""), expected);

    let (_, page) = server.request("GET", "/", &[], "");
    assert!(
        page.contains("id=\"col-qa_testing\"><h2>Qa testing <span class=\"count\">2</span>"),
        "{page}"
    );
    // The columns of the project's statuses page together, by `custom`.
    assert_eq!(column_of(&server, "custom=1", 3).0.len(), 1);
    let (_, page) = server.request("GET", "/?custom=1", &[], "");
    assert!(page.contains("href=\"/?custom=51\""), "{page}");
    // Filters narrow them as they narrow the others.
    assert_eq!(column_of(&server, "q=waiting", 3), (vec![qa_waits], 1));
}

#[test]
fn a_read_only_board_refuses_writes_and_shows_the_store() {
    let (_sb, repo) = Sandbox::with_store();
    let id = repo.create("Only to look at", &[]);
    let epic = repo.create("A container of work", &["-t", "epic"]);
    let server = Server::start(&repo, &["--read-only"]);
    let csrf = server.csrf();
    let before = repo.store_head();
    let (status, page) = server.post(&format!("/bead/{id}/close"), &format!("csrf={csrf}"));
    assert_eq!(status, 403, "{page}");
    assert!(page.contains("read-only"), "{page}");
    assert_eq!(repo.store_head(), before);

    let (status, page) = server.request("GET", &format!("/bead/{id}"), &[], "");
    assert_eq!(status, 200);
    assert!(page.contains("Only to look at"), "{page}");
    let (status, json) = server.request("GET", "/api/board", &[], "");
    assert_eq!(status, 200);
    let body: Value =
        serde_json::from_str(json.split("\r\n\r\n").nth(1).expect("a body")).expect("JSON");
    // An open epic is in the epics column only.
    assert_eq!(body["columns"][0]["name"], "epics");
    assert_eq!(body["columns"][0]["cards"][0]["id"], epic.as_str());
    assert_eq!(body["columns"][1]["name"], "ready");
    assert_eq!(body["columns"][1]["total"], 1);
    assert_eq!(body["columns"][1]["cards"][0]["id"], id.as_str());
}

#[test]
fn off_loopback_the_board_needs_a_token() {
    let (_sb, repo) = Sandbox::with_store();
    let (code, err) = repo.beads_fail(&["serve", "--port", "0", "--host", "0.0.0.0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a token"), "{err}");

    let server = Server::start(&repo, &["--token", "s3cret"]);
    assert!(server.url.ends_with("/?token=s3cret"), "{}", server.url);
    let (status, _) = server.request("GET", "/", &[], "");
    assert_eq!(status, 401);
    let (status, answer) = server.request("GET", "/?token=s3cret", &[], "");
    assert_eq!(status, 200);
    assert!(
        answer.contains("beads_token=s3cret"),
        "the token becomes a cookie: {answer}"
    );
    let (status, _) = server.request("GET", "/agents", &[("Cookie", "beads_token=s3cret")], "");
    assert_eq!(status, 200);
}

/// What the browser test needs: playwright-core's folder (installed with npm unless
/// it is there) and Chromium; or why it cannot be had.
fn browser() -> Result<PathBuf, String> {
    if !Path::new(CHROMIUM).exists() {
        return Err(format!(
            "{CHROMIUM} is missing (`apt-get install chromium`)"
        ));
    }
    npm_package("playwright-core", PLAYWRIGHT)
}

/// A store with a bead in each column, one titled with HTML, an epic, and an agent
/// (no default model) with a bead on its hook and a live session whose ledger has a
/// model swap at its last turn. Returns the repository, the ids by column (epics,
/// ready, in progress, blocked, closed), the bead to claim and the session's id.
fn seeded(sb: &Sandbox) -> (Repo, [Vec<String>; 5], String, String) {
    let repo = sb.store();
    let epic = repo.create("Board v2", &["-t", "epic"]);
    let docs = repo.create("Write the manual", &["-p", "1", "-l", "docs"]);
    let xss = repo.create("<img src=x onerror=alert(1)>", &[]);
    let claim = repo.create("Claim me from the page", &["-p", "3"]);
    let draw = repo.create("Draw the columns", &["-l", "ui"]);
    repo.beads(&["update", &draw, "--claim"]);
    let ship = repo.create("Ship the board", &["-p", "0"]);
    repo.beads(&["dep", "add", &ship, &draw]);
    let old = repo.create("Sketch the board on paper", &[]);
    repo.beads(&["close", &old]);
    repo.beads(&[
        "agent",
        "create",
        "nux",
        "--role",
        "polecat",
        "--budget",
        "spend=5,tokens=400000",
    ]);
    let hooked = repo.create("Review the board", &["-l", "ui"]);
    repo.beads(&["sling", &hooked, "nux"]);
    let session = repo.start_session(&["--agent", "nux", "--model", "claude-sonnet-4"]);
    for (i, tokens) in ["12000", "30000", "18000", "42000", "25000", "36000"]
        .iter()
        .enumerate()
    {
        if i == 5 {
            repo.beads(&["session", "model", "claude-opus-4"]);
        }
        let spend = format!(
            "{:.2}",
            tokens.parse::<f64>().expect("a number") / 100_000.0 * (1 + i / 3) as f64
        );
        repo.beads(&[
            "session",
            "usage",
            "--turn",
            "--tokens",
            tokens,
            "--spend",
            &spend,
            "--tool-calls",
            "3",
        ]);
    }
    let ready = vec![docs, xss, claim.clone()];
    (
        repo,
        [vec![epic], ready, vec![draw, hooked], vec![ship], vec![old]],
        claim,
        session,
    )
}

/// The ids of a column the browser saw, sorted.
fn seen(doc: &Value, column: &str) -> Vec<String> {
    let mut ids: Vec<String> = doc["columns"][column]
        .as_array()
        .unwrap_or_else(|| panic!("no column {column} in {doc}"))
        .iter()
        .map(|v| v.as_str().expect("an id").to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_real_browser_sees_the_board_live_and_claims_as_the_person() {
    let Some(pkg) = or_skip("the browser test's Chromium and playwright-core", browser()) else {
        return;
    };
    let sb = Sandbox::new();
    let (repo, columns, claim, session) = seeded(&sb);
    let server = Server::start(&repo, &[]);
    let shots = match std::env::var("GIT_BEADS_UPDATE_SCREENSHOTS").as_deref() {
        Ok("1") => Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots"),
        _ => sb.path().join("shots"),
    };
    std::fs::create_dir_all(&shots).expect("mkdir");
    let story = sb.path().join("board.js");
    write_file(&story, STORY);
    let out = repo
        .command("node")
        .arg(&story)
        .arg(&pkg)
        .arg(&server.url)
        .arg(&claim)
        .arg(&session)
        .arg("nux")
        .arg(&shots)
        .arg(&columns[0][0])
        .output()
        .expect("node runs");
    let text = expect_success("the browser story", &out);
    let doc: Value = serde_json::from_str(text.trim()).expect("the story prints JSON");

    for (name, mut want) in ["epics", "ready", "in_progress", "blocked", "closed"]
        .into_iter()
        .zip(columns)
    {
        want.sort();
        assert_eq!(seen(&doc, name), want, "column {name}: {doc}");
    }
    assert_eq!(doc["xss_text"], 1, "the HTML title shows as text: {doc}");
    assert_eq!(doc["injected_images"], 0, "{doc}");
    assert_eq!(
        doc["dialogs"],
        serde_json::json!([]),
        "no script ran: {doc}"
    );
    assert_eq!(doc["live"]["same_page"], true, "{doc}");
    eprintln!(
        "the CLI write showed on the page {} ms after it returned",
        doc["live"]["ms"]
    );
    assert_eq!(doc["no_csrf_status"], 403, "{doc}");

    let fields = doc["after_claim"].as_str().expect("text");
    assert!(
        fields.contains("in_progress") && fields.contains("alice"),
        "{fields}"
    );
    let last = last_store_commit(&repo);
    assert!(last.starts_with("alice <alice@example.com>"), "{last}");
    let log = repo.git(&["log", "-1", "--format=%B", "refs/beads/main"]);
    assert!(
        log.contains(&claim),
        "the claim's commit names the bead: {log}"
    );
    assert_eq!(repo.bead_json(&claim)["assignee"], "alice");

    let agents = doc["agents_text"].as_str().expect("text");
    assert!(
        agents.contains("nux") && agents.contains("claude-opus-4"),
        "{agents}"
    );
    assert!(agents.contains("of $5.00"), "the budget bar: {agents}");
    // The agent has no default model: its live session's shows.
    assert!(
        agents.contains("model claude-opus-4") && !agents.contains("model —"),
        "{agents}"
    );
    assert_eq!(doc["epic_claims"], 0, "an epic offers no claim: {doc}");
    assert_eq!(
        doc["bar_labels_inside"],
        serde_json::json!([true, true]),
        "{doc}"
    );
    assert_eq!(
        doc["swap_labels_inside"],
        serde_json::json!([true]),
        "{doc}"
    );
    assert!(agents.contains("Review the board"), "the hook: {agents}");
    assert_eq!(doc["session_swaps"], 1, "one model swap marked: {doc}");
    assert_eq!(doc["session_points"], 6, "a point per turn: {doc}");
    for shot in ["board.png", "agent.png", "session.png"] {
        assert!(shots.join(shot).is_file(), "{shot} was taken");
    }
}
