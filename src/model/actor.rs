//! Who is acting: the identity that authors a change.

/// The identity a command acts as. Its `id` is what lands in `assignee`,
/// `created_by` and `updated_by`; `name` and `email` author the store commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    /// The short identity written into documents.
    pub id: String,
    /// The commit author's name.
    pub name: String,
    /// The commit author's email.
    pub email: String,
}

impl Actor {
    /// A person acting under their git identity; their id is their name.
    pub fn person(name: &str, email: &str) -> Actor {
        Actor {
            id: name.to_owned(),
            name: name.to_owned(),
            email: email.to_owned(),
        }
    }
}
