//! The derived index: a compact, disposable summary of every bead, cached under the
//! common git dir and keyed by the tree it was built from.
//!
//! Reads load it instead of parsing every document. When the store has moved, the
//! cached index is brought forward by diffing the tree it was built from against the
//! current one and parsing only the documents that changed. A file that is missing,
//! torn (bad checksum), of another version, or built from a tree that no longer exists
//! is rebuilt from the store; deleting it changes no answer.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{Head, Store, StoreError, codec, io_err, refs, tree};
use crate::model::{Bead, BeadType, Dependency, Status, Timestamp};

const MAGIC: &[u8; 4] = b"GBIX";
const VERSION: u32 = 1;
const HEADER: usize = 4 + 4 + 4;

/// What the index knows of one bead: everything list, ready, blocked and search need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The id.
    pub id: String,
    /// The title.
    pub title: String,
    /// The status.
    pub status: Status,
    /// The priority.
    pub priority: u8,
    /// The type.
    pub kind: BeadType,
    /// The assignee.
    pub assignee: Option<String>,
    /// The labels, sorted.
    pub labels: Vec<String>,
    /// The dependencies, sorted.
    pub dependencies: Vec<Dependency>,
    /// The description (for search).
    pub description: String,
    /// Creation time, microseconds since the epoch.
    pub created_us: i64,
    /// Last change, microseconds since the epoch.
    pub updated_us: i64,
}

impl Summary {
    fn of(bead: &Bead) -> Summary {
        Summary {
            id: bead.id.to_string(),
            title: bead.title.clone(),
            status: bead.status,
            priority: bead.priority,
            kind: bead.kind,
            assignee: bead.assignee.clone(),
            labels: bead.labels.iter().cloned().collect(),
            dependencies: bead.dependencies.clone(),
            description: bead.description.clone(),
            created_us: bead.created_at.timestamp_micros(),
            updated_us: bead.updated_at.timestamp_micros(),
        }
    }

    /// When the bead was made.
    pub fn created_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.created_us).unwrap_or_default()
    }

    /// When the bead last changed.
    pub fn updated_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.updated_us).unwrap_or_default()
    }
}

/// A document that is in the store but does not parse. It is reported, never hidden
/// and never dropped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Broken {
    /// The document's path in the store's tree.
    pub path: String,
    /// Why it does not parse.
    pub error: String,
}

#[derive(Default, Serialize, Deserialize)]
struct Data {
    tree: Vec<u8>,
    beads: Vec<Summary>,
    broken: Vec<Broken>,
}

/// Every bead of one state of the store, sorted by id.
#[derive(Default)]
pub struct Index {
    data: Data,
}

impl Index {
    /// All beads, sorted by id.
    pub fn beads(&self) -> &[Summary] {
        &self.data.beads
    }

    /// The bead with this id.
    pub fn get(&self, id: &str) -> Option<&Summary> {
        self.data
            .beads
            .binary_search_by(|s| s.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.data.beads[i])
    }

    /// Documents that do not parse.
    pub fn broken(&self) -> &[Broken] {
        &self.data.broken
    }

    /// The cached index brought up to `head`, rebuilt when it cannot be trusted.
    pub(super) fn load(store: &Store, ref_name: &str, head: &Head) -> Result<Index, StoreError> {
        let path = file_path(store, ref_name);
        let cached = std::fs::read(&path).ok().and_then(|bytes| parse(&bytes));
        if let Some(data) = &cached
            && data.tree == head.tree.as_bytes()
        {
            return Ok(Index {
                data: cached.unwrap_or_default(),
            });
        }
        let data = match cached.and_then(|d| {
            let from = ObjectId::try_from(d.tree.as_slice()).ok()?;
            store.repo.has_object(from).then_some((from, d))
        }) {
            Some((from, data)) => update(store, data, from, head.tree)?,
            None => rebuild(store, head.tree)?,
        };
        // A cache that cannot be written only costs speed on the next read.
        let _ = save(&path, &data);
        Ok(Index { data })
    }
}

/// One cache file per store ref: `refs/beads/main` → `index-v1-main.bin`.
fn file_path(store: &Store, ref_name: &str) -> PathBuf {
    let tail = ref_name
        .strip_prefix("refs/beads/")
        .unwrap_or(ref_name)
        .replace('/', "-");
    store
        .local_dir()
        .join(format!("index-v{VERSION}-{tail}.bin"))
}

fn parse(bytes: &[u8]) -> Option<Data> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().ok()?);
    let sum = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let payload = &bytes[HEADER..];
    if version != VERSION || crc32fast::hash(payload) != sum {
        return None;
    }
    postcard::from_bytes(payload).ok()
}

fn save(path: &std::path::Path, data: &Data) -> Result<(), StoreError> {
    let payload = postcard::to_stdvec(data).map_err(|e| StoreError::Io {
        context: "encode the index".into(),
        source: std::io::Error::other(e),
    })?;
    let dir = path.parent().unwrap_or(path);
    std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file =
        std::fs::File::create(&tmp).map_err(io_err(format!("create {}", tmp.display())))?;
    file.write_all(MAGIC)
        .and_then(|()| file.write_all(&VERSION.to_le_bytes()))
        .and_then(|()| file.write_all(&crc32fast::hash(&payload).to_le_bytes()))
        .and_then(|()| file.write_all(&payload))
        .map_err(io_err(format!("write {}", tmp.display())))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(io_err(format!("replace {}", path.display())))
}

/// Parses one bead document into the maps, recording it as broken when it does not parse.
fn absorb(
    store: &Store,
    path: String,
    blob: ObjectId,
    beads: &mut BTreeMap<String, Summary>,
    broken: &mut BTreeMap<String, String>,
) -> Result<(), StoreError> {
    let Some(id) = refs::bead_id_of_path(&path).map(str::to_owned) else {
        return Ok(());
    };
    let bytes = store.read_blob(blob)?;
    match codec::decode::<Bead>(&bytes) {
        Ok(bead) if bead.id.as_str() == id => {
            broken.remove(&path);
            beads.insert(id, Summary::of(&bead));
        }
        Ok(bead) => {
            beads.remove(&id);
            broken.insert(
                path,
                format!("its id is {}, but its path names {id}", bead.id),
            );
        }
        Err(e) => {
            beads.remove(&id);
            broken.insert(path, e.to_string());
        }
    }
    Ok(())
}

fn into_data(
    tree: ObjectId,
    beads: BTreeMap<String, Summary>,
    broken: BTreeMap<String, String>,
) -> Data {
    Data {
        tree: tree.as_bytes().to_vec(),
        beads: beads.into_values().collect(),
        broken: broken
            .into_iter()
            .map(|(path, error)| Broken { path, error })
            .collect(),
    }
}

fn rebuild(store: &Store, tree_id: ObjectId) -> Result<Data, StoreError> {
    let mut beads = BTreeMap::new();
    let mut broken = BTreeMap::new();
    let top = tree::entries(&store.repo, tree_id)?;
    if let Some(tree::Node::Tree(dir)) = top.get(refs::BEADS_DIR) {
        let mut blobs = Vec::new();
        tree::walk_blobs(&store.repo, *dir, refs::BEADS_DIR, &mut |p, id| {
            blobs.push((p, id))
        })?;
        for (path, blob) in blobs {
            absorb(store, path, blob, &mut beads, &mut broken)?;
        }
    }
    Ok(into_data(tree_id, beads, broken))
}

fn update(store: &Store, data: Data, from: ObjectId, to: ObjectId) -> Result<Data, StoreError> {
    let mut beads: BTreeMap<String, Summary> =
        data.beads.into_iter().map(|s| (s.id.clone(), s)).collect();
    let mut broken: BTreeMap<String, String> =
        data.broken.into_iter().map(|b| (b.path, b.error)).collect();
    for change in store.diff(Some(from), Some(to))? {
        match change.new {
            Some(blob) => absorb(store, change.path, blob, &mut beads, &mut broken)?,
            None => {
                if let Some(id) = refs::bead_id_of_path(&change.path) {
                    beads.remove(id);
                }
                broken.remove(&change.path);
            }
        }
    }
    Ok(into_data(to, beads, broken))
}
