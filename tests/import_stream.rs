//! Imports read as a stream and written as they are read: a large generated bd
//! export imported in one go gives the same store as the same records imported in
//! parts and as its own export imported again; re-importing changes nothing; a bad
//! line or a repeated id imports nothing and leaves no pack or temporary file behind;
//! stdin works like a file.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use common::{Repo, Sandbox};

/// `n` bd records with every kind of field: multi-line and non-ASCII text, labels,
/// dependencies on earlier records, comments, tombstones, unknown fields.
fn generated(n: usize) -> Vec<String> {
    let statuses = ["open", "in_progress", "blocked", "closed", "tombstone"];
    let kinds = ["task", "bug", "feature", "epic", "chore"];
    (0..n)
        .map(|k| {
            let status = statuses[k % statuses.len()];
            let mut r = json!({
                "id": format!("bd-g{k}"),
                "title": format!("Generated bead {k}: «ünïcödé» & \"quotes\""),
                "description": format!("Line one of {k}.\nLine two: key: value\n\n- not a list\n"),
                "status": status,
                "priority": k % 5,
                "issue_type": kinds[k % kinds.len()],
                "created_at": "2025-01-01T00:00:00Z",
                "created_by": "gen",
                "updated_at": format!("2025-01-02T00:00:{:02}Z", k % 60),
                "labels": [format!("area-{}", k % 7), "generated"],
                "external_ref": format!("gh-{k}"),
            });
            if k > 0 {
                r["dependencies"] = json!([{
                    "issue_id": format!("bd-g{k}"),
                    "depends_on_id": format!("bd-g{}", k / 2),
                    "type": if k % 3 == 0 { "parent-child" } else { "blocks" },
                    "created_at": "2025-01-01T00:00:00Z",
                    "created_by": "gen",
                }]);
            }
            if k % 4 == 0 {
                r["comments"] = json!([{
                    "id": k, "issue_id": format!("bd-g{k}"), "author": "gen",
                    "text": format!("comment on {k}"), "created_at": "2025-01-01T00:05:00Z",
                }]);
            }
            match status {
                "closed" => {
                    r["closed_at"] = json!("2025-01-03T00:00:00Z");
                    r["close_reason"] = json!("done");
                }
                "tombstone" => {
                    r["deleted_at"] = json!("2025-01-03T00:00:00Z");
                    r["deleted_by"] = json!("gen");
                    r["delete_reason"] = json!("gone");
                    r["original_type"] = json!("task");
                }
                _ => {}
            }
            r.to_string()
        })
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) -> PathBuf {
    std::fs::write(path, lines.join("\n") + "\n").expect("write");
    path.to_owned()
}

fn tree_of(repo: &Repo, what: &str) -> String {
    repo.git(&["rev-parse", &format!("refs/beads/main:{what}")])
        .trim()
        .to_owned()
}

/// The files of the repository's pack directory.
fn pack_files(repo: &Repo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.path.join(".git/objects/pack"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const RECORDS: usize = 3000;

#[test]
fn one_streamed_import_is_the_same_store_as_imports_in_parts() {
    let sb = Sandbox::new();
    let lines = generated(RECORDS);
    let whole = write_lines(&sb.path().join("whole.jsonl"), &lines);
    let one = sb.repo_with_store("one", "importer");
    let report = one.beads_json(&["import", whole.to_str().expect("utf-8")]);
    assert_eq!(report["records"], RECORDS);
    assert_eq!(report["added"], RECORDS);
    assert_eq!(report["bad"], json!([]));
    assert_eq!(
        report["unmapped_dependencies"], 0,
        "every dependency names a bead: {report}"
    );
    one.git(&["fsck", "--strict", "--no-dangling"]);
    let counted = one.git(&["count-objects", "-v"]);
    let in_pack: usize = counted
        .lines()
        .find_map(|l| l.strip_prefix("in-pack: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_default();
    assert!(
        in_pack > RECORDS,
        "the documents and their trees are packed: {counted}"
    );
    assert!(
        pack_files(&one).iter().all(|f| f.starts_with("pack-")),
        "no temporary file is left: {:?}",
        pack_files(&one)
    );

    // The same records in three parts, the last one overlapping the second.
    let parts = sb.repo_with_store("parts", "importer");
    for (name, range) in [("a", 0..1000), ("b", 1000..2200), ("c", 2000..RECORDS)] {
        let file = write_lines(&sb.path().join(format!("{name}.jsonl")), &lines[range]);
        parts.beads(&["import", "-q", file.to_str().expect("utf-8")]);
    }
    assert_eq!(tree_of(&one, "beads"), tree_of(&parts, "beads"));

    // Importing again changes nothing.
    let before = one.store_head();
    let again = one.beads_json(&["import", whole.to_str().expect("utf-8")]);
    assert_eq!(again["unchanged"], RECORDS);
    assert_eq!(again["commit"], Value::Null);
    assert_eq!(one.store_head(), before);

    // Its own export, as bd JSONL and as YAML, imports to the same store.
    for format in ["bd-jsonl", "yaml"] {
        let file = sb.path().join(format!("export.{format}"));
        one.beads(&[
            "export",
            "--format",
            format,
            "-o",
            file.to_str().expect("utf-8"),
        ]);
        let fresh = sb.repo_with_store(&format!("fresh-{format}"), "importer");
        fresh.beads(&[
            "import",
            "-q",
            "--format",
            format,
            file.to_str().expect("utf-8"),
        ]);
        assert_eq!(tree_of(&one, "beads"), tree_of(&fresh, "beads"), "{format}");
    }
}

#[test]
fn a_bad_line_at_the_end_leaves_nothing_behind() {
    let sb = Sandbox::new();
    let repo = sb.repo_with_store("work", "importer");
    let before = (repo.store_head(), pack_files(&repo));
    let mut lines = generated(1500);
    lines.push(r#"{"id":"bd-torn","title":"cut"#.to_owned());
    let repeated = lines[10].clone();
    lines.push(repeated);
    let file = write_lines(&sb.path().join("bad.jsonl"), &lines);
    let (code, stderr) = repo.beads_fail(&["import", file.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("bad.jsonl:1501:"), "{stderr}");
    assert!(stderr.contains("(1 more bad line follows)"), "{stderr}");
    assert_eq!((repo.store_head(), pack_files(&repo)), before);

    // Skipping them, the repeated id is reported with the line it first came from.
    let report = repo.beads_json(&["import", "--skip-bad", file.to_str().expect("utf-8")]);
    assert_eq!(report["added"], 1500);
    let bad = report["bad"].as_array().expect("bad lines");
    assert_eq!(bad.len(), 2, "{report}");
    assert_eq!(bad[1]["line"], 1502);
    assert!(
        bad[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("already imported from line 11")),
        "{report}"
    );
}

#[test]
fn stdin_imports_like_a_file() {
    let sb = Sandbox::new();
    let lines = generated(300);
    let file = write_lines(&sb.path().join("in.jsonl"), &lines);
    let from_file = sb.repo_with_store("file", "importer");
    from_file.beads(&["import", "-q", file.to_str().expect("utf-8")]);
    let from_stdin = sb.repo_with_store("stdin", "importer");
    let out = from_stdin
        .beads_command(&[], &["import", "-q", "-"])
        .stdin(std::fs::File::open(&file).expect("open"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(tree_of(&from_file, "beads"), tree_of(&from_stdin, "beads"));
}
