//! The one validator of whole documents: every rule a bead, a message or an agent must keep,
//! whichever way it arrives (a command, an import, a sync, a hand edit). Commands and
//! imports refuse what fails; a document from elsewhere is kept as it is and `doctor`
//! names what is wrong with it.

use super::agent::Agent;
use super::bead::Bead;
use super::mail::Message;
use super::text::{
    TextError, check_label, check_line, check_name, check_text, check_title, check_title_lines,
};

/// The highest priority number (4 = backlog; 0 is critical).
const MAX_PRIORITY: u8 = 4;

/// One thing wrong with a document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// A piece of its text breaks a rule.
    #[error(transparent)]
    Text(#[from] TextError),
    /// Its priority is outside 0 … `MAX_PRIORITY`.
    #[error("priority {0} is out of range (0 = critical … 4 = backlog)")]
    Priority(u8),
}

/// Checks a priority: 0 (critical) … 4 (backlog).
fn check_priority(p: u8) -> Result<u8, Invalid> {
    if p > MAX_PRIORITY {
        return Err(Invalid::Priority(p));
    }
    Ok(p)
}

/// Pushes the error of `check`, if any, to `problems`.
fn collect<E: Into<Invalid>>(problems: &mut Vec<Invalid>, check: Result<impl Sized, E>) {
    if let Err(e) = check {
        problems.push(e.into());
    }
}

/// Every rule `bead` breaks, in the order of its fields (none: it is valid), as a
/// command holds what it writes to them. Its id, status, type and dependencies are
/// typed and were checked when it was read.
pub fn bead_problems(bead: &Bead) -> Vec<Invalid> {
    problems(bead, false)
}

/// [`bead_problems`] of a document that comes in whole (an import, a sync, a hand
/// edit), which may keep what bd wrote: line breaks in the title of finished work (a
/// closed bead or a tombstone, kept as it was). Every other rule holds.
pub fn stored_bead_problems(bead: &Bead) -> Vec<Invalid> {
    problems(bead, bead.status.is_done())
}

/// The rules of a bead; `history` lets its title hold line breaks.
fn problems(bead: &Bead, history: bool) -> Vec<Invalid> {
    let mut p = Vec::new();
    match history {
        true => collect(&mut p, check_title_lines(&bead.title)),
        false => collect(&mut p, check_title(&bead.title)),
    }
    collect(&mut p, check_priority(bead.priority));
    if let Some(a) = &bead.assignee {
        collect(&mut p, check_name("assignee", a));
    }
    for l in &bead.labels {
        collect(&mut p, check_label(l));
    }
    collect(&mut p, check_text("description", &bead.description));
    collect(&mut p, check_text("notes", &bead.notes));
    for c in &bead.comments {
        collect(&mut p, check_text("comment", &c.text));
        collect(&mut p, check_name("author", &c.author));
    }
    // bd's text fields, kept in `extra`.
    let extra = |key| bead.extra.get(key).and_then(serde_json::Value::as_str);
    for (what, key) in [
        ("design", "design"),
        ("acceptance criteria", "acceptance_criteria"),
    ] {
        if let Some(v) = extra(key) {
            collect(&mut p, check_text(what, v));
        }
    }
    if let Some(v) = extra("external_ref") {
        collect(&mut p, check_line("external ref", v));
    }
    for (what, reason) in [
        ("close reason", &bead.close_reason),
        ("delete reason", &bead.delete_reason),
    ] {
        if let Some(r) = reason {
            collect(&mut p, check_text(what, r));
        }
    }
    p
}

/// Every rule `message` breaks (none: it is valid).
pub fn message_problems(message: &Message) -> Vec<Invalid> {
    let mut p = Vec::new();
    collect(&mut p, check_line("subject", &message.subject));
    collect(&mut p, check_text("body", &message.body));
    collect(&mut p, check_priority(message.priority));
    p
}

/// Every rule `agent` breaks (none: it is valid). Its name, parent, status and
/// authority are typed and were checked when it was read.
pub fn agent_problems(agent: &Agent) -> Vec<Invalid> {
    let mut p = Vec::new();
    for (what, value) in [("role", &agent.role), ("model", &agent.model)] {
        if let Some(v) = value {
            collect(&mut p, check_name(what, v));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BeadId, Status};

    fn bead(title: &str) -> Bead {
        let id = BeadId::parse("bd-a1").expect("id");
        Bead::new(id, title.into(), "me", chrono::Utc::now())
    }

    #[test]
    fn every_problem_is_found() {
        assert!(bead_problems(&bead("fine")).is_empty());
        let mut b = bead("");
        b.priority = 99;
        b.labels.insert("a,b".into());
        b.description = "\u{1b}]0;owned\u{7}".into();
        b.extra.insert("design".into(), "\u{1b}[31m".into());
        b.extra
            .insert("acceptance_criteria".into(), "ok\n\u{9b}2J".into());
        b.extra.insert("external_ref".into(), "gh-1\n".into());
        // bd's metadata is a JSON object of its own, not text: it is kept as it is.
        b.extra
            .insert("metadata".into(), serde_json::json!({"k": "\u{1b}"}));
        let found = bead_problems(&b);
        assert_eq!(found.len(), 7, "{found:?}");
        assert_eq!(found[0], Invalid::Text(TextError::Empty { what: "title" }));
        assert_eq!(found[1], Invalid::Priority(99));
    }

    #[test]
    fn titles_as_bd_wrote_them_pass_and_others_do_not() {
        for bad in [
            "two\nlines",
            "ends in a line break\n",
            "\u{1b}[2J",
            &"x".repeat(100 * 1024),
            " \n",
        ] {
            assert_eq!(bead_problems(&bead(bad)).len(), 1, "{bad:?}");
            assert_eq!(stored_bead_problems(&bead(bad)).len(), 1, "{bad:?}");
        }
        for status in [Status::Closed, Status::Deleted] {
            let mut done = bead("finished:\n\nof several lines\n");
            done.status = status;
            assert!(stored_bead_problems(&done).is_empty());
            assert_eq!(bead_problems(&done).len(), 1);
            done.title = "\u{1b}[2J".into();
            assert_eq!(stored_bead_problems(&done).len(), 1);
        }
    }
}
