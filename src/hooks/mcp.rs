//! Registering `git beads mcp` with the harnesses that take MCP servers: an entry
//! `git-beads` under `mcpServers` in Claude Code's `.mcp.json` (`~/.claude.json` for
//! the user) and Gemini CLI's `settings.json`, and a `[mcp_servers.git-beads]` table in
//! Codex's `config.toml`. The name is git-beads' own, so bd's beads-mcp, usually
//! registered as `beads`, is never touched.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::harness::{
    Harness, Mode, Report, SetupError, not_an_object, read_json, read_text, write_json, write_text,
};

/// The name the server is registered under.
pub const NAME: &str = "git-beads";

/// The command that starts the server.
const COMMAND: &str = "git";

/// Its arguments.
const ARGS: [&str; 2] = ["beads", "mcp"];

/// The file that registers MCP servers for `harness`: under `dir` (the worktree's top,
/// or with `global` the directory [`Harness::settings_file`] starts from).
pub fn servers_file(harness: Harness, dir: &Path, global: bool) -> PathBuf {
    match (harness, global) {
        (Harness::Claude, false) => dir.join(".mcp.json"),
        (Harness::Claude, true) => dir.join(".claude.json"),
        (Harness::Codex, false) => dir.join(".codex").join("config.toml"),
        (Harness::Codex, true) => dir.join("config.toml"),
        (Harness::Gemini, _) => harness.settings_file(dir, global),
    }
}

/// Registers, checks or removes the server in `harness`' file at `path`, as `mode`
/// says, keeping everything else in it.
pub fn register(harness: Harness, path: &Path, mode: Mode) -> Result<Report, SetupError> {
    match harness {
        Harness::Codex => toml_table(path, mode),
        Harness::Claude | Harness::Gemini => json_entry(path, mode),
    }
}

/// What a change of one registration means for the report; `None` when there is
/// nothing to do. `present` is what is there, `None` when nothing is.
fn plan(report: &mut Report, present: Option<bool>, mode: Mode, place: &str) -> Option<()> {
    match (present, mode) {
        (None, Mode::Remove) | (Some(true), Mode::Install | Mode::Check) => None,
        (Some(_), Mode::Remove) => {
            report.removed = 1;
            Some(())
        }
        (Some(false), _) => {
            report.added = 1;
            report.removed = 1;
            report
                .drift
                .push(format!("{place} differs from `git beads mcp`"));
            Some(())
        }
        (None, _) => {
            report.added = 1;
            report.drift.push(format!("{place} (missing)"));
            Some(())
        }
    }
}

/// The `mcpServers.git-beads` entry of a JSON settings file.
fn json_entry(path: &Path, mode: Mode) -> Result<Report, SetupError> {
    let mut settings = read_json(path)?;
    let mut report = Report {
        path: path.to_owned(),
        ..Report::default()
    };
    let wanted = json!({"command": COMMAND, "args": ARGS});
    let top = settings
        .as_object_mut()
        .ok_or_else(|| not_an_object(path, "the top level is not an object"))?;
    let servers = top
        .entry("mcpServers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_an_object(path, "\"mcpServers\" is not an object"))?;
    let present = servers.get(NAME).map(|v| *v == wanted);
    let place = format!("mcpServers.{NAME}");
    if plan(&mut report, present, mode, &place).is_none() {
        return Ok(report);
    }
    match mode {
        Mode::Remove => servers.remove(NAME),
        _ => servers.insert(NAME.into(), wanted),
    };
    if servers.is_empty() {
        top.remove("mcpServers");
    }
    if mode != Mode::Check {
        write_json(path, &settings)?;
    }
    Ok(report)
}

/// The `[mcp_servers.git-beads]` table of Codex's `config.toml`, edited as lines so
/// that the rest of the file (comments, order) stays as it is.
fn toml_table(path: &Path, mode: Mode) -> Result<Report, SetupError> {
    let text = read_text(path)?.unwrap_or_default();
    let mut report = Report {
        path: path.to_owned(),
        ..Report::default()
    };
    let header = format!("[mcp_servers.{NAME}]");
    let wanted = [
        header.clone(),
        format!("command = {COMMAND:?}"),
        format!("args = [{:?}, {:?}]", ARGS[0], ARGS[1]),
    ];
    let mut lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim() == header);
    // The table runs to the next table's header.
    let end = start.map(|s| {
        lines[s + 1..]
            .iter()
            .position(|l| l.trim_start().starts_with('['))
            .map_or(lines.len(), |n| s + 1 + n)
    });
    let present = start.zip(end).map(|(s, e)| {
        let body: Vec<&str> = lines[s..e]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        body == wanted
    });
    if plan(&mut report, present, mode, &header).is_none() || mode == Mode::Check {
        return Ok(report);
    }
    let (start, end) = match start.zip(end) {
        // Removing takes the blank lines after the table too; replacing keeps them
        // before the next table.
        Some((s, e)) if mode == Mode::Remove => (s, e),
        Some((s, mut e)) => {
            while e > s + 1 && lines[e - 1].trim().is_empty() {
                e -= 1;
            }
            (s, e)
        }
        None => {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push("");
            }
            (lines.len(), lines.len())
        }
    };
    let table: Vec<&str> = match mode {
        Mode::Remove => Vec::new(),
        _ => wanted.iter().map(String::as_str).collect(),
    };
    lines.splice(start..end, table);
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        std::fs::remove_file(path).map_err(super::FileError::on("remove", path))?;
        return Ok(report);
    }
    write_text(path, &(lines.join("\n") + "\n"))?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_json_entry_is_added_once_and_removed_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(".mcp.json");
        write_text(&path, r#"{"mcpServers":{"beads":{"command":"beads-mcp"}}}"#).expect("write");
        let r = register(Harness::Claude, &path, Mode::Install).expect("adds");
        assert_eq!((r.added, r.removed), (1, 0));
        let again = register(Harness::Claude, &path, Mode::Check).expect("checks");
        assert!(again.drift.is_empty(), "{again:?}");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["mcpServers"]["beads"]["command"], "beads-mcp");
        assert_eq!(v["mcpServers"][NAME]["args"], json!(["beads", "mcp"]));
        register(Harness::Claude, &path, Mode::Remove).expect("removes");
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v, json!({"mcpServers":{"beads":{"command":"beads-mcp"}}}));
    }

    #[test]
    fn the_codex_table_keeps_the_rest_of_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("config.toml");
        let before = "model = \"o3\"\n\n[features]\ncodex_hooks = true\n";
        write_text(&path, before).expect("write");
        assert_eq!(
            register(Harness::Codex, &path, Mode::Install)
                .expect("adds")
                .added,
            1
        );
        assert_eq!(
            register(Harness::Codex, &path, Mode::Install)
                .expect("again")
                .added,
            0
        );
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(
            text,
            format!(
                "{before}\n[mcp_servers.git-beads]\ncommand = \"git\"\nargs = [\"beads\", \"mcp\"]\n"
            )
        );
        // A changed table is put right, in its place, before the table after it.
        write_text(
            &path,
            "[mcp_servers.git-beads]\ncommand = \"old\"\n\n[features]\nx = 1\n",
        )
        .expect("write");
        let r = register(Harness::Codex, &path, Mode::Install).expect("fixes");
        assert_eq!((r.added, r.removed), (1, 1));
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[mcp_servers.git-beads]\ncommand = \"git\"\nargs = [\"beads\", \"mcp\"]\n\n[features]\nx = 1\n"
        );
        register(Harness::Codex, &path, Mode::Remove).expect("removes");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[features]\nx = 1\n"
        );
    }
}
