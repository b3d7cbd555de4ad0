//! A store kept open between the requests of a long-lived process (the MCP server),
//! and the checks that say when it must be opened anew.
//!
//! Opening a repository costs more than a small read: git's configuration is read and
//! every pack index is loaded and checked again on the first object looked up. A
//! store kept open skips that, and stays right as the repository changes:
//!
//! - loose objects and refs are read from disk by path on every lookup;
//! - a pack added since (each write by the CLI or another worktree adds one) is found
//!   by gix's object database itself, which looks at the pack directory again when an
//!   object is not in the packs it knows;
//! - but that database, kept across many merges of packs, was seen to stop finding
//!   the objects of new packs (`store::pack`'s `long_lived` test). So the store is
//!   opened anew as soon as a pack it may have seen is gone (merged, repacked), when
//!   many packs were added since it was opened, and when the configuration, the
//!   packed refs or the alternates changed (files read once at open).

use std::ffi::OsString;
use std::path::Path;
use std::time::SystemTime;

use super::{Store, StoreError};

/// How many packs may be added to the pack directory before a kept store is opened
/// anew: well below the 256 slots its object database has for packs (see
/// [`Store::discover`]).
const MAX_ADDED_PACKS: usize = 64;

/// A file's version as `stat` tells it (its inode where there is one, its length and
/// its time of change); `None` when it does not exist.
type Stamp = Option<(u64, u64, SystemTime)>;

/// A store kept open between requests, opened anew when keeping it would be unsafe.
pub struct KeptStore {
    store: Store,
    /// What the store's files looked like when last checked.
    seen: Seen,
    /// How many packs were added since the store was opened.
    added: usize,
}

/// What a kept store's object database and configuration depend on, as last seen.
#[derive(PartialEq, Eq)]
struct Seen {
    /// The names of the pack indexes, sorted.
    packs: Vec<OsString>,
    /// The files gix reads once, or reads again only when their time changes: the
    /// configuration (shared and the worktree's), the packed refs, the alternates and
    /// the multi-pack index.
    files: [Stamp; 5],
}

impl KeptStore {
    /// The store of the repository that `dir` is in, opened now.
    pub fn open(dir: &Path) -> Result<KeptStore, StoreError> {
        Ok(KeptStore::new(Store::discover(dir)?))
    }

    /// `store`, kept from now on.
    pub fn new(store: Store) -> KeptStore {
        let seen = Seen::of(&store);
        KeptStore {
            store,
            seen,
            added: 0,
        }
    }

    /// The store as it is kept.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store for the next request: the one kept, unless a pack it may have seen
    /// is gone, too many were added, or a file read at open changed; then the store
    /// opened anew ([`Store::reopened`]). When that fails, the kept store is left as
    /// it was and the error returned.
    pub fn refreshed(&mut self) -> Result<&Store, StoreError> {
        let now = Seen::of(&self.store);
        let kept = now.files == self.seen.files
            && self
                .seen
                .packs
                .iter()
                .all(|p| now.packs.binary_search(p).is_ok());
        if kept {
            self.added += now.packs.len() - self.seen.packs.len();
        }
        if kept && self.added <= MAX_ADDED_PACKS {
            self.seen = now;
        } else {
            *self = KeptStore::new(self.store.reopened()?);
        }
        Ok(&self.store)
    }
}

impl Seen {
    /// What `store`'s files look like now.
    fn of(store: &Store) -> Seen {
        let (common, objects) = (store.common_dir(), store.common_dir().join("objects"));
        let mut packs: Vec<OsString> = std::fs::read_dir(objects.join("pack"))
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok().map(|e| e.file_name()))
            .filter(|name| name.as_encoded_bytes().ends_with(b".idx"))
            .collect();
        packs.sort_unstable();
        Seen {
            packs,
            files: [
                stamp(&common.join("config")),
                stamp(&store.repo.git_dir().join("config.worktree")),
                stamp(&common.join("packed-refs")),
                stamp(&objects.join("info").join("alternates")),
                stamp(&objects.join("pack").join("multi-pack-index")),
            ],
        }
    }
}

/// The version of the file at `path` now.
fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some((inode, meta.len(), meta.modified().ok()?))
}
