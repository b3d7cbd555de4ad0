//! One module per command, or per noun with its verbs.

pub mod agent;
pub mod comments;
pub mod completions;
pub mod create;
pub mod dep;
pub mod doctor;
pub mod export;
pub mod formula;
pub mod gc;
pub mod hooks;
pub mod import;
pub mod init;
pub mod install_man;
pub mod label;
pub mod list;
pub mod log;
pub mod mail;
pub mod mol;
pub mod provenance;
pub mod remote;
pub mod resolve;
pub mod session;
pub mod setup;
pub mod show;
pub mod sling;
pub mod sync;
pub mod update;
pub mod worktree;

use crate::model::{BeadId, DepKind, Dependency};

/// The data formats `import` reads and `export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The beads `bd` tracker's JSONL (one issue per line, `.beads/issues.jsonl`).
    BdJsonl,
    /// git-beads' own documents, each introduced by `---`: lossless.
    Yaml,
}

impl From<Format> for crate::ops::DataFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::BdJsonl => crate::ops::DataFormat::BdJsonl,
            Format::Yaml => crate::ops::DataFormat::Yaml,
        }
    }
}

/// Parses a priority as `0`…`4` or `P0`…`P4`.
pub fn parse_priority(s: &str) -> Result<u8, String> {
    let digits = s.strip_prefix(['P', 'p']).unwrap_or(s);
    match digits.parse::<u8>() {
        Ok(p) if p <= 4 => Ok(p),
        _ => Err(format!(
            "{s:?} is not a priority (0 = critical … 4 = backlog, or P0 … P4)"
        )),
    }
}

/// Parses one dependency, `ID` or `KIND:ID`; a bare id means `blocks`.
pub fn parse_dep(s: &str) -> Result<Dependency, String> {
    let s = s.trim();
    let (kind, id) = match s.split_once(':') {
        Some((k, id)) => (k.parse::<DepKind>().map_err(|e| e.to_string())?, id),
        None => (DepKind::Blocks, s),
    };
    let id = BeadId::parse(id).map_err(|e| e.to_string())?;
    Ok(Dependency { id, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities() {
        assert_eq!(parse_priority("P1"), Ok(1));
        assert_eq!(parse_priority("4"), Ok(4));
        assert!(parse_priority("5").is_err());
        assert!(parse_priority("-1").is_err());
    }

    #[test]
    fn deps() {
        assert_eq!(parse_dep("bd-a1").map(|d| d.kind), Ok(DepKind::Blocks));
        assert_eq!(
            parse_dep(" related:bd-b2").map(|d| d.kind),
            Ok(DepKind::Related)
        );
        assert!(parse_dep("nope:bd-a1").is_err());
        assert!(parse_dep("bd-a1/..").is_err());
    }
}
