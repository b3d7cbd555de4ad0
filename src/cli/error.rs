//! The CLI's one error type: a kind that decides the exit code, a message, the
//! chain of causes and hints.

use std::fmt::Write;

use crate::model::config::{STATUS_CUSTOM, TYPES_CUSTOM, VocabularyError};
use crate::ops::{
    AgentError, BeadError, ErrorKind, ImportError, MailError, MoleculeError, OpError, RemoteError,
    SessionError, StoreError, SyncError, WorktreeError, refs,
};

/// What kind of failure, which decides the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A well-formed command refused: a title too long, no store yet (exit 1).
    User,
    /// What the command names does not exist: a bead, agent, session, message,
    /// formula or remote (exit 1, as [`Kind::User`]; bd's `not_found` under `--json`).
    NotFound,
    /// The command line does not parse, values of the wrong shape (a malformed id,
    /// `-p 9`) included (exit 2).
    Usage,
    /// The operation contradicts the state it found: a claim held by someone else (exit 3).
    Conflict,
    /// The repository or the store could not be read or written (exit 4).
    Store,
    /// The acting agent may not do this: a capability it lacks, a budget it crossed,
    /// authority it would widen (exit 5).
    Denied,
    /// A remote refused a push for good, a hook or a protected ref (exit 6): unlike
    /// [`Kind::Conflict`], trying again will not help until the remote changes.
    Refused,
}

impl Kind {
    /// The word `--json` errors name this kind by (their `code`).
    pub fn code(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::NotFound => "not_found",
            Kind::Usage => "usage",
            Kind::Conflict => "conflict",
            Kind::Store => "store",
            Kind::Denied => "denied",
            Kind::Refused => "push_rejected",
        }
    }

    /// The documented exit code of this kind of failure.
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::User | Kind::NotFound => 1,
            Kind::Usage => 2,
            Kind::Conflict => 3,
            Kind::Store => 4,
            Kind::Denied => 5,
            Kind::Refused => 6,
        }
    }
}

/// A failure as the CLI reports it.
#[derive(Debug)]
pub struct CliError {
    /// What kind of failure.
    pub kind: Kind,
    /// The one-line message.
    pub message: String,
    /// The chain of causes, outermost first.
    pub causes: Vec<String>,
    /// What the user can do about it.
    pub hints: Vec<String>,
    /// The kind of I/O error it is, when it is one (`main` says nothing of a closed pipe).
    pub io: Option<std::io::ErrorKind>,
}

impl CliError {
    /// A failure of the given kind with a message.
    pub fn new(kind: Kind, message: impl Into<String>) -> CliError {
        CliError {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
            io: None,
        }
    }

    /// Bad input.
    pub fn user(message: impl Into<String>) -> CliError {
        CliError::new(Kind::User, message)
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.hints.push(hint.into());
        self
    }

    /// The text printed on stderr: `error: …`, `caused by: …`, `hint: …`.
    pub fn render(&self) -> String {
        let mut out = format!("error: {}\n", self.message);
        for c in &self.causes {
            let _ = writeln!(out, "caused by: {c}");
        }
        for h in &self.hints {
            let _ = writeln!(out, "hint: {h}");
        }
        out
    }

    /// The failure as a `--json` document.
    pub fn to_wire(&self) -> crate::wire::Failure<'_> {
        crate::wire::Failure {
            error: &self.message,
            code: self.kind.code(),
            causes: &self.causes,
            hint: (!self.hints.is_empty()).then(|| self.hints.join("; ")),
        }
    }

    fn with_causes(mut self, mut source: Option<&(dyn std::error::Error + 'static)>) -> CliError {
        while let Some(e) = source {
            let text = e.to_string();
            if !text.is_empty() && !self.message.contains(&text) {
                self.causes.push(text);
            }
            source = e.source();
        }
        self
    }
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> CliError {
        let kind = match &e {
            StoreError::NotInitialized | StoreError::NoIdentity | StoreError::NotARepo { .. } => {
                Kind::User
            }
            StoreError::Contended(_) => Kind::Conflict,
            StoreError::Remote(RemoteError::NoSuchRemote(_)) => Kind::NotFound,
            StoreError::Remote(RemoteError::BadName(_) | RemoteError::NoRemote) => Kind::User,
            StoreError::Remote(RemoteError::Rejected { .. }) => Kind::Refused,
            _ => Kind::Store,
        };
        let err = CliError::new(kind, e.to_string()).with_causes(std::error::Error::source(&e));
        match e {
            StoreError::NotInitialized => err.hint("run `git beads init` to create it"),
            // That no repository was found is the whole story: gix's causes only
            // repeat it ("Could not find a git repository…", "NotFound").
            StoreError::NotARepo { .. } => {
                let searched = err.causes.iter().any(|c| c.contains("Could not find"));
                CliError {
                    causes: if searched { Vec::new() } else { err.causes },
                    ..err
                }
                .hint("run it inside a git repository, or make one here with `git init`")
            }
            StoreError::NewerFormat { .. } => err.hint(
                "the store is left as it is; install a newer git-beads to read or change it",
            ),
            StoreError::Document { .. } => {
                err.hint("the document is kept as it is; fix it by hand, run `git beads log` to see where it came from, or `git beads doctor --fix` to set it aside in lost+found/")
            }
            StoreError::Remote(RemoteError::NoRemote) => {
                err.hint("add one with `git remote add origin URL`, or name one: `git beads sync REMOTE`")
            }
            StoreError::Remote(RemoteError::Garbage { remote, .. }) => err.hint(format!(
                "nothing was merged and the local store is untouched; what {remote} sent is at {}",
                refs::tracking_main(&remote)
            )),
            StoreError::Remote(RemoteError::Rejected { .. }) => err.hint(
                "nothing was pushed; `git beads push` sends the local store once the remote accepts it",
            ),
            _ => err,
        }
    }
}

impl From<OpError> for CliError {
    fn from(e: OpError) -> CliError {
        if let OpError::Store(e) = e {
            return e.into();
        }
        let kind = match e.kind() {
            ErrorKind::NotFound => Kind::NotFound,
            ErrorKind::Invalid => Kind::User,
            ErrorKind::Conflict => Kind::Conflict,
            ErrorKind::Denied => Kind::Denied,
            ErrorKind::Store => Kind::Store,
            ErrorKind::Refused => Kind::Refused,
        };
        let err = CliError::new(kind, e.to_string());
        match hint(&e) {
            Some(h) => err.hint(h),
            None => err,
        }
    }
}

/// How to add a word to the project's list under `key`.
fn vocabulary_hint(key: &str) -> String {
    format!(
        "`git beads config get {key}` shows the project's list, `git beads config set {key} LIST` sets it"
    )
}

/// What the user can do about `e`, in commands and flags of the CLI.
fn hint(e: &OpError) -> Option<String> {
    let h = match e {
        OpError::SettingsKey(crate::model::config::KeyError::Local(key)) => {
            format!("set it with `git config {key} VALUE`")
        }
        OpError::Vocabulary(VocabularyError::UnknownType(_)) => vocabulary_hint(TYPES_CUSTOM),
        OpError::Vocabulary(VocabularyError::UnknownStatus(_)) => vocabulary_hint(STATUS_CUSTOM),
        OpError::Bead(BeadError::NotFound(_)) => {
            "`git beads list --all` shows every bead but the deleted ones, `git beads list --status deleted` those"
                .into()
        }
        OpError::Bead(BeadError::DeleteByStatus) => {
            "use `git beads delete --force` to delete a bead".into()
        }
        OpError::Agent(AgentError::BoundRetired(_)) => {
            "`git beads agent unbind` removes the binding, `git beads agent bind AGENT` binds another, \
             and --as-person acts as you"
                .into()
        }
        OpError::Agent(AgentError::NotActive(agent)) => {
            format!("create it with `git beads agent create {agent}`")
        }
        OpError::Session(SessionError::NoneRunning(_)) => {
            "start one with `git beads session start`".into()
        }
        OpError::Session(SessionError::Live { .. }) => "pass --take-over to supersede it".into(),
        OpError::Session(SessionError::OverBudget { .. }) => {
            "end it with `git beads session end --reason budget` and start a fresh session".into()
        }
        OpError::Session(SessionError::BudgetSpent { agent, .. }) => format!(
            "raise the budget with `git beads --as-person agent update {agent} --budget … --apply-now`, \
             or end the session with `git beads session end --reason budget`"
        ),
        OpError::Session(SessionError::Dirty(_)) => {
            "commit or stash them, or pass --force to overwrite them".into()
        }
        OpError::Mail(MailError::NoMailbox) => "act as an agent (--as AGENT) to read it".into(),
        OpError::Molecule(MoleculeError::NoHook(_) | MoleculeError::NothingHooked(_)) => {
            "name the molecule: `git beads mol current ID`".into()
        }
        OpError::Molecule(MoleculeError::Unfinished { wisp: true, .. }) => {
            "`git beads mol burn` discards the wisp instead".into()
        }
        OpError::Molecule(MoleculeError::NotAWisp { .. }) => {
            "use `git beads delete --force` for stored beads".into()
        }
        OpError::Sync(SyncError::Behind(remote)) => {
            format!("run `git beads sync {remote}` to merge them, then push")
        }
        OpError::Sync(SyncError::Moved { remote, .. }) => format!("run `git beads sync {remote}`"),
        OpError::Sync(SyncError::Refused { merged: true, .. }) => {
            "the local store keeps the merge this sync made; `git beads push` sends it once the remote accepts it"
                .into()
        }
        OpError::Sync(SyncError::Refused { merged: false, .. }) => {
            "nothing was merged or pushed; `git beads push` sends the local store once the remote accepts it"
                .into()
        }
        OpError::Sync(SyncError::OutOfTime { .. }) => {
            "run `git beads sync` again, or give it longer with `git config beads.syncTimeout`"
                .into()
        }
        OpError::Worktree(WorktreeError::NotBound { agent, .. }) => {
            format!("bind it there with `git beads agent bind {agent}`")
        }
        OpError::Import(ImportError::BadLines { .. }) => {
            "--skip-bad imports the other records and lists the bad lines".into()
        }
        _ => return None,
    };
    Some(h)
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError {
            io: Some(e.kind()),
            ..CliError::new(Kind::Store, format!("i/o: {e}"))
        }
    }
}

impl From<serde_json::Error> for CliError {
    fn from(e: serde_json::Error) -> CliError {
        if e.is_io() {
            return std::io::Error::from(e).into();
        }
        CliError::new(Kind::Store, format!("could not write JSON: {e}"))
    }
}

impl From<crate::serve::ServeError> for CliError {
    fn from(e: crate::serve::ServeError) -> CliError {
        use crate::serve::ServeError;
        match e {
            ServeError::Op(e) => e.into(),
            ServeError::TokenRequired { .. } => CliError::new(Kind::Usage, e.to_string())
                .hint("give one with --token TOKEN (or GIT_BEADS_SERVE_TOKEN)"),
            ServeError::Bind { .. } => CliError::user(e.to_string())
                .with_causes(std::error::Error::source(&e))
                .hint("pick another port with --port (0: any free port)"),
            ServeError::Server(_) => {
                CliError::new(Kind::Store, e.to_string()).with_causes(std::error::Error::source(&e))
            }
        }
    }
}
