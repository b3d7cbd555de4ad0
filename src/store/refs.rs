//! Every ref name and path inside the store's tree, in one place.

/// The full name of one of git-beads' own refs ([`MAIN`], [`WISPS`], [`NOTES`]): the
/// only refs a transaction moves or a view reads, so that no other name can be passed
/// where one of them is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefName(&'static str);

impl RefName {
    /// The full name (`refs/beads/main`).
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for RefName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl serde::Serialize for RefName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// The shared, pushed store: a commit chain whose trees hold one YAML document per entity.
pub const MAIN: RefName = RefName("refs/beads/main");

/// Wisps: molecules kept on this machine only. Sync never pushes this ref.
pub const WISPS: RefName = RefName("refs/beads/local/wisps");

/// The document at the root of the store's tree that records its format and prefix.
pub const META_PATH: &str = "meta.yaml";

/// Where the project's settings (`config set`) are kept in the tree.
pub const CONFIG_PATH: &str = "config.yaml";

/// git's file of packed refs, in the common git dir; its lock guards every ref.
pub(crate) const PACKED_REFS: &str = "packed-refs";

/// The directory in the store's tree that holds the beads.
pub const BEADS_DIR: &str = "beads";

/// The path of a bead's document inside the store's tree.
pub fn bead_path(id: &crate::model::BeadId) -> String {
    format!("{BEADS_DIR}/{}/{}.yaml", id.fanout(), id)
}

/// The bead id a document path names, if it is a bead path.
///
/// A valid id outside its own fan-out directory is not one: only [`bead_path`] holds a
/// bead, else a stray copy would shadow it in the index (but not in `show`), and which
/// of the two won would depend on how the index was built. A name that is no id at all
/// still counts, so that its document is reported as broken.
pub fn bead_id_of_path(path: &str) -> Option<&str> {
    id_in_fanout(path, BEADS_DIR)
}

/// The id a document path under `dir` names, when it sits in its own fan-out directory
/// (or is no id at all, so that its document is reported as broken).
fn id_in_fanout<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    let rest = path.strip_prefix(dir)?.strip_prefix('/')?;
    let (fan, file) = rest.split_once('/')?;
    let id = file.strip_suffix(".yaml")?;
    match crate::model::BeadId::parse(id) {
        Ok(parsed) if parsed.fanout() != fan => None,
        _ => Some(id),
    }
}

/// The directory in the store's tree that holds bd's audit entries (`audit record`).
pub const AUDIT_DIR: &str = "audit";

/// The path of an audit entry's document inside the store's tree.
pub fn audit_path(id: &str) -> String {
    format!("{AUDIT_DIR}/{}/{id}.yaml", crate::model::audit_fanout(id))
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

/// The directory in the store's tree that holds the mail.
pub const MAIL_DIR: &str = "mail";

/// The path of a message's document (`mail/ab/msg-ab12.yaml`).
pub fn mail_path(id: &crate::model::BeadId) -> String {
    format!("{MAIL_DIR}/{}/{}.yaml", id.fanout(), id)
}

/// The message id a document path names, if it is a mail path (only in its own
/// fan-out directory, as for beads).
pub fn mail_id_of_path(path: &str) -> Option<&str> {
    id_in_fanout(path, MAIL_DIR)
}

/// Provenance notes of code commits; fetched by sync into a tracking ref.
pub const NOTES: RefName = RefName("refs/notes/beads");

/// Where what each remote last had is kept: outside `refs/remotes/`, so that
/// `git branch -a` never shows it, and the only place a fetch may write.
pub const TRACKING_PREFIX: &str = "refs/beads/remotes/";

/// The tracking ref of remote `remote`'s store (`refs/beads/remotes/origin/main`).
pub fn tracking_main(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/main")
}

/// The tracking ref of remote `remote`'s provenance notes (`refs/beads/remotes/origin/notes`).
pub fn tracking_notes(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/notes")
}

/// Where a remote holds the claim it confirmed on bead `id` (`refs/beads/claims/bd-a1`):
/// created only where it does not exist (a push with an empty lease), so exactly one
/// claimer gets it, and deleted once the bead is finished or released.
pub fn claim_ref(id: &crate::model::BeadId) -> String {
    format!("{CLAIMS_PREFIX}{id}")
}

/// The namespace of claim refs on a remote.
pub const CLAIMS_PREFIX: &str = "refs/beads/claims/";

/// Where this repository keeps remote `remote`'s claim ref of bead `id` as last fetched.
pub fn tracking_claim(remote: &str, id: &str) -> String {
    format!("{}{id}", tracking_claims(remote))
}

/// The namespace of remote `remote`'s tracked claim refs
/// (`refs/beads/remotes/origin/claims/`).
pub fn tracking_claims(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/claims/")
}

/// The refspec a sync fetches the remote's claim refs with, into
/// [`tracking_claims`]. It is never configured on the remote, so a plain `git fetch`
/// leaves claims alone.
pub fn claims_refspec(remote: &str) -> String {
    format!("+{CLAIMS_PREFIX}*:{}*", tracking_claims(remote))
}

/// The namespace of replica refs on a remote: each clone pushes its store's state to
/// a ref of its own (`refs/beads/replicas/<replica>`) when it cannot move
/// `refs/beads/main` because others are pushing at the same moment, so that its
/// push never races anyone's; any later sync merges them all and folds them into
/// `refs/beads/main`, deleting those it folded.
pub const REPLICAS_PREFIX: &str = "refs/beads/replicas/";

/// The replica ref of the clone whose replica id is `replica`.
pub fn replica_ref(replica: &str) -> String {
    format!("{REPLICAS_PREFIX}{replica}")
}

/// The namespace of remote `remote`'s tracked replica refs
/// (`refs/beads/remotes/origin/replicas/`).
pub fn tracking_replicas(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/replicas/")
}

/// The fetch refspecs that bring remote `remote`'s store, its replica refs and its
/// notes into its tracking refs. They are globs (`main*`) because git refuses a fetch
/// whose exact source ref is missing, and a remote has no beads until someone first
/// pushes them.
pub fn fetch_refspecs(remote: &str) -> [String; 3] {
    [
        format!("+{MAIN}*:{}*", tracking_main(remote)),
        format!("+{REPLICAS_PREFIX}*:{}*", tracking_replicas(remote)),
        format!("+{NOTES}*:{}*", tracking_notes(remote)),
    ]
}

/// The travelling index: a signed commit holding the cache's bead table and search
/// text of one state of the store (see the index's `travel` module).
pub const INDEX_FILES: RefName = RefName("refs/beads/index/files");

/// The store commit whose state the travelling index describes.
pub const INDEX_OF: RefName = RefName("refs/beads/index/of");

/// Where remote `remote`'s travelling index is tracked.
pub fn tracking_index_files(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/index/files")
}

/// Where remote `remote`'s record of the store commit its travelling index describes
/// is tracked.
pub fn tracking_index_of(remote: &str) -> String {
    format!("{TRACKING_PREFIX}{remote}/index/of")
}

/// The refspec that fetches remote `remote`'s record of what its travelling index
/// describes (a pattern, so that a remote without one is no error).
pub fn index_of_refspec(remote: &str) -> String {
    format!("+{INDEX_OF}*:{}*", tracking_index_of(remote))
}

/// The refspec that fetches remote `remote`'s travelling index.
pub fn index_files_refspec(remote: &str) -> String {
    format!("+{INDEX_FILES}*:{}*", tracking_index_files(remote))
}

/// The directory of the store's tree where a merge keeps whole versions of documents
/// it could not merge field by field (one side does not parse, or is not YAML).
pub const LOST_FOUND_DIR: &str = "lost+found";

/// Where a merge keeps blob `blob`, a losing version of the document at `path`.
pub fn lost_found_path(path: &str, blob: &str) -> String {
    format!("{LOST_FOUND_DIR}/{path}/{blob}")
}

/// The directory in the store's tree that holds worktree snapshots (subtrees, not documents).
pub const SNAPSHOTS_DIR: &str = "snapshots";

/// Where snapshot `n` of session `id` is kept in the store's tree.
pub fn snapshot_path(id: &crate::model::BeadId, n: u32) -> String {
    format!("{SNAPSHOTS_DIR}/{}/{}/{n}", id.fanout(), id)
}
