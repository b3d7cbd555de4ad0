//! Property test: random operations on several clones of one remote, with random
//! syncs between them, always converge once everyone has synced, and nothing is
//! lost: every bead, comment, added label and description line is there (a line
//! may be in `conflicts:`), every removed label is gone, and every title written is
//! the title, in `conflicts:`, or was overwritten by someone who had seen it.
//!
//! The default case count keeps the test well under a minute; set
//! `GIT_BEADS_STRESS=1` for a long run (or `GIT_BEADS_STRESS=<cases>`).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Repo, Sandbox, conflict_values, converge, labels};
use proptest::prelude::*;
use serde_json::Value;

const CLONES: usize = 3;

fn cases() -> u32 {
    match std::env::var("GIT_BEADS_STRESS") {
        Ok(v) => v.parse().ok().filter(|n| *n > 1).unwrap_or(64),
        Err(_) => 6,
    }
}

#[derive(Clone, Debug)]
enum Op {
    Create,
    Title,
    Priority(u8),
    AddLabel,
    RemoveLabel,
    Comment,
    Describe,
    Close,
    Reopen,
    Delete,
}

#[derive(Clone, Debug)]
enum Step {
    /// Clone `.0` does `.2` to the bead it knows at index `.1` (modulo).
    Do(usize, usize, Op),
    /// Clone `.0` syncs.
    Sync(usize),
}

fn step() -> impl Strategy<Value = Step> {
    let op = prop_oneof![
        2 => Just(Op::Create),
        3 => Just(Op::Title),
        2 => (0u8..5).prop_map(Op::Priority),
        3 => Just(Op::AddLabel),
        1 => Just(Op::RemoveLabel),
        3 => Just(Op::Comment),
        3 => Just(Op::Describe),
        1 => Just(Op::Close),
        1 => Just(Op::Reopen),
        1 => Just(Op::Delete),
    ];
    prop_oneof![
        3 => (0..CLONES, any::<usize>(), op).prop_map(|(c, t, o)| Step::Do(c, t, o)),
        1 => (0..CLONES).prop_map(Step::Sync),
    ]
}

/// What every clone did, to check the converged state against.
#[derive(Default)]
struct Model {
    seq: usize,
    known: Vec<Vec<String>>,
    created: Vec<String>,
    titles: Vec<(String, String)>,
    superseded: BTreeSet<(String, String)>,
    labels: Vec<(String, String)>,
    own_labels: Vec<Vec<(String, String)>>,
    removed: BTreeSet<(String, String)>,
    comments: Vec<(String, String)>,
    lines: Vec<(String, String)>,
}

impl Model {
    fn next(&mut self, what: &str) -> String {
        self.seq += 1;
        format!("{what}{}", self.seq)
    }
}

/// Runs `git beads ARGS`; a change refused because the bead is deleted is fine
/// (returns false), any other failure is not.
fn change(r: &Repo, args: &[&str]) -> bool {
    let out = r.beads_output(args);
    if out.status.success() {
        return true;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is deleted"), "git beads {args:?}: {err}");
    false
}

/// Creates a bead with a new title in clone `c` (`create` flags `extra`) and notes
/// it and its title in the model; returns its id.
fn create(c: &Repo, m: &mut Model, extra: &[&str]) -> String {
    let title = m.next("t");
    let id = c.create(&title, extra);
    m.created.push(id.clone());
    m.titles.push((id.clone(), title));
    id
}

/// Syncs clone `k` and notes the beads it knows now.
fn sync(clones: &[Repo], k: usize, m: &mut Model) {
    clones[k].sync();
    m.known[k] = clones[k].listed("id");
}

/// One case: seeds the store with two beads that every clone syncs, runs `steps`,
/// lets everyone converge and checks that nothing was lost.
fn run(steps: &[Step]) -> Result<(), TestCaseError> {
    let sb = Sandbox::new();
    let remote = sb.bare("remote.git");
    let users = ["alice", "bob", "carol", "dave", "erin"];
    let clones: Vec<Repo> = (0..CLONES)
        .map(|i| sb.clone(&remote, &format!("c{i}"), users[i % users.len()]))
        .collect();
    let mut m = Model {
        known: vec![Vec::new(); CLONES],
        own_labels: vec![Vec::new(); CLONES],
        ..Model::default()
    };
    clones[0].init();
    for _ in 0..2 {
        create(&clones[0], &mut m, &["-d", "first line\n"]);
    }
    clones[0].sync();
    for k in 0..clones.len() {
        sync(&clones, k, &mut m);
    }

    for s in steps {
        match s {
            Step::Sync(k) => sync(&clones, *k, &mut m),
            Step::Do(k, t, op) => apply(&clones[*k], *k, *t, op, &mut m),
        }
    }

    // Everyone syncs, twice round: then everyone has everything.
    converge(&clones.iter().collect::<Vec<_>>());
    check_nothing_lost(&clones, &m)
}

/// Clone `c` (number `k`) does `op` to the bead it knows at index `t` (modulo), and
/// the model notes what it did.
fn apply(c: &Repo, k: usize, t: usize, op: &Op, m: &mut Model) {
    let id = m.known[k][t % m.known[k].len()].clone();
    match op {
        Op::Create => {
            let new = create(c, m, &[]);
            m.known[k].push(new);
        }
        Op::Title => {
            let old = c.bead_json(&id)["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let title = m.next("t");
            if change(c, &["update", &id, "--title", &title]) {
                m.superseded.insert((id.clone(), old));
                m.titles.push((id, title));
            }
        }
        Op::Priority(p) => {
            change(c, &["update", &id, "-p", &p.to_string()]);
        }
        Op::AddLabel => {
            let label = m.next("l");
            if change(c, &["label", "add", &id, &label]) {
                m.labels.push((id.clone(), label.clone()));
                m.own_labels[k].push((id, label));
            }
        }
        Op::RemoveLabel => {
            if !m.own_labels[k].is_empty() {
                let i = t % m.own_labels[k].len();
                let (id, label) = m.own_labels[k][i].clone();
                if change(c, &["label", "remove", &id, &label]) {
                    m.own_labels[k].remove(i);
                    m.removed.insert((id, label));
                }
            }
        }
        Op::Comment => {
            let text = m.next("comment ");
            if change(c, &["comment", &id, &text]) {
                m.comments.push((id, text));
            }
        }
        Op::Describe => {
            let mut d = c.bead_json(&id)["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let line = m.next("line ");
            d.push_str(&line);
            d.push('\n');
            if change(c, &["update", &id, "-d", &d]) {
                m.lines.push((id, line));
            }
        }
        Op::Close => {
            change(c, &["close", &id]);
        }
        Op::Reopen => {
            change(c, &["reopen", &id]);
        }
        Op::Delete => {
            change(c, &["delete", &id, "--force"]);
        }
    }
}

/// Checks the converged clones against the model: every bead, title, label,
/// comment and description line is there (or in `conflicts:`, or overwritten by
/// someone who had seen it), and every removed label is gone.
fn check_nothing_lost(clones: &[Repo], m: &Model) -> Result<(), TestCaseError> {
    let final_ids: BTreeSet<String> = clones[0].listed("id").into_iter().collect();
    let mut beads: BTreeMap<String, Value> = BTreeMap::new();
    for id in &m.created {
        prop_assert!(final_ids.contains(id), "bead {} lost", id);
        beads.insert(id.clone(), clones[1].bead_json(id));
    }
    prop_assert_eq!(final_ids.len(), m.created.len());
    for (id, title) in &m.titles {
        let b = &beads[id];
        prop_assert!(
            b["title"] == title.as_str()
                || conflict_values(b, "title").contains(&Value::from(title.as_str()))
                || m.superseded.contains(&(id.clone(), title.clone())),
            "title {} of {} lost: {}",
            title,
            id,
            b
        );
    }
    for (id, label) in &m.labels {
        let has = labels(&beads[id]).contains(label);
        if m.removed.contains(&(id.clone(), label.clone())) {
            prop_assert!(!has, "removed label {} of {} came back", label, id);
        } else {
            prop_assert!(has, "label {} of {} lost", label, id);
        }
    }
    for (id, text) in &m.comments {
        let b = &beads[id];
        let found = b["comments"]
            .as_array()
            .is_some_and(|cs| cs.iter().any(|c| c["text"] == text.as_str()));
        prop_assert!(found, "comment {:?} of {} lost", text, id);
    }
    for (id, line) in &m.lines {
        let b = &beads[id];
        let in_text = |t: &str| t.lines().any(|l| l == line);
        prop_assert!(
            in_text(b["description"].as_str().unwrap_or_default())
                || conflict_values(b, "description")
                    .iter()
                    .filter_map(Value::as_str)
                    .any(in_text),
            "line {:?} of {} lost: {}",
            line,
            id,
            b
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 16,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_operations_on_clones_converge_without_loss(steps in prop::collection::vec(step(), 8..28)) {
        run(&steps)?;
    }
}
