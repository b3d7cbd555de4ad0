//! The project's settings kept in the store (`config set`), which sync shares with
//! every clone; settings of one machine stay in git config.

use std::collections::BTreeMap;

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
}
