//! Answers kept between calls: a document a command printed of the whole store at one
//! tree, kept beside the index for the next call at the same tree.
//!
//! `blocked --json` has no limit (bd's has none): at 100 000 beads it prints 10 MB,
//! which takes longer to write than to read back. What a command prints of a tree is
//! the same every time (no clock, no setting outside the tree goes into it), so a
//! call at a tree asked for before keeps what it prints ([`Slot::keep`]), and the
//! next calls at that tree copy it from here. The first call at a tree only marks it
//! ([`Slot::ask`]): a store written between every two reads never pays for keeping
//! (10 MB to write), one read again and again pays once. An answer holds only for
//! the tree it was printed of and for the build that printed it (another build may
//! print it otherwise): any write to the store moves the tree, and a new binary has
//! another stamp. The file is checked whole (its header's checksum) before a byte of
//! it is used, and a missing, torn or foreign one is worked out again, so deleting
//! it changes no answer.

use super::*;

/// A document kept for one tree by this build, read and checked.
pub struct Answer {
    /// Documents in the store that do not parse, as the command reported them.
    notes: Raw,
    document: Raw,
}

impl Answer {
    /// The document, as printed.
    pub fn document(&self) -> &[u8] {
        bytes(&self.document)
    }

    /// The documents in the store that do not parse, which the command reported
    /// beside it; `None` when they do not decode as `T`.
    pub fn notes<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        postcard::from_bytes(bytes(&self.notes)).ok()
    }
}

/// What tells this build from another: the version, the cache format and the binary
/// file itself (its place on the disk, its length and its time of change). `None`
/// where the binary cannot be told, and then nothing is kept.
fn stamp() -> Option<&'static [u8]> {
    static STAMP: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    STAMP
        .get_or_init(|| {
            let exe = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
            let changed = exe.modified().ok()?.duration_since(std::time::UNIX_EPOCH);
            let mut stamp = format!(
                "{} {VERSION} {} {}",
                env!("CARGO_PKG_VERSION"),
                exe.len(),
                changed.ok()?.as_nanos()
            );
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                stamp.push_str(&format!(" {} {}", exe.dev(), exe.ino()));
            }
            Some(stamp.into_bytes())
        })
        .as_deref()
}

/// Where the answer printed of one tree is kept: what [`Slot::keep`] needs, apart
/// from the store, so that another thread may keep it while this one prints it.
pub struct Slot {
    /// The answer kept.
    path: std::path::PathBuf,
    /// The mark of the tree asked for last ([`Slot::ask`]): a file of its own, so that
    /// marking a new tree leaves the answer of the one before in place (replacing a
    /// 10 MB file costs a few milliseconds), until the next answer is kept.
    asked: std::path::PathBuf,
    tree: ObjectId,
}

impl Slot {
    /// The slot of the answer printed of `tree`, in the cache of `ref_name`.
    pub(crate) fn of(store: &Store, ref_name: &str, tree: ObjectId) -> Slot {
        Slot {
            path: file_path(store, ref_name, File::Answer),
            asked: file_path(store, ref_name, File::Asked),
            tree,
        }
    }

    /// The file at `path`, open past its stamp, when this build wrote it for the
    /// slot's tree (its front alone is read: its checksum is not checked).
    fn open(&self, path: &std::path::Path) -> Option<PartReader> {
        let stamp = stamp()?;
        let mut file = PartReader::open(path, self.tree.as_bytes())?;
        let mut ours = vec![0; file.section().filter(|&n| n == stamp.len())?];
        file.read(&mut ours)?;
        (ours == stamp).then_some(file)
    }

    /// The answer kept here, read and checked whole; `None` when there is none or it
    /// is torn. The file is read whole only once its front says it holds this tree's
    /// answer: after a write, it holds the answer of a tree before.
    pub fn kept(&self) -> Option<Answer> {
        self.open(&self.path)?;
        let (tree, mut sections) = read_part(&self.path, File::Answer)?;
        let ours = tree == self.tree.as_bytes() && Some(bytes(&sections[0])) == stamp();
        let document = sections.pop().filter(|_| ours)?;
        let notes = sections.pop()?;
        Some(Answer { notes, document })
    }

    /// Whether this build was asked for the answer of the slot's tree before (and
    /// marked it with [`Slot::ask`]).
    pub fn asked(&self) -> bool {
        self.open(&self.asked).is_some()
    }

    /// Marks the answer of the slot's tree as asked for, without keeping it: the next
    /// call at the same tree keeps it (see [`Slot::asked`]).
    pub fn ask(&self) {
        if let Some(stamp) = stamp() {
            let _ = write_part(&self.asked, File::Asked, self.tree.as_bytes(), &[stamp]);
        }
    }

    /// Keeps `document`, printed of the slot's tree with `notes`, in place of the
    /// answer kept before. A file that cannot be written only costs speed.
    pub fn keep<T: Serialize>(&self, notes: &T, document: &[u8]) {
        if let (Some(stamp), Ok(notes)) = (stamp(), encode(notes)) {
            let sections: [&[u8]; 3] = [stamp, &notes, document];
            let _ = write_part(&self.path, File::Answer, self.tree.as_bytes(), &sections);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_holds_for_its_tree_and_its_build_alone() {
        let (_dir, store) = Store::temp_for_tests();
        let tree = store.empty_tree();
        let other = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").expect("id");
        let slot = Slot::of(&store, "refs/beads/main", tree);
        assert!(!slot.asked() && slot.kept().is_none());
        slot.ask();
        assert!(slot.asked() && slot.kept().is_none(), "a mark is no answer");
        assert!(!Slot::of(&store, "refs/beads/main", other).asked());

        let broken = vec![Broken {
            path: "beads/x.yaml".into(),
            error: "bad".into(),
        }];
        slot.keep(&broken, b"[1,2]");
        let kept = slot.kept().expect("kept");
        assert_eq!(kept.document(), b"[1,2]");
        assert_eq!(kept.notes::<Vec<Broken>>(), Some(broken));
        assert!(Slot::of(&store, "refs/beads/main", other).kept().is_none());

        // The same file as another build wrote it holds nothing for this one.
        let sections: [&[u8]; 3] = [b"another build", b"", b"[1,2]"];
        write_part(&slot.path, File::Answer, tree.as_bytes(), &sections).expect("write");
        assert!(slot.kept().is_none());
        write_part(
            &slot.asked,
            File::Asked,
            tree.as_bytes(),
            &[b"another build"],
        )
        .expect("write");
        assert!(!slot.asked());
    }
}
