//! Load: twenty processes at once on two clones of one bare remote, mixing creates,
//! label changes, comments, claims, mail and syncs for a fixed number of
//! operations. Afterwards everyone syncs, and every acknowledged operation is on
//! both clones exactly once; every claim had exactly one winner.
//!
//! `GIT_BEADS_STRESS=1` runs five times the operations.

use crate::common;
use crate::reliability;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Output;
use std::sync::Barrier;

use common::{Repo, Rng, Sandbox, stdout};
use reliability::{assert_bare_fsck_clean, count, run_limited};
use serde_json::Value;

const WORKERS: usize = 20;
const AGENTS: [&str; 4] = ["ann", "bob", "cy", "dan"];

/// One operation a worker saw succeed.
#[derive(Clone, Debug)]
enum Ack {
    Create {
        id: String,
        title: String,
    },
    Label {
        id: String,
        label: String,
    },
    Comment {
        id: String,
        text: String,
    },
    Claim {
        id: String,
        by: String,
    },
    Mail {
        id: String,
        to: String,
        subject: String,
    },
    Sync,
}

/// A worker's own generator, seeded from the test's (so a run replays from
/// `GIT_BEADS_SEED`).
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// Runs `git beads ARGS` in `repo` as the person `who`.
fn run_as(repo: &Repo, who: &str, args: &[&str]) -> Output {
    let email = format!("{who}@example.com");
    run_limited(
        &mut repo.beads_command(
            &[("GIT_AUTHOR_NAME", who), ("GIT_AUTHOR_EMAIL", &email)],
            args,
        ),
        &format!("{who}: git beads {args:?}"),
    )
}

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(out)
}

/// Every bead of the store, by id.
fn beads_by_id(repo: &Repo) -> BTreeMap<String, Value> {
    repo.all_beads()
        .into_iter()
        .map(|b| (b["id"].as_str().expect("id").to_owned(), b))
        .collect()
}

/// The field the workers play on: a bare remote, clone `a` that made the store
/// (with the agents and the beads below) and clone `b` (bob) that synced it.
struct Field {
    remote: PathBuf,
    a: Repo,
    b: Repo,
    /// Beads claimed only in `a`, and only in `b`.
    pool_a: Vec<String>,
    pool_b: Vec<String>,
    /// Beads both clones label and comment.
    shared: Vec<String>,
    /// How many beads the store had before the workers started.
    setup_beads: usize,
}

fn field(sb: &Sandbox) -> Field {
    let (remote, a) = sb.remote_with_code("a");
    a.init();
    for agent in AGENTS {
        a.beads(&["agent", "create", agent]);
    }
    // Claims contend inside each clone: each clone has its own pool, so that every
    // claim there has exactly one winner. Labels and comments go to shared beads.
    let pool_a: Vec<String> = (0..12)
        .map(|i| a.create(&format!("pool a {i}"), &[]))
        .collect();
    let pool_b: Vec<String> = (0..12)
        .map(|i| a.create(&format!("pool b {i}"), &[]))
        .collect();
    let shared: Vec<String> = (0..8)
        .map(|i| a.create(&format!("shared {i}"), &[]))
        .collect();
    a.beads(&["sync"]);
    let b = sb.synced_clone(&remote, "b", "bob");
    for r in [&a, &b] {
        // Power-cut durability is not what this test is about; fsync would only slow it.
        r.git(&["config", "core.fsync", "none"]);
    }
    let setup_beads = beads_by_id(&a).len();
    Field {
        remote,
        a,
        b,
        pool_a,
        pool_b,
        shared,
        setup_beads,
    }
}

/// What one worker saw: its number, the operations acknowledged, the claims refused
/// and the syncs that gave up.
type Worked = (usize, Vec<Ack>, usize, usize);

/// Worker `w`: `ops_each` operations drawn by `seed`, in `repo`, claiming from
/// `pool`, once `start` lets every worker go.
fn worker(
    w: usize,
    repo: &Repo,
    pool: &[String],
    shared: &[String],
    start: &Barrier,
    seed: u64,
    ops_each: usize,
) -> Worked {
    let mut rng = Seeded(seed.max(1));
    let me = format!("worker{w}");
    let mut known: Vec<String> = shared.to_vec();
    let mut acks = Vec::new();
    let (mut lost_claims, mut gave_up) = (0, 0);
    start.wait();
    for i in 0..ops_each {
        let what = format!("{me} op {i}");
        match rng.below(100) {
            0..30 => {
                let title = format!("{me} bead {i}");
                let id = ok(&run_as(repo, &me, &["create", &title]), &what);
                known.push(id.clone());
                acks.push(Ack::Create { id, title });
            }
            30..48 => {
                let id = known[rng.below(known.len() as u64) as usize].clone();
                let label = format!("w{w}-{i}");
                ok(
                    &run_as(repo, &me, &["update", &id, "--add-label", &label]),
                    &what,
                );
                acks.push(Ack::Label { id, label });
            }
            48..60 => {
                let id = known[rng.below(known.len() as u64) as usize].clone();
                let text = format!("{me} says {i}");
                ok(&run_as(repo, &me, &["comment", &id, &text]), &what);
                acks.push(Ack::Comment { id, text });
            }
            60..75 => {
                let id = pool[rng.below(pool.len() as u64) as usize].clone();
                let out = run_as(repo, &me, &["update", &id, "--claim"]);
                if out.status.success() {
                    acks.push(Ack::Claim { id, by: me.clone() });
                } else {
                    // Only ever refused because someone else holds it.
                    let err = String::from_utf8_lossy(&out.stderr);
                    assert_eq!(out.status.code(), Some(3), "{what}: {err}");
                    assert!(err.contains("already claimed"), "{what}: {err}");
                    lost_claims += 1;
                }
            }
            75..90 => {
                let from = AGENTS[rng.below(4) as usize];
                let to = AGENTS[rng.below(4) as usize];
                let subject = format!("{me} mail {i}");
                let id = ok(
                    &run_as(
                        repo,
                        &me,
                        &["--as", from, "mail", "send", to, "-s", &subject],
                    ),
                    &what,
                );
                acks.push(Ack::Mail {
                    id,
                    to: to.to_owned(),
                    subject,
                });
            }
            _ => {
                let out = run_as(repo, &me, &["sync"]);
                if out.status.success() {
                    acks.push(Ack::Sync);
                } else {
                    // The one documented way a sync under load may end
                    // early: the remote kept moving; nothing is lost,
                    // the next sync goes on from the merges made.
                    let err = String::from_utf8_lossy(&out.stderr);
                    assert_eq!(out.status.code(), Some(3), "{what}: {err}");
                    assert!(err.contains("kept moving"), "{what}: {err}");
                    gave_up += 1;
                }
            }
        }
    }
    (w, acks, lost_claims, gave_up)
}

/// Runs the workers at once, even ones in `a`, odd ones in `b`.
fn work(f: &Field, seeds: &[u64], ops_each: usize) -> Vec<Worked> {
    let start = Barrier::new(WORKERS);
    common::on_threads(0..WORKERS, |w| {
        let (repo, pool) = if w % 2 == 0 {
            (&f.a, &f.pool_a)
        } else {
            (&f.b, &f.pool_b)
        };
        worker(w, repo, pool, &f.shared, &start, seeds[w], ops_each)
    })
}

/// How many of `all` `f` picks.
fn how_many(all: &[&Ack], f: fn(&Ack) -> bool) -> usize {
    all.iter().filter(|x| f(x)).count()
}

/// Says what the workers did.
fn report(acks: &[Worked], all: &[&Ack]) {
    let kinds = |f| how_many(all, f);
    let lost_claims: usize = acks.iter().map(|(_, _, l, _)| l).sum();
    let gave_up: usize = acks.iter().map(|(_, _, _, g)| g).sum();
    eprintln!(
        "{WORKERS} processes, {} operations acknowledged: {} creates, {} labels, {} comments, \
         {} claims won ({} beads, {lost_claims} refused as already claimed), {} mails, {} syncs ({gave_up} gave up as the remote kept moving)",
        all.len(),
        kinds(|x| matches!(x, Ack::Create { .. })),
        kinds(|x| matches!(x, Ack::Label { .. })),
        kinds(|x| matches!(x, Ack::Comment { .. })),
        kinds(|x| matches!(x, Ack::Claim { .. })),
        all.iter()
            .filter_map(|x| match x {
                Ack::Claim { id, .. } => Some(id),
                _ => None,
            })
            .collect::<BTreeSet<_>>()
            .len(),
        kinds(|x| matches!(x, Ack::Mail { .. })),
        kinds(|x| matches!(x, Ack::Sync)),
    );
}

/// Everyone syncs until both clones and the remote agree.
fn converge(a: &Repo, b: &Repo) {
    for round in 0.. {
        for r in [a, b] {
            ok(&run_as(r, &r.user, &["sync"]), "final sync");
        }
        let remote_head = a.git(&["ls-remote", "origin", "refs/beads/main"]);
        if a.store_head() == b.store_head()
            && remote_head.split('\t').next() == Some(a.store_head().as_str())
        {
            break;
        }
        assert!(round < 3, "the clones do not converge");
    }
    assert_eq!(a.store_tree(), b.store_tree(), "byte-identical stores");
}

/// Exactly-once claims: every bead was won by one claimer (who may claim it again:
/// claiming what one already holds succeeds and changes nothing).
fn assert_claims_had_one_winner(all: &[&Ack]) {
    let mut winners: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for ack in all {
        if let Ack::Claim { id, by } = ack {
            winners.entry(id).or_default().insert(by);
        }
    }
    for (id, by) in &winners {
        assert_eq!(by.len(), 1, "{id} was claimed by {by:?}");
    }
}

/// Every acknowledged create, label and claim is in clone `r`'s store, each create
/// exactly once.
fn assert_beads_kept(r: &Repo, all: &[&Ack], setup_beads: usize) {
    let where_ = r.path.display().to_string();
    let stored = beads_by_id(r);
    let creates = how_many(all, |x| matches!(x, Ack::Create { .. }));
    assert_eq!(
        stored.len(),
        setup_beads + creates,
        "{where_}: every create exactly once"
    );
    for ack in all {
        match ack {
            Ack::Create { id, title } => {
                let b = stored
                    .get(id)
                    .unwrap_or_else(|| panic!("{where_}: {id} lost"));
                assert_eq!(b["title"], title.as_str());
            }
            Ack::Label { id, label } => {
                let labels = &stored[id]["labels"];
                assert!(
                    labels
                        .as_array()
                        .expect("labels")
                        .iter()
                        .any(|l| l == label.as_str()),
                    "{where_}: label {label} of {id} lost: {labels}"
                );
            }
            Ack::Claim { id, by } => {
                assert_eq!(
                    stored[id]["assignee"],
                    by.as_str(),
                    "{where_}: claim of {id}"
                );
                assert_eq!(stored[id]["status"], "in_progress");
            }
            Ack::Comment { .. } | Ack::Mail { .. } | Ack::Sync => {}
        }
    }
}

/// Comments: each exactly once in clone `r`.
fn assert_comments_once(r: &Repo, all: &[&Ack]) {
    let where_ = r.path.display().to_string();
    let mut comments: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for ack in all {
        if let Ack::Comment { id, text } = ack {
            comments.entry(id).or_default().push(text);
        }
    }
    let ids: Vec<&str> = comments.keys().copied().collect();
    let mut args = vec!["show"];
    args.extend(&ids);
    let shown = r.beads_json(&args);
    for bead in shown.as_array().expect("beads") {
        let id = bead["id"].as_str().expect("id");
        let have: Vec<&str> = bead["comments"]
            .as_array()
            .expect("comments")
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect();
        for text in &comments[id] {
            let n = have.iter().filter(|t| *t == text).count();
            assert_eq!(
                n, 1,
                "{where_}: comment {text:?} on {id} is there {n} times"
            );
        }
    }
}

/// Mail: every message in its recipient's inbox in clone `r`, exactly once.
fn assert_mail_delivered_once(r: &Repo, all: &[&Ack]) {
    let where_ = r.path.display().to_string();
    for agent in AGENTS {
        let inbox = r.beads_json(&["--as", agent, "mail", "inbox"]);
        let have: Vec<(String, String)> = inbox["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().expect("id").to_owned(),
                    m["subject"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        let want: BTreeSet<(String, String)> = all
            .iter()
            .filter_map(|x| match x {
                Ack::Mail { id, to, subject } if to == agent => Some((id.clone(), subject.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            have.iter().cloned().collect::<BTreeSet<_>>(),
            want,
            "{where_}: inbox of {agent}"
        );
        assert_eq!(have.len(), want.len(), "{where_}: a message twice");
    }
}

#[test]
fn twenty_processes_mixing_every_kind_of_write_lose_nothing() {
    let ops_each = count(10, 50);
    let mut master = Rng::new("twenty_processes_mixing_every_kind_of_write_lose_nothing");
    let sb = Sandbox::new();
    let f = field(&sb);
    let seeds: Vec<u64> = (0..WORKERS).map(|_| master.below(u64::MAX)).collect();
    let acks = work(&f, &seeds, ops_each);
    converge(&f.a, &f.b);
    let all: Vec<&Ack> = acks.iter().flat_map(|(_, v, _, _)| v).collect();
    report(&acks, &all);
    assert_claims_had_one_winner(&all);
    for r in [&f.a, &f.b] {
        assert_beads_kept(r, &all, f.setup_beads);
        assert_comments_once(r, &all);
        assert_mail_delivered_once(r, &all);
        r.assert_fsck_clean();
        let doctor = reliability::beads(r, &["--json", "doctor"]);
        assert!(doctor.status.success(), "{doctor:?}");
    }
    assert_bare_fsck_clean(&f.a, &f.remote);
}
