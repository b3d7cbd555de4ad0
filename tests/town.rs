//! A town of three rigs, laid out as Gas Town lays one out (its `internal/rig` and
//! `internal/beads`): a town root that is a repository with the town's own store
//! (`hq-`), `mayor/town.json` and `.beads/routes.jsonl`; each rig a directory that is
//! no repository, whose `.beads/redirect` names `mayor/rig/.beads`, the rig's clone
//! holding its store; a crew clone whose `.beads/redirect` names that same store. A
//! bead of each rig is read and changed from the town root and from other rigs, with
//! `BEADS_DIR` set and unset, and each change is one commit on the right repository's
//! `refs/beads/main`, and on no other.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Repo, Sandbox, write_file};
use serde_json::Value;

/// The rigs: name, prefix, and the path its route names (Gas Town routes to
/// `<rig>/mayor/rig` where that clone has a `.beads`, else to the rig's directory).
const RIGS: [(&str, &str, &str); 3] = [
    ("alpha", "ga", "alpha/mayor/rig"),
    ("beta", "gb", "beta"),
    ("gamma", "gc", "gamma/mayor/rig"),
];

/// A town built once per test.
struct Town {
    sb: Sandbox,
    root: PathBuf,
    /// The repositories holding a store: the town's, then each rig's.
    stores: Vec<PathBuf>,
}

impl Town {
    fn new() -> Town {
        let sb = Sandbox::new();
        // `gt install --git`: the town root is a repository, with the town's store.
        let hq = sb.repo("town", "mayor");
        hq.beads(&["init", "--prefix", "hq"]);
        let root = hq.path.clone();
        write_file(
            &root.join("mayor/town.json"),
            "{\"type\":\"town\",\"version\":2,\"name\":\"town\"}\n",
        );
        let mut routes = String::from(
            "{\"prefix\":\"hq-\",\"path\":\".\"}\n{\"prefix\":\"hq-cv-\",\"path\":\".\"}\n",
        );
        let mut stores = vec![root.clone()];
        for (rig, prefix, route) in RIGS {
            let clone = sb.repo(&format!("town/{rig}/mayor/rig"), "mayor");
            clone.beads(&["init", "--prefix", prefix]);
            write_file(
                &root.join(rig).join(".beads/redirect"),
                "mayor/rig/.beads\n",
            );
            routes.push_str(&format!(
                "{{\"prefix\":\"{prefix}-\",\"path\":\"{route}\"}}\n"
            ));
            stores.push(clone.path);
        }
        write_file(&root.join(".beads/routes.jsonl"), &routes);
        // A crew member's clone of beta, sharing the rig's store by its redirect.
        let crew = sb.clone(&stores[2], "town/beta/crew/max", "max");
        write_file(
            &crew.path.join(".beads/redirect"),
            "../../mayor/rig/.beads\n",
        );
        Town { sb, root, stores }
    }

    /// `git beads ARGS` run in `cwd` (from the town root) with `BEADS_DIR` as given,
    /// acting as Gas Town's mayor.
    fn at(&self, cwd: &str, beads_dir: Option<&str>) -> Repo {
        let repo = Repo::at(&self.sb, &self.root.join(cwd), "mayor").with_env("BD_ACTOR", "mayor");
        match beads_dir {
            Some(dir) => repo.with_env("BEADS_DIR", self.root.join(dir)),
            None => repo,
        }
    }

    /// Each store's `refs/beads/main`, by plain git in its repository.
    fn heads(&self) -> Vec<String> {
        (self.stores.iter())
            .map(|repo| head_of(&self.sb, repo))
            .collect()
    }

    /// Asserts that the store `which` (0: the town's, then the rigs') moved by one
    /// commit since `before`, and no other store moved.
    fn assert_lands(&self, before: &[String], which: usize, what: &str) {
        let after = self.heads();
        for (k, repo) in self.stores.iter().enumerate() {
            if k != which {
                assert_eq!(
                    after[k],
                    before[k],
                    "{what}: {} must not move",
                    repo.display()
                );
                continue;
            }
            let count = self.sb.git(
                repo,
                &[
                    "rev-list",
                    "--count",
                    &format!("{}..{}", before[k], after[k]),
                ],
            );
            assert_eq!(
                count.trim(),
                "1",
                "{what}: one commit on {}",
                repo.display()
            );
        }
    }
}

fn head_of(sb: &Sandbox, repo: &Path) -> String {
    sb.git(repo, &["rev-parse", "-q", "--verify", "refs/beads/main"])
        .trim()
        .to_owned()
}

/// The one bead `show --json` prints.
fn shown(repo: &Repo, id: &str) -> Value {
    let v = repo.beads_json(&["show", id]);
    v[0].clone()
}

#[test]
fn a_bead_of_each_rig_is_read_and_changed_from_anywhere_in_the_town() {
    let town = Town::new();
    // A bead in each store, made where it lives: the town root, and each rig's
    // directory (no repository: its redirect names the rig's store).
    let places = ["", "alpha", "beta", "gamma"];
    let ids: Vec<String> = (places.iter().enumerate())
        .map(|(k, place)| {
            let before = town.heads();
            let id = town.at(place, None).create(&format!("work of {}", k), &[]);
            town.assert_lands(&before, k, &format!("create in {place:?}"));
            id
        })
        .collect();
    for (id, prefix) in ids.iter().zip(["hq-", "ga-", "gb-", "gc-"]) {
        assert!(
            id.starts_with(prefix),
            "{id} has its store's prefix {prefix}"
        );
    }
    // Where commands run from: the town root, a rig's directory, a crew clone, and
    // with BEADS_DIR naming the town's `.beads` or a rig's (which redirects).
    let positions = [
        ("", None),
        ("", Some(".beads")),
        ("alpha", None),
        ("alpha", Some("gamma/.beads")),
        ("beta/crew/max", None),
        ("gamma/mayor/rig", Some("beta/.beads")),
    ];
    for (cwd, env) in positions {
        let repo = town.at(cwd, env);
        for (k, id) in ids.iter().enumerate() {
            let before = town.heads();
            let bead = shown(&repo, id);
            assert_eq!(
                bead["title"],
                format!("work of {k}"),
                "{id} from {cwd:?} {env:?}"
            );
            assert_eq!(town.heads(), before, "reading writes nothing");
        }
    }
    // Changes: (where, BEADS_DIR, the command, the store it lands in).
    let changes: [(&str, Option<&str>, Vec<&str>, usize); 11] = [
        ("alpha", None, vec!["assign", &ids[2], "ace"], 2),
        ("", Some(".beads"), vec!["priority", &ids[1], "3"], 1),
        (
            "",
            None,
            vec!["update", &ids[2], "--status", "in_progress"],
            2,
        ),
        (
            "",
            Some(".beads"),
            vec!["update", &ids[3], "--assignee", "nux"],
            3,
        ),
        ("", None, vec!["dep", "add", &ids[1], &ids[2]], 1),
        ("alpha", None, vec!["update", &ids[0], "--priority", "1"], 0),
        (
            "alpha",
            Some("gamma/.beads"),
            vec!["close", &ids[1], "--reason", "done"],
            1,
        ),
        (
            "beta/crew/max",
            None,
            vec!["dep", "add", &ids[3], &ids[0]],
            3,
        ),
        ("beta/crew/max", None, vec!["close", &ids[3]], 3),
        (
            "gamma/mayor/rig",
            Some("beta/.beads"),
            vec!["update", &ids[1], "--add-label", "x"],
            1,
        ),
        ("gamma/mayor/rig", None, vec!["close", &ids[0]], 0),
    ];
    for (cwd, env, args, lands) in &changes {
        let before = town.heads();
        town.at(cwd, *env).beads(args);
        town.assert_lands(&before, *lands, &format!("{args:?} from {cwd:?} {env:?}"));
    }
    // Each change is there, read from the rig's own clone.
    let own = |k: usize, id: &str| shown(&Repo::at(&town.sb, &town.stores[k], "mayor"), id);
    assert_eq!(own(2, &ids[2])["status"], "in_progress");
    assert_eq!(own(2, &ids[2])["assignee"], "ace");
    assert_eq!(own(1, &ids[1])["priority"], 3);
    assert_eq!(own(3, &ids[3])["assignee"], "nux");
    assert_eq!(own(3, &ids[3])["status"], "closed");
    assert_eq!(own(0, &ids[0])["priority"], 1);
    assert_eq!(own(0, &ids[0])["status"], "closed");
    assert_eq!(own(1, &ids[1])["status"], "closed");
    assert_eq!(common::labels(&own(1, &ids[1])), ["x"]);
    let deps = |k: usize, id: &str| common::dep_pairs(&own(k, id));
    let blocks = |id: &str| vec![(id.to_owned(), "blocks".to_owned())];
    assert_eq!(
        deps(1, &ids[1]),
        blocks(&ids[2]),
        "a dependency across rigs"
    );
    assert_eq!(deps(3, &ids[3]), blocks(&ids[0]));
    for repo in &town.stores {
        Repo::at(&town.sb, repo, "mayor").assert_fsck_clean();
    }
}

#[test]
fn an_id_no_route_knows_is_not_found_and_nothing_moves() {
    let town = Town::new();
    let before = town.heads();
    let (code, err) = town
        .at("alpha", None)
        .beads_fail(&["update", "zz-abc", "--status", "closed"]);
    assert_ne!(code, 0);
    assert!(err.contains("zz-abc"), "{err}");
    let (_, err) = town
        .at("", None)
        .beads_fail(&["dep", "add", "hq-nope", "ga-nope"]);
    assert!(err.contains("hq-nope"), "{err}");
    assert_eq!(town.heads(), before);
}

#[test]
fn list_shows_infrastructure_wisps_and_gates_only_when_asked_as_bd_does() {
    let (_sb, repo) = Sandbox::with_store();
    let task = repo.create("work", &[]);
    let agent = repo.create("an agent", &["--type", "agent"]);
    let gate = repo.create("a gate", &["--type", "gate"]);
    let wisp = repo.create("a wisp", &["--ephemeral"]);
    let mail = repo.create("a message wisp", &["--ephemeral", "--type", "message"]);
    let listed = |args: &[&str]| {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        let mut ids = common::ids(&repo.beads_json(&all));
        ids.sort();
        ids
    };
    let sorted = |mut ids: Vec<&String>| {
        ids.sort();
        ids.into_iter().cloned().collect::<Vec<_>>()
    };
    assert_eq!(
        listed(&[]),
        [task.as_str()],
        "plain list: no infra, wisp or gate"
    );
    assert_eq!(
        listed(&["--include-infra"]),
        sorted(vec![&task, &agent, &wisp, &mail])
    );
    assert_eq!(listed(&["--include-gates"]), sorted(vec![&task, &gate]));
    assert_eq!(listed(&["--type", "agent"]), [agent.as_str()]);
    assert_eq!(
        listed(&["--type", "message"]),
        [mail.as_str()],
        "a wisp of that type"
    );
    assert_eq!(listed(&["--type", "gate"]), [gate.as_str()]);
    // bd's JSON marks the wisps, and only them.
    let v = repo.beads_json(&["list", "--include-infra", "--include-gates"]);
    for bead in common::items(&v) {
        let id = bead["id"].as_str().unwrap_or_default();
        let wisp_here = id == wisp || id == mail;
        assert_eq!(
            bead.get("ephemeral") == Some(&Value::Bool(true)),
            wisp_here,
            "{bead}"
        );
    }
    assert_eq!(common::items(&v).len(), 5);
    let ids = repo.beads(&["list", "--include-infra", "--format", "id", "-n", "0"]);
    assert_eq!(ids.lines().count(), 4, "{ids}");
}
