//! Gas Town's and Gas City's bd calls, run against git-beads through a `bd` shim.
//!
//! tests/gastown/bd_calls.tsv lists every bd call in the Go source of Gas Town
//! (steveyegge/gastown) and Gas City (gastownhall/gascity): where it is, its argv
//! with placeholders, and what the Go code reads from its stdout (the JSON fields
//! with their JSON types). Both projects are MIT-licensed; their licences are kept
//! beside the list. Each call runs here, in a store laid out the way Gas Town's is
//! (its custom types, agents, convoys tracking work, mail, events, a molecule), as
//! `bd ARGS` from PATH, and must exit 0 with stdout that parses as the Go code
//! parses it.
//!
//! The shapes git-beads does not take yet are listed in [`KNOWN_MISSING`]: the test
//! fails when one of them starts to work (take it off the list) and when a shape
//! not on the list fails. The shapes bd itself no longer takes are in [`NOT_IN_BD`]
//! and are not run.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{Repo, Sandbox, bd_shim, write_file};
use serde_json::Value;

/// The vendored list of calls.
const CALLS: &str = include_str!("gastown/bd_calls.tsv");

/// Shapes (the argv column, placeholders unfilled) that bd itself does not take
/// (checked against steveyegge/beads' `cmd/bd`): Gas Town still carries them for
/// older bd versions or as dead code. They are not run.
const NOT_IN_BD: &[&str] = &[
    // bd's delete has no --hard (only --force, --cascade, --dry-run, --from-file).
    "delete <ID> --hard --force",
    // bd's update has no --unassign (Gas Town's own fallback is --assignee=).
    "update <ID> --unassign",
    // bd's list has no --asc (it has --reverse) and no --tag.
    "list --labels=gt:message,announce:<LABEL> --json --limit=0 --sort=created --asc",
    "list --status=open --tag=escalation --json",
    // bd's mol seed takes a formula name and --var, no --patrol.
    "mol seed --patrol",
    // bd has no activity command and no message command (show --thread instead).
    "activity --follow",
    "message thread <ID> --json",
    // bd's label takes verbs (add, remove, list…), not `label ID --add`.
    "label <ID> --add status:docked",
    // bd's label add/remove take one label after the ids: the claim labels here
    // would be read as ids.
    "label add <ID> claimed-by:<AGENT> claimed-at:<DATE>",
    "label remove <ID> claimed-by:<AGENT> claimed-at:<DATE>",
    // bd's list refuses `--sort -created` ("invalid sort field", exit 1): it takes
    // the leading `-` as part of the value, and no field has that name.
    "list --label gt:message --label announce_channel:<LABEL> --sort -created --limit 0 --json",
    "list --label gt:message --label channel:<LABEL> --sort -created --limit 0 --json",
    // bd's create has no --prefix (`gt bead move`).
    "create --prefix <PREFIX> --title=<TITLE> --type <TYPE> --priority <PRIO> --silent --description <TEXT> --assignee <AGENT> --label <LABEL>",
];

/// Shapes git-beads does not take yet. Shrinks as they are implemented; the test
/// fails when one here works, so the list stays true.
const KNOWN_MISSING: &[&str] = &[];

/// One call of the list.
struct Call {
    source: String,
    site: String,
    shape: String,
    reads: String,
}

/// The calls of the vendored list.
fn calls() -> Vec<Call> {
    CALLS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "four columns: {l}");
            Call {
                source: cols[0].into(),
                site: cols[1].into(),
                shape: cols[2].into(),
                reads: cols[3].into(),
            }
        })
        .collect()
}

/// Splits an argv column into arguments: spaces separate them, `'…'` quotes one.
fn split_argv(shape: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for ch in shape.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    args.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote in {shape}");
    if any {
        args.push(cur);
    }
    args
}

/// The custom types and statuses Gas Town configures (its `constants.BeadsCustomTypes`).
const TYPES: &str = "agent,role,rig,convoy,slot,queue,event,message,molecule,gate,merge-request";

/// The town: a store prefixed `gt` with what Gas Town keeps in one, and the values
/// its placeholders take.
struct Town {
    sb: Sandbox,
    repo: Repo,
    /// PATH with the `bd` shim first.
    path: std::ffi::OsString,
    /// A poured molecule.
    mol: String,
    /// Calls run so far (each gets fresh beads).
    n: usize,
}

/// The labels every bead of a call carries, so that Gas Town's label queries find it.
const LABELS: &[&str] = &[
    "gt:agent",
    "gt:message",
    "gt:escalation",
    "gt:queue",
    "gt:rig",
    "gt:channel",
    "gt:group",
    "gt:merge-request",
    "digest",
];

const FORMULA: &str = r#"name: mol-patrol
description: A patrol of {{rig}}.
title: "Patrol: {{rig}}"
variables:
  rig:
    description: Which rig.
    default: gastown
  feature:
    description: What to build.
    default: it
  issue:
    description: Which issue.
    default: none
steps:
  - id: scan
    title: Scan {{rig}}
  - id: report
    title: Report on {{rig}}
    needs: [scan]
"#;

impl Town {
    /// The town with what Gas Town keeps in it: its types, a key, a formula and a
    /// molecule poured from it, beads of its own types.
    fn new() -> Town {
        let mut town = town();
        town.ok(&["config", "set", "types.custom", TYPES]);
        town.ok(&["kv", "set", "k", "v"]);
        town.repo.formula("mol-patrol.formula.yaml", FORMULA);
        town.mol = town
            .ok(&["mol", "pour", "mol-patrol", "--var", "rig=gastown"])
            .trim()
            .to_owned();
        for (ty, title) in [
            ("convoy", "Convoy: ship it"),
            ("event", "Event: patrol digest"),
            ("agent", "Agent: gastown/witness"),
            ("molecule", "Molecule: refinery patrol"),
        ] {
            town.ok(&["create", title, "--type", ty, "-l", &LABELS.join(",")]);
        }
        town
    }

    /// `bd ARGS` in the town's root; the raw output.
    fn bd(&self, args: &[String]) -> std::process::Output {
        self.repo
            .command("bd")
            .args(args)
            .output()
            .expect("bd runs")
    }

    /// `bd ARGS`, asserting success; stdout.
    fn ok(&self, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        common::expect_success(format_args!("bd {args:?}"), &self.bd(&args))
    }

    /// The ids of the three beads of run `n`.
    fn ids_of(n: usize) -> [String; 3] {
        ["a", "b", "c"].map(|s| format!("gt-c{n}{s}"))
    }

    /// Three beads for each of `runs` calls, imported at once: in each, the first
    /// tracks the second, all carry Gas Town's labels and a metadata key.
    fn stock(&self, runs: usize) {
        let mut lines = String::new();
        for n in 1..=runs {
            let ids = Town::ids_of(n);
            for (i, id) in ids.iter().enumerate() {
                let deps = if i == 0 {
                    serde_json::json!([
                        {"issue_id": id, "depends_on_id": ids[1], "type": "tracks"},
                    ])
                } else {
                    serde_json::json!([])
                };
                let rec = serde_json::json!({
                    "id": id, "title": format!("Work {id}"), "description": "stuff",
                    "status": "open", "priority": 2, "issue_type": "task",
                    "assignee": "gastown/polecats/nux",
                    "labels": LABELS,
                    "metadata": {"k": "v"},
                    "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
                    "dependencies": deps,
                });
                lines.push_str(&format!("{rec}\n"));
            }
        }
        let file = self.sb.path().join("stock.jsonl");
        write_file(&file, &lines);
        self.ok(&["import", file.to_str().expect("utf-8")]);
    }

    /// The three beads of the next call, from the stock.
    fn fresh(&mut self) -> [String; 3] {
        self.n += 1;
        Town::ids_of(self.n)
    }

    /// The argv of `call` with its placeholders filled in for run `n`.
    fn argv(&mut self, call: &Call) -> Vec<String> {
        let [a, b, c] = self.fresh();
        let n = self.n;
        let graph = self.sb.path().join(format!("graph{n}.json"));
        write_file(
            &graph,
            r#"{"nodes":[{"key":"a","title":"Graph A"}],"edges":[]}"#,
        );
        let fill: BTreeMap<&str, String> = [
            ("<ID>", a),
            ("<ID2>", b),
            ("<ID3>", c),
            ("<NEWID>", format!("gt-new{n}")),
            ("<TITLE>", format!("Title {n}")),
            ("<TEXT>", "some text".into()),
            ("<AGENT>", "gastown/polecats/nux".into()),
            ("<LABEL>", "gt:agent".into()),
            ("<STATUS>", "open".into()),
            ("<PRIO>", "2".into()),
            ("<TYPE>", "task".into()),
            ("<SESSION>", "sess-1".into()),
            ("<N>", "10".into()),
            ("<VAR>", "rig=gastown".into()),
            ("<VAR2>", "feature=login".into()),
            ("<VAR3>", "issue=gt-1".into()),
            ("<DEPTYPE>", "blocks".into()),
            ("<PREFIX>", "gt".into()),
            ("<PORT>", "3307".into()),
            ("<HOST>", "127.0.0.1".into()),
            ("<TOKEN>", "DESTROY-gt".into()),
            ("<KV>", "k=v".into()),
            ("<KEY>", "k".into()),
            ("<VALUE>", "v".into()),
            ("<JSON>", r#"{"k":"v"}"#.into()),
            ("<DATE>", "2025-01-01T00:00:00Z".into()),
            ("<FILE>", graph.display().to_string()),
            ("<TYPES>", TYPES.into()),
            ("<STATUSES>", "staged,ready".into()),
            ("<FORMULA>", "mol-patrol".into()),
            ("<MOL>", self.mol.clone()),
            ("<SQL>", "SELECT COUNT(*) AS cnt FROM issues".into()),
            ("<QUERY>", "status=open".into()),
            ("<DIR>", "down".into()),
            ("<PATH>", self.repo.path.display().to_string()),
        ]
        .into_iter()
        .collect();
        split_argv(&call.shape)
            .into_iter()
            .map(|arg| {
                let mut out = arg.clone();
                for (k, v) in &fill {
                    out = out.replace(k, v);
                }
                assert!(!out.contains("<") || call.shape.contains('`'), "{arg}");
                out
            })
            .collect()
    }

    /// Runs `call`; `Err` says why it does not work.
    fn check(&mut self, call: &Call) -> Result<(), String> {
        let argv = self.argv(call);
        let out = if argv[0] == "init" {
            // An init makes a store: in a repository of its own.
            let repo = self.sb.repo(&format!("rig{}", self.n), "mayor");
            repo.with_env("PATH", &self.path)
                .command("bd")
                .args(&argv)
                .output()
                .expect("bd runs")
        } else {
            self.bd(&argv)
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "bd {argv:?}: exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        reads(&call.reads, &stdout).map_err(|e| format!("bd {argv:?}: {e}\n{stdout}"))
    }
}

/// Checks `stdout` against a reads column: `-` (nothing read), `text` (a line),
/// `csv`, `json`, `object`, `array`, or `object{f:t,…}` / `array{f:t,…}`: each
/// field with its JSON type (`s` string, `i` integer, `b` boolean, `a` array, `o`
/// object), optional when it ends in `?`.
fn reads(spec: &str, stdout: &str) -> Result<(), String> {
    let (kind, fields) = match spec.split_once('{') {
        Some((k, f)) => (k, f.trim_end_matches('}')),
        None => (spec, ""),
    };
    match kind {
        // Read, but empty is an answer too (`config get` of a key not set).
        "-" | "text?" => return Ok(()),
        "text" | "csv" => {
            return if stdout.trim().is_empty() {
                Err("nothing on stdout".into())
            } else {
                Ok(())
            };
        }
        _ => {}
    }
    let v: Value = serde_json::from_str(stdout).map_err(|e| format!("not JSON: {e}"))?;
    let items: Vec<&Value> = match kind {
        "json" => return Ok(()),
        "object" if v.is_object() => vec![&v],
        "array" => v
            .as_array()
            .ok_or("not an array")?
            .iter()
            .collect::<Vec<_>>(),
        _ => return Err(format!("not {kind}")),
    };
    for item in items {
        for field in fields.split(',').filter(|f| !f.is_empty()) {
            let (name, ty) = field.split_once(':').ok_or("field:type")?;
            let optional = ty.ends_with('?');
            let got = item.get(name);
            let fits = match (ty.trim_end_matches('?'), got) {
                (_, None | Some(Value::Null)) => optional,
                ("s", Some(x)) => x.is_string(),
                ("i", Some(x)) => x.is_i64() || x.is_u64(),
                ("b", Some(x)) => x.is_boolean(),
                ("a", Some(x)) => x.is_array(),
                ("o", Some(x)) => x.is_object(),
                (t, _) => return Err(format!("unknown type {t}")),
            };
            if !fits {
                return Err(format!("field {name} is not {ty}: {:?}", got));
            }
        }
    }
    Ok(())
}

#[test]
fn the_list_has_both_projects_calls_and_their_licences() {
    let calls = calls();
    let sources: BTreeSet<&str> = calls.iter().map(|c| c.source.as_str()).collect();
    assert_eq!(sources, BTreeSet::from(["gascity", "gastown"]));
    assert!(calls.len() > 300, "{}", calls.len());
    for c in &calls {
        let (file, line) = c.site.rsplit_once(':').expect("file:line");
        assert!(file.ends_with(".go"), "{}", c.site);
        line.parse::<u32>().expect("line number");
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gastown");
    for name in ["LICENSE-gastown", "LICENSE-gascity"] {
        let text = std::fs::read_to_string(here.join(name)).expect(name);
        assert!(text.starts_with("MIT License"), "{name}");
    }
    let shapes: BTreeSet<&str> = calls.iter().map(|c| c.shape.as_str()).collect();
    for s in NOT_IN_BD.iter().chain(KNOWN_MISSING) {
        assert!(shapes.contains(s), "not a shape of the list: {s}");
    }
}

#[test]
fn every_bd_call_of_gas_town_and_gas_city_works_but_the_known_missing() {
    let calls = calls();
    let mut town = Town::new();
    town.stock(calls.len());
    let mut failing: BTreeMap<String, String> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for call in calls {
        if NOT_IN_BD.contains(&call.shape.as_str()) {
            continue;
        }
        seen.insert(call.shape.clone());
        if let Err(why) = town.check(&call) {
            failing
                .entry(call.shape.clone())
                .or_insert(format!("{} {}: {why}", call.source, call.site));
        }
    }
    let known: BTreeSet<&str> = KNOWN_MISSING.iter().copied().collect();
    let newly_broken: Vec<String> = failing
        .iter()
        .filter(|(s, _)| !known.contains(s.as_str()))
        .map(|(s, why)| format!("{s}\n    {why}"))
        .collect();
    let now_working: Vec<&str> = known
        .iter()
        .filter(|s| !failing.contains_key(**s))
        .copied()
        .collect();
    assert!(
        newly_broken.is_empty() && now_working.is_empty(),
        "{} of {} shapes fail that are not known missing:\n{}\n\nknown missing that work now (take them off KNOWN_MISSING): {now_working:#?}",
        newly_broken.len(),
        seen.len(),
        newly_broken.join("\n"),
    );
}

/// A store of prefix `gt` reached through the `bd` shim.
fn town() -> Town {
    let sb = Sandbox::new();
    let shim = bd_shim(&sb);
    let dir = shim.parent().expect("shim dir").to_owned();
    let path = std::env::join_paths(
        std::iter::once(dir).chain(std::env::split_paths(&common::path_env())),
    )
    .expect("PATH");
    let repo = sb.repo("town", "mayor").with_env("PATH", &path);
    let town = Town {
        sb,
        repo,
        path,
        mol: String::new(),
        n: 0,
    };
    town.ok(&["init", "--prefix", "gt"]);
    town
}

impl Town {
    /// `bd --json ARGS`, parsed.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.ok(&all);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"))
    }

    /// `bd ARGS`, asserting failure: (exit code, stderr).
    fn fails(&self, args: &[&str]) -> (i32, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = self.bd(&args);
        assert!(!out.status.success(), "bd {args:?} should fail");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn explicit_ids_take_the_stores_prefix_or_force_and_close_keeps_the_session() {
    let t = town();
    let made = t.json(&["create", "Convoy", "--id", "gt-cv1", "--type", "task"]);
    assert_eq!(made["id"], "gt-cv1");
    // Another rig's prefix: refused (bd's exit 1) and nothing made, unless --force.
    let before = t.repo.store_head();
    let (code, err) = t.fails(&["create", "Agent", "--id", "hq-agent1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("hq-agent1"), "{err}");
    assert_eq!(t.repo.store_head(), before);
    t.ok(&["create", "Agent", "--id", "hq-agent1", "--force"]);
    // allowed_prefixes lets one in without --force.
    t.ok(&["config", "set", "allowed_prefixes", "gt,hq-cv"]);
    t.ok(&["create", "Convoy", "--id", "hq-cv-9"]);
    // --metadata on create is kept and printed.
    let m = t.json(&["create", "M", "--metadata", r#"{"rig":"gastown","n":3}"#]);
    assert_eq!(m["metadata"], serde_json::json!({"rig": "gastown", "n": 3}));
    // close --session and --force: bd's closed_by_session; --force changes nothing else.
    t.ok(&[
        "close",
        "gt-cv1",
        "--force",
        "--session",
        "sess-42",
        "-r",
        "done",
    ]);
    let shown = t.json(&["show", "gt-cv1"]);
    assert_eq!(shown[0]["status"], "closed");
    assert_eq!(shown[0]["closed_by_session"], "sess-42");
    assert_eq!(shown[0]["close_reason"], "done");
}

#[test]
fn metadata_edits_and_the_listing_filters_answer_as_bd_does() {
    let t = town();
    let a = t
        .ok(&["create", "A", "-d", "Carries the Payload"])
        .trim()
        .to_owned();
    let b = t.ok(&["create", "B", "-d", "plain"]).trim().to_owned();
    t.ok(&[
        "update",
        &a,
        "--set-metadata",
        "rig=gastown",
        "--set-metadata",
        "n=3",
    ]);
    t.ok(&[
        "update",
        &b,
        "--set-metadata=rig=beads",
        "--set-metadata",
        "flag=true",
    ]);
    let shown = t.json(&["show", &a]);
    assert_eq!(
        shown[0]["metadata"],
        serde_json::json!({"rig": "gastown", "n": 3})
    );
    // Typed as bd types them, and matched by their text.
    let ids = |v: &Value| common::ids(v);
    assert_eq!(
        ids(&t.json(&["list", "--metadata-field", "n=3"])),
        [a.as_str()]
    );
    assert_eq!(
        ids(&t.json(&["list", "--metadata-field", "rig=beads"])),
        [b.as_str()]
    );
    assert_eq!(
        ids(&t.json(&["list", "--desc-contains", "payload"])),
        [a.as_str()]
    );
    assert_eq!(
        ids(&t.json(&["search", "A", "--desc-contains", "nothing"])),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(&t.json(&["list", "--created-after", "2999-01-01"])),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(&t.json(&[
            "list",
            "--created-after",
            "2000-01-01",
            "--include-infra",
            "--include-gates"
        ]))
        .len(),
        2
    );
    // --format json is --json; --format id prints the ids alone.
    let text = t.ok(&["list", "--format=json"]);
    assert_eq!(ids(&serde_json::from_str(&text).expect("json")).len(), 2);
    let listed = t.ok(&["list", "--format", "id", "--sort", "id"]);
    let mut want = vec![a.clone(), b.clone()];
    want.sort();
    assert_eq!(listed.lines().collect::<Vec<_>>(), want);
    // Unset one key, then the last: the metadata goes.
    t.ok(&["update", &a, "--unset-metadata", "n"]);
    assert_eq!(
        t.json(&["show", &a])[0]["metadata"],
        serde_json::json!({"rig": "gastown"})
    );
    t.ok(&["update", &a, "--unset-metadata", "rig"]);
    assert_eq!(t.json(&["show", &a])[0].get("metadata"), None);
    // A bad key is refused with bd's exit code, and nothing changes.
    let before = t.repo.store_head();
    assert_eq!(t.fails(&["update", &a, "--set-metadata", "9x=1"]).0, 1);
    assert_eq!(t.fails(&["update", &a, "--set-metadata", "novalue"]).0, 1);
    assert_eq!(t.repo.store_head(), before);
    // `--set-labels=` clears the labels, as bd reads it.
    t.ok(&["update", &a, "--add-label", "x"]);
    t.ok(&["update", &a, "--set-labels="]);
    assert_eq!(t.json(&["show", &a])[0]["labels"], serde_json::json!([]));
    // bd's --sort takes `-created` as the field's name, and refuses it (exit 1); its
    // other fields sort as bd's do.
    let (code, err) = t.fails(&["list", "--sort", "-created", "--json"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("invalid sort field") && err.contains("-created"),
        "{err}"
    );
    t.ok(&["update", &b, "--assignee", "zed"]);
    t.ok(&["close", &a]);
    let sorted = |by: &str| ids(&t.json(&["list", "--all", "--sort", by]));
    assert_eq!(sorted("assignee"), [a.clone(), b.clone()]);
    assert_eq!(sorted("closed"), [a.clone(), b.clone()]);
    assert_eq!(sorted("type").len(), 2);
}

#[test]
fn dep_list_looks_both_ways_filters_by_type_and_takes_several_ids() {
    let t = town();
    let convoy = t.ok(&["create", "Convoy"]).trim().to_owned();
    let w1 = t.ok(&["create", "W1"]).trim().to_owned();
    let w2 = t.ok(&["create", "W2"]).trim().to_owned();
    t.ok(&["dep", "add", &convoy, &w1, "--type", "tracks"]);
    t.ok(&["dep", "add", &convoy, &w2, "--type", "blocks"]);
    t.ok(&["dep", "add", &w2, &w1]);
    let down = t.json(&["dep", "list", &convoy, "-t", "tracks"]);
    assert_eq!(common::ids(&down), [w1.as_str()]);
    assert_eq!(down[0]["dependency_type"], "tracks");
    assert_eq!(down[0]["title"], "W1");
    let up = t.json(&["dep", "list", &w1, "--direction=up"]);
    let mut ups = common::ids(&up);
    ups.sort();
    let mut want = vec![convoy.clone(), w2.clone()];
    want.sort();
    assert_eq!(ups, want);
    let tracked_by = t.json(&["dep", "list", &w1, "--direction", "up", "--type", "tracks"]);
    assert_eq!(common::ids(&tracked_by), [convoy.as_str()]);
    // A word that is no type keeps nothing, as bd compares it.
    assert_eq!(
        t.json(&["dep", "list", &convoy, "--type=depends_on"]),
        serde_json::json!([])
    );
    // Several ids: bd's flat records; an unknown id is skipped.
    let batch = t.json(&["dep", "list", &convoy, &w2, "gt-nope"]);
    let mut records: Vec<(String, String, String)> = common::items(&batch)
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect(k).to_owned();
            (s("issue_id"), s("depends_on_id"), s("type"))
        })
        .collect();
    records.sort();
    let mut want = vec![
        (convoy.clone(), w1.clone(), "tracks".to_owned()),
        (convoy.clone(), w2.clone(), "blocks".to_owned()),
        (w2.clone(), w1.clone(), "blocks".to_owned()),
    ];
    want.sort();
    assert_eq!(records, want);
    // One unknown id alone is an error, as in bd.
    assert_eq!(t.fails(&["dep", "list", "gt-nope"]).0, 1);
}

#[test]
fn kv_pairs_live_in_the_store_and_its_history() {
    let t = town();
    t.ok(&["kv", "set", "feature_flag", "true"]);
    t.ok(&["kv", "set", "api", "https://example.com"]);
    assert_eq!(t.ok(&["kv", "get", "feature_flag"]).trim(), "true");
    assert_eq!(
        t.json(&["kv", "list"]),
        serde_json::json!({"api": "https://example.com", "feature_flag": "true"})
    );
    let got = t.json(&["kv", "get", "api"]);
    assert_eq!(
        (got["value"].clone(), got["found"].clone()),
        ("https://example.com".into(), true.into())
    );
    // In the store's history: one commit each.
    let log = t.repo.git(&["log", "--format=%s", "refs/beads/main"]);
    assert!(log.contains("kv.feature_flag"), "{log}");
    t.ok(&["kv", "clear", "feature_flag"]);
    let (code, err) = t.fails(&["kv", "get", "feature_flag"]);
    assert_eq!(code, 1);
    assert!(err.contains("feature_flag (not set)"), "{err}");
    // bd's reserved prefixes are refused, nothing stored.
    let before = t.repo.store_head();
    assert_eq!(t.fails(&["kv", "set", "sync.x", "1"]).0, 1);
    assert_eq!(t.fails(&["kv", "set", " ", "1"]).0, 1);
    assert_eq!(t.repo.store_head(), before);
}

#[test]
fn bds_server_and_migration_words_say_what_they_mean_here() {
    let t = town();
    let rig = t.sb.repo("rig", "mayor").with_env("PATH", &t.path);
    let out = rig
        .command("bd")
        .args([
            "init",
            "-p",
            "gr",
            "--server",
            "--server-port",
            "3307",
            "--server-host",
            "127.0.0.1",
        ])
        .output()
        .expect("bd runs");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs no server"), "{err}");
    let again = rig
        .command("bd")
        .args([
            "init",
            "--prefix",
            "gr",
            "--force",
            "--destroy-token=DESTROY-gr",
        ])
        .output()
        .expect("bd runs");
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("destroys no store"));
    let m = t.json(&["migrate", "--yes"]);
    assert_eq!(m["status"], "current");
    let out = t.bd(&["migrate".into(), "--update-repo-id".into()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to update"));
    // --allow-stale anywhere is taken.
    t.ok(&["--allow-stale", "list"]);
    t.ok(&["list", "--allow-stale", "--json"]);
}

#[test]
fn bd_actor_names_who_acts_as_actor_does() {
    let t = town();
    let id = t
        .repo
        .command("bd")
        .env("BD_ACTOR", "gastown/crew/max")
        .args(["create", "By max"])
        .output()
        .expect("bd runs");
    assert!(id.status.success());
    let id = String::from_utf8_lossy(&id.stdout).trim().to_owned();
    assert_eq!(t.json(&["show", &id])[0]["created_by"], "gastown/crew/max");
    // --actor wins over the variable.
    let out = t
        .repo
        .command("bd")
        .env("BD_ACTOR", "gastown/crew/max")
        .args(["update", &id, "--priority", "1", "--actor", "mayor"])
        .output()
        .expect("bd runs");
    assert!(out.status.success());
    assert_eq!(t.json(&["show", &id])[0]["updated_by"], "mayor");
}

#[test]
fn events_roles_and_cook_answer_as_bd_does() {
    let t = town();
    let id = t
        .ok(&[
            "create",
            "--type=event",
            "--title=Patrol digest",
            "--event-category=patrol.digest",
            r#"--event-payload={"n":3}"#,
            "--silent",
        ])
        .trim()
        .to_owned();
    let shown = t.json(&["show", &id]);
    assert_eq!(shown[0]["issue_type"], "event");
    assert_eq!(shown[0]["event_kind"], "patrol.digest");
    assert_eq!(shown[0]["payload"], r#"{"n":3}"#);
    // Event flags on another type: bd's exit 1, nothing made.
    let before = t.repo.store_head();
    assert_eq!(t.fails(&["create", "X", "--event-category=a.b"]).0, 1);
    assert_eq!(t.repo.store_head(), before);
    // beads.role lives in git config, as bd keeps it; a role bd does not know is refused.
    t.ok(&["config", "set", "beads.role", "maintainer"]);
    assert_eq!(t.repo.git(&["config", "beads.role"]).trim(), "maintainer");
    assert_eq!(t.ok(&["config", "get", "beads.role"]).trim(), "maintainer");
    assert_eq!(t.repo.store_head(), before, "not a setting of the store");
    assert_eq!(t.fails(&["config", "set", "beads.role", "owner"]).0, 1);
    // bd's top-level cook is formula cook.
    t.repo.formula("mol-patrol.formula.yaml", FORMULA);
    let cooked = t.json(&["cook", "mol-patrol"]);
    let same = t.json(&["formula", "cook", "mol-patrol"]);
    assert_eq!(cooked, same);
}

#[test]
fn mol_wisp_lists_and_creates_wisps_as_bd_names_them() {
    let t = town();
    t.repo.formula("mol-patrol.formula.yaml", FORMULA);
    assert_eq!(
        t.json(&["mol", "wisp", "list"]),
        serde_json::json!({"schema_version": 1, "wisps": [], "count": 0})
    );
    let made = t.ok(&[
        "mol",
        "wisp",
        "create",
        "mol-patrol",
        "--root-only",
        "--var",
        "rig=x",
    ]);
    let id = made.trim().to_owned();
    let listed = t.json(&["mol", "wisp", "list"]);
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["wisps"][0]["id"], id.as_str());
    assert_eq!(listed["wisps"][0]["type"], "molecule");
    // A wisp never enters the shared store's history.
    let log = t.repo.git(&["log", "-p", "refs/beads/main"]);
    assert!(!log.contains(&id), "{id} in refs/beads/main");
    // `mol wisp FORMULA` still pours.
    t.ok(&["mol", "wisp", "mol-patrol"]);
    assert_eq!(t.json(&["mol", "wisp", "list"])["count"], 2);
}

#[test]
fn ephemeral_beads_stay_home_and_purge_leaves_nothing_for_gc() {
    let t = town();
    let remote = t.sb.bare("town.git");
    t.repo
        .git(&["remote", "add", "origin", remote.to_str().expect("utf-8")]);
    let work = t.ok(&["create", "Work", "--silent"]).trim().to_owned();
    // Gas Town's escalation: a wisp, with its type and labels, read back by id.
    let esc = t.json(&[
        "create",
        "--title=Escalation",
        "--description=the secret of the escalation",
        "--ephemeral",
        "--wisp-type=escalation",
        "--labels=gt:escalation",
        "--labels=severity:high",
        "--actor=gastown/witness",
    ]);
    let esc = esc["id"].as_str().expect("id").to_owned();
    assert!(esc.starts_with("gt-wisp-"), "{esc}");
    let shown = &t.json(&["show", &esc])[0];
    assert_eq!(
        (
            &shown["ephemeral"],
            &shown["wisp_type"],
            &shown["created_by"]
        ),
        (
            &true.into(),
            &"escalation".into(),
            &"gastown/witness".into()
        )
    );
    // A message wisp under a stored bead, and a formula bonded to it as a wisp.
    let msg = t
        .ok(&[
            "create",
            "--ephemeral",
            "--parent",
            &work,
            "-d",
            "hello mail",
            "--",
            "Mail",
        ])
        .trim()
        .to_owned();
    assert_eq!(t.json(&["show", &msg])[0]["parent"], work.as_str());
    t.repo.formula("mol-patrol.formula.yaml", FORMULA);
    let bonded = t.json(&["mol", "bond", "mol-patrol", &work, "--ephemeral"]);
    let patrol = bonded["bonded"].as_str().unwrap_or_default().to_owned();
    assert!(patrol.starts_with("gt-wisp-"), "{bonded}");
    assert_eq!(bonded["ref"], "refs/beads/local/wisps");
    // Changes find them where they live.
    t.ok(&["update", &esc, "--status=in_progress", "--add-label=seen"]);
    t.ok(&["close", &esc, "--reason=handled"]);
    t.ok(&["close", &msg]);
    assert_eq!(t.json(&["show", &esc])[0]["status"], "closed");
    // Nothing of them enters refs/beads/main, here or on the remote.
    t.ok(&["sync"]);
    for git_dir in [t.repo.path.join(".git"), remote.clone()] {
        let log = t.sb.git(
            &t.repo.path,
            &[
                "--git-dir",
                git_dir.to_str().expect("utf-8"),
                "log",
                "-p",
                "refs/beads/main",
            ],
        );
        for secret in [
            esc.as_str(),
            msg.as_str(),
            patrol.as_str(),
            "secret of the",
            "hello mail",
        ] {
            assert!(!log.contains(secret), "{secret} in {}", git_dir.display());
        }
    }
    // purge: a dry run counts, a bare purge refuses, --force purges the closed ones.
    let dry = t.json(&["purge", "--dry-run"]);
    assert_eq!(
        (&dry["purge_count"], &dry["labels"], &dry["dependencies"]),
        (&2.into(), &3.into(), &1.into()),
        "{dry}"
    );
    let before = t.repo.git(&["rev-parse", "refs/beads/local/wisps"]);
    assert_eq!(t.fails(&["purge"]).0, 1);
    assert_eq!(t.repo.git(&["rev-parse", "refs/beads/local/wisps"]), before);
    let tree = t.repo.git(&["ls-tree", "-r", "refs/beads/local/wisps"]);
    let blob = tree
        .lines()
        .find(|l| l.contains(&format!("/{esc}.yaml")))
        .and_then(|l| l.split_whitespace().nth(2))
        .expect("the wisp's blob")
        .to_owned();
    t.ok(&["purge", "--force", "--quiet"]);
    assert_eq!(t.fails(&["show", &esc]).0, 1);
    assert_eq!(t.json(&["show", &patrol])[0]["status"], "open");
    // The wisp ref is one commit now, with no reflog: git gc drops the purged wisp.
    assert_eq!(t.repo.commit_count("refs/beads/local/wisps"), 1);
    t.repo.git(&["gc", "--prune=now", "--quiet"]);
    let gone = t
        .repo
        .command("git")
        .args(["cat-file", "-e", &blob])
        .output()
        .expect("git");
    assert!(
        !gone.status.success(),
        "purged wisp still in the object store"
    );
    let fsck = t.repo.command("git").args(["fsck"]).output().expect("git");
    assert!(fsck.status.success() && fsck.stderr.is_empty(), "{fsck:?}");
    // Nothing left to purge; mol wisp gc keeps what is fresh.
    assert_eq!(t.json(&["purge", "--dry-run"])["purged_count"], 0);
    let gc = t.json(&["mol", "wisp", "gc"]);
    assert_eq!(gc["cleaned_count"], 0, "{gc}");
    assert_eq!(t.json(&["show", &patrol])[0]["status"], "open");
}

#[test]
fn sql_answers_gas_towns_queries_with_bds_rows_and_writes_nothing() {
    let t = town();
    let lines = [
        r#"{"id":"gt-a","title":"Convoy","status":"open","priority":1,"issue_type":"task","assignee":"mayor","labels":["gt:convoy"],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z","dependencies":[{"issue_id":"gt-a","depends_on_id":"gt-b","type":"tracks"}]}"#,
        r#"{"id":"gt-b","title":"Stuck","description":"why","status":"in_progress","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-03T00:00:00Z"}"#,
        r#"{"id":"gt-c","title":"Done","status":"closed","priority":3,"issue_type":"bug","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-04T00:00:00Z","closed_at":"2026-01-04T00:00:00Z"}"#,
    ];
    let file = t.sb.path().join("sql.jsonl");
    write_file(&file, &format!("{}\n", lines.join("\n")));
    t.ok(&["import", file.to_str().expect("utf-8")]);
    let mail = t
        .ok(&[
            "create",
            "--ephemeral",
            "-a",
            "gastown/witness",
            "-l",
            "gt:message,cc:mayor",
            "Hi",
        ])
        .trim()
        .to_owned();
    // The doctor's count and checks, as CSV.
    let sql = |args: &[&str]| {
        let mut all = vec!["sql"];
        all.extend_from_slice(args);
        t.ok(&all)
    };
    assert_eq!(
        sql(&["--csv", "SELECT COUNT(*) as cnt FROM issues"]),
        "cnt\n3\n"
    );
    assert_eq!(
        sql(&[
            "--csv",
            "SELECT id, title, updated_at FROM issues WHERE status = 'in_progress' AND (assignee IS NULL OR assignee = '') ORDER BY updated_at ASC"
        ]),
        "id,title,updated_at\ngt-b,Stuck,2026-01-03T00:00:00Z\n"
    );
    assert_eq!(
        sql(&["--csv", "SELECT id, title FROM issues WHERE ephemeral = 1"]),
        "id,title\n"
    );
    assert!(sql(&["SELECT 1 FROM `wisps` LIMIT 1"]).contains("(1 rows)"));
    // The convoy's dependencies, as JSON: bd's array of objects.
    assert_eq!(
        t.json(&[
            "sql",
            "SELECT depends_on_id, type FROM dependencies WHERE issue_id = 'gt-a'"
        ]),
        serde_json::json!([{"depends_on_id": "gt-b", "type": "tracks"}])
    );
    // The mailbox: a wisp message by its CC label, its labels folded.
    let rows = t.json(&["sql", "SELECT w.id, w.status, w.priority, w.assignee, GROUP_CONCAT(al.label) as labels_csv FROM wisps w JOIN wisp_labels l1 ON w.id = l1.issue_id JOIN wisp_labels l2 ON w.id = l2.issue_id JOIN wisp_labels al ON w.id = al.issue_id WHERE l1.label = 'gt:message' AND l2.label = 'cc:mayor' AND w.status IN ('open', 'hooked') GROUP BY w.id, w.status, w.priority, w.assignee"]);
    assert_eq!(
        rows,
        serde_json::json!([{"id": mail, "status": "open", "priority": 2,
            "assignee": "gastown/witness", "labels_csv": "cc:mayor,gt:message"}])
    );
    // Columns bd's schema has and the index does not: read from the documents.
    let rows = t.json(&[
        "sql",
        "SELECT description, closed_at, metadata FROM issues ORDER BY id",
    ]);
    assert_eq!(rows[1]["description"], "why");
    assert_eq!(rows[2]["closed_at"], "2026-01-04T00:00:00Z");
    assert_eq!(rows[0]["metadata"], "{}");
    // A write is refused with one line and changes nothing.
    let before = (
        t.repo.store_head(),
        t.repo.git(&["rev-parse", "refs/beads/local/wisps"]),
    );
    for write in [
        "DELETE FROM issues",
        "UPDATE issues SET status = 'open' WHERE status = 'in_progress'",
        "INSERT IGNORE INTO wisp_labels (issue_id, label) SELECT issue_id, label FROM labels",
        "SELECT 1; DELETE FROM issues",
    ] {
        let (code, err) = t.fails(&["sql", write]);
        assert_eq!((code, err.lines().count()), (1, 1), "{write}: {err}");
    }
    let after = (
        t.repo.store_head(),
        t.repo.git(&["rev-parse", "refs/beads/local/wisps"]),
    );
    assert_eq!(before, after);
    assert_eq!(
        sql(&["--csv", "SELECT COUNT(*) as cnt FROM issues"]),
        "cnt\n3\n"
    );
}

#[test]
fn ready_mol_lists_the_steps_gas_town_works_next_of_a_molecule_or_a_wisp() {
    let t = town();
    t.repo.formula("mol-patrol.formula.yaml", FORMULA);
    let mol = t.ok(&["mol", "pour", "mol-patrol"]).trim().to_owned();
    let wisp = t.ok(&["mol", "wisp", "mol-patrol"]).trim().to_owned();
    let ids = |v: &Value| -> Vec<String> {
        common::items(v)
            .iter()
            .map(|b| b["id"].as_str().expect("id").to_owned())
            .collect()
    };
    let ready = t.json(&["ready", "--mol", &mol, "-n", "100"]);
    assert_eq!(ids(&ready), [format!("{mol}.1")], "{ready}");
    reads(
        "array{id:s,title:s,status:s,priority:i,issue_type:s,created_at:s,parent:s?,dependencies:a?}",
        &ready.to_string(),
    )
    .expect("what Gas Town reads");
    t.ok(&["close", &format!("{mol}.1")]);
    let ready = t.json(&["ready", "--mol", &mol]);
    assert_eq!(ids(&ready), [format!("{mol}.2")], "the next step");
    let ready = t.json(&["ready", "--mol", &wisp, "-n", "100"]);
    assert_eq!(
        ids(&ready),
        [format!("{wisp}.1")],
        "a wisp's steps: {ready}"
    );
    let (code, err) = t.fails(&["ready", "--mol", &format!("{mol}.2")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("step of molecule {mol}")), "{err}");
    let (code, _) = t.fails(&["ready", "--mol", &mol, "--claim"]);
    assert_eq!(code, 2, "--claim and --mol are refused together");

    let mut names = crate::render::Names::default();
    names.name(&mol, "MOL");
    let text = crate::render::screens(&t.repo, &[&["ready", "--mol", &mol]]);
    crate::render::stable(&t.sb, &names, || insta::assert_snapshot!("ready_mol", text));
}

#[test]
fn mol_seed_checks_a_formula_cooks_and_writes_nothing() {
    let t = town();
    t.repo.formula("mol-patrol.formula.yaml", FORMULA);
    let head = t.repo.store_head();
    let seeded = t.json(&["mol", "seed", "mol-patrol", "--var", "rig=beads"]);
    assert_eq!(
        (&seeded["status"], &seeded["formula"]),
        (&"ok".into(), &"mol-patrol".into()),
        "{seeded}"
    );
    let (code, err) = t.fails(&["mol", "seed", "mol-nowhere"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not accessible"), "{err}");
    assert_eq!(t.repo.store_head(), head, "seeding writes nothing");
    let text = crate::render::screens(
        &t.repo,
        &[
            &["mol", "seed", "mol-patrol"],
            &["mol", "seed", "mol-nowhere"],
        ],
    );
    let names = crate::render::Names::default();
    crate::render::stable(&t.sb, &names, || insta::assert_snapshot!("mol_seed", text));
}

#[test]
fn create_graph_makes_gas_citys_plan_in_one_commit_or_nothing() {
    let t = town();
    let before = t.ok(&["create", "Already here"]).trim().to_owned();
    let plan = serde_json::json!({
        "commit_message": "gc: plan the convoy",
        "nodes": [
            {"key": "convoy", "title": "Convoy", "type": "epic", "priority": 1},
            {"key": "a", "title": "Step A", "parent_key": "convoy", "labels": ["gt:agent"],
             "assignee": "gastown/polecats/nux", "assign_after_create": true,
             "metadata": {"k": "v"}, "metadata_refs": {"convoy_id": "convoy"}, "from": "gc"},
            {"key": "b", "title": "Step B", "description": "after A", "parent_id": before},
        ],
        "edges": [
            {"from_key": "b", "to_key": "a"},
            {"from_id": before, "to_key": "a", "type": "related", "metadata": "m"},
        ],
    });
    let file = t.sb.path().join("plan.json");
    write_file(&file, &plan.to_string());
    let file = file.to_str().expect("utf-8");
    let head = t.repo.store_head();
    let made = t.json(&["create", "--graph", file]);
    let ids = |k: &str| made["ids"][k].as_str().expect(k).to_owned();
    assert_eq!(made["ids"].as_object().map(|o| o.len()), Some(3), "{made}");
    let log = t
        .repo
        .git(&["log", "--format=%s", &format!("{head}..refs/beads/main")]);
    assert_eq!(log.trim(), "gc: plan the convoy", "one commit");
    let shown = t.json(&["show", &ids("a"), &ids("b"), &before]);
    let (a, b, old) = (&shown[0], &shown[1], &shown[2]);
    assert_eq!(a["parent"], ids("convoy").as_str(), "{a}");
    assert_eq!(a["metadata"]["convoy_id"], ids("convoy").as_str());
    assert_eq!(a["metadata"]["k"], "v");
    assert_eq!(a["assignee"], "gastown/polecats/nux");
    assert_eq!(b["parent"], before.as_str());
    let deps = |v: &Value| -> Vec<(String, String)> {
        common::items(&v["dependencies"])
            .iter()
            .map(|d| {
                (
                    d["id"].as_str().unwrap_or("").into(),
                    d["dependency_type"].as_str().unwrap_or("").into(),
                )
            })
            .collect()
    };
    assert!(deps(b).contains(&(ids("a"), "blocks".into())), "{b}");
    assert!(deps(old).contains(&(ids("a"), "related".into())), "{old}");
    let wisps = t.json(&["create", "--graph", file, "--ephemeral"]);
    let wisp = wisps["ids"]["a"].as_str().expect("a wisp");
    assert!(wisp.contains("-wisp-"), "{wisps}");
    let head = t.repo.store_head();

    // A plan that does not hold together, or that the store refuses: nothing made.
    let count = |t: &Town| t.json(&["count"])["count"].clone();
    let beads = count(&t);
    for (bad, says) in [
        ("{", "parsing graph plan"),
        (r#"{"nodes":[]}"#, "plan has no nodes"),
        (
            r#"{"nodes":[{"key":"a","title":"A","parent_key":"z"}]}"#,
            "not found in plan",
        ),
        (
            r#"{"nodes":[{"key":"a","title":"A","type":"nonsense"}]}"#,
            "nonsense",
        ),
        (
            r#"{"nodes":[{"key":"a","title":"A","parent_id":"gt-nope"}]}"#,
            "no bead gt-nope",
        ),
        (
            r#"{"nodes":[{"key":"a","title":"A"},{"key":"b","title":"B"}],
                "edges":[{"from_key":"a","to_key":"b"},{"from_key":"b","to_key":"a"}]}"#,
            "would close a cycle",
        ),
    ] {
        let path = t.sb.path().join("bad.json");
        write_file(&path, bad);
        let (code, err) = t.fails(&["create", "--graph", path.to_str().expect("utf-8")]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    assert_eq!(t.repo.store_head(), head, "nothing was written");
    assert_eq!(count(&t), beads);

    let small = t.sb.path().join("small.json");
    write_file(
        &small,
        r#"{"nodes":[{"key":"one","title":"One"}],"extra":1}"#,
    );
    let small = small.to_str().expect("utf-8");
    let text = crate::render::screens(
        &t.repo,
        &[
            &["create", "--graph", small],
            &["create", "--graph", "/no/such/plan.json"],
        ],
    );
    let one = text
        .lines()
        .find_map(|l| l.strip_prefix("  one -> "))
        .expect("the id of one");
    let mut names = crate::render::Names::default();
    names.name(one, "ONE");
    crate::render::stable(&t.sb, &names, || {
        insta::assert_snapshot!("create_graph", text)
    });
}
