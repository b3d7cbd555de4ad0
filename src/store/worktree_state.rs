//! Files of machine-local state, never shared or pushed: a worktree's own
//! (`<git-dir>/beads/…`), and those shared by every worktree (`<common dir>/beads/…`).

use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::durable::replace_file;
use super::lock::WriteLock;
use super::{Store, StoreError, codec, decode_doc, io_err};

impl Store {
    /// This worktree's own state file (`<git-dir>/beads/<name>`), never shared or pushed.
    pub(crate) fn worktree_file(&self, name: &str) -> PathBuf {
        self.repo.git_dir().join("beads").join(name)
    }

    /// Reads a YAML file of this worktree's own state, if it exists.
    pub(crate) fn read_worktree_state<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<Option<T>, StoreError> {
        let path = self.worktree_file(name);
        match std::fs::read(&path) {
            Ok(bytes) => decode_doc(&path.display().to_string(), &bytes).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(format!("read {}", path.display()))(e)),
        }
    }

    /// Writes (atomically) or, with `None`, removes a YAML file of this worktree's own
    /// state. A file that already says the same is left as it is: `show` remembers the
    /// bead it showed, and a read that writes nothing new costs no write.
    pub(crate) fn write_worktree_state<T: Serialize>(
        &self,
        name: &str,
        value: Option<&T>,
    ) -> Result<(), StoreError> {
        let path = self.worktree_file(name);
        let Some(value) = value else {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(io_err(format!("remove {}", path.display()))(e))
                }
                _ => Ok(()),
            };
        };
        let text = codec::encode(value).map_err(|source| StoreError::Encode {
            what: name.to_owned(),
            source,
        })?;
        if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(&path);
        std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
        replace_file(&path, text.as_bytes(), false)
            .map_err(io_err(format!("replace {}", path.display())))
    }

    /// Reads, changes and writes back (atomically) a YAML file of machine-local state
    /// shared by every worktree (`<common dir>/beads/<name>`), under its own lock so
    /// that concurrent commands never lose each other's changes. A missing file reads
    /// as `T::default()`; a value equal to the default removes the file.
    pub(crate) fn update_local_state<T, R>(
        &self,
        name: &str,
        change: impl FnOnce(&mut T) -> R,
    ) -> Result<R, StoreError>
    where
        T: Serialize + DeserializeOwned + Default + PartialEq,
    {
        let path = self.local_dir().join(name);
        let lock = self.local_dir().join(format!("{name}.lock"));
        let _lock =
            WriteLock::acquire(&lock).map_err(io_err(format!("lock {}", lock.display())))?;
        let mut value: T = match std::fs::read(&path) {
            Ok(bytes) => decode_doc(&path.display().to_string(), &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => T::default(),
            Err(e) => return Err(io_err(format!("read {}", path.display()))(e)),
        };
        let before = codec::encode(&value).map_err(|source| StoreError::Encode {
            what: name.to_owned(),
            source,
        })?;
        let out = change(&mut value);
        let after = codec::encode(&value).map_err(|source| StoreError::Encode {
            what: name.to_owned(),
            source,
        })?;
        if before == after {
            return Ok(out);
        }
        if value == T::default() {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_err(format!("remove {}", path.display()))(e));
                }
                _ => return Ok(out),
            }
        }
        replace_file(&path, after.as_bytes(), false)
            .map_err(io_err(format!("replace {}", path.display())))?;
        Ok(out)
    }
}
