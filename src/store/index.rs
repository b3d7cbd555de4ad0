//! The derived index: a compact, disposable summary of every bead, cached under the
//! common git dir and keyed by the tree it was built from.
//!
//! Reads load it instead of parsing every document. When the store has moved, the
//! cached index is brought forward by diffing the tree it was built from against the
//! current one and parsing only the documents that changed. A file that is missing,
//! torn (bad checksum), of another version, or built from a tree that no longer exists
//! is rebuilt from the store; deleting it changes no answer.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{Head, Store, StoreError, codec, io_err, refs, tree};
use crate::model::{Bead, BeadType, Dependency, Message, Status, Timestamp};

const MAGIC: &[u8; 4] = b"GBIX";
/// Version 3 keeps the tree, beads, their descriptions, mail and broken documents in
/// sections of their own, so that a command decodes only what it reads (`mail inbox`
/// never decodes the beads, `ready` never decodes a description).
const VERSION: u32 = 3;
const HEADER: usize = 4 + 4 + 4;

/// A part of the index, kept in a file of its own so that a reader loads only the
/// parts it needs: `mail inbox` and `prime` never read the beads, `ready` never reads
/// a description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The bead summaries (without descriptions) and the documents that do not parse.
    Beads,
    /// The beads' descriptions, for search.
    Text,
    /// The mail summaries.
    Mail,
}

impl Part {
    const ALL: [Part; 3] = [Part::Beads, Part::Text, Part::Mail];

    /// How many sections follow the tree in this part's file.
    fn sections(self) -> usize {
        match self {
            Part::Beads => 2,
            Part::Text | Part::Mail => 1,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Part::Beads => "",
            Part::Text => "-text",
            Part::Mail => "-mail",
        }
    }
}

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
    /// The description (for search). Empty in the summaries of [`Index::beads`]: the
    /// descriptions are kept apart, in [`Index::descriptions`], since only search reads
    /// them and they are most of the index's bytes.
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

/// One section of the cache file, decoded on first use.
struct Section<T> {
    raw: Option<(Arc<Vec<u8>>, Range<usize>)>,
    value: OnceCell<Vec<T>>,
}

impl<T> Default for Section<T> {
    fn default() -> Self {
        Section {
            raw: None,
            value: OnceCell::new(),
        }
    }
}

impl<T: serde::de::DeserializeOwned> Section<T> {
    fn decoded(value: Vec<T>) -> Section<T> {
        Section {
            raw: None,
            value: OnceCell::from(value),
        }
    }

    fn get(&self) -> &[T] {
        // The file's checksum and version were checked when it was read, so the
        // section decodes as it was encoded.
        self.value.get_or_init(|| {
            self.raw
                .as_ref()
                .and_then(|(bytes, range)| postcard::from_bytes(&bytes[range.clone()]).ok())
                .unwrap_or_default()
        })
    }

    fn take(self) -> Vec<T> {
        self.get();
        self.value.into_inner().unwrap_or_default()
    }
}

/// Every bead of one state of the store, sorted by id.
#[derive(Default)]
pub struct Index {
    beads: Section<Summary>,
    texts: Section<String>,
    mail: Section<MailSummary>,
    broken: Section<Broken>,
}

impl Index {
    /// Splits the descriptions out of the summaries of `data`.
    fn of(data: Data) -> Index {
        let mut beads = data.beads;
        let texts = beads
            .iter_mut()
            .map(|s| std::mem::take(&mut s.description))
            .collect();
        Index {
            beads: Section::decoded(beads),
            texts: Section::decoded(texts),
            mail: Section::decoded(data.mail),
            broken: Section::decoded(data.broken),
        }
    }

    /// The summaries with their descriptions put back, for bringing the index forward.
    fn into_data(self) -> Data {
        let mut beads = self.beads.take();
        for (s, text) in beads.iter_mut().zip(self.texts.take()) {
            s.description = text;
        }
        Data {
            tree: Vec::new(),
            beads,
            mail: self.mail.take(),
            broken: self.broken.take(),
        }
    }

    /// The descriptions of [`Index::beads`], in the same order.
    pub fn descriptions(&self) -> &[String] {
        self.texts.get()
    }

    /// All beads, sorted by id.
    pub fn beads(&self) -> &[Summary] {
        self.beads.get()
    }

    /// The bead with this id.
    pub fn get(&self, id: &str) -> Option<&Summary> {
        let beads = self.beads.get();
        beads
            .binary_search_by(|s| s.id.as_str().cmp(id))
            .ok()
            .map(|i| &beads[i])
    }

    /// All messages, sorted by id.
    pub fn mail(&self) -> &[MailSummary] {
        self.mail.get()
    }

    /// Documents that do not parse.
    pub fn broken(&self) -> &[Broken] {
        self.broken.get()
    }

    /// The cached index brought up to `head`, rebuilt when it cannot be trusted.
    /// An index built from the store alone, ignoring and not touching the cache.
    pub(super) fn fresh(store: &Store, head: &Head) -> Result<Index, StoreError> {
        Ok(Index::of(rebuild(store, head.tree)?))
    }

    /// Whether two indexes give the same answers.
    pub fn same_as(&self, other: &Index) -> bool {
        self.beads() == other.beads()
            && self.descriptions() == other.descriptions()
            && self.mail() == other.mail()
            && self.broken() == other.broken()
    }

    /// Throws the cache away and builds it again from the store.
    pub(super) fn rebuild_cache(
        store: &Store,
        ref_name: &str,
        head: &Head,
    ) -> Result<Index, StoreError> {
        for part in Part::ALL {
            let path = file_path(store, ref_name, part);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_err(format!("remove {}", path.display()))(e));
                }
                _ => {}
            }
        }
        Index::load(store, ref_name, head)
    }

    /// Only `parts` of the cached index at `head`, read from their own files; the
    /// other parts read as empty. When a part's file is missing, torn or of another
    /// state, the whole index is brought up to date instead (see [`Index::load`]).
    pub(super) fn load_parts(
        store: &Store,
        ref_name: &str,
        head: &Head,
        parts: &[Part],
    ) -> Result<Index, StoreError> {
        let mut index = Index::default();
        for &part in parts {
            match read_part(&file_path(store, ref_name, part), part) {
                Some((tree, sections)) if tree == head.tree.as_bytes() => {
                    index.fill(part, sections)
                }
                _ => return Index::load(store, ref_name, head),
            }
        }
        Ok(index)
    }

    fn fill(&mut self, part: Part, mut sections: Vec<Section<()>>) {
        let mut next = || sections.remove(0).raw;
        match part {
            Part::Beads => {
                self.beads.raw = next();
                self.broken.raw = next();
            }
            Part::Text => self.texts.raw = next(),
            Part::Mail => self.mail.raw = next(),
        }
    }

    /// The whole cached index brought up to `head`: taken as it is when every part
    /// was built from `head`, brought forward by a tree diff when they were all built
    /// from an older state, rebuilt from the documents otherwise; then saved.
    pub(super) fn load(store: &Store, ref_name: &str, head: &Head) -> Result<Index, StoreError> {
        let mut cached = Some((None::<Vec<u8>>, Index::default()));
        for part in Part::ALL {
            let read = read_part(&file_path(store, ref_name, part), part);
            cached = match (cached, read) {
                (Some((tree, mut index)), Some((t, sections)))
                    if tree.as_ref().is_none_or(|tree| *tree == t) =>
                {
                    index.fill(part, sections);
                    Some((Some(t), index))
                }
                _ => None,
            };
        }
        let cached = cached.and_then(|(tree, index)| Some((tree?, index)));
        if let Some((tree, _)) = &cached
            && tree == head.tree.as_bytes()
        {
            return Ok(cached.map(|(_, index)| index).unwrap_or_default());
        }
        let data = match cached.and_then(|(tree, index)| {
            let from = ObjectId::try_from(tree.as_slice()).ok()?;
            store.repo.has_object(from).then_some((from, index))
        }) {
            Some((from, index)) => update(store, index.into_data(), from, head.tree)?,
            None => rebuild(store, head.tree)?,
        };
        let index = Index::of(data);
        // A cache that cannot be written only costs speed on the next read.
        let _ = save(store, ref_name, head.tree.as_bytes(), &index);
        Ok(index)
    }
}

/// One cache file per store ref and part: `refs/beads/main` → `index-v3-main.bin`,
/// `index-v3-main-text.bin`, `index-v3-main-mail.bin`.
fn file_path(store: &Store, ref_name: &str, part: Part) -> PathBuf {
    let tail = ref_name
        .strip_prefix("refs/beads/")
        .unwrap_or(ref_name)
        .replace('/', "-");
    store
        .local_dir()
        .join(format!("index-v{VERSION}-{tail}{}.bin", part.suffix()))
}

/// Reads the cache file of `part`: the tree it was built from and its sections, each
/// decoded when first used. `None` for a file that is missing, torn (bad checksum) or
/// of another version.
fn read_part(path: &std::path::Path, part: Part) -> Option<(Vec<u8>, Vec<Section<()>>)> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().ok()?);
    let sum = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    if version != VERSION || crc32fast::hash(&bytes[HEADER..]) != sum {
        return None;
    }
    // The payload is the tree, then the part's sections, each a little-endian u32
    // length and its bytes.
    let mut ranges = Vec::with_capacity(1 + part.sections());
    let mut at = HEADER;
    for _ in 0..1 + part.sections() {
        let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let range = at + 4..(at + 4).checked_add(len)?;
        bytes.get(range.clone())?;
        at = range.end;
        ranges.push(range);
    }
    let tree = bytes[ranges[0].clone()].to_vec();
    // Shared as it was read: turning it into an `Arc<[u8]>` would copy the whole file.
    let bytes = Arc::new(bytes);
    let sections = ranges[1..]
        .iter()
        .map(|range| Section {
            raw: Some((bytes.clone(), range.clone())),
            value: OnceCell::new(),
        })
        .collect();
    Some((tree, sections))
}

fn save(store: &Store, ref_name: &str, tree: &[u8], index: &Index) -> Result<(), StoreError> {
    let encode = |e: postcard::Error| StoreError::Io {
        context: "encode the index".into(),
        source: std::io::Error::other(e),
    };
    for part in Part::ALL {
        let sections = match part {
            Part::Beads => vec![
                postcard::to_stdvec(index.beads()).map_err(encode)?,
                postcard::to_stdvec(index.broken()).map_err(encode)?,
            ],
            Part::Text => vec![postcard::to_stdvec(index.descriptions()).map_err(encode)?],
            Part::Mail => vec![postcard::to_stdvec(index.mail()).map_err(encode)?],
        };
        write_part(&file_path(store, ref_name, part), tree, &sections)?;
    }
    Ok(())
}

fn write_part(path: &std::path::Path, tree: &[u8], sections: &[Vec<u8>]) -> Result<(), StoreError> {
    let mut payload = Vec::new();
    for section in std::iter::once(tree).chain(sections.iter().map(Vec::as_slice)) {
        let len = u32::try_from(section.len()).map_err(|e| StoreError::Io {
            context: "encode the index".into(),
            source: std::io::Error::other(e),
        })?;
        payload.extend_from_slice(&len.to_le_bytes());
        payload.extend_from_slice(section);
    }
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
