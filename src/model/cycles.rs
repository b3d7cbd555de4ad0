//! The cycles of a directed graph (of blocking dependencies, say), found by one
//! depth-first walk.

use std::collections::BTreeSet;

/// Every cycle of a directed graph whose nodes are numbered below `n`, each once, as
/// the names of the nodes on it from the least name round. The walk starts from each
/// of `roots` in turn; `next(k)` gives the nodes node `k` has edges to, `name(k)` its
/// name. It keeps a stack of its own, so a chain of any length walks without
/// deepening the call stack; every back edge names one cycle.
pub fn cycles<T: Ord>(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    next: impl Fn(usize) -> Vec<usize>,
    name: impl Fn(usize) -> T,
) -> BTreeSet<Vec<T>> {
    // 0 unseen, 1 on the current path, 2 done.
    let mut state = vec![0u8; n];
    let mut found = BTreeSet::new();
    for root in roots {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        let mut path = vec![(root, next(root), 0usize)];
        while let Some((_, targets, at)) = path.last_mut() {
            let Some(&t) = targets.get(*at) else {
                if let Some((done, ..)) = path.pop() {
                    state[done] = 2;
                }
                continue;
            };
            *at += 1;
            match state[t] {
                0 => {
                    state[t] = 1;
                    path.push((t, next(t), 0));
                }
                1 => {
                    if let Some(start) = path.iter().position(|&(p, ..)| p == t) {
                        let mut names: Vec<T> =
                            path[start..].iter().map(|&(p, ..)| name(p)).collect();
                        if let Some(min) = (0..names.len()).min_by(|&a, &b| names[a].cmp(&names[b]))
                        {
                            names.rotate_left(min);
                        }
                        found.insert(names);
                    }
                }
                _ => {}
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cycle_once_from_its_least_name_and_none_elsewhere() {
        // 0 → 1 → 2 → 0, 2 → 3 → 3, 4 → 0 (no cycle through 4).
        let edges = [vec![1], vec![2], vec![0, 3], vec![3], vec![0]];
        let names = ["c", "a", "b", "d", "e"];
        let found = cycles(5, [4, 0, 1, 2, 3], |k| edges[k].clone(), |k| names[k]);
        assert_eq!(found, BTreeSet::from([vec!["a", "b", "c"], vec!["d"]]));
    }

    #[test]
    fn a_long_chain_walks_without_deepening_the_stack() {
        let n = 200_000;
        let found = cycles(
            n,
            0..n,
            |k| if k + 1 < n { vec![k + 1] } else { vec![0] },
            |k| k,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found.first().map(Vec::len), Some(n));
    }
}
