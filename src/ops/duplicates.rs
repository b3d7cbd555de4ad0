//! `find-duplicates`: pairs of beads whose titles and descriptions read alike, by
//! bd's "mechanical" measure (the mean of the Jaccard and the cosine similarity of
//! their word counts), without comparing every pair.
//!
//! Two beads can only reach the threshold when they share a word, and the words a
//! bead shares must weigh enough in it: with the words of every bead ordered rarest
//! first, the words past a bead's *prefix* weigh too little to reach the threshold
//! on their own, so the rarest word two similar beads share is in both prefixes
//! (prefix filtering, as in all-pairs similarity search). Only beads that share a
//! prefix word are compared, by bd's exact measure; rare words make short lists.

use std::collections::HashMap;

use super::Result;
use crate::model::Status;
use crate::store::{BeadRow, Part, Store};

/// Which beads `find-duplicates` compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DuplicateScope {
    /// Every bead that is not closed (bd's default).
    NotClosed,
    /// Every bead (bd's `--status all`).
    All,
    /// The beads of one status.
    Only(Status),
}

/// A pair of beads that read alike.
#[derive(Clone, Debug, PartialEq)]
pub struct SimilarPair {
    /// The first bead (in bd's order: by priority, then newest first): id and title.
    pub a: (String, String),
    /// The second bead.
    pub b: (String, String),
    /// How alike they read, 0 to 1.
    pub similarity: f64,
}

/// What `find-duplicates` found.
#[derive(Clone, Debug, PartialEq)]
pub struct Duplicates {
    /// How many beads were compared.
    pub compared: usize,
    /// The pairs at or above the threshold, most alike first, at most `limit`.
    pub pairs: Vec<SimilarPair>,
}

/// The pairs of beads in `scope` at least `threshold` alike, most alike first (ties
/// in bd's order of the beads), at most `limit` of them (all with 0).
pub fn find_duplicates(
    store: &Store,
    scope: &DuplicateScope,
    threshold: f64,
    limit: usize,
) -> Result<Duplicates> {
    let head = store.require_head()?;
    let index = store.index_parts(&head, &[Part::Beads, Part::Text])?;
    let mut rows: Vec<BeadRow<'_>> = index
        .rows()
        .filter(|r| match scope {
            DuplicateScope::NotClosed => !r.status().is_done(),
            DuplicateScope::All => r.status() != Status::Deleted,
            DuplicateScope::Only(s) => r.status() == *s,
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.priority(), std::cmp::Reverse(a.created_us()), a.id()).cmp(&(
            b.priority(),
            std::cmp::Reverse(b.created_us()),
            b.id(),
        ))
    });
    let texts: Vec<_> = rows.iter().map(BeadRow::text).collect();
    let words = Words::of(texts.iter().map(|t| words_part(t)));
    let found = words.similar(threshold, limit);
    let pair = |k: usize| (rows[k].id().to_owned(), rows[k].title().to_owned());
    Ok(Duplicates {
        compared: rows.len(),
        pairs: found
            .into_iter()
            .map(|(similarity, a, b)| SimilarPair {
                a: pair(a),
                b: pair(b),
                similarity,
            })
            .collect(),
    })
}

/// The title and description of a folded search text (`id\0title\0description\0`).
fn words_part(text: &[u8]) -> &str {
    let rest = text
        .iter()
        .position(|&c| c == 0)
        .map_or(&[][..], |k| &text[k + 1..]);
    std::str::from_utf8(rest).unwrap_or_default()
}

/// bd's tokens of a lowercased text: runs of letters, digits and `-`, longer than one
/// byte.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| w.len() > 1)
}

/// The word counts of some texts, each sorted rarest word first.
struct Words {
    /// Per text: (word, count), the word a number ranked by rarity.
    counts: Vec<Vec<(u32, u32)>>,
}

impl Words {
    fn of<'t>(texts: impl Iterator<Item = &'t str>) -> Words {
        let mut ids: HashMap<&'t str, u32> = HashMap::new();
        let mut counts: Vec<Vec<(u32, u32)>> = texts
            .map(|text| {
                let mut c: HashMap<u32, u32> = HashMap::new();
                for w in tokens(text) {
                    let next = ids.len() as u32;
                    *c.entry(*ids.entry(w).or_insert(next)).or_insert(0) += 1;
                }
                c.into_iter().collect()
            })
            .collect();
        let mut frequency = vec![0u32; ids.len()];
        for c in &counts {
            for &(w, _) in c {
                frequency[w as usize] += 1;
            }
        }
        let mut by_rarity: Vec<u32> = (0..ids.len() as u32).collect();
        by_rarity.sort_by_key(|&w| (frequency[w as usize], w));
        let mut rank = vec![0u32; ids.len()];
        for (r, &w) in by_rarity.iter().enumerate() {
            rank[w as usize] = r as u32;
        }
        for c in &mut counts {
            for (w, _) in c.iter_mut() {
                *w = rank[*w as usize];
            }
            c.sort_unstable();
        }
        Words { counts }
    }

    /// Per text, the weight of its words from each place on: (count, squared count).
    fn rests(&self) -> Vec<Vec<(u64, u64)>> {
        self.counts
            .iter()
            .map(|c| {
                let mut rest = vec![(0u64, 0u64); c.len() + 1];
                for (p, &(_, n)) in c.iter().enumerate().rev() {
                    let n = u64::from(n);
                    rest[p] = (rest[p + 1].0 + n, rest[p + 1].1 + n * n);
                }
                rest
            })
            .collect()
    }

    /// The pairs (similarity, first, second) at least `threshold` alike, best first,
    /// at most `limit` (all with 0).
    fn similar(&self, threshold: f64, limit: usize) -> Vec<(f64, usize, usize)> {
        let n = self.counts.len();
        let mut top = Top::new(limit);
        if threshold <= 0.0 {
            // Every pair is alike enough, those with no word in common too.
            for a in 0..n {
                for b in a + 1..n {
                    top.push((similarity(&self.counts[a], &self.counts[b]), a, b));
                }
            }
            return top.finish();
        }
        let rests = self.rests();
        // Below this, a bound is short of the threshold even with rounding.
        let short = |bound: f64, floor: f64| bound < threshold.max(floor) - 1e-9;
        // A text's prefix: up to the first place whose words on their own weigh too
        // little (the Jaccard similarity is at most their share of its words, the
        // cosine at most their share of its length).
        let prefix = |k: usize| {
            let rest = &rests[k];
            let (size, square) = (rest[0].0 as f64, (rest[0].1 as f64).sqrt());
            (0..rest.len())
                .find(|&p| {
                    short(
                        (rest[p].0 as f64 / size + (rest[p].1 as f64).sqrt() / square) / 2.0,
                        threshold,
                    )
                })
                .unwrap_or(rest.len() - 1)
        };
        let prefixes: Vec<usize> = (0..n).map(prefix).collect();
        let mut postings: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (k, &p) in prefixes.iter().enumerate() {
            for (at, &(w, _)) in self.counts[k][..p].iter().enumerate() {
                postings.entry(w).or_default().push((k, at));
            }
        }
        let mut last = vec![usize::MAX; n];
        for a in 0..n {
            let ra = &rests[a];
            for (i, &(w, _)) in self.counts[a][..prefixes[a]].iter().enumerate() {
                for &(b, j) in postings.get(&w).map_or(&[][..], Vec::as_slice) {
                    if b <= a || last[b] == a {
                        continue;
                    }
                    // Met first at the rarest word they share: all they share is
                    // from `i` on in one and from `j` on in the other.
                    last[b] = a;
                    let rb = &rests[b];
                    let jaccard = ra[i].0.min(rb[j].0) as f64 / ra[0].0.max(rb[0].0) as f64;
                    let cosine = ((ra[i].1 as f64 / ra[0].1 as f64)
                        * (rb[j].1 as f64 / rb[0].1 as f64))
                        .sqrt();
                    // Nor can it be among the best `limit` once as many better are kept.
                    if short((jaccard + cosine) / 2.0, top.floor) {
                        continue;
                    }
                    let s = similarity_of(&self.counts[a], &self.counts[b], ra[0].1, rb[0].1);
                    if s >= threshold {
                        top.push((s, a, b));
                    }
                }
            }
        }
        top.finish()
    }
}

/// bd's measure: the mean of the Jaccard similarity of two word multisets and the
/// cosine similarity of their count vectors (both sorted by word).
fn similarity(a: &[(u32, u32)], b: &[(u32, u32)]) -> f64 {
    let square = |c: &[(u32, u32)]| c.iter().map(|&(_, n)| u64::from(n) * u64::from(n)).sum();
    similarity_of(a, b, square(a), square(b))
}

/// [`similarity`], given the sums of the squared counts of `a` and `b`.
fn similarity_of(a: &[(u32, u32)], b: &[(u32, u32)], square_a: u64, square_b: u64) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j) = (0, 0);
    let (mut common, mut union, mut dot) = (0u64, 0u64, 0u64);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&(wa, ca)), Some(&(wb, cb))) if wa == wb => {
                common += u64::from(ca.min(cb));
                union += u64::from(ca.max(cb));
                dot += u64::from(ca) * u64::from(cb);
                i += 1;
                j += 1;
            }
            (Some(&(wa, ca)), Some(&(wb, _))) if wa < wb => {
                union += u64::from(ca);
                i += 1;
            }
            (Some(&(_, ca)), None) => {
                union += u64::from(ca);
                i += 1;
            }
            (_, Some(&(_, cb))) => {
                union += u64::from(cb);
                j += 1;
            }
            (None, None) => break,
        }
    }
    let jaccard = common as f64 / union as f64;
    let cosine = dot as f64 / ((square_a as f64).sqrt() * (square_b as f64).sqrt());
    (jaccard + cosine) / 2.0
}

/// The best pairs seen, at most `limit` of them kept (all with 0).
struct Top {
    limit: usize,
    kept: Vec<(f64, usize, usize)>,
    /// Once `limit` pairs are kept: the similarity of the last of them, below which
    /// no pair can be among the best any more.
    floor: f64,
}

impl Top {
    fn new(limit: usize) -> Top {
        Top {
            limit,
            kept: Vec::new(),
            floor: f64::NEG_INFINITY,
        }
    }

    fn push(&mut self, pair: (f64, usize, usize)) {
        if pair.0 < self.floor {
            return;
        }
        self.kept.push(pair);
        if self.limit > 0 && self.kept.len() >= 2 * self.limit.max(64) {
            self.cut();
        }
    }

    fn cut(&mut self) {
        self.kept.sort_by(|x, y| {
            y.0.total_cmp(&x.0)
                .then_with(|| (x.1, x.2).cmp(&(y.1, y.2)))
        });
        if self.limit > 0 && self.kept.len() >= self.limit {
            self.kept.truncate(self.limit);
            self.floor = self.kept[self.limit - 1].0;
        }
    }

    fn finish(mut self) -> Vec<(f64, usize, usize)> {
        self.cut();
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs of `texts` at least `threshold` alike, by comparing every pair.
    fn every_pair(texts: &[&str], threshold: f64) -> Vec<(f64, usize, usize)> {
        let w = Words::of(texts.iter().copied());
        let mut all = Vec::new();
        for a in 0..texts.len() {
            for b in a + 1..texts.len() {
                let s = similarity(&w.counts[a], &w.counts[b]);
                if s >= threshold {
                    all.push((s, a, b));
                }
            }
        }
        let mut top = Top::new(0);
        all.into_iter().for_each(|p| top.push(p));
        top.finish()
    }

    /// bd's numbers: "fix the login bug" against "fix login bug now" shares three of
    /// five words (Jaccard 3/5) and has cosine 3/(2·2) = 0.75 … as bd computes them.
    #[test]
    fn the_measure_is_bds() {
        let w = Words::of(["fix the login bug", "fix login bug now"].into_iter());
        let s = similarity(&w.counts[0], &w.counts[1]);
        assert!((s - (0.6 + 0.75) / 2.0).abs() < 1e-12, "{s}");
        // One letter words do not count; `-` is part of a word.
        assert_eq!(
            tokens("a re-run, b x2").collect::<Vec<_>>(),
            ["re-run", "x2"]
        );
    }

    /// Filtering by prefixes finds exactly the pairs that comparing all finds.
    #[test]
    fn prefixes_find_every_similar_pair() {
        let texts = [
            "login fails on safari",
            "login fails on firefox after update",
            "safari login failure",
            "add dark mode to settings",
            "dark mode in settings page",
            "the the the the login",
            "",
            "update docs for login",
            "fails fails fails",
            "settings page dark theme mode",
        ];
        for threshold in [0.05, 0.2, 0.35, 0.5, 0.7, 0.9, 1.0] {
            let w = Words::of(texts.iter().copied());
            assert_eq!(
                w.similar(threshold, 0),
                every_pair(&texts, threshold),
                "threshold {threshold}"
            );
        }
    }

    /// With a limit, the best pairs are those comparing all finds first, also once
    /// the pairs kept raise the floor that later pairs must reach.
    #[test]
    fn a_limit_keeps_the_best_pairs() {
        let vocabulary = [
            "login", "fails", "safari", "dark", "mode", "settings", "page",
        ];
        let texts: Vec<String> = (0..60usize)
            .map(|i| {
                (0..1 + i % 4)
                    .map(|k| vocabulary[(i * 7 + k * 3) % vocabulary.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        for (threshold, limit) in [(0.05, 5), (0.3, 1), (0.6, 40), (0.0, 3)] {
            let w = Words::of(texts.iter().copied());
            let mut all = every_pair(&texts, threshold);
            all.truncate(limit);
            assert_eq!(w.similar(threshold, limit), all, "{threshold} {limit}");
        }
    }
}
