//! Every environment variable and git config key that changes what git-beads does,
//! in one list. The manual page (`git-beads(1)`, ENVIRONMENT and CONFIGURATION) is
//! generated from it, and a test fails when the code reads a variable or key that is
//! not listed here: a feature that adds one adds a line below.
//!
//! This module imports nothing, so every layer may name its settings from here.

/// Where a setting is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The process environment.
    Env,
    /// git configuration (`git config`), any scope git reads.
    GitConfig,
}

/// One environment variable or config key, and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The variable's or key's name, exactly as the user sets it.
    pub name: &'static str,
    /// Where it is read from.
    pub source: Source,
    /// What it does, in a sentence or two (plain text; the man page renders it).
    pub meaning: &'static str,
}

/// `CODEX_HOME`: Codex CLI's config directory, where `setup codex --global` writes.
pub const CODEX_HOME: &str = "CODEX_HOME";
/// `GEMINI_CLI_TRUSTED_FOLDERS_PATH`: where Gemini CLI keeps the folders the user trusts.
pub const GEMINI_TRUSTED_FOLDERS: &str = "GEMINI_CLI_TRUSTED_FOLDERS_PATH";
/// `HOME`: the user's home directory, where their formulas live without `XDG_CONFIG_HOME`.
pub const HOME: &str = "HOME";
/// `HOSTNAME`: the host's name, when the kernel does not say.
pub const HOSTNAME: &str = "HOSTNAME";
/// `XDG_CONFIG_HOME`: the user's config directory, where their formulas live.
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";

/// `core.commentChar`: what starts a comment line of a commit message.
pub const COMMENT_CHAR: &str = "core.commentChar";

/// `beads.sessionTimeout`: how long a silent session counts as alive.
pub const SESSION_TIMEOUT: &str = "beads.sessionTimeout";
/// `beads.snapshotMaxFile`: the largest file a worktree snapshot stores.
pub const SNAPSHOT_MAX_FILE: &str = "beads.snapshotMaxFile";
/// `beads.snapshotOnHeartbeat`: whether every heartbeat takes a snapshot.
pub const SNAPSHOT_ON_HEARTBEAT: &str = "beads.snapshotOnHeartbeat";
/// `beads.snapshotKeep`: how many snapshots `gc` keeps per agent.
pub const SNAPSHOT_KEEP: &str = "beads.snapshotKeep";
/// `beads.ledgerInterval`: how often a session's turns are folded into the store.
pub const LEDGER_INTERVAL: &str = "beads.ledgerInterval";
/// `beads.freshAfter`: the cost of one turn above which a session is told to start fresh.
pub const FRESH_AFTER: &str = "beads.freshAfter";
/// `beads.price`: the price of a model, overriding the defaults.
pub const PRICE: &str = "beads.price";
/// `beads.claimRemote`: the remote that confirms claims.
pub const CLAIM_REMOTE: &str = "beads.claimRemote";
/// `beads.syncTimeout`: how long one sync may take in all.
pub const SYNC_TIMEOUT: &str = "beads.syncTimeout";
/// `beads.hooks.strict`: whether a failing git-beads part fails the git hook.
pub const HOOKS_STRICT: &str = "beads.hooks.strict";
/// `beads.hooks.pushTimeout`: how long the pre-push hook may push.
pub const HOOKS_PUSH_TIMEOUT: &str = "beads.hooks.pushTimeout";

/// `beads.sign`: whether store commits are signed once the actor has a key.
pub const SIGN: &str = "beads.sign";
/// `beads.requireSigned`: whether sync refuses remote commits that do not verify.
pub const REQUIRE_SIGNED: &str = "beads.requireSigned";
/// `BEADS_DIR`: bd's variable naming the `.beads` directory whose repository holds the
/// store.
pub const BEADS_DIR: &str = "BEADS_DIR";
/// `gpg.format`: the kind of signature git makes; `ssh` lets a person sign store commits.
pub const GPG_FORMAT: &str = "gpg.format";
/// `user.signingKey`: the key a person signs with.
pub const SIGNING_KEY: &str = "user.signingKey";
/// `commit.gpgSign`: whether git signs commits; it lets gpg (or gpgsm) sign store commits.
pub const COMMIT_GPG_SIGN: &str = "commit.gpgSign";
/// `gpg.ssh.defaultKeyCommand`: prints the ssh key to sign with when `user.signingKey`
/// is unset.
pub const SSH_DEFAULT_KEY_COMMAND: &str = "gpg.ssh.defaultKeyCommand";
/// `gpg.program`: the OpenPGP signing program (default `gpg`).
pub const GPG_PROGRAM: &str = "gpg.program";
/// `gpg.openpgp.program`: the OpenPGP signing program, before `gpg.program`.
pub const GPG_OPENPGP_PROGRAM: &str = "gpg.openpgp.program";
/// `gpg.x509.program`: the X.509 signing program (default `gpgsm`).
pub const GPG_X509_PROGRAM: &str = "gpg.x509.program";
/// `gpg.ssh.allowedSignersFile`: the people (and keys) git trusts for SSH signatures.
pub const ALLOWED_SIGNERS: &str = "gpg.ssh.allowedSignersFile";

/// The value of environment variable `name` (one of the names listed here), if it is set.
pub fn env(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

/// The environment variables git-beads reads, in the order the manual lists them.
pub const ENVIRONMENT: &[Setting] = &[
    Setting {
        name: "BEADS_ACTOR",
        source: Source::Env,
        meaning: "bd's actor name: acts as --actor does (which overrides it), where neither \
                  --as, --as-person nor GIT_BEADS_AGENT names who acts.",
    },
    Setting {
        name: "BD_ACTOR",
        source: Source::Env,
        meaning: "bd's older name for BEADS_ACTOR (which wins when both are set); Gas Town \
                  sets it.",
    },
    Setting {
        name: "BD_JSON_ENVELOPE",
        source: Source::Env,
        meaning: "Set to 1, every --json document (list or object) and every --json error is \
                  wrapped as {\"schema_version\":1,\"data\":...}, as bd does.",
    },
    Setting {
        name: BEADS_DIR,
        source: Source::Env,
        meaning: "As in bd: a .beads directory; the store is the one of the repository it \
                  lies in (or, when it holds a redirect file, of the .beads that file names), \
                  whatever the current directory. init makes it, and runs git init there \
                  when it is in no repository.",
    },
    Setting {
        name: "CLAUDE_SESSION_ID",
        source: Source::Env,
        meaning: "The harness session that closes beads, as bd reads it: kept as \
                  closed_by_session by close (and update --status closed) unless --session \
                  names one.",
    },
    Setting {
        name: CODEX_HOME,
        source: Source::Env,
        meaning: "Codex CLI's config directory (default $HOME/.codex): where setup codex \
                  --global writes hooks.json and config.toml, and setup codex --trust records \
                  the trust of the project and of git-beads' hooks in config.toml.",
    },
    Setting {
        name: GEMINI_TRUSTED_FOLDERS,
        source: Source::Env,
        meaning: "Gemini CLI's file of trusted folders (default \
                  $HOME/.gemini/trustedFolders.json): where setup gemini --trust trusts the \
                  worktree, and setup status looks.",
    },
    Setting {
        name: "GIT_AUTHOR_NAME",
        source: Source::Env,
        meaning: "The name that authors store commits and is written as created_by, \
                  updated_by and assignee on claim. Takes precedence over user.name, as in git.",
    },
    Setting {
        name: "GIT_AUTHOR_EMAIL",
        source: Source::Env,
        meaning: "The email of store commits. Takes precedence over user.email, as in git.",
    },
    Setting {
        name: "GIT_BEADS_AGENT",
        source: Source::Env,
        meaning: "The agent to act as, like --as (which overrides it); it in turn overrides \
                  the agent bound to the worktree. --as-person ignores it.",
    },
    Setting {
        name: "GIT_BEADS_SERVE_TOKEN",
        source: Source::Env,
        meaning: "The token `serve` requires of every request, like --token (which \
                  overrides it); needed when --host is not a loopback address.",
    },
    Setting {
        name: "GIT_BEADS_SYNC",
        source: Source::Env,
        meaning: "Set (not read) by git-beads for every git it runs to sync, so that hooks \
                  can tell a git-beads sync from your own fetch or push.",
    },
    Setting {
        name: "GIT_CONFIG_PARAMETERS",
        source: Source::Env,
        meaning: "How git hands the settings of git -c key=value beads ... down to \
                  git-beads, which honours them as git does (git -c user.name=x beads create \
                  acts as x).",
    },
    Setting {
        name: "GIT_DIR",
        source: Source::Env,
        meaning: "The repository to use, as git sets it inside hooks and linked worktrees; \
                  without it the repository is found by searching upwards from the current directory.",
    },
    Setting {
        name: "GIT_TERMINAL_PROMPT",
        source: Source::Env,
        meaning: "Set (not read) to 0 for the git push the pre-push hook runs, so that a \
                  credential prompt can never make your own git push hang.",
    },
    Setting {
        name: HOME,
        source: Source::Env,
        meaning: "Your formulas live in $HOME/.config/git-beads/formulas when \
                  XDG_CONFIG_HOME is not set; setup --global writes the harness' settings \
                  under it (~/.claude, ~/.gemini, ~/.codex), and setup --trust records your \
                  consent in the harness' own files there (~/.claude.json, \
                  ~/.gemini/trustedFolders.json).",
    },
    Setting {
        name: HOSTNAME,
        source: Source::Env,
        meaning: "The host a session records it runs on, when neither /proc/sys/kernel/hostname \
                  nor /etc/hostname names it.",
    },
    Setting {
        name: "NO_COLOR",
        source: Source::Env,
        meaning: "When set (to anything), output is never coloured. Colour is only used \
                  on a terminal in any case.",
    },
    Setting {
        name: XDG_CONFIG_HOME,
        source: Source::Env,
        meaning: "When set to an absolute path, your own formulas (for every repository) are \
                  read from $XDG_CONFIG_HOME/git-beads/formulas; a formula of the same name \
                  under .beads/formulas in the worktree wins.",
    },
];

/// The git config keys git-beads reads, in the order the manual lists them.
pub const CONFIG: &[Setting] = &[
    Setting {
        name: "user.name",
        source: Source::GitConfig,
        meaning: "Your identity when GIT_AUTHOR_NAME is not set. Without either, commands \
                  that change the store refuse to run.",
    },
    Setting {
        name: "user.email",
        source: Source::GitConfig,
        meaning: "Your email when GIT_AUTHOR_EMAIL is not set.",
    },
    Setting {
        name: "beads.role",
        source: Source::GitConfig,
        meaning: "bd's role of this clone (maintainer or contributor), set and read by \
                  `config set|get beads.role` as bd keeps it; git-beads itself does not act \
                  on it.",
    },
    Setting {
        name: "core.fsync",
        source: Source::GitConfig,
        meaning: "Which writes are synced to disk before the store's ref moves, as in git \
                  (loose-object, reference, committed, all, none …). When neither this nor \
                  core.fsyncObjectFiles is set, git-beads syncs both objects and refs.",
    },
    Setting {
        name: "core.fsyncObjectFiles",
        source: Source::GitConfig,
        meaning: "git's older switch for syncing object files; honoured as git does.",
    },
    Setting {
        name: COMMENT_CHAR,
        source: Source::GitConfig,
        meaning: "The character that starts a comment line of a commit message, as in git \
                  (default #): the prepare-commit-msg hook puts its trailers above those lines.",
    },
    Setting {
        name: SESSION_TIMEOUT,
        source: Source::GitConfig,
        meaning: "How long a session may go without a heartbeat before it counts as \
                  crashed: 90s, 30m, 2h, 1d or a number of seconds (default 30m).",
    },
    Setting {
        name: SNAPSHOT_MAX_FILE,
        source: Source::GitConfig,
        meaning: "The largest file a worktree snapshot stores, in bytes or with a k, m or g \
                  suffix (default 10m); larger files are listed instead of stored.",
    },
    Setting {
        name: SNAPSHOT_ON_HEARTBEAT,
        source: Source::GitConfig,
        meaning: "When true, every session heartbeat also takes a snapshot of the worktree.",
    },
    Setting {
        name: SNAPSHOT_KEEP,
        source: Source::GitConfig,
        meaning: "How many worktree snapshots git beads gc keeps per agent (default 5).",
    },
    Setting {
        name: LEDGER_INTERVAL,
        source: Source::GitConfig,
        meaning: "How often the turns a harness hook records (in a local ledger under the \
                  common git dir, at once) are folded into the store: at most once per this \
                  interval per session, and at end, handoff, compaction and budget crossings. \
                  90s, 5m, 1h or a number of seconds (default 5m).",
    },
    Setting {
        name: FRESH_AFTER,
        source: Source::GitConfig,
        meaning: "When one turn costs more than this, prime and the UserPromptSubmit hook say \
                  that a fresh session would be cheaper: tokens (200k, 1m, 150000) or dollars \
                  ($0.50). Unset: never.",
    },
    Setting {
        name: PRICE,
        source: Source::GitConfig,
        meaning: "The price of a model, one value per model (git config --add): MODEL INPUT \
                  OUTPUT CACHE_WRITE CACHE_READ, in dollars per million tokens, where MODEL is a \
                  prefix of model ids (the longest match wins; these before the built-in prices \
                  of current Claude models). A model with no price has its tokens recorded and \
                  its spend reported as unknown.",
    },
    Setting {
        name: CLAIM_REMOTE,
        source: Source::GitConfig,
        meaning: "The remote that confirms every claim (update --claim, ready --claim, sling) \
                  and its end (close, release), as --remote does: a claim succeeds only once \
                  that remote holds it (refs/beads/claims/ID), so two machines never both win \
                  one bead, and a close or release only once the remote holds it with that \
                  ref deleted. --offline works locally instead.",
    },
    Setting {
        name: SYNC_TIMEOUT,
        source: Source::GitConfig,
        meaning: "How long one git beads sync may take in all, fetching, merging and pushing: \
                  90s, 5m or a number of seconds (default 60s). Out of time while merging, \
                  the sync publishes the local head on its clone's own replica ref (taking up \
                  to half the budget more for that push) and succeeds, naming the fetched \
                  heads the next sync merges; out of time before (fetching) it stops (exit 3), \
                  keeping its merges in the local store. After the push, the deletion of \
                  finished claims and the provenance notes get what is left, and wait for the \
                  next sync when nothing is.",
    },
    Setting {
        name: HOOKS_STRICT,
        source: Source::GitConfig,
        meaning: "When true, a git hook whose git-beads part fails (or a git-beads that \
                  cannot run) fails the hook: a pre-push stops the push, a prepare-commit-msg \
                  stops the commit (git ignores the exit status of post-* hooks). Default false: \
                  the hook prints one line on stderr and git goes on.",
    },
    Setting {
        name: HOOKS_PUSH_TIMEOUT,
        source: Source::GitConfig,
        meaning: "How long the pre-push hook may spend pushing refs/beads/main and the \
                  provenance notes to the remote before it gives up: 20s, 2m or a number of \
                  seconds (default 30s). Your own push goes on either way.",
    },
    Setting {
        name: SIGN,
        source: Source::GitConfig,
        meaning: "Whether store commits are signed by the acting agent's key or the person's \
                  key (see gpg.format), whenever there is one (default true); false writes \
                  them unsigned; true also asks gpg or gpgsm to sign a person's commits \
                  without commit.gpgSign. A key that cannot be read or used leaves the \
                  commit unsigned, said once in one line (unless beads.requireSigned).",
    },
    Setting {
        name: GPG_FORMAT,
        source: Source::GitConfig,
        meaning: "As in git: ssh signs a person's store commits with user.signingKey (or the \
                  key gpg.ssh.defaultKeyCommand prints); openpgp (the default) and x509 sign \
                  them with gpg or gpgsm when commit.gpgSign is true.",
    },
    Setting {
        name: SIGNING_KEY,
        source: Source::GitConfig,
        meaning: "As in git: for ssh, a key file (~/.ssh/id_ed25519.pub with its private half \
                  beside it or in the ssh agent, or the private key itself) or a literal \
                  key::ssh-ed25519 … that the ssh agent holds; for openpgp and x509, the key \
                  id (default: your name and email). An ssh key's public half is one verify \
                  trusts for user.email.",
    },
    Setting {
        name: COMMIT_GPG_SIGN,
        source: Source::GitConfig,
        meaning: "As in git: true signs a person's store commits with gpg or gpgsm (gpg.format \
                  openpgp or x509), or with gpg.ssh.defaultKeyCommand's key.",
    },
    Setting {
        name: SSH_DEFAULT_KEY_COMMAND,
        source: Source::GitConfig,
        meaning: "As in git: with gpg.format ssh and no user.signingKey, the command whose \
                  first key line is the key to sign with (when commit.gpgSign is true).",
    },
    Setting {
        name: GPG_PROGRAM,
        source: Source::GitConfig,
        meaning: "As in git: the program that signs a person's store commits with \
                  gpg.format openpgp (default gpg).",
    },
    Setting {
        name: GPG_OPENPGP_PROGRAM,
        source: Source::GitConfig,
        meaning: "As in git: the OpenPGP signing program, before gpg.program.",
    },
    Setting {
        name: GPG_X509_PROGRAM,
        source: Source::GitConfig,
        meaning: "As in git: the program that signs with gpg.format x509 (default gpgsm).",
    },
    Setting {
        name: ALLOWED_SIGNERS,
        source: Source::GitConfig,
        meaning: "As in git: the people (principal and key) git beads verify trusts besides \
                  your own user.signingKey; git beads verify --allowed-signers writes one for \
                  the store's actors.",
    },
    Setting {
        name: REQUIRE_SIGNED,
        source: Source::GitConfig,
        meaning: "When true, git beads sync refuses remote commits that do not verify (see \
                  git beads verify): nothing is merged, and what the remote sent is left in \
                  refs/beads/remotes/REMOTE/main for inspection.",
    },
];

/// Every setting, environment first.
pub fn all() -> impl Iterator<Item = &'static Setting> {
    ENVIRONMENT.iter().chain(CONFIG)
}
