//! The manual pages committed under `man/` are exactly what the code generates, and
//! every environment variable and config key the code reads is documented.
//!
//! After changing a command, regenerate the pages with
//! `GIT_BEADS_UPDATE_MAN=1 cargo test --test runner man::`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use git_beads::cli::man;
use git_beads::settings;

const UPDATE: &str = "GIT_BEADS_UPDATE_MAN";

fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("man")
}

fn committed_pages(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".1"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn committed_man_pages_match_the_code() {
    let dir = man_dir();
    let pages = man::pages();
    let generated: BTreeSet<String> = pages.iter().map(|p| p.file_name.clone()).collect();
    if std::env::var_os(UPDATE).is_some() {
        man::write_pages(&dir).expect("write the pages");
        for stale in committed_pages(&dir).difference(&generated) {
            std::fs::remove_file(dir.join(stale)).expect("remove a stale page");
        }
        eprintln!("wrote {} pages to {}", pages.len(), dir.display());
        return;
    }
    let committed = committed_pages(&dir);
    let mut problems = Vec::new();
    for page in &pages {
        match std::fs::read_to_string(dir.join(&page.file_name)) {
            Ok(text) if text == page.source => {}
            Ok(_) => problems.push(format!("{} differs from the code", page.file_name)),
            Err(_) => problems.push(format!("{} is missing", page.file_name)),
        }
    }
    for stale in committed.difference(&generated) {
        problems.push(format!("{stale} is no longer generated"));
    }
    assert!(
        problems.is_empty(),
        "man/ is out of date:\n  {}\nregenerate with `{UPDATE}=1 cargo test --test runner man::` and commit man/",
        problems.join("\n  ")
    );
}

/// Every string literal in `src/` (outside `settings.rs`) that looks like an environment
/// variable (`GIT_AUTHOR_NAME`) or a config key git-beads reads (`beads.*`, `core.*`,
/// `user.*`), with where it was found.
fn literals_in_src() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read src")
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("settings.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read a source file");
            // Unit tests (at the end of a file, by convention) name made-up settings.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in code.lines().enumerate() {
                // Variables set or removed for the programs git-beads runs, and clap's
                // value names, are not settings of git-beads.
                if ["env_remove(", ".env(", "value_name"]
                    .iter()
                    .any(|p| line.contains(p))
                {
                    continue;
                }
                for lit in line.split('"').skip(1).step_by(2) {
                    let env_like = lit.len() > 3
                        && lit.contains('_')
                        && lit
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                        && lit.starts_with(|c: char| c.is_ascii_uppercase());
                    let key_like = ["beads.", "core.", "user."]
                        .iter()
                        .any(|p| lit.starts_with(p) && lit.len() > p.len())
                        && lit.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
                    if env_like || key_like {
                        out.push((lit.to_owned(), format!("{}:{}", path.display(), n + 1)));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_setting_the_code_reads_is_documented() {
    let documented: BTreeSet<&str> = settings::all().map(|s| s.name).collect();
    // Names that look like settings but are not read at run time.
    let not_settings = [
        "CARGO_PKG_VERSION",
        "CARGO_MANIFEST_DIR",
        "CARGO_BIN_EXE_git",
        // Gemini CLI's levels of trust, values in its trustedFolders.json.
        "TRUST_FOLDER",
        "TRUST_PARENT",
        "DO_NOT_TRUST",
    ];
    let missing: Vec<String> = literals_in_src()
        .into_iter()
        .filter(|(name, _)| !documented.contains(name.as_str()))
        .filter(|(name, _)| !not_settings.contains(&name.as_str()))
        .map(|(name, at)| format!("{name} (at {at})"))
        .collect();
    assert!(
        missing.is_empty(),
        "these look like environment variables or config keys but are not documented in \
         src/settings.rs (add a Setting, or list the name in this test if it is not one):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_main_page_documents_every_setting_and_exit_code() {
    let main = &man::pages()[0];
    assert_eq!(main.file_name, "git-beads.1");
    for s in settings::all() {
        assert!(
            main.source.contains(&s.name.replace('-', "\\-")),
            "{} is not in git-beads(1)",
            s.name
        );
    }
    for code in 0..=4 {
        assert!(
            main.source.contains(&format!(".TP\n\\fB{code}\\fR\n")),
            "exit code {code} is not documented"
        );
    }
}
