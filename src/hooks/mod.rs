//! Hooks: harness hooks (Claude Code's settings) and, with them, the git hook shims.

pub mod claude;
pub mod git;
pub mod install;
