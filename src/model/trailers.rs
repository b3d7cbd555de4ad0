//! Trailers (`Key: value` lines at the end of a commit message), added the way
//! `git interpret-trailers --if-exists addIfDifferent` adds them, without starting
//! a git process: the prepare-commit-msg hook runs on every commit.
//!
//! git's rules, for the messages a commit hands its prepare-commit-msg hook: the
//! message ends before a scissors line (`# --- >8 ---`, from `commit -v`), before a
//! `---` divider, and before the comment lines and blank lines that close it. Its
//! last paragraph is a trailer block when it is not the title and its lines are all
//! trailers (continuation lines, which start with a blank, belong to the one
//! above), or when a quarter of them are and one was written by git
//! (`Signed-off-by: `, `(cherry picked from commit `). New trailers go at the end
//! of that block, or into a new paragraph after the message; a trailer whose key
//! (in any case) and value the block already has is not added again.

/// Lines git itself writes into trailer blocks: a paragraph holding one of them is a
/// trailer block when a quarter of its lines are trailers.
const GIT_TRAILER_PREFIXES: &[&str] = &["Signed-off-by: ", "(cherry picked from commit "];

/// The key of `line` when it is a trailer (`Key: value`, the key made of letters,
/// digits and `-`), else `None`.
fn trailer_key(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    let key = key.trim_end();
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then_some(key)
}

/// Whether `line` is a comment of a message whose comment character is `comment`.
fn is_comment(line: &str, comment: char) -> bool {
    line.starts_with(comment)
}

/// Where the message proper ends in `lines`: before a scissors line or a `---`
/// divider, and before the comments and blank lines that close it.
fn message_end(lines: &[&str], comment: char) -> usize {
    let scissors = format!("{comment} ------------------------ >8 ------------------------");
    let mut end = lines
        .iter()
        .position(|l| *l == scissors || *l == "---" || l.starts_with("--- "))
        .unwrap_or(lines.len());
    // As in git, the closing comments never begin at the first line.
    while end > 1 && (lines[end - 1].trim().is_empty() || is_comment(lines[end - 1], comment)) {
        end -= 1;
    }
    end
}

/// `text` (a commit message as git hands it to prepare-commit-msg) with `trailers`
/// (key, value) added, each unless the message's trailer block has it already;
/// `comment` is git's comment character (`core.commentChar`, `#` by default).
/// `None` when every trailer is there already.
pub fn with_trailers(text: &str, trailers: &[(&str, &str)], comment: char) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let end = message_end(&lines, comment);
    // The paragraphs of the message proper, comment lines left out (git leaves them
    // out of the message).
    let first_blank = lines[..end]
        .iter()
        .position(|l| l.trim().is_empty())
        .unwrap_or(end);
    let start = lines[..end]
        .iter()
        .rposition(|l| l.trim().is_empty())
        .map_or(end, |b| b + 1);
    // The title (the first paragraph) is never a trailer block.
    let block: Vec<&str> = if start > first_blank {
        lines[start..end]
            .iter()
            .copied()
            .filter(|l| !is_comment(l, comment))
            .collect()
    } else {
        Vec::new()
    };
    let heads: Vec<&&str> = block
        .iter()
        .filter(|l| !l.starts_with([' ', '\t']))
        .collect();
    // git counts the line a cherry-pick adds as a trailer too.
    let keyed = heads
        .iter()
        .filter(|l| trailer_key(l).is_some() || l.starts_with(GIT_TRAILER_PREFIXES[1]))
        .count();
    let by_git = heads
        .iter()
        .any(|l| GIT_TRAILER_PREFIXES.iter().any(|p| l.starts_with(p)));
    let is_block =
        !heads.is_empty() && (keyed == heads.len() || (by_git && keyed * 4 >= heads.len()));
    let has = |key: &str, value: &str| {
        is_block
            && block.iter().any(|l| {
                l.split_once(':').is_some_and(|(k, v)| {
                    k.trim_end().eq_ignore_ascii_case(key) && v.trim() == value.trim()
                })
            })
    };
    let new: Vec<String> = trailers
        .iter()
        .filter(|(k, v)| !has(k, v))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    if new.is_empty() {
        return None;
    }
    let mut out: Vec<String> = lines[..end].iter().map(|l| (*l).to_owned()).collect();
    if !is_block && out.last().is_some_and(|l| !l.trim().is_empty()) {
        out.push(String::new());
    }
    out.extend(new);
    out.extend(lines[end..].iter().map(|l| (*l).to_owned()));
    let mut text = out.join("\n");
    text.push('\n');
    Some(text)
}

/// The sessions a commit message's trailers say made it: each `Beads-Session:`
/// trailer of its last paragraph, with the `Beads-Agent:` trailer above it (keys in
/// any case), in the message's order. A session with no agent above it is left out.
/// The prepare-commit-msg hook adds the pair; a commit made in one session and
/// amended in another names both.
pub fn session_trailers(message: &str) -> Vec<(&str, &str)> {
    let lines: Vec<&str> = message.trim_end().lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.trim().is_empty())
        .map_or(0, |b| b + 1);
    let mut agent = None;
    let mut out = Vec::new();
    for line in &lines[start..] {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim_end(), value.trim());
        if key.eq_ignore_ascii_case("Beads-Agent") {
            agent = Some(value);
        } else if key.eq_ignore_ascii_case("Beads-Session")
            && let Some(agent) = agent
            && !out.contains(&(agent, value))
        {
            out.push((agent, value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{session_trailers, with_trailers};

    const NEW: &[(&str, &str)] = &[("Beads-Agent", "rig/nux"), ("Beads-Session", "ses-1")];

    fn add(text: &str) -> String {
        with_trailers(text, NEW, '#').unwrap_or_else(|| text.to_owned())
    }

    #[test]
    fn a_one_line_message_gets_a_trailer_paragraph() {
        assert_eq!(
            add("Fix the parser\n"),
            "Fix the parser\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n"
        );
    }

    #[test]
    fn an_existing_block_is_extended_and_nothing_is_added_twice() {
        let text = "Fix\n\nBody.\n\nSigned-off-by: A <a@x>\n";
        let once = add(text);
        assert_eq!(
            once,
            "Fix\n\nBody.\n\nSigned-off-by: A <a@x>\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n"
        );
        assert_eq!(with_trailers(&once, NEW, '#'), None);
    }

    #[test]
    fn trailers_go_before_the_comments_and_the_scissors() {
        let text = "Fix\n\n# Please enter the commit message\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n";
        assert_eq!(
            add(text),
            "Fix\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n\n# Please enter the commit message\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n"
        );
    }

    #[test]
    fn a_title_that_looks_like_a_trailer_is_still_the_title() {
        assert_eq!(
            add("fix: the parser\n"),
            "fix: the parser\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n"
        );
    }

    #[test]
    fn the_sessions_of_a_message_are_read_from_its_last_paragraph() {
        assert_eq!(
            session_trailers("Fix\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\n"),
            [("rig/nux", "ses-1")]
        );
        // Amended in a later session of the same agent, and by another agent.
        assert_eq!(
            session_trailers(
                "Fix\n\nBeads-Agent: rig/nux\nBeads-Session: ses-1\nBeads-Session: ses-2\nbeads-agent: rig/max\nBeads-Session:  ses-3 \n"
            ),
            [
                ("rig/nux", "ses-1"),
                ("rig/nux", "ses-2"),
                ("rig/max", "ses-3")
            ]
        );
        // Only the last paragraph holds trailers; a session without an agent is none.
        assert!(
            session_trailers("Beads-Agent: rig/nux\nBeads-Session: ses-1\n\nBody.\n").is_empty()
        );
        assert!(session_trailers("Fix\n\nBeads-Session: ses-1\n").is_empty());
        assert!(session_trailers("").is_empty());
    }
}
