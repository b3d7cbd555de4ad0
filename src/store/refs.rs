//! Every ref name and path inside the store's tree, in one place.

/// The shared, pushed store: a commit chain whose trees hold one YAML document per entity.
pub const MAIN: &str = "refs/beads/main";

/// Wisps: molecules kept on this machine only. Sync never pushes this ref.
pub const WISPS: &str = "refs/beads/local/wisps";

/// The document at the root of the store's tree that records its format and prefix.
pub const META_PATH: &str = "meta.yaml";

/// The directory in the store's tree that holds the beads.
pub const BEADS_DIR: &str = "beads";

/// The path of a bead's document inside the store's tree.
pub fn bead_path(id: &crate::model::BeadId) -> String {
    format!("{BEADS_DIR}/{}/{}.yaml", id.fanout(), id)
}

/// The bead id a document path names, if it is a bead path.
pub fn bead_id_of_path(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(BEADS_DIR)?.strip_prefix('/')?;
    let (_, file) = rest.split_once('/')?;
    file.strip_suffix(".yaml")
}

/// The directory in the store's tree that holds the agents.
pub const AGENTS_DIR: &str = "agents";

/// The directory in the store's tree that holds the sessions.
pub const SESSIONS_DIR: &str = "sessions";

/// The per-worktree file naming the agent and session bound to a worktree.
pub const WORKTREE_BINDING: &str = "worktree.yaml";

/// The path of an agent's document (`agents/myrig/polecats/nux.yaml`).
pub fn agent_path(name: &crate::model::AgentName) -> String {
    format!("{AGENTS_DIR}/{name}.yaml")
}

/// The agent name a document path names, if it is an agent path.
pub fn agent_name_of_path(path: &str) -> Option<&str> {
    path.strip_prefix(AGENTS_DIR)?
        .strip_prefix('/')?
        .strip_suffix(".yaml")
}

/// The path of a session's document (`sessions/ab/ses-ab12.yaml`).
pub fn session_path(id: &crate::model::BeadId) -> String {
    format!("{SESSIONS_DIR}/{}/{}.yaml", id.fanout(), id)
}
