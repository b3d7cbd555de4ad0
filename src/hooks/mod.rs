//! Hooks: harness hooks (Claude Code's, Codex CLI's and Gemini CLI's settings) and, with them, the git hook shims.

pub mod git;
pub mod harness;
pub mod install;
pub mod mcp;
pub mod trust;

/// A settings or hook file that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("could not {what} {path}: {source}")]
pub struct FileError {
    /// What was being done (`read`, `write`, `create`, `remove`).
    pub what: &'static str,
    /// The file.
    pub path: std::path::PathBuf,
    /// The I/O error.
    #[source]
    pub source: std::io::Error,
}

impl FileError {
    /// The error of doing `what` to `path`, for `map_err`.
    pub fn on(what: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_owned();
        move |source| FileError { what, path, source }
    }
}
