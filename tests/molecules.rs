//! Molecules played with the real binary: formulas are found, checked and poured in
//! one commit; steps are worked one by one across a crashed session; wisps stay on
//! this machine and end squashed or burned.

use crate::common;

use std::path::PathBuf;

use common::{Repo, Sandbox, dep_pairs, doc_path, ids, strs, write_file};
use serde_json::Value;

/// Five steps: `design` fans out to `backend` and `frontend`, which fan in to
/// `integrate`, then `release`. Written out of order, in a nested folder.
const FEATURE: &str = r#"name: feature
description: Build {{feature}} end to end.
version: 3
title: "Feature: {{feature}}"
variables:
  feature:
    description: What to build.
    required: true
  owner:
    description: Who signs it off.
    default: alice
steps:
  - id: design
    title: Design {{feature}}
    description: |
      Write the design of {{feature}} and have {{owner}} review it.
    acceptance: "{{owner}} approved the design"
  - id: integrate
    title: Integrate {{feature}}
    needs: [backend, frontend]
  - id: backend
    title: Backend for {{feature}}
    needs: design
  - id: frontend
    title: Frontend for {{feature}}
    needs: [design]
  - id: release
    title: Release {{feature}}
    needs: [integrate]
"#;

/// The user-level config folder of the sandbox (`XDG_CONFIG_HOME`).
fn config_home(repo: &Repo) -> PathBuf {
    repo.path.parent().expect("sandbox").join("config")
}

/// `repo` with `XDG_CONFIG_HOME` pinned inside the sandbox for every command, so
/// that no formula of the machine running the tests is ever seen.
fn pinned(repo: Repo) -> Repo {
    let home = config_home(&repo);
    repo.with_env("XDG_CONFIG_HOME", home)
}

/// A store in a new sandbox, with `XDG_CONFIG_HOME` pinned (see [`pinned`]).
fn setup() -> (Sandbox, Repo) {
    let (sb, repo) = Sandbox::with_store();
    (sb, pinned(repo))
}

/// A store (see [`setup`]) with the feature formula at `rel` in the repository's
/// formulas folder.
fn with_feature(rel: &str) -> (Sandbox, Repo) {
    let (sb, repo) = setup();
    repo.formula(rel, FEATURE);
    (sb, repo)
}

/// Pours the feature formula with `feature=login`; returns the molecule's id.
fn pour_login(repo: &Repo) -> String {
    repo.beads(&["mol", "pour", "feature", "--var", "feature=login"])
        .trim()
        .to_owned()
}

/// The feature formula poured (see [`pour_login`]) onto the hook of a new agent
/// `rig/worker`, which this worktree is bound to; returns the molecule's id too.
fn slung_feature() -> (Sandbox, Repo, String) {
    let (sb, repo) = with_feature("product/feature.yaml");
    let mol = pour_login(&repo);
    repo.beads(&["agent", "create", "rig/worker"]);
    repo.beads(&["sling", &mol, "rig/worker"]);
    repo.beads(&["agent", "bind", "rig/worker"]);
    (sb, repo, mol)
}

#[test]
fn a_formula_in_a_nested_folder_is_validated_listed_and_shown() {
    let (_sb, repo) = with_feature("product/feature.yaml");
    let v = repo.beads_json(&["formula", "validate"]);
    assert_eq!(v["valid"], true, "{v}");
    assert_eq!(
        strs(&v["checked"]),
        [".beads/formulas/product/feature.yaml"]
    );
    let listed = repo.beads_json(&["formula", "list"]);
    assert_eq!(listed["formulas"][0]["name"], "feature");
    assert_eq!(listed["formulas"][0]["origin"], "repository");
    assert_eq!(listed["formulas"][0]["steps"], 5);
    let shown = repo.beads_json(&["formula", "show", "feature"]);
    assert_eq!(
        shown["formula"]["steps"][1]["needs"],
        serde_json::json!(["backend", "frontend"])
    );
    assert_eq!(
        shown["formula"]["steps"][2]["needs"],
        serde_json::json!(["design"])
    );
}

#[test]
fn a_pour_fills_in_the_variables_in_one_commit_with_steps_after_their_needs() {
    let (_sb, repo) = with_feature("product/feature.yaml");
    let before = repo.commit_count("refs/beads/main");
    let mol = pour_login(&repo);
    assert_eq!(
        repo.commit_count("refs/beads/main"),
        before + 1,
        "one commit"
    );
    let m = repo.bead_json(&mol);
    assert_eq!(m["issue_type"], "molecule");
    assert_eq!(m["title"], "Feature: login");
    assert_eq!(m["description"], "Build login end to end.");
    assert_eq!(m["extra"]["formula"], "feature");
    assert_eq!(m["extra"]["formula_version"], 3);
    assert_eq!(m["extra"]["variables"]["owner"], "alice", "the default");
    let step = |n: u32| format!("{mol}.{n}");
    // Steps come in an order where each follows what it needs.
    let titles: Vec<String> = (1..=5)
        .map(|n| {
            repo.bead_json(&step(n))["title"]
                .as_str()
                .expect("title")
                .to_owned()
        })
        .collect();
    assert_eq!(
        titles,
        [
            "Design login",
            "Backend for login",
            "Frontend for login",
            "Integrate login",
            "Release login"
        ]
    );
    let design = repo.bead_json(&step(1));
    assert_eq!(
        design["description"],
        "Write the design of login and have alice review it.\n"
    );
    assert_eq!(
        design["extra"]["acceptance_criteria"],
        "alice approved the design"
    );
    assert_eq!(design["extra"]["step"], "design");
    assert_eq!(
        dep_pairs(&design),
        [(mol.clone(), "parent-child".to_owned())]
    );
    let integrate = repo.bead_json(&step(4));
    let mut want = vec![
        (step(2), "blocks".to_owned()),
        (step(3), "blocks".to_owned()),
        (mol.clone(), "parent-child".to_owned()),
    ];
    want.sort();
    assert_eq!(dep_pairs(&integrate), want);
    let ready = ids(&repo.beads_json(&["ready"]));
    assert!(ready.contains(&step(1)), "{ready:?}");
    assert!(
        !ready.iter().any(|r| *r == step(2) || *r == step(4)),
        "{ready:?}"
    );
}

#[test]
fn an_agent_works_the_steps_one_by_one_across_a_crashed_session() {
    let (_sb, repo, mol) = slung_feature();
    let step = |n: u32| format!("{mol}.{n}");
    let p1 = repo.beads_json(&["session", "start"]);
    let progress = &p1["hook"][0]["progress"];
    assert_eq!(progress["at_step"], 1, "{p1}");
    assert_eq!(strs(&progress["current"]), [step(1)]);
    assert_eq!(
        progress["steps"][0]["acceptance"], "alice approved the design",
        "the current step is spelled out"
    );
    repo.beads(&["close", &step(1)]);
    let now = repo.beads_json(&["mol", "current"]);
    assert_eq!(
        common::current_steps(&now),
        [step(2), step(3)],
        "the fan-out: two steps at once"
    );
    repo.beads(&["close", &step(2)]);
    // The session dies here: it never ends, nothing is said.

    let p2 = repo.beads_json(&["session", "start"]);
    assert_eq!(p2["previous"]["end"], "crashed", "{p2}");
    let standing = p2["previous"]["crash"]["step"]
        .as_str()
        .expect("where it stood");
    assert!(
        standing.contains("step 3 of 5") && standing.contains(&step(3)) && standing.contains(&mol),
        "{standing}"
    );
    let primed = repo.beads_json(&["prime"]);
    assert_eq!(primed["previous"]["end"], "crashed");
    let progress = &primed["hook"][0]["progress"];
    assert_eq!(progress["at_step"], 3, "{primed}");
    assert_eq!(strs(&progress["current"]), [step(3)], "step 3 is current");
    assert_eq!(progress["done"], 2);
    assert_eq!(progress["total"], 5);
    let text = repo.beads(&["prime"]);
    assert!(
        text.contains("CRASHED") && text.contains("step 3 of 5"),
        "{text}"
    );
    assert!(
        text.contains(&format!("[>] {}", step(3))),
        "the checklist:\n{text}"
    );
    let now = repo.beads_json(&["mol", "current"]);
    assert_eq!(common::current_steps(&now), [step(3)]);
    assert_eq!(now[0]["completed"], 2);
    assert!(
        now[0]["position"]
            .as_str()
            .is_some_and(|p| p.contains("step 3 of 5"))
    );
}

#[test]
fn closing_the_last_step_closes_the_molecule_in_the_same_commit() {
    let (_sb, repo, mol) = slung_feature();
    let step = |n: u32| format!("{mol}.{n}");
    repo.beads(&["close", &step(1)]);
    repo.beads(&["close", &step(2)]);
    repo.beads(&["close", &step(3), &step(4)]);
    let p = repo.beads_json(&["mol", "progress", &mol]);
    assert_eq!(
        (p["done"].as_u64(), p["total"].as_u64()),
        (Some(4), Some(5))
    );
    assert_eq!(p["status"], "hooked");
    let before = repo.commit_count("refs/beads/main");
    repo.beads(&["close", &step(5)]);
    assert_eq!(repo.commit_count("refs/beads/main"), before + 1);
    let changed = repo.git(&[
        "diff-tree",
        "-r",
        "--name-only",
        "refs/beads/main~1",
        "refs/beads/main",
    ]);
    assert!(
        changed.contains(&doc_path(&mol)) && changed.contains(&doc_path(&step(5))),
        "{changed}"
    );
    assert!(
        changed.contains("agents/rig/worker.yaml"),
        "the finished molecule leaves its agent's hook in the same commit:\n{changed}"
    );
    let m = repo.bead_json(&mol);
    assert_eq!(m["status"], "closed");
    assert_eq!(m["close_reason"], "all 5 steps done");
    let text = repo.beads(&["mol", "progress", &mol]);
    assert!(text.contains("5/5 done — all 5 steps done"), "{text}");
    let agent = repo.beads_json(&["agent", "show", "rig/worker"]);
    assert!(agent.get("hook").is_none(), "{agent}");
    let primed = repo.beads(&["prime"]);
    assert!(!primed.contains(&mol), "{primed}");
    let doctor = repo.beads_output(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(0), "{}", common::stdout(&doctor));
    repo.assert_fsck_clean();
}

#[test]
fn pours_take_an_assignee_defaults_and_a_path() {
    let (_sb, repo) = setup();
    let file = repo.formula("feature.yml", FEATURE);
    let mol = repo
        .beads(&[
            "mol",
            "pour",
            "feature",
            "--var",
            "feature=search",
            "--var",
            "owner=bob",
            "-a",
            "rig/nux",
        ])
        .trim()
        .to_owned();
    for id in [mol.clone(), format!("{mol}.1"), format!("{mol}.5")] {
        assert_eq!(repo.bead_json(&id)["assignee"], "rig/nux", "{id}");
    }
    assert_eq!(
        repo.bead_json(&format!("{mol}.1"))["extra"]["acceptance_criteria"],
        "bob approved the design"
    );
    // A path works wherever a name does; --json gives the molecule and its steps.
    let poured = repo.beads_json(&[
        "mol",
        "pour",
        file.to_str().expect("utf-8"),
        "--var",
        "feature=x",
    ]);
    assert_eq!(poured["ref"], "refs/beads/main");
    assert_eq!(poured["steps"].as_array().map(Vec::len), Some(5));
    assert_eq!(poured["molecule"]["title"], "Feature: x");
    // A molecule listing shows both.
    let all = repo.beads_json(&["mol", "list"]);
    assert_eq!(all.as_array().map(Vec::len), Some(2));
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "current"]);
    assert_eq!(code, 1);
    assert!(err.contains("name it"), "{err}");
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "progress", &format!("{mol}.2")]);
    assert_eq!(code, 1);
    assert!(err.contains(&format!("step of molecule {mol}")), "{err}");
}

#[test]
fn repository_formulas_win_over_user_formulas() {
    let (_sb, repo) = setup();
    let user = config_home(&repo).join("git-beads/formulas");
    write_file(
        &user.join("feature.yaml"),
        "name: feature\ndescription: the user's\nsteps:\n  - id: a\n    title: A\n",
    );
    write_file(
        &user.join("deep/chore.formula.yaml"),
        "description: only the user has it\nsteps:\n  - id: a\n    title: Sweep\n",
    );
    let cat = repo.beads_json(&["formula", "list"]);
    let names: Vec<&str> = cat["formulas"]
        .as_array()
        .expect("formulas")
        .iter()
        .map(|f| f["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["chore", "feature"]);
    assert_eq!(cat["formulas"][1]["origin"], "user");
    repo.formula("feature.yaml", FEATURE);
    let cat = repo.beads_json(&["formula", "list"]);
    assert_eq!(cat["formulas"][1]["name"], "feature");
    assert_eq!(cat["formulas"][1]["origin"], "repository");
    assert_eq!(cat["shadowed"][0]["origin"], "user");
    let mol = repo.beads(&["mol", "pour", "chore"]).trim().to_owned();
    assert_eq!(repo.bead_json(&format!("{mol}.1"))["title"], "Sweep");
    // Without XDG_CONFIG_HOME the user folder is ~/.config/git-beads/formulas.
    let home = repo.path.parent().expect("sandbox").to_owned();
    write_file(
        &home.join(".config/git-beads/formulas/tidy.yaml"),
        "steps:\n  - id: a\n    title: Tidy\n",
    );
    let out = repo
        .command("git")
        .env_remove("XDG_CONFIG_HOME")
        .args(["beads", "--json", "formula", "list"])
        .output()
        .expect("runs");
    let cat: Value = serde_json::from_slice(&out.stdout).expect("json");
    let tidy = cat["formulas"]
        .as_array()
        .expect("formulas")
        .iter()
        .find(|f| f["name"] == "tidy")
        .unwrap_or_else(|| panic!("{cat}"))
        .clone();
    assert_eq!(tidy["origin"], "user");
    // The format is documented where people look.
    let help = repo
        .beads_direct()
        .args(["formula", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("needs: [changelog, test]") && help.contains("XDG_CONFIG_HOME"),
        "{help}"
    );
}

/// Checks one broken formula: `formula validate FILE` fails naming the file, the
/// line (when given) and `message`; pouring it changes nothing.
fn refused(repo: &Repo, name: &str, text: &str, line: Option<usize>, message: &str) {
    let path = repo.formula(&format!("{name}.yaml"), text);
    let (code, stdout, stderr) =
        repo.beads_fail_with_stdout(&["formula", "validate", path.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "{name}: {stderr}");
    assert!(stderr.contains("problem"), "{name}: {stderr}");
    let located = match line {
        Some(l) => format!("{name}.yaml:{l}:"),
        None => format!("{name}.yaml:"),
    };
    let hit = stdout
        .lines()
        .find(|l| l.contains(message))
        .unwrap_or_else(|| panic!("{name}: no {message:?} in:\n{stdout}"));
    assert!(
        hit.contains(&located),
        "{name}: expected {located} in {hit:?}"
    );
    let v = json_fail(
        repo,
        &["formula", "validate", path.to_str().expect("utf-8")],
    );
    assert_eq!(v["valid"], false, "{name}");
    assert_eq!(
        v["problems"][0]["file"]
            .as_str()
            .map(|f| f.ends_with(&format!("{name}.yaml"))),
        Some(true)
    );
    if let Some(l) = line {
        assert!(
            v["problems"]
                .as_array()
                .expect("problems")
                .iter()
                .any(|p| p["line"] == l),
            "{name}: {v}"
        );
    }
    let before = repo.store_head();
    let (code, _, err) =
        repo.beads_fail_with_stdout(&["mol", "pour", path.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "{name}: {err}");
    assert!(err.contains(message), "{name}: {err}");
    assert_eq!(repo.store_head(), before, "{name}: nothing changed");
    std::fs::remove_file(&path).expect("remove");
}

/// Runs `git beads --json ARGS`, which must fail; returns the JSON it printed.
fn json_fail(repo: &Repo, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = repo.beads_output(&all);
    assert!(!out.status.success());
    serde_json::from_slice(&out.stdout).expect("JSON even on failure")
}

#[test]
fn each_broken_formula_is_refused_naming_its_file_and_line() {
    let (_sb, repo) = setup();
    refused(
        &repo,
        "malformed",
        "name: x\nsteps:\n  - id: a\n    title: t\n   needs: b\n",
        Some(5),
        "did not find expected '-' indicator",
    );
    refused(
        &repo,
        "typo",
        "name: x\nsteps:\n  - id: a\n    title: t\n    need: [b]\n",
        Some(5),
        "unknown field `need`",
    );
    refused(
        &repo,
        "unknown_need",
        "name: x\nsteps:\n  - id: a\n    title: t\n  - id: b\n    title: t\n    needs: [nope]\n",
        Some(5),
        "step \"b\" needs \"nope\", which is not a step of this formula",
    );
    refused(
        &repo,
        "cycle",
        "name: x\nsteps:\n  - id: a\n    title: t\n    needs: [c]\n  - id: b\n    title: t\n    needs: [a]\n  - id: c\n    title: t\n    needs: [b]\n",
        Some(3),
        "the steps' needs form a cycle: a → c → b → a",
    );
    refused(
        &repo,
        "duplicate",
        "name: x\nsteps:\n  - id: a\n    title: t\n  - id: a\n    title: u\n",
        Some(5),
        "step \"a\" is defined more than once",
    );
    refused(
        &repo,
        "unknown_var",
        "name: x\nvariables:\n  who:\n    required: true\nsteps:\n  - id: a\n    title: Greet {{who}}\n  - id: b\n    title: t\n    description: Thank {{whom}}\n",
        Some(8),
        "the description of step \"b\" uses variable \"whom\", which is not declared",
    );
    refused(
        &repo,
        "placeholder",
        "name: x\nsteps:\n  - id: a\n    title: Greet {{who is}}\n",
        Some(3),
        "malformed placeholder \"{{who is}}\"",
    );
    refused(
        &repo,
        "required_default",
        "name: x\nvariables:\n  who:\n    required: true\n    default: me\nsteps:\n  - id: a\n    title: Greet {{who}}\n",
        Some(3),
        "variable \"who\" is required and has a default",
    );
    refused(
        &repo,
        "no_steps",
        "name: x\nsteps: []\n",
        Some(2),
        "the formula has no steps",
    );
    refused(
        &repo,
        "bad_id",
        "name: x\nsteps:\n  - id: a b\n    title: t\n",
        Some(3),
        "step id \"a b\" is not valid",
    );
}

#[test]
fn pouring_checks_the_variables_and_a_failed_pour_changes_nothing() {
    let (_sb, repo) = with_feature("feature.yaml");
    let before = repo.store_head();
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "pour", "feature"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("formula feature needs a value for \"feature\" (pass --var NAME=VALUE)"),
        "{err}"
    );
    let (code, _, err) =
        repo.beads_fail_with_stdout(&["mol", "pour", "feature", "--var", "feature= "]);
    assert_eq!(code, 1, "a blank value is no value: {err}");
    assert!(err.contains("needs a value for \"feature\""), "{err}");
    let (code, _, err) = repo.beads_fail_with_stdout(&[
        "mol",
        "pour",
        "feature",
        "--var",
        "feature=a",
        "--var",
        "colour=red",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("formula feature has no variable \"colour\" (it has: feature, owner)"),
        "{err}"
    );
    let (code, _, err) =
        repo.beads_fail_with_stdout(&["mol", "pour", "feature", "--var", "feature"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("NAME=VALUE"), "{err}");
    let (code, _, err) =
        repo.beads_fail_with_stdout(&["mol", "pour", "feature", "--var", "feature=a\nb"]);
    assert_eq!(code, 1);
    assert!(err.contains("control character"), "{err}");
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "pour", "nothing-here"]);
    assert_eq!(code, 1);
    assert!(err.contains("no formula \"nothing-here\""), "{err}");
    assert_eq!(repo.store_head(), before, "no failed pour changed anything");
}

#[test]
fn validating_everything_reports_every_broken_file_and_passes_the_good_ones() {
    let (_sb, repo) = with_feature("feature.yaml");
    repo.formula(
        "nested/broken.yaml",
        "name: broken\nsteps:\n  - id: a\n    title: t\n    needs: [zz]\n",
    );
    repo.formula("nested/bad.yml", "steps: {\n");
    let (code, stdout, stderr) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("2 problems in 2 formula files"), "{stderr}");
    assert!(
        stdout.contains(".beads/formulas/nested/broken.yaml:3: step \"a\" needs \"zz\""),
        "{stdout}"
    );
    assert!(
        stdout.contains(".beads/formulas/nested/bad.yml:"),
        "{stdout}"
    );
    let listed = repo.beads_json(&["formula", "list"]);
    assert_eq!(
        listed["unreadable"][0]["file"],
        ".beads/formulas/nested/bad.yml"
    );
    let broken = listed["formulas"]
        .as_array()
        .expect("formulas")
        .iter()
        .find(|f| f["name"] == "broken")
        .expect("listed, marked invalid")
        .clone();
    assert_eq!(broken["valid"], false);
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "pour", "broken"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("formula broken is not valid") && err.contains("broken.yaml:3:"),
        "{err}"
    );
    // Two files of one folder claiming one name are both reported.
    repo.formula("nested/feature-copy.yaml", FEATURE);
    let (_, stdout, _) = repo.beads_fail_with_stdout(&["formula", "validate"]);
    assert!(
        stdout.contains("formula feature is also defined in"),
        "{stdout}"
    );
}

#[test]
fn a_finished_molecule_squashes_into_itself() {
    let (_sb, repo) = setup();
    repo.formula("feature.yaml", FEATURE);
    let mol = repo
        .beads(&["mol", "pour", "feature", "--var", "feature=x"])
        .trim()
        .to_owned();
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "squash", &mol]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("not finished: 0 of 5 steps done"), "{err}");
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "burn", &mol]);
    assert_eq!(code, 1);
    assert!(err.contains("not a wisp"), "{err}");
    let steps: Vec<String> = (1..=5).map(|n| format!("{mol}.{n}")).collect();
    let mut args = vec!["close"];
    args.extend(steps[..4].iter().map(String::as_str));
    repo.beads(&args);
    assert_eq!(repo.bead_json(&mol)["status"], "open");
    repo.beads(&["update", &steps[4], "--status", "closed"]);
    assert_eq!(
        repo.bead_json(&mol)["status"],
        "closed",
        "finishing the last step, however, closed it"
    );
    // Squashing finishes work: an agent that may not close is refused, and nothing
    // is written.
    repo.beads(&["agent", "create", "writer", "--can", "create,update,delete"]);
    let before = repo.commit_count("refs/beads/main");
    let (code, _, err) = repo.beads_fail_with_stdout(&["--as", "writer", "mol", "squash", &mol]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("may not close"), "{err}");
    assert_eq!(repo.commit_count("refs/beads/main"), before, "{err}");
    let s = repo.beads_json(&["mol", "squash", &mol]);
    assert_eq!(repo.commit_count("refs/beads/main"), before + 1);
    assert_eq!(s["summary"]["id"], mol.as_str());
    assert_eq!(s["steps"], 5);
    let m = repo.bead_json(&mol);
    let text = m["description"].as_str().expect("description");
    assert!(
        text.contains("Squashed from molecule") && text.contains("Release x"),
        "{text}"
    );
    assert_eq!(
        repo.bead_json(&steps[0])["status"],
        "deleted",
        "steps become tombstones"
    );
    assert!(
        ids(&repo.beads_json(&["list", "--all"]))
            .iter()
            .all(|i| !i.starts_with(&format!("{mol}.")))
    );
    let p = repo.beads_json(&["mol", "progress", &mol]);
    assert_eq!(
        (p["done"].as_u64(), p["total"].as_u64()),
        (Some(5), Some(5))
    );
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "squash", &mol]);
    assert_eq!(code, 3);
    assert!(err.contains("squashed already"), "{err}");
}

#[test]
fn wisps_never_leave_this_machine_and_end_squashed_or_burned() {
    let sb = Sandbox::new();
    let (remote, repo) = sb.remote_with_code("work");
    let repo = pinned(repo);
    repo.init();
    repo.formula("feature.yaml", FEATURE);

    let main_before = repo.store_head();
    let wisp = repo
        .beads(&["mol", "wisp", "feature", "--var", "feature=spike"])
        .trim()
        .to_owned();
    assert!(wisp.starts_with("bd-wisp-"), "{wisp}");
    assert_eq!(
        repo.store_head(),
        main_before,
        "a wisp does not touch refs/beads/main"
    );
    assert_eq!(
        repo.commit_count("refs/beads/local/wisps"),
        1,
        "one commit on the wisp ref"
    );
    let local = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/local/wisps"]);
    assert!(
        local.contains(&format!("/{wisp}.yaml")) && local.contains(&format!("/{wisp}.5.yaml")),
        "{local}"
    );
    assert!(!repo.store_paths().iter().any(|p| p.contains("wisp")));
    assert!(
        !ids(&repo.beads_json(&["list", "--all"]))
            .iter()
            .any(|i| i.contains("wisp"))
    );
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/beads/"]);
    assert_eq!(
        refs.lines()
            .filter(|r| r.contains("wisp"))
            .collect::<Vec<_>>(),
        ["refs/beads/local/wisps"]
    );
    let p = repo.beads_json(&["mol", "progress", &wisp]);
    assert_eq!(p["wisp"], true);
    assert_eq!(strs(&p["current"]), [format!("{wisp}.1")]);

    // Sync pushes the shared store and never the wisp.
    let synced = repo.beads_json(&["sync"]);
    assert_eq!(synced["pushed"], true, "{synced}");
    let remote_repo = Repo::at(&sb, &remote, "alice");
    let advertised = remote_repo.git(&["ls-remote", "."]);
    assert!(advertised.contains("refs/beads/main"), "{advertised}");
    assert!(
        !advertised.contains("wisp") && !advertised.contains("local"),
        "{advertised}"
    );
    let remote_tree = remote_repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/main"]);
    assert!(!remote_tree.contains("wisp"), "{remote_tree}");

    // Worked like a molecule: close finds the steps on the wisp ref.
    let (code, _, err) = repo.beads_fail_with_stdout(&["mol", "squash", &wisp]);
    assert_eq!(code, 3);
    assert!(err.contains("mol burn"), "{err}");
    let other = repo.create("stored", &[]);
    let (code, _, err) = repo.beads_fail_with_stdout(&["close", &format!("{wisp}.1"), &other]);
    assert_eq!(code, 1);
    assert!(err.contains("two commands"), "{err}");
    let main_before = repo.store_head();
    for n in 1..=5 {
        repo.beads(&["close", &format!("{wisp}.{n}")]);
    }
    assert_eq!(
        repo.store_head(),
        main_before,
        "wisp steps close on the wisp ref"
    );
    let p = repo.beads_json(&["mol", "progress", &wisp]);
    assert_eq!(p["status"], "closed", "the last step closed the wisp");

    // Squashed: the summary lands in the shared store, the wisp is gone.
    let summary = repo.beads(&["mol", "squash", &wisp]).trim().to_owned();
    assert_eq!(summary, wisp.replace("-wisp-", "-"));
    let s = repo.bead_json(&summary);
    assert_eq!(s["status"], "closed");
    assert_eq!(s["issue_type"], "molecule");
    assert_eq!(s["extra"]["squashed_from"], wisp.as_str());
    assert!(
        s["description"]
            .as_str()
            .expect("text")
            .contains(&format!("Squashed from wisp {wisp}"))
    );
    let local = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/local/wisps"]);
    assert!(!local.contains(&wisp), "{local}");
    let (code, _, _) = repo.beads_fail_with_stdout(&["mol", "progress", &wisp]);
    assert_eq!(code, 1);

    // Burned: an unfinished wisp simply goes.
    let doomed = repo
        .beads(&["mol", "wisp", "feature", "--var", "feature=nope"])
        .trim()
        .to_owned();
    repo.beads(&["close", &format!("{doomed}.1")]);
    let main_before = repo.store_head();
    let burned = repo.beads_json(&["mol", "burn", &doomed]);
    assert_eq!(burned["steps"], 5);
    assert_eq!(repo.store_head(), main_before);
    let local = repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/local/wisps"]);
    assert!(local.trim().is_empty(), "{local}");
    assert!(
        repo.beads_json(&["mol", "list", "--all"])
            .as_array()
            .expect("molecules")
            .iter()
            .all(|m| m["wisp"].is_null())
    );

    // The summary travels; the wisps never did.
    repo.beads_json(&["sync"]);
    let remote_tree = remote_repo.git(&["ls-tree", "-r", "--name-only", "refs/beads/main"]);
    assert!(remote_tree.contains(&doc_path(&summary)), "{remote_tree}");
    assert!(!remote_tree.contains("wisp"), "{remote_tree}");
    assert!(!remote_repo.git(&["ls-remote", "."]).contains("wisp"));
    repo.assert_fsck_clean();
}
