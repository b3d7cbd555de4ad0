//! The examples of README.md, of the guide in docs/ and of the manual run as they
//! are written.
//!
//! **README.md and the guide.** Every ```console block of README.md, then of each page
//! of `docs/` in the order of [`GUIDE`] (the order a reader follows the tour), runs in
//! order in one scratch directory with a fresh HOME whose git identity is Ada
//! (`~/.gitconfig`), beside a project `my-project` (a git repository with one commit)
//! that the tour `cd`s into. One bash process runs every command, so `cd`, shell
//! variables (`$mol`) and exports carry from one command to the next, and from one
//! page to the next, as in a terminal.
//!
//! - A line `$ CMD` is a command; a line ending in `\` continues on the next. The
//!   lines after it, up to the next `$ ` line or the end of the block, are what it
//!   prints (stdout and stderr together, as a terminal shows them).
//! - A command exits 0, unless its comment says otherwise: `$ CMD  # exit 3: …`.
//! - A command shown without output may print anything. Shown output must match
//!   the whole output, line by line, except that a line `...` stands for any number
//!   of lines. Lines match after normalisation: runs of blanks match any run of
//!   blanks, and ids (`<prefix>-<hash>`, children `.N`; prefixes in [`ID_PREFIXES`]),
//!   timestamps and commit hashes match any value of their kind. The first time a
//!   README (or guide) id matches, it stands for the real id from then on: later
//!   commands run with the real id, and later output must show that same id.
//! - ```` ```console no-run ```` marks a block that is not run (it needs the network
//!   or installs into the system); ```` ```yaml file=PATH ```` (any language) is
//!   written to PATH, relative to the shell's directory at that point.
//!
//! Every page of `docs/` is in [`GUIDE`], and every relative link of README.md and
//! the guide names a file that exists (and a heading of it, after `#`). The README's
//! test command is the command `.ci/run` ends with.
//!
//! **The manual.** In each page of `man/`, the indented lines that run `git beads`
//! (`  git beads …`, or `  mkdir -p DIR && git beads …`) are its examples; the
//! lines after a line `Example (PATH):` (up to a blank line or the end of the
//! `.nf` block) are written to PATH first. Each page's
//! examples run in a fresh repository with a store and must exit 0.
//!
//! A failure names the README line (or guide page, or man page) and shows what was
//! expected and what came out.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::{Sandbox, hermetic, write_file};
use regex::Regex;

/// The id prefixes README examples use: the tour's store, the store of the other
/// sections, mail and sessions.
const ID_PREFIXES: &[&str] = &["myproject", "bd", "msg", "ses"];

/// A date, or a time to the minute, second or fraction of one (RFC 3339 or
/// `2026-11-29 21:04`).
const TIME: &str = r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?";

/// The pages of the guide in `docs/`, in the order their examples run (after
/// README.md's): each continues where the one before left the shell.
const GUIDE: &[&str] = &[
    "beads.md",
    "sharing.md",
    "agents.md",
    "mail.md",
    "molecules.md",
    "harnesses.md",
    "board.md",
    "evidence.md",
    "hooks.md",
    "coming-from-bd.md",
    "contributing.md",
];

/// The line standing for any number of output lines.
const ELISION: &str = "...";

/// One command of an example and what it should do.
#[derive(Debug)]
struct Step {
    /// Where it is written, e.g. `README.md:132`.
    place: String,
    /// The shell text (continuations joined).
    text: String,
    /// The exit status it must have.
    status: i32,
    /// The output lines shown, if any.
    expected: Vec<String>,
}

/// What an example does, in order: a file to write, or a command to run.
#[derive(Debug)]
enum Item {
    /// Write `text` to `path` (relative to the shell's directory).
    File {
        /// Where it is written in the README.
        place: String,
        /// The path to write.
        path: String,
        /// The content.
        text: String,
    },
    /// Run a command.
    Run(Step),
}

/// The exit status a command's trailing comment asks for (`# exit 3: …`), else 0.
fn expected_status(command: &str) -> i32 {
    let re = Regex::new(r"#\s*exits?\s+(\d+)\b").expect("regex");
    re.captures(command)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or(0)
}

/// The examples of a Markdown file: its console blocks and its files.
fn markdown_items(source: &str, text: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let words: Vec<&str> = info.split_whitespace().collect();
        let mut body = Vec::new();
        for (m, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push((m + 1, l));
        }
        let place = |line: usize| format!("{source}:{line}");
        if let Some(path) = words.iter().find_map(|w| w.strip_prefix("file=")) {
            let mut text: String = body.iter().map(|(_, l)| format!("{l}\n")).collect();
            if text.is_empty() {
                text.push('\n');
            }
            items.push(Item::File {
                place: place(n + 1),
                path: path.to_owned(),
                text,
            });
        } else if words.first() == Some(&"console") && !words.contains(&"no-run") {
            items.extend(console_steps(&body, &place).into_iter().map(Item::Run));
        }
    }
    items
}

/// The commands of a console block's lines (numbered as in the file).
fn console_steps(body: &[(usize, &str)], place: &dyn Fn(usize) -> String) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut continued = false;
    for &(n, line) in body {
        if continued {
            let step = steps.last_mut().expect("a continued command");
            step.text.push('\n');
            step.text.push_str(line);
            continued = line.ends_with('\\');
            step.status = expected_status(&step.text);
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            continued = cmd.ends_with('\\');
            steps.push(Step {
                place: place(n),
                text: cmd.to_owned(),
                status: expected_status(cmd),
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.trim_end().to_owned());
        } else {
            panic!("{}: output before any `$ ` command: {line:?}", place(n));
        }
    }
    for step in &mut steps {
        while step.expected.last().is_some_and(|l| l.is_empty()) {
            step.expected.pop();
        }
    }
    steps
}

/// A bash that runs commands one after another, keeping its state between them.
struct Shell {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Where each command's output goes.
    out: PathBuf,
    count: usize,
}

impl Shell {
    /// A bash in `cwd`, with the hermetic environment, HOME `home`, and HOME's
    /// `.gitconfig` as the global git config.
    fn start(cwd: &Path, home: &Path) -> Shell {
        let mut cmd = Command::new("bash");
        hermetic(&mut cmd, home);
        cmd.env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("bash runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Shell {
            child,
            stdin,
            stdout,
            out: home.join(".example-output"),
            count: 0,
        }
    }

    /// Runs `text` as the shell's next command; returns its exit status and output.
    fn run(&mut self, text: &str) -> (i32, String) {
        self.count += 1;
        let done = format!("__example_done_{}__", self.count);
        let script = format!(
            "{{ {text}\n}} >'{out}' 2>&1 </dev/null; echo \"{done} $?\"\n",
            out = self.out.display()
        );
        self.stdin
            .write_all(script.as_bytes())
            .and_then(|()| self.stdin.flush())
            .expect("bash takes the command");
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("bash answers");
            assert!(n > 0, "bash ended while running {text:?}");
            if let Some(status) = line.trim_end().strip_prefix(&format!("{done} ")) {
                let status = status.parse().expect("a status");
                let output = std::fs::read_to_string(&self.out).unwrap_or_default();
                return (status, output);
            }
        }
    }

    /// Writes `text` to `path`, relative to the shell's directory; on failure,
    /// returns what the shell said.
    fn write(&mut self, path: &str, text: &str) -> Result<(), String> {
        let fence = "__EXAMPLE_FILE__";
        let (status, output) = self.run(&format!(
            "mkdir -p \"$(dirname '{path}')\" && cat >'{path}' <<'{fence}'\n{text}{fence}"
        ));
        if status == 0 { Ok(()) } else { Err(output) }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// README ids bound to the real ids they stand for.
#[derive(Default)]
struct Ids {
    real: BTreeMap<String, String>,
}

/// What one id looks like, for the prefixes of [`ID_PREFIXES`].
fn id_pattern() -> String {
    format!(
        r"\b(?:{})-(?:wisp-)?[0-9a-z]{{4,}}(?:\.\d+)*\b",
        ID_PREFIXES.join("|")
    )
}

impl Ids {
    /// `text` with every bound README id replaced by its real id, and the fanout
    /// folder of a document path (`beads/wm/myproject-wmgd.yaml`) by the real id's.
    fn substitute(&self, text: &str) -> String {
        let re = Regex::new(&format!(r"(?:\b[0-9a-z_]{{2}}/)?({})", id_pattern())).expect("regex");
        re.replace_all(text, |c: &regex::Captures<'_>| {
            let Some(real) = self.real.get(&c[1]) else {
                return c[0].to_owned();
            };
            if c[0].len() == c[1].len() {
                return real.clone();
            }
            let hash = real.split_once('-').map_or(real.as_str(), |(_, h)| h);
            let fanout: String = hash.chars().chain(['_', '_']).take(2).collect();
            format!("{fanout}/{real}")
        })
        .into_owned()
    }

    /// A regex matching a whole output line shown as `line`, and the README ids it
    /// captures (in group order).
    fn line_regex(&self, line: &str) -> (Regex, Vec<String>) {
        let token = Regex::new(&format!(
            r"(?P<id>{id})|(?P<time>{time})|(?P<hash>\b[0-9a-f]{{7,40}}\b)|(?P<blank>\s+)",
            id = id_pattern(),
            time = TIME,
        ))
        .expect("regex");
        let mut pattern = String::from("^");
        let mut captured = Vec::new();
        let mut last = 0;
        for c in token.captures_iter(line) {
            let m = c.get(0).expect("match");
            pattern.push_str(&regex::escape(&line[last..m.start()]));
            last = m.end();
            if let Some(id) = c.name("id") {
                match self.real.get(id.as_str()) {
                    Some(real) => pattern.push_str(&regex::escape(real)),
                    None => {
                        pattern.push_str(&format!("({})", id_pattern()));
                        captured.push(id.as_str().to_owned());
                    }
                }
            } else if c.name("time").is_some() {
                pattern.push_str(TIME);
            } else if c.name("hash").is_some() && m.as_str().bytes().any(|b| b.is_ascii_digit()) {
                pattern.push_str(r"[0-9a-f]{7,40}");
            } else if c.name("blank").is_some() {
                pattern.push_str(r"\s+");
            } else {
                pattern.push_str(&regex::escape(m.as_str()));
            }
        }
        pattern.push_str(&regex::escape(&line[last..]));
        pattern.push('$');
        (Regex::new(&pattern).expect("line regex"), captured)
    }

    /// Binds `readme` to `real`, refusing a second meaning for either.
    fn bind(&mut self, readme: &str, real: &str) -> Result<(), String> {
        if let Some((other, _)) = self.real.iter().find(|(r, v)| *v == real && *r != readme) {
            return Err(format!(
                "{real} already stands for {other}, so it cannot stand for {readme} too"
            ));
        }
        self.real.insert(readme.to_owned(), real.to_owned());
        Ok(())
    }

    /// Whether `actual` (whole lines) matches `expected`, binding the README ids
    /// it shows; on success the bindings are kept.
    fn matches(&mut self, expected: &[String], actual: &[&str]) -> bool {
        let saved = self.real.clone();
        if self.match_from(expected, actual) {
            return true;
        }
        self.real = saved;
        false
    }

    fn match_from(&mut self, expected: &[String], actual: &[&str]) -> bool {
        let Some((first, rest)) = expected.split_first() else {
            return actual.is_empty();
        };
        if first == ELISION {
            return (0..=actual.len()).any(|skip| {
                let saved = self.real.clone();
                let ok = self.match_from(rest, &actual[skip..]);
                if !ok {
                    self.real = saved;
                }
                ok
            });
        }
        let Some((line, more)) = actual.split_first() else {
            return false;
        };
        let (re, captured) = self.line_regex(first);
        let Some(c) = re.captures(line.trim_end()) else {
            return false;
        };
        let saved = self.real.clone();
        for (i, readme) in captured.iter().enumerate() {
            let real = c.get(i + 1).expect("group").as_str();
            if let Some(bound) = self.real.get(readme) {
                if bound != real {
                    self.real = saved;
                    return false;
                }
            } else if self.bind(readme, real).is_err() {
                self.real = saved;
                return false;
            }
        }
        if self.match_from(rest, more) {
            return true;
        }
        self.real = saved;
        false
    }
}

/// Runs `items` in `shell`, binding ids in `ids`; returns one message per failure.
fn run_items(shell: &mut Shell, ids: &mut Ids, items: &[Item]) -> Vec<String> {
    let mut failures = Vec::new();
    for item in items {
        match item {
            Item::File { place, path, text } => {
                if let Err(e) = shell.write(path, text) {
                    failures.push(format!("{place}: writing {path}: {e}"));
                }
            }
            Item::Run(step) => {
                let text = ids.substitute(&step.text);
                let (status, output) = shell.run(&text);
                let actual: Vec<&str> = output.lines().collect();
                let mut wrong = Vec::new();
                if status != step.status {
                    wrong.push(format!("exited {status}, expected {}", step.status));
                }
                if !step.expected.is_empty() && !ids.matches(&step.expected, &actual) {
                    wrong.push(format!(
                        "printed something else than the example shows:\n{}",
                        step.expected.join("\n")
                    ));
                }
                if !wrong.is_empty() {
                    failures.push(format!(
                        "{}: `{}` {}\n--- it printed:\n{}",
                        step.place,
                        step.text,
                        wrong.join("; "),
                        output.trim_end()
                    ));
                }
            }
        }
    }
    failures
}

/// The repository root (where README.md and man/ are).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory with HOME `home/` (git identity Ada) and the project
/// `my-project` (one commit); returns the sandbox and the home.
fn scratch() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    let home = sb.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir home");
    write_file(
        &home.join(".gitconfig"),
        "[user]\n\tname = Ada\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n",
    );
    (sb, home)
}

fn fail_with(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} example(s) of {what} did not do what is written:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The Markdown files whose examples run, in order: README.md, then the guide.
fn documents() -> Vec<(String, String)> {
    std::iter::once("README.md".to_owned())
        .chain(GUIDE.iter().map(|page| format!("docs/{page}")))
        .map(|path| {
            let text = std::fs::read_to_string(root().join(&path))
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            (path, text)
        })
        .collect()
}

#[test]
fn readme_and_guide_console_blocks_run_as_written() {
    let items: Vec<Item> = documents()
        .iter()
        .flat_map(|(path, text)| markdown_items(path, text))
        .collect();
    let runs = items.iter().filter(|i| matches!(i, Item::Run(_))).count();
    assert!(
        runs > 30,
        "only {runs} commands found in README.md and docs/"
    );
    let (sb, home) = scratch();
    let work = sb.path().join("work");
    let project = work.join("my-project");
    std::fs::create_dir_all(&project).expect("mkdir");
    let mut shell = Shell::start(&work, &home);
    let (status, output) = shell.run(
        "git -C my-project init -q && echo hello > my-project/README \
         && git -C my-project add README && git -C my-project commit -qm initial",
    );
    assert_eq!(status, 0, "setting up my-project: {output}");
    let mut ids = Ids::default();
    fail_with(
        "README.md and docs/",
        &run_items(&mut shell, &mut ids, &items),
    );
}

#[test]
fn every_guide_page_is_listed() {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .collect();
    pages.sort();
    let mut listed: Vec<String> = GUIDE.iter().map(|p| (*p).to_owned()).collect();
    listed.sort();
    assert_eq!(
        pages, listed,
        "the pages of docs/ and GUIDE in tests/readme.rs differ"
    );
}

/// The anchor GitHub gives a heading: lowercase, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn links_of_readme_and_guide_lead_somewhere() {
    let link = Regex::new(r"\]\(([^)\s]+)\)").expect("regex");
    let mut broken = Vec::new();
    for (path, text) in documents() {
        let dir = Path::new(&path).parent().unwrap_or(Path::new(""));
        for c in link.captures_iter(&text) {
            let target = &c[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file_path = if file.is_empty() {
                PathBuf::from(&path)
            } else {
                dir.join(file)
            };
            let Ok(linked) = std::fs::read_to_string(root().join(&file_path)) else {
                if !root().join(&file_path).exists() {
                    broken.push(format!("{path}: {target}: no such file"));
                }
                continue;
            };
            if !fragment.is_empty() && !anchors(&linked).iter().any(|a| a == fragment) {
                broken.push(format!("{path}: {target}: no such heading"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

/// The command of the first ```sh block under README.md's `## Test`.
fn readme_test_command(readme: &str) -> Option<String> {
    let section = readme.split("\n## Test\n").nth(1)?;
    let block = section.split("```sh\n").nth(1)?;
    Some(block.split("```").next()?.trim().to_owned())
}

#[test]
fn readme_test_command_is_what_ci_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .expect("a command in .ci/run");
    assert_eq!(
        readme_test_command(&readme).as_deref(),
        Some(last),
        "README.md's test command is not the command .ci/run ends with"
    );
}

/// The examples of one man page (roff source): files to write and commands to run.
fn man_items(page: &str, source: &str) -> Vec<Item> {
    let command = Regex::new(r"^\s{2,}((?:mkdir -p \S+ && )?git beads .*)$").expect("regex");
    let example = Regex::new(r"^Example \((\S+)\):").expect("regex");
    let lines: Vec<String> = source.lines().map(unroff).collect();
    let mut items = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let place = format!("man/{page}:{}", i + 1);
        if let Some(c) = example.captures(&lines[i]) {
            let path = c[1].to_owned();
            let mut s = i + 1;
            while s < lines.len() && matches!(lines[s].as_str(), "" | ".PP" | ".nf") {
                s += 1;
            }
            let e = (s..lines.len())
                .find(|&e| matches!(lines[e].as_str(), "" | ".fi" | ".PP"))
                .unwrap_or(lines.len());
            let text = lines[s..e].iter().map(|l| format!("{l}\n")).collect();
            items.push(Item::File { place, path, text });
            i = e;
        } else if let Some(c) = command.captures(&lines[i]) {
            let text = c[1].to_owned();
            items.push(Item::Run(Step {
                place,
                status: expected_status(&text),
                text,
                expected: Vec::new(),
            }));
        }
        i += 1;
    }
    items
}

/// A roff line as the reader sees it: escapes undone, quotes put back.
fn unroff(line: &str) -> String {
    line.replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\(aq", "'")
        .replace("\\&", "")
        .replace("\\\\", "\\")
}

#[test]
fn man_page_examples_run() {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("man"))
        .expect("man/")
        .map(|e| e.expect("entry").path())
        .collect();
    pages.sort();
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in pages {
        let name = page
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let source = std::fs::read_to_string(&page).expect("page");
        let items = man_items(&name, &source);
        if !items.iter().any(|i| matches!(i, Item::Run(_))) {
            continue;
        }
        let (sb, home) = scratch();
        let repo = sb.path().join("repo");
        std::fs::create_dir_all(&repo).expect("mkdir");
        let mut shell = Shell::start(&repo, &home);
        let (status, output) = shell.run(
            "git init -q && echo hello > README && git add README \
             && git commit -qm initial && git beads init --prefix bd",
        );
        assert_eq!(status, 0, "setting up for {name}: {output}");
        ran += items.len();
        failures.extend(run_items(&mut shell, &mut Ids::default(), &items));
    }
    assert!(ran >= 4, "only {ran} man page examples found");
    fail_with("the manual", &failures);
}
