//! The three-way merge of one store document, whatever it holds: the choice between
//! the typed bead merge, the generic merge and keeping a version whole.

use super::{Merged, Side, choose_whole, merge_bead, merge_value};
use crate::model::Bead;
use crate::model::doc::Value;

/// One version of a document, as the store read it.
#[derive(Clone, Debug)]
pub struct Version<'a> {
    /// Its bytes.
    pub bytes: &'a [u8],
    /// What they parse to.
    pub read: Read,
}

/// What one version of a document parses to.
#[derive(Clone, Debug)]
pub enum Read {
    /// It does not parse; the parser's message.
    Unreadable(String),
    /// It parses to this tree; `bead` is the bead it holds when it is a bead
    /// document that the bead model represents exactly (so the typed merge drops
    /// nothing, not even fields a newer git-beads wrote) and its path names.
    Tree {
        /// The generic tree.
        tree: Value,
        /// The bead, when the model represents the document exactly.
        bead: Option<Box<Bead>>,
    },
}

/// The merge of two versions of a document.
#[derive(Clone, Debug)]
pub enum DocOutcome {
    /// Every version is a bead the model represents exactly: the typed merge.
    Bead(Box<Merged<Bead>>),
    /// The generic merge of the trees.
    Tree(Merged<Value>),
    /// The versions cannot be merged: `keep` stays in place, the other is kept whole
    /// elsewhere, never dropped.
    Whole {
        /// The side to keep in place.
        keep: Side,
        /// Why.
        why: WholeReason,
    },
}

/// Why two versions of a document are kept whole instead of merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WholeReason {
    /// A version does not parse (the first such version's message).
    Unreadable(String),
    /// Values were lost and the document has no `conflicts:` list to keep them in.
    NoConflictsList,
}

impl std::fmt::Display for WholeReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WholeReason::Unreadable(e) => write!(f, "a version does not parse: {e}"),
            WholeReason::NoConflictsList => {
                f.write_str("the document has no conflicts: list to keep the losing values in")
            }
        }
    }
}

impl Read {
    fn tree(&self) -> Option<&Value> {
        match self {
            Read::Tree { tree, .. } => Some(tree),
            Read::Unreadable(_) => None,
        }
    }

    fn bead(&self) -> Option<&Bead> {
        match self {
            Read::Tree { bead, .. } => bead.as_deref(),
            Read::Unreadable(_) => None,
        }
    }
}

/// Merges two versions `a` and `b` of a document against `base` (`None`: both sides
/// created it), choosing how:
///
/// - when `a`, `b` and the base (if it parses) are beads the model represents
///   exactly, the typed [`merge_bead`];
/// - when a version does not parse, nothing is merged: one version stays in place
///   (see [`choose_whole`]) and the other is kept whole;
/// - otherwise the generic [`merge_value`] of the trees, unless it loses values
///   with no `conflicts:` list to keep them in: then both versions are kept whole.
///
/// A base that does not parse counts as no base. The result does not depend on which
/// side is called `a`.
pub fn merge_document(base: Option<&Version>, a: &Version, b: &Version) -> DocOutcome {
    let base = base.and_then(|v| v.read.tree().map(|tree| (tree, v.read.bead())));
    if let (Some(x), Some(y)) = (a.read.bead(), b.read.bead()) {
        let typed_base = match base {
            None => Some(None),
            Some((_, bead)) => bead.map(Some),
        };
        if let Some(typed_base) = typed_base {
            return DocOutcome::Bead(Box::new(merge_bead(typed_base, x, y)));
        }
    }
    let (av, bv) = match (&a.read, &b.read) {
        (Read::Tree { tree: av, .. }, Read::Tree { tree: bv, .. }) => (av, bv),
        (Read::Unreadable(e), _) | (_, Read::Unreadable(e)) => {
            let keep = choose_whole(
                a.bytes,
                a.read.tree().is_some(),
                b.bytes,
                b.read.tree().is_some(),
            );
            return DocOutcome::Whole {
                keep,
                why: WholeReason::Unreadable(e.clone()),
            };
        }
    };
    let merged = merge_value(base.map(|(tree, _)| tree), av, bv);
    match merged.keep_loser {
        Some(side) => DocOutcome::Whole {
            keep: side.other(),
            why: WholeReason::NoConflictsList,
        },
        None => DocOutcome::Tree(Merged {
            value: merged.value,
            conflicts: merged.conflicts,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::doc::Mapping;
    use crate::model::{BeadId, Timestamp};

    fn at(seconds: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("a time")
    }

    fn bead() -> Bead {
        let id = BeadId::parse("bd-d1").expect("an id");
        let mut b = Bead::new(id, "title".into(), "base", at(0));
        b.labels.insert("base".into());
        b.description = "one\ntwo\n".into();
        b
    }

    fn exact(b: &Bead) -> Read {
        Read::Tree {
            tree: Value::Null,
            bead: Some(Box::new(b.clone())),
        }
    }

    fn version(read: Read) -> Version<'static> {
        Version { bytes: b"", read }
    }

    fn tree(pairs: &[(&str, Value)]) -> Value {
        Value::Mapping(
            pairs
                .iter()
                .map(|(k, v)| (Value::from(*k), v.clone()))
                .collect::<Mapping>(),
        )
    }

    fn typed(base: &Bead, a: &Bead, b: &Bead) -> Merged<Bead> {
        let (base, a, b) = (version(exact(base)), version(exact(a)), version(exact(b)));
        let one = merge_document(Some(&base), &a, &b);
        let other = merge_document(Some(&base), &b, &a);
        match (one, other) {
            (DocOutcome::Bead(one), DocOutcome::Bead(other)) => {
                assert_eq!(one, other, "symmetric");
                *one
            }
            other => panic!("not the typed merge: {other:?}"),
        }
    }

    #[test]
    fn concurrent_edits_of_different_fields_both_stay() {
        let base = bead();
        let mut a = base.clone();
        a.title = "alice's title".into();
        a.touch("alice", at(5));
        let mut b = base.clone();
        b.priority = 0;
        b.touch("bob", at(9));
        let m = typed(&base, &a, &b);
        assert_eq!(m.value.title, "alice's title");
        assert_eq!(m.value.priority, 0);
        assert_eq!(m.conflicts, 0);
        assert!(m.value.conflicts.is_empty());
    }

    #[test]
    fn a_clash_keeps_the_losing_value_in_conflicts() {
        let base = bead();
        let mut a = base.clone();
        a.title = "alice's title".into();
        a.touch("alice", at(5));
        let mut b = base.clone();
        b.title = "bob's title".into();
        b.touch("bob", at(9));
        let m = typed(&base, &a, &b);
        assert_eq!(m.value.title, "bob's title", "the later change wins");
        assert_eq!(m.conflicts, 1);
        let lost = &m.value.conflicts[0];
        assert_eq!(lost.field, "title");
        assert_eq!(lost.value, serde_json::json!("alice's title"));
        assert_eq!(lost.actor, "alice");
        assert_eq!(lost.at, at(5));
    }

    #[test]
    fn labels_merge_as_a_union_of_adds_and_removes() {
        let base = bead();
        let mut a = base.clone();
        a.labels.insert("from-a".into());
        a.labels.remove("base");
        a.touch("alice", at(5));
        let mut b = base.clone();
        b.labels.insert("from-b".into());
        b.touch("bob", at(9));
        let m = typed(&base, &a, &b);
        let labels: Vec<&str> = m.value.labels.iter().map(String::as_str).collect();
        assert_eq!(labels, ["from-a", "from-b"]);
        assert_eq!(m.conflicts, 0);
    }

    #[test]
    fn a_removal_against_an_edit_keeps_the_edit() {
        let base = tree(&[("a", Value::from(1)), ("b", Value::from(1))]);
        let removed = tree(&[("b", Value::from(1)), ("updated_by", "x".into())]);
        let edited = tree(&[
            ("a", Value::from(2)),
            ("b", Value::from(1)),
            ("updated_by", "y".into()),
        ]);
        let read = |t: &Value| {
            version(Read::Tree {
                tree: t.clone(),
                bead: None,
            })
        };
        match merge_document(Some(&read(&base)), &read(&removed), &read(&edited)) {
            DocOutcome::Tree(m) => {
                assert_eq!(m.value["a"], Value::from(2));
                assert_eq!(m.conflicts, 0);
            }
            other => panic!("not the generic merge: {other:?}"),
        }
    }

    #[test]
    fn an_exact_bead_against_a_generic_document_merges_generically() {
        let b = bead();
        let doc = tree(&[("id", "bd-d1".into()), ("title", "other".into())]);
        let bead_version = version(Read::Tree {
            tree: tree(&[("id", "bd-d1".into()), ("title", "title".into())]),
            bead: Some(Box::new(b)),
        });
        let doc_version = version(Read::Tree {
            tree: doc,
            bead: None,
        });
        assert!(matches!(
            merge_document(None, &bead_version, &doc_version),
            DocOutcome::Tree(_)
        ));
    }

    #[test]
    fn an_unreadable_version_is_kept_whole_and_the_readable_one_stays() {
        let good = Version {
            bytes: b"a: 1\n",
            read: Read::Tree {
                tree: tree(&[("a", Value::from(1))]),
                bead: None,
            },
        };
        let bad = Version {
            bytes: b"a: [\n",
            read: Read::Unreadable("unclosed".into()),
        };
        for (x, y, keep) in [(&good, &bad, Side::A), (&bad, &good, Side::B)] {
            match merge_document(None, x, y) {
                DocOutcome::Whole { keep: k, why } => {
                    assert_eq!(k, keep);
                    assert_eq!(why, WholeReason::Unreadable("unclosed".into()));
                }
                other => panic!("merged: {other:?}"),
            }
        }
    }

    #[test]
    fn an_unreadable_base_counts_as_none() {
        let base = version(Read::Unreadable("broken".into()));
        let mut a = bead();
        a.title = "a".into();
        let b = bead();
        let (va, vb) = (version(exact(&a)), version(exact(&b)));
        let with = merge_document(Some(&base), &va, &vb);
        let without = merge_document(None, &va, &vb);
        assert_eq!(format!("{with:?}"), format!("{without:?}"));
    }
}
