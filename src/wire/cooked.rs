//! The JSON of bd's formula language: what `formula cook` would pour, and the gates
//! of `gate list` and `human`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Doc, Documented, Field, Shape};
use crate::model::{Cooked, CookedStep, Gate};
use crate::ops::GateState;

/// One step of a cooked formula.
#[derive(Serialize)]
pub struct CookedStepLine<'a> {
    id: &'a str,
    title: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<u8>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    labels: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    needs: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gate: Option<&'a Gate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<&'a str>,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    acceptance: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    expected: &'a [String],
}

/// What pouring a formula would make: `formula cook`.
#[derive(Serialize)]
pub struct CookedFormula<'a> {
    formula: &'a str,
    version: u32,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<&'a str>,
    title: &'a str,
    description: &'a str,
    variables: &'a BTreeMap<String, String>,
    steps: Vec<CookedStepLine<'a>>,
    expected: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stale_overrides: &'a [String],
}

fn step_line<'a>(c: &'a Cooked, s: &'a CookedStep) -> CookedStepLine<'a> {
    CookedStepLine {
        id: &s.key,
        title: &s.title,
        kind: s.kind.as_deref().unwrap_or("task"),
        priority: s.priority,
        labels: &s.labels,
        assignee: s.assignee.as_deref(),
        needs: s.needs.iter().map(|&n| c.steps[n].key.as_str()).collect(),
        gate: s.gate.as_ref(),
        condition: s.condition.as_deref(),
        description: &s.description,
        acceptance: s.acceptance.as_deref(),
        expected: &s.expected,
    }
}

impl<'a> From<&'a Cooked> for CookedFormula<'a> {
    fn from(c: &'a Cooked) -> Self {
        CookedFormula {
            formula: &c.name,
            version: c.version,
            kind: &c.kind,
            phase: c.phase.as_deref(),
            title: &c.title,
            description: &c.description,
            variables: &c.values,
            steps: c.steps.iter().map(|s| step_line(c, s)).collect(),
            expected: &c.expected,
            stale_overrides: &c.stale_overrides,
        }
    }
}

impl Documented for CookedFormula<'_> {
    const DOC: Doc = Doc {
        shape: Shape::Object,
        commands: "formula cook",
        fields: &[
            Field::new("formula"),
            Field::new("version"),
            Field::noted("type", "workflow, expansion, aspect or convoy"),
            Field::optional("phase"),
            Field::new("title"),
            Field::new("description"),
            Field::noted("variables", "each variable's value"),
            Field::noted(
                "steps",
                "in pour order: id, title, type, needs (ids), and priority, labels, assignee, gate, condition, description, acceptance, expected when set",
            ),
            Field::noted(
                "expected",
                "what the formula expects that has no meaning here",
            ),
            Field::optional_noted(
                "stale_overrides",
                "step ids its overlay names that are not its steps, when any",
            ),
        ],
    };
}

/// One gate: `gate list`, `human`, `gate resolve`.
#[derive(Serialize)]
pub struct GateLine<'a> {
    id: &'a str,
    title: &'a str,
    status: String,
    #[serde(rename = "type")]
    kind: &'a str,
    state: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    molecule: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    opens_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<&'a str>,
    wisp: bool,
}

impl<'a> From<&'a GateState> for GateLine<'a> {
    fn from(g: &'a GateState) -> Self {
        GateLine {
            id: g.bead.id.as_str(),
            title: &g.bead.title,
            status: g.bead.status.to_string(),
            kind: &g.gate.kind,
            state: g.state.as_str(),
            molecule: g.molecule.as_ref().map(|m| m.as_str()),
            opens_at: g.opens_at.map(|t| t.to_rfc3339()),
            condition: g.gate.condition.as_deref(),
            wisp: g.wisp,
        }
    }
}

/// Gates, a bare array: `gate list`, `human`.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Gates<'a> {
    /// The gates.
    pub gates: Vec<GateLine<'a>>,
}

impl Documented for Gates<'_> {
    const DOC: Doc = Doc {
        shape: Shape::ListOf(
            "gates: id, title, status, type, state (waiting, open, resolved, unavailable), wisp, and molecule, opens_at, condition when known",
        ),
        commands: "gate list, gate resolve, human",
        fields: &[],
    };
}
