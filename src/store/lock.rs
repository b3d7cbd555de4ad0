//! The write lock that serializes writers of one repository (all worktrees share it).

use std::fs::{File, OpenOptions};
use std::path::Path;

/// Held while a writer reads the ref, applies its operation and moves the ref.
///
/// It is an OS advisory lock (`flock`): waiters queue in the kernel instead of
/// spinning, and a process killed while holding it releases it with its last
/// file descriptor, so a crash never leaves a stale lock behind.
#[derive(Debug)]
pub struct WriteLock {
    file: File,
}

impl WriteLock {
    /// The lock file at `path` (and its directory), made when missing.
    fn open(path: &Path) -> std::io::Result<std::fs::File> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
    }

    /// Blocks until the lock at `path` is ours.
    pub(crate) fn acquire(path: &Path) -> std::io::Result<WriteLock> {
        let file = WriteLock::open(path)?;
        file.lock()?;
        Ok(WriteLock { file })
    }

    /// Takes the lock at `path` if nobody holds it; `None` if somebody does.
    pub(crate) fn try_acquire(path: &Path) -> std::io::Result<Option<WriteLock>> {
        let file = WriteLock::open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(WriteLock { file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock as well; unlocking first just makes it prompt.
        let _ = self.file.unlock();
    }
}
