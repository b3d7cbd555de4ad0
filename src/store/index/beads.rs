//! The bead table of a state of the store: loaded from the cache, brought forward
//! through the delta file, folded into a new table, or rebuilt from the documents.

use super::*;

/// The beads changed since a table was written: the delta file's body.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Delta {
    /// The tree the table was built from.
    pub(super) base: Vec<u8>,
    /// Changed and new beads.
    pub(super) beads: Vec<Summary>,
    /// Ids gone from the store, or whose documents no longer parse.
    pub(super) gone: Vec<String>,
    /// Every bead document that does not parse.
    pub(super) broken: Vec<Broken>,
}

/// When the delta holds more beads than this, it is folded into a new table.
pub(super) fn delta_limit(table: &Table) -> usize {
    256.max(table.len() / 64)
}

/// The bead table at `head`, with its search text when `with_text`; checked piece by
/// piece as it is read when `lazy` (see [`Part::LazyBeads`]), else whole.
pub(super) fn load_beads(
    store: &Store,
    ref_name: &str,
    head: &Head,
    with_text: bool,
    lazy: bool,
) -> Result<Index, StoreError> {
    let Some(Cached {
        table,
        texts,
        base,
        at,
        mut changed,
        mut broken,
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
    if at == head.tree.as_bytes() {
        let mut index = Index::assemble(table, texts, changed, into_broken(broken));
        index.base = base;
        return Ok(index);
    }
    let Some(from) = ObjectId::try_from(at.as_slice())
        .ok()
        .filter(|&t| store.repo.has_object(t))
    else {
        return rebuild_beads(store, ref_name, head);
    };
    absorb_changes(store, from, head.tree, &mut changed, &mut broken)?;
    let broken = into_broken(broken);
    if changed.len() <= delta_limit(&table) {
        let delta_path = file_path(store, ref_name, File::Delta);
        save_delta(&delta_path, &base, head.tree, &changed, &broken);
        let mut index = Index::assemble(table, texts, changed, broken);
        index.base = base;
        return Ok(index);
    }
    // Every row goes into the new table: none may come from a damaged piece.
    if !table.all_sound() {
        return rebuild_beads(store, ref_name, head);
    }
    let staged = Index::assemble(table, Texts::default(), changed, Vec::new());
    fold_delta(store, ref_name, head, staged, &base, broken, with_text)
}

/// What the cache holds of a ref's beads: the table built from tree `base` (with its
/// search text, when asked for), and the beads changed over it as of tree `at`.
struct Cached {
    table: Table,
    texts: Texts,
    base: Vec<u8>,
    at: Vec<u8>,
    changed: BTreeMap<String, Option<Summary>>,
    broken: BTreeMap<String, String>,
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
            let sums: Vec<u32> = bytes(&sums)
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if table::piece_sums(bytes(&table)) != sums {
                table::count_damage();
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
    let (at, delta) = match read_part(&path(File::Delta), File::Delta)
        .and_then(|(tree, s)| Some((tree, postcard::from_bytes::<Delta>(bytes(&s[0])).ok()?)))
    {
        Some((tree, delta)) if delta.base == base => (tree, delta),
        _ => (
            base.clone(),
            Delta {
                broken,
                ..Delta::default()
            },
        ),
    };
    let changed = delta
        .beads
        .into_iter()
        .map(|s| (s.id.clone(), Some(s)))
        .chain(delta.gone.into_iter().map(|id| (id, None)))
        .collect();
    let broken = delta
        .broken
        .into_iter()
        .map(|b| (b.path, b.error))
        .collect();
    Some(Cached {
        table,
        texts,
        base,
        at,
        changed,
        broken,
    })
}

/// Brings `changed` and `broken` from tree `from` forward to tree `to`, parsing only
/// the bead documents that differ.
fn absorb_changes(
    store: &Store,
    from: ObjectId,
    to: ObjectId,
    changed: &mut BTreeMap<String, Option<Summary>>,
    broken: &mut BTreeMap<String, String>,
) -> Result<(), StoreError> {
    for change in diff_dir(store, from, to, refs::BEADS_DIR)? {
        match change.new {
            Some(blob) => absorb::<Bead>(store, change.path, blob, changed, broken)?,
            None => {
                if let Some(id) = refs::bead_id_of_path(&change.path) {
                    changed.insert(id.to_owned(), None);
                }
                broken.remove(&change.path);
            }
        }
    }
    Ok(())
}

/// Writes the delta file at `path`: the beads `changed` over the table built from
/// `base`, as of `tree`. A cache that cannot be written only costs speed on the next
/// read.
fn save_delta(
    path: &std::path::Path,
    base: &[u8],
    tree: ObjectId,
    changed: &BTreeMap<String, Option<Summary>>,
    broken: &[Broken],
) {
    // A [`Delta`], borrowed: postcard writes a struct as the tuple of its fields.
    let delta = (
        base,
        changed.values().flatten().collect::<Vec<_>>(),
        changed
            .iter()
            .filter(|(_, s)| s.is_none())
            .map(|(id, _)| id)
            .collect::<Vec<_>>(),
        broken,
    );
    let _ =
        encode(&delta).and_then(|bytes| write_part(path, File::Delta, tree.as_bytes(), &[&bytes]));
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
    let mut index = Index::assemble(table, Texts::default(), BTreeMap::new(), broken);
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
