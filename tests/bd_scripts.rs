//! bd's CLI scenario scripts (`cmd/bd/testdata/*.txt` of steveyegge/beads, vendored
//! under tests/bd_scripts/testdata/ with bd's MIT licence) run against git-beads:
//! `bd` in them is `git beads`, in a fresh git repository each. One test per
//! script, so a failure names the scenario, and the engine names its line.
//! tests/bd_scripts/testdata/README.md says which scripts are here, which are left
//! out and why, and which lines an override rewords.

#[path = "bd_scripts/engine.rs"]
mod engine;

/// One test per vendored script, and one that no script goes without its test.
macro_rules! scripts {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                engine::run(stringify!($name));
            }
        )*

        #[test]
        fn every_vendored_script_has_a_test() {
            let listed: Vec<&str> = vec![$(stringify!($name)),*];
            assert_eq!(engine::vendored(), listed);
        }
    };
}

scripts!(
    blocked,
    close,
    close_errors,
    comments,
    config,
    create,
    create_errors,
    delete,
    delete_errors,
    dep_add,
    dep_errors,
    dep_remove,
    dep_tree,
    export,
    help,
    import,
    label,
    lint,
    list,
    quickstart,
    ready,
    search,
    show,
    show_errors,
    stats,
    update,
    update_errors,
    version
);

/// The message a script run panicked with, or `None` when it passed.
fn failure(text: &str, patch: Option<&str>) -> Option<String> {
    let run = std::panic::catch_unwind(|| engine::run_text("self.txt", text, patch));
    run.err().map(|p| match p.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    })
}

#[test]
fn the_engine_runs_bd_as_git_beads_with_quotes_variables_and_archive_files() {
    let script = r#"
# bd is git beads, in a git repository of its own
bd init --prefix test
exec git rev-parse --is-inside-work-tree
stdout '^true$'
bd version
stdout 'git-beads'
exec sh -c 'echo "it''s" $WORK > said.txt'   # sh expands $WORK
grep '^it''s /' said.txt
exec cat $WORK/given.txt
stdout -count=2 '^line$'
! exists missing.txt
[!exec:no-such-program] stop
bd this-line-never-runs
-- given.txt --
line
line
"#;
    assert_eq!(failure(script, None), None);
}

#[test]
fn the_engine_fails_a_script_on_the_line_that_does_not_hold() {
    let expected_failure_that_succeeds = "bd version\n\n! bd version\n";
    let why = failure(expected_failure_that_succeeds, None).expect("fails");
    assert!(
        why.starts_with("self.txt:3: ! bd version\nunexpected success"),
        "{why}"
    );

    let failing = "bd version\nbd show nothing-here\n";
    let why = failure(failing, None).expect("fails");
    assert!(
        why.starts_with("self.txt:2: bd show nothing-here\nexit status"),
        "{why}"
    );

    let unmatched = "bd version\n! stdout 'git-beads'\n";
    let why = failure(unmatched, None).expect("fails");
    assert!(why.starts_with("self.txt:2:"), "{why}");

    let unknown = "frobnicate now\n";
    let why = failure(unknown, None).expect("fails");
    assert!(why.contains("unknown command `frobnicate`"), "{why}");
}

#[test]
fn an_override_replaces_the_lines_it_names_and_must_give_a_reason() {
    let script = "bd version\nstdout 'bd version'\nstdout 'Not This'\n";
    let patch = "# git-beads says it another way\n- stdout 'Not This'\n+ stdout 'git-beads'\n";
    assert_eq!(failure(script, Some(patch)), None);

    let wrong = "# reason\n- stdout 'Not This'\n+ stdout 'absent'\n";
    let why = failure(script, Some(wrong)).expect("fails");
    assert!(
        why.starts_with("self.txt:3 (overridden): stdout 'absent'"),
        "{why}"
    );

    let stale = "# reason\n- stdout 'gone'\n";
    let why = failure(script, Some(stale)).expect("fails");
    assert!(
        why.contains("the script has no line `stdout 'gone'`"),
        "{why}"
    );

    let unexplained = "- stdout 'Not This'\n+ stdout 'git-beads'\n";
    let why = failure(script, Some(unexplained)).expect("fails");
    assert!(why.contains("no reason given"), "{why}");
}
