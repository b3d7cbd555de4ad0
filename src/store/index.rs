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
use crate::model::{Bead, BeadType, Dependency, Message, Status, Timestamp};

const MAGIC: &[u8; 4] = b"GBIX";
const VERSION: u32 = 2;
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

/// What the index knows of one message: everything inbox, thread and prime need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MailSummary {
    /// The message id.
    pub id: String,
    /// The sender.
    pub from: String,
    /// The subject.
    pub subject: String,
    /// The priority.
    pub priority: u8,
    /// The thread it belongs to.
    pub thread: String,
    /// When it was sent, microseconds since the epoch.
    pub sent_us: i64,
    /// Each recipient and its marks, sorted by recipient.
    pub delivery: Vec<MailMarks>,
}

/// One recipient's marks on a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailMarks {
    /// The recipient.
    pub agent: String,
    /// Read.
    pub read: bool,
    /// Acknowledged.
    pub acked: bool,
    /// Archived.
    pub archived: bool,
}

impl MailSummary {
    fn of(m: &Message) -> MailSummary {
        MailSummary {
            id: m.id.to_string(),
            from: m.from.clone(),
            subject: m.subject.clone(),
            priority: m.priority,
            thread: m.thread.to_string(),
            sent_us: m.sent_at.timestamp_micros(),
            delivery: m
                .delivery
                .iter()
                .map(|(agent, d)| MailMarks {
                    agent: agent.to_string(),
                    read: d.read_at.is_some(),
                    acked: d.acked_at.is_some(),
                    archived: d.archived_at.is_some(),
                })
                .collect(),
        }
    }

    /// `agent`'s marks, if it is a recipient.
    pub fn marks(&self, agent: &str) -> Option<&MailMarks> {
        self.delivery
            .binary_search_by(|m| m.agent.as_str().cmp(agent))
            .ok()
            .map(|i| &self.delivery[i])
    }

    /// When it was sent.
    pub fn sent_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.sent_us).unwrap_or_default()
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
    mail: Vec<MailSummary>,
    broken: Vec<Broken>,
}

/// The index being brought up to date: entries by id, broken documents by path.
#[derive(Default)]
struct Building {
    beads: BTreeMap<String, Summary>,
    mail: BTreeMap<String, MailSummary>,
    broken: BTreeMap<String, String>,
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

    /// All messages, sorted by id.
    pub fn mail(&self) -> &[MailSummary] {
        &self.data.mail
    }

    /// Documents that do not parse.
    pub fn broken(&self) -> &[Broken] {
        &self.data.broken
    }

    /// The cached index brought up to `head`, rebuilt when it cannot be trusted.
    /// An index built from the store alone, ignoring and not touching the cache.
    pub(super) fn fresh(store: &Store, head: &Head) -> Result<Index, StoreError> {
        Ok(Index {
            data: rebuild(store, head.tree)?,
        })
    }

    /// Whether two indexes give the same answers.
    pub fn same_as(&self, other: &Index) -> bool {
        self.data.beads == other.data.beads
            && self.data.mail == other.data.mail
            && self.data.broken == other.data.broken
    }

    /// Throws the cache away and builds it again from the store.
    pub(super) fn rebuild_cache(
        store: &Store,
        ref_name: &str,
        head: &Head,
    ) -> Result<Index, StoreError> {
        let path = file_path(store, ref_name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io_err(format!("remove {}", path.display()))(e));
            }
            _ => {}
        }
        Index::load(store, ref_name, head)
    }

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
    let written = file
        .write_all(MAGIC)
        .and_then(|()| file.write_all(&VERSION.to_le_bytes()))
        .and_then(|()| file.write_all(&crc32fast::hash(&payload).to_le_bytes()))
        .and_then(|()| file.write_all(&payload))
        .map_err(io_err(format!("write {}", tmp.display())));
    drop(file);
    let result = written.and_then(|()| {
        std::fs::rename(&tmp, path).map_err(io_err(format!("replace {}", path.display())))
    });
    if result.is_err() {
        // A half-written cache on a full disk would only take the space it lacked.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Parses one document into the index, recording it as broken when it does not parse.
fn absorb(store: &Store, path: String, blob: ObjectId, b: &mut Building) -> Result<(), StoreError> {
    if let Some(id) = refs::bead_id_of_path(&path).map(str::to_owned) {
        let parsed = codec::decode::<Bead>(&store.read_blob(blob)?)
            .map_err(|e| e.to_string())
            .and_then(|bead| match bead.id.as_str() == id {
                true => Ok(Summary::of(&bead)),
                false => Err(format!("its id is {}, but its path names {id}", bead.id)),
            });
        settle(b, path, id, parsed, |b| &mut b.beads);
    } else if let Some(id) = refs::mail_id_of_path(&path).map(str::to_owned) {
        let parsed = codec::decode::<Message>(&store.read_blob(blob)?)
            .map_err(|e| e.to_string())
            .and_then(|m| match m.id.as_str() == id {
                true => Ok(MailSummary::of(&m)),
                false => Err(format!("its id is {}, but its path names {id}", m.id)),
            });
        settle(b, path, id, parsed, |b| &mut b.mail);
    }
    Ok(())
}

/// Files a parsed entry under its id, or its path under the broken documents.
fn settle<T>(
    b: &mut Building,
    path: String,
    id: String,
    parsed: Result<T, String>,
    map: impl Fn(&mut Building) -> &mut BTreeMap<String, T>,
) {
    match parsed {
        Ok(entry) => {
            b.broken.remove(&path);
            map(b).insert(id, entry);
        }
        Err(e) => {
            map(b).remove(&id);
            b.broken.insert(path, e);
        }
    }
}

fn into_data(tree: ObjectId, b: Building) -> Data {
    Data {
        tree: tree.as_bytes().to_vec(),
        beads: b.beads.into_values().collect(),
        mail: b.mail.into_values().collect(),
        broken: b
            .broken
            .into_iter()
            .map(|(path, error)| Broken { path, error })
            .collect(),
    }
}

fn rebuild(store: &Store, tree_id: ObjectId) -> Result<Data, StoreError> {
    let mut b = Building::default();
    let top = tree::entries(&store.repo, tree_id)?;
    for dir in [refs::BEADS_DIR, refs::MAIL_DIR] {
        if let Some(tree::Node::Tree(sub)) = top.get(dir) {
            let mut blobs = Vec::new();
            tree::walk_blobs(&store.repo, *sub, dir, &mut |p, id| blobs.push((p, id)))?;
            for (path, blob) in blobs {
                absorb(store, path, blob, &mut b)?;
            }
        }
    }
    Ok(into_data(tree_id, b))
}

fn update(store: &Store, data: Data, from: ObjectId, to: ObjectId) -> Result<Data, StoreError> {
    let mut b = Building {
        beads: data.beads.into_iter().map(|s| (s.id.clone(), s)).collect(),
        mail: data.mail.into_iter().map(|m| (m.id.clone(), m)).collect(),
        broken: data.broken.into_iter().map(|b| (b.path, b.error)).collect(),
    };
    for change in store.diff(Some(from), Some(to))? {
        match change.new {
            Some(blob) => absorb(store, change.path, blob, &mut b)?,
            None => {
                if let Some(id) = refs::bead_id_of_path(&change.path) {
                    b.beads.remove(id);
                }
                if let Some(id) = refs::mail_id_of_path(&change.path) {
                    b.mail.remove(id);
                }
                b.broken.remove(&change.path);
            }
        }
    }
    Ok(into_data(to, b))
}
