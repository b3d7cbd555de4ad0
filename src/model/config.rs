//! The project's settings kept in the store (`config set`), which sync shares with
//! every clone; settings of one machine stay in git config.

use std::collections::BTreeMap;

use super::{BeadType, CustomWord, Status};

/// The project's settings: keys (bd's dotted names, `types.custom`) and their values.
pub type Settings = BTreeMap<String, String>;

/// The prefix of git-beads' settings in git config, which belong to one machine
/// (`beads.claimRemote`, `beads.hooks.strict`) and so are not kept in the store.
pub const LOCAL_PREFIX: &str = "beads.";

/// Why a settings key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key is empty or holds white space or control characters.
    #[error("{0:?} is not a settings key (a word such as types.custom, without spaces)")]
    Malformed(String),
    /// The key names a machine-local setting, kept in git config.
    #[error("{0} is a setting of this machine, kept in git config, not in the store")]
    Local(String),
    /// A key of the key-value store that bd refuses: empty, white space alone, or
    /// starting with a prefix of bd's own settings.
    #[error(
        "invalid key {0:?}: it is empty, or starts with kv., sync., conflict., federation., jira., linear., export. or import."
    )]
    Kv(String),
    /// A value of `beads.role` that bd refuses.
    #[error("invalid role {0:?} (valid values: maintainer, contributor)")]
    Role(String),
}

/// bd's `beads.role`: the one setting of this machine that bd's `config` sets, kept
/// in git config as bd keeps it.
pub const ROLE_KEY: &str = "beads.role";

/// Checks a value of [`ROLE_KEY`] as bd checks it.
pub fn check_role(value: &str) -> Result<(), KeyError> {
    match value {
        "maintainer" | "contributor" => Ok(()),
        v => Err(KeyError::Role(v.to_owned())),
    }
}

/// Where bd's key-value pairs (`kv set`) live among the settings: under this prefix.
pub const KV_PREFIX: &str = "kv.";

/// Checks a key of the key-value store as bd checks it.
pub fn check_kv_key(key: &str) -> Result<(), KeyError> {
    const RESERVED: &[&str] = &[
        "kv.",
        "sync.",
        "conflict.",
        "federation.",
        "jira.",
        "linear.",
        "export.",
        "import.",
    ];
    if key.trim().is_empty() || RESERVED.iter().any(|p| key.starts_with(p)) {
        return Err(KeyError::Kv(key.to_owned()));
    }
    check_key(&format!("{KV_PREFIX}{key}"))
}

/// Checks that `key` can name a setting kept in the store.
pub fn check_key(key: &str) -> Result<(), KeyError> {
    if key.is_empty() || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(KeyError::Malformed(key.to_owned()));
    }
    if key
        .get(..LOCAL_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(LOCAL_PREFIX))
    {
        return Err(KeyError::Local(key.to_owned()));
    }
    Ok(())
}

/// The key of the project's own bead types (bd's): a comma list, or a JSON array, of
/// words.
pub const TYPES_CUSTOM: &str = "types.custom";

/// The key of the project's own statuses (bd's): a comma list of words, each with its
/// category after a colon (`in_review:active`) or none.
pub const STATUS_CUSTOM: &str = "status.custom";

/// The most statuses a project may add (bd's limit).
const MAX_CUSTOM_STATUSES: usize = 50;

super::word_enum!(
    /// How beads of a status show in the views (bd's status categories).
    Category, "status category", {
        /// Work to take: in `ready` and in a default `list`.
        Active = "active",
        /// Being worked on: in a default `list`, not in `ready`.
        Wip = "wip",
        /// Finished: in neither.
        Done = "done",
        /// Put away: in neither.
        Frozen = "frozen",
        /// A project's status given without a category: in a default `list`, not in
        /// `ready`.
        Unspecified = "unspecified",
    }
);

impl Status {
    /// The category of a built-in status (bd's); a project's own status has the one
    /// its settings give it ([`Vocabulary::category`]).
    pub fn builtin_category(self) -> Category {
        match self {
            Status::Open => Category::Active,
            Status::InProgress | Status::Blocked | Status::Hooked => Category::Wip,
            Status::Closed | Status::Deleted => Category::Done,
            Status::Deferred | Status::Pinned => Category::Frozen,
            Status::Custom(_) => Category::Unspecified,
        }
    }
}

/// Why a value of `types.custom` or `status.custom` was refused, or a word that is not
/// one of the project's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VocabularyError {
    /// A word of the value is not well-formed.
    #[error("{key}: {word:?} is not a word (a lowercase letter, then lowercase letters, digits, _ or -; at most {max} bytes)", max = CustomWord::MAX)]
    Malformed {
        /// The key.
        key: &'static str,
        /// The word.
        word: String,
    },
    /// A status of `status.custom` names a category that does not exist.
    #[error(
        "{STATUS_CUSTOM}: {category:?} is not a category of {word} (expected one of: active, wip, done, frozen)"
    )]
    Category {
        /// The status.
        word: String,
        /// The category given.
        category: String,
    },
    /// A status of `status.custom` is a built-in one.
    #[error("{STATUS_CUSTOM}: {0} is a built-in status")]
    BuiltIn(String),
    /// A status of `status.custom` is there twice.
    #[error("{STATUS_CUSTOM}: {0} is there twice")]
    Twice(String),
    /// `status.custom` lists too many statuses.
    #[error("{STATUS_CUSTOM}: {0} statuses, at most {MAX_CUSTOM_STATUSES} are allowed")]
    TooMany(usize),
    /// A type that is neither built in nor in `types.custom`.
    #[error("{0} is not a type of this project (built-in ones: {builtin}; add one to {TYPES_CUSTOM})", builtin = words(BeadType::ALL))]
    UnknownType(BeadType),
    /// A status that is neither built in nor in `status.custom`.
    #[error("{0} is not a status of this project (built-in ones: {builtin}; add one to {STATUS_CUSTOM})", builtin = words(Status::ALL))]
    UnknownStatus(Status),
}

/// The items of `all` as one comma-separated phrase (for messages and the manual).
pub fn words<T: std::fmt::Display>(all: &[T]) -> String {
    all.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The words a project adds to the built-in types and statuses, from its settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocabulary {
    /// The project's own types, in the order given.
    pub types: Vec<BeadType>,
    /// The project's own statuses and their categories, in the order given.
    pub statuses: Vec<(Status, Category)>,
}

impl Vocabulary {
    /// The vocabulary `settings` give. A value that does not parse (one that arrived by
    /// sync or was written by hand: `config set` checks what it stores) adds nothing.
    pub fn of(settings: &Settings) -> Vocabulary {
        let value = |key| settings.get(key).map_or("", String::as_str);
        Vocabulary {
            types: parse_types(value(TYPES_CUSTOM)).unwrap_or_default(),
            statuses: parse_statuses(value(STATUS_CUSTOM)).unwrap_or_default(),
        }
    }

    /// Accepts `kind` when it is built in or one of the project's.
    pub fn check_type(&self, kind: BeadType) -> Result<(), VocabularyError> {
        match kind.is_custom() && !self.types.contains(&kind) {
            true => Err(VocabularyError::UnknownType(kind)),
            false => Ok(()),
        }
    }

    /// Accepts `status` when it is built in or one of the project's.
    pub fn check_status(&self, status: Status) -> Result<(), VocabularyError> {
        match status.is_custom() && !self.statuses.iter().any(|(s, _)| *s == status) {
            true => Err(VocabularyError::UnknownStatus(status)),
            false => Ok(()),
        }
    }

    /// How beads of `status` show in the views: a built-in status's category, or the
    /// one the settings give (unspecified for a status they do not list).
    pub fn category(&self, status: Status) -> Category {
        self.statuses
            .iter()
            .find(|(s, _)| *s == status)
            .map_or_else(|| status.builtin_category(), |&(_, c)| c)
    }

    /// The project's statuses of `category`.
    pub fn statuses_in(&self, category: Category) -> impl Iterator<Item = Status> + '_ {
        self.statuses
            .iter()
            .filter(move |(_, c)| *c == category)
            .map(|&(s, _)| s)
    }
}

/// Checks a value before `config set` stores it under `key`: the words of
/// `types.custom` and `status.custom` must parse (other keys take any value).
pub fn check_value(key: &str, value: &str) -> Result<(), VocabularyError> {
    match key {
        TYPES_CUSTOM => parse_types(value).map(drop),
        STATUS_CUSTOM => parse_statuses(value).map(drop),
        _ => Ok(()),
    }
}

/// The types a value of `types.custom` lists (a JSON array of words, or a comma
/// list, as bd reads it); built-in words in it add nothing.
pub fn parse_types(value: &str) -> Result<Vec<BeadType>, VocabularyError> {
    let listed: Vec<String> = serde_json::from_str(value.trim())
        .unwrap_or_else(|_| value.split(',').map(str::to_owned).collect());
    let mut types = Vec::new();
    for word in listed.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        let kind: BeadType = word.parse().map_err(|_| VocabularyError::Malformed {
            key: TYPES_CUSTOM,
            word: word.to_owned(),
        })?;
        if kind.is_custom() && !types.contains(&kind) {
            types.push(kind);
        }
    }
    Ok(types)
}

/// The statuses and categories a value of `status.custom` lists, by bd's rules: each
/// `name` or `name:category`, no built-in name, none twice, at most fifty.
pub fn parse_statuses(value: &str) -> Result<Vec<(Status, Category)>, VocabularyError> {
    let mut statuses: Vec<(Status, Category)> = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, category) = match part.split_once(':') {
            Some((name, category)) => {
                let c = category
                    .parse::<Category>()
                    .ok()
                    .filter(|c| *c != Category::Unspecified)
                    .ok_or_else(|| VocabularyError::Category {
                        word: name.to_owned(),
                        category: category.to_owned(),
                    })?;
                (name, c)
            }
            None => (part, Category::Unspecified),
        };
        let status: Status = name.parse().map_err(|_| VocabularyError::Malformed {
            key: STATUS_CUSTOM,
            word: name.to_owned(),
        })?;
        if !status.is_custom() {
            return Err(VocabularyError::BuiltIn(name.to_owned()));
        }
        if statuses.iter().any(|(s, _)| *s == status) {
            return Err(VocabularyError::Twice(name.to_owned()));
        }
        statuses.push((status, category));
    }
    if statuses.len() > MAX_CUSTOM_STATUSES {
        return Err(VocabularyError::TooMany(statuses.len()));
    }
    Ok(statuses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_the_project_pass_and_machine_local_or_malformed_ones_do_not() {
        assert_eq!(check_key("types.custom"), Ok(()));
        assert_eq!(
            check_key("Beads.claimRemote"),
            Err(KeyError::Local("Beads.claimRemote".into()))
        );
        for bad in ["", "a b", "a\u{1b}b"] {
            assert_eq!(check_key(bad), Err(KeyError::Malformed(bad.into())));
        }
    }

    fn custom(w: &str) -> CustomWord {
        CustomWord::new(w).expect("word")
    }

    #[test]
    fn custom_types_read_as_bd_reads_them() {
        let want = vec![
            BeadType::Custom(custom("gizmo")),
            BeadType::Custom(custom("slot")),
        ];
        assert_eq!(parse_types("gizmo, slot,,task"), Ok(want.clone()));
        assert_eq!(parse_types(r#"["gizmo","slot"]"#), Ok(want));
        assert!(matches!(
            parse_types("Gizmo"),
            Err(VocabularyError::Malformed { .. })
        ));
    }

    #[test]
    fn custom_statuses_take_bd_categories_and_refuse_what_bd_refuses() {
        let review = Status::Custom(custom("in_review"));
        let legacy = Status::Custom(custom("legacy"));
        assert_eq!(
            parse_statuses("in_review:active, legacy"),
            Ok(vec![
                (review, Category::Active),
                (legacy, Category::Unspecified)
            ])
        );
        for bad in ["open", "a:b", "a:", "x,x", "9x"] {
            assert!(parse_statuses(bad).is_err(), "{bad}");
        }
        let many = (0..51)
            .map(|i| format!("s{i}"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(parse_statuses(&many), Err(VocabularyError::TooMany(51)));
        let v = Vocabulary::of(&Settings::from([(
            STATUS_CUSTOM.to_owned(),
            "in_review:active".to_owned(),
        )]));
        assert_eq!(v.category(review), Category::Active);
        assert_eq!(v.category(Status::Deferred), Category::Frozen);
        assert_eq!(v.check_status(review), Ok(()));
        assert_eq!(
            v.check_status(legacy),
            Err(VocabularyError::UnknownStatus(legacy))
        );
        assert_eq!(v.check_type(BeadType::Bug), Ok(()));
    }
}
