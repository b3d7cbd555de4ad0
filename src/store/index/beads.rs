//! The bead table of a state of the store: loaded from the cache, brought forward
//! through the delta file, folded into a new table, or rebuilt from the documents.

use super::*;

/// The beads changed since a table was written: the delta file's body.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Delta {
    /// The tree the table was built from.
    pub(super) base: Vec<u8>,
    pub(super) changes: Changes,
    /// Every bead document that does not parse.
    pub(super) broken: Vec<Broken>,
}

/// The beads changed since a table was written, in id order.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Changes {
    /// Changed and new beads.
    pub(super) beads: Vec<Summary>,
    /// Where the table has what each of [`Changes::beads`] names, in their order.
    pub(super) placed: Vec<Placed>,
    /// Ids gone from the store, or whose documents no longer parse, and where the
    /// table has each.
    pub(super) gone: Vec<(String, Placed)>,
}

impl Changes {
    /// The changes by id (`None` for a bead gone), and where the table has what each
    /// names.
    fn into_maps(self) -> (BTreeMap<String, Option<Summary>>, BTreeMap<String, Placed>) {
        let (mut changed, mut placed) = (BTreeMap::new(), BTreeMap::new());
        for (s, place) in self.beads.into_iter().zip(self.placed) {
            placed.insert(s.id.clone(), place);
            changed.insert(s.id.clone(), Some(s));
        }
        for (id, place) in self.gone {
            changed.insert(id.clone(), None);
            placed.insert(id, place);
        }
        (changed, placed)
    }

    /// The changes of `changed` over `table`, with where it has what each names from
    /// `placed` (looked up for any it leaves out).
    fn of_maps(
        table: &Table,
        changed: BTreeMap<String, Option<Summary>>,
        placed: &BTreeMap<String, Placed>,
    ) -> Changes {
        let mut changes = Changes::default();
        for (id, summary) in changed {
            let place = placed
                .get(&id)
                .cloned()
                .unwrap_or_else(|| Placed::of(table, &id, summary.as_ref()));
            match summary {
                Some(s) => {
                    changes.beads.push(s);
                    changes.placed.push(place);
                }
                None => changes.gone.push((id, place)),
            }
        }
        changes
    }
}

/// Where the table has what a changed bead names: its own id ([`NO_ROW`] when the
/// table has no such bead), the target of each of its dependencies on beads, in order
/// ([`NO_ROW`] for one the table does not hold), and the targets of the edges of the
/// row it replaced. Worked out once, by the read that takes the change in, and kept in
/// the delta: no later read looks a changed bead's ids up in the table or reads the
/// rows it replaced, so a read with many changed beads touches only the pieces of the
/// table it prints.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Placed {
    pub(super) own: u32,
    pub(super) targets: Vec<u32>,
    pub(super) was: Vec<u32>,
}

impl Placed {
    /// Looks up in `table` what `summary` (of bead `id`; `None` when it went from
    /// the store) names.
    pub(super) fn of(table: &Table, id: &str, summary: Option<&Summary>) -> Placed {
        let row = |id: &str| table.find(id).map_or(NO_ROW, offset);
        let own = row(id);
        let was = match own {
            NO_ROW => Vec::new(),
            own => (table.dependencies(own as usize))
                .map(|(_, _, target)| target)
                .collect(),
        };
        Placed {
            own,
            targets: summary
                .map(|s| s.dependencies.iter().map(|d| row(d.id.as_str())).collect())
                .unwrap_or_default(),
            was,
        }
    }
}

/// When the delta holds more beads than this, it is folded into a new table: a 64th
/// of the table, at least 256 and at most [`DELTA_MOST`].
pub(super) fn delta_limit(table: &Table) -> usize {
    (table.len() / 64).clamp(256, DELTA_MOST)
}

/// The most beads a delta holds before it is folded, whatever the size of the table:
/// each costs every read about 1.5 µs (decoding it, laying it over the table, sorting
/// it into a listing), so 2 048 keep a read within 1.5 times that of a freshly folded
/// table even at 1 000 000 beads, where that read takes about 10 ms. A fold there
/// costs seconds; once every 2 048 changed beads that is a few milliseconds a write.
const DELTA_MOST: usize = 2048;

/// How much of the search text a read of the beads needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Text {
    /// None (`ready`, `list` and the like).
    Not,
    /// The descriptions of the beads changed since the table was written, not the
    /// table's text (a search that scans the text file itself).
    Changed,
    /// All of it.
    Whole,
}

/// The bead table at `head`, with its search text as `text` asks; checked piece by
/// piece as it is read when `lazy` (see [`Part::LazyBeads`]), else whole.
pub(super) fn load_beads(
    store: &Store,
    ref_name: &str,
    head: &Head,
    text: Text,
    lazy: bool,
) -> Result<Index, StoreError> {
    let with_text = text == Text::Whole;
    let Some(Cached {
        table,
        texts,
        base,
        at,
        mut delta,
        descriptions,
    }) = read_cached(store, ref_name, with_text, lazy).or_else(|| {
        // A clone with no cache of its own starts from the index its remote sent.
        store
            .adopted_travelling_index(ref_name)
            .then(|| read_cached(store, ref_name, with_text, lazy))
            .flatten()
    })
    else {
        return rebuild_beads(store, ref_name, head);
    };
    // The descriptions are read only for search, or to write the delta out again.
    if (text != Text::Not || at != head.tree.as_bytes())
        && !describe(&mut delta.changes, descriptions.as_ref())
    {
        return rebuild_beads(store, ref_name, head);
    }
    if at == head.tree.as_bytes() {
        let mut index = Index::assemble(table, texts, delta.changes, delta.broken);
        index.base = base;
        return Ok(index);
    }
    let Some(from) = ObjectId::try_from(at.as_slice())
        .ok()
        .filter(|&t| store.repo.has_object(t))
    else {
        return rebuild_beads(store, ref_name, head);
    };
    let (mut changed, mut placed) = delta.changes.into_maps();
    let mut broken = (delta.broken.into_iter())
        .map(|b| (b.path, b.error))
        .collect();
    let touched = absorb_changes(store, from, head.tree, &mut changed, &mut broken)?;
    let broken = into_broken(broken);
    if changed.len() <= delta_limit(&table) {
        let seen = pieces::damage_seen();
        for id in touched {
            let summary = changed.get(&id).and_then(Option::as_ref);
            let place = Placed::of(&table, &id, summary);
            placed.insert(id, place);
        }
        let mut changes = Changes::of_maps(&table, changed, &placed);
        // Rows read from a damaged piece are never kept: the next read works them out
        // again from a sound table.
        if pieces::damage_seen() == seen {
            let delta_path = file_path(store, ref_name, File::Delta);
            save_delta(&delta_path, &base, head.tree, &mut changes, &broken);
        }
        let mut index = Index::assemble(table, texts, changes, broken);
        index.base = base;
        return Ok(index);
    }
    // Every row goes into the new table: none may come from a damaged piece.
    if !table.all_sound() {
        return rebuild_beads(store, ref_name, head);
    }
    let changes = Changes::of_maps(&table, changed, &placed);
    let staged = Index::assemble(table, Texts::default(), changes, Vec::new());
    fold_delta(store, ref_name, head, staged, &base, broken, with_text)
}

/// What the cache holds of a ref's beads: the table built from tree `base` (with its
/// search text, when asked for), and the beads changed over it as of tree `at`.
struct Cached {
    table: Table,
    texts: Texts,
    base: Vec<u8>,
    at: Vec<u8>,
    delta: Delta,
    /// The descriptions of the delta's beads, in their order: read only by what needs
    /// them (search, and the reads that write the delta or fold it).
    descriptions: Option<Raw>,
}

/// Gives the beads of `changes` their descriptions, kept apart in the delta file
/// (`raw`; none when there was no delta): whether they fit.
fn describe(changes: &mut Changes, raw: Option<&Raw>) -> bool {
    let Some(raw) = raw else {
        return changes.beads.is_empty();
    };
    match postcard::from_bytes::<Vec<String>>(bytes(raw)) {
        Ok(all) if all.len() == changes.beads.len() => {
            for (s, description) in changes.beads.iter_mut().zip(all) {
                s.description = description;
            }
            true
        }
        _ => false,
    }
}

/// Reads the cached table, its search text when `with_text`, and the delta laid over
/// it; `None` when a file that is needed is missing, torn or of another state.
fn read_cached(store: &Store, ref_name: &str, with_text: bool, lazy: bool) -> Option<Cached> {
    let path = |file| file_path(store, ref_name, file);
    let (base, broken, table) = match lazy {
        true => {
            let (base, sections, pieces) = read_apart(&path(File::Table), File::Table)?;
            (
                base,
                sections.first()?.clone(),
                Table::decode_pieces(pieces)?,
            )
        }
        false => {
            let (base, sections) = read_part(&path(File::Table), File::Table)?;
            let [broken, sums, table] = <[Raw; 3]>::try_from(sections).ok()?;
            if pieces::piece_sums(bytes(&table)) != sums_in(bytes(&sums)) {
                pieces::count_damage();
                return None;
            }
            (base, broken, Table::decode(table)?)
        }
    };
    let broken = postcard::from_bytes::<Vec<Broken>>(bytes(&broken)).ok()?;
    let texts = match with_text {
        false => Texts::default(),
        true => read_texts(&path(File::Text), &base, &table)?,
    };
    // The delta counts only when it was laid over this very table.
    let (at, delta, descriptions) =
        match read_part(&path(File::Delta), File::Delta).and_then(|(tree, s)| {
            let delta = postcard::from_bytes::<Delta>(bytes(s.first()?)).ok()?;
            Some((tree, delta, s.get(1)?.clone()))
        }) {
            Some((tree, delta, descriptions))
                if delta.base == base
                    && delta.changes.placed.len() == delta.changes.beads.len() =>
            {
                (tree, delta, Some(descriptions))
            }
            _ => (
                base.clone(),
                Delta {
                    broken,
                    ..Delta::default()
                },
                None,
            ),
        };
    Some(Cached {
        table,
        texts,
        base,
        at,
        delta,
        descriptions,
    })
}

/// Brings `changed` and `broken` from tree `from` forward to tree `to`, parsing only
/// the bead documents that differ. Returns the ids of `changed` it set.
fn absorb_changes(
    store: &Store,
    from: ObjectId,
    to: ObjectId,
    changed: &mut BTreeMap<String, Option<Summary>>,
    broken: &mut BTreeMap<String, String>,
) -> Result<Vec<String>, StoreError> {
    let mut touched = Vec::new();
    for change in diff_dir(store, from, to, refs::BEADS_DIR)? {
        match change.new {
            Some(blob) => {
                touched.extend(absorb::<Bead>(store, change.path, blob, changed, broken)?)
            }
            None => {
                if let Some(id) = refs::bead_id_of_path(&change.path) {
                    changed.insert(id.to_owned(), None);
                    touched.push(id.to_owned());
                }
                broken.remove(&change.path);
            }
        }
    }
    Ok(touched)
}

/// Writes the delta file at `path`: the beads `changed` over the table built from
/// `base`, as of `tree`. A cache that cannot be written only costs speed on the next
/// read.
fn save_delta(
    path: &std::path::Path,
    base: &[u8],
    tree: ObjectId,
    changes: &mut Changes,
    broken: &[Broken],
) {
    // The descriptions go apart, for the reads that need them (see [`describe`]).
    let descriptions: Vec<String> = (changes.beads.iter_mut())
        .map(|s| std::mem::take(&mut s.description))
        .collect();
    // A [`Delta`], borrowed: postcard writes a struct as the tuple of its fields.
    let _ = encode(&(base, &*changes, broken)).and_then(|delta| {
        let sections = [delta.as_slice(), &encode(&descriptions)?];
        write_part(path, File::Delta, tree.as_bytes(), &sections)
    });
    for (s, description) in changes.beads.iter_mut().zip(descriptions) {
        s.description = description;
    }
}

/// Folds the delta of `staged` (the table built from `base` with the changes over it)
/// into a new table of `head`, and saves it. The search text of the rows it keeps goes
/// from the old text file straight into the new one, never held.
pub(super) fn fold_delta(
    store: &Store,
    ref_name: &str,
    head: &Head,
    staged: Index,
    base: &[u8],
    broken: Vec<Broken>,
    with_text: bool,
) -> Result<Index, StoreError> {
    let path = |file| file_path(store, ref_name, file);
    let (table, moved, new) = staged.compacted();
    let mut index = Index::assemble(table, Texts::default(), Changes::default(), broken);
    index.base = head.tree.as_bytes().to_vec();
    let _ = save_table(store, ref_name, head.tree, &index);
    let copied = copy_texts(&path(File::Text), base, head.tree, &moved, &new);
    if with_text {
        match copied.and_then(|()| read_texts(&path(File::Text), &index.base, &index.table)) {
            Some(texts) => index.texts = texts,
            None => return rebuild_beads(store, ref_name, head),
        }
    }
    Ok(index)
}

/// Writes the search text file of a compacted table built from `tree`: the texts of
/// the rows it kept, copied from the text file at `path` (built from `base`) a piece at
/// a time, then `new`. `None` when the old file is missing, torn or of another state,
/// or the new one cannot be written.
pub(super) fn copy_texts(
    path: &std::path::Path,
    base: &[u8],
    tree: ObjectId,
    moved: &[u32],
    new: &[NewText],
) -> Option<()> {
    let mut old = PartReader::open(path, base)?;
    let len = old.section()?;
    let copy = TextsCopy::begin(&mut |buf| old.read(buf), len, moved, new)?;
    let mut out = PartWriter::create(path, File::Text).ok()?;
    out.section(tree.as_bytes().len()).ok()?;
    out.put(tree.as_bytes()).ok()?;
    out.section(copy.len()).ok()?;
    let mut write = |bytes: &[u8]| out.put(bytes).ok();
    copy.copy(&mut |buf| old.read(buf), new, &mut write, CHUNK)?;
    // The old file is checked whole before the new one takes its place.
    match old.whole() {
        true => out.finish().ok(),
        false => None,
    }
}

/// The search text of `table`, built from `base`; `None` when the file is missing,
/// torn or of another state.
pub(super) fn read_texts(path: &std::path::Path, base: &[u8], table: &Table) -> Option<Texts> {
    let (tree, sections) = read_part(path, File::Text)?;
    let texts = Texts::decode(sections.first()?.clone())?;
    (tree == base && texts.len() == table.len()).then_some(texts)
}

/// The rows of a table built from `base` (with `rows` rows) whose search text
/// contains `folded`, found while the text file is read a piece at a time and checked
/// against its checksum at the end; `None` when the file is missing, torn or of
/// another state.
pub(super) fn scan_text_file(
    path: &std::path::Path,
    base: &[u8],
    rows: usize,
    folded: &str,
) -> Option<Vec<usize>> {
    let mut file = PartReader::open(path, base)?;
    let len = file.section()?;
    let hits = table::scan_texts(&mut |buf| file.read(buf), len, rows, folded, CHUNK)?;
    file.whole().then_some(hits)
}

/// The bead table at `head` built from the documents, and saved.
pub(super) fn rebuild_beads(
    store: &Store,
    ref_name: &str,
    head: &Head,
) -> Result<Index, StoreError> {
    let index = Index::from_documents(store, head.tree)?;
    let _ = save_beads(store, ref_name, head.tree, &index);
    remove_old_versions(store);
    Ok(index)
}

/// Writes the table and the search text of `index` (which has no delta) as built from
/// `tree`, and removes the delta file.
pub(super) fn save_beads(
    store: &Store,
    ref_name: &str,
    tree: ObjectId,
    index: &Index,
) -> Result<(), StoreError> {
    save_table(store, ref_name, tree, index)?;
    let path = file_path(store, ref_name, File::Text);
    write_part(&path, File::Text, tree.as_bytes(), &[index.texts.bytes()])
}

/// Writes the table of `index` (which has no delta) as built from `tree`, and removes
/// the delta file and what was kept beside the table it replaces (it may name its rows).
/// A table read from its file a piece at a time is in that file already.
pub(super) fn save_table(
    store: &Store,
    ref_name: &str,
    tree: ObjectId,
    index: &Index,
) -> Result<(), StoreError> {
    let Some(table) = index.table.bytes() else {
        return Ok(());
    };
    let path = |file| file_path(store, ref_name, file);
    remove_file(&path(File::Delta))?;
    remove_file(&path(File::Kept))?;
    write_part(
        &path(File::Table),
        File::Table,
        tree.as_bytes(),
        &[&encode(&index.broken)?, table],
    )
}

/// The documents under `dir` that differ between two trees.
pub(super) fn diff_dir(
    store: &Store,
    from: ObjectId,
    to: ObjectId,
    dir: &str,
) -> Result<Vec<tree::DocChange>, StoreError> {
    let mut out = Vec::new();
    let (old, new) = (store.subtree(from, dir)?, store.subtree(to, dir)?);
    tree::diff(&store.repo, old, new, dir, &mut out)?;
    Ok(out)
}
