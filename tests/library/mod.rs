//! Helpers shared by the tests of `ops` as a library (`ops_*.rs`): a real
//! repository in a temp dir (made with git through the harness), a store opened on
//! it in this process, and short ways to name ids and make beads.
#![allow(dead_code)]

use std::path::Path;

use git_beads::model::{Actor, AgentName, Bead, BeadId, Prefix};
use git_beads::ops::{self, NewBead};
use git_beads::store::Store;

use crate::common::{Repo, Sandbox};

/// A temporary repository with a store (prefix `bd`), opened as a library caller
/// opens it, and its person (alice).
pub struct Lib {
    /// Keeps the temp dir alive.
    pub sb: Sandbox,
    /// The repository, for git commands.
    pub repo: Repo,
    /// The store, opened in this process.
    pub store: Store,
    /// The person using it.
    pub me: Actor,
}

impl Lib {
    /// A new repository `work` (alice) with a store made by [`ops::init`].
    pub fn new() -> Lib {
        let sb = Sandbox::new();
        let repo = sb.repo("work", "alice");
        let store = open(&repo.path);
        let me = ops::whoami(&store).expect("alice has a git identity");
        init(&store, &me);
        Lib {
            sb,
            repo,
            store,
            me,
        }
    }

    /// Creates a bead titled `title` as alice; returns it.
    pub fn create(&self, title: &str) -> Bead {
        self.create_as(&self.me, bead(title))
    }

    /// Creates the bead `new` as `actor`; returns it.
    pub fn create_as(&self, actor: &Actor, new: NewBead) -> Bead {
        ops::create(&self.store, actor, new).expect("create")
    }

    /// The bead `id` as `show` reads it.
    pub fn show(&self, id: &BeadId) -> Bead {
        ops::show(&self.store, std::slice::from_ref(id))
            .expect("show")
            .remove(0)
    }

    /// Creates the top-level agent `name` (every capability); returns how it acts.
    pub fn agent(&self, name: &str) -> Actor {
        let new = ops::NewAgent {
            name: Some(agent(name)),
            ..Default::default()
        };
        ops::create_agent(&self.store, &self.me, new).expect("create agent");
        ops::acting(&self.store, Some(&agent(name)), false).expect("act as the agent")
    }
}

/// Variables that would point a store opened in this process at another repository
/// or give it another identity or configuration. Commands the harness runs never see
/// them; a store opened here reads this process's own environment.
const REDIRECTING: [&str; 10] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
];

/// Opens the store of the repository at `path` (the way the binary does), refusing
/// to when this process's environment would redirect it (run from inside a git hook,
/// say, `GIT_DIR` would open the repository of the hook instead).
pub fn open(path: &Path) -> Store {
    let set: Vec<&str> = REDIRECTING
        .into_iter()
        .filter(|v| std::env::var_os(v).is_some())
        .collect();
    assert!(
        set.is_empty(),
        "the ops tests open stores in this process, which reads {set:?}: unset them"
    );
    Store::discover(path).expect("a repository")
}

/// Makes the store (prefix `bd`) in `store`'s repository.
pub fn init(store: &Store, actor: &Actor) {
    let prefix = Prefix::parse("bd").expect("a prefix");
    let (made, created) = ops::init(store, actor, Some(prefix)).expect("init");
    assert_eq!((made.as_str(), created), ("bd", true));
}

/// A new bead titled `title`, everything else as `create` defaults it.
pub fn bead(title: &str) -> NewBead {
    NewBead {
        title: title.to_owned(),
        ..Default::default()
    }
}

/// The agent name `name`.
pub fn agent(name: &str) -> AgentName {
    AgentName::parse(name).expect("an agent name")
}

/// The ids of `beads`, in order.
pub fn ids<'b>(beads: impl IntoIterator<Item = &'b Bead>) -> Vec<BeadId> {
    beads.into_iter().map(|b| b.id.clone()).collect()
}
