//! Signing store commits in git's own SSH signature format, and checking them.
//!
//! A signed commit carries a `gpgsig` header holding an armored SSHSIG (namespace
//! `git`, SHA-512) over the commit object without that header, exactly as
//! `git commit -S` with `gpg.format=ssh` writes it, so `git verify-commit` and
//! `git log --show-signature` accept it with an allowed-signers file. Agents' private
//! keys live under `<common git dir>/beads/keys/`, mode 0600, never in the store; a
//! person signs with the key git is configured with (`user.signingKey`).

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use ssh_key::{HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

use super::{Store, StoreError, git_err, io_err};
use crate::model::{Actor, AgentName};
use crate::settings;

/// The namespace of commit signatures, the one git signs and verifies commits in.
pub const COMMIT_NAMESPACE: &str = "git";

/// Why this process wrote a store commit unsigned although a key was configured: the
/// first failure only, since a command is a process and says it once.
static UNSIGNED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Why a store commit this process wrote went unsigned although a key was configured
/// (the first reason), for the command to say once.
pub fn unsigned_reason() -> Option<&'static str> {
    UNSIGNED.get().map(String::as_str)
}

/// The header of a commit that holds its signature.
const SIG_HEADER: &[u8] = b"gpgsig";

/// A key that can sign: a private key in process, one `ssh-keygen -Y sign` signs with
/// (a key file it reads, or one the ssh agent holds), or an OpenPGP or X.509 key
/// that gpg or gpgsm signs with, each called as git calls it.
pub struct Signer(Key);

enum Key {
    /// A private key read from a file.
    Private(Box<PrivateKey>),
    /// A key `ssh-keygen` signs with: a private key file it can read (an encrypted
    /// one, with the agent holding it), or a public key whose private half the ssh
    /// agent holds.
    Keygen {
        /// The file handed to `ssh-keygen -f`.
        file: PathBuf,
        /// The public key, in OpenSSH format.
        public: String,
        /// Whether only the ssh agent may sign (`-U`, as git asks for a literal key).
        agent_only: bool,
        /// A temporary file holding a literal `key::` public key, removed on drop.
        _temp: Option<TempKey>,
    },
    /// A key gpg (OpenPGP) or gpgsm (X.509) signs with, as `git commit -S` does with
    /// `gpg.format` openpgp or x509.
    Gpg {
        /// The program (`gpg.program`, `gpg.x509.program`…).
        program: String,
        /// The key: `user.signingKey`, else the committer's `Name <email>`.
        key: String,
    },
}

/// A signing error, as a store error naming what was being signed or read.
fn key_err(context: impl Into<String>) -> impl FnOnce(ssh_key::Error) -> StoreError {
    let context = context.into();
    move |source| StoreError::Key {
        context,
        reason: source.to_string(),
    }
}

impl Signer {
    /// The public key, in OpenSSH format without a comment (`ssh-ed25519 AAAA…`);
    /// `None` for an OpenPGP or X.509 key, which signs commits but no SSH namespace.
    pub fn public_key(&self) -> Option<String> {
        match &self.0 {
            Key::Private(key) => Some(openssh(key.public_key())),
            Key::Keygen { public, .. } => Some(public.clone()),
            Key::Gpg { .. } => None,
        }
    }

    /// Signs `msg` in `namespace`; returns the armored signature. An OpenPGP or X.509
    /// key signs only commits (`namespace` [`COMMIT_NAMESPACE`]).
    pub fn sign(&self, namespace: &str, msg: &[u8]) -> Result<String, StoreError> {
        match &self.0 {
            Key::Private(key) => key
                .sign(namespace, HashAlg::Sha512, msg)
                .and_then(|sig| sig.to_pem(LineEnding::LF))
                .map_err(key_err("sign with the actor's key")),
            Key::Keygen {
                file, agent_only, ..
            } => {
                let mut args = vec!["-Y", "sign", "-n", namespace];
                if *agent_only {
                    args.push("-U");
                }
                let file = file.to_string_lossy();
                args.extend(["-f", &file]);
                signed_by("ssh-keygen", &args, msg, None)
            }
            Key::Gpg { program, key } if namespace == COMMIT_NAMESPACE => signed_by(
                program,
                &["--status-fd=2", "-bsau", key],
                msg,
                Some("\n[GNUPG:] SIG_CREATED "),
            ),
            Key::Gpg { program, .. } => Err(StoreError::Key {
                context: format!("sign in namespace {namespace} with {program}"),
                reason: "only an ssh key signs there".into(),
            }),
        }
    }
}

/// `key`, in OpenSSH format without a comment.
fn openssh(key: &PublicKey) -> String {
    PublicKey::new(key.key_data().clone(), "")
        .to_openssh()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A public key in OpenSSH format, normalized to its type and data (no comment), or
/// `None` when it does not parse.
pub fn normalize_public_key(text: &str) -> Option<String> {
    PublicKey::from_openssh(text.trim())
        .ok()
        .map(|k| openssh(&k))
}

/// The signature `program ARGS` prints for `msg` (given on stdin), as git runs
/// ssh-keygen, gpg and gpgsm; `status` is what stderr must hold when it signed (gpg's
/// status line: gpg may exit 0 without signing).
fn signed_by(
    program: &str,
    args: &[&str],
    msg: &[u8],
    status: Option<&str>,
) -> Result<String, StoreError> {
    use std::io::Write as _;
    let what = || format!("sign with {} {}", program, args.join(" "));
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(io_err(what()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(msg).map_err(io_err(what()))?;
    }
    let out = child.wait_with_output().map_err(io_err(what()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let created = status.is_none_or(|s| format!("\n{stderr}").contains(s));
    if !out.status.success() || !created || out.stdout.is_empty() {
        let reason = (stderr.lines())
            .filter(|l| !l.starts_with("[GNUPG:]") && !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        return Err(StoreError::Key {
            context: what(),
            reason: if reason.is_empty() {
                format!("it exited with {}", out.status)
            } else {
                reason
            },
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A signature checked against the message it signs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checked {
    /// No signature.
    Unsigned,
    /// A signature that does not parse, is in another namespace, or does not match the
    /// message; with why.
    Bad(String),
    /// A good signature by this key (OpenSSH format, no comment).
    Good(String),
    /// An OpenPGP or X.509 signature (named so), which gpg or gpgsm checks, through
    /// `git verify-commit`; not checked here.
    Foreign(&'static str),
}

/// Checks the armored signature `sig` over `msg` in `namespace`.
pub fn check_signature(namespace: &str, msg: &[u8], sig: &str) -> Checked {
    let sig = match SshSig::from_pem(sig.trim()) {
        Ok(sig) => sig,
        Err(e) => return Checked::Bad(format!("the signature does not parse: {e}")),
    };
    let key = PublicKey::new(sig.public_key().clone(), "");
    match key.verify(namespace, msg, &sig) {
        Ok(()) => Checked::Good(openssh(&key)),
        Err(e) => Checked::Bad(format!("the signature does not match: {e}")),
    }
}

/// A commit of the store split the way a verifier needs it.
#[derive(Clone, Debug)]
pub struct SignedCommit {
    /// Its id.
    pub id: ObjectId,
    /// Its tree.
    pub tree: ObjectId,
    /// Its parents, first parent first.
    pub parents: Vec<ObjectId>,
    /// The author's name.
    pub author: String,
    /// The author's email.
    pub email: String,
    /// When it was committed, in seconds since the epoch.
    pub time: i64,
    /// The message.
    pub message: String,
    /// What the signature says about the commit without it.
    pub signature: Checked,
}

impl Store {
    /// Where the private key of agent `name` lives (outside the store, mode 0600).
    pub fn agent_key_path(&self, name: &AgentName) -> PathBuf {
        self.local_dir()
            .join("keys")
            .join(format!("{}.key", name.as_str()))
    }

    /// Makes a new ed25519 key pair for agent `name`, in memory: it goes to disk with
    /// [`Store::save_agent_key`] once the store records its public half.
    pub fn new_agent_key(&self, name: &AgentName) -> Result<Signer, StoreError> {
        let mut key =
            PrivateKey::random(&mut ssh_key::rand_core::OsRng, ssh_key::Algorithm::Ed25519)
                .map_err(key_err(format!("make a key for {name}")))?;
        key.set_comment(name.as_str());
        Ok(Signer(Key::Private(Box::new(key))))
    }

    /// Writes agent `name`'s private key to [`Store::agent_key_path`], mode 0600,
    /// replacing the one there.
    pub fn save_agent_key(&self, name: &AgentName, key: &Signer) -> Result<(), StoreError> {
        use std::io::Write as _;
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        let Signer(Key::Private(key)) = key else {
            return Ok(());
        };
        let path = self.agent_key_path(name);
        let what = || format!("write {}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io_err(what()))?;
        }
        let text = key
            .to_openssh(LineEnding::LF)
            .map_err(key_err(format!("encode the key of {name}")))?;
        let temp = path.with_extension("key.new");
        let _ = std::fs::remove_file(&temp);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .map_err(io_err(what()))?;
        file.write_all(text.as_bytes()).map_err(io_err(what()))?;
        file.sync_all().map_err(io_err(what()))?;
        std::fs::rename(&temp, &path).map_err(io_err(what()))
    }

    /// The key `actor` signs store commits with, if it has one and signing is on
    /// (`beads.sign`, default true): an agent's key under the git dir, or the key git
    /// signs the person's commits with ([`Store::person_signer`]).
    pub fn signer_for(&self, actor: &Actor) -> Result<Option<Signer>, StoreError> {
        if self.git().config_bool(settings::SIGN) == Some(false) {
            return Ok(None);
        }
        match &actor.agent {
            Some(name) => {
                let path = self.agent_key_path(name);
                match std::fs::read(&path) {
                    Ok(bytes) => read_private_key(&path, &bytes).map(Some),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(io_err(format!("read {}", path.display()))(e)),
                }
            }
            None => self.person_signer(),
        }
    }

    /// The person's signing key, as git would sign their commits with it. With
    /// `gpg.format` ssh: `user.signingKey` as a path (a private key, or a public one
    /// whose private half lies beside it or is held by the ssh agent) or a literal
    /// `key::…` / `ssh-…` key the agent holds, else the first key
    /// `gpg.ssh.defaultKeyCommand` prints. With openpgp (git's default) or x509: gpg
    /// or gpgsm, with `user.signingKey` or the committer's identity, when git would
    /// sign commits (`commit.gpgSign`) or `beads.sign` is set to true.
    fn person_signer(&self) -> Result<Option<Signer>, StoreError> {
        let git = self.git();
        let key = git
            .config_string(settings::SIGNING_KEY)
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty());
        let asked = git.config_bool(settings::SIGN) == Some(true)
            || git.config_bool(settings::COMMIT_GPG_SIGN) == Some(true);
        let format = git.config_string(settings::GPG_FORMAT);
        match format.as_deref().map(str::trim) {
            Some("ssh") => {
                let key = match key {
                    Some(key) => key,
                    None => match git.config_string(settings::SSH_DEFAULT_KEY_COMMAND) {
                        Some(command) if asked => default_ssh_key(&command)?,
                        _ => return Ok(None),
                    },
                };
                self.ssh_signer(&key).map(Some)
            }
            None | Some("openpgp") | Some("x509") if asked => {
                let x509 = format.as_deref().map(str::trim) == Some("x509");
                let program = if x509 {
                    git.config_string(settings::GPG_X509_PROGRAM)
                        .unwrap_or_else(|| "gpgsm".into())
                } else {
                    (git.config_string(settings::GPG_OPENPGP_PROGRAM))
                        .or_else(|| git.config_string(settings::GPG_PROGRAM))
                        .unwrap_or_else(|| "gpg".into())
                };
                let key = match key {
                    Some(key) => key,
                    None => {
                        let me = self.identity()?;
                        format!("{} <{}>", me.name, me.email)
                    }
                };
                Ok(Some(Signer(Key::Gpg { program, key })))
            }
            None | Some("openpgp") | Some("x509") => Ok(None),
            Some(other) => Err(StoreError::Key {
                context: "sign the store's commits".into(),
                reason: format!("gpg.format {other:?} is not one git knows"),
            }),
        }
    }

    /// The signer of ssh key `key` as `user.signingKey` gives it: a literal key for
    /// the ssh agent, or a key file's path (`~/` expanded).
    fn ssh_signer(&self, key: &str) -> Result<Signer, StoreError> {
        if let Some(literal) = literal_ssh_key(key) {
            let public = normalize_public_key(literal).ok_or_else(|| StoreError::Key {
                context: "read user.signingKey".into(),
                reason: format!("{literal:?} is not a public key"),
            })?;
            let temp = TempKey::write(&self.local_dir(), &public)
                .map_err(io_err("write user.signingKey's public key for ssh-keygen"))?;
            return Ok(Signer(Key::Keygen {
                file: temp.0.clone(),
                public,
                agent_only: true,
                _temp: Some(temp),
            }));
        }
        let path = expand_home(key);
        let bytes = std::fs::read(&path).map_err(io_err(format!("read {}", path.display())))?;
        if let Ok(text) = std::str::from_utf8(&bytes)
            && let Some(public) = normalize_public_key(text)
        {
            return Ok(beside_public_key(&path, public));
        }
        read_private_key(&path, &bytes)
    }

    /// Writes commit `commit`, signed by `signer` when there is one and it signs; a
    /// signer that fails leaves the commit unsigned (see [`Store::or_unsigned`]).
    pub(super) fn write_signed(
        &self,
        mut commit: gix::objs::Commit,
        signer: Option<&Signer>,
    ) -> Result<ObjectId, StoreError> {
        if let Some(signer) = signer {
            use gix::objs::WriteTo as _;
            let mut payload = Vec::new();
            commit
                .write_to(&mut payload)
                .map_err(io_err("encode the store commit"))?;
            if let Some(sig) =
                self.or_unsigned(signer.sign(COMMIT_NAMESPACE, &payload).map(Some))?
            {
                commit
                    .extra_headers
                    .push((SIG_HEADER.into(), sig.trim_end().into()));
            }
        }
        Ok(self
            .repo
            .write_object(&commit)
            .map_err(git_err("write the store commit"))?
            .detach())
    }

    /// `found`, or nothing when it failed and signing is not required
    /// (`beads.requireSigned`): a write never fails because a key cannot be read or
    /// used. Why the first one failed is kept for [`unsigned_reason`].
    pub(crate) fn or_unsigned<T>(
        &self,
        found: Result<Option<T>, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        match found {
            Err(e) if self.git().config_bool(settings::REQUIRE_SIGNED) != Some(true) => {
                let _ = UNSIGNED.set(e.to_string());
                Ok(None)
            }
            found => found,
        }
    }

    /// The id of the blob at `path` in `tree`, if there is one.
    pub(crate) fn blob_at(
        &self,
        tree: ObjectId,
        path: &str,
    ) -> Result<Option<ObjectId>, StoreError> {
        Ok(self
            .entry_at(tree, path)?
            .filter(|(mode, _)| mode.is_blob())
            .map(|(_, id)| id))
    }

    /// Reads commit `id` and checks its signature over the rest of it.
    pub fn signed_commit(&self, id: ObjectId) -> Result<SignedCommit, StoreError> {
        let commit = self
            .repo
            .find_commit(id)
            .map_err(git_err(format!("read commit {id}")))?;
        let decoded = commit
            .decode()
            .map_err(git_err(format!("decode commit {id}")))?;
        let author = decoded
            .author()
            .map_err(git_err(format!("read the author of {id}")))?;
        let time = decoded
            .committer()
            .ok()
            .and_then(|c| c.time().ok())
            .map(|t| t.seconds)
            .unwrap_or_default();
        let signature = match split_signature(&commit.data) {
            None => Checked::Unsigned,
            Some((_, sig)) if sig.starts_with("-----BEGIN PGP SIGNATURE-----") => {
                Checked::Foreign("openpgp")
            }
            Some((_, sig)) if sig.starts_with("-----BEGIN SIGNED MESSAGE-----") => {
                Checked::Foreign("x509")
            }
            Some((payload, sig)) => check_signature(COMMIT_NAMESPACE, &payload, &sig),
        };
        Ok(SignedCommit {
            id,
            tree: decoded.tree(),
            parents: decoded.parents().collect(),
            author: author.name.to_str_lossy().into_owned(),
            email: author.email.to_str_lossy().into_owned(),
            time,
            message: decoded.message.to_str_lossy().into_owned(),
            signature,
        })
    }

    /// The commits reachable from `tip` that `hidden` does not reach, oldest first.
    pub fn commits_between(
        &self,
        tip: ObjectId,
        hidden: Option<ObjectId>,
    ) -> Result<Vec<ObjectId>, StoreError> {
        // gix's own hidden tips let commits of a long chain below them through, so
        // what `hidden` reaches is walked first and left out.
        let hidden: std::collections::HashSet<ObjectId> = match hidden {
            Some(h) => self.walk(h)?.into_iter().collect(),
            None => Default::default(),
        };
        let mut out: Vec<ObjectId> = self
            .walk(tip)?
            .into_iter()
            .filter(|id| !hidden.contains(id))
            .collect();
        out.reverse();
        Ok(out)
    }

    /// Every commit `tip` reaches, newest first.
    fn walk(&self, tip: ObjectId) -> Result<Vec<ObjectId>, StoreError> {
        let walk = self
            .repo
            .rev_walk([tip])
            .all()
            .map_err(git_err("walk the store's history"))?;
        let mut out = Vec::new();
        for info in walk {
            let info =
                info.map_err(|e| git_err("walk the store's history")(gix::Error::from_error(e)))?;
            out.push(info.id);
        }
        Ok(out)
    }

    /// The keys git trusts for people: `user.signingKey`'s public half under
    /// the person's email, and the entries of `gpg.ssh.allowedSignersFile`, as
    /// (principal, key) pairs.
    pub fn trusted_people(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut out = Vec::new();
        if let Some(key) = self
            .person_signer()
            .ok()
            .flatten()
            .and_then(|s| s.public_key())
            && let Ok(me) = self.identity()
        {
            out.push((me.email, key));
        }
        if let Some(file) = self.git().config_string(settings::ALLOWED_SIGNERS) {
            let path = expand_home(file.trim());
            let text = std::fs::read_to_string(&path)
                .map_err(io_err(format!("read {}", path.display())))?;
            out.extend(parse_allowed_signers(&text));
        }
        Ok(out)
    }
}

/// The (principal, key) pairs of an allowed-signers file, one per principal of a line
/// (options such as `namespaces="git"` skipped; lines that do not parse ignored).
fn parse_allowed_signers(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let Some(principals) = fields.next() else {
            continue;
        };
        let rest: Vec<&str> = fields.collect();
        // The key is the first field that starts a key type; options come before it.
        let Some(at) = rest
            .iter()
            .position(|f| f.starts_with("ssh-") || f.starts_with("ecdsa-") || f.starts_with("sk-"))
        else {
            continue;
        };
        let Some(key) = rest
            .get(at + 1)
            .and_then(|data| normalize_public_key(&format!("{} {data}", rest[at])))
        else {
            continue;
        };
        for p in principals.split(',') {
            out.push((p.trim_matches('"').to_owned(), key.clone()));
        }
    }
    out
}

/// Reads a private key file: an unencrypted ed25519 key signs in process; any other
/// (encrypted, with the agent holding it, another algorithm, or an older PEM file with
/// its `.pub` beside it) is left to `ssh-keygen`, as git leaves it.
fn read_private_key(path: &Path, bytes: &[u8]) -> Result<Signer, StoreError> {
    let keygen = |public: String| {
        Signer(Key::Keygen {
            file: path.to_owned(),
            public,
            agent_only: false,
            _temp: None,
        })
    };
    let key = match PrivateKey::from_openssh(bytes) {
        Ok(key) => key,
        Err(e) => {
            let beside = PathBuf::from(format!("{}.pub", path.display()));
            return match std::fs::read_to_string(&beside)
                .ok()
                .and_then(|text| normalize_public_key(&text))
            {
                Some(public) => Ok(keygen(public)),
                None => Err(key_err(format!("read {}", path.display()))(e)),
            };
        }
    };
    if key.is_encrypted() || key.algorithm() != ssh_key::Algorithm::Ed25519 {
        return Ok(keygen(openssh(key.public_key())));
    }
    Ok(Signer(Key::Private(Box::new(key))))
}

/// The signer of a public key file at `path`: its private half beside it (the path
/// without `.pub`, as ssh-keygen looks for it) signs in process when it is an
/// unencrypted ed25519 key of the same public key; otherwise `ssh-keygen` signs with
/// the file, through the ssh agent or that private half.
fn beside_public_key(path: &Path, public: String) -> Signer {
    let text = path.to_string_lossy();
    let private = (["-cert.pub", ".pub"].iter())
        .find_map(|suffix| text.strip_suffix(suffix))
        .map(PathBuf::from);
    if let Some(private) = private
        && let Ok(bytes) = std::fs::read(&private)
        && let Ok(Signer(Key::Private(key))) = read_private_key(&private, &bytes)
        && openssh(key.public_key()) == public
    {
        return Signer(Key::Private(key));
    }
    Signer(Key::Keygen {
        file: path.to_owned(),
        public,
        agent_only: false,
        _temp: None,
    })
}

/// The public key of a literal `user.signingKey` (`key::ssh-ed25519 AAAA…`, or one
/// that starts with `ssh-` as git still takes it); `None` for a path.
fn literal_ssh_key(key: &str) -> Option<&str> {
    key.strip_prefix("key::")
        .or_else(|| key.starts_with("ssh-").then_some(key))
}

/// The key `gpg.ssh.defaultKeyCommand` names: the first line it prints that is a
/// literal key, as git takes it.
fn default_ssh_key(command: &str) -> Result<String, StoreError> {
    let what = || format!("run gpg.ssh.defaultKeyCommand {command:?}");
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(io_err(what()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    (text.lines().map(str::trim))
        .find(|line| out.status.success() && literal_ssh_key(line).is_some())
        .map(str::to_owned)
        .ok_or_else(|| StoreError::Key {
            context: what(),
            reason: "it printed no ssh key".into(),
        })
}

/// `~/…` made absolute with `$HOME`, as git expands paths in its config.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// Splits a raw commit into the bytes its signature covers (the commit without the
/// `gpgsig` header, as git verifies it) and the armored signature.
fn split_signature(raw: &[u8]) -> Option<(Vec<u8>, String)> {
    let mut payload = Vec::with_capacity(raw.len());
    let mut sig: Option<Vec<u8>> = None;
    let mut in_sig = false;
    let mut rest = raw;
    while !rest.is_empty() {
        let end = rest.find_byte(b'\n').map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        if line == b"\n" {
            payload.extend_from_slice(line);
            payload.extend_from_slice(rest);
            break;
        }
        if in_sig && let Some(cont) = line.strip_prefix(b" ") {
            sig.get_or_insert_default().extend_from_slice(cont);
            continue;
        }
        in_sig = false;
        if sig.is_none()
            && let Some(value) = line
                .strip_prefix(SIG_HEADER)
                .and_then(|l| l.strip_prefix(b" "))
        {
            sig = Some(value.to_vec());
            in_sig = true;
            continue;
        }
        payload.extend_from_slice(line);
    }
    sig.map(|s| (payload, String::from_utf8_lossy(&s).into_owned()))
}

/// A public key written to a file of its own for `ssh-keygen -f`, removed on drop.
struct TempKey(PathBuf);

impl TempKey {
    /// Writes `public` to a new file under `dir`.
    fn write(dir: &Path, public: &str) -> std::io::Result<TempKey> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("signing-{}.pub", std::process::id()));
        std::fs::write(&path, format!("{public}\n"))?;
        Ok(TempKey(path))
    }
}

impl Drop for TempKey {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_header_is_cut_out_of_the_payload() {
        let raw = b"tree abc\nauthor a\ncommitter c\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NI\n -----END SSH SIGNATURE-----\n\nmessage\n\nbody\n";
        let (payload, sig) = split_signature(raw).expect("signed");
        assert_eq!(
            payload,
            b"tree abc\nauthor a\ncommitter c\n\nmessage\n\nbody\n".to_vec()
        );
        assert_eq!(
            sig,
            "-----BEGIN SSH SIGNATURE-----\nU1NI\n-----END SSH SIGNATURE-----\n"
        );
        assert!(split_signature(b"tree abc\n\nmsg\n").is_none());
    }

    #[test]
    fn signatures_check_against_their_message_and_namespace() {
        let (_dir, store) = Store::temp_for_tests();
        let name = AgentName::parse("bot").expect("a name");
        let key = store.new_agent_key(&name).expect("a key");
        let sig = key.sign("git", b"hello").expect("signs");
        assert_eq!(
            check_signature("git", b"hello", &sig),
            Checked::Good(key.public_key().expect("an ssh key"))
        );
        assert!(matches!(
            check_signature("git", b"hellp", &sig),
            Checked::Bad(_)
        ));
        assert!(matches!(
            check_signature("other", b"hello", &sig),
            Checked::Bad(_)
        ));
    }

    #[test]
    fn allowed_signers_lines_parse() {
        let name = AgentName::parse("bot").expect("a name");
        let (_dir, store) = Store::temp_for_tests();
        let key = store
            .new_agent_key(&name)
            .expect("a key")
            .public_key()
            .expect("an ssh key");
        let text = format!("# people\na@x,b@x namespaces=\"git\" {key} comment\n\nbad line\n");
        assert_eq!(
            parse_allowed_signers(&text),
            vec![("a@x".to_owned(), key.clone()), ("b@x".to_owned(), key)]
        );
    }
}
