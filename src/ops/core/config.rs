//! The project's settings kept in the store (`config get/set/list/unset`): one
//! document, `config.yaml`, that sync merges key by key like any other.

use super::{Result, write};
use crate::model::Actor;
use crate::model::config::{Settings, Vocabulary, check_key, check_value};
use crate::model::{BeadType, Status};
use crate::store::{Store, View};

/// Every setting of the project.
pub fn settings(store: &Store) -> Result<Settings> {
    Ok(store.view()?.settings()?)
}

/// The value of setting `key`, if it is set.
pub fn setting(store: &Store, key: &str) -> Result<Option<String>> {
    check_key(key)?;
    Ok(settings(store)?.remove(key))
}

/// The project's own types and statuses (`types.custom`, `status.custom`).
pub fn vocabulary(store: &Store) -> Result<Vocabulary> {
    Ok(Vocabulary::of(&settings(store)?))
}

/// Refuses types and statuses that are neither built in nor the project's own; the
/// settings are read (from `view`) only when one of them is a word of its own.
pub(crate) fn check_words(view: &View<'_>, kinds: &[BeadType], statuses: &[Status]) -> Result<()> {
    if !kinds.iter().any(BeadType::is_custom) && !statuses.iter().any(Status::is_custom) {
        return Ok(());
    }
    let words = Vocabulary::of(&view.settings()?);
    for &k in kinds {
        words.check_type(k)?;
    }
    for &s in statuses {
        words.check_status(s)?;
    }
    Ok(())
}

/// Sets `key` to `value` (one commit; none when it holds that value already). The
/// values of `types.custom` and `status.custom` are checked as bd checks them.
pub fn set_setting(store: &Store, actor: &Actor, key: &str, value: &str) -> Result<()> {
    check_key(key)?;
    check_value(key, value)?;
    write(store, actor, |tx| {
        let mut all = tx.settings()?;
        if all.get(key).map(String::as_str) == Some(value) {
            return Ok(());
        }
        all.insert(key.to_owned(), value.to_owned());
        tx.set_message(format!("config: set {key}"));
        Ok(tx.put_settings(&all)?)
    })
}

/// Removes setting `key`; returns whether it was set.
pub fn unset_setting(store: &Store, actor: &Actor, key: &str) -> Result<bool> {
    check_key(key)?;
    write(store, actor, |tx| {
        let mut all = tx.settings()?;
        if all.remove(key).is_none() {
            return Ok(false);
        }
        tx.set_message(format!("config: unset {key}"));
        tx.put_settings(&all)?;
        Ok(true)
    })
}

/// bd's key-value store (`kv set|get|clear|list`): pairs kept among the settings
/// under [`KV_PREFIX`], so they are in the store, in its history, and shared by sync,
/// as bd keeps them in its config table.
pub mod kv {
    use super::{Result, set_setting, setting, settings, unset_setting};
    use crate::model::Actor;
    use crate::model::config::{KV_PREFIX, check_kv_key};
    use crate::store::Store;
    use std::collections::BTreeMap;

    /// Sets `key` to `value` (one commit; none when it has that value already).
    pub fn set(store: &Store, actor: &Actor, key: &str, value: &str) -> Result<()> {
        check_kv_key(key)?;
        set_setting(store, actor, &format!("{KV_PREFIX}{key}"), value)
    }

    /// The value of `key`, if it is set.
    pub fn get(store: &Store, key: &str) -> Result<Option<String>> {
        check_kv_key(key)?;
        setting(store, &format!("{KV_PREFIX}{key}"))
    }

    /// Removes `key`; returns whether it was set.
    pub fn clear(store: &Store, actor: &Actor, key: &str) -> Result<bool> {
        check_kv_key(key)?;
        unset_setting(store, actor, &format!("{KV_PREFIX}{key}"))
    }

    /// Every pair, by key.
    pub fn list(store: &Store) -> Result<BTreeMap<String, String>> {
        Ok(settings(store)?
            .into_iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(KV_PREFIX)?.to_owned(), v)))
            .collect())
    }
}

/// Sets bd's `beads.role` (maintainer or contributor) in the repository's git config,
/// where bd keeps it: a setting of this machine, not of the store.
pub fn set_role(store: &Store, value: &str) -> Result<()> {
    crate::model::config::check_role(value)?;
    store
        .git()
        .set_config(crate::model::config::ROLE_KEY, value)?;
    Ok(())
}

/// bd's `beads.role`, from git config, if it is set.
pub fn role(store: &Store) -> Option<String> {
    store.git().config_string(crate::model::config::ROLE_KEY)
}
