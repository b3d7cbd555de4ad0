//! Claims confirmed by a remote: a claim ref per bead on the remote, created only
//! where it does not exist, so two machines never both win one bead.

use crate::common;

use common::*;
use serde_json::Value;

/// The claim refs the remote holds.
fn claim_refs(remote: &std::path::Path, sb: &Sandbox) -> Vec<String> {
    sb.ref_names(remote, "refs/beads/claims/")
}

/// A clone `c1` of a new remote, its claim remote, and beads of `titles` it created,
/// synced and claimed there.
fn claimed_on_remote<const N: usize>(
    sb: &Sandbox,
    titles: [&str; N],
) -> (std::path::PathBuf, Repo, [String; N]) {
    let (remote, c1) = sb.remote_with_store("c1");
    c1.git(&["config", "beads.claimRemote", "origin"]);
    let beads = titles.map(|t| c1.create(t, &[]));
    c1.sync();
    for id in &beads {
        c1.beads(&["update", id, "--claim"]);
    }
    (remote, c1, beads)
}

/// The bead a `show --json` document holds (the one place this file reads its shape).
fn shown(doc: &Value) -> &Value {
    &doc[0]
}

#[test]
fn the_remote_decides_who_wins_and_the_loser_sees_the_winner() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("one job", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    let said = |out: std::process::Output| {
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let told = said(c1.beads_output(&["update", &id, "--claim", "--remote", "origin"]));
    assert!(told.contains(&format!("claimed {id}: one job")), "{told}");
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{id}")]
    );
    // bob has not synced: his store still shows the bead open.
    let (code, err) = c2.beads_fail(&["update", &id, "--claim", "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("alice"), "{err}");
    let bead = c2.beads_json(&["show", &id]);
    assert_eq!(shown(&bead)["assignee"], "alice");
    assert_eq!(shown(&bead)["status"], "in_progress");
    // The same claimer claiming again is told it holds it.
    let told = said(c1.beads_output(&["update", &id, "--claim", "--remote", "origin"]));
    assert!(told.contains("already claimed by alice"), "{told}");
}

#[test]
fn ready_claim_moves_on_to_the_next_bead_it_can_win() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let a = c1.create("a", &[]);
    let b = c1.create("b", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    for c in [&c1, &c2] {
        c.git(&["config", "beads.claimRemote", "origin"]);
    }
    let first = c1.beads(&["ready", "--claim"]).trim().to_owned();
    let second = c2.beads(&["ready", "--claim"]).trim().to_owned();
    assert_ne!(first, second);
    let mut both = vec![first, second];
    both.sort();
    let mut made = vec![a, b];
    made.sort();
    assert_eq!(both, made);
    assert_eq!(claim_refs(&remote, &sb).len(), 2);
    // Nothing is left: the third claimer gets nothing, and says so.
    let c3 = sb.synced_clone(&remote, "c3", "carol");
    c3.git(&["config", "beads.claimRemote", "origin"]);
    let out = c3.beads_output(&["ready", "--claim"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), "");
}

#[test]
fn an_unreachable_remote_claims_nothing_and_offline_claims_here() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("one job", &[]);
    c1.sync();
    c1.git(&[
        "remote",
        "add",
        "gone",
        sb.path().join("nowhere.git").to_str().expect("utf-8"),
    ]);
    c1.git(&["config", "beads.claimRemote", "gone"]);
    let (code, err) = c1.beads_fail(&["update", &id, "--claim"]);
    assert_eq!(code, 4, "{err}");
    assert_eq!(shown(&c1.beads_json(&["show", &id]))["status"], "open");
    let (code, _) = c1.beads_fail(&["ready", "--claim"]);
    assert_eq!(code, 4);
    let out = c1.beads_output(&["update", &id, "--claim", "--offline"]);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another machine may claim it too"), "{err}");
    assert_eq!(shown(&c1.beads_json(&["show", &id]))["assignee"], "alice");
    assert!(claim_refs(&remote, &sb).is_empty());
    // Where a claim is confirmed means nothing without a claim.
    let (code, _) = c1.beads_fail(&["ready", "--remote", "origin"]);
    assert_eq!(code, 2);
    let (code, _) = c1.beads_fail(&["update", &id, "--title", "x", "--offline"]);
    assert_eq!(code, 2);
}

#[test]
fn claim_refs_go_once_the_bead_is_finished_and_plain_git_leaves_them_alone() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("one job", &[]);
    let other = c1.create("another", &[]);
    c1.sync();
    c1.beads(&["update", &id, "--claim", "--remote", "origin"]);
    c1.beads(&["update", &other, "--claim", "--remote", "origin"]);
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.git(&["fetch", "-q", "origin"]);
    assert_eq!(
        tracked_claims(&sb, &c2).len(),
        2,
        "sync tracks the claims in flight"
    );
    assert!(!c2.git(&["branch", "-a"]).contains("claims"));
    c1.beads(&["close", &id]);
    // Whoever syncs next with the close in its store deletes the claim ref.
    c1.sync();
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{other}")]
    );
    c2.sync();
    assert_eq!(tracked_claims(&sb, &c2), std::slice::from_ref(&other));
}

#[test]
fn sling_with_a_remote_claims_for_the_agent() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("one job", &[]);
    c1.beads(&["agent", "create", "nux"]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c2.beads(&["agent", "create", "rex"]);
    c1.beads(&["sling", &id, "nux", "--remote", "origin"]);
    let (code, err) = c2.beads_fail(&["sling", &id, "rex", "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(shown(&c2.beads_json(&["show", &id]))["assignee"], "nux");
}

/// The claim race and the cleanup over a path, a `file://` URL and `git daemon`
/// (git://). ssh is not tried: the test cannot start an sshd of its own here.
#[test]
fn claims_hold_over_every_transport() {
    let sb = Sandbox::new();
    let daemon = if git_daemon_available() {
        start_daemon(&sb)
    } else {
        None
    };
    let mut urls = vec![
        ("path", sb.path().join("p.git").display().to_string()),
        (
            "file",
            format!("file://{}", sb.path().join("f.git").display()),
        ),
    ];
    match &daemon {
        Some(d) => urls.push(("git", format!("git://127.0.0.1:{}/g.git", d.port))),
        None => skip_or_fail("`git daemon` cannot run here: git:// claims not tried"),
    }
    for (kind, url) in urls {
        let bare = sb.bare(&format!("{}.git", &kind[..1]));
        let c1 = sb.repo(&format!("{kind}-1"), "alice");
        c1.git(&["remote", "add", "origin", &url]);
        c1.git(&["push", "-q", "origin", "HEAD:main"]);
        c1.init();
        let id = c1.create("over the wire", &[]);
        c1.sync();
        let c2 = sb.clone(std::path::Path::new(&url), &format!("{kind}-2"), "bob");
        c2.beads(&["init"]);
        c1.beads(&["update", &id, "--claim", "--remote", "origin"]);
        let (code, err) = c2.beads_fail(&["update", &id, "--claim", "--remote", "origin"]);
        assert_eq!(code, 3, "{kind}: {err}");
        assert_eq!(
            shown(&c2.beads_json(&["show", &id]))["assignee"],
            "alice",
            "{kind}"
        );
        c1.beads(&["close", &id]);
        c1.sync();
        assert!(claim_refs(&bare, &sb).is_empty(), "{kind}");
    }
}

#[test]
fn closing_or_releasing_deletes_the_claim_ref_at_once_or_offline_at_the_next_sync() {
    let sb = Sandbox::new();
    let (remote, c1, beads) = claimed_on_remote(&sb, ["one job", "another", "a third"]);
    let [done, given_back, offline] = beads;
    assert_eq!(claim_refs(&remote, &sb).len(), 3);
    c1.beads(&["close", &done]);
    c1.beads(&["release", &given_back]);
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{offline}")],
        "no sync needed"
    );
    // The remote holds both: a clone that only fetches sees them.
    let c2 = sb.clone(&remote, "c2", "bob");
    c2.beads(&["init"]);
    assert_eq!(shown(&c2.beads_json(&["show", &done]))["status"], "closed");
    assert_eq!(
        shown(&c2.beads_json(&["show", &given_back]))["status"],
        "open"
    );
    // Offline: the close happens here only, and says so; the next sync deletes the ref.
    let out = c1.beads_output(&["close", &offline, "--offline"]);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("offline: only this machine knows"), "{err}");
    assert_eq!(claim_refs(&remote, &sb).len(), 1);
    c1.sync();
    assert_eq!(claim_refs(&remote, &sb), Vec::<String>::new());
}

/// A close or release that must be confirmed by a remote that cannot be reached
/// changes nothing, locally or there.
#[test]
fn an_unreachable_remote_closes_and_releases_nothing() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let closing = c1.create("to close", &[]);
    let releasing = c1.create("to give back", &[]);
    c1.sync();
    for id in [&closing, &releasing] {
        c1.beads(&["update", id, "--claim", "--remote", "origin"]);
    }
    let head = c1.git(&["rev-parse", "refs/beads/main"]);
    let url = c1.git(&["remote", "get-url", "origin"]);
    c1.git(&["remote", "set-url", "origin", "/nonexistent/remote.git"]);
    let (code, err) = c1.beads_fail(&["close", &closing, "--remote", "origin"]);
    assert_eq!(code, 4, "{err}");
    c1.git(&["config", "beads.claimRemote", "origin"]);
    let (code, err) = c1.beads_fail(&["release", &releasing]);
    assert_eq!(code, 4, "{err}");
    let (code, err) = c1.beads_fail(&["close", &closing]);
    assert_eq!(code, 4, "{err}");
    assert_eq!(c1.git(&["rev-parse", "refs/beads/main"]), head);
    for id in [&closing, &releasing] {
        assert_eq!(
            shown(&c1.beads_json(&["show", id]))["status"],
            "in_progress"
        );
    }
    c1.git(&["remote", "set-url", "origin", url.trim()]);
    assert_eq!(claim_refs(&remote, &sb).len(), 2);
    // Reachable again, the same commands go through.
    c1.beads(&["close", &closing]);
    c1.beads(&["release", &releasing, "--remote", "origin"]);
    assert_eq!(claim_refs(&remote, &sb), Vec::<String>::new());
}

/// A release confirmed by the remote first takes in what the remote holds: a claim
/// this clone never saw is released from its holder, and a bead finished there is
/// not reopened.
#[test]
fn a_remote_release_sees_the_remote_holder_and_refuses_a_bead_finished_there() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let taken = c1.create("taken elsewhere", &[]);
    let finished = c1.create("finished elsewhere", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c1.beads(&["update", &finished, "--claim", "--remote", "origin"]);
    c2.sync();
    c1.beads(&["update", &taken, "--claim", "--remote", "origin"]);
    c1.beads(&["close", &finished, "--remote", "origin"]);
    // bob has heard neither of the claim of `taken` nor of the close of `finished`.
    assert_eq!(shown(&c2.beads_json(&["show", &taken]))["status"], "open");
    c2.beads(&["release", &taken, "--remote", "origin", "-r", "stuck"]);
    let bead = shown(&c2.beads_json(&["show", &taken])).clone();
    assert_eq!(bead["status"], "open");
    let comments = bead["comments"].to_string();
    assert!(
        comments.contains("released from alice by bob: stuck"),
        "{comments}"
    );
    let (code, err) = c2.beads_fail(&["release", &finished, "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(
        shown(&c2.beads_json(&["show", &finished]))["status"],
        "closed"
    );
    assert_eq!(claim_refs(&remote, &sb), Vec::<String>::new());
    c1.sync();
    assert_eq!(shown(&c1.beads_json(&["show", &taken]))["status"], "open");
    assert_eq!(
        shown(&c1.beads_json(&["show", &finished]))["status"],
        "closed"
    );
}

/// A clone that has not heard of a close creates the claim ref the close deleted;
/// it then finds the bead closed on the remote, deletes its ref again and fails.
#[test]
fn a_claim_ref_deleted_by_a_close_does_not_hand_out_the_closed_bead() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    c1.git(&["config", "beads.claimRemote", "origin"]);
    let id = c1.create("one job", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c1.beads(&["update", &id, "--claim"]);
    c1.beads(&["close", &id]);
    assert_eq!(claim_refs(&remote, &sb), Vec::<String>::new());
    let (code, err) = c2.beads_fail(&["update", &id, "--claim", "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(claim_refs(&remote, &sb), Vec::<String>::new());
    let bead = c2.beads_json(&["show", &id]);
    assert_eq!(shown(&bead)["status"], "closed");
    // A released bead is free again for whoever claims it next.
    let next = c1.create("next job", &[]);
    c1.sync();
    c2.sync();
    c1.beads(&["update", &next, "--claim"]);
    c1.beads(&["release", &next]);
    c2.beads(&["update", &next, "--claim", "--remote", "origin"]);
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{next}")]
    );
    let bead = c2.beads_json(&["show", &next]);
    assert_eq!(shown(&bead)["assignee"], "bob");
}

/// What a sync learned of the claims it checked is kept for the next one, and each
/// claim is still judged by its bead as it is now: a comment leaves it held, a close
/// offline or a reassignment on another machine finishes it.
#[test]
fn syncs_that_remember_claims_see_every_change_of_their_beads() {
    let sb = Sandbox::new();
    let titles = ["commented", "closed offline", "taken over elsewhere"];
    let (remote, c1, [commented, closed, taken]) = claimed_on_remote(&sb, titles);
    // The second sync answers from what the first kept.
    c1.sync();
    c1.sync();
    assert_eq!(claim_refs(&remote, &sb).len(), 3);
    c1.beads(&["comment", &commented, "still on it"]);
    c1.beads(&["close", &closed, "--offline"]);
    let c2 = sb.clone(&remote, "c2", "bob");
    c2.beads(&["init"]);
    c2.beads(&["update", &taken, "--assignee", "bob"]);
    c2.sync();
    c1.sync();
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{commented}")]
    );
    assert_eq!(shown(&c1.beads_json(&["show", &taken]))["assignee"], "bob");
}

/// The beads whose claim refs a clone tracks of remote `origin`.
fn tracked_claims(sb: &Sandbox, repo: &Repo) -> Vec<String> {
    const TRACKED: &str = "refs/beads/remotes/origin/claims/";
    (sb.ref_names(&repo.path, TRACKED).iter())
        .filter_map(|name| name.strip_prefix(TRACKED).map(str::to_owned))
        .collect()
}

/// A sync lists the remote's claim refs only when the remote's store moved since its
/// last fetch (a thousand claims held across a fleet made every idle sync twice as
/// long): a claim made while the store stood still shows once it moves, and a claim
/// of this clone still asks the remote itself, so the remote decides as before.
#[test]
fn an_idle_sync_leaves_the_claims_and_a_moved_store_brings_them() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let id = c1.create("one job", &[]);
    let other = c1.create("another", &[]);
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    c1.beads(&["update", &id, "--claim", "--remote", "origin"]);
    c2.sync();
    assert_eq!(
        tracked_claims(&sb, &c2),
        Vec::<String>::new(),
        "an idle sync"
    );
    // Trying it asks the remote, which holds c1's claim.
    let (code, err) = c2.beads_fail(&["update", &id, "--claim", "--remote", "origin"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(tracked_claims(&sb, &c2), std::slice::from_ref(&id));
    // Once the remote's store moves, a sync lists the claims again, pruning the gone.
    c1.beads(&["update", &other, "--claim", "--remote", "origin"]);
    c1.beads(&["close", &id]);
    c1.sync();
    c2.sync();
    assert_eq!(tracked_claims(&sb, &c2), std::slice::from_ref(&other));
    assert_eq!(
        claim_refs(&remote, &sb),
        [format!("refs/beads/claims/{other}")]
    );
}
