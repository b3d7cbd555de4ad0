//! Bead ids: `<prefix>-<base36 hash>`, children `<parent>.<n>` (or `<parent>.<name>`
//! for a molecule bonded under a ref).

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};

use serde::{Deserialize, Serialize};

/// Why a string is not a valid id or prefix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// The id does not have the `<prefix>-<hash>[.<n>...]` shape.
    #[error("{0:?} is not a bead id (expected something like bd-a1b2 or bd-a1b2.3)")]
    Malformed(String),
    /// An id of another kind of record (a session, a message), which has a bead id's
    /// shape, does not.
    #[error("{value:?} is not a {kind} id (expected something like {prefix}-a1b2c3d4e5)")]
    MalformedOf {
        /// The kind of record the id should name ("session").
        kind: &'static str,
        /// The prefix of that kind's ids ("ses").
        prefix: &'static str,
        /// What was given.
        value: String,
    },
    /// The prefix is not a short lowercase word.
    #[error(
        "{0:?} is not a valid prefix (lowercase letters, digits, '_' or '-', 1 to 16 characters, starting with a letter)"
    )]
    BadPrefix(String),
    /// A reference to another project's item is not `external:<project>:<id>`.
    #[error(
        "{0:?} is not an external reference (expected external:<project>:<id>, e.g. external:beads:mol-run)"
    )]
    BadExternal(String),
}

/// The longest id accepted, in bytes.
const MAX_ID: usize = 128;

/// `s` as an error quotes it: its first 160 characters (more than the longest id), then
/// `…` when there are more.
fn shown(s: &str) -> String {
    match s.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// A validated bead id. It is safe to use as a file name and inside a ref name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BeadId(String);

impl BeadId {
    /// Parses the id of a session (shaped like a bead id); a malformed one is said to
    /// be no session id.
    pub fn parse_session(s: &str) -> Result<BeadId, IdError> {
        BeadId::parse_of(s, "session", "ses")
    }

    /// Parses the id of a message (shaped like a bead id); a malformed one is said to
    /// be no message id.
    pub fn parse_message(s: &str) -> Result<BeadId, IdError> {
        BeadId::parse_of(s, "message", "msg")
    }

    /// Parses the id of a `kind` of record whose ids start with `prefix`.
    fn parse_of(s: &str, kind: &'static str, prefix: &'static str) -> Result<BeadId, IdError> {
        BeadId::parse(s).map_err(|e| match e {
            IdError::Malformed(value) => IdError::MalformedOf {
                kind,
                prefix,
                value,
            },
            other => other,
        })
    }

    /// Parses and validates an id typed by a user or read from the store.
    pub fn parse(s: &str) -> Result<BeadId, IdError> {
        let malformed = || IdError::Malformed(shown(s));
        if s.is_empty() || s.len() > MAX_ID {
            return Err(malformed());
        }
        let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c);
        if !s.chars().all(ok_char) {
            return Err(malformed());
        }
        let (base, children) = match s.split_once('.') {
            Some((base, rest)) => (base, Some(rest)),
            None => (s, None),
        };
        let (prefix, hash) = base.split_once('-').ok_or_else(malformed)?;
        let word = |w: &str| {
            !w.is_empty()
                && w.split(['-', '_'])
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
        };
        if !word(prefix) || !word(hash) {
            return Err(malformed());
        }
        // A child is a number (`bd-a1.3`, a step or a child made here) or a name (a
        // molecule bonded under a ref, `bd-a1.arm-ace`); never `lock`, which git
        // refuses as the end of a ref name.
        let digits = |n: &str| n.chars().all(|c| c.is_ascii_digit());
        let child = |n: &str| match digits(n) {
            true => !n.is_empty() && n.len() <= 9,
            false => word(n) && n != "lock",
        };
        if let Some(children) = children
            && !children.split('.').all(child)
        {
            return Err(malformed());
        }
        Ok(BeadId(s.to_owned()))
    }

    /// Makes a fresh id of `len` base36 digits for `prefix`, mixing `seed` with
    /// per-process randomness so that two clones working offline do not collide.
    pub fn generate(prefix: &Prefix, seed: &[u8], len: usize) -> BeadId {
        let state = std::hash::RandomState::new();
        let mut digits = String::with_capacity(len);
        let mut round = 0u64;
        while digits.len() < len {
            let mut h = state.build_hasher();
            h.write(seed);
            h.write_u64(round);
            let mut v = h.finish();
            for _ in 0..12 {
                if digits.len() == len {
                    break;
                }
                let d = (v % 36) as u32;
                v /= 36;
                digits.push(char::from_digit(d, 36).unwrap_or('0'));
            }
            round += 1;
        }
        BeadId(format!("{}-{}", prefix.as_str(), digits))
    }

    /// The id of the `n`th child of this bead.
    pub fn child(&self, n: u32) -> BeadId {
        BeadId(format!("{}.{}", self.0, n))
    }

    /// The id of the parent when this is a child id (`bd-a1.2` → `bd-a1`).
    pub fn parent(&self) -> Option<BeadId> {
        self.0.rsplit_once('.').map(|(p, _)| BeadId(p.to_owned()))
    }

    /// The two-character directory this bead's document is fanned out into:
    /// the first two characters of the hash part (`bd-ab12.3` → `ab`).
    pub fn fanout(&self) -> String {
        let base = self.0.split('.').next().unwrap_or(&self.0);
        let hash = base.rsplit('-').next().unwrap_or(base);
        let mut out: String = hash.chars().take(2).collect();
        while out.len() < 2 {
            out.push('_');
        }
        out
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BeadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for BeadId {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        BeadId::parse(&s)
    }
}

impl From<BeadId> for String {
    fn from(id: BeadId) -> String {
        id.0
    }
}

impl std::str::FromStr for BeadId {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BeadId::parse(s)
    }
}

/// Whether a path segment is a Windows device name (`aux`, `CON.d`, `lpt1`), which a
/// Windows file system cannot hold as a file or folder, so neither as a loose ref nor
/// in a checkout. The rule is git's own (`core.protectNTFS`), without regard to case.
pub fn is_device_name(seg: &str) -> bool {
    let stem = seg.split('.').next().unwrap_or(seg).to_ascii_lowercase();
    matches!(
        stem.as_bytes(),
        b"aux"
            | b"con"
            | b"nul"
            | b"prn"
            | [b'c', b'o', b'm', b'1'..=b'9']
            | [b'l', b'p', b't', b'0'..=b'9']
    )
}

/// An item of another project that a bead depends on, written as bd writes it:
/// `external:<project>:<id>`. The project is a word (letters, digits, `-`, `_`, `.`);
/// the id is anything printable without spaces.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ExternalRef(String);

/// What every external reference starts with.
pub const EXTERNAL_SCHEME: &str = "external:";

/// The word between prefix and hash of a wisp's id (`bd-wisp-k3x9`).
pub const WISP_MARK: &str = "wisp-";

impl ExternalRef {
    /// Parses `external:<project>:<id>`.
    pub fn parse(s: &str) -> Result<ExternalRef, IdError> {
        let bad = || IdError::BadExternal(shown(s));
        let rest = s.strip_prefix(EXTERNAL_SCHEME).ok_or_else(bad)?;
        let (project, id) = rest.split_once(':').ok_or_else(bad)?;
        let project_ok = !project.is_empty()
            && project
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        let id_ok = !id.is_empty() && id.chars().all(|c| c.is_ascii_graphic());
        if !project_ok || !id_ok || s.len() > MAX_ID {
            return Err(bad());
        }
        Ok(ExternalRef(s.to_owned()))
    }

    /// The project named (`beads` in `external:beads:mol-run`).
    pub fn project(&self) -> &str {
        self.parts().0
    }

    /// The item named in that project (`mol-run` in `external:beads:mol-run`).
    pub fn item(&self) -> &str {
        self.parts().1
    }

    fn parts(&self) -> (&str, &str) {
        let rest = &self.0[EXTERNAL_SCHEME.len()..];
        rest.split_once(':').unwrap_or((rest, ""))
    }

    /// The reference as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ExternalRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for ExternalRef {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        ExternalRef::parse(&s)
    }
}

impl From<ExternalRef> for String {
    fn from(r: ExternalRef) -> String {
        r.0
    }
}

/// What a dependency points at: a bead of this store, or an item of another project.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepTarget {
    /// A bead here.
    Bead(BeadId),
    /// An item of another project (`external:<project>:<id>`).
    External(ExternalRef),
}

impl DepTarget {
    /// The target as written.
    pub fn as_str(&self) -> &str {
        match self {
            DepTarget::Bead(id) => id.as_str(),
            DepTarget::External(r) => r.as_str(),
        }
    }
}

impl fmt::Display for DepTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for DepTarget {
    type Err = IdError;
    /// `external:…` is an external reference; anything else must be a bead id.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.starts_with(EXTERNAL_SCHEME) {
            ExternalRef::parse(s).map(DepTarget::External)
        } else {
            BeadId::parse(s).map(DepTarget::Bead)
        }
    }
}

/// The prefix in front of every id of a store (`bd` in `bd-a1b2`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Prefix(String);

/// The longest prefix a store may have.
const MAX_PREFIX: usize = 16;

impl Prefix {
    /// Validates a prefix: 1 to 16 lowercase letters, digits, `_` or `-`, starting with a letter.
    pub fn parse(s: &str) -> Result<Prefix, IdError> {
        let bad = || IdError::BadPrefix(shown(s));
        let mut chars = s.chars();
        let first = chars.next().ok_or_else(bad)?;
        if !first.is_ascii_lowercase() || s.len() > MAX_PREFIX || s.ends_with(['-', '_']) {
            return Err(bad());
        }
        if !s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        {
            return Err(bad());
        }
        // A dash inside the prefix would make `<prefix>-<hash>` ambiguous to split;
        // and every id made with the prefix must parse, which takes words joined by
        // single separators (`a-_b` would make ids that no store could read back).
        if s.contains("--") || s.split(['-', '_']).any(str::is_empty) {
            return Err(bad());
        }
        Ok(Prefix(s.to_owned()))
    }

    /// Derives a prefix from a repository's directory name (`My Repo.git` → `myrepo`,
    /// `my-project` → `myproject`), whole up to the longest prefix a store takes,
    /// falling back to `bd` when nothing usable is left.
    pub fn from_repo_name(name: &str) -> Prefix {
        let name = name.strip_suffix(".git").unwrap_or(name);
        let cleaned: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .skip_while(|c| !c.is_ascii_lowercase())
            .take(MAX_PREFIX)
            .collect();
        Prefix::parse(&cleaned).unwrap_or_else(|_| Prefix("bd".to_owned()))
    }

    /// The prefix as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Prefix {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Prefix::parse(&s)
    }
}

impl From<Prefix> for String {
    fn from(p: Prefix) -> String {
        p.0
    }
}

/// How many base36 digits a new id gets in a store that holds `count` beads.
///
/// Three digits more than it takes to count the beads, and never fewer than five:
/// the chance that one new id meets an existing one stays below 1 in 36³ ≈ 46 000 at
/// any size, and a local collision is retried anyway. What remains is two clones
/// minting the same id offline; with five digits two clones making 36 beads each
/// collide about once in 47 000 times (four digits: once in 1 300).
pub fn id_length_for(count: usize) -> usize {
    let mut digits = 1;
    let mut n = count / 36;
    while n > 0 {
        digits += 1;
        n /= 36;
    }
    (digits + 3).max(5)
}

/// `text` with every id of a moved bead (`moves`: old id → new id) that stands as a
/// word of its own (not inside a longer id: `bd-a1` in "see bd-a1." but not in
/// `bd-a1.2`) replaced by the new id; `None` when it names none of them.
pub fn retarget_text(text: &str, moves: &BTreeMap<BeadId, BeadId>) -> Option<String> {
    let id_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while let Some(start) = rest.find(id_char) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !id_char(c)).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        // A sentence may end right after an id: its full stops are not part of it.
        let bare = word.trim_end_matches('.');
        let to = BeadId::parse(bare).ok().and_then(|id| moves.get(&id));
        match to {
            Some(to) => {
                changed = true;
                out.push_str(to.as_str());
                out.push_str(&word[bare.len()..]);
            }
            None => out.push_str(word),
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_real_shapes() {
        for ok in [
            "bd-a1b2",
            "bd-kwro.1",
            "bd-kwro.1.12",
            "hq-mol-abc12",
            "gt-x",
            "bd-ab_cd",
            // Named children: a molecule bonded under a ref.
            "bd-a1.arm-ace",
            "bd-a1.arm_ace.2",
            "bd-a1.x.y",
        ] {
            assert!(BeadId::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "bd",
            "bd-",
            "-a1",
            "BD-A1",
            "bd-a1..2",
            "bd-a1.",
            "bd-a1/../x",
            "bd-a1 b",
            "bd-a1.-x",
            "bd-a1.x-",
            "bd-a1.a--b",
            "bd-a1.Arm",
            "bd-a1.a/b",
            "bd-a1.lock",
            "bd-a1.1234567890",
            "bd--a1",
            "bd-a1\n",
            "../bd-a1",
        ] {
            assert!(BeadId::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn external_references() {
        let r = ExternalRef::parse("external:gt-cm900:gt").expect("bd's shape");
        assert_eq!((r.project(), r.item()), ("gt-cm900", "gt"));
        for bad in [
            "external:",
            "external:p",
            "external::x",
            "external:p:",
            "external:p q:x",
            "external:p:x y",
            "ext:p:x",
        ] {
            assert!(ExternalRef::parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            "external:p:x".parse::<DepTarget>(),
            Ok(DepTarget::External(_))
        ));
        assert!(matches!(
            "bd-a1".parse::<DepTarget>(),
            Ok(DepTarget::Bead(_))
        ));
    }

    #[test]
    fn generates_valid_unique_ids() {
        let p = Prefix::parse("bd").expect("valid prefix");
        let a = BeadId::generate(&p, b"seed", 6);
        let b = BeadId::generate(&p, b"seed", 6);
        assert_eq!(a.as_str().len(), 9);
        assert!(BeadId::parse(a.as_str()).is_ok());
        assert_ne!(a, b, "randomness is mixed in");
    }

    #[test]
    fn fanout_and_children() {
        let id = BeadId::parse("bd-ab12").expect("valid");
        assert_eq!(id.fanout(), "ab");
        let c = id.child(3);
        assert_eq!(c.as_str(), "bd-ab12.3");
        assert_eq!(c.fanout(), "ab");
        assert_eq!(c.parent(), Some(id));
        assert_eq!(BeadId::parse("gt-x").expect("valid").fanout(), "x_");
    }

    #[test]
    fn lengths_grow_with_the_store() {
        assert_eq!(id_length_for(0), 5);
        assert_eq!(id_length_for(100), 5);
        assert_eq!(id_length_for(10_000), 6);
        assert_eq!(id_length_for(100_000), 7);
    }

    #[test]
    fn prefixes() {
        assert_eq!(Prefix::from_repo_name("My-Repo.git").as_str(), "myrepo");
        assert_eq!(Prefix::from_repo_name("123").as_str(), "bd");
        assert_eq!(Prefix::from_repo_name("my-project").as_str(), "myproject");
        assert_eq!(
            Prefix::from_repo_name("a-very-long-repository-name").as_str(),
            "averylongreposit"
        );
        assert!(Prefix::parse("Bd").is_err());
        assert!(Prefix::parse("b/d").is_err());
        for bad in ["a-_b", "a__b", "a_-b"] {
            assert!(Prefix::parse(bad).is_err(), "{bad}");
        }
        assert!(Prefix::parse("hq-mol").is_ok());
    }

    #[test]
    fn text_follows_moved_ids_where_they_stand_alone() {
        let id = |s: &str| BeadId::parse(s).expect("id");
        let moves = BTreeMap::from([(id("bd-a1"), id("kw-z9")), (id("bd-b2.1"), id("bd-c3"))]);
        assert_eq!(
            retarget_text("Fix bd-a1. Then bd-b2.1, not bd-a1.2 or xbd-a1", &moves).as_deref(),
            Some("Fix kw-z9. Then bd-c3, not bd-a1.2 or xbd-a1")
        );
        assert_eq!(retarget_text("nothing of bd-a10 here", &moves), None);
    }
}
