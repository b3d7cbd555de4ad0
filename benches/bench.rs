//! The benchmark harness: builds stores of 1 000, 10 000 (and, on request, 100 000)
//! beads with dependencies, labels, comments, agents, mail and sessions, then times
//! whole-process runs of the release binary against them, next to git's own plumbing
//! on the same data and, when it is installed, beads_rust (`br`) on the same beads.
//!
//! ```text
//! cargo bench --bench bench                                  # 1 000 and 10 000 beads
//! cargo bench --bench bench -- --sizes 1000,10000,100000     # the full table
//! cargo bench --bench bench -- --help                        # every option
//! ```
//!
//! It prints figures (min, median, p90, max over N runs, and each median as a ratio
//! to git) and writes them as JSON; it never fails on a slow figure. Stores are built
//! under a scratch directory (default `$TMPDIR/git-beads-bench`), never in the repository.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use git_beads::model::{Actor, AgentName, BeadId, Delivery, Message, Prefix};
use git_beads::ops::{self, DataFormat, ImportOptions};
use git_beads::store::{Store, refs};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const USAGE: &str = "\
git-beads benchmark harness

usage: cargo bench --bench bench -- [options]

  --sizes LIST      store sizes in beads, comma-separated (default 1000,10000; an
                    empty list times no store size, e.g. for --skip with signing alone)
  --runs N          timed runs per figure (default 10; sync, merge and import: fewer)
  --work DIR        scratch directory for stores (default $TMPDIR/git-beads-bench)
  --out FILE        where to write the JSON results (default <work>/results.json)
  --bin PATH        the git-beads binary to time (default: the one cargo built)
  --fixture PATH    the bd JSONL fixture to import
                    (default ../shared/fixtures/bd-issues-5722.jsonl, if present)
  --br PATH         the beads_rust binary (default: `br` on PATH)
  --br-size N       the store size at which to compare with br (default 10000)
  --no-br           skip the beads_rust comparison
  --skip LIST       skip figure groups: reads,serve,writes,hooks,sync,merge,import,concurrency,
                    history,br,formulas,signing (an empty --sizes '' leaves only the fixture, formulas
                    and signing)
  --keep            keep the built stores
  --history N       single writes in the history group, no gc between (default 1000)
";

/// What the command line asked for.
struct Opts {
    sizes: Vec<usize>,
    runs: usize,
    work: PathBuf,
    out: Option<PathBuf>,
    bin: PathBuf,
    fixture: Option<PathBuf>,
    br: Option<PathBuf>,
    br_size: usize,
    skip: Vec<String>,
    keep: bool,
    history: usize,
}

impl Opts {
    fn parse() -> Res<Opts> {
        let mut o = Opts {
            sizes: vec![1000, 10_000],
            runs: 10,
            work: std::env::temp_dir().join("git-beads-bench"),
            out: None,
            bin: PathBuf::from(env!("CARGO_BIN_EXE_git-beads")),
            fixture: None,
            br: None,
            br_size: 10_000,
            skip: Vec::new(),
            keep: false,
            history: 1000,
        };
        let default_fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/bd-issues-5722.jsonl");
        o.fixture = default_fixture.exists().then_some(default_fixture);
        let mut no_br = false;
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match a.as_str() {
                // cargo bench passes --bench to every bench binary.
                "--bench" => {}
                "-h" | "--help" => {
                    print!("{USAGE}");
                    std::process::exit(0);
                }
                "--sizes" => {
                    o.sizes = val("--sizes")?
                        .split(',')
                        .filter(|s| !s.trim().is_empty())
                        .map(|s| s.trim().replace('_', "").parse::<usize>())
                        .collect::<Result<_, _>>()?
                }
                "--runs" => o.runs = val("--runs")?.parse::<usize>()?.max(1),
                "--work" => o.work = val("--work")?.into(),
                "--out" => o.out = Some(val("--out")?.into()),
                "--bin" => o.bin = val("--bin")?.into(),
                "--fixture" => o.fixture = Some(val("--fixture")?.into()),
                "--br" => o.br = Some(val("--br")?.into()),
                "--br-size" => o.br_size = val("--br-size")?.parse()?,
                "--no-br" => no_br = true,
                "--skip" => o
                    .skip
                    .extend(val("--skip")?.split(',').map(|s| s.trim().to_owned())),
                "--keep" => o.keep = true,
                "--history" => o.history = val("--history")?.parse()?,
                other => return Err(format!("unknown option {other}\n{USAGE}").into()),
            }
        }
        if no_br {
            o.skip.push("br".into());
        }
        if o.br.is_none() {
            o.br = which("br");
        }
        Ok(o)
    }

    fn skips(&self, group: &str) -> bool {
        self.skip.iter().any(|s| s == group)
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------------------------
// Timing

/// The timings of one figure.
#[derive(Clone, Debug)]
struct Figure {
    size: usize,
    name: String,
    tool: &'static str,
    runs: Vec<Duration>,
    /// Peak resident memory of one run, in KiB, when /usr/bin/time could tell.
    peak_kib: Option<u64>,
    /// Mean CPU time of a run (user + system), in ms, where it could be told apart.
    cpu_ms: Option<f64>,
    /// Items handled per run, for a throughput column.
    items: Option<usize>,
    note: String,
}

impl Figure {
    fn sorted(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.runs.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        v.sort_by(f64::total_cmp);
        v
    }

    /// Nearest-rank percentile, in milliseconds.
    fn pct(&self, p: f64) -> f64 {
        let v = self.sorted();
        if v.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1]
    }

    fn median(&self) -> f64 {
        let v = self.sorted();
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
}

/// A command to run, with its environment and directory.
#[derive(Clone)]
struct Cmd {
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    env: Vec<(String, String)>,
    stdin: Option<PathBuf>,
}

impl Cmd {
    fn new(program: impl Into<PathBuf>, dir: &Path, args: &[&str]) -> Cmd {
        Cmd {
            program: program.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            dir: dir.to_owned(),
            env: Vec::new(),
            stdin: None,
        }
    }

    fn env(mut self, k: &str, v: &str) -> Cmd {
        self.env.push((k.into(), v.into()));
        self
    }

    fn stdin(mut self, file: &Path) -> Cmd {
        self.stdin = Some(file.to_owned());
        self
    }

    fn command(&self, wrap_time: Option<&Path>) -> Res<Command> {
        let mut c = match wrap_time {
            Some(out) => {
                let mut c = Command::new("/usr/bin/time");
                c.arg("-f").arg("%M").arg("-o").arg(out).arg(&self.program);
                c
            }
            None => Command::new(&self.program),
        };
        c.args(&self.args).current_dir(&self.dir);
        hermetic(&mut c);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c.stdout(Stdio::null()).stderr(Stdio::piped());
        match &self.stdin {
            Some(f) => c.stdin(std::fs::File::open(f)?),
            None => c.stdin(Stdio::null()),
        };
        Ok(c)
    }

    /// Runs once and fails on a non-zero exit.
    fn run(&self) -> Res<Duration> {
        let mut c = self.command(None)?;
        let start = Instant::now();
        let out = c.output()?;
        let took = start.elapsed();
        check(&out, self)?;
        Ok(took)
    }

    /// Runs once under /usr/bin/time and returns the peak resident memory in KiB.
    fn peak(&self, scratch: &Path) -> Res<Option<u64>> {
        if !Path::new("/usr/bin/time").exists() {
            self.run()?;
            return Ok(None);
        }
        let file = scratch.join("time.out");
        let out = self.command(Some(&file))?.output()?;
        check(&out, self)?;
        let text = std::fs::read_to_string(&file)?;
        Ok(text.lines().last().and_then(|l| l.trim().parse().ok()))
    }

    /// Runs once and returns stdout.
    fn output(&self) -> Res<String> {
        let mut c = self.command(None)?;
        c.stdout(Stdio::piped());
        let out = c.output()?;
        check(&out, self)?;
        Ok(String::from_utf8(out.stdout)?)
    }

    fn show(&self) -> String {
        let name = self
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{name} {}", self.args.join(" "))
    }
}

fn check(out: &std::process::Output, cmd: &Cmd) -> Res<()> {
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{}` in {} failed ({}): {}",
        cmd.show(),
        cmd.dir.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    )
    .into())
}

/// The hermetic environment of every process the harness starts.
fn hermetic(c: &mut Command) {
    c.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("NO_COLOR", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_BEADS_AGENT");
}

/// Times `runs` runs of whatever `each` returns (setup done in `each` is not timed:
/// it returns the command to time). The first, untimed, run is a warm-up that also
/// measures peak memory.
fn time_each(runs: usize, scratch: &Path, mut each: impl FnMut(usize) -> Res<Cmd>) -> Res<Timed> {
    let peak = each(0)?.peak(scratch)?;
    let mut out = Vec::with_capacity(runs);
    let cpu_before = children_cpu_ms();
    for i in 1..=runs {
        out.push(each(i)?.run()?);
    }
    // Includes whatever processes `each` ran to set a run up; callers whose setup
    // starts processes drop it.
    let cpu = match (cpu_before, children_cpu_ms()) {
        (Some(a), Some(b)) => Some((b - a) / runs as f64),
        _ => None,
    };
    Ok(Timed {
        runs: out,
        peak,
        cpu,
    })
}

fn time_same(runs: usize, scratch: &Path, cmd: &Cmd) -> Res<Timed> {
    time_each(runs, scratch, |_| Ok(cmd.clone()))
}

/// The figure of the board in the browser.
const SERVE_BOARD: &str = "serve: the board's columns (GET /)";

/// Starts `serve --read-only` on the store in `dir` and times `runs` requests of the
/// board, from sending the request to the last byte of its HTML (the columns), over
/// one connection each, after one warm-up request.
fn serve_board(o: &Opts, dir: &Path, runs: usize) -> Res<Timed> {
    use std::io::{BufRead, Read};
    let mut cmd = Command::new(&o.bin);
    hermetic(&mut cmd);
    let mut child = cmd
        .current_dir(dir)
        .args(["serve", "--port", "0", "--read-only"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut url)?;
    let addr = url
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let get = || -> Res<Duration> {
        let start = Instant::now();
        let mut s = std::net::TcpStream::connect(&addr)?;
        write!(
            s,
            "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )?;
        let mut page = String::new();
        s.read_to_string(&mut page)?;
        let took = start.elapsed();
        match page.starts_with("HTTP/1.1 200") && page.contains("id=\"col-closed\"") {
            true => Ok(took),
            false => Err(format!(
                "the board did not come back: {}",
                &page[..page.len().min(200)]
            )
            .into()),
        }
    };
    let timed = (|| -> Res<Vec<Duration>> {
        get()?;
        (0..runs).map(|_| get()).collect()
    })();
    let _ = child.kill();
    let _ = child.wait();
    Ok(Timed {
        runs: timed?,
        peak: None,
        cpu: None,
    })
}

/// What [`time_each`] measured.
struct Timed {
    runs: Vec<Duration>,
    /// Peak resident memory of the warm-up run, in KiB.
    peak: Option<u64>,
    /// Mean CPU time (user + system) of a run, in ms; 10 ms resolution per run, so
    /// meaningful as a mean over many runs.
    cpu: Option<f64>,
}

impl Timed {
    fn no_cpu(self) -> Timed {
        Timed { cpu: None, ..self }
    }
}

/// User + system time of every waited-for child so far, in ms (Linux clock ticks of
/// 10 ms), from /proc/self/stat.
fn children_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3, cutime 16 and cstime 17 (1-based).
    let cutime: f64 = fields.get(13)?.parse().ok()?;
    let cstime: f64 = fields.get(14)?.parse().ok()?;
    Some((cutime + cstime) * 10.0)
}

/// The CPU time a task has run for, in ns (the first field of Linux's
/// `/proc/<task>/schedstat`: `thread-self`, or a process id for its main thread),
/// exact where the clock-tick counts of `/proc/<pid>/stat` are 10 ms coarse.
fn cpu_ns(task: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{task}/schedstat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

// ---------------------------------------------------------------------------------------
// Data

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn base36(mut v: u64, len: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(len);
    for _ in 0..len {
        s.push(DIGITS[(v % 36) as usize] as char);
        v /= 36;
    }
    s
}

const WORDS: &[&str] = &[
    "index", "merge", "sync", "agent", "session", "hook", "mail", "tree", "commit", "blob",
    "ready", "queue", "claim", "prime", "formula", "molecule", "wisp", "budget", "model", "parser",
    "cache", "export", "import", "label", "status", "priority", "remote", "push", "fetch", "lock",
    "retry", "crash", "resume", "snapshot", "worktree", "handoff",
];

fn words(seed: u64, n: usize) -> String {
    (0..n)
        .map(|k| WORDS[(mix(seed.wrapping_add(k as u64)) % WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rare word that `search` looks for: in about one bead of 97.
const NEEDLE: &str = "zephyr";

/// `n` beads as a bd JSONL export (the format both git-beads and beads_rust import),
/// and their ids. Deterministic: the same `n` gives the same file.
fn generate(n: usize) -> Res<(String, Vec<String>)> {
    let mut seen = std::collections::HashSet::new();
    let ids: Vec<String> = (0..n as u64)
        .map(|i| {
            let mut salt = 0u64;
            loop {
                let id = format!("bd-{}", base36(mix(i * 7919 + salt), 6));
                if seen.insert(id.clone()) {
                    return id;
                }
                salt += 1_000_003;
            }
        })
        .collect();
    let base = 1_735_689_600i64; // 2025-01-01T00:00:00Z
    let stamp = |min: i64| {
        chrono::DateTime::from_timestamp(base + min * 60, 0)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let mut out = String::with_capacity(n * 700);
    for (i, id) in ids.iter().enumerate() {
        let r = mix(i as u64);
        let epic = i % 50 == 0;
        let status = match i % 10 {
            0..=5 => "open",
            6 => "in_progress",
            7 => "blocked",
            _ => "closed",
        };
        let status = if epic { "open" } else { status };
        let kind = if epic {
            "epic"
        } else {
            ["task", "bug", "feature", "chore"][(r % 4) as usize]
        };
        let mut deps = Vec::new();
        if !epic && i % 50 <= 10 {
            deps.push(serde_json::json!({
                "issue_id": id, "depends_on_id": ids[i - i % 50], "type": "parent-child",
                "created_at": stamp(i as i64), "created_by": "bench",
            }));
        }
        if i % 3 == 0 && i > 10 {
            let j = (mix(r) % i as u64) as usize;
            deps.push(serde_json::json!({
                "issue_id": id, "depends_on_id": ids[j], "type": "blocks",
                "created_at": stamp(i as i64), "created_by": "bench",
            }));
        }
        let mut description = format!(
            "Work on the {} of the {}. {}. Acceptance: {}.",
            words(r, 3),
            words(r >> 8, 2),
            words(r >> 16, 24),
            words(r >> 24, 8)
        );
        if i % 97 == 0 {
            description.push_str(" Mentions ");
            description.push_str(NEEDLE);
            description.push('.');
        }
        let mut rec = serde_json::json!({
            "id": id,
            "title": format!("Bench {kind} {i}: {}", words(r >> 4, 4)),
            "description": description,
            "status": status,
            "priority": (r >> 40) % 5,
            "issue_type": kind,
            "created_at": stamp(i as i64),
            "created_by": "bench",
            "updated_at": stamp(i as i64 + 30),
        });
        let obj = rec.as_object_mut().ok_or("a JSON object")?;
        if status == "closed" {
            obj.insert("closed_at".into(), stamp(i as i64 + 60).into());
            obj.insert("close_reason".into(), "done".into());
        }
        if i % 4 == 0 {
            obj.insert("assignee".into(), format!("agent-{}", i % 20).into());
        }
        if i % 2 == 0 {
            obj.insert(
                "labels".into(),
                serde_json::json!([format!("area-{}", i % 12), format!("team-{}", i % 7)]),
            );
        }
        if !deps.is_empty() {
            obj.insert("dependencies".into(), deps.into());
        }
        if i % 10 == 0 {
            obj.insert(
                "comments".into(),
                serde_json::json!([
                    {"id": 1, "issue_id": id, "author": "bench", "text": words(r >> 3, 12),
                     "created_at": stamp(i as i64 + 5)},
                    {"id": 2, "issue_id": id, "author": "agent-1", "text": words(r >> 5, 20),
                     "created_at": stamp(i as i64 + 6)},
                ]),
            );
        }
        out.push_str(&rec.to_string());
        out.push('\n');
    }
    Ok((out, ids))
}

// ---------------------------------------------------------------------------------------
// Building stores

/// The agent that `prime` and `mail inbox` run as.
const AGENT: &str = "bench/worker-0";
/// The agent whose session makes the commits of the hook figures.
const COMMITTER: &str = "bench/committer";
const AGENTS: usize = 20;

fn git(dir: &Path, args: &[&str]) -> Res<String> {
    Cmd::new("git", dir, args).output()
}

fn beads(o: &Opts, dir: &Path, args: &[&str]) -> Res<String> {
    Cmd::new(&o.bin, dir, args).output()
}

fn actor() -> Actor {
    Actor::person("Bench", "bench@example.com")
}

fn fresh_repo(dir: &Path) -> Res<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    git(dir, &["init", "-q", "-b", "main"])?;
    git(dir, &["config", "user.name", "Bench"])?;
    git(dir, &["config", "user.email", "bench@example.com"])?;
    Ok(())
}

/// Builds a store of `n` beads at `dir` through the library: one import transaction
/// for the beads (written as a pack), agents and sessions through the CLI, the mail as
/// one transaction of documents. Returns the bead ids.
fn build_store(o: &Opts, dir: &Path, jsonl: &str, n: usize) -> Res<()> {
    let t = Instant::now();
    fresh_repo(dir)?;
    beads(o, dir, &["init", "--prefix", "bd", "-q"])?;
    let store = Store::discover(dir)?;
    let report = ops::import(
        &store,
        &actor(),
        &mut jsonl.as_bytes(),
        &ImportOptions {
            format: DataFormat::BdJsonl,
            skip_bad: false,
            source: format!("generated-{n}.jsonl"),
        },
        &mut |_| {},
    )?;
    let imported = t.elapsed();
    for k in 0..AGENTS {
        let name = format!("bench/worker-{k}");
        beads(
            o,
            dir,
            &["agent", "create", &name, "--role", "worker", "-q"],
        )?;
    }
    // Sessions: a few agents run one and end it; the prime agent's ended last.
    for k in (0..5).rev() {
        let name = format!("bench/worker-{k}");
        let c = Cmd::new(&o.bin, dir, &["session", "start", "-q"]).env("GIT_BEADS_AGENT", &name);
        c.output()?;
        let c = Cmd::new(
            &o.bin,
            dir,
            &["session", "end", "-q", "--reason", "handoff"],
        )
        .env("GIT_BEADS_AGENT", &name);
        c.output()?;
    }
    // Work on the prime agent's hook.
    let open: Vec<&str> = jsonl
        .lines()
        .filter(|l| l.contains("\"status\":\"open\"") && l.contains("\"issue_type\":\"task\""))
        .filter_map(|l| l.split("\"id\":\"").nth(1)?.split('"').next())
        .take(2)
        .collect();
    for id in &open {
        beads(o, dir, &["sling", id, AGENT, "-q"])?;
    }
    // Mail: one message per ten beads, between the agents, as one transaction.
    let messages = (n / 10).max(50);
    let prefix = Prefix::parse("msg")?;
    let now = chrono::Utc::now();
    store.transact(&actor(), |tx| {
        for m in 0..messages {
            let id = BeadId::generate(&prefix, format!("bench-mail-{m}").as_bytes(), 10);
            let from = format!("bench/worker-{}", (m + 1) % AGENTS);
            let to = AgentName::parse(&format!("bench/worker-{}", m % AGENTS))
                .map_err(|e| git_beads::ops::OpError::from(git_beads::ops::AgentError::Input(e)))?;
            let read = m % 3 == 0;
            let delivery = BTreeMap::from([(
                to.clone(),
                Delivery {
                    read_at: read.then_some(now),
                    ..Delivery::default()
                },
            )]);
            let msg = Message {
                id: id.clone(),
                from,
                to: vec![to.to_string()],
                cc: Vec::new(),
                subject: format!("Bench message {m}: {}", words(m as u64, 4)),
                body: words(m as u64 * 31, 40),
                priority: (m % 5) as u8,
                thread: id.clone(),
                reply_to: None,
                sent_at: now,
                delivery,
                updated_at: now,
                updated_by: "bench".into(),
                conflicts: Vec::new(),
            };
            tx.put_doc(&refs::mail_path(&id), &msg)?;
        }
        tx.set_message(format!("bench: {messages} messages"));
        Ok::<_, git_beads::ops::OpError>(())
    })?;
    // A formula for `mol pour`.
    let formulas = dir.join(".beads/formulas");
    std::fs::create_dir_all(&formulas)?;
    std::fs::write(formulas.join("bench.yaml"), FORMULA)?;
    // Warm the index, as any first read after the build would.
    beads(o, dir, &["list", "-q"])?;
    eprintln!(
        "  built {n} beads ({} records imported in {:.1} s), {AGENTS} agents, 5 sessions, {messages} messages in {:.1} s",
        report.records,
        imported.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

const FORMULA: &str = "name: bench
description: A five-step workflow for the benchmark.
version: 1
title: \"Bench release {{version}}\"
variables:
  version:
    description: The version.
    required: true
steps:
  - id: bump
    title: Bump to {{version}}
  - id: changelog
    title: Write the changelog for {{version}}
    needs: [bump]
  - id: test
    title: Run the tests
    needs: [bump]
  - id: tag
    title: Tag v{{version}}
    needs: [changelog, test]
  - id: announce
    title: Announce {{version}}
    needs: tag
";

/// Changes `count` beads (from `start`) in one library transaction, with `edit`.
fn change_beads(
    dir: &Path,
    ids: &[String],
    edit: &dyn Fn(&mut git_beads::model::Bead, usize),
) -> Res<()> {
    let store = Store::discover(dir)?;
    let now = chrono::Utc::now();
    store.transact(&actor(), |tx| {
        for (k, id) in ids.iter().enumerate() {
            let id = BeadId::parse(id)?;
            let Some(mut bead) = tx.bead(&id)? else {
                continue;
            };
            edit(&mut bead, k);
            bead.touch("bench", now);
            tx.put_bead(&bead)?;
        }
        tx.set_message(format!("bench: change {} beads", ids.len()));
        Ok::<_, git_beads::ops::OpError>(())
    })?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The figures

struct Bench<'o> {
    o: &'o Opts,
    figures: Vec<Figure>,
    scratch: PathBuf,
}

impl Bench<'_> {
    fn record(
        &mut self,
        size: usize,
        name: &str,
        tool: &'static str,
        t: Timed,
        items: Option<usize>,
        note: &str,
    ) {
        let f = Figure {
            size,
            name: name.into(),
            tool,
            runs: t.runs,
            peak_kib: t.peak,
            cpu_ms: t.cpu,
            items,
            note: note.into(),
        };
        eprintln!(
            "  {:<9} {:<44} p50 {:>9.2} ms  [min {:.2}, p90 {:.2}, max {:.2}]{}{}",
            f.tool,
            f.name,
            f.median(),
            f.pct(0.0),
            f.pct(90.0),
            f.pct(100.0),
            f.cpu_ms
                .map(|c| format!("  cpu {c:.1} ms"))
                .unwrap_or_default(),
            f.peak_kib
                .map(|k| format!("  peak {:.1} MiB", k as f64 / 1024.0))
                .unwrap_or_default()
        );
        self.figures.push(f);
    }

    /// Signed store commits (issue 22): what signing adds to a write, in process and
    /// as a whole `create` with `beads.sign` on and off (alternating, so a change of
    /// load hits both alike), and `verify` of two chains of 10 000 commits signed by
    /// agents: one holding every capability, one that does not.
    fn signing(&mut self) -> Res<()> {
        let o = self.o;
        let runs = o.runs;
        let dir = o.work.join("signing");
        fresh_repo(&dir)?;
        eprintln!("\n== signing ({}) ==", load());
        let key = dir.join(".git/person.key");
        Cmd::new(
            "ssh-keygen",
            &dir,
            &[
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-f",
                &key.to_string_lossy(),
            ],
        )
        .output()?;
        git(&dir, &["config", "gpg.format", "ssh"])?;
        git(&dir, &["config", "user.signingKey", &key.to_string_lossy()])?;
        beads(o, &dir, &["init", "--prefix", "sg"])?;
        beads(o, &dir, &["agent", "create", "bot"])?;

        // In process: read the actor's key and sign a commit-sized payload.
        let store = Store::discover(&dir)?;
        let bot = AgentName::parse("bot")?;
        let agent = Actor::agent(&bot, None, git_beads::model::Authority::all());
        let payload = vec![b'x'; 400];
        let mut sign = Vec::with_capacity(runs * 100);
        for _ in 0..runs * 100 {
            let t = Instant::now();
            let signer = store.signer_for(&agent)?.ok_or("bot has no key")?;
            signer.sign("git", &payload)?;
            sign.push(t.elapsed());
        }
        let timed = |runs: Vec<Duration>| Timed {
            runs,
            peak: None,
            cpu: None,
        };
        self.record(
            0,
            "sign a commit in process (read key + SSHSIG)",
            "git-beads",
            timed(sign),
            None,
            "",
        );

        // Whole writes, signed and not, alternating.
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for i in 0..runs {
            for (sign, into) in [("true", &mut on), ("false", &mut off)] {
                git(&dir, &["config", "beads.sign", sign])?;
                let title = format!("signed {sign} {i}");
                into.push(self.beads_cmd(&dir, &["create", &title]).run()?);
            }
        }
        git(&dir, &["config", "--unset", "beads.sign"])?;
        self.record(
            0,
            "create, signed (person's key file)",
            "git-beads",
            timed(on),
            None,
            "",
        );
        self.record(
            0,
            "create, beads.sign=false",
            "git-beads",
            timed(off),
            None,
            "",
        );

        // A chain of agent commits, one bead each, then verify all of it: first by
        // an agent holding every capability (no change needs a look), then by one
        // that lacks `close` and the others, whose every change is diffed and judged.
        git(&dir, &["config", "core.fsync", "none"])?;
        self.verify_chain(&dir, &agent, "by an agent holding every capability")?;
        beads(
            o,
            &dir,
            &["agent", "create", "nar", "--can", "create,update"],
        )?;
        let nar = AgentName::parse("nar")?;
        let limited = git_beads::model::Authority {
            capabilities: [
                git_beads::model::Capability::Create,
                git_beads::model::Capability::Update,
            ]
            .into(),
            ..Default::default()
        };
        let nar = Actor::agent(&nar, None, limited);
        self.verify_chain(&dir, &nar, "by an agent without close")
    }

    /// Writes a chain of `CHAIN` commits by `actor`, one new bead each, then times
    /// `verify` of that chain alone (the store's earlier commits include unsigned
    /// ones, made with `beads.sign=false`).
    fn verify_chain(&mut self, dir: &Path, actor: &Actor, who: &str) -> Res<()> {
        const CHAIN: usize = 10_000;
        let from = git(dir, &["rev-parse", "refs/beads/main"])?;
        let t = Instant::now();
        for i in 0..CHAIN {
            // A store opened once and kept for hundreds of writes failed to resolve
            // its ref after about 600 of them (a long-lived process, as the MCP server
            // is, may too): each write opens its own, as a command does.
            let store = Store::discover(dir)?;
            ops::create(
                &store,
                actor,
                ops::NewBead {
                    title: format!("chain {i}"),
                    ..Default::default()
                },
            )?;
        }
        eprintln!(
            "  built a chain of {CHAIN} signed commits {who} in {:.1?}",
            t.elapsed()
        );
        let range = format!("{}..refs/beads/main", from.trim());
        let commits: usize = git(dir, &["rev-list", "--count", &range])?.trim().parse()?;
        let runs_verify = self.o.runs.clamp(1, 3);
        let r = time_same(
            runs_verify,
            &self.scratch,
            &self.beads_cmd(dir, &["verify", &range]),
        )?;
        self.record(
            commits,
            &format!("verify {commits} signed commits {who}"),
            "git-beads",
            r,
            Some(commits),
            "",
        );
        Ok(())
    }

    fn beads_cmd(&self, dir: &Path, args: &[&str]) -> Cmd {
        Cmd::new(&self.o.bin, dir, args)
    }

    /// Every figure at `n` beads: builds a store of `n` generated beads in a
    /// directory of its own, times each group of figures not skipped against it, and
    /// removes the directory unless asked to keep it.
    fn size(&mut self, n: usize) -> Res<()> {
        let o = self.o;
        let root = o.work.join(format!("n{n}"));
        std::fs::create_dir_all(&root)?;
        let dir = root.join("store");
        eprintln!("\n== {n} beads ({}) ==", load());
        let (jsonl, ids) = generate(n)?;
        let jsonl_path = root.join(format!("generated-{n}.jsonl"));
        std::fs::write(&jsonl_path, &jsonl)?;
        build_store(o, &dir, &jsonl, n)?;
        self.git_figures(n, &root, &dir)?;

        let mid = &ids[ids.len() / 2];
        if !o.skips("reads") {
            self.read_figures(n, &dir, mid)?;
            self.index_figures(n, &dir)?;
        }
        if !o.skips("serve") {
            let t = serve_board(o, &dir, o.runs)?;
            self.record(
                n,
                SERVE_BOARD,
                "git-beads",
                t,
                None,
                "request to the whole page",
            );
        }
        if !o.skips("writes") {
            self.write_figures(n, &dir, &ids)?;
        }
        if !o.skips("concurrency") {
            self.concurrency_figure(n, &dir)?;
        }
        if !o.skips("hooks") {
            self.harness_figures(n, &root, &dir)?;
        }
        if !o.skips("sync") || !o.skips("merge") {
            self.sync_figures(n, &root, &dir, &ids)?;
        }
        if !o.skips("import") {
            self.import_figure(n, &root, &jsonl_path)?;
        }
        if !o.skips("hooks") {
            self.hook_figures(n, &root, &dir)?;
        }
        if !o.skips("history") {
            self.history_figures(n, &dir, &ids)?;
        }
        self.gc_figures(n, &dir)?;

        if !o.skips("br") && n == o.br_size {
            self.br_figures(n, &root, &jsonl_path, &ids)?;
        }
        if !o.keep {
            let _ = std::fs::remove_dir_all(&root);
        }
        Ok(())
    }

    /// git's own plumbing on the same data: resolving the store's ref, listing its
    /// tree, and reading every blob it holds (their ids listed in `root`).
    fn git_figures(&mut self, n: usize, root: &Path, dir: &Path) -> Res<()> {
        let (runs, scratch) = (self.o.runs, self.scratch.clone());
        let rev = Cmd::new("git", dir, &["rev-parse", "refs/beads/main"]);
        let r = time_same(runs, &scratch, &rev)?;
        self.record(n, "rev-parse refs/beads/main", "git", r, None, "");
        let ls = Cmd::new("git", dir, &["ls-tree", "-r", "refs/beads/main"]);
        let listing = ls.output()?;
        let blobs: String = listing
            .lines()
            .filter_map(|l| l.split_whitespace().nth(2))
            .map(|id| format!("{id}\n"))
            .collect();
        let blob_count = blobs.lines().count();
        let blob_list = root.join("blobs.txt");
        std::fs::write(&blob_list, blobs)?;
        let r = time_same(runs, &scratch, &ls)?;
        self.record(
            n,
            "ls-tree -r refs/beads/main",
            "git",
            r,
            Some(blob_count),
            "",
        );
        let cat = Cmd::new("git", dir, &["cat-file", "--batch"]).stdin(&blob_list);
        let r = time_same(runs, &scratch, &cat)?;
        self.record(
            n,
            "cat-file --batch (every blob of the store)",
            "git",
            r,
            Some(blob_count),
            "",
        );
        Ok(())
    }

    /// The reads, each a whole process: what a person or an agent runs (bead `mid`
    /// shown), what bd's tools run, then the MCP server's `ready` and a listing of
    /// every bead.
    fn read_figures(&mut self, n: usize, dir: &Path, mid: &str) -> Res<()> {
        let (runs, scratch) = (self.o.runs, self.scratch.clone());
        let reads: Vec<(&str, Vec<&str>, bool)> = vec![
            ("show", vec!["show", mid], false),
            ("list (default page)", vec!["list"], false),
            ("ready", vec!["ready"], false),
            ("blocked", vec!["blocked"], false),
            ("search", vec!["search", NEEDLE], false),
            ("prime (agent with hook and mail)", vec!["prime"], true),
            ("mail inbox", vec!["mail", "inbox"], true),
            // What bd's tools run, with bd's default limits (issue 23).
            ("bd: ready --json", vec!["ready", "--json"], false),
            ("bd: blocked --json", vec!["blocked", "--json"], false),
            ("bd: list --json", vec!["list", "--json"], false),
            ("bd: show --json", vec!["show", mid, "--json"], false),
            ("bd: count --json", vec!["count", "--json"], false),
            ("bd: stats --json", vec!["stats", "--json"], false),
            // bd's sql (issue 40): a count from the index, then rows that need
            // the documents.
            (
                "bd: sql --csv 'SELECT COUNT(*) … issues'",
                vec!["sql", "--csv", "SELECT COUNT(*) as cnt FROM issues"],
                false,
            ),
            (
                "bd: sql --json (open in_progress, description)",
                vec![
                    "sql",
                    "--json",
                    "SELECT id, description FROM issues WHERE status = 'in_progress'",
                ],
                false,
            ),
        ];
        for (name, args, as_agent) in reads {
            let mut c = self.beads_cmd(dir, &args);
            if as_agent {
                c = c.env("GIT_BEADS_AGENT", AGENT);
            }
            let r = time_same(runs, &scratch, &c)?;
            self.record(n, name, "git-beads", r, None, "");
        }
        self.mcp_figures(n, dir, mid)?;
        let all = self.beads_cmd(dir, &["list", "--all", "--json"]);
        let shown: serde_json::Value = serde_json::from_str(&all.output()?)?;
        let count = shown.as_array().map_or(0, Vec::len);
        let r = time_same(runs, &scratch, &all)?;
        self.record(n, "list --all --json", "git-beads", r, Some(count), "");
        Ok(())
    }

    /// The index cache: the first read with no cache, which builds it from every
    /// document, and the first reads after a small write, which bring it forward.
    fn index_figures(&mut self, n: usize, dir: &Path) -> Res<()> {
        let (runs, scratch) = (self.o.runs, self.scratch.clone());
        // With no cache, the first read builds the whole index from the documents:
        // what a fresh clone pays once, and the most memory any read takes.
        let cache = dir.join(".git").join("beads");
        let r = time_each(runs.min(3), &scratch, |_| {
            for entry in std::fs::read_dir(&cache)?.flatten() {
                if entry.file_name().to_string_lossy().starts_with("index-v") {
                    std::fs::remove_file(entry.path())?;
                }
            }
            Ok(self.beads_cmd(dir, &["ready"]))
        })?;
        self.record(n, REBUILD, "git-beads", r, None, "");
        // The first read after a small write brings the index forward by a tree diff.
        let mut k = 0;
        let r = time_each(runs, &scratch, |_| {
            k += 1;
            self.probe_write(dir, k)?;
            Ok(self.beads_cmd(dir, &["ready"]))
        })?;
        self.record(
            n,
            "ready after one write (index update)",
            "git-beads",
            r.no_cpu(),
            None,
            "",
        );
        // `blocked --json` is kept at a head asked for twice: "bd: blocked --json"
        // is a call at a head asked for before; these are the first call after a
        // write (the index brought forward as above), and the second, which keeps
        // what it prints.
        for (name, before) in [
            ("blocked --json after one write", 0),
            ("blocked --json after one write, asked again (keeps it)", 1),
        ] {
            let blocked = self.beads_cmd(dir, &["blocked", "--json"]);
            let r = time_each(runs, &scratch, |_| {
                k += 1;
                self.probe_write(dir, k)?;
                for _ in 0..before {
                    blocked.run()?;
                }
                Ok(blocked.clone())
            })?;
            self.record(n, name, "git-beads", r.no_cpu(), None, "");
        }
        Ok(())
    }

    /// Creates the bead `index probe K`, untimed, so that the next read finds the
    /// index one write behind.
    fn probe_write(&self, dir: &Path, k: usize) -> Res<()> {
        self.beads_cmd(dir, &["create", &format!("index probe {k}"), "-q"])
            .run()?;
        Ok(())
    }

    /// The writes, each a whole process: `create`; `update`, `close` and `comment`
    /// of open beads from the front of `ids`; `sling` of open beads from the back; and
    /// pouring the five-step formula.
    fn write_figures(&mut self, n: usize, dir: &Path, ids: &[String]) -> Res<()> {
        let (runs, scratch) = (self.o.runs, self.scratch.clone());
        let mut k = 0;
        let r = time_each(runs, &scratch, |_| {
            k += 1;
            Ok(self.beads_cmd(dir, &["create", &format!("bench create {k}"), "-q"]))
        })?;
        self.record(n, "create", "git-beads", r, None, "");
        let open = closable(ids);
        let mut next = open.iter().cycle();
        let r = time_each(runs, &scratch, |i| {
            let id = next.next().ok_or("no open bead")?;
            let p = (i % 5).to_string();
            Ok(self.beads_cmd(dir, &["update", id, "-p", &p, "-q"]))
        })?;
        self.record(n, "update", "git-beads", r, None, "");
        let r = time_each(runs, &scratch, |_| {
            let id = next.next().ok_or("no open bead")?;
            Ok(self.beads_cmd(dir, &["close", id, "-q"]))
        })?;
        self.record(n, "close", "git-beads", r, None, "");
        let r = time_each(runs, &scratch, |_| {
            let id = next.next().ok_or("no open bead")?;
            Ok(self.beads_cmd(dir, &["comment", id, "a comment from the benchmark", "-q"]))
        })?;
        self.record(n, "comment", "git-beads", r, None, "");
        // From the other end: the first open tasks are on the prime agent's hook.
        let mut last = open.iter().rev();
        let r = time_each(runs, &scratch, |_| {
            let id = last.next().ok_or("no open bead")?;
            Ok(self.beads_cmd(dir, &["sling", id, "bench/worker-3", "-q"]))
        })?;
        self.record(n, "sling", "git-beads", r, None, "");
        let mut v = 0;
        let r = time_each(runs, &scratch, |_| {
            v += 1;
            Ok(self.beads_cmd(
                dir,
                &[
                    "mol",
                    "pour",
                    "bench",
                    "--var",
                    &format!("version=1.{v}"),
                    "-q",
                ],
            ))
        })?;
        self.record(n, "mol pour (5 steps)", "git-beads", r, None, "");
        Ok(())
    }

    /// Three rounds of 20 processes writing at once, 5 creates each, and how many of
    /// their beads the store lost.
    fn concurrency_figure(&mut self, n: usize, dir: &Path) -> Res<()> {
        let o = self.o;
        let writers = 20;
        let each = 5;
        let before = count_beads(o, dir)?;
        let mut rounds = Vec::new();
        for _ in 0..3 {
            rounds.push(concurrent_writes(o, dir, writers, each)?);
        }
        let after = count_beads(o, dir)?;
        let lost = (before + 3 * writers * each).saturating_sub(after);
        let note = format!(
            "{writers} processes × {each} creates; {lost} lost; ops/s = {} / median",
            writers * each
        );
        self.record(
            n,
            "20 concurrent writers, 100 creates",
            "git-beads",
            Timed {
                runs: rounds,
                peak: None,
                cpu: None,
            },
            Some(writers * each),
            &note,
        );
        Ok(())
    }

    /// Importing the `n` generated beads (the JSONL file `jsonl`) into a fresh store
    /// under `root`, removed afterwards.
    fn import_figure(&mut self, n: usize, root: &Path, jsonl: &Path) -> Res<()> {
        let runs_import = if n >= 100_000 { 1 } else { 3.min(self.o.runs) };
        let target = root.join("import");
        let scratch = self.scratch.clone();
        let r = time_each(runs_import, &scratch, |_| self.fresh_import(&target, jsonl))?;
        self.record(
            n,
            &format!("import {n} generated beads"),
            "git-beads",
            r.no_cpu(),
            Some(n),
            "",
        );
        let _ = std::fs::remove_dir_all(&target);
        Ok(())
    }

    /// Makes a fresh store (prefix `bd`) at `target`, untimed, and returns the
    /// import of `file` into it.
    fn fresh_import(&self, target: &Path, file: &Path) -> Res<Cmd> {
        fresh_repo(target)?;
        beads(self.o, target, &["init", "--prefix", "bd", "-q"])?;
        Ok(self.beads_cmd(target, &["import", "-q"]).with_arg(file))
    }

    /// The store's size after `git gc`, and a read of the packed store.
    fn gc_figures(&mut self, n: usize, dir: &Path) -> Res<()> {
        git(dir, &["gc", "-q"])?;
        // What git counts as the repository (packs and loose objects), and what it
        // counts as garbage (nothing, unless a writer was killed mid-pack).
        let counted = git(dir, &["count-objects", "-v"])?;
        let kib = |key: &str| count_objects_value(&counted, key);
        let size = (kib("size-pack:") + kib("size:")) * 1024;
        let garbage = kib("size-garbage:") * 1024;
        let mib = |b: u64| b as f64 / 1048576.0;
        self.figures.push(Figure {
            size: n,
            name: "store size after git gc (git count-objects)".into(),
            tool: "size",
            runs: Vec::new(),
            peak_kib: Some(size / 1024),
            cpu_ms: None,
            items: None,
            note: format!("{:.1} MiB (+ {:.1} MiB garbage)", mib(size), mib(garbage)),
        });
        eprintln!(
            "  store size after git gc: {:.1} MiB (+ {:.1} MiB garbage to git)",
            mib(size),
            mib(garbage)
        );
        let r = time_same(self.o.runs, &self.scratch, &self.beads_cmd(dir, &["ready"]))?;
        self.record(n, "ready (after git gc)", "git-beads", r, None, "");
        Ok(())
    }

    /// A history of single writes (issue 39): `--history` retitles, one `update` each,
    /// timed, with no `git gc` between. Records the first and the last
    /// [`HISTORY_EDGE`] writes' times, what `.git/objects` grew by per write, and how
    /// many packs and loose objects git counts at the end (git's auto-gc steps in at
    /// 50 packs or 6 700 loose objects).
    fn history_figures(&mut self, n: usize, dir: &Path, ids: &[String]) -> Res<()> {
        let writes = self.o.history.max(2 * HISTORY_EDGE + 2);
        let objects = dir.join(".git/objects");
        let before = bytes_under(&objects);
        let open = closable(ids);
        let mut next = open.iter().cycle();
        let (bin, scratch) = (self.o.bin.clone(), self.scratch.clone());
        let mut made = 0;
        let mut write = |_| -> Res<Cmd> {
            let id = next.next().ok_or("no open bead")?;
            made += 1;
            let title = format!("history write {made}");
            Ok(Cmd::new(
                &bin,
                dir,
                &["update", id, "--title", &title, "-q"],
            ))
        };
        let t = Instant::now();
        // Each timing makes one more write, untimed, first.
        let first = time_each(HISTORY_EDGE, &scratch, &mut write)?;
        for _ in 0..writes - 2 * (HISTORY_EDGE + 1) {
            write(0)?.run()?;
        }
        let last = time_each(HISTORY_EDGE, &scratch, &mut write)?;
        let grown = bytes_under(&objects).saturating_sub(before);
        let counted = git(dir, &["count-objects", "-v"])?;
        let count = |key: &str| count_objects_value(&counted, key);
        let (packs, loose) = (count("packs:"), count("count:"));
        eprintln!(
            "  {writes} writes in {:.1?}: .git/objects grew {grown} bytes, {} a write; {packs} packs, {loose} loose objects",
            t.elapsed(),
            grown / writes as u64
        );
        self.record(
            n,
            &format!("update, the first {HISTORY_EDGE} of {writes} writes"),
            "git-beads",
            first,
            None,
            "",
        );
        self.record(
            n,
            &format!("update, the last {HISTORY_EDGE} of {writes} writes"),
            "git-beads",
            last,
            None,
            "",
        );
        self.figures.push(Figure {
            size: n,
            name: format!(".git/objects growth per write over {writes} writes, no gc"),
            tool: "size",
            runs: Vec::new(),
            peak_kib: None,
            cpu_ms: None,
            items: Some(writes),
            note: format!(
                "{} B a write (target ≤ 4096); {packs} packs, {loose} loose objects after",
                grown / writes as u64
            ),
        });
        Ok(())
    }

    /// An MCP `ready` call (the tool, with its default limit of 100, as `ready --json`
    /// answers), beside the `ready` process above: in process, through the server's
    /// dispatch of one JSON-RPC line (on the store the server keeps open between
    /// calls, as it does over a pipe), the same call again with nothing written since (the server gives its
    /// last answer again once it has read the ref) and after a write by the CLI (bead
    /// `mid` retitled, untimed); and over a pipe to one long-lived `git beads mcp`.
    fn mcp_figures(&mut self, n: usize, dir: &Path, mid: &str) -> Res<()> {
        let runs = self.o.runs.max(20);
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ready","arguments":{}}}"#;
        let server = git_beads::mcp::Server::new(dir.to_owned(), None, false, None);
        let timed = |runs, cpu: f64| Timed {
            runs,
            peak: None,
            cpu: cpu.is_finite().then_some(cpu),
        };
        let per_call = |ns: f64| ns / runs as f64 / 1e6;
        for (name, write) in [(MCP_IN_PROCESS, false), (MCP_AFTER_WRITE, true)] {
            let mut times = Vec::with_capacity(runs);
            let mut cpu = 0.0;
            for i in 0..=runs {
                if write {
                    let title = format!("Retitled for the MCP bench {i}");
                    self.beads_cmd(dir, &["update", mid, "--title", &title])
                        .output()?;
                }
                let (start, cpu_start) = (Instant::now(), cpu_ns("thread-self"));
                let answer = server.answer(call).ok_or("no answer")?;
                if i > 0 {
                    times.push(start.elapsed());
                    cpu += cpu_ns("thread-self")
                        .zip(cpu_start)
                        .map_or(f64::NAN, |(b, a)| b - a);
                }
                if !answer.contains(r#""isError":false"#) {
                    return Err(format!("mcp ready failed: {answer}").into());
                }
            }
            self.record(n, name, "git-beads", timed(times, per_call(cpu)), None, "");
        }

        let mut c = Command::new(&self.o.bin);
        c.arg("mcp").current_dir(dir);
        hermetic(&mut c);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut input = child.stdin.take().ok_or("no stdin")?;
        let mut output = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut times = Vec::with_capacity(runs);
        let mut line = String::new();
        let server_cpu = format!("{}", child.id());
        let mut cpu = 0.0;
        for i in 0..=runs {
            let (start, cpu_start) = (Instant::now(), cpu_ns(&server_cpu));
            writeln!(input, "{call}")?;
            input.flush()?;
            line.clear();
            std::io::BufRead::read_line(&mut output, &mut line)?;
            if i > 0 {
                times.push(start.elapsed());
                cpu += cpu_ns(&server_cpu)
                    .zip(cpu_start)
                    .map_or(f64::NAN, |(b, a)| b - a);
            }
            if !line.contains(r#""isError":false"#) {
                return Err(format!("mcp ready over a pipe failed: {line}").into());
            }
        }
        drop(input);
        child.wait()?;
        self.record(
            n,
            MCP_PIPE,
            "git-beads",
            timed(times, per_call(cpu)),
            None,
            "",
        );
        Ok(())
    }

    /// The harness hooks of a running session: the guard Claude Code runs before every
    /// tool call, and the Stop hook that records a turn from the transcript (one new
    /// assistant message appended, untimed, before each run; no run is due to fold the
    /// turns into the store). The agent is bound to the store's worktree for these
    /// figures only.
    fn harness_figures(&mut self, n: usize, root: &Path, dir: &Path) -> Res<()> {
        let (o, runs, scratch) = (self.o, self.o.runs, self.scratch.clone());
        let agent = "bench/harness";
        let budget = "tokens=1000000000,spend=1000000";
        beads(
            o,
            dir,
            &["agent", "create", agent, "--budget", budget, "-q"],
        )?;
        beads(o, dir, &["agent", "bind", agent, "-q"])?;
        beads(o, dir, &["session", "start", "-q"])?;
        let transcript = root.join("transcript.jsonl");
        std::fs::write(&transcript, "")?;
        let input = |event: &str, name: &str| -> Res<PathBuf> {
            let file = root.join(name);
            let json = serde_json::json!({
                "session_id": "bench", "transcript_path": transcript, "cwd": dir,
                "hook_event_name": event, "tool_name": "Bash",
                "tool_input": {"command": "ls"},
            });
            std::fs::write(&file, json.to_string())?;
            Ok(file)
        };
        let pre = input("PreToolUse", "pretooluse.json")?;
        let stop = input("Stop", "stop.json")?;
        let guard = self
            .beads_cmd(dir, &["session", "guard", "--hook-input"])
            .stdin(&pre);
        let r = time_same(runs, &scratch, &guard)?;
        self.record(
            n,
            "session guard (PreToolUse hook)",
            "git-beads",
            r,
            None,
            "",
        );
        let turn = self
            .beads_cmd(dir, &["session", "heartbeat", "--hook-input", "-q"])
            .stdin(&stop);
        let mut log = std::fs::OpenOptions::new().append(true).open(&transcript)?;
        let r = time_each(runs, &scratch, |i| {
            let line = serde_json::json!({
                "type": "assistant", "uuid": format!("u{i}"), "requestId": format!("req_{i}"),
                "message": {
                    "id": format!("msg_{i}"), "role": "assistant",
                    "model": "claude-sonnet-4-5-20250929",
                    "content": [{"type": "tool_use", "id": format!("toolu_{i}"), "name": "Bash",
                                 "input": {"command": "ls"}}],
                    "usage": {"input_tokens": 10, "output_tokens": 200,
                              "cache_creation_input_tokens": 500,
                              "cache_read_input_tokens": 20000},
                },
            });
            writeln!(log, "{line}")?;
            Ok(turn.clone())
        })?;
        self.record(
            n,
            "session heartbeat (Stop hook, one turn)",
            "git-beads",
            r,
            None,
            "reads the new transcript line, appends a ledger line; no store commit",
        );
        beads(o, dir, &["session", "end", "-q"])?;
        beads(o, dir, &["agent", "unbind", "-q"])?;
        Ok(())
    }

    /// `git commit` in a worktree where an agent's session runs, without git-beads'
    /// hooks and with them (`hooks install`: prepare-commit-msg adds the trailers; the
    /// next git-beads command writes the provenance note, outside this figure): what
    /// the hooks add to every commit an agent makes. The two kinds of run alternate, so a change of load hits both alike.
    fn hook_figures(&mut self, n: usize, root: &Path, dir: &Path) -> Res<()> {
        let o = self.o;
        let wt = root.join("hooks-worktree");
        let no_hooks = root.join("no-hooks");
        // Left by a run that stopped halfway (the store itself is built afresh).
        if wt.exists() {
            std::fs::remove_dir_all(&wt)?;
        }
        std::fs::create_dir_all(&no_hooks)?;
        if git(dir, &["rev-parse", "-q", "--verify", "HEAD"]).is_err() {
            git(dir, &["commit", "-q", "--allow-empty", "-m", "base"])?;
        }
        git(
            dir,
            &["worktree", "add", "-q", "--detach", &wt.to_string_lossy()],
        )?;
        beads(o, dir, &["agent", "create", COMMITTER, "-q"])?;
        beads(o, &wt, &["agent", "bind", COMMITTER, "-q"])?;
        beads(o, &wt, &["session", "start", "-q"])?;
        beads(o, &wt, &["hooks", "install", "-q"])?;
        let hooks = git(
            &wt,
            &["rev-parse", "--path-format=absolute", "--git-path", "hooks"],
        )?;
        // The hooks find the binary under test as `git-beads` on PATH.
        let bin_dir = o.bin.parent().ok_or("the binary has no directory")?;
        let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))?;
        let path = path.to_string_lossy().into_owned();
        let file = wt.join("bench.txt");
        let commit = |hooks_path: &str, i: usize| -> Res<Cmd> {
            std::fs::write(&file, format!("change {i}\n"))?;
            let config = format!("core.hooksPath={hooks_path}");
            Ok(Cmd::new(
                "git",
                &wt,
                &[
                    "-c",
                    &config,
                    "-c",
                    "maintenance.auto=false",
                    "commit",
                    "-q",
                    "-a",
                    "-m",
                    &format!("bench commit {i}"),
                ],
            )
            .env("PATH", &path))
        };
        let none = no_hooks.to_string_lossy().into_owned();
        let with = hooks.trim().to_owned();
        std::fs::write(&file, "base\n")?;
        git(&wt, &["add", "bench.txt"])?;
        commit(&none, 0)?.run()?;
        commit(&with, 1)?.run()?;
        // The two kinds of commit, alternating, `o.runs` of each (numbered from
        // `first`, so every commit changes the file).
        let alternate = |first: usize, a: &str, b: &str| -> Res<(Timed, Timed)> {
            let (mut a_runs, mut b_runs) = (Vec::new(), Vec::new());
            let (mut a_cpu, mut b_cpu) = (Some(0.0), Some(0.0));
            let timed = |hooks_path: &str, i: usize, cpu: &mut Option<f64>| -> Res<Duration> {
                let cmd = commit(hooks_path, i)?;
                let before = children_cpu_ms();
                let took = cmd.run()?;
                *cpu = match (*cpu, before, children_cpu_ms()) {
                    (Some(sum), Some(x), Some(y)) => Some(sum + y - x),
                    _ => None,
                };
                Ok(took)
            };
            for i in 1..=o.runs {
                a_runs.push(timed(a, first + 2 * i, &mut a_cpu)?);
                b_runs.push(timed(b, first + 2 * i + 1, &mut b_cpu)?);
            }
            let runs = o.runs as f64;
            let timed = |runs_of: Vec<Duration>, cpu: Option<f64>| Timed {
                runs: runs_of,
                peak: None,
                cpu: cpu.map(|c| c / runs),
            };
            Ok((timed(a_runs, a_cpu), timed(b_runs, b_cpu)))
        };
        let (plain, hooked) = alternate(0, &none, &with)?;
        self.record(n, PLAIN_COMMIT, "git", plain, None, "");
        self.record(n, HOOKED_COMMIT, "git-beads", hooked, None, "");
        // Outside a session the hooks start no git-beads at all.
        beads(o, &wt, &["session", "end", "-q"])?;
        let (plain, hooked) = alternate(2 * o.runs + 2, &none, &with)?;
        self.record(n, PLAIN_COMMIT_NO_SESSION, "git", plain, None, "");
        self.record(n, HOOKED_COMMIT_NO_SESSION, "git-beads", hooked, None, "");
        beads(o, dir, &["hooks", "uninstall", "-q"])?;
        git(
            dir,
            &["worktree", "remove", "--force", &wt.to_string_lossy()],
        )?;
        Ok(())
    }

    fn sync_figures(&mut self, n: usize, root: &Path, dir: &Path, ids: &[String]) -> Res<()> {
        let o = self.o;
        let scratch = self.scratch.clone();
        let remote = root.join("remote.git");
        let b = root.join("clone-b");
        for d in [&remote, &b] {
            if d.exists() {
                std::fs::remove_dir_all(d)?;
            }
        }
        git(root, &["init", "-q", "--bare", "remote.git"])?;
        git(dir, &["remote", "add", "origin", &remote.to_string_lossy()])?;
        beads(o, dir, &["sync", "-q"])?;
        fresh_repo(&b)?;
        git(&b, &["remote", "add", "origin", &remote.to_string_lossy()])?;
        beads(o, &b, &["sync", "-q"])?;
        beads(o, &b, &["list", "-q"])?;
        let runs = self.o.runs.clamp(1, 5);
        let changed = 1000.min(ids.len());
        if !o.skips("sync") {
            // Clone A changes 1 000 beads and pushes; clone B, with one change of its
            // own, fetches them, merges and pushes.
            let mut round = 0usize;
            let mut push_runs = Vec::new();
            let r = time_each(runs, &scratch, |_| {
                round += 1;
                let from = (round * 977) % ids.len();
                let chosen: Vec<String> = ids
                    .iter()
                    .cycle()
                    .skip(from)
                    .take(changed)
                    .cloned()
                    .collect();
                let r0 = round;
                change_beads(dir, &chosen, &move |b, k| {
                    b.notes = format!("sync round {r0}, change {k}");
                })?;
                push_runs.push(self.beads_cmd(dir, &["sync", "-q"]).run()?);
                let mine = ids[(from + changed) % ids.len()].clone();
                change_beads(&b, &[mine], &move |b, _| b.priority = (r0 % 5) as u8)?;
                Ok(self.beads_cmd(&b, &["sync", "-q"]))
            })?;
            let first = push_runs.first().copied();
            let push: Vec<Duration> = push_runs.into_iter().skip(1).collect();
            self.record(
                n,
                &format!("sync: push {changed} changed beads (clone A)"),
                "git-beads",
                Timed {
                    runs: push,
                    peak: None,
                    cpu: None,
                },
                Some(changed),
                "",
            );
            let _ = first;
            self.record(
                n,
                &format!("sync: fetch + merge {changed} changed beads (clone B)"),
                "git-beads",
                r.no_cpu(),
                Some(changed),
                "",
            );
            beads(o, dir, &["sync", "-q"])?;
        }
        if !o.skips("merge") {
            // Both clones change the same 10 000 beads (different fields); B merges.
            let both = 10_000.min(ids.len());
            let mut round = 0usize;
            let runs = runs.min(3);
            let r = time_each(runs, &scratch, |_| {
                round += 1;
                let from = (round * 4001) % ids.len();
                let chosen: Vec<String> =
                    ids.iter().cycle().skip(from).take(both).cloned().collect();
                let r0 = round;
                change_beads(dir, &chosen, &move |b, k| {
                    b.notes = format!("merge round {r0}, change {k}");
                })?;
                beads(o, dir, &["sync", "-q"])?;
                change_beads(&b, &chosen, &move |b, _| {
                    b.labels.insert(format!("merged-{r0}"));
                })?;
                Ok(self.beads_cmd(&b, &["sync", "-q"]))
            })?;
            self.record(
                n,
                &format!("merge: {both} beads changed on both sides"),
                "git-beads",
                r.no_cpu(),
                Some(both),
                "",
            );
            beads(o, dir, &["sync", "-q"])?;
        }
        git(dir, &["remote", "remove", "origin"])?;
        if !o.keep {
            let _ = std::fs::remove_dir_all(&b);
            let _ = std::fs::remove_dir_all(&remote);
        }
        Ok(())
    }

    /// Cooking and pouring the largest vendored formula (Gas Town's
    /// towers-of-hanoi-10) into a fresh store: in process through the library, and as
    /// whole `formula cook` and `mol pour` runs.
    fn formulas(&mut self) -> Res<()> {
        let o = self.o;
        let name = "towers-of-hanoi-10";
        let dir = o.work.join("formulas").join("store");
        fresh_repo(&dir)?;
        beads(o, &dir, &["init", "-q"])?;
        let formulas = dir.join(".beads/formulas");
        std::fs::create_dir_all(&formulas)?;
        let vendored =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formulas/gastown");
        for entry in std::fs::read_dir(vendored)? {
            let path = entry?.path();
            if path.to_string_lossy().ends_with(".formula.toml") {
                std::fs::copy(&path, formulas.join(path.file_name().ok_or("no name")?))?;
            }
        }
        eprintln!("\n== formulas: {name} ({}) ==", load());
        let store = Store::discover(&dir)?;
        let found = ops::find_formula(&store, name)?;
        let opts = ops::PourOptions::default();
        let steps = ops::cook(&store, &found, &opts.vars)?.steps.len();
        let mut cooked = Vec::with_capacity(o.runs);
        let mut poured = Vec::with_capacity(o.runs);
        for _ in 0..=o.runs {
            let t = Instant::now();
            let found = ops::find_formula(&store, name)?;
            ops::cook(&store, &found, &opts.vars)?;
            cooked.push(t.elapsed());
            let t = Instant::now();
            let found = ops::find_formula(&store, name)?;
            ops::pour(&store, &actor(), &found, &opts)?;
            poured.push(t.elapsed());
        }
        // The first round warms the caches, as the warm-up of `time_each` does.
        let timed = |mut runs: Vec<Duration>| {
            runs.remove(0);
            Timed {
                runs,
                peak: None,
                cpu: None,
            }
        };
        let note = "in process: find the formula, read, cook (and pour: one commit)";
        self.record(
            steps,
            &format!("cook {name} (library)"),
            "git-beads",
            timed(cooked),
            Some(steps),
            note,
        );
        self.record(
            steps,
            &format!("cook + pour {name} (library)"),
            "git-beads",
            timed(poured),
            Some(steps),
            note,
        );
        let scratch = self.scratch.clone();
        let cook = self.beads_cmd(&dir, &["formula", "cook", name, "-q"]);
        let r = time_same(o.runs, &scratch, &cook)?;
        self.record(
            steps,
            &format!("formula cook {name}"),
            "git-beads",
            r,
            Some(steps),
            "",
        );
        let pour = self.beads_cmd(&dir, &["mol", "pour", name, "-q"]);
        let r = time_same(o.runs, &scratch, &pour)?;
        self.record(
            steps,
            &format!("mol pour {name}"),
            "git-beads",
            r,
            Some(steps),
            "",
        );
        Ok(())
    }

    fn fixture(&mut self) -> Res<()> {
        let o = self.o;
        let Some(fixture) = o.fixture.clone() else {
            eprintln!(
                "\n== fixture: ABSENT (../shared/fixtures/bd-issues-5722.jsonl not found; --fixture PATH) =="
            );
            return Ok(());
        };
        if !fixture.exists() {
            eprintln!("\n== fixture: ABSENT ({} not found) ==", fixture.display());
            return Ok(());
        }
        let records = std::fs::read_to_string(&fixture)?.lines().count();
        eprintln!(
            "\n== fixture {} ({records} records, {}) ==",
            fixture.display(),
            load()
        );
        let target = o.work.join("fixture");
        let scratch = self.scratch.clone();
        let runs = self.o.runs.clamp(1, 5);
        let r = time_each(runs, &scratch, |_| self.fresh_import(&target, &fixture))?;
        self.record(
            records,
            &format!("import the {records}-record bd fixture"),
            "git-beads",
            r.no_cpu(),
            Some(records),
            "",
        );
        let c = self.beads_cmd(&target, &["ready"]);
        let r = time_same(self.o.runs, &scratch, &c)?;
        self.record(records, "ready (fixture)", "git-beads", r, None, "");
        let c = self.beads_cmd(&target, &["list", "--all", "--json"]);
        let shown: serde_json::Value = serde_json::from_str(&c.output()?)?;
        let count = shown["beads"].as_array().map_or(0, Vec::len);
        let r = time_same(self.o.runs, &scratch, &c)?;
        self.record(
            records,
            "list --all --json (fixture)",
            "git-beads",
            r,
            Some(count),
            "",
        );
        if !o.keep {
            let _ = std::fs::remove_dir_all(&target);
        }
        Ok(())
    }

    /// beads_rust on the same generated beads: its own init and JSONL import, then the
    /// same reads and writes.
    fn br_figures(&mut self, n: usize, root: &Path, jsonl: &Path, ids: &[String]) -> Res<()> {
        let Some(br) = self.o.br.clone() else {
            eprintln!(
                "  beads_rust: SKIPPED: no `br` on PATH (install: cargo install beads_rust --root DIR; pass --br DIR/bin/br)"
            );
            return Ok(());
        };
        let scratch = self.scratch.clone();
        let runs = self.o.runs;
        let dir = root.join("br");
        fresh_repo(&dir)?;
        let brc = |args: &[&str]| Cmd::new(&br, &dir, args).env("HOME", &dir.to_string_lossy());
        brc(&["init", "--prefix", "bd"]).output()?;
        // br imports a bd JSONL export from .beads/issues.jsonl with `sync --import-only`.
        std::fs::copy(jsonl, dir.join(".beads/issues.jsonl"))?;
        let t = Instant::now();
        brc(&["sync", "--import-only"]).output()?;
        let import_time = t.elapsed();
        eprintln!(
            "  br: imported {n} beads in {:.1} s",
            import_time.as_secs_f64()
        );
        self.record(
            n,
            &format!("import {n} generated beads"),
            "br",
            Timed {
                runs: vec![import_time],
                peak: None,
                cpu: None,
            },
            Some(n),
            "one run, `br sync --import-only`",
        );
        let mid = &ids[ids.len() / 2];
        let reads: Vec<(&str, Vec<&str>)> = vec![
            ("show", vec!["show", mid]),
            // br's list has no default limit; git-beads' default page is 50.
            ("list (default page)", vec!["list", "--limit", "50"]),
            ("ready", vec!["ready"]),
            ("blocked", vec!["blocked"]),
            ("search", vec!["search", NEEDLE]),
            ("list --all --json", vec!["list", "--all", "--json"]),
        ];
        for (name, args) in reads {
            let r = time_same(runs, &scratch, &brc(&args))?;
            self.record(n, name, "br", r, None, "");
        }
        let mut k = 0;
        let r = time_each(runs, &scratch, |_| {
            k += 1;
            Ok(brc(&["create", &format!("bench create {k}")]))
        })?;
        self.record(n, "create", "br", r, None, "");
        let open = closable(ids);
        let mut next = open.iter().cycle();
        let r = time_each(runs, &scratch, |i| {
            let id = next.next().ok_or("no open bead")?;
            Ok(brc(&["update", id, "--priority", &(i % 5).to_string()]))
        })?;
        self.record(n, "update", "br", r, None, "");
        let r = time_each(runs, &scratch, |_| {
            let id = next.next().ok_or("no open bead")?;
            Ok(brc(&["close", id]))
        })?;
        self.record(n, "close", "br", r, None, "");
        if !self.o.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok(())
    }
}

trait WithArg {
    fn with_arg(self, p: &Path) -> Self;
}

impl WithArg for Cmd {
    fn with_arg(mut self, p: &Path) -> Cmd {
        self.args.push(p.to_string_lossy().into_owned());
        self
    }
}

/// How many writes at each end of a history are timed.
const HISTORY_EDGE: usize = 20;

/// The bytes of every file under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// One number in what `git count-objects -v` printed (`counted`), by its key
/// (`"size-pack:"`); 0 where git printed none.
fn count_objects_value(counted: &str, key: &str) -> u64 {
    counted
        .lines()
        .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
        .unwrap_or(0)
}

fn count_beads(o: &Opts, dir: &Path) -> Res<usize> {
    let out = beads(o, dir, &["list", "--all", "--json", "-n", "1"])?;
    let v: serde_json::Value = serde_json::from_str(&out)?;
    Ok(v["total"].as_u64().unwrap_or_default() as usize)
}

/// `writers` processes at once, each making `each` beads one after another; returns
/// the wall time until all are done.
fn concurrent_writes(o: &Opts, dir: &Path, writers: usize, each: usize) -> Res<Duration> {
    let start = Instant::now();
    let results: Vec<Res<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                s.spawn(move || -> Result<(), String> {
                    for k in 0..each {
                        Cmd::new(
                            &o.bin,
                            dir,
                            &["create", &format!("writer {w} bead {k}"), "-q"],
                        )
                        .run()
                        .map_err(|e| e.to_string())?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(r) => r.map_err(|e| e.into()),
                Err(_) => Err("a writer thread panicked".into()),
            })
            .collect()
    });
    let took = start.elapsed();
    for r in results {
        r?;
    }
    Ok(took)
}

/// The generated beads that are open with no blocker and no children, so that both
/// tools close them without anyone's `--force`: beads 1 to 5 of every ten are open,
/// and of those these have neither. The writes take a fresh one per run.
fn closable(ids: &[String]) -> Vec<&String> {
    ids.iter()
        .enumerate()
        .filter(|(i, _)| (1..=5).contains(&(i % 10)) && i % 50 > 10 && i % 3 != 0)
        .map(|(_, id)| id)
        .collect()
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| {
            let parts: Vec<&str> = l.split_whitespace().take(3).collect();
            format!("load {}", parts.join(" "))
        })
        .unwrap_or_else(|_| "load unknown".into())
}

// ---------------------------------------------------------------------------------------
// Report

/// The figure of a read that finds no index cache and builds it from every document.
const REBUILD: &str = "index rebuild (ready with no cache)";

/// The MCP `ready` call in process, made again with nothing written since.
const MCP_IN_PROCESS: &str = "mcp: ready (in process, the same call again)";

/// The MCP `ready` call in process, after a write by the CLI.
const MCP_AFTER_WRITE: &str = "mcp: ready (in process, after a write)";

/// The MCP `ready` call over a pipe to a running server.
const MCP_PIPE: &str = "mcp: ready (over a pipe to git beads mcp)";

/// The most memory a command may take, at any store size (issue 9: at 100 000 beads).
const PEAK_MB: f64 = 200.0;

/// The figure of a commit in a session's worktree without git-beads' hooks.
const PLAIN_COMMIT: &str = "git commit in a session, no hooks";
/// The same commit with the hooks installed.
const HOOKED_COMMIT: &str = "git commit in a session, with the hooks";
/// A commit in a worktree whose session has ended, without the hooks.
const PLAIN_COMMIT_NO_SESSION: &str = "git commit outside a session, no hooks";
/// The same commit with the hooks installed.
const HOOKED_COMMIT_NO_SESSION: &str = "git commit outside a session, with the hooks";
/// How much slower the hooks may make a commit (issue 17).
const HOOKED_RATIO: f64 = 1.5;

/// The target for a figure, from issue 9, in milliseconds at this size (or a rate).
fn target(name: &str, size: usize) -> Option<(f64, &'static str)> {
    if name == SERVE_BOARD {
        return Some((300.0, "ms"));
    }
    let hot = if size >= 100_000 { 25.0 } else { 10.0 };
    let point = [
        "show",
        "list (default page)",
        "ready",
        "blocked",
        "prime (agent with hook and mail)",
        "mail inbox",
    ];
    if point.contains(&name) || name == "ready (after git gc)" {
        return Some((hot, "ms"));
    }
    if name == "search" {
        return Some((hot, "ms (as a hot read)"));
    }
    if name == MCP_IN_PROCESS || name == MCP_AFTER_WRITE {
        return Some((1.0, "ms"));
    }
    if name.contains("towers-of-hanoi") {
        return Some((20.0, "ms"));
    }
    if name.starts_with("bd: ") {
        return Some((if size >= 100_000 { 10.0 } else { 5.0 }, "ms"));
    }
    if name.starts_with("ready after one write") {
        return Some((if size >= 100_000 { 20.0 } else { hot }, "ms"));
    }
    if ["create", "update", "close", "comment", "sling"].contains(&name) {
        return Some((12.0, "ms"));
    }
    if name.starts_with("session guard") {
        return Some((5.0, "ms"));
    }
    if name.starts_with("sync:") {
        return Some((1500.0, "ms"));
    }
    if name.starts_with("merge:") {
        return Some((3000.0, "ms"));
    }
    if name.starts_with("sign a commit") {
        return Some((3.0, "ms"));
    }
    if name.starts_with("verify ") {
        return Some((2000.0, "ms"));
    }
    if name.starts_with("import the") {
        return Some((2000.0, "ms"));
    }
    if name.starts_with("import") && size >= 100_000 {
        return Some((15_000.0, "ms"));
    }
    None
}

/// The figures as a Markdown table, a row for each with its median as a ratio to
/// git's and its target, then beads_rust's figures beside git-beads' own.
fn report(b: &Bench<'_>) -> String {
    let mut s = String::new();
    let git_rev = git_medians(b, "rev-parse");
    let git_cat = git_medians(b, "cat-file");
    let _ = writeln!(
        s,
        "| beads | tool | figure | p50 ms | min | p90 | max | runs | cpu ms | × git | target | met | peak MiB | note |"
    );
    let _ = writeln!(
        s,
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|:-:|---:|---|"
    );
    for f in &b.figures {
        if f.tool == "size" {
            let _ = writeln!(
                s,
                "| {} | size | {} | | | | | | | | | | | {} |",
                f.size, f.name, f.note
            );
            continue;
        }
        let bulk = f.name.starts_with("list --all")
            || f.name == REBUILD
            || f.name.starts_with("import")
            || f.name.starts_with("sync")
            || f.name.starts_with("merge");
        let (basis, base) = if bulk {
            ("cat-file", git_cat.get(&f.size))
        } else {
            ("rev-parse", git_rev.get(&f.size))
        };
        write_row(&mut s, b, f, basis, base);
    }
    write_beside_br(&mut s, b);
    s
}

/// The medians of git's figures whose names start with `figure`, by store size.
fn git_medians(b: &Bench<'_>, figure: &str) -> BTreeMap<usize, f64> {
    b.figures
        .iter()
        .filter(|f| f.tool == "git" && f.name.starts_with(figure))
        .map(|f| (f.size, f.median()))
        .collect()
}

/// Appends the row of the timed figure `f`: its times, its median as a ratio to
/// git's `basis` figure at the same size (`base`), its goal and whether it met it.
fn write_row(s: &mut String, b: &Bench<'_>, f: &Figure, basis: &str, base: Option<&f64>) {
    let med = f.median();
    let ratio = match (base, f.tool) {
        (_, "git") => String::new(),
        (Some(g), _) if *g > 0.0 => format!("{:.1}× {basis}", med / g),
        _ => String::new(),
    };
    let (goal, met) = goal(b, f, med);
    let _ = writeln!(
        s,
        "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
        f.size,
        f.tool,
        f.name,
        med,
        f.pct(0.0),
        f.pct(90.0),
        f.pct(100.0),
        f.runs.len(),
        f.cpu_ms.map(|c| format!("{c:.1}")).unwrap_or_default(),
        ratio,
        goal,
        met,
        f.peak_kib
            .map(|k| format!("{:.1}", k as f64 / 1024.0))
            .unwrap_or_default(),
        note_with_rate(f, med)
    );
}

/// The goal of figure `f` (median `med`) as the table shows it, and whether it was
/// met: a rate, a peak of memory or a ratio to a commit without the hooks where the
/// figure has one, else its [`target`]; two empty strings where it has none.
fn goal(b: &Bench<'_>, f: &Figure, med: f64) -> (String, String) {
    let hooked_plain = [
        (HOOKED_COMMIT, PLAIN_COMMIT),
        (HOOKED_COMMIT_NO_SESSION, PLAIN_COMMIT_NO_SESSION),
    ];
    if f.name.starts_with("list --all") && f.tool == "git-beads" {
        let rate = per_second(f.items.unwrap_or_default(), med);
        ("≥ 100 000 beads/s".to_owned(), mark(rate >= 100_000.0))
    } else if f.name == REBUILD {
        let mb = f.peak_kib.unwrap_or_default() as f64 * 1024.0 / 1e6;
        (format!("peak ≤ {PEAK_MB} MB"), mark(mb <= PEAK_MB))
    } else if let Some(plain_name) = hooked_plain
        .iter()
        .find(|(hooked, _)| f.name == *hooked)
        .map(|(_, plain)| *plain)
    {
        let plain = b
            .figures
            .iter()
            .find(|p| p.size == f.size && p.name == plain_name)
            .map_or(f64::NAN, Figure::median);
        let ratio = med / plain;
        (
            format!("≤ {HOOKED_RATIO}× without hooks ({ratio:.2}×)"),
            mark(ratio <= HOOKED_RATIO),
        )
    } else if f.name.starts_with("20 concurrent") {
        let rate = per_second(f.items.unwrap_or_default(), med);
        ("≥ 150 ops/s".to_owned(), mark(rate >= 150.0))
    } else {
        match (f.tool, target(&f.name, f.size)) {
            ("git-beads", Some((t, unit))) => (format!("≤ {t} {unit}"), mark(med <= t)),
            _ => (String::new(), String::new()),
        }
    }
}

/// The note of figure `f` (median `med`), and, where it counts items and is not
/// git's, how many and how many a second.
fn note_with_rate(f: &Figure, med: f64) -> String {
    let mut note = f.note.clone();
    if let Some(items) = f.items
        && f.tool != "git"
    {
        let rate = per_second(items, med);
        if !note.is_empty() {
            note.push_str("; ");
        }
        let _ = write!(note, "{items} items, {:.0}/s", rate);
    }
    note
}

/// How many a second `items` handled in `ms` milliseconds is.
fn per_second(items: usize, ms: f64) -> f64 {
    items as f64 / (ms / 1e3)
}

/// The table's mark for a goal met (`✓`) or missed (`✗`).
fn mark(met: bool) -> String {
    if met { "✓" } else { "✗" }.to_owned()
}

/// Appends a table of beads_rust's figures, each beside git-beads' figure of the
/// same name and size, when there are any.
fn write_beside_br(s: &mut String, b: &Bench<'_>) {
    let brs: Vec<&Figure> = b.figures.iter().filter(|f| f.tool == "br").collect();
    if brs.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n| beads | figure | git-beads p50 ms | br p50 ms | faster |"
    );
    let _ = writeln!(s, "|---:|---|---:|---:|:-:|");
    for br in brs {
        if let Some(gb) = b
            .figures
            .iter()
            .find(|f| f.tool == "git-beads" && f.size == br.size && f.name == br.name)
        {
            let (g, r) = (gb.median(), br.median());
            let _ = writeln!(
                s,
                "| {} | {} | {:.2} | {:.2} | {} {:.1}× |",
                br.size,
                br.name,
                g,
                r,
                mark(g < r),
                r / g
            );
        }
    }
}

fn json(b: &Bench<'_>) -> serde_json::Value {
    let figures: Vec<serde_json::Value> = b
        .figures
        .iter()
        .map(|f| {
            serde_json::json!({
                "size": f.size,
                "tool": f.tool,
                "name": f.name,
                "runs_ms": f.runs.iter().map(|d| d.as_secs_f64() * 1e3).collect::<Vec<_>>(),
                "p50_ms": f.median(),
                "min_ms": f.pct(0.0),
                "p90_ms": f.pct(90.0),
                "max_ms": f.pct(100.0),
                "peak_kib": f.peak_kib,
                "cpu_ms": f.cpu_ms,
                "items": f.items,
                "note": f.note,
            })
        })
        .collect();
    serde_json::json!({ "version": 1, "figures": figures })
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Res<()> {
    let o = Opts::parse()?;
    std::fs::create_dir_all(&o.work)?;
    let scratch = o.work.join("scratch");
    std::fs::create_dir_all(&scratch)?;
    let git_version = git(&o.work, &["--version"])?;
    eprintln!(
        "git-beads bench: {} ; {} ; {} cores ; {} ; binary {}",
        git_version.trim(),
        cpu_model(),
        std::thread::available_parallelism().map_or(0, usize::from),
        load(),
        o.bin.display()
    );
    match (&o.br, o.skips("br")) {
        (_, true) => eprintln!("beads_rust: skipped (--no-br)"),
        (None, false) => eprintln!(
            "beads_rust: SKIPPED: no `br` on PATH and no --br PATH (cargo install beads_rust --root DIR)"
        ),
        (Some(p), false) => eprintln!("beads_rust: {}", p.display()),
    }
    let mut b = Bench {
        o: &o,
        figures: Vec::new(),
        scratch,
    };
    if !o.skips("import") {
        b.fixture()?;
    }
    if !o.skips("formulas") {
        b.formulas()?;
    }
    if !o.skips("signing") {
        b.signing()?;
    }
    for &n in &o.sizes {
        b.size(n)?;
    }
    let table = report(&b);
    println!("\n{table}");
    let out = o.out.clone().unwrap_or_else(|| o.work.join("results.json"));
    let mut f = std::fs::File::create(&out)?;
    f.write_all(serde_json::to_string_pretty(&json(&b))?.as_bytes())?;
    std::fs::write(out.with_extension("md"), &table)?;
    eprintln!(
        "results: {} and {}",
        out.display(),
        out.with_extension("md").display()
    );
    Ok(())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
