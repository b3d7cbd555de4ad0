//! The integration-test harness: real git repositories in temp dirs, the real
//! `git-beads` binary reached as `git beads` through PATH, and a hermetic
//! environment (no global or system git config, UTC, fixed identities).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

/// The binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-beads"))
}

/// PATH with the binary's directory first, so `git beads` runs the binary under test.
pub fn path_env() -> std::ffi::OsString {
    let dir = bin().parent().expect("binary has a directory").to_owned();
    let mut paths = vec![dir];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH joins")
}

/// Applies the hermetic environment to a command.
pub fn hermetic<'c>(cmd: &'c mut Command, home: &Path) -> &'c mut Command {
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("NO_COLOR", "1")
        .env("PATH", path_env())
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL")
        .env_remove("GIT_BEADS_AGENT")
        .stdin(Stdio::null())
}

/// A scratch area holding one or more repositories.
pub struct Sandbox {
    /// Keeps the directory alive.
    pub dir: TempDir,
}

impl Sandbox {
    /// A new empty sandbox.
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The sandbox's root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs a command in `cwd` with the hermetic environment and returns its output.
    pub fn run(&self, cwd: &Path, program: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(program);
        hermetic(&mut cmd, self.path());
        cmd.current_dir(cwd)
            .args(args)
            .output()
            .expect("command runs")
    }

    /// A bare repository at `name`, for use as a remote.
    pub fn bare(&self, name: &str) -> PathBuf {
        let path = self.path().join(name);
        let out = self.run(
            self.path(),
            "git",
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                path.to_str().expect("utf-8"),
            ],
        );
        assert!(
            out.status.success(),
            "git init --bare: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        path
    }

    /// A new repository at `name` with one commit on `main`, identity `user`.
    pub fn repo(&self, name: &str, user: &str) -> Repo {
        let path = self.path().join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        let repo = Repo {
            path,
            home: self.path().to_owned(),
            user: user.to_owned(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.configure();
        std::fs::write(repo.path.join("README"), "hello\n").expect("write");
        repo.git(&["add", "README"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    /// A clone of `remote` at `name`, identity `user`.
    pub fn clone(&self, remote: &Path, name: &str, user: &str) -> Repo {
        let path = self.path().join(name);
        let out = self.run(
            self.path(),
            "git",
            &[
                "clone",
                "-q",
                remote.to_str().expect("utf-8"),
                path.to_str().expect("utf-8"),
            ],
        );
        assert!(
            out.status.success(),
            "git clone: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let repo = Repo {
            path,
            home: self.path().to_owned(),
            user: user.to_owned(),
        };
        repo.configure();
        repo
    }
}

/// A working repository inside a sandbox.
pub struct Repo {
    /// The worktree's top directory.
    pub path: PathBuf,
    home: PathBuf,
    /// The identity commands run as (user.name; email is `<user>@example.com`).
    pub user: String,
}

impl Repo {
    fn configure(&self) {
        self.git(&["config", "user.name", &self.user]);
        self.git(&[
            "config",
            "user.email",
            &format!("{}@example.com", self.user),
        ]);
    }

    /// A command in this repository with the hermetic environment.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        hermetic(&mut cmd, &self.home);
        cmd.current_dir(&self.path);
        cmd
    }

    /// Runs `git ARGS`, asserting success; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.command("git").args(args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs `git beads ARGS` and returns the raw output.
    pub fn beads_output(&self, args: &[&str]) -> Output {
        self.command("git")
            .arg("beads")
            .args(args)
            .output()
            .expect("git beads runs")
    }

    /// Runs `git beads ARGS`, asserting success; returns stdout.
    pub fn beads(&self, args: &[&str]) -> String {
        let out = self.beads_output(args);
        assert!(
            out.status.success(),
            "git beads {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs `git beads --json ARGS`, asserting success; returns the parsed document.
    pub fn beads_json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.beads(&all);
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("bad JSON from {args:?}: {e}\n{text}"));
        assert_eq!(v["schema_version"], 1, "every JSON document is versioned");
        v
    }

    /// Runs `git beads ARGS`, asserting failure; returns (exit code, stderr).
    pub fn beads_fail(&self, args: &[&str]) -> (i32, String) {
        let out = self.beads_output(args);
        assert!(
            !out.status.success(),
            "git beads {args:?} should have failed, printed {}",
            String::from_utf8_lossy(&out.stdout)
        );
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `git beads init` with prefix `bd`.
    pub fn init(&self) {
        self.beads(&["init", "--prefix", "bd"]);
    }

    /// Creates a bead and returns its id.
    pub fn create(&self, title: &str, extra: &[&str]) -> String {
        let mut args = vec!["create", title];
        args.extend_from_slice(extra);
        self.beads(&args).trim().to_owned()
    }

    /// The commit `refs/beads/main` points at.
    pub fn store_head(&self) -> String {
        self.git(&["rev-parse", "refs/beads/main"])
            .trim()
            .to_owned()
    }

    /// Every bead in the store (any status), as JSON summaries.
    pub fn all_beads(&self) -> Vec<Value> {
        let v = self.beads_json(&[
            "list",
            "--all",
            "--status",
            "open",
            "--status",
            "in_progress",
            "--status",
            "blocked",
            "--status",
            "deferred",
            "--status",
            "hooked",
            "--status",
            "pinned",
            "--status",
            "closed",
            "--status",
            "deleted",
        ]);
        v["beads"].as_array().expect("beads array").clone()
    }
}
