//! `git beads sql`: bd's read-only SQL over its schema.

use crate::cli::{Ctx, error::CliError, output::Out};
use crate::ops;

/// Arguments of `sql`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The query: one SELECT (or WITH … SELECT) over bd's tables (issues,
    /// dependencies, labels, comments, events, config, wisps, wisp_labels,
    /// wisp_dependencies, wisp_comments, wisp_events).
    pub query: String,
    /// Print the rows as CSV, a header line first.
    #[arg(long)]
    pub csv: bool,
}

/// Runs `sql`: the rows as a table, CSV, or (`--json`) bd's array of objects.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let answer = ops::sql(&ctx.store, &args.query)?;
    if out.json {
        return out.json_list(&crate::wire::SqlRows(&answer));
    }
    if args.csv {
        out.line(csv_line(answer.columns.iter().map(String::as_str)))?;
        for row in &answer.rows {
            let cells: Vec<String> = row.iter().map(shown).collect();
            out.line(csv_line(cells.iter().map(String::as_str)))?;
        }
        return Ok(());
    }
    table(&answer, out)
}

/// A cell as bd prints it in CSV and tables (Go's `%v`: NULL is `<nil>`).
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "<nil>".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One CSV record, quoted as Go's `encoding/csv` quotes.
fn csv_line<'a>(cells: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = cells
        .map(|c| {
            let needs = c.contains([',', '"', '\n', '\r']) || c.starts_with(' ');
            match needs {
                true => format!("\"{}\"", c.replace('"', "\"\"")),
                false => c.to_owned(),
            }
        })
        .collect();
    quoted.join(",")
}

/// bd's table: columns padded (60 characters at most), a rule, the rows, the count.
fn table(answer: &ops::SqlAnswer, out: &mut Out) -> Result<(), CliError> {
    if answer.rows.is_empty() {
        return out.line("(0 rows)");
    }
    const WIDEST: usize = 60;
    let rows: Vec<Vec<String>> = answer
        .rows
        .iter()
        .map(|r| r.iter().map(shown).collect())
        .collect();
    let widths: Vec<usize> = (0..answer.columns.len())
        .map(|i| {
            let cells = rows.iter().map(|r| r[i].chars().count());
            cells
                .chain([answer.columns[i].chars().count()])
                .max()
                .unwrap_or(0)
                .min(WIDEST)
        })
        .collect();
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| {
                let c = match c.chars().count() > WIDEST {
                    true => format!("{}...", c.chars().take(WIDEST - 3).collect::<String>()),
                    false => c.clone(),
                };
                format!("{c:<w$}")
            })
            .collect();
        padded.join(" | ")
    };
    out.line(line(&answer.columns))?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.line(rule.join("-+-"))?;
    for r in &rows {
        out.line(line(r))?;
    }
    out.line(format!("({} rows)", rows.len()))
}
