//! What this clone learned of the claims a remote confirmed, kept between syncs.
//!
//! Every sync asks, of each claim ref it tracks, whether the claim's bead is still
//! held by its claimer, to delete the refs of finished claims. Asked afresh, that is a
//! merge-base question and two reads of the bead (one in the claim's own tree, whose
//! folder of fan-out folders is a version of its own each time) per claim: with a
//! thousand claims held, ten times an idle sync. But a claim commit never changes, and
//! neither does what it holds of its bead; and a claim merged at one head is merged
//! at every later one. So `beads/claims-seen` keeps, for the head last checked, what
//! each merged claim's commit holds of its bead; the next check asks one merge-base
//! question (is that head in the history of this one?) and compares each bead's
//! document id in its head with the claim's, reading a document only where they
//! differ.

use std::collections::HashMap;
use std::fmt::Write as _;

use gix::ObjectId;

use super::{Store, replace_file};

/// The file under the local beads directory.
const FILE: &str = "claims-seen";

/// What a claim commit holds of its bead: fixed for good, as the commit is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimSeen {
    /// The id of the bead's document in the claim's tree; `None` when it has none.
    pub blob: Option<ObjectId>,
    /// Whether that document holds the bead (as the caller judges holding).
    pub held: bool,
    /// The assignee in that document.
    pub assignee: Option<String>,
}

/// The claims last checked: the head they were checked at, and what each claim commit
/// merged there holds of its bead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimsSeen {
    /// The head of the last check.
    pub head: Option<ObjectId>,
    /// Each claim in that head's history (its commit and bead id), and what the
    /// commit holds of the bead.
    pub claims: HashMap<(ObjectId, String), ClaimSeen>,
}

/// The file's text: `head <id>`, then a line per claim: its commit, its bead id, the
/// bead's document (`-` for none), `1` or `0` for held, and `=<assignee>` or `-`.
fn encode(seen: &ClaimsSeen) -> String {
    let mut text = String::new();
    if let Some(head) = seen.head {
        let _ = writeln!(text, "head {head}");
    }
    let mut claims: Vec<_> = seen.claims.iter().collect();
    claims.sort_by(|a, b| a.0.cmp(b.0));
    for ((commit, id), c) in claims {
        let blob = c.blob.map_or("-".to_owned(), |b| b.to_string());
        let assignee = c
            .assignee
            .as_ref()
            .map_or("-".to_owned(), |a| format!("={a}"));
        let _ = writeln!(text, "{commit} {id} {blob} {} {assignee}", u8::from(c.held));
    }
    text
}

/// The file's content, or nothing at all when any line is not as [`encode`] writes it.
fn decode(text: &str) -> Option<ClaimsSeen> {
    let mut lines = text.lines();
    let head = ObjectId::from_hex(lines.next()?.strip_prefix("head ")?.as_bytes()).ok()?;
    let mut claims = HashMap::new();
    for line in lines {
        let mut words = line.splitn(5, ' ');
        let commit = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
        let id = words.next()?.to_owned();
        let blob = match words.next()? {
            "-" => None,
            hex => Some(ObjectId::from_hex(hex.as_bytes()).ok()?),
        };
        let held = match words.next()? {
            "1" => true,
            "0" => false,
            _ => return None,
        };
        let assignee = match words.next()? {
            "-" => None,
            named => Some(named.strip_prefix('=')?.to_owned()),
        };
        claims.insert(
            (commit, id),
            ClaimSeen {
                blob,
                held,
                assignee,
            },
        );
    }
    Some(ClaimsSeen {
        head: Some(head),
        claims,
    })
}

impl Store {
    /// The claims last checked (see the module documentation); none when the file is
    /// missing or damaged, which only makes the next check ask everything again.
    pub(crate) fn claims_seen(&self) -> ClaimsSeen {
        std::fs::read_to_string(self.local_dir().join(FILE))
            .ok()
            .and_then(|text| decode(&text))
            .unwrap_or_default()
    }

    /// Saves the claims just checked; failing to only costs the next check its
    /// shortcut. An assignee with a line break is left out (asked again next time).
    pub(crate) fn save_claims_seen(&self, seen: &ClaimsSeen) {
        let mut kept = seen.clone();
        kept.claims
            .retain(|_, c| (c.assignee.as_deref()).is_none_or(|a| !a.contains(['\n', '\r'])));
        let _ = std::fs::create_dir_all(self.local_dir());
        let _ = replace_file(
            &self.local_dir().join(FILE),
            encode(&kept).as_bytes(),
            false,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_saved_reads_back_and_damage_reads_as_nothing() {
        let id = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let mut seen = ClaimsSeen {
            head: Some(id(1)),
            claims: HashMap::new(),
        };
        seen.claims.insert(
            (id(2), "bd-a".into()),
            ClaimSeen {
                blob: Some(id(3)),
                held: true,
                assignee: Some("agent one".into()),
            },
        );
        seen.claims.insert(
            (id(2), "bd-b".into()),
            ClaimSeen {
                blob: None,
                held: false,
                assignee: None,
            },
        );
        let text = encode(&seen);
        assert_eq!(decode(&text), Some(seen));
        assert_eq!(decode(""), None);
        assert_eq!(decode(&text.replace(" 1 ", " 7 ")), None);
        assert_eq!(decode(&format!("{text}junk\n")), None);
    }
}
