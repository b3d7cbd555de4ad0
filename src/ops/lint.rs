//! Checking beads against their type's template (`lint`), as bd's `lint` does.

use super::Result;
use super::query::{load_index, show};
use crate::model::{BeadId, BeadType, missing_sections, template};
use crate::store::{Broken, Store};

/// A bead that lacks sections its type's template expects.
#[derive(Clone, Debug)]
pub struct Linted {
    /// The bead.
    pub id: BeadId,
    /// Its title.
    pub title: String,
    /// Its type.
    pub kind: BeadType,
    /// The sections it lacks, in template order ("Acceptance Criteria", …).
    pub missing: Vec<&'static str>,
}

/// What `lint` found.
#[derive(Clone, Debug)]
pub struct LintReport {
    /// How many beads were checked.
    pub checked: usize,
    /// The beads that lack something, by id.
    pub findings: Vec<Linted>,
    /// Documents in the store that do not parse, when every bead was checked.
    pub broken: Vec<Broken>,
}

/// Checks beads `ids` (when empty: every unfinished bead whose type has a template)
/// for the sections their type's template expects: steps to reproduce and acceptance
/// criteria for a bug, acceptance criteria for a task or feature, success criteria
/// for an epic.
pub fn lint(store: &Store, ids: &[BeadId]) -> Result<LintReport> {
    let mut broken = Vec::new();
    let ids: Vec<BeadId> = if ids.is_empty() {
        let index = load_index(store)?;
        broken = index.broken().to_vec();
        let mut all: Vec<BeadId> = index
            .rows()
            .filter(|s| !s.status().is_done() && !template(s.kind()).is_empty())
            .filter_map(|s| BeadId::parse(s.id()).ok())
            .collect();
        all.sort();
        all
    } else {
        ids.to_vec()
    };
    let beads = show(store, &ids)?;
    let findings = beads
        .iter()
        .filter_map(|b| {
            let missing = missing_sections(b);
            (!missing.is_empty()).then(|| Linted {
                id: b.id.clone(),
                title: b.title.clone(),
                kind: b.kind,
                missing,
            })
        })
        .collect();
    Ok(LintReport {
        checked: beads.len(),
        findings,
        broken,
    })
}
