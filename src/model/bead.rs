//! The bead: a unit of work or record, and the small types it is made of.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::id::{BeadId, DepTarget, ExternalRef};

/// A point in time, always UTC.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// Key in `extra` of the bd dependencies as they were: a list of
/// `{depends_on_id, type, created_at, created_by, metadata, …}`.
pub const EXTRA_DEPENDENCIES: &str = "bd_dependencies";

/// Writes a timestamp the way export does: RFC 3339, UTC, as many fraction digits as needed.
pub fn format_time(t: &Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Serializes a time as chrono's serde does (RFC 3339 with `Z`, the fraction in none,
/// 3, 6 or 9 digits), by [`Rfc3339`]: every bead document has two, and a pour writes
/// a thousand documents.
fn rfc3339<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&Rfc3339(t))
}

/// A time written as chrono's serde writes it, by [`TimeText`] where it can.
struct Rfc3339<'a>(&'a Timestamp);

impl std::fmt::Display for Rfc3339<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match TimeText::of(self.0) {
            Some(text) => f.write_str(text.as_str()),
            None => f.write_str(&format_time(self.0)),
        }
    }
}

/// A time as chrono's serde writes it (`2026-01-01T00:00:00.123Z`: RFC 3339 with `Z`,
/// the fraction of a second in none, 3, 6 or 9 digits, as many as it needs), written
/// digit by digit into a buffer of its own: chrono's formatter is general (any offset,
/// any precision) and costs twenty times as much.
pub(crate) struct TimeText {
    bytes: [u8; 30],
    len: usize,
}

impl TimeText {
    /// The text of `t`; `None` for a year outside 0 … 9999 or a leap second, which
    /// chrono's formatter writes.
    pub(crate) fn of(t: &Timestamp) -> Option<TimeText> {
        TimeText::of_parts(t.timestamp(), t.timestamp_subsec_nanos())
    }

    /// The text of the time `micros` microseconds after the Unix epoch, as
    /// [`TimeText::of`] writes it.
    pub(crate) fn of_micros(micros: i64) -> Option<TimeText> {
        let nanos = micros.rem_euclid(1_000_000) * 1_000;
        TimeText::of_parts(micros.div_euclid(1_000_000), u32::try_from(nanos).ok()?)
    }

    /// The text of the time `secs` seconds and `nanos` nanoseconds after the Unix
    /// epoch. The date is worked out from the day's number directly (Howard Hinnant's
    /// `civil_from_days`): chrono's accessors each do it again.
    fn of_parts(secs: i64, nanos: u32) -> Option<TimeText> {
        // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
        if !(-62_167_219_200..=253_402_300_799).contains(&secs) || nanos >= 1_000_000_000 {
            return None;
        }
        // Seconds since 0000-03-01 of the year -400, so that the arithmetic below
        // is on unsigned numbers (the years 0 … 9999 are all after it).
        let secs = u64::try_from(secs + (719_468 + 146_097) * 86_400).ok()?;
        let (z, second) = ((secs / 86_400) as u32, (secs % 86_400) as u32);
        // Eras of 400 years (146 097 days), the day of the era, the year of the era.
        let (era, doe) = (z / 146_097, z % 146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = (yoe + era * 400 + u32::from(month <= 2)).checked_sub(400)?;
        let (mut fraction, width) = match nanos {
            0 => (0, 0),
            n if n % 1_000_000 == 0 => (n / 1_000_000, 3usize),
            n if n % 1_000 == 0 => (n / 1_000, 6),
            n => (n, 9),
        };
        let mut bytes = *b"0000-00-00T00:00:00.000000000Z";
        let mut two = |at: usize, v: u32| {
            bytes[at] += (v / 10) as u8;
            bytes[at + 1] += (v % 10) as u8;
        };
        two(0, year / 100);
        two(2, year % 100);
        two(5, month);
        two(8, day);
        two(11, second / 3_600);
        two(14, second / 60 % 60);
        two(17, second % 60);
        let len = match width {
            0 => 19,
            w => 20 + w,
        };
        for digit in bytes.get_mut(20..len).unwrap_or_default().iter_mut().rev() {
            *digit += (fraction % 10) as u8;
            fraction /= 10;
        }
        bytes[len] = b'Z';
        Some(TimeText {
            bytes,
            len: len + 1,
        })
    }

    /// The text, as bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits and separators are written.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

/// A string did not name any variant of a closed set of words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value:?} is not a valid {what} (expected one of: {expected})")]
pub struct ParseEnumError {
    /// What was being parsed ("status", "type", ...).
    pub what: &'static str,
    /// The text that did not parse.
    pub value: String,
    /// The accepted words, comma-separated.
    pub expected: String,
}

/// Declares an enum of kebab/snake words with `Display`, `FromStr` and serde in one place.
///
/// With `open Custom,` after the name of the words, the set is open: a variant
/// `Custom(CustomWord)` holds a word of the project's own (bd's `types.custom`,
/// `status.custom`), so any well-formed word parses; which of those a project accepts
/// is for `ops` to check against its settings.
macro_rules! word_enum_impl {
    ($(#[$meta:meta])* $name:ident, $what:literal, $(open $custom:ident,)? { $($(#[$vmeta:meta])* $variant:ident = $word:literal),+ $(,)? }) => {
        $crate::model::word_enum!(@enum [$($custom)?] $(#[$meta])* $name { $($(#[$vmeta])* $variant = $word),+ });

        impl $name {
            /// Every built-in variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The built-in variant written as `s`.
            fn builtin(s: &str) -> Option<$name> {
                match s {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        $crate::model::word_enum!(@as_str [$($custom)?] $name { $($variant = $word),+ });

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::model::ParseEnumError;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                $name::builtin(s)
                    $(.or_else(|| $crate::model::CustomWord::new(s).map($name::$custom)))?
                    .ok_or_else(|| $crate::model::ParseEnumError {
                        what: $what,
                        value: s.to_owned(),
                        expected: [$($word),+].join(", ")
                            $(+ $crate::model::word_enum!(@custom_hint $custom))?,
                    })
            }
        }
    };
    (@custom_hint $custom:ident) => {
        ", or a word of the project's own: a lowercase letter, then lowercase letters, digits, _ or -"
    };
    (@enum [] $(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal),+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $word)] $variant,)+
        }
    };
    (@enum [$custom:ident] $(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal),+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A word of the project's own, from its settings.
            $custom($crate::model::CustomWord),
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                d.deserialize_str($crate::model::WordVisitor(std::marker::PhantomData))
            }
        }
    };
    (@as_str [] $name:ident { $($variant:ident = $word:literal),+ }) => {
        impl $name {
            /// The word this variant is written as.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word,)+ }
            }
        }
    };
    (@as_str [$custom:ident] $name:ident { $($variant:ident = $word:literal),+ }) => {
        impl $name {
            /// The word this variant is written as.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $word,)+
                    $name::$custom(w) => w.as_str(),
                }
            }

            /// Whether this is a word of the project's own rather than a built-in one.
            pub fn is_custom(&self) -> bool {
                matches!(self, $name::$custom(_))
            }
        }
    };
}

/// Reads an open set's word from a string without allocating (serde's visitor for
/// the enums `word_enum!` declares with `open`).
pub(crate) struct WordVisitor<T>(pub std::marker::PhantomData<T>);

impl<T: std::str::FromStr<Err = ParseEnumError>> serde::de::Visitor<'_> for WordVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a word")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
}

/// A word a project adds to a set of words (bd's `types.custom`, `status.custom`): a
/// lowercase ASCII letter, then lowercase letters, digits, `_` or `-`, at most
/// [`CustomWord::MAX`] bytes. Kept inline, so the types that hold one stay `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CustomWord {
    len: u8,
    bytes: [u8; CustomWord::MAX],
}

impl CustomWord {
    /// The longest word, in bytes.
    pub const MAX: usize = 31;

    /// The word `s`, when it is well-formed.
    pub fn new(s: &str) -> Option<CustomWord> {
        let mut chars = s.bytes();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
        let rest_ok =
            chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-');
        if !first_ok || !rest_ok || s.len() > Self::MAX {
            return None;
        }
        let mut bytes = [0; Self::MAX];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Some(CustomWord {
            len: s.len() as u8,
            bytes,
        })
    }

    /// The word.
    pub fn as_str(&self) -> &str {
        // Only ASCII goes in (checked by `new`).
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl std::fmt::Debug for CustomWord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialOrd for CustomWord {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for CustomWord {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

pub(crate) use word_enum_impl as word_enum;

word_enum_impl!(
    /// Where a bead stands in its life.
    Status, "status", open Custom, {
        /// Not started; ready when nothing blocks it.
        Open = "open",
        /// Someone is working on it.
        InProgress = "in_progress",
        /// Waiting on something outside the dependency graph.
        Blocked = "blocked",
        /// Put off on purpose.
        Deferred = "deferred",
        /// On an agent's hook: the agent's next session must work on it.
        Hooked = "hooked",
        /// Kept in view permanently.
        Pinned = "pinned",
        /// Done.
        Closed = "closed",
        /// A tombstone: deleted, kept so that the deletion syncs.
        Deleted = "deleted",
    }
);

impl Status {
    /// Whether the bead is finished (closed or deleted), so that it blocks nothing.
    pub fn is_done(self) -> bool {
        matches!(self, Status::Closed | Status::Deleted)
    }
}

word_enum_impl!(
    /// What kind of bead this is.
    BeadType, "type", open Custom, {
        /// A piece of work.
        Task = "task",
        /// Something broken.
        Bug = "bug",
        /// Something new.
        Feature = "feature",
        /// A large piece of work made of children.
        Epic = "epic",
        /// Upkeep.
        Chore = "chore",
        /// A request to merge work.
        MergeRequest = "merge-request",
        /// A group of beads travelling together.
        Convoy = "convoy",
        /// A workflow poured from a formula.
        Molecule = "molecule",
        /// An agent record (as bd stores them).
        Agent = "agent",
        /// A message (as bd stores them).
        Message = "message",
        /// Something that happened.
        Event = "event",
        /// A gate a workflow waits on.
        Gate = "gate",
        /// A rig (a bd/Gas Town workspace record).
        Rig = "rig",
        /// A role (a bd/Gas Town record).
        Role = "role",
        // Later additions go last (before `Custom`): the index keeps a built-in type as
        // its position here.
        /// A decision and why it was made (bd's `decision`, an ADR).
        Decision = "decision",
        /// A time-boxed investigation.
        Spike = "spike",
        /// A piece of user-visible behaviour.
        Story = "story",
        /// A point that a set of work reaches.
        Milestone = "milestone",
    }
);

word_enum_impl!(
    /// How one bead depends on another.
    DepKind, "dependency type", {
        /// The other bead must be closed before this one is ready.
        Blocks = "blocks",
        /// The other bead is this one's parent. The child is ready while its parent is
        /// open; a parent held back itself (blocked, deferred, or waiting on a blocker)
        /// holds its children back.
        ParentChild = "parent-child",
        /// A loose link.
        Related = "related",
        /// This bead was found while working on the other.
        DiscoveredFrom = "discovered-from",
        /// This bead duplicates the other.
        Duplicates = "duplicates",
        /// This bead replaces the other.
        Supersedes = "supersedes",
        /// This bead answers the other.
        RepliesTo = "replies-to",
        /// This bead tracks the other (bd convoys).
        Tracks = "tracks",
        // Later additions go last: the index keeps a kind as its position here.
        /// This bead runs only if the other fails (bd's `mol bond --type conditional`):
        /// it is not ready until the other is closed with a reason that says it failed
        /// (see [`is_failure_close`]), and stays held when the other succeeds.
        ConditionalBlocks = "conditional-blocks",
    }
);

/// Words that, in a close reason, say the bead failed (bd's `FailureCloseKeywords`).
const FAILURE_WORDS: &[&str] = &[
    "failed",
    "rejected",
    "wontfix",
    "won't fix",
    "canceled",
    "cancelled",
    "abandoned",
    "blocked",
    "error",
    "timeout",
    "aborted",
];

/// Whether a close reason says the bead failed: it contains one of bd's failure words
/// (`failed`, `rejected`, `wontfix`, `canceled`, `abandoned`, `error`, `timeout` …),
/// in any case. What releases a `conditional-blocks` dependency.
pub fn is_failure_close(reason: &str) -> bool {
    let lower = reason.to_lowercase();
    FAILURE_WORDS.iter().any(|w| lower.contains(w))
}

impl BeadType {
    /// Whether beads of this type hold other work rather than being work: epics and
    /// molecules, whose open children are the work (so `ready` leaves them out).
    pub fn is_container(self) -> bool {
        matches!(self, BeadType::Epic | BeadType::Molecule)
    }
}

impl DepKind {
    /// Whether this kind of link can keep a bead from being ready: `blocks` until the
    /// other is done, `conditional-blocks` until it failed, `parent-child` only while
    /// the parent is held back itself.
    pub fn is_blocking(self) -> bool {
        matches!(
            self,
            DepKind::Blocks | DepKind::ParentChild | DepKind::ConditionalBlocks
        )
    }

    /// What a dependency of this kind says of the bead that has it, read as
    /// "A `<relation>` B": "depends on" for `blocks` (A waits on B), "is a child of" …
    pub fn relation(self) -> &'static str {
        match self {
            DepKind::Blocks => "depends on",
            DepKind::ParentChild => "is a child of",
            DepKind::Related => "is related to",
            DepKind::DiscoveredFrom => "was discovered from",
            DepKind::Duplicates => "duplicates",
            DepKind::Supersedes => "supersedes",
            DepKind::RepliesTo => "replies to",
            DepKind::Tracks => "tracks",
            DepKind::ConditionalBlocks => "is the fallback of",
        }
    }
}

/// One dependency of a bead on another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Dependency {
    /// The bead depended on.
    pub id: BeadId,
    /// How.
    #[serde(rename = "type")]
    pub kind: DepKind,
}

/// One dependency of a bead on an item of another project (bd's
/// `external:<project>:<id>`). Nothing here can see that project, so a blocking one
/// stays unresolved: it keeps its bead from being ready until it is removed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExternalDependency {
    /// The item depended on.
    pub id: ExternalRef,
    /// How.
    #[serde(rename = "type")]
    pub kind: DepKind,
}

/// A comment on a bead. Comments are append-only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    /// Stable identity within the bead, used to merge comments as a union.
    pub id: String,
    /// Who wrote it.
    pub author: String,
    /// When.
    pub created_at: Timestamp,
    /// What it says.
    pub text: String,
}

/// A value that lost a merge: the same field changed differently on two sides.
/// Kept so that nothing is dropped; cleared by `git beads resolve`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    /// The field both sides changed.
    pub field: String,
    /// The value that lost, as it was.
    pub value: serde_json::Value,
    /// Who set the losing value.
    pub actor: String,
    /// When the losing value was set.
    pub at: Timestamp,
}

/// A bead: a unit of work or record with a stable id.
///
/// The field order here is the key order of the canonical YAML document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bead {
    /// The stable id.
    pub id: BeadId,
    /// One line saying what it is.
    pub title: String,
    /// Where it stands.
    pub status: Status,
    /// 0 (critical) to 4 (backlog).
    pub priority: u8,
    /// What kind of bead.
    #[serde(rename = "type")]
    pub kind: BeadType,
    /// Who works on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// Free-form tags; a set.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub labels: BTreeSet<String>,
    /// Links to other beads; kept sorted and free of duplicates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<Dependency>,
    /// Links to items of other projects; kept sorted and free of duplicates.
    #[serde(
        default,
        rename = "external_dependencies",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub external: Vec<ExternalDependency>,
    /// Long text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Working notes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// Discussion, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<Comment>,
    /// When it was made.
    #[serde(serialize_with = "rfc3339")]
    pub created_at: Timestamp,
    /// Who made it.
    pub created_by: String,
    /// When it last changed.
    #[serde(serialize_with = "rfc3339")]
    pub updated_at: Timestamp,
    /// Who changed it last.
    pub updated_by: String,
    /// When it was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<Timestamp>,
    /// Why it was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_reason: Option<String>,
    /// When it was deleted (tombstones only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_at: Option<Timestamp>,
    /// Who deleted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted_by: Option<String>,
    /// Why it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_reason: Option<String>,
    /// Fields from elsewhere (e.g. an import) that have no place of their own; kept, never dropped.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Values that lost a merge, for review.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}

impl Bead {
    /// A new open bead with the given id and title, made by `actor` at `now`.
    pub fn new(id: BeadId, title: String, actor: &str, now: Timestamp) -> Bead {
        Bead {
            id,
            title,
            status: Status::Open,
            priority: 2,
            kind: BeadType::Task,
            assignee: None,
            labels: BTreeSet::new(),
            dependencies: Vec::new(),
            external: Vec::new(),
            description: String::new(),
            notes: String::new(),
            comments: Vec::new(),
            created_at: now,
            created_by: actor.to_owned(),
            updated_at: now,
            updated_by: actor.to_owned(),
            closed_at: None,
            close_reason: None,
            deleted_at: None,
            deleted_by: None,
            delete_reason: None,
            extra: BTreeMap::new(),
            conflicts: Vec::new(),
        }
    }

    /// Records that `actor` changed the bead at `now`.
    pub fn touch(&mut self, actor: &str, now: Timestamp) {
        self.updated_at = now;
        self.updated_by = actor.to_owned();
    }

    /// Adds a dependency, keeping the list sorted; returns false if it was already there.
    pub fn add_dependency(&mut self, dep: Dependency) -> bool {
        match self.dependencies.binary_search(&dep) {
            Ok(_) => false,
            Err(at) => {
                self.dependencies.insert(at, dep);
                true
            }
        }
    }

    /// Points the bd dependency records kept in [`EXTRA_DEPENDENCIES`] at `new` where
    /// they named `old`, so that a renamed bead's links export with their metadata.
    fn retarget_kept(&mut self, old: &str, new: &str) {
        let Some(serde_json::Value::Array(kept)) = self.extra.get_mut(EXTRA_DEPENDENCIES) else {
            return;
        };
        for d in kept.iter_mut().filter_map(serde_json::Value::as_object_mut) {
            if d.get("depends_on_id").and_then(serde_json::Value::as_str) == Some(old) {
                d.insert(
                    "depends_on_id".into(),
                    serde_json::Value::String(new.to_owned()),
                );
            }
        }
    }

    /// Points the dependencies on beads that moved (`moves`: old id → new id) at
    /// their new ids, bd's records of them in `extra` too (a rename, a child
    /// renumbered by a merge).
    pub fn relink(&mut self, moves: &BTreeMap<BeadId, BeadId>) {
        for mut d in std::mem::take(&mut self.dependencies) {
            if let Some(to) = moves.get(&d.id) {
                self.retarget_kept(d.id.as_str(), to.as_str());
                d.id = to.clone();
            }
            self.add_dependency(d);
        }
    }

    /// Adds a dependency on a bead or an external item, keeping each list sorted;
    /// returns false if it was already there.
    pub fn add_target(&mut self, target: &DepTarget, kind: DepKind) -> bool {
        match target {
            DepTarget::Bead(id) => self.add_dependency(Dependency {
                id: id.clone(),
                kind,
            }),
            DepTarget::External(r) => {
                let dep = ExternalDependency {
                    id: r.clone(),
                    kind,
                };
                match self.external.binary_search(&dep) {
                    Ok(_) => false,
                    Err(at) => {
                        self.external.insert(at, dep);
                        true
                    }
                }
            }
        }
    }

    /// Removes every dependency on `target` (of `kind`, or of any kind); returns how
    /// many went.
    pub fn remove_target(&mut self, target: &DepTarget, kind: Option<DepKind>) -> usize {
        match target {
            DepTarget::Bead(id) => self.remove_dependency(id, kind),
            DepTarget::External(r) => {
                let before = self.external.len();
                self.external
                    .retain(|d| !(d.id == *r && kind.is_none_or(|k| k == d.kind)));
                before - self.external.len()
            }
        }
    }

    /// Every dependency, on beads and on external items: kind and target as written.
    pub fn all_dependencies(&self) -> impl Iterator<Item = (DepKind, &str)> {
        let beads = self.dependencies.iter().map(|d| (d.kind, d.id.as_str()));
        beads.chain(self.external.iter().map(|d| (d.kind, d.id.as_str())))
    }

    /// Removes every dependency on `id` (of `kind`, or of any kind); returns how many went.
    pub fn remove_dependency(&mut self, id: &BeadId, kind: Option<DepKind>) -> usize {
        let before = self.dependencies.len();
        self.dependencies
            .retain(|d| !(d.id == *id && kind.is_none_or(|k| k == d.kind)));
        before - self.dependencies.len()
    }

    /// The parent named by a parent-child dependency, if any.
    pub fn parent(&self) -> Option<&BeadId> {
        self.dependencies
            .iter()
            .find(|d| d.kind == DepKind::ParentChild)
            .map(|d| &d.id)
    }

    /// The beads this one waits on through blocking kinds of dependency.
    pub fn blockers(&self) -> impl Iterator<Item = &Dependency> {
        self.dependencies.iter().filter(|d| d.kind.is_blocking())
    }

    /// Whether it failed: it is done, with a close reason that says so
    /// ([`is_failure_close`]).
    pub fn failed(&self) -> bool {
        self.status.is_done() && self.close_reason.as_deref().is_some_and(is_failure_close)
    }
}

/// Parses a type, with bd's short names (`feat`, `mr`, `mol`, `dec`, `adr`).
pub fn parse_type(s: &str) -> Result<BeadType, String> {
    let word = match s {
        "feat" => "feature",
        "mr" => "merge-request",
        "mol" => "molecule",
        "dec" | "adr" => "decision",
        s => s,
    };
    word.parse().map_err(|e: ParseEnumError| e.to_string())
}

/// Parses one dependency, `ID` or `KIND:ID`; a bare id means `blocks`.
pub fn parse_dep(s: &str) -> Result<Dependency, String> {
    let s = s.trim();
    let (kind, id) = match s.split_once(':') {
        Some((k, id)) => (k.parse::<DepKind>().map_err(|e| e.to_string())?, id),
        None => (DepKind::Blocks, s),
    };
    let id = BeadId::parse(id).map_err(|e| e.to_string())?;
    Ok(Dependency { id, kind })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn times_are_written_as_chrono_writes_them(
            secs in -62_200_000_000i64..253_500_000_000,
            nanos in proptest::prop_oneof![
                Just(0u32),
                (1u32..1000).prop_map(|m| m * 1_000_000),
                (1u32..1_000_000).prop_map(|u| u * 1_000),
                0u32..1_000_000_000,
                1_000_000_000u32..2_000_000_000,
            ],
        ) {
            let Some(t) = Timestamp::from_timestamp(secs, nanos) else {
                return Ok(());
            };
            let ours = Rfc3339(&t).to_string();
            let chrono = serde_json::to_value(t).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(serde_json::Value::String(ours), chrono);
        }
    }

    #[test]
    fn words_round_trip() {
        for s in Status::ALL {
            assert_eq!(s.as_str().parse::<Status>(), Ok(*s));
        }
        for t in BeadType::ALL {
            assert_eq!(t.as_str().parse::<BeadType>(), Ok(*t));
        }
        let err = "nope".parse::<DepKind>().expect_err("unknown word");
        assert!(err.to_string().contains("parent-child"));
    }

    #[test]
    fn dependencies_stay_sorted_and_unique() {
        let now = chrono::Utc::now();
        let mut b = Bead::new(BeadId::parse("bd-a1").expect("id"), "t".into(), "me", now);
        let x = BeadId::parse("bd-x1").expect("id");
        let w = BeadId::parse("bd-w1").expect("id");
        assert!(b.add_dependency(Dependency {
            id: x.clone(),
            kind: DepKind::Blocks
        }));
        assert!(!b.add_dependency(Dependency {
            id: x.clone(),
            kind: DepKind::Blocks
        }));
        assert!(b.add_dependency(Dependency {
            id: w.clone(),
            kind: DepKind::Related
        }));
        assert_eq!(b.dependencies[0].id, w);
        assert_eq!(b.remove_dependency(&x, None), 1);
        assert_eq!(b.blockers().count(), 0);
    }
}
