//! What can go wrong in the store, and the helpers that name what was being done.

use std::path::PathBuf;

use super::FORMAT;
use super::codec::CodecError;
use super::sync::RemoteError;

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No git repository was found.
    #[error("not a git repository: {path}")]
    NotARepo {
        /// Where the search started.
        path: PathBuf,
        /// What gix reported.
        #[source]
        source: Box<gix::Error>,
    },
    /// The repository has no beads store yet.
    #[error("this repository has no beads store yet")]
    NotInitialized,
    /// The store was written by a newer git-beads.
    #[error("the store has format {found}, this git-beads reads format {FORMAT} and older")]
    NewerFormat {
        /// The format recorded in the store.
        found: u32,
    },
    /// A git operation failed.
    #[error("git: could not {context}")]
    Git {
        /// What was being done.
        context: String,
        /// What gix reported.
        #[source]
        source: Box<gix::Error>,
    },
    /// A document in the store does not parse.
    #[error("{path} does not parse: {source}")]
    Document {
        /// The document's path in the store's tree.
        path: String,
        /// The parse error.
        #[source]
        source: CodecError,
    },
    /// A value could not be encoded.
    #[error("could not encode {what}: {source}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// The encoding error.
        #[source]
        source: CodecError,
    },
    /// A file outside the object database could not be read or written.
    #[error("could not {context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// No author identity is configured.
    #[error(
        "no identity to author the change (set user.name and user.email, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)"
    )]
    NoIdentity,
    /// Talking to a remote failed, or what it sent cannot be merged.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// A signing key could not be made, read or used.
    #[error("could not {context}: {reason}")]
    Key {
        /// What was being done.
        context: String,
        /// What went wrong.
        reason: String,
    },
    /// The ref kept moving under the writer.
    #[error("{0} kept moving while this command tried to update it; nothing was changed")]
    Contended(String),
}

/// Wraps a gix error with what was being done.
pub(crate) fn git_err(context: impl Into<String>) -> impl FnOnce(gix::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Git {
        context,
        source: Box::new(source),
    }
}

/// Wraps an I/O error with what was being done.
pub(crate) fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Io { context, source }
}
