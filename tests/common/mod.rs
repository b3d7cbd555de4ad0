//! The integration-test harness: real git repositories in temp dirs, the real
//! `git-beads` binary reached as `git beads` through PATH, and a hermetic
//! environment: every command starts from an empty one and gets back only PATH,
//! HOME (the sandbox), UTC, the C locale, no colour, no global or system git config
//! and fixed commit dates; identities come from each repository's own config.
#![allow(dead_code)]

pub mod tools;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

/// The binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-beads"))
}

/// PATH with the binary's directory first, so `git beads` runs the binary under test.
pub fn path_env() -> OsString {
    let dir = bin().parent().expect("binary has a directory").to_owned();
    let mut paths = vec![dir];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH joins")
}

/// `program` as a path: itself when it names one, else the first executable file of
/// that name in `path`'s folders (the bare name when there is none, to fail as it
/// would). A command whose environment sets PATH, as every command of the tests' does,
/// copies the whole test process with `fork` unless its program is a path; given a
/// path, std starts it with `posix_spawn`, which copies nothing. The runner, with its
/// many threads and its memory, spent about a seventh of its time copying itself so.
pub fn located(program: &str, path: &OsStr) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    if program.contains('/') {
        return program.into();
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| program.into())
}

/// `git`, found on the tests' PATH, with the hermetic environment and `home` as HOME.
pub fn hermetic_git(home: &Path) -> Command {
    let mut cmd = Command::new(located("git", &path_env()));
    hermetic(&mut cmd, home);
    cmd
}

/// Where git's own programs are (`git --exec-path`).
fn git_exec_path() -> &'static Path {
    static EXEC: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXEC.get_or_init(|| {
        let out = Command::new("git")
            .arg("--exec-path")
            .output()
            .expect("git runs");
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    })
}

/// `path` as `git` hands it to the programs it runs: git's own programs
/// (`git --exec-path`) first.
fn git_path_env(path: &OsStr) -> OsString {
    let mut paths = vec![git_exec_path().to_owned()];
    paths.extend(std::env::split_paths(path));
    std::env::join_paths(paths).expect("PATH joins")
}

/// Empties a command's environment and adds back what every program needs: PATH
/// (with the binary under test first), `LC_ALL=C`, and no stdin. Nothing of the
/// caller's shell reaches the child (jj's TestEnvironment does the same).
fn empty_env(cmd: &mut Command) -> &mut Command {
    cmd.env_clear()
        .env("PATH", path_env())
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
}

/// Applies the hermetic environment to a command: an empty environment (see
/// [`empty_env`]) plus `home` as HOME, UTC, no colour, no global or system git
/// config and fixed commit dates.
pub fn hermetic<'c>(cmd: &'c mut Command, home: &Path) -> &'c mut Command {
    empty_env(cmd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
}

/// A system tool (`mount`, `kill`, `cp`…) that reads no git or git-beads setting,
/// in an empty environment with PATH (see [`empty_env`]).
pub fn tool(program: &str) -> Command {
    let mut cmd = Command::new(located(program, &path_env()));
    empty_env(&mut cmd);
    cmd
}

/// Whether `program` is installed: `program --version` runs and succeeds.
pub fn installed(program: &str) -> bool {
    tool(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A new temporary directory for a test: in memory under `/dev/shm` where the machine
/// has it, else in the system's temporary directory. Tests write thousands of small
/// commits; on a disk each durable write waits for its flush (about 40 ms on ext4
/// here) and every new file searches ext4's inode tables, which together took most of
/// the suite's time. The code under test still asks for every flush it asks for.
pub fn tempdir() -> TempDir {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let root = ROOT.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        match tempfile::tempdir_in(shm) {
            Ok(_) => shm.to_owned(),
            Err(_) => std::env::temp_dir(),
        }
    });
    tempfile::Builder::new()
        .prefix("git-beads-test-")
        .tempdir_in(root)
        .expect("temp dir")
}

/// A scratch area holding one or more repositories.
pub struct Sandbox {
    /// Keeps the directory alive.
    pub dir: TempDir,
}

impl Sandbox {
    /// A new empty sandbox.
    pub fn new() -> Sandbox {
        Sandbox { dir: tempdir() }
    }

    /// The sandbox's root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs a command in `cwd` with the hermetic environment and returns its output.
    pub fn run(&self, cwd: &Path, program: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(located(program, &path_env()));
        hermetic(&mut cmd, self.path());
        cmd.current_dir(cwd)
            .args(args)
            .output()
            .expect("command runs")
    }

    /// Runs `git ARGS` in `cwd` (a repository of the sandbox, bare or not, or the
    /// sandbox itself), asserting success; returns stdout.
    pub fn git(&self, cwd: &Path, args: &[&str]) -> String {
        expect_success(format_args!("git {args:?}"), &self.run(cwd, "git", args))
    }

    /// Runs git in the repository at `git_dir` (bare or not) as `who` (author and
    /// committer), feeding `input`, asserting success; returns stdout, trimmed.
    pub fn plumb(&self, who: &str, git_dir: &Path, args: &[&str], input: &[u8]) -> String {
        let email = format!("{who}@example.com");
        let mut cmd = hermetic_git(self.path());
        cmd.env("GIT_AUTHOR_NAME", who)
            .env("GIT_AUTHOR_EMAIL", &email)
            .env("GIT_COMMITTER_NAME", who)
            .env("GIT_COMMITTER_EMAIL", &email)
            .arg("--git-dir")
            .arg(git_dir)
            .args(args);
        let out = feed(&mut cmd, input);
        expect_success(format_args!("git {args:?}"), &out)
            .trim()
            .to_owned()
    }

    /// The names of the refs under `prefix` in the repository at `dir` (a remote or a
    /// clone).
    pub fn ref_names(&self, dir: &Path, prefix: &str) -> Vec<String> {
        self.git(dir, &["for-each-ref", "--format=%(refname)", prefix])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// A bare repository at `name`, for use as a remote.
    pub fn bare(&self, name: &str) -> PathBuf {
        let path = self.path().join(name);
        self.git(
            self.path(),
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                path.to_str().expect("utf-8"),
            ],
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
            env: Vec::new(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.configure();
        std::fs::write(repo.path.join("README"), "hello\n").expect("write");
        repo.git(&["add", "README"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    /// A new repository at `name` (see [`Sandbox::repo`]) with a store made by
    /// `git beads init --prefix bd`.
    pub fn repo_with_store(&self, name: &str, user: &str) -> Repo {
        let repo = self.repo(name, user);
        repo.init();
        repo
    }

    /// The usual subject of a test: a repository `work`, identity `alice`, with a
    /// store (prefix `bd`).
    pub fn store(&self) -> Repo {
        self.repo_with_store("work", "alice")
    }

    /// A new sandbox and its [`Sandbox::store`].
    pub fn with_store() -> (Sandbox, Repo) {
        let sb = Sandbox::new();
        let repo = sb.store();
        (sb, repo)
    }

    /// A clone of `remote` at `name`, identity `user`.
    pub fn clone(&self, remote: &Path, name: &str, user: &str) -> Repo {
        let path = self.path().join(name);
        self.git(
            self.path(),
            &[
                "clone",
                "-q",
                remote.to_str().expect("utf-8"),
                path.to_str().expect("utf-8"),
            ],
        );
        let repo = Repo {
            path,
            home: self.path().to_owned(),
            user: user.to_owned(),
            env: Vec::new(),
        };
        repo.configure();
        repo
    }

    /// A clone of `remote` at `name`, identity `user`, that has run `git beads sync`
    /// (and so adopted the remote's store).
    pub fn synced_clone(&self, remote: &Path, name: &str, user: &str) -> Repo {
        let repo = self.clone(remote, name, user);
        repo.sync();
        repo
    }

    /// A bare remote `remote.git` and a clone of it at `name` (identity `alice`)
    /// that pushed one code commit to `main`; no store yet.
    pub fn remote_with_code(&self, name: &str) -> (PathBuf, Repo) {
        let remote = self.bare("remote.git");
        let first = self.clone(&remote, name, "alice");
        first.commit_file("README", "code\n", "code");
        first.git(&["push", "-q", "origin", "HEAD:main"]);
        (remote, first)
    }

    /// [`Sandbox::remote_with_code`], where the clone then made the store (prefix
    /// `bd`) and pushed it with `git beads sync`.
    pub fn remote_with_store(&self, name: &str) -> (PathBuf, Repo) {
        let (remote, first) = self.remote_with_code(name);
        first.init();
        let v = first.sync();
        assert_eq!(v["pushed"], true, "{v}");
        (remote, first)
    }

    /// Two clones sharing one bead: [`Sandbox::remote_with_store`]'s `c1`, which
    /// then created the bead `title` (`create` flags `extra`) and synced, and `c2`
    /// (bob), a [`Sandbox::synced_clone`] made after that. Returns both clones and
    /// the bead's id.
    pub fn two_clones_sharing(&self, title: &str, extra: &[&str]) -> (Repo, Repo, String) {
        let (remote, c1) = self.remote_with_store("c1");
        let id = c1.create(title, extra);
        c1.sync();
        let c2 = self.synced_clone(&remote, "c2", "bob");
        (c1, c2, id)
    }
}

/// A working repository inside a sandbox.
pub struct Repo {
    /// The worktree's top directory.
    pub path: PathBuf,
    home: PathBuf,
    /// The identity commands run as (user.name; email is `<user>@example.com`).
    pub user: String,
    /// Environment variables set for every command run here (see [`Repo::with_env`]).
    env: Vec<(OsString, OsString)>,
}

impl Repo {
    /// A repository (or linked worktree) that already exists at `path`.
    pub fn at(sb: &Sandbox, path: &Path, user: &str) -> Repo {
        Repo {
            path: path.to_owned(),
            home: sb.path().to_owned(),
            user: user.to_owned(),
            env: Vec::new(),
        }
    }

    /// This repository with `key=value` set for every command run in it, on top of
    /// the hermetic environment.
    pub fn with_env(mut self, key: &str, value: impl AsRef<OsStr>) -> Repo {
        self.env.push((key.into(), value.as_ref().to_owned()));
        self
    }

    fn configure(&self) {
        self.git(&["config", "user.name", &self.user]);
        self.git(&[
            "config",
            "user.email",
            &format!("{}@example.com", self.user),
        ]);
    }

    /// The PATH of this repository's commands: its own, or the tests' (see [`path_env`]).
    fn path_var(&self) -> OsString {
        (self.env.iter().rev())
            .find(|(k, _)| k == "PATH")
            .map_or_else(path_env, |(_, v)| v.clone())
    }

    /// A command in this repository with the hermetic environment.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(located(program, &self.path_var()));
        hermetic(&mut cmd, &self.home);
        cmd.current_dir(&self.path);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// Runs `git ARGS`, asserting success; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        expect_success(format_args!("git {args:?}"), &self.git_output(args))
    }

    /// A `git beads ARGS` command with extra environment variables and stdout and
    /// stderr piped, to run, spawn or adjust further. It starts the binary as `git`
    /// would (by the name `git-beads`, with git's programs first on PATH) without the
    /// `git` process in between, which cost as much again as the command itself; the
    /// README's, the guide's and the manual's examples go through `git`.
    pub fn beads_command(&self, env: &[(&str, &str)], args: &[&str]) -> Command {
        let mut cmd = self.command(bin().to_str().expect("utf-8 path"));
        cmd.arg0("git-beads")
            .env("PATH", git_path_env(&self.path_var()))
            .envs(env.iter().copied())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs `git beads ARGS` and returns the raw output.
    pub fn beads_output(&self, args: &[&str]) -> Output {
        self.beads_output_env(&[], args)
    }

    /// Runs `git beads ARGS`, asserting success; returns stdout.
    pub fn beads(&self, args: &[&str]) -> String {
        expect_success(format_args!("git beads {args:?}"), &self.beads_output(args))
    }

    /// Runs `git beads --json ARGS`, asserting success; returns the parsed document.
    pub fn beads_json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.beads(&all);
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("bad JSON from {args:?}: {e}\n{text}"));
        if !v.is_array() {
            assert_eq!(v["schema_version"], 1, "every JSON object is versioned");
        }
        v
    }

    /// Runs `git beads ARGS`, asserting failure; returns (exit code, stderr).
    pub fn beads_fail(&self, args: &[&str]) -> (i32, String) {
        let (code, _, stderr) = self.beads_fail_with_stdout(args);
        (code, stderr)
    }

    /// Runs `git beads ARGS`, asserting failure; returns (exit code, stdout, stderr).
    pub fn beads_fail_with_stdout(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.beads_output(args);
        assert!(
            !out.status.success(),
            "git beads {args:?} should have failed, printed {}",
            String::from_utf8_lossy(&out.stdout)
        );
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `git beads init` with prefix `bd`.
    pub fn init(&self) {
        self.beads(&["init", "--prefix", "bd"]);
    }

    /// Creates agent `lead` and, acting as lead, its child `child`, which may only do
    /// `can` (a comma-separated list of capabilities).
    pub fn lead_and_child(&self, child: &str, can: &str) {
        self.beads(&["agent", "create", "lead"]);
        self.beads(&["--as", "lead", "agent", "create", child, "--can", can]);
    }

    /// Creates a bead and returns its id.
    pub fn create(&self, title: &str, extra: &[&str]) -> String {
        let mut args = vec!["create", title];
        args.extend_from_slice(extra);
        self.beads(&args).trim().to_owned()
    }

    /// The commit `refs/beads/main` points at. Many tests ask before and after every
    /// command, so it is read from the ref files as git keeps them (a loose ref, else
    /// `packed-refs`) in a repository of its own, and asked of git elsewhere.
    pub fn store_head(&self) -> String {
        const STORE: &str = "refs/beads/main";
        let dir = self.path.join(".git");
        let loose = std::fs::read_to_string(dir.join(STORE)).ok();
        let packed = || {
            let text = std::fs::read_to_string(dir.join("packed-refs")).ok()?;
            text.lines()
                .find_map(|l| l.strip_suffix(STORE)?.strip_suffix(' ').map(str::to_owned))
        };
        match loose.map(|l| l.trim().to_owned()).or_else(packed) {
            Some(id) if dir.is_dir() && id.len() == 40 => id,
            _ => self.git(&["rev-parse", STORE]).trim().to_owned(),
        }
    }

    /// Every bead in the store (any status and type, infrastructure and gates too; not
    /// this machine's wisps), as JSON summaries.
    pub fn all_beads(&self) -> Vec<Value> {
        let v = self.beads_json(&[
            "list",
            "--all",
            "--include-infra",
            "--include-gates",
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
        (items(&v).iter())
            .filter(|b| b["ephemeral"] != Value::Bool(true))
            .cloned()
            .collect()
    }

    /// One string field (`id`, `title`…) of every bead in the store (any status),
    /// in listing order.
    pub fn listed(&self, field: &str) -> Vec<String> {
        self.all_beads()
            .iter()
            .map(|b| b[field].as_str().expect(field).to_owned())
            .collect()
    }

    /// `git beads sync` (with `--json`); returns its report.
    pub fn sync(&self) -> Value {
        self.beads_json(&["sync"])
    }

    /// Creates the agent `name` (`agent create NAME EXTRA…`) and binds this
    /// worktree to it.
    pub fn bind_new_agent(&self, name: &str, extra: &[&str]) {
        let mut args = vec!["agent", "create", name];
        args.extend_from_slice(extra);
        self.beads(&args);
        self.beads(&["agent", "bind", name]);
    }

    /// An agent `rig/nux` bound here with a session running (model opus) and a bead on
    /// its hook; returns the bead and the session.
    pub fn agent_at_work(&self) -> (String, String) {
        let bead = self.create("Fix the login page", &["-p", "1"]);
        self.beads(&["agent", "create", "rig/nux", "--role", "polecat"]);
        self.beads(&["sling", &bead, "rig/nux"]);
        self.beads(&["agent", "bind", "rig/nux"]);
        let session = self.start_session(&["--model", "opus"]);
        (bead, session)
    }

    /// Starts a session (`session start EXTRA…`) and returns its id.
    pub fn start_session(&self, extra: &[&str]) -> String {
        let mut args = vec!["session", "start"];
        args.extend_from_slice(extra);
        self.beads_json(&args)["session"]["id"]
            .as_str()
            .expect("session id")
            .to_owned()
    }

    /// How many commits `rev` reaches (`git rev-list --count REV`).
    pub fn commit_count(&self, rev: &str) -> usize {
        self.git(&["rev-list", "--count", rev])
            .trim()
            .parse()
            .expect("a count")
    }

    /// The commit `HEAD` points at.
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
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

/// The strings of a JSON array, in order; panics on anything else.
pub fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().expect("string").to_owned())
        .collect()
}

/// A bead's labels (none when the field is absent, as it is for a bead without any).
pub fn labels(bead: &Value) -> Vec<String> {
    if bead["labels"].is_null() {
        Vec::new()
    } else {
        strs(&bead["labels"])
    }
}

/// A bead's dependencies as (id, type) pairs, in order: from a bead in full (the
/// beads depended on, with `dependency_type`) or a list item (bd's records).
pub fn dep_pairs(bead: &Value) -> Vec<(String, String)> {
    bead["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .map(|d| {
            let id = d.get("depends_on_id").unwrap_or(&d["id"]);
            let kind = d.get("dependency_type").unwrap_or(&d["type"]);
            (
                id.as_str().expect("id").to_owned(),
                kind.as_str().expect("type").to_owned(),
            )
        })
        .collect()
}

/// The items of a JSON list document (a bare array, as bd prints lists).
pub fn items(list: &Value) -> &Vec<Value> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
}

/// The values of `field` that a merge kept in a document's `conflicts:`.
pub fn conflict_values(doc: &Value, field: &str) -> Vec<Value> {
    doc["conflicts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|c| c["field"] == field)
                .map(|c| c["value"].clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The subject (first line of the message) of each entry of a `log` array.
pub fn log_subjects(log: &Value) -> Vec<&str> {
    log.as_array()
        .expect("log")
        .iter()
        .map(|e| {
            e["message"]
                .as_str()
                .expect("message")
                .lines()
                .next()
                .unwrap_or_default()
        })
        .collect()
}

/// The ids in a JSON listing (a bare array), in order.
pub fn ids(listing: &Value) -> Vec<String> {
    items(listing)
        .iter()
        .map(|b| b["id"].as_str().expect("id is a string").to_owned())
        .collect()
}

/// The ids of the objects in the array under `key` of a JSON document
/// (`{"messages": [...]}`, `{"steps": [...]}`…), in order.
pub fn ids_in(doc: &Value, key: &str) -> Vec<String> {
    doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} array: {doc}"))
        .iter()
        .map(|b| b["id"].as_str().expect("id is a string").to_owned())
        .collect()
}

/// The ids of the steps that `mol current --json` (`doc`, bd's array of one
/// molecule) says can be worked now: ready or in progress.
pub fn current_steps(doc: &Value) -> Vec<String> {
    doc[0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no steps: {doc}"))
        .iter()
        .filter(|s| s["status"] == "ready" || s["status"] == "current")
        .map(|s| {
            s["issue"]["id"]
                .as_str()
                .expect("id is a string")
                .to_owned()
        })
        .collect()
}

/// Syncs every clone in turn, twice round, and asserts they all end on one tree;
/// returns that tree.
pub fn converge(clones: &[&Repo]) -> String {
    for _ in 0..2 {
        for c in clones {
            c.sync();
        }
    }
    let tree = clones[0].store_tree();
    for c in clones {
        assert_eq!(
            c.store_tree(),
            tree,
            "{} did not converge",
            c.path.display()
        );
    }
    tree
}

/// A command's standard output, trimmed.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `writers` threads, released together, each running `git beads create` `each` times
/// in `repo`; returns what each printed (the new ids), by writer. Every create must
/// succeed.
pub fn concurrent_creates(repo: &Repo, writers: usize, each: usize) -> Vec<Vec<String>> {
    let start = std::sync::Barrier::new(writers);
    on_threads(0..writers, |w| {
        start.wait();
        (0..each)
            .map(|i| {
                let out = repo.beads_output(&["create", &format!("w{w} b{i}")]);
                assert!(out.status.success(), "writer {w} bead {i}: {out:?}");
                stdout(&out)
            })
            .collect()
    })
}

/// Runs `work` once for each item, each on a thread of its own, all at once; returns
/// the results in the order of the items.
pub fn on_threads<I, T, F>(items: I, work: F) -> Vec<T>
where
    I: IntoIterator,
    I::Item: Send,
    T: Send,
    F: Fn(I::Item) -> T + Sync,
{
    std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = items
            .into_iter()
            .map(|item| s.spawn(move || work(item)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    })
}

/// Asserts that a finished command (`what`, for the message) succeeded, showing its
/// exit status and stderr if not; returns its stdout.
pub fn expect_success(what: impl std::fmt::Display, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Spawns `cmd` with `input` on its stdin (stdout and stderr captured) and waits
/// for it; returns its output.
pub fn feed(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("command spawns");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("feed stdin");
    child.wait_with_output().expect("command finishes")
}

/// The tests that each load every core (many writers at once, killed writers, full
/// disks) take this lock, so that they run one at a time in the one test binary and
/// each one's picture stays clear on a small machine.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Waits until no other heavy test runs; the guard lets the next one in when dropped.
pub fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
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
        self.beads_command(env, args)
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

    /// Adds a linked worktree at `name` next to this repository (on a new branch
    /// of the same name).
    pub fn worktree(&self, name: &str) -> Repo {
        self.worktree_on(name, name)
    }

    /// Adds a linked worktree at `name` next to this repository, on a new branch
    /// `branch`.
    pub fn worktree_on(&self, name: &str, branch: &str) -> Repo {
        let path = self.path.parent().expect("repo has a parent").join(name);
        self.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            branch,
            path.to_str().expect("utf-8"),
        ]);
        Repo {
            path,
            home: self.home.clone(),
            user: self.user.clone(),
            env: self.env.clone(),
        }
    }

    /// Commits `content` at `path` inside the store's tree with git plumbing,
    /// bypassing git-beads (see [`Repo::edit_store`]). Returns the new head.
    pub fn put_raw_doc(&self, path: &str, content: &[u8]) -> String {
        let scratch = tempdir();
        let file = scratch.path().join("doc");
        std::fs::write(&file, content).expect("write doc");
        let blob = self.git(&["hash-object", "-w", file.to_str().expect("utf-8")]);
        self.edit_store(
            &[&["--cacheinfo", &format!("100644,{},{path}", blob.trim())]],
            &format!("edit {path} by hand"),
        )
    }

    /// Applies `update-index --add` edits (`--cacheinfo MODE,OID,PATH`,
    /// `--force-remove PATH`…) to the store's tree with git plumbing
    /// (`read-tree`/`update-index`/`write-tree` on a temporary index, `commit-tree`,
    /// `update-ref`), as one commit with `message`, bypassing git-beads. Returns the
    /// new head.
    pub fn edit_store(&self, edits: &[&[&str]], message: &str) -> String {
        let scratch = tempdir();
        let index = scratch.path().join("index");
        let with_index = |args: &[&str]| {
            let env = [("GIT_INDEX_FILE", index.as_os_str())];
            let out = self.git_output_env(&env, args);
            expect_success(format_args!("git {args:?}"), &out)
                .trim()
                .to_owned()
        };
        let old = self.store_head();
        with_index(&["read-tree", "refs/beads/main"]);
        for e in edits {
            let mut args = vec!["update-index", "--add"];
            args.extend_from_slice(e);
            with_index(&args);
        }
        let tree = with_index(&["write-tree"]);
        let commit = self.git(&["commit-tree", &tree, "-p", &old, "-m", message]);
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
        self.beads_json(&["show", "--all", id])[0].clone()
    }
}

/// Writes `text` at `path`, creating its directory.
pub fn write_file(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

/// Writes an executable script (mode 755) at `path`, creating its directory.
pub fn write_script(path: &Path, text: &str) {
    write_file(path, text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

/// A `bd` in the sandbox's `bin/` that runs `git beads` (with the arguments it was
/// given), for bd's tools and scripts; returns its path.
pub fn bd_shim(sb: &Sandbox) -> PathBuf {
    let shim = sb.path().join("bin/bd");
    write_script(&shim, "#!/bin/sh\nexec git beads \"$@\"\n");
    shim
}

impl Repo {
    /// Runs `git ARGS` with extra environment variables; returns the raw output.
    pub fn git_output_env(&self, env: &[(&str, &OsStr)], args: &[&str]) -> Output {
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

    /// Writes the formula `text` at `rel` in the repository's `.beads/formulas/`
    /// (creating folders); returns its path.
    pub fn formula(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path.join(".beads/formulas").join(rel);
        write_file(&path, text);
        path
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

/// A `git daemon` serving a sandbox on 127.0.0.1, killed when dropped.
pub struct Daemon {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `git daemon` is installed.
pub fn git_daemon_available() -> bool {
    git_exec_path().join("git-daemon").exists()
}

/// Starts a `git daemon` (pushes enabled) serving the sandbox, if it can.
pub fn start_daemon(sb: &Sandbox) -> Option<Daemon> {
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .ok()?;
        // git-daemon itself, not `git daemon`, which runs it as a child of its own
        // that outlived the test when only its parent was stopped.
        let mut cmd = Command::new(git_exec_path().join("git-daemon"));
        let child = hermetic(&mut cmd, sb.path())
            .args([
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--informative-errors",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", sb.path().display()),
                sb.path().to_str()?,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut daemon = Daemon { child, port };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(daemon);
            }
            if let Ok(Some(_)) = daemon.child.try_wait() {
                break; // the port was taken meanwhile: try another
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    None
}

/// Skips a test that needs something this machine lacks, saying so on stderr; with
/// `CI=true` the test fails instead, so CI never passes by skipping.
pub fn skip_or_fail(why: &str) {
    if std::env::var_os("CI").is_some_and(|v| v == "true") {
        panic!("{why} (CI=true: not skipped)");
    }
    eprintln!("note: {why}; skipping");
}
