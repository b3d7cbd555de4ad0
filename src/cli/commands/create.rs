//! `git beads create` and `git beads q` (quick create).

use super::{parse_dep, parse_priority};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::graph::GraphPlan;
use crate::model::{BeadId, BeadType, Dependency};
use crate::ops::{self, NewBead};
use crate::wire;

/// Arguments of `create`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The title (or `--title`).
    #[arg(required_unless_present_any = ["title_flag", "graph"])]
    pub title: Option<String>,
    /// The title, as a flag.
    #[arg(long = "title", id = "title_flag", conflicts_with = "title")]
    pub title_flag: Option<String>,
    /// The description.
    #[arg(short, long, visible_alias = "body")]
    pub description: Option<String>,
    /// Read the description from this file (`-` for stdin).
    #[arg(long = "body-file", visible_alias = "description-file", conflicts_with_all = ["description", "stdin"])]
    pub body_file: Option<std::path::PathBuf>,
    /// Read the description from stdin.
    #[arg(long, conflicts_with = "description")]
    pub stdin: bool,
    /// Design notes (bd's `design`).
    #[arg(long)]
    pub design: Option<String>,
    /// Acceptance criteria (bd's `acceptance_criteria`).
    #[arg(long, visible_alias = "acceptance-criteria")]
    pub acceptance: Option<String>,
    /// Notes.
    #[arg(long)]
    pub notes: Option<String>,
    /// An external reference (`gh-9`, `jira-ABC`; bd's `external_ref`).
    #[arg(long = "external-ref")]
    pub external_ref: Option<String>,
    /// Due, deferral and estimate.
    #[command(flatten)]
    pub plan: super::update::PlanArgs,
    /// The type.
    #[arg(short = 't', long = "type", default_value = "task", value_parser = super::list::parse_type)]
    pub kind: BeadType,
    /// The priority, 0 (critical) … 4 (backlog).
    #[arg(short, long, value_parser = parse_priority, default_value = "2")]
    pub priority: u8,
    /// Who works on it.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Labels (comma-separated or repeatable).
    #[arg(short, long = "label", visible_alias = "labels", value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Make it the next child of this bead (its id becomes `<parent>.<n>`).
    #[arg(long)]
    pub parent: Option<String>,
    /// Dependencies: `ID` (blocks) or `KIND:ID`, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_dep)]
    pub deps: Vec<Dependency>,
    /// Give it this id instead of a fresh one; it must have the store's prefix (or
    /// one of the `allowed_prefixes` setting) unless `--force` is given.
    #[arg(long)]
    pub id: Option<BeadId>,
    /// With `--id`: make it whatever its prefix (bd's `--force`).
    #[arg(long, requires = "id")]
    pub force: bool,
    /// bd's event category (`patrol.digest`, `agent.started`; needs `--type event`).
    #[arg(long = "event-category", value_name = "CATEGORY")]
    pub event_category: Option<String>,
    /// bd's event actor: who caused the event (needs `--type event`).
    #[arg(long = "event-actor", value_name = "URI")]
    pub event_actor: Option<String>,
    /// bd's event target: what the event is about (needs `--type event`).
    #[arg(long = "event-target", value_name = "URI")]
    pub event_target: Option<String>,
    /// bd's event payload: the event's data, as text (JSON by custom; needs `--type
    /// event`).
    #[arg(long = "event-payload", value_name = "JSON")]
    pub event_payload: Option<String>,
    /// bd's custom metadata: a JSON object kept on the bead.
    #[arg(long, value_name = "JSON", value_parser = super::update::parse_metadata)]
    pub metadata: Option<serde_json::Value>,
    /// Make it a wisp (bd's ephemeral bead): kept on this machine only, never
    /// synced; `purge` removes it once closed.
    #[arg(long)]
    pub ephemeral: bool,
    /// bd's wisp type, how long the wisp is meant to live: heartbeat, ping, patrol,
    /// gc_report, recovery, error or escalation.
    #[arg(long = "wisp-type", value_name = "TYPE", value_parser = WISP_TYPES)]
    pub wisp_type: Option<String>,
    /// The repository to create it in (its path), instead of the current one.
    #[arg(long, value_name = "PATH")]
    pub repo: Option<std::path::PathBuf>,
    /// Print nothing but the id (the same as without --json).
    #[arg(long)]
    pub silent: bool,
    /// Check everything and print what would be made, without making it.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Make a whole graph of beads from bd's JSON plan (`-` for stdin): nodes named
    /// by keys, with parents, dependency edges and metadata pointing at each other,
    /// all in one commit or none; prints the id each key got (`{"ids": …}` with
    /// --json).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["title", "title_flag", "id", "parent", "deps", "dry_run"]
    )]
    pub graph: Option<std::path::PathBuf>,
}

/// bd's wisp types.
const WISP_TYPES: [&str; 7] = [
    "heartbeat",
    "ping",
    "patrol",
    "gc_report",
    "recovery",
    "error",
    "escalation",
];

/// Arguments of `q`: create and print only the id.
#[derive(clap::Args, Debug)]
pub struct QuickArgs {
    /// The title.
    pub title: String,
    /// The type.
    #[arg(short = 't', long = "type", default_value = "task", value_parser = super::list::parse_type)]
    pub kind: BeadType,
    /// The priority, 0 (critical) … 4 (backlog).
    #[arg(short, long, value_parser = parse_priority, default_value = "2")]
    pub priority: u8,
    /// Labels (comma-separated or repeatable).
    #[arg(short, long = "label", value_delimiter = ',')]
    pub labels: Vec<String>,
}

/// Runs `create`.
pub fn run(ctx: &Ctx, mut args: Args, out: &mut Out) -> Result<(), CliError> {
    if let Some(path) = args.repo.take() {
        let store = ops::discover(&path)?;
        if store.common_dir() != ctx.store.common_dir() {
            let there = Ctx::new(
                store,
                ctx.as_agent.clone(),
                ctx.as_person,
                ctx.actor.clone(),
            );
            return run(&there, args, out);
        }
    }
    if let Some(path) = &args.graph {
        return graph(ctx, path, args.ephemeral, out);
    }
    let actor = ctx.actor()?;
    let description = match (&args.body_file, args.stdin) {
        (Some(path), _) => super::read_text(path)?,
        (None, true) => super::read_text(std::path::Path::new("-"))?,
        (None, false) => args.description.unwrap_or_default(),
    };
    let parent = match &args.parent {
        Some(p) => Some(super::resolve_id(ctx, p)?),
        None => None,
    };
    let event = [
        ("event_kind", args.event_category),
        ("actor", args.event_actor),
        ("target", args.event_target),
        ("payload", args.event_payload),
    ];
    if args.kind != BeadType::Event && event.iter().any(|(_, v)| v.is_some()) {
        return Err(CliError::user(
            "--event-category, --event-actor, --event-target and --event-payload need --type event",
        ));
    }
    let event = event
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.into())));
    let fields = super::update::text_fields(args.design, args.acceptance, args.external_ref)
        .chain(args.plan.fields())
        .chain(args.metadata.map(|m| ("metadata".to_owned(), m)))
        .chain(event)
        .chain(args.wisp_type.map(|t| ("wisp_type".to_owned(), t.into())))
        .collect();
    let new = NewBead {
        title: args.title.or(args.title_flag).unwrap_or_default(),
        description,
        kind: Some(args.kind),
        status: args.plan.status(),
        priority: Some(args.priority),
        assignee: args.assignee,
        labels: args.labels,
        parent,
        dependencies: args.deps,
        notes: args.notes.unwrap_or_default(),
        fields,
        id: args.id,
        any_prefix: args.force,
        ephemeral: args.ephemeral,
    };
    if args.dry_run {
        let bead = ops::create_preview(&ctx.store, &actor, new)?;
        if out.json {
            return out.json(&wire::OneBead {
                bead: wire::Bead::plain(&bead),
            });
        }
        out.note(format!("would create {}: {}", bead.id, bead.title));
        return Ok(());
    }
    let bead = ops::create(&ctx.store, &actor, new)?;
    super::touched(ctx, &bead.id);
    if out.json && !args.silent {
        let detailed = ops::detail(&ctx.store, vec![bead])?;
        return out.json(&wire::OneBead {
            bead: wire::Bead::detailed(&detailed[0]),
        });
    }
    out.line(bead.id.as_str())
}

/// Runs `create --graph FILE`: the beads of the plan in `path`, in one commit.
fn graph(
    ctx: &Ctx,
    path: &std::path::Path,
    ephemeral: bool,
    out: &mut Out,
) -> Result<(), CliError> {
    let text = super::read_text(path)?;
    let (plan, warnings) = GraphPlan::parse(&text).map_err(|e| CliError::user(e.to_string()))?;
    for w in warnings {
        crate::cli::output::warn(format!("warning: {w}"));
    }
    let ids = ops::create_graph(&ctx.store, &ctx.actor()?, &plan, ephemeral)?;
    if out.json {
        return out.json(&wire::GraphCreated { ids: &ids });
    }
    out.line(format!(
        "Created {}",
        crate::model::count(ids.len(), "bead")
    ))?;
    for (key, id) in &ids {
        out.line(format!("  {key} -> {id}"))?;
    }
    Ok(())
}

/// Runs `q`: creates a bead and prints its id alone, `--json` or not.
pub fn quick(ctx: &Ctx, args: QuickArgs, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let bead = ops::create(
        &ctx.store,
        &actor,
        NewBead {
            title: args.title,
            kind: Some(args.kind),
            priority: Some(args.priority),
            labels: args.labels,
            ..NewBead::default()
        },
    )?;
    super::touched(ctx, &bead.id);
    out.line(bead.id.as_str())
}
