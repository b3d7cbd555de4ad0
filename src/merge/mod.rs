//! Three-way merge of store documents: pure functions over model values, no I/O.
//!
//! Sync merges two states of the store per document and per field (see
//! DESIGN.md): [`merge_document`] chooses for each document between the typed
//! [`merge_bead`], the generic [`merge_value`] (long text inside both with
//! [`merge_text`]) and keeping a version whole. Every merge here is
//!
//! - deterministic: the same inputs give the same output;
//! - symmetric: merging A into B and B into A give the same output, because the
//!   two versions are first put in a fixed order (the later change wins, then the
//!   greater actor id, then the content);
//! - idempotent: merging a version with itself, or with its ancestor, gives it back;
//! - lossless: a value that loses to a different change of the same field is kept
//!   in the document's `conflicts:` list.

mod bead;
mod document;
mod text;
mod value;

pub use bead::{merge_bead, merge_list, merge_set};
pub use document::{DocOutcome, Read, Version, WholeReason, merge_document};
pub use text::{TextOutcome, merge_text};
pub use value::{ValueOutcome, merge_value};

/// A merged value and how many losing values the merge recorded in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged<T> {
    /// The merged value.
    pub value: T,
    /// How many losing values were added to its `conflicts:`.
    pub conflicts: usize,
}

impl<T> Merged<T> {
    fn clean(value: T) -> Merged<T> {
        Merged {
            value,
            conflicts: 0,
        }
    }
}

/// One of the two sides of a merge, in the order they were passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first version passed.
    A,
    /// The second version passed.
    B,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// Puts two versions in their fixed order: `(winner, loser)`, the winner having the
/// greater key. Equal keys keep the given order (the keys include the content, so
/// equal keys mean equal versions).
fn pick<'v, T: ?Sized, K: Ord>(a: &'v T, b: &'v T, key: impl Fn(&T) -> K) -> (&'v T, &'v T) {
    if key(b) > key(a) { (b, a) } else { (a, b) }
}

/// Chooses between two versions of a document that cannot be merged field by
/// field (one does not parse, or it is not a document at all): a version that
/// parses beats one that does not, then the greater bytes win. Returns the side
/// to keep in place; the caller keeps the other one elsewhere, never drops it.
pub fn choose_whole(a: &[u8], a_parses: bool, b: &[u8], b_parses: bool) -> Side {
    if (b_parses, b) > (a_parses, a) {
        Side::B
    } else {
        Side::A
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn whole_choice_is_symmetric(a in prop::collection::vec(any::<u8>(), 0..8), pa: bool,
                                     b in prop::collection::vec(any::<u8>(), 0..8), pb: bool) {
            let one = choose_whole(&a, pa, &b, pb);
            let other = choose_whole(&b, pb, &a, pa);
            if (pa, &a) != (pb, &b) {
                prop_assert_ne!(one, other);
            }
        }
    }
}
