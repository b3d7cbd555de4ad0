//! bd's run-time conditions (`internal/formula/condition.go`): what a conditional gate
//! (`compose.gate`) and an `until` loop wait for. Kept decidable on purpose: a step's
//! status or output, an aggregate over steps or a step's children, a file that exists,
//! an environment variable.
//!
//! ```text
//! review.status == 'complete'        step.output.approved == true
//! children(build).all(status == 'complete')    steps.complete >= 3
//! file.exists('go.mod')              env.CI == 'true'
//! ```
//!
//! Parsing is pure; evaluating asks the caller for the steps and for the outside world.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

/// A parsed condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// `STEP.status OP VALUE` or `STEP.output.PATH OP VALUE` (`step` is the gated step).
    Field {
        /// The step named.
        step: String,
        /// `status` or `output.PATH`.
        field: String,
        /// The comparison.
        op: String,
        /// The value compared with.
        value: String,
    },
    /// `children(STEP).all|any(FIELD OP VALUE)`, `….count(…) OP N`, `steps.STATUS OP N`.
    Aggregate {
        /// `children`, `descendants` or `steps`.
        over: String,
        /// The step whose children are meant.
        step: String,
        /// `all`, `any` or `count`.
        func: String,
        /// The field of each compared.
        field: String,
        /// The comparison each is put to.
        op: String,
        /// The value compared with.
        value: String,
        /// For `count`: how the number of those that pass is compared, and with what.
        count: Option<(String, String)>,
    },
    /// `file.exists('PATH')`.
    FileExists(String),
    /// `env.NAME OP VALUE`.
    Env {
        /// The variable.
        name: String,
        /// The comparison.
        op: String,
        /// The value compared with.
        value: String,
    },
}

/// Where a step stands, as a condition sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepFacts {
    /// `pending`, `in_progress` or `complete` (bd's words).
    pub status: String,
    /// What it produced, when it was closed with an output.
    pub output: Option<Value>,
    /// Its children, by their ids in the formula or as beads.
    pub children: Vec<String>,
}

/// What a condition is evaluated against.
pub struct Facts<'a> {
    /// Every step, by id.
    pub steps: &'a BTreeMap<String, StepFacts>,
    /// The gated step (`step.…`).
    pub current: &'a str,
    /// The molecule's variables (`{{var}}` in a file path).
    pub vars: &'a BTreeMap<String, String>,
    /// Whether a file exists (relative paths from the top of the worktree).
    pub file_exists: &'a dyn Fn(&str) -> bool,
    /// An environment variable's value.
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

fn patterns() -> &'static [Regex; 5] {
    static P: OnceLock<[Regex; 5]> = OnceLock::new();
    P.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("the patterns are valid");
        [
            re(r#"^file\.exists\(['"](.+)['"]\)$"#),
            re(r"^env\.(\w+)\s*([=!<>]+)\s*(.+)$"),
            re(r"^(children|descendants|steps)\((\w[\w-]*)\)\.(all|any|count)\((.+)\)(.*)$"),
            re(r"^steps\.(\w+)\s*([=!<>]+)\s*(\d+)$"),
            re(r"^([\w-]+(?:\.[\w-]+)*)\s*([=!<>]+)\s*(.+)$"),
        ]
    })
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let quoted = s.len() >= 2
        && ((s.starts_with('\'') && s.ends_with('\'')) || (s.starts_with('"') && s.ends_with('"')));
    if quoted {
        s[1..s.len() - 1].to_owned()
    } else {
        s.to_owned()
    }
}

const OPS: [&str; 6] = ["==", "!=", ">=", "<=", ">", "<"];

impl Condition {
    /// Parses a condition; `None` when it is none of bd's forms.
    pub fn parse(text: &str) -> Option<Condition> {
        let text = text.trim();
        let [file, env, aggregate, stat, field] = patterns();
        let op = |o: &str| OPS.contains(&o).then(|| o.to_owned());
        if let Some(m) = file.captures(text) {
            return Some(Condition::FileExists(m[1].to_owned()));
        }
        if let Some(m) = env.captures(text) {
            return Some(Condition::Env {
                name: m[1].to_owned(),
                op: op(&m[2])?,
                value: unquote(&m[3]),
            });
        }
        if let Some(m) = aggregate.captures(text) {
            let Condition::Field {
                field,
                op: o,
                value,
                ..
            } = Condition::parse(&m[4])?
            else {
                return None;
            };
            let tail = m[5].trim();
            let count = if tail.is_empty() {
                None
            } else {
                let c = OPS.iter().find(|p| tail.starts_with(**p))?;
                let n = tail[c.len()..].trim();
                n.parse::<i64>().ok()?;
                Some(((*c).to_owned(), n.to_owned()))
            };
            let func = if count.is_some() { "count" } else { &m[3] };
            (func != "count" || count.is_some()).then_some(())?;
            return Some(Condition::Aggregate {
                over: m[1].to_owned(),
                step: m[2].to_owned(),
                func: func.to_owned(),
                field,
                op: o,
                value,
                count,
            });
        }
        if let Some(m) = stat.captures(text) {
            return Some(Condition::Aggregate {
                over: "steps".into(),
                step: String::new(),
                func: "count".into(),
                field: "status".into(),
                op: "==".into(),
                value: m[1].to_owned(),
                count: Some((op(&m[2])?, m[3].to_owned())),
            });
        }
        let m = field.captures(text)?;
        let path = &m[1];
        let (step, field) = match path.split_once('.') {
            Some(("step", rest)) => ("step".to_owned(), rest.to_owned()),
            Some(("output", _)) | None => ("step".to_owned(), path.to_owned()),
            Some((step, rest)) => (step.to_owned(), rest.to_owned()),
        };
        (field == "status" || field.starts_with("output.")).then_some(())?;
        Some(Condition::Field {
            step,
            field,
            op: op(&m[2])?,
            value: unquote(&m[3]),
        })
    }

    /// Whether the condition holds for `facts`.
    pub fn holds(&self, facts: &Facts<'_>) -> bool {
        let current = facts.current;
        fn named<'n>(s: &'n str, current: &'n str) -> &'n str {
            if s == "step" { current } else { s }
        }
        match self {
            Condition::Field {
                step,
                field,
                op,
                value,
            } => facts
                .steps
                .get(named(step, current))
                .is_some_and(|s| compare(&field_of(s, field), op, value)),
            Condition::Aggregate {
                over,
                step,
                func,
                field,
                op,
                value,
                count,
            } => {
                let members: Vec<&StepFacts> = match over.as_str() {
                    "steps" => facts.steps.values().collect(),
                    _ => {
                        let mut out = Vec::new();
                        let mut queue = vec![named(step, current).to_owned()];
                        while let Some(at) = queue.pop() {
                            let Some(s) = facts.steps.get(&at) else {
                                continue;
                            };
                            for c in &s.children {
                                if let Some(child) = facts.steps.get(c) {
                                    out.push(child);
                                    if over == "descendants" {
                                        queue.push(c.clone());
                                    }
                                }
                            }
                        }
                        out
                    }
                };
                let matches = |s: &&StepFacts| compare(&field_of(s, field), op, value);
                match (func.as_str(), count) {
                    // No children yet is not "all done": a gate must not open early.
                    ("all", _) => !members.is_empty() && members.iter().all(matches),
                    ("any", _) => members.iter().any(matches),
                    (_, Some((by, n))) => {
                        let passed = members.iter().filter(|s| matches(s)).count();
                        compare(&Some(Value::from(passed)), by, n)
                    }
                    _ => false,
                }
            }
            Condition::FileExists(path) => {
                (facts.file_exists)(&super::fill_known(path, facts.vars))
            }
            Condition::Env { name, op, value } => {
                compare(&(facts.env)(name).map(Value::String), op, value)
            }
        }
    }
}

fn field_of(s: &StepFacts, field: &str) -> Option<Value> {
    match field.strip_prefix("output.") {
        Some(path) => path
            .split('.')
            .try_fold(s.output.as_ref()?, |v, k| v.get(k))
            .cloned(),
        None => Some(Value::String(s.status.clone())),
    }
}

/// bd's comparison: missing equals only ""; numbers compare as numbers.
fn compare(actual: &Option<Value>, op: &str, expected: &str) -> bool {
    let Some(actual) = actual else {
        return match op {
            "==" => expected.is_empty(),
            "!=" => !expected.is_empty(),
            _ => false,
        };
    };
    let text = super::bd_formula::scalar_text(actual);
    match (text.parse::<f64>(), expected.parse::<f64>()) {
        (Ok(a), Ok(b)) => ordered(&a, op, &b),
        _ => ordered(text.as_str(), op, expected),
    }
}

/// `a OP b` for one of [`OPS`] (`<=` for anything else).
fn ordered<T: PartialOrd + ?Sized>(a: &T, op: &str, b: &T) -> bool {
    match op {
        "==" => a == b,
        "!=" => a != b,
        ">" => a > b,
        ">=" => a >= b,
        "<" => a < b,
        _ => a <= b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_conditions_parse_and_hold_as_bds() {
        let mut steps = BTreeMap::new();
        steps.insert(
            "review".to_owned(),
            StepFacts {
                status: "complete".into(),
                output: Some(serde_json::json!({"approved": true, "errors": {"count": 0}})),
                children: vec!["a".into(), "b".into()],
            },
        );
        for (c, s) in [("a", "complete"), ("b", "pending")] {
            steps.insert(
                c.to_owned(),
                StepFacts {
                    status: s.into(),
                    ..StepFacts::default()
                },
            );
        }
        let vars = BTreeMap::new();
        let env = |n: &str| (n == "CI").then(|| "true".to_owned());
        let facts = Facts {
            steps: &steps,
            current: "review",
            vars: &vars,
            file_exists: &|p| p == "go.mod",
            env: &env,
        };
        let holds = |c: &str| {
            Condition::parse(c)
                .unwrap_or_else(|| panic!("{c} parses"))
                .holds(&facts)
        };
        assert!(holds("review.status == 'complete'"));
        assert!(holds("step.output.approved == true"));
        assert!(holds("review.output.errors.count == 0"));
        assert!(!holds("children(review).all(status == 'complete')"));
        assert!(holds("children(review).any(status == 'complete')"));
        assert!(holds("children(review).count(status == 'complete') >= 1"));
        assert!(holds("steps.complete >= 2"));
        assert!(holds("file.exists('go.mod')"));
        assert!(holds("env.CI == 'true'"));
        assert!(!holds("missing.status == 'complete'"));
        assert_eq!(Condition::parse("tests pass"), None);
    }
}
