//! Parsing documents for the index, on every core.

use super::*;

/// A kind of document the index keeps an entry of.
pub(super) trait Indexed: serde::de::DeserializeOwned {
    /// What the index keeps of it.
    type Entry;
    /// The id a path of this kind names.
    fn id_of_path(path: &str) -> Option<&str>;
    /// The id the document says it has.
    fn doc_id(&self) -> &str;
    /// Its entry.
    fn entry(&self) -> Self::Entry;
}

impl Indexed for Bead {
    type Entry = Summary;

    fn id_of_path(path: &str) -> Option<&str> {
        refs::bead_id_of_path(path)
    }

    fn doc_id(&self) -> &str {
        self.id.as_str()
    }

    fn entry(&self) -> Summary {
        Summary::of(self)
    }
}

impl Indexed for Message {
    type Entry = MailSummary;

    fn id_of_path(path: &str) -> Option<&str> {
        refs::mail_id_of_path(path)
    }

    fn doc_id(&self) -> &str {
        self.id.as_str()
    }

    fn entry(&self) -> MailSummary {
        MailSummary::of(self)
    }
}

/// Parses one document of kind `D`: `None` for a path of another kind, the document,
/// or why it does not parse (or names another id than its path).
pub(super) fn parse<D: Indexed>(
    store: &Store,
    path: &str,
    blob: ObjectId,
) -> Result<Option<Result<D, String>>, StoreError> {
    let Some(id) = D::id_of_path(path) else {
        return Ok(None);
    };
    let parsed = codec::decode::<D>(&store.read_blob(blob)?)
        .map_err(|e| e.to_string())
        .and_then(|doc| match doc.doc_id() == id {
            true => Ok(doc),
            false => Err(format!(
                "its id is {}, but its path names {id}",
                doc.doc_id()
            )),
        });
    Ok(Some(parsed))
}

/// How many documents a thread of [`each_parsed`] takes at a time.
pub(super) const DOCS_PER_CLAIM: usize = 64;

/// Parses `docs` of kind `D` on every core and hands each one of that kind that parses
/// to `visit` on this thread, in no set order; returns those that do not, sorted by
/// path. The threads wait while `visit` is behind, so that no more than a few hundred
/// parsed documents are held at once.
pub(super) fn each_parsed<D: Indexed + Send>(
    store: &Store,
    docs: &[(String, ObjectId)],
    visit: &mut dyn FnMut(D),
) -> Result<Vec<Broken>, StoreError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    each_parsed_on(store, docs, cores, visit)
}

/// [`each_parsed`] on at most `threads` threads.
pub(super) fn each_parsed_on<D: Indexed + Send>(
    store: &Store,
    docs: &[(String, ObjectId)],
    threads: usize,
    visit: &mut dyn FnMut(D),
) -> Result<Vec<Broken>, StoreError> {
    let mut broken = Vec::new();
    let mut deliver = |path: &str, parsed: Option<Result<D, String>>| match parsed {
        Some(Ok(doc)) => visit(doc),
        Some(Err(error)) => broken.push(Broken {
            path: path.to_owned(),
            error,
        }),
        None => {}
    };
    let threads = threads.min(docs.len().div_ceil(DOCS_PER_CLAIM));
    if threads <= 1 {
        for (path, blob) in docs {
            deliver(path, parse::<D>(store, path, *blob)?);
        }
        broken.sort_by(|a, b| a.path.cmp(&b.path));
        return Ok(broken);
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        // A claim's documents go over together: one wake-up per claim, not per document.
        let (send, receive) = std::sync::mpsc::sync_channel(2 * threads);
        for _ in 0..threads {
            let (send, next) = (send.clone(), &next);
            let handle = store.for_thread();
            s.spawn(move || {
                loop {
                    let from = next.fetch_add(DOCS_PER_CLAIM, Ordering::Relaxed);
                    let Some(claim) = docs.get(from..docs.len().min(from + DOCS_PER_CLAIM)) else {
                        return;
                    };
                    let parsed: Result<Vec<_>, _> = (claim.iter())
                        .map(|(path, blob)| parse::<D>(&handle, path, *blob))
                        .collect();
                    let failed = parsed.is_err();
                    if send.send((from, parsed)).is_err() || failed {
                        // Past every claim: the other threads stop too.
                        next.store(docs.len(), Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut first_error = None;
        for (from, parsed) in receive {
            match parsed {
                Ok(claim) if first_error.is_none() => {
                    for (i, parsed) in claim.into_iter().enumerate() {
                        deliver(&docs[from + i].0, parsed);
                    }
                }
                Err(e) if first_error.is_none() => first_error = Some(e),
                _ => {}
            }
        }
        first_error.map_or(Ok(()), Err)
    })?;
    broken.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(broken)
}

/// Parses one document of kind `D` into `entries`, or files its path under `broken`
/// (and its id as gone). Paths of other kinds are left alone. Returns the id of the
/// entry it set.
pub(super) fn absorb<D: Indexed>(
    store: &Store,
    path: String,
    blob: ObjectId,
    entries: &mut BTreeMap<String, Option<D::Entry>>,
    broken: &mut BTreeMap<String, String>,
) -> Result<Option<String>, StoreError> {
    let Some(parsed) = parse::<D>(store, &path, blob)? else {
        return Ok(None);
    };
    match parsed {
        Ok(doc) => {
            broken.remove(&path);
            let id = doc.doc_id().to_owned();
            entries.insert(id.clone(), Some(doc.entry()));
            Ok(Some(id))
        }
        Err(e) => {
            let id = D::id_of_path(&path).map(str::to_owned);
            if let Some(id) = &id {
                entries.insert(id.clone(), None);
            }
            broken.insert(path, e);
            Ok(id)
        }
    }
}

pub(super) fn into_broken(broken: BTreeMap<String, String>) -> Vec<Broken> {
    broken
        .into_iter()
        .map(|(path, error)| Broken { path, error })
        .collect()
}
