//! Cooking a bd formula: everything its language says (extends, conditions, loops,
//! expansions, advice, branches, gates, convoy legs) expanded into one flat list of
//! steps and the edges between them, ready to pour.
//!
//! A pure function: the formulas it names (parents, expansions, aspects) come from
//! a lookup the caller gives.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Value, json};

use super::agent::parse_duration;
use super::bd_formula::{Advice, AdviceStep, BdFormula, BdStep, Gate, OnComplete, Pointcut};
use super::bead::BeadType;
use super::condition::Condition;
use super::formula::{FormulaError, Problem, Rendered, RenderedStep, is_formula_name, step_line};
use super::overlay::Overlay;

/// How deep `extends` and expansions may nest before cooking gives up.
const MAX_DEPTH: usize = 16;
/// The most steps one cook may make (loops and expansions multiply).
const MAX_STEPS: usize = 100_000;

/// What cooking a formula made: the molecule and its steps, in an order where each
/// step comes after the steps it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Cooked {
    /// The formula's name.
    pub name: String,
    /// Its version.
    pub version: u32,
    /// Its type (`workflow`, `expansion`, `aspect`, `convoy`).
    pub kind: String,
    /// Its phase (`vapor` for a formula meant to run as a wisp).
    pub phase: Option<String>,
    /// Whether its steps are poured as beads (`pour`, as written).
    pub pour: Option<bool>,
    /// The molecule's title.
    pub title: String,
    /// The molecule's description.
    pub description: String,
    /// Every variable's value, defaults included.
    pub values: BTreeMap<String, String>,
    /// The steps.
    pub steps: Vec<CookedStep>,
    /// What the formula expects that has no meaning here, one line each.
    pub expected: Vec<String>,
    /// The step ids an overlay names that are not steps of the formula (stale
    /// overrides, which changed nothing).
    pub stale_overrides: Vec<String>,
}

/// One step of a [`Cooked`] formula.
#[derive(Clone, Debug, PartialEq)]
pub struct CookedStep {
    /// Its id after expansion (`implement.draft`, `work.iter2.test`).
    pub key: String,
    /// Its title.
    pub title: String,
    /// What to do.
    pub description: String,
    /// Working notes.
    pub notes: String,
    /// How to tell it is done.
    pub acceptance: Option<String>,
    /// Its bead type as written (`task` when unset).
    pub kind: Option<String>,
    /// Its priority.
    pub priority: Option<u8>,
    /// Its labels.
    pub labels: Vec<String>,
    /// Who works on it.
    pub assignee: Option<String>,
    /// Free-form data kept on the bead.
    pub metadata: BTreeMap<String, Value>,
    /// For a gate step: what it waits for.
    pub gate: Option<Gate>,
    /// The condition that let it in, as written.
    pub condition: Option<String>,
    /// What happens when it closes: a formula bonded for each item of its output.
    pub on_complete: Option<OnComplete>,
    /// The positions (in [`Cooked::steps`]) of the steps it needs, each before it.
    pub needs: Vec<usize>,
    /// What it expects that has no meaning here, one line each.
    pub expected: Vec<String>,
}

/// Why a formula could not be cooked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CookError {
    /// A formula it names is not found.
    #[error("formula {name:?}, named by {by}, is not found")]
    Missing {
        /// The name.
        name: String,
        /// What names it (`extends of x`, `compose.expand of x`).
        by: String,
    },
    /// Formulas extend or expand each other without end.
    #[error("formulas name each other in a cycle or too deeply: {0}")]
    TooDeep(String),
    /// A problem with the variables (missing, undeclared).
    #[error(transparent)]
    Values(#[from] FormulaError),
    /// A value is not among those allowed.
    #[error("variable {name:?} must be one of {allowed}; {value:?} is not")]
    NotAllowed {
        /// The variable.
        name: String,
        /// The value given.
        value: String,
        /// The values allowed, comma-separated.
        allowed: String,
    },
    /// A value does not match the variable's pattern.
    #[error("variable {name:?} must match {pattern}; {value:?} does not")]
    NoMatch {
        /// The variable.
        name: String,
        /// The value given.
        value: String,
        /// The pattern.
        pattern: String,
    },
    /// A variable's pattern is not a regular expression.
    #[error("variable {name:?} has a pattern that is not a regular expression: {pattern}")]
    BadPattern {
        /// The variable.
        name: String,
        /// The pattern.
        pattern: String,
    },
    /// A step is malformed.
    #[error("step {step:?} {problem}")]
    Step {
        /// The step.
        step: String,
        /// What is wrong.
        problem: String,
    },
    /// A step needs a step that does not exist.
    #[error("step {step:?} needs {need:?}, which is not a step of this formula")]
    UnknownNeed {
        /// The step.
        step: String,
        /// The id it names.
        need: String,
    },
    /// Two steps share an id.
    #[error("step {0:?} is defined more than once")]
    Duplicate(String),
    /// The needs form a cycle.
    #[error("the steps' needs form a cycle through {0:?}")]
    Cycle(String),
    /// Nothing to pour.
    #[error("the formula has no steps")]
    NoSteps,
    /// Loops or expansions make too many steps.
    #[error("the formula expands to more than {MAX_STEPS} steps")]
    TooMany,
    /// The formula's type is none of bd's.
    #[error("type {0:?} is not a formula type (workflow, expansion, aspect or convoy)")]
    BadType(String),
}

impl CookError {
    /// The step this problem is about, if it is about one (to find its line).
    pub fn step(&self) -> Option<&str> {
        match self {
            CookError::Step { step, .. } | CookError::UnknownNeed { step, .. } => Some(step),
            CookError::Duplicate(s) | CookError::Cycle(s) => Some(s),
            _ => None,
        }
    }

    /// Places this problem in `file`, whose text is `source`.
    pub fn locate(&self, file: &str, source: &str) -> Problem {
        if let CookError::Values(e) = self {
            return e.locate(file, source);
        }
        Problem {
            file: file.to_owned(),
            line: self.step().and_then(|s| step_line(source, s)),
            column: None,
            message: self.to_string(),
        }
    }
}

impl BdFormula {
    /// Every problem that shows without cooking: its name and type, step ids defined
    /// twice, priorities out of range, conditions that do not parse. Empty when none.
    /// (A variable both required and defaulted, which Gas Town ships, takes its
    /// default.)
    pub fn problems(&self) -> Vec<CookError> {
        let mut out = Vec::new();
        if !is_formula_name(&self.formula) {
            out.push(FormulaError::BadName(self.formula.clone()).into());
        }
        if !matches!(self.kind(), "workflow" | "expansion" | "aspect" | "convoy") {
            out.push(CookError::BadType(self.kind().to_owned()));
        }
        let mut seen = HashSet::new();
        let none = BTreeMap::new();
        let mut stack: Vec<&BdStep> = self.steps.iter().chain(&self.template).collect();
        while let Some(s) = stack.pop() {
            if !seen.insert(s.id.as_str()) {
                out.push(CookError::Duplicate(s.id.clone()));
            }
            if let Some(p) = s.priority
                && !(0..=4).contains(&p)
            {
                out.push(CookError::Step {
                    step: s.id.clone(),
                    problem: format!("has priority {p}; priorities are 0 to 4"),
                });
            }
            if let Some(c) = &s.condition
                && condition_holds(c, &none).is_none()
            {
                out.push(CookError::Step {
                    step: s.id.clone(),
                    problem: format!("has a condition that does not parse: {c:?}"),
                });
            }
            if let Some(w) = &s.waits_for
                && parse_waits_for(w).is_none()
            {
                out.push(bad_waits_for(s, w));
            }
            if let Some(o) = &s.on_complete {
                let problem = match (&o.for_each, &o.bond) {
                    (Some(_), None) => Some("has on_complete.for_each without bond".to_owned()),
                    (None, Some(_)) => Some("has on_complete.bond without for_each".to_owned()),
                    (Some(p), Some(_)) if !p.starts_with("output.") => Some(format!(
                        "has on_complete.for_each {p:?}, which must start with \"output.\""
                    )),
                    _ => None,
                };
                out.extend(problem.map(|problem| CookError::Step {
                    step: s.id.clone(),
                    problem,
                }));
            }
            stack.extend(&s.children);
        }
        out
    }
}

/// Where cooking finds the formulas a formula names.
pub type Lookup<'a> = dyn Fn(&str) -> Option<BdFormula> + 'a;

/// Cooks `f` with variable values `given`, finding named formulas with `lookup`;
/// `overlay` changes its steps (after `extends`) before anything else.
pub fn cook(
    f: &BdFormula,
    given: &BTreeMap<String, String>,
    lookup: &Lookup<'_>,
    overlay: Option<&Overlay>,
) -> Result<Cooked, CookError> {
    let mut f = resolve(f, lookup, 0)?;
    let stale = overlay.map(|o| o.apply(f.to_mut())).unwrap_or_default();
    let values = values(&f, given)?;
    let mut cook = Cooking {
        lookup,
        values: &values,
        removed: HashSet::new(),
    };
    let mut steps = cook.top_steps(&f)?;
    steps = cook.conditions(steps)?;
    steps = cook.loops(steps, 0)?;
    waits(&mut steps)?;
    let mut steps = flatten(steps);
    cook.expansions(&f, &mut steps, 0)?;
    check_gate_rules(&f, &steps, &cook.removed)?;
    branches(&f, &mut steps);
    if f.kind() != "aspect" {
        apply_advice(&f.advice, &f.pointcuts, &mut steps);
        for name in f.compose.iter().flat_map(|c| &c.aspects) {
            let aspect = lookup(name).ok_or_else(|| CookError::Missing {
                name: name.clone(),
                by: format!("compose.aspects of {}", f.formula),
            })?;
            let aspect = resolve(&aspect, lookup, 1)?;
            apply_advice(&aspect.advice, &aspect.pointcuts, &mut steps);
        }
    }
    gates(&mut steps)?;
    let removed = cook.removed;
    let mut cooked = finish(&f, steps, values, &removed)?;
    cooked.stale_overrides = stale;
    Ok(cooked)
}

/// `f` with its `extends` folded in: the parents' variables, steps and rules first,
/// its own winning (a step of the same id replaces the parent's in place). `f` itself
/// when it extends nothing: a formula of a thousand steps is not copied to be read.
fn resolve<'f>(
    f: &'f BdFormula,
    lookup: &Lookup<'_>,
    depth: usize,
) -> Result<Cow<'f, BdFormula>, CookError> {
    if f.extends.is_empty() {
        return Ok(Cow::Borrowed(f));
    }
    if depth >= MAX_DEPTH {
        return Err(CookError::TooDeep(f.formula.clone()));
    }
    let mut merged = BdFormula::default();
    for name in &f.extends {
        let parent = lookup(name).ok_or_else(|| CookError::Missing {
            name: name.clone(),
            by: format!("extends of {}", f.formula),
        })?;
        let parent = resolve(&parent, lookup, depth + 1)?.into_owned();
        merge_into(&mut merged, parent);
    }
    let mut own = f.clone();
    own.extends.clear();
    merge_into(&mut merged, own.clone());
    merged.formula = own.formula;
    merged.description = own.description;
    merged.version = own.version;
    merged.kind = own.kind.or(merged.kind);
    Ok(Cow::Owned(merged))
}

fn merge_into(into: &mut BdFormula, from: BdFormula) {
    into.vars.extend(from.vars);
    into.inputs.extend(from.inputs);
    for s in from.steps {
        match into.steps.iter_mut().find(|t| t.id == s.id) {
            Some(t) => *t = s,
            None => into.steps.push(s),
        }
    }
    into.template.extend(from.template);
    into.advice.extend(from.advice);
    into.pointcuts.extend(from.pointcuts);
    into.legs.extend(from.legs);
    if from.synthesis.is_some() {
        into.synthesis = from.synthesis;
    }
    if let Some(c) = from.compose {
        let to = into.compose.get_or_insert_with(Default::default);
        to.expand.extend(c.expand);
        to.map.extend(c.map);
        to.branch.extend(c.branch);
        to.gate.extend(c.gate);
        to.aspects.extend(c.aspects);
        to.extra.extend(c.extra);
    }
    into.phase = from.phase.or(into.phase.take());
    into.pour = from.pour.or(into.pour);
    into.extra.extend(from.extra);
    into.kind = from.kind.or(into.kind.take());
}

/// Cooks `f` as validation does: with a sample value for each required variable
/// (its own or a parent's) that has no default.
pub fn trial_cook(f: &BdFormula, lookup: &Lookup<'_>) -> Result<Cooked, CookError> {
    let given = sample_values(&*resolve(f, lookup, 0)?);
    cook(f, &given, lookup, None)
}

/// A value for each required variable without a default, for a trial cook: the
/// first allowed value, else a plain value its pattern accepts.
fn sample_values(f: &BdFormula) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, v) in f.vars.iter().chain(&f.inputs) {
        if !v.required || v.default.is_some() {
            continue;
        }
        let value = v.allowed.first().cloned().unwrap_or_else(|| {
            let re = v.pattern.as_deref().and_then(|p| regex::Regex::new(p).ok());
            ["1", "1.0.0", "owner/repo", "sample", "x"]
                .into_iter()
                .find(|c| re.as_ref().is_none_or(|r| r.is_match(c)))
                .unwrap_or("x")
                .to_owned()
        });
        out.insert(name.clone(), value);
    }
    out
}

/// The value of every variable (and convoy input): given, else default, else empty;
/// checked against `required`, `enum` and `pattern`.
fn values(
    f: &BdFormula,
    given: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, CookError> {
    let declared: BTreeMap<&String, &super::bd_formula::BdVar> =
        f.vars.iter().chain(&f.inputs).collect();
    if let Some(name) = given.keys().find(|k| !declared.contains_key(k)) {
        let known: Vec<&str> = declared.keys().map(|k| k.as_str()).collect();
        return Err(FormulaError::UndeclaredVariable {
            formula: f.formula.clone(),
            name: name.clone(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        }
        .into());
    }
    let missing: Vec<String> = declared
        .iter()
        .filter(|(k, v)| {
            v.required && v.default.is_none() && given.get(**k).is_none_or(|g| g.trim().is_empty())
        })
        .map(|(k, _)| (*k).clone())
        .collect();
    if !missing.is_empty() {
        return Err(FormulaError::MissingVariables {
            formula: f.formula.clone(),
            names: missing,
        }
        .into());
    }
    let mut out = BTreeMap::new();
    for (name, var) in declared {
        let value = given
            .get(name)
            .or(var.default.as_ref())
            .cloned()
            .unwrap_or_default();
        let explicit = given.contains_key(name);
        if explicit && !var.allowed.is_empty() && !var.allowed.contains(&value) {
            return Err(CookError::NotAllowed {
                name: name.clone(),
                value,
                allowed: var.allowed.join(", "),
            });
        }
        if let Some(p) = &var.pattern
            && explicit
        {
            let re = regex::Regex::new(p).map_err(|_| CookError::BadPattern {
                name: name.clone(),
                pattern: p.clone(),
            })?;
            if !re.is_match(&value) {
                return Err(CookError::NoMatch {
                    name: name.clone(),
                    value,
                    pattern: p.clone(),
                });
            }
        }
        out.insert(name.clone(), value);
    }
    Ok(out)
}

/// Replaces each `{{name}}` whose name has a value; every other brace is kept as
/// written (Gas Town's texts hold `{{#if …}}` and `{{.leg.id}}` meant for others).
pub fn fill_known(text: &str, values: &BTreeMap<String, String>) -> String {
    if !text.contains("{{") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        match inner.find("}}") {
            Some(end) if values.contains_key(inner[..end].trim()) => {
                out.push_str(&values[inner[..end].trim()]);
                rest = &inner[end + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Replaces each `{key}` of `subs` in `text` (the single braces of loops, expansions
/// and advice).
fn substitute(text: &str, subs: &[(String, String)]) -> String {
    let mut out = text.to_owned();
    for (k, v) in subs {
        if out.contains(k.as_str()) {
            out = out.replace(k.as_str(), v);
        }
    }
    out
}

fn substitute_step(s: &mut BdStep, subs: &[(String, String)]) {
    s.id = substitute(&s.id, subs);
    s.title = substitute(&s.title, subs);
    s.description = substitute(&s.description, subs);
    s.notes = substitute(&s.notes, subs);
    s.acceptance = s.acceptance.as_deref().map(|a| substitute(a, subs));
    for n in s.needs.iter_mut().chain(s.depends_on.iter_mut()) {
        *n = substitute(n, subs);
    }
    for c in &mut s.children {
        substitute_step(c, subs);
    }
}

/// Whether `text` matches glob `pattern` (`*` any run, `?` one character).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether a step condition holds (bd's `stepcondition.go`): `{{var}}` (truthy),
/// `!{{var}}`, `{{var}} == value`, `{{var}} != value`; `None` when it does not parse.
pub fn condition_holds(condition: &str, values: &BTreeMap<String, String>) -> Option<bool> {
    let c = condition.trim();
    if c.is_empty() {
        return Some(true);
    }
    let var = |s: &str| -> Option<String> {
        let name = s.trim().strip_prefix("{{")?.strip_suffix("}}")?.trim();
        (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .then(|| values.get(name).cloned().unwrap_or_default())
    };
    let truthy = |v: &str| {
        !v.is_empty() && !matches!(v.to_lowercase().as_str(), "false" | "0" | "no" | "off")
    };
    for op in ["==", "!="] {
        if let Some((l, r)) = c.split_once(op) {
            let actual = var(l)?;
            let r = r.trim();
            let expected = r
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .or_else(|| r.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                .unwrap_or(r);
            return Some((actual == expected) == (op == "=="));
        }
    }
    if let Some(rest) = c.strip_prefix('!') {
        return var(rest).map(|v| !truthy(&v));
    }
    var(c).map(|v| truthy(&v))
}

/// Evaluates a range bound: integers, `{var}` / `{{var}}`, `+ - * / ^` and parentheses.
fn eval_bound(text: &str, values: &BTreeMap<String, String>) -> Option<i64> {
    let mut subs: Vec<(String, String)> = Vec::new();
    for (k, v) in values {
        subs.push((format!("{{{{{k}}}}}"), v.clone()));
        subs.push((format!("{{{k}}}"), v.clone()));
    }
    let text = substitute(text, &subs);
    let tokens: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pos = 0;
    let v = expr(&tokens, &mut pos)?;
    (pos == tokens.len()).then_some(v)
}

fn expr(t: &[char], pos: &mut usize) -> Option<i64> {
    let mut v = term(t, pos)?;
    while let Some(&op) = t.get(*pos).filter(|c| matches!(c, '+' | '-')) {
        *pos += 1;
        let r = term(t, pos)?;
        v = if op == '+' {
            v.checked_add(r)?
        } else {
            v.checked_sub(r)?
        };
    }
    Some(v)
}

fn term(t: &[char], pos: &mut usize) -> Option<i64> {
    let mut v = power(t, pos)?;
    while let Some(&op) = t.get(*pos).filter(|c| matches!(c, '*' | '/')) {
        *pos += 1;
        let r = power(t, pos)?;
        v = if op == '*' {
            v.checked_mul(r)?
        } else {
            v.checked_div(r)?
        };
    }
    Some(v)
}

fn power(t: &[char], pos: &mut usize) -> Option<i64> {
    let base = atom(t, pos)?;
    if t.get(*pos) == Some(&'^') {
        *pos += 1;
        let exp = power(t, pos)?;
        return base.checked_pow(u32::try_from(exp).ok()?);
    }
    Some(base)
}

fn atom(t: &[char], pos: &mut usize) -> Option<i64> {
    if t.get(*pos) == Some(&'(') {
        *pos += 1;
        let v = expr(t, pos)?;
        (t.get(*pos) == Some(&')')).then_some(())?;
        *pos += 1;
        return Some(v);
    }
    let start = *pos;
    while t.get(*pos).is_some_and(char::is_ascii_digit) {
        *pos += 1;
    }
    t[start..*pos].iter().collect::<String>().parse().ok()
}

/// The state of one cook: the lookup, the values, and the steps conditions removed
/// (whose dependents lose the edge instead of failing).
struct Cooking<'a, 'b> {
    lookup: &'a Lookup<'b>,
    values: &'a BTreeMap<String, String>,
    removed: HashSet<String>,
}

impl Cooking<'_, '_> {
    /// The steps a formula starts from: its own, a convoy's legs and synthesis, or,
    /// for an expansion or aspect poured by itself, what it adds to a stand-in step.
    fn top_steps(&mut self, f: &BdFormula) -> Result<Vec<BdStep>, CookError> {
        let mut steps = f.steps.clone();
        for leg in &f.legs {
            let mut description = leg.description.clone();
            if !leg.focus.is_empty() {
                description = format!("Focus: {}\n\n{description}", leg.focus);
            }
            steps.push(BdStep {
                id: leg.id.clone(),
                title: if leg.title.is_empty() {
                    leg.id.clone()
                } else {
                    leg.title.clone()
                },
                description,
                labels: vec!["convoy-leg".into()],
                extra: leg.extra.clone(),
                ..BdStep::default()
            });
        }
        if let Some(s) = &f.synthesis {
            let needs = if s.depends_on.is_empty() {
                f.legs.iter().map(|l| l.id.clone()).collect()
            } else {
                s.depends_on.clone()
            };
            steps.push(BdStep {
                id: "synthesis".into(),
                title: if s.title.is_empty() {
                    "Synthesis".into()
                } else {
                    s.title.clone()
                },
                description: s.description.clone(),
                needs,
                labels: vec!["convoy-synthesis".into()],
                extra: s.extra.clone(),
                ..BdStep::default()
            });
        }
        if steps.is_empty() && !f.template.is_empty() {
            let target = BdStep {
                id: f.formula.clone(),
                title: f.formula.clone(),
                description: f.description.clone(),
                ..BdStep::default()
            };
            return Ok(expansion_steps(f, &target, &BTreeMap::new(), self.values));
        }
        if steps.is_empty() && f.kind() == "aspect" {
            let mut targets: Vec<String> = Vec::new();
            for a in &f.advice {
                if !targets.contains(&a.target) {
                    targets.push(a.target.clone());
                }
            }
            let mut stand_ins: Vec<BdStep> = Vec::new();
            for t in targets {
                let needs = stand_ins.last().map(|s| vec![s.id.clone()]);
                stand_ins.push(BdStep {
                    id: t.clone(),
                    title: t,
                    needs: needs.unwrap_or_default(),
                    ..BdStep::default()
                });
            }
            apply_advice(&f.advice, &f.pointcuts, &mut stand_ins);
            return Ok(stand_ins);
        }
        Ok(steps)
    }

    /// Drops the steps whose condition does not hold, children included.
    fn conditions(&mut self, steps: Vec<BdStep>) -> Result<Vec<BdStep>, CookError> {
        let mut out = Vec::with_capacity(steps.len());
        for mut s in steps {
            if let Some(c) = &s.condition {
                let holds = condition_holds(c, self.values).ok_or_else(|| CookError::Step {
                    step: s.id.clone(),
                    problem: format!(
                        "has a condition that does not parse: {c:?} (write {{{{var}}}}, !{{{{var}}}}, {{{{var}}}} == value or {{{{var}}}} != value)"
                    ),
                })?;
                if !holds {
                    self.mark_removed(&s);
                    continue;
                }
            }
            s.children = self.conditions(std::mem::take(&mut s.children))?;
            if let Some(l) = &mut s.repeat {
                l.body = self.conditions(std::mem::take(&mut l.body))?;
            }
            out.push(s);
        }
        Ok(out)
    }

    fn mark_removed(&mut self, s: &BdStep) {
        self.removed.insert(s.id.clone());
        for c in &s.children {
            self.mark_removed(c);
        }
    }

    /// Unrolls loops: `count` and `range` iterations as `<id>.iter<n>.<body id>`,
    /// each iteration after the one before; an `until` loop once, its condition and
    /// bound recorded for whoever works it.
    fn loops(&mut self, steps: Vec<BdStep>, depth: usize) -> Result<Vec<BdStep>, CookError> {
        if depth >= MAX_DEPTH {
            return Err(CookError::TooDeep("nested loops".into()));
        }
        let mut out = Vec::with_capacity(steps.len());
        for mut s in steps {
            let Some(l) = s.repeat.take() else {
                s.children = self.loops(std::mem::take(&mut s.children), depth + 1)?;
                out.push(s);
                continue;
            };
            let bad = |problem: String| CookError::Step {
                step: s.id.clone(),
                problem,
            };
            if l.body.is_empty() {
                return Err(bad("has a loop without a body".into()));
            }
            let kinds = [l.count.is_some(), l.until.is_some(), l.range.is_some()];
            if kinds.iter().filter(|k| **k).count() != 1 {
                return Err(bad(
                    "has a loop that needs exactly one of count, until and range".into(),
                ));
            }
            let iterations: Vec<Option<i64>> = if let Some(n) = l.count {
                (1..=i64::from(n)).map(|_| None).collect()
            } else if let Some(r) = &l.range {
                let (a, b) = r
                    .split_once("..")
                    .ok_or_else(|| bad(format!("has a loop range {r:?} that is not START..END")))?;
                let (a, b) = match (eval_bound(a, self.values), eval_bound(b, self.values)) {
                    (Some(a), Some(b)) if b >= a => (a, b),
                    _ => {
                        return Err(bad(format!(
                            "has a loop range {r:?} that does not evaluate"
                        )));
                    }
                };
                if usize::try_from(b - a).unwrap_or(usize::MAX) >= MAX_STEPS {
                    return Err(CookError::TooMany);
                }
                (a..=b).map(Some).collect()
            } else {
                if l.max.is_none_or(|m| m == 0) {
                    return Err(bad("has an until loop without max".into()));
                }
                vec![None]
            };
            let body_ids: Vec<String> = l.body.iter().map(|b| b.id.clone()).collect();
            let mut previous_last: Option<String> = None;
            for (n, value) in iterations.iter().enumerate() {
                let prefix = format!("{}.iter{}.", s.id, n + 1);
                let mut subs: Vec<(String, String)> = Vec::new();
                if let (Some(var), Some(v)) = (&l.var, value) {
                    subs.push((format!("{{{var}}}"), v.to_string()));
                }
                let mut iteration: Vec<BdStep> = Vec::with_capacity(l.body.len());
                for b in &l.body {
                    let mut c = b.clone();
                    substitute_step(&mut c, &subs);
                    c.id = format!("{prefix}{}", b.id);
                    for need in c.needs.iter_mut().chain(c.depends_on.iter_mut()) {
                        if body_ids.contains(need) {
                            *need = format!("{prefix}{need}");
                        }
                    }
                    if iteration.is_empty() {
                        match &previous_last {
                            Some(last) => c.needs.push(last.clone()),
                            None => c.needs.extend(s.needs.iter().chain(&s.depends_on).cloned()),
                        }
                        if let Some(until) = &l.until {
                            c.labels.push(format!(
                                "loop:{}",
                                json!({"until": until, "max": l.max.unwrap_or(0)})
                            ));
                            c.metadata.insert(
                                "loop".into(),
                                json!({"until": until, "max": l.max.unwrap_or(0)}),
                            );
                        }
                    }
                    iteration.push(c);
                }
                previous_last = iteration.last().map(|c| c.id.clone());
                out.extend(self.loops(iteration, depth + 1)?);
                if out.len() > MAX_STEPS {
                    return Err(CookError::TooMany);
                }
            }
            // What needed the loop now needs its last step.
            if let Some(last) = previous_last {
                out.push(BdStep {
                    id: s.id.clone(),
                    title: if s.title.is_empty() {
                        s.id.clone()
                    } else {
                        s.title.clone()
                    },
                    description: s.description.clone(),
                    needs: vec![last],
                    labels: vec!["loop".into()],
                    ..BdStep::default()
                });
            }
        }
        Ok(out)
    }

    /// Puts expansions in place of their targets: a step's own `expand`, then
    /// `compose.expand` and `compose.map`.
    fn expansions(
        &mut self,
        f: &BdFormula,
        steps: &mut Vec<BdStep>,
        depth: usize,
    ) -> Result<(), CookError> {
        if depth >= MAX_DEPTH {
            return Err(CookError::TooDeep(f.formula.clone()));
        }
        let mut rules: Vec<(String, String, BTreeMap<String, String>, bool)> = Vec::new();
        for s in steps.iter() {
            if let Some(with) = &s.expand {
                rules.push((s.id.clone(), with.clone(), s.expand_vars.clone(), false));
            }
        }
        if let Some(c) = &f.compose {
            for r in &c.expand {
                rules.push((r.target.clone(), r.with.clone(), r.vars.clone(), false));
            }
            for r in &c.map {
                rules.push((r.select.clone(), r.with.clone(), r.vars.clone(), true));
            }
        }
        for (target, with, vars, is_glob) in rules {
            let exp = (self.lookup)(&with).ok_or_else(|| CookError::Missing {
                name: with.clone(),
                by: format!("an expansion of {}", f.formula),
            })?;
            let exp = resolve(&exp, self.lookup, depth + 1)?;
            let targets: Vec<String> = steps
                .iter()
                .filter(|s| {
                    if is_glob {
                        glob_match(&target, &s.id)
                    } else {
                        s.id == target
                    }
                })
                .map(|s| s.id.clone())
                .collect();
            if targets.is_empty() && !is_glob && !self.removed.contains(&target) {
                return Err(CookError::Step {
                    step: target,
                    problem: format!("is the target of expansion {with}, but no step has that id"),
                });
            }
            for t in targets {
                let Some(at) = steps.iter().position(|s| s.id == t) else {
                    continue;
                };
                let mut vars = vars.clone();
                for v in vars.values_mut() {
                    *v = fill_known(v, self.values);
                }
                let added = flatten(expansion_steps(&exp, &steps[at], &vars, self.values));
                replace_step(steps, at, added);
                if steps.len() > MAX_STEPS {
                    return Err(CookError::TooMany);
                }
            }
        }
        Ok(())
    }
}

/// The template of expansion `exp` made for `target`: `{target}`, `{target.title}`
/// and `{target.description}` filled in, its variables from `vars`, its defaults, and
/// the pour's values, in that order; roots take the target's needs.
fn expansion_steps(
    exp: &BdFormula,
    target: &BdStep,
    vars: &BTreeMap<String, String>,
    values: &BTreeMap<String, String>,
) -> Vec<BdStep> {
    let mut local = values.clone();
    for (k, v) in &exp.vars {
        if let Some(d) = &v.default {
            local.entry(k.clone()).or_insert_with(|| d.clone());
        }
    }
    local.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
    let subs = vec![
        ("{target.title}".to_owned(), target.title.clone()),
        (
            "{target.description}".to_owned(),
            target.description.clone(),
        ),
        ("{target}".to_owned(), target.id.clone()),
    ];
    let mut out: Vec<BdStep> = exp.template.clone();
    let ids: HashSet<String> = out.iter().map(|s| substitute(&s.id, &subs)).collect();
    for s in &mut out {
        substitute_step(s, &subs);
        s.title = fill_known(&s.title, &local);
        s.description = fill_known(&s.description, &local);
        if s.needs
            .iter()
            .chain(&s.depends_on)
            .all(|n| !ids.contains(n))
        {
            s.needs
                .extend(target.needs.iter().chain(&target.depends_on).cloned());
        }
        if s.assignee.is_none() {
            s.assignee.clone_from(&target.assignee);
        }
        s.metadata
            .entry("expanded_from".into())
            .or_insert_with(|| json!({"formula": exp.formula, "target": target.id}));
    }
    out
}

/// Replaces `steps[at]` with `added`: what needed the old step now needs the added
/// steps that nothing else among them needs.
fn replace_step(steps: &mut Vec<BdStep>, at: usize, added: Vec<BdStep>) {
    let old = steps[at].id.clone();
    let needed: HashSet<&str> = added
        .iter()
        .flat_map(|s| s.needs.iter().chain(&s.depends_on))
        .map(String::as_str)
        .collect();
    let sinks: Vec<String> = added
        .iter()
        .filter(|s| !needed.contains(s.id.as_str()))
        .map(|s| s.id.clone())
        .collect();
    let added_ids: HashSet<String> = added.iter().map(|s| s.id.clone()).collect();
    steps.splice(at..=at, added);
    for s in steps.iter_mut() {
        if added_ids.contains(&s.id) {
            continue;
        }
        rewire(s, &old, &sinks);
    }
}

/// Makes `s` need `instead` where it needed `old`.
fn rewire(s: &mut BdStep, old: &str, instead: &[String]) {
    for list in [&mut s.needs, &mut s.depends_on] {
        if let Some(i) = list.iter().position(|n| n == old) {
            list.remove(i);
            for n in instead {
                if !list.contains(n) {
                    list.push(n.clone());
                }
            }
        }
    }
}

/// bd's `waits_for`: `all-children`, `any-children` or `children-of(step)`, as the
/// gate and the step named; `None` for another value.
fn parse_waits_for(value: &str) -> Option<(&'static str, Option<&str>)> {
    match value {
        "all-children" => Some(("all-children", None)),
        "any-children" => Some(("any-children", None)),
        other => {
            let step = other.strip_prefix("children-of(")?.strip_suffix(')')?;
            (!step.is_empty()).then_some(("all-children", Some(step)))
        }
    }
}

fn bad_waits_for(s: &BdStep, w: &str) -> CookError {
    CookError::Step {
        step: s.id.clone(),
        problem: format!(
            "has waits_for {w:?} (write all-children, any-children or children-of(step))"
        ),
    }
}

/// Records each `waits_for` as `metadata.waits_for` = {gate, spawner}: the spawner is
/// the step `children-of` names, else the first step it needs (as bd infers it), else
/// the step itself when it has children.
fn waits(steps: &mut [BdStep]) -> Result<(), CookError> {
    for s in steps {
        if let Some(w) = &s.waits_for {
            let (gate, named) = parse_waits_for(w).ok_or_else(|| bad_waits_for(s, w))?;
            let spawner = named
                .map(str::to_owned)
                .or_else(|| s.needs.iter().chain(&s.depends_on).next().cloned())
                .or_else(|| (!s.children.is_empty()).then(|| s.id.clone()));
            if let Some(spawner) = spawner {
                s.metadata.insert(
                    "waits_for".into(),
                    json!({"gate": gate, "spawner": spawner}),
                );
            }
        }
        waits(&mut s.children)?;
    }
    Ok(())
}

/// Children become steps of their own before their parent, which waits for them;
/// each child without needs among its siblings takes the parent's needs.
fn flatten(steps: Vec<BdStep>) -> Vec<BdStep> {
    let mut out = Vec::with_capacity(steps.len());
    for mut s in steps {
        if s.children.is_empty() {
            out.push(s);
            continue;
        }
        let children = std::mem::take(&mut s.children);
        let sibling: HashSet<String> = children.iter().map(|c| c.id.clone()).collect();
        let parent_needs: Vec<String> = s.needs.iter().chain(&s.depends_on).cloned().collect();
        let mut ids = Vec::with_capacity(children.len());
        let mut kids = Vec::with_capacity(children.len());
        for mut c in children {
            if c.needs
                .iter()
                .chain(&c.depends_on)
                .all(|n| !sibling.contains(n))
            {
                c.needs.extend(parent_needs.iter().cloned());
            }
            if c.assignee.is_none() {
                c.assignee.clone_from(&s.assignee);
            }
            c.metadata.insert("parent_step".into(), json!(s.id));
            ids.push(c.id.clone());
            kids.push(c);
        }
        out.extend(flatten(kids));
        // A step that waits for its own children does so through its wait, not needs.
        let own = s.metadata.get("waits_for").and_then(|w| w.get("spawner")) == Some(&json!(s.id));
        if !own {
            s.needs.extend(ids);
        }
        out.push(s);
    }
    out
}

/// `compose.branch`: each branch step follows `from`; `join` waits for them all.
/// `compose.gate`: a conditional gate before the step named.
fn branches(f: &BdFormula, steps: &mut [BdStep]) {
    let Some(c) = &f.compose else {
        return;
    };
    for b in &c.branch {
        for s in steps.iter_mut() {
            if b.steps.contains(&s.id) && !s.needs.contains(&b.from) {
                s.needs.push(b.from.clone());
            }
            if s.id == b.join {
                for id in &b.steps {
                    if !s.needs.contains(id) {
                        s.needs.push(id.clone());
                    }
                }
            }
        }
    }
    for g in &c.gate {
        if let Some(s) = steps.iter_mut().find(|s| s.id == g.before) {
            s.gate.get_or_insert_with(|| Gate {
                kind: "conditional".into(),
                condition: Some(g.condition.clone()),
                ..Gate::default()
            });
        }
    }
}

/// bd's checks of `compose.gate` (a condition of its grammar, before a step there is).
fn check_gate_rules(
    f: &BdFormula,
    steps: &[BdStep],
    removed: &HashSet<String>,
) -> Result<(), CookError> {
    for g in f.compose.iter().flat_map(|c| &c.gate) {
        if Condition::parse(&g.condition).is_none() {
            return Err(CookError::Step {
                step: g.before.clone(),
                problem: format!(
                    "is gated by a condition that does not parse: {:?} (write step.status == 'complete', STEP.output.FIELD == VALUE, children(STEP).all(status == 'complete'), steps.complete >= N, file.exists('PATH') or env.NAME == VALUE)",
                    g.condition
                ),
            });
        }
        if !removed.contains(&g.before) && !steps.iter().any(|s| s.id == g.before) {
            return Err(CookError::Step {
                step: g.before.clone(),
                problem: "is gated by compose.gate, but no step has that id".into(),
            });
        }
    }
    Ok(())
}

fn advice_step(a: &AdviceStep, target: &BdStep) -> BdStep {
    let subs = vec![
        ("{step.id}".to_owned(), target.id.clone()),
        ("{step.title}".to_owned(), target.title.clone()),
    ];
    BdStep {
        id: substitute(&a.id, &subs),
        title: substitute(if a.title.is_empty() { &a.id } else { &a.title }, &subs),
        description: substitute(&a.description, &subs),
        kind: a.kind.clone(),
        assignee: target.assignee.clone(),
        extra: a.extra.clone(),
        metadata: [("advice_for".to_owned(), json!(target.id))].into(),
        ..BdStep::default()
    }
}

/// Whether step `s` is one an aspect's `pointcuts` select (bd's `MatchAnyPointcut`):
/// every step when there are none; else a step that some pointcut matches in each of
/// the glob over its id, its type and one of its labels that the pointcut gives.
fn selected(pointcuts: &[Pointcut], s: &BdStep) -> bool {
    pointcuts.is_empty()
        || pointcuts.iter().any(|p| {
            p.glob.as_deref().is_none_or(|g| glob_match(g, &s.id))
                && p.kind
                    .as_deref()
                    .is_none_or(|k| s.kind.as_deref() == Some(k))
                && p.label.as_ref().is_none_or(|l| s.labels.contains(l))
        })
}

/// Applies advice: for each step its target glob matches (among those the pointcuts
/// select), `before` steps in a chain before it (taking its needs), `after` steps in a
/// chain after it (what needed it needs the last of them).
fn apply_advice(advice: &[Advice], pointcuts: &[Pointcut], steps: &mut Vec<BdStep>) {
    for rule in advice {
        let targets: Vec<String> = steps
            .iter()
            .filter(|s| {
                glob_match(&rule.target, &s.id)
                    && !s.metadata.contains_key("advice_for")
                    && selected(pointcuts, s)
            })
            .map(|s| s.id.clone())
            .collect();
        for t in targets {
            let Some(at) = steps.iter().position(|s| s.id == t) else {
                continue;
            };
            let target = steps[at].clone();
            let befores: Vec<&AdviceStep> = rule
                .before
                .iter()
                .chain(rule.around.iter().flat_map(|a| &a.before))
                .collect();
            let afters: Vec<&AdviceStep> = rule
                .around
                .iter()
                .flat_map(|a| &a.after)
                .chain(rule.after.iter())
                .collect();
            let mut before_steps = Vec::new();
            let mut prev: Vec<String> = target
                .needs
                .iter()
                .chain(&target.depends_on)
                .cloned()
                .collect();
            for a in befores {
                let mut s = advice_step(a, &target);
                s.needs = prev;
                prev = vec![s.id.clone()];
                before_steps.push(s);
            }
            let mut after_steps: Vec<BdStep> = Vec::new();
            let mut last = target.id.clone();
            for a in afters {
                let mut s = advice_step(a, &target);
                s.needs = vec![last.clone()];
                last = s.id.clone();
                after_steps.push(s);
            }
            if last != target.id {
                for s in steps.iter_mut() {
                    if s.id != target.id {
                        rewire(s, &target.id, std::slice::from_ref(&last));
                    }
                }
            }
            if !before_steps.is_empty() {
                let t = &mut steps[at];
                t.needs = prev;
                t.depends_on.clear();
            }
            steps.splice(at + 1..at + 1, after_steps);
            steps.splice(at..at, before_steps);
        }
    }
}

/// A step with a gate waits for a gate step of its own, `<id>.gate`, which takes its
/// needs: a bead that blocks until the gate is resolved. A timer's timeout must be a
/// duration.
fn gates(steps: &mut Vec<BdStep>) -> Result<(), CookError> {
    let mut i = 0;
    while i < steps.len() {
        let Some(gate) = steps[i].gate.take() else {
            i += 1;
            continue;
        };
        let s = &mut steps[i];
        if gate.kind == "timer"
            && let Some(t) = &gate.timeout
            && let Err(e) = parse_duration(t)
        {
            return Err(CookError::Step {
                step: s.id.clone(),
                problem: format!("has a timer gate whose timeout {e}"),
            });
        }
        let what = match gate.kind.as_str() {
            "human" => "Approval".to_owned(),
            "timer" => format!("Wait {}", gate.timeout.as_deref().unwrap_or("")),
            "mail" => "Mail".to_owned(),
            "gh:run" => format!("GitHub run {}", gate.id.as_deref().unwrap_or("")),
            "gh:pr" => format!(
                "GitHub pull request {}",
                gate.await_id.as_deref().unwrap_or("")
            ),
            "conditional" => format!("Condition {}", gate.condition.as_deref().unwrap_or("")),
            other => format!("Gate {other}"),
        };
        let mut g = BdStep {
            id: format!("{}.gate", s.id),
            title: format!("{}: {}", what.trim_end(), s.title),
            description: gate
                .condition
                .as_ref()
                .map(|c| format!("Opens when: {c}"))
                .unwrap_or_default(),
            kind: Some("gate".into()),
            needs: std::mem::take(&mut s.needs),
            depends_on: std::mem::take(&mut s.depends_on),
            gate: None,
            assignee: s.assignee.clone(),
            ..BdStep::default()
        };
        g.metadata.insert("gate".into(), json!(gate));
        s.needs = vec![g.id.clone()];
        steps.insert(i, g);
        i += 2;
    }
    Ok(())
}

/// What a step expects that has no meaning here.
fn expectations(s: &BdStep) -> Vec<String> {
    let mut out: Vec<String> = s
        .extra
        .iter()
        .map(|(k, v)| {
            format!(
                "expected: `{k}` = {} (meaningful to bd or Gas Town, not run here)",
                short(v)
            )
        })
        .collect();
    if let Some(Value::Object(g)) = s.metadata.get("gate")
        && let Some(Value::String(kind)) = g.get("type")
        && !matches!(
            kind.as_str(),
            "human" | "timer" | "mail" | "gh:pr" | "gh:run"
        )
    {
        out.push(format!(
            "expected: a {kind} gate, checked by its worker; resolve it by hand"
        ));
    }
    if let Some(l) = s.metadata.get("loop") {
        out.push(format!(
            "expected: repeat until {} (the worker decides; pour again for another pass)",
            l["until"]
        ));
    }
    out
}

fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// Checks the flat steps, fills their texts in, and orders them.
fn finish(
    f: &BdFormula,
    steps: Vec<BdStep>,
    values: BTreeMap<String, String>,
    removed: &HashSet<String>,
) -> Result<Cooked, CookError> {
    if steps.is_empty() {
        return Err(CookError::NoSteps);
    }
    if steps.len() > MAX_STEPS {
        return Err(CookError::TooMany);
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        if s.id.is_empty() {
            return Err(CookError::Step {
                step: format!("#{}", i + 1),
                problem: "has no id".into(),
            });
        }
        if index.insert(s.id.as_str(), i).is_some() {
            return Err(CookError::Duplicate(s.id.clone()));
        }
        if let Some(p) = s.priority
            && !(0..=4).contains(&p)
        {
            return Err(CookError::Step {
                step: s.id.clone(),
                problem: format!("has priority {p}; priorities are 0 to 4"),
            });
        }
    }
    let mut needs: Vec<Vec<usize>> = Vec::with_capacity(steps.len());
    for s in &steps {
        let mut n = Vec::new();
        for need in s.needs.iter().chain(&s.depends_on) {
            match index.get(need.as_str()) {
                Some(&j) => n.push(j),
                None if removed.contains(need) => {}
                None => {
                    return Err(CookError::UnknownNeed {
                        step: s.id.clone(),
                        need: need.clone(),
                    });
                }
            }
        }
        n.sort_unstable();
        n.dedup();
        needs.push(n);
    }
    let order = topo_order(&needs).ok_or_else(|| {
        let stuck = (0..steps.len())
            .find(|&i| needs[i].contains(&i))
            .unwrap_or(0);
        CookError::Cycle(steps[stuck].id.clone())
    })?;
    let mut position = vec![0usize; steps.len()];
    for (pos, &i) in order.iter().enumerate() {
        position[i] = pos;
    }
    let fill = |t: &str| fill_known(t, &values);
    let mut cooked = Vec::with_capacity(steps.len());
    for &i in &order {
        let s = &steps[i];
        let mut n: Vec<usize> = needs[i].iter().map(|&j| position[j]).collect();
        n.sort_unstable();
        // A step of type human is itself a gate that waits for a person (bd's word).
        let gate = s
            .metadata
            .get("gate")
            .and_then(|g| serde_json::from_value::<Gate>(g.clone()).ok())
            .or_else(|| {
                (s.kind.as_deref() == Some("human")).then(|| Gate {
                    kind: "human".into(),
                    ..Gate::default()
                })
            });
        cooked.push(CookedStep {
            key: s.id.clone(),
            title: fill(if s.title.trim().is_empty() {
                &s.id
            } else {
                &s.title
            }),
            description: fill(&s.description),
            notes: fill(&s.notes),
            acceptance: s.acceptance.as_deref().map(fill),
            kind: s.kind.clone(),
            priority: s.priority.and_then(|p| u8::try_from(p).ok()),
            labels: s.labels.iter().map(|l| fill(l)).collect(),
            assignee: s.assignee.as_deref().map(fill).filter(|a| !a.is_empty()),
            metadata: s.metadata.clone(),
            gate,
            condition: s.condition.clone(),
            on_complete: s.on_complete.clone(),
            needs: n,
            expected: expectations(s),
        });
    }
    let expected =
        f.extra
            .iter()
            .map(|(k, v)| {
                format!(
                    "expected: `{k}` = {} (meaningful to bd or Gas Town, not run here)",
                    short(v)
                )
            })
            .chain(f.compose.iter().flat_map(|c| &c.extra).map(|(k, _)| {
                format!("expected: compose.{k} (bonding at run time, not done here)")
            }))
            .collect();
    let title = match f.extra.get("title") {
        Some(Value::String(t)) => fill(t),
        _ => f.formula.clone(),
    };
    Ok(Cooked {
        name: f.formula.clone(),
        version: f.version,
        kind: f.kind().to_owned(),
        phase: f.phase.clone(),
        pour: f.pour,
        title,
        description: fill(&f.description),
        values,
        steps: cooked,
        expected,
        stale_overrides: Vec::new(),
    })
}

/// Kahn's order, preferring the order written; `None` on a cycle.
fn topo_order(needs: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = needs.len();
    let mut waiting: Vec<usize> = needs.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ns) in needs.iter().enumerate() {
        for &j in ns {
            dependents[j].push(i);
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(i) = ready.pop_first() {
        out.push(i);
        for &d in &dependents[i] {
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.insert(d);
            }
        }
    }
    (out.len() == n).then_some(out)
}

impl Cooked {
    /// What a pour writes: the molecule and one bead per step, with each step's type,
    /// priority, labels, assignee and the data it carries.
    pub fn rendered(&self) -> Rendered {
        let steps = self
            .steps
            .iter()
            .map(|s| {
                let mut extra: BTreeMap<String, Value> = BTreeMap::new();
                let mut expected = s.expected.clone();
                let kind = if s.gate.is_some() {
                    Some(BeadType::Gate)
                } else {
                    s.kind.as_deref().and_then(|k| match k.parse::<BeadType>() {
                        Ok(t) => Some(t),
                        Err(_) => {
                            expected.push(format!("expected: step type {k:?} (poured as a task)"));
                            None
                        }
                    })
                };
                if !s.metadata.is_empty() {
                    extra.insert("metadata".into(), json!(s.metadata));
                }
                if let Some(g) = &s.gate {
                    extra.insert("gate".into(), json!(g));
                }
                if let Some(c) = &s.condition {
                    extra.insert("condition".into(), json!(c));
                }
                if let Some(o) = &s.on_complete {
                    extra.insert("on_complete".into(), json!(o));
                }
                if let Some(w) = s.metadata.get("waits_for") {
                    extra.insert("waits_for".into(), w.clone());
                }
                if !expected.is_empty() {
                    extra.insert("expected".into(), json!(expected));
                }
                RenderedStep {
                    key: s.key.clone(),
                    title: s.title.clone(),
                    description: s.description.clone(),
                    acceptance: s.acceptance.clone(),
                    needs: s.needs.clone(),
                    kind,
                    priority: s.priority,
                    labels: s.labels.clone(),
                    assignee: s.assignee.clone(),
                    notes: s.notes.clone(),
                    extra,
                }
            })
            .collect();
        Rendered {
            title: self.title.clone(),
            description: self.description.clone(),
            values: self.values.clone(),
            steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<BdFormula> {
        None
    }

    #[test]
    fn formula_conditions_follow_bds_grammar() {
        let mut v = BTreeMap::new();
        v.insert("on".to_owned(), "yes".to_owned());
        v.insert("off".to_owned(), "false".to_owned());
        v.insert("env".to_owned(), "prod".to_owned());
        assert_eq!(condition_holds("{{on}}", &v), Some(true));
        assert_eq!(condition_holds("{{off}}", &v), Some(false));
        assert_eq!(condition_holds("!{{off}}", &v), Some(true));
        assert_eq!(condition_holds("{{env}} == prod", &v), Some(true));
        assert_eq!(condition_holds("{{env}} != 'prod'", &v), Some(false));
        assert_eq!(condition_holds("{{missing}}", &v), Some(false));
        assert_eq!(condition_holds("env is prod", &v), None);
    }

    #[test]
    fn formula_globs_and_bounds() {
        assert!(glob_match("impl*", "implement"));
        assert!(glob_match("*", "x"));
        assert!(!glob_match("a?c", "abd"));
        let mut v = BTreeMap::new();
        v.insert("n".to_owned(), "3".to_owned());
        assert_eq!(eval_bound("2^{n} - 1", &v), Some(7));
        assert_eq!(eval_bound("(1+{{n}})*2", &v), Some(8));
        assert_eq!(eval_bound("x", &v), None);
    }

    #[test]
    fn formula_loops_unroll_in_order() {
        let f = BdFormula::from_toml(
            "formula = \"l\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\n[[steps]]\nid = \"w\"\ntitle = \"W\"\nneeds = [\"a\"]\n[steps.loop]\ncount = 2\n[[steps.loop.body]]\nid = \"x\"\ntitle = \"X\"\n[[steps.loop.body]]\nid = \"y\"\ntitle = \"Y\"\nneeds = [\"x\"]\n[[steps]]\nid = \"z\"\ntitle = \"Z\"\nneeds = [\"w\"]\n",
        )
        .expect("parses");
        let c = cook(&f, &BTreeMap::new(), &none, None).expect("cooks");
        let keys: Vec<&str> = c.steps.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "a",
                "w.iter1.x",
                "w.iter1.y",
                "w.iter2.x",
                "w.iter2.y",
                "w",
                "z"
            ]
        );
        assert_eq!(c.steps[3].needs, [2]);
        assert_eq!(c.steps[6].needs, [5]);
    }

    #[test]
    fn formula_unknown_braces_are_kept() {
        let mut v = BTreeMap::new();
        v.insert("a".to_owned(), "X".to_owned());
        assert_eq!(fill_known("{{a}} {{#if b}} {{ a }}", &v), "X {{#if b}} X");
    }
}
