//! The integration tests, one binary (jj's `tests/runner.rs`): each area is a module
//! in its own file beside this one, so the crate is linked once, not once per file.
//!
//! To add an area: write `tests/<area>.rs` (it reaches the harness with
//! `use crate::common;`, not `mod common;`), add `mod <area>;` below in order, and
//! run it alone with `cargo test --test runner <area>::`. Snapshots of a module are
//! named after its path: `tests/snapshots/runner__<area>__<name>.snap`.

// The harness and the helpers some areas share.
mod common;
mod library;
mod reliability;
mod render;

// The areas, in alphabetical order.
mod agents;
mod bd_compat;
mod bd_rest;
mod bd_scripts;
mod bd_tools;
mod beads_cli;
mod beads_errors;
mod beads_mcp_suite;
mod board;
mod claims;
mod commit_notes;
mod completions;
mod concurrency;
mod doctor;
mod faults;
mod fleet;
mod formulas_toml;
mod fuzz;
mod gastown;
mod git_citizen;
mod git_hook;
mod graph;
mod group_commit;
mod harness;
mod harnesses;
mod history;
mod hooks;
mod hostile;
mod hostile_remote;
mod housekeeping;
mod import;
mod import_stream;
mod init_anywhere;
mod install;
mod layering;
mod load;
mod mail;
mod man;
mod mcp;
mod molecules;
mod notes_queue;
mod ops_agents;
mod ops_beads;
mod ops_molecules;
mod ops_sync;
mod query;
mod readme;
mod render_agents;
mod render_changes;
mod render_errors;
mod render_queries;
mod render_setup;
mod render_store;
mod render_team;
mod render_work;
mod session_usage;
mod setups;
mod signing;
mod smoke;
mod snapshots;
mod ssh;
mod stale;
mod store_git;
mod sync;
mod sync_bulk;
mod sync_faults;
mod sync_prop;
mod tail;
mod terminal_escapes;
mod town;
mod travelling_index;
mod verify;
mod who_acts;
mod wire;
