//! Bonding: a formula poured onto a molecule or a step as it stands (bd's `mol bond`),
//! molecules linked to each other, a step's `on_complete` bonding a formula for each
//! item of its output when it closes, and the steps that wait for a spawner's children
//! (`waits_for`).
//!
//! The children of a spawner step are the steps cooked as its children and the
//! molecules bonded onto it. A step that waits for them takes a `blocks` dependency on
//! each as it appears (so that every reader of readiness sees the hold); with
//! `any-children`, the first that finishes drops the others.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::formula::{FoundFormula, find_formula};
use super::molecule::{BondKind, Placement, Poured, declared, prepare, write_molecule};
use super::waits::{
    SPAWNED_BY_KEY, WAITED_BY_KEY, WAITS_FOR_KEY, WaitsFor, blocked_by, extra_of, ids_of, put_waits,
};
use super::{MoleculeError, OpError, RefProblem, Result};
use crate::model::{
    Actor, Bead, BeadId, BeadType, Capability, DepKind, OnComplete, count, fill_known, scalar_text,
};
use crate::store::refs::{self, RefName};
use crate::store::{Store, Tx};

/// The key, in a step's `extra`, of what it does when it closes (bd's `on_complete`).
pub const ON_COMPLETE_KEY: &str = "on_complete";
/// The key, in a step's `extra`, of the output it was closed with.
pub const OUTPUT_KEY: &str = "output";
/// The key, in a spawner step's `extra`, of the molecules its `on_complete` bonded.
pub const BONDED_KEY: &str = "bonded";

/// Makes `child` (new in `tx`) a child of spawner `spawner`: every step waiting for
/// the spawner's children holds for it too, unless an `any-children` wait was met.
fn hold_waiters(tx: &mut Tx<'_>, spawner: &BeadId, child: &mut Bead) -> Result<()> {
    child
        .extra
        .insert(SPAWNED_BY_KEY.into(), json!(spawner.as_str()));
    let Some(s) = tx.bead(spawner)? else {
        return Ok(());
    };
    for w in ids_of(&s, WAITED_BY_KEY) {
        let Some(mut waiter) = tx.bead(&w)? else {
            continue;
        };
        let mut waits: WaitsFor = extra_of(&waiter, WAITS_FOR_KEY).unwrap_or_default();
        if waits.met || waiter.status.is_done() {
            continue;
        }
        waiter.add_dependency(blocked_by(&child.id));
        waits.children.push(child.id.clone());
        put_waits(&mut waiter, &waits);
        tx.put_bead(&waiter)?;
    }
    Ok(())
}

/// After `finished` beads were finished in `tx`: an `any-children` wait one of them
/// was a child for is met, and drops its hold on the others. Returns a line for the
/// commit message for each wait met.
fn release_waiters(tx: &mut Tx<'_>, finished: &[Bead]) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for c in finished {
        let Some(spawner) = extra_of::<BeadId>(c, SPAWNED_BY_KEY) else {
            continue;
        };
        let Some(s) = tx.bead(&spawner)? else {
            continue;
        };
        for w in ids_of(&s, WAITED_BY_KEY) {
            let Some(mut waiter) = tx.bead(&w)? else {
                continue;
            };
            let mut waits: WaitsFor = extra_of(&waiter, WAITS_FOR_KEY).unwrap_or_default();
            if waits.gate != "any-children" || waits.met {
                continue;
            }
            for other in std::mem::take(&mut waits.children) {
                waiter.remove_dependency(&other, Some(DepKind::Blocks));
            }
            waits.met = true;
            put_waits(&mut waiter, &waits);
            tx.put_bead(&waiter)?;
            notes.push(format!(
                "{w} waited for any child of {spawner}: {} finished",
                c.id
            ));
        }
    }
    Ok(notes)
}

/// The value at `path` (`output.items.list`) of a step's output.
fn at_path<'v>(output: &'v Value, path: &str) -> Option<&'v Value> {
    path.strip_prefix("output.")?
        .split('.')
        .try_fold(output, |v, key| v.get(key))
}

/// `{item}`, `{item.field}` and `{index}` of an `on_complete` variable, for one item.
fn item_value(template: &str, item: &Value, index: usize) -> String {
    let mut out = template.replace("{index}", &index.to_string());
    if let Value::Object(fields) = item {
        for (k, v) in fields {
            out = out.replace(&format!("{{item.{k}}}"), &scalar_text(v));
        }
    }
    out.replace("{item}", &scalar_text(item))
}

/// After `finished` steps were closed in `tx` (on ref `on`): each with an
/// `on_complete` bond pours its formula once per item of its output, each molecule a
/// child of the step (one after another when `sequential`).
fn run_on_complete(
    store: &Store,
    tx: &mut Tx<'_>,
    actor: &Actor,
    finished: &[Bead],
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for step in finished {
        let Some(oc) = extra_of::<OnComplete>(step, ON_COMPLETE_KEY) else {
            continue;
        };
        let (Some(formula), Some(path)) = (&oc.bond, &oc.for_each) else {
            continue;
        };
        let items = step
            .extra
            .get(OUTPUT_KEY)
            .and_then(|o| at_path(o, path))
            .and_then(Value::as_array)
            .ok_or_else(|| MoleculeError::NoOutput {
                step: step.id.clone(),
                path: path.clone(),
                formula: formula.clone(),
            })?;
        let found = find_formula(store, formula)?;
        let molecule = match step.parent() {
            Some(m) => tx.bead(m)?,
            None => None,
        };
        let values: BTreeMap<String, String> = molecule
            .and_then(|m| extra_of(&m, super::molecule::VARIABLES_KEY))
            .unwrap_or_default();
        let main = store.view()?;
        let prefix = main.meta()?.prefix;
        let mut bonded = ids_of(step, BONDED_KEY);
        let mut previous: Option<BeadId> = None;
        for (index, item) in items.iter().enumerate() {
            let vars: BTreeMap<String, String> = oc
                .vars
                .iter()
                .map(|(k, v)| (k.clone(), fill_known(&item_value(v, item, index), &values)))
                .collect();
            let p = prepare(store, &found, &declared(&found, &vars), false)?;
            let place = Placement {
                main: &main,
                prefix: &prefix,
                wisp: tx.ref_name() == refs::WISPS,
                assignee: step.assignee.as_deref(),
                bond: Some(BondKind::Parallel.dependency(&step.id)),
                id: None,
            };
            let mut m = write_molecule(tx, actor, &p, &place)?.molecule;
            if oc.sequential
                && let Some(prev) = &previous
            {
                m.add_dependency(blocked_by(prev));
            }
            hold_waiters(tx, &step.id, &mut m)?;
            tx.put_bead(&m)?;
            previous = Some(m.id.clone());
            bonded.push(m.id);
        }
        let mut s = tx.bead(&step.id)?.unwrap_or_else(|| step.clone());
        s.extra.insert(BONDED_KEY.into(), json!(bonded));
        tx.put_bead(&s)?;
        notes.push(format!(
            "{} bonded {formula} for each of its {path}: {}",
            step.id,
            count(items.len(), "molecule")
        ));
    }
    Ok(notes)
}

/// What happens in the commit that finishes `finished`: `on_complete` bonds run and
/// `any-children` waits are met. Returns lines for the commit message.
pub(crate) fn after_finished(
    store: &Store,
    tx: &mut Tx<'_>,
    actor: &Actor,
    finished: &[Bead],
) -> Result<Vec<String>> {
    let mut notes = run_on_complete(store, tx, actor, finished)?;
    notes.extend(release_waiters(tx, finished)?);
    Ok(notes)
}

/// One side of a bond: a formula to pour, or a bead that is there.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A formula (by name or path).
    Formula(Box<FoundFormula>),
    /// A molecule, or any bead (a step, to bond onto it).
    Bead(BeadId),
}

/// How to bond.
#[derive(Clone, Debug, Default)]
pub struct BondOptions {
    /// Sequential, parallel or conditional.
    pub kind: BondKind,
    /// Values of the formula's variables.
    pub vars: BTreeMap<String, String>,
    /// The poured molecule's id under the bead it is bonded to, `<bead>.<ref>`, with
    /// `{{name}}`s filled from the variables (bd's `--ref`); its steps are
    /// `<bead>.<ref>.<n>`. A fresh id when unset.
    pub child_ref: Option<String>,
    /// Pour the formula as a wisp (bd's `--ephemeral`), on this machine's wisp ref,
    /// whichever ref the bead it is bonded to lives on.
    pub ephemeral: bool,
}

/// What a bond did (bd's `BondResult`).
#[derive(Clone, Debug, Serialize)]
pub struct Bonded {
    /// The molecule the bond is part of: the one bonded onto.
    pub result: BeadId,
    /// The bond's type.
    pub kind: BondKind,
    /// The molecule a formula was poured into, if one was.
    pub poured: Option<Poured>,
    /// The bead that took the dependency.
    pub bonded: BeadId,
    /// The store ref written.
    pub store_ref: RefName,
}

/// Whether `from` already waits on `to`, through dependencies, on `tx` (so that a
/// dependency `to` → `from` would close a cycle).
fn reaches(tx: &Tx<'_>, from: &BeadId, to: &BeadId) -> Result<bool> {
    let mut seen = std::collections::HashSet::new();
    let mut queue = vec![from.clone()];
    while let Some(at) = queue.pop() {
        if &at == to {
            return Ok(true);
        }
        if !seen.insert(at.clone()) {
            continue;
        }
        if let Some(b) = tx.bead(&at)? {
            queue.extend(b.dependencies.iter().map(|d| d.id.clone()));
        }
    }
    Ok(false)
}

/// Bonds `a` and `b` (bd's `mol bond`): a formula and a bead → the formula poured
/// and bonded to the bead (which may be a step: its molecule is then one of the
/// step's children); two beads → `b` bonded to `a`. In one commit; refused when the
/// link would close a cycle, and for two formulas (bd makes a compound proto of them,
/// which git-beads does not keep).
pub fn bond(
    store: &Store,
    actor: &Actor,
    a: &Operand,
    b: &Operand,
    opts: &BondOptions,
) -> Result<Bonded> {
    super::permit(actor, Capability::Update)?;
    // What to do to the target: pour a formula onto it, or link a bead to it.
    enum Bond<'b> {
        Pour(Box<super::molecule::Prepared>),
        Link(&'b BeadId),
    }
    let (target, what, id) = match (a, b) {
        (Operand::Formula(f), Operand::Bead(t)) | (Operand::Bead(t), Operand::Formula(f)) => {
            super::permit(actor, Capability::Create)?;
            let p = prepare(store, f, &declared(f, &opts.vars), false)?;
            let id = match &opts.child_ref {
                Some(r) => Some(p.id_under(t, r, &opts.vars)?),
                None => None,
            };
            (t, Bond::Pour(Box::new(p)), id)
        }
        (Operand::Bead(x), Operand::Bead(y)) => {
            if let Some(r) = &opts.child_ref {
                return Err(MoleculeError::BadRef {
                    given: r.clone(),
                    parent: x.clone(),
                    problem: RefProblem::NothingPoured,
                }
                .into());
            }
            (x, Bond::Link(y), None)
        }
        (Operand::Formula(x), Operand::Formula(y)) => {
            return Err(
                MoleculeError::TwoFormulas(x.formula.name.clone(), y.formula.name.clone()).into(),
            );
        }
    };
    let mut on = super::molecule::locate(store, target)?;
    if opts.ephemeral && matches!(what, Bond::Pour(_)) {
        on = refs::WISPS;
    }
    if let Bond::Link(other) = what
        && super::molecule::locate(store, other)? != on
    {
        return Err(MoleculeError::BondAcrossRefs {
            a: target.clone(),
            b: other.clone(),
        }
        .into());
    }
    let main = store.view()?;
    let prefix = main.meta()?.prefix;
    let (bonded, _) = store.transact_on(on, actor, |tx| {
        // A wisp poured onto a stored bead reads that bead from main.
        let t = match tx.bead(target)? {
            Some(t) => t,
            None => super::require(&main, target)?,
        };
        let (poured, mut child) = match &what {
            Bond::Pour(p) => {
                let place = Placement {
                    main: &main,
                    prefix: &prefix,
                    wisp: on == refs::WISPS,
                    assignee: t.assignee.as_deref(),
                    bond: Some(opts.kind.dependency(&t.id)),
                    id: id.clone(),
                };
                let out = write_molecule(tx, actor, p, &place)?;
                let m = out.molecule.clone();
                (Some(out), m)
            }
            Bond::Link(other) => {
                let mut o = super::require(tx, other)?;
                if o.id == t.id || reaches(tx, &t.id, &o.id)? {
                    return Err(OpError::from(MoleculeError::BondCycle {
                        a: t.id.clone(),
                        b: o.id.clone(),
                    }));
                }
                o.add_dependency(opts.kind.dependency(&t.id));
                o.touch(&actor.id, super::now());
                (None, o)
            }
        };
        if opts.kind == BondKind::Parallel {
            hold_waiters(tx, &t.id, &mut child)?;
        }
        tx.put_bead(&child)?;
        let poured = poured.map(|mut p| {
            p.molecule = child.clone();
            p
        });
        let result = match t.parent() {
            Some(m) if t.kind != BeadType::Molecule => m.clone(),
            _ => t.id.clone(),
        };
        tx.set_message(format!(
            "bond {} to {} ({})",
            child.id,
            t.id,
            opts.kind.as_str()
        ));
        Ok::<_, OpError>(Bonded {
            result,
            kind: opts.kind,
            poured,
            bonded: child.id,
            store_ref: on,
        })
    })?;
    Ok(bonded)
}
