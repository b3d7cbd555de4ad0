//! Formulas: YAML templates of a workflow's steps, poured into molecules.
//!
//! This module holds the data types, the checks and the `{{variable}}` templates;
//! reading the YAML happens in the store's codec and finding the files in `ops`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// The example formula of [`FORMULA_FORMAT`], as a macro so that both constants
/// can be built from one literal.
macro_rules! formula_example {
    () => {
        r##"name: release
description: Cut a release of {{crate}}, from the version bump to the announcement.
version: 1
title: "Release {{crate}} {{version}}"
variables:
  crate:
    description: The crate to release.
    required: true
  version:
    description: The version to release, without a leading v.
    required: true
  channel:
    description: Where the release is announced.
    default: "#releases"
steps:
  - id: bump
    title: Bump {{crate}} to {{version}}
    description: |
      Set the version in Cargo.toml to {{version}} and refresh Cargo.lock.
    acceptance: cargo build passes.
  - id: changelog
    title: Write the changelog entry for {{version}}
    needs: [bump]
  - id: test
    title: Run the full test suite
    needs: [bump]
    acceptance: cargo test passes on every supported platform.
  - id: tag
    title: Tag v{{version}} and publish {{crate}}
    needs: [changelog, test]
  - id: announce
    title: Announce {{crate}} {{version}} in {{channel}}
    needs: tag
"##
    };
}

/// A complete example formula: five steps, with a fan-out (`changelog` and `test`
/// both need `bump`) and a fan-in (`tag` needs both).
pub const FORMULA_EXAMPLE: &str = formula_example!();

/// The reference of the formula format, with a complete example: the one text that
/// `git beads formula --help`, the manual page and the guide (docs/molecules.md) show.
pub const FORMULA_FORMAT: &str = concat!(
    r#"A formula is a YAML file that describes a workflow: its steps, which steps each
one needs first, and the variables filled in when it is poured into a molecule.

Where formulas are found:
  .beads/formulas/ in the worktree: every *.yaml and *.yml file, nested folders
  included (commit them: they travel with the repository);
  $XDG_CONFIG_HOME/git-beads/formulas/, or ~/.config/git-beads/formulas/ when
  XDG_CONFIG_HOME is not set: your own formulas, for every repository.
A formula of the repository wins over a user formula of the same name. Wherever
a command takes a formula NAME, a path to a formula file works too.

bd's and Gas Town's formulas (*.formula.toml, *.formula.json, or YAML with a
`formula:` key) are read from the same folders in their own language: vars, steps
with needs/depends_on, children, condition, loop, gate, compose (expand, map,
branch, aspects), advice, expansion templates and convoy legs. `formula cook NAME`
shows the steps a pour of one makes; what has no meaning here is kept on the step
under `expected`. The keys below are those of git-beads' own YAML formulas.

Keys of a formula:
  name         What `mol pour NAME` calls it (default: the file name without
               .yaml, .yml and .formula). Letters, digits, '.', '_' and '-'.
  title        The molecule's title, with {{variables}} (default: the name).
  description  What the workflow is for, with {{variables}}; the molecule's
               description.
  version      A whole number (default 1), recorded on the molecule.
  variables    A map from each variable's name (letters, digits, '_', '-') to:
                 description  what the value means;
                 required     true: pouring must be given --var NAME=VALUE;
                 default      the value when none is given (a required variable
                              has none; an optional one without a default is empty).
  steps        The steps, a list of:
                 id           unique in the formula: letters, digits, '_', '-';
                 title        the step bead's title, with {{variables}};
                 description  what to do, with {{variables}};
                 needs        the ids of the steps that must be closed first
                              (a list, or a single id);
                 acceptance   how to tell the step is done, with {{variables}}.
Unknown keys are errors, so a typo never goes unnoticed.

Templates: {{name}} (spaces inside the braces are allowed) is replaced by the
variable's value; \{{ writes a literal {{. In YAML, quote a value that begins
with {{ (it would otherwise read as a mapping).

`git beads formula validate` reports, with file and line: malformed YAML and
unknown keys, a formula without steps, invalid or duplicate step ids, needs that
name no step, cycles among the needs, templates that use undeclared variables or
are malformed, and required variables that have a default. Pouring also refuses
a missing required variable and a --var the formula does not declare.

Pouring (`git beads mol pour NAME --var K=V ...`) makes one commit holding the
molecule bead (type molecule) and one bead per step, numbered <molecule>.1,
<molecule>.2, ... in an order where every step comes after the steps it needs.
Each step depends on the molecule (parent-child) and on the steps it needs
(blocks); its acceptance text is kept as acceptance_criteria. Closing a step
advances the molecule, and closing its last step closes the molecule in the same
commit. `mol current` shows the steps that can be worked now (by default of the
molecule on your hook), `mol progress ID` every step's state; a molecule slung
onto an agent's hook shows as a checklist in `git beads prime`.

`mol wisp` pours into refs/beads/local/wisps instead, which sync never pushes:
a wisp's id reads <prefix>-wisp-<hash>. Commands given an id (mol current,
progress, squash, burn, close) look for it in refs/beads/main first, then among
the wisps. `mol squash ID` turns a finished molecule or wisp into a one-bead
summary in refs/beads/main (a wisp's data leaves the wisp ref); `mol burn ID`
discards a wisp.

Example (.beads/formulas/release.yaml):

"#,
    formula_example!(),
    r#"
Poured with

  git beads mol pour release --var crate=git-beads --var version=1.2.0

it makes "Release git-beads 1.2.0" with steps .1 bump, .2 changelog, .3 test,
.4 tag and .5 announce; .2 and .3 can be worked side by side once .1 is closed.
"#
);

/// A formula: a named, versioned template of a workflow.
///
/// The field order here is the key order of its YAML form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Formula {
    /// The name it is poured by; empty when the file leaves it out (the file name is used).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// What the workflow is for (a template).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Its version, recorded on every molecule poured from it.
    #[serde(default = "first_version")]
    pub version: u32,
    /// The molecule's title (a template); the name when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The variables a pour fills in, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Variable>,
    /// The steps, in the order written.
    #[serde(default)]
    pub steps: Vec<Step>,
}

fn first_version() -> u32 {
    1
}

/// A variable of a formula.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variable {
    /// What the value means.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Whether a pour must be given a value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// The value when none is given.
    #[serde(
        default,
        deserialize_with = "scalar",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<String>,
}

/// One step of a formula.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Its id, unique within the formula.
    pub id: String,
    /// The step bead's title (a template).
    pub title: String,
    /// What to do (a template).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The ids of the steps that must be finished first.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub needs: Vec<String>,
    /// How to tell the step is done (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<String>,
}

/// A YAML scalar of any kind, read as its text (`default: 1` means "1").
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

fn scalar<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<Scalar>::deserialize(d)?.map(|s| match s {
        Scalar::Text(t) => t,
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => f.to_string(),
        Scalar::Bool(b) => b.to_string(),
    }))
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// A list of strings, or one string (YAML and bd's TOML formulas both allow either).
pub(super) fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

/// Where in a formula a piece of text stands, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The step, or `None` for the formula itself.
    pub step: Option<String>,
    /// The key (`title`, `description`, `acceptance`).
    pub field: &'static str,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.step {
            Some(s) => write!(f, "the {} of step {s:?}", self.field),
            None => write!(f, "the formula's {}", self.field),
        }
    }
}

/// What is wrong with a formula, or with a pour of it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormulaError {
    /// The file is not YAML of a formula's shape (the parser's message).
    #[error("{message}")]
    Yaml {
        /// What the parser said, without its position.
        message: String,
        /// The line, 1-based, when the parser knows it.
        line: Option<usize>,
        /// The column, 1-based, when the parser knows it.
        column: Option<usize>,
    },
    /// The name is not a valid formula name.
    #[error(
        "formula name {0:?} is not valid (letters, digits, '.', '_' and '-', starting with a letter or digit)"
    )]
    BadName(String),
    /// The formula has no steps.
    #[error("the formula has no steps")]
    NoSteps,
    /// A step id is not valid.
    #[error("step id {0:?} is not valid (letters, digits, '_' and '-')")]
    BadStepId(String),
    /// Two steps share an id.
    #[error("step {0:?} is defined more than once")]
    DuplicateStep(String),
    /// A step needs a step that does not exist.
    #[error("step {step:?} needs {need:?}, which is not a step of this formula")]
    UnknownNeed {
        /// The step.
        step: String,
        /// The id it names.
        need: String,
    },
    /// The needs form a cycle.
    #[error("the steps' needs form a cycle: {}", .0.join(" → "))]
    Cycle(Vec<String>),
    /// A variable's name is not valid.
    #[error(
        "variable name {0:?} is not valid (letters, digits, '_' and '-', not starting with a digit or '-')"
    )]
    BadVariableName(String),
    /// A variable is required and has a default.
    #[error(
        "variable {0:?} is required and has a default; a default makes it optional, drop one of them"
    )]
    RequiredWithDefault(String),
    /// A template uses a variable the formula does not declare.
    #[error("{place} uses variable {name:?}, which is not declared under `variables:`")]
    UnknownVariable {
        /// Where the template is.
        place: Place,
        /// The variable it names.
        name: String,
    },
    /// A template holds a placeholder that does not parse.
    #[error(
        "{place} has a malformed placeholder {text:?} (write {{{{name}}}}, or \\{{{{ for a literal {{{{)"
    )]
    BadPlaceholder {
        /// Where the template is.
        place: Place,
        /// The placeholder as written.
        text: String,
    },
    /// A title is empty, or a text holds control characters.
    #[error("{place} {problem}")]
    Text {
        /// Where the text is.
        place: Place,
        /// What is wrong with it.
        problem: String,
    },
    /// A pour lacks values for required variables.
    #[error(
        "formula {formula} needs a value for {} (pass --var NAME=VALUE)",
        .names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
    )]
    MissingVariables {
        /// The formula.
        formula: String,
        /// The variables without a value.
        names: Vec<String>,
    },
    /// A pour gives a value to a variable the formula does not declare.
    #[error("formula {formula} has no variable {name:?} (it has: {known})")]
    UndeclaredVariable {
        /// The formula.
        formula: String,
        /// The variable given.
        name: String,
        /// The variables it has, comma-separated.
        known: String,
    },
}

impl FormulaError {
    /// The step this problem is about, if it is about one (to find its line).
    pub fn step(&self) -> Option<&str> {
        match self {
            FormulaError::BadStepId(s) | FormulaError::DuplicateStep(s) => Some(s),
            FormulaError::UnknownNeed { step, .. } => Some(step),
            FormulaError::Cycle(path) => path.first().map(String::as_str),
            FormulaError::UnknownVariable { place, .. }
            | FormulaError::BadPlaceholder { place, .. }
            | FormulaError::Text { place, .. } => place.step.as_deref(),
            _ => None,
        }
    }

    /// Places this problem in `file`, whose text is `source`: the parser's position
    /// for YAML errors, else the line of the step it is about, or of the variable.
    pub fn locate(&self, file: &str, source: &str) -> Problem {
        let (line, column) = match self {
            FormulaError::Yaml { line, column, .. } => (*line, *column),
            FormulaError::BadVariableName(v) | FormulaError::RequiredWithDefault(v) => {
                (key_line(source, v), None)
            }
            FormulaError::BadName(_) => (key_line(source, "name"), None),
            // The second definition is the one to remove or rename.
            FormulaError::DuplicateStep(s) => (step_lines(source, s).nth(1), None),
            FormulaError::NoSteps => (key_line(source, "steps"), None),
            other => (other.step().and_then(|s| step_line(source, s)), None),
        };
        Problem {
            file: file.to_owned(),
            line,
            column,
            message: self.to_string(),
        }
    }
}

/// A problem found in a formula file, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file, as the user would name it.
    pub file: String,
    /// The line, 1-based, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The column, 1-based, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            (Some(l), None) => write!(f, "{}:{l}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The line (1-based) where step `id` is defined in `source`: the first line that
/// reads `id: <id>` (after an optional `- `, with optional quotes).
pub fn step_line(source: &str, id: &str) -> Option<usize> {
    step_lines(source, id).next()
}

/// Every line (1-based) where step `id` is defined in `source`.
fn step_lines<'a>(source: &'a str, id: &'a str) -> impl Iterator<Item = usize> + 'a {
    source.lines().enumerate().filter_map(move |(i, l)| {
        let l = l.trim_start();
        let l = l.strip_prefix("- ").map(str::trim_start).unwrap_or(l);
        // YAML `id: x`, TOML `id = "x"`, JSON `"id": "x",`.
        let v = l
            .strip_prefix("id:")
            .or_else(|| {
                l.strip_prefix("id")
                    .and_then(|r| r.trim_start().strip_prefix('='))
            })
            .or_else(|| {
                l.strip_prefix("\"id\"")
                    .and_then(|r| r.trim_start().strip_prefix(':'))
            })?;
        let v = v.trim().trim_end_matches(',');
        (v.trim_matches(['"', '\'']) == id).then_some(i + 1)
    })
}

/// The line (1-based) of the first key `key:` in `source`, at any indentation.
fn key_line(source: &str, key: &str) -> Option<usize> {
    source
        .lines()
        .position(|l| {
            let l = l.trim_start();
            l.strip_prefix(key)
                .or_else(|| {
                    l.strip_prefix('"')
                        .and_then(|r| r.strip_prefix(key))
                        .and_then(|r| r.strip_prefix('"'))
                })
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
        .map(|i| i + 1)
}

/// Whether `s` is a valid formula name.
pub fn is_formula_name(s: &str) -> bool {
    s.len() <= 128
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn is_step_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn is_variable_name(s: &str) -> bool {
    s.len() <= 64
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A piece of a template: literal text or a variable.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Var(&'a str),
}

/// Splits a template into its pieces; a placeholder that does not parse is returned
/// as the error, as written.
fn pieces(template: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        if rest[..at].ends_with('\\') {
            out.push(Piece::Text(&rest[..at - 1]));
            out.push(Piece::Text("{{"));
            rest = &rest[at + 2..];
            continue;
        }
        out.push(Piece::Text(&rest[..at]));
        let inner = &rest[at + 2..];
        let Some(end) = inner.find("}}") else {
            return Err(rest[at..].chars().take(24).collect());
        };
        let name = inner[..end].trim();
        if !is_variable_name(name) {
            return Err(format!("{{{{{}}}}}", &inner[..end]));
        }
        out.push(Piece::Var(name));
        rest = &inner[end + 2..];
    }
    out.push(Piece::Text(rest));
    out.retain(|p| *p != Piece::Text(""));
    Ok(out)
}

/// The variables a template uses, or the placeholder that does not parse.
pub fn template_variables(template: &str) -> Result<Vec<&str>, String> {
    Ok(pieces(template)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Var(v) => Some(v),
            Piece::Text(_) => None,
        })
        .collect())
}

/// Fills a template in: each `{{name}}` becomes the value of `name` (empty when
/// `values` has none), `\{{` becomes `{{`. A placeholder that does not parse is the error.
pub fn fill(template: &str, values: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    for p in pieces(template)? {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(v) => out.push_str(values.get(v).map(String::as_str).unwrap_or("")),
        }
    }
    Ok(out)
}

/// A formula filled in with values: what a pour writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The molecule's title.
    pub title: String,
    /// The molecule's description.
    pub description: String,
    /// Every variable's value, defaults included.
    pub values: BTreeMap<String, String>,
    /// The steps, each after the steps it needs.
    pub steps: Vec<RenderedStep>,
}

/// One step of a [`Rendered`] formula.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedStep {
    /// The step's id in the formula.
    pub key: String,
    /// Its title.
    pub title: String,
    /// Its description.
    pub description: String,
    /// Its acceptance text.
    pub acceptance: Option<String>,
    /// The positions (in [`Rendered::steps`]) of the steps it needs, each before it.
    pub needs: Vec<usize>,
    /// Its bead type, when not a task.
    pub kind: Option<crate::model::BeadType>,
    /// Its priority, when not the default.
    pub priority: Option<u8>,
    /// Its labels.
    pub labels: Vec<String>,
    /// Who works on it, when not the pour's assignee.
    pub assignee: Option<String>,
    /// Its working notes.
    pub notes: String,
    /// Data kept on the step bead (a gate, metadata, what it expects).
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Formula {
    /// Every text that is a template, with where it stands.
    fn templates(&self) -> Vec<(Place, &str)> {
        let mut out = Vec::new();
        let top = |field| Place { step: None, field };
        if let Some(t) = &self.title {
            out.push((top("title"), t.as_str()));
        }
        out.push((top("description"), self.description.as_str()));
        for s in &self.steps {
            let at = |field| Place {
                step: Some(s.id.clone()),
                field,
            };
            out.push((at("title"), s.title.as_str()));
            out.push((at("description"), s.description.as_str()));
            if let Some(a) = &s.acceptance {
                out.push((at("acceptance"), a.as_str()));
            }
        }
        out
    }

    /// Every problem of the formula itself (not of a pour), in file order; empty
    /// when it is valid.
    pub fn problems(&self) -> Vec<FormulaError> {
        let mut out = Vec::new();
        if !is_formula_name(&self.name) {
            out.push(FormulaError::BadName(self.name.clone()));
        }
        for (name, v) in &self.variables {
            if !is_variable_name(name) {
                out.push(FormulaError::BadVariableName(name.clone()));
            }
            if v.required && v.default.is_some() {
                out.push(FormulaError::RequiredWithDefault(name.clone()));
            }
        }
        if self.steps.is_empty() {
            out.push(FormulaError::NoSteps);
        }
        let mut seen = BTreeSet::new();
        for s in &self.steps {
            if !is_step_id(&s.id) {
                out.push(FormulaError::BadStepId(s.id.clone()));
            } else if !seen.insert(s.id.as_str()) {
                out.push(FormulaError::DuplicateStep(s.id.clone()));
            }
        }
        for s in &self.steps {
            for n in &s.needs {
                if !seen.contains(n.as_str()) {
                    out.push(FormulaError::UnknownNeed {
                        step: s.id.clone(),
                        need: n.clone(),
                    });
                }
            }
        }
        if let Some(cycle) = self.cycle() {
            out.push(FormulaError::Cycle(cycle));
        }
        for (place, text) in self.templates() {
            if place.field == "title" && place.step.is_some() && text.trim().is_empty() {
                out.push(FormulaError::Text {
                    place: place.clone(),
                    problem: "is empty".into(),
                });
            }
            match template_variables(text) {
                Err(bad) => out.push(FormulaError::BadPlaceholder { place, text: bad }),
                Ok(vars) => {
                    let mut reported = BTreeSet::new();
                    for v in vars {
                        if !self.variables.contains_key(v) && reported.insert(v) {
                            out.push(FormulaError::UnknownVariable {
                                place: place.clone(),
                                name: v.to_owned(),
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// A cycle among the needs, as step ids from a step back to itself.
    fn cycle(&self) -> Option<Vec<String>> {
        let index: HashMap<&str, usize> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        // 0 = unvisited, 1 = on the current path, 2 = done.
        let mut mark = vec![0u8; self.steps.len()];
        let mut path: Vec<usize> = Vec::new();
        fn visit(
            f: &Formula,
            index: &HashMap<&str, usize>,
            i: usize,
            mark: &mut [u8],
            path: &mut Vec<usize>,
        ) -> Option<Vec<String>> {
            mark[i] = 1;
            path.push(i);
            for n in &f.steps[i].needs {
                let Some(&j) = index.get(n.as_str()) else {
                    continue;
                };
                if mark[j] == 1 {
                    let from = path.iter().position(|&p| p == j).unwrap_or(0);
                    let mut ids: Vec<String> = path[from..]
                        .iter()
                        .map(|&p| f.steps[p].id.clone())
                        .collect();
                    ids.push(f.steps[j].id.clone());
                    return Some(ids);
                }
                if mark[j] == 0
                    && let Some(c) = visit(f, index, j, mark, path)
                {
                    return Some(c);
                }
            }
            path.pop();
            mark[i] = 2;
            None
        }
        for i in 0..self.steps.len() {
            if mark[i] == 0
                && let Some(c) = visit(self, &index, i, &mut mark, &mut path)
            {
                return Some(c);
            }
        }
        None
    }

    /// The steps (as positions in [`Formula::steps`]) in an order where each comes
    /// after the steps it needs, otherwise keeping the order written. Assumes no cycle.
    pub fn order(&self) -> Vec<usize> {
        let index: HashMap<&str, usize> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let mut placed = vec![false; self.steps.len()];
        let mut out = Vec::with_capacity(self.steps.len());
        while out.len() < self.steps.len() {
            let next = (0..self.steps.len()).find(|&i| {
                !placed[i]
                    && self.steps[i]
                        .needs
                        .iter()
                        .all(|n| index.get(n.as_str()).is_none_or(|&j| placed[j]))
            });
            // Only a cycle leaves nothing placeable; place the rest as written.
            let Some(i) = next.or_else(|| (0..self.steps.len()).find(|&i| !placed[i])) else {
                break;
            };
            placed[i] = true;
            out.push(i);
        }
        out
    }

    /// The value of every variable for a pour given `given`: the given value, else
    /// the default, else empty. Fails on a missing required variable or a given one
    /// the formula does not declare.
    pub fn values(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, FormulaError> {
        if let Some(name) = given.keys().find(|k| !self.variables.contains_key(*k)) {
            let known: Vec<&str> = self.variables.keys().map(String::as_str).collect();
            return Err(FormulaError::UndeclaredVariable {
                formula: self.name.clone(),
                name: name.clone(),
                known: if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                },
            });
        }
        let missing: Vec<String> = self
            .variables
            .iter()
            .filter(|(k, v)| v.required && given.get(*k).is_none_or(|g| g.trim().is_empty()))
            .map(|(k, _)| k.clone())
            .collect();
        if !missing.is_empty() {
            return Err(FormulaError::MissingVariables {
                formula: self.name.clone(),
                names: missing,
            });
        }
        Ok(self
            .variables
            .iter()
            .map(|(k, v)| {
                let value = given
                    .get(k)
                    .or(v.default.as_ref())
                    .cloned()
                    .unwrap_or_default();
                (k.clone(), value)
            })
            .collect())
    }

    /// Fills the formula in with `given` values. The formula must be valid (see
    /// [`Formula::problems`]); the first problem is the error otherwise.
    pub fn render(&self, given: &BTreeMap<String, String>) -> Result<Rendered, FormulaError> {
        if let Some(p) = self.problems().into_iter().next() {
            return Err(p);
        }
        let values = self.values(given)?;
        let fill_at = |place: Place, text: &str| {
            fill(text, &values).map_err(|bad| FormulaError::BadPlaceholder { place, text: bad })
        };
        let top = |field| Place { step: None, field };
        let title = match &self.title {
            Some(t) => fill_at(top("title"), t)?,
            None => self.name.clone(),
        };
        let description = fill_at(top("description"), &self.description)?;
        let order = self.order();
        let position: HashMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(pos, &i)| (self.steps[i].id.as_str(), pos))
            .collect();
        let mut steps = Vec::with_capacity(order.len());
        for &i in &order {
            let s = &self.steps[i];
            let at = |field| Place {
                step: Some(s.id.clone()),
                field,
            };
            let mut needs: Vec<usize> = s
                .needs
                .iter()
                .filter_map(|n| position.get(n.as_str()).copied())
                .collect();
            needs.sort_unstable();
            needs.dedup();
            steps.push(RenderedStep {
                key: s.id.clone(),
                title: fill_at(at("title"), &s.title)?,
                description: fill_at(at("description"), &s.description)?,
                acceptance: s
                    .acceptance
                    .as_deref()
                    .map(|a| fill_at(at("acceptance"), a))
                    .transpose()?,
                needs,
                kind: None,
                priority: None,
                labels: Vec::new(),
                assignee: None,
                notes: String::new(),
                extra: BTreeMap::new(),
            });
        }
        Ok(Rendered {
            title,
            description,
            values,
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str, needs: &[&str]) -> Step {
        Step {
            id: id.into(),
            title: format!("do {id}"),
            description: String::new(),
            needs: needs.iter().map(|s| (*s).to_owned()).collect(),
            acceptance: None,
        }
    }

    fn formula(steps: Vec<Step>) -> Formula {
        Formula {
            name: "f".into(),
            description: String::new(),
            version: 1,
            title: None,
            variables: BTreeMap::new(),
            steps,
        }
    }

    #[test]
    fn formula_templates_fill_and_escape() {
        let mut v = BTreeMap::new();
        v.insert("a".to_owned(), "X".to_owned());
        assert_eq!(fill("<{{a}}|{{ a }}>", &v), Ok("<X|X>".into()));
        assert_eq!(
            fill(r"keep \{{a}} and {{b}}", &v),
            Ok("keep {{a}} and ".into())
        );
        assert_eq!(template_variables("{{ a }} {{b_2}}"), Ok(vec!["a", "b_2"]));
        assert!(template_variables("{{a").is_err());
        assert!(template_variables("{{a b}}").is_err());
        assert!(template_variables("{{}}").is_err());
        assert_eq!(fill("plain } { text", &v), Ok("plain } { text".into()));
    }

    #[test]
    fn formula_cycles_needs_and_duplicates_are_found() {
        let f = formula(vec![
            step("a", &["c"]),
            step("b", &["a"]),
            step("c", &["b"]),
        ]);
        let p = f.problems();
        assert!(
            matches!(&p[..], [FormulaError::Cycle(c)] if c == &["a", "c", "b", "a"]),
            "{p:?}"
        );
        let f = formula(vec![step("a", &["a"])]);
        assert!(matches!(&f.problems()[..], [FormulaError::Cycle(_)]));
        let f = formula(vec![step("a", &[]), step("a", &["zz"]), step("b c", &[])]);
        let p = f.problems();
        assert!(
            p.contains(&FormulaError::DuplicateStep("a".into())),
            "{p:?}"
        );
        assert!(p.contains(&FormulaError::BadStepId("b c".into())), "{p:?}");
        assert!(
            p.contains(&FormulaError::UnknownNeed {
                step: "a".into(),
                need: "zz".into()
            }),
            "{p:?}"
        );
        assert_eq!(formula(vec![]).problems(), vec![FormulaError::NoSteps]);
    }

    #[test]
    fn formula_order_puts_needs_first_and_keeps_written_order() {
        let f = formula(vec![
            step("d", &["b", "c"]),
            step("b", &["a"]),
            step("c", &["a"]),
            step("a", &[]),
            step("e", &[]),
        ]);
        assert!(f.problems().is_empty());
        let ids: Vec<&str> = f.order().iter().map(|&i| f.steps[i].id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn formula_values_defaults_required_and_undeclared() {
        let mut f = formula(vec![step("a", &[])]);
        f.variables.insert(
            "need".into(),
            Variable {
                required: true,
                ..Variable::default()
            },
        );
        f.variables.insert(
            "opt".into(),
            Variable {
                default: Some("d".into()),
                ..Variable::default()
            },
        );
        f.variables.insert("empty".into(), Variable::default());
        let none = BTreeMap::new();
        assert!(matches!(
            f.values(&none),
            Err(FormulaError::MissingVariables { names, .. }) if names == ["need"]
        ));
        let mut given = BTreeMap::new();
        given.insert("need".to_owned(), "v".to_owned());
        let values = f.values(&given).expect("complete");
        assert_eq!(values["need"], "v");
        assert_eq!(values["opt"], "d");
        assert_eq!(values["empty"], "");
        given.insert("nope".to_owned(), "x".to_owned());
        let err = f.values(&given).expect_err("undeclared");
        assert!(err.to_string().contains("\"nope\""), "{err}");
    }

    #[test]
    fn formula_problems_are_located_in_the_source() {
        let source = "name: f\nsteps:\n  - id: a\n    title: t\n  - id: \"b\"\n    title: t\n    needs: [x]\n";
        let e = FormulaError::UnknownNeed {
            step: "b".into(),
            need: "x".into(),
        };
        let p = e.locate("f.yaml", source);
        assert_eq!(p.line, Some(5));
        assert!(
            p.to_string()
                .starts_with("f.yaml:5: step \"b\" needs \"x\""),
            "{p}"
        );
    }
}
