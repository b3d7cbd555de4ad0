//! The ssh transport: an sshd of its own on localhost (a throwaway host key and
//! authorized key in the sandbox, a free port), and sync and a remote-confirmed
//! claim over `ssh://`. Skipped with a note on stderr where no sshd can start;
//! with `CI=true` that fails instead.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use common::*;

/// Where Debian's openssh-server puts the daemon.
const SSHD: &str = "/usr/sbin/sshd";

/// A running sshd, killed when dropped.
struct Sshd {
    child: Child,
    /// The port it listens on.
    port: u16,
    /// The `ssh` command line that reaches it (a key of the sandbox, no user config).
    ssh: String,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes a key pair at `path` (and `path`.pub).
fn keygen(path: &Path) -> Result<(), String> {
    let out = tool("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(path)
        .output()
        .map_err(|e| format!("ssh-keygen: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "ssh-keygen: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Starts an sshd serving the sandbox's user on a free port of 127.0.0.1, or says
/// why it cannot.
fn start_sshd(sb: &Sandbox) -> Result<Sshd, String> {
    if !Path::new(SSHD).exists() {
        return Err(format!("{SSHD} is not installed (openssh-server)"));
    }
    let dir: PathBuf = sb.path().join("sshd");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (host, client) = (dir.join("host_key"), dir.join("id"));
    keygen(&host)?;
    keygen(&client)?;
    let public =
        std::fs::read_to_string(client.with_extension("pub")).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("authorized_keys"), public).map_err(|e| e.to_string())?;
    let user = String::from_utf8_lossy(
        &tool("id")
            .arg("-un")
            .output()
            .map_err(|e| e.to_string())?
            .stdout,
    )
    .trim()
    .to_owned();
    let mut last = String::new();
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| e.to_string())?;
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {host}\nPidFile {pid}\n\
                 AuthorizedKeysFile {keys}\nStrictModes no\nPubkeyAuthentication yes\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\nAllowUsers {user}\n",
                host = host.display(),
                pid = dir.join("sshd.pid").display(),
                keys = dir.join("authorized_keys").display(),
            ),
        )
        .map_err(|e| e.to_string())?;
        let log = dir.join("sshd.log");
        let mut child = tool(SSHD)
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{SSHD}: {e}"))?;
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                let ssh = format!(
                    "ssh -F /dev/null -i {id} -o IdentitiesOnly=yes -o BatchMode=yes \
                     -o StrictHostKeyChecking=no -o UserKnownHostsFile={known} -o LogLevel=ERROR",
                    id = client.display(),
                    known = dir.join("known_hosts").display(),
                );
                return Ok(Sshd { child, port, ssh });
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        last = std::fs::read_to_string(&log).unwrap_or_default();
    }
    Err(format!("sshd did not start: {}", last.trim()))
}

/// A repository at `name` (identity `user`) whose `origin` is `url`, reached with
/// the sandbox's ssh command.
fn repo_on(sb: &Sandbox, name: &str, user: &str, url: &str, sshd: &Sshd) -> Repo {
    let repo = sb.repo(name, user);
    repo.git(&["config", "core.sshCommand", &sshd.ssh]);
    repo.git(&["remote", "add", "origin", url]);
    repo
}

#[test]
fn sync_and_claims_over_ssh() {
    let sb = Sandbox::new();
    let sshd = match start_sshd(&sb) {
        Ok(d) => d,
        Err(why) => {
            skip_or_fail(&format!("no sshd on localhost ({why}): ssh:// not tried"));
            return;
        }
    };
    let bare = sb.bare("s.git");
    let url = format!("ssh://127.0.0.1:{}{}", sshd.port, bare.display());
    let c1 = repo_on(&sb, "ssh-1", "alice", &url, &sshd);
    c1.git(&["push", "-q", "origin", "HEAD:main"]);
    c1.init();
    let id = c1.create("over ssh", &[]);
    let report = c1.sync();
    assert_eq!(report["pushed"], true, "{report}");

    let c2 = repo_on(&sb, "ssh-2", "bob", &url, &sshd);
    c2.beads(&["init"]);
    assert_eq!(c2.bead_json(&id)["title"], "over ssh");
    c1.beads(&["update", &id, "--claim", "--remote", "origin"]);
    let (code, err) = c2.beads_fail(&["update", &id, "--claim", "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(c2.bead_json(&id)["assignee"], "alice");
    c1.beads(&["close", &id]);
    c1.sync();
    c2.sync();
    assert_eq!(c2.bead_json(&id)["status"], "closed");
    let claims = sb.git(
        &bare,
        &["for-each-ref", "--format=%(refname)", "refs/beads/claims/"],
    );
    assert_eq!(claims, "", "the claim ref went with the close");
}
