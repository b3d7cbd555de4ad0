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

pub(crate) mod answer;
mod beads;
mod buffer;
mod file;
mod mail;
mod parse;
mod pieces;
mod row;
mod summary;
mod table;
mod travel;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{Head, Replacement, Store, StoreError, codec, io_err, refs, tree};
use crate::model::{
    Bead, BeadType, DepKind, Dependency, ExternalDependency, Message, Status, Timestamp,
};
pub use answer::{Answer, Slot};
use beads::*;
use file::*;
use mail::*;
use parse::*;
#[cfg(test)]
pub(crate) use pieces::damage_counted_alone;
pub use pieces::damage_seen;
use row::*;
pub use row::{BeadRow, Dep, Row};
pub use summary::{Broken, MailMarks, MailSummary, Summary};
use table::{
    NO_ROW, NewText, Raw, RowData, Table, TableBuilder, Texts, TextsBuilder, TextsCopy, fold,
    offset,
};

/// A part of the index, kept in a file of its own so that a reader loads only the
/// parts it needs: `mail inbox` and `prime` never read the beads, `ready` never reads
/// the search text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The bead table and the bead documents that do not parse.
    Beads,
    /// The beads as [`Part::Beads`], with the table's file read and checked a piece
    /// at a time as the reads touch it rather than whole: a piece found damaged reads
    /// as empty and is counted in [`damage_seen`], so a reader compares that count
    /// before and after it reads, and reads again from a rebuilt cache when it grew.
    LazyBeads,
    /// The beads' searchable text (id, title, description, case-folded).
    Text,
    /// The mail summaries and the messages that do not parse.
    Mail,
}

/// Which bytes an index's table is read from. Two indexes have equal stamps exactly
/// when they read their tables from the same bytes in memory or the same pieces of
/// one open file (a process that reads again keeps what it read: see [`buffer`]), so
/// that what was made of a row of one table holds for the same row of the other,
/// whatever happened to the store in between. A stamp holds on to those bytes: no
/// other table can take their place in memory while it is kept.
#[derive(Clone)]
pub struct TableStamp(Table);

impl PartialEq for TableStamp {
    fn eq(&self, other: &TableStamp) -> bool {
        self.0.same_bytes(&other.0)
    }
}

impl Eq for TableStamp {}

/// Every bead and message of one state of the store.
#[derive(Default)]
pub struct Index {
    table: Table,
    /// The search text of the table's rows; empty unless [`Part::Text`] was loaded.
    texts: Texts,
    /// Beads changed since the table was written, sorted by id.
    over: Vec<Summary>,
    /// Where the table has what each of [`Index::over`] names.
    placed: Vec<Placed>,
    /// Table rows replaced by [`Index::over`] or gone from the store.
    hidden: Vec<bool>,
    /// The rows of [`Index::hidden`] that are set, in order.
    replaced: Vec<usize>,
    /// For each of [`Index::replaced`], the bead of [`Index::over`] that took its
    /// place ([`NO_ROW`] for one gone from the store).
    replaced_by: Vec<u32>,
    /// For each of [`Index::replaced`], the targets of its edges in the table
    /// ([`Placed`]'s `was`).
    replaced_was: Vec<Vec<u32>>,
    /// The ids of the beads gone from the store (or whose documents no longer parse)
    /// since the table was written, each with its row there ([`NO_ROW`] for one it
    /// never held), sorted.
    gone: Vec<(String, u32)>,
    mail: Section<MailSummary>,
    broken: Vec<Broken>,
    /// The tree the table was built from (its search text file must match it).
    base: Vec<u8>,
}

impl Index {
    /// Every bead: those of the table in listing order (priority, then age, then id),
    /// then those changed since the table was written.
    pub fn rows(&self) -> impl Iterator<Item = BeadRow<'_>> {
        self.listed_rows().chain(self.changed_rows())
    }

    /// The beads of the table, in listing order: priority, then age, then id (the
    /// order of a listing by priority, so its first page is read off the front).
    pub fn listed_rows(&self) -> impl Iterator<Item = BeadRow<'_>> {
        (0..self.table.len())
            .filter(|&r| !self.hidden[r])
            .map(|r| self.row(Row::at(r)))
    }

    /// The beads changed since the table was written, in no particular order.
    pub fn changed_rows(&self) -> impl Iterator<Item = BeadRow<'_>> {
        (self.table.len()..self.row_count()).map(|r| self.row(Row::at(r)))
    }

    /// How many beads depend on each of `rows` (a dependency of any kind whose target
    /// is in the store: [`BeadRow::dependencies`]' targets counted), in their order.
    ///
    /// The table keeps the edges into each of its rows (and those to ids not in it);
    /// the changes laid over it are counted on top: the edges of the table rows they
    /// replaced taken out, their own edges put in. So the cost follows the beads
    /// changed, not the store.
    pub fn dependents_of(&self, rows: &[Row]) -> Vec<usize> {
        let n = self.table.len();
        // What the table says of the bead at row `r`: its own row's count, or, for a
        // bead changed since, that of the row it replaced or of its id.
        let counted = |r: usize| -> i64 {
            let t = &self.table;
            let count = match r < n {
                true => t.dependents(r),
                false => match self.placed.get(r - n).map(|p| p.own) {
                    Some(own) if own != NO_ROW => t.dependents(own as usize),
                    _ => t.dependents_of_missing(self.row(Row::at(r)).id()),
                },
            };
            i64::try_from(count).unwrap_or(i64::MAX)
        };
        let mut wanted: Vec<(usize, i64)> =
            rows.iter().map(|r| (r.get(), counted(r.get()))).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut add = |target: Option<BeadRow<'_>>, by: i64| {
            if let Some(t) = target
                && let Ok(k) = wanted.binary_search_by(|(w, _)| w.cmp(&t.row().get()))
            {
                wanted[k].1 += by;
            }
        };
        // The edges of the rows replaced, as the delta keeps them: the table's rows
        // are read only for one with an edge to a bead the table does not hold.
        for (k, &h) in self.replaced.iter().enumerate() {
            match self.replaced_was.get(k) {
                Some(was) if !was.contains(&NO_ROW) => {
                    for &t in was {
                        add(self.target(t, || ""), -1);
                    }
                }
                _ => {
                    for d in self.row(Row::at(h)).dependencies() {
                        add(d.target, -1);
                    }
                }
            }
        }
        for s in self.changed_rows() {
            for d in s.dependencies() {
                add(d.target, 1);
            }
        }
        rows.iter()
            .map(|r| {
                wanted
                    .binary_search_by(|(w, _)| w.cmp(&r.get()))
                    .map_or(0, |k| usize::try_from(wanted[k].1).unwrap_or(0))
            })
            .collect()
    }

    /// The beads with a dependency of any kind on `id` (a bead once per dependency),
    /// and each one's kind, in no particular order. The table's edges are followed by
    /// row, not compared by id, and only the beads changed since it was written are
    /// read whole.
    pub fn edges_into(&self, id: &str) -> Vec<(BeadRow<'_>, DepKind)> {
        let changed = self.changed_rows().flat_map(|s| {
            s.dependencies()
                .filter(|d| d.id() == id)
                .map(move |d| (s, d.kind))
        });
        let target = self.table_row_of(id).ok_or(id);
        self.unchanged_edges_into(target).chain(changed).collect()
    }

    /// The beads that depend on a bead among those that did not change since the
    /// table was written, with the kind of each dependency: the table's own edges into
    /// the bead's row of the table, or to its id where the table has no such bead
    /// (`Err`), found without reading any other row. Those of the changed beads are
    /// theirs to tell.
    pub fn unchanged_edges_into(
        &self,
        target: Result<Row, &str>,
    ) -> impl Iterator<Item = (BeadRow<'_>, DepKind)> {
        let t = &self.table;
        let in_table = match target {
            Ok(row) => t.edges_into(row.get()),
            Err(id) => t.edges_into_missing(id),
        };
        in_table
            .into_iter()
            .filter(|&(r, _)| !self.hidden[r])
            .map(|(r, kind)| (self.row(Row::at(r)), kind))
    }

    /// Whether a bead of the table that did not change since it was written may
    /// depend (through a dependency of any kind) on one that did, or on one new since
    /// whose id its edges name. When it says no, every answer about the unchanged
    /// beads that follows their dependencies is the table's own. It may say yes when
    /// the only such edges come from changed beads: it reads the counts the table keeps,
    /// so its cost follows the beads changed.
    pub fn changes_reach_table(&self) -> bool {
        self.replaced.iter().any(|&h| self.table.dependents(h) > 0)
            || (self.over.iter().zip(&self.placed))
                .any(|(s, p)| p.own == NO_ROW && self.table.dependents_of_missing(&s.id) > 0)
    }

    /// The ids of the beads changed since the table was written: those changed or
    /// new, then those it held that went away.
    pub fn changed_ids(&self) -> impl Iterator<Item = &str> {
        let gone = (self.gone.iter()).filter(|(_, own)| (*own as usize) < self.table.len());
        (self.over.iter().map(|s| s.id.as_str())).chain(gone.map(|(id, _)| id.as_str()))
    }

    /// Whether a bead the table held went from the store since it was written.
    pub fn lost_beads(&self) -> bool {
        self.replaced_by.contains(&NO_ROW)
    }

    /// The row of the table that holds the bead with this id as it was when the table
    /// was written, whether it changed since or not (a row of [`Index::table_only`]).
    /// A changed bead's row is known from the delta, without a look in the table.
    pub fn table_row_of(&self, id: &str) -> Option<Row> {
        let known = match self.over.binary_search_by(|s| s.id.as_str().cmp(id)) {
            Ok(k) => self.placed.get(k).map(|p| p.own),
            Err(_) => (self.gone.binary_search_by(|(g, _)| g.as_str().cmp(id)).ok())
                .map(|k| self.gone[k].1),
        };
        let r = match known {
            Some(own) => ((own as usize) < self.table.len()).then_some(own as usize),
            None => self.table.find(id),
        };
        r.map(Row::at)
    }

    /// The index of the table alone, as it was written (the changes since left out),
    /// reading the same bytes.
    pub fn table_only(&self) -> Index {
        let mut index = Index::assemble(
            self.table.clone(),
            Texts::default(),
            Changes::default(),
            Vec::new(),
        );
        index.base = self.base.clone();
        index
    }

    /// The tree the table was built from.
    pub fn table_tree(&self) -> Option<ObjectId> {
        ObjectId::try_from(self.base.as_slice()).ok()
    }

    /// What a reader worked out of this index's table and kept beside it with
    /// [`Index::keep`]: kept only while that table is the cache's (a new table, after a
    /// fold or a rebuild, starts without), so it holds for the table alone, never for
    /// the changes laid over it. `None` when nothing is kept for this table, or the file
    /// is torn or holds something else.
    pub(super) fn kept<T: serde::de::DeserializeOwned>(
        &self,
        store: &Store,
        ref_name: &str,
    ) -> Option<T> {
        let (tree, sections) = read_part(&file_path(store, ref_name, File::Kept), File::Kept)?;
        let ours = !self.base.is_empty() && tree == self.base;
        ours.then(|| postcard::from_bytes(bytes(&sections[0])).ok())
            .flatten()
    }

    /// Keeps `value`, worked out of this index's table, beside it (see
    /// [`Index::kept`]). A file that cannot be written only costs speed.
    pub(super) fn keep<T: Serialize>(&self, store: &Store, ref_name: &str, value: &T) {
        if !self.base.is_empty() {
            let path = file_path(store, ref_name, File::Kept);
            let _ = encode(value).and_then(|b| write_part(&path, File::Kept, &self.base, &[&b]));
        }
    }

    /// Reads all that a listing prints of `rows` (each one's fields, the ids of what
    /// it depends on; how many depend on them the listing works out as it is made,
    /// with [`Index::dependents_of`]): with a table checked as it is read
    /// ([`Part::LazyBeads`]), a damaged piece they touch is found before the rows are
    /// handed on.
    pub fn touch(&self, rows: &[Row]) {
        if self.table.checked_whole() {
            return;
        }
        for &r in rows {
            let s = self.row(r);
            let _ = (
                s.id(),
                s.title(),
                s.status(),
                s.kind(),
                s.priority(),
                s.assignee(),
            );
            let _ = (s.created_us(), s.updated_us());
            s.labels().for_each(|_| ());
            s.dependencies().for_each(|d| {
                let _ = d.id();
            });
        }
    }

    /// The stamp of the bytes its table is read from (see [`BeadRow::table_row`]).
    pub fn table_stamp(&self) -> TableStamp {
        TableStamp(self.table.clone())
    }

    /// The bead at `row` (from a row of this index).
    pub fn row(&self, row: Row) -> BeadRow<'_> {
        BeadRow { index: self, row }
    }

    /// One more than the largest row of this index: the size of a table kept per row.
    pub fn row_count(&self) -> usize {
        self.table.len() + self.over.len()
    }

    /// The bead with this id: a changed one is found without a look in the table.
    pub fn get(&self, id: &str) -> Option<BeadRow<'_>> {
        if let Some(s) = self.over_row(id) {
            return Some(s);
        }
        match self.table.find(id) {
            Some(r) if !self.hidden[r] => Some(self.row(Row::at(r))),
            _ => None,
        }
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

    /// An index of `table` (and `texts`) with `changes` laid over it.
    fn assemble(table: Table, texts: Texts, changes: Changes, broken: Vec<Broken>) -> Index {
        let n = table.len();
        let Changes {
            beads,
            mut placed,
            gone,
        } = changes;
        // Each replaced row's edges move to `replaced_was`; nothing else reads them.
        let mut replaced: Vec<(usize, u32, Vec<u32>)> = (placed.iter_mut().enumerate())
            .map(|(k, p)| (p.own as usize, offset(k), std::mem::take(&mut p.was)))
            .collect();
        let mut gone_rows = Vec::with_capacity(gone.len());
        for (id, p) in gone {
            replaced.push((p.own as usize, NO_ROW, p.was));
            gone_rows.push((id, p.own));
        }
        replaced.retain(|&(r, _, _)| r < n);
        replaced.sort_unstable_by_key(|&(r, _, _)| r);
        let mut hidden = vec![false; n];
        for &(r, _, _) in &replaced {
            hidden[r] = true;
        }
        let (replaced, (replaced_by, replaced_was)) = replaced
            .into_iter()
            .map(|(r, by, was)| (r, (by, was)))
            .unzip();
        Index {
            table,
            texts,
            over: beads,
            placed,
            hidden,
            replaced,
            replaced_by,
            replaced_was,
            gone: gone_rows,
            mail: Section::default(),
            broken,
            base: Vec::new(),
        }
    }

    /// The bead a dependency leads to, given where the table has its target
    /// ([`NO_ROW`] when it has no such bead) and the target's id, read only when
    /// needed: the table's row while it holds, else the changed bead that took its
    /// place or that is new since; none for a bead not in the store.
    pub(super) fn target<'a>(
        &'a self,
        row: u32,
        id: impl FnOnce() -> &'a str,
    ) -> Option<BeadRow<'a>> {
        let r = row as usize;
        match row {
            NO_ROW if self.over.is_empty() => None,
            NO_ROW => self.over_row(id()),
            _ if !*self.hidden.get(r)? => Some(self.row(Row::at(r))),
            _ => {
                let k = self.replaced.binary_search(&r).ok()?;
                let by = *self.replaced_by.get(k)?;
                (by != NO_ROW).then(|| self.row(Row::at(self.table.len() + by as usize)))
            }
        }
    }

    /// The bead changed since the table was written with this id.
    fn over_row(&self, id: &str) -> Option<BeadRow<'_>> {
        let k = self.over.binary_search_by(|s| s.id.as_str().cmp(id)).ok()?;
        Some(self.row(Row::at(self.table.len() + k)))
    }

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
        let mut index = Index::assemble(table, texts, Changes::default(), broken);
        index.base = tree.as_bytes().to_vec();
        Ok(index)
    }

    /// The beads at `head` and those whose id, title or description contains `needle`,
    /// case-insensitively, in the order of [`Index::rows`]. The search text is scanned
    /// while its file is read, a piece at a time, never held whole; the table is
    /// checked as it is read ([`Part::LazyBeads`]).
    pub(super) fn load_search(
        store: &Store,
        ref_name: &str,
        head: &Head,
        needle: &str,
    ) -> Result<(Index, Vec<Row>), StoreError> {
        let folded = needle.to_lowercase();
        let index = load_beads(store, ref_name, head, Text::Changed, true)?;
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
        let lazy = !parts.contains(&Part::Beads) && parts.contains(&Part::LazyBeads);
        let mut index = if [Part::Beads, Part::LazyBeads, Part::Text]
            .iter()
            .any(|p| parts.contains(p))
        {
            let text = match parts.contains(&Part::Text) {
                true => Text::Whole,
                false => Text::Not,
            };
            load_beads(store, ref_name, head, text, lazy)?
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

#[cfg(test)]
mod tests {
    use super::super::tx::Staged;
    use super::*;
    use crate::model::BeadId;

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
    fn commit(store: &Store, op: impl FnMut(&mut super::super::Tx<'_>)) {
        store.commit_for_tests(op);
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
        let rows: Vec<Row> = index.rows().map(|r| r.row()).collect();
        let mut counts: Vec<String> = (rows.iter().zip(index.dependents_of(&rows)))
            .map(|(&r, count)| format!("{} has {count} dependents", index.row(r).id()))
            .collect();
        counts.sort();
        out.extend(counts);
        // What depends on a bead, by row, is what every bead's dependencies name.
        let mut ids: Vec<String> = index.rows().map(|r| r.id().to_owned()).collect();
        ids.sort();
        for target in ids
            .into_iter()
            .take(30)
            .chain((0..8).map(|n| id(5 * n + 1000).to_string()))
        {
            let named = |s: BeadRow<'_>, kind: DepKind| format!("{} {kind:?}", s.id());
            let mut by_row: Vec<String> = index
                .edges_into(&target)
                .into_iter()
                .map(|(s, kind)| named(s, kind))
                .collect();
            let mut by_id: Vec<String> = index
                .rows()
                .flat_map(|s| {
                    s.dependencies()
                        .filter(|d| d.id() == target)
                        .map(move |d| named(s, d.kind))
                })
                .collect();
            by_row.sort();
            by_id.sort();
            assert_eq!(by_row, by_id, "what depends on {target}");
            out.push(format!("{target}: {by_row:?}"));
        }
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
    fn a_store_pinned_at_a_commit_reads_that_state_after_later_writes() {
        let (_dir, store) = store();
        commit(&store, |tx| tx.put_bead(&bead(1, 1)).expect("put"));
        let then = store.require_head().expect("head");
        let pinned = store.clone().pinned_at(then.commit);
        commit(&store, |tx| tx.put_bead(&bead(2, 1)).expect("put"));
        let now = store.require_head().expect("head");
        assert_ne!(now.commit, then.commit);
        let read = |s: &Store| {
            let head = s.require_head().expect("head");
            let index = s.index_parts(&head, &[Part::Beads]).expect("index");
            (head.commit, answers(&index))
        };
        let (pinned_commit, pinned_answers) = read(&pinned);
        assert_eq!(pinned_commit, then.commit);
        assert_eq!(
            pinned_answers,
            answers(&Index::fresh(&store, &then).expect("index"))
        );
        assert_eq!(read(&store).0, now.commit);
        assert_eq!(
            pinned.caching(1 << 20).head_id().expect("head"),
            Some(then.commit)
        );
    }

    /// A store of `n` beads with its index cache built, its head, and its index built
    /// from scratch.
    fn built(n: u64) -> (tempfile::TempDir, Store, Head, Index) {
        let (dir, store) = store();
        commit(&store, |tx| {
            (0..n).for_each(|n| tx.put_bead(&bead(n, 1)).expect("put"))
        });
        let head = store.require_head().expect("head");
        let fresh = store.index_from_scratch(&head).expect("fresh");
        store.index(&head).expect("build");
        (dir, store, head, fresh)
    }

    #[test]
    fn a_torn_or_stale_file_is_rebuilt() {
        let _alone = damage_counted_alone();
        let (_dir, store, head, fresh) = built(50);
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
    fn a_read_checks_the_pieces_of_the_table_it_touches_and_no_other() {
        let _alone = damage_counted_alone();
        let (_dir, store, head, fresh) = built(2000);
        let path = file_path(&store, refs::MAIN.as_str(), File::Table);
        let whole = std::fs::read(&path).expect("read");
        assert!(whole.len() > 4 * pieces::CHECKED_PIECE, "several pieces");
        // Damage the title of the last bead listed, far from the front of the table.
        let title = {
            let lazy = store.index_parts(&head, &[Part::LazyBeads]).expect("lazy");
            let last = lazy.listed_rows().last().expect("rows");
            last.title().to_owned()
        };
        let at = memchr::memmem::rfind(&whole, title.as_bytes()).expect("title in file");
        let mut torn = whole.clone();
        torn[at] ^= 0x20;
        std::fs::write(&path, &torn).expect("tear");
        let lazy = store.index_parts(&head, &[Part::LazyBeads]).expect("lazy");
        let seen = damage_seen();
        // The front of the table is sound: a read of it notices nothing.
        let first = lazy.listed_rows().next().expect("first");
        assert_eq!(
            first.to_summary(),
            fresh.get(first.id()).expect("in fresh").to_summary()
        );
        assert_eq!(damage_seen(), seen);
        // The damaged title reads as nothing, and the read notices.
        let row = lazy.listed_rows().last().expect("last");
        assert_eq!(row.title(), "");
        assert!(damage_seen() > seen);
        // A read that checks the whole table rebuilds it.
        let checked = store.index(&head).expect("rebuilt");
        same_answers(&checked, &fresh, 0);
        assert_ne!(std::fs::read(&path).expect("read"), torn);
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
