//! The derived index: a compact, disposable summary of every bead and message, cached
//! under the common git dir and keyed by the tree it was built from.
//!
//! Reads load it instead of parsing every document. The beads are a columnar table
//! (see [`table`]) read without decoding a value per bead, with the case-folded text
//! that search looks in kept in a file of its own. When the store has moved, the
//! cached index is brought forward by diffing the tree it was built from against the
//! current one and parsing only the documents that changed; the changed beads go to a
//! small delta file over the table, folded into a new table once the delta has grown.
//! A file that is missing, torn (bad checksum), of another version, or built from a
//! tree that no longer exists is rebuilt from the store; deleting it changes no answer.

mod buffer;
mod table;

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{Head, Replacement, Store, StoreError, codec, io_err, refs, tree};
use crate::model::{Bead, BeadType, DepKind, Dependency, Message, Status, Timestamp};
use table::{
    NO_ROW, NewText, Raw, RowData, Table, TableBuilder, Texts, TextsBuilder, TextsCopy, fold,
};

const MAGIC: &[u8; 4] = b"GBIX";
/// Version 6: the beads as a columnar table, the search text apart (in the order it
/// was written, with the row of each text), a delta file of the beads changed since the
/// table was written, mail in a file of its own.
const VERSION: u32 = 6;
const HEADER: usize = 4 + 4 + 4;

/// A part of the index, kept in a file of its own so that a reader loads only the
/// parts it needs: `mail inbox` and `prime` never read the beads, `ready` never reads
/// the search text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The bead table and the bead documents that do not parse.
    Beads,
    /// The beads' searchable text (id, title, description, case-folded).
    Text,
    /// The mail summaries and the messages that do not parse.
    Mail,
}

/// The files of one store ref's index.
#[derive(Clone, Copy)]
enum File {
    Table,
    Text,
    Delta,
    Mail,
}

impl File {
    const ALL: [File; 4] = [File::Table, File::Text, File::Delta, File::Mail];

    fn suffix(self) -> &'static str {
        match self {
            File::Table => "",
            File::Text => "-text",
            File::Delta => "-delta",
            File::Mail => "-mail",
        }
    }

    /// Whether the file is removed just before its new version takes its place,
    /// rather than replaced by a rename over it. The delta is rewritten by every read
    /// after a write, and a rename over an existing file makes ext4 write the new
    /// file's data out first (`auto_da_alloc`): 0.15 ms on a quiet disk, up to 5 ms on
    /// a busy one. A reader that opens it in between finds no delta and diffs from the
    /// table's tree instead: slower once, never wrong. The other files are kept
    /// atomic: without them a reader rebuilds.
    fn removed_first(self) -> bool {
        matches!(self, File::Delta)
    }

    /// How many sections follow the tree in this file.
    fn sections(self) -> usize {
        match self {
            File::Table | File::Mail => 2,
            File::Text | File::Delta => 1,
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
    /// The description, for search: a changed bead keeps it until it is folded into
    /// the search text of a new table; [`BeadRow::to_summary`] leaves it empty.
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

fn bytes(raw: &Raw) -> &[u8] {
    raw.0.get(raw.1.clone()).unwrap_or_default()
}

/// One section of a cache file, decoded on first use.
struct Section<T> {
    raw: Option<Raw>,
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
                .and_then(|raw| postcard::from_bytes(bytes(raw)).ok())
                .unwrap_or_default()
        })
    }

    fn take(self) -> Vec<T> {
        self.get();
        self.value.into_inner().unwrap_or_default()
    }
}

/// A bead's place in one [`Index`]: a row of its table or of the beads changed since.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Row(u32);

impl Row {
    /// The row as a number below [`Index::row_count`], for tables kept beside the index.
    pub fn get(self) -> usize {
        self.0 as usize
    }

    fn at(r: usize) -> Row {
        Row(table::offset(r))
    }
}

/// Every bead and message of one state of the store.
#[derive(Default)]
pub struct Index {
    table: Table,
    /// The search text of the table's rows; empty unless [`Part::Text`] was loaded.
    texts: Texts,
    /// Beads changed since the table was written, sorted by id.
    over: Vec<Summary>,
    /// Table rows replaced by [`Index::over`] or gone from the store.
    hidden: Vec<bool>,
    mail: Section<MailSummary>,
    broken: Vec<Broken>,
    /// The tree the table was built from (its search text file must match it).
    base: Vec<u8>,
}

/// One bead of an [`Index`], read in place.
#[derive(Clone, Copy)]
pub struct BeadRow<'a> {
    index: &'a Index,
    row: Row,
}

enum At<'a> {
    Table(&'a Table, usize),
    Over(&'a Summary),
}

/// One dependency of a [`BeadRow`].
#[derive(Clone, Copy)]
pub struct Dep<'a> {
    /// How the bead depends on the target.
    pub kind: DepKind,
    /// The target, when it is in the store.
    pub target: Option<BeadRow<'a>>,
    name: Name<'a>,
}

/// Where a dependency's target id is: in a table's arena (read when asked for), or a
/// string of its own.
#[derive(Clone, Copy)]
enum Name<'a> {
    Arena(&'a Table, usize),
    Str(&'a str),
}

impl<'a> Dep<'a> {
    /// The target's id.
    pub fn id(&self) -> &'a str {
        match self.name {
            Name::Arena(table, k) => table.string(k),
            Name::Str(id) => id,
        }
    }
}

/// One of two iterators over the same items.
enum Either<A, B> {
    Left(A),
    Right(B),
}

impl<T, A: Iterator<Item = T>, B: Iterator<Item = T>> Iterator for Either<A, B> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            Either::Left(a) => a.next(),
            Either::Right(b) => b.next(),
        }
    }
}

impl<'a> BeadRow<'a> {
    fn at(&self) -> At<'a> {
        let n = self.index.table.len();
        match self.row.get().checked_sub(n) {
            None => At::Table(&self.index.table, self.row.get()),
            Some(k) => At::Over(&self.index.over[k]),
        }
    }

    /// Its place in the index.
    pub fn row(&self) -> Row {
        self.row
    }

    /// The id.
    pub fn id(&self) -> &'a str {
        match self.at() {
            At::Table(t, r) => t.id(r),
            At::Over(s) => &s.id,
        }
    }

    /// The title.
    pub fn title(&self) -> &'a str {
        match self.at() {
            At::Table(t, r) => t.title(r),
            At::Over(s) => &s.title,
        }
    }

    /// The status.
    pub fn status(&self) -> Status {
        match self.at() {
            At::Table(t, r) => t.status(r),
            At::Over(s) => s.status,
        }
    }

    /// The priority.
    pub fn priority(&self) -> u8 {
        match self.at() {
            At::Table(t, r) => t.priority(r),
            At::Over(s) => s.priority,
        }
    }

    /// The type.
    pub fn kind(&self) -> BeadType {
        match self.at() {
            At::Table(t, r) => t.kind(r),
            At::Over(s) => s.kind,
        }
    }

    /// The assignee.
    pub fn assignee(&self) -> Option<&'a str> {
        match self.at() {
            At::Table(t, r) => t.assignee(r),
            At::Over(s) => s.assignee.as_deref(),
        }
    }

    /// The labels, sorted.
    pub fn labels(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        match self.at() {
            At::Table(t, r) => Either::Left(t.label_range(r).map(|k| t.string(k))),
            At::Over(s) => Either::Right(s.labels.iter().map(String::as_str)),
        }
    }

    /// Whether it carries `label`.
    pub fn has_label(&self, label: &str) -> bool {
        match self.at() {
            At::Table(t, r) => t.has_label(r, label),
            At::Over(s) => s.labels.binary_search_by(|l| l.as_str().cmp(label)).is_ok(),
        }
    }

    /// The dependencies, sorted, each with its target when that is in the store.
    pub fn dependencies(&self) -> impl Iterator<Item = Dep<'a>> + use<'a> {
        let index = self.index;
        match self.at() {
            At::Table(t, r) => Either::Left(t.dependencies(r).map(move |(kind, k, target)| {
                let target = match target {
                    NO_ROW if index.over.is_empty() => None,
                    row if row != NO_ROW && !index.hidden[row as usize] => {
                        Some(index.row(Row(row)))
                    }
                    _ => index.get(t.string(k)),
                };
                Dep {
                    kind,
                    target,
                    name: Name::Arena(t, k),
                }
            })),
            At::Over(s) => Either::Right(s.dependencies.iter().map(move |d| Dep {
                kind: d.kind,
                target: index.get(d.id.as_str()),
                name: Name::Str(d.id.as_str()),
            })),
        }
    }

    /// Creation time, microseconds since the epoch.
    pub fn created_us(&self) -> i64 {
        match self.at() {
            At::Table(t, r) => t.created_us(r),
            At::Over(s) => s.created_us,
        }
    }

    /// Last change, microseconds since the epoch.
    pub fn updated_us(&self) -> i64 {
        match self.at() {
            At::Table(t, r) => t.updated_us(r),
            At::Over(s) => s.updated_us,
        }
    }

    /// When the bead was made.
    pub fn created_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.created_us()).unwrap_or_default()
    }

    /// When the bead last changed.
    pub fn updated_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.updated_us()).unwrap_or_default()
    }

    fn data(&self) -> RowData<'a> {
        RowData {
            id: self.id(),
            title: self.title(),
            status: self.status(),
            priority: self.priority(),
            kind: self.kind(),
            assignee: self.assignee(),
            labels: self.labels().collect(),
            dependencies: self.dependencies().map(|d| (d.kind, d.id())).collect(),
            created_us: self.created_us(),
            updated_us: self.updated_us(),
        }
    }

    /// The text search looks in: id, title and description, case-folded.
    fn text(&self) -> Cow<'a, [u8]> {
        match self.at() {
            At::Table(_, r) => Cow::Borrowed(self.index.texts.get(r)),
            At::Over(s) => Cow::Owned(fold(&s.id, &s.title, &s.description)),
        }
    }

    /// The bead as an owned summary (without its description).
    pub fn to_summary(&self) -> Summary {
        let data = self.data();
        Summary {
            id: data.id.to_owned(),
            title: data.title.to_owned(),
            status: data.status,
            priority: data.priority,
            kind: data.kind,
            assignee: data.assignee.map(str::to_owned),
            labels: data.labels.into_iter().map(str::to_owned).collect(),
            dependencies: data
                .dependencies
                .into_iter()
                .filter_map(|(kind, id)| {
                    Some(Dependency {
                        id: crate::model::BeadId::parse(id).ok()?,
                        kind,
                    })
                })
                .collect(),
            description: String::new(),
            created_us: data.created_us,
            updated_us: data.updated_us,
        }
    }
}

impl Index {
    /// Every bead: those of the table in listing order (priority, then age, then id),
    /// then those changed since the table was written.
    pub fn rows(&self) -> impl Iterator<Item = BeadRow<'_>> {
        let n = self.table.len();
        (0..n)
            .filter(|&r| !self.hidden[r])
            .chain(n..self.row_count())
            .map(|r| self.row(Row::at(r)))
    }

    /// The bead at `row` (from a row of this index).
    pub fn row(&self, row: Row) -> BeadRow<'_> {
        BeadRow { index: self, row }
    }

    /// One more than the largest row of this index: the size of a table kept per row.
    pub fn row_count(&self) -> usize {
        self.table.len() + self.over.len()
    }

    /// The bead with this id.
    pub fn get(&self, id: &str) -> Option<BeadRow<'_>> {
        let n = self.table.len();
        let row = match self.table.find(id) {
            Some(r) if !self.hidden[r] => r,
            _ => n + self.over.binary_search_by(|s| s.id.as_str().cmp(id)).ok()?,
        };
        Some(self.row(Row::at(row)))
    }

    /// The beads whose id, title or description contains `needle`, case-insensitively,
    /// in the order of [`Index::rows`]. Needs [`Part::Text`].
    pub fn search(&self, needle: &str) -> Vec<Row> {
        let needle = needle.to_lowercase();
        self.found(self.texts.matching(&needle), &needle)
    }

    /// `table_hits` (rows of the table whose text contains `folded`) that still stand,
    /// and the beads changed since the table was written whose text contains it.
    fn found(&self, table_hits: Vec<usize>, folded: &str) -> Vec<Row> {
        let needle = folded;
        let mut rows: Vec<Row> = table_hits
            .into_iter()
            .filter(|&r| !self.hidden[r])
            .map(Row::at)
            .collect();
        let n = self.table.len();
        let changed = (n..self.row_count())
            .map(Row::at)
            .filter(|&r| memchr::memmem::find(&self.row(r).text(), needle.as_bytes()).is_some());
        rows.extend(changed);
        rows
    }

    /// All messages, sorted by id.
    pub fn mail(&self) -> &[MailSummary] {
        self.mail.get()
    }

    /// Documents that do not parse.
    pub fn broken(&self) -> &[Broken] {
        &self.broken
    }

    /// Whether two indexes give the same answers.
    pub fn same_as(&self, other: &Index) -> bool {
        let rows = |index: &Index| -> Vec<(Summary, Vec<u8>)> {
            let mut rows: Vec<_> = index
                .rows()
                .map(|r| (r.to_summary(), r.text().into_owned()))
                .collect();
            rows.sort_by(|a, b| a.0.id.cmp(&b.0.id));
            rows
        };
        rows(self) == rows(other) && self.mail() == other.mail() && {
            let mut a = self.broken.clone();
            let mut b = other.broken.clone();
            a.sort_by(|x, y| x.path.cmp(&y.path));
            b.sort_by(|x, y| x.path.cmp(&y.path));
            a == b
        }
    }

    /// The table of every bead of this index, written anew, with what the search
    /// text needs: the new row of each old row (or [`NO_ROW`]), and the new rows of
    /// the changed beads with their folded text. It is consumed: each changed bead's
    /// description is let go as soon as it is folded.
    fn compacted(mut self) -> (Table, Vec<u32>, Vec<NewText>) {
        let n = self.table.len();
        let kept = || (0..n).filter(|&r| !self.hidden[r]);
        let mut table = TableBuilder::default();
        for r in kept() {
            table.push(&self.row(Row::at(r)).data());
        }
        let mut folded = Vec::with_capacity(self.over.len());
        for k in 0..self.over.len() {
            table.push(&self.row(Row::at(n + k)).data());
            let s = &mut self.over[k];
            let description = std::mem::take(&mut s.description);
            folded.push(fold(&s.id, &s.title, &description));
        }
        let (bytes, place) = table.finish();
        let mut moved = vec![NO_ROW; n];
        let mut placed = place.into_iter();
        for r in kept() {
            moved[r] = placed.next().unwrap_or(NO_ROW);
        }
        let new = placed.zip(folded).collect();
        (Table::decode(whole(bytes)).unwrap_or_default(), moved, new)
    }

    /// An index of `table` (and `texts`) with the changes of `changed` laid over it.
    fn assemble(
        table: Table,
        texts: Texts,
        changed: BTreeMap<String, Option<Summary>>,
        broken: Vec<Broken>,
    ) -> Index {
        let mut hidden = vec![false; table.len()];
        for id in changed.keys() {
            if let Some(r) = table.find(id) {
                hidden[r] = true;
            }
        }
        Index {
            table,
            texts,
            over: changed.into_values().flatten().collect(),
            hidden,
            mail: Section::default(),
            broken,
            base: Vec::new(),
        }
    }

    /// An index built from the store alone, ignoring and not touching the cache.
    pub(super) fn fresh(store: &Store, head: &Head) -> Result<Index, StoreError> {
        let mut index = Index::from_documents(store, head.tree)?;
        let (mail, broken) = rebuild_mail(store, head.tree)?;
        index.mail = Section::decoded(mail);
        index.broken.extend(broken);
        Ok(index)
    }

    /// The beads of `tree`, parsed from every document on every core. Each bead goes
    /// into the new table and search text as it is parsed and nothing else of it is
    /// kept, so that a rebuild holds little more than the files it writes.
    fn from_documents(store: &Store, tree: ObjectId) -> Result<Index, StoreError> {
        let docs = store.list_docs(tree, refs::BEADS_DIR)?;
        let mut table = TableBuilder::default();
        let mut texts = TextsBuilder::with_rows(docs.len(), 0);
        let broken = each_parsed::<Bead>(store, &docs, &mut |bead| {
            table.push(&row_data(&bead));
            texts.push_fold(bead.id.as_str(), &bead.title, &bead.description);
        })?;
        let (table, place) = table.finish();
        let texts = texts.finish(&place);
        // What a builder wrote reads back.
        let (table, texts) = (
            Table::decode(whole(table)).unwrap_or_default(),
            Texts::decode(whole(texts)).unwrap_or_default(),
        );
        let mut index = Index::assemble(table, texts, BTreeMap::new(), broken);
        index.base = tree.as_bytes().to_vec();
        Ok(index)
    }

    /// The beads at `head` and those whose id, title or description contains `needle`,
    /// case-insensitively, in the order of [`Index::rows`]. The search text is scanned
    /// while its file is read, a piece at a time, never held whole.
    pub(super) fn load_search(
        store: &Store,
        ref_name: &str,
        head: &Head,
        needle: &str,
    ) -> Result<(Index, Vec<Row>), StoreError> {
        let folded = needle.to_lowercase();
        let index = load_beads(store, ref_name, head, false)?;
        let path = file_path(store, ref_name, File::Text);
        if let Some(hits) = scan_text_file(&path, &index.base, index.table.len(), &folded) {
            let rows = index.found(hits, &folded);
            return Ok((index, rows));
        }
        let index = rebuild_beads(store, ref_name, head)?;
        let rows = index.search(needle);
        Ok((index, rows))
    }

    /// Throws the cache away and builds it again from the store.
    pub(super) fn rebuild_cache(
        store: &Store,
        ref_name: &str,
        head: &Head,
    ) -> Result<Index, StoreError> {
        for file in File::ALL {
            remove_file(&file_path(store, ref_name, file))?;
        }
        Index::load(store, ref_name, head)
    }

    /// The whole index at `head`, from the cache brought up to date.
    pub(super) fn load(store: &Store, ref_name: &str, head: &Head) -> Result<Index, StoreError> {
        Index::load_parts(
            store,
            ref_name,
            head,
            &[Part::Beads, Part::Text, Part::Mail],
        )
    }

    /// Only `parts` of the index at `head`; the other parts read as empty. Each part
    /// comes from its cache file, brought forward by a tree diff when the store has
    /// moved, rebuilt from the documents when the file cannot be trusted, and saved.
    pub(super) fn load_parts(
        store: &Store,
        ref_name: &str,
        head: &Head,
        parts: &[Part],
    ) -> Result<Index, StoreError> {
        let mut index = if parts.contains(&Part::Beads) || parts.contains(&Part::Text) {
            load_beads(store, ref_name, head, parts.contains(&Part::Text))?
        } else {
            Index::default()
        };
        if parts.contains(&Part::Mail) {
            let (mail, broken) = load_mail(store, ref_name, head)?;
            index.mail = mail;
            index.broken.extend(broken);
        }
        Ok(index)
    }
}

/// The beads changed since a table was written: the delta file's body.
#[derive(Default, Serialize, Deserialize)]
struct Delta {
    /// The tree the table was built from.
    base: Vec<u8>,
    /// Changed and new beads.
    beads: Vec<Summary>,
    /// Ids gone from the store, or whose documents no longer parse.
    gone: Vec<String>,
    /// Every bead document that does not parse.
    broken: Vec<Broken>,
}

/// When the delta holds more beads than this, it is folded into a new table.
fn delta_limit(table: &Table) -> usize {
    256.max(table.len() / 64)
}

/// The bead table at `head`, with its search text when `with_text`.
fn load_beads(
    store: &Store,
    ref_name: &str,
    head: &Head,
    with_text: bool,
) -> Result<Index, StoreError> {
    let path = |file| file_path(store, ref_name, file);
    let Some((base, sections)) = read_part(&path(File::Table), File::Table) else {
        return rebuild_beads(store, ref_name, head);
    };
    let (Some(table), Ok(broken)) = (
        Table::decode(sections[0].clone()),
        postcard::from_bytes::<Vec<Broken>>(bytes(&sections[1])),
    ) else {
        return rebuild_beads(store, ref_name, head);
    };
    let texts = match with_text {
        false => Texts::default(),
        true => match read_texts(&path(File::Text), &base, &table) {
            Some(texts) => texts,
            None => return rebuild_beads(store, ref_name, head),
        },
    };
    // The delta counts only when it was laid over this very table.
    let (at, delta) = match read_part(&path(File::Delta), File::Delta)
        .and_then(|(tree, s)| Some((tree, postcard::from_bytes::<Delta>(bytes(&s[0])).ok()?)))
    {
        Some((tree, delta)) if delta.base == base => (tree, delta),
        _ => (
            base.clone(),
            Delta {
                broken,
                ..Delta::default()
            },
        ),
    };
    let mut changed: BTreeMap<String, Option<Summary>> = delta
        .beads
        .into_iter()
        .map(|s| (s.id.clone(), Some(s)))
        .chain(delta.gone.into_iter().map(|id| (id, None)))
        .collect();
    let mut broken: BTreeMap<String, String> = delta
        .broken
        .into_iter()
        .map(|b| (b.path, b.error))
        .collect();
    if at == head.tree.as_bytes() {
        let mut index = Index::assemble(table, texts, changed, into_broken(broken));
        index.base = base;
        return Ok(index);
    }
    let Some(from) = ObjectId::try_from(at.as_slice())
        .ok()
        .filter(|&t| store.repo.has_object(t))
    else {
        return rebuild_beads(store, ref_name, head);
    };
    for change in diff_dir(store, from, head.tree, refs::BEADS_DIR)? {
        match change.new {
            Some(blob) => absorb::<Bead>(store, change.path, blob, &mut changed, &mut broken)?,
            None => {
                if let Some(id) = refs::bead_id_of_path(&change.path) {
                    changed.insert(id.to_owned(), None);
                }
                broken.remove(&change.path);
            }
        }
    }
    let broken = into_broken(broken);
    if changed.len() <= delta_limit(&table) {
        // A [`Delta`], borrowed: postcard writes a struct as the tuple of its fields.
        let delta = (
            &base,
            changed.values().flatten().collect::<Vec<_>>(),
            changed
                .iter()
                .filter(|(_, s)| s.is_none())
                .map(|(id, _)| id)
                .collect::<Vec<_>>(),
            &broken,
        );
        // A cache that cannot be written only costs speed on the next read.
        let _ = encode(&delta).and_then(|bytes| {
            write_part(
                &path(File::Delta),
                File::Delta,
                head.tree.as_bytes(),
                &[&bytes],
            )
        });
        let mut index = Index::assemble(table, texts, changed, broken);
        index.base = base;
        return Ok(index);
    }
    // The delta has grown: fold it into a new table. The search text of the rows it
    // keeps goes from the old text file straight into the new one, never held.
    let staged = Index::assemble(table, Texts::default(), changed, Vec::new());
    let (table, moved, new) = staged.compacted();
    let mut index = Index::assemble(table, Texts::default(), BTreeMap::new(), broken);
    index.base = head.tree.as_bytes().to_vec();
    let _ = save_table(store, ref_name, head.tree, &index);
    let copied = copy_texts(&path(File::Text), &base, head.tree, &moved, &new);
    if with_text {
        match copied.and_then(|()| read_texts(&path(File::Text), &index.base, &index.table)) {
            Some(texts) => index.texts = texts,
            None => return rebuild_beads(store, ref_name, head),
        }
    }
    Ok(index)
}

/// Writes the search text file of a compacted table built from `tree`: the texts of
/// the rows it kept, copied from the text file at `path` (built from `base`) a piece at
/// a time, then `new`. `None` when the old file is missing, torn or of another state,
/// or the new one cannot be written.
fn copy_texts(
    path: &std::path::Path,
    base: &[u8],
    tree: ObjectId,
    moved: &[u32],
    new: &[NewText],
) -> Option<()> {
    let mut old = PartReader::open(path, base)?;
    let len = old.section()?;
    let copy = TextsCopy::begin(&mut |buf| old.read(buf), len, moved, new)?;
    let mut out = PartWriter::create(path, File::Text).ok()?;
    out.section(tree.as_bytes().len()).ok()?;
    out.put(tree.as_bytes()).ok()?;
    out.section(copy.len()).ok()?;
    let mut write = |bytes: &[u8]| out.put(bytes).ok();
    copy.copy(&mut |buf| old.read(buf), new, &mut write, CHUNK)?;
    // The old file is checked whole before the new one takes its place.
    match old.whole() {
        true => out.finish().ok(),
        false => None,
    }
}

/// The search text of `table`, built from `base`; `None` when the file is missing,
/// torn or of another state.
fn read_texts(path: &std::path::Path, base: &[u8], table: &Table) -> Option<Texts> {
    let (tree, sections) = read_part(path, File::Text)?;
    let texts = Texts::decode(sections.first()?.clone())?;
    (tree == base && texts.len() == table.len()).then_some(texts)
}

/// The rows of a table built from `base` (with `rows` rows) whose search text
/// contains `folded`, found while the text file is read a piece at a time and checked
/// against its checksum at the end; `None` when the file is missing, torn or of
/// another state.
fn scan_text_file(
    path: &std::path::Path,
    base: &[u8],
    rows: usize,
    folded: &str,
) -> Option<Vec<usize>> {
    let mut file = PartReader::open(path, base)?;
    let len = file.section()?;
    let hits = table::scan_texts(&mut |buf| file.read(buf), len, rows, folded, CHUNK)?;
    file.whole().then_some(hits)
}

/// How much of a large cache file is read or copied at a time.
const CHUNK: usize = 1 << 20;

/// A cache file read from the front a piece at a time, for a part too large to hold:
/// its payload is checked against the header's checksum as it goes, and counts only
/// once [`PartReader::whole`] says so.
struct PartReader {
    file: std::io::BufReader<std::fs::File>,
    checksum: u32,
    sum: crc32fast::Hasher,
}

impl PartReader {
    /// Opens the file at `path` when it is ours and was built from `base`.
    fn open(path: &std::path::Path, base: &[u8]) -> Option<PartReader> {
        use std::io::Read;
        let mut file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
        let mut header = [0u8; HEADER];
        file.read_exact(&mut header).ok()?;
        let mut reader = PartReader {
            file,
            checksum: checksum_of(&header)?,
            sum: crc32fast::Hasher::new(),
        };
        // A tree id is a few dozen bytes: a longer one is a damaged file.
        let mut tree = vec![0u8; reader.section().filter(|&len| len <= 64)?];
        reader.read(&mut tree)?;
        (tree == base).then_some(reader)
    }

    /// The length of the next section.
    fn section(&mut self) -> Option<usize> {
        let mut len = [0u8; 4];
        self.read(&mut len)?;
        Some(u32::from_le_bytes(len) as usize)
    }

    /// Fills `buf` from the file.
    fn read(&mut self, buf: &mut [u8]) -> Option<()> {
        use std::io::Read;
        self.file.read_exact(buf).ok()?;
        self.sum.update(buf);
        Some(())
    }

    /// Whether the file ended where the last read did and its checksum held.
    fn whole(mut self) -> bool {
        use std::io::Read;
        let mut rest = [0u8; 1];
        matches!(self.file.read(&mut rest), Ok(0)) && self.sum.finalize() == self.checksum
    }
}

/// The bead table at `head` built from the documents, and saved.
fn rebuild_beads(store: &Store, ref_name: &str, head: &Head) -> Result<Index, StoreError> {
    let index = Index::from_documents(store, head.tree)?;
    let _ = save_beads(store, ref_name, head.tree, &index);
    remove_old_versions(store);
    Ok(index)
}

/// Removes the cache files an older or newer git-beads left (they would only take
/// space: no version reads another's files).
fn remove_old_versions(store: &Store) {
    let ours = format!("index-v{VERSION}-");
    let stale = std::fs::read_dir(store.local_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("index-v") && name.ends_with(".bin") && !name.starts_with(&ours)
        });
    for entry in stale {
        let _ = std::fs::remove_file(entry.path());
    }
}

/// Writes the table and the search text of `index` (which has no delta) as built from
/// `tree`, and removes the delta file.
fn save_beads(
    store: &Store,
    ref_name: &str,
    tree: ObjectId,
    index: &Index,
) -> Result<(), StoreError> {
    save_table(store, ref_name, tree, index)?;
    let path = file_path(store, ref_name, File::Text);
    write_part(&path, File::Text, tree.as_bytes(), &[index.texts.bytes()])
}

/// Writes the table of `index` (which has no delta) as built from `tree`, and removes
/// the delta file.
fn save_table(
    store: &Store,
    ref_name: &str,
    tree: ObjectId,
    index: &Index,
) -> Result<(), StoreError> {
    let path = |file| file_path(store, ref_name, file);
    remove_file(&path(File::Delta))?;
    write_part(
        &path(File::Table),
        File::Table,
        tree.as_bytes(),
        &[index.table.bytes(), &encode(&index.broken)?],
    )
}

/// The mail at `head` and the messages that do not parse.
fn load_mail(
    store: &Store,
    ref_name: &str,
    head: &Head,
) -> Result<(Section<MailSummary>, Vec<Broken>), StoreError> {
    let path = file_path(store, ref_name, File::Mail);
    let cached = read_part(&path, File::Mail).and_then(|(tree, mut sections)| {
        let broken = postcard::from_bytes::<Vec<Broken>>(bytes(&sections.pop()?)).ok()?;
        let mail = Section {
            raw: sections.pop(),
            value: OnceCell::new(),
        };
        Some((tree, mail, broken))
    });
    let (mail, broken) = match cached {
        Some((tree, mail, broken)) if tree == head.tree.as_bytes() => {
            return Ok((mail, broken));
        }
        Some((tree, mail, broken)) => {
            match ObjectId::try_from(tree.as_slice())
                .ok()
                .filter(|&t| store.repo.has_object(t))
            {
                Some(from) => forward_mail(store, mail.take(), broken, from, head.tree)?,
                None => rebuild_mail(store, head.tree)?,
            }
        }
        None => rebuild_mail(store, head.tree)?,
    };
    let _ = encode(&mail)
        .and_then(|m| Ok([m, encode(&broken)?]))
        .and_then(|[m, b]| write_part(&path, File::Mail, head.tree.as_bytes(), &[&m, &b]));
    Ok((Section::decoded(mail), broken))
}

fn rebuild_mail(
    store: &Store,
    tree: ObjectId,
) -> Result<(Vec<MailSummary>, Vec<Broken>), StoreError> {
    let mut mail = Vec::new();
    let docs = store.list_docs(tree, refs::MAIL_DIR)?;
    let broken = each_parsed::<Message>(store, &docs, &mut |m| mail.push(m.entry()))?;
    mail.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((mail, broken))
}

fn forward_mail(
    store: &Store,
    mail: Vec<MailSummary>,
    broken: Vec<Broken>,
    from: ObjectId,
    to: ObjectId,
) -> Result<(Vec<MailSummary>, Vec<Broken>), StoreError> {
    let mut mail: BTreeMap<String, Option<MailSummary>> =
        mail.into_iter().map(|m| (m.id.clone(), Some(m))).collect();
    let mut broken: BTreeMap<String, String> =
        broken.into_iter().map(|b| (b.path, b.error)).collect();
    for change in diff_dir(store, from, to, refs::MAIL_DIR)? {
        match change.new {
            Some(blob) => absorb::<Message>(store, change.path, blob, &mut mail, &mut broken)?,
            None => {
                if let Some(id) = refs::mail_id_of_path(&change.path) {
                    mail.remove(id);
                }
                broken.remove(&change.path);
            }
        }
    }
    Ok((mail.into_values().flatten().collect(), into_broken(broken)))
}

/// The documents under `dir` that differ between two trees.
fn diff_dir(
    store: &Store,
    from: ObjectId,
    to: ObjectId,
    dir: &str,
) -> Result<Vec<tree::DocChange>, StoreError> {
    let mut out = Vec::new();
    let (old, new) = (store.subtree(from, dir)?, store.subtree(to, dir)?);
    tree::diff(&store.repo, old, new, dir, &mut out)?;
    Ok(out)
}

/// A kind of document the index keeps an entry of.
trait Indexed: serde::de::DeserializeOwned {
    /// What the index keeps of it.
    type Entry;
    /// The id a path of this kind names.
    fn id_of_path(path: &str) -> Option<&str>;
    /// The id the document says it has.
    fn doc_id(&self) -> &str;
    /// Its entry.
    fn entry(&self) -> Self::Entry;
}

impl Indexed for Bead {
    type Entry = Summary;

    fn id_of_path(path: &str) -> Option<&str> {
        refs::bead_id_of_path(path)
    }

    fn doc_id(&self) -> &str {
        self.id.as_str()
    }

    fn entry(&self) -> Summary {
        Summary::of(self)
    }
}

impl Indexed for Message {
    type Entry = MailSummary;

    fn id_of_path(path: &str) -> Option<&str> {
        refs::mail_id_of_path(path)
    }

    fn doc_id(&self) -> &str {
        self.id.as_str()
    }

    fn entry(&self) -> MailSummary {
        MailSummary::of(self)
    }
}

/// Parses one document of kind `D`: `None` for a path of another kind, the document,
/// or why it does not parse (or names another id than its path).
fn parse<D: Indexed>(
    store: &Store,
    path: &str,
    blob: ObjectId,
) -> Result<Option<Result<D, String>>, StoreError> {
    let Some(id) = D::id_of_path(path) else {
        return Ok(None);
    };
    let parsed = codec::decode::<D>(&store.read_blob(blob)?)
        .map_err(|e| e.to_string())
        .and_then(|doc| match doc.doc_id() == id {
            true => Ok(doc),
            false => Err(format!(
                "its id is {}, but its path names {id}",
                doc.doc_id()
            )),
        });
    Ok(Some(parsed))
}

/// How many documents a thread of [`each_parsed`] takes at a time.
const DOCS_PER_CLAIM: usize = 64;

/// Parses `docs` of kind `D` on every core and hands each one of that kind that parses
/// to `visit` on this thread, in no set order; returns those that do not, sorted by
/// path. The threads wait while `visit` is behind, so that no more than a few hundred
/// parsed documents are held at once.
fn each_parsed<D: Indexed + Send>(
    store: &Store,
    docs: &[(String, ObjectId)],
    visit: &mut dyn FnMut(D),
) -> Result<Vec<Broken>, StoreError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    each_parsed_on(store, docs, cores, visit)
}

/// [`each_parsed`] on at most `threads` threads.
fn each_parsed_on<D: Indexed + Send>(
    store: &Store,
    docs: &[(String, ObjectId)],
    threads: usize,
    visit: &mut dyn FnMut(D),
) -> Result<Vec<Broken>, StoreError> {
    let mut broken = Vec::new();
    let mut deliver = |path: &str, parsed: Option<Result<D, String>>| match parsed {
        Some(Ok(doc)) => visit(doc),
        Some(Err(error)) => broken.push(Broken {
            path: path.to_owned(),
            error,
        }),
        None => {}
    };
    let threads = threads.min(docs.len().div_ceil(DOCS_PER_CLAIM));
    if threads <= 1 {
        for (path, blob) in docs {
            deliver(path, parse::<D>(store, path, *blob)?);
        }
        broken.sort_by(|a, b| a.path.cmp(&b.path));
        return Ok(broken);
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        // A claim's documents go over together: one wake-up per claim, not per document.
        let (send, receive) = std::sync::mpsc::sync_channel(2 * threads);
        for _ in 0..threads {
            let (send, next) = (send.clone(), &next);
            let handle = store.for_thread();
            s.spawn(move || {
                loop {
                    let from = next.fetch_add(DOCS_PER_CLAIM, Ordering::Relaxed);
                    let Some(claim) = docs.get(from..docs.len().min(from + DOCS_PER_CLAIM)) else {
                        return;
                    };
                    let parsed: Result<Vec<_>, _> = (claim.iter())
                        .map(|(path, blob)| parse::<D>(&handle, path, *blob))
                        .collect();
                    let failed = parsed.is_err();
                    if send.send((from, parsed)).is_err() || failed {
                        // Past every claim: the other threads stop too.
                        next.store(docs.len(), Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut first_error = None;
        for (from, parsed) in receive {
            match parsed {
                Ok(claim) if first_error.is_none() => {
                    for (i, parsed) in claim.into_iter().enumerate() {
                        deliver(&docs[from + i].0, parsed);
                    }
                }
                Err(e) if first_error.is_none() => first_error = Some(e),
                _ => {}
            }
        }
        first_error.map_or(Ok(()), Err)
    })?;
    broken.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(broken)
}

/// Parses one document of kind `D` into `entries`, or files its path under `broken`
/// (and its id as gone). Paths of other kinds are left alone.
fn absorb<D: Indexed>(
    store: &Store,
    path: String,
    blob: ObjectId,
    entries: &mut BTreeMap<String, Option<D::Entry>>,
    broken: &mut BTreeMap<String, String>,
) -> Result<(), StoreError> {
    let Some(parsed) = parse::<D>(store, &path, blob)? else {
        return Ok(());
    };
    match parsed {
        Ok(doc) => {
            broken.remove(&path);
            entries.insert(doc.doc_id().to_owned(), Some(doc.entry()));
        }
        Err(e) => {
            if let Some(id) = D::id_of_path(&path) {
                entries.insert(id.to_owned(), None);
            }
            broken.insert(path, e);
        }
    }
    Ok(())
}

/// What a table row holds of `bead`.
fn row_data(bead: &Bead) -> RowData<'_> {
    RowData {
        id: bead.id.as_str(),
        title: &bead.title,
        status: bead.status,
        priority: bead.priority,
        kind: bead.kind,
        assignee: bead.assignee.as_deref(),
        labels: bead.labels.iter().map(String::as_str).collect(),
        dependencies: (bead.dependencies.iter())
            .map(|d| (d.kind, d.id.as_str()))
            .collect(),
        created_us: bead.created_at.timestamp_micros(),
        updated_us: bead.updated_at.timestamp_micros(),
    }
}

/// Bytes a builder wrote, as a section of their own.
fn whole(bytes: Vec<u8>) -> Raw {
    let len = bytes.len();
    (Arc::new(bytes.into()), 0..len)
}

fn into_broken(broken: BTreeMap<String, String>) -> Vec<Broken> {
    broken
        .into_iter()
        .map(|(path, error)| Broken { path, error })
        .collect()
}

fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_stdvec(value).map_err(|e| StoreError::Io {
        context: "encode the index".into(),
        source: std::io::Error::other(e),
    })
}

fn remove_file(path: &std::path::Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(io_err(format!("remove {}", path.display()))(e))
        }
        _ => Ok(()),
    }
}

/// One cache file per store ref and file kind: `refs/beads/main` →
/// `index-v5-main.bin`, `index-v5-main-text.bin`, `index-v5-main-delta.bin`,
/// `index-v5-main-mail.bin`.
fn file_path(store: &Store, ref_name: &str, file: File) -> PathBuf {
    let tail = ref_name
        .strip_prefix("refs/beads/")
        .unwrap_or(ref_name)
        .replace('/', "-");
    store
        .local_dir()
        .join(format!("index-v{VERSION}-{tail}{}.bin", file.suffix()))
}

/// The payload checksum a cache file's header records, when the header is ours (magic
/// and version).
fn checksum_of(header: &[u8]) -> Option<u32> {
    let word = |at: usize| Some(u32::from_le_bytes(header.get(at..at + 4)?.try_into().ok()?));
    (header.get(..4)? == MAGIC && word(4)? == VERSION).then_some(word(8)?)
}

/// Reads a cache file: the tree it was built from and its sections, each decoded when
/// first used. `None` for a file that is missing, torn (bad checksum) or of another
/// version.
fn read_part(path: &std::path::Path, file: File) -> Option<(Vec<u8>, Vec<Raw>)> {
    let bytes = buffer::read(path).ok()?;
    if crc32fast::hash(bytes.get(HEADER..)?) != checksum_of(&bytes)? {
        return None;
    }
    // The payload is the tree, then the part's sections, each a little-endian u32
    // length and its bytes.
    let mut ranges = Vec::with_capacity(1 + file.sections());
    let mut at = HEADER;
    for _ in 0..1 + file.sections() {
        let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let range = at + 4..(at + 4).checked_add(len)?;
        bytes.get(range.clone())?;
        at = range.end;
        ranges.push(range);
    }
    let tree = bytes[ranges[0].clone()].to_vec();
    // Shared as it was read, never copied.
    let bytes = Arc::new(bytes);
    let sections = ranges[1..]
        .iter()
        .map(|range| (bytes.clone(), range.clone()))
        .collect();
    Some((tree, sections))
}

/// Writes a cache file: a header with the checksum of the payload, then the payload:
/// the tree and each section, each a little-endian u32 length and its bytes.
fn write_part(
    path: &std::path::Path,
    kind: File,
    tree: &[u8],
    sections: &[&[u8]],
) -> Result<(), StoreError> {
    let mut file = PartWriter::create(path, kind)?;
    for part in std::iter::once(tree).chain(sections.iter().copied()) {
        file.section(part.len())?;
        file.put(part)?;
    }
    file.finish()
}

/// A cache file being written beside its place, which it takes by rename once whole;
/// its header's checksum is filled in at the end, so that a part can be written a
/// piece at a time. Dropped unfinished, it takes its temporary file with it.
struct PartWriter {
    file: std::io::BufWriter<Replacement>,
    path: PathBuf,
    kind: File,
    sum: crc32fast::Hasher,
}

impl PartWriter {
    fn create(path: &std::path::Path, kind: File) -> Result<PartWriter, StoreError> {
        let dir = path.parent().unwrap_or(path);
        std::fs::create_dir_all(dir).map_err(io_err(format!("create {}", dir.display())))?;
        let file =
            Replacement::create(path).map_err(io_err(format!("create {}", path.display())))?;
        let mut writer = PartWriter {
            file: std::io::BufWriter::new(file),
            path: path.to_owned(),
            kind,
            sum: crc32fast::Hasher::new(),
        };
        let header = [*MAGIC, VERSION.to_le_bytes(), [0; 4]].concat();
        writer.raw(&header)?;
        Ok(writer)
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file.write_all(bytes).map_err(io_err(format!(
            "write {}",
            self.file.get_ref().tmp().display()
        )))
    }

    /// Starts a section of `len` bytes.
    fn section(&mut self, len: usize) -> Result<(), StoreError> {
        let len = u32::try_from(len).map_err(|e| StoreError::Io {
            context: "encode the index".into(),
            source: std::io::Error::other(e),
        })?;
        self.put(&len.to_le_bytes())
    }

    /// Writes part of the payload.
    fn put(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.sum.update(bytes);
        self.raw(bytes)
    }

    /// Fills in the checksum and puts the file in its place.
    fn finish(mut self) -> Result<(), StoreError> {
        use std::io::{Seek, SeekFrom};
        let checksum = self.sum.clone().finalize();
        let context = format!("write {}", self.file.get_ref().tmp().display());
        self.file
            .seek(SeekFrom::Start(8))
            .and_then(|_| self.file.write_all(&checksum.to_le_bytes()))
            .and_then(|()| self.file.flush())
            .map_err(io_err(context.clone()))?;
        let file = self
            .file
            .into_inner()
            .map_err(|e| io_err(context)(e.into_error()))?;
        if self.kind.removed_first() {
            remove_file(&self.path)?;
        }
        file.commit(false)
            .map_err(io_err(format!("replace {}", self.path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Staged;
    use super::*;
    use crate::model::{Actor, BeadId};

    fn store() -> (tempfile::TempDir, Store) {
        Store::temp_for_tests()
    }

    fn id(n: u64) -> BeadId {
        BeadId::parse(&format!("bd-{n:05}")).expect("id")
    }

    /// A bead with labels and dependencies that depend on `n`.
    fn bead(n: u64, salt: u64) -> Bead {
        let mut b = Bead::new(id(n), format!("Bead {n} Ünïcode {salt}"), "tester", now());
        b.status = Status::ALL[(n + salt) as usize % 4];
        b.priority = (n % 5) as u8;
        b.labels = [format!("l{}", n % 3), format!("m{}", salt % 2)].into();
        b.description = format!("about NEEDLE-{} and more", (n + salt) % 7);
        if n > 0 {
            b.dependencies.push(Dependency {
                id: id(n / 2),
                kind: if n.is_multiple_of(2) {
                    DepKind::ParentChild
                } else {
                    DepKind::Blocks
                },
            });
        }
        if n.is_multiple_of(5) {
            // A target that is not (yet) in the store.
            b.dependencies.push(Dependency {
                id: id(n + 1000),
                kind: DepKind::Blocks,
            });
        }
        b.dependencies.sort();
        b
    }

    /// Commits what `op` stages, as a tester.
    fn commit(store: &Store, mut op: impl FnMut(&mut super::super::Tx<'_>)) {
        let actor = Actor::person("tester", "t@example.com");
        store
            .transact(&actor, |tx| {
                op(tx);
                tx.set_message("test");
                Ok::<_, StoreError>(())
            })
            .expect("commit");
    }

    fn now() -> Timestamp {
        Timestamp::from_timestamp(1_790_000_000, 0).unwrap_or_default()
    }

    /// Every answer of the index, including where each dependency points.
    fn answers(index: &Index) -> Vec<String> {
        let mut out: Vec<String> = index
            .rows()
            .map(|r| {
                let deps: Vec<_> = r
                    .dependencies()
                    .map(|d| (d.kind, d.id(), d.target.map(|t| t.id())))
                    .collect();
                format!("{:?} {:?} {deps:?}", r.to_summary(), r.text())
            })
            .collect();
        out.sort();
        let found = |i: &Index| -> Vec<String> {
            let mut ids: Vec<String> = i
                .search("needle-3")
                .into_iter()
                .map(|r| i.row(r).id().to_owned())
                .collect();
            ids.sort();
            ids
        };
        out.push(format!("{:?}", found(index)));
        out.push(format!("{:?}", index.broken()));
        out
    }

    fn same_answers(a: &Index, b: &Index, step: u64) {
        let (a, b) = (answers(a), answers(b));
        assert_eq!(a.len(), b.len(), "step {step}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "step {step}");
        }
    }

    fn exists(store: &Store, file: File) -> bool {
        file_path(store, refs::MAIN.as_str(), file).exists()
    }

    #[test]
    fn cached_index_brought_forward_gives_the_answers_of_a_fresh_one() {
        let (_dir, store) = store();
        commit(&store, |tx| {
            (0..300).for_each(|n| tx.put_bead(&bead(n, 0)).expect("put"))
        });
        store
            .index(&store.require_head().expect("head"))
            .expect("first table");
        let mut seed = 7u64;
        for step in 1..=80u64 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let n = (seed >> 33) % 320;
            commit(&store, |tx| match step % 4 {
                0 => tx.remove_bead(&id(n)),
                1 => {
                    tx.writes
                        .insert(refs::bead_path(&id(n)), Staged::Blob(b"id: [\n".to_vec()));
                }
                _ => tx.put_bead(&bead(n, step)).expect("put"),
            });
            let head = store.require_head().expect("head");
            if step % 10 == 5 {
                // A reader that comes while the delta is being replaced finds none.
                remove_file(&file_path(&store, refs::MAIN.as_str(), File::Delta)).expect("remove");
            }
            let cached = store.index(&head).expect("cached");
            let fresh = store.index_from_scratch(&head).expect("fresh");
            assert!(cached.same_as(&fresh), "step {step}");
            same_answers(&cached, &fresh, step);
            let (scanned, rows) = store.index_search(&head, "NEEDLE-3").expect("scan");
            let mut found: Vec<&str> = rows.iter().map(|&r| scanned.row(r).id()).collect();
            let mut expected: Vec<&str> = fresh
                .search("needle-3")
                .into_iter()
                .map(|r| fresh.row(r).id())
                .collect();
            found.sort_unstable();
            expected.sort_unstable();
            assert_eq!(found, expected, "step {step}");
            assert!(
                exists(&store, File::Delta),
                "step {step}: small changes go to the delta"
            );
        }
        // A change larger than the delta may hold is folded into a new table.
        commit(&store, |tx| {
            (0..320).for_each(|n| tx.put_bead(&bead(n, 99)).expect("put"))
        });
        let head = store.require_head().expect("head");
        let cached = store.index_parts(&head, &[Part::Beads]).expect("cached");
        assert!(!exists(&store, File::Delta));
        let fresh = store.index_from_scratch(&head).expect("fresh");
        let text = store.index(&head).expect("with text");
        same_answers(&text, &fresh, 0);
        assert_eq!(
            cached.rows().map(|r| r.to_summary()).collect::<Vec<_>>(),
            fresh.rows().map(|r| r.to_summary()).collect::<Vec<_>>()
        );
        let ids = |index: &Index, rows: &[Row]| -> Vec<String> {
            let mut ids: Vec<String> = rows.iter().map(|&r| index.row(r).id().into()).collect();
            ids.sort_unstable();
            ids
        };
        let same_search = |fresh: &Index, head: &Head| {
            let (scanned, rows) = store.index_search(head, "NEEDLE-3").expect("scan");
            let expected = ids(fresh, &fresh.search("needle-3"));
            assert!(!expected.is_empty());
            assert_eq!(ids(&scanned, &rows), expected);
        };
        same_search(&fresh, &head);
        // A fold whose old search text is gone still folds the table; the next search
        // builds the text again.
        commit(&store, |tx| {
            (0..300).for_each(|n| tx.put_bead(&bead(n, 100)).expect("put"))
        });
        let head = store.require_head().expect("head");
        std::fs::remove_file(file_path(&store, refs::MAIN.as_str(), File::Text)).expect("remove");
        let cached = store.index_parts(&head, &[Part::Beads]).expect("cached");
        assert!(!exists(&store, File::Delta) && !exists(&store, File::Text));
        let fresh = store.index_from_scratch(&head).expect("fresh");
        same_answers(&store.index(&head).expect("with text"), &fresh, 1);
        assert_eq!(cached.rows().count(), fresh.rows().count());
        same_search(&fresh, &head);
    }

    #[test]
    fn a_rebuild_removes_the_files_of_other_versions() {
        let (_dir, store) = store();
        commit(&store, |tx| tx.put_bead(&bead(1, 1)).expect("put"));
        let old = store.local_dir().join("index-v3-main-text.bin");
        std::fs::create_dir_all(store.local_dir()).expect("dir");
        std::fs::write(&old, b"old").expect("old file");
        store
            .index(&store.require_head().expect("head"))
            .expect("index");
        assert!(!old.exists());
        assert!(exists(&store, File::Table));
    }

    #[test]
    fn a_torn_or_stale_file_is_rebuilt() {
        let (_dir, store) = store();
        commit(&store, |tx| {
            (0..50).for_each(|n| tx.put_bead(&bead(n, 1)).expect("put"))
        });
        let head = store.require_head().expect("head");
        let fresh = store.index_from_scratch(&head).expect("fresh");
        store.index(&head).expect("build");
        for file in [File::Table, File::Text] {
            let path = file_path(&store, refs::MAIN.as_str(), file);
            let mut bytes = std::fs::read(&path).expect("read");
            let last = bytes.len() - 1;
            bytes[last] ^= 0x55;
            std::fs::write(&path, bytes).expect("tear");
            let index = store.index(&head).expect("rebuilt");
            same_answers(&index, &fresh, 0);
        }
    }

    #[test]
    fn documents_parse_the_same_on_one_thread_and_on_several() {
        let (_dir, store) = store();
        commit(&store, |tx| {
            for n in 0..500 {
                match n % 7 {
                    0 => {
                        let path = refs::bead_path(&id(n));
                        tx.writes.insert(path, Staged::Blob(b"id: [\n".to_vec()));
                    }
                    _ => tx.put_bead(&bead(n, 1)).expect("put"),
                }
            }
        });
        let tree = store.require_head().expect("head").tree;
        let docs = store.list_docs(tree, refs::BEADS_DIR).expect("docs");
        let parsed = |threads| {
            let mut ids = Vec::new();
            let broken = each_parsed_on::<Bead>(&store, &docs, threads, &mut |b| {
                ids.push(b.id.to_string());
            })
            .expect("parse");
            ids.sort();
            (ids, broken)
        };
        let one = parsed(1);
        assert_eq!((one.0.len(), one.1.len()), (428, 72));
        assert_eq!(parsed(3), one);
    }
}
