//! A small interpreter for the script language of `rsc.io/script` (the engine bd's
//! `cmd/bd/scripttest_test.go` runs its scenarios with), enough of it for bd's
//! scripts: txtar archives, `#` comments, single quotes (`''` is a quote), `$VAR`
//! and `${VAR}`, the `!` (must fail) and `?` (may fail) prefixes, `[cond]` and
//! `[!cond]` guards (`exec:PROG`, `unix`, the OS name), and the commands `bd`,
//! `exec`, `stdout`, `stderr`, `grep`, `cmp`, `cp`, `exists`, `cd`, `env`, `echo`,
//! `cat`, `mkdir`, `rm`, `skip` and `stop`.
//!
//! Each script runs in a fresh git repository (`$WORK`) with the hermetic
//! environment of tests/common and a `bd` on PATH that runs `git beads`: `bd ARGS`
//! and `exec sh -c 'bd …'` both reach the binary under test through git. An
//! expected failure (`!`) must be a clean exit with a code of 1 to 125; a panic
//! (101), a signal or a program that cannot start never passes for one.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use regex::Regex;

use crate::common::{Sandbox, bd_shim, hermetic, write_file};

/// Where the vendored scripts, their licence and README, and the overrides live.
fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bd_scripts")
}

/// The names (without `.txt`) of every vendored script, sorted.
pub fn vendored() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scripts_dir().join("testdata"))
        .expect("testdata is readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".txt").map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// Runs the vendored script `name` (with its override, if it has one) and panics
/// with the script's name, line, command and log at the first step that fails.
pub fn run(name: &str) {
    let dir = scripts_dir();
    let text = std::fs::read_to_string(dir.join("testdata").join(format!("{name}.txt")))
        .unwrap_or_else(|e| panic!("{name}.txt: {e}"));
    let over = dir.join("overrides").join(format!("{name}.txt"));
    let patch = over
        .exists()
        .then(|| std::fs::read_to_string(&over).expect("override is readable"));
    run_text(&format!("{name}.txt"), &text, patch.as_deref());
}

/// Runs a script given as text (named `name` in messages), with an override's text.
pub fn run_text(name: &str, text: &str, patch: Option<&str>) {
    let archive = Archive::parse(text);
    let mut lines = archive.script;
    if let Some(patch) = patch {
        lines = apply_override(&lines, patch).unwrap_or_else(|e| panic!("{name}: override: {e}"));
    }

    let sb = Sandbox::new();
    let work = sb.path().join("work");
    std::fs::create_dir_all(&work).expect("mkdir work");
    let shim = bd_shim(&sb);
    let mut state = State::new(&sb, &work, shim.parent().expect("shim has a directory"));
    state.git(&["init", "-q", "-b", "main"]);
    state.git(&["config", "user.name", "Script User"]);
    state.git(&["config", "user.email", "script@example.com"]);
    for (path, body) in &archive.files {
        write_file(&work.join(path), body);
    }

    for line in &lines {
        match state.step(&line.text) {
            Ok(Flow::Next) => {}
            Ok(Flow::Stop) => break,
            Ok(Flow::Skip(why)) => {
                eprintln!("{name}:{}: skipped: {why}", line.number);
                return;
            }
            Err(why) => panic!(
                "{name}:{}{}: {}\n{why}\n\n--- log ---\n{}",
                line.number,
                if line.overridden { " (overridden)" } else { "" },
                line.text,
                state.log
            ),
        }
    }
}

/// A script line and where it came from.
#[derive(Clone)]
struct Line {
    /// Its number in the vendored file (1-based).
    number: usize,
    text: String,
    /// Whether an override put it there.
    overridden: bool,
}

/// A txtar archive: the script (its comment section) and the files after it.
struct Archive {
    script: Vec<Line>,
    files: Vec<(String, String)>,
}

impl Archive {
    fn parse(text: &str) -> Archive {
        let mut script = Vec::new();
        let mut files: Vec<(String, String)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let marker = raw
                .strip_prefix("-- ")
                .and_then(|r| r.strip_suffix(" --"))
                .map(str::trim)
                .filter(|n| !n.is_empty());
            match (marker, files.last_mut()) {
                (Some(name), _) => files.push((name.to_owned(), String::new())),
                (None, Some((_, body))) => {
                    body.push_str(raw);
                    body.push('\n');
                }
                (None, None) => script.push(Line {
                    number: i + 1,
                    text: raw.to_owned(),
                    overridden: false,
                }),
            }
        }
        Archive { script, files }
    }
}

/// Applies an override to a script. An override is a list of hunks, each one or
/// more `#` lines saying why, a `- LINE` naming a line of the script exactly
/// (every line equal to it is replaced), and zero or more `+ LINE`s to put in
/// its place. A hunk without a reason, or whose line the script does not have,
/// is an error: an override is reviewed, and goes when the script changes.
fn apply_override(script: &[Line], patch: &str) -> Result<Vec<Line>, String> {
    let mut out = script.to_vec();
    let mut reason = false;
    let mut hunk: Option<(String, Vec<String>)> = None;
    let mut hunks = Vec::new();
    for raw in patch.lines() {
        if let Some(old) = raw.strip_prefix("- ") {
            if !reason {
                return Err(format!("no reason given for `{old}`"));
            }
            hunks.extend(hunk.take());
            hunk = Some((old.to_owned(), Vec::new()));
            reason = false;
        } else if let Some(new) = raw.strip_prefix("+ ") {
            let (_, news) = hunk.as_mut().ok_or("`+` line before any `-` line")?;
            news.push(new.to_owned());
        } else if raw.starts_with('#') {
            reason = true;
        } else if !raw.trim().is_empty() {
            return Err(format!("not an override line: {raw}"));
        }
    }
    hunks.extend(hunk);
    for (old, news) in hunks {
        let mut found = false;
        out = out
            .into_iter()
            .flat_map(|line| {
                if line.text.trim_end() != old.trim_end() {
                    return vec![line];
                }
                found = true;
                news.iter()
                    .map(|n| Line {
                        number: line.number,
                        text: n.clone(),
                        overridden: true,
                    })
                    .collect()
            })
            .collect();
        if !found {
            return Err(format!("the script has no line `{old}`"));
        }
    }
    Ok(out)
}

/// What the script does after a step.
enum Flow {
    Next,
    Stop,
    Skip(String),
}

/// What a script expects of a command's outcome.
#[derive(Clone, Copy, PartialEq)]
enum Want {
    Success,
    Failure,
    Either,
}

/// How a command went.
enum Outcome {
    /// It did what it was asked (a program exited 0, a pattern matched).
    Ok,
    /// It failed in a way the script may expect (`!`): a program's clean non-zero
    /// exit, a pattern without a match, a missing file.
    Failed(String),
}

/// One parsed word: its pieces, each with whether it was quoted (a quoted piece's
/// `$` is not expanded).
struct Word {
    fragments: Vec<(String, bool)>,
}

/// A script's running state: the environment, the current directory, the last
/// program's output and the log shown when a step fails.
struct State {
    env: BTreeMap<String, String>,
    cwd: PathBuf,
    stdout: String,
    stderr: String,
    log: String,
}

impl State {
    fn new(sb: &Sandbox, work: &Path, shim_dir: &Path) -> State {
        let mut probe = Command::new("true");
        hermetic(&mut probe, sb.path());
        let mut env: BTreeMap<String, String> = probe
            .get_envs()
            .filter_map(|(k, v)| {
                Some((
                    k.to_string_lossy().into_owned(),
                    v?.to_string_lossy().into_owned(),
                ))
            })
            .collect();
        let path = format!("{}:{}", shim_dir.display(), env["PATH"]);
        env.insert("PATH".into(), path);
        env.insert("WORK".into(), work.display().to_string());
        env.insert("PWD".into(), work.display().to_string());
        State {
            env,
            cwd: work.to_owned(),
            stdout: String::new(),
            stderr: String::new(),
            log: String::new(),
        }
    }

    /// Runs `git ARGS` in the work directory for the harness's own setup.
    fn git(&mut self, args: &[&str]) {
        let owned: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        match self.program("git", &owned) {
            Ok(Outcome::Ok) => {}
            Ok(Outcome::Failed(why)) | Err(why) => panic!("setup: git {args:?}: {why}"),
        }
    }

    /// A path the script names, relative to its current directory.
    fn path(&self, name: &str) -> PathBuf {
        self.cwd.join(name)
    }

    /// Parses and runs one line of the script.
    fn step(&mut self, line: &str) -> Result<Flow, String> {
        let mut words = split(line)?.into_iter();
        let mut want = Want::Success;
        let mut conds_hold = true;
        let mut name = None;
        for word in words.by_ref() {
            let bare = word.bare();
            match bare.as_deref() {
                Some("!") => want = Want::Failure,
                Some("?") => want = Want::Either,
                Some(c) if c.starts_with('[') && c.ends_with(']') => {
                    conds_hold &= self.condition(&c[1..c.len() - 1])?;
                }
                _ => {
                    name = Some(self.expand(&word, false));
                    break;
                }
            }
        }
        let Some(name) = name else {
            return Ok(Flow::Next);
        };
        self.log.push_str(&format!("> {}\n", line.trim()));
        if !conds_hold {
            self.log.push_str("[condition not met]\n");
            return Ok(Flow::Next);
        }
        let rest: Vec<Word> = words.collect();
        let is_pattern = matches!(name.as_str(), "stdout" | "stderr" | "grep");
        let args: Vec<String> = rest.iter().map(|w| self.expand(w, is_pattern)).collect();
        let outcome = match name.as_str() {
            "stop" => return Ok(Flow::Stop),
            "skip" => return Ok(Flow::Skip(args.join(" "))),
            _ => self.command(&name, &args)?,
        };
        match (outcome, want) {
            (Outcome::Ok, Want::Failure) => Err("unexpected success".into()),
            (Outcome::Failed(why), Want::Success) => Err(why),
            _ => Ok(Flow::Next),
        }
    }

    /// Whether a `[cond]` guard holds (`!` negates it).
    fn condition(&self, cond: &str) -> Result<bool, String> {
        if let Some(inner) = cond.strip_prefix('!') {
            return self.condition(inner.trim()).map(|b| !b);
        }
        match cond {
            "unix" => Ok(cfg!(unix)),
            os if ["linux", "darwin", "windows", "freebsd"].contains(&os) => {
                Ok(std::env::consts::OS == os)
            }
            _ => match cond.strip_prefix("exec:") {
                Some(prog) => Ok(self.on_path(prog)),
                None => Err(format!("unknown condition [{cond}]")),
            },
        }
    }

    /// Whether `prog` is a file in one of the script's PATH directories.
    fn on_path(&self, prog: &str) -> bool {
        std::env::split_paths(&self.env["PATH"]).any(|d| d.join(prog).is_file())
    }

    /// Expands `$NAME` and `${NAME}` in the unquoted parts of a word; in a pattern,
    /// what a variable brings in is matched literally.
    fn expand(&self, word: &Word, pattern: bool) -> String {
        let mut out = String::new();
        for (text, quoted) in &word.fragments {
            if *quoted {
                out.push_str(text);
                continue;
            }
            let mut rest = text.as_str();
            while let Some(at) = rest.find('$') {
                out.push_str(&rest[..at]);
                let after = &rest[at + 1..];
                let (name, len) = if let Some(braced) = after.strip_prefix('{') {
                    match braced.find('}') {
                        Some(end) => (&braced[..end], end + 2),
                        None => ("", 0),
                    }
                } else {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], end)
                };
                if name.is_empty() {
                    out.push('$');
                    rest = after;
                    continue;
                }
                let value = self.env.get(name).map(String::as_str).unwrap_or("");
                if pattern {
                    out.push_str(&regex::escape(value));
                } else {
                    out.push_str(value);
                }
                rest = &after[len..];
            }
            out.push_str(rest);
        }
        out
    }

    /// Runs one command. `Err` is a mistake in the script or the harness, which no
    /// `!` excuses; `Ok(Outcome::Failed)` is a failure the script may expect.
    fn command(&mut self, name: &str, args: &[String]) -> Result<Outcome, String> {
        match name {
            "bd" => self.program("bd", args),
            "exec" => {
                let (prog, rest) = args.split_first().ok_or("usage: exec PROGRAM [ARGS]")?;
                self.program(prog, rest)
            }
            "stdout" => {
                let text = self.stdout.clone();
                self.matches(args, &text, "stdout")
            }
            "stderr" => {
                let text = self.stderr.clone();
                self.matches(args, &text, "stderr")
            }
            "grep" => {
                let (file, pattern) = args.split_last().ok_or("usage: grep PATTERN FILE")?;
                match std::fs::read_to_string(self.path(file)) {
                    Ok(text) => self.matches(pattern, &text, file),
                    Err(e) => Ok(Outcome::Failed(format!("{file}: {e}"))),
                }
            }
            "cmp" => {
                let [a, b] = args else {
                    return Err("usage: cmp FILE1 FILE2".into());
                };
                let (left, right) = (self.contents(a)?, self.contents(b)?);
                Ok(if left == right {
                    Outcome::Ok
                } else {
                    Outcome::Failed(format!(
                        "{a} and {b} differ\n--- {a}\n{left}--- {b}\n{right}"
                    ))
                })
            }
            "cp" => {
                let (dst, srcs) = args.split_last().ok_or("usage: cp SRC... DST")?;
                let dst = self.path(dst);
                for src in srcs {
                    let body = self.contents(src)?;
                    let to = if dst.is_dir() {
                        dst.join(Path::new(src).file_name().ok_or("cp: no file name")?)
                    } else {
                        dst.clone()
                    };
                    std::fs::write(&to, body).map_err(|e| format!("cp: {e}"))?;
                }
                Ok(Outcome::Ok)
            }
            "exists" => {
                let missing: Vec<&String> = args
                    .iter()
                    .filter(|f| !f.starts_with('-') && !self.path(f).exists())
                    .collect();
                Ok(if missing.is_empty() {
                    Outcome::Ok
                } else {
                    Outcome::Failed(format!("missing: {missing:?}"))
                })
            }
            "cd" => {
                let [dir] = args else {
                    return Err("usage: cd DIR".into());
                };
                let to = self.path(dir);
                if !to.is_dir() {
                    return Ok(Outcome::Failed(format!(
                        "{} is not a directory",
                        to.display()
                    )));
                }
                self.env.insert("PWD".into(), to.display().to_string());
                self.cwd = to;
                Ok(Outcome::Ok)
            }
            "env" => {
                let mut printed = String::new();
                for arg in args {
                    match arg.split_once('=') {
                        Some((k, v)) => {
                            self.env.insert(k.to_owned(), v.to_owned());
                        }
                        None => {
                            let v = self.env.get(arg).map(String::as_str).unwrap_or("");
                            printed.push_str(&format!("{arg}={v}\n"));
                        }
                    }
                }
                if args.is_empty() {
                    for (k, v) in &self.env {
                        printed.push_str(&format!("{k}={v}\n"));
                    }
                }
                if !printed.is_empty() {
                    self.output(printed, String::new());
                }
                Ok(Outcome::Ok)
            }
            "echo" => {
                self.output(format!("{}\n", args.join(" ")), String::new());
                Ok(Outcome::Ok)
            }
            "cat" => {
                let mut all = String::new();
                for f in args {
                    all.push_str(&self.contents(f)?);
                }
                self.output(all, String::new());
                Ok(Outcome::Ok)
            }
            "mkdir" => {
                for d in args {
                    std::fs::create_dir_all(self.path(d)).map_err(|e| format!("mkdir: {e}"))?;
                }
                Ok(Outcome::Ok)
            }
            "rm" => {
                for f in args {
                    let p = self.path(f);
                    let gone = if p.is_dir() {
                        std::fs::remove_dir_all(&p)
                    } else {
                        std::fs::remove_file(&p)
                    };
                    match gone {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(format!("rm {f}: {e}"));
                        }
                        _ => {}
                    }
                }
                Ok(Outcome::Ok)
            }
            other => Err(format!("unknown command `{other}`")),
        }
    }

    /// A file's contents, or the last program's `stdout`/`stderr`.
    fn contents(&self, name: &str) -> Result<String, String> {
        match name {
            "stdout" => Ok(self.stdout.clone()),
            "stderr" => Ok(self.stderr.clone()),
            f => std::fs::read_to_string(self.path(f)).map_err(|e| format!("{f}: {e}")),
        }
    }

    /// Records a command's output as the last output, and in the log.
    fn output(&mut self, stdout: String, stderr: String) {
        if !stdout.is_empty() {
            self.log.push_str(&format!("[stdout]\n{stdout}"));
        }
        if !stderr.is_empty() {
            self.log.push_str(&format!("[stderr]\n{stderr}"));
        }
        self.stdout = stdout;
        self.stderr = stderr;
    }

    /// `stdout`/`stderr`/`grep`'s check: `[-count=N] [-q] PATTERN` against `text`,
    /// the pattern in multi-line mode as rsc.io/script compiles it.
    fn matches(&mut self, args: &[String], text: &str, what: &str) -> Result<Outcome, String> {
        let mut args = args;
        let mut count = None;
        if let Some(n) = args.first().and_then(|a| a.strip_prefix("-count=")) {
            count = Some(
                n.parse::<usize>()
                    .map_err(|e| format!("bad -count=: {e}"))?,
            );
            args = &args[1..];
        }
        if args.first().is_some_and(|a| a == "-q") {
            args = &args[1..];
        }
        let [pattern] = args else {
            return Err(format!("usage: {what} [-count=N] [-q] PATTERN"));
        };
        let re = Regex::new(&format!("(?m){pattern}")).map_err(|e| e.to_string())?;
        let found = re.find_iter(text).count();
        Ok(match count {
            Some(n) if n != found => Outcome::Failed(format!(
                "found {found} matches for `{pattern}` in {what}, not {n}"
            )),
            None if found == 0 => Outcome::Failed(format!("no match for `{pattern}` in {what}")),
            _ => Outcome::Ok,
        })
    }

    /// Runs a program in the script's directory and environment, with no stdin,
    /// and keeps its output as the last output.
    fn program(&mut self, prog: &str, args: &[String]) -> Result<Outcome, String> {
        let path = self.env.get("PATH").map_or("", String::as_str);
        let out = Command::new(crate::common::located(prog, OsStr::new(path)))
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.cwd)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{prog} cannot start: {e}"))?;
        self.output(
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        match out.status.code() {
            Some(0) => Ok(Outcome::Ok),
            Some(101) => Err(format!("{prog} panicked (exit 101)")),
            Some(code) if code < 126 => {
                self.log.push_str(&format!("[exit status {code}]\n"));
                Ok(Outcome::Failed(format!("exit status {code}")))
            }
            _ => Err(format!("{prog} ended abnormally: {}", out.status)),
        }
    }
}

impl Word {
    /// The word's text when it is one unquoted fragment (a prefix like `!` or
    /// `[cond]` is only recognised unquoted).
    fn bare(&self) -> Option<String> {
        match self.fragments.as_slice() {
            [(text, false)] => Some(text.clone()),
            _ => None,
        }
    }
}

/// Splits a line into words as rsc.io/script does: spaces and tabs separate
/// words, an unquoted `#` ends the line, `'…'` quotes (with `''` for a quote).
fn split(line: &str) -> Result<Vec<Word>, String> {
    let mut words = Vec::new();
    let mut fragments: Vec<(String, bool)> = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut in_word = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    current.push('\'');
                } else {
                    fragments.push((std::mem::take(&mut current), true));
                    quoted = false;
                }
            } else {
                current.push(c);
            }
            continue;
        }
        match c {
            ' ' | '\t' | '\r' | '#' => {
                if !current.is_empty() {
                    fragments.push((std::mem::take(&mut current), false));
                }
                if in_word {
                    words.push(Word {
                        fragments: std::mem::take(&mut fragments),
                    });
                    in_word = false;
                }
                if c == '#' {
                    return Ok(words);
                }
            }
            '\'' => {
                if !current.is_empty() {
                    fragments.push((std::mem::take(&mut current), false));
                }
                quoted = true;
                in_word = true;
            }
            _ => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err("unterminated quoted argument".into());
    }
    if !current.is_empty() {
        fragments.push((current, false));
    }
    if in_word {
        words.push(Word { fragments });
    }
    Ok(words)
}
