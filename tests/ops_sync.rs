//! `ops` as a library, for sync: two clones of a bare remote, each with a store
//! opened in this process, exchange beads and merge a bead both changed.

use crate::common;
use crate::library;

use git_beads::model::{Actor, BeadId};
use git_beads::ops::{self, Changes, Outcome, SyncMode, SyncOptions, SyncReport};
use git_beads::store::Store;
use library::{bead, open};

use common::Sandbox;

/// One clone of the remote: its store and its person.
struct Peer {
    store: Store,
    me: Actor,
}

impl Peer {
    /// Syncs (or pulls, or pushes) with `origin`, quietly.
    fn try_sync(&self, mode: SyncMode) -> ops::Result<SyncReport> {
        let opts = SyncOptions {
            remote: None,
            mode,
            talk: false,
        };
        ops::sync(&self.store, &self.me, &opts, &mut |_| {})
    }

    /// [`Peer::try_sync`], which must succeed.
    fn sync(&self, mode: SyncMode) -> SyncReport {
        self.try_sync(mode).expect("sync")
    }

    /// The title of bead `id` here.
    fn title(&self, id: &BeadId) -> String {
        ops::show(&self.store, std::slice::from_ref(id))
            .expect("show")
            .remove(0)
            .title
    }
}

/// A bare remote with code on `main`; `c1` (alice) made the store and pushed it,
/// `c2` (bob) is a fresh clone without one.
fn two_clones(sb: &Sandbox) -> (Peer, Peer) {
    let (remote, first) = sb.remote_with_code("c1");
    let store = open(&first.path);
    let me = ops::whoami(&store).expect("alice");
    library::init(&store, &me);
    let c1 = Peer { store, me };
    let report = c1.sync(SyncMode::Sync);
    assert!(report.pushed, "{report:?}");
    let second = sb.clone(&remote, "c2", "bob");
    let store = open(&second.path);
    let me = ops::whoami(&store).expect("bob");
    (c1, Peer { store, me })
}

#[test]
fn a_fresh_clone_adopts_the_remote_store() {
    let sb = Sandbox::new();
    let (c1, c2) = two_clones(&sb);
    let b = ops::create(&c1.store, &c1.me, bead("From alice")).expect("create");
    c1.sync(SyncMode::Sync);
    let report = c2.sync(SyncMode::Sync);
    assert_eq!(report.outcome, Outcome::Adopted, "{report:?}");
    assert_eq!(c2.title(&b.id), "From alice");
}

#[test]
fn pull_brings_beads_in_and_push_sends_them_out() {
    let sb = Sandbox::new();
    let (c1, c2) = two_clones(&sb);
    c2.sync(SyncMode::Sync);
    let from_bob = ops::create(&c2.store, &c2.me, bead("From bob")).expect("create");
    let pushed = c2.sync(SyncMode::Push);
    assert!(pushed.pushed, "{pushed:?}");
    let pulled = c1.sync(SyncMode::Pull);
    assert_eq!(pulled.outcome, Outcome::FastForward, "{pulled:?}");
    assert!(!pulled.pushed);
    assert_eq!(c1.title(&from_bob.id), "From bob");
}

#[test]
fn a_push_that_would_overwrite_the_remote_is_refused() {
    let sb = Sandbox::new();
    let (c1, c2) = two_clones(&sb);
    c2.sync(SyncMode::Sync);
    ops::create(&c1.store, &c1.me, bead("From alice")).expect("create");
    c1.sync(SyncMode::Sync);
    ops::create(&c2.store, &c2.me, bead("From bob")).expect("create");
    assert!(c2.try_sync(SyncMode::Push).is_err());
}

#[test]
fn both_sides_changing_a_bead_merge_and_keep_the_losing_value() {
    let sb = Sandbox::new();
    let (c1, c2) = two_clones(&sb);
    let b = ops::create(&c1.store, &c1.me, bead("Shared")).expect("create");
    c1.sync(SyncMode::Sync);
    c2.sync(SyncMode::Sync);
    let retitle = |c: &Peer, title: &str| {
        let changes = Changes {
            title: Some(title.into()),
            ..Default::default()
        };
        ops::update(&c.store, &c.me, std::slice::from_ref(&b.id), changes).expect("update");
    };
    retitle(&c1, "alice's title");
    ops::add_label(&c1.store, &c1.me, &b.id, "from-alice").expect("label");
    c1.sync(SyncMode::Sync);
    retitle(&c2, "bob's title");
    ops::add_label(&c2.store, &c2.me, &b.id, "from-bob").expect("label");
    let merged = c2.sync(SyncMode::Sync);
    assert_eq!(merged.outcome, Outcome::Merged, "{merged:?}");
    assert_eq!(merged.conflicts, 1, "{merged:?}");
    assert!(merged.pushed);
    c1.sync(SyncMode::Sync);

    let (one, two) = (c1.title(&b.id), c2.title(&b.id));
    assert_eq!(one, two, "both clones agree");
    let shown = ops::show(&c1.store, std::slice::from_ref(&b.id))
        .expect("show")
        .remove(0);
    assert_eq!(
        Vec::from_iter(shown.labels.iter().map(String::as_str)),
        ["from-alice", "from-bob"],
        "labels merge as sets"
    );
    assert_eq!(shown.conflicts.len(), 1, "the losing title is kept");
}
