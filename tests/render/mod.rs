//! Helpers shared by the snapshot tests of human output (`render_*.rs`): a
//! command's stdout, stderr and exit code as one text, and snapshots of it with
//! ids, times, hashes and temp paths filtered out, so that a snapshot is the same
//! on every run and every machine.
#![allow(dead_code)]

use std::path::Path;

use crate::common::{Repo, Sandbox};

/// What a person sees when running `git beads ARGS` in `repo`: the command, its
/// stdout, its stderr (when it said anything) and its exit code (when not 0).
pub fn screen(repo: &Repo, args: &[&str]) -> String {
    let out = repo.beads_output(args);
    let shown: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                (*a).to_owned()
            }
        })
        .collect();
    let mut text = format!("$ git beads {}\n", shown.join(" "));
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&stderr);
    }
    if !out.status.success() {
        text.push_str(&format!("[exit {}]\n", out.status.code().unwrap_or(-1)));
    }
    text
}

/// The [`screen`]s of several commands run one after the other, as one text.
pub fn screens(repo: &Repo, commands: &[&[&str]]) -> String {
    commands
        .iter()
        .map(|args| screen(repo, args))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Escapes the characters of `text` that a regular expression would read as syntax.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if r"\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The ids a test knows, each with the name it gets in a snapshot
/// (`bd-x1y2z` → `[LOGIN]`), so that a snapshot says which bead is which.
#[derive(Default)]
pub struct Names(Vec<(String, String)>);

impl Names {
    /// Names `id` `name`; returns the id.
    pub fn name(&mut self, id: impl Into<String>, name: &str) -> String {
        let id = id.into();
        self.0.push((id.clone(), name.to_owned()));
        id
    }

    /// The id named `name`.
    pub fn id(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(_, n)| n == name)
            .map(|(id, _)| id.as_str())
            .unwrap_or_else(|| panic!("no id is named {name}"))
    }
}

/// Runs `check` (an `insta::assert_snapshot!`) with the filters that make a
/// rendering stable: the ids in `names` first, then the sandbox's path, any other
/// bead, session and message id, the fan-out folders of document paths (which come
/// from the ids), times and hashes.
pub fn stable(sb: &Sandbox, names: &Names, check: impl FnOnce()) {
    stable_with(sb, names, &[], check);
}

/// [`stable`], with the test's own `filters` (a regular expression and what it
/// becomes) applied first: for what only that output holds, such as a host name.
pub fn stable_with(sb: &Sandbox, names: &Names, filters: &[(&str, &str)], check: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    for (pattern, replacement) in filters {
        settings.add_filter(pattern, *replacement);
    }
    let mut named: Vec<_> = names.0.iter().collect();
    // An id before its prefix: `bd-a1.1` is a name of its own, not `[A].1`.
    named.sort_by_key(|(id, _)| std::cmp::Reverse(id.len()));
    for (id, name) in named {
        settings.add_filter(&format!(r"{}\b", literal(id)), format!("[{name}]"));
    }
    for path in sandbox_paths(sb.path()) {
        settings.add_filter(&literal(&path), "[SANDBOX]");
    }
    settings.add_filter(r"\bses-[0-9a-z]+", "[SESSION]");
    settings.add_filter(r"\bmsg-[0-9a-z]+", "[MESSAGE]");
    settings.add_filter(r"\bbd-[0-9a-z]+", "[BEAD]");
    settings.add_filter(
        r"\b(beads|sessions|mail|snapshots)/[0-9a-z_]{2}/",
        "$1/[FAN]/",
    );
    settings.add_filter(
        r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?( UTC|Z)?",
        "[TIME]",
    );
    settings.add_filter(r"\b[0-9a-f]{7,40}\b", "[HASH]");
    settings.bind(check);
}

/// The sandbox's path as written and, where it differs, with symbolic links resolved
/// (what git prints), longest first.
fn sandbox_paths(path: &Path) -> Vec<String> {
    let mut paths = vec![path.display().to_string()];
    if let Ok(real) = path.canonicalize() {
        let real = real.display().to_string();
        if !paths.contains(&real) {
            paths.push(real);
        }
    }
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    paths
}
