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

mod common;

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
    fn new() -> Town {
        let sb = Sandbox::new();
        let shim = bd_shim(&sb);
        let dir = shim.parent().expect("shim dir").to_owned();
        let path = std::env::join_paths(
            std::iter::once(dir).chain(std::env::split_paths(&common::path_env())),
        )
        .expect("PATH");
        let repo = sb.repo("town", "mayor").with_env("PATH", &path);
        let mut town = Town {
            sb,
            repo,
            path,
            mol: String::new(),
            n: 0,
        };
        town.ok(&["init", "--prefix", "gt"]);
        town.ok(&["config", "set", "types.custom", TYPES]);
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

    /// Three fresh beads for one call: the first tracks the second, all carry Gas
    /// Town's labels and a metadata key; their ids.
    fn fresh(&mut self) -> [String; 3] {
        self.n += 1;
        let labels = LABELS.join(",");
        let ids: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|s| format!("gt-c{}{s}", self.n))
            .collect();
        let lines: String = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
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
                    "labels": labels.split(',').collect::<Vec<_>>(),
                    "metadata": {"k": "v"},
                    "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
                    "dependencies": deps,
                });
                format!("{rec}\n")
            })
            .collect();
        let file = self.sb.path().join(format!("c{}.jsonl", self.n));
        write_file(&file, &lines);
        self.ok(&["import", file.to_str().expect("utf-8")]);
        [ids[0].clone(), ids[1].clone(), ids[2].clone()]
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
        "-" => return Ok(()),
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
    let mut town = Town::new();
    let mut failing: BTreeMap<String, String> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for call in calls() {
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
