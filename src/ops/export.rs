//! Exporting every bead: as the beads `bd` tracker's JSONL, or as git-beads' own YAML.

use super::Result;
use crate::model::bd::BdRecord;
use crate::store::{Broken, Store, codec};

/// The formats `export` writes and `import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// The JSONL export of the beads `bd` tracker: one issue per line.
    BdJsonl,
    /// git-beads' own documents, each introduced by a `---` line: lossless.
    Yaml,
}

impl DataFormat {
    /// The format's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            DataFormat::BdJsonl => "bd-jsonl",
            DataFormat::Yaml => "yaml",
        }
    }
}

/// An export.
#[derive(Clone, Debug, Default)]
pub struct Export {
    /// The exported text.
    pub text: String,
    /// How many beads it holds.
    pub beads: usize,
    /// Documents that do not parse and so could not be exported.
    pub broken: Vec<Broken>,
}

/// Exports every bead, deleted ones included, sorted by id.
pub fn export(store: &Store, format: DataFormat) -> Result<Export> {
    let head = store.require_head()?;
    let (beads, broken) = store.all_beads(&head)?;
    let mut text = String::new();
    for bead in &beads {
        match format {
            DataFormat::BdJsonl => {
                let line = serde_json::to_string(&BdRecord::from_bead(bead)).map_err(|error| {
                    super::ImportError::Json {
                        id: bead.id.clone(),
                        error,
                    }
                })?;
                text.push_str(&line);
                text.push('\n');
            }
            DataFormat::Yaml => {
                let doc =
                    codec::encode(bead).map_err(|source| crate::store::StoreError::Encode {
                        what: bead.id.to_string(),
                        source,
                    })?;
                text.push_str("---\n");
                text.push_str(&doc);
            }
        }
    }
    Ok(Export {
        text,
        beads: beads.len(),
        broken,
    })
}
