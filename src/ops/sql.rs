//! bd's `sql`: read-only SQL over bd's schema, answered by an embedded SQLite.
//!
//! The store is not a database, so a query runs against an in-memory SQLite database
//! holding bd's tables (`issues`, `dependencies`, `labels`, `comments`, `events`,
//! `config`, and the wisps' `wisps`, `wisp_labels`, `wisp_dependencies`,
//! `wisp_comments`, `wisp_events`) with bd's columns. Only the tables the query reads
//! are filled: SQLite's authorizer names them (and their columns) while the query is
//! prepared, and it refuses anything but reading, so a write statement fails before
//! it runs and nothing here could write the store anyway. `issues` is filled from the
//! index alone when the query reads only the columns the index keeps (id, title,
//! status, priority, type, assignee, times): `SELECT COUNT(*) FROM issues` reads no
//! document.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::Value as Cell;
use serde_json::Value;

use super::{OpError, Result, SqlError};
use crate::model::{Bead, BeadId, Status, Timestamp};
use crate::store::refs;
use crate::store::{Store, View};

/// What a query answered: its columns, and its rows as JSON values (numbers,
/// strings, null), in order.
#[derive(Clone, Debug, Default)]
pub struct SqlAnswer {
    /// The columns' names.
    pub columns: Vec<String>,
    /// The rows, each a value per column.
    pub rows: Vec<Vec<Value>>,
}

/// bd's columns of `issues` (and `wisps`), in its order.
const ISSUE_COLUMNS: [&str; 51] = [
    "id",
    "content_hash",
    "title",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "estimated_minutes",
    "created_at",
    "created_by",
    "owner",
    "updated_at",
    "closed_at",
    "closed_by_session",
    "external_ref",
    "spec_id",
    "compaction_level",
    "compacted_at",
    "compacted_at_commit",
    "original_size",
    "sender",
    "ephemeral",
    "wisp_type",
    "pinned",
    "is_template",
    "mol_type",
    "work_type",
    "source_system",
    "metadata",
    "source_repo",
    "close_reason",
    "event_kind",
    "actor",
    "target",
    "payload",
    "await_type",
    "await_id",
    "timeout_ns",
    "waiters",
    "hook_bead",
    "role_bead",
    "agent_state",
    "last_activity",
    "role_type",
    "rig",
    "due_at",
    "defer_until",
];

/// The columns of `issues` the index keeps: a query reading no others is answered
/// without reading documents.
const INDEXED: [&str; 8] = [
    "id",
    "title",
    "status",
    "priority",
    "issue_type",
    "assignee",
    "created_at",
    "updated_at",
];

/// Columns that are NULL when the bead has no value (the others are `''` or 0).
const NULLABLE: [&str; 12] = [
    "content_hash",
    "assignee",
    "estimated_minutes",
    "closed_at",
    "external_ref",
    "spec_id",
    "compacted_at",
    "compacted_at_commit",
    "original_size",
    "last_activity",
    "due_at",
    "defer_until",
];

/// Integer columns: 0 when the bead has no value (unless nullable).
const INTEGERS: [&str; 7] = [
    "priority",
    "estimated_minutes",
    "compaction_level",
    "original_size",
    "ephemeral",
    "pinned",
    "is_template",
];

/// The columns of `events` and `wisp_events`.
const EVENT_COLUMNS: [&str; 8] = [
    "id",
    "issue_id",
    "event_type",
    "actor",
    "old_value",
    "new_value",
    "comment",
    "created_at",
];

/// The columns of `comments` and `wisp_comments`.
const COMMENT_COLUMNS: [&str; 5] = ["id", "issue_id", "author", "text", "created_at"];

/// bd's other tables: name and columns.
const OTHER_TABLES: [(&str, &[&str]); 9] = [
    (
        "dependencies",
        &[
            "issue_id",
            "depends_on_id",
            "type",
            "created_at",
            "created_by",
            "metadata",
            "thread_id",
        ],
    ),
    ("labels", &["issue_id", "label"]),
    ("comments", &COMMENT_COLUMNS),
    ("events", &EVENT_COLUMNS),
    ("config", &["key", "value"]),
    ("wisp_labels", &["issue_id", "label"]),
    (
        "wisp_dependencies",
        &[
            "id",
            "issue_id",
            "depends_on_issue_id",
            "depends_on_wisp_id",
            "depends_on_external",
            "type",
            "created_at",
            "created_by",
            "metadata",
            "thread_id",
        ],
    ),
    ("wisp_comments", &COMMENT_COLUMNS),
    ("wisp_events", &EVENT_COLUMNS),
];

/// Runs read-only `query` over bd's tables as the store holds them.
pub fn sql(store: &Store, query: &str) -> Result<SqlAnswer> {
    let main = store.view()?;
    let mut db = rusqlite::Connection::open_in_memory().map_err(query_err)?;
    db.execute_batch(&schema()).map_err(query_err)?;
    let reads = reads_of(&mut db, query)?;
    fill(&db, store, &main, &reads)?;
    db.authorizer(Some(read_only)).map_err(query_err)?;
    let mut stmt = db.prepare(query).map_err(refusal)?;
    let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let width = columns.len();
    let mut rows = Vec::new();
    let mut result = stmt.query([]).map_err(query_err)?;
    while let Some(row) = result.next().map_err(query_err)? {
        let mut out = Vec::with_capacity(width);
        for i in 0..width {
            out.push(json_of(row.get::<_, Cell>(i).map_err(query_err)?));
        }
        rows.push(out);
    }
    Ok(SqlAnswer { columns, rows })
}

/// The `CREATE TABLE`s of bd's tables, empty.
fn schema() -> String {
    let mut out = String::new();
    for table in ["issues", "wisps"] {
        out.push_str(&create(table, &ISSUE_COLUMNS));
    }
    for (table, columns) in OTHER_TABLES {
        out.push_str(&create(table, columns));
    }
    out
}

fn create(table: &str, columns: &[&str]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| format!("\"{c}\"")).collect();
    format!("CREATE TABLE \"{table}\" ({});\n", cols.join(", "))
}

/// Which tables (and columns of each) `query` reads, as SQLite's authorizer reports
/// while preparing it; a query that would do anything but read is refused here.
fn reads_of(
    db: &mut rusqlite::Connection,
    query: &str,
) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(BTreeMap::new()));
    let record = std::sync::Arc::clone(&seen);
    db.authorizer(Some(move |ctx: AuthContext<'_>| {
        if let AuthAction::Read {
            table_name,
            column_name,
        } = ctx.action
        {
            let mut record = record
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            record
                .entry(table_name.to_owned())
                .or_insert_with(BTreeSet::new)
                .insert(column_name.to_owned());
        }
        read_only(ctx)
    }))
    .map_err(query_err)?;
    let prepared = db.prepare(query).map(|_| ()).map_err(refusal);
    db.authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
        .map_err(query_err)?;
    prepared?;
    let reads = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    Ok(reads)
}

/// SQLite's authorizer that lets a statement read and nothing else.
fn read_only(ctx: AuthContext<'_>) -> Authorization {
    match ctx.action {
        AuthAction::Select
        | AuthAction::Read { .. }
        | AuthAction::Function { .. }
        | AuthAction::Recursive => Authorization::Allow,
        _ => Authorization::Deny,
    }
}

/// The error of a statement that did not prepare: a write refused, or SQLite's own.
fn refusal(e: rusqlite::Error) -> OpError {
    let text = e.to_string();
    if text.contains("not authorized") {
        SqlError::Write("only SELECT (and WITH … SELECT) statements run".into()).into()
    } else {
        SqlError::Query(text).into()
    }
}

fn query_err(e: rusqlite::Error) -> OpError {
    SqlError::Query(e.to_string()).into()
}

/// Fills the tables of `reads` from the store.
fn fill(
    db: &rusqlite::Connection,
    store: &Store,
    main: &View<'_>,
    reads: &BTreeMap<String, BTreeSet<String>>,
) -> Result<()> {
    let wants = |t: &str| reads.contains_key(t);
    let tx = db.unchecked_transaction().map_err(query_err)?;
    let issues_from_index = reads.get("issues").is_some_and(|cols| {
        cols.iter()
            .all(|c| c.is_empty() || INDEXED.contains(&c.as_str()))
    });
    let main_docs = ["issues", "dependencies", "labels", "comments"]
        .iter()
        .any(|t| wants(t) && !(*t == "issues" && issues_from_index));
    if let Some(read) = reads.get("issues").filter(|_| issues_from_index) {
        fill_from_index(&tx, store, read)?;
    }
    if main_docs {
        let beads = beads_of(main)?;
        if wants("issues") && !issues_from_index {
            insert_issues(&tx, "issues", &beads)?;
        }
        insert_links(&tx, "", &beads, &BTreeSet::new(), reads)?;
    }
    let wisp_tables = ["wisps", "wisp_labels", "wisp_dependencies", "wisp_comments"];
    if wisp_tables.iter().any(|t| wants(t)) {
        let wisps = beads_of(&store.view_of(refs::WISPS)?)?;
        let ids: BTreeSet<&BeadId> = wisps.iter().map(|b| &b.id).collect();
        if wants("wisps") {
            insert_issues(&tx, "wisps", &wisps)?;
        }
        insert_links(&tx, "wisp_", &wisps, &ids, reads)?;
    }
    if wants("config") {
        let mut settings = main.settings()?;
        settings.insert("issue_prefix".into(), main.meta()?.prefix.to_string());
        let mut put = tx
            .prepare("INSERT INTO config VALUES (?1, ?2)")
            .map_err(query_err)?;
        for (k, v) in &settings {
            put.execute([k, v]).map_err(query_err)?;
        }
    }
    tx.commit().map_err(query_err)
}

/// Every live bead `view` holds (tombstones aside), by id, read in one pass over its
/// tree (a document that does not parse is left out, as `list` leaves it).
fn beads_of(view: &View<'_>) -> Result<Vec<Bead>> {
    let Some(head) = view.head() else {
        return Ok(Vec::new());
    };
    let (mut beads, _) = view.store().all_beads(head)?;
    beads.retain(|b| b.status != Status::Deleted);
    Ok(beads)
}

/// `issues` from the index's rows: the table is made again with only the id and the
/// indexed columns the query reads (`read`), so that each row costs what it holds.
fn fill_from_index(
    tx: &rusqlite::Transaction<'_>,
    store: &Store,
    read: &BTreeSet<String>,
) -> Result<()> {
    let head = store.require_head()?;
    let index = store.index(&head)?;
    let filled: Vec<&str> = INDEXED
        .into_iter()
        .filter(|c| *c == "id" || read.contains(*c))
        .collect();
    tx.execute_batch(&format!("DROP TABLE issues; {}", create("issues", &filled)))
        .map_err(query_err)?;
    let rows = (index.rows())
        .filter(|r| r.status() != Status::Deleted)
        .map(|r| {
            (filled.iter())
                .map(|c| match *c {
                    "title" => Cell::Text(r.title().to_owned()),
                    "status" => Cell::Text(r.status().as_str().to_owned()),
                    "priority" => Cell::Integer(i64::from(r.priority())),
                    "issue_type" => Cell::Text(r.kind().as_str().to_owned()),
                    "assignee" => r
                        .assignee()
                        .map_or(Cell::Null, |a| Cell::Text(a.to_owned())),
                    "created_at" => Cell::Text(time(&r.created_at())),
                    "updated_at" => Cell::Text(time(&r.updated_at())),
                    _ => Cell::Text(r.id().to_owned()),
                })
                .collect()
        });
    insert_rows(tx, "issues", &filled, rows)
}

/// Inserts `rows` (each a cell per column of `columns`) into `table`, many rows to a
/// statement: executing a statement costs far more than the row it adds.
fn insert_rows(
    tx: &rusqlite::Transaction<'_>,
    table: &str,
    columns: &[&str],
    rows: impl Iterator<Item = Vec<Cell>>,
) -> Result<()> {
    // SQLite takes at most 32 766 parameters a statement.
    let batch = (32_000 / columns.len().max(1)).clamp(1, 256);
    let statement = |n: usize| {
        let row = format!("({})", vec!["?"; columns.len()].join(", "));
        let named: Vec<String> = columns.iter().map(|c| format!("\"{c}\"")).collect();
        let sql = format!(
            "INSERT INTO \"{table}\" ({}) VALUES {}",
            named.join(", "),
            vec![row; n].join(", ")
        );
        tx.prepare(&sql).map_err(query_err)
    };
    let mut full = statement(batch)?;
    let mut cells = Vec::with_capacity(batch * columns.len());
    let mut held = 0;
    for row in rows {
        cells.extend(row);
        held += 1;
        if held == batch {
            full.execute(rusqlite::params_from_iter(cells.drain(..)))
                .map_err(query_err)?;
            held = 0;
        }
    }
    if held > 0 {
        statement(held)?
            .execute(rusqlite::params_from_iter(cells))
            .map_err(query_err)?;
    }
    Ok(())
}

/// A time as bd's driver gives it to JSON: RFC 3339, to the second (a DATETIME).
fn time(t: &Timestamp) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Rows of `issues` (or `wisps`) for `beads`.
fn insert_issues(tx: &rusqlite::Transaction<'_>, table: &str, beads: &[Bead]) -> Result<()> {
    let rows = (beads.iter()).map(|b| ISSUE_COLUMNS.iter().map(|c| column(b, c)).collect());
    insert_rows(tx, table, &ISSUE_COLUMNS, rows)
}

/// The value of bd's column `name` for bead `b`.
fn column(b: &Bead, name: &str) -> Cell {
    let text = |s: &str| Cell::Text(s.to_owned());
    match name {
        "id" => text(b.id.as_str()),
        "title" => text(&b.title),
        "description" => text(&b.description),
        "notes" => text(&b.notes),
        "status" => text(b.status.as_str()),
        "priority" => Cell::Integer(i64::from(b.priority)),
        "issue_type" => text(b.kind.as_str()),
        "assignee" => b.assignee.as_deref().map_or(Cell::Null, text),
        "created_at" => Cell::Text(time(&b.created_at)),
        "created_by" => text(&b.created_by),
        "updated_at" => Cell::Text(time(&b.updated_at)),
        "closed_at" => b.closed_at.map_or(Cell::Null, |t| Cell::Text(time(&t))),
        "close_reason" => text(b.close_reason.as_deref().unwrap_or_default()),
        _ => match b.extra.get(name) {
            Some(Value::String(s)) => text(s),
            Some(Value::Bool(x)) => Cell::Integer(i64::from(*x)),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => Cell::Integer(i),
                None => Cell::Real(n.as_f64().unwrap_or_default()),
            },
            Some(Value::Null) | None => default_of(name),
            Some(other) => Cell::Text(other.to_string()),
        },
    }
}

/// What bd's schema puts in column `name` when nothing was set.
fn default_of(name: &str) -> Cell {
    match name {
        _ if NULLABLE.contains(&name) => Cell::Null,
        _ if INTEGERS.contains(&name) => Cell::Integer(0),
        "timeout_ns" => Cell::Integer(0),
        "work_type" => Cell::Text("mutex".into()),
        "metadata" => Cell::Text("{}".into()),
        _ => Cell::Text(String::new()),
    }
}

/// The labels, dependencies and comments of `beads` into the tables of `prefix`
/// (`""` for the stored beads, `wisp_` for the wisps, whose ids are `wisps`), those
/// the query reads.
fn insert_links(
    tx: &rusqlite::Transaction<'_>,
    prefix: &str,
    beads: &[Bead],
    wisps: &BTreeSet<&BeadId>,
    reads: &BTreeMap<String, BTreeSet<String>>,
) -> Result<()> {
    let wants = |t: &str| reads.contains_key(&format!("{prefix}{t}"));
    if wants("labels") {
        let rows = (beads.iter()).flat_map(|b| {
            (b.labels.iter()).map(|l| vec![Cell::Text(b.id.to_string()), Cell::Text(l.clone())])
        });
        insert_rows(tx, &format!("{prefix}labels"), &["issue_id", "label"], rows)?;
    }
    if wants("comments") {
        let rows = (beads.iter()).flat_map(|b| {
            (b.comments.iter()).map(|c| {
                let text = |s: &str| Cell::Text(s.to_owned());
                vec![
                    text(&c.id),
                    text(b.id.as_str()),
                    text(&c.author),
                    text(&c.text),
                    Cell::Text(time(&c.created_at)),
                ]
            })
        });
        insert_rows(tx, &format!("{prefix}comments"), &COMMENT_COLUMNS, rows)?;
    }
    if wants("dependencies") {
        let sql = match prefix {
            "" => "INSERT INTO dependencies VALUES (?1, ?2, ?3, ?4, ?5, '{}', '')",
            _ => {
                "INSERT INTO wisp_dependencies VALUES (?1 || '>' || ?2, ?1, \
                 CASE WHEN ?6 THEN NULL ELSE ?2 END, CASE WHEN ?6 THEN ?2 END, NULL, \
                 ?3, ?4, ?5, '{}', '')"
            }
        };
        let mut put = tx.prepare(sql).map_err(query_err)?;
        for b in beads {
            for d in &b.dependencies {
                let mut params = vec![
                    Cell::Text(b.id.to_string()),
                    Cell::Text(d.id.to_string()),
                    Cell::Text(d.kind.as_str().to_owned()),
                    Cell::Text(time(&b.created_at)),
                    Cell::Text(b.created_by.clone()),
                ];
                if !prefix.is_empty() {
                    params.push(Cell::Integer(i64::from(wisps.contains(&d.id))));
                }
                put.execute(rusqlite::params_from_iter(params))
                    .map_err(query_err)?;
            }
        }
    }
    Ok(())
}

/// A cell as bd's `--json` prints it: text as a string, numbers as numbers, NULL as
/// null.
fn json_of(cell: Cell) -> Value {
    match cell {
        Cell::Null => Value::Null,
        Cell::Integer(i) => i.into(),
        Cell::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        Cell::Text(s) => s.into(),
        Cell::Blob(b) => String::from_utf8_lossy(&b).into_owned().into(),
    }
}
