//! Gates: beads (type gate) that a formula's step waits for, resolved by a person
//! (`human`), by time (`timer`, resolved when read after its timeout), by mail, by
//! GitHub (`gh:pr`, `gh:run`, asked through the `gh` CLI where it is installed), or by
//! a condition over the molecule's steps (`conditional`, from `compose.gate`: resolved
//! when read and found to hold).

use std::collections::BTreeMap;

use serde_json::Value;

use super::bond::{BONDED_KEY, OUTPUT_KEY};
use super::molecule::{STEP_KEY, VARIABLES_KEY};
use super::{MoleculeError, Result, now};
use crate::model::{
    Actor, Bead, BeadId, BeadType, Condition, Facts, Gate, Status, StepFacts, Timestamp,
    parse_duration,
};
use crate::settings;
use crate::store::refs::{self, RefName};
use crate::store::{Store, View};

/// The key, in a gate bead's `extra`, of what it waits for.
pub const GATE_KEY: &str = "gate";

/// Where a gate stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateStatus {
    /// Open, waiting for what it names.
    Waiting,
    /// Resolved: its step may go on.
    Resolved,
    /// It waits on a tool that is not installed here (`gh`).
    Unavailable,
}

impl GateStatus {
    /// The word for it: `waiting`, `resolved`, `unavailable`.
    pub fn as_str(self) -> &'static str {
        match self {
            GateStatus::Waiting => "waiting",
            GateStatus::Resolved => "resolved",
            GateStatus::Unavailable => "unavailable",
        }
    }
}

/// A gate and where it stands.
#[derive(Clone, Debug)]
pub struct GateState {
    /// The gate bead.
    pub bead: Bead,
    /// What it waits for.
    pub gate: Gate,
    /// Where it stands.
    pub state: GateStatus,
    /// The molecule it belongs to.
    pub molecule: Option<BeadId>,
    /// When a timer gate opens.
    pub opens_at: Option<Timestamp>,
    /// Whether it is in a wisp.
    pub wisp: bool,
}

/// What the gate bead `b` waits for (a gate bead without one waits for a person).
fn gate_of(b: &Bead) -> Gate {
    b.extra
        .get(GATE_KEY)
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_else(|| Gate {
            kind: "human".into(),
            ..Gate::default()
        })
}

/// Asks `gh` whether a gh:pr or gh:run gate is met: `Some(true)` met, `Some(false)`
/// not yet, `None` when `gh` is not installed or cannot answer.
fn ask_gh(gate: &Gate) -> Option<bool> {
    let id = gate.await_id.as_deref().or(gate.id.as_deref())?;
    let (what, field, met): (&str, &str, &[&str]) = match gate.kind.as_str() {
        "gh:pr" => ("pr", "state", &["MERGED"]),
        "gh:run" => ("run", "conclusion", &["success"]),
        _ => return None,
    };
    let out = std::process::Command::new("gh")
        .args([
            what,
            "view",
            id,
            "--json",
            field,
            "--jq",
            &format!(".{field}"),
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let answer = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Some(met.contains(&answer.as_str()))
}

/// bd's word for where a step stands in a condition.
fn status_word(s: Status) -> &'static str {
    match s {
        Status::Closed => "complete",
        Status::InProgress => "in_progress",
        _ => "pending",
    }
}

fn facts_of(b: &Bead) -> StepFacts {
    StepFacts {
        status: status_word(b.status).to_owned(),
        output: b.extra.get(OUTPUT_KEY).cloned(),
        children: Vec::new(),
    }
}

/// Whether the condition of conditional gate `b` holds now, evaluated over its
/// molecule's steps (by their ids in the formula; a step's children are those cooked
/// as its children and the molecules bonded onto it); `None` when it does not parse.
fn condition_met(store: &Store, tx: &View<'_>, b: &Bead, gate: &Gate) -> Result<Option<bool>> {
    let Some(cond) = gate.condition.as_deref().and_then(Condition::parse) else {
        return Ok(None);
    };
    let mut steps: BTreeMap<String, StepFacts> = BTreeMap::new();
    let mut vars = BTreeMap::new();
    if let Some(m) = b.parent()
        && let Some(mol) = tx.bead(m)?
    {
        vars = mol
            .extra
            .get(VARIABLES_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        let beads = super::molecule::steps(tx, m)?;
        let key = |s: &Bead| {
            s.extra
                .get(STEP_KEY)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        for s in &beads {
            let Some(k) = key(s) else { continue };
            let mut f = facts_of(s);
            for id in s
                .extra
                .get(BONDED_KEY)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let bonded = id.as_str().and_then(|i| BeadId::parse(i).ok());
                if let Some(c) = bonded.map(|i| tx.bead(&i)).transpose()?.flatten() {
                    f.children.push(c.id.to_string());
                    steps.insert(c.id.to_string(), facts_of(&c));
                }
            }
            steps.insert(k, f);
        }
        for s in &beads {
            let parent = s.extra.get("metadata").and_then(|m| m.get("parent_step"));
            if let (Some(k), Some(Value::String(p))) = (key(s), parent)
                && let Some(f) = steps.get_mut(p)
            {
                f.children.push(k);
            }
        }
    }
    let current = b
        .extra
        .get(STEP_KEY)
        .and_then(Value::as_str)
        .map(|k| k.strip_suffix(".gate").unwrap_or(k).to_owned())
        .unwrap_or_default();
    let top = store.workdir();
    let file_exists = |p: &str| top.as_ref().is_some_and(|t| t.join(p).exists());
    let env = |n: &str| settings::env(n).map(|v| v.to_string_lossy().into_owned());
    Ok(Some(cond.holds(&Facts {
        steps: &steps,
        current: &current,
        vars: &vars,
        file_exists: &file_exists,
        env: &env,
    })))
}

/// Where gate `b` stands now, and when a timer gate opens.
fn state_of(
    store: &Store,
    tx: &View<'_>,
    b: &Bead,
    gate: &Gate,
) -> Result<(GateStatus, Option<Timestamp>)> {
    if b.status.is_done() {
        return Ok((GateStatus::Resolved, None));
    }
    if gate.kind == "conditional" {
        let met = condition_met(store, tx, b, gate)? == Some(true);
        return Ok((
            if met {
                GateStatus::Resolved
            } else {
                GateStatus::Waiting
            },
            None,
        ));
    }
    Ok(match gate.kind.as_str() {
        "timer" => {
            let opens = gate
                .timeout
                .as_deref()
                .and_then(|t| parse_duration(t).ok())
                .and_then(|secs| chrono::TimeDelta::try_seconds(i64::try_from(secs).ok()?))
                .and_then(|d| b.created_at.checked_add_signed(d));
            match opens {
                Some(at) if at <= now() => (GateStatus::Resolved, Some(at)),
                other => (GateStatus::Waiting, other),
            }
        }
        "gh:pr" | "gh:run" => match ask_gh(gate) {
            Some(true) => (GateStatus::Resolved, None),
            Some(false) => (GateStatus::Waiting, None),
            None => (GateStatus::Unavailable, None),
        },
        _ => (GateStatus::Waiting, None),
    })
}

/// The gate beads of one store ref (unfinished ones unless `all`).
fn gates_on(store: &Store, on: RefName, all: bool) -> Result<Vec<GateState>> {
    let tx = store.view_of(on)?;
    if tx.head().is_none() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<String> = tx
        .index()?
        .rows()
        .filter(|r| r.kind() == BeadType::Gate && r.status() != Status::Deleted)
        .filter(|r| all || !r.status().is_done())
        .map(|r| r.id().to_owned())
        .collect();
    ids.sort_unstable();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(b) = tx.bead(&BeadId::parse(&id)?)? else {
            continue;
        };
        let gate = gate_of(&b);
        let (state, opens_at) = state_of(store, &tx, &b, &gate)?;
        out.push(GateState {
            molecule: b.parent().cloned(),
            bead: b,
            gate,
            state,
            opens_at,
            wisp: on == refs::WISPS,
        });
    }
    Ok(out)
}

/// Every gate, stored and in wisps (unfinished ones unless `all`; only human gates
/// when `human`). Gates found met (a timer that ran out, a merged pull request) are
/// resolved as they are read, in one commit per ref.
pub fn gates(store: &Store, actor: &Actor, all: bool, human: bool) -> Result<Vec<GateState>> {
    let mut out = Vec::new();
    for on in [refs::MAIN, refs::WISPS] {
        let mut found = gates_on(store, on, all)?;
        let met: Vec<BeadId> = found
            .iter()
            .filter(|g| g.state == GateStatus::Resolved && !g.bead.status.is_done())
            .map(|g| g.bead.id.clone())
            .collect();
        if !met.is_empty() && super::permit(actor, crate::model::Capability::Close).is_ok() {
            super::close(store, actor, &met, Some("gate met"))?;
            found = gates_on(store, on, all)?;
        }
        out.extend(found);
    }
    if human {
        out.retain(|g| g.gate.kind == "human");
    }
    Ok(out)
}

/// Resolves gate `id` by hand (closing it, so that its step can be worked).
pub fn resolve_gate(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    reason: Option<&str>,
) -> Result<GateState> {
    let on = super::molecule::locate(store, id)?;
    let bead = super::require(&store.view_of(on)?, id)?;
    if bead.kind != BeadType::Gate {
        return Err(MoleculeError::NotAGate {
            id: id.clone(),
            kind: bead.kind,
        }
        .into());
    }
    if !bead.status.is_done() {
        super::close(
            store,
            actor,
            std::slice::from_ref(id),
            Some(reason.unwrap_or("resolved")),
        )?;
    }
    let bead = super::require(&store.view_of(on)?, id)?;
    let gate = gate_of(&bead);
    Ok(GateState {
        molecule: bead.parent().cloned(),
        state: GateStatus::Resolved,
        bead,
        gate,
        opens_at: None,
        wisp: on == refs::WISPS,
    })
}
