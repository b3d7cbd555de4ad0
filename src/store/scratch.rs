//! Temporary files a write makes beside the object database (a pack being written,
//! its index), and what is left of them after a writer that did not finish.
//!
//! A [`ScratchFile`] has no name while it is written (Linux's `O_TMPFILE`): a write
//! interrupted by SIGINT or SIGTERM, or killed outright, leaves nothing behind, since
//! the kernel frees a nameless file when its last descriptor closes. Only once it is
//! complete does it get its name in the pack directory, in one step. Where the file
//! system cannot make nameless files, it is an ordinary temporary file removed when
//! the write fails, and what a killed writer left of such files (or git's own
//! `tmp_pack_*`) is found by [`Store::stale_scratch`] for `doctor --fix` to remove.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rustix::fs::{AtFlags, CWD, Mode, OFlags};

use super::Store;

/// A temporary file in the pack directory (see the module documentation).
pub(crate) struct ScratchFile {
    /// The file, to give its name from (a nameless file is linked through
    /// `/proc/self/fd`).
    file: File,
    /// The name of an ordinary temporary file; `None` for a nameless one.
    named: Option<PathBuf>,
    /// Whether it got its final name (else a named one is removed when dropped).
    placed: bool,
}

impl ScratchFile {
    /// A new empty file in `dir`, open for reading and writing, and a handle of it to
    /// write through. Nameless where the file system allows; else named `fallback`.
    pub(crate) fn create(dir: &Path, fallback: &str) -> std::io::Result<(File, ScratchFile)> {
        let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
        // A nameless file is named through /proc: without it, a named one.
        let nameless = match Path::new("/proc/self/fd").is_dir() {
            true => rustix::fs::openat(CWD, dir, flags, Mode::from_raw_mode(0o666)).ok(),
            false => None,
        };
        let (file, named) = match nameless {
            Some(fd) => (File::from(fd), None),
            None => {
                let path = dir.join(fallback);
                let file = File::options()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)?;
                (file, Some(path))
            }
        };
        let handle = file.try_clone()?;
        let scratch = ScratchFile {
            file,
            named,
            placed: false,
        };
        Ok((handle, scratch))
    }

    /// Where the file is, for a message: its temporary name, or the directory it is
    /// being written in.
    pub(crate) fn shown(&self, dir: &Path) -> String {
        match &self.named {
            Some(path) => path.display().to_string(),
            None => format!("a temporary file in {}", dir.display()),
        }
    }

    /// Gives the complete file its name `dest`. A pack of that name already there
    /// holds the same objects (the name is their checksum), and stays, made new: it
    /// may be one a killed writer left without its index, which housekeeping removes
    /// once it is old (and asks again just before).
    pub(crate) fn place(&mut self, dest: &Path) -> std::io::Result<()> {
        match &self.named {
            Some(path) => std::fs::rename(path, dest)?,
            None => {
                use std::os::fd::AsRawFd;
                let fd = format!("/proc/self/fd/{}", self.file.as_raw_fd());
                match rustix::fs::linkat(CWD, fd.as_str(), CWD, dest, AtFlags::SYMLINK_FOLLOW) {
                    Ok(()) => {}
                    Err(rustix::io::Errno::EXIST) => {
                        // (A file git wrote may be read-only: it stays as it is.)
                        let _ = File::options()
                            .write(true)
                            .open(dest)
                            .and_then(|f| f.set_modified(SystemTime::now()));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        self.placed = true;
        Ok(())
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        if let (Some(path), false) = (&self.named, self.placed) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// How long a temporary file of the object database must have gone untouched before
/// it is taken for one a killed writer left: a live writer touches its file all the
/// time it writes.
pub const STALE_SCRATCH: Duration = Duration::from_secs(15 * 60);

/// Whether the file name is one a pack writer uses while it writes: git's
/// (`tmp_pack_*`, `tmp_idx_*`, `tmp_rev_*`) and git-beads' own.
fn is_scratch(name: &str) -> bool {
    ["tmp_pack_", "tmp_idx_", "tmp_rev_"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The process a git-beads temporary file is named after (`tmp_pack_beads_<pid>`,
/// `tmp_idx_stream_<pid>`), if it is one.
fn writer_of(name: &str) -> Option<u32> {
    let (_, pid) = name.rsplit_once('_')?;
    match name.contains("_beads_") || name.contains("_stream_") {
        true => pid.parse().ok(),
        false => None,
    }
}

/// Whether process `pid` is alive on this machine.
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

impl Store {
    /// The temporary files in the object database's pack directory that no writer
    /// will finish: untouched for `older_than` and, for git-beads' own, named after a
    /// process that is gone. A file still being written is never among them.
    pub fn stale_scratch(&self, older_than: Duration) -> Vec<PathBuf> {
        let dir = self.common_dir().join("objects").join("pack");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let now = SystemTime::now();
        let mut stale: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                let untouched = (e.metadata().and_then(|m| m.modified()).ok())
                    .and_then(|at| now.duration_since(at).ok())
                    .is_some_and(|age| age >= older_than);
                let gone = |pid: u32| pid != std::process::id() && !alive(pid);
                is_scratch(&name) && untouched && writer_of(&name).is_none_or(gone)
            })
            .map(|e| e.path())
            .collect();
        stale.sort();
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_and_their_writers() {
        assert!(is_scratch("tmp_pack_Xy12Ab"));
        assert!(is_scratch("tmp_idx_beads_42"));
        assert!(!is_scratch("pack-0123.pack"));
        assert_eq!(writer_of("tmp_pack_beads_42"), Some(42));
        assert_eq!(writer_of("tmp_pack_stream_7"), Some(7));
        assert_eq!(writer_of("tmp_pack_Xy12Ab"), None);
    }

    /// A pack put in place again (a flush of the same queued write, after a writer
    /// killed before its index) keeps the file there and makes it new, so that
    /// housekeeping does not take it for one a killed writer left.
    #[test]
    fn placing_where_the_same_file_is_keeps_it_and_makes_it_new() {
        use std::io::Write;
        let dir = crate::store::temp_dir_for_tests();
        let dest = dir.path().join("pack-x.pack");
        std::fs::write(&dest, "same").expect("write");
        let old = SystemTime::now() - Duration::from_secs(3600);
        let f = File::options().write(true).open(&dest).expect("open");
        f.set_modified(old).expect("set the time");
        let (mut file, mut scratch) = ScratchFile::create(dir.path(), "tmp_y").expect("create");
        file.write_all(b"same").expect("write");
        scratch.place(&dest).expect("place");
        drop(scratch);
        assert_eq!(std::fs::read_to_string(&dest).expect("there"), "same");
        let at = std::fs::metadata(&dest)
            .and_then(|m| m.modified())
            .expect("a time");
        assert!(at > old + Duration::from_secs(1800), "{at:?}");
    }

    #[test]
    fn a_scratch_file_has_no_name_until_placed() {
        use std::io::{Read, Seek, Write};
        let dir = crate::store::temp_dir_for_tests();
        let (mut file, mut scratch) = ScratchFile::create(dir.path(), "tmp_x").expect("create");
        file.write_all(b"hello").expect("write");
        let names = || std::fs::read_dir(dir.path()).expect("read").count();
        if scratch.named.is_none() {
            assert_eq!(names(), 0, "a nameless file shows in no listing");
        }
        file.rewind().expect("rewind");
        let mut back = String::new();
        file.read_to_string(&mut back).expect("read back");
        assert_eq!(back, "hello");
        let dest = dir.path().join("pack-x.pack");
        scratch.place(&dest).expect("place");
        drop(scratch);
        assert_eq!(std::fs::read_to_string(&dest).expect("placed"), "hello");
        assert_eq!(names(), 1);
    }
}
