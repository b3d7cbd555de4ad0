//! `git beads list`, `ready`, `blocked` and `search`: queries answered from the index.

use super::parse_priority;
use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::{self, Out},
};
use crate::model::{BeadId, BeadType, Status};
use crate::ops::{self, ListFilter, Listing, Sort};
use crate::wire;

/// The filters every query shares (`list`, `search`, `ready`, `count`, `children`),
/// with bd's names: each takes a comma-separated list or repeats.
#[derive(clap::Args, Debug, Default)]
pub struct SelectArgs {
    /// Only beads of these types (`bug,feature`; bd's `feat`, `mr`, `mol`, `dec` too).
    #[arg(short = 't', long = "type", value_delimiter = ',', value_parser = parse_type)]
    pub kinds: Vec<BeadType>,
    /// Leave out beads of these types.
    #[arg(long = "exclude-type", value_delimiter = ',', value_parser = parse_type)]
    pub exclude_kinds: Vec<BeadType>,
    /// Only beads of these priorities (`0,1` or `P0,P1`).
    #[arg(short, long = "priority", value_delimiter = ',', value_parser = parse_priority)]
    pub priorities: Vec<u8>,
    /// Only beads assigned to this name.
    #[arg(short, long)]
    pub assignee: Option<String>,
    /// Only beads assigned to nobody.
    #[arg(short = 'u', long = "unassigned", visible_alias = "no-assignee")]
    pub unassigned: bool,
    /// Only beads with all of these labels.
    #[arg(short, long = "label", value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Only beads with at least one of these labels.
    #[arg(long = "label-any", value_delimiter = ',')]
    pub labels_any: Vec<String>,
    /// Leave out beads with any of these labels.
    #[arg(long = "exclude-label", value_delimiter = ',')]
    pub exclude_labels: Vec<String>,
    /// Only the descendants of this bead (through parent-child links).
    #[arg(long)]
    pub parent: Option<String>,
    /// Only beads whose title contains this text (case-insensitive).
    #[arg(long = "title-contains", visible_alias = "title")]
    pub title_contains: Option<String>,
}

/// The filters of `list` and `search` that look at more than the index keeps:
/// descriptions, creation times and bd's metadata.
#[derive(clap::Args, Debug, Default)]
pub struct MatchArgs {
    /// Only beads whose description contains this text (case-insensitive).
    #[arg(long = "desc-contains", value_name = "TEXT")]
    pub desc_contains: Option<String>,
    /// Only beads made after this time (RFC 3339, or a date).
    #[arg(long = "created-after", value_name = "TIME", value_parser = parse_time)]
    pub created_after: Option<crate::model::Timestamp>,
    /// Only beads whose metadata has KEY with VALUE (repeatable; all must hold).
    #[arg(long = "metadata-field", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub metadata: Vec<(String, String)>,
    /// `list`: show infrastructure beads (types agent, rig, role and message) and
    /// this machine's wisps (ephemeral beads), which `list` leaves out as bd's does;
    /// `--type` naming an infrastructure type shows them too. `search` lists them
    /// anyway.
    #[arg(long = "include-infra")]
    pub include_infra: bool,
    /// `list`: show gate beads, which `list` leaves out as bd's does (`--type gate`
    /// shows them too). `search` lists them anyway.
    #[arg(long = "include-gates")]
    pub include_gates: bool,
}

/// bd's infrastructure types, which its `list` leaves out unless asked: bd keeps them
/// among its wisps.
const INFRA: [BeadType; 4] = [
    BeadType::Agent,
    BeadType::Rig,
    BeadType::Role,
    BeadType::Message,
];

impl MatchArgs {
    /// `filter` with these filters added.
    fn apply(self, filter: ListFilter) -> ListFilter {
        ListFilter {
            desc_contains: self.desc_contains,
            created_after: self.created_after,
            metadata: self.metadata,
            ..filter
        }
    }
}

/// Parses a time for `--created-after`: RFC 3339, or a date (midnight UTC).
fn parse_time(s: &str) -> Result<crate::model::Timestamp, String> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|d| d.and_time(chrono::NaiveTime::MIN).and_utc())
        .map_err(|_| format!("{s:?} is not a time (2026-07-01 or an RFC 3339 time)"))
}

/// Parses `KEY=VALUE` of `--metadata-field`, the key as bd checks it.
fn parse_key_value(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("expected key=value, got {s:?}"))?;
    super::update::check_metadata_key(k)?;
    Ok((k.to_owned(), v.to_owned()))
}

/// What `list --format` prints.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    /// The JSON `--json` prints (bd's `--format json`).
    Json,
    /// The ids alone, one a line.
    Id,
}

/// The status filter of `list`, `search` and `count`.
#[derive(clap::Args, Debug, Default)]
pub struct StatusArgs {
    /// Only beads with these statuses (`open,in_progress`); `all` for every one but
    /// deleted.
    #[arg(short, long = "status", value_delimiter = ',', value_parser = parse_status)]
    pub statuses: Vec<StatusWord>,
}

/// A word `--status` takes: a status, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusWord {
    /// Every status but deleted.
    All,
    /// This status.
    Is(Status),
}

fn parse_status(s: &str) -> Result<StatusWord, String> {
    match s {
        "all" => Ok(StatusWord::All),
        s => s
            .parse()
            .map(StatusWord::Is)
            .map_err(|e: crate::model::ParseEnumError| format!("{e}, or all")),
    }
}

/// Parses a type, with bd's short names (see [`crate::model::parse_type`]).
pub use crate::model::parse_type;

impl SelectArgs {
    /// These arguments with `--parent` resolved as an id is (without its prefix too);
    /// a parent the store does not have is refused, as `show` refuses it.
    fn resolved(mut self, ctx: &Ctx) -> Result<SelectArgs, CliError> {
        if let Some(p) = &self.parent {
            self.parent = Some(existing(ctx, p)?.to_string());
        }
        Ok(self)
    }

    /// The filter these arguments ask for, with `statuses` (empty: open work) and
    /// `all` (closed beads too).
    pub fn into_filter(self, statuses: StatusArgs, all: bool, limit: usize) -> ListFilter {
        let every = statuses.statuses.contains(&StatusWord::All);
        ListFilter {
            statuses: match every {
                true => Vec::new(),
                false => statuses
                    .statuses
                    .into_iter()
                    .filter_map(|w| match w {
                        StatusWord::Is(s) => Some(s),
                        StatusWord::All => None,
                    })
                    .collect(),
            },
            kinds: self.kinds,
            exclude_kinds: self.exclude_kinds,
            priorities: self.priorities,
            assignee: self.assignee,
            unassigned: self.unassigned,
            labels: self.labels,
            labels_any: self.labels_any,
            exclude_labels: self.exclude_labels,
            parent: self.parent,
            title_contains: self.title_contains,
            all: all || every,
            limit,
            ..ListFilter::default()
        }
    }
}

/// bd's sort fields, as `list`, `search` and `query` take them.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ListSort {
    /// Highest priority first, then oldest.
    Priority,
    /// Newest first.
    Created,
    /// Most recently changed first.
    Updated,
    /// By status, then priority.
    Status,
    /// By id.
    Id,
    /// By title.
    Title,
    /// The most recently closed first (a closed bead's last change), the others after.
    Closed,
    /// By type.
    Type,
    /// By assignee, the unassigned first.
    Assignee,
}

impl ListSort {
    /// The order named `name`, as bd's `--sort` reads it: an unknown name (bd's parser
    /// takes `-created` as the name, not as a flag) fails as bd's does, exit 1.
    fn parse(name: &str) -> Result<ListSort, CliError> {
        clap::ValueEnum::from_str(name, false).map_err(|_| {
            CliError::user(format!(
                "invalid sort field {name:?} (valid: priority, created, updated, closed, \
                 status, id, title, type, assignee)"
            ))
        })
    }
}

/// The order of `list` and `search`.
#[derive(clap::Args, Debug)]
pub struct OrderArgs {
    /// The order: priority, created, updated, closed, status, id, title, type or
    /// assignee.
    #[arg(
        long,
        default_value = "priority",
        allow_hyphen_values = true,
        value_name = "FIELD"
    )]
    pub sort: String,
    /// Reverse the order.
    #[arg(short, long)]
    pub reverse: bool,
}

impl OrderArgs {
    /// The filter `select`, `statuses`, `all` and `limit` ask for (see
    /// [`SelectArgs::into_filter`]), `--parent` resolved, in this order.
    fn filter(
        self,
        ctx: &Ctx,
        select: SelectArgs,
        statuses: StatusArgs,
        (all, limit): (bool, usize),
    ) -> Result<ListFilter, CliError> {
        Ok(ListFilter {
            sort: match ListSort::parse(&self.sort)? {
                ListSort::Priority => Sort::Priority,
                ListSort::Created => Sort::Created,
                ListSort::Updated => Sort::Updated,
                ListSort::Status => Sort::Status,
                ListSort::Id => Sort::Id,
                ListSort::Title => Sort::Title,
                ListSort::Closed => Sort::Closed,
                ListSort::Type => Sort::Type,
                ListSort::Assignee => Sort::Assignee,
            },
            reverse: self.reverse,
            ..select.resolved(ctx)?.into_filter(statuses, all, limit)
        })
    }
}

/// The orders `ready --sort` offers (bd's policies).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ReadySort {
    /// Highest priority first, then oldest.
    Priority,
    /// Oldest first.
    Oldest,
    /// Recent work by priority first, then the rest oldest first.
    Hybrid,
}

/// Arguments of `list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Filters.
    #[command(flatten)]
    pub select: SelectArgs,
    /// The status filter.
    #[command(flatten)]
    pub status: StatusArgs,
    /// Include closed beads and lift the limit.
    #[arg(long)]
    pub all: bool,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
    /// The order.
    #[command(flatten)]
    pub order: OrderArgs,
    /// Accepted for bd's tools: the list is always flat (`--tree=false`).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub tree: Option<bool>,
    /// Accepted for bd's tools: the list is always flat.
    #[arg(long)]
    pub flat: bool,
    /// Filters on descriptions, creation times and metadata.
    #[command(flatten)]
    pub matching: MatchArgs,
    /// Print JSON (as `--json`) or the ids alone.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ListFormat>,
    /// Accepted for bd's tools: git-beads never pages its output.
    #[arg(long = "no-pager")]
    pub no_pager: bool,
}

/// Arguments of `ready`.
#[derive(clap::Args, Debug)]
pub struct ReadyArgs {
    /// Filters.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "100")]
    pub limit: usize,
    /// The order.
    #[arg(short, long, value_enum, default_value = "priority")]
    pub sort: ReadySort,
    /// Claim the first ready bead atomically and print it.
    #[arg(long)]
    pub claim: bool,
    /// Only the steps of this molecule (or wisp) that can be worked now, in step
    /// order (the other filters and --sort do not apply).
    #[arg(long, value_name = "MOL", conflicts_with = "claim")]
    pub mol: Option<String>,
    /// Where the claim is confirmed.
    #[command(flatten)]
    pub at: super::ClaimArgs,
}

/// Arguments of `blocked`.
#[derive(clap::Args, Debug)]
pub struct BlockedArgs {
    /// Only the descendants of this bead.
    #[arg(long)]
    pub parent: Option<String>,
}

/// Arguments of `search`.
#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The text to look for (case-insensitive).
    #[arg(required_unless_present = "query", conflicts_with = "query")]
    pub text: Option<String>,
    /// The text to look for, as bd's `--query` gives it.
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,
    /// Filters.
    #[command(flatten)]
    pub select: SelectArgs,
    /// The status filter (default: every status but closed and deleted, as bd
    /// searches; `--status all` adds the closed ones).
    #[command(flatten)]
    pub status: StatusArgs,
    /// Show at most this many (0: no limit).
    #[arg(short = 'n', long, default_value = "50")]
    pub limit: usize,
    /// The order.
    #[command(flatten)]
    pub order: OrderArgs,
    /// Filters on descriptions, creation times and metadata.
    #[command(flatten)]
    pub matching: MatchArgs,
}

/// Arguments of `count`.
#[derive(clap::Args, Debug)]
pub struct CountArgs {
    /// Filters.
    #[command(flatten)]
    pub select: SelectArgs,
    /// The status filter (default: every status but deleted).
    #[command(flatten)]
    pub status: StatusArgs,
    /// Count per status (bd's `Total: N` and a line per group; `{total, groups}` with
    /// --json).
    #[arg(long, group = "by")]
    pub by_status: bool,
    /// Count per priority (`P0` … `P4`).
    #[arg(long, group = "by")]
    pub by_priority: bool,
    /// Count per type.
    #[arg(long, group = "by")]
    pub by_type: bool,
    /// Count per assignee (`(unassigned)` for nobody).
    #[arg(long, group = "by")]
    pub by_assignee: bool,
    /// Count per label, a bead under each of its labels (`(no labels)` for none).
    #[arg(long, group = "by")]
    pub by_label: bool,
}

impl CountArgs {
    /// What `--by-*` groups the count by, if anything.
    fn by(&self) -> Option<ops::CountBy> {
        [
            (self.by_status, ops::CountBy::Status),
            (self.by_priority, ops::CountBy::Priority),
            (self.by_type, ops::CountBy::Type),
            (self.by_assignee, ops::CountBy::Assignee),
            (self.by_label, ops::CountBy::Label),
        ]
        .into_iter()
        .find_map(|(on, by)| on.then_some(by))
    }
}

/// Arguments of `children`.
#[derive(clap::Args, Debug)]
pub struct ChildrenArgs {
    /// The parent.
    pub id: String,
    /// Filters.
    #[command(flatten)]
    pub select: SelectArgs,
    /// The status filter (default: every status but deleted).
    #[command(flatten)]
    pub status: StatusArgs,
}

fn print_listing(out: &mut Out, listing: &Listing, empty: &str) -> Result<(), CliError> {
    print_listings(out, listing, None, empty)
}

/// The summaries of a listing's beads, as `--json` prints them.
fn summaries(listing: &Listing) -> Vec<wire::Summary<'_>> {
    let dependents = listing.dependents();
    (listing.beads())
        .map(|s| wire::Summary::new(s, dependents))
        .collect()
}

/// Prints a listing of the store's beads and one of this machine's wisps after it, as
/// one list.
fn print_listings(
    out: &mut Out,
    listing: &Listing,
    wisps: Option<&Listing>,
    empty: &str,
) -> Result<(), CliError> {
    let listings = || std::iter::once(listing).chain(wisps);
    for l in listings() {
        out.warn_broken(&l.broken);
    }
    if out.json {
        let mut all = summaries(listing);
        all.extend(
            wisps
                .into_iter()
                .flat_map(summaries)
                .map(wire::Summary::of_wisp),
        );
        return out.json_list(&wire::Listing(all));
    }
    let width = output::id_column(listings().flat_map(|l| l.beads().map(|s| s.id())));
    for s in listings().flat_map(Listing::beads) {
        out.summary_line(&s, width)?;
    }
    let shown: usize = listings().map(|l| l.beads().len()).sum();
    let total: usize = listings().map(Listing::total).sum();
    if shown == 0 {
        out.note(empty);
    } else if total > shown {
        out.note(format!("showing {shown} of {total}; --limit 0 shows all"));
    }
    Ok(())
}

/// Runs `list`: infrastructure beads, wisps and gates only when asked for, as bd's
/// `list` shows them; the wisps after the store's beads, within the same limit.
pub fn list(ctx: &Ctx, args: ListArgs, out: &mut Out) -> Result<(), CliError> {
    let limit = if args.all { 0 } else { args.limit };
    let mut filter = (args.order).filter(ctx, args.select, args.status, (args.all, limit))?;
    let asks = |k: BeadType| filter.kinds.contains(&k);
    let infra = args.matching.include_infra || INFRA.into_iter().any(asks);
    if !(args.matching.include_gates || asks(BeadType::Gate)) {
        filter.exclude_kinds.push(BeadType::Gate);
    }
    if !infra {
        filter.exclude_kinds.extend(INFRA);
    }
    let filter = args.matching.apply(filter);
    let listing = ops::list(&ctx.store, &filter)?;
    let shown = listing.beads().len();
    let wisps = match infra && (limit == 0 || shown < limit) {
        true => {
            let rest = ListFilter {
                limit: limit.saturating_sub(shown),
                ..filter
            };
            ops::list_wisps_matching(&ctx.store, &rest)?
        }
        false => None,
    };
    match args.format {
        Some(ListFormat::Json) => out.json = true,
        Some(ListFormat::Id) if !out.json => {
            for l in std::iter::once(&listing).chain(&wisps) {
                out.warn_broken(&l.broken);
                for s in l.beads() {
                    out.line(s.id())?;
                }
            }
            return Ok(());
        }
        _ => {}
    }
    print_listings(out, &listing, wisps.as_ref(), "no beads match")
}

/// Runs `count`: how many beads the filters keep (every status but deleted by
/// default, as bd counts).
pub fn count(ctx: &Ctx, args: CountArgs, out: &mut Out) -> Result<(), CliError> {
    let by = args.by();
    let filter = args.select.resolved(ctx)?.into_filter(args.status, true, 0);
    if let Some(by) = by {
        let (total, groups, broken) = ops::count_by(&ctx.store, &filter, by)?;
        out.warn_broken(&broken);
        if out.json {
            return out.json(&wire::CountGroups {
                total,
                groups: (groups.iter())
                    .map(|(group, &count)| wire::GroupCount { group, count })
                    .collect(),
            });
        }
        out.line(format!("Total: {total}"))?;
        out.line("")?;
        for (group, count) in &groups {
            out.line(format!("{group}: {count}"))?;
        }
        return Ok(());
    }
    let (count, broken) = ops::count(&ctx.store, &filter)?;
    out.warn_broken(&broken);
    if out.json {
        return out.json(&wire::Count { count });
    }
    out.line(count.to_string())
}

/// Runs `children`: the descendants of a bead, as `list` prints them.
pub fn children(ctx: &Ctx, args: ChildrenArgs, out: &mut Out) -> Result<(), CliError> {
    if args.select.parent.is_some() {
        return Err(CliError::new(
            Kind::Usage,
            "children takes its parent as ID, not as --parent",
        ));
    }
    let id = existing(ctx, &args.id)?;
    let select = SelectArgs {
        parent: Some(id.to_string()),
        ..args.select
    };
    let listing = ops::list(&ctx.store, &select.into_filter(args.status, true, 0))?;
    print_listing(out, &listing, &format!("{id} has no children"))
}

/// Runs `search`.
pub fn search(ctx: &Ctx, args: SearchArgs, out: &mut Out) -> Result<(), CliError> {
    let filter = (args.order).filter(ctx, args.select, args.status, (false, args.limit))?;
    let filter = args.matching.apply(filter);
    let text = args.text.or(args.query).unwrap_or_default();
    let listing = ops::search(&ctx.store, &text, &filter)?;
    print_listing(out, &listing, "no beads match")
}

/// The bead `given` names (see [`super::resolve_id`]), which must be in the store.
fn existing(ctx: &Ctx, given: &str) -> Result<BeadId, CliError> {
    let id = super::resolve_id(ctx, given)?;
    ops::require_bead(&ctx.store, &id)?;
    Ok(id)
}

/// Runs `ready`.
pub fn ready(ctx: &Ctx, args: ReadyArgs, out: &mut Out) -> Result<(), CliError> {
    args.at.only_with_claim(args.claim)?;
    if let Some(mol) = &args.mol {
        return ready_steps(ctx, mol, args.limit, out);
    }
    let filter = ListFilter {
        sort: match args.sort {
            ReadySort::Priority => Sort::Priority,
            ReadySort::Oldest => Sort::Oldest,
            ReadySort::Hybrid => Sort::Hybrid,
        },
        ..args
            .select
            .resolved(ctx)?
            .into_filter(StatusArgs::default(), false, args.limit)
    };
    if args.claim {
        let actor = ctx.actor()?;
        let bead = match args.at.remote(ctx, out)? {
            Some(remote) => ops::ready_claim_on(&ctx.store, &actor, &filter, &remote)?,
            None => ops::ready_claim(&ctx.store, &actor, &filter)?,
        };
        if let Some(b) = &bead {
            super::touched(ctx, &b.id);
        }
        if out.json {
            return super::print_beads(ctx, out, bead.into_iter().collect());
        }
        return match bead {
            Some(b) => {
                out.note(format!("claimed {}", b.id));
                out.line(b.id.as_str())
            }
            None => {
                out.note("nothing is ready");
                Ok(())
            }
        };
    }
    let listing = ops::ready(&ctx.store, &filter)?;
    print_listing(out, &listing, "nothing is ready")
}

/// Runs `ready --mol`: the steps of molecule `mol` that can be worked now, at most
/// `limit` (0: all), as `show` prints beads with --json (the array Gas Town reads).
fn ready_steps(ctx: &Ctx, mol: &str, limit: usize, out: &mut Out) -> Result<(), CliError> {
    let id = super::resolve_id(ctx, mol)?;
    let c = ops::current(&ctx.store, &ctx.actor()?, Some(&id))?;
    let take = if limit == 0 { usize::MAX } else { limit };
    let ready: Vec<crate::model::Bead> = c.ready().take(take).cloned().collect();
    if out.json {
        return super::print_beads(ctx, out, ready);
    }
    let p = &c.progress;
    out.line(format!(
        "{}  {}: {} of {} steps ready",
        p.molecule,
        p.title,
        p.steps.iter().filter(|s| s.ready).count(),
        p.total
    ))?;
    for s in p.steps.iter().filter(|s| s.ready).take(take) {
        out.line(format!("  {}", crate::cli::render::step_line(s)))?;
    }
    if ready.is_empty() {
        out.note("nothing is ready in it");
    }
    Ok(())
}

/// Runs `blocked`.
pub fn blocked(ctx: &Ctx, args: BlockedArgs, out: &mut Out) -> Result<(), CliError> {
    let parent = match &args.parent {
        Some(p) => Some(existing(ctx, p)?),
        None => None,
    };
    // The whole store's document is kept for the next call at the same head.
    if out.json
        && parent.is_none()
        && let Some(kept) = ops::kept_blocked(&ctx.store)?
    {
        out.warn_broken(&kept.broken);
        return out.json_list_with(|w| w.write_all(kept.document()));
    }
    let blocked = ops::blocked(&ctx.store, parent.as_ref())?;
    out.warn_broken(&blocked.broken);
    if out.json {
        let Some(keeper) = blocked.keeper(&ctx.store) else {
            return out.json_list_with(|w| wire::write_blocked(w, &blocked));
        };
        let mut document = Vec::new();
        wire::write_blocked(&mut document, &blocked)?;
        // Kept by another processor while this one prints it.
        return std::thread::scope(|s| {
            s.spawn(|| keeper.keep(&document));
            out.json_list_with(|w| w.write_all(&document))
        });
    }
    let mut line = String::new();
    let width = output::id_column(blocked.beads().map(|(bead, _)| bead.id()));
    for (bead, by) in blocked.beads() {
        out.summary_line(&bead, width)?;
        line.clear();
        line.push_str("    blocked by ");
        for (k, id) in by.iter().enumerate() {
            if k > 0 {
                line.push_str(", ");
            }
            line.push_str(id);
        }
        out.line(&line)?;
    }
    if blocked.beads().len() == 0 {
        out.note("nothing is blocked");
    }
    Ok(())
}
