//! Importing records into the store: an export of the beads `bd` tracker (JSONL), or
//! git-beads' own YAML export. The whole import is one commit; an import that would
//! change nothing makes none.
//!
//! The input is read as a stream, one record at a time: each is mapped, encoded and
//! written into a new pack as soon as it is read (see [`PackStream`]), and only its
//! path and blob id stay in memory for the tree, so the memory an import needs does
//! not grow with the size of its records. A record that does not map, or that breaks
//! a rule of the document validator (`model::stored_bead_problems`), is a bad line. A
//! bad line stops the import with its line number (the rest is still read, to count
//! the bad lines) and the pack is dropped: nothing is imported. When asked to skip bad lines, each is reported while the rest
//! goes in. A bead already in the store is replaced by the imported one unless the
//! store's copy changed later (its `updated_at` is newer), so re-importing an old
//! export never undoes work done since.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

use super::export::DataFormat;
use super::{ImportError, Result};
use crate::model::bd::BdRecord;
use crate::model::{Actor, Bead, BeadType, Capability, count, stored_bead_problems};
use crate::store::{
    BlobIds, Entry, EntryKind, PackStream, Put, Store, StoreError, Tx, View, codec, refs,
};

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The format of the text.
    pub format: DataFormat,
    /// Import the good records and report the bad ones, instead of importing nothing.
    pub skip_bad: bool,
    /// Where the text came from (a file name), for messages and the commit message.
    pub source: String,
}

/// A line (or YAML document) that could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// The 1-based line number where the record starts.
    pub line: usize,
    /// Why it could not be imported.
    pub error: String,
}

/// What an import did.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// Records read and mapped (bad ones excluded).
    pub records: usize,
    /// Beads that were not in the store.
    pub added: usize,
    /// Beads whose document changed.
    pub updated: usize,
    /// Beads already exactly as imported.
    pub unchanged: usize,
    /// Beads left as they were because the store's copy changed later than the record.
    pub kept_newer: Vec<String>,
    /// Lines skipped as bad (only with `skip_bad`).
    pub bad: Vec<BadLine>,
    /// bd dependencies with no equivalent here (a target that is not an id, an unknown
    /// kind); each is kept on its bead in `extra.bd_dependencies`.
    pub unmapped_dependencies: usize,
    /// Imported beads by status.
    pub by_status: BTreeMap<String, usize>,
    /// Imported beads by type.
    pub by_type: BTreeMap<String, usize>,
    /// The store commit made, if anything changed.
    pub commit: Option<String>,
}

/// How far an import has come, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct ImportProgress {
    /// Records read so far (bad ones included).
    pub records: usize,
    /// Bytes of input read so far.
    pub read: u64,
}

/// One record read and mapped, ready to stage.
struct Record {
    bead: Bead,
    /// The bd record it came from, for the mappers of records that will get places
    /// of their own (agents, mail); `None` for YAML.
    bd: Option<BdRecord>,
}

/// How often progress is reported, in records.
const PROGRESS_EVERY: usize = 256;

/// Imports the records read from `input` into the store as one commit and reports
/// what happened.
///
/// Fails, changing nothing, when a record is bad and `skip_bad` is not set (the error
/// names the first bad line), when the input cannot be read, when the store does not
/// exist yet, or when the acting agent may not create, update, close and delete beads.
pub fn import(
    store: &Store,
    actor: &Actor,
    input: &mut dyn BufRead,
    options: &ImportOptions,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<ImportReport> {
    // An import creates, changes, closes and deletes beads wholesale: an agent needs
    // every one of those rights (a person has them all).
    for cap in [
        Capability::Create,
        Capability::Update,
        Capability::Close,
        Capability::Delete,
    ] {
        super::permit(actor, cap)?;
    }
    let mut input = Some(input);
    let (report, commit) = store.transact(actor, |tx| {
        // The input is consumed as it is staged: should the store move under this
        // writer anyway (only something that ignores the write lock can do that),
        // there is nothing left to apply again.
        let input = input
            .take()
            .ok_or_else(|| StoreError::Contended(refs::MAIN.to_string()))?;
        import_into(store, tx, input, options, progress)
    })?;
    Ok(ImportReport {
        commit: commit.map(|c| c.to_string()),
        ..report
    })
}

/// Reads every record of `input`, writes the documents that change into a pack, and
/// stages the new `beads/` tree in `tx`.
fn import_into(
    store: &Store,
    tx: &mut Tx<'_>,
    input: &mut dyn BufRead,
    options: &ImportOptions,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<ImportReport> {
    tx.meta()?;
    let mut sink = Sink {
        current: tx.bead_blob_ids()?,
        pack: store.pack_stream()?,
        edits: BTreeMap::new(),
        counts: Counts::default(),
    };
    let mut report = ImportReport::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut reader = RecordReader::new(input, options.format);
    let mut read = 0;
    while let Some((line, record)) = reader.next_record().map_err(|error| ImportError::Read {
        source_name: options.source.clone(),
        error,
    })? {
        read += 1;
        if read % PROGRESS_EVERY == 0 {
            progress(ImportProgress {
                records: read,
                read: reader.read,
            });
        }
        let record = match record.and_then(valid) {
            Ok(r) => r,
            Err(error) => {
                report.bad.push(BadLine { line, error });
                continue;
            }
        };
        if let Some(first) = seen.insert(record.bead.id.to_string(), line) {
            report.bad.push(BadLine {
                line,
                error: format!("{} was already imported from line {first}", record.bead.id),
            });
            continue;
        }
        report.records += 1;
        *report
            .by_status
            .entry(record.bead.status.as_str().to_owned())
            .or_default() += 1;
        *report
            .by_type
            .entry(record.bead.kind.as_str().to_owned())
            .or_default() += 1;
        report.unmapped_dependencies += record
            .bd
            .as_ref()
            .map_or(0, BdRecord::unmapped_dependencies);
        // After a bad line nothing will be imported: the rest is only read through.
        if options.skip_bad || report.bad.is_empty() {
            let outcome = stage_record(tx, &mut sink, &record)?;
            sink.counts.add(outcome, &record.bead);
        }
    }
    progress(ImportProgress {
        records: read,
        read: reader.read,
    });
    if let Some(first) = report.bad.first()
        && !options.skip_bad
    {
        return Err(ImportError::BadLines {
            source_name: options.source.clone(),
            line: first.line,
            error: first.error.clone(),
            more: report.bad.len() - 1,
        }
        .into());
    }
    let Sink {
        mut pack,
        edits,
        counts,
        ..
    } = sink;
    if !edits.is_empty() {
        let tree = pack.write_tree_edits(tx.head().map(|h| h.tree), refs::BEADS_DIR, &edits)?;
        pack.finish(store.fsync_policy().objects)?;
        tx.put_subtree(refs::BEADS_DIR, Some(tree));
        tx.set_message(format!(
            "import: {} from {} ({} added, {} updated)",
            count(report.records, "record"),
            options.source,
            counts.added,
            counts.updated
        ));
    }
    report.added = counts.added;
    report.updated = counts.updated;
    report.unchanged = counts.unchanged;
    report.kept_newer = counts.kept_newer;
    Ok(report)
}

/// A record that keeps every rule of the document validator, or what it breaks.
fn valid(record: Record) -> std::result::Result<Record, String> {
    let problems = stored_bead_problems(&record.bead);
    if problems.is_empty() {
        return Ok(record);
    }
    let what: Vec<String> = problems.iter().map(ToString::to_string).collect();
    Err(format!("{}: {}", record.bead.id, what.join("; ")))
}

/// Where the records of an import go: their documents into a pack as they come, their
/// places into the edits of the `beads/` tree.
struct Sink<'s> {
    /// The blob of every bead document the import started from.
    current: BlobIds,
    pack: PackStream<'s>,
    /// Paths below `beads/` and their new documents.
    edits: BTreeMap<String, Option<Entry>>,
    counts: Counts,
}

#[derive(Default)]
struct Counts {
    added: usize,
    updated: usize,
    unchanged: usize,
    kept_newer: Vec<String>,
}

/// What staging one record did.
enum Outcome {
    Put(Put),
    KeptNewer,
}

impl Counts {
    fn add(&mut self, outcome: Outcome, bead: &Bead) {
        match outcome {
            Outcome::Put(Put::Added) => self.added += 1,
            Outcome::Put(Put::Changed) => self.updated += 1,
            Outcome::Put(Put::Unchanged) => self.unchanged += 1,
            Outcome::KeptNewer => self.kept_newer.push(bead.id.to_string()),
        }
    }
}

/// Stages one record where it belongs. This is the seam for records that are more than
/// work items: agents and messages get a mapper each, so that when agents and mail have
/// places of their own in the store, their records can go there instead.
fn stage_record(tx: &View<'_>, sink: &mut Sink<'_>, record: &Record) -> Result<Outcome> {
    match record.bead.kind {
        BeadType::Agent => stage_agent(tx, sink, record),
        BeadType::Message => stage_message(tx, sink, record),
        _ => stage_bead(tx, sink, &record.bead),
    }
}

/// An agent record (bd keeps agents as issues of type `agent`, with `agent_state`,
/// `hook_bead`, `role_type`, `rig` … in fields or in the description). For now it
/// stays a bead of type agent with every field kept in `extra`.
fn stage_agent(tx: &View<'_>, sink: &mut Sink<'_>, record: &Record) -> Result<Outcome> {
    stage_bead(tx, sink, &record.bead)
}

/// A message record (bd keeps mail as issues of type `message`, sender and thread in
/// labels such as `from:…` and `thread:…`). For now it stays a bead of type message
/// with every field kept.
fn stage_message(tx: &View<'_>, sink: &mut Sink<'_>, record: &Record) -> Result<Outcome> {
    stage_bead(tx, sink, &record.bead)
}

/// Writes a bead's document unless it is byte-identical to the stored one (compared by
/// blob id, without reading the old document), or the store's copy changed later.
fn stage_bead(tx: &View<'_>, sink: &mut Sink<'_>, bead: &Bead) -> Result<Outcome> {
    let text = codec::encode(bead).map_err(|source| StoreError::Encode {
        what: bead.id.to_string(),
        source,
    })?;
    let put = match sink.current.get(bead.id.as_str()) {
        None => Put::Added,
        Some(old) if sink.pack.store().blob_id(text.as_bytes())? == old => {
            return Ok(Outcome::Put(Put::Unchanged));
        }
        Some(_) => {
            if let Some(existing) = tx.stored_bead(&bead.id)?
                && existing.updated_at > bead.updated_at
            {
                return Ok(Outcome::KeptNewer);
            }
            Put::Changed
        }
    };
    let id = sink.pack.add_blob(text.as_bytes())?;
    let path = refs::bead_path(&bead.id);
    let below = path
        .strip_prefix(refs::BEADS_DIR)
        .and_then(|p| p.strip_prefix('/'))
        .unwrap_or(&path)
        .to_owned();
    let kind = EntryKind::Blob;
    sink.edits.insert(below, Some(Entry { kind, id }));
    Ok(Outcome::Put(put))
}

/// The next record and the line it starts at (`None` at the end of the input), mapped
/// or with the reason it cannot be.
type Next = std::io::Result<Option<(usize, std::result::Result<Record, String>)>>;

/// Reads records one at a time: a bd JSONL line, or a document of git-beads' YAML
/// export, each mapped to a bead (or the reason it cannot be).
struct RecordReader<'r> {
    input: &'r mut dyn BufRead,
    format: DataFormat,
    /// Lines read so far.
    lines: usize,
    /// Bytes read so far.
    read: u64,
    line: Vec<u8>,
    /// A YAML document's first line, read while looking for the end of the one before.
    pending: Option<(usize, String)>,
}

impl<'r> RecordReader<'r> {
    fn new(input: &'r mut dyn BufRead, format: DataFormat) -> RecordReader<'r> {
        RecordReader {
            input,
            format,
            lines: 0,
            read: 0,
            line: Vec::new(),
            pending: None,
        }
    }

    /// The next line without its line break, or `None` at the end of the input; a line
    /// that is not UTF-8 comes back as the reason.
    fn next_line(&mut self) -> std::io::Result<Option<std::result::Result<String, String>>> {
        self.line.clear();
        let n = self.input.read_until(b'\n', &mut self.line)?;
        if n == 0 {
            return Ok(None);
        }
        self.lines += 1;
        self.read += n as u64;
        let mut bytes = self.line.as_slice();
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        Ok(Some(
            std::str::from_utf8(bytes)
                .map(str::to_owned)
                .map_err(|e| format!("not UTF-8 text: {e}")),
        ))
    }

    /// The next record and the line it starts at, or `None` at the end of the input.
    fn next_record(&mut self) -> Next {
        match self.format {
            DataFormat::BdJsonl => self.next_jsonl(),
            DataFormat::Yaml => self.next_yaml(),
        }
    }

    fn next_jsonl(&mut self) -> Next {
        loop {
            let Some(line) = self.next_line()? else {
                return Ok(None);
            };
            let line_no = self.lines;
            let line = match line {
                Ok(line) if line.trim().is_empty() => continue,
                Ok(line) => line,
                Err(e) => return Ok(Some((line_no, Err(e)))),
            };
            let mapped = BdRecord::parse(&line)
                .and_then(|r| Ok((r.to_bead()?, r)))
                .map(|(bead, bd)| Record { bead, bd: Some(bd) })
                .map_err(|e| e.to_string());
            return Ok(Some((line_no, mapped)));
        }
    }

    /// git-beads' YAML export is split into documents at `---` lines (the encoder
    /// never writes such a line inside a document: block text is indented).
    fn next_yaml(&mut self) -> Next {
        loop {
            let mut doc = self.pending.take();
            // A line that is not UTF-8 makes its whole document bad.
            let mut bad = None;
            while let Some(line) = self.next_line()? {
                let line = match line {
                    Ok(line) => line,
                    Err(e) => {
                        doc.get_or_insert_with(|| (self.lines, String::new()));
                        bad = bad.or(Some(e));
                        continue;
                    }
                };
                if line.trim_end() == "---" {
                    match doc {
                        Some(done) => {
                            self.pending = Some((self.lines + 1, String::new()));
                            doc = Some(done);
                            break;
                        }
                        None => {
                            doc = Some((self.lines + 1, String::new()));
                            continue;
                        }
                    }
                }
                let (_, buf) = doc.get_or_insert_with(|| (self.lines, String::new()));
                buf.push_str(&line);
                buf.push('\n');
            }
            let Some((line, text)) = doc else {
                return Ok(None);
            };
            if let Some(e) = bad {
                return Ok(Some((line, Err(e))));
            }
            if text.trim().is_empty() {
                if self.pending.is_none() {
                    return Ok(None);
                }
                continue;
            }
            let decoded = codec::decode::<Bead>(text.as_bytes())
                .map(|bead| Record { bead, bd: None })
                .map_err(|e| e.to_string());
            return Ok(Some((line, decoded)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record of `text`: the line it starts at, and its id or why it is bad.
    fn read_all(
        text: &[u8],
        format: DataFormat,
    ) -> Vec<(usize, std::result::Result<String, String>)> {
        let mut input = text;
        let mut reader = RecordReader::new(&mut input, format);
        let mut out = Vec::new();
        while let Some((line, record)) = reader.next_record().expect("reads") {
            out.push((line, record.map(|r| r.bead.id.to_string())));
        }
        assert_eq!(reader.read, text.len() as u64);
        out
    }

    #[test]
    fn yaml_documents_split_at_separators() {
        let doc = "id: bd-a1\ntitle: one\nstatus: open\npriority: 2\ntype: task\n\
                   created_at: 2026-01-01T00:00:00Z\ncreated_by: me\n\
                   updated_at: 2026-01-01T00:00:00Z\nupdated_by: me\n";
        let text = format!(
            "---\n{doc}---\nid: [\n---\n---\n{}",
            doc.replace("a1", "a2")
        );
        let read = read_all(text.as_bytes(), DataFormat::Yaml);
        let lines: Vec<usize> = read.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [2, 12, 15], "{read:?}");
        assert_eq!(read[0].1, Ok("bd-a1".into()));
        assert!(read[1].1.is_err());
        assert_eq!(read[2].1, Ok("bd-a2".into()));
        // Without a leading separator, and a line that is not UTF-8 spoils its document.
        let mut bytes = doc.as_bytes().to_vec();
        bytes.extend_from_slice(b"notes: \xff\n---\n");
        bytes.extend_from_slice(doc.replace("a1", "a3").as_bytes());
        let read = read_all(&bytes, DataFormat::Yaml);
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[0].0, 1);
        assert!(read[0].1.as_ref().is_err_and(|e| e.contains("UTF-8")));
        assert_eq!(read[1], (12, Ok("bd-a3".into())));
    }

    #[test]
    fn jsonl_reports_bad_lines_by_number() {
        let good = r#"{"id":"bd-a1","title":"t","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#;
        let mut bytes = format!("{good}\r\n\nnot json\n").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        bytes.extend_from_slice(good.replace("a1", "a2").as_bytes());
        let read = read_all(&bytes, DataFormat::BdJsonl);
        let lines: Vec<usize> = read.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 3, 4, 5], "{read:?}");
        assert_eq!(read[0].1, Ok("bd-a1".into()));
        assert!(read[1].1.is_err());
        assert!(read[2].1.as_ref().is_err_and(|e| e.contains("UTF-8")));
        assert_eq!(read[3].1, Ok("bd-a2".into()));
    }
}
