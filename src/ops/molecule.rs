//! Molecules: a workflow poured into a molecule bead plus one child bead per step.
//!
//! A molecule lives on `refs/beads/main`, or, as a wisp, on the local-only
//! `refs/beads/local/wisps` that sync never pushes. Wisp ids read
//! `<prefix>-wisp-<hash>`, and a command given a bead id looks for it on
//! `refs/beads/main` first, then on the wisp ref (see [`locate`]).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::json;

use super::agent::load;
use super::formula::FoundFormula;
use super::fresh_id;
use super::permit;
use super::{BeadError, FormulaError, MoleculeError, OpError, RefProblem, Result, now};
use crate::model::{
    Actor, Bead, BeadId, BeadType, Capability, Cooked, DepKind, Dependency, Prefix, Rendered,
    Status, WISP_MARK, check_name, check_text, check_title, count, fill_known, id_length_for,
};
use crate::store::refs::{self, RefName};
use crate::store::{Store, Tx, View};

/// The key, in a molecule's `extra`, of the formula it was poured from.
pub const FORMULA_KEY: &str = "formula";
/// The key, in a molecule's `extra`, of the formula's version.
pub const FORMULA_VERSION_KEY: &str = "formula_version";
/// The key, in a molecule's `extra`, of the variables' values it was poured with.
pub const VARIABLES_KEY: &str = "variables";
/// The key, in a step's `extra`, of the step's id in its formula.
pub(crate) const STEP_KEY: &str = "step";
/// The key, in a step's `extra`, of its acceptance text (bd's field name).
pub const ACCEPTANCE_KEY: &str = "acceptance_criteria";
/// The key, in a molecule's `extra`, of its formula's type (bd's formulas).
pub const FORMULA_TYPE_KEY: &str = "formula_type";
/// The key, in a molecule's `extra`, of its formula's phase (`vapor`, …).
pub const PHASE_KEY: &str = "phase";
/// The key, in a molecule's or step's `extra`, of what its formula expects that
/// has no meaning here.
pub const EXPECTED_KEY: &str = "expected";
/// The key, in a wisp's `extra`, marking it local-only (bd's field name).
pub const EPHEMERAL_KEY: &str = "ephemeral";
/// The key, in a squashed molecule's `extra`, of how many steps it had.
pub const SQUASHED_STEPS_KEY: &str = "squashed_steps";
/// The key, in a summary's `extra`, of the wisp it was squashed from.
pub const SQUASHED_FROM_KEY: &str = "squashed_from";
/// The key, in a molecule's `extra`, of the steps of its formula that were not poured
/// as beads (its checklist).
pub const CHECKLIST_KEY: &str = "checklist";

/// One step of a molecule and where it stands.
#[derive(Clone, Debug)]
pub struct StepState {
    /// The step bead.
    pub id: BeadId,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: Status,
    /// Whether it can be worked now: unfinished and nothing unfinished blocks it.
    pub ready: bool,
    /// The step's id in its formula.
    pub step: Option<String>,
    /// What to do, for a step that is ready.
    pub description: Option<String>,
    /// How to tell it is done, for a step that is ready.
    pub acceptance: Option<String>,
}

/// How far a molecule has come.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The molecule bead.
    pub molecule: BeadId,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: Status,
    /// Whether it is a wisp (kept on this machine only).
    pub wisp: bool,
    /// Steps done.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// The number (1-based) of the first unfinished step; `None` when all are done.
    pub at_step: Option<usize>,
    /// The steps that can be worked now.
    pub current: Vec<BeadId>,
    /// Every step, in order.
    pub steps: Vec<StepState>,
    /// The steps of its formula that were not poured as beads (its checklist), in order.
    pub checklist: Vec<ChecklistItem>,
}

impl Progress {
    /// "step 3 of 7 (bd-x.3: Write tests)", "all 7 steps done", or, for a molecule
    /// whose steps stay in its checklist, "a checklist of 7 steps, not poured".
    pub fn position(&self) -> String {
        if self.steps.is_empty() && !self.checklist.is_empty() && !self.status.is_done() {
            return format!(
                "a checklist of {}, not poured (close {} when all are done)",
                count(self.checklist.len(), "step"),
                self.molecule
            );
        }
        match self.steps.iter().position(|s| !s.status.is_done()) {
            Some(i) => format!(
                "step {} of {} ({}: {})",
                i + 1,
                self.total,
                self.steps[i].id,
                self.steps[i].title
            ),
            None => format!("all {} done", count(self.total, "step")),
        }
    }
}

/// The steps of molecule `mol`: its children `<mol>.<n>`, in step order.
pub(crate) fn steps(tx: &View<'_>, mol: &BeadId) -> Result<Vec<Bead>> {
    let prefix = format!("{mol}.");
    let mut numbered: Vec<(u32, BeadId)> = tx
        .bead_ids_near(mol)?
        .into_iter()
        .filter_map(|id| {
            let n = id.strip_prefix(&prefix)?.parse::<u32>().ok()?;
            Some((n, BeadId::parse(&id).ok()?))
        })
        .collect();
    numbered.sort();
    numbered.dedup();
    let ids: Vec<BeadId> = numbered.into_iter().map(|(_, id)| id).collect();
    Ok(tx
        .beads_near(mol, &ids)?
        .into_iter()
        .flatten()
        .filter(|b| b.status != Status::Deleted)
        .collect())
}

fn extra_str(bead: &Bead, key: &str) -> Option<String> {
    bead.extra
        .get(key)
        .and_then(|v| v.as_str())
        .map(str::to_owned)
}

/// The progress of `bead` when it is a molecule.
pub fn progress(tx: &View<'_>, bead: &Bead) -> Result<Option<Progress>> {
    if bead.kind != BeadType::Molecule {
        return Ok(None);
    }
    let steps = steps(tx, &bead.id)?;
    let done_ids: HashSet<&BeadId> = steps
        .iter()
        .filter(|s| s.status.is_done())
        .map(|s| &s.id)
        .collect();
    let step_ids: HashSet<&BeadId> = steps.iter().map(|s| &s.id).collect();
    // What the molecule itself waits on (a sequential bond, or a conditional one until
    // the other failed) holds every step; so does what a step waits on outside the
    // molecule (the children of a spawner).
    let open =
        |id: &BeadId| -> Result<bool> { Ok(tx.bead(id)?.is_some_and(|b| !b.status.is_done())) };
    let mut held = false;
    for d in &bead.dependencies {
        held |= match d.kind {
            DepKind::Blocks => open(&d.id)?,
            DepKind::ConditionalBlocks => tx
                .bead(&d.id)?
                .is_some_and(|b| b.status != Status::Deleted && !b.failed()),
            _ => false,
        };
    }
    let mut outside_open: HashSet<&BeadId> = HashSet::new();
    for s in &steps {
        for d in s.dependencies.iter().filter(|d| d.kind == DepKind::Blocks) {
            if !step_ids.contains(&d.id) && open(&d.id)? {
                outside_open.insert(&d.id);
            }
        }
    }
    let states: Vec<StepState> = steps
        .iter()
        .map(|s| {
            let ready = !held
                && !s.status.is_done()
                && s.dependencies
                    .iter()
                    .filter(|d| d.kind == DepKind::Blocks)
                    .all(|d| {
                        done_ids.contains(&d.id)
                            || (!step_ids.contains(&d.id) && !outside_open.contains(&d.id))
                    });
            StepState {
                id: s.id.clone(),
                title: s.title.clone(),
                status: s.status,
                ready,
                step: extra_str(s, STEP_KEY),
                description: (ready && !s.description.is_empty()).then(|| s.description.clone()),
                acceptance: if ready {
                    extra_str(s, ACCEPTANCE_KEY)
                } else {
                    None
                },
            }
        })
        .collect();
    // A squashed molecule keeps only the count of the steps it summarises.
    let squashed = match bead.extra.get(SQUASHED_STEPS_KEY).and_then(|v| v.as_u64()) {
        Some(n) if steps.is_empty() => usize::try_from(n).unwrap_or(usize::MAX),
        _ => 0,
    };
    // Steps that stay in the checklist are done when the molecule is.
    let checklist = checklist_of(bead);
    let (listed, listed_done) = match checklist.len() {
        n if steps.is_empty() && bead.status.is_done() => (n, n),
        n if steps.is_empty() => (n, 0),
        _ => (0, 0),
    };
    Ok(Some(Progress {
        molecule: bead.id.clone(),
        title: bead.title.clone(),
        status: bead.status,
        wisp: tx.ref_name() == refs::WISPS,
        done: done_ids.len() + squashed + listed_done,
        total: steps.len() + squashed + listed,
        at_step: states
            .iter()
            .position(|s| !s.status.is_done())
            .map(|i| i + 1),
        current: states
            .iter()
            .filter(|s| s.ready)
            .map(|s| s.id.clone())
            .collect(),
        steps: states,
        checklist,
    }))
}

/// Which store ref holds bead `id`: `refs/beads/main` when it is there, else the
/// local wisp ref when it is there; [`BeadError::NotFound`] otherwise.
pub fn locate(store: &Store, id: &BeadId) -> Result<RefName> {
    if store.view()?.bead_exists(id)? {
        return Ok(refs::MAIN);
    }
    if store.view_of(refs::WISPS)?.bead_exists(id)? {
        return Ok(refs::WISPS);
    }
    Err(BeadError::NotFound(id.clone()).into())
}

/// The ref a change of `ids` (a close, an update) writes: the wisp ref when they are
/// wisps, else `refs/beads/main` (where an unknown id is then reported as such).
/// Wisps and stored beads cannot be changed by one command: they live in two refs.
pub(crate) fn ref_for_close(store: &Store, ids: &[BeadId]) -> Result<RefName> {
    let main = store.view()?;
    let mut wisps = None;
    let (mut stored, mut local) = (None, None);
    for id in ids {
        if main.bead_exists(id)? {
            stored.get_or_insert(id);
            continue;
        }
        let w = match &wisps {
            Some(w) => w,
            None => wisps.insert(store.view_of(refs::WISPS)?),
        };
        if w.bead_exists(id)? {
            local.get_or_insert(id);
        }
    }
    match (stored, local) {
        (Some(s), Some(w)) => Err(MoleculeError::MixedRefs {
            wisp: w.clone(),
            stored: s.clone(),
        }
        .into()),
        (None, Some(_)) => Ok(refs::WISPS),
        _ => Ok(refs::MAIN),
    }
}

/// After `closed` beads were closed in `tx`: closes, in the same change, each
/// molecule whose last unfinished step was among them. Returns the molecules closed.
pub(crate) fn advance(tx: &mut Tx<'_>, actor: &Actor, closed: &[Bead]) -> Result<Vec<Bead>> {
    let mut seen = HashSet::new();
    let mut molecules = Vec::new();
    for b in closed {
        let Some(mol_id) = b.id.parent() else {
            continue;
        };
        if b.parent() != Some(&mol_id) || !seen.insert(mol_id.clone()) {
            continue;
        }
        let Some(mut mol) = tx.bead(&mol_id)? else {
            continue;
        };
        if mol.kind != BeadType::Molecule || mol.status.is_done() {
            continue;
        }
        let steps = steps(tx, &mol_id)?;
        if steps.is_empty() || !steps.iter().all(|s| s.status.is_done()) {
            continue;
        }
        let at = now();
        mol.status = Status::Closed;
        mol.closed_at = Some(at);
        mol.close_reason = Some(format!("all {} done", count(steps.len(), "step")));
        mol.touch(&actor.id, at);
        tx.put_bead(&mol)?;
        molecules.push(mol);
    }
    Ok(molecules)
}

/// How to pour a formula.
#[derive(Clone, Debug, Default)]
pub struct PourOptions {
    /// Values of the formula's variables.
    pub vars: BTreeMap<String, String>,
    /// Who works on the molecule and its steps.
    pub assignee: Option<String>,
    /// Pour a wisp: on the local-only ref, never pushed.
    pub wisp: bool,
    /// Make only the molecule bead; its steps stay in its checklist (bd's
    /// `--root-only`). A formula that says `pour = false` is poured this way too.
    pub root_only: bool,
    /// Formulas poured with it in the same commit and bonded to it (bd's `--attach`),
    /// each given the variables it declares.
    pub attach: Vec<FoundFormula>,
    /// How the attached formulas are bonded to it.
    pub attach_kind: BondKind,
}

/// How a bonded molecule stands to the one it is bonded to (bd's bond types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BondKind {
    /// It waits for the other to finish (a `blocks` dependency).
    #[default]
    Sequential,
    /// It runs alongside, as the other's child (a `parent-child` dependency).
    Parallel,
    /// It runs only if the other fails (a `conditional-blocks` dependency).
    Conditional,
}

impl BondKind {
    /// The dependency a bonded bead takes on what it is bonded to.
    pub fn dependency(self, on: &BeadId) -> Dependency {
        Dependency {
            id: on.clone(),
            kind: match self {
                BondKind::Sequential => DepKind::Blocks,
                BondKind::Parallel => DepKind::ParentChild,
                BondKind::Conditional => DepKind::ConditionalBlocks,
            },
        }
    }

    /// Its word: `sequential`, `parallel` or `conditional`.
    pub fn as_str(self) -> &'static str {
        match self {
            BondKind::Sequential => "sequential",
            BondKind::Parallel => "parallel",
            BondKind::Conditional => "conditional",
        }
    }
}

/// What a pour made.
#[derive(Clone, Debug, Serialize)]
pub struct Poured {
    /// The molecule bead.
    pub molecule: Bead,
    /// The step beads, in step order (none when its steps stay in its checklist).
    pub steps: Vec<Bead>,
    /// The store ref it was written to.
    #[serde(rename = "ref")]
    pub store_ref: RefName,
    /// The molecules poured with it and bonded to it (`--attach`).
    pub attached: Vec<Poured>,
    /// Whether its formula recommends pouring it as a wisp (`phase = "vapor"`).
    pub vapor: bool,
    /// Step ids its formula's overlay names that the formula does not have.
    pub stale_overrides: Vec<String>,
}

/// A fresh wisp id `<prefix>-wisp-<hash>`, free on the wisp ref and on
/// `refs/beads/main`, whose squash summary `<prefix>-<hash>` is free too.
pub(crate) fn wisp_id(
    main: &View<'_>,
    tx: &View<'_>,
    prefix: &Prefix,
    title: &str,
    actor: &Actor,
) -> Result<BeadId> {
    let len = id_length_for(main.bead_count_estimate()?);
    let stamp = now().timestamp_nanos_opt().unwrap_or_default();
    for attempt in 0u32..64 {
        let seed = format!("{title}\0{}\0{stamp}\0{attempt}\0wisp", actor.id);
        let base = BeadId::generate(prefix, seed.as_bytes(), len + (attempt as usize / 8));
        let hash = &base.as_str()[prefix.as_str().len() + 1..];
        let id = BeadId::parse(&format!("{prefix}-{WISP_MARK}{hash}"))?;
        if !tx.bead_exists(&id)? && !main.bead_exists(&id)? && !main.bead_exists(&base)? {
            return Ok(id);
        }
    }
    Err(MoleculeError::NoFreeWispId.into())
}

/// The id of step `n` of molecule `id`.
pub(crate) fn child(id: &BeadId, n: usize) -> BeadId {
    id.child(u32::try_from(n).unwrap_or(u32::MAX))
}

/// A formula rendered and checked, ready to be written: nothing about it can fail
/// once a transaction has begun but the store itself.
pub(crate) struct Prepared {
    /// The formula's name.
    name: String,
    /// Its version.
    version: u32,
    /// What it renders to.
    rendered: Rendered,
    /// The cooked formula, for one in bd's language.
    cooked: Option<Cooked>,
    /// Whether its steps stay in the molecule's checklist.
    root_only: bool,
}

/// Renders (or cooks) `found` with `vars` and checks everything it would write.
pub(crate) fn prepare(
    store: &Store,
    found: &FoundFormula,
    vars: &BTreeMap<String, String>,
    root_only: bool,
) -> Result<Prepared> {
    let formula = found.require_valid()?;
    let (r, cooked) = match &found.bd {
        None => (formula.render(vars).map_err(FormulaError::Render)?, None),
        Some(_) => {
            let c = super::formula::cook(store, found, vars)?;
            (c.rendered(), Some(c))
        }
    };
    for s in &r.steps {
        if let Some(a) = &s.assignee {
            check_name("assignee", a)?;
        }
        for l in &s.labels {
            crate::model::check_label(l)?;
        }
    }
    let refused = |what: &str, error: crate::model::TextError| MoleculeError::Refused {
        formula: formula.name.clone(),
        what: what.to_owned(),
        error,
    };
    check_title(&r.title).map_err(|e| refused("the molecule's title", e))?;
    check_text("description", &r.description).map_err(|e| refused("the description", e))?;
    for s in &r.steps {
        let what = format!("step {:?}", s.key);
        check_title(&s.title).map_err(|e| refused(&what, e))?;
        check_text("description", &s.description).map_err(|e| refused(&what, e))?;
        if let Some(a) = &s.acceptance {
            check_text("acceptance", a).map_err(|e| refused(&what, e))?;
        }
    }
    let root_only = root_only || cooked.as_ref().is_some_and(|c| c.pour == Some(false));
    Ok(Prepared {
        name: formula.name.clone(),
        version: formula.version,
        rendered: r,
        cooked,
        root_only,
    })
}

impl Prepared {
    /// The id of this molecule bonded under `parent` with child ref `given` (bd's
    /// `--ref`): `<parent>.<ref>`, the ref's `{{name}}`s filled from `vars` and the
    /// formula's values. Refused unless it and its steps' ids are bead ids, and when
    /// the ref is a number (the store's own children are numbered).
    pub(crate) fn id_under(
        &self,
        parent: &BeadId,
        given: &str,
        vars: &BTreeMap<String, String>,
    ) -> Result<BeadId> {
        let bad = |problem| MoleculeError::BadRef {
            given: given.to_owned(),
            parent: parent.clone(),
            problem,
        };
        let mut values = self.rendered.values.clone();
        values.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        let made = fill_known(given, &values);
        if let Some(name) = made.split("{{").nth(1).and_then(|r| r.split("}}").next()) {
            return Err(bad(RefProblem::Unset(name.trim().to_owned())).into());
        }
        if made
            .split('.')
            .any(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(bad(RefProblem::Number(made)).into());
        }
        let id = format!("{parent}.{made}");
        let last = format!("{id}.{}", self.rendered.steps.len());
        match (BeadId::parse(&id), BeadId::parse(&last)) {
            (Ok(id), Ok(_)) => Ok(id),
            _ => Err(bad(RefProblem::NotAnId(made)).into()),
        }
    }
}

/// Where and how a prepared formula is written.
pub(crate) struct Placement<'a> {
    /// `refs/beads/main`, read before the transaction (for wisp ids).
    pub main: &'a View<'a>,
    /// The prefix of new ids.
    pub prefix: &'a Prefix,
    /// Whether the molecule is a wisp.
    pub wisp: bool,
    /// Who works on it.
    pub assignee: Option<&'a str>,
    /// A dependency the molecule takes (a bond).
    pub bond: Option<Dependency>,
    /// The molecule's id, when it is not a fresh one (a bond under a ref): it and its
    /// steps' ids must be free.
    pub id: Option<BeadId>,
}

/// Writes prepared formula `p` into `tx`: the molecule bead and one bead per step (or
/// the steps as the molecule's checklist). Sets no commit message.
pub(crate) fn write_molecule(
    tx: &mut Tx<'_>,
    actor: &Actor,
    p: &Prepared,
    at: &Placement<'_>,
) -> Result<Poured> {
    let r = &p.rendered;
    let when = now();
    let id = match &at.id {
        Some(id) => {
            let steps = if p.root_only { 0 } else { r.steps.len() };
            for taken in std::iter::once(id.clone()).chain((1..=steps).map(|n| child(id, n))) {
                if tx.bead_exists(&taken)? || at.main.bead_exists(&taken)? {
                    return Err(BeadError::Taken(taken).into());
                }
            }
            id.clone()
        }
        None if at.wisp => wisp_id(at.main, tx, at.prefix, &r.title, actor)?,
        None => fresh_id(tx, at.prefix, &r.title, actor)?,
    };
    let mut mol = Bead::new(id.clone(), r.title.clone(), &actor.id, when);
    mol.kind = BeadType::Molecule;
    mol.description = r.description.clone();
    mol.assignee = at.assignee.map(str::to_owned);
    if let Some(d) = &at.bond {
        mol.add_dependency(d.clone());
    }
    mol.extra.insert(FORMULA_KEY.into(), json!(p.name.as_str()));
    mol.extra
        .insert(FORMULA_VERSION_KEY.into(), json!(p.version));
    if !r.values.is_empty() {
        mol.extra.insert(VARIABLES_KEY.into(), json!(r.values));
    }
    if at.wisp {
        mol.extra.insert(EPHEMERAL_KEY.into(), json!(true));
    }
    if let Some(c) = &p.cooked {
        mol.extra.insert(FORMULA_TYPE_KEY.into(), json!(c.kind));
        if let Some(ph) = &c.phase {
            mol.extra.insert(PHASE_KEY.into(), json!(ph));
        }
        if !c.expected.is_empty() {
            mol.extra.insert(EXPECTED_KEY.into(), json!(c.expected));
        }
    }
    if p.root_only {
        mol.extra.insert(CHECKLIST_KEY.into(), json!(checklist(r)));
        tx.put_bead(&mol)?;
        return Ok(poured(mol, Vec::new(), tx.ref_name(), p));
    }
    let ids: Vec<BeadId> = (1..=r.steps.len()).map(|n| child(&id, n)).collect();
    let mut steps = Vec::with_capacity(r.steps.len());
    for (s, sid) in r.steps.iter().zip(&ids) {
        let mut b = Bead::new(sid.clone(), s.title.clone(), &actor.id, when);
        b.description = s.description.clone();
        b.assignee = s
            .assignee
            .clone()
            .or_else(|| at.assignee.map(str::to_owned));
        b.notes = s.notes.clone();
        if let Some(k) = s.kind {
            b.kind = k;
        }
        if let Some(pr) = s.priority {
            b.priority = pr;
        }
        b.labels.extend(s.labels.iter().cloned());
        b.extra.extend(s.extra.clone());
        b.add_dependency(Dependency {
            id: id.clone(),
            kind: DepKind::ParentChild,
        });
        for &n in &s.needs {
            b.add_dependency(Dependency {
                id: ids[n].clone(),
                kind: DepKind::Blocks,
            });
        }
        b.extra.insert(STEP_KEY.into(), json!(s.key.as_str()));
        if let Some(a) = &s.acceptance {
            b.extra.insert(ACCEPTANCE_KEY.into(), json!(a));
        }
        if at.wisp {
            b.extra.insert(EPHEMERAL_KEY.into(), json!(true));
        }
        steps.push(b);
    }
    super::waits::wire_waiters(&mut steps, &r.steps);
    tx.put_beads(&steps)?;
    tx.put_bead(&mol)?;
    Ok(poured(mol, steps, tx.ref_name(), p))
}

fn poured(molecule: Bead, steps: Vec<Bead>, store_ref: RefName, p: &Prepared) -> Poured {
    let cooked = p.cooked.as_ref();
    Poured {
        molecule,
        steps,
        store_ref,
        attached: Vec::new(),
        vapor: cooked.and_then(|c| c.phase.as_deref()) == Some("vapor"),
        stale_overrides: cooked
            .map(|c| c.stale_overrides.clone())
            .unwrap_or_default(),
    }
}

/// One line of a molecule's checklist: a step that was not poured as a bead.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ChecklistItem {
    /// The step's id in its formula.
    pub step: String,
    /// Its title.
    pub title: String,
    /// What to do.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The steps it needs, by their ids in the formula.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
}

fn checklist(r: &Rendered) -> Vec<ChecklistItem> {
    r.steps
        .iter()
        .map(|s| ChecklistItem {
            step: s.key.clone(),
            title: s.title.clone(),
            description: s.description.clone(),
            needs: s.needs.iter().map(|&n| r.steps[n].key.clone()).collect(),
        })
        .collect()
}

/// The checklist of molecule `mol`: the steps of its formula that were not poured.
pub fn checklist_of(mol: &Bead) -> Vec<ChecklistItem> {
    mol.extra
        .get(CHECKLIST_KEY)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// The variables formula `found` declares, of `vars`.
pub(crate) fn declared(
    found: &FoundFormula,
    vars: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    vars.iter()
        .filter(|(k, _)| found.formula.variables.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Pours formula `found` into a molecule bead plus one bead per step, in one commit
/// (on the wisp ref when `opts.wisp`), with the formulas of `opts.attach` poured and
/// bonded to it in the same commit.
pub fn pour(
    store: &Store,
    actor: &Actor,
    found: &FoundFormula,
    opts: &PourOptions,
) -> Result<Poured> {
    permit(actor, Capability::Create)?;
    if let Some(a) = &opts.assignee {
        check_name("assignee", a)?;
    }
    let p = prepare(store, found, &opts.vars, opts.root_only)?;
    let attached: Vec<Prepared> = opts
        .attach
        .iter()
        .map(|f| prepare(store, f, &declared(f, &opts.vars), opts.root_only))
        .collect::<Result<_>>()?;
    // Reading main first also refuses a pour before `init`, wisps included.
    let main = store.view()?;
    let prefix = main.meta()?.prefix;
    let target = if opts.wisp { refs::WISPS } else { refs::MAIN };
    let (poured, _) = store.transact_on(target, actor, |tx| {
        let mut place = Placement {
            main: &main,
            prefix: &prefix,
            wisp: opts.wisp,
            assignee: opts.assignee.as_deref(),
            bond: None,
            id: None,
        };
        let mut out = write_molecule(tx, actor, &p, &place)?;
        place.bond = Some(opts.attach_kind.dependency(&out.molecule.id));
        for a in &attached {
            out.attached.push(write_molecule(tx, actor, a, &place)?);
        }
        let mut message = format!(
            "{} {}: {}\n\nformula {} v{}, {}",
            if opts.wisp { "wisp" } else { "pour" },
            out.molecule.id,
            out.molecule.title,
            p.name,
            p.version,
            count(out.steps.len(), "step")
        );
        for (a, m) in attached.iter().zip(&out.attached) {
            message.push_str(&format!(
                "\nattached {} ({} v{}, {}, {})",
                m.molecule.id,
                a.name,
                a.version,
                opts.attach_kind.as_str(),
                count(m.steps.len(), "step")
            ));
        }
        tx.set_message(message);
        Ok::<_, OpError>(out)
    })?;
    Ok(poured)
}

/// A read-only view of the ref holding molecule `id`, and the molecule.
fn load_molecule<'s>(store: &'s Store, id: &BeadId) -> Result<(View<'s>, Bead)> {
    let on = locate(store, id)?;
    let tx = if on == refs::MAIN {
        store.view()?
    } else {
        store.view_of(refs::WISPS)?
    };
    let bead = super::require(&tx, id)?;
    require_molecule(&tx, &bead)?;
    Ok((tx, bead))
}

/// Fails unless `bead` is a molecule, naming its molecule when it is a step of one.
fn require_molecule(tx: &View<'_>, bead: &Bead) -> Result<()> {
    if bead.kind == BeadType::Molecule {
        return Ok(());
    }
    let step_of = match bead.parent() {
        Some(p) if tx.bead(p)?.is_some_and(|m| m.kind == BeadType::Molecule) => Some(p.clone()),
        _ => None,
    };
    Err(MoleculeError::NotAMolecule {
        id: bead.id.clone(),
        kind: bead.kind,
        step_of,
    }
    .into())
}

/// The progress of molecule (or wisp) `id`.
pub fn molecule_progress(store: &Store, id: &BeadId) -> Result<Progress> {
    let (tx, mol) = load_molecule(store, id)?;
    progress(&tx, &mol)?.ok_or_else(|| MoleculeError::NoProgress(id.clone()).into())
}

/// Where a molecule stands and the step(s) that can be worked now.
#[derive(Clone, Debug)]
pub struct Current {
    /// Where the molecule stands.
    pub progress: Progress,
    /// Where it stands, in words ("step 3 of 5 (…)").
    pub position: String,
    /// The molecule bead.
    pub molecule: Bead,
    /// Every step bead in full, in step order (as `progress.steps` lists them).
    pub all_steps: Vec<Bead>,
}

impl Current {
    /// The step beads that can be worked now, in step order.
    pub fn ready(&self) -> impl Iterator<Item = &Bead> {
        (self.all_steps.iter())
            .zip(&self.progress.steps)
            .filter(|(_, s)| s.ready)
            .map(|(b, _)| b)
    }
}

/// The first unfinished molecule on the hook of the acting agent.
fn hooked_molecule(store: &Store, actor: &Actor) -> Result<BeadId> {
    let Some(name) = &actor.agent else {
        return Err(MoleculeError::NoHook(actor.id.clone()).into());
    };
    let view = store.view()?;
    let agent = load(&view, name)?;
    let mut finished = None;
    for id in &agent.hook {
        if let Some(b) = view.bead(id)?
            && b.kind == BeadType::Molecule
        {
            if !b.status.is_done() {
                return Ok(b.id);
            }
            finished.get_or_insert(b.id);
        }
    }
    finished.ok_or_else(|| MoleculeError::NothingHooked(name.clone()).into())
}

/// The step(s) of molecule `id` (default: the one on the acting agent's hook) that
/// can be worked now.
pub fn current(store: &Store, actor: &Actor, id: Option<&BeadId>) -> Result<Current> {
    let id = match id {
        Some(id) => id.clone(),
        None => hooked_molecule(store, actor)?,
    };
    let (tx, mol) = load_molecule(store, &id)?;
    let p = progress(&tx, &mol)?.ok_or_else(|| MoleculeError::NoProgress(id.clone()))?;
    let mut all_steps = Vec::new();
    for s in &p.steps {
        all_steps.push(super::require(&tx, &s.id)?);
    }
    Ok(Current {
        position: p.position(),
        progress: p,
        molecule: mol,
        all_steps,
    })
}

/// Every molecule (unfinished ones unless `all`), stored and wisps, with its progress.
pub fn list_molecules(store: &Store, all: bool) -> Result<Vec<Progress>> {
    let mut out = Vec::new();
    for tx in [store.view()?, store.view_of(refs::WISPS)?] {
        for b in molecule_beads(&tx, all)? {
            if let Some(p) = progress(&tx, &b)? {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// The wisps' molecule beads, unfinished ones (every one with `all`), by id: bd's
/// `mol wisp list`.
pub fn list_wisps(store: &Store, all: bool) -> Result<Vec<Bead>> {
    molecule_beads(&store.view_of(refs::WISPS)?, all)
}

/// The molecule beads `tx` holds, unfinished ones (every one with `all`), by id.
fn molecule_beads(tx: &View<'_>, all: bool) -> Result<Vec<Bead>> {
    if tx.head().is_none() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<String> = tx
        .index()?
        .rows()
        .filter(|s| s.kind() == BeadType::Molecule)
        .filter(|s| s.status() != Status::Deleted && (all || !s.status().is_done()))
        .map(|s| s.id().to_owned())
        .collect();
    ids.sort_unstable();
    let mut beads = Vec::new();
    for id in ids {
        if let Some(b) = tx.bead(&BeadId::parse(&id)?)? {
            beads.push(b);
        }
    }
    Ok(beads)
}

/// What a squash made.
#[derive(Clone, Debug, Serialize)]
pub struct Squashed {
    /// The one-bead summary, on `refs/beads/main`.
    pub summary: Bead,
    /// The molecule (or wisp) squashed.
    pub from: BeadId,
    /// Whether it was a wisp (whose data is now gone from the wisp ref).
    pub wisp: bool,
    /// How many steps it had.
    pub steps: usize,
}

/// Fails unless every step of `mol` is finished (and it was not squashed already).
fn require_finished(mol: &Bead, steps: &[Bead]) -> Result<()> {
    if mol.extra.contains_key(SQUASHED_STEPS_KEY) {
        return Err(MoleculeError::Squashed(mol.id.clone()).into());
    }
    let done = steps.iter().filter(|s| s.status.is_done()).count();
    if steps.is_empty() || done < steps.len() {
        return Err(MoleculeError::Unfinished {
            id: mol.id.clone(),
            done,
            total: steps.len(),
            next: steps
                .iter()
                .find(|s| !s.status.is_done())
                .map(|s| (s.id.clone(), s.title.clone())),
            wisp: mol.id.as_str().contains(&format!("-{WISP_MARK}")),
        }
        .into());
    }
    Ok(())
}

/// The summary text of a finished molecule: its description, then one line per step.
fn digest(mol: &Bead, steps: &[Bead], wisp: bool) -> String {
    let mut out = String::new();
    if !mol.description.trim().is_empty() {
        out.push_str(mol.description.trim_end());
        out.push_str("\n\n");
    }
    let formula = match (
        extra_str(mol, FORMULA_KEY),
        mol.extra.get(FORMULA_VERSION_KEY),
    ) {
        (Some(f), Some(v)) => format!(" (formula {f} v{v})"),
        (Some(f), None) => format!(" (formula {f})"),
        _ => String::new(),
    };
    out.push_str(&format!(
        "Squashed from {} {}{formula}: {}.\n",
        if wisp { "wisp" } else { "molecule" },
        mol.id,
        count(steps.len(), "step")
    ));
    for s in steps {
        let when = s.closed_at.unwrap_or(s.updated_at).format("%Y-%m-%d %H:%M");
        let reason = s
            .close_reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "- {} {} ({} {when} by {}{reason})\n",
            s.id, s.title, s.status, s.updated_by
        ));
    }
    out
}

/// Squashes a finished molecule or wisp into a one-bead summary on
/// `refs/beads/main`. A stored molecule becomes its own summary (its steps become
/// tombstones, so that the squash syncs); a wisp's summary is a new bead (id
/// `<prefix>-<hash>` of wisp `<prefix>-wisp-<hash>`) and the wisp is removed from the
/// wisp ref. A squash of a wisp that was interrupted can be run again. Squashing is
/// the end of finishing work: a stored molecule's squash needs `close`, a wisp's
/// `create` too (its summary is a new bead).
pub fn squash(store: &Store, actor: &Actor, id: &BeadId) -> Result<Squashed> {
    if locate(store, id)? == refs::MAIN {
        permit(actor, Capability::Close)?;
        squash_stored(store, actor, id)
    } else {
        permit(actor, Capability::Create)?;
        permit(actor, Capability::Close)?;
        squash_wisp(store, actor, id)
    }
}

fn squash_stored(store: &Store, actor: &Actor, id: &BeadId) -> Result<Squashed> {
    super::write(store, actor, |tx| {
        let mut mol = super::require(tx, id)?;
        require_molecule(tx, &mol)?;
        let steps = steps(tx, id)?;
        require_finished(&mol, &steps)?;
        let at = now();
        mol.description = digest(&mol, &steps, false);
        if mol.status != Status::Closed {
            mol.status = Status::Closed;
            mol.closed_at = Some(at);
            mol.close_reason = Some(format!("all {} done", count(steps.len(), "step")));
        }
        mol.extra
            .insert(SQUASHED_STEPS_KEY.into(), json!(steps.len()));
        mol.touch(&actor.id, at);
        tx.put_bead(&mol)?;
        for mut s in steps.iter().cloned() {
            s.status = Status::Deleted;
            s.deleted_at = Some(at);
            s.deleted_by = Some(actor.id.clone());
            s.delete_reason = Some(format!("squashed into {id}"));
            s.touch(&actor.id, at);
            tx.put_bead(&s)?;
        }
        tx.set_message(format!(
            "squash {id}: {} ({})",
            mol.title,
            count(steps.len(), "step")
        ));
        Ok(Squashed {
            summary: mol,
            from: id.clone(),
            wisp: false,
            steps: steps.len(),
        })
    })
}

/// The id of the summary of wisp `id`: `<prefix>-<hash>` for `<prefix>-wisp-<hash>`.
fn summary_id(id: &BeadId) -> Option<BeadId> {
    let (prefix, hash) = id.as_str().split_once(&format!("-{WISP_MARK}"))?;
    BeadId::parse(&format!("{prefix}-{hash}")).ok()
}

fn squash_wisp(store: &Store, actor: &Actor, id: &BeadId) -> Result<Squashed> {
    let wisps = store.view_of(refs::WISPS)?;
    let mol = super::require(&wisps, id)?;
    require_molecule(&wisps, &mol)?;
    let steps = steps(&wisps, id)?;
    require_finished(&mol, &steps)?;
    // The summary lands on main first: a squash cut short after it leaves the wisp in
    // place, and running it again finds the summary instead of making a second one.
    let summary = super::write(store, actor, |tx| {
        let wanted = summary_id(id).filter(|s| s.as_str() != id.as_str());
        if let Some(s) = &wanted
            && let Some(existing) = tx.bead(s)?
            && extra_str(&existing, SQUASHED_FROM_KEY).as_deref() == Some(id.as_str())
        {
            return Ok(existing);
        }
        let sid = match wanted {
            Some(s) if !tx.bead_exists(&s)? => s,
            _ => fresh_id(tx, &tx.meta()?.prefix, &mol.title, actor)?,
        };
        let at = now();
        let mut b = Bead::new(sid, mol.title.clone(), &mol.created_by, mol.created_at);
        b.kind = BeadType::Molecule;
        b.priority = mol.priority;
        b.assignee = mol.assignee.clone();
        b.labels = mol.labels.clone();
        b.description = digest(&mol, &steps, true);
        b.status = Status::Closed;
        b.closed_at = Some(at);
        b.close_reason = Some(format!(
            "squashed from wisp {id}: all {} done",
            count(steps.len(), "step")
        ));
        for key in [FORMULA_KEY, FORMULA_VERSION_KEY, VARIABLES_KEY] {
            if let Some(v) = mol.extra.get(key) {
                b.extra.insert(key.into(), v.clone());
            }
        }
        b.extra.insert(SQUASHED_FROM_KEY.into(), json!(id.as_str()));
        b.extra
            .insert(SQUASHED_STEPS_KEY.into(), json!(steps.len()));
        b.touch(&actor.id, at);
        tx.put_bead(&b)?;
        tx.set_message(format!(
            "squash wisp {id} into {}: {} ({})",
            b.id,
            b.title,
            count(steps.len(), "step")
        ));
        Ok(b)
    })?;
    remove_wisp(store, actor, id, &format!("squashed into {}", summary.id))?;
    Ok(Squashed {
        summary,
        from: id.clone(),
        wisp: true,
        steps: steps.len(),
    })
}

/// Removes wisp `id` and every bead below it from the wisp ref, in one commit;
/// returns how many steps went with it.
fn remove_wisp(store: &Store, actor: &Actor, id: &BeadId, why: &str) -> Result<usize> {
    let (n, _) = store.transact_on(refs::WISPS, actor, |tx| {
        let below = format!("{id}.");
        let children: Vec<BeadId> = tx
            .bead_ids_near(id)?
            .iter()
            .filter(|c| c.starts_with(&below))
            .filter_map(|c| BeadId::parse(c).ok())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let steps = steps(tx, id)?.len();
        let title = tx.bead(id)?.map(|b| b.title).unwrap_or_default();
        for c in &children {
            tx.remove_bead(c);
        }
        if tx.bead_exists(id)? {
            tx.remove_bead(id);
        }
        tx.set_message(format!(
            "{why}: wisp {id}: {title} ({})",
            count(steps, "step")
        ));
        Ok::<_, OpError>(steps)
    })?;
    Ok(n)
}

/// What a burn discarded.
#[derive(Clone, Debug, Serialize)]
pub struct Burned {
    /// The wisp.
    pub molecule: BeadId,
    /// Its title.
    pub title: String,
    /// How many steps went with it.
    pub steps: usize,
}

/// Discards wisp `id` and its steps, finished or not. Stored molecules are refused:
/// they are shared, and `git beads delete` tombstones them so that the deletion syncs.
pub fn burn(store: &Store, actor: &Actor, id: &BeadId) -> Result<Burned> {
    permit(actor, Capability::Delete)?;
    if locate(store, id)? == refs::MAIN {
        return Err(MoleculeError::NotAWisp {
            id: id.clone(),
            stored_in: refs::MAIN,
        }
        .into());
    }
    let wisps = store.view_of(refs::WISPS)?;
    let mol = super::require(&wisps, id)?;
    require_molecule(&wisps, &mol)?;
    let steps = remove_wisp(store, actor, id, "burn")?;
    Ok(Burned {
        molecule: id.clone(),
        title: mol.title,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_wisp_summary_ids_drop_the_mark() {
        let w = BeadId::parse("bd-wisp-k3x9").expect("id");
        assert_eq!(summary_id(&w).map(String::from).as_deref(), Some("bd-k3x9"));
        assert_eq!(w.fanout(), "k3");
        let dashed = BeadId::parse("my-app-wisp-ab12").expect("id");
        assert_eq!(
            summary_id(&dashed).map(String::from).as_deref(),
            Some("my-app-ab12")
        );
    }
}
