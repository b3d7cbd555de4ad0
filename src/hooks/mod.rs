//! Hooks: harness hooks (Claude Code's, Codex CLI's and Gemini CLI's settings) and, with them, the git hook shims.

pub mod git;
pub mod harness;
pub mod install;
