//! Each session's local ledger: an append-only file of JSON lines under the common git
//! dir (`<common dir>/beads/ledger/<session>.jsonl`), never shared or pushed. A harness
//! hook appends one entry per turn and syncs it at once, so a turn is durable without a
//! store commit; the turns reach the store when they are folded in.

use std::io::Write;
use std::path::PathBuf;

use super::lock::WriteLock;
use super::{Store, StoreError, io_err};
use crate::model::{BeadId, LedgerEntry};

impl Store {
    fn ledger_file(&self, session: &BeadId) -> PathBuf {
        self.local_dir()
            .join("ledger")
            .join(format!("{session}.jsonl"))
    }

    /// The entries of `session`'s local ledger, oldest first (none when it has none). A
    /// last line cut short by a crash is left out.
    pub(crate) fn read_ledger(&self, session: &BeadId) -> Result<Vec<LedgerEntry>, StoreError> {
        let path = self.ledger_file(session);
        let text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err(format!("read {}", path.display()))(e)),
        };
        Ok(text
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect())
    }

    /// Appends `entries` to `session`'s local ledger and syncs the file.
    pub(crate) fn append_ledger(
        &self,
        session: &BeadId,
        entries: &[LedgerEntry],
    ) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let path = self.ledger_file(session);
        let what = || format!("append to {}", path.display());
        let mut text = Vec::new();
        for e in entries {
            serde_json::to_writer(&mut text, e).map_err(|e| {
                io_err(what())(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })?;
            text.push(b'\n');
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err(what()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err(what()))?;
        file.write_all(&text).map_err(io_err(what()))?;
        file.sync_data().map_err(io_err(what()))
    }

    /// Holds `session`'s ledger lock until the guard is dropped, so that two hooks of one
    /// session (a turn and a subagent's) never read the same transcript lines at once.
    pub(crate) fn lock_ledger(&self, session: &BeadId) -> Result<WriteLock, StoreError> {
        let path = self
            .local_dir()
            .join("ledger")
            .join(format!("{session}.lock"));
        WriteLock::acquire(&path).map_err(io_err(format!("lock {}", path.display())))
    }
}
