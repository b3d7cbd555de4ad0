//! The board: five columns of cards (epics, ready, in progress, blocked, closed) and
//! one for each of the project's own statuses that `ready` does not take in, the
//! filters and search that narrow them, and how many cards each column shows. An open
//! epic is in the epics column only: it is a container of work, not work to claim.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::model::config::Category;
use crate::model::{BeadType, Status};
use crate::ops::{self, BeadRow, ListFilter, OpError, Sort, Store};

/// How many cards a column shows at first, and how many more each "more" adds.
pub const PAGE: usize = 50;

/// The board's query string: filters, search, and how many cards each column shows.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct BoardQuery {
    /// Only beads with this label.
    #[serde(default)]
    pub label: String,
    /// Only beads of this type.
    #[serde(default, rename = "type")]
    pub kind: String,
    /// Only beads assigned to this name.
    #[serde(default)]
    pub assignee: String,
    /// Only beads of this priority (0–4).
    #[serde(default)]
    pub priority: String,
    /// Only beads whose id, title or description contains this text.
    #[serde(default)]
    pub q: String,
    /// Cards shown in the epics column.
    pub epics: Option<usize>,
    /// Cards shown in the ready column.
    pub ready: Option<usize>,
    /// Cards shown in the in-progress column.
    pub in_progress: Option<usize>,
    /// Cards shown in the blocked column.
    pub blocked: Option<usize>,
    /// Cards shown in the closed column.
    pub closed: Option<usize>,
    /// Cards shown in each column of a status of the project's own.
    pub custom: Option<usize>,
}

impl BoardQuery {
    /// The listing filter the query's filters make, or what is wrong with one of them.
    fn filter(&self) -> Result<ListFilter, String> {
        let mut f = ListFilter {
            sort: Sort::Priority,
            ..ListFilter::default()
        };
        if !self.label.is_empty() {
            f.labels.push(self.label.clone());
        }
        if !self.kind.is_empty() {
            f.kinds
                .push(self.kind.parse::<BeadType>().map_err(|e| e.to_string())?);
        }
        if !self.assignee.is_empty() {
            f.assignee = Some(self.assignee.clone());
        }
        if !self.priority.is_empty() {
            match self.priority.parse::<u8>() {
                Ok(p) if p <= 4 => f.priorities.push(p),
                _ => return Err(format!("priority {:?} is not 0–4", self.priority)),
            }
        }
        Ok(f)
    }

    /// Each parameter of the query string that says how many cards columns show, with
    /// that number.
    pub fn counts(&self) -> [(&'static str, usize); 6] {
        [
            ("epics", self.epics),
            ("ready", self.ready),
            ("in_progress", self.in_progress),
            ("blocked", self.blocked),
            ("closed", self.closed),
            ("custom", self.custom),
        ]
        .map(|(param, asked)| (param, asked.unwrap_or(PAGE).max(1)))
    }

    /// How many cards column `kind` shows.
    pub fn shown(&self, kind: ColumnKind) -> usize {
        let param = kind.param();
        self.counts()
            .into_iter()
            .find(|(p, _)| *p == param)
            .map_or(PAGE, |(_, n)| n)
    }
}

/// The columns: five for every board, and one for each status of the project's own
/// (`status.custom`) that `ready` does not take in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// Epics not closed, whatever their status.
    Epics,
    /// Open work nothing unfinished blocks.
    Ready,
    /// Claimed work, and work on an agent's hook.
    InProgress,
    /// Unfinished work that waits on other beads, or is marked blocked.
    Blocked,
    /// Finished work, most recently changed first.
    Closed,
    /// Work of a status of the project's own, by priority: after the in-progress
    /// column, or after the closed one for a status of the `done` category.
    Custom(Status),
}

impl Serialize for ColumnKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

impl ColumnKind {
    /// Its name in JSON and element ids (a status of the project's own: the status).
    pub fn key(&self) -> &str {
        match self {
            ColumnKind::Custom(s) => s.as_str(),
            other => other.param(),
        }
    }

    /// The parameter of the query string that says how many cards it shows (the
    /// columns of the project's own statuses share `custom`).
    pub fn param(&self) -> &'static str {
        match self {
            ColumnKind::Epics => "epics",
            ColumnKind::Ready => "ready",
            ColumnKind::InProgress => "in_progress",
            ColumnKind::Blocked => "blocked",
            ColumnKind::Closed => "closed",
            ColumnKind::Custom(_) => "custom",
        }
    }

    /// Its heading (a status of the project's own: the status, in words).
    pub fn title(&self) -> String {
        match self {
            ColumnKind::Epics => "Epics".to_owned(),
            ColumnKind::Ready => "Ready".to_owned(),
            ColumnKind::InProgress => "In progress".to_owned(),
            ColumnKind::Blocked => "Blocked".to_owned(),
            ColumnKind::Closed => "Closed".to_owned(),
            ColumnKind::Custom(s) => {
                let words = s.as_str().replace(['_', '-'], " ");
                let mut chars = words.chars();
                chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default()
            }
        }
    }
}

/// One card: what the board shows of a bead.
#[derive(Clone, Debug, Serialize)]
pub struct Card {
    /// The bead's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: Status,
    /// Its priority.
    pub priority: u8,
    /// Its type.
    pub issue_type: BeadType,
    /// Who holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// Its labels.
    pub labels: Vec<String>,
    /// What it waits on (the blocked column).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<String>,
}

impl Card {
    fn of(row: &BeadRow<'_>, blocked_by: Vec<String>) -> Card {
        Card {
            id: row.id().to_owned(),
            title: row.title().to_owned(),
            status: row.status(),
            priority: row.priority(),
            issue_type: row.kind(),
            assignee: row.assignee().map(str::to_owned),
            labels: row.labels().map(str::to_owned).collect(),
            blocked_by,
        }
    }
}

/// One column: how many beads it holds, and the cards it shows.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// Which column.
    pub name: ColumnKind,
    /// How many beads belong in it.
    pub total: usize,
    /// The first of them, as many as asked for.
    pub cards: Vec<Card>,
}

/// The whole board.
#[derive(Clone, Debug, Serialize)]
pub struct Board {
    /// The columns, left to right.
    pub columns: Vec<Column>,
}

/// Fills a column from rows in order, keeping those `keep` lets through.
fn column<'a>(
    name: ColumnKind,
    shown: usize,
    rows: impl Iterator<Item = (BeadRow<'a>, Vec<String>)>,
    keep: impl Fn(&BeadRow<'_>) -> bool,
) -> Column {
    let mut total = 0;
    let mut cards = Vec::new();
    for (row, by) in rows.filter(|(r, _)| keep(r)) {
        total += 1;
        if cards.len() < shown {
            cards.push(Card::of(&row, by));
        }
    }
    Column { name, total, cards }
}

/// The board of `store` as `q` asks for it: each column in its order (closed ones
/// most recently changed first, the others by priority, then age). A bead of a status
/// of the project's own that `ready` does not take in is in that status's column
/// only (as one in progress is not in the blocked column).
pub fn board(store: &Store, q: &BoardQuery) -> Result<Board, BoardError> {
    let filter = q.filter().map_err(BoardError::Query)?;
    let found: Option<HashSet<String>> = match q.q.trim() {
        "" => None,
        text => Some(
            ops::search(store, text, &filter)?
                .beads()
                .map(|r| r.id().to_owned())
                .collect(),
        ),
    };
    let matches = |r: &BeadRow<'_>| found.as_ref().is_none_or(|f| f.contains(r.id()));
    // Open epics have their own column, and no other but closed.
    let work = |r: &BeadRow<'_>| matches(r) && r.kind() != BeadType::Epic;
    let epics = match filter.kinds.is_empty() || filter.kinds.contains(&BeadType::Epic) {
        true => Some(ops::list(
            store,
            &ListFilter {
                kinds: vec![BeadType::Epic],
                ..filter.clone()
            },
        )?),
        false => None,
    };
    let ready = ops::ready(store, &filter)?;
    let progress = ops::list(
        store,
        &ListFilter {
            statuses: vec![Status::InProgress, Status::Hooked],
            ..filter.clone()
        },
    )?;
    let closed = ops::list(
        store,
        &ListFilter {
            statuses: vec![Status::Closed],
            sort: Sort::Updated,
            ..filter.clone()
        },
    )?;
    let waiting = ops::blocked(store, None)?;
    let marked = ops::list(
        store,
        &ListFilter {
            statuses: vec![Status::Blocked],
            ..filter.clone()
        },
    )?;
    let own: Vec<(Status, Category)> = ops::vocabulary(store)?
        .statuses
        .into_iter()
        .filter(|(_, c)| *c != Category::Active)
        .collect();
    let mut owned = Vec::with_capacity(own.len());
    for &(status, category) in &own {
        let beads = ops::list(
            store,
            &ListFilter {
                statuses: vec![status],
                ..filter.clone()
            },
        )?;
        owned.push((status, category, beads));
    }
    let taken = |s: Status| {
        matches!(s, Status::InProgress | Status::Hooked) || own.iter().any(|(o, _)| *o == s)
    };
    let waits: HashSet<&str> = waiting.beads().map(|(r, _)| r.id()).collect();
    let mut blocked: Vec<(BeadRow<'_>, Vec<String>)> = waiting
        .beads()
        .filter(|(r, _)| !taken(r.status()) && filter.keeps(r))
        .map(|(r, by)| (r, by.into_iter().map(str::to_owned).collect()))
        .collect();
    blocked.extend(
        marked
            .beads()
            .filter(|r| !waits.contains(r.id()))
            .map(|r| (r, Vec::new())),
    );
    blocked.sort_by_key(|(r, _)| (r.priority(), r.created_us()));
    let own_columns = |done: bool| {
        owned
            .iter()
            .filter(move |(_, c, _)| (*c == Category::Done) == done)
            .map(|(status, _, beads)| {
                let kind = ColumnKind::Custom(*status);
                column(kind, q.shown(kind), plain(beads).into_iter(), work)
            })
    };
    let mut columns = vec![
        column(
            ColumnKind::Epics,
            q.shown(ColumnKind::Epics),
            epics.as_ref().map(plain).unwrap_or_default().into_iter(),
            matches,
        ),
        column(
            ColumnKind::Ready,
            q.shown(ColumnKind::Ready),
            plain(&ready).into_iter(),
            work,
        ),
        column(
            ColumnKind::InProgress,
            q.shown(ColumnKind::InProgress),
            plain(&progress).into_iter(),
            work,
        ),
    ];
    columns.extend(own_columns(false));
    columns.push(column(
        ColumnKind::Blocked,
        q.shown(ColumnKind::Blocked),
        blocked.into_iter(),
        work,
    ));
    columns.push(column(
        ColumnKind::Closed,
        q.shown(ColumnKind::Closed),
        plain(&closed).into_iter(),
        matches,
    ));
    columns.extend(own_columns(true));
    Ok(Board { columns })
}

/// The rows of a listing, none waiting on anything.
fn plain(l: &ops::Listing) -> Vec<(BeadRow<'_>, Vec<String>)> {
    l.beads().map(|r| (r, Vec::new())).collect()
}

/// Why the board could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// A filter of the query string does not parse.
    #[error("{0}")]
    Query(String),
    /// The store could not be read.
    #[error(transparent)]
    Op(#[from] OpError),
}
