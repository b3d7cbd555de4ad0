//! The mail index: a summary of every message, brought forward like the beads.

use super::*;

/// The mail at `head` and the messages that do not parse.
pub(super) fn load_mail(
    store: &Store,
    ref_name: &str,
    head: &Head,
) -> Result<(Section<MailSummary>, Vec<Broken>), StoreError> {
    let path = file_path(store, ref_name, File::Mail);
    let cached = read_part(&path, File::Mail).and_then(|(tree, mut sections)| {
        let broken = postcard::from_bytes::<Vec<Broken>>(bytes(&sections.pop()?)).ok()?;
        let mail = Section {
            raw: sections.pop(),
            value: OnceLock::new(),
        };
        Some((tree, mail, broken))
    });
    let (mail, broken) = match cached {
        Some((tree, mail, broken)) if tree == head.tree.as_bytes() => {
            return Ok((mail, broken));
        }
        Some((tree, mail, broken)) => {
            match ObjectId::try_from(tree.as_slice())
                .ok()
                .filter(|&t| store.repo.has_object(t))
            {
                Some(from) => forward_mail(store, mail.take(), broken, from, head.tree)?,
                None => rebuild_mail(store, head.tree)?,
            }
        }
        None => rebuild_mail(store, head.tree)?,
    };
    let _ = encode(&mail)
        .and_then(|m| Ok([m, encode(&broken)?]))
        .and_then(|[m, b]| write_part(&path, File::Mail, head.tree.as_bytes(), &[&m, &b]));
    Ok((Section::decoded(mail), broken))
}

pub(super) fn rebuild_mail(
    store: &Store,
    tree: ObjectId,
) -> Result<(Vec<MailSummary>, Vec<Broken>), StoreError> {
    let mut mail = Vec::new();
    let docs = store.list_docs(tree, refs::MAIL_DIR)?;
    let broken = each_parsed::<Message>(store, &docs, &mut |m| mail.push(m.entry()))?;
    mail.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((mail, broken))
}

pub(super) fn forward_mail(
    store: &Store,
    mail: Vec<MailSummary>,
    broken: Vec<Broken>,
    from: ObjectId,
    to: ObjectId,
) -> Result<(Vec<MailSummary>, Vec<Broken>), StoreError> {
    let mut mail: BTreeMap<String, Option<MailSummary>> =
        mail.into_iter().map(|m| (m.id.clone(), Some(m))).collect();
    let mut broken: BTreeMap<String, String> =
        broken.into_iter().map(|b| (b.path, b.error)).collect();
    for change in diff_dir(store, from, to, refs::MAIL_DIR)? {
        match change.new {
            Some(blob) => {
                absorb::<Message>(store, change.path, blob, &mut mail, &mut broken)?;
            }
            None => {
                if let Some(id) = refs::mail_id_of_path(&change.path) {
                    mail.remove(id);
                }
                broken.remove(&change.path);
            }
        }
    }
    Ok((mail.into_values().flatten().collect(), into_broken(broken)))
}
