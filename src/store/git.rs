//! The plain git around the store, for hooks and commands that work with the user's
//! repository: where git runs hooks from, the config git-beads reads and sets,
//! whether a rebase or an amend is under way, commit-message trailers, `worktree add`,
//! and a push that can never hang.
//!
//! Like sync, everything that git's own plumbing does best (`rev-parse --git-path`,
//! `config`, `interpret-trailers`, `push`) runs the user's `git` binary with an
//! argument vector, never a shell.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use super::sync::{Pushed, RemoteError, SYNC_ENV, check_remote_name};
use super::{Store, StoreError, git_err, io_err};
use gix::ObjectId;
use gix::bstr::ByteSlice;

/// One ref to push: the remote ref, what it must be now (`None`: absent), and the
/// local commit it becomes (`None`: it is deleted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefPush {
    /// The full name of the remote ref (`refs/beads/main`).
    pub name: String,
    /// The commit the remote ref must still be at (`None`: it must not exist): a lease.
    pub expected: Option<ObjectId>,
    /// The commit to push (`None`: delete the remote ref).
    pub new: Option<ObjectId>,
}

/// The plain git of the repository around the store: its config, its hooks
/// directory, the state of HEAD and of a rebase, commit-message trailers, `worktree
/// add` and pushes (see `Store::git`).
pub struct Git<'r> {
    repo: &'r gix::Repository,
}

impl Store {
    /// The plain git of the repository, as opposed to the store's documents and refs.
    pub(crate) fn git(&self) -> Git<'_> {
        Git { repo: &self.repo }
    }
}

impl Git<'_> {
    /// A `git` command for this repository, marked as git-beads' own so that hooks
    /// it triggers know (see [`SYNC_ENV`]).
    pub(super) fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("--git-dir")
            .arg(self.repo.git_dir())
            .env(SYNC_ENV, "1")
            .stdin(Stdio::null());
        cmd.current_dir(
            self.repo
                .workdir()
                .unwrap_or_else(|| self.repo.common_dir()),
        );
        cmd
    }

    /// Runs `git ARGS` to the end; an error unless it succeeds.
    fn command_output<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: &[S],
        what: &str,
    ) -> Result<Output, StoreError> {
        let out = self
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| StoreError::Remote(RemoteError::Spawn(e)))?;
        if !out.status.success() {
            return Err(RemoteError::Git {
                what: what.to_owned(),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            }
            .into());
        }
        Ok(out)
    }

    /// The directory git runs hooks from, as `git rev-parse --git-path hooks` says:
    /// `core.hooksPath` when set (relative to the top of the worktree), else the
    /// common git dir's `hooks`.
    pub(crate) fn hooks_dir(&self) -> Result<PathBuf, StoreError> {
        let out = self.command_output(
            &["rev-parse", "--git-path", "hooks"],
            "rev-parse --git-path hooks",
        )?;
        let text = String::from_utf8_lossy(&out.stdout);
        let path = PathBuf::from(text.trim_end_matches(['\n', '\r']));
        Ok(if path.is_absolute() {
            path
        } else {
            self.repo
                .workdir()
                .unwrap_or_else(|| self.repo.common_dir())
                .join(path)
        })
    }

    /// Every value of a config key, as git reads them now (empty when unset).
    pub(crate) fn config_values(&self, key: &str) -> Result<Vec<String>, StoreError> {
        let out = self
            .command()
            .args(["config", "--get-all", key])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| StoreError::Remote(RemoteError::Spawn(e)))?;
        // Exit 1 means the key is not set.
        if !out.status.success() && out.status.code() != Some(1) {
            return Err(RemoteError::Git {
                what: format!("config --get-all {key}"),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            }
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect())
    }

    /// Sets a config key in the repository's own config unless it already has exactly
    /// that one value; returns whether anything changed.
    pub(crate) fn set_config(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        let done = self.config_values(key)? == [value];
        self.config_unless(
            done,
            &["--replace-all", key, value],
            &format!("config {key}"),
        )
    }

    /// Adds a value to a multi-valued config key in the repository's own config unless
    /// it is among its values already; returns whether it was added.
    pub(crate) fn add_config_value(&self, key: &str, value: &str) -> Result<bool, StoreError> {
        let done = self.config_values(key)?.iter().any(|v| v == value);
        self.config_unless(done, &["--add", key, value], &format!("config --add {key}"))
    }

    /// Runs `git config --local ARGS` unless `done`; returns whether it ran.
    fn config_unless(&self, done: bool, args: &[&str], what: &str) -> Result<bool, StoreError> {
        if done {
            return Ok(false);
        }
        let args: Vec<&str> = ["config", "--local"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        self.command_output(&args, what)?;
        Ok(true)
    }

    /// A git config value as a string, if set.
    pub(crate) fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_str_lossy().into_owned())
    }

    /// Every value of a multi-valued git config key, in the order git reads them.
    pub(crate) fn config_strings(&self, key: &str) -> Vec<String> {
        self.repo
            .config_snapshot()
            .strings(key)
            .unwrap_or_default()
            .iter()
            .map(|v| v.to_str_lossy().into_owned())
            .collect()
    }

    /// The commit the current worktree's HEAD points at (`None` on an unborn branch).
    pub(crate) fn head_commit(&self) -> Result<Option<ObjectId>, StoreError> {
        Ok(self.repo.head_id().ok().map(|id| id.detach()))
    }

    /// The remotes configured in this repository, in name order.
    pub(crate) fn remote_names(&self) -> Vec<String> {
        self.repo
            .remote_names()
            .into_iter()
            .map(|n| n.to_str_lossy().into_owned())
            .collect()
    }

    /// Checks that `name` is a usable, configured remote.
    pub(crate) fn check_remote(&self, name: &str) -> Result<(), StoreError> {
        check_remote_name(name)?;
        if !self.remote_names().iter().any(|n| n == name) {
            return Err(RemoteError::NoSuchRemote(name.to_owned()).into());
        }
        Ok(())
    }

    /// The remote to sync with when none is named: the current branch's upstream
    /// remote, else `origin`, else the only remote there is.
    pub(crate) fn default_remote(&self) -> Option<String> {
        let names = self.remote_names();
        let upstream = self.repo.head_name().ok().flatten().and_then(|head| {
            let short = head.shorten().to_owned();
            match self
                .repo
                .branch_remote_name(short.as_bstr(), gix::remote::Direction::Fetch)?
            {
                gix::remote::Name::Symbol(s) => Some(s.to_string()),
                gix::remote::Name::Url(_) => None,
            }
        });
        upstream
            .filter(|u| names.contains(u))
            .or_else(|| names.iter().find(|n| *n == "origin").cloned())
            .or_else(|| (names.len() == 1).then(|| names[0].clone()))
    }

    /// A boolean config key as git reads it (`true`, `yes`, `on`, `1`…), if set.
    pub(crate) fn config_bool(&self, key: &str) -> Option<bool> {
        self.repo.config_snapshot().boolean(key)
    }

    /// Whether a rebase is under way in this worktree (git keeps its state in
    /// `rebase-merge/` or `rebase-apply/` of the worktree's git dir).
    pub(crate) fn rebase_in_progress(&self) -> bool {
        let dir = self.repo.git_dir();
        dir.join("rebase-merge").is_dir() || dir.join("rebase-apply").is_dir()
    }

    /// When the last move of HEAD was `git commit --amend`, the commit it replaced
    /// (from HEAD's reflog); else `None`.
    pub(crate) fn amended_from(&self) -> Result<Option<ObjectId>, StoreError> {
        let head = self.repo.head().map_err(git_err("read HEAD"))?;
        let mut log = head.log_iter();
        let Some(mut lines) = log.rev().map_err(io_err("read the reflog of HEAD"))? else {
            return Ok(None);
        };
        let Some(Ok(line)) = lines.next() else {
            return Ok(None);
        };
        Ok(line
            .message
            .starts_with(b"commit (amend)")
            .then_some(line.previous_oid)
            .filter(|id| !id.is_null()))
    }

    /// The short name of the branch HEAD is on (`None` when detached or unborn).
    pub(crate) fn head_branch(&self) -> Option<String> {
        let name = self.repo.head_name().ok().flatten()?;
        Some(name.shorten().to_str_lossy().into_owned())
    }

    /// Resolves a revision (`HEAD`, `main~2`, an abbreviated id) to the commit it names.
    pub(crate) fn resolve_commit(&self, spec: &str) -> Result<ObjectId, StoreError> {
        let id = self
            .repo
            .rev_parse_single(spec.as_bytes().as_bstr())
            .map_err(git_err(format!("resolve {spec:?}")))?;
        let commit = id
            .object()
            .map_err(git_err(format!("read {spec:?}")))?
            .peel_to_commit()
            .map_err(git_err(format!("{spec:?} is not a commit")))?;
        Ok(commit.id)
    }

    /// Adds trailers (`Key: value`) to the commit message in `file`, as
    /// `git interpret-trailers` places them (after the message, before git's comment
    /// lines); a trailer already there with the same value is not added again.
    pub(crate) fn add_trailers(
        &self,
        file: &Path,
        trailers: &[(&str, &str)],
    ) -> Result<(), StoreError> {
        let what = || format!("rewrite the commit message in {}", file.display());
        let text = std::fs::read_to_string(file).map_err(io_err(what()))?;
        let comment = match self.config_string(crate::settings::COMMENT_CHAR).as_deref() {
            Some("auto") | None => '#',
            Some(c) => c.chars().next().unwrap_or('#'),
        };
        if let Some(new) = crate::model::with_trailers(&text, trailers, comment) {
            std::fs::write(file, new).map_err(io_err(what()))?;
        }
        Ok(())
    }

    /// Runs `git worktree add ARGS` in `cwd` as the user would (their terminal, their
    /// hooks: the post-checkout hook sees a new worktree; git's output goes to stderr),
    /// and returns how it exited.
    pub(crate) fn run_worktree_add(
        &self,
        cwd: &Path,
        args: &[std::ffi::OsString],
    ) -> Result<ExitStatus, StoreError> {
        Command::new("git")
            .current_dir(cwd)
            .args(["worktree", "add"])
            .args(args)
            // What git says is talk: it goes to stderr, stdout is git-beads' data.
            .stdout(Stdio::from(std::io::stderr()))
            .status()
            .map_err(|e| StoreError::Remote(RemoteError::Spawn(e)))
    }

    /// Runs `git ARGS` (doing `what`, for messages) to the end or until `timeout` runs
    /// out (then git is stopped, and it may not prompt on the terminal meanwhile).
    pub(crate) fn run_within(
        &self,
        args: &[String],
        timeout: Duration,
        what: &str,
    ) -> Result<std::process::Output, StoreError> {
        let mut cmd = self.command();
        cmd.args(args).env("GIT_TERMINAL_PROMPT", "0");
        let (status, stdout, stderr) = run_git_within(cmd, Some(timeout), what)?;
        Ok(std::process::Output {
            status,
            stdout,
            stderr,
        })
    }

    /// Pushes `updates` to remote `remote` in one `git push`, each with its lease, and
    /// returns how each went (in order). With a `timeout`, git is stopped once it runs
    /// out and may not prompt on the terminal, so the push never hangs; that counts as
    /// a failed push. The user's pre-push hooks are not run.
    pub(crate) fn push_refs(
        &self,
        remote: &str,
        updates: &[RefPush],
        timeout: Option<Duration>,
    ) -> Result<Vec<Pushed>, StoreError> {
        check_remote_name(remote)?;
        let mut cmd = self.command();
        cmd.args([
            "push",
            "--porcelain",
            "--quiet",
            "--no-verify",
            "--no-follow-tags",
            "--recurse-submodules=no",
        ]);
        for u in updates {
            let expected = u.expected.map(|e| e.to_string()).unwrap_or_default();
            cmd.arg(format!("--force-with-lease={}:{expected}", u.name));
        }
        cmd.arg(remote);
        for u in updates {
            let new = u.new.map(|n| n.to_string()).unwrap_or_default();
            cmd.arg(format!("{new}:{}", u.name));
        }
        if timeout.is_some() {
            cmd.env("GIT_TERMINAL_PROMPT", "0");
        }
        let what = format!("push to {remote}");
        let (status, stdout, stderr) = run_git_within(cmd, timeout, &what)?;
        let stdout = String::from_utf8_lossy(&stdout);
        let stderr = String::from_utf8_lossy(&stderr).into_owned();
        let mut out = Vec::with_capacity(updates.len());
        for u in updates {
            match super::sync::push_outcome(&stdout, &u.name) {
                Some(Ok(pushed)) => out.push(pushed),
                Some(Err(reason)) => {
                    return Err(RemoteError::Rejected {
                        remote: remote.to_owned(),
                        reason,
                        stderr,
                    }
                    .into());
                }
                None if status.success() => out.push(Pushed::Done),
                None => {
                    return Err(RemoteError::Git {
                        what,
                        code: status.code(),
                        stderr,
                    }
                    .into());
                }
            }
        }
        Ok(out)
    }
}

/// [`run_with_deadline`] for a `git` doing `what`, its failures as store errors.
fn run_git_within(
    cmd: Command,
    timeout: Option<Duration>,
    what: &str,
) -> Result<(ExitStatus, Vec<u8>, Vec<u8>), StoreError> {
    run_with_deadline(cmd, timeout).map_err(|e| match e {
        Deadline::Spawn(e) => StoreError::Remote(RemoteError::Spawn(e)),
        Deadline::Expired(after) => StoreError::Remote(RemoteError::Git {
            what: what.to_owned(),
            code: None,
            stderr: format!("gave up after {}s", after.as_secs()),
        }),
    })
}

enum Deadline {
    Spawn(std::io::Error),
    Expired(Duration),
}

/// The longest pause between two looks at a git process that has a deadline.
const MAX_LOOK: Duration = Duration::from_millis(5);

/// Runs `cmd` to the end, or until `timeout` runs out (then it is killed), capturing
/// its stdout and stderr. The pipes are read on threads that are left behind when the
/// deadline passes: a grandchild (ssh) may hold them open long after git is gone.
fn run_with_deadline(
    mut cmd: Command,
    timeout: Option<Duration>,
) -> Result<(ExitStatus, Vec<u8>, Vec<u8>), Deadline> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(Deadline::Spawn)?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
        rx
    };
    let out_rx = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_rx = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    // Without a deadline, wait; with one, look often (a claim waits on a push of tens
    // of milliseconds: a look every 20 ms cost it 10 ms on average).
    let mut pause = Duration::from_millis(1);
    let status = loop {
        let Some(limit) = timeout else {
            break child.wait().map_err(Deadline::Spawn)?;
        };
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => return Err(Deadline::Spawn(e)),
        }
        if start.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Deadline::Expired(limit));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_LOOK);
    };
    // Once git has exited its pipes close, unless a grandchild still holds them: wait
    // a little for the output, never forever.
    let grace = Duration::from_secs(2);
    let stdout = out_rx.recv_timeout(grace).unwrap_or_default();
    let stderr = err_rx.recv_timeout(grace).unwrap_or_default();
    Ok((status, stdout, stderr))
}
