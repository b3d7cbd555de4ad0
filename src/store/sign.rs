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

/// The header of a commit that holds its signature.
const SIG_HEADER: &[u8] = b"gpgsig";

/// A key that can sign: a private key in process, or one held by the ssh agent,
/// signed with through `ssh-keygen -Y sign` (as git does).
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
        /// A temporary file holding a literal `key::` public key, removed on drop.
        _temp: Option<TempKey>,
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
    /// The public key, in OpenSSH format without a comment (`ssh-ed25519 AAAA…`).
    pub fn public_key(&self) -> String {
        match &self.0 {
            Key::Private(key) => openssh(key.public_key()),
            Key::Keygen { public, .. } => public.clone(),
        }
    }

    /// Signs `msg` in `namespace`; returns the armored signature.
    pub fn sign(&self, namespace: &str, msg: &[u8]) -> Result<String, StoreError> {
        match &self.0 {
            Key::Private(key) => key
                .sign(namespace, HashAlg::Sha512, msg)
                .and_then(|sig| sig.to_pem(LineEnding::LF))
                .map_err(key_err("sign with the actor's key")),
            Key::Keygen { file, .. } => keygen_sign(file, namespace, msg),
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

/// Signs through `ssh-keygen -Y sign -n NAMESPACE -f FILE`, the message on stdin.
fn keygen_sign(file: &Path, namespace: &str, msg: &[u8]) -> Result<String, StoreError> {
    use std::io::Write as _;
    let what = || format!("sign with {} through ssh-keygen", file.display());
    let mut child = std::process::Command::new("ssh-keygen")
        .args(["-Y", "sign", "-n", namespace, "-f"])
        .arg(file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(io_err(what()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(msg).map_err(io_err(what()))?;
    }
    let out = child.wait_with_output().map_err(io_err(what()))?;
    if !out.status.success() {
        return Err(StoreError::Key {
            context: what(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
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
    /// (`beads.sign`, default true): an agent's key under the git dir, or a person's
    /// `user.signingKey` when `gpg.format` is `ssh`.
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

    /// The person's signing key, as git would use it for `commit -S`.
    fn person_signer(&self) -> Result<Option<Signer>, StoreError> {
        if self.git().config_string(settings::GPG_FORMAT).as_deref() != Some("ssh") {
            return Ok(None);
        }
        let Some(key) = self.git().config_string(settings::SIGNING_KEY) else {
            return Ok(None);
        };
        let key = key.trim();
        if let Some(literal) = key
            .strip_prefix("key::")
            .or_else(|| (key.starts_with("ssh-") || key.starts_with("ecdsa-")).then_some(key))
        {
            let public = normalize_public_key(literal).ok_or_else(|| StoreError::Key {
                context: "read user.signingKey".into(),
                reason: format!("{literal:?} is not a public key"),
            })?;
            let temp = TempKey::write(&self.local_dir(), &public)
                .map_err(io_err("write user.signingKey's public key for ssh-keygen"))?;
            return Ok(Some(Signer(Key::Keygen {
                file: temp.0.clone(),
                public,
                _temp: Some(temp),
            })));
        }
        let path = expand_home(key);
        let bytes = std::fs::read(&path).map_err(io_err(format!("read {}", path.display())))?;
        read_private_key(&path, &bytes).map(Some)
    }

    /// Writes commit `commit`, signed by `signer` when there is one.
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
            let sig = signer.sign(COMMIT_NAMESPACE, &payload)?;
            commit
                .extra_headers
                .push((SIG_HEADER.into(), sig.trim_end().into()));
        }
        Ok(self
            .repo
            .write_object(&commit)
            .map_err(git_err("write the store commit"))?
            .detach())
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
        if let Some(signer) = self.person_signer().ok().flatten()
            && let Ok(me) = self.identity()
        {
            out.push((me.email, signer.public_key()));
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

/// Reads a private key file; an encrypted one is left to `ssh-keygen` (and the ssh
/// agent holding it).
fn read_private_key(path: &Path, bytes: &[u8]) -> Result<Signer, StoreError> {
    let key =
        PrivateKey::from_openssh(bytes).map_err(key_err(format!("read {}", path.display())))?;
    if key.is_encrypted() {
        return Ok(Signer(Key::Keygen {
            file: path.to_owned(),
            public: openssh(key.public_key()),
            _temp: None,
        }));
    }
    Ok(Signer(Key::Private(Box::new(key))))
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
            Checked::Good(key.public_key())
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
        let key = store.new_agent_key(&name).expect("a key").public_key();
        let text = format!("# people\na@x,b@x namespaces=\"git\" {key} comment\n\nbad line\n");
        assert_eq!(
            parse_allowed_signers(&text),
            vec![("a@x".to_owned(), key.clone()), ("b@x".to_owned(), key)]
        );
    }
}
