//! Helpers shared by the reliability tests (faults, load, hostile input and
//! remotes): child processes with a hang detector, mounts that are always
//! unmounted, process-group kills, and snapshots of what must never change.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::Repo;

/// Whether the long (stress) counts were asked for: `GIT_BEADS_STRESS=1`, the
/// variable every long-running test of the suite reads.
pub fn stress() -> bool {
    std::env::var("GIT_BEADS_STRESS").is_ok_and(|v| v == "1")
}

/// `ci` normally, `full` under `GIT_BEADS_STRESS=1`.
pub fn count(ci: usize, full: usize) -> usize {
    if stress() { full } else { ci }
}

/// How long a child may run before the test calls it hung. Generous: this is a hang
/// detector, never a performance assertion.
pub const HANG: Duration = Duration::from_secs(180);

/// Waits for `child`, collecting its output; kills it and fails the test when it
/// runs longer than `limit` (it hung).
pub fn wait_limited(mut child: Child, limit: Duration, what: &str) -> Output {
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait().expect("wait for child") {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} hung: still running after {limit:?}");
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}

/// Runs `cmd` with piped output under the hang detector.
pub fn run_limited(cmd: &mut Command, what: &str) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: could not start: {e}"));
    wait_limited(child, HANG, what)
}

/// Runs `git beads ARGS` in `repo` under the hang detector.
pub fn beads(repo: &Repo, args: &[&str]) -> Output {
    run_limited(
        &mut repo.beads_command(&[], args),
        &format!("git beads {args:?}"),
    )
}

/// Asserts that a failed run failed the way git-beads fails on purpose: a documented
/// exit code (never a panic's 101 or a signal), an `error:` line (or, under `--json`,
/// a JSON error) first, no panic text.
pub fn assert_clean_failure(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        matches!(code, Some(1..=5)),
        "{what}: exit {:?} (a crash, not a refusal): {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    // Under --json the error is bd's JSON object on stderr instead.
    let clear = |l: &str| {
        l.starts_with("error:")
            || serde_json::from_str::<serde_json::Value>(l)
                .is_ok_and(|v| v["error"].is_string() && v["schema_version"] == 1)
    };
    assert!(
        err.lines().next().is_some_and(clear),
        "{what}: no clear error: {err}"
    );
}

/// A mount that is undone when dropped, also when the test fails.
pub struct Mount {
    path: PathBuf,
}

impl Mount {
    fn run(args: &[&str]) -> Result<(), String> {
        let out = crate::common::tool(args[0])
            .args(&args[1..])
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
    }

    /// A tmpfs of `size` (`"4m"`) at `path`, or `None` (with a note) where mounting
    /// is not permitted.
    pub fn tmpfs(path: &Path, size: &str) -> Option<Mount> {
        std::fs::create_dir_all(path).expect("mount point");
        let p = path.to_str().expect("utf-8 path");
        match Mount::run(&[
            "mount",
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size}"),
            "tmpfs",
            p,
        ]) {
            Ok(()) => Some(Mount {
                path: path.to_owned(),
            }),
            Err(e) => {
                eprintln!("note: skipped, cannot mount a tmpfs here: {e}");
                None
            }
        }
    }

    /// `path` bind-mounted onto itself read-only (root ignores file modes, a read-only
    /// mount it cannot ignore), or `None` (with a note) where that is not permitted.
    pub fn read_only(path: &Path) -> Option<Mount> {
        let p = path.to_str().expect("utf-8 path");
        if let Err(e) = Mount::run(&["mount", "--bind", p, p]) {
            eprintln!("note: skipped, cannot bind-mount here: {e}");
            return None;
        }
        let mount = Mount {
            path: path.to_owned(),
        };
        if let Err(e) = Mount::run(&["mount", "-o", "remount,ro,bind", p]) {
            eprintln!("note: skipped, cannot remount read-only here: {e}");
            return None;
        }
        Some(mount)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let p = self.path.to_str().expect("utf-8 path");
        if Mount::run(&["umount", p]).is_err() {
            // Busy (a child still has a file open): detach it now, it goes when freed.
            let _ = Mount::run(&["umount", "-l", p]);
        }
    }
}

/// Sends SIGKILL to every process of process group `pgid`.
pub fn kill_group(pgid: u32) {
    let _ = crate::common::tool("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// Whether any process of group `pgid` is still alive.
pub fn group_alive(pgid: u32) -> bool {
    crate::common::tool("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Waits until process group `pgid` is gone (orphaned children of a killed process
/// finish their work), killing it when it takes longer than the hang limit.
pub fn wait_group(pgid: u32) {
    let start = Instant::now();
    while group_alive(pgid) {
        if start.elapsed() > HANG {
            kill_group(pgid);
            panic!("process group {pgid} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Every ref outside the beads namespaces (`refs/beads/`, `refs/notes/beads`), with
/// what it points at, plus HEAD.
pub fn refs_outside_beads(repo: &Repo) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = repo
        .git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/beads/") && !l.starts_with("refs/notes/beads "))
        .map(str::to_owned)
        .collect();
    out.insert(format!("HEAD {}", repo.git(&["rev-parse", "HEAD"]).trim()));
    out
}

/// Every file and directory around the repository, outside `.git` (paths relative
/// to `root`, with sizes), and the repository's hooks and config: what a hostile
/// remote must never write.
pub fn files_outside_git(root: &Path, repo: &Repo) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git" && !e.path().ends_with("remote.git"))
        .filter_map(Result::ok)
    {
        let meta = entry.path().symlink_metadata().expect("stat");
        out.insert(format!(
            "{} {} {}",
            entry
                .path()
                .strip_prefix(root)
                .unwrap_or(entry.path())
                .display(),
            if meta.is_dir() { 0 } else { meta.len() },
            meta.file_type().is_symlink()
        ));
    }
    let git = repo.path.join(".git");
    for entry in walkdir::WalkDir::new(git.join("hooks"))
        .into_iter()
        .filter_map(Result::ok)
    {
        out.insert(format!("hook {}", entry.path().display()));
    }
    out.insert(format!(
        "config {}",
        std::fs::read_to_string(git.join("config")).unwrap_or_default()
    ));
    out
}

/// The documents at `paths` of the tree `rev` names, read in one `git cat-file --batch`.
pub fn read_docs(repo: &Repo, rev: &str, paths: &[String]) -> Vec<Option<Vec<u8>>> {
    use std::io::Write;
    let mut child = repo
        .command("git")
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("git cat-file");
    let mut input = Vec::new();
    for p in paths {
        input.extend_from_slice(format!("{rev}:{p}\n").as_bytes());
    }
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("cat-file ends");
    feeder.join().expect("feeder").expect("feed cat-file");
    let mut rest = out.stdout.as_slice();
    let mut docs = Vec::new();
    for _ in paths {
        let nl = rest.iter().position(|b| *b == b'\n').expect("header line");
        let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
        rest = &rest[nl + 1..];
        if header.ends_with(" missing") {
            docs.push(None);
            continue;
        }
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad cat-file header {header:?}"));
        docs.push(Some(rest[..size].to_vec()));
        rest = &rest[size + 1..];
    }
    docs
}

/// Asserts `git fsck` is clean in the bare repository at `git_dir`.
pub fn assert_bare_fsck_clean(repo: &Repo, git_dir: &Path) {
    let out = repo
        .command("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["fsck", "--no-dangling", "--no-progress"])
        .output()
        .expect("git fsck runs");
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "git fsck of {}: {}\n{}",
        git_dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
