//! bd's long tail on the dependency graph: `graph` draws a bead's graph (or all open
//! work's) in layers as bd does, in bd's formats and JSON, and `graph check` finds
//! cycles; `find-duplicates` pairs beads that read alike by bd's measure.

use crate::common;
use crate::render;

use common::*;
use serde_json::Value;

/// Makes bead `id` (bd's `create --id ID --force`) with `title` and `extra` flags.
fn make(repo: &Repo, id: &str, title: &str, extra: &[&str]) {
    let mut args = vec!["create", title, "--id", id, "--force"];
    args.extend_from_slice(extra);
    repo.beads(&args);
}

/// The ids of a JSON array of ids.
fn ids(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|i| i.as_str().unwrap_or_default())
        .collect()
}

/// The ids of the beads in `text` (all of this file's ids are chosen), each named
/// after itself and as long (`bd-a1` is `[A-1]`), so that a drawing keeps its shape.
fn named(text: &str) -> render::Names {
    let mut names = render::Names::default();
    let mut seen = std::collections::BTreeSet::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if let Some(rest) = word.strip_prefix("bd-")
            && seen.insert(word.to_owned())
        {
            let (head, tail) = rest.split_at(1);
            names.name(word, &format!("{}-{tail}", head.to_uppercase()));
        }
    }
    names
}

#[test]
fn graph_lays_out_layers_and_draws_them_as_bd_does() {
    let (sb, repo) = Sandbox::with_store();
    make(&repo, "bd-e1", "Epic plan", &["--type", "epic", "-p", "1"]);
    make(&repo, "bd-a1", "Design schema", &[]);
    make(&repo, "bd-a2", "Build the API", &[]);
    make(&repo, "bd-a3", "Write tests for the API", &["-p", "3"]);
    make(&repo, "bd-a4", "Ship it", &[]);
    make(&repo, "bd-a0", "Write the docs", &[]);
    make(&repo, "bd-b1", "Unrelated fix", &["-p", "0"]);
    make(&repo, "bd-b2", "Follow-up of the fix", &[]);
    for (from, on) in [
        ("bd-a2", "bd-a1"),
        ("bd-a3", "bd-a2"),
        ("bd-a4", "bd-a2"),
        ("bd-a4", "bd-a3"),
        ("bd-b2", "bd-b1"),
        ("bd-a0", "bd-e1"),
    ] {
        repo.beads(&["dep", "add", from, on]);
    }
    repo.beads(&["dep", "add", "bd-a1", "bd-e1", "--type", "parent-child"]);
    repo.beads(&["update", "bd-a1", "--claim"]);
    make(&repo, "bd-c1", "Closed before", &[]);
    repo.beads(&["dep", "add", "bd-b2", "bd-c1", "--type", "related"]);
    repo.beads(&["close", "bd-c1"]);

    // bd's layout: layers by the longest `blocks` path, the child lifted to its
    // parent's layer, each layer by id; the walk reaches every linked bead.
    let g = repo.beads_json(&["graph", "bd-a3"]);
    assert_eq!(g["root"]["id"], "bd-a3");
    let layout = &g["layout"];
    assert_eq!(layout["RootID"], "bd-a3");
    assert_eq!(layout["MaxLayer"], 3);
    let layers: Vec<Vec<&str>> = layout["Layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(ids)
        .collect();
    assert_eq!(
        layers,
        [
            vec!["bd-a1", "bd-e1"],
            vec!["bd-a0", "bd-a2"],
            vec!["bd-a3"],
            vec!["bd-a4"]
        ]
    );
    let mut issues = ids(&Value::Array(
        g["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .map(|i| i["id"].clone())
            .collect(),
    ))
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    assert_eq!(issues.remove(0), "bd-a3", "the root first: {g}");
    issues.sort();
    assert_eq!(issues, ["bd-a0", "bd-a1", "bd-a2", "bd-a4", "bd-e1"]);
    let node = |id: &str| layout["Nodes"][id].clone();
    assert_eq!(node("bd-a4")["Layer"], 3);
    assert_eq!(ids(&node("bd-a4")["DependsOn"]).len(), 2);
    assert_eq!(node("bd-e1")["Position"], 1);
    assert_eq!(node("bd-a2")["Position"], 1);
    assert!(node("bd-a1")["DependsOn"].is_null(), "Go's nil: {g}");
    assert_eq!(node("bd-a1")["Issue"]["status"], "in_progress");

    // All open work: one part per connected component, the largest first, rooted at
    // its epic; the closed bead is left out.
    let all = repo.beads_json(&["graph", "--all"]);
    let parts = all.as_array().expect("parts");
    assert_eq!(parts.len(), 2, "{all}");
    assert_eq!(parts[0]["Root"]["id"], "bd-e1");
    assert_eq!(parts[0]["Issues"].as_array().map(Vec::len), Some(6));
    assert_eq!(parts[1]["Root"]["id"], "bd-b1");
    assert_eq!(
        parts[1]["Dependencies"],
        serde_json::json!([{"issue_id": "bd-b2", "depends_on_id": "bd-b1", "type": "blocks"}])
    );
    assert!(parts[1]["IssueMap"]["bd-b2"].is_object(), "{all}");

    let check = repo.beads_json(&["graph", "check"]);
    assert_eq!(check["clean"], true);
    assert_eq!(check["summary"]["cycle_count"], 0);

    // Mistakes exit 1 as bd's do and change nothing.
    let head = repo.store_head();
    for (args, says) in [
        (&["graph"][..], "a bead id is required"),
        (
            &["graph", "--all", "bd-a1"][..],
            "cannot specify a bead id with --all",
        ),
        (&["graph", "bd-zz9"][..], "bd-zz9"),
        (&["graph", "--html", "bd-a1"][..], "--html"),
    ] {
        let (code, err) = repo.beads_fail(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(repo.store_head(), head);

    let text = render::screens(
        &repo,
        &[
            &["graph", "bd-a3"],
            &["graph", "--box", "bd-a2"],
            &["graph", "--compact", "bd-e1"],
            &["graph", "--dot", "bd-b1"],
            &["graph", "--all", "--compact"],
            &["graph", "check"],
        ],
    );
    render::stable(&sb, &named(&text), || {
        insta::assert_snapshot!("graph", text)
    });
}

#[test]
fn find_duplicates_pairs_beads_that_read_alike_by_bds_measure() {
    let (sb, repo) = Sandbox::with_store();
    // Too few beads to compare: bd's short document.
    assert_eq!(
        repo.beads_json(&["find-duplicates"]),
        serde_json::json!({"schema_version": 1, "pairs": [], "count": 0})
    );
    make(&repo, "bd-d1", "Login fails on Safari", &["-p", "1"]);
    make(
        &repo,
        "bd-d2",
        "Safari login failure",
        &["-d", "login fails on safari"],
    );
    make(
        &repo,
        "bd-d3",
        "Add dark mode",
        &["-d", "a dark theme for the settings"],
    );
    make(&repo, "bd-d4", "Dark mode for settings", &[]);
    make(&repo, "bd-d5", "Login fails on Safari", &[]);
    repo.beads(&["close", "bd-d5"]);

    let found = repo.beads_json(&["find-duplicates", "--threshold", "0.3"]);
    assert_eq!(found["method"], "mechanical");
    assert_eq!(found["threshold"], 0.3);
    let pairs = found["pairs"].as_array().expect("pairs");
    assert_eq!(found["count"], pairs.len());
    let pair = |p: &Value| {
        (
            p["issue_a_id"].as_str().unwrap_or_default().to_owned(),
            p["issue_b_id"].as_str().unwrap_or_default().to_owned(),
        )
    };
    // bd-d1 against bd-d2: words {login, fails, on, safari} and {safari, login,
    // failure, login, fails, on, safari}: Jaccard 4/7, cosine 6/(2·√11).
    let expected = (4.0 / 7.0 + 6.0 / (2.0 * 11f64.sqrt())) / 2.0;
    assert_eq!(pair(&pairs[0]), ("bd-d1".to_owned(), "bd-d2".to_owned()));
    let similarity = pairs[0]["similarity"].as_f64().expect("a number");
    assert!((similarity - expected).abs() < 1e-12, "{found}");
    assert!(
        pairs
            .iter()
            .all(|p| p["issue_a_id"] != "bd-d5" && p["issue_b_id"] != "bd-d5"),
        "closed beads are left out by default: {found}"
    );
    assert!(
        pairs
            .iter()
            .any(|p| pair(p) == ("bd-d4".to_owned(), "bd-d3".to_owned()))
    );
    // --limit keeps the most alike; --status picks the beads compared.
    let one = repo.beads_json(&["find-duplicates", "--threshold", "0.3", "-n", "1"]);
    assert_eq!(one["pairs"][0], pairs[0]);
    assert_eq!(one["count"], 1);
    let all = repo.beads_json(&["find-duplicates", "--status", "all"]);
    assert!(
        all["pairs"]
            .as_array()
            .expect("pairs")
            .iter()
            .any(|p| pair(p) == ("bd-d1".to_owned(), "bd-d5".to_owned()) && p["similarity"] == 1.0),
        "{all}"
    );

    let head = repo.store_head();
    let (code, err) = repo.beads_fail(&["find-duplicates", "--method", "ai"]);
    assert_eq!(code, 1);
    assert!(err.contains("--method ai needs a model API"), "{err}");
    let (code, err) = repo.beads_fail(&["find-duplicates", "--threshold", "1.5"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(repo.store_head(), head);

    let text = render::screens(
        &repo,
        &[
            &["find-duplicates"],
            &["find-dups", "--threshold", "0.9"],
            &["find-duplicates", "--status", "closed"],
        ],
    );
    render::stable(&sb, &named(&text), || {
        insta::assert_snapshot!("find_duplicates", text)
    });
}
