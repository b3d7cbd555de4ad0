//! Gas Town's formula overlays: an operator's per-step changes to a formula that is
//! not theirs to edit (`formula-overlays/<formula>.toml`, Gas Town's
//! `internal/formula/overlay.go`), as data and as the change they make to its steps.

use serde::{Deserialize, Serialize};

use super::bd_formula::BdFormula;
use super::formula::FormulaError;

/// An overlay: the step overrides of one formula.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// The overrides, applied in order.
    #[serde(default, rename = "step-overrides")]
    pub step_overrides: Vec<StepOverride>,
}

/// How an override changes its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OverrideMode {
    /// The step's description becomes the override's.
    Replace,
    /// The override's description is added after the step's, on a new line.
    Append,
    /// The step is removed; what needed it needs what it needed.
    Skip,
}

/// One `[[step-overrides]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepOverride {
    /// The step changed (a top-level step of the formula).
    pub step_id: String,
    /// How.
    pub mode: OverrideMode,
    /// The text of a `replace` or `append`.
    #[serde(default)]
    pub description: String,
}

impl Overlay {
    /// Parses an overlay's TOML; the error carries the line, as for a formula.
    pub fn from_toml(source: &str) -> Result<Overlay, FormulaError> {
        let overlay: Overlay = super::bd_formula::parse_toml(source)?;
        if let Some(i) = overlay
            .step_overrides
            .iter()
            .position(|o| o.step_id.trim().is_empty())
        {
            return Err(FormulaError::Yaml {
                message: format!("step-overrides[{i}]: step_id is required"),
                line: None,
                column: None,
            });
        }
        Ok(overlay)
    }

    /// Applies the overrides to `f`'s steps, in order, and returns the step ids it
    /// names that are not among them (stale overrides, which change nothing).
    pub fn apply(&self, f: &mut BdFormula) -> Vec<String> {
        let mut stale = Vec::new();
        for o in &self.step_overrides {
            let Some(at) = f.steps.iter().position(|s| s.id == o.step_id) else {
                stale.push(o.step_id.clone());
                continue;
            };
            match o.mode {
                OverrideMode::Replace => f.steps[at].description.clone_from(&o.description),
                OverrideMode::Append => {
                    let s = &mut f.steps[at];
                    s.description = format!("{}\n{}", s.description, o.description);
                }
                OverrideMode::Skip => {
                    let gone = f.steps.remove(at);
                    let inherited: Vec<String> =
                        gone.needs.iter().chain(&gone.depends_on).cloned().collect();
                    for s in &mut f.steps {
                        for list in [&mut s.needs, &mut s.depends_on] {
                            if let Some(i) = list.iter().position(|n| *n == gone.id) {
                                list.splice(i..=i, inherited.iter().cloned());
                            }
                        }
                    }
                }
            }
        }
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_overlay_modes_follow_gas_town() {
        let mut f = BdFormula::from_toml(
            "formula = \"x\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ndescription = \"do a\"\n[[steps]]\nid = \"b\"\ntitle = \"B\"\nneeds = [\"a\"]\n[[steps]]\nid = \"c\"\ntitle = \"C\"\nneeds = [\"b\"]\n",
        )
        .expect("parses");
        let o = Overlay::from_toml(
            "[[step-overrides]]\nstep_id = \"a\"\nmode = \"append\"\ndescription = \"and more\"\n\n[[step-overrides]]\nstep_id = \"b\"\nmode = \"skip\"\n\n[[step-overrides]]\nstep_id = \"gone\"\nmode = \"replace\"\ndescription = \"x\"\n",
        )
        .expect("parses");
        assert_eq!(o.apply(&mut f), ["gone"]);
        assert_eq!(f.steps[0].description, "do a\nand more");
        assert_eq!(f.steps.len(), 2);
        assert_eq!(f.steps[1].needs, ["a"], "c inherits what b needed");
        let e = Overlay::from_toml("[[step-overrides]]\nstep_id = \"a\"\nmode = \"rewrite\"\n")
            .expect_err("bad mode");
        assert!(
            matches!(e, FormulaError::Yaml { line: Some(3), .. }),
            "{e:?}"
        );
    }
}
