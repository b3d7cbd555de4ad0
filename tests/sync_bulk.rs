//! Syncing many beads changed on both sides: the documents merge on several threads
//! and every field change from both clones arrives, whichever clone merges; and a
//! command configured to serve a local remote (`remote.<name>.uploadpack`) is still
//! the one that serves it.

use crate::common;

use serde_json::{Value, json};

use common::{Sandbox, write_script};

/// `n` bd records, all updated at `updated`, with `edit` applied to each.
fn records(n: usize, updated: &str, edit: impl Fn(usize, &mut Value)) -> String {
    (0..n)
        .map(|k| {
            let mut r = json!({
                "id": format!("bd-m{k}"),
                "title": format!("Merged bead {k}"),
                "description": "one\ntwo\nthree\n",
                "status": "open",
                "priority": 2,
                "issue_type": "task",
                "created_at": "2025-01-01T00:00:00Z",
                "created_by": "gen",
                "updated_at": updated,
                "labels": ["base"],
            });
            edit(k, &mut r);
            r.to_string() + "\n"
        })
        .collect()
}

const BEADS: usize = 400;

#[test]
fn hundreds_of_beads_changed_on_both_sides_merge_field_by_field() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    let import = |repo: &common::Repo, name: &str, text: String| {
        let file = sb.path().join(name);
        std::fs::write(&file, text).expect("write");
        repo.beads(&["import", "-q", file.to_str().expect("utf-8")]);
    };
    import(
        &c1,
        "base.jsonl",
        records(BEADS, "2025-01-02T00:00:00Z", |_, _| {}),
    );
    c1.sync();
    let c2 = sb.synced_clone(&remote, "c2", "bob");
    import(
        &c1,
        "notes.jsonl",
        records(BEADS, "2025-01-03T00:00:00Z", |k, r| {
            r["notes"] = json!(format!("notes from c1 on {k}\n"));
        }),
    );
    import(
        &c2,
        "labels.jsonl",
        records(BEADS, "2025-01-04T00:00:00Z", |k, r| {
            r["labels"] = json!(["base", format!("c2-{}", k % 3)]);
            r["description"] = json!("one\ntwo\nthree\nfour from c2\n");
        }),
    );
    c1.sync();
    let merged = c2.sync();
    assert_eq!(merged["outcome"], "merged", "{merged}");
    assert_eq!(merged["merged"], BEADS, "{merged}");
    assert_eq!(merged["conflicts"], 0, "{merged}");
    assert_eq!(merged["kept"], json!([]), "{merged}");
    c1.sync();
    assert_eq!(c1.store_head(), c2.store_head());
    for k in [0, 1, BEADS / 2, BEADS - 1] {
        let bead = c1.bead_json(&format!("bd-m{k}"));
        assert_eq!(bead["notes"], format!("notes from c1 on {k}\n"), "{bead}");
        assert_eq!(
            bead["labels"],
            json!(["base", format!("c2-{}", k % 3)]),
            "{bead}"
        );
        assert_eq!(bead["description"], "one\ntwo\nthree\nfour from c2\n");
    }
    c1.git(&["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn a_configured_upload_command_serves_a_local_remote() {
    let sb = Sandbox::new();
    let (remote, c1) = sb.remote_with_store("c1");
    c1.create("From c1", &[]);
    c1.sync();
    let c2 = sb.clone(&remote, "c2", "bob");
    let log = sb.path().join("upload.log");
    let script = sb.path().join("upload-pack");
    write_script(
        &script,
        &format!(
            "#!/bin/sh\necho served >> '{}'\nexec git-upload-pack \"$@\"\n",
            log.display()
        ),
    );
    c2.git(&[
        "config",
        "remote.origin.uploadpack",
        script.to_str().expect("utf-8"),
    ]);
    let v = c2.sync();
    assert_eq!(v["outcome"], "adopted", "{v}");
    let served = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(served.contains("served"), "the configured command ran");
}
