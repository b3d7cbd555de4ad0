//! `ops` as a library, for molecules: a formula poured in one commit, its progress
//! step by step, and wisps that stay off the shared store.

use crate::library;

use git_beads::model::{BeadId, Status};
use git_beads::ops::{self, PourOptions, Poured};
use library::{Lib, ids};

/// A three-step formula: design, then build, then ship; its title uses a variable.
const RELEASE: &str = "description: Release {{version}}\nvariables:\n  version:\n    required: true\nsteps:\n  - id: design\n    title: Design {{version}}\n  - id: build\n    title: Build\n    needs: [design]\n  - id: ship\n    title: Ship\n    needs: [build]\n";

/// Writes the release formula into the repository and pours it (version 2.0).
fn pour(lib: &Lib, wisp: bool) -> Poured {
    lib.repo.formula("release.yaml", RELEASE);
    let found = ops::find_formula(&lib.store, "release").expect("the formula");
    let opts = PourOptions {
        vars: [("version".to_owned(), "2.0".to_owned())].into(),
        wisp,
        ..Default::default()
    };
    ops::pour(&lib.store, &lib.me, &found, &opts).expect("pour")
}

/// The step ids `n` (1-based) of `mol`.
fn steps(mol: &BeadId, n: &[u32]) -> Vec<BeadId> {
    n.iter().map(|&i| mol.child(i)).collect()
}

#[test]
fn a_pour_makes_the_molecule_and_its_steps_in_one_commit() {
    let lib = Lib::new();
    let before = lib.repo.commit_count("refs/beads/main");
    let poured = pour(&lib, false);
    assert_eq!(lib.repo.commit_count("refs/beads/main"), before + 1);
    let mol = &poured.molecule.id;
    assert_eq!(ids(&poured.steps), steps(mol, &[1, 2, 3]));
    assert_eq!(
        poured.steps[0].title, "Design 2.0",
        "variables are filled in"
    );
    assert_eq!(lib.show(&mol.child(2)).status, Status::Open);
}

#[test]
fn progress_follows_the_steps_as_they_close() {
    let lib = Lib::new();
    let poured = pour(&lib, false);
    let mol = poured.molecule.id.clone();
    let progress = || ops::molecule_progress(&lib.store, &mol).expect("progress");
    let p = progress();
    assert_eq!((p.done, p.total, p.at_step), (0, 3, Some(1)));
    assert_eq!(p.current, steps(&mol, &[1]));

    ops::close(&lib.store, &lib.me, &steps(&mol, &[1]), None).expect("close step 1");
    let p = progress();
    assert_eq!((p.done, p.at_step), (1, Some(2)));
    assert_eq!(p.current, steps(&mol, &[2]));
    assert!(p.position().starts_with("step 2 of 3"), "{}", p.position());

    ops::close(&lib.store, &lib.me, &steps(&mol, &[2, 3]), None).expect("close the rest");
    let p = progress();
    assert_eq!((p.done, p.at_step), (3, None));
    assert!(p.current.is_empty());
    assert_eq!(
        lib.show(&mol).status,
        Status::Closed,
        "the last step closes the molecule"
    );
}

#[test]
fn a_molecule_on_a_hook_carries_its_progress() {
    let lib = Lib::new();
    lib.agent("rig/nux");
    let mol = pour(&lib, false).molecule.id;
    let nux = library::agent("rig/nux");
    ops::sling(&lib.store, &lib.me, &mol, &nux).expect("sling");
    let hook = ops::hook(&lib.store, &nux).expect("hook");
    let progress = hook[0].progress.as_ref().expect("a molecule's progress");
    assert_eq!(progress.molecule, mol);
    assert_eq!(progress.at_step, Some(1));
}

#[test]
fn a_wisp_stays_off_the_shared_store_until_it_is_burned() {
    let lib = Lib::new();
    let head = lib.repo.store_head();
    let wisp = pour(&lib, true);
    assert_eq!(lib.repo.store_head(), head, "refs/beads/main did not move");
    let id = wisp.molecule.id.clone();
    assert_ne!(
        ops::locate(&lib.store, &id).expect("locate").as_str(),
        "refs/beads/main"
    );
    let p = ops::molecule_progress(&lib.store, &id).expect("progress");
    assert!(p.wisp);
    assert_eq!(p.total, 3);
    let burned = ops::burn(&lib.store, &lib.me, &id).expect("burn");
    assert_eq!(burned.steps, 3);
    assert!(ops::molecule_progress(&lib.store, &id).is_err());
}

#[test]
fn a_formula_with_a_missing_variable_pours_nothing() {
    let lib = Lib::new();
    lib.repo.formula("release.yaml", RELEASE);
    let head = lib.repo.store_head();
    let found = ops::find_formula(&lib.store, "release").expect("the formula");
    assert!(ops::pour(&lib.store, &lib.me, &found, &PourOptions::default()).is_err());
    assert_eq!(lib.repo.store_head(), head);
}
