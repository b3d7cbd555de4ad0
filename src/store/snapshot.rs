//! Worktree snapshots: the files of a worktree as they are (tracked changes, staged or
//! not, and untracked files git does not ignore — never ignored files), as a git tree.
//!
//! Capturing uses git's own plumbing on a scratch copy of the worktree's index, so
//! `.gitignore`, `core.excludesFile` and every other rule git applies to `git add -A`
//! apply here exactly; the user's real index is never touched. Unchanged files cost
//! nothing: their blobs already exist.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use gix::ObjectId;

use super::{Store, StoreError, io_err};

/// A worktree captured as a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The commit the worktree sits on (`None` on an unborn branch).
    pub base: Option<ObjectId>,
    /// The full tree of the worktree's files, as they are.
    pub tree: ObjectId,
    /// Files left out for being larger than the cap: (path, size in bytes).
    pub skipped: Vec<(String, u64)>,
}

fn git_in(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null());
    cmd
}

fn run(mut cmd: Command, what: &str) -> Result<Output, StoreError> {
    let out = cmd.output().map_err(io_err(format!("run git to {what}")))?;
    if !out.status.success() {
        return Err(StoreError::Io {
            context: format!("{what} ({})", String::from_utf8_lossy(&out.stderr).trim()),
            source: std::io::Error::other("git failed"),
        });
    }
    Ok(out)
}

fn oid(out: &Output, what: &str) -> Result<ObjectId, StoreError> {
    let text = String::from_utf8_lossy(&out.stdout);
    ObjectId::from_hex(text.trim().as_bytes()).map_err(|e| StoreError::Io {
        context: format!("{what}: git printed {:?}", text.trim()),
        source: std::io::Error::other(e.to_string()),
    })
}

impl Store {
    /// The top of the current worktree, or an error for a bare repository.
    fn worktree_top(&self) -> Result<PathBuf, StoreError> {
        self.workdir()
            .map(Path::to_owned)
            .ok_or_else(|| StoreError::Io {
                context: "snapshot a worktree: this repository has none".into(),
                source: std::io::Error::other("bare repository"),
            })
    }

    /// Captures the current worktree. Files over `cap` bytes (new or changed ones)
    /// are left out and listed instead.
    pub(crate) fn capture_worktree(&self, cap: u64) -> Result<Capture, StoreError> {
        let top = self.worktree_top()?;
        let base = self.repo.head_id().ok().map(|id| id.detach());
        let real_index = self.repo.git_dir().join("index");
        let scratch = self
            .repo
            .git_dir()
            .join("beads")
            .join(format!("snapshot-index.{}", std::process::id()));
        if let Some(dir) = scratch.parent() {
            std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
        }
        if real_index.exists() {
            std::fs::copy(&real_index, &scratch)
                .map_err(io_err(format!("copy {}", real_index.display())))?;
        }
        let result = self.capture_with_index(&top, &scratch, base, cap);
        let _ = std::fs::remove_file(&scratch);
        result
    }

    fn capture_with_index(
        &self,
        top: &Path,
        index: &Path,
        base: Option<ObjectId>,
        cap: u64,
    ) -> Result<Capture, StoreError> {
        let git = || {
            let mut c = git_in(top);
            c.env("GIT_INDEX_FILE", index);
            c
        };
        let mut add = git();
        add.args(["add", "-A", "--", "."]);
        run(add, "stage the worktree on a scratch index")?;
        let mut skipped = Vec::new();
        let mut changed = git();
        changed.args(["diff", "--cached", "--name-only", "-z", "--diff-filter=AM"]);
        if let Some(b) = base {
            changed.arg(b.to_string());
        } else {
            changed.arg(self.empty_tree().to_string());
        }
        let out = run(changed, "list the changed files")?;
        for path in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            let path = String::from_utf8_lossy(path).into_owned();
            let size = std::fs::symlink_metadata(top.join(&path))
                .map(|m| m.len())
                .unwrap_or(0);
            if size > cap {
                skipped.push((path, size));
            }
        }
        for (path, _) in &skipped {
            // Back to the base's version (or out, when the base has none).
            let mut reset = git();
            match base {
                Some(b) => reset.args(["reset", "-q", &b.to_string(), "--", path]),
                None => reset.args(["rm", "-q", "--cached", "--", path]),
            };
            run(reset, &format!("leave out {path}"))?;
        }
        let mut write = git();
        write.arg("write-tree");
        let tree = oid(&run(write, "write the snapshot tree")?, "write-tree")?;
        Ok(Capture {
            base,
            tree,
            skipped,
        })
    }

    /// Whether the current worktree has changes git would show (staged, unstaged or
    /// untracked files that are not ignored).
    pub(crate) fn worktree_is_dirty(&self) -> Result<bool, StoreError> {
        let top = self.worktree_top()?;
        let mut status = git_in(&top);
        status.args(["status", "--porcelain", "--untracked-files=all"]);
        Ok(!run(status, "read the worktree's status")?.stdout.is_empty())
    }

    /// Whether the object database has `id`.
    pub(crate) fn has_object(&self, id: ObjectId) -> bool {
        self.repo.has_object(id)
    }

    /// Adds a linked worktree at `path`, detached at `commit`.
    pub(crate) fn add_worktree(&self, path: &Path, commit: ObjectId) -> Result<(), StoreError> {
        let top = self.worktree_top()?;
        let mut add = git_in(&top);
        add.args(["worktree", "add", "--detach", "-q"])
            .arg(path)
            .arg(commit.to_string());
        run(add, &format!("add a worktree at {}", path.display()))?;
        Ok(())
    }

    /// Makes the files of this worktree exactly those of `tree` (a snapshot), keeping
    /// the index and HEAD where they are: restored changes show as unstaged changes
    /// and untracked files, as they were when captured.
    pub(crate) fn restore_worktree(&self, tree: ObjectId) -> Result<(), StoreError> {
        let top = self.worktree_top()?;
        let head = self.repo.head_id().ok().map(|id| id.detach());
        // Tracked files the snapshot does not have were deleted in it.
        if let Some(h) = head {
            let mut gone = git_in(&top);
            gone.args(["diff", "--name-only", "-z", "--diff-filter=D"])
                .arg(h.to_string())
                .arg(tree.to_string());
            let out = run(gone, "list the files the snapshot deleted")?;
            for path in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
                let path = top.join(String::from_utf8_lossy(path).as_ref());
                let _ = std::fs::remove_file(path);
            }
        }
        let mut checkout = git_in(&top);
        checkout
            .arg("checkout")
            .arg(tree.to_string())
            .args(["--", "."]);
        run(checkout, "write the snapshot's files")?;
        let mut reset = git_in(&top);
        reset.args(["reset", "-q"]);
        run(reset, "leave the restored files unstaged")?;
        Ok(())
    }
}
