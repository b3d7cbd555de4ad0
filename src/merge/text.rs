//! Line-by-line three-way merge of long text (descriptions, notes, multi-line strings).

use similar::{MergeResolution, TextMerge};

/// The result of merging two versions of a text against their common ancestor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextOutcome {
    /// The merged text.
    pub text: String,
    /// Whether some region was changed differently on both sides; there the
    /// winner's lines were taken, and the caller keeps the loser's whole text.
    pub conflicted: bool,
}

/// Merges `winner` and `loser`, both descended from `base`, line by line.
///
/// Regions changed on one side take that side; regions changed identically on
/// both take either; regions changed differently on both take the winner's lines
/// and mark the outcome as conflicted. No conflict markers are ever written into
/// the text: the losing version is the caller's to keep (in `conflicts:`).
pub fn merge_text(base: &str, winner: &str, loser: &str) -> TextOutcome {
    if winner == loser || base == loser {
        return TextOutcome {
            text: winner.to_owned(),
            conflicted: false,
        };
    }
    if base == winner {
        return TextOutcome {
            text: loser.to_owned(),
            conflicted: false,
        };
    }
    let merge = TextMerge::from_lines(base, winner, loser);
    let mut text = String::with_capacity(winner.len().max(loser.len()));
    let mut conflicted = false;
    for region in merge.regions() {
        let theirs = region.resolution() == MergeResolution::Theirs;
        conflicted |= region.is_conflict();
        if theirs {
            for i in region.theirs_range() {
                text.push_str(merge.theirs_line(i).unwrap_or_default());
            }
        } else {
            for i in region.ours_range() {
                text.push_str(merge.ours_line(i).unwrap_or_default());
            }
        }
    }
    TextOutcome { text, conflicted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn disjoint_edits_combine() {
        let out = merge_text(
            "one\ntwo\nthree\n",
            "ONE\ntwo\nthree\n",
            "one\ntwo\nTHREE\n",
        );
        assert_eq!(out.text, "ONE\ntwo\nTHREE\n");
        assert!(!out.conflicted);
    }

    #[test]
    fn overlapping_edits_take_the_winner() {
        let out = merge_text("a\n", "b\n", "c\n");
        assert_eq!(out.text, "b\n");
        assert!(out.conflicted);
    }

    #[test]
    fn one_sided_and_equal_changes() {
        assert_eq!(merge_text("a", "a", "b").text, "b");
        assert_eq!(merge_text("a", "b", "a").text, "b");
        assert_eq!(merge_text("a", "b", "b").text, "b");
        let out = merge_text("", "x\n", "x\n");
        assert_eq!(out.text, "x\n");
        assert!(!out.conflicted);
    }

    #[test]
    fn keeps_line_endings_exactly() {
        let out = merge_text("a\r\nb\r\nc", "A\r\nb\r\nc", "a\r\nb\r\nC");
        assert_eq!(out.text, "A\r\nb\r\nC");
    }

    fn lines() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec!["a\n", "b\n", "c\n", "d", "\n", "é\r\n"]),
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn never_panics_and_is_idempotent(base in lines(), a in lines(), b in lines()) {
            let out = merge_text(&base, &a, &b);
            prop_assert_eq!(merge_text(&base, &a, &b), out.clone());
            prop_assert_eq!(merge_text(&base, &a, &a).text, a.clone());
            prop_assert_eq!(merge_text(&base, &a, &base).text, a.clone());
            prop_assert_eq!(merge_text(&base, &base, &b).text, b);
            if !out.conflicted {
                // Every line of the winner that was not in the base survives.
                for l in a.split_inclusive('\n') {
                    if !base.split_inclusive('\n').any(|x| x == l) {
                        prop_assert!(out.text.split_inclusive('\n').any(|x| x == l), "{l:?} lost");
                    }
                }
            }
        }

        #[test]
        fn arbitrary_text_never_panics(base in ".{0,40}", a in ".{0,40}", b in ".{0,40}") {
            let _ = merge_text(&base, &a, &b);
        }
    }
}
