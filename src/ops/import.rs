//! Importing records into the store: an export of the beads `bd` tracker (JSONL), or
//! git-beads' own YAML export. The whole import is one commit; an import that would
//! change nothing makes none.
//!
//! Every line is read and mapped before anything is written: a bad line stops the
//! import with its line number, or, when asked to skip bad lines, is reported while
//! the rest goes in. A bead already in the store is replaced by the imported one
//! unless the store's copy changed later (its `updated_at` is newer), so re-importing
//! an old export never undoes work done since.

use std::collections::{BTreeMap, HashMap};

use super::export::DataFormat;
use super::{OpError, Result};
use crate::model::bd::BdRecord;
use crate::model::{Actor, Bead, BeadType, Capability};
use crate::store::{BlobIds, Put, Store, Tx, codec};

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
    /// What is being done: "reading" or "writing".
    pub phase: &'static str,
    /// Records done in this phase.
    pub done: usize,
    /// Records in all.
    pub total: usize,
}

/// One record read and mapped, ready to stage.
struct Record {
    bead: Bead,
    /// The bd record it came from, for the mappers of records that will get places
    /// of their own (agents, mail); `None` for YAML.
    bd: Option<BdRecord>,
}

/// Imports `text` into the store as one commit and reports what happened.
///
/// Fails, changing nothing, when a record is bad and `skip_bad` is not set (the error
/// names the first bad line), when the store does not exist yet, or when the acting
/// agent may not create, update, close and delete beads.
pub fn import(
    store: &Store,
    actor: &Actor,
    text: &str,
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
    let (records, bad) = match options.format {
        DataFormat::BdJsonl => read_bd_jsonl(text, progress),
        DataFormat::Yaml => read_yaml(text),
    };
    if let Some(first) = bad.first()
        && !options.skip_bad
    {
        let more = match bad.len() {
            1 => String::new(),
            n => format!(" ({} more bad lines follow)", n - 1),
        };
        return Err(OpError::Invalid(format!(
            "{}:{}: {}{more}; nothing was imported",
            options.source, first.line, first.error
        )));
    }
    let mut report = ImportReport {
        records: records.len(),
        bad,
        ..ImportReport::default()
    };
    for r in &records {
        *report
            .by_status
            .entry(r.bead.status.as_str().to_owned())
            .or_default() += 1;
        *report
            .by_type
            .entry(r.bead.kind.as_str().to_owned())
            .or_default() += 1;
        report.unmapped_dependencies += r.bd.as_ref().map_or(0, BdRecord::unmapped_dependencies);
    }
    let total = records.len();
    let (counts, commit) = store.transact(actor, |tx| {
        tx.meta()?;
        let current = tx.bead_blob_ids()?;
        let mut counts = Counts::default();
        for (i, record) in records.iter().enumerate() {
            let outcome = stage_record(tx, &current, record)?;
            counts.add(outcome, &record.bead);
            if i % 256 == 0 || i + 1 == total {
                progress(ImportProgress {
                    phase: "writing",
                    done: i + 1,
                    total,
                });
            }
        }
        tx.set_message(format!(
            "import: {} records from {} ({} added, {} updated)",
            total, options.source, counts.added, counts.updated
        ));
        Ok::<_, OpError>(counts)
    })?;
    report.added = counts.added;
    report.updated = counts.updated;
    report.unchanged = counts.unchanged;
    report.kept_newer = counts.kept_newer;
    report.commit = commit.map(|c| c.to_string());
    Ok(report)
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
fn stage_record(tx: &mut Tx<'_>, current: &BlobIds, record: &Record) -> Result<Outcome> {
    match record.bead.kind {
        BeadType::Agent => stage_agent(tx, current, record),
        BeadType::Message => stage_message(tx, current, record),
        _ => stage_bead(tx, current, &record.bead),
    }
}

/// An agent record (bd keeps agents as issues of type `agent`, with `agent_state`,
/// `hook_bead`, `role_type`, `rig` … in fields or in the description). For now it
/// stays a bead of type agent with every field kept in `extra`.
fn stage_agent(tx: &mut Tx<'_>, current: &BlobIds, record: &Record) -> Result<Outcome> {
    stage_bead(tx, current, &record.bead)
}

/// A message record (bd keeps mail as issues of type `message`, sender and thread in
/// labels such as `from:…` and `thread:…`). For now it stays a bead of type message
/// with every field kept.
fn stage_message(tx: &mut Tx<'_>, current: &BlobIds, record: &Record) -> Result<Outcome> {
    stage_bead(tx, current, &record.bead)
}

/// Stages a bead unless it is unchanged, or the store's copy changed later.
fn stage_bead(tx: &mut Tx<'_>, current: &BlobIds, bead: &Bead) -> Result<Outcome> {
    if current.contains(bead.id.as_str()) {
        let put = tx.put_bead_if_changed(bead, current)?;
        if put == Put::Changed
            && let Some(existing) = tx.stored_bead(&bead.id)?
            && existing.updated_at > bead.updated_at
        {
            tx.unstage_bead(&bead.id);
            return Ok(Outcome::KeptNewer);
        }
        return Ok(Outcome::Put(put));
    }
    Ok(Outcome::Put(tx.put_bead_if_changed(bead, current)?))
}

fn read_bd_jsonl(
    text: &str,
    progress: &mut dyn FnMut(ImportProgress),
) -> (Vec<Record>, Vec<BadLine>) {
    let total = text.lines().count();
    let mut records = Vec::new();
    let mut bad = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if i % 512 == 0 {
            progress(ImportProgress {
                phase: "reading",
                done: i,
                total,
            });
        }
        if line.trim().is_empty() {
            continue;
        }
        let mapped = BdRecord::parse(line).and_then(|r| Ok((r.to_bead()?, r)));
        match mapped {
            Ok((bead, bd)) => {
                if let Some(first) = seen.insert(bead.id.to_string(), line_no) {
                    bad.push(BadLine {
                        line: line_no,
                        error: format!("{} was already imported from line {first}", bead.id),
                    });
                    continue;
                }
                records.push(Record { bead, bd: Some(bd) });
            }
            Err(e) => bad.push(BadLine {
                line: line_no,
                error: e.to_string(),
            }),
        }
    }
    (records, bad)
}

/// Splits git-beads' YAML export into documents at `---` lines (the encoder never
/// writes such a line inside a document: block text is indented) and decodes each.
fn read_yaml(text: &str) -> (Vec<Record>, Vec<BadLine>) {
    let mut chunks: Vec<(usize, String)> = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_end() == "---" {
            if let Some(done) = current.take() {
                chunks.push(done);
            }
            current = Some((i + 2, String::new()));
            continue;
        }
        let (_, buf) = current.get_or_insert_with(|| (i + 1, String::new()));
        buf.push_str(line);
        buf.push('\n');
    }
    chunks.extend(current);
    let mut records = Vec::new();
    let mut bad = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (line, doc) in chunks {
        if doc.trim().is_empty() {
            continue;
        }
        match codec::decode::<Bead>(doc.as_bytes()) {
            Ok(bead) => {
                if let Some(first) = seen.insert(bead.id.to_string(), line) {
                    bad.push(BadLine {
                        line,
                        error: format!("{} was already imported from line {first}", bead.id),
                    });
                    continue;
                }
                records.push(Record { bead, bd: None });
            }
            Err(e) => bad.push(BadLine {
                line,
                error: e.to_string(),
            }),
        }
    }
    (records, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_documents_split_at_separators() {
        let text = "---\nid: bd-a1\ntitle: one\nstatus: open\npriority: 2\ntype: task\n\
                    created_at: 2026-01-01T00:00:00Z\ncreated_by: me\n\
                    updated_at: 2026-01-01T00:00:00Z\nupdated_by: me\n---\nid: [\n";
        let (records, bad) = read_yaml(text);
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].bead.title, "one");
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].line, 12);
    }

    #[test]
    fn jsonl_reports_bad_and_repeated_lines() {
        let good = r#"{"id":"bd-a1","title":"t","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#;
        let text = format!("{good}\n\nnot json\n{good}\n");
        let (records, bad) = read_bd_jsonl(&text, &mut |_| {});
        assert_eq!(records.len(), 1);
        assert_eq!(
            bad.iter().map(|b| b.line).collect::<Vec<_>>(),
            [3, 4],
            "{bad:?}"
        );
    }
}
