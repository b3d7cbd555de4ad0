//! bd's and Gas Town's formula language: the `*.formula.toml` and `*.formula.json`
//! files that bd (`internal/formula/types.go`) and Gas Town ship, as data.
//!
//! Parsing from text happens here (TOML and JSON; YAML of the same shape is decoded by
//! the store's codec); finding the files is for `ops`, and expanding a formula into
//! the steps a pour makes is [`crate::model::cook`]. Fields that mean something to bd
//! or Gas Town but nothing here are kept (`extra`) and reported on what they belong
//! to, never refused.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::formula::{Formula, FormulaError, Step, Variable, one_or_many};

/// A formula in bd's language.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BdFormula {
    /// Its name (`formula = "…"`); empty when the file leaves it out.
    #[serde(default)]
    pub formula: String,
    /// What the workflow is for.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Its version.
    #[serde(default = "first_version")]
    pub version: u32,
    /// `workflow` (the default), `expansion`, `aspect` or `convoy`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Formulas whose variables and steps this one starts from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extends: Vec<String>,
    /// The variables, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, BdVar>,
    /// The steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<BdStep>,
    /// The steps an expansion puts in place of its target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub template: Vec<BdStep>,
    /// How other formulas are composed into this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compose: Option<Compose>,
    /// Steps an aspect adds before, after or around the steps it targets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<Advice>,
    /// The steps an aspect applies to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pointcuts: Vec<Pointcut>,
    /// `vapor` for a formula meant to run as a wisp; `liquid` or `solid` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Whether a vapor formula's steps are still poured as beads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pour: Option<bool>,
    /// A convoy's parallel legs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legs: Vec<Leg>,
    /// A convoy's synthesis of its legs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<Synthesis>,
    /// A convoy's inputs: variables under another name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, BdVar>,
    /// Everything else (Gas Town's `squash`, `prompts`, `output`, `presets`, …).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

fn first_version() -> u32 {
    1
}

/// A variable: a table, or a bare string that is its default.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BdVar {
    /// What the value means.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The value when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Whether a pour must be given a value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// The values allowed, when limited.
    #[serde(default, rename = "enum", skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
    /// A regular expression the value must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The kind of value (`string`, `int`, `bool`, …), as documentation.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Everything else (`required_unless`, …).
    #[serde(flatten, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

/// The table form of [`BdVar`].
#[derive(Deserialize)]
struct VarTable {
    #[serde(default)]
    description: String,
    #[serde(default)]
    default: Option<Value>,
    #[serde(default)]
    required: bool,
    #[serde(default, rename = "enum")]
    allowed: Vec<Value>,
    #[serde(default)]
    pattern: Option<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum VarForm {
    Table(VarTable),
    Bare(Value),
}

/// The text of a scalar (`3` → "3", `true` → "true").
pub(crate) fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl<'de> Deserialize<'de> for BdVar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match VarForm::deserialize(d)? {
            VarForm::Bare(v) => BdVar {
                default: Some(scalar_text(&v)),
                ..BdVar::default()
            },
            VarForm::Table(t) => BdVar {
                description: t.description,
                default: t.default.as_ref().map(scalar_text),
                required: t.required,
                allowed: t.allowed.iter().map(scalar_text).collect(),
                pattern: t.pattern,
                kind: t.kind,
                extra: t.extra,
            },
        })
    }
}

/// One step of a bd formula.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BdStep {
    /// Its id, unique in the formula.
    #[serde(default)]
    pub id: String,
    /// The step bead's title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// What to do.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Working notes for the step bead.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// The bead type (`task`, `bug`, `gate`, …).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its priority, 0 … 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// Its labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Free-form data kept on the step bead.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, Value>,
    /// Steps that must be closed first (bd's older spelling of `needs`).
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub depends_on: Vec<String>,
    /// Steps that must be closed first.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub needs: Vec<String>,
    /// `all-children` or `any-children`: what of its children the step waits for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits_for: Option<String>,
    /// Who works on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// An expansion formula to put in this step's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expand: Option<String>,
    /// Variables given to that expansion.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expand_vars: BTreeMap<String, String>,
    /// `{{var}}`, `!{{var}}`, `{{var}} == value` or `{{var}} != value`: the step is
    /// poured only when it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Steps within this one; it waits for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<BdStep>,
    /// What the step waits for besides other steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
    /// A loop: the body poured several times.
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Loop>,
    /// What happens when the step closes (bonding formulas, for each item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_complete: Option<OnComplete>,
    /// How to tell the step is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<String>,
    /// Everything else, kept and reported on the step.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// What a step waits for besides other steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// `human`, `timer`, `mail`, `gh:pr`, `gh:run`, or another kind (kept as written).
    #[serde(default, rename = "type")]
    pub kind: String,
    /// What it waits on: a workflow (gh:run), a subject (mail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id to await: a pull request or run number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_id: Option<String>,
    /// How long to wait (`30m`, `2h`, `1d`); a timer gate opens when it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// A condition evaluated at run time (Gas Town's conditional gates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A loop: its body poured `count` times, once per value of `range`, or once with
/// `until` and `max` recorded for the worker.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Loop {
    /// How many times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// A condition that ends the loop, checked by whoever works it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The most iterations of an `until` loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
    /// `START..END`, each an integer, `{var}` or a small expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// The variable each iteration of a range sets (`{name}` in the body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub var: Option<String>,
    /// The steps of one iteration.
    #[serde(default)]
    pub body: Vec<BdStep>,
}

/// What happens when a step closes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnComplete {
    /// The output list to iterate (`output.items`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_each: Option<String>,
    /// The formula bonded for each item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bond: Option<String>,
    /// Variables given to each bond.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    /// Run the bonds side by side.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub parallel: bool,
    /// Run the bonds one after another.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sequential: bool,
}

/// How other formulas are composed into one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Compose {
    /// Steps replaced by an expansion's template.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expand: Vec<ExpandRule>,
    /// Every step matching a glob replaced by an expansion's template.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub map: Vec<MapRule>,
    /// Steps run side by side between a fork and a join.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branch: Vec<Branch>,
    /// Conditional gates put before steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gate: Vec<GateRule>,
    /// Aspect formulas whose advice applies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aspects: Vec<String>,
    /// Everything else (`bond_points`, `hooks`), kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// `[[compose.expand]]`: one step replaced by an expansion.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExpandRule {
    /// The step replaced.
    pub target: String,
    /// The expansion formula.
    pub with: String,
    /// Variables given to it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
}

/// `[[compose.map]]`: every matching step replaced by an expansion.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MapRule {
    /// A glob over step ids (`*` matches anything).
    pub select: String,
    /// The expansion formula.
    pub with: String,
    /// Variables given to it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
}

/// `[[compose.branch]]`: steps that run side by side after `from`, joined by `join`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Branch {
    /// The step they all follow.
    pub from: String,
    /// The steps run side by side.
    pub steps: Vec<String>,
    /// The step that waits for all of them.
    pub join: String,
}

/// `[[compose.gate]]`: a conditional gate before a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateRule {
    /// The step gated.
    pub before: String,
    /// The condition, evaluated at run time.
    pub condition: String,
}

/// Advice of an aspect: steps added before, after or around the targets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    /// A glob over step ids.
    pub target: String,
    /// A step put before each target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<AdviceStep>,
    /// A step put after each target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<AdviceStep>,
    /// Steps put before and after each target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub around: Option<Around>,
}

/// A step that advice adds; `{step.id}` and `{step.title}` name the target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdviceStep {
    /// Its id (a template).
    pub id: String,
    /// Its title (a template).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// What to do (a template).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Its bead type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Everything else (`args`, `output`), kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// `around` advice: steps before and after the target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Around {
    /// Steps before the target, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<AdviceStep>,
    /// Steps after the target, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<AdviceStep>,
}

/// Which steps an aspect applies to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pointcut {
    /// A glob over step ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// A step type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// A label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// One leg of a convoy: work done side by side with the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Leg {
    /// Its id.
    pub id: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// What to do.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// What it concentrates on.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub focus: String,
    /// Everything else.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A convoy's synthesis: the step that brings its legs together.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Synthesis {
    /// Its title.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// What to do.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The legs it waits for (default: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The line (1-based) and column of byte `offset` in `source`.
fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Parses TOML text into `T`; the error carries the parser's line and column.
pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(source: &str) -> Result<T, FormulaError> {
    toml::from_str(source).map_err(|e| {
        let at = e.span().map(|s| line_col(source, s.start));
        FormulaError::Yaml {
            message: e.message().trim().to_owned(),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
        }
    })
}

impl BdFormula {
    /// Parses a `*.formula.toml` text; the error carries the parser's line.
    pub fn from_toml(source: &str) -> Result<BdFormula, FormulaError> {
        parse_toml(source)
    }

    /// Parses a `*.formula.json` text; the error carries the parser's line.
    pub fn from_json(source: &str) -> Result<BdFormula, FormulaError> {
        serde_json::from_str(source).map_err(|e| {
            let message = e.to_string();
            let message = message
                .split(" at line ")
                .next()
                .unwrap_or(&message)
                .to_owned();
            FormulaError::Yaml {
                message,
                line: Some(e.line()),
                column: Some(e.column()),
            }
        })
    }

    /// The formula as TOML text.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| e.to_string())
    }

    /// The formula as pretty JSON text.
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map_err(|e| e.to_string())
    }

    /// Its type, `workflow` when unset.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("workflow")
    }

    /// A git-beads formula written in bd's language: same name, variables and steps.
    pub fn from_formula(f: &Formula) -> BdFormula {
        BdFormula {
            formula: f.name.clone(),
            description: f.description.clone(),
            version: f.version,
            vars: f
                .variables
                .iter()
                .map(|(k, v)| {
                    let var = BdVar {
                        description: v.description.clone(),
                        default: v.default.clone(),
                        required: v.required,
                        ..BdVar::default()
                    };
                    (k.clone(), var)
                })
                .collect(),
            steps: f
                .steps
                .iter()
                .map(|s| BdStep {
                    id: s.id.clone(),
                    title: s.title.clone(),
                    description: s.description.clone(),
                    needs: s.needs.clone(),
                    acceptance: s.acceptance.clone(),
                    ..BdStep::default()
                })
                .collect(),
            extra: f
                .title
                .iter()
                .map(|t| ("title".to_owned(), Value::String(t.clone())))
                .collect(),
            ..BdFormula::default()
        }
    }

    /// The summary git-beads lists and shows: its name, description, version,
    /// variables (inputs included) and top-level steps with their needs.
    pub fn summary(&self) -> Formula {
        let variables = self
            .vars
            .iter()
            .chain(&self.inputs)
            .map(|(k, v)| {
                let var = Variable {
                    description: v.description.clone(),
                    required: v.required,
                    default: v.default.clone(),
                };
                (k.clone(), var)
            })
            .collect();
        let mut steps: Vec<Step> = self
            .steps
            .iter()
            .chain(&self.template)
            .map(|s| Step {
                id: s.id.clone(),
                title: s.title.clone(),
                description: s.description.clone(),
                needs: s.needs.iter().chain(&s.depends_on).cloned().collect(),
                acceptance: s.acceptance.clone(),
            })
            .collect();
        steps.extend(self.legs.iter().map(|l| Step {
            id: l.id.clone(),
            title: l.title.clone(),
            description: l.description.clone(),
            needs: Vec::new(),
            acceptance: None,
        }));
        Formula {
            name: self.formula.clone(),
            description: self.description.clone(),
            version: self.version,
            title: None,
            variables,
            steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_toml_vars_take_bare_strings_and_tables() {
        let f = BdFormula::from_toml(
            "formula = \"x\"\nversion = 1\n[vars]\na = \"d\"\n[vars.b]\nrequired = true\nenum = [\"p\", \"q\"]\n[vars.c]\ndefault = 3\n\n[[steps]]\nid = \"s\"\ntitle = \"t\"\ngt_command = \"gt done\"\n",
        )
        .expect("parses");
        assert_eq!(f.vars["a"].default.as_deref(), Some("d"));
        assert!(f.vars["b"].required);
        assert_eq!(f.vars["b"].allowed, ["p", "q"]);
        assert_eq!(f.vars["c"].default.as_deref(), Some("3"));
        assert_eq!(f.steps[0].extra["gt_command"], "gt done");
    }

    #[test]
    fn formula_toml_errors_carry_their_line() {
        let e = BdFormula::from_toml("formula = \"x\"\n[[steps]]\nid = \n").expect_err("bad");
        assert!(
            matches!(e, FormulaError::Yaml { line: Some(3), .. }),
            "{e:?}"
        );
        let e = BdFormula::from_json("{\"formula\": \"x\",\n\"steps\": 3}").expect_err("bad");
        assert!(
            matches!(e, FormulaError::Yaml { line: Some(2), .. }),
            "{e:?}"
        );
    }
}
