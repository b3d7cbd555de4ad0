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
    /// A repository (or linked worktree) that already exists at `path`.
    pub fn at(sb: &Sandbox, path: &Path, user: &str) -> Repo {
        Repo {
            path: path.to_owned(),
            home: sb.path().to_owned(),
            user: user.to_owned(),
        }
    }

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

/// The path of a bead's document inside the store's tree (`beads/<fanout>/<id>.yaml`).
pub fn doc_path(id: &str) -> String {
    let base = id.split('.').next().unwrap_or(id);
    let hash = base.split_once('-').map(|(_, h)| h).unwrap_or(base);
    let mut fan: String = hash.chars().take(2).collect();
    while fan.len() < 2 {
        fan.push('_');
    }
    format!("beads/{fan}/{id}.yaml")
}

/// The ids in a JSON listing (`{"beads": [...]}`), in order.
pub fn ids(listing: &Value) -> Vec<String> {
    listing["beads"]
        .as_array()
        .expect("beads array")
        .iter()
        .map(|b| b["id"].as_str().expect("id is a string").to_owned())
        .collect()
}

/// A small deterministic random number generator (xorshift64*), seeded from
/// `GIT_BEADS_SEED` when set, else from the clock; the seed is printed so that a
/// failing run can be replayed.
pub struct Rng(u64);

impl Rng {
    /// A generator for the test named `what`.
    pub fn new(what: &str) -> Rng {
        let seed = std::env::var("GIT_BEADS_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
                    ^ u64::from(std::process::id())
            });
        eprintln!("{what}: GIT_BEADS_SEED={seed}");
        Rng(seed.max(1))
    }

    /// The next number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

impl Repo {
    /// The directory shared by every worktree (`git rev-parse --git-common-dir`), absolute.
    pub fn common_dir(&self) -> PathBuf {
        let dir = self.git(&["rev-parse", "--git-common-dir"]);
        let dir = PathBuf::from(dir.trim());
        if dir.is_absolute() {
            dir
        } else {
            self.path.join(dir)
        }
    }

    /// Where the derived index of `refs/beads/main` is cached
    /// (`beads/index-v<N>-main.bin` under the common dir; the newest version present,
    /// else version 1).
    pub fn index_file(&self) -> PathBuf {
        let dir = self.common_dir().join("beads");
        let version = |name: &str| -> Option<u32> {
            name.strip_prefix("index-v")?
                .strip_suffix("-main.bin")?
                .parse()
                .ok()
        };
        std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| version(&e.file_name().to_string_lossy()))
            .max()
            .map(|v| dir.join(format!("index-v{v}-main.bin")))
            .unwrap_or_else(|| dir.join("index-v1-main.bin"))
    }

    /// Runs `git beads ARGS` with extra environment variables; returns the raw output.
    pub fn beads_output_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        let mut cmd = self.command("git");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg("beads")
            .args(args)
            .output()
            .expect("git beads runs")
    }

    /// The `git-beads` binary itself (not through `git`), with the hermetic
    /// environment, in this repository: a process that `Child::kill` really stops.
    pub fn beads_direct(&self) -> Command {
        let mut cmd = self.command(bin().to_str().expect("utf-8 path"));
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        cmd
    }

    /// Adds a linked worktree at `name` next to this repository (on a new branch).
    pub fn worktree(&self, name: &str) -> Repo {
        let path = self.path.parent().expect("repo has a parent").join(name);
        self.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            name,
            path.to_str().expect("utf-8"),
        ]);
        Repo {
            path,
            home: self.home.clone(),
            user: self.user.clone(),
        }
    }

    /// Commits `content` at `path` inside the store's tree with git plumbing
    /// (`hash-object`, `read-tree`/`update-index`/`write-tree` on a temporary
    /// index, `commit-tree`, `update-ref`), bypassing git-beads. Returns the new head.
    pub fn put_raw_doc(&self, path: &str, content: &[u8]) -> String {
        let scratch = tempfile::tempdir().expect("temp dir");
        let file = scratch.path().join("doc");
        std::fs::write(&file, content).expect("write doc");
        let blob = self.git(&["hash-object", "-w", file.to_str().expect("utf-8")]);
        let blob = blob.trim();
        let index = scratch.path().join("index");
        let with_index = |args: &[&str]| {
            let out = self
                .command("git")
                .env("GIT_INDEX_FILE", &index)
                .args(args)
                .output()
                .expect("git runs");
            assert!(
                out.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        let old = self.store_head();
        with_index(&["read-tree", "refs/beads/main"]);
        with_index(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("100644,{blob},{path}"),
        ]);
        let tree = with_index(&["write-tree"]);
        let commit = self.git(&[
            "commit-tree",
            &tree,
            "-p",
            &old,
            "-m",
            &format!("edit {path} by hand"),
        ]);
        let commit = commit.trim().to_owned();
        self.git(&["update-ref", "refs/beads/main", &commit, &old]);
        commit
    }

    /// The store's tree as `git ls-tree -r` lists it (paths only).
    pub fn store_paths(&self) -> Vec<String> {
        self.git(&["ls-tree", "-r", "--name-only", "refs/beads/main"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Asserts that `git fsck` finds nothing wrong (dangling objects are fine).
    pub fn assert_fsck_clean(&self) {
        let out = self
            .command("git")
            .args(["fsck", "--no-dangling", "--no-progress"])
            .output()
            .expect("git fsck runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.trim().is_empty() && stderr.trim().is_empty(),
            "git fsck: {}\n{stdout}\n{stderr}",
            out.status
        );
    }
}

impl Repo {
    /// The tree `refs/beads/main` points at (equal trees: byte-identical stores).
    pub fn store_tree(&self) -> String {
        self.git(&["rev-parse", "refs/beads/main^{tree}"])
            .trim()
            .to_owned()
    }

    /// One bead as `show --json` prints it.
    pub fn bead_json(&self, id: &str) -> Value {
        self.beads_json(&["show", id])["beads"][0].clone()
    }
}

/// Writes an executable script (mode 755) at `path`, creating its directory.
pub fn write_script(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(path, text).expect("write script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

impl Repo {
    /// Runs `git ARGS` with extra environment variables; returns the raw output.
    pub fn git_output_env(&self, env: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> Output {
        let mut cmd = self.command("git");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.args(args).output().expect("git runs")
    }

    /// Runs `git ARGS` without asserting anything; returns the raw output.
    pub fn git_output(&self, args: &[&str]) -> Output {
        self.git_output_env(&[], args)
    }

    /// Writes `content` to `file` in the worktree and commits it (`git commit -q -m`);
    /// returns the new HEAD.
    pub fn commit_file(&self, file: &str, content: &str, message: &str) -> String {
        std::fs::write(self.path.join(file), content).expect("write");
        self.git(&["add", file]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }
}
