//! The only code that touches git: opening the repository, reading documents from
//! the store's tree, committing changes atomically, the history and the index.

mod alias;
mod bulk;
mod claims_seen;
mod cli_config;
mod code_log;
pub mod codec;
mod commit_log;
mod delta;
mod durable;
mod error;
mod git;
mod group;
mod heads;
mod history;

mod index;
mod kept;
mod ledger;
mod lock;
mod notes;
mod open;
mod pack;
mod read;
pub mod refs;
mod repack;
mod scratch;
mod sign;
mod snapshot;
mod states;
mod stream;
mod sync;
mod tree;
mod tx;
mod worktree_state;
mod write;

#[cfg(test)]
pub(crate) use open::{git_for_tests, temp_dir_for_tests};

/// The id of a git object (a commit, tree or blob) of the store.
pub use gix::ObjectId;

pub use bulk::{BlobIds, Put};
pub use claims_seen::{ClaimSeen, ClaimsSeen};
pub use code_log::CodeCommit;
pub use durable::{Replacement, replace_file};
pub use error::StoreError;
pub(crate) use error::{git_err, io_err};
pub use git::{Git, RefPush};
pub use history::HistoryEntry;
#[cfg(test)]
pub(crate) use index::damage_counted_alone;
pub use index::{
    Answer, BeadRow, Broken, Dep, Index, MailMarks, MailSummary, Part, Row, Slot, Summary,
    TableStamp, damage_seen,
};
pub use kept::KeptStore;
pub(crate) use lock::WriteLock;
pub use notes::MAX_NOTE;
use read::decode_bead;
pub(crate) use read::decode_doc;
pub use read::{FORMAT, Head, Meta};
pub use scratch::STALE_SCRATCH;
pub use sign::{
    Checked, SignedCommit, Signer, check_signature, normalize_public_key, unsigned_reason,
};
pub use snapshot::Capture;
pub use stream::PackStream;
pub(crate) use sync::Ancestry;
pub use sync::{Entry, EntryKind, Pushed, RemoteError, SYNC_ENV, check_remote_name};
pub use tree::DocChange;
pub use tx::{Tx, View};

use crate::model::Timestamp;

/// An open repository and its beads store. A clone shares the object database (the
/// packs it loaded) and has caches of its own.
#[derive(Clone)]
pub struct Store {
    repo: gix::Repository,
    /// The commit `refs/beads/main` is read as, when the store is pinned there (see
    /// [`Store::pinned_at`]); `None`: read from disk each time.
    pin: Option<gix::ObjectId>,
}

/// The current time, for stamping documents.
pub(crate) fn now() -> Timestamp {
    chrono::Utc::now()
}
