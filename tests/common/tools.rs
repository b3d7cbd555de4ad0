//! The outside tools some tests drive, installed under `target/bd-tools/` as `.ci/tools`
//! installs them (reused when they are there): a virtualenv with bd's beads-mcp and
//! the official MCP Python SDK, and npm packages. Where one cannot be had the test
//! says so on stderr and passes, except with `CI=true`, where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The pinned version of beads-mcp.
pub const BEADS_MCP: &str = "beads-mcp==1.3.2";

/// Where the tools are installed: `target/bd-tools/NAME`.
pub fn cache(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bd-tools")
        .join(name)
}

/// Runs an install step; its stderr is the reason when it fails.
pub fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Whether `program` is on PATH; outside CI a test without it says so on stderr (and
/// passes), with `CI=true` it fails, since `.ci/tools` (run by `.ci/run`) installs what the tests use.
pub fn on_path(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|d| d.join(program).is_file()) {
        return true;
    }
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "CI=true and {program} is missing"
    );
    eprintln!("skipping: {program} is not installed");
    false
}

/// A new ed25519 key pair without a passphrase at `path` (its public half at
/// `path.pub`), made by ssh-keygen in `sb`.
pub fn ssh_keygen(sb: &super::Sandbox, path: &Path) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("key");
    let out = sb.run(
        sb.path(),
        "ssh-keygen",
        &[
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            name,
            "-f",
            path.to_str().expect("utf-8 path"),
        ],
    );
    assert!(out.status.success(), "ssh-keygen: {out:?}");
}

/// A new ed25519 key pair without a passphrase at `~/.ssh/NAME` of the sandbox's
/// HOME; the path of its private half.
pub fn ssh_key(sb: &super::Sandbox, name: &str) -> std::path::PathBuf {
    let dir = sb.path().join(".ssh");
    std::fs::create_dir_all(&dir).expect("mkdir .ssh");
    let path = dir.join(name);
    ssh_keygen(sb, &path);
    path
}

/// A new sandbox with a new key pair at `~/.ssh/NAME` of its HOME (see [`ssh_key`]);
/// `None` when ssh-keygen is missing (see [`on_path`]: said, or failing with
/// `CI=true`).
pub fn sandbox_with_key(name: &str) -> Option<(super::Sandbox, std::path::PathBuf)> {
    if !on_path("ssh-keygen") {
        return None;
    }
    let sb = super::Sandbox::new();
    let key = ssh_key(&sb, name);
    Some((sb, key))
}

/// What an install gave, or `None` (with a visible reason) when the tool cannot be
/// had outside CI.
pub fn or_skip<T>(tool: &str, installed: Result<T, String>) -> Option<T> {
    match installed {
        Ok(found) => Some(found),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true and {tool} cannot be installed: {why}")
        }
        Err(why) => {
            eprintln!("skipping: {tool} cannot be installed here: {why}");
            None
        }
    }
}

/// Whether `python` has beads-mcp at its pinned version and the MCP client.
fn python_ready(python: &Path) -> bool {
    Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m, mcp.client.stdio; \
             assert m.version('beads-mcp') == '1.3.2'",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The virtualenv's python, with beads-mcp and the MCP Python SDK; made unless it is
/// there, or why it could not be.
pub fn python_tools() -> Result<PathBuf, String> {
    let dir = cache("venv");
    let python = dir.join("bin/python");
    if python_ready(&python) {
        return Ok(python);
    }
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&dir),
        "python3 -m venv",
    )?;
    run(
        Command::new(&python).args(["-m", "pip", "install", "-q", BEADS_MCP, "mcp"]),
        "pip install",
    )?;
    match python_ready(&python) {
        true => Ok(python),
        false => Err("beads-mcp or mcp is not importable after pip install".to_owned()),
    }
}

/// The name of [`BEADS_MCP`]'s sdist, and of the folder it unpacks to.
const BEADS_MCP_SDIST: &str = "beads_mcp-1.3.2";

/// pytest and its asyncio plugin, pinned, for beads-mcp's own test suite.
pub const PYTEST: [&str; 2] = ["pytest==9.2.0", "pytest-asyncio==1.5.0"];

/// beads-mcp's own test suite: the folder of the sdist of the pinned release on PyPI
/// (its `tests/` are the ones its maintainers run against a real `bd`), with pytest in
/// the virtualenv of [`python_tools`]; fetched unless it is there. Returns the python
/// and the folder, or why they could not be had.
pub fn beads_mcp_suite() -> Result<(PathBuf, PathBuf), String> {
    let python = python_tools()?;
    let has_pytest = |python: &Path| {
        Command::new(python)
            .args(["-c", "import pytest, pytest_asyncio"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has_pytest(&python) {
        run(
            Command::new(&python)
                .args(["-m", "pip", "install", "-q"])
                .args(PYTEST),
            "pip install pytest",
        )?;
    }
    let dir = cache("sdist");
    let suite = dir.join(BEADS_MCP_SDIST);
    if !suite.join("tests").is_dir() {
        run(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                ])
                .arg(BEADS_MCP)
                .arg("-d")
                .arg(&dir),
            "pip download (the sdist)",
        )?;
        let archive = dir.join(format!("{BEADS_MCP_SDIST}.tar.gz"));
        run(
            Command::new("tar")
                .arg("xzf")
                .arg(&archive)
                .arg("-C")
                .arg(&dir),
            "tar xzf (the sdist)",
        )?;
    }
    match has_pytest(&python) && suite.join("tests").is_dir() {
        true => Ok((python, suite)),
        false => Err("pytest or the sdist's tests are not there after installing".into()),
    }
}

/// The folder of npm package `name` at `version`, installed into `target/bd-tools/npm`
/// unless it is there; or why it could not be.
pub fn npm_package(name: &str, version: &str) -> Result<PathBuf, String> {
    let dir = cache("npm");
    let pkg = dir.join("node_modules").join(name);
    let ready = |pkg: &Path| {
        std::fs::read_to_string(pkg.join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|manifest| manifest["version"] == version)
    };
    if ready(&pkg) {
        return Ok(pkg);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("{name}@{version}")),
        "npm install",
    )?;
    match ready(&pkg) {
        true => Ok(pkg),
        false => Err(format!("{name} {version} is not there after npm install")),
    }
}
