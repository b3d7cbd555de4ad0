//! The manual: `git-beads(1)` and one page per command and verb, generated from the
//! clap definitions, with the reference sections of the main page (storage, JSON,
//! exit status, environment, configuration) rendered here from the code they describe.
//!
//! The pages are committed under `man/`; `tests/man.rs` fails when they differ from
//! what this module generates (`GIT_BEADS_UPDATE_MAN=1 cargo test --test runner man::` rewrites
//! them). `git beads install-man` writes the same pages where `man` finds them.

use std::io;
use std::path::{Path, PathBuf};

use clap_mangen::Man;
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};

use super::error::Kind;
use crate::model::config::words;
use crate::model::{BeadType, DepKind, Status};
use crate::ops::{FORMAT, refs};
use crate::settings::{self, Setting};
use crate::wire::{self, JSON_SCHEMA_VERSION};

/// The manual section every page belongs to.
pub const SECTION: &str = "1";

/// The name of the main page, as `man` and `git help beads` look it up.
pub const MAIN_PAGE: &str = "git-beads";

/// One manual page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The file name, e.g. `git-beads-create.1`.
    pub file_name: String,
    /// The roff source.
    pub source: String,
}

/// Every page: `git-beads.1` first, then one per command and per verb of a command
/// group (`git-beads-dep.1`, `git-beads-dep-add.1`), in command order.
pub fn pages() -> Vec<Page> {
    let mut root = super::command().disable_help_subcommand(true);
    root.build();
    let mut out = vec![main_page(&root)];
    for sub in visible_subcommands(&root) {
        command_pages(sub, MAIN_PAGE, &mut out);
    }
    out
}

/// Writes every page into `dir` (created if missing), rewriting only the files whose
/// content changed. Returns the paths of all pages.
pub fn write_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for page in pages() {
        let path = dir.join(&page.file_name);
        if std::fs::read(&path).ok().as_deref() != Some(page.source.as_bytes()) {
            crate::ops::replace_file(&path, page.source.as_bytes(), false)?;
        }
        written.push(path);
    }
    Ok(written)
}

/// Where `git beads install-man` puts the pages unless told otherwise:
/// `<prefix>/share/man`, where `<prefix>/bin` is the directory of the running binary.
///
/// man-db (Debian, Ubuntu, Fedora…) derives its search path from `PATH`: for every
/// `<prefix>/bin` on `PATH` it also searches `<prefix>/share/man` and `<prefix>/man`;
/// the `man` of the BSDs and macOS does the same. So the pages are found wherever the
/// binary is found, which is also what makes `git help beads` and `git beads --help` work.
pub fn default_install_dir() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let bin = exe
        .parent()
        .ok_or_else(|| io::Error::other("the running binary has no directory"))?;
    let prefix = bin.parent().unwrap_or(bin);
    Ok(prefix.join("share").join("man"))
}

/// Installs every page into `<man_dir>/man1`. Returns the paths written.
pub fn install(man_dir: &Path) -> io::Result<Vec<PathBuf>> {
    write_pages(&man_dir.join(format!("man{SECTION}")))
}

fn visible_subcommands(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

fn man_for(cmd: &clap::Command, title: &str) -> Man {
    Man::new(cmd.clone())
        .title(title.to_uppercase())
        .section(SECTION)
        .source(format!("git-beads {}", env!("CARGO_PKG_VERSION")))
        .manual("Git Beads Manual")
}

/// The page of `cmd` (whose display name clap has set to `git-beads-<name>`), then
/// the pages of its verbs.
fn command_pages(cmd: &clap::Command, parent: &str, out: &mut Vec<Page>) {
    let name = cmd
        .get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned();
    let mut text = with_values(cmd, render(|w| man_for(cmd, &name).render(w)));
    let mut see_also = Roff::new();
    see_also.control("SH", ["SEE ALSO"]);
    let mut refs = vec![page_ref(MAIN_PAGE)];
    if parent != MAIN_PAGE {
        refs.push(page_ref(parent));
    }
    see_also.text(join(refs, ", "));
    text.push_str(&see_also.to_roff());
    out.push(Page {
        file_name: format!("{name}.{SECTION}"),
        source: text,
    });
    for sub in visible_subcommands(cmd) {
        command_pages(sub, &name, out);
    }
}

fn main_page(root: &clap::Command) -> Page {
    let man = man_for(root, MAIN_PAGE);
    // The reference sections go between the generated ones and VERSION, so the page
    // is assembled section by section; each render repeats roff's preamble, which is
    // kept once.
    let mut text = render(|w| man.render_title(w));
    for part in [
        render(|w| man.render_name_section(w)),
        with_values(root, render(|w| man.render_synopsis_section(w))),
        render(|w| man.render_description_section(w)),
        render(|w| man.render_options_section(w)),
        render(|w| man.render_subcommands_section(w)),
    ] {
        text.push_str(strip_preamble(&part));
    }
    for section in reference_sections(root) {
        text.push_str(&section.to_roff());
    }
    text.push_str(strip_preamble(&render(|w| man.render_version_section(w))));
    Page {
        file_name: format!("{MAIN_PAGE}.{SECTION}"),
        source: text,
    }
}

/// `text` with the values of `cmd`'s options written into its synopsis, which clap_mangen
/// leaves out: `[-p|--priority <PRIORITY>]`, not `[-p|--priority]`.
fn with_values(cmd: &clap::Command, mut text: String) -> String {
    const HEAD: &str = ".SH SYNOPSIS\n";
    let Some(start) = text.find(HEAD).map(|i| i + HEAD.len()) else {
        return text;
    };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut line = text[start..end].to_owned();
    let taking = cmd
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set() && a.get_action().takes_values());
    for arg in taking {
        let value = match arg.get_value_names() {
            Some(names) => names
                .iter()
                .map(|n| format!("<{n}>"))
                .collect::<Vec<_>>()
                .join(" "),
            None => format!("<{}>", arg.get_id().as_str().to_uppercase()),
        };
        // How clap_mangen writes the flag: the long one when there is one, else the
        // short one with a space inside the bold.
        let (flag, bare) = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => (format!("--{long}"), format!("--{long}")),
            (None, Some(short)) => (format!("-{short} "), format!("-{short}")),
            (None, None) => continue,
        };
        let escape = |s: &str| s.replace('-', "\\-");
        line = line.replacen(
            &format!("\\fB{}\\fR", escape(&flag)),
            &format!("\\fB{}\\fR \\fI{}\\fR", escape(&bare), escape(&value)),
            1,
        );
    }
    text.replace_range(start..end, &line);
    text
}

fn render(f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
    let mut buf = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = f(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

fn strip_preamble(text: &str) -> &str {
    let preamble = Roff::new().render();
    text.strip_prefix(preamble.as_str()).unwrap_or(text)
}

fn page_ref(name: &str) -> Vec<Inline> {
    vec![bold(name), roman(format!("({SECTION})"))]
}

fn join(parts: Vec<Vec<Inline>>, sep: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    for (i, p) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(roman(sep));
        }
        out.extend(p);
    }
    out
}

/// A titled section under construction.
struct Section(Roff);

impl Section {
    fn new(title: &str) -> Section {
        let mut r = Roff::new();
        r.control("SH", [title]);
        Section(r)
    }

    fn para(&mut self, text: &str) -> &mut Self {
        self.0.control("PP", []);
        self.0.text([roman(text)]);
        self
    }

    fn inline(&mut self, inlines: Vec<Inline>) -> &mut Self {
        self.0.control("PP", []);
        self.0.text(inlines);
        self
    }

    /// Lines kept as they are (no filling), for tables and examples.
    fn pre(&mut self, text: &str) -> &mut Self {
        self.0.control("PP", []);
        self.0.control("nf", []);
        for line in text.lines() {
            self.0.text([roman(line)]);
        }
        self.0.control("fi", []);
        self
    }

    /// A tagged paragraph: `tag` in bold, then `text` indented below it.
    fn item(&mut self, tag: &str, text: &str) -> &mut Self {
        self.0.control("TP", []);
        self.0.text([bold(tag)]);
        self.0.text([roman(text)]);
        self
    }

    fn to_roff(&self) -> String {
        self.0.to_roff()
    }
}

/// The reference sections of `git-beads(1)`, in order. A feature that adds to the
/// file format, the JSON documents or the settings extends the section it touches;
/// one that brings a new format (formulas) adds its own section here.
fn reference_sections(root: &clap::Command) -> Vec<Section> {
    vec![
        storage_section(),
        bead_section(),
        json_section(),
        formula_section(),
        exit_status_section(),
        settings_section("ENVIRONMENT", settings::ENVIRONMENT),
        settings_section("CONFIGURATION", settings::CONFIG),
        see_also_section(root),
    ]
}

fn formula_section() -> Section {
    let mut s = Section::new("FORMULA FORMAT");
    for para in crate::model::FORMULA_FORMAT.split("\n\n") {
        // Indented lines are a table or a list: keep them as written.
        if para.lines().skip(1).any(|l| l.starts_with("  ")) {
            s.pre(para);
        } else {
            s.para(&para.replace('\n', " "));
        }
    }
    s
}

fn storage_section() -> Section {
    let mut s = Section::new("STORAGE");
    s.para(
        "Everything git-beads records lives in ordinary git objects under one ref, so it \
         travels with git fetch and git push to any remote and needs no server. Every \
         command that changes something makes exactly one commit; a command that fails \
         changes nothing.",
    )
    .item(
        refs::MAIN.as_str(),
        "A chain of commits. Each commit's author is whoever acted, its message says what \
         happened and ends with a Beads-Actor: trailer; git log refs/beads/main is the \
         evidence log of every change.",
    )
    .item(
        refs::META_PATH,
        &format!(
            "At the root of the store's tree: format, the store format version (currently \
             {FORMAT}; a git-beads that finds a newer format refuses to read the store), and \
             prefix, the prefix of new ids."
        ),
    )
    .item(
        &format!("{}/<fanout>/<id>.yaml", refs::BEADS_DIR),
        "One YAML document per bead. <fanout> is the first two characters of the part of \
         the id after the prefix, so bd-ab12.3 lives in beads/ab/bd-ab12.3.yaml and no tree \
         grows too large to read quickly.",
    )
    .item(
        &format!("{}/<name>.yaml", refs::AGENTS_DIR),
        "One YAML document per agent (names are path-like, so myrig/polecats/nux lives in \
         agents/myrig/polecats/nux.yaml): role, parent, model, status, authority \
         (capabilities and budget per session), hook, current and last session, and every \
         recorded change of authority.",
    )
    .item(
        &format!("{}/<fanout>/<id>.yaml", refs::SESSIONS_DIR),
        "One YAML document per session: agent, worktree, host, harness session id, model and \
         every swap, start, heartbeat and end, how it ended, usage totals and ledger, the \
         authority fixed at its start, the store commit at start and end, the session it \
         resumes, and its snapshots.",
    )
    .item(
        &format!("{}/<fanout>/<id>.yaml", refs::MAIL_DIR),
        "One YAML document per message, with each recipient's read, acknowledged and \
         archived marks.",
    )
    .item(
        &format!("{}/<fanout>/<session>/<n>", refs::SNAPSHOTS_DIR),
        "Worktree snapshots: subtrees holding a session's files as they were. Reachable from \
         the store's commits, they travel with sync and survive git gc without a ref per \
         session; git beads gc prunes old ones.",
    )
    .item(
        &format!("{}/<fanout>/<id>.yaml", refs::AUDIT_DIR),
        "One YAML document per entry of bd's audit log (audit record, audit label), written \
         once and never changed; a label is an entry of its own. Entries appended on two \
         clones at once are different paths, so sync keeps both.",
    )
    .item(
        refs::WISPS.as_str(),
        "Wisps: molecules kept on this machine only. Sync never pushes this ref.",
    )
    .item(
        &format!("{}/<path>/<blob>", refs::LOST_FOUND_DIR),
        "Whole versions of documents that a sync could not merge field by field (one \
         version does not parse, or is not YAML, and both sides changed it): the other \
         version stays at <path>. Never dropped; the sync that put one here says so.",
    )
    .item(
        &format!(
            "{}<remote>/main, {}<remote>/notes",
            refs::TRACKING_PREFIX,
            refs::TRACKING_PREFIX
        ),
        "What each remote's store and provenance notes were at when last fetched (by \
         git beads sync, pull, push, or a plain git fetch once git beads init or git beads \
         remote setup added the fetch refspecs +refs/beads/main*:refs/beads/remotes/<remote>/main* \
         and +refs/notes/beads*:refs/beads/remotes/<remote>/notes*). Outside refs/remotes/, \
         so git branch -a does not show them; a fetch writes nowhere else.",
    )
    .item(
        "$GIT_DIR/beads/worktree.yaml",
        "Per worktree (in a linked worktree, under .git/worktrees/<id>/): the agent bound to \
         it and the session running there. Never shared or pushed.",
    )
    .item(
        "$GIT_DIR/beads/last-touched.yaml",
        "Per worktree: the bead last created, shown, updated, commented on, labelled or \
         claimed there, which show, update and close act on when given no id (bd's \
         .beads/last-touched). Never shared or pushed.",
    )
    .item(
        "$GIT_COMMON_DIR/beads/",
        "Machine-local files that are never pushed: write.lock, held while a command \
         changes the store (writers of all worktrees queue on it), pending/ and \
         flush.lock, where commits wait until one writer puts them all on disk, \
         sync.lock, held for a whole sync, and the index cache \
         (index-*.bin), a summary of every bead keyed by the tree it was built from and \
         brought up to date from tree diffs. Deleting the cache loses nothing; it is rebuilt.",
    )
    .para(
        "The documents are canonical: keys in a fixed order, no anchors, stable formatting, \
         so the same state is the same blob on every machine and git diff between two \
         commits of the store reads like a changelog.",
    );
    s
}

fn bead_section() -> Section {
    let mut s = Section::new("BEADS");
    s.para("A bead document has these fields, in this order; empty optional fields are left out.");
    for (field, meaning) in [
        (
            "id",
            "The stable id: <prefix>-<hash>, children <parent>.<n>.",
        ),
        ("title", "One line."),
        (
            "status",
            &format!(
                "One of: {}; or one of the project's own (config key status.custom).",
                words(Status::ALL)
            ),
        ),
        ("priority", "0 (critical) to 4 (backlog)."),
        (
            "type",
            &format!(
                "One of: {}; or one of the project's own (config key types.custom).",
                words(BeadType::ALL)
            ),
        ),
        ("assignee", "Who works on it."),
        ("labels", "A set of tags."),
        (
            "dependencies",
            &format!(
                "A list of {{id, type}}: the beads this one depends on. Types: {}. Of these, {} \
                 keeps a bead from being ready until the other is closed; {} until the \
                 other is closed as failed (its close reason says failed, rejected, \
                 wontfix, canceled, abandoned, error, timeout …; when the other succeeds \
                 the bead stays blocked, as in bd); {} does not (a \
                 child is ready while its parent is open; an epic or a molecule is never \
                 ready itself, its open children are the work), but a parent that is \
                 blocked, deferred or waiting on a blocker holds its children back. The \
                 others only link.",
                words(DepKind::ALL),
                DepKind::Blocks,
                DepKind::ConditionalBlocks,
                DepKind::ParentChild,
            ),
        ),
        ("description, notes", "Long text."),
        (
            "comments",
            "A list of {id, author, created_at, text}, oldest first.",
        ),
        (
            "created_at, created_by, updated_at, updated_by",
            "When and by whom it was made and last changed (RFC 3339, UTC).",
        ),
        ("closed_at, close_reason", "When and why it was closed."),
        (
            "deleted_at, deleted_by, delete_reason",
            "A deleted bead is kept as a tombstone (status deleted), so that the deletion syncs.",
        ),
        (
            "extra",
            "Fields from elsewhere (an import) that have no place of their own; kept, never dropped.",
        ),
        (
            "conflicts",
            "Values that lost a merge, kept for review: {field, value, actor, at}.",
        ),
    ] {
        s.item(field, meaning);
    }
    s
}

fn json_section() -> Section {
    let mut s = Section::new("JSON OUTPUT");
    s.inline(vec![
        roman("With "),
        bold("--json"),
        roman(
            ", a command prints exactly one JSON document on stdout and nothing else there, \
             in the shapes bd 1.x prints: a command that answers with a list prints a bare \
             array; one that answers with one thing prints an object whose ",
        ),
        bold("schema_version"),
        roman(format!(
            " field ({JSON_SCHEMA_VERSION}) sits beside its fields. With "
        )),
        bold("BD_JSON_ENVELOPE=1"),
        roman(format!(
            " in the environment every document, list or object, is wrapped as \
             {{\"schema_version\":{JSON_SCHEMA_VERSION},\"data\":...}}. Fields may be added in \
             any release without changing the version; a field that is removed, renamed or \
             changes meaning raises it. Talk and warnings go to stderr; an error is a JSON \
             object on stderr, {{\"error\", \"code\", \"schema_version\"}}, as bd writes it."
        )),
    ])
    .para(
        "A bead in full has bd's field names (issue_type, close_reason, dependencies, \
         dependency_count, dependent_count, comment_count, parent, and bd's fields that \
         git-beads keeps in extra: design, acceptance_criteria, external_ref, ...) with \
         git-beads' own (created_by, updated_by, extra, conflicts) beside them; timestamps \
         are RFC 3339 in UTC. A list item, as list, ready, search and blocked print it, has \
         its dependencies as bd's records {issue_id, depends_on_id, type}. Documents of the \
         store that do not parse are reported on stderr, never hidden.",
    )
    .para(
        "JSON carries every string exactly as it is stored. Human output shows the control \
         characters and bidi overrides that data holds (ESC, CSI, OSC, BEL, the other C0 and \
         C1 controls, U+202A to U+202E and U+2066 to U+2069) escaped, the way Rust writes \
         them in a string, so that a document from a remote cannot act on the terminal.",
    )
    .para("The fields, by command (of each item, for a list):");
    for doc in wire::DOCUMENTS {
        let fields: Vec<String> = doc
            .fields
            .iter()
            .map(|f| match f.note {
                "" => f.name.to_owned(),
                note if note.starts_with(':') => format!("{}{note}", f.name),
                note => format!("{} {note}", f.name),
            })
            .collect();
        let shape = match doc.shape {
            wire::Shape::Object => "object".to_owned(),
            wire::Shape::List => "array".to_owned(),
            wire::Shape::ListOf(what) => format!("array of {what}"),
        };
        s.item(&format!("{} ({shape})", doc.commands), &fields.join(", "));
    }
    s
}

/// What each kind of failure means, for the manual. Exhaustive, so that a new kind
/// cannot go undocumented.
fn kind_meaning(kind: Kind) -> &'static str {
    match kind {
        Kind::User => {
            "The command was refused: a well-formed command the store or the repository \
             says no to, such as a title that is too long, a type or status the project \
             has not named, no store yet, no identity. Nothing was changed."
        }
        Kind::NotFound => {
            "What the command names does not exist: an id no bead has, an agent, session, \
             message, formula or remote that is not there (bd's not_found). Nothing was \
             changed."
        }
        Kind::Usage => {
            "The command line does not parse: an unknown command or flag, a missing \
             argument, or a value of the wrong shape (a malformed id, a priority outside \
             0-4, a status or type that cannot be a word), refused before anything is read."
        }
        Kind::Conflict => {
            "The command contradicts the state it found, such as a claim on a bead someone \
             else holds, or the store kept moving under it. Nothing was changed; retrying \
             may succeed."
        }
        Kind::Store => {
            "The repository or the store could not be read or written (a broken object, a \
             full disk, a document that does not parse where it must)."
        }
        Kind::Denied => {
            "The acting agent may not do this: a capability it lacks, authority it would \
             widen (nothing was changed), or a session budget it crossed (the usage itself \
             is recorded; any other write of that session is refused until it ends or its \
             budget is raised): the harness should stop, or end the session and start a \
             fresh one."
        }
        Kind::Refused => {
            "A remote refused a push for good: a hook declined it, the ref is protected, \
             the remote's disk is full. Trying again will not help until the remote \
             changes (unlike exit 3). What the remote said is in the message; a merge \
             this sync made is kept in the local store and is pushed by the next sync or \
             push."
        }
    }
}

/// Every kind of failure, in exit-code order (a new kind goes here and in [`kind_meaning`]).
const KINDS: &[Kind] = &[
    Kind::User,
    Kind::NotFound,
    Kind::Usage,
    Kind::Conflict,
    Kind::Store,
    Kind::Denied,
    Kind::Refused,
];

fn exit_status_section() -> Section {
    let mut s = Section::new("EXIT STATUS");
    s.item(
        "0",
        "Success. A closed pipe on stdout also exits 0, quietly.",
    );
    // Kinds that share an exit code (user, not_found) share its item; `--json` tells
    // them apart by their code.
    let mut at = 0;
    while let Some(&first) = KINDS.get(at) {
        let same: Vec<Kind> = KINDS[at..]
            .iter()
            .copied()
            .take_while(|k| k.exit_code() == first.exit_code())
            .collect();
        at += same.len();
        let text: Vec<String> = same
            .iter()
            .map(|&k| format!("{} Its --json code: {}.", kind_meaning(k), k.code()))
            .collect();
        s.item(&first.exit_code().to_string(), &text.join(" "));
    }
    s
}

fn settings_section(title: &str, list: &[Setting]) -> Section {
    let mut s = Section::new(title);
    for setting in list {
        s.item(setting.name, setting.meaning);
    }
    s
}

fn see_also_section(root: &clap::Command) -> Section {
    let mut s = Section::new("SEE ALSO");
    let mut refs = vec![page_ref("git")];
    for sub in visible_subcommands(root) {
        let name = sub.get_display_name().unwrap_or_else(|| sub.get_name());
        refs.push(page_ref(name));
    }
    s.0.text(join(refs, ", "));
    s.0.control("PP", []);
    s.0.text([
        roman("The project's README.md and ARCHITECTURE.md, and "),
        italic("git beads <command> -h"),
        roman(" for a short summary of any command."),
    ]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_page_and_the_main_page_has_the_reference() {
        let pages = pages();
        let names: Vec<&str> = pages.iter().map(|p| p.file_name.as_str()).collect();
        assert_eq!(names[0], "git-beads.1");
        assert!(names.contains(&"git-beads-create.1"), "{names:?}");
        assert!(names.contains(&"git-beads-dep.1"), "{names:?}");
        assert!(names.contains(&"git-beads-dep-add.1"), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
        let main = &pages[0].source;
        for needle in [
            ".SH STORAGE",
            ".SH \"JSON OUTPUT\"",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            "NO_COLOR",
            "schema_version",
            "refs/beads/main",
        ] {
            assert!(main.contains(needle), "{needle} missing from the main page");
        }
        assert_eq!(
            main.matches("name: release").count(),
            1,
            "the example formula appears once"
        );
        let create = &pages.iter().find(|p| p.file_name == "git-beads-create.1");
        let create = &create.expect("a page for create").source;
        assert!(
            create.contains("[\\fB\\-p\\fR|\\fB\\-\\-priority\\fR \\fI<PRIORITY>\\fR]"),
            "the synopsis names the option's value: {create}"
        );
        let preamble = Roff::new().render();
        assert_eq!(
            main.matches(preamble.as_str()).count(),
            1,
            "the roff preamble appears once"
        );
    }

    #[test]
    fn settings_are_all_in_the_page() {
        let main = &pages()[0].source;
        for s in settings::all() {
            assert!(
                main.contains(&s.name.replace('-', "\\-")),
                "{} missing",
                s.name
            );
        }
    }
}
