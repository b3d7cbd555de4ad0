//! `git beads query`: bd's query language over every bead and wisp.

use super::list::ListSort;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::query::{Query, QueryError, parse};
use crate::ops::{self, QueryOptions, QuerySort};

/// Arguments of `query`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = GRAMMAR)]
pub struct Args {
    /// The query (several words are joined by spaces), e.g. `status=open AND
    /// priority<=1`.
    pub query: Vec<String>,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
    /// Include closed beads when the query names no status.
    #[arg(short, long)]
    pub all: bool,
    /// The order (default: highest priority first, then newest).
    #[arg(long, value_enum)]
    pub sort: Option<ListSort>,
    /// Reverse the order.
    #[arg(short, long)]
    pub reverse: bool,
    /// Several lines per bead: its assignee and labels too.
    #[arg(long)]
    pub long: bool,
    /// Print how the query was read (its tree), and nothing else.
    #[arg(long = "parse-only")]
    pub parse_only: bool,
}

/// What the manual says after the options: the grammar, as bd documents it.
const GRAMMAR: &str = "\
A query compares fields: FIELD=VALUE, !=, <, <=, >, >=; joins comparisons with AND \
and OR (case-insensitive; NOT binds tightest, then AND, then OR) and groups them \
with parentheses. A value is a word, a number, a quoted string, or a time.

Fields: status, priority (0-4), type, assignee and label (`none` for nobody / no \
labels), owner, title, description and notes (contain the text, ignoring case; \
description=none for empty), created, updated, closed, started (a time: 7d, 24h, 2w, \
3m and 1y ago, a date in quotes, an RFC 3339 time, today, yesterday, tomorrow; = \
compares the day), id and spec (a trailing * matches a prefix), pinned, ephemeral and \
template (true or false), parent, mol_type (swarm, patrol, work), metadata.KEY=VALUE, \
has_metadata_key=KEY.

Closed beads are left out unless --all is given or the query names a status. Wisps \
(ephemeral=true) are searched with the rest.

Examples:
  git beads query 'status=open AND priority<=1'
  git beads query '(status=open OR status=blocked) AND updated>7d'
  git beads query 'ephemeral=true AND label=gt:merge-request AND NOT assignee=none'";

impl From<ListSort> for QuerySort {
    fn from(s: ListSort) -> Self {
        match s {
            ListSort::Priority => QuerySort::Priority,
            ListSort::Created => QuerySort::Created,
            ListSort::Updated => QuerySort::Updated,
            ListSort::Closed => QuerySort::Closed,
            ListSort::Status => QuerySort::Status,
            ListSort::Id => QuerySort::Id,
            ListSort::Title => QuerySort::Title,
            ListSort::Type => QuerySort::Type,
            ListSort::Assignee => QuerySort::Assignee,
        }
    }
}

/// Runs `query`.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let text = args.query.join(" ");
    if text.trim().is_empty() {
        return Err(CliError::user("query expression is required"));
    }
    let bad = |e: QueryError| CliError::user(format!("parsing query: {e}"));
    if args.parse_only {
        let tree = parse(&text).map_err(bad)?;
        return out.line(format!("Parsed query: {tree}"));
    }
    let q = Query::parse(&text, ops::now()).map_err(bad)?;
    let opts = QueryOptions {
        all: args.all,
        limit: args.limit,
        sort: args.sort.map(QuerySort::from).unwrap_or_default(),
        reverse: args.reverse,
    };
    let beads = ops::query(&ctx.store, &q, opts)?;
    if out.json {
        return super::print_beads(ctx, out, beads);
    }
    if beads.is_empty() {
        out.note(format!("no beads match: {text}"));
        return Ok(());
    }
    let mut line = String::new();
    let width = crate::cli::output::id_column(beads.iter().map(|b| b.id.as_str()));
    for b in &beads {
        line.clear();
        line.push_str(&format!(
            "{:width$} P{} {:11} {:8} ",
            b.id.as_str(),
            b.priority,
            b.status.as_str(),
            b.kind.as_str()
        ));
        line.push_str(&b.title);
        if !args.long {
            if let Some(a) = &b.assignee {
                line.push_str(" @");
                line.push_str(a);
            }
            out.line(&line)?;
            continue;
        }
        out.line(&line)?;
        let labels: Vec<&str> = b.labels.iter().map(String::as_str).collect();
        for (what, text) in [
            ("assignee", b.assignee.as_deref().unwrap_or_default()),
            ("labels", &labels.join(", ")),
        ] {
            if !text.is_empty() {
                out.line(format!("    {what}: {text}"))?;
            }
        }
    }
    Ok(())
}
