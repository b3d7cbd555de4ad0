//! What each type of bead is expected to say, as bd's issue templates have it, and
//! which of those sections a bead lacks (`lint`).

use super::bead::{Bead, BeadType};

/// One section a type's template expects.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// Its name, as bd's templates head it.
    pub name: &'static str,
    /// The field of its own that holds it, when there is one (in `extra`).
    pub field: Option<&'static str>,
    /// How a line of the description, design or notes that opens it begins, lowercase
    /// (after any `#`, `*` and spaces).
    pub openers: &'static [&'static str],
}

const REPRO: Section = Section {
    name: "Steps to Reproduce",
    field: None,
    openers: &["steps to reproduce", "repro", "to reproduce"],
};

const ACCEPTANCE: Section = Section {
    name: "Acceptance Criteria",
    field: Some("acceptance_criteria"),
    openers: &["acceptance criteria", "acceptance"],
};

const SUCCESS: Section = Section {
    name: "Success Criteria",
    field: None,
    openers: &["success criteria"],
};

/// The sections beads of type `kind` are expected to have (none for most types).
pub fn template(kind: BeadType) -> &'static [Section] {
    match kind {
        BeadType::Bug => &[REPRO, ACCEPTANCE],
        BeadType::Task | BeadType::Feature => &[ACCEPTANCE],
        BeadType::Epic => &[SUCCESS],
        _ => &[],
    }
}

/// The names of the sections `bead`'s type expects that it lacks, in template order.
pub fn missing_sections(bead: &Bead) -> Vec<&'static str> {
    let texts = [
        bead.description.as_str(),
        bead.notes.as_str(),
        bead.extra
            .get("design")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default(),
    ];
    template(bead.kind)
        .iter()
        .filter(|s| !has_section(bead, &texts, s))
        .map(|s| s.name)
        .collect()
}

fn has_section(bead: &Bead, texts: &[&str], section: &Section) -> bool {
    let in_field = section.field.is_some_and(|f| {
        bead.extra
            .get(f)
            .and_then(serde_json::Value::as_str)
            .is_some_and(|v| !v.trim().is_empty())
    });
    in_field
        || texts.iter().flat_map(|t| t.lines()).any(|line| {
            let line = line
                .trim_start_matches(|c: char| c == '#' || c == '*' || c.is_whitespace())
                .to_lowercase();
            section.openers.iter().any(|o| line.starts_with(o))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BeadId;

    fn bead(kind: BeadType, description: &str) -> Bead {
        let id = BeadId::parse("bd-a1").expect("id");
        let mut b = Bead::new(id, "t".into(), "me", chrono::Utc::now());
        b.kind = kind;
        b.description = description.into();
        b
    }

    #[test]
    fn each_type_expects_its_sections() {
        assert_eq!(
            missing_sections(&bead(BeadType::Bug, "it breaks")),
            ["Steps to Reproduce", "Acceptance Criteria"]
        );
        let full = "## Steps to Reproduce\n1. run\n\n## Acceptance Criteria\n- works";
        assert!(missing_sections(&bead(BeadType::Bug, full)).is_empty());
        let mut task = bead(BeadType::Task, "");
        assert_eq!(missing_sections(&task), ["Acceptance Criteria"]);
        task.extra
            .insert("acceptance_criteria".into(), "it is done".into());
        assert!(missing_sections(&task).is_empty());
        assert_eq!(
            missing_sections(&bead(BeadType::Epic, "")),
            ["Success Criteria"]
        );
        assert!(missing_sections(&bead(BeadType::Chore, "")).is_empty());
    }
}
