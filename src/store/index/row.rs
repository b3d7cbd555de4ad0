//! One bead of an index read in place: its row, its fields and its dependencies.

use super::*;

/// A bead's place in one [`Index`]: a row of its table or of the beads changed since.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Row(pub(super) u32);

impl Row {
    /// The row as a number below [`Index::row_count`], for tables kept beside the index.
    pub fn get(self) -> usize {
        self.0 as usize
    }

    pub(super) fn at(r: usize) -> Row {
        Row(table::offset(r))
    }
}

/// One bead of an [`Index`], read in place.
#[derive(Clone, Copy)]
pub struct BeadRow<'a> {
    pub(super) index: &'a Index,
    pub(super) row: Row,
}

pub(super) enum At<'a> {
    Table(&'a Table, usize),
    Over(&'a Summary),
}

/// One dependency of a [`BeadRow`].
#[derive(Clone, Copy)]
pub struct Dep<'a> {
    /// How the bead depends on the target.
    pub kind: DepKind,
    /// The target, when it is in the store.
    pub target: Option<BeadRow<'a>>,
    pub(super) name: Name<'a>,
}

/// Where a dependency's target id is: in a table's arena (read when asked for), or a
/// string of its own.
#[derive(Clone, Copy)]
pub(super) enum Name<'a> {
    Arena(&'a Table, usize),
    Str(&'a str),
}

impl<'a> Dep<'a> {
    /// The target's id.
    pub fn id(&self) -> &'a str {
        match self.name {
            Name::Arena(table, k) => table.string(k),
            Name::Str(id) => id,
        }
    }

    /// Whether the target is an item of another project (`external:<project>:<id>`),
    /// which no store here can show done.
    pub fn is_external(&self) -> bool {
        self.id().starts_with(crate::model::EXTERNAL_SCHEME)
    }
}

/// One of two iterators over the same items.
pub(super) enum Either<A, B> {
    Left(A),
    Right(B),
}

impl<T, A: Iterator<Item = T>, B: Iterator<Item = T>> Iterator for Either<A, B> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            Either::Left(a) => a.next(),
            Either::Right(b) => b.next(),
        }
    }
}

impl<'a> BeadRow<'a> {
    pub(super) fn at(&self) -> At<'a> {
        let n = self.index.table.len();
        match self.row.get().checked_sub(n) {
            None => At::Table(&self.index.table, self.row.get()),
            Some(k) => At::Over(&self.index.over[k]),
        }
    }

    /// Its place in the index.
    pub fn row(&self) -> Row {
        self.row
    }

    /// Its row in the index's table, when it is read from there (not one of the beads
    /// changed since): all its fields are then that row's bytes, the same in every
    /// index with the same [`Index::table_stamp`].
    pub fn table_row(&self) -> Option<usize> {
        (self.row.get() < self.index.table.len()).then_some(self.row.get())
    }

    /// The id.
    pub fn id(&self) -> &'a str {
        match self.at() {
            At::Table(t, r) => t.id(r),
            At::Over(s) => &s.id,
        }
    }

    /// The title.
    pub fn title(&self) -> &'a str {
        match self.at() {
            At::Table(t, r) => t.title(r),
            At::Over(s) => &s.title,
        }
    }

    /// The status.
    pub fn status(&self) -> Status {
        match self.at() {
            At::Table(t, r) => t.status(r),
            At::Over(s) => s.status,
        }
    }

    /// The priority.
    pub fn priority(&self) -> u8 {
        match self.at() {
            At::Table(t, r) => t.priority(r),
            At::Over(s) => s.priority,
        }
    }

    /// The type.
    pub fn kind(&self) -> BeadType {
        match self.at() {
            At::Table(t, r) => t.kind(r),
            At::Over(s) => s.kind,
        }
    }

    /// The assignee.
    pub fn assignee(&self) -> Option<&'a str> {
        match self.at() {
            At::Table(t, r) => t.assignee(r),
            At::Over(s) => s.assignee.as_deref(),
        }
    }

    /// The labels, sorted.
    pub fn labels(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        match self.at() {
            At::Table(t, r) => Either::Left(t.label_range(r).map(|k| t.string(k))),
            At::Over(s) => Either::Right(s.labels.iter().map(String::as_str)),
        }
    }

    /// Whether it carries `label`.
    pub fn has_label(&self, label: &str) -> bool {
        match self.at() {
            At::Table(t, r) => t.has_label(r, label),
            At::Over(s) => s.labels.binary_search_by(|l| l.as_str().cmp(label)).is_ok(),
        }
    }

    /// The dependencies, sorted, each with its target when that is in the store.
    pub fn dependencies(&self) -> impl Iterator<Item = Dep<'a>> + use<'a> {
        let index = self.index;
        let n = index.table.len();
        match self.at() {
            At::Table(t, r) => Either::Left(t.dependencies(r).map(move |(kind, k, target)| Dep {
                kind,
                target: index.target(target, || t.string(k)),
                name: Name::Arena(t, k),
            })),
            At::Over(s) => {
                let placed = self
                    .row
                    .get()
                    .checked_sub(n)
                    .and_then(|k| index.placed.get(k));
                Either::Right(
                    (s.dependencies.iter().enumerate())
                        .map(move |(j, d)| {
                            let id = d.id.as_str();
                            let target = match placed.and_then(|p| p.targets.get(j)) {
                                Some(&row) => index.target(row, || id),
                                None => index.get(id),
                            };
                            Dep {
                                kind: d.kind,
                                target,
                                name: Name::Str(id),
                            }
                        })
                        .chain(s.external.iter().map(|d| Dep {
                            kind: d.kind,
                            target: None,
                            name: Name::Str(d.id.as_str()),
                        })),
                )
            }
        }
    }

    /// Creation time, microseconds since the epoch.
    pub fn created_us(&self) -> i64 {
        match self.at() {
            At::Table(t, r) => t.created_us(r),
            At::Over(s) => s.created_us,
        }
    }

    /// Last change, microseconds since the epoch.
    pub fn updated_us(&self) -> i64 {
        match self.at() {
            At::Table(t, r) => t.updated_us(r),
            At::Over(s) => s.updated_us,
        }
    }

    /// When the bead was made.
    pub fn created_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.created_us()).unwrap_or_default()
    }

    /// When the bead last changed.
    pub fn updated_at(&self) -> Timestamp {
        Timestamp::from_timestamp_micros(self.updated_us()).unwrap_or_default()
    }

    pub(super) fn data(&self) -> RowData<'a> {
        RowData {
            id: self.id(),
            title: self.title(),
            status: self.status(),
            priority: self.priority(),
            kind: self.kind(),
            assignee: self.assignee(),
            labels: self.labels().collect(),
            dependencies: self.dependencies().map(|d| (d.kind, d.id())).collect(),
            created_us: self.created_us(),
            updated_us: self.updated_us(),
        }
    }

    /// The text search looks in: id, title and description, case-folded, each ended
    /// by a NUL. Unless the index was read with [`Part::Text`](super::Part::Text) it
    /// is empty for a bead of the table, and leaves the description out for one
    /// changed since.
    pub fn text(&self) -> Cow<'a, [u8]> {
        match self.at() {
            At::Table(_, r) => Cow::Borrowed(self.index.texts.get(r)),
            At::Over(s) => Cow::Owned(fold(&s.id, &s.title, &s.description)),
        }
    }

    /// The bead as an owned summary (without its description).
    pub fn to_summary(&self) -> Summary {
        let data = self.data();
        let (mut dependencies, mut external) = (Vec::new(), Vec::new());
        for &(kind, id) in &data.dependencies {
            match id.parse::<crate::model::DepTarget>() {
                Ok(crate::model::DepTarget::Bead(id)) => dependencies.push(Dependency { id, kind }),
                Ok(crate::model::DepTarget::External(id)) => {
                    external.push(ExternalDependency { id, kind });
                }
                Err(_) => {}
            }
        }
        Summary {
            id: data.id.to_owned(),
            title: data.title.to_owned(),
            status: data.status,
            priority: data.priority,
            kind: data.kind,
            assignee: data.assignee.map(str::to_owned),
            labels: data.labels.into_iter().map(str::to_owned).collect(),
            dependencies,
            external,
            description: String::new(),
            created_us: data.created_us,
            updated_us: data.updated_us,
        }
    }
}

/// What a table row holds of `bead`.
pub(super) fn row_data(bead: &Bead) -> RowData<'_> {
    RowData {
        id: bead.id.as_str(),
        title: &bead.title,
        status: bead.status,
        priority: bead.priority,
        kind: bead.kind,
        assignee: bead.assignee.as_deref(),
        labels: bead.labels.iter().map(String::as_str).collect(),
        dependencies: bead.all_dependencies().collect(),
        created_us: bead.created_at.timestamp_micros(),
        updated_us: bead.updated_at.timestamp_micros(),
    }
}
