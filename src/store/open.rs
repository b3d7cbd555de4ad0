//! Opening the repository, and what it says about itself: where its directories are,
//! its name, and who is acting.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::{Store, StoreError, cli_config};
use crate::model::Actor;

impl Store {
    /// Opens the repository the way git does: `GIT_DIR` and friends when set (as they
    /// are inside hooks and linked worktrees), else by searching upwards from `dir`.
    pub fn discover(dir: &Path) -> Result<Store, StoreError> {
        // `git -c key=value beads …` hands its settings down the way git does for
        // every command it runs; gix does not read them on its own.
        let overrides = cli_config::from_env();
        let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
        // Each write adds a small pack until they are merged, and gix sizes its table
        // of packs from what it saw at open: room for others' packs made meanwhile.
        let slots = gix::odb::store::init::Slots::AsNeededByDiskState {
            multiplier: 2.0,
            minimum: 256,
        };
        trust.full = trust
            .full
            .cli_overrides(overrides.clone())
            .object_store_slots(slots);
        trust.reduced = trust
            .reduced
            .cli_overrides(overrides)
            .object_store_slots(slots);
        let repo = gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
            dir,
            Default::default(),
            trust,
        )
        .map(gix::Repository::from)
        .map_err(|source| StoreError::NotARepo {
            path: dir.to_owned(),
            source: Box::new(source),
        })?;
        Ok(Store { repo, pin: None })
    }

    /// Makes a new repository at `dir` with the user's own `git init` (their default
    /// branch, templates and hooks), as bd's `init` does where there is none, and opens
    /// it.
    pub fn create(dir: &Path) -> Result<Store, StoreError> {
        let what = || format!("run git init in {}", dir.display());
        std::fs::create_dir_all(dir).map_err(super::io_err(what()))?;
        let out = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(super::io_err(what()))?;
        if !out.status.success() {
            return Err(StoreError::Git {
                context: what(),
                source: Box::new(gix::Error::from_error(std::io::Error::other(
                    String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                ))),
            });
        }
        Store::discover(dir)
    }

    /// The same repository opened anew, with an object database that sees the packs on
    /// disk now. A process that lives long (the board, the MCP server) takes one when
    /// its [`super::KeptStore`] says the one it kept is no longer safe: gix's
    /// object database, kept open across hundreds of other processes' pack merges, was
    /// seen to stop finding objects of a new pack that a fresh one finds.
    pub fn reopened(&self) -> Result<Store, StoreError> {
        Store::discover(self.repo.workdir().unwrap_or_else(|| self.repo.git_dir()))
    }

    /// A store in a fresh repository in a temporary directory (for unit tests).
    #[cfg(test)]
    pub(crate) fn temp_for_tests() -> (tempfile::TempDir, Store) {
        let dir = temp_dir_for_tests();
        let out = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(out.status.success());
        let store = Store::discover(dir.path()).expect("opens");
        (dir, store)
    }

    /// Commits what `op` stages, as a tester (for unit tests).
    #[cfg(test)]
    pub(crate) fn commit_for_tests(&self, mut op: impl FnMut(&mut super::Tx<'_>)) {
        let actor = Actor::person("tester", "t@example.com");
        self.transact(&actor, |tx| {
            op(tx);
            tx.set_message("test");
            Ok::<_, StoreError>(())
        })
        .expect("commit");
    }

    /// The directory shared by every worktree of the repository.
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// The top of the current worktree, if the repository has one.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// Where git-beads keeps machine-local files (lock, index cache).
    pub(crate) fn local_dir(&self) -> PathBuf {
        self.common_dir().join("beads")
    }

    /// The author identity exactly as git resolves it: `GIT_AUTHOR_NAME` and
    /// `GIT_AUTHOR_EMAIL`, then `user.name` and `user.email`.
    pub(crate) fn identity(&self) -> Result<Actor, StoreError> {
        let config = self.repo.config_snapshot();
        let pick = |env: &str, key: &str| {
            std::env::var(env)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .or_else(|| config.string(key).map(|v| v.to_str_lossy().into_owned()))
        };
        let name = pick("GIT_AUTHOR_NAME", "user.name").ok_or(StoreError::NoIdentity)?;
        let email = pick("GIT_AUTHOR_EMAIL", "user.email").unwrap_or_default();
        Ok(Actor::person(name.trim(), email.trim()))
    }

    /// The name of the repository's directory (for deriving a default prefix).
    pub(crate) fn repo_name(&self) -> String {
        // A linked worktree's directory does not name the repository: the main
        // worktree (around the common `.git`) or the bare repository does.
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let common = real(self.common_dir());
        let dir = if common.file_name().is_some_and(|n| n == ".git") {
            common.parent().map(Path::to_owned)
        } else if real(self.repo.git_dir()) == common {
            self.workdir().map(real)
        } else {
            None
        };
        let dir = dir.unwrap_or(common);
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Opens the repository of the worktree at `path` itself, whatever `GIT_DIR` says.
    pub(crate) fn open_worktree(path: &Path) -> Result<Store, StoreError> {
        let repo =
            gix::ThreadSafeRepository::discover_opts(path, Default::default(), Default::default())
                .map(gix::Repository::from)
                .map_err(|source| StoreError::NotARepo {
                    path: path.to_owned(),
                    source: Box::new(source),
                })?;
        Ok(Store { repo, pin: None })
    }
}

/// A temporary directory for a unit test: in memory (`/dev/shm`) where the system has
/// it, since the tests' many small commits and packs otherwise mostly wait for the
/// disk to sync them; else in the system's temporary directory.
#[cfg(test)]
pub(crate) fn temp_dir_for_tests() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    let builder = tempfile::Builder::new();
    match shm.is_dir() {
        true => builder.tempdir_in(shm),
        false => builder.tempdir(),
    }
    .expect("a temp dir")
}

/// Runs `git ARGS` in `dir` for a unit test, outside the user's configuration and as
/// a fixed author and committer; it must succeed. Returns what it printed.
#[cfg(test)]
pub(crate) fn git_for_tests(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}
