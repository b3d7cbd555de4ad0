//! git-beads keeps an agent workforce's memory inside the git repository it works on:
//! work items (beads) and the history of every change to them, as ordinary git
//! commits, trees and YAML documents under `refs/beads/`.
//!
//! The crate is a library with a thin binary. The layers import downwards only:
//! [`cli`] → [`wire`] → [`ops`] → [`store`] → [`model`]; ARCHITECTURE.md has the
//! whole table, and `tests/layering.rs` checks it.

pub mod cli;
pub mod hooks;
pub mod mcp;
pub mod merge;
pub mod model;
pub mod ops;
pub mod serve;
pub mod settings;
pub mod store;
pub mod wire;
