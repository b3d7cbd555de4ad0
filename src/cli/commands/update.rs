//! `git beads update`, `close`, `reopen` and `delete`.

use super::parse_priority;
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{Actor, Bead, BeadId, BeadType, DepKind, Status};
use crate::ops::{self, Changes, Edited};

/// Arguments of `update`.
#[derive(clap::Args, Debug)]
pub struct UpdateArgs {
    /// The beads to change (an id without its prefix will do where it is unambiguous);
    /// none: the bead last touched in this worktree.
    pub ids: Vec<String>,
    /// New title.
    #[arg(long)]
    pub title: Option<String>,
    /// New description.
    #[arg(short, long)]
    pub description: Option<String>,
    /// New notes.
    #[arg(long)]
    pub notes: Option<String>,
    /// Add to the end of the notes, on a line of their own.
    #[arg(long = "append-notes", conflicts_with = "notes")]
    pub append_notes: Option<String>,
    /// New design notes (bd's `design`).
    #[arg(long)]
    pub design: Option<String>,
    /// New acceptance criteria (bd's `acceptance_criteria`).
    #[arg(long, visible_alias = "acceptance-criteria")]
    pub acceptance: Option<String>,
    /// New external reference (`gh-9`, `jira-ABC`; bd's `external_ref`).
    #[arg(long = "external-ref")]
    pub external_ref: Option<String>,
    /// Due, deferral and estimate.
    #[command(flatten)]
    pub plan: PlanArgs,
    /// bd's custom metadata: a JSON object, in place of the one it has ("" removes it).
    #[arg(long, value_name = "JSON", value_parser = parse_metadata)]
    pub metadata: Option<serde_json::Value>,
    /// Set one key of the metadata (repeatable): `KEY=VALUE`, the value kept as a JSON
    /// number, boolean or null when it reads as one, else as a string (as bd keeps it).
    #[arg(
        long = "set-metadata",
        value_name = "KEY=VALUE",
        conflicts_with = "metadata"
    )]
    pub set_metadata: Vec<String>,
    /// Remove one key of the metadata (repeatable).
    #[arg(
        long = "unset-metadata",
        value_name = "KEY",
        conflicts_with = "metadata"
    )]
    pub unset_metadata: Vec<String>,
    /// bd's promotion of a wisp to an ordinary bead: clears the `ephemeral` mark an
    /// import from bd may have left (the beads of local-only molecules stay local).
    #[arg(long)]
    pub persistent: bool,
    /// With `--status closed`: the harness session that closes it (bd's
    /// `closed_by_session`; default `CLAUDE_SESSION_ID`).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// A new parent ("" removes it).
    #[arg(long)]
    pub parent: Option<String>,
    /// New status.
    #[arg(short, long)]
    pub status: Option<Status>,
    /// New priority.
    #[arg(short, long, value_parser = parse_priority)]
    pub priority: Option<u8>,
    /// New type.
    #[arg(short = 't', long = "type")]
    pub kind: Option<BeadType>,
    /// New assignee ("" clears it).
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Add a label (repeatable).
    #[arg(long = "add-label")]
    pub add_labels: Vec<String>,
    /// Remove a label (repeatable).
    #[arg(long = "remove-label")]
    pub remove_labels: Vec<String>,
    /// The labels it is to have, instead of the ones it has (comma-separated or
    /// repeatable).
    #[arg(long = "set-labels", value_delimiter = ',')]
    pub set_labels: Option<Vec<String>>,
    /// Claim it: in_progress and assigned to you, atomically; fails if someone else holds it.
    #[arg(long)]
    pub claim: bool,
    /// Where the claim is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `close`.
#[derive(clap::Args, Debug)]
pub struct CloseArgs {
    /// The beads to close; none: the bead last touched in this worktree.
    pub ids: Vec<String>,
    /// Why.
    #[arg(short, long)]
    pub reason: Option<String>,
    /// Read why from this file (`-` for stdin).
    #[arg(long = "reason-file", conflicts_with = "reason")]
    pub reason_file: Option<std::path::PathBuf>,
    /// What the work produced, as JSON: kept on the bead; a molecule step whose formula
    /// bonds a formula for each item of a list in its output (on_complete) reads it.
    #[arg(long, value_name = "JSON", value_parser = parse_json)]
    pub output: Option<serde_json::Value>,
    /// The harness session that closes them, kept on each bead as bd's
    /// `closed_by_session` (default: `CLAUDE_SESSION_ID`, as bd reads it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// bd's leave to close pinned beads, unsatisfied gates and beads with open
    /// blockers. git-beads refuses none of these, so the flag changes nothing.
    #[arg(short, long)]
    pub force: bool,
    /// Then say (on stderr) which bead is ready next.
    #[arg(long = "suggest-next")]
    pub suggest_next: bool,
    /// Then claim the next ready bead, atomically, and say which (on stderr).
    #[arg(long = "claim-next", conflicts_with = "suggest_next")]
    pub claim_next: bool,
    /// Where the close (and the next claim) is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `reopen`.
#[derive(clap::Args, Debug)]
pub struct ReopenArgs {
    /// The beads to reopen.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Why (added to its comments).
    #[arg(short, long)]
    pub reason: Option<String>,
}

/// Arguments of `delete`.
#[derive(clap::Args, Debug)]
pub struct DeleteArgs {
    /// The beads to delete.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Why.
    #[arg(short, long)]
    pub reason: Option<String>,
    /// Delete them: without it, as in bd, `delete` only shows what it would delete.
    #[arg(short, long)]
    pub force: bool,
    /// Only show what would be deleted, even with `--force`.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

/// Arguments of `release`.
#[derive(clap::Args, Debug)]
pub struct ReleaseArgs {
    /// The in-progress beads to give back.
    #[arg(required = true)]
    pub ids: Vec<BeadId>,
    /// Why (recorded in a comment on each bead, with who released it from whom).
    #[arg(short, long)]
    pub reason: Option<String>,
    /// Where the release is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Reports what `verb` did to each bead, and which of them already were so.
fn report(ctx: &Ctx, out: &mut Out, edited: Vec<Edited>, verb: &str) -> Result<(), CliError> {
    if out.json {
        let beads: Vec<Bead> = edited.into_iter().map(|e| e.bead).collect();
        return super::print_beads(ctx, out, beads);
    }
    for Edited { bead: b, changed } in &edited {
        if *changed {
            out.note(format!("{verb} {}: {}", b.id, b.title));
        } else {
            out.note(format!("{} is already {}", b.id, b.status));
        }
    }
    Ok(())
}

/// Runs `update`.
pub fn update(ctx: &Ctx, a: UpdateArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::ids_or_last(ctx, &a.ids)?;
    let parent = match a.parent.as_deref() {
        None => None,
        Some("") => Some(None),
        Some(p) => Some(Some(super::resolve_id(ctx, p)?)),
    };
    let status = a.status.or(a.plan.status());
    let session = (status == Some(Status::Closed))
        .then(|| {
            a.session
                .or_else(|| std::env::var("CLAUDE_SESSION_ID").ok())
        })
        .flatten()
        .filter(|s| !s.is_empty());
    let fields = text_fields(a.design, a.acceptance, a.external_ref)
        .chain(a.plan.fields())
        .chain(a.metadata.map(|m| ("metadata".to_owned(), m)))
        .chain(
            a.persistent
                .then(|| ("ephemeral".to_owned(), serde_json::Value::Null)),
        )
        .chain(session.map(|s| ("closed_by_session".to_owned(), s.into())))
        .collect();
    let metadata = metadata_edits(&a.set_metadata, &a.unset_metadata)?;
    let changes = Changes {
        title: a.title,
        description: a.description,
        notes: a.notes,
        status,
        priority: a.priority,
        kind: a.kind,
        assignee: a.assignee,
        add_labels: a.add_labels,
        remove_labels: a.remove_labels,
        claim: a.claim,
        append_notes: a.append_notes,
        // bd reads `--set-labels=` as no labels at all.
        set_labels: a
            .set_labels
            .map(|ls| ls.into_iter().filter(|l| !l.is_empty()).collect()),
        fields,
        metadata,
        parent,
    };
    let claim = changes.claim;
    a.at.only_with_claim(claim)?;
    let remote = if claim { a.at.remote(ctx, out)? } else { None };
    let edited = match remote {
        Some(remote) => ids
            .iter()
            .map(|id| ops::update_on(&ctx.store, &actor, id, changes.clone(), &remote))
            .collect::<Result<Vec<_>, _>>()?,
        None => ops::update(&ctx.store, &actor, &ids, changes)?,
    };
    if let Some(first) = edited.first() {
        super::touched(ctx, &first.bead.id);
    }
    if out.json {
        let beads: Vec<Bead> = edited.into_iter().map(|e| e.bead).collect();
        return super::print_beads(ctx, out, beads);
    }
    for Edited { bead, changed } in &edited {
        out.note(match (changed, claim) {
            (true, true) => format!("claimed {}: {}", bead.id, bead.title),
            (true, false) => format!("updated {}: {}", bead.id, bead.title),
            (false, true) => format!("{} is already claimed by {}", bead.id, actor.id),
            (false, false) => format!("{} already has those values", bead.id),
        });
    }
    Ok(())
}

/// Parses `--output`: a JSON document.
fn parse_json(s: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(s).map_err(|e| format!("not JSON: {e}"))
}

/// Runs `close`.
pub fn close(ctx: &Ctx, a: CloseArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::ids_or_last(ctx, &a.ids)?;
    let reason = match &a.reason_file {
        Some(path) => Some(super::read_text(path)?.trim_end().to_owned()),
        None => a.reason,
    };
    let remote = a.at.finish_remote(ctx, out)?;
    // bd takes the session from CLAUDE_SESSION_ID when --session is not given.
    let session = a
        .session
        .or_else(|| std::env::var("CLAUDE_SESSION_ID").ok());
    let how = ops::Closing {
        reason: reason.as_deref(),
        output: a.output.as_ref(),
        session: session.as_deref(),
    };
    let beads = match &remote {
        Some(r) => ops::close_on(&ctx.store, &actor, &ids, &how, r)?,
        None => ops::close_with_output(&ctx.store, &actor, &ids, &how)?,
    };
    report(ctx, out, beads, "closed")?;
    let next = ops::ListFilter {
        limit: 1,
        ..ops::ListFilter::default()
    };
    if a.claim_next {
        let claimed = match &remote {
            Some(r) => ops::ready_claim_on(&ctx.store, &actor, &next, r)?,
            None => ops::ready_claim(&ctx.store, &actor, &next)?,
        };
        if let Some(b) = &claimed {
            super::touched(ctx, &b.id);
        }
        match claimed {
            Some(b) => out.note(format!("claimed {}: {}", b.id, b.title)),
            None => out.note("nothing is ready next"),
        }
    } else if a.suggest_next {
        let ready = ops::ready(&ctx.store, &next)?;
        match ready.beads().next() {
            Some(b) => out.note(format!("ready next: {} {}", b.id(), b.title())),
            None => out.note("nothing is ready next"),
        }
    }
    Ok(())
}

/// Runs `reopen`.
pub fn reopen(ctx: &Ctx, a: ReopenArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::resolve_ids(ctx, &a.ids)?;
    let beads = ops::reopen(&ctx.store, &actor, &ids, a.reason.as_deref())?;
    report(ctx, out, beads, "reopened")
}

/// Runs `delete`.
pub fn delete(ctx: &Ctx, a: DeleteArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::resolve_ids(ctx, &a.ids)?;
    if !a.force || a.dry_run {
        return preview_delete(ctx, out, &ids, &actor);
    }
    let beads = ops::delete(&ctx.store, &actor, &ids, a.reason.as_deref())?;
    report(ctx, out, beads, "deleted")
}

/// `delete` without `--force` (or with `--dry-run`): what would be deleted, on
/// stdout as bd prints its preview (the beads as they are with `--json`); nothing
/// changes.
fn preview_delete(ctx: &Ctx, out: &mut Out, ids: &[BeadId], actor: &Actor) -> Result<(), CliError> {
    let beads = ops::delete_preview(&ctx.store, actor, ids)?;
    if out.json {
        return super::print_beads(ctx, out, beads);
    }
    out.line("DELETE PREVIEW: nothing is deleted yet")?;
    for b in &beads {
        out.line(format!("  {}  {}", b.id, b.title))?;
    }
    out.note("add --force to delete them (they become tombstones that sync as deletions)");
    Ok(())
}

/// Arguments of `duplicate`.
#[derive(clap::Args, Debug)]
pub struct DuplicateArgs {
    /// The duplicate, to close.
    pub id: String,
    /// The bead it duplicates, which stays.
    #[arg(long = "of", value_name = "ID")]
    pub of: String,
}

/// Arguments of `supersede`.
#[derive(clap::Args, Debug)]
pub struct SupersedeArgs {
    /// The bead replaced, to close.
    pub id: String,
    /// The bead that replaces it.
    #[arg(long = "with", value_name = "ID")]
    pub with: String,
}

/// Runs `duplicate`.
pub fn duplicate(ctx: &Ctx, a: DuplicateArgs, out: &mut Out) -> Result<(), CliError> {
    replaced(ctx, out, &a.id, &a.of, DepKind::Duplicates, "duplicate of")
}

/// Runs `supersede`.
pub fn supersede(ctx: &Ctx, a: SupersedeArgs, out: &mut Out) -> Result<(), CliError> {
    replaced(
        ctx,
        out,
        &a.id,
        &a.with,
        DepKind::Supersedes,
        "superseded by",
    )
}

/// Closes `id` as replaced by `by` (a `kind` dependency), with the reason `why BY`.
fn replaced(
    ctx: &Ctx,
    out: &mut Out,
    id: &str,
    by: &str,
    kind: DepKind,
    why: &str,
) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let id = super::resolve_id(ctx, id)?;
    let by = super::resolve_id(ctx, by)?;
    let reason = format!("{why} {by}");
    let edited = ops::close_replaced(&ctx.store, &actor, &id, &by, kind, &reason)?;
    report(ctx, out, vec![edited], "closed")
}

/// Arguments of `defer`.
#[derive(clap::Args, Debug)]
pub struct DeferArgs {
    /// The beads to put off.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Until when: an RFC 3339 time, a date (`2026-07-01`), `+2d` (m, h, d, w) or
    /// `tomorrow`.
    #[arg(long, value_parser = parse_until)]
    pub until: Option<chrono::DateTime<chrono::Utc>>,
}

/// Arguments of `undefer`.
#[derive(clap::Args, Debug)]
pub struct UndeferArgs {
    /// The beads to take off deferral.
    #[arg(required = true)]
    pub ids: Vec<String>,
}

/// Arguments of `note`.
#[derive(clap::Args, Debug)]
pub struct NoteArgs {
    /// The bead.
    pub id: String,
    /// The text to add.
    pub text: String,
}

/// bd's planning fields of `create` and `update`: when a bead is due, until when it
/// is put off, and how long it should take.
#[derive(clap::Args, Debug, Default)]
pub struct PlanArgs {
    /// When it is due (bd's `due_at`): a time as `defer --until` takes it; "" removes it.
    #[arg(long, value_parser = parse_when)]
    pub due: Option<String>,
    /// Put it off until then (status deferred, bd's `defer_until`): a time as `defer
    /// --until` takes it.
    #[arg(long, value_parser = parse_until)]
    pub defer: Option<chrono::DateTime<chrono::Utc>>,
    /// How long it should take, in minutes (bd's `estimated_minutes`).
    #[arg(
        long,
        value_name = "MINUTES",
        allow_negative_numbers = true,
        value_parser = parse_estimate
    )]
    pub estimate: Option<u32>,
}

impl PlanArgs {
    /// The fields these set, as bd writes them; an empty `--due` removes `due_at`.
    pub fn fields(&self) -> Vec<(String, serde_json::Value)> {
        let time = |t: &chrono::DateTime<chrono::Utc>| {
            t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        };
        let due = self.due.clone().map(serde_json::Value::from);
        let defer = self.defer.as_ref().map(|t| time(t).into());
        let estimate = self.estimate.map(serde_json::Value::from);
        [
            ("due_at", due),
            ("defer_until", defer),
            ("estimated_minutes", estimate),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
        .collect()
    }

    /// The status `--defer` asks for.
    pub fn status(&self) -> Option<Status> {
        self.defer.map(|_| Status::Deferred)
    }
}

/// bd's text fields of `create` and `update` that live in `extra`, those given.
pub fn text_fields(
    design: Option<String>,
    acceptance: Option<String>,
    external_ref: Option<String>,
) -> impl Iterator<Item = (String, serde_json::Value)> {
    [
        ("design", design),
        ("acceptance_criteria", acceptance),
        ("external_ref", external_ref),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.into())))
}

/// Parses a time as [`parse_until`] does, written as RFC 3339; "" stays "" (removal).
fn parse_when(s: &str) -> Result<String, String> {
    match s {
        "" => Ok(String::new()),
        s => parse_until(s).map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    }
}

/// Parses `--estimate`: whole minutes, none below zero. A negative number is taken
/// as a value (not a flag) so that it is refused for what it is, as bd refuses it.
fn parse_estimate(s: &str) -> Result<u32, String> {
    match s.parse::<i64>() {
        Ok(n) if n < 0 => Err("estimate must be a non-negative number of minutes".into()),
        _ => s
            .parse()
            .map_err(|_| format!("{s:?} is not a number of minutes")),
    }
}

/// The metadata edits of `--set-metadata KEY=VALUE` and `--unset-metadata KEY`, in that
/// order, checked as bd checks them (a key is a letter or `_`, then letters, digits,
/// `_` and `.`).
fn metadata_edits(
    set: &[String],
    unset: &[String],
) -> Result<Vec<(String, Option<serde_json::Value>)>, CliError> {
    let key = |k: &str| {
        check_metadata_key(k)
            .map(|()| k.to_owned())
            .map_err(CliError::user)
    };
    let mut edits = Vec::new();
    for kv in set {
        let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(CliError::user(format!(
                "invalid --set-metadata: expected key=value, got {kv:?}"
            )));
        };
        edits.push((key(k)?, Some(json_value(v))));
    }
    for k in unset {
        edits.push((key(k)?, None));
    }
    Ok(edits)
}

/// Checks a key of bd's metadata as bd does: a letter or `_`, then letters, digits,
/// `_` and `.`.
pub fn check_metadata_key(k: &str) -> Result<(), String> {
    let mut chars = k.chars();
    let first = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
        Ok(())
    } else {
        Err(format!(
            "invalid metadata key {k:?}: a letter or _, then letters, digits, _ or ."
        ))
    }
}

/// A metadata value as bd keeps it: `null`, `true`, `false` and numbers as JSON,
/// anything else as a string.
pub fn json_value(s: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(v) if v.is_null() || v.is_boolean() || v.is_number() => v,
        _ => s.into(),
    }
}

/// Parses `--metadata`: a JSON object, or "" (`null`: removal).
pub fn parse_metadata(s: &str) -> Result<serde_json::Value, String> {
    if s.is_empty() {
        return Ok(serde_json::Value::Null);
    }
    match serde_json::from_str::<serde_json::Value>(s) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(format!("{s:?} is not a JSON object")),
        Err(e) => Err(format!("{s:?} is not JSON: {e}")),
    }
}

/// Parses when a deferral ends: a date, an RFC 3339 time, `tomorrow`, or a count of
/// minutes, hours, days or weeks from now (`+2d`), in the years 0 to 9999.
fn parse_until(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    let now = chrono::Utc::now();
    let bad = || format!("{s:?} is not a time (2026-07-01, an RFC 3339 time, +2d, tomorrow)");
    let far = || format!("{s:?} is out of range (the years 0 to 9999)");
    let t = if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        t.with_timezone(&chrono::Utc)
    } else if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        d.and_time(chrono::NaiveTime::MIN).and_utc()
    } else if s == "tomorrow" {
        now + chrono::Duration::days(1)
    } else {
        let rest = s.strip_prefix('+').ok_or_else(bad)?;
        let unit = rest.chars().last().ok_or_else(bad)?;
        let n: i64 = match rest[..rest.len() - unit.len_utf8()].parse::<u32>() {
            Ok(n) => n.into(),
            Err(_) => return Err(bad()),
        };
        let step = match unit {
            'm' => chrono::Duration::try_minutes(n),
            'h' => chrono::Duration::try_hours(n),
            'd' => chrono::Duration::try_days(n),
            'w' => chrono::Duration::try_weeks(n),
            _ => return Err(bad()),
        };
        step.and_then(|step| now.checked_add_signed(step))
            .ok_or_else(far)?
    };
    match chrono::Datelike::year(&t) {
        0..=9999 => Ok(t),
        _ => Err(far()),
    }
}

/// Runs `update` with `changes` on `ids` and reports as `update` does.
fn change(
    ctx: &Ctx,
    out: &mut Out,
    ids: &[String],
    changes: Changes,
    verb: &str,
) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let ids = super::resolve_ids(ctx, ids)?;
    let edited = ops::update(&ctx.store, &actor, &ids, changes)?;
    report(ctx, out, edited, verb)
}

/// Runs `defer`.
pub fn defer(ctx: &Ctx, a: DeferArgs, out: &mut Out) -> Result<(), CliError> {
    let until = a
        .until
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    let changes = Changes {
        status: Some(Status::Deferred),
        fields: vec![("defer_until".to_owned(), until.unwrap_or_default().into())],
        ..Changes::default()
    };
    change(ctx, out, &a.ids, changes, "deferred")
}

/// Runs `undefer`.
pub fn undefer(ctx: &Ctx, a: UndeferArgs, out: &mut Out) -> Result<(), CliError> {
    let changes = Changes {
        status: Some(Status::Open),
        fields: vec![("defer_until".to_owned(), serde_json::Value::Null)],
        ..Changes::default()
    };
    change(ctx, out, &a.ids, changes, "undeferred")
}

/// Runs `note`.
pub fn note(ctx: &Ctx, a: NoteArgs, out: &mut Out) -> Result<(), CliError> {
    let changes = Changes {
        append_notes: Some(a.text),
        ..Changes::default()
    };
    change(ctx, out, std::slice::from_ref(&a.id), changes, "noted")
}

/// Runs `release`.
pub fn release(ctx: &Ctx, a: ReleaseArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let reason = a.reason.as_deref();
    let beads = match a.at.finish_remote(ctx, out)? {
        Some(r) => ops::release_on(&ctx.store, &actor, &a.ids, reason, &r)?,
        None => ops::release(&ctx.store, &actor, &a.ids, reason)?,
    };
    report(ctx, out, beads, "released")
}
