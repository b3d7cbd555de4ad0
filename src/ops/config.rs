//! The project's settings kept in the store (`config get/set/list/unset`): one
//! document, `config.yaml`, that sync merges key by key like any other.

use super::{Result, write};
use crate::model::Actor;
use crate::model::config::{Settings, check_key};
use crate::store::Store;

/// Every setting of the project.
pub fn settings(store: &Store) -> Result<Settings> {
    Ok(store.view()?.settings()?)
}

/// The value of setting `key`, if it is set.
pub fn setting(store: &Store, key: &str) -> Result<Option<String>> {
    check_key(key)?;
    Ok(settings(store)?.remove(key))
}

/// Sets `key` to `value` (one commit; none when it holds that value already).
pub fn set_setting(store: &Store, actor: &Actor, key: &str, value: &str) -> Result<()> {
    check_key(key)?;
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
