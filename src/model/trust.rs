//! The verdict `verify` gives one commit of the store: whether a key that could act
//! as its author signed it, and if not, why not.

use serde::Serialize;

/// What `verify` found about one commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Signed by a key that could act as its author.
    Good,
    /// Not signed.
    Unsigned,
    /// Signed by its agent's own key, which nobody endorsed (its creator had no key
    /// to sign with): nothing vouches for the key.
    Unendorsed,
    /// Signed with OpenPGP or X.509, which gpg or gpgsm checks (`git verify-commit`),
    /// not verify.
    Unchecked,
    /// Signed, but the signature does not match the commit.
    Bad,
    /// Signed by a key that is not its author's (or not endorsed).
    UnknownKey,
    /// Signed by a key its author had retired.
    RotatedOut,
    /// Its author is an agent that was retired.
    Retired,
    /// Its author's authority did not allow the change.
    OverReaching,
}

impl Trust {
    /// Whether the commit was forged or went beyond its author's authority; the
    /// verdicts that are neither (good, unsigned, unendorsed, unchecked) say only how
    /// far verify can vouch for it.
    pub fn is_forged(self) -> bool {
        !matches!(
            self,
            Trust::Good | Trust::Unsigned | Trust::Unendorsed | Trust::Unchecked
        )
    }

    /// The verdict in words, as the JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Good => "good",
            Trust::Unsigned => "unsigned",
            Trust::Unendorsed => "unendorsed",
            Trust::Unchecked => "unchecked",
            Trust::Bad => "bad",
            Trust::UnknownKey => "unknown-key",
            Trust::RotatedOut => "rotated-out",
            Trust::Retired => "retired",
            Trust::OverReaching => "over-reaching",
        }
    }
}
