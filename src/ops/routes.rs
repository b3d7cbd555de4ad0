//! Prefix routing across a town's rigs, as bd's `routed.go` does it: an id the local
//! store does not hold is looked up by its prefix in the town's `routes.jsonl`, and
//! the command acts on the store of the rig that route names.
//!
//! A town (Gas Town's layout) is a directory whose `.beads/routes.jsonl` maps id
//! prefixes to rigs, one JSON object a line: `{"prefix":"ga-","path":"alpha/mayor/rig"}`.
//! The path is taken from the town root; the `.beads` there (or the one its redirect
//! file names) lives in the repository that holds that rig's store. The routes file
//! is looked for in the local store's `.beads` first (bd's place), then in the
//! directories above it, so a command run in a rig finds its town's routes.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::setup::{BEADS_DIR_NAME, redirect};
use crate::model::BeadId;
use crate::ops::Result;
use crate::store::{Store, refs};

/// The name of the routes file in a town's `.beads`.
const ROUTES_FILE: &str = "routes.jsonl";

/// One line of `routes.jsonl`: ids that start with `prefix` live in the rig at `path`
/// (from the town root; `.` for the town's own store).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct Route {
    /// The start of the ids this route takes, with its `-` (`ga-`).
    prefix: String,
    /// The rig's directory, from the town root.
    path: String,
}

/// The routes of a `routes.jsonl` text: blank lines, `#` comments, lines that are not
/// a route and routes with an empty prefix or path are skipped, as bd skips them.
fn parse_routes(text: &str) -> Vec<Route> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| serde_json::from_str::<Route>(l).ok())
        .filter(|r| !r.prefix.is_empty() && !r.path.is_empty())
        .collect()
}

/// The town whose routes `store` sees: the directory whose `.beads/routes.jsonl` is
/// nearest at or above the top of its worktree, with its routes.
fn town_routes(store: &Store) -> Option<(PathBuf, Vec<Route>)> {
    let top = store.workdir()?;
    top.ancestors().find_map(|dir| {
        let text = std::fs::read_to_string(dir.join(BEADS_DIR_NAME).join(ROUTES_FILE)).ok()?;
        Some((dir.to_owned(), parse_routes(&text)))
    })
}

/// The route whose prefix `id` starts with, the longest where several do (a town
/// routes `hq-cv-` apart from `hq-`).
fn route_of<'r>(routes: &'r [Route], id: &str) -> Option<&'r Route> {
    (routes.iter())
        .filter(|r| id.starts_with(r.prefix.as_str()))
        .max_by_key(|r| r.prefix.len())
}

/// Whether `store` holds the bead `id`, in `refs/beads/main` or among this
/// machine's wisps (where `show` reads).
pub fn holds(store: &Store, id: &BeadId) -> Result<bool> {
    let Some(head) = store.head()? else {
        return Ok(false);
    };
    if store.read_bead(head.tree, id)?.is_some() {
        return Ok(true);
    }
    Ok(store.view_of(refs::WISPS)?.bead(id)?.is_some())
}

/// The store of the rig that holds `given` by the town's routes, when it is another
/// repository than `store`'s and `store` does not hold that bead itself (bd: the
/// local store first, then prefix routing). Text that is no whole id (an id without
/// its prefix) is never routed.
pub fn routed_store(store: &Store, given: &str) -> Result<Option<Store>> {
    let Ok(id) = BeadId::parse(given) else {
        return Ok(None);
    };
    if holds(store, &id)? {
        return Ok(None);
    }
    let Some((town, routes)) = town_routes(store) else {
        return Ok(None);
    };
    let Some(route) = route_of(&routes, id.as_str()) else {
        return Ok(None);
    };
    let rig = rig_dir(&town, route);
    let Ok(other) = Store::discover(&rig) else {
        return Ok(None);
    };
    let same = |a: &Path, b: &Path| {
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        real(a) == real(b)
    };
    Ok((!same(other.common_dir(), store.common_dir())).then_some(other))
}

/// Where the store of `route`'s rig is looked for: its `.beads` (or the directory
/// that `.beads`'s redirect names), else the rig's directory itself.
fn rig_dir(town: &Path, route: &Route) -> PathBuf {
    let rig = town.join(&route.path);
    let beads = rig.join(BEADS_DIR_NAME);
    redirect(&beads).unwrap_or(if beads.is_dir() { beads } else { rig })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_parse_as_bd_reads_them() {
        let text = "# town\n\n{\"prefix\":\"ga-\",\"path\":\"alpha/mayor/rig\"}\nnot json\n\
                    {\"prefix\":\"\",\"path\":\"x\"}\n {\"prefix\":\"hq-\",\"path\":\".\"} \n";
        let routes = parse_routes(text);
        assert_eq!(
            routes,
            vec![
                Route {
                    prefix: "ga-".into(),
                    path: "alpha/mayor/rig".into()
                },
                Route {
                    prefix: "hq-".into(),
                    path: ".".into()
                },
            ]
        );
    }

    #[test]
    fn the_longest_prefix_wins() {
        let routes = parse_routes(
            "{\"prefix\":\"hq-\",\"path\":\".\"}\n{\"prefix\":\"hq-cv-\",\"path\":\"convoys\"}",
        );
        assert_eq!(
            route_of(&routes, "hq-cv-abc").map(|r| r.path.as_str()),
            Some("convoys")
        );
        assert_eq!(
            route_of(&routes, "hq-abc").map(|r| r.path.as_str()),
            Some(".")
        );
        assert_eq!(route_of(&routes, "ga-abc"), None);
    }
}
