//! Setting one text field of a bead to a text written elsewhere (`edit`, in an editor).

use super::Edited;
use super::beads::{Changes, update};
use super::query::show;
use super::{BeadError, Result};
use crate::model::{Actor, Bead, BeadId};
use crate::store::Store;

/// A text field of a bead that `edit` can open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextField {
    /// The one-line title.
    Title,
    /// The description.
    Description,
    /// The design notes (bd's `design`).
    Design,
    /// The working notes.
    Notes,
    /// The acceptance criteria (bd's `acceptance_criteria`).
    Acceptance,
}

impl TextField {
    /// The field's name, as bd and the store spell it.
    pub fn name(self) -> &'static str {
        match self {
            TextField::Title => "title",
            TextField::Description => "description",
            TextField::Design => "design",
            TextField::Notes => "notes",
            TextField::Acceptance => "acceptance_criteria",
        }
    }

    /// The field's text in `bead` (empty when it has none).
    pub fn of(self, bead: &Bead) -> String {
        match self {
            TextField::Title => bead.title.clone(),
            TextField::Description => bead.description.clone(),
            TextField::Notes => bead.notes.clone(),
            TextField::Design | TextField::Acceptance => bead
                .extra
                .get(self.name())
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }
    }

    fn change(self, text: String) -> Changes {
        match self {
            TextField::Title => Changes {
                title: Some(text),
                ..Changes::default()
            },
            TextField::Description => Changes {
                description: Some(text),
                ..Changes::default()
            },
            TextField::Notes => Changes {
                notes: Some(text),
                ..Changes::default()
            },
            TextField::Design | TextField::Acceptance => Changes {
                fields: vec![(self.name().to_owned(), text.into())],
                ..Changes::default()
            },
        }
    }
}

/// Sets `field` of bead `id` from `was` (what the editor was given) to `text`
/// (trailing white space, which editors add, left out) in one commit, checked as
/// `update` checks it; text that differs from the field's only in trailing white space
/// writes nothing. A field that is no longer `was` changed while it was edited, and is
/// left as it is now.
pub fn edit_text(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    field: TextField,
    (was, text): (&str, &str),
) -> Result<Edited> {
    let bead = show(store, std::slice::from_ref(id))?
        .pop()
        .ok_or_else(|| BeadError::NotFound(id.clone()))?;
    if field.of(&bead) != was {
        return Err(BeadError::ChangedWhileEdited {
            id: id.clone(),
            field: field.name(),
        }
        .into());
    }
    let text = text.trim_end();
    if field.of(&bead).trim_end() == text {
        return Ok(Edited {
            bead,
            changed: false,
        });
    }
    let mut edited = update(
        store,
        actor,
        std::slice::from_ref(id),
        field.change(text.to_owned()),
    )?;
    edited
        .pop()
        .ok_or_else(|| BeadError::NotFound(id.clone()).into())
}
