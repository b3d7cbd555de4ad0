//! The bead core: the primitives every use case builds on (reading and querying the
//! beads, the project's words and settings).

pub(crate) mod config;
pub(crate) mod query;

use super::{BeadError, Changes, ErrorKind, Result, agent, beads, claim, close, meta, now, write};
use config::vocabulary;
