//! The travelling index (issue 39): a sync that pushes, by someone whose key signs,
//! publishes the store's index beside it; a fresh clone that trusts the key (its
//! `gpg.ssh.allowedSignersFile`) starts from it instead of parsing every document,
//! and answers as an index built from the documents does. An index tampered with,
//! unsigned or signed by a key the clone does not trust is not taken.

use crate::common;

use std::path::{Path, PathBuf};

use common::tools::{sandbox_with_key, ssh_key};
use common::{Repo, Sandbox};

const FILES: &str = "refs/beads/index/files";

/// Has `repo`'s person sign with the private key at `key`.
fn signs_with(repo: &Repo, key: &Path) {
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().expect("utf-8")]);
}

/// Has `repo` trust the public half of `key` (as `who`) and no other.
fn trusts(repo: &Repo, sb: &Sandbox, who: &str, key: &Path) {
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    let file = sb.path().join(format!("allowed-{who}"));
    std::fs::write(&file, format!("{who}@example.com {public}")).expect("write");
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        file.to_str().expect("utf-8"),
    ]);
}

/// A remote whose store alice made: seven beads, one of them closed, synced (when
/// alice signs, the sync publishes the index of that state); `then` runs; then three
/// more beads, synced too, too few for the index there to be published again.
/// Returns the remote and alice's clone.
fn remote_ahead_of_its_index(
    sb: &Sandbox,
    alice_key: Option<&Path>,
    then: impl FnOnce(&Path),
) -> (PathBuf, Repo) {
    let (remote, alice) = sb.remote_with_code("alice");
    if let Some(key) = alice_key {
        signs_with(&alice, key);
    }
    alice.init();
    // Their descriptions go into the search text the index carries.
    let ids: Vec<String> = (0..7)
        .map(|k| {
            let description = format!("described {k}");
            alice.create(&format!("travelling work {k}"), &["-d", &description])
        })
        .collect();
    alice.beads(&["dep", "add", &ids[1], &ids[0]]);
    alice.beads(&["close", &ids[2]]);
    // A read after the last write: the sync publishes a fold of a delta that its
    // cache already holds at the head.
    alice.beads(&["ready"]);
    alice.sync();
    then(&remote);
    for k in 7..10 {
        alice.create(&format!("work since the index {k}"), &[]);
    }
    alice.sync();
    (remote, alice)
}

/// What bob's clone answers, read by read.
fn answers(bob: &Repo) -> Vec<String> {
    [
        &["--json", "ready"][..],
        &["--json", "list", "--all"],
        &["--json", "count"],
        &["--json", "blocked"],
        &["search", "travelling"],
        &["search", "described"],
    ]
    .iter()
    .map(|args| bob.beads(args))
    .collect()
}

/// Whether bob's index cache has changes laid over a table of an earlier state: so
/// it does only when it started from the travelling index (a table built from the
/// documents is built at the state they are in).
fn started_from_travelling_index(bob: &Repo) -> bool {
    std::fs::read_dir(bob.path.join(".git/beads"))
        .expect("the cache's folder")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with("-main-delta.bin"))
}

/// What bob's clone read: its first answers, whether it started from the travelling
/// index, its answers from an index built from the documents, and whether it still
/// tracks the remote's travelling index (dropped once taken, kept when not).
struct Read {
    first: Vec<String>,
    travelled: bool,
    rebuilt: Vec<String>,
    tracked: bool,
}

/// Bob's clone of `remote`, trusting alice's key, synced (its first fetch brings the
/// travelling index), and what it read.
fn bob_reads(sb: &Sandbox, remote: &Path, alice_key: &Path) -> Read {
    let bob = sb.clone(remote, "bob", "bob");
    trusts(&bob, sb, "alice", alice_key);
    bob.sync();
    let first = answers(&bob);
    let travelled = started_from_travelling_index(&bob);
    let tracked = !(sb.ref_names(&bob.path, "refs/beads/remotes/origin/index/files")).is_empty();
    std::fs::remove_dir_all(bob.path.join(".git/beads")).expect("drop the cache");
    let rebuilt = answers(&bob);
    Read {
        first,
        travelled,
        rebuilt,
        tracked,
    }
}

/// Asserts that bob did not take the travelling index `what`, though his fetch
/// brought it, and answered as from the documents.
fn not_taken(read: Read, what: &str) {
    assert!(read.tracked, "the first fetch brings the {what} index");
    assert!(!read.travelled, "a {what} index is not taken");
    assert_eq!(read.first, read.rebuilt, "{what}");
}

#[test]
fn a_fresh_clone_starts_from_the_signed_index_and_answers_as_a_rebuilt_one() {
    let Some((sb, key)) = sandbox_with_key("alice") else {
        return;
    };
    let (remote, alice) = remote_ahead_of_its_index(&sb, Some(&key), |_| {});
    // The index there describes the first sync's state, not the second's.
    let of = sb.git(&remote, &["rev-parse", "refs/beads/index/of"]);
    assert_ne!(of.trim(), alice.store_head());
    let raw = sb.git(&remote, &["cat-file", "commit", FILES]);
    assert!(
        raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"),
        "{raw}"
    );
    assert!(
        raw.contains(&format!("git-beads index of {}", of.trim())),
        "{raw}"
    );
    let read = bob_reads(&sb, &remote, &key);
    assert!(
        read.travelled,
        "bob's first read starts from the travelling index"
    );
    assert!(!read.tracked, "and drops the ref to it");
    assert_eq!(read.first, read.rebuilt);
    assert!(
        read.first[4].contains("travelling work 6"),
        "{}",
        read.first[4]
    );
    // Plain git finds nothing amiss where it was made, on the remote or where it was
    // taken (there, once the ref to it is dropped, git gc may take its objects).
    for dir in [&alice.path, &remote, &sb.path().join("bob")] {
        let said = sb.git(dir, &["fsck", "--no-dangling", "--no-progress"]);
        assert_eq!(said, "", "git fsck in {}", dir.display());
    }
}

#[test]
fn an_index_tampered_with_unsigned_or_signed_by_a_stranger_is_not_taken() {
    let Some((sb, key)) = sandbox_with_key("alice") else {
        return;
    };
    let (remote, _alice) = remote_ahead_of_its_index(&sb, Some(&key), |_| {});
    let genuine = sb.git(&remote, &["rev-parse", FILES]).trim().to_owned();
    let raw = sb.git(&remote, &["cat-file", "commit", &genuine]);
    let tree = sb.git(&remote, &["rev-parse", &format!("{genuine}^{{tree}}")]);
    let tree = tree.trim();
    let message = raw.split_once("\n\n").expect("a message").1;
    // The table with one byte changed, in a tree like the genuine one.
    let listing = sb.git(&remote, &["ls-tree", tree]);
    let table = sb.git(&remote, &["rev-parse", &format!("{tree}:table")]);
    let mut bytes = sb
        .run(&remote, "git", &["cat-file", "blob", table.trim()])
        .stdout;
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let altered = sb.plumb(
        "mallory",
        &remote,
        &["hash-object", "-w", "--stdin"],
        &bytes,
    );
    let altered_tree = sb.plumb(
        "mallory",
        &remote,
        &["mktree"],
        listing.replace(table.trim(), &altered).as_bytes(),
    );
    // The genuine commit, signature and all, naming the altered tree.
    let resigned = raw.replacen(&format!("tree {tree}"), &format!("tree {altered_tree}"), 1);
    let swapped = sb.plumb(
        "mallory",
        &remote,
        &["hash-object", "-t", "commit", "-w", "--stdin"],
        resigned.as_bytes(),
    );
    // The genuine tree and message, unsigned.
    let unsigned = sb.plumb(
        "mallory",
        &remote,
        &["commit-tree", tree, "-F", "-"],
        message.as_bytes(),
    );
    for (what, commit) in [("tampered", &swapped), ("unsigned", &unsigned)] {
        sb.plumb("mallory", &remote, &["update-ref", FILES, commit], b"");
        not_taken(bob_reads(&sb, &remote, &key), what);
        std::fs::remove_dir_all(sb.path().join("bob")).expect("drop bob's clone");
    }

    // Signed by a key bob does not trust: mallory, who cloned between alice's
    // syncs, publishes it (alice has no key).
    let Some((sb, key)) = sandbox_with_key("alice") else {
        return;
    };
    let mallory_key = ssh_key(&sb, "mallory");
    let (remote, _alice) = remote_ahead_of_its_index(&sb, None, |remote| {
        assert!(sb.ref_names(remote, FILES).is_empty(), "alice has no key");
        let mallory = sb.clone(remote, "mallory", "mallory");
        signs_with(&mallory, &mallory_key);
        mallory.sync();
        assert_eq!(
            sb.ref_names(remote, FILES),
            [FILES],
            "mallory's sync publishes"
        );
    });
    not_taken(bob_reads(&sb, &remote, &key), "stranger's");
}

#[test]
fn a_clone_that_took_the_index_publishes_the_next_once_it_has_fallen_behind() {
    let Some((sb, key)) = sandbox_with_key("alice") else {
        return;
    };
    let bob_key = ssh_key(&sb, "bob");
    let (remote, _alice) = remote_ahead_of_its_index(&sb, Some(&key), |_| {});
    let bob = sb.clone(&remote, "bob", "bob");
    trusts(&bob, &sb, "alice", &key);
    signs_with(&bob, &bob_key);
    bob.sync();
    assert!(started_from_travelling_index(&bob));
    // More beads than a delta holds before it is folded (256 at this size).
    let records: String = (0..300)
        .map(|k| {
            format!(
                "{{\"id\":\"bd-imp{k:03}\",\"title\":\"imported {k}\",\"status\":\"open\",\
                 \"priority\":2,\"issue_type\":\"task\",\"created_at\":\"2026-01-01T00:00:00Z\",\
                 \"updated_at\":\"2026-01-01T00:00:00Z\"}}\n"
            )
        })
        .collect();
    let file = sb.path().join("more.jsonl");
    std::fs::write(&file, records).expect("write");
    bob.beads(&["import", file.to_str().expect("utf-8")]);
    bob.sync();
    // Bob never fetched alice's index itself (he took it and dropped it), yet his
    // sync replaced it: the lease is on `index/of`, which every sync fetches.
    let of = sb.git(&remote, &["rev-parse", "refs/beads/index/of"]);
    assert_eq!(
        of.trim(),
        bob.store_head(),
        "bob published the index of his state"
    );
    let raw = sb.git(&remote, &["cat-file", "commit", FILES]);
    assert!(
        raw.contains(&format!("git-beads index of {}", bob.store_head())),
        "{raw}"
    );
    assert!(raw.contains("Beads-Actor"), "{raw}");
}
