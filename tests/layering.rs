//! The rooms of `src/` import one way only (ARCHITECTURE.md, "Which way the imports
//! run"): every `crate::…` path in a file must name its own room or one the table
//! below lets it use.

use std::path::{Path, PathBuf};

/// Each room, and the rooms it may use besides itself.
const ALLOWED: &[(&str, &[&str])] = &[
    ("settings", &[]),
    ("model", &[]),
    ("merge", &["model"]),
    ("store", &["model", "settings"]),
    ("ops", &["store", "merge", "model", "settings"]),
    ("wire", &["ops", "model"]),
    ("hooks", &["ops", "model", "settings", "wire"]),
    ("serve", &["wire", "ops", "model", "settings"]),
    ("mcp", &["wire", "ops", "model", "settings"]),
    (
        "cli",
        &["wire", "ops", "model", "hooks", "settings", "serve", "mcp"],
    ),
];

/// Outside crates a room may not name at all: YAML goes through the store's codec
/// only, git through the store only, so the pure rooms stay pure.
const FORBIDDEN_CRATES: &[(&str, &[&str])] = &[
    ("model", &["serde_yaml", "serde_norway", "gix"]),
    ("merge", &["serde_yaml", "serde_norway", "gix"]),
];

/// Files allowed to reach past the table, each with the room it may also use and why
/// (none today: a file that needs one says so here).
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("read src")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's text with `//` comments blanked out (line breaks kept, so that offsets
/// still give line numbers). String literals that hold `//` are rare enough in `src/`
/// that a path after one on the same line is simply not checked.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The first segment of every path in a `use` group (`{a::b, c, d::{e, f}}`), given
/// the text right after its `{`.
fn group_heads(text: &str) -> Vec<(usize, &str)> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut expect_head = true;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_head = true,
            c if expect_head && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                heads.push((i, ident_at(&text[i..])));
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

/// Every room a file's `crate::` paths name, with the offset where it is named.
fn rooms_named(text: &str) -> Vec<(usize, &str)> {
    let mut named = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let base = at + "crate::{".len();
                named.extend(group_heads(group).into_iter().map(|(i, h)| (base + i, h)));
            }
            None => named.push((at, ident_at(rest))),
        }
    }
    named
}

#[test]
fn imports_run_the_intended_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rooms: Vec<&str> = ALLOWED.iter().map(|(r, _)| *r).collect();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let rel_name = rel.to_string_lossy().replace('\\', "/");
        let first = rel_name.split('/').next().unwrap_or_default();
        let room = first.strip_suffix(".rs").unwrap_or(first);
        let Some((_, allowed)) = ALLOWED.iter().find(|(r, _)| *r == room) else {
            // lib.rs and main.rs stand above the rooms.
            continue;
        };
        let text = without_comments(&std::fs::read_to_string(file).expect("read"));
        for (at, used) in rooms_named(&text) {
            if used == room || allowed.contains(&used) || !rooms.contains(&used) {
                continue;
            }
            if EXCEPTIONS
                .iter()
                .any(|(f, r, _)| *f == rel_name && *r == used)
            {
                continue;
            }
            let line = text[..at].matches('\n').count() + 1;
            problems.push(format!(
                "src/{rel_name}:{line}: {room} uses {used}, which it may not (it may use: {})",
                if allowed.is_empty() {
                    "nothing".to_owned()
                } else {
                    allowed.join(", ")
                }
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "imports against the intended directions:\n  {}",
        problems.join("\n  ")
    );
}

/// Every outside crate of `crates` that `text` names as a path (`name::…`), with the
/// offset where it is named.
fn crates_named<'c>(text: &str, crates: &[&'c str]) -> Vec<(usize, &'c str)> {
    let mut named = Vec::new();
    for name in crates {
        for (at, _) in text.match_indices(&format!("{name}::")) {
            let before = text[..at].chars().next_back();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                named.push((at, *name));
            }
        }
    }
    named
}

#[test]
fn pure_rooms_name_no_yaml_or_git_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    for (room, crates) in FORBIDDEN_CRATES {
        let mut files = Vec::new();
        let dir = src.join(room);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        }
        let single = src.join(format!("{room}.rs"));
        if single.is_file() {
            files.push(single);
        }
        for file in files {
            let text = without_comments(&std::fs::read_to_string(&file).expect("read"));
            for (at, name) in crates_named(&text, crates) {
                let line = text[..at].matches('\n').count() + 1;
                let rel = file.strip_prefix(&src).expect("under src").display();
                problems.push(format!("src/{rel}:{line}: {room} names {name}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "crates the pure rooms may not use:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_crate_scanner_finds_outside_paths_only() {
    let text = "use serde_yaml::Value;\nlet v: crate::serde_yaml::X = my_serde_yaml::y();";
    let named: Vec<&str> = crates_named(text, &["serde_yaml"])
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(named, ["serde_yaml"]);
}

#[test]
fn every_room_is_in_the_table() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src)
        .expect("read src")
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let room = name.strip_suffix(".rs").unwrap_or(&name).to_owned();
        if room == "lib" || room == "main" {
            continue;
        }
        if !ALLOWED.iter().any(|(r, _)| *r == room) {
            missing.push(room);
        }
    }
    assert!(
        missing.is_empty(),
        "rooms missing from ALLOWED: {missing:?}"
    );
}

#[test]
fn the_scanner_reads_groups_and_paths() {
    let text = "use crate::{model::Bead, store::{Store, Tx}};\nlet x = crate::ops::list();";
    let named: Vec<&str> = rooms_named(text).into_iter().map(|(_, r)| r).collect();
    assert_eq!(named, ["model", "store", "ops"]);
}

/// The rooms inside `ops`: the bead core (`ops/core/`) uses ops' errors and nothing
/// else of ops, so that no feature room (workflows, agents, remote) is reached from
/// it; the feature rooms above it may use it and each other, but never in a circle.
const CORE_MAY_USE: &[&str] = &["core", "error"];

/// The text of a file without its unit tests (a trailing `#[cfg(test)] mod tests`),
/// which may use any room of ops.
fn without_tests(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Every name a file reaches through `super::` chains, with the depth of the chain
/// (`super::super::x` is depth 2) and the offset where it is named.
fn supers_named(text: &str) -> Vec<(usize, usize, &str)> {
    let mut named = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("super::") {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let mut rest = &text[at..];
        let mut depth = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            depth += 1;
        }
        from = text.len() - rest.len();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let base = text.len() - rest.len();
        match rest.strip_prefix('{') {
            Some(group) => named.extend(
                group_heads(group)
                    .into_iter()
                    .map(|(i, h)| (base + 1 + i, depth, h)),
            ),
            None => named.push((base, depth, ident_at(rest))),
        }
    }
    named
}

/// The ops rooms: each file of `src/ops/` by its module name, and `core` for the
/// whole of `src/ops/core/`; with the room each name `ops/mod.rs` re-exports comes
/// from.
fn ops_rooms(ops: &Path) -> (Vec<String>, std::collections::HashMap<String, String>) {
    let mut rooms: Vec<String> = std::fs::read_dir(ops)
        .expect("read src/ops")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match name.strip_suffix(".rs") {
                Some("mod") => None,
                Some(m) => Some(m.to_owned()),
                None => e.path().is_dir().then_some(name),
            }
        })
        .collect();
    rooms.sort();
    let face = without_comments(&std::fs::read_to_string(ops.join("mod.rs")).expect("read"));
    let mut from = std::collections::HashMap::new();
    for statement in face.split(';') {
        let Some(at) = statement.find("use ") else {
            continue;
        };
        let path = statement[at + 4..].trim();
        let head = ident_at(path);
        let room = match rooms.iter().find(|r| *r == head) {
            Some(r) => r.clone(),
            None => match from.get(head) {
                Some(r) => String::clone(r),
                None => continue,
            },
        };
        let names: Vec<&str> = match path.find('{') {
            Some(open) => path[open + 1..]
                .split(',')
                .map(|n| n.rsplit(" as ").next().unwrap_or(n))
                .map(|n| n.trim().trim_end_matches('}').trim())
                .map(|n| n.rsplit("::").next().unwrap_or(n))
                .collect(),
            None => vec![
                path.rsplit(" as ")
                    .next()
                    .unwrap_or(path)
                    .rsplit("::")
                    .next()
                    .unwrap_or(path),
            ],
        };
        for name in names.into_iter().filter(|n| !n.is_empty()) {
            from.insert(name.to_owned(), room.clone());
        }
    }
    (rooms, from)
}

/// One file of `src/ops/` and the ops rooms it names.
struct OpsFile {
    /// Its path under `src/ops/`.
    rel: String,
    /// Its room: its module name, or `core` for a file of `src/ops/core/`.
    room: String,
    /// Each other room it names, with the line that names it.
    arrows: Vec<(String, usize)>,
}

/// Each ops file and the ops rooms it names (through `super::` or `crate::ops::`, a
/// re-exported name counting as the room it comes from).
fn ops_arrows(src: &Path) -> Vec<OpsFile> {
    let ops = src.join("ops");
    let (rooms, from) = ops_rooms(&ops);
    let mut files = Vec::new();
    rust_files(&ops, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&ops).expect("under ops");
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == "mod.rs" {
            continue;
        }
        let inner = rel.starts_with("core/") && rel != "core/mod.rs";
        let room = rel.split('/').next().unwrap_or_default();
        let room = room.strip_suffix(".rs").unwrap_or(room).to_owned();
        let full = without_comments(&std::fs::read_to_string(&file).expect("read"));
        let text = without_tests(&full);
        let mut named: Vec<(usize, &str)> = supers_named(text)
            .into_iter()
            .filter(|(_, depth, _)| *depth == if inner { 2 } else { 1 })
            .map(|(at, _, n)| (at, n))
            .collect();
        for (at, _) in text.match_indices("crate::ops::") {
            named.push((at, ident_at(&text[at + "crate::ops::".len()..])));
        }
        let mut arrows = Vec::new();
        for (at, name) in named {
            let target = match rooms.iter().find(|r| *r == name) {
                Some(r) => r.clone(),
                None => match from.get(name) {
                    Some(r) => r.clone(),
                    None => continue,
                },
            };
            if target != room {
                arrows.push((target, text[..at].matches('\n').count() + 1));
            }
        }
        out.push(OpsFile { rel, room, arrows });
    }
    out
}

#[test]
fn the_bead_core_calls_no_feature_room() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems: Vec<String> = ops_arrows(&src)
        .into_iter()
        .filter(|f| f.room == "core")
        .flat_map(|OpsFile { rel, arrows, .. }| {
            arrows
                .into_iter()
                .filter(|(to, _)| !CORE_MAY_USE.contains(&to.as_str()))
                .map(move |(to, line)| format!("src/ops/{rel}:{line}: the core uses ops::{to}"))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "the bead core reaches above itself (it may use: {}):\n  {}",
        CORE_MAY_USE.join(", "),
        problems.join("\n  ")
    );
}

#[test]
fn the_rooms_of_ops_form_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for f in ops_arrows(&src) {
        let out = edges.entry(f.room).or_default();
        out.extend(f.arrows.into_iter().map(|(to, _)| to));
    }
    // A room is on a circle when it reaches itself.
    let reaches = |start: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<&str> = vec![start];
        while let Some(r) = todo.pop() {
            for next in edges.get(r).into_iter().flatten() {
                if seen.insert(next.as_str()) {
                    todo.push(next);
                }
            }
        }
        seen
    };
    let circled: Vec<String> = edges
        .keys()
        .filter(|r| reaches(r).contains(r.as_str()))
        .map(|r| {
            let back: Vec<&str> = edges[r]
                .iter()
                .filter(|to| reaches(to).contains(r.as_str()))
                .map(String::as_str)
                .collect();
            format!("{r} (-> {})", back.join(", "))
        })
        .collect();
    assert!(
        circled.is_empty(),
        "rooms of ops that import each other in a circle:\n  {}",
        circled.join("\n  ")
    );
}

#[test]
fn the_super_scanner_resolves_chains_and_groups() {
    let text = "use super::{a, b::c};\nlet x = super::super::d();\nfoo::super::e;";
    let named: Vec<(usize, &str)> = supers_named(text)
        .into_iter()
        .map(|(_, depth, n)| (depth, n))
        .collect();
    assert_eq!(named, [(1, "a"), (1, "b"), (2, "d")]);
}
