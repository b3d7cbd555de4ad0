//! `git beads graph`: a bead's dependency graph (or all open work's), drawn in layers
//! by dependency depth as bd draws it: columns of boxes (the default), `--box`,
//! `--compact`, `--dot`; and `graph check`.

use std::collections::BTreeMap;

use super::util::{cut_to, status_icon};
use crate::cli::{Ctx, error::CliError, output::Out};
use crate::model::{DepKind, Status};
use crate::ops::{self, Layout, Subgraph, Summary};
use crate::wire;

/// Arguments of `graph`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// The bead whose graph to draw: every bead linked to it, either way, by any kind
    /// of dependency.
    pub id: Option<String>,
    /// Draw the graph of all open work instead, one drawing per connected part.
    #[arg(long)]
    pub all: bool,
    /// Tree format, one line per bead, more scannable.
    #[arg(long)]
    pub compact: bool,
    /// ASCII boxes showing layers, more detailed.
    #[arg(long = "box")]
    pub boxes: bool,
    /// Graphviz DOT (pipe to `dot -Tsvg > graph.svg`).
    #[arg(long)]
    pub dot: bool,
    /// bd's interactive HTML page: not built here (use --dot with Graphviz).
    #[arg(long)]
    pub html: bool,
    /// Check the graph's integrity.
    #[command(subcommand)]
    pub check: Option<GraphCommand>,
}

/// The verbs of `graph`.
#[derive(clap::Subcommand, Debug)]
pub enum GraphCommand {
    /// Check the dependency graph for cycles; exits 1 when it finds one.
    Check,
}

/// Runs `graph`.
pub fn run(ctx: &Ctx, a: Args, out: &mut Out) -> Result<(), CliError> {
    if a.check.is_some() {
        return check(ctx, out);
    }
    if a.html {
        return Err(CliError::user("graph --html is not built into git-beads")
            .hint("draw it with Graphviz: `git beads graph --dot ID | dot -Tsvg > graph.svg`"));
    }
    let style = match (a.dot, a.compact, a.boxes) {
        (true, ..) => Style::Dot,
        (_, true, _) => Style::Compact,
        (_, _, true) => Style::Boxes,
        _ => Style::Columns,
    };
    let graphs = match (a.all, a.id) {
        (true, Some(_)) => return Err(CliError::user("cannot specify a bead id with --all")),
        (false, None) => {
            return Err(CliError::user("a bead id is required").hint("use --all for all open work"));
        }
        (true, None) => ops::dependency_graphs(&ctx.store)?,
        (false, Some(given)) => {
            let id = super::resolve_id(ctx, &given)?;
            let graph = ops::dependency_graph(&ctx.store, &id)?;
            if out.json {
                return out.json(&wire::GraphOf::new(&graph, &graph.layout()));
            }
            vec![graph]
        }
    };
    if out.json {
        return out.json_list(&wire::Graphs::new(&graphs));
    }
    if graphs.is_empty() {
        return out.line("No open issues found");
    }
    for (k, g) in graphs.iter().enumerate() {
        let layout = g.layout();
        let lines = match style {
            Style::Dot => dot(g, &layout),
            Style::Compact => compact(g, &layout),
            Style::Boxes => boxes(g, &layout),
            Style::Columns => columns(g, &layout),
        };
        for l in lines {
            out.line(l)?;
        }
        if style != Style::Dot && k + 1 < graphs.len() {
            out.line("─".repeat(60))?;
        }
    }
    Ok(())
}

/// `graph check`: bd's check for dependency cycles.
fn check(ctx: &Ctx, out: &mut Out) -> Result<(), CliError> {
    let (cycles, broken) = ops::dep_cycles(&ctx.store)?;
    out.warn_broken(&broken);
    if out.json {
        out.json(&wire::GraphCheck::new(&cycles))?;
    } else if cycles.is_empty() {
        for l in [
            "",
            "✓ Graph integrity check passed",
            "",
            "  ✓ No dependency cycles",
            "",
        ] {
            out.line(l)?;
        }
    } else {
        out.line("")?;
        out.line("✗ Graph integrity issues found")?;
        out.line("")?;
        out.line(format!("⚠ Cycles ({}):", cycles.len()))?;
        out.line("")?;
        for c in &cycles {
            out.line(format!("  {} → {}", c.join(" → "), c[0]))?;
        }
        out.line("")?;
        out.line("")?;
    }
    match cycles.len() {
        0 => Ok(()),
        n => Err(CliError::user(format!("{n} dependency cycle(s)"))),
    }
}

/// How to draw a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Columns,
    Boxes,
    Compact,
    Dot,
}

/// bd's legend of status icons.
const LEGEND: &str = "  Status: ○ open  ◐ in_progress  ● blocked  ✓ closed  ❄ deferred";

/// bd's `truncateTitle`: at most `max` characters, the last an ellipsis when cut.
fn truncate(title: &str, max: usize) -> String {
    cut_to(title, max, "…")
}

/// bd's `padRight`: exactly `width` characters.
fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s.chars().take(width).collect()
    } else {
        format!("{s}{}", " ".repeat(width - n))
    }
}

/// The `blocks` dependencies of a graph.
fn blocking(g: &Subgraph) -> impl Iterator<Item = &ops::GraphEdge> {
    g.edges.iter().filter(|e| e.kind == DepKind::Blocks)
}

/// The summary lines under a drawing.
fn totals(g: &Subgraph, layout: &Layout) -> Vec<String> {
    let mut lines = Vec::new();
    match blocking(g).count() {
        0 => {}
        n => lines.push(format!("  Dependencies: {n} blocking relationships")),
    }
    lines.push(format!(
        "  Total: {} issues across {} layers",
        g.beads.len(),
        layout.layers.len()
    ));
    lines.push(String::new());
    lines
}

/// The title of a layer.
fn layer_name(k: usize, word: &str) -> String {
    match k {
        0 => format!("{word} 0 (ready)"),
        k => format!("{word} {k}"),
    }
}

/// bd's default drawing: the layers as columns of boxes, left to right, with the
/// `blocks` edges routed through the gutters between them.
fn columns(g: &Subgraph, layout: &Layout) -> Vec<String> {
    const NODE_H: usize = 4;
    const BAND_H: usize = NODE_H + 1;
    const GUTTER_W: usize = 6;
    let root = &g.root_bead().id;
    let mut lines = vec![
        String::new(),
        format!("📊 Dependency graph for {root}:"),
        String::new(),
        LEGEND.to_owned(),
        String::new(),
    ];
    let node_w = g
        .beads
        .iter()
        .map(|b| (truncate(&b.title, 22).chars().count() + 3).max(b.id.len() + 4))
        .max()
        .map_or(18, |w| (w + 2).max(18));
    let rows = layout.layers.iter().map(Vec::len).max().unwrap_or(0);
    let total = (rows * BAND_H).saturating_sub(1);
    let grids: Vec<Vec<String>> = gutter_edges(g, layout)
        .iter()
        .map(|edges| gutter(edges, GUTTER_W, total, BAND_H))
        .collect();
    let mut header = String::from("  ");
    for k in 0..layout.layers.len() {
        header.push_str(&pad(&layer_name(k, "LAYER"), node_w + 2));
        if k + 1 < layout.layers.len() {
            header.push_str(&" ".repeat(GUTTER_W));
        }
    }
    lines.push(header.trim_end_matches(' ').to_owned());
    lines.push(String::new());
    for y in 0..total {
        let (row, sub) = (y / BAND_H, y % BAND_H);
        let mut line = String::from("  ");
        for (k, layer) in layout.layers.iter().enumerate() {
            match layer.get(row) {
                Some(&b) if sub < NODE_H => line.push_str(&node_line(&g.beads[b], node_w, sub)),
                _ => line.push_str(&" ".repeat(node_w + 2)),
            }
            if let Some(grid) = grids.get(k) {
                line.push_str(&grid[y]);
            }
        }
        lines.push(line.trim_end_matches(' ').to_owned());
    }
    lines.push(String::new());
    lines.extend(totals(g, layout));
    lines
}

/// One line of a bead's box in [`columns`].
fn node_line(b: &Summary, w: usize, line: usize) -> String {
    match line {
        0 => format!("┌{}┐", "─".repeat(w)),
        1 => format!(
            "│ {} {} │",
            status_icon(b.status),
            pad(&truncate(&b.title, w - 4), w - 4)
        ),
        2 => format!("│ {} │", pad(&format!("{} P{}", b.id, b.priority), w - 2)),
        _ => format!("└{}┘", "─".repeat(w)),
    }
}

/// The `blocks` edges through each gutter, as (source row, target row): an edge
/// spanning layers passes the gutters between at its target's row.
fn gutter_edges(g: &Subgraph, layout: &Layout) -> Vec<Vec<(usize, usize)>> {
    let mut gutters: Vec<Vec<(usize, usize)>> =
        vec![Vec::new(); layout.layers.len().saturating_sub(1)];
    for e in blocking(g) {
        let (src, tgt) = (e.on, e.from);
        let (from, to) = (layout.layer[src], layout.layer[tgt]);
        for (k, gutter) in gutters.iter_mut().enumerate().take(to).skip(from) {
            let s = if k == from {
                layout.position[src]
            } else {
                layout.position[tgt]
            };
            let edge = (s, layout.position[tgt]);
            if !gutter.contains(&edge) {
                gutter.push(edge);
            }
        }
    }
    gutters
}

/// bd's `buildDAGGutterGrid`: the characters of one gutter, a string per line.
fn gutter(edges: &[(usize, usize)], w: usize, total: usize, band: usize) -> Vec<String> {
    let mut grid = vec![vec![' '; w]; total];
    let vertical: Vec<usize> = (0..edges.len())
        .filter(|&k| edges[k].0 != edges[k].1)
        .collect();
    let channel = |k: usize| -> usize {
        let ci = vertical.iter().position(|&v| v == k).unwrap_or(0);
        match vertical.len() {
            1 => w / 2,
            n => 1 + ci * (w - 3) / (n - 1),
        }
    };
    for (k, &(s, t)) in edges.iter().enumerate() {
        let (sy, ty) = (s * band + 1, t * band + 1);
        if sy >= total || ty >= total {
            continue;
        }
        if sy == ty {
            for cell in grid[sy].iter_mut().take(w - 1) {
                *cell = merge(*cell, '─');
            }
            grid[sy][w - 1] = '▶';
            continue;
        }
        let x = channel(k);
        for cell in grid[sy].iter_mut().take(x) {
            *cell = merge(*cell, '─');
        }
        grid[sy][x] = merge(grid[sy][x], if sy < ty { '╮' } else { '╯' });
        for row in grid.iter_mut().take(sy.max(ty)).skip(sy.min(ty) + 1) {
            row[x] = merge(row[x], '│');
        }
        grid[ty][x] = merge(grid[ty][x], if sy < ty { '╰' } else { '╭' });
        for cell in grid[ty].iter_mut().take(w - 1).skip(x + 1) {
            *cell = merge(*cell, '─');
        }
        grid[ty][w - 1] = '▶';
    }
    grid.into_iter().map(|r| r.into_iter().collect()).collect()
}

/// bd's `dagMergeRune`: what a cell shows when a line crosses what it holds.
fn merge(old: char, new: char) -> char {
    match (old, new) {
        (' ', n) => n,
        ('│', '─') | ('─', '│') => '┼',
        (_, '▶') => '▶',
        ('│', '╮' | '╯') => '┤',
        ('│', '╰' | '╭') => '├',
        ('─', '╮' | '╭') => '┬',
        ('─', '╰' | '╯') => '┴',
        (_, n) => n,
    }
}

/// How many beads each bead blocks and waits on (`blocks` only, the root's blocking
/// left out, as bd counts them for `--box`).
fn counts(g: &Subgraph) -> (Vec<usize>, Vec<usize>) {
    let (mut blocks, mut needs) = (vec![0; g.beads.len()], vec![0; g.beads.len()]);
    for e in blocking(g).filter(|e| e.on != g.root) {
        blocks[e.on] += 1;
        needs[e.from] += 1;
    }
    (blocks, needs)
}

/// bd's `--box`: the layers top to bottom, a box per bead.
fn boxes(g: &Subgraph, layout: &Layout) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        format!("📊 Dependency graph for {}:", g.root_bead().id),
        String::new(),
        "  Status: ○ open  ◐ in_progress  ● blocked  ✓ closed".to_owned(),
        String::new(),
    ];
    // bd measures the titles in bytes here.
    let width = g
        .beads
        .iter()
        .map(|b| truncate(&b.title, 30).len())
        .max()
        .unwrap_or(0)
        + 4;
    let (blocks, needs) = counts(g);
    for (k, layer) in layout.layers.iter().enumerate() {
        lines.push(format!("  {}", layer_name(k, "Layer")));
        for &b in layer {
            let bead = &g.beads[b];
            let rule = "─".repeat(width);
            lines.push(format!("  ┌{rule}┐"));
            let title = pad(&truncate(&bead.title, width - 4), width - 4);
            lines.push(format!("  │ {} {title} │", status_icon(bead.status)));
            lines.push(format!("  │ {} │", pad(&bead.id, width - 2)));
            let mut info = Vec::new();
            if blocks[b] > 0 {
                info.push(format!("blocks:{}", blocks[b]));
            }
            if needs[b] > 0 {
                info.push(format!("needs:{}", needs[b]));
            }
            if !info.is_empty() {
                lines.push(format!("  │ {} │", pad(&info.join(" "), width - 2)));
            }
            lines.push(format!("  └{rule}┘"));
        }
        if k + 1 < layout.layers.len() {
            lines.push("      │".to_owned());
            lines.push("      ▼".to_owned());
        }
        lines.push(String::new());
    }
    lines.extend(totals(g, layout));
    lines
}

/// bd's `--compact`: a line per bead under its layer, each with its children below it.
fn compact(g: &Subgraph, layout: &Layout) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        format!(
            "📊 Dependency graph for {} ({} issues, {} layers)",
            g.root_bead().id,
            g.beads.len(),
            layout.layers.len()
        ),
        String::new(),
        LEGEND.to_owned(),
        String::new(),
    ];
    let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for e in g.edges.iter().filter(|e| e.kind == DepKind::ParentChild) {
        children.entry(e.on).or_default().push(e.from);
    }
    for kids in children.values_mut() {
        kids.sort_by(|&a, &b| {
            let (a, b) = (&g.beads[a], &g.beads[b]);
            a.priority
                .cmp(&b.priority)
                .then_with(|| natural(&a.id, &b.id))
        });
    }
    for (k, layer) in layout.layers.iter().enumerate() {
        lines.push(format!("  {}", layer_name(k, "LAYER")));
        let mut path = Vec::new();
        tree(g, &children, layer, "", &mut path, &mut lines);
        lines.push(String::new());
    }
    lines
}

/// The lines of `beads` and, below each, its children, as a tree under `prefix`
/// (`path`: the beads above, so that a cycle of parents ends).
fn tree(
    g: &Subgraph,
    children: &BTreeMap<usize, Vec<usize>>,
    beads: &[usize],
    prefix: &str,
    path: &mut Vec<usize>,
    lines: &mut Vec<String>,
) {
    for (k, &b) in beads.iter().enumerate() {
        let last = k + 1 == beads.len();
        let bead = &g.beads[b];
        lines.push(format!(
            "  {prefix}{}{} {} ● P{} {}",
            if last { "└── " } else { "├── " },
            status_icon(bead.status),
            bead.id,
            bead.priority,
            truncate(&bead.title, 50)
        ));
        if let Some(kids) = children.get(&b).filter(|_| !path.contains(&b)) {
            path.push(b);
            let inner = format!("{prefix}{}", if last { "    " } else { "│   " });
            tree(g, children, kids, &inner, path, lines);
            path.pop();
        }
    }
}

/// bd's `NaturalCompareIDs`: runs of digits compared as numbers.
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(bool, &str)> {
        let mut out: Vec<(bool, &str)> = Vec::new();
        let mut start = 0;
        for (k, c) in s.char_indices().skip(1) {
            let prev = s[..k]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_digit());
            if prev != c.is_ascii_digit() {
                out.push((prev, &s[start..k]));
                start = k;
            }
        }
        if !s.is_empty() {
            out.push((
                s[start..].starts_with(|c: char| c.is_ascii_digit()),
                &s[start..],
            ));
        }
        out
    }
    let key = |(digits, p): (bool, &str)| {
        let n = if digits {
            p.trim_start_matches('0').len()
        } else {
            0
        };
        (digits, n, p.to_owned())
    };
    parts(a)
        .into_iter()
        .map(key)
        .cmp(parts(b).into_iter().map(key))
}

/// bd's `--dot`: Graphviz, a cluster per layer, `blocks` and `parent-child` edges.
fn dot(g: &Subgraph, layout: &Layout) -> Vec<String> {
    let mut lines = vec![
        "digraph beads {".to_owned(),
        "  rankdir=LR;".to_owned(),
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];"
            .to_owned(),
        "  edge [color=\"#666666\"];".to_owned(),
        String::new(),
    ];
    let quoted = |id: &str| id.replace('\\', "\\\\").replace('"', "\\\"");
    for (k, layer) in layout.layers.iter().enumerate() {
        lines.push(format!("  subgraph cluster_layer_{k} {{"));
        lines.push("    style=invis;".to_owned());
        lines.push("    rank=same;".to_owned());
        for &b in layer {
            let bead = &g.beads[b];
            let plain = match bead.status {
                Status::Open | Status::InProgress | Status::Blocked | Status::Closed => {
                    status_icon(bead.status)
                }
                _ => "❄",
            };
            let (fill, font) = match bead.status {
                Status::Open => ("#e8f4fd", "#1a1a1a"),
                Status::InProgress => ("#fff3cd", "#664d03"),
                Status::Blocked => ("#f8d7da", "#842029"),
                Status::Closed => ("#d4edda", "#888888"),
                _ => ("#e2e3e5", "#41464b"),
            };
            let label = format!(
                "{plain} {}\\nP{} | {}",
                bead.id,
                bead.priority,
                truncate(&bead.title, 40)
            )
            .replace('"', "\\\"");
            lines.push(format!(
                "    \"{}\" [label=\"{label}\", fillcolor=\"{fill}\", fontcolor=\"{font}\"];",
                quoted(&bead.id)
            ));
        }
        lines.push("  }".to_owned());
    }
    lines.push(String::new());
    for e in &g.edges {
        let style = match e.kind {
            DepKind::Blocks => " [style=solid, arrowhead=normal]",
            DepKind::ParentChild => " [style=dashed, arrowhead=empty, color=\"#999999\"]",
            _ => continue,
        };
        lines.push(format!(
            "  \"{}\" -> \"{}\"{style};",
            quoted(&g.beads[e.on].id),
            quoted(&g.beads[e.from].id)
        ));
    }
    lines.push("}".to_owned());
    lines
}
