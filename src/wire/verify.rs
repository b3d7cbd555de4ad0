//! What `verify` prints: one line per commit of the store it checked.

use serde::{Serialize, Serializer};

use super::{Doc, Documented, Field, Shape};
use crate::ops;

/// One commit as `verify` judged it.
#[derive(Serialize)]
pub struct CommitVerified<'a> {
    /// The commit id.
    pub commit: String,
    /// Who it says acted.
    pub actor: &'a str,
    /// Whether that actor is an agent.
    pub agent: bool,
    /// Whether it is a merge.
    pub merge: bool,
    /// The public key that signed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer: Option<&'a str>,
    /// The verdict.
    pub status: &'static str,
    /// Why, when it is not good.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'a str>,
}

impl<'a> From<&'a ops::CommitCheck> for CommitVerified<'a> {
    fn from(c: &'a ops::CommitCheck) -> Self {
        CommitVerified {
            commit: c.commit.to_string(),
            actor: &c.actor,
            agent: c.agent,
            merge: c.merge,
            signer: c.signer.as_deref(),
            status: c.verdict.as_str(),
            detail: c.detail.as_deref(),
        }
    }
}

/// What `verify` prints: a bare array, oldest commit first.
pub struct Verified<'a>(pub &'a [ops::CommitCheck]);

impl Serialize for Verified<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(CommitVerified::from))
    }
}

impl Documented for Verified<'_> {
    const DOC: Doc = Doc {
        shape: Shape::List,
        commands: "verify",
        fields: &[
            Field::new("commit"),
            Field::new("actor"),
            Field::noted("agent", ": whether the actor is an agent (else a person)"),
            Field::new("merge"),
            Field::optional_noted("signer", ": the public key that signed it"),
            Field::noted(
                "status",
                ": good, unsigned, bad, unknown-key, rotated-out, retired or over-reaching",
            ),
            Field::optional("detail"),
        ],
    };
}
