//! The fleet benchmark (issue 24): clones of one local bare remote, all at once, each
//! doing rounds of `sync; ready --claim --remote origin; create; sync` with the
//! release binary as real processes; then, on an idle remote, a sync with nothing to
//! do and a remote-confirmed claim.
//!
//! ```text
//! cargo build --release
//! cargo bench --bench fleet                                   # 1, 10 and 20 clones × 5 rounds
//! cargo bench --bench fleet -- --clones 1,10,20,50 --rounds 10,10,10,2
//! cargo bench --bench fleet -- --baseline-bin /tmp/old/target/release/git-beads
//! ```
//!
//! It prints figures and never fails on a slow one: total wall time, syncs/s,
//! acknowledged claims/s, the median and maximum of one sync, failed syncs, beads
//! acknowledged to two claimers, the beads refs the remote advertises right after the
//! run, before and after `git beads remote prune`, and whether every clone holds the
//! same tree with every bead after a final round of syncs. With `--baseline-bin`, another
//! build (an older design) runs the same workload right after each fleet, clone count
//! by clone count, and gets a table of its own. Stores are built under a scratch
//! directory (default `$TMPDIR/git-beads-fleet`), never in the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, String>;

const USAGE: &str = "\
cargo bench --bench fleet -- [--clones 1,10,20] [--rounds 5 | --rounds 10,10,2]
                             [--idle-runs 20] [--bin PATH] [--baseline-bin PATH]
                             [--work DIR]";

/// What the command line asked for.
struct Opts {
    clones: Vec<usize>,
    /// Rounds per clone count: one value for all, or one per count.
    rounds: Vec<usize>,
    idle_runs: usize,
    bin: PathBuf,
    baseline: Option<PathBuf>,
    work: PathBuf,
}

impl Opts {
    /// The rounds each clone of a fleet of the `i`th clone count does.
    fn rounds_at(&self, i: usize) -> usize {
        self.rounds
            .get(i)
            .or(self.rounds.last())
            .copied()
            .unwrap_or(5)
    }
}

/// A comma-separated list of numbers.
fn numbers(flag: &str, text: &str) -> Res<Vec<usize>> {
    text.split(',')
        .map(|n| n.parse().map_err(|e| format!("{flag} {n}: {e}")))
        .collect()
}

fn opts() -> Res<Opts> {
    let mut o = Opts {
        clones: vec![1, 10, 20],
        rounds: vec![5],
        idle_runs: 20,
        bin: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/git-beads"),
        baseline: None,
        work: std::env::temp_dir().join("git-beads-fleet"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value\n{USAGE}"));
        match a.as_str() {
            "--clones" => o.clones = numbers("--clones", &value()?)?,
            "--rounds" => o.rounds = numbers("--rounds", &value()?)?,
            "--idle-runs" => {
                o.idle_runs = value()?.parse().map_err(|e| format!("--idle-runs: {e}"))?
            }
            "--bin" => o.bin = PathBuf::from(value()?),
            "--baseline-bin" => o.baseline = Some(PathBuf::from(value()?)),
            "--work" => o.work = PathBuf::from(value()?),
            // cargo bench passes this to every bench target.
            "--bench" => {}
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if !o.bin.exists() {
        return Err(format!(
            "{} is missing: run `cargo build --release` first, or pass --bin",
            o.bin.display()
        ));
    }
    if let Some(b) = o.baseline.as_ref().filter(|b| !b.exists()) {
        return Err(format!("--baseline-bin {} is missing", b.display()));
    }
    Ok(o)
}

/// A command in an empty environment but PATH, with no global or system git config.
fn command(program: &Path, home: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("TZ", "UTC")
        .current_dir(cwd)
        .stdin(Stdio::null());
    c
}

/// Where the work happens: the binary and the scratch directory (removed when done).
struct Env<'o> {
    bin: &'o Path,
    dir: PathBuf,
}

impl<'o> Env<'o> {
    /// A fresh scratch directory `name` under the work directory.
    fn new(o: &Opts, bin: &'o Path, name: &str) -> Res<Env<'o>> {
        let dir = o.work.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Env { bin, dir })
    }

    /// A bare remote with a code commit on `main`, and a clone `name` (identity `user`)
    /// that made the store (prefix `bd`) and has not pushed it yet.
    fn remote_with_store(&self, name: &str, user: &str) -> Res<(PathBuf, PathBuf)> {
        let remote = self.dir.join("remote.git");
        let r = remote.display().to_string();
        self.git(&self.dir, &["init", "-q", "--bare", "-b", "main", &r])?;
        let c = self.clone(&remote, name, user)?;
        std::fs::write(c.join("README"), "code\n").map_err(|e| e.to_string())?;
        self.git(&c, &["add", "README"])?;
        self.git(&c, &["commit", "-q", "-m", "code"])?;
        self.git(&c, &["push", "-q", "origin", "HEAD:main"])?;
        self.beads(&c, &["init", "--prefix", "bd"])?;
        Ok((remote, c))
    }

    fn run(&self, program: &Path, cwd: &Path, args: &[&str]) -> Res<Output> {
        command(program, &self.dir, cwd)
            .args(args)
            .output()
            .map_err(|e| format!("{}: {e}", program.display()))
    }

    fn ok(&self, program: &Path, cwd: &Path, args: &[&str]) -> Res<String> {
        let out = self.run(program, cwd, args)?;
        if !out.status.success() {
            return Err(format!(
                "{} {args:?} in {}: {}",
                program.display(),
                cwd.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn git(&self, cwd: &Path, args: &[&str]) -> Res<String> {
        self.ok(Path::new("git"), cwd, args)
    }

    fn beads(&self, cwd: &Path, args: &[&str]) -> Res<String> {
        self.ok(self.bin, cwd, args)
    }

    /// A clone of `remote` at `name`, identity `user`, that adopted its store.
    fn clone(&self, remote: &Path, name: &str, user: &str) -> Res<PathBuf> {
        let path = self.dir.join(name);
        let (r, p) = (remote.display().to_string(), path.display().to_string());
        self.git(&self.dir, &["clone", "-q", &r, &p])?;
        self.git(&path, &["config", "user.name", user])?;
        self.git(
            &path,
            &["config", "user.email", &format!("{user}@example.com")],
        )?;
        Ok(path)
    }

    /// The refs the remote advertises, as "all (replicas, claims)".
    fn advertised(&self, remote: &Path) -> Res<String> {
        let listed = self.git(&self.dir, &["ls-remote", &remote.display().to_string()])?;
        let count = |what: &str| listed.lines().filter(|l| l.contains(what)).count();
        Ok(format!(
            "{} ({} replica, {} claim)",
            listed.lines().count(),
            count("refs/beads/replicas/"),
            count("refs/beads/claims/")
        ))
    }
}

/// What one clone's loop saw.
#[derive(Default)]
struct Tally {
    syncs: Vec<Duration>,
    /// The first line of each failed sync's error, to tell why syncs failed.
    failures: Vec<String>,
    /// Syncs that ran out of time while merging, published their own head and left
    /// fetched heads to the next sync (exit 0, saying so on stderr).
    late: usize,
    claimed: Vec<String>,
}

fn median(d: &mut [Duration]) -> Duration {
    d.sort();
    d.get(d.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

impl Drop for Env<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One fleet of `n` clones of `bin`, each doing `rounds` rounds: its figures as a
/// table row, and the remote's refs.
fn fleet(o: &Opts, bin: &Path, n: usize, rounds: usize) -> Res<String> {
    let env = Env::new(o, bin, &format!("fleet-{n}"))?;
    let (remote, first) = env.remote_with_store("c0", "agent0")?;
    for i in 0..n * rounds {
        env.beads(&first, &["create", &format!("seed {i}")])?;
    }
    env.beads(&first, &["sync"])?;
    let mut clones = vec![first];
    for i in 1..n {
        let c = env.clone(&remote, &format!("c{i}"), &format!("agent{i}"))?;
        env.beads(&c, &["sync"])?;
        clones.push(c);
    }
    let start = std::sync::Barrier::new(n);
    let began = Instant::now();
    let tallies: Vec<Res<Tally>> = std::thread::scope(|s| {
        let handles: Vec<_> = clones
            .iter()
            .enumerate()
            .map(|(who, c)| {
                let (env, start) = (&env, &start);
                s.spawn(move || -> Res<Tally> {
                    start.wait();
                    let mut t = Tally::default();
                    let sync = |t: &mut Tally| -> Res<()> {
                        let at = Instant::now();
                        let out = env.run(bin, c, &["sync"])?;
                        t.syncs.push(at.elapsed());
                        let err = String::from_utf8_lossy(&out.stderr);
                        if !out.status.success() {
                            t.failures.push(err.lines().next().unwrap_or("").to_owned());
                        } else if err.contains("not merged yet") {
                            t.late += 1;
                        }
                        Ok(())
                    };
                    for round in 0..rounds {
                        sync(&mut t)?;
                        let out = env.run(bin, c, &["ready", "--claim", "--remote", "origin"])?;
                        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                        if out.status.success() && !id.is_empty() {
                            t.claimed.push(id);
                        }
                        env.beads(c, &["create", &format!("clone {who} round {round}")])?;
                        sync(&mut t)?;
                    }
                    Ok(t)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a clone's thread panicked".into()))
            })
            .collect()
    });
    let wall = began.elapsed();
    let tallies = tallies.into_iter().collect::<Res<Vec<_>>>()?;
    let mut syncs: Vec<Duration> = tallies.iter().flat_map(|t| t.syncs.clone()).collect();
    let failed: usize = tallies.iter().map(|t| t.failures.len()).sum();
    let late: usize = tallies.iter().map(|t| t.late).sum();
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for line in tallies.iter().flat_map(|t| &t.failures) {
        *why.entry(line).or_default() += 1;
    }
    for (line, k) in why {
        eprintln!("{n} clones: {k} syncs failed with: {line}");
    }
    let mut holders: BTreeMap<&str, usize> = BTreeMap::new();
    for id in tallies.iter().flat_map(|t| &t.claimed) {
        *holders.entry(id).or_default() += 1;
    }
    let claims: usize = holders.values().sum();
    let doubled = holders.values().filter(|&&k| k > 1).count();
    let before = env.advertised(&remote)?;
    // A design without `remote prune` has nothing to prune.
    let pruned = env
        .beads(&clones[0], &["remote", "prune", "--json"])
        .ok()
        .and_then(|p| serde_json::from_str::<serde_json::Value>(&p).ok())
        .and_then(|v| v["removed"].as_array().map(|r| r.len().to_string()))
        .unwrap_or_else(|| "(no prune)".into());
    let after = env.advertised(&remote)?;
    let converged = converged(&env, &clones, 2 * n * rounds)?;
    let max = syncs.iter().max().copied().unwrap_or_default();
    let count = syncs.len();
    let secs = wall.as_secs_f64();
    Ok(format!(
        "| {n} × {rounds} | {:.1} s | {count} ({failed} failed, {late} left heads to the next) | {:.1} | {claims} ({doubled} doubled) | {:.2} | {} | {} | {converged} | {before} | {pruned} | {after} |",
        secs,
        count as f64 / secs,
        claims as f64 / secs,
        ms(median(&mut syncs)),
        ms(max),
    ))
}

/// After a final round (every clone syncs in turn, twice, so the first ones get the
/// last ones' work): "yes" when every clone holds the same tree with all `beads`
/// beads, else what differs.
fn converged(env: &Env<'_>, clones: &[PathBuf], beads: usize) -> Res<String> {
    let mut failed = 0;
    for _ in 0..2 {
        for c in clones {
            if !env.run(env.bin, c, &["sync"])?.status.success() {
                failed += 1;
            }
        }
    }
    let mut trees = std::collections::BTreeSet::new();
    for c in clones {
        trees.insert(env.git(c, &["rev-parse", "refs/beads/main^{tree}"])?);
    }
    let held = env
        .git(
            &clones[0],
            &["ls-tree", "-r", "--name-only", "refs/beads/main", "beads/"],
        )?
        .lines()
        .count();
    Ok(match (trees.len(), held == beads, failed) {
        (1, true, 0) => "yes".into(),
        (t, _, f) => format!("no: {t} trees, {held} of {beads} beads, {f} failed syncs"),
    })
}

/// On an idle remote: the median of `runs` syncs with nothing to do, and of `runs`
/// remote-confirmed claims.
fn idle(o: &Opts) -> Res<String> {
    let env = Env::new(o, &o.bin, "idle")?;
    let (_, c) = env.remote_with_store("c", "agent")?;
    let ids: Vec<String> = (0..o.idle_runs)
        .map(|i| {
            env.beads(&c, &["create", &format!("job {i}")])
                .map(|s| s.trim().to_owned())
        })
        .collect::<Res<_>>()?;
    env.beads(&c, &["sync"])?;
    let mut noop = Vec::new();
    for _ in 0..o.idle_runs {
        let at = Instant::now();
        env.beads(&c, &["sync"])?;
        noop.push(at.elapsed());
    }
    let mut claim = Vec::new();
    for id in &ids {
        let at = Instant::now();
        env.beads(&c, &["update", id, "--claim", "--remote", "origin"])?;
        claim.push(at.elapsed());
    }
    let (nmax, cmax) = (noop.iter().max().copied(), claim.iter().max().copied());
    Ok(format!(
        "| sync with nothing to do | {} | {} |\n| remote-confirmed claim (`update --claim --remote`) | {} | {} |",
        ms(median(&mut noop)),
        ms(nmax.unwrap_or_default()),
        ms(median(&mut claim)),
        ms(cmax.unwrap_or_default()),
    ))
}

fn main() {
    let o = match opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut designs = vec![("this build", o.bin.clone())];
    designs.extend(o.baseline.clone().map(|b| ("baseline", b)));
    // Each clone count runs every design in turn, so both see the same load.
    let mut rows: Vec<Vec<String>> = vec![Vec::new(); designs.len()];
    for (i, &n) in o.clones.iter().enumerate() {
        let rounds = o.rounds_at(i);
        for ((label, bin), rows) in designs.iter().zip(&mut rows) {
            let row = fleet(&o, bin, n, rounds)
                .unwrap_or_else(|e| format!("| {n} × {rounds} | failed: {e} |"));
            eprintln!("{label}: {row}");
            rows.push(row);
        }
    }
    for ((label, bin), rows) in designs.iter().zip(rows) {
        println!("\n{label}: {}\n", bin.display());
        println!(
            "| clones × rounds | wall | syncs | syncs/s | claims acknowledged | claims/s | median sync | max sync | converged | refs advertised after the run | replica refs pruned | refs after prune |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for row in rows {
            println!("{row}");
        }
    }
    println!(
        "\nOn an idle remote ({}), {} runs each:\n",
        o.bin.display(),
        o.idle_runs
    );
    println!("| operation | median | max |\n|---|---|---|");
    match idle(&o) {
        Ok(rows) => println!("{rows}"),
        Err(e) => println!("| failed: {e} | | |"),
    }
}
