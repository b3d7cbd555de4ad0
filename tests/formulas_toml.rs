//! bd's and Gas Town's formulas (`*.formula.toml`), vendored under
//! tests/fixtures/formulas/ with their licences, read, cooked and poured by the real
//! binary; the structure of several checked by hand; a poured Gas Town formula worked
//! across a crashed session.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Repo, Sandbox, strs, write_file};
use serde_json::Value;

fn fixtures(project: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formulas")
        .join(project)
}

/// The formula files of one vendored project, sorted.
fn formula_files(project: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures(project))
        .expect("fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".formula.toml") || n.ends_with(".formula.json"))
        })
        .collect();
    out.sort();
    out
}

/// A repository with a store whose `.beads/formulas/` holds every formula of `project`.
fn repo_with(project: &str) -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    let dir = repo.path.join(".beads/formulas");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for f in formula_files(project) {
        std::fs::copy(&f, dir.join(f.file_name().expect("name"))).expect("copy");
    }
    (sb, repo)
}

fn name_of(path: &Path) -> String {
    let n = path.file_name().and_then(|n| n.to_str()).expect("name");
    n.trim_end_matches(".toml")
        .trim_end_matches(".json")
        .trim_end_matches(".formula")
        .to_owned()
}

/// A value each required variable's pattern accepts.
fn sample(var: &str) -> &'static str {
    match var {
        "version" => "1.2.3",
        "issue_number" | "pr_number" => "42",
        "repo" => "owner/repo",
        _ => "sample-value",
    }
}

/// The variables `formula cook NAME` says it needs, with a sample value each.
fn required_vars(repo: &Repo, name: &str) -> BTreeMap<String, String> {
    let out = repo.beads_output(&["formula", "cook", name]);
    if out.status.success() {
        return BTreeMap::new();
    }
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let list = err
        .split("needs a value for ")
        .nth(1)
        .and_then(|r| r.split(" (pass").next())
        .unwrap_or_else(|| panic!("{name} fails to cook for another reason:\n{err}"));
    list.split(", ")
        .map(|q| {
            let v = q.trim_matches('"').to_owned();
            let s = sample(&v).to_owned();
            (v, s)
        })
        .collect()
}

fn var_args(vars: &BTreeMap<String, String>) -> Vec<String> {
    vars.iter()
        .flat_map(|(k, v)| ["--var".to_owned(), format!("{k}={v}")])
        .collect()
}

fn cook(repo: &Repo, name: &str, vars: &[&str]) -> Value {
    let mut args = vec!["formula", "cook", name];
    args.extend_from_slice(vars);
    repo.beads_json(&args)
}

fn pour(repo: &Repo, name: &str, vars: &[&str]) -> Value {
    let mut args = vec!["mol", "pour", name];
    args.extend_from_slice(vars);
    repo.beads_json(&args)
}

fn keys(cooked: &Value) -> Vec<String> {
    cooked["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_owned())
        .collect()
}

fn step<'a>(cooked: &'a Value, id: &str) -> &'a Value {
    cooked["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {cooked}"))
}

/// The cooked step ids the poured bead of cooked step `key` blocks on: a pour
/// writes the cooked steps in order, `<molecule>.1`, `.2`, ….
fn poured_needs(cooked: &Value, poured: &Value, key: &str) -> Vec<String> {
    let keys = keys(cooked);
    let steps = poured["steps"].as_array().expect("steps");
    let by_id: BTreeMap<&str, &str> = steps
        .iter()
        .zip(&keys)
        .map(|(s, k)| (s["id"].as_str().expect("id"), k.as_str()))
        .collect();
    let at = keys.iter().position(|k| k == key).expect("cooked step");
    let mut out: Vec<String> = steps[at]["dependencies"]
        .as_array()
        .expect("deps")
        .iter()
        .filter(|d| d["type"] == "blocks")
        .map(|d| by_id[d["depends_on_id"].as_str().expect("id")].to_owned())
        .collect();
    out.sort();
    out
}

/// The id of the bead poured for cooked step `key`.
fn poured_id(cooked: &Value, poured: &Value, key: &str) -> String {
    let at = keys(cooked)
        .iter()
        .position(|k| k == key)
        .expect("cooked step");
    poured["steps"][at]["id"].as_str().expect("id").to_owned()
}

/// Every formula bd and Gas Town ship validates, cooks, and pours with its required
/// variables given: one step bead per cooked step, with the cooked step's needs.
fn every_formula_of(project: &str) {
    let (_sb, repo) = repo_with(project);
    let v = repo.beads_json(&["formula", "validate"]);
    assert_eq!(v["valid"], true, "{v}");
    let files = formula_files(project);
    assert_eq!(strs(&v["checked"]).len(), files.len(), "{v}");
    for f in &files {
        let name = name_of(f);
        let vars = required_vars(&repo, &name);
        let args = var_args(&vars);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let cooked = cook(&repo, &name, &args);
        let n = cooked["steps"].as_array().expect("steps").len();
        assert!(n > 0, "{name} cooks to no steps");
        let poured = pour(&repo, &name, &args);
        let steps = poured["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), n, "{name}: one bead per cooked step");
        for s in cooked["steps"].as_array().expect("steps").iter().take(40) {
            let key = s["id"].as_str().expect("id");
            let mut want = strs(&s["needs"]);
            want.sort();
            assert_eq!(
                poured_needs(&cooked, &poured, key),
                want,
                "{name}: needs of {key}"
            );
        }
    }
}

#[test]
fn every_bd_formula_validates_cooks_and_pours() {
    every_formula_of("bd");
}

#[test]
fn every_gastown_formula_validates_cooks_and_pours() {
    every_formula_of("gastown");
}

#[test]
fn the_vendored_formulas_carry_their_licences() {
    for project in ["bd", "gastown"] {
        let text = std::fs::read_to_string(fixtures(project).join("LICENSE")).expect("LICENSE");
        assert!(text.contains("MIT License"), "{project}");
    }
}

const LOOPS: &str = r#"formula = "loops"
version = 1

[vars.passes]
default = "3"

[[steps]]
id = "prepare"
title = "Prepare"

[[steps]]
id = "review"
title = "Review rounds"
needs = ["prepare"]
[steps.loop]
count = 2
[[steps.loop.body]]
id = "read"
title = "Read"
[[steps.loop.body]]
id = "note"
title = "Note findings"
needs = ["read"]

[[steps]]
id = "pass"
title = "Passes"
needs = ["review"]
[steps.loop]
range = "1..{passes}"
var = "n"
[[steps.loop.body]]
id = "run"
title = "Pass {n} of {passes}"

[[steps]]
id = "ship"
title = "Ship"
needs = ["pass"]
"#;

#[test]
fn a_loop_unrolls_each_iteration_after_the_one_before() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(&repo.path.join(".beads/formulas/loops.formula.toml"), LOOPS);
    let c = cook(&repo, "loops", &[]);
    assert_eq!(
        keys(&c),
        [
            "prepare",
            "review.iter1.read",
            "review.iter1.note",
            "review.iter2.read",
            "review.iter2.note",
            "review",
            "pass.iter1.run",
            "pass.iter2.run",
            "pass.iter3.run",
            "pass",
            "ship"
        ]
    );
    assert_eq!(strs(&step(&c, "review.iter1.read")["needs"]), ["prepare"]);
    assert_eq!(
        strs(&step(&c, "review.iter2.read")["needs"]),
        ["review.iter1.note"]
    );
    assert_eq!(strs(&step(&c, "review")["needs"]), ["review.iter2.note"]);
    assert_eq!(step(&c, "pass.iter2.run")["title"], "Pass 2 of {passes}");
    let c = cook(&repo, "loops", &["--var", "passes=1"]);
    assert!(keys(&c).contains(&"pass.iter1.run".to_owned()));
    assert!(!keys(&c).contains(&"pass.iter2.run".to_owned()));
}

const CONDITIONAL: &str = r#"formula = "conditional"
version = 1

[vars.docs]
description = "Whether to write docs."
default = "false"

[vars.env]
default = "staging"

[[steps]]
id = "build"
title = "Build"

[[steps]]
id = "docs"
title = "Write docs"
needs = ["build"]
condition = "{{docs}}"

[[steps]]
id = "approve"
title = "Production approval"
needs = ["build"]
condition = "{{env}} == production"

[[steps]]
id = "release"
title = "Release to {{env}}"
needs = ["docs", "approve"]
"#;

#[test]
fn a_condition_keeps_or_drops_its_step_both_ways() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/conditional.formula.toml"),
        CONDITIONAL,
    );
    let off = cook(&repo, "conditional", &[]);
    assert_eq!(keys(&off), ["build", "release"]);
    assert_eq!(
        strs(&step(&off, "release")["needs"]),
        Vec::<String>::new(),
        "edges to dropped steps go with them"
    );
    assert_eq!(step(&off, "release")["title"], "Release to staging");
    let on = cook(
        &repo,
        "conditional",
        &["--var", "docs=yes", "--var", "env=production"],
    );
    assert_eq!(keys(&on), ["build", "docs", "approve", "release"]);
    assert_eq!(strs(&step(&on, "release")["needs"]), ["docs", "approve"]);
    assert_eq!(step(&on, "docs")["condition"], "{{docs}}");
    let cooked = cook(&repo, "conditional", &["--var", "docs=yes"]);
    let poured = pour(&repo, "conditional", &["--var", "docs=yes"]);
    assert_eq!(poured["steps"].as_array().map(Vec::len), Some(3));
    assert_eq!(poured_needs(&cooked, &poured, "release"), ["docs"]);
}

#[test]
fn an_expansion_replaces_its_target_with_the_template() {
    let (_sb, repo) = repo_with("gastown");
    let c = cook(&repo, "shiny-enterprise", &["--var", "feature=login"]);
    let k = keys(&c);
    assert_eq!(
        k,
        [
            "design",
            "implement.draft",
            "implement.refine-1",
            "implement.refine-2",
            "implement.refine-3",
            "implement.refine-4",
            "review",
            "test",
            "submit"
        ],
        "shiny's implement became rule-of-five's five passes"
    );
    assert_eq!(strs(&step(&c, "implement.draft")["needs"]), ["design"]);
    assert_eq!(
        step(&c, "implement.draft")["title"],
        "Draft: Implement login"
    );
    assert_eq!(
        strs(&step(&c, "review")["needs"]),
        ["implement.refine-4"],
        "what needed the target needs the template's last step"
    );
}

#[test]
fn an_aspect_wraps_its_targets_in_advice() {
    let (_sb, repo) = repo_with("gastown");
    let c = cook(&repo, "shiny-secure", &["--var", "feature=login"]);
    let k = keys(&c);
    let at = |id: &str| k.iter().position(|x| x == id).expect(id);
    assert!(at("implement-security-prescan") < at("implement"));
    assert!(at("implement") < at("implement-security-postscan"));
    assert_eq!(
        strs(&step(&c, "implement")["needs"]),
        ["implement-security-prescan"]
    );
    assert_eq!(
        strs(&step(&c, "review")["needs"]),
        ["implement-security-postscan"]
    );
    assert_eq!(
        strs(&step(&c, "submit-security-postscan")["needs"]),
        ["submit"]
    );
}

#[test]
fn a_convoy_pours_its_legs_side_by_side_then_the_synthesis() {
    let (_sb, repo) = repo_with("gastown");
    let c = cook(&repo, "code-review", &["--var", "pr=42"]);
    assert_eq!(c["type"], "convoy");
    let legs: Vec<String> = keys(&c).into_iter().filter(|k| k != "synthesis").collect();
    assert_eq!(legs.len(), 10, "{c}");
    for l in &legs {
        assert!(
            strs(&step(&c, l)["needs"]).is_empty(),
            "{l} waits for nothing"
        );
    }
    let mut needs = strs(&step(&c, "synthesis")["needs"]);
    needs.sort();
    let mut want = legs.clone();
    want.sort();
    assert_eq!(needs, want);
    assert!(
        c["expected"]
            .as_array()
            .expect("expected")
            .iter()
            .any(|e| e.as_str().is_some_and(|e| e.contains("`prompts`"))),
        "Gas Town's prompts are kept and reported: {c}"
    );
    let poured = pour(&repo, "code-review", &["--var", "pr=42"]);
    assert_eq!(poured_needs(&c, &poured, "synthesis"), want);
}

const GATES: &str = r#"formula = "gates"
version = 1

[[steps]]
id = "build"
title = "Build"

[[steps]]
id = "soak"
title = "Soak in staging"
needs = ["build"]
[steps.gate]
type = "timer"
timeout = "0s"

[[steps]]
id = "approve"
title = "Sign off the release"
type = "human"
needs = ["soak"]

[[steps]]
id = "ship"
title = "Ship"
needs = ["approve"]
gt_command = "gt done"
"#;

#[test]
fn gates_are_beads_that_block_until_resolved() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(&repo.path.join(".beads/formulas/gates.formula.toml"), GATES);
    let c = cook(&repo, "gates", &[]);
    assert_eq!(keys(&c), ["build", "soak.gate", "soak", "approve", "ship"]);
    assert_eq!(step(&c, "soak.gate")["gate"]["type"], "timer");
    assert_eq!(strs(&step(&c, "soak")["needs"]), ["soak.gate"]);
    assert!(
        step(&c, "ship")["expected"][0]
            .as_str()
            .is_some_and(|e| e.contains("gt_command")),
        "{c}"
    );
    let poured = pour(&repo, "gates", &[]);
    let mol = poured["molecule"]["id"].as_str().expect("id").to_owned();
    let id_of = |key: &str| poured_id(&c, &poured, key);
    let (timer, approve) = (id_of("soak.gate"), id_of("approve"));
    assert_eq!(
        poured["steps"][1]["issue_type"], "gate",
        "a gate is a bead of type gate"
    );
    repo.beads(&["close", &id_of("build")]);
    let gates = repo.beads_json(&["gate", "list", "--all"]);
    let timer_line = gates
        .as_array()
        .expect("list")
        .iter()
        .find(|g| g["id"] == timer.as_str())
        .expect("timer gate listed");
    assert_eq!(timer_line["state"], "resolved", "{gates}");
    assert_eq!(
        timer_line["status"], "closed",
        "a timer gate whose time is over is resolved when read"
    );
    let human = repo.beads_json(&["human"]);
    assert_eq!(human[0]["id"], approve.as_str(), "{human}");
    assert_eq!(human[0]["state"], "waiting");
    let now = repo.beads_json(&["mol", "current", &mol]);
    assert_eq!(common::current_steps(&now)[0], id_of("soak"));
    repo.beads(&["close", &id_of("soak")]);
    let now = repo.beads_json(&["mol", "current", &mol]);
    assert_eq!(
        common::current_steps(&now)[0],
        approve,
        "ship waits for the human gate"
    );
    let (code, err) = repo.beads_fail(&["gate", "resolve", &id_of("ship")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a gate"), "{err}");
    repo.beads(&["gate", "resolve", &approve, "--reason", "looks good"]);
    let now = repo.beads_json(&["mol", "current", &mol]);
    assert_eq!(common::current_steps(&now)[0], id_of("ship"));
    assert!(
        repo.beads_json(&["human"])
            .as_array()
            .expect("list")
            .is_empty()
    );
}

#[test]
fn a_gh_gate_is_unavailable_without_gh() {
    let (_sb, repo) = repo_with("bd");
    let c = cook(&repo, "beads-release", &["--var", "version=1.2.3"]);
    assert_eq!(step(&c, "await-ci.gate")["gate"]["type"], "gh:run");
    pour(&repo, "beads-release", &["--var", "version=1.2.3"]);
    let gates = repo.beads_json(&["gate", "list"]);
    let gh = gates
        .as_array()
        .expect("list")
        .iter()
        .find(|g| g["type"] == "gh:run")
        .expect("listed");
    let state = gh["state"].as_str().expect("state");
    if common::installed("gh") {
        assert!(
            matches!(state, "waiting" | "unavailable" | "resolved"),
            "{gh}"
        );
    } else {
        assert_eq!(state, "unavailable", "{gh}");
    }
}

#[test]
fn formulas_convert_between_toml_json_and_yaml_and_read_back() {
    let (_sb, repo) = repo_with("bd");
    let original = cook(
        &repo,
        "gh-issue-to-pr",
        &["--var", "issue_number=7", "--var", "repo=a/b"],
    );
    for (to, file) in [
        ("yaml", "converted/again.formula.yaml"),
        ("json", "converted/again.formula.json"),
        ("toml", "converted/again.formula.toml"),
    ] {
        let text = repo.beads(&["formula", "convert", "gh-issue-to-pr", "--to", to]);
        let text = text.replace("formula: gh-issue-to-pr", "formula: again");
        let text = text.replace("\"formula\": \"gh-issue-to-pr\"", "\"formula\": \"again\"");
        let text = text.replace("formula = \"gh-issue-to-pr\"", "formula = \"again\"");
        let dir = common::tempdir();
        let path = dir.path().join(file);
        write_file(&path, &text);
        let path = path.to_str().expect("utf-8");
        let back = cook(
            &repo,
            path,
            &["--var", "issue_number=7", "--var", "repo=a/b"],
        );
        assert_eq!(back["steps"], original["steps"], "{to}");
    }
}

#[test]
fn malformed_toml_is_reported_with_file_and_line() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/broken.formula.toml"),
        "formula = \"broken\"\n\n[[steps]]\nid = \"a\"\ntitle = \n",
    );
    write_file(
        &repo.path.join(".beads/formulas/dangling.formula.toml"),
        "formula = \"dangling\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\n\n[[steps]]\nid = \"b\"\ntitle = \"B\"\nneeds = [\"zz\"]\n",
    );
    let (code, out, _) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(".beads/formulas/broken.formula.toml:5:"),
        "{out}"
    );
    assert!(
        out.contains(".beads/formulas/dangling.formula.toml:7: step \"b\" needs \"zz\""),
        "{out}"
    );
}

#[test]
fn a_timer_gate_whose_timeout_is_not_a_duration_is_refused_before_pouring() {
    let (_sb, repo) = Sandbox::with_store();
    for (name, timeout) in [("forever", "99999999999999d"), ("vague", "soon")] {
        write_file(
            &repo
                .path
                .join(format!(".beads/formulas/{name}.formula.toml")),
            &GATES
                .replace("formula = \"gates\"", &format!("formula = \"{name}\""))
                .replace("timeout = \"0s\"", &format!("timeout = \"{timeout}\"")),
        );
        let (code, err) = repo.beads_fail(&["mol", "pour", name]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("step \"soak\" has a timer gate whose timeout") && err.contains(timeout),
            "{err}"
        );
    }
    let (code, out, _) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("forever.formula.toml") && out.contains("vague.formula.toml"),
        "{out}"
    );
    // What validate refuses, list and show do not call valid.
    let listed = repo.beads_json(&["formula", "list"]);
    for f in listed["formulas"].as_array().expect("formulas") {
        assert_eq!(f["valid"], false, "{f}");
    }
    assert_eq!(
        repo.beads_json(&["formula", "show", "vague"])["valid"],
        false
    );
    assert!(
        repo.beads_json(&["list", "--status", "all"])
            .as_array()
            .expect("list")
            .is_empty(),
        "nothing is poured"
    );
    assert!(
        repo.beads_json(&["gate", "list", "--all"])
            .as_array()
            .expect("gates")
            .is_empty()
    );
}

/// A formula or overlay of the worktree that is a symbolic link out of it (a checkout
/// made by someone else) is refused, and what it points at is neither read nor echoed.
#[test]
fn a_formula_linked_out_of_the_worktree_is_refused_unread() {
    let (sb, repo) = Sandbox::with_store();
    let secret = sb.path().join("secret.toml");
    write_file(&secret, "SECRET-LINE = [ unterminated\n");
    let formulas = repo.path.join(".beads/formulas");
    let overlays = repo.path.join(".beads/formula-overlays");
    write_file(
        &formulas.join("fine.formula.toml"),
        "formula = \"fine\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\n",
    );
    std::fs::create_dir_all(&overlays).expect("overlays");
    std::os::unix::fs::symlink(&secret, formulas.join("evil.formula.toml")).expect("link");
    std::os::unix::fs::symlink(&secret, overlays.join("fine.toml")).expect("link");
    let (code, out, err) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains(".beads/formulas/evil.formula.toml: is a symbolic link out of the worktree")
            && out.contains(".beads/formula-overlays/fine.toml: is a symbolic link out of"),
        "{out}"
    );
    for args in [
        &["mol", "pour", "evil"][..],
        &["mol", "pour", "fine"],
        &["formula", "show", "evil"],
    ] {
        let (code, err) = repo.beads_fail(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            err.contains("symbolic link") || err.contains("not found"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("SECRET"), "{args:?} echoed the target: {err}");
    }
    assert!(
        !out.contains("SECRET") && !err.contains("SECRET"),
        "{out}{err}"
    );
}

#[test]
fn a_crashed_session_on_a_gas_town_molecule_resumes_at_its_step() {
    let (_sb, repo) = repo_with("gastown");
    let poured = pour(&repo, "mol-polecat-work", &["--var", "issue=bd-42"]);
    let mol = poured["molecule"]["id"].as_str().expect("id").to_owned();
    let total = poured["steps"].as_array().expect("steps").len();
    let second = poured["steps"][1]["title"]
        .as_str()
        .expect("title")
        .to_owned();
    repo.beads(&["agent", "create", "rig/polecat"]);
    repo.beads(&["sling", &mol, "rig/polecat"]);
    repo.beads(&["agent", "bind", "rig/polecat"]);
    repo.start_session(&[]);
    repo.beads(&["close", &format!("{mol}.1")]);
    // The session dies here: it never ends.

    let p = repo.beads_json(&["session", "start"]);
    assert_eq!(p["previous"]["end"], "crashed", "{p}");
    let standing = p["previous"]["crash"]["step"].as_str().expect("where");
    assert!(
        standing.contains(&format!("step 2 of {total}")) && standing.contains(&format!("{mol}.2")),
        "{standing}"
    );
    let text = repo.beads(&["prime"]);
    assert!(text.contains("CRASHED"), "{text}");
    assert!(text.contains(&second), "prime names the step:\n{text}");
}

const OVERLAID: &str = r#"formula = "overlaid"
version = 1

[[steps]]
id = "build"
title = "Build"
description = "Run the build."

[[steps]]
id = "submit-review"
title = "Submit the review"
description = "Post the review to GitHub."
needs = ["build"]

[[steps]]
id = "notify"
title = "Notify"
needs = ["submit-review"]
"#;

#[test]
fn a_formula_overlay_replaces_appends_and_skips_steps_the_repository_one_winning() {
    let (sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/overlaid.formula.toml"),
        OVERLAID,
    );
    let user = sb
        .path()
        .join(".config/git-beads/formula-overlays/overlaid.toml");
    write_file(
        &user,
        "[[step-overrides]]\nstep_id = \"build\"\nmode = \"replace\"\ndescription = \"The user's build.\"\n",
    );
    let c = cook(&repo, "overlaid", &[]);
    assert_eq!(step(&c, "build")["description"], "The user's build.");
    write_file(
        &repo.path.join(".beads/formula-overlays/overlaid.toml"),
        "[[step-overrides]]\nstep_id = \"build\"\nmode = \"append\"\ndescription = \"Also run the integration tests.\"\n\n[[step-overrides]]\nstep_id = \"submit-review\"\nmode = \"skip\"\n\n[[step-overrides]]\nstep_id = \"renamed-away\"\nmode = \"skip\"\n",
    );
    let c = cook(&repo, "overlaid", &[]);
    assert_eq!(
        step(&c, "build")["description"],
        "Run the build.\nAlso run the integration tests.",
        "the repository's overlay replaces the user's whole"
    );
    assert_eq!(keys(&c), ["build", "notify"]);
    assert_eq!(
        strs(&step(&c, "notify")["needs"]),
        ["build"],
        "what needed the skipped step needs what it needed"
    );
    assert_eq!(strs(&c["stale_overrides"]), ["renamed-away"]);
    let poured = pour(&repo, "overlaid", &[]);
    assert_eq!(poured["steps"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        poured["steps"][0]["description"],
        "Run the build.\nAlso run the integration tests."
    );
    write_file(
        &repo.path.join(".beads/formula-overlays/overlaid.toml"),
        "[[step-overrides]]\nstep_id = \"build\"\nmode = \"rewrite\"\n",
    );
    let before = repo.store_head();
    let (code, err) = repo.beads_fail(&["mol", "pour", "overlaid"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(".beads/formula-overlays/overlaid.toml:3"),
        "{err}"
    );
    assert_eq!(repo.store_head(), before, "a bad overlay pours nothing");
    let (code, out, _) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(".beads/formula-overlays/overlaid.toml:3:"),
        "validate checks overlays too: {out}"
    );
}

const POINTCUTS: &str = r#"formula = "audited"
version = 1
type = "aspect"

[[advice]]
target = "*"
[advice.before]
id = "{step.id}-check"
title = "Check before {step.title}"

[[pointcuts]]
type = "bug"

[[pointcuts]]
label = "risky"
"#;

const POINTED: &str = r#"formula = "pointed"
version = 1

[compose]
aspects = ["audited"]

[[steps]]
id = "fix"
title = "Fix"
type = "bug"

[[steps]]
id = "refactor"
title = "Refactor"
labels = ["risky"]
needs = ["fix"]

[[steps]]
id = "docs"
title = "Docs"
needs = ["refactor"]
"#;

#[test]
fn an_aspects_pointcuts_select_its_targets_by_type_and_label() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/audited.formula.toml"),
        POINTCUTS,
    );
    write_file(
        &repo.path.join(".beads/formulas/pointed.formula.toml"),
        POINTED,
    );
    let c = cook(&repo, "pointed", &[]);
    assert_eq!(
        keys(&c),
        ["fix-check", "fix", "refactor-check", "refactor", "docs"],
        "the bug and the risky step are advised, the docs step is not"
    );
    assert_eq!(strs(&step(&c, "refactor-check")["needs"]), ["fix"]);
    assert_eq!(strs(&step(&c, "refactor")["needs"]), ["refactor-check"]);
}

const TWO_STEPS: &str = r#"formula = "two-steps"
version = 1

[vars.what]
default = "it"

[[steps]]
id = "first"
title = "First {{what}}"

[[steps]]
id = "second"
title = "Second {{what}}"
needs = ["first"]
"#;

const FOLLOW_UP: &str = r#"formula = "follow-up"
version = 1

[[steps]]
id = "check"
title = "Check the result"
"#;

/// The first bead of `show ID` in full.
fn shown(repo: &Repo, id: &str) -> Value {
    common::items(&repo.beads_json(&["show", id]))[0].clone()
}

/// The ids of the steps of molecule `mol` that can be worked now.
fn current(repo: &Repo, mol: &str) -> Vec<String> {
    common::current_steps(&repo.beads_json(&["mol", "current", mol]))
}

fn bonding_repo() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    for (name, text) in [("two-steps", TWO_STEPS), ("follow-up", FOLLOW_UP)] {
        write_file(
            &repo
                .path
                .join(format!(".beads/formulas/{name}.formula.toml")),
            text,
        );
    }
    (sb, repo)
}

#[test]
fn mol_bond_pours_a_formula_after_a_molecule_and_links_molecules_without_cycles() {
    let (_sb, repo) = bonding_repo();
    let a = pour(&repo, "two-steps", &[])["molecule"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let bonded = repo.beads_json(&["mol", "bond", "follow-up", &a]);
    assert_eq!(bonded["result_id"], a.as_str(), "{bonded}");
    assert_eq!(bonded["bond_type"], "sequential");
    let b = bonded["bonded"].as_str().expect("id").to_owned();
    assert_eq!(bonded["spawned"], 2);
    assert!(
        common::dep_pairs(&shown(&repo, &b)).contains(&(a.clone(), "blocks".to_owned())),
        "a sequential bond waits for the molecule"
    );
    assert!(current(&repo, &b).is_empty(), "held until {a} is done");
    repo.beads(&["close", &format!("{a}.1")]);
    repo.beads(&["close", &format!("{a}.2")]);
    assert_eq!(current(&repo, &b), [format!("{b}.1")]);

    let c = pour(&repo, "two-steps", &[])["molecule"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let linked = repo.beads_json(&["mol", "bond", &b, &c, "--type", "parallel"]);
    assert_eq!(linked["bonded"], c.as_str());
    assert!(common::dep_pairs(&shown(&repo, &c)).contains(&(b.clone(), "parent-child".to_owned())));
    let before = repo.store_head();
    let (code, err) = repo.beads_fail(&["mol", "bond", &c, &b]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("cycle"), "{err}");
    let (code, err) = repo.beads_fail(&["mol", "bond", "two-steps", "follow-up"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("both formulas"), "{err}");
    assert_eq!(repo.store_head(), before, "refused bonds change nothing");
}

/// The ids `ready` lists.
fn ready(repo: &Repo) -> Vec<String> {
    common::ids(&repo.beads_json(&["ready"]))
}

/// The ids `blocked` lists.
fn blocked(repo: &Repo) -> Vec<String> {
    common::ids(&repo.beads_json(&["blocked"]))
}

/// Molecule ids of the pours of `two-steps`.
fn poured_two_steps(repo: &Repo) -> String {
    pour(repo, "two-steps", &[])["molecule"]["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

#[test]
fn a_conditional_bond_runs_only_if_the_other_fails_and_stays_blocked_when_it_succeeds() {
    let (_sb, repo) = bonding_repo();
    let mut bonds = Vec::new();
    for _ in 0..2 {
        let a = poured_two_steps(&repo);
        let bonded = repo.beads_json(&["mol", "bond", "follow-up", &a, "--type", "conditional"]);
        assert_eq!(bonded["bond_type"], "conditional", "{bonded}");
        let b = bonded["bonded"].as_str().expect("id").to_owned();
        assert_eq!(
            common::dep_pairs(&shown(&repo, &b)),
            [(a.clone(), "conditional-blocks".to_owned())]
        );
        assert!(current(&repo, &b).is_empty(), "held while {a} runs");
        assert!(!ready(&repo).contains(&format!("{b}.1")));
        assert!(blocked(&repo).contains(&b));
        bonds.push((a, b));
    }

    // The first succeeds: its last step closes it ("all 2 steps done").
    let (a, b) = &bonds[0];
    repo.beads(&["close", &format!("{a}.1")]);
    repo.beads(&["close", &format!("{a}.2")]);
    assert_eq!(shown(&repo, a)["status"], "closed");
    assert!(current(&repo, b).is_empty(), "a success leaves {b} held");
    assert!(!ready(&repo).contains(&format!("{b}.1")));
    assert!(blocked(&repo).contains(b), "and listed as blocked by {a}");

    // The second fails.
    let (a, b) = &bonds[1];
    repo.beads(&["close", a, "--reason", "failed: the build broke"]);
    assert_eq!(current(&repo, b), [format!("{b}.1")]);
    assert!(ready(&repo).contains(&format!("{b}.1")));
    assert!(!blocked(&repo).contains(b));
}

#[test]
fn conditional_blocks_by_dep_add_follows_the_close_reason_and_travels_by_export_and_sync() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let (x, y) = (c1.create("x", &[]), c1.create("y", &[]));
    c1.beads(&["dep", "add", &y, &x, "--type", "conditional-blocks"]);
    assert!(!ready(&c1).contains(&y));
    c1.beads(&["close", &x, "--reason", "Completed successfully"]);
    assert!(!ready(&c1).contains(&y), "a success does not release it");
    assert!(blocked(&c1).contains(&y));
    c1.beads(&["reopen", &x]);
    for reason in ["Task failed due to timeout", "Won't fix", "CANCELLED"] {
        c1.beads(&["close", &x, "--reason", reason]);
        assert!(ready(&c1).contains(&y), "{reason}");
        c1.beads(&["reopen", &x]);
    }
    // A deleted bead holds nothing, as in bd.
    let (v, w) = (c1.create("v", &[]), c1.create("w", &[]));
    c1.beads(&["dep", "add", &w, &v, "--type", "conditional-blocks"]);
    assert!(!ready(&c1).contains(&w));
    c1.beads(&["delete", &v, "--force"]);
    assert!(ready(&c1).contains(&w));

    // export → import keeps the kind.
    let file = sb.path().join("out.jsonl");
    c1.beads(&["export", "-o", file.to_str().expect("utf-8")]);
    let fresh = sb.repo_with_store("fresh", "importer");
    fresh.beads(&["import", file.to_str().expect("utf-8")]);
    let kept = common::dep_pairs(&common::items(&fresh.beads_json(&["show", &y]))[0].clone());
    assert_eq!(kept, [(x.clone(), "conditional-blocks".to_owned())]);

    // A second clone gets it by sync, fails x there, and the first sees y ready.
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    assert!(!ready(&c2).contains(&y));
    c2.beads(&["close", &x, "--reason", "rejected in review"]);
    c2.sync();
    c1.sync();
    assert!(ready(&c1).contains(&y));
}

#[test]
fn mol_bond_ref_names_the_poured_molecule_under_the_bead_and_refuses_bad_or_taken_ids() {
    let (_sb, repo) = bonding_repo();
    let a = poured_two_steps(&repo);
    let bonded = repo.beads_json(&[
        "mol",
        "bond",
        "follow-up",
        &a,
        "--ref",
        "arm-{{worker}}",
        "--var",
        "worker=ace",
    ]);
    let arm = format!("{a}.arm-ace");
    assert_eq!(bonded["bonded"], arm.as_str(), "{bonded}");
    assert_eq!(
        shown(&repo, &format!("{arm}.1"))["title"],
        "Check the result"
    );
    assert_eq!(
        repo.beads_json(&["mol", "progress", &a])["total"],
        2,
        "the bonded molecule is not a step of {a}"
    );
    // The formula's defaults fill a ref too.
    let b = poured_two_steps(&repo);
    let under = repo.beads_json(&["mol", "bond", "two-steps", &b, "--ref", "again-{{what}}"]);
    assert_eq!(under["bonded"], format!("{b}.again-it").as_str());

    let before = repo.store_head();
    for (args, says) in [
        (
            vec!["--ref", "arm-{{worker}}", "--var", "worker=ace"],
            "exists already",
        ),
        (vec!["--ref", "../../x"], "makes no bead id"),
        (vec!["--ref", "arm/x"], "makes no bead id"),
        (vec!["--ref", "Arm"], "makes no bead id"),
        (vec!["--ref", "lock"], "makes no bead id"),
        (vec!["--ref", ""], "makes no bead id"),
        (
            vec!["--ref", "arm-{{worker}}", "--var", "worker=a b"],
            "makes no bead id",
        ),
        (vec!["--ref", "arm-{{nobody}}"], "{{nobody}} has no value"),
        (vec!["--ref", "3"], "numbers name steps"),
    ] {
        let mut all = vec!["mol", "bond", "follow-up", a.as_str()];
        all.extend(args.iter().copied());
        let (code, err) = repo.beads_fail(&all);
        assert_eq!(
            code,
            if says == "exists already" { 3 } else { 1 },
            "{args:?}: {err}"
        );
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    }
    let (code, err) = repo.beads_fail(&["mol", "bond", &a, &b, "--ref", "x"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("both are beads"), "{err}");
    assert_eq!(repo.store_head(), before, "refused bonds write nothing");
}

#[test]
fn pour_and_wisp_attach_formulas_in_the_same_commit() {
    let (_sb, repo) = bonding_repo();
    let commits = repo.commit_count("refs/beads/main");
    let poured = repo.beads_json(&[
        "mol",
        "pour",
        "two-steps",
        "--var",
        "what=x",
        "--attach",
        "follow-up",
    ]);
    assert_eq!(repo.commit_count("refs/beads/main"), commits + 1);
    let mol = poured["molecule"]["id"].as_str().expect("id");
    let attached = &poured["attached"][0];
    assert_eq!(attached["steps"].as_array().map(Vec::len), Some(1));
    assert!(
        common::dep_pairs(&attached["molecule"]).contains(&(mol.to_owned(), "blocks".to_owned())),
        "{attached}"
    );
    let wisp = repo.beads_json(&[
        "mol",
        "wisp",
        "two-steps",
        "--attach",
        "follow-up",
        "--attach-type",
        "parallel",
    ]);
    let w = wisp["molecule"]["id"].as_str().expect("id");
    assert_eq!(wisp["attached"][0]["ref"], "refs/beads/local/wisps");
    assert!(
        common::dep_pairs(&wisp["attached"][0]["molecule"])
            .contains(&(w.to_owned(), "parent-child".to_owned()))
    );
}

const PATROL: &str = r#"formula = "patrol"
version = 1

[vars.rig]
default = "main-rig"

[[steps]]
id = "survey"
title = "Survey the workers"

[steps.on_complete]
for_each = "output.workers"
bond = "arm"
[steps.on_complete.vars]
worker = "{item.name}"
rig = "{{rig}}"

[[steps]]
id = "first-back"
title = "Take the first report"
needs = ["survey"]
waits_for = "any-children"

[[steps]]
id = "all-back"
title = "Aggregate every report"
needs = ["survey"]
waits_for = "all-children"
"#;

const ARM: &str = r#"formula = "arm"
version = 1

[vars.worker]
required = true

[vars.rig]
required = true

[[steps]]
id = "capture"
title = "Capture {{worker}} on {{rig}}"

[[steps]]
id = "report"
title = "Report {{worker}}"
needs = ["capture"]
"#;

#[test]
fn on_complete_bonds_a_formula_per_output_item_and_waits_for_holds_until_children_close() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/patrol.formula.toml"),
        PATROL,
    );
    write_file(&repo.path.join(".beads/formulas/arm.formula.toml"), ARM);
    let c = cook(&repo, "patrol", &[]);
    let poured = pour(&repo, "patrol", &[]);
    let mol = poured["molecule"]["id"].as_str().expect("id").to_owned();
    let id_of = |key: &str| poured_id(&c, &poured, key);
    let (survey, first, all) = (id_of("survey"), id_of("first-back"), id_of("all-back"));
    let before = repo.store_head();
    let (code, err) = repo.beads_fail(&["close", &survey]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("output.workers"), "{err}");
    assert_eq!(repo.store_head(), before, "a refused close changes nothing");

    repo.beads(&[
        "close",
        &survey,
        "--output",
        r#"{"workers": [{"name": "ace"}, {"name": "bo"}]}"#,
    ]);
    let bonded = strs(&shown(&repo, &survey)["extra"]["bonded"]);
    assert_eq!(bonded.len(), 2, "one arm per worker");
    let arm = shown(&repo, &bonded[0]);
    assert_eq!(arm["title"], "arm");
    assert!(common::dep_pairs(&arm).contains(&(survey.clone(), "parent-child".to_owned())));
    let capture = shown(&repo, &format!("{}.1", bonded[0]));
    assert_eq!(capture["title"], "Capture ace on main-rig");
    assert!(
        current(&repo, &mol).is_empty(),
        "both waits hold while every arm is open"
    );

    repo.beads(&["close", &format!("{}.1", bonded[0])]);
    repo.beads(&["close", &format!("{}.2", bonded[0])]);
    assert_eq!(
        current(&repo, &mol),
        std::slice::from_ref(&first),
        "any-children: the first arm done releases it; all-children still waits"
    );
    repo.beads(&["close", &format!("{}.1", bonded[1])]);
    repo.beads(&["close", &format!("{}.2", bonded[1])]);
    assert_eq!(current(&repo, &mol), [first, all]);
}

const INLINE: &str = r#"formula = "inline-patrol"
version = 1
phase = "vapor"
pour = false

[[steps]]
id = "inbox"
title = "Check the inbox"
description = "Read every unread message."

[[steps]]
id = "report"
title = "Report"
needs = ["inbox"]
"#;

#[test]
fn steps_that_are_not_poured_stay_in_the_molecules_checklist_which_prime_shows() {
    let (_sb, repo) = bonding_repo();
    write_file(
        &repo.path.join(".beads/formulas/inline-patrol.formula.toml"),
        INLINE,
    );
    let out = repo.beads_output(&["mol", "pour", "inline-patrol"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("recommends the vapor phase"),
        "a vapor formula poured warns, as bd does: {err}"
    );
    let mol = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let p = repo.beads_json(&["mol", "progress", &mol]);
    assert_eq!(p["steps"].as_array().map(Vec::len), Some(0), "{p}");
    assert_eq!(p["total"], 2);
    assert_eq!(p["checklist"][0]["title"], "Check the inbox");
    assert_eq!(strs(&p["checklist"][1]["needs"]), ["inbox"]);
    repo.beads(&["agent", "create", "rig/witness"]);
    repo.beads(&["sling", &mol, "rig/witness"]);
    repo.beads(&["agent", "bind", "rig/witness"]);
    let text = repo.beads(&["prime"]);
    assert!(text.contains("1. Check the inbox (inbox)"), "{text}");
    assert!(text.contains("Read every unread message."), "{text}");
    assert!(text.contains("2. Report (report)"), "{text}");

    let wisp = repo.beads_json(&["mol", "wisp", "two-steps", "--root-only"]);
    assert_eq!(wisp["steps"].as_array().map(Vec::len), Some(0));
    assert_eq!(
        wisp["molecule"]["extra"]["checklist"][1]["title"],
        "Second it"
    );
}

const GUARDED: &str = r#"formula = "guarded"
version = 1

[[steps]]
id = "build"
title = "Build"

[[steps]]
id = "deploy"
title = "Deploy"
needs = ["build"]

[[compose.gate]]
before = "deploy"
condition = "build.output.approved == true"
"#;

#[test]
fn a_conditional_gate_is_resolved_when_read_once_its_condition_holds() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/guarded.formula.toml"),
        GUARDED,
    );
    let c = cook(&repo, "guarded", &[]);
    assert_eq!(keys(&c), ["build", "deploy.gate", "deploy"]);
    assert_eq!(step(&c, "deploy.gate")["gate"]["type"], "conditional");
    let gate_state = |gate: &str| {
        let gates = repo.beads_json(&["gate", "list", "--all"]);
        let g = gates
            .as_array()
            .expect("list")
            .iter()
            .find(|g| g["id"] == gate)
            .cloned()
            .expect("listed");
        (
            g["state"].as_str().expect("state").to_owned(),
            g["status"].as_str().expect("status").to_owned(),
        )
    };
    for (approved, resolved) in [("false", false), ("true", true)] {
        let poured = pour(&repo, "guarded", &[]);
        let mol = poured["molecule"]["id"].as_str().expect("id").to_owned();
        let (build, gate) = (
            poured_id(&c, &poured, "build"),
            poured_id(&c, &poured, "deploy.gate"),
        );
        assert_eq!(gate_state(&gate).0, "waiting", "nothing to judge yet");
        let output = format!(r#"{{"approved": {approved}}}"#);
        repo.beads(&["close", &build, "--output", &output]);
        let (state, status) = gate_state(&gate);
        if resolved {
            assert_eq!((state.as_str(), status.as_str()), ("resolved", "closed"));
            assert_eq!(current(&repo, &mol), [poured_id(&c, &poured, "deploy")]);
        } else {
            assert_eq!((state.as_str(), status.as_str()), ("waiting", "open"));
            assert_eq!(current(&repo, &mol), [gate]);
        }
    }
    write_file(
        &repo.path.join(".beads/formulas/guarded.formula.toml"),
        &GUARDED.replace("build.output.approved == true", "when the build is green"),
    );
    let (code, out, _) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1);
    assert!(out.contains("condition that does not parse"), "{out}");
}

const CHILDREN_OF: &str = r#"formula = "children-of"
version = 1

[[steps]]
id = "build"
title = "Build"

[[steps.children]]
id = "unit"
title = "Unit tests"

[[steps.children]]
id = "lint"
title = "Lint"

[[steps]]
id = "notify"
title = "Notify"
waits_for = "children-of(build)"
"#;

#[test]
fn waits_for_children_of_a_step_holds_until_its_cooked_children_close() {
    let (_sb, repo) = Sandbox::with_store();
    write_file(
        &repo.path.join(".beads/formulas/children-of.formula.toml"),
        CHILDREN_OF,
    );
    let c = cook(&repo, "children-of", &[]);
    let poured = pour(&repo, "children-of", &[]);
    let mol = poured["molecule"]["id"].as_str().expect("id").to_owned();
    let id_of = |key: &str| poured_id(&c, &poured, key);
    let mut now = current(&repo, &mol);
    now.sort();
    let mut want = vec![id_of("unit"), id_of("lint")];
    want.sort();
    assert_eq!(now, want, "notify waits for build's children");
    repo.beads(&["close", &id_of("unit")]);
    assert_eq!(current(&repo, &mol), [id_of("lint")]);
    repo.beads(&["close", &id_of("lint")]);
    let mut now = current(&repo, &mol);
    now.sort();
    let mut want = vec![id_of("build"), id_of("notify")];
    want.sort();
    assert_eq!(now, want);
}
