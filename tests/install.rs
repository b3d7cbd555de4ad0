//! The README's one install command works: it is read from README.md and run for real
//! into a temporary root (with `--root`, `--offline` and `--debug` added, so that it
//! reuses this build and needs no network), then `git beads` runs from a repository and
//! `git help beads` / `git beads --help` open the manual page.

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The install command of the README: the line in its Install section that runs
/// `cargo install`, split at `&&` into the steps it runs.
fn readme_install_steps() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(Path::new(MANIFEST_DIR).join("README.md"))
        .expect("README.md exists");
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Install"))
        .expect("README has an Install section");
    let line = section
        .lines()
        .find(|l| l.trim_start().starts_with("cargo install"))
        .expect("the Install section has a `cargo install` line");
    line.split("&&")
        .map(|step| step.split_whitespace().map(str::to_owned).collect())
        .collect()
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("command runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn path_with(bin: &Path) -> OsString {
    let mut paths = vec![bin.to_owned()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH joins")
}

/// A command as a user would run it after the install: the installed binary first on
/// PATH, no MANPATH (as on a fresh Debian), pages printed instead of paged.
fn user_command(program: &str, home: &Path, bin: &Path, cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    common::hermetic(&mut cmd, home);
    cmd.env("PATH", path_with(bin))
        .env_remove("MANPATH")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .env_remove("GIT_PAGER")
        .current_dir(cwd);
    cmd
}

#[test]
fn readme_install_command_gives_git_beads_and_its_manual() {
    let steps = readme_install_steps();
    assert_eq!(steps.len(), 2, "cargo install, then install-man: {steps:?}");
    assert_eq!(steps[1], ["git", "beads", "install-man"], "{steps:?}");

    let sb = common::Sandbox::new();
    let root: PathBuf = sb.path().join("prefix");
    let bin = root.join("bin");

    // Step 1, as written, into a temp root; --debug and --offline reuse this build.
    let started = std::time::Instant::now();
    // The one command with the caller's environment: cargo needs its toolchain's
    // (CARGO_HOME, RUSTUP_HOME), and it only builds; what is tested runs hermetic.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .args(&steps[0][1..])
        .args([
            "--root",
            root.to_str().expect("utf-8"),
            "--offline",
            "--debug",
        ])
        .current_dir(MANIFEST_DIR));
    eprintln!("cargo install took {:.1?}", started.elapsed());
    assert!(bin.join("git-beads").exists());

    // Step 2, through git, as a user types it.
    let repo = sb.repo("work", "alice");
    let out = run(user_command("git", sb.path(), &bin, &repo.path).args(&steps[1][1..]));
    let pages = root.join("share/man/man1");
    assert!(
        pages.join("git-beads.1").exists(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(pages.join("git-beads-create.1").exists());

    // `git beads` works from a repository.
    let out = run(user_command("git", sb.path(), &bin, &repo.path).args(["beads", "--version"]));
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(version.starts_with("bd version "), "{version}");
    assert!(
        version.ends_with(&format!("(git-beads {})", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    run(user_command("git", sb.path(), &bin, &repo.path).args(["beads", "init"]));

    if !common::installed("man") {
        eprintln!("note: man is not installed here; the pages were installed but not looked up");
        return;
    }
    let out = run(user_command("man", sb.path(), &bin, &repo.path).args(["-w", "git-beads"]));
    assert_eq!(
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        pages.join("git-beads.1"),
        "man finds the page through PATH"
    );
    for args in [&["help", "beads"][..], &["beads", "--help"]] {
        let out = run(user_command("git", sb.path(), &bin, &repo.path).args(args));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("GIT-BEADS(1)"),
            "git {args:?} shows the page:\n{text}"
        );
    }
    let out = run(user_command("man", sb.path(), &bin, &repo.path).arg("git-beads-import"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("GIT-BEADS-IMPORT(1)"),
        "each command has its page:\n{text}"
    );
    let out = run(user_command("git", sb.path(), &bin, &repo.path).args(["help", "beads"]));
    let text = String::from_utf8_lossy(&out.stdout);
    for section in ["STORAGE", "EXIT STATUS", "ENVIRONMENT", "JSON OUTPUT"] {
        assert!(text.contains(section), "{section} is in the page");
    }
}
