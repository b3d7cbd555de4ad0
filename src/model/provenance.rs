//! Provenance: which agent, session, model, bead and molecule step made a code commit.
//!
//! A commit's provenance note (under `refs/notes/beads`) holds one or more records,
//! each a YAML document that starts with a `---` line, so that notes joined by git
//! (`notes.rewriteMode=concatenate` on amend and rebase) or by a sync's notes merge
//! stay a valid stream of documents.

use serde::{Deserialize, Serialize};

use super::agent::AgentName;
use super::id::BeadId;

/// What a session was doing when it made a code commit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// The agent whose session made the commit.
    pub agent: AgentName,
    /// The session.
    pub session: BeadId,
    /// The model the session ran at the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The work it was doing: the beads on the agent's hook, then the beads in
    /// progress assigned to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beads: Vec<BeadId>,
    /// The unfinished molecule on the agent's hook, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub molecule: Option<BeadId>,
    /// The molecule's first unfinished step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<BeadId>,
    /// Where the molecule stood, in words ("step 3 of 7 (bd-x.3: Write tests)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// The commit of `refs/beads/main` at the time: the evidence cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}

/// The line that starts every record of a provenance note.
pub const NOTE_DOCUMENT_START: &str = "---";

/// Splits a note into its records' texts: the documents between `---` lines, trimmed,
/// empty ones dropped. Text before the first `---` (a note written by hand) is a
/// document too.
pub fn note_documents(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if line == NOTE_DOCUMENT_START || line.starts_with("--- ") {
            docs.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    docs.push(cur);
    docs.into_iter()
        .map(|d| d.trim().to_owned())
        .filter(|d| !d.is_empty())
        .collect()
}

/// Joins records' texts into a note: each starts with a `---` line.
pub fn join_note_documents<S: AsRef<str>>(docs: &[S]) -> String {
    let mut out = String::new();
    for d in docs {
        out.push_str(NOTE_DOCUMENT_START);
        out.push('\n');
        out.push_str(d.as_ref().trim());
        out.push('\n');
    }
    out
}

/// The union of two notes' records: every distinct record once, in text order, so
/// that joining `a` with `b` gives exactly what joining `b` with `a` gives.
pub fn union_note_documents(a: &str, b: &str) -> String {
    let mut docs = note_documents(a);
    docs.extend(note_documents(b));
    docs.sort();
    docs.dedup();
    join_note_documents(&docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_split_join_and_union() {
        let a = "---\nagent: a\nsession: ses-1\n";
        let b = "---\nagent: b\nsession: ses-2\n";
        assert_eq!(note_documents(a), vec!["agent: a\nsession: ses-1"]);
        // git's concatenation puts a blank line between two notes.
        let joined = format!("{a}\n{b}");
        assert_eq!(note_documents(&joined).len(), 2);
        assert_eq!(
            join_note_documents(&note_documents(&joined)),
            format!("{a}{b}")
        );
        assert_eq!(union_note_documents(a, b), union_note_documents(b, a));
        assert_eq!(union_note_documents(a, a), a);
        assert_eq!(note_documents("by hand\n"), vec!["by hand"]);
        assert!(note_documents("\n---\n\n").is_empty());
    }
}
