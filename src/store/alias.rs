//! The ids this clone minted that a merge renumbered: a local file of aliases, so
//! the old id goes on naming the bead this clone made under it.

use std::collections::BTreeMap;

use super::{Store, StoreError, io_err, replace_file};
use crate::model::BeadId;

/// The file under the local beads directory that holds the aliases, one
/// `OLD NEW` pair a line.
const ALIASES_FILE: &str = "aliases";

impl Store {
    /// The aliases this clone keeps: old id → the bead it names here now. A line
    /// that does not hold two ids is skipped (the file is this clone's own, and a
    /// torn line only loses an alias).
    pub(crate) fn aliases(&self) -> Result<BTreeMap<BeadId, BeadId>, StoreError> {
        let path = self.local_dir().join(ALIASES_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(e) => return Err(io_err(format!("read {}", path.display()))(e)),
        };
        Ok(text
            .lines()
            .filter_map(|line| {
                let (old, new) = line.split_once(' ')?;
                Some((BeadId::parse(old).ok()?, BeadId::parse(new).ok()?))
            })
            .collect())
    }

    /// Records `found` (old id, new id) among the aliases; a later alias of an old
    /// id replaces an earlier one.
    pub(crate) fn add_aliases(&self, found: &[(BeadId, BeadId)]) -> Result<(), StoreError> {
        let mut all = self.aliases()?;
        all.extend(found.iter().cloned());
        let text: String = all
            .iter()
            .map(|(old, new)| format!("{old} {new}\n"))
            .collect();
        let path = self.local_dir().join(ALIASES_FILE);
        std::fs::create_dir_all(self.local_dir()).map_err(io_err("create the beads directory"))?;
        replace_file(&path, text.as_bytes(), true)
            .map_err(io_err(format!("write {}", path.display())))
    }
}
